package org.simpilot.btree;

import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.Deque;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Ordered iterator over a key range of a {@link BTreeMap}.
 *
 * <p>The iterator keeps an explicit stack of (node, next index) frames instead of parent
 * pointers. A frame {@code (n, i)} means "the subtree left of key {@code i} has been handled,
 * key {@code i} is next". The iterator is fail-fast: structural changes made through the map
 * (rather than through {@link #remove()}) cause a {@link ConcurrentModificationException}.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class RangeIterator<K, V> implements Iterator<Entry<K, V>> {

    private static final class Frame<K, V> {
        final Node<K, V> node;
        int index;

        Frame(Node<K, V> node, int index) {
            this.node = node;
            this.index = index;
        }
    }

    private final BTreeMap<K, V> map;
    private final Comparator<? super K> cmp;
    private final K high;
    private final Bound highBound;
    private final Deque<Frame<K, V>> stack = new ArrayDeque<>();
    private int expectedModCount;
    private Entry<K, V> pending;
    private Entry<K, V> lastReturned;

    RangeIterator(BTreeMap<K, V> map, K low, Bound lowBound, K high, Bound highBound) {
        this.map = map;
        this.cmp = map.comparator();
        this.high = high;
        this.highBound = highBound;
        this.expectedModCount = map.modCount();
        seek(low, lowBound);
    }

    /** Builds the frame stack for the first key admitted by the lower bound. */
    private void seek(K low, Bound lowBound) {
        stack.clear();
        Node<K, V> node = map.root();
        while (node != null) {
            map.visit(node);
            int pos;
            if (lowBound == Bound.UNBOUNDED) {
                pos = 0;
            } else {
                int idx = node.indexOf(low, cmp);
                if (idx >= 0 && lowBound == Bound.INCLUSIVE) {
                    // Exact hit: everything in child idx is smaller, no need to go deeper.
                    stack.push(new Frame<>(node, idx));
                    return;
                }
                pos = idx >= 0 ? idx + 1 : -idx - 1;
            }
            stack.push(new Frame<>(node, pos));
            node = node.leaf ? null : node.child(pos);
        }
    }

    private void pushLeftmost(Node<K, V> start) {
        Node<K, V> node = start;
        while (true) {
            map.visit(node);
            stack.push(new Frame<>(node, 0));
            if (node.leaf) {
                return;
            }
            node = node.child(0);
        }
    }

    private Entry<K, V> advance() {
        while (!stack.isEmpty()) {
            Frame<K, V> top = stack.peek();
            if (top.index >= top.node.count) {
                stack.pop();
                continue;
            }
            Entry<K, V> e = top.node.entry(top.index);
            if (!withinUpper(e.key())) {
                return null; // past the upper bound: nothing further can qualify
            }
            top.index++;
            if (!top.node.leaf) {
                pushLeftmost(top.node.child(top.index));
            }
            return e;
        }
        return null;
    }

    private boolean withinUpper(K key) {
        if (highBound == Bound.UNBOUNDED) {
            return true;
        }
        return highBound.admitsFromAbove(cmp.compare(key, high));
    }

    private void checkForComodification() {
        if (map.modCount() != expectedModCount) {
            throw new ConcurrentModificationException("map was modified during iteration");
        }
    }

    @Override
    public boolean hasNext() {
        checkForComodification();
        if (pending == null) {
            pending = advance();
        }
        return pending != null;
    }

    @Override
    public Entry<K, V> next() {
        if (!hasNext()) {
            throw new NoSuchElementException("no further entries in range");
        }
        lastReturned = pending;
        pending = null;
        return lastReturned;
    }

    /**
     * Removes the entry last returned by {@link #next()} from the map and re-positions the
     * iterator just after it, since the removal may have reshaped the tree.
     */
    @Override
    public void remove() {
        if (lastReturned == null) {
            throw new IllegalStateException("next() has not been called since the last remove()");
        }
        checkForComodification();
        K key = lastReturned.key();
        map.remove(key);
        expectedModCount = map.modCount();
        lastReturned = null;
        pending = null;
        seek(key, Bound.EXCLUSIVE);
    }

}
