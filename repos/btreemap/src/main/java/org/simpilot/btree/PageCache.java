package org.simpilot.btree;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A toy buffer pool that tracks which B-tree pages (nodes) would be resident in memory and
 * counts the reads a disk-backed tree would have to perform.
 *
 * <p>Pages are kept in a doubly linked recency list, most recent first. Under
 * {@link Policy#LRU} a hit moves the page to the front; under {@link Policy#FIFO} pages keep
 * their admission order. Pinned pages (typically the root) are never evicted.
 */
public final class PageCache {

    /** Replacement policy. */
    public enum Policy { LRU, FIFO }

    /** Snapshot of the counters; every miss stands for one simulated node read. */
    public record Stats(long hits, long misses, long evictions) {

        /** @return hits divided by total accesses, or 0 when nothing was accessed */
        public double hitRatio() {
            long total = hits + misses;
            return total == 0 ? 0.0 : (double) hits / total;
        }
    }

    private static final class Slot {
        final long page;
        Slot prev;
        Slot next;

        Slot(long page) {
            this.page = page;
        }
    }

    private final int capacity;
    private final Policy policy;
    private final Map<Long, Slot> slots = new HashMap<>();
    private final Set<Long> pinned = new HashSet<>();
    private Slot head;
    private Slot tail;
    private long hits;
    private long misses;
    private long evictions;

    /** Creates an LRU cache holding up to {@code capacity} pages. */
    public PageCache(int capacity) {
        this(capacity, Policy.LRU);
    }

    /** Creates a cache of {@code capacity} (at least 1) pages with the given policy. */
    public PageCache(int capacity, Policy policy) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.policy = policy;
    }

    /**
     * Records an access to {@code page}; returns {@code true} on a hit and {@code false} if
     * the page had to be read. Fails if every resident page is pinned.
     */
    public boolean access(long page) {
        Slot slot = slots.get(page);
        if (slot != null) {
            hits++;
            switch (policy) {
                case LRU -> {
                    unlink(slot);
                    linkFirst(slot);
                }
                case FIFO -> {
                    // admission order is kept on purpose
                }
            }
            return true;
        }
        misses++;
        if (slots.size() >= capacity) {
            evictOne();
        }
        slot = new Slot(page);
        slots.put(page, slot);
        linkFirst(slot);
        return false;
    }

    /** Pins a page so it is never evicted; loading it counts as an access. */
    public void pin(long page) {
        if (pinned.size() >= capacity) {
            throw new IllegalStateException("cannot pin more than " + capacity + " pages");
        }
        access(page);
        pinned.add(page);
    }

    /** Drops a page (e.g. a node freed by a merge) without counting an eviction. */
    public void invalidate(long page) {
        Slot slot = slots.remove(page);
        if (slot != null) {
            unlink(slot);
        }
        pinned.remove(page);
    }

    /** @return whether {@code page} is resident */
    public boolean contains(long page) {
        return slots.containsKey(page);
    }

    /** @return number of resident pages */
    public int size() {
        return slots.size();
    }

    /** @return resident pages ordered from most to least recently admitted or used */
    public List<Long> residentPages() {
        List<Long> pages = new ArrayList<>(slots.size());
        for (Slot s = head; s != null; s = s.next) {
            pages.add(s.page);
        }
        return pages;
    }

    /** @return a snapshot of the counters */
    public Stats stats() {
        return new Stats(hits, misses, evictions);
    }

    /** Zeroes the counters but keeps the resident pages. */
    public void resetStats() {
        hits = 0;
        misses = 0;
        evictions = 0;
    }

    /** Replays {@code lookups} against {@code map} with a fresh cache and returns its counters. */
    public static <K> Stats simulate(BTreeMap<K, ?> map, Iterable<K> lookups, int capacity,
                                     Policy policy) {
        PageCache cache = new PageCache(capacity, policy);
        PageCache previous = map.cache().orElse(null);
        map.attachCache(cache);
        try {
            for (K key : lookups) {
                map.get(key);
            }
        } finally {
            map.attachCache(previous);
        }
        return cache.stats();
    }

    /** Evicts the least recent unpinned page, scanning from the tail. */
    private void evictOne() {
        Slot victim = tail;
        while (victim != null && pinned.contains(victim.page)) {
            victim = victim.prev;
        }
        if (victim == null) {
            throw new IllegalStateException("all " + slots.size() + " resident pages are pinned");
        }
        unlink(victim);
        slots.remove(victim.page);
        evictions++;
    }

    private void linkFirst(Slot slot) {
        slot.prev = null;
        slot.next = head;
        if (head != null) {
            head.prev = slot;
        }
        head = slot;
        if (tail == null) {
            tail = slot;
        }
    }

    private void unlink(Slot slot) {
        if (slot.prev != null) {
            slot.prev.next = slot.next;
        } else {
            head = slot.next;
        }
        if (slot.next != null) {
            slot.next.prev = slot.prev;
        } else {
            tail = slot.prev;
        }
    }
}
