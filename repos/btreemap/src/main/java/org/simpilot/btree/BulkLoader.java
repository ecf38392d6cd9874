package org.simpilot.btree;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;

/**
 * Builds a {@link BTreeMap} bottom-up from input that is already sorted, which is much
 * cheaper than repeated insertion and yields nodes filled to a chosen fraction.
 *
 * <p>The leaves are packed first; every gap between two neighbouring leaves consumes one
 * input entry that becomes a separator on the level above. The same packing rule is then
 * applied to the separators, level by level, until a single root remains.
 */
public final class BulkLoader {

    /** Fill factor used when none is given: leaves room for a few inserts per node. */
    public static final double DEFAULT_FILL = 0.75;

    private BulkLoader() {
    }

    /**
     * Bulk loads the content of a sorted map, honouring its comparator.
     */
    public static <K, V> BTreeMap<K, V> load(int minDegree, SortedMap<K, V> source, double fill) {
        List<Entry<K, V>> entries = new ArrayList<>(source.size());
        for (Map.Entry<K, V> e : source.entrySet()) {
            entries.add(new Entry<>(e.getKey(), e.getValue()));
        }
        return load(minDegree, source.comparator(), entries, fill);
    }

    /**
     * Bulk loads strictly ascending entries ({@code comparator} may be {@code null} for
     * natural order). {@code fill} in {@code (0, 1]} is the target node fill; nodes never
     * drop below the B-tree minimum of {@code t - 1} keys regardless of it.
     *
     * @throws IllegalArgumentException on unsorted input or a bad fill factor
     */
    public static <K, V> BTreeMap<K, V> load(int minDegree, Comparator<? super K> comparator,
                                             List<Entry<K, V>> sorted, double fill) {
        if (!(fill > 0.0 && fill <= 1.0)) {
            throw new IllegalArgumentException("fill factor must be in (0, 1] but was " + fill);
        }
        BTreeMap<K, V> map = new BTreeMap<>(minDegree, comparator);
        checkAscending(sorted, map.comparator());
        int maxKeys = 2 * minDegree - 1;
        int capacity = Math.max(minDegree - 1, Math.min(maxKeys, (int) Math.round(fill * maxKeys)));

        // Pack the leaf level.
        int[] plan = plan(sorted.size(), minDegree, capacity);
        List<Node<K, V>> level = new ArrayList<>(plan.length);
        List<Entry<K, V>> separators = new ArrayList<>();
        int cursor = 0;
        for (int i = 0; i < plan.length; i++) {
            Node<K, V> leaf = map.newNode(true);
            for (int j = 0; j < plan[i]; j++) {
                Entry<K, V> e = sorted.get(cursor++);
                leaf.set(j, e.key(), e.value());
            }
            leaf.count = plan[i];
            level.add(leaf);
            if (i < plan.length - 1) {
                separators.add(sorted.get(cursor++));
            }
        }

        // Stack internal levels on top until one node is left.
        while (level.size() > 1) {
            plan = plan(separators.size(), minDegree, capacity);
            List<Node<K, V>> parents = new ArrayList<>(plan.length);
            List<Entry<K, V>> promoted = new ArrayList<>();
            int childCursor = 0;
            int sepCursor = 0;
            for (int i = 0; i < plan.length; i++) {
                Node<K, V> parent = map.newNode(false);
                parent.children[0] = level.get(childCursor++);
                for (int j = 0; j < plan[i]; j++) {
                    Entry<K, V> sep = separators.get(sepCursor++);
                    parent.set(j, sep.key(), sep.value());
                    parent.children[j + 1] = level.get(childCursor++);
                }
                parent.count = plan[i];
                parents.add(parent);
                if (i < plan.length - 1) {
                    promoted.add(separators.get(sepCursor++));
                }
            }
            level = parents;
            separators = promoted;
        }
        map.adopt(level.get(0), sorted.size());
        return map;
    }

    /**
     * Decides how many keys each node of one level receives.
     *
     * <p>Distributing {@code m} keys over {@code k} nodes uses {@code k - 1} of them as
     * separators for the level above, so the nodes share {@code m - k + 1} keys. We pick the
     * fewest nodes that respect {@code capacity}, then back off while the nodes would fall
     * under the minimum of {@code t - 1} keys, and finally spread the keys evenly.
     *
     * @return key counts per node, left to right; a single node for {@code m == 0}
     */
    static int[] plan(int m, int minDegree, int capacity) {
        int nodes = Math.max(1, (m + capacity + 1) / (capacity + 1));
        while (nodes > 1 && (m - nodes + 1) / nodes < minDegree - 1) {
            nodes--;
        }
        int keys = m - (nodes - 1);
        int[] sizes = new int[nodes];
        int base = keys / nodes;
        int extra = keys % nodes;
        for (int i = 0; i < nodes; i++) {
            sizes[i] = i < extra ? base + 1 : base;
        }
        return sizes;
    }

    private static <K, V> void checkAscending(List<Entry<K, V>> sorted, Comparator<? super K> cmp) {
        K previous = null;
        int index = 0;
        for (Entry<K, V> e : sorted) {
            Objects.requireNonNull(e, "entry at index " + index + " is null");
            if (previous != null && cmp.compare(previous, e.key()) >= 0) {
                throw new IllegalArgumentException("input is not strictly ascending at index "
                        + index + ": " + previous + " then " + e.key());
            }
            previous = e.key();
            index++;
        }
    }
}
