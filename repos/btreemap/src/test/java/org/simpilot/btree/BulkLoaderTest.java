package org.simpilot.btree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class BulkLoaderTest {

    private static List<Entry<Integer, String>> ascending(int n) {
        List<Entry<Integer, String>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Entry<>(i * 10, "e" + i));
        }
        return out;
    }

    @Test
    void planSpreadsKeysEvenly() {
        assertArrayEquals(new int[] {0}, BulkLoader.plan(0, 2, 3));
        assertArrayEquals(new int[] {3}, BulkLoader.plan(3, 2, 3));
        assertArrayEquals(new int[] {2, 2}, BulkLoader.plan(5, 2, 3));
        assertArrayEquals(new int[] {3, 3}, BulkLoader.plan(7, 2, 3));
        assertArrayEquals(new int[] {3, 3, 2}, BulkLoader.plan(10, 2, 3));
        assertArrayEquals(new int[] {4, 4, 3, 3}, BulkLoader.plan(17, 3, 4));
    }

    @Test
    void planBacksOffToRespectMinimumFill() {
        // capacity 2 with t = 3 would give nodes of 2 keys; minimum is 2, so that is fine ...
        assertArrayEquals(new int[] {2, 2}, BulkLoader.plan(5, 3, 2));
        // ... but 4 keys cannot be split into two nodes of >= 2 keys plus a separator.
        assertArrayEquals(new int[] {4}, BulkLoader.plan(4, 3, 2));
        assertArrayEquals(new int[] {3, 3}, BulkLoader.plan(7, 4, 3));
        for (int m = 0; m < 200; m++) {
            int[] sizes = BulkLoader.plan(m, 4, 3);
            assertEquals(m, Arrays.stream(sizes).sum() + sizes.length - 1);
            for (int s : sizes) {
                assertTrue(sizes.length == 1 || (s >= 3 && s <= 7), m + " -> " + Arrays.toString(sizes));
            }
        }
    }

    @Test
    void loadsValidTreesOfManySizes() {
        for (int t = 2; t <= 5; t++) {
            for (int n = 0; n <= 300; n += 7) {
                BTreeMap<Integer, String> map = BulkLoader.load(t, null, ascending(n), 0.75);
                assertEquals(n, map.size());
                assertEquals(List.of(), TreeValidator.check(map), "t=" + t + " n=" + n);
                List<Integer> keys = map.keys();
                for (int i = 0; i < n; i++) {
                    assertEquals(i * 10, keys.get(i));
                }
            }
        }
    }

    @Test
    void smallLoadsHaveExpectedShape() {
        BTreeMap<Integer, String> map = BulkLoader.load(2, null, ascending(7), 1.0);
        assertEquals("L0: [30]\nL1: [0 | 10 | 20] [40 | 50 | 60]", map.dump(10));
        BTreeMap<Integer, String> deep = BulkLoader.load(2, null, ascending(20), 1.0);
        assertEquals("L0: [110]\nL1: [30 | 70] [140 | 170]\nL2: [0 | 10 | 20] [40 | 50 | 60] "
                + "[80 | 90 | 100] [120 | 130] [150 | 160] [180 | 190]", deep.dump(10));
        assertEquals("e7", deep.get(70));
        TreeValidator.validate(deep);
    }

    @Test
    void fillFactorControlsNodeCount() {
        List<Entry<Integer, String>> input = ascending(1000);
        BTreeMap<Integer, String> dense = BulkLoader.load(8, null, input, 1.0);
        BTreeMap<Integer, String> sparse = BulkLoader.load(8, null, input, 0.5);
        assertTrue(dense.nodeCount() < sparse.nodeCount());
        // 63 leaves of 14-15 keys, 4 internal nodes and the root
        assertEquals(68, dense.nodeCount());
        assertEquals(3, dense.height());
        BTreeMap<Integer, String> tiny = BulkLoader.load(8, null, input, 0.01);
        TreeValidator.validate(tiny);
        assertEquals(1000, tiny.size());
    }

    @Test
    void rejectsBadFillFactor() {
        List<Entry<Integer, String>> input = ascending(3);
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> BulkLoader.load(3, null, input, 0.0));
        assertTrue(ex.getMessage().startsWith("fill factor must be in (0, 1]"));
        assertThrows(IllegalArgumentException.class, () -> BulkLoader.load(3, null, input, 1.5));
        assertThrows(IllegalArgumentException.class, () -> BulkLoader.load(3, null, input, Double.NaN));
    }

    @Test
    void rejectsUnsortedOrDuplicateInput() {
        List<Entry<Integer, String>> unsorted = List.of(new Entry<>(1, "a"), new Entry<>(5, "b"),
                new Entry<>(3, "c"));
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> BulkLoader.load(2, null, unsorted, 1.0));
        assertEquals("input is not strictly ascending at index 2: 5 then 3", ex.getMessage());
        List<Entry<Integer, String>> dupes = List.of(new Entry<>(1, "a"), new Entry<>(1, "b"));
        assertThrows(IllegalArgumentException.class, () -> BulkLoader.load(2, null, dupes, 1.0));
        List<Entry<Integer, String>> withNull = new ArrayList<>(ascending(2));
        withNull.add(null);
        NullPointerException npe = assertThrows(NullPointerException.class,
                () -> BulkLoader.load(2, null, withNull, 1.0));
        assertEquals("entry at index 2 is null", npe.getMessage());
    }

    @Test
    void loadsSortedMapWithItsComparator() {
        SortedMap<String, Integer> source = new TreeMap<>(Comparator.reverseOrder());
        for (char c = 'a'; c <= 'z'; c++) {
            source.put(String.valueOf(c), (int) c);
        }
        BTreeMap<String, Integer> map = BulkLoader.load(3, source, 0.8);
        assertEquals(26, map.size());
        assertEquals("z", map.firstEntry().key());
        assertEquals(new ArrayList<>(source.keySet()), map.keys());
        assertEquals((int) 'q', map.get("q"));
        TreeValidator.validate(map);
    }

    @Test
    void bulkLoadedTreeSupportsUpdates() {
        BTreeMap<Integer, String> map = BulkLoader.load(3, null, ascending(500), 1.0);
        for (int i = 0; i < 500; i += 2) {
            map.remove(i * 10);
        }
        for (int i = 0; i < 300; i++) {
            map.put(i * 10 + 5, "n" + i);
        }
        TreeValidator.validate(map);
        assertEquals(550, map.size());
        assertEquals("e1", map.get(10));
        assertEquals("n0", map.get(5));
        // fresh node ids must not collide with the loaded ones
        PageCache cache = new PageCache(10_000);
        map.attachCache(cache);
        map.keys();
        assertEquals(map.nodeCount(), cache.size());
    }
}
