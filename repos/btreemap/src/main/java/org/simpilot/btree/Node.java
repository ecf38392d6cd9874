package org.simpilot.btree;

import java.util.Comparator;

/**
 * One page of the B-tree. A node with minimum degree {@code t} stores up to {@code 2t - 1}
 * keys; an internal node additionally holds {@code count + 1} child pointers.
 *
 * <p>Nodes are deliberately dumb containers: all balancing decisions live in
 * {@link BTreeMap}. Fields are package-private so the validator and tests can inspect (and,
 * in tests, corrupt) them directly.
 */
final class Node<K, V> {

    /** Stable page identifier, used by the {@link PageCache} simulation. */
    final long id;
    final Object[] keys;
    final Object[] values;
    final Node<K, V>[] children;
    final boolean leaf;
    int count;

    @SuppressWarnings("unchecked")
    Node(long id, int maxKeys, boolean leaf) {
        this.id = id;
        this.leaf = leaf;
        this.keys = new Object[maxKeys];
        this.values = new Object[maxKeys];
        this.children = leaf ? null : (Node<K, V>[]) new Node<?, ?>[maxKeys + 1];
    }

    @SuppressWarnings("unchecked")
    K key(int i) {
        return (K) keys[i];
    }

    @SuppressWarnings("unchecked")
    V value(int i) {
        return (V) values[i];
    }

    Node<K, V> child(int i) {
        return children[i];
    }

    Entry<K, V> entry(int i) {
        return new Entry<>(key(i), value(i));
    }

    boolean isFull() {
        return count == keys.length;
    }

    void set(int i, K key, V value) {
        keys[i] = key;
        values[i] = value;
    }

    /** Binary search: the index of {@code key}, or {@code -(insertionPoint + 1)}. */
    int indexOf(K key, Comparator<? super K> cmp) {
        int lo = 0;
        int hi = count - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = cmp.compare(key(mid), key);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    /** Inserts a key/value pair at {@code index}, shifting later entries right. */
    void insertAt(int index, K key, V value) {
        if (count == keys.length) {
            throw new IllegalStateException("node " + id + " is full (" + count + " keys)");
        }
        for (int i = count; i > index; i--) {
            keys[i] = keys[i - 1];
            values[i] = values[i - 1];
        }
        set(index, key, value);
        count++;
    }

    /** Removes the entry at {@code index}, shifting later entries left. */
    void removeAt(int index) {
        int tail = count - index - 1;
        System.arraycopy(keys, index + 1, keys, index, tail);
        System.arraycopy(values, index + 1, values, index, tail);
        count--;
        keys[count] = null;
        values[count] = null;
    }

    /** Inserts a child pointer; call it <em>before</em> the matching {@link #insertAt}. */
    void insertChildAt(int index, Node<K, V> child) {
        for (int i = count + 1; i > index; i--) {
            children[i] = children[i - 1];
        }
        children[index] = child;
    }

    /** Removes a child pointer; call it <em>after</em> the matching {@link #removeAt}. */
    Node<K, V> removeChildAt(int index) {
        Node<K, V> removed = children[index];
        System.arraycopy(children, index + 1, children, index, count + 1 - index);
        children[count + 1] = null;
        return removed;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                sb.append(" | ");
            }
            sb.append(keys[i]);
        }
        return sb.append(']').toString();
    }
}
