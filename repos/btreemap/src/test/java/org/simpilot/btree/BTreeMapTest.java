package org.simpilot.btree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class BTreeMapTest {

    private static BTreeMap<Integer, String> filled(int t, int n) {
        BTreeMap<Integer, String> map = new BTreeMap<>(t);
        for (int i = 1; i <= n; i++) {
            map.put(i, "v" + i);
        }
        return map;
    }

    /** Slots past the live keys and children must be cleared so that no stale references leak. */
    private static void assertNoStaleSlots(Node<Integer, Integer> node) {
        for (int i = node.count; i < node.keys.length; i++) {
            assertNull(node.keys[i], "stale key in node " + node.id);
            assertNull(node.values[i], "stale value in node " + node.id);
        }
        if (!node.leaf) {
            for (int i = node.count + 1; i < node.children.length; i++) {
                assertNull(node.children[i], "stale child in node " + node.id);
            }
            for (int i = 0; i <= node.count; i++) {
                assertNoStaleSlots(node.child(i));
            }
        }
    }

    @Test
    void rejectsDegreeOutOfRange() {
        IllegalArgumentException low = assertThrows(IllegalArgumentException.class, () -> new BTreeMap<Integer, String>(1));
        assertTrue(low.getMessage().contains("but was 1"));
        assertThrows(IllegalArgumentException.class, () -> new BTreeMap<Integer, String>(BTreeMap.MAX_DEGREE + 1));
        assertEquals(BTreeMap.MAX_DEGREE, new BTreeMap<Integer, String>(BTreeMap.MAX_DEGREE).minDegree());
        assertEquals(2, new BTreeMap<Integer, String>(BTreeMap.MIN_DEGREE).minDegree());
    }

    @Test
    void emptyMapBasics() {
        BTreeMap<Integer, String> map = new BTreeMap<>(3);
        assertTrue(map.isEmpty());
        assertEquals(0, map.size());
        assertEquals(1, map.height());
        assertEquals(1, map.nodeCount());
        assertNull(map.get(5));
        assertNull(map.remove(5));
        assertFalse(map.containsKey(5));
        assertEquals(Optional.empty(), map.find(5));
        assertFalse(map.iterator().hasNext());
        assertEquals("L0: []", map.dump(4));
    }

    @Test
    void putAndGetReplaceValues() {
        BTreeMap<String, Integer> map = new BTreeMap<>(2);
        assertNull(map.put("pear", 1));
        assertNull(map.put("apple", 2));
        assertEquals(1, map.put("pear", 3));
        assertEquals(3, map.get("pear"));
        assertEquals(2, map.get("apple"));
        assertEquals(Optional.of(2), map.find("apple"));
        assertEquals(2, map.size());
        assertFalse(map.isEmpty());
    }

    @Test
    void replacingValueInInternalNodesAndAfterSplits() {
        BTreeMap<Integer, String> map = filled(2, 50);
        for (int i = 1; i <= 50; i++) {
            assertEquals("v" + i, map.put(i, "w" + i));
        }
        assertEquals(50, map.size());
        for (int i = 1; i <= 50; i++) {
            assertEquals("w" + i, map.get(i));
        }
        TreeValidator.validate(map);
    }

    @Test
    void replaceHitsMedianPromotedDuringSplit() {
        // t = 2: inserting 1..3 fills the root; 4..5 make the child [3 | 4 | 5] full, so a
        // put of key 4 splits it and finds the key in the parent right after the split.
        BTreeMap<Integer, String> map = filled(2, 5);
        assertEquals("L0: [2]\nL1: [1] [3 | 4 | 5]", map.dump(10));
        assertEquals("v4", map.put(4, "four"));
        assertEquals("L0: [2 | 4]\nL1: [1] [3] [5]", map.dump(10));
        assertEquals("four", map.get(4));
        assertEquals(5, map.size());
        assertEquals(2, map.splitCount());
    }

    @Test
    void nullKeysAreRejected() {
        BTreeMap<Integer, String> map = filled(3, 10);
        String msg = "key must not be null";
        assertEquals(msg, assertThrows(NullPointerException.class, () -> map.put(null, "x")).getMessage());
        assertEquals(msg, assertThrows(NullPointerException.class, () -> map.get(null)).getMessage());
        assertEquals(msg, assertThrows(NullPointerException.class, () -> map.remove(null)).getMessage());
        assertEquals(msg, assertThrows(NullPointerException.class, () -> map.floorEntry(null)).getMessage());
        assertEquals(msg, assertThrows(NullPointerException.class, () -> map.ceilingEntry(null)).getMessage());
        assertEquals(msg, assertThrows(NullPointerException.class, () -> new Entry<>(null, "x")).getMessage());
    }

    @Test
    void nullValuesAreStoredButDistinguishable() {
        BTreeMap<Integer, String> map = new BTreeMap<>(2);
        map.put(7, null);
        assertTrue(map.containsKey(7));
        assertNull(map.get(7));
        assertEquals(Optional.empty(), map.find(7));
        assertEquals(1, map.size());
        assertNull(map.remove(7));
        assertEquals(0, map.size());
        assertFalse(map.containsKey(7));
    }

    @Test
    void ascendingInsertionGrowsHeightLogarithmically() {
        BTreeMap<Integer, String> map = filled(2, 1000);
        assertEquals(1000, map.size());
        assertTrue(map.height() >= 5 && map.height() <= 10, "height " + map.height());
        TreeValidator.validate(map);
        BTreeMap<Integer, String> wide = filled(16, 1000);
        assertEquals(3, wide.height());
        // every split adds one node, and each root split adds the new root as well
        assertEquals(wide.nodeCount(), wide.splitCount() + wide.height());
    }

    @Test
    void splitShapeForDegreeThree() {
        BTreeMap<Integer, String> map = filled(3, 6);
        assertEquals("L0: [3]\nL1: [1 | 2] [4 | 5 | 6]", map.dump(5));
        assertEquals(2, map.height());
        assertEquals(3, map.nodeCount());
        assertEquals(1, map.splitCount());
        map.put(7, "v7");
        map.put(8, "v8");
        map.put(9, "v9");
        assertEquals("L0: [3 | 6]\nL1: [1 | 2] [4 | 5] [7 | 8 | 9]", map.dump(5));
    }

    @Test
    void removeFromLeafWithoutRebalancing() {
        BTreeMap<Integer, String> map = filled(3, 6);
        assertEquals("v5", map.remove(5));
        assertEquals("L0: [3]\nL1: [1 | 2] [4 | 6]", map.dump(5));
        assertNull(map.remove(5));
        assertEquals(5, map.size());
    }

    /** Inserting 10..1 with t = 2 gives "[7] / [3 | 5] [9] / [1 | 2] [4] [6] [8] [10]". */
    private static BTreeMap<Integer, String> descending() {
        BTreeMap<Integer, String> map = new BTreeMap<>(2);
        for (int k = 10; k >= 1; k--) {
            map.put(k, "v" + k);
        }
        return map;
    }

    @Test
    void removeInternalKeyUsesPredecessorThenMergesThenShrinksRoot() {
        BTreeMap<Integer, String> map = descending();
        assertEquals("L0: [7]\nL1: [3 | 5] [9]\nL2: [1 | 2] [4] [6] [8] [10]", map.dump(10));
        assertEquals("v3", map.remove(3));
        assertEquals("L0: [7]\nL1: [2 | 5] [9]\nL2: [1] [4] [6] [8] [10]", map.dump(10));
        assertEquals("v5", map.remove(5));
        assertEquals("L0: [7]\nL1: [2] [9]\nL2: [1] [4 | 6] [8] [10]", map.dump(10));
        assertEquals(1, map.mergeCount());
        assertEquals("v7", map.remove(7));
        assertEquals("L0: [2 | 6 | 9]\nL1: [1] [4] [8] [10]", map.dump(10));
        assertEquals(2, map.height());
        assertEquals(2, map.mergeCount());
        assertEquals(List.of(1, 2, 4, 6, 8, 9, 10), map.keys());
        TreeValidator.validate(map);
    }

    @Test
    void removeInternalKeyUsesSuccessor() {
        BTreeMap<Integer, String> map = filled(2, 10);
        assertEquals("L0: [4]\nL1: [2] [6 | 8]\nL2: [1] [3] [5] [7] [9 | 10]", map.dump(10));
        assertEquals("v8", map.remove(8));
        assertEquals("L0: [4]\nL1: [2] [6 | 9]\nL2: [1] [3] [5] [7] [10]", map.dump(10));
        assertEquals("v4", map.remove(4));
        assertEquals("L0: [5]\nL1: [2] [9]\nL2: [1] [3] [6 | 7] [10]", map.dump(10));
        assertEquals(8, map.size());
        TreeValidator.validate(map);
    }

    @Test
    void borrowingFromRightSiblingOnTheWayDown() {
        BTreeMap<Integer, String> map = filled(2, 10);
        assertEquals("v1", map.remove(1));
        assertEquals("L0: [6]\nL1: [4] [8]\nL2: [2 | 3] [5] [7] [9 | 10]", map.dump(10));
        BTreeMap<Integer, String> leaves = filled(2, 7);
        assertEquals("v3", leaves.remove(3));
        assertEquals("L0: [2 | 5]\nL1: [1] [4] [6 | 7]", leaves.dump(10));
        TreeValidator.validate(map);
        TreeValidator.validate(leaves);
    }

    @Test
    void borrowingFromLeftSiblingOnTheWayDown() {
        BTreeMap<Integer, String> map = descending();
        assertEquals("v10", map.remove(10));
        assertEquals("L0: [5]\nL1: [3] [7]\nL2: [1 | 2] [4] [6] [8 | 9]", map.dump(10));
        BTreeMap<Integer, String> leaves = filled(2, 7);
        leaves.put(0, "v0");
        assertEquals("L0: [2 | 4]\nL1: [0 | 1] [3] [5 | 6 | 7]", leaves.dump(10));
        assertEquals("v3", leaves.remove(3));
        assertEquals("L0: [1 | 4]\nL1: [0] [2] [5 | 6 | 7]", leaves.dump(10));
        TreeValidator.validate(map);
        TreeValidator.validate(leaves);
    }

    @Test
    void removingEverythingShrinksToSingleLeaf() {
        BTreeMap<Integer, String> map = filled(2, 200);
        for (int i = 200; i >= 1; i--) {
            assertEquals("v" + i, map.remove(i));
            TreeValidator.validate(map);
        }
        assertTrue(map.isEmpty());
        assertEquals(1, map.height());
        assertEquals(1, map.nodeCount());
        assertTrue(map.mergeCount() > 0);
    }

    @Test
    void randomOperationsAgreeWithTreeMap() {
        for (int t = 2; t <= 5; t++) {
            Random rnd = new Random(42L + t);
            BTreeMap<Integer, Integer> map = new BTreeMap<>(t);
            TreeMap<Integer, Integer> ref = new TreeMap<>();
            for (int step = 0; step < 3000; step++) {
                int key = rnd.nextInt(400);
                int op = rnd.nextInt(10);
                if (op < 6) {
                    assertEquals(ref.put(key, step), map.put(key, step));
                } else if (op < 9) {
                    assertEquals(ref.remove(key), map.remove(key));
                } else {
                    assertEquals(ref.get(key), map.get(key));
                }
                assertEquals(ref.size(), map.size());
                if (step % 100 == 0) {
                    TreeValidator.validate(map);
                    assertNoStaleSlots(map.root());
                }
            }
            TreeValidator.validate(map);
            assertEquals(new ArrayList<>(ref.keySet()), map.keys());
        }
    }

    @Test
    void customComparatorOrdersDescending() {
        BTreeMap<String, Integer> map = new BTreeMap<>(2, Comparator.reverseOrder());
        for (String s : List.of("b", "e", "a", "d", "c", "f", "g")) {
            map.put(s, s.charAt(0) - 'a');
        }
        assertEquals(List.of("g", "f", "e", "d", "c", "b", "a"), map.keys());
        assertEquals("g", map.firstEntry().key());
        assertEquals("a", map.lastEntry().key());
        TreeValidator.validate(map);
    }

    @Test
    void pollFirstDrainsInOrder() {
        BTreeMap<Integer, String> map = new BTreeMap<>(3);
        Random rnd = new Random(7);
        TreeMap<Integer, String> ref = new TreeMap<>();
        for (int i = 0; i < 300; i++) {
            int k = rnd.nextInt(10_000);
            map.put(k, "x" + k);
            ref.put(k, "x" + k);
        }
        for (Map.Entry<Integer, String> e : ref.entrySet()) {
            Entry<Integer, String> polled = map.pollFirst();
            assertEquals(e.getKey(), polled.key());
            assertEquals(e.getValue(), polled.value());
        }
        assertThrows(java.util.NoSuchElementException.class, map::pollFirst);
    }

    @Test
    void clearResetsContentButKeepsCounters() {
        BTreeMap<Integer, String> map = filled(2, 40);
        long splits = map.splitCount();
        map.clear();
        assertEquals(0, map.size());
        assertEquals(1, map.height());
        assertNull(map.get(3));
        assertEquals(splits, map.splitCount());
        map.put(3, "again");
        assertEquals("again", map.get(3));
        TreeValidator.validate(map);
    }

    @Test
    void dumpTruncatesWideLevels() {
        BTreeMap<Integer, String> map = filled(2, 10);
        assertEquals("L0: [4]\nL1: [2] [6 | 8]\nL2: [1] [3] … (+3)", map.dump(2));
        assertEquals("L0: [4]\nL1: [2] … (+1)\nL2: [1] … (+4)", map.dump(1));
    }

    @Test
    void entryToStringAndEquality() {
        Entry<String, Integer> e = new Entry<>("k", 1);
        assertEquals("k=1", e.toString());
        assertEquals(new Entry<>("k", 1), e);
    }
}
