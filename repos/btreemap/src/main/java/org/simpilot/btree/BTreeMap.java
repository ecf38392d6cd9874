package org.simpilot.btree;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;

/**
 * An in-memory B-tree map (in the style of Bayer &amp; McCreight) with a configurable minimum
 * degree {@code t}. Every node except the root holds between {@code t - 1} and
 * {@code 2t - 1} keys and all leaves sit at the same depth.
 *
 * <p>Insertion splits full nodes on the way down, deletion tops up thin nodes on the way
 * down (borrowing from a sibling or merging with it), so both operations make a single pass
 * from the root. Keys must be non-null; values may be {@code null}.
 *
 * <p>An optional {@link PageCache} can be attached to count how many node reads a workload
 * would cost with a bounded buffer pool.
 */
public class BTreeMap<K, V> implements Iterable<Entry<K, V>> {

    /** Smallest legal minimum degree (a 2-3-4 tree). */
    public static final int MIN_DEGREE = 2;
    /** Largest accepted minimum degree; keeps node arrays to a sane size. */
    public static final int MAX_DEGREE = 4096;

    private final int t;
    private final Comparator<? super K> comparator;
    private Node<K, V> root;
    private int size;
    private int modCount;
    private long nextNodeId = 1;
    private long splitCount;
    private long mergeCount;
    private PageCache cache;

    /** Creates an empty map with natural key order and minimum degree {@code minDegree}. */
    public BTreeMap(int minDegree) {
        this(minDegree, null);
    }

    /**
     * Creates an empty map ordered by {@code comparator} ({@code null} means natural order).
     *
     * @throws IllegalArgumentException if the degree is outside [MIN_DEGREE, MAX_DEGREE]
     */
    @SuppressWarnings("unchecked")
    public BTreeMap(int minDegree, Comparator<? super K> comparator) {
        if (minDegree < MIN_DEGREE || minDegree > MAX_DEGREE) {
            throw new IllegalArgumentException("minimum degree must be in [" + MIN_DEGREE + ", "
                    + MAX_DEGREE + "] but was " + minDegree);
        }
        this.t = minDegree;
        this.comparator = comparator != null
                ? comparator
                : (Comparator<? super K>) Comparator.naturalOrder();
        this.root = newNode(true);
    }

    // ------------------------------------------------------------------ queries

    /** @return the number of mappings */
    public int size() {
        return size;
    }

    /** @return {@code true} when the map holds no mappings */
    public boolean isEmpty() {
        return size == 0;
    }

    /** @return the minimum degree {@code t} */
    public int minDegree() {
        return t;
    }

    /** @return the value for {@code key}, or {@code null} if absent (or mapped to null) */
    public V get(K key) {
        Entry<K, V> e = findEntry(key);
        return e == null ? null : e.value();
    }

    /** @return the value for {@code key} wrapped in an {@link Optional} */
    public Optional<V> find(K key) {
        return Optional.ofNullable(get(key));
    }

    /** @return whether {@code key} is present, even if mapped to {@code null} */
    public boolean containsKey(K key) {
        return findEntry(key) != null;
    }

    private Entry<K, V> findEntry(K key) {
        Objects.requireNonNull(key, "key must not be null");
        Node<K, V> node = root;
        while (true) {
            visit(node);
            int idx = node.indexOf(key, comparator);
            if (idx >= 0) {
                return node.entry(idx);
            }
            if (node.leaf) {
                return null;
            }
            node = node.child(-idx - 1);
        }
    }

    // ------------------------------------------------------------------ insertion

    /** Associates {@code value} with {@code key}; returns the previous value or {@code null}. */
    public V put(K key, V value) {
        Objects.requireNonNull(key, "key must not be null");
        Node<K, V> r = root;
        visit(r);
        if (r.isFull()) {
            // The only way a B-tree grows taller: split the root under a fresh parent.
            Node<K, V> grown = newNode(false);
            grown.children[0] = r;
            root = grown;
            splitChild(grown, 0);
            r = grown;
        }
        return insertNonFull(r, key, value);
    }

    private V insertNonFull(Node<K, V> start, K key, V value) {
        Node<K, V> node = start;
        while (true) {
            int idx = node.indexOf(key, comparator);
            if (idx >= 0) {
                V old = node.value(idx);
                node.values[idx] = value;
                return old;
            }
            int pos = -idx - 1;
            if (node.leaf) {
                node.insertAt(pos, key, value);
                size++;
                modCount++;
                return null;
            }
            Node<K, V> child = node.child(pos);
            visit(child);
            if (child.isFull()) {
                splitChild(node, pos);
                int c = comparator.compare(key, node.key(pos));
                if (c == 0) {
                    V old = node.value(pos);
                    node.values[pos] = value;
                    return old;
                } else if (c > 0) {
                    pos++;
                }
            }
            node = node.child(pos);
        }
    }

    /** Splits the full child {@code i} of a non-full parent; the median key moves up. */
    private void splitChild(Node<K, V> parent, int i) {
        Node<K, V> full = parent.child(i);
        Node<K, V> right = newNode(full.leaf);
        for (int j = 0; j < t - 1; j++) {
            right.set(j, full.key(j + t), full.value(j + t));
            full.set(j + t, null, null);
        }
        if (!full.leaf) {
            for (int j = 0; j < t; j++) {
                right.children[j] = full.children[j + t];
                full.children[j + t] = null;
            }
        }
        right.count = t - 1;
        K median = full.key(t - 1);
        V medianValue = full.value(t - 1);
        full.set(t - 1, null, null);
        full.count = t - 1;
        parent.insertChildAt(i + 1, right);
        parent.insertAt(i, median, medianValue);
        splitCount++;
    }

    // ------------------------------------------------------------------ deletion

    /** Removes the mapping for {@code key}; returns the old value or {@code null}. */
    public V remove(K key) {
        Objects.requireNonNull(key, "key must not be null");
        if (size == 0) {
            return null;
        }
        Entry<K, V> removed = delete(root, key);
        if (root.count == 0 && !root.leaf) {
            // The root was drained by a merge: the tree shrinks by one level.
            Node<K, V> old = root;
            root = root.child(0);
            release(old);
        }
        if (removed == null) {
            return null;
        }
        size--;
        modCount++;
        return removed.value();
    }

    /** Removes and returns the smallest entry; throws if the map is empty. */
    public Entry<K, V> pollFirst() {
        Entry<K, V> first = firstEntry();
        remove(first.key());
        return first;
    }

    private Entry<K, V> delete(Node<K, V> start, K key) {
        Node<K, V> node = start;
        while (true) {
            visit(node);
            int idx = node.indexOf(key, comparator);
            if (idx >= 0) {
                if (node.leaf) {
                    Entry<K, V> e = node.entry(idx);
                    node.removeAt(idx);
                    return e;
                }
                return deleteFromInternal(node, idx);
            }
            if (node.leaf) {
                return null;
            }
            node = ensureSpare(node, -idx - 1);
        }
    }

    private Entry<K, V> deleteFromInternal(Node<K, V> node, int idx) {
        Entry<K, V> target = node.entry(idx);
        Node<K, V> left = node.child(idx);
        Node<K, V> right = node.child(idx + 1);
        if (left.count >= t) {
            // Replace with the in-order predecessor and delete that from the left subtree.
            Entry<K, V> pred = extreme(left, false);
            node.set(idx, pred.key(), pred.value());
            delete(left, pred.key());
        } else if (right.count >= t) {
            Entry<K, V> succ = extreme(right, true);
            node.set(idx, succ.key(), succ.value());
            delete(right, succ.key());
        } else {
            Node<K, V> merged = merge(node, idx);
            delete(merged, target.key());
        }
        return target;
    }

    /**
     * Makes sure {@code parent.children[ci]} has at least {@code t} keys before we descend
     * into it, so a deletion further down cannot underflow it. Returns the node to enter.
     */
    private Node<K, V> ensureSpare(Node<K, V> parent, int ci) {
        Node<K, V> child = parent.child(ci);
        if (child.count >= t) {
            return child;
        }
        if (ci > 0 && parent.child(ci - 1).count >= t) {
            rotateRight(parent, ci);
            return child;
        }
        if (ci < parent.count && parent.child(ci + 1).count >= t) {
            rotateLeft(parent, ci);
            return child;
        }
        return ci < parent.count ? merge(parent, ci) : merge(parent, ci - 1);
    }

    /** Moves the separator down into child {@code ci} and the left sibling's last key up. */
    private void rotateRight(Node<K, V> parent, int ci) {
        Node<K, V> child = parent.child(ci);
        Node<K, V> left = parent.child(ci - 1);
        visit(left);
        if (!child.leaf) {
            child.insertChildAt(0, left.child(left.count));
            left.children[left.count] = null;
        }
        child.insertAt(0, parent.key(ci - 1), parent.value(ci - 1));
        int last = left.count - 1;
        parent.set(ci - 1, left.key(last), left.value(last));
        left.removeAt(last);
    }

    /** Moves the separator down into child {@code ci} and the right sibling's first key up. */
    private void rotateLeft(Node<K, V> parent, int ci) {
        Node<K, V> child = parent.child(ci);
        Node<K, V> right = parent.child(ci + 1);
        visit(right);
        child.insertAt(child.count, parent.key(ci), parent.value(ci));
        parent.set(ci, right.key(0), right.value(0));
        if (!child.leaf) {
            child.children[child.count] = right.child(0);
        }
        right.removeAt(0);
        if (!right.leaf) {
            right.removeChildAt(0);
        }
    }

    /** Merges separator {@code i} and child {@code i + 1} into child {@code i}, which is returned. */
    private Node<K, V> merge(Node<K, V> parent, int i) {
        Node<K, V> left = parent.child(i);
        Node<K, V> right = parent.child(i + 1);
        visit(right);
        int base = left.count;
        left.set(base, parent.key(i), parent.value(i));
        for (int j = 0; j < right.count; j++) {
            left.set(base + 1 + j, right.key(j), right.value(j));
        }
        if (!left.leaf) {
            for (int j = 0; j <= right.count; j++) {
                left.children[base + 1 + j] = right.child(j);
            }
        }
        left.count = base + 1 + right.count;
        parent.removeAt(i);
        parent.removeChildAt(i + 1);
        release(right);
        mergeCount++;
        return left;
    }

    /** Removes every mapping; the structural counters are kept. */
    public void clear() {
        Deque<Node<K, V>> pending = new ArrayDeque<>();
        pending.push(root);
        while (!pending.isEmpty()) {
            Node<K, V> n = pending.pop();
            release(n);
            if (!n.leaf) {
                for (int i = 0; i <= n.count; i++) {
                    pending.push(n.child(i));
                }
            }
        }
        root = newNode(true);
        size = 0;
        modCount++;
    }

    // ------------------------------------------------------------------ navigation

    /** @throws NoSuchElementException if the map is empty */
    public Entry<K, V> firstEntry() {
        requireNonEmpty();
        return extreme(root, true);
    }

    /** @throws NoSuchElementException if the map is empty */
    public Entry<K, V> lastEntry() {
        requireNonEmpty();
        return extreme(root, false);
    }

    /** @return the greatest entry with a key {@code <= key}, or {@code null} */
    public Entry<K, V> floorEntry(K key) {
        return below(key, true);
    }

    /** @return the greatest entry with a key strictly {@code < key}, or {@code null} */
    public Entry<K, V> lowerEntry(K key) {
        return below(key, false);
    }

    /** @return the least entry with a key {@code >= key}, or {@code null} */
    public Entry<K, V> ceilingEntry(K key) {
        return above(key, true);
    }

    /** @return the least entry with a key strictly {@code > key}, or {@code null} */
    public Entry<K, V> higherEntry(K key) {
        return above(key, false);
    }

    private Entry<K, V> below(K key, boolean inclusive) {
        Objects.requireNonNull(key, "key must not be null");
        Entry<K, V> best = null;
        Node<K, V> node = root;
        while (node != null) {
            visit(node);
            int idx = node.indexOf(key, comparator);
            int pos;
            if (idx >= 0) {
                if (inclusive) {
                    return node.entry(idx);
                }
                pos = idx;
            } else {
                pos = -idx - 1;
            }
            if (pos > 0) {
                best = node.entry(pos - 1);
            }
            node = node.leaf ? null : node.child(pos);
        }
        return best;
    }

    private Entry<K, V> above(K key, boolean inclusive) {
        Objects.requireNonNull(key, "key must not be null");
        Entry<K, V> best = null;
        Node<K, V> node = root;
        while (node != null) {
            visit(node);
            int idx = node.indexOf(key, comparator);
            int pos;
            if (idx >= 0) {
                if (inclusive) {
                    return node.entry(idx);
                }
                pos = idx + 1;
            } else {
                pos = -idx - 1;
            }
            if (pos < node.count) {
                best = node.entry(pos);
            }
            node = node.leaf ? null : node.child(pos);
        }
        return best;
    }

    /** Walks to the leftmost ({@code min}) or rightmost entry below {@code node}. */
    private Entry<K, V> extreme(Node<K, V> node, boolean min) {
        Node<K, V> n = node;
        visit(n);
        while (!n.leaf) {
            n = n.child(min ? 0 : n.count);
            visit(n);
        }
        return n.entry(min ? 0 : n.count - 1);
    }

    private void requireNonEmpty() {
        if (size == 0) {
            throw new NoSuchElementException("map is empty");
        }
    }

    // ------------------------------------------------------------------ iteration and ranges

    /** @return an iterator over all entries in ascending key order */
    @Override
    public Iterator<Entry<K, V>> iterator() {
        return new RangeIterator<>(this, null, Bound.UNBOUNDED, null, Bound.UNBOUNDED);
    }

    /**
     * Returns an iterator over the entries between two endpoints; endpoint keys of
     * {@link Bound#UNBOUNDED} ends are ignored. Rejects bounded ranges with {@code from > to}.
     */
    public RangeIterator<K, V> range(K from, Bound fromBound, K to, Bound toBound) {
        Objects.requireNonNull(fromBound, "fromBound");
        Objects.requireNonNull(toBound, "toBound");
        if (fromBound != Bound.UNBOUNDED) {
            Objects.requireNonNull(from, "lower endpoint must not be null");
        }
        if (toBound != Bound.UNBOUNDED) {
            Objects.requireNonNull(to, "upper endpoint must not be null");
        }
        if (fromBound != Bound.UNBOUNDED && toBound != Bound.UNBOUNDED
                && comparator.compare(from, to) > 0) {
            throw new IllegalArgumentException("range start " + from + " is after end " + to);
        }
        return new RangeIterator<>(this, from, fromBound, to, toBound);
    }

    /** @return the entries with {@code fromInclusive <= key < toExclusive}, in order */
    public List<Entry<K, V>> subList(K fromInclusive, K toExclusive) {
        return collect(range(fromInclusive, Bound.INCLUSIVE, toExclusive, Bound.EXCLUSIVE), -1);
    }

    /** @return the number of keys {@code k} with {@code from <= k <= to} */
    public int countRange(K from, K to) {
        if (comparator.compare(from, to) > 0) {
            return 0;
        }
        int n = 0;
        RangeIterator<K, V> it = range(from, Bound.INCLUSIVE, to, Bound.INCLUSIVE);
        while (it.hasNext()) {
            it.next();
            n++;
        }
        return n;
    }

    /** @return all keys in ascending order */
    public List<K> keys() {
        List<K> out = new ArrayList<>(size);
        for (Entry<K, V> e : this) {
            out.add(e.key());
        }
        return out;
    }

    private static <K, V> List<Entry<K, V>> collect(Iterator<Entry<K, V>> it, int limit) {
        List<Entry<K, V>> out = new ArrayList<>();
        while (it.hasNext() && (limit < 0 || out.size() < limit)) {
            out.add(it.next());
        }
        return out;
    }

    // ------------------------------------------------------------------ shape and statistics

    /** @return number of levels; an empty tree has height 1 (a single empty leaf) */
    public int height() {
        int h = 1;
        for (Node<K, V> n = root; !n.leaf; n = n.child(0)) {
            h++;
        }
        return h;
    }

    /** @return number of nodes currently in the tree */
    public int nodeCount() {
        int nodes = 0;
        Deque<Node<K, V>> pending = new ArrayDeque<>();
        pending.add(root);
        while (!pending.isEmpty()) {
            Node<K, V> n = pending.poll();
            nodes++;
            if (!n.leaf) {
                for (int i = 0; i <= n.count; i++) {
                    pending.add(n.child(i));
                }
            }
        }
        return nodes;
    }

    /** @return how many node splits have happened since construction */
    public long splitCount() {
        return splitCount;
    }

    /** @return how many node merges have happened since construction */
    public long mergeCount() {
        return mergeCount;
    }

    /**
     * Renders the tree one line per level, e.g. {@code "L0: [4]\nL1: [1 | 2] [5 | 6]"};
     * levels wider than {@code maxNodesPerLevel} are cut short with an ellipsis (…).
     */
    public String dump(int maxNodesPerLevel) {
        StringBuilder sb = new StringBuilder();
        List<Node<K, V>> level = List.of(root);
        int depth = 0;
        while (!level.isEmpty()) {
            if (depth > 0) {
                sb.append('\n');
            }
            sb.append('L').append(depth).append(':');
            List<Node<K, V>> next = new ArrayList<>();
            for (int i = 0; i < level.size(); i++) {
                Node<K, V> n = level.get(i);
                if (i < maxNodesPerLevel) {
                    sb.append(' ').append(n);
                } else if (i == maxNodesPerLevel) {
                    sb.append(" … (+").append(level.size() - i).append(')');
                }
                if (!n.leaf) {
                    next.addAll(Arrays.asList(n.children).subList(0, n.count + 1));
                }
            }
            level = next;
            depth++;
        }
        return sb.toString();
    }

    // ------------------------------------------------------------------ page cache hooks

    /** Attaches a page cache that is told about every node visited; {@code null} detaches. */
    public void attachCache(PageCache pageCache) {
        this.cache = pageCache;
    }

    /** @return the attached page cache, if any */
    public Optional<PageCache> cache() {
        return Optional.ofNullable(cache);
    }

    void visit(Node<K, V> node) {
        if (cache != null) {
            cache.access(node.id);
        }
    }

    private void release(Node<K, V> node) {
        if (cache != null) {
            cache.invalidate(node.id);
        }
    }

    // ------------------------------------------------------------------ package internals

    Node<K, V> newNode(boolean leaf) {
        return new Node<>(nextNodeId++, 2 * t - 1, leaf);
    }

    Node<K, V> root() {
        return root;
    }

    Comparator<? super K> comparator() {
        return comparator;
    }

    int modCount() {
        return modCount;
    }

    /** Installs a tree built elsewhere (by {@link BulkLoader}); the old content is dropped. */
    void adopt(Node<K, V> newRoot, int newSize) {
        this.root = newRoot;
        this.size = newSize;
        modCount++;
    }
}
