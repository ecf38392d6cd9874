package org.simpilot.btree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PageCacheTest {

    @Test
    void rejectsNonPositiveCapacity() {
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> new PageCache(0));
        assertEquals("capacity must be positive: 0", ex.getMessage());
    }

    @Test
    void lruEvictsLeastRecentlyUsed() {
        PageCache cache = new PageCache(3);
        assertFalse(cache.access(1));
        assertFalse(cache.access(2));
        assertFalse(cache.access(3));
        assertTrue(cache.access(1)); // 1 becomes most recent
        assertEquals(List.of(1L, 3L, 2L), cache.residentPages());
        assertFalse(cache.access(4)); // evicts 2
        assertFalse(cache.contains(2));
        assertTrue(cache.contains(1));
        assertEquals(List.of(4L, 1L, 3L), cache.residentPages());
        assertTrue(cache.access(3));
        assertEquals(List.of(3L, 4L, 1L), cache.residentPages());
        assertEquals(new PageCache.Stats(2, 4, 1), cache.stats());
        assertEquals(3, cache.size());
    }

    @Test
    void fifoKeepsAdmissionOrder() {
        PageCache cache = new PageCache(3, PageCache.Policy.FIFO);
        cache.access(1);
        cache.access(2);
        cache.access(3);
        assertTrue(cache.access(1));
        assertEquals(List.of(3L, 2L, 1L), cache.residentPages());
        cache.access(4); // FIFO evicts 1 although it was just used
        assertFalse(cache.contains(1));
        assertEquals(List.of(4L, 3L, 2L), cache.residentPages());
        assertEquals(1, cache.stats().evictions());
    }

    @Test
    void hitRatioAndReset() {
        PageCache cache = new PageCache(2);
        assertEquals(0.0, cache.stats().hitRatio());
        cache.access(1);
        cache.access(1);
        cache.access(1);
        cache.access(2);
        assertEquals(0.5, cache.stats().hitRatio(), 1e-9);
        cache.resetStats();
        assertEquals(new PageCache.Stats(0, 0, 0), cache.stats());
        assertTrue(cache.access(2));
        assertEquals(1.0, cache.stats().hitRatio(), 1e-9);
    }

    @Test
    void pinnedPagesSurviveEviction() {
        PageCache cache = new PageCache(2);
        cache.pin(10);
        cache.access(1);
        cache.access(2); // must evict 1, not the pinned 10
        assertTrue(cache.contains(10));
        assertFalse(cache.contains(1));
        cache.access(3);
        assertTrue(cache.contains(10));
        assertEquals(List.of(3L, 10L), cache.residentPages());
        assertEquals(2, cache.stats().evictions());
    }

    @Test
    void pinningEverythingIsAnError() {
        PageCache cache = new PageCache(2);
        cache.pin(1);
        cache.pin(2);
        IllegalStateException full = assertThrows(IllegalStateException.class, () -> cache.access(3));
        assertEquals("all 2 resident pages are pinned", full.getMessage());
        IllegalStateException tooMany = assertThrows(IllegalStateException.class, () -> cache.pin(4));
        assertEquals("cannot pin more than 2 pages", tooMany.getMessage());
        cache.invalidate(1); // also drops the pin
        cache.access(3);
        cache.access(5);
        assertEquals(List.of(5L, 2L), cache.residentPages());
        cache.pin(4); // the pin on page 1 went away with it, so there is room for another
        assertEquals(List.of(4L, 2L), cache.residentPages());
    }

    @Test
    void invalidateUnlinksFromAnyPosition() {
        PageCache cache = new PageCache(5);
        for (long p = 1; p <= 5; p++) {
            cache.access(p);
        }
        cache.invalidate(3); // middle
        cache.invalidate(5); // head
        cache.invalidate(1); // tail
        cache.invalidate(42); // unknown: ignored
        assertEquals(List.of(4L, 2L), cache.residentPages());
        cache.access(6);
        cache.access(7);
        cache.access(8);
        cache.access(9);
        assertEquals(List.of(9L, 8L, 7L, 6L, 4L), cache.residentPages());
        assertEquals(1, cache.stats().evictions());
        assertEquals(0, cache.stats().hits());
    }

    @Test
    void attachedCacheCountsNodeReads() {
        BTreeMap<Integer, Integer> map = new BTreeMap<>(2);
        for (int i = 0; i < 100; i++) {
            map.put(i, i);
        }
        PageCache cache = new PageCache(1000);
        map.attachCache(cache);
        assertEquals(Optional.of(cache), map.cache());
        int h = map.height();
        map.get(57);
        assertTrue(cache.stats().misses() <= h);
        cache.resetStats();
        map.keys(); // a full scan reads every node exactly once
        assertEquals(map.nodeCount(), cache.stats().hits() + cache.stats().misses());
        assertEquals(map.nodeCount(), cache.size());
        map.attachCache(null);
        cache.resetStats();
        map.get(3);
        assertEquals(0, cache.stats().misses() + cache.stats().hits());
        assertEquals(Optional.empty(), map.cache());
    }

    @Test
    void operationsOnEmptyMapReadOnlyWhatTheyNeed() {
        BTreeMap<Integer, Integer> map = new BTreeMap<>(2);
        PageCache cache = new PageCache(4);
        map.attachCache(cache);
        assertEquals(null, map.remove(1)); // short-circuits, the root is not even read
        assertEquals(new PageCache.Stats(0, 0, 0), cache.stats());
        map.get(1);
        assertEquals(new PageCache.Stats(0, 1, 0), cache.stats());
    }

    @Test
    void exactReadCountsForFixedWorkload() {
        BTreeMap<Integer, Integer> map = new BTreeMap<>(2);
        PageCache cache = new PageCache(8);
        map.attachCache(cache);
        Random rnd = new Random(2024);
        for (int i = 0; i < 400; i++) {
            map.put(rnd.nextInt(1000), i);
        }
        PageCache.Stats afterInsert = cache.stats();
        for (int i = 0; i < 300; i++) {
            map.remove(rnd.nextInt(1000));
        }
        PageCache.Stats afterDelete = cache.stats();
        for (int i = 0; i < 200; i++) {
            map.floorEntry(rnd.nextInt(1000));
            map.ceilingEntry(rnd.nextInt(1000));
        }
        PageCache.Stats afterNav = cache.stats();
        // Regression figures: any change in how many nodes an operation touches shows up here.
        assertEquals(new PageCache.Stats(712, 1366, 1358), afterInsert);
        assertEquals(new PageCache.Stats(1372, 2717, 2653), afterDelete);
        assertEquals(new PageCache.Stats(1964, 4085, 4021), afterNav);
        TreeValidator.validate(map);
    }

    @Test
    void mergesInvalidateFreedPages() {
        BTreeMap<Integer, Integer> map = new BTreeMap<>(2);
        for (int i = 0; i < 300; i++) {
            map.put(i, i);
        }
        PageCache cache = new PageCache(100_000);
        map.attachCache(cache);
        map.keys();
        for (int i = 0; i < 280; i++) {
            map.remove(i);
        }
        assertTrue(map.mergeCount() > 0);
        assertTrue(cache.size() <= map.nodeCount(), cache.size() + " > " + map.nodeCount());
        map.clear();
        assertEquals(0, cache.size());
        List<Long> none = new ArrayList<>(cache.residentPages());
        assertEquals(List.of(), none);
    }

    @Test
    void simulateRestoresPreviousCache() {
        BTreeMap<Integer, Integer> map = new BTreeMap<>(3);
        for (int i = 0; i < 500; i++) {
            map.put(i, i);
        }
        PageCache mine = new PageCache(8);
        map.attachCache(mine);
        List<Integer> lookups = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            for (int k = 0; k < 500; k += 25) {
                lookups.add(k);
            }
        }
        PageCache.Stats big = PageCache.simulate(map, lookups, 1000, PageCache.Policy.LRU);
        PageCache.Stats small = PageCache.simulate(map, lookups, 6, PageCache.Policy.LRU);
        PageCache.Stats fifo = PageCache.simulate(map, lookups, 6, PageCache.Policy.FIFO);
        assertSame(mine, map.cache().orElseThrow());
        assertEquals(0, mine.stats().misses());
        assertTrue(big.hitRatio() > small.hitRatio());
        assertEquals(0, big.evictions());
        assertEquals(big.hits() + big.misses(), small.hits() + small.misses());
        assertEquals(small.hits() + small.misses(), fifo.hits() + fifo.misses());
        assertEquals(new PageCache.Stats(274, 59, 0), big);
        assertEquals(new PageCache.Stats(158, 175, 169), small);
        assertEquals(new PageCache.Stats(88, 245, 239), fifo);
    }
}
