package org.simpilot.btree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Navigation (floor/ceiling/…) and range iteration. */
class RangeIteratorTest {

    /** Even keys 0, 2, …, 2(n-1) so that odd probes fall between stored keys. */
    private static BTreeMap<Integer, Integer> evens(int t, int n) {
        BTreeMap<Integer, Integer> map = new BTreeMap<>(t);
        for (int i = 0; i < n; i++) {
            map.put(2 * i, i);
        }
        return map;
    }

    private static List<Integer> keys(Iterator<Entry<Integer, Integer>> it) {
        List<Integer> out = new ArrayList<>();
        while (it.hasNext()) {
            out.add(it.next().key());
        }
        return out;
    }

    private static Integer key(Entry<Integer, Integer> e) {
        return e == null ? null : e.key();
    }

    @Test
    void floorCeilingLowerHigherAgreeWithTreeMap() {
        for (int t = 2; t <= 4; t++) {
            BTreeMap<Integer, Integer> map = evens(t, 300);
            NavigableMap<Integer, Integer> ref = new TreeMap<>();
            for (Entry<Integer, Integer> e : map) {
                ref.put(e.key(), e.value());
            }
            for (int probe = -3; probe <= 603; probe++) {
                assertEquals(ref.floorKey(probe), key(map.floorEntry(probe)), "floor " + probe);
                assertEquals(ref.ceilingKey(probe), key(map.ceilingEntry(probe)), "ceiling " + probe);
                assertEquals(ref.lowerKey(probe), key(map.lowerEntry(probe)), "lower " + probe);
                assertEquals(ref.higherKey(probe), key(map.higherEntry(probe)), "higher " + probe);
            }
        }
    }

    @Test
    void navigationReturnsValuesToo() {
        BTreeMap<Integer, Integer> map = evens(2, 50);
        assertEquals(new Entry<>(10, 5), map.floorEntry(11));
        assertEquals(new Entry<>(12, 6), map.ceilingEntry(11));
        assertEquals(new Entry<>(8, 4), map.lowerEntry(10));
        assertEquals(new Entry<>(12, 6), map.higherEntry(10));
        assertNull(map.lowerEntry(0));
        assertNull(map.higherEntry(98));
    }

    @Test
    void firstAndLastEntries() {
        BTreeMap<Integer, Integer> map = evens(3, 100);
        assertEquals(new Entry<>(0, 0), map.firstEntry());
        assertEquals(new Entry<>(198, 99), map.lastEntry());
        BTreeMap<Integer, Integer> empty = new BTreeMap<>(3);
        NoSuchElementException ex = assertThrows(NoSuchElementException.class, empty::firstEntry);
        assertEquals("map is empty", ex.getMessage());
        assertThrows(NoSuchElementException.class, empty::lastEntry);
    }

    @Test
    void fullIterationIsSorted() {
        BTreeMap<Integer, Integer> map = new BTreeMap<>(2);
        Random rnd = new Random(99);
        TreeMap<Integer, Integer> ref = new TreeMap<>();
        for (int i = 0; i < 500; i++) {
            int k = rnd.nextInt(5000);
            map.put(k, i);
            ref.put(k, i);
        }
        List<Integer> seen = keys(map.iterator());
        assertEquals(new ArrayList<>(ref.keySet()), seen);
        List<Integer> values = new ArrayList<>();
        for (Entry<Integer, Integer> e : map) {
            values.add(e.value());
        }
        assertEquals(new ArrayList<>(ref.values()), values);
    }

    @Test
    void rangesWithEveryBoundCombination() {
        for (int t = 2; t <= 3; t++) {
            BTreeMap<Integer, Integer> map = evens(t, 200);
            NavigableMap<Integer, Integer> ref = new TreeMap<>();
            map.forEach(e -> ref.put(e.key(), e.value()));
            Random rnd = new Random(5 + t);
            for (int trial = 0; trial < 300; trial++) {
                int a = rnd.nextInt(420) - 10;
                int b = a + rnd.nextInt(60);
                boolean ai = rnd.nextBoolean();
                boolean bi = rnd.nextBoolean();
                List<Integer> expected = new ArrayList<>(ref.subMap(a, ai, b, bi).keySet());
                assertEquals(expected, keys(map.range(a, Bound.of(ai), b, Bound.of(bi))),
                        a + " " + ai + " " + b + " " + bi);
            }
        }
    }

    @Test
    void halfOpenRanges() {
        BTreeMap<Integer, Integer> map = evens(2, 20);
        assertEquals(List.of(34, 36, 38), keys(map.range(33, Bound.INCLUSIVE, null, Bound.UNBOUNDED)));
        assertEquals(List.of(36, 38), keys(map.range(34, Bound.EXCLUSIVE, null, Bound.UNBOUNDED)));
        assertEquals(List.of(0, 2, 4), keys(map.range(null, Bound.UNBOUNDED, 4, Bound.INCLUSIVE)));
        assertEquals(List.of(0, 2), keys(map.range(null, Bound.UNBOUNDED, 4, Bound.EXCLUSIVE)));
        assertEquals(20, keys(map.range(null, Bound.UNBOUNDED, null, Bound.UNBOUNDED)).size());
        assertEquals(List.of(), keys(map.range(4, Bound.EXCLUSIVE, 4, Bound.INCLUSIVE)));
        assertEquals(List.of(4), keys(map.range(4, Bound.INCLUSIVE, 4, Bound.INCLUSIVE)));
    }

    @Test
    void rangeArgumentChecks() {
        BTreeMap<Integer, Integer> map = evens(2, 10);
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> map.range(9, Bound.INCLUSIVE, 3, Bound.INCLUSIVE));
        assertEquals("range start 9 is after end 3", ex.getMessage());
        NullPointerException low = assertThrows(NullPointerException.class,
                () -> map.range(null, Bound.INCLUSIVE, 3, Bound.INCLUSIVE));
        assertEquals("lower endpoint must not be null", low.getMessage());
        NullPointerException high = assertThrows(NullPointerException.class,
                () -> map.range(1, Bound.INCLUSIVE, null, Bound.EXCLUSIVE));
        assertEquals("upper endpoint must not be null", high.getMessage());
        assertThrows(NullPointerException.class, () -> map.range(1, null, 3, Bound.EXCLUSIVE));
        assertThrows(NullPointerException.class, () -> map.range(1, Bound.INCLUSIVE, 3, null));
        assertEquals(List.of(8, 10, 12, 14, 16, 18), keys(map.range(7, Bound.INCLUSIVE, null, Bound.UNBOUNDED)));
        assertEquals(List.of(0, 2), keys(map.range(null, Bound.UNBOUNDED, 3, Bound.INCLUSIVE)));
    }

    @Test
    void subListAndCountRange() {
        BTreeMap<Integer, Integer> map = evens(3, 100);
        List<Entry<Integer, Integer>> sub = map.subList(10, 20);
        assertEquals(5, sub.size());
        assertEquals(new Entry<>(10, 5), sub.get(0));
        assertEquals(new Entry<>(18, 9), sub.get(4));
        assertEquals(6, map.countRange(10, 20));
        assertEquals(0, map.countRange(20, 10));
        assertEquals(0, map.countRange(1, 1));
        assertEquals(100, map.countRange(-5, 1000));
    }

    @Test
    void exhaustedIteratorThrows() {
        BTreeMap<Integer, Integer> map = evens(2, 3);
        Iterator<Entry<Integer, Integer>> it = map.range(1, Bound.INCLUSIVE, 3, Bound.INCLUSIVE);
        assertTrue(it.hasNext());
        assertEquals(2, it.next().key());
        assertFalse(it.hasNext());
        assertFalse(it.hasNext());
        NoSuchElementException ex = assertThrows(NoSuchElementException.class, it::next);
        assertEquals("no further entries in range", ex.getMessage());
    }

    @Test
    void iteratorIsFailFast() {
        BTreeMap<Integer, Integer> map = evens(2, 30);
        Iterator<Entry<Integer, Integer>> it = map.iterator();
        it.next();
        map.put(1, 1);
        assertThrows(ConcurrentModificationException.class, it::hasNext);
        Iterator<Entry<Integer, Integer>> it2 = map.iterator();
        it2.next();
        map.put(1, 99); // replacing a value is not a structural change
        assertTrue(it2.hasNext());
        map.remove(4);
        assertThrows(ConcurrentModificationException.class, it2::next);
        Iterator<Entry<Integer, Integer>> it3 = map.iterator();
        map.clear();
        assertThrows(ConcurrentModificationException.class, it3::hasNext);
    }

    @Test
    void iteratorRemoveDeletesAndContinues() {
        BTreeMap<Integer, Integer> map = new BTreeMap<>(2);
        for (int i = 0; i < 200; i++) {
            map.put(i, i);
        }
        Iterator<Entry<Integer, Integer>> it = map.iterator();
        List<Integer> kept = new ArrayList<>();
        while (it.hasNext()) {
            int k = it.next().key();
            if (k % 3 != 0) {
                it.remove();
            } else {
                kept.add(k);
            }
        }
        assertEquals(67, map.size());
        assertEquals(kept, map.keys());
        TreeValidator.validate(map);
    }

    @Test
    void iteratorRemoveAfterHasNextAndStateChecks() {
        BTreeMap<Integer, Integer> map = evens(2, 12);
        RangeIterator<Integer, Integer> it = map.range(4, Bound.INCLUSIVE, 14, Bound.EXCLUSIVE);
        assertThrows(IllegalStateException.class, it::remove);
        assertEquals(4, it.next().key());
        assertTrue(it.hasNext()); // buffers 6
        it.remove();
        assertThrows(IllegalStateException.class, it::remove);
        assertEquals(List.of(6, 8, 10, 12), keys(it));
        assertFalse(map.containsKey(4));
        Iterator<Entry<Integer, Integer>> other = map.iterator();
        other.next();
        map.put(100, 0);
        assertThrows(ConcurrentModificationException.class, other::remove);
    }
}
