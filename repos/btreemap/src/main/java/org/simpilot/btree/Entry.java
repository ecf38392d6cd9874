package org.simpilot.btree;

import java.util.Objects;

/** An immutable key/value pair handed out by {@link BTreeMap} queries and iterators. */
public record Entry<K, V>(K key, V value) {

    /** Creates an entry, rejecting {@code null} keys. */
    public Entry {
        Objects.requireNonNull(key, "key must not be null");
    }

    @Override
    public String toString() {
        return key + "=" + value;
    }
}
