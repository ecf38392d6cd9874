package org.simpilot.btree;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Checks the structural invariants of a {@link BTreeMap}: node fill between {@code t - 1}
 * and {@code 2t - 1} keys (root excepted), key order within nodes and against the parent's
 * separators, complete child arrays, uniform leaf depth and a consistent size.
 */
public final class TreeValidator {

    /** The kinds of defects the validator can report. */
    public enum Kind {
        UNDERFLOW, OVERFLOW, ORDER, SEPARATOR, MISSING_CHILD, DEPTH, SIZE
    }

    /** One broken invariant; {@code nodeId} is {@code -1} for tree-wide defects. */
    public record Violation(Kind kind, long nodeId, String detail) {

        /** @return a one-line description such as {@code "node 7 underflows: 0 keys"} */
        public String describe() {
            String where = nodeId < 0 ? "tree" : "node " + nodeId;
            switch (kind) {
                case UNDERFLOW:
                    return where + " underflows: " + detail;
                case OVERFLOW:
                    return where + " overflows: " + detail;
                case ORDER:
                case SEPARATOR:
                    return where + " has misordered keys: " + detail;
                case MISSING_CHILD:
                    return where + " lacks a child: " + detail;
                default:
                    return where + " is unbalanced: " + detail;
            }
        }
    }

    private final int minDegree;
    private final Comparator<Object> cmp;
    private final List<Violation> found = new ArrayList<>();
    private int leafDepth = -1;
    private int keysSeen;

    @SuppressWarnings("unchecked")
    private TreeValidator(BTreeMap<?, ?> map) {
        this.minDegree = map.minDegree();
        this.cmp = (Comparator<Object>) map.comparator();
    }

    /** Runs every check; returns the violations in discovery order (empty if healthy). */
    public static List<Violation> check(BTreeMap<?, ?> map) {
        TreeValidator v = new TreeValidator(map);
        @SuppressWarnings("unchecked")
        Node<Object, Object> root = (Node<Object, Object>) map.root();
        v.walk(root, null, null, 0, true);
        if (v.keysSeen != map.size()) {
            v.report(Kind.SIZE, -1, "size() is " + map.size() + " but " + v.keysSeen
                    + " keys are stored");
        }
        return v.found;
    }

    /** Like {@link #check} but throws an {@link IllegalStateException} listing all problems. */
    public static void validate(BTreeMap<?, ?> map) {
        List<Violation> problems = check(map);
        if (!problems.isEmpty()) {
            throw new IllegalStateException(problems.size() + " invariant violation(s): "
                    + problems.stream().map(Violation::describe).collect(Collectors.joining("; ")));
        }
    }

    private void walk(Node<Object, Object> node, Object low, Object high, int depth, boolean isRoot) {
        int maxKeys = 2 * minDegree - 1;
        if (node.count > maxKeys) {
            report(Kind.OVERFLOW, node.id, node.count + " keys, at most " + maxKeys + " allowed");
        } else if (!isRoot && node.count < minDegree - 1) {
            report(Kind.UNDERFLOW, node.id, node.count + " keys, at least " + (minDegree - 1)
                    + " required");
        } else if (isRoot && !node.leaf && node.count == 0) {
            report(Kind.UNDERFLOW, node.id, "internal root without keys");
        }
        int n = Math.min(node.count, maxKeys);
        keysSeen += n;
        for (int i = 0; i < n; i++) {
            Object k = node.keys[i];
            if (i > 0 && cmp.compare(node.keys[i - 1], k) >= 0) {
                report(Kind.ORDER, node.id, node.keys[i - 1] + " precedes " + k);
            }
            if ((low != null && cmp.compare(k, low) <= 0) || (high != null && cmp.compare(k, high) >= 0)) {
                report(Kind.SEPARATOR, node.id, k + " is outside (" + low + ", " + high + ")");
            }
        }
        if (node.leaf) {
            if (leafDepth < 0) {
                leafDepth = depth;
            } else if (leafDepth != depth) {
                report(Kind.DEPTH, node.id, "leaf at depth " + depth + ", expected " + leafDepth);
            }
            return;
        }
        for (int i = 0; i <= n; i++) {
            Node<Object, Object> child = node.child(i);
            if (child == null) {
                report(Kind.MISSING_CHILD, node.id, "slot " + i + " of " + (n + 1) + " is empty");
                continue;
            }
            Object childLow = i == 0 ? low : node.keys[i - 1];
            Object childHigh = i == n ? high : node.keys[i];
            walk(child, childLow, childHigh, depth + 1, false);
        }
    }

    private void report(Kind kind, long nodeId, String detail) {
        found.add(new Violation(kind, nodeId, detail));
    }
}
