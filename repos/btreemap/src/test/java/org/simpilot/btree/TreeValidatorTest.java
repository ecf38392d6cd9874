package org.simpilot.btree;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class TreeValidatorTest {

    /** t = 2 tree "L0: [4] / L1: [2] [6 | 8] / L2: [1] [3] [5] [7] [9 | 10]". */
    private static BTreeMap<Integer, String> sample() {
        BTreeMap<Integer, String> map = new BTreeMap<>(2);
        for (int i = 1; i <= 10; i++) {
            map.put(i, "v" + i);
        }
        return map;
    }

    private static TreeValidator.Violation only(BTreeMap<?, ?> map) {
        List<TreeValidator.Violation> found = TreeValidator.check(map);
        assertEquals(1, found.size(), found.toString());
        return found.get(0);
    }

    @Test
    void healthyTreesPass() {
        assertEquals(List.of(), TreeValidator.check(new BTreeMap<Integer, String>(4)));
        assertEquals(List.of(), TreeValidator.check(sample()));
        assertDoesNotThrow(() -> TreeValidator.validate(sample()));
    }

    @Test
    void nodeRefusesInsertWhenFull() {
        BTreeMap<Integer, String> map = new BTreeMap<>(2);
        Node<Integer, String> leaf = map.newNode(true);
        leaf.insertAt(0, 3, "c");
        leaf.insertAt(0, 1, "a");
        leaf.insertAt(1, 2, "b");
        assertEquals("[1 | 2 | 3]", leaf.toString());
        assertTrue(leaf.isFull());
        IllegalStateException ex = assertThrows(IllegalStateException.class, () -> leaf.insertAt(3, 4, "d"));
        assertEquals("node " + leaf.id + " is full (3 keys)", ex.getMessage());
        leaf.removeAt(1);
        assertEquals("[1 | 3]", leaf.toString());
        assertNull(leaf.keys[2]);
        assertNull(leaf.values[2]);
        assertEquals(-2, leaf.indexOf(2, Integer::compare));
        assertEquals(1, leaf.indexOf(3, Integer::compare));
    }

    @Test
    void detectsUnderflow() {
        BTreeMap<Integer, String> map = sample();
        Node<Integer, String> left = map.root().child(0); // [2] over [1] [3]
        Node<Integer, String> leaf = left.child(0);
        leaf.removeAt(0);
        TreeValidator.Violation v = TreeValidator.check(map).get(0);
        assertEquals(TreeValidator.Kind.UNDERFLOW, v.kind());
        assertEquals(leaf.id, v.nodeId());
        assertEquals("node " + leaf.id + " underflows: 0 keys, at least 1 required", v.describe());
    }

    @Test
    void detectsEmptyInternalRoot() {
        BTreeMap<Integer, String> map = sample();
        Node<Integer, String> root = map.root();
        root.count = 0;
        List<TreeValidator.Violation> found = TreeValidator.check(map);
        assertEquals(TreeValidator.Kind.UNDERFLOW, found.get(0).kind());
        assertTrue(found.get(0).describe().endsWith("internal root without keys"));
        assertTrue(found.stream().anyMatch(v -> v.kind() == TreeValidator.Kind.SIZE));
    }

    @Test
    void detectsOverflow() {
        BTreeMap<Integer, String> map = sample();
        Node<Integer, String> leaf = map.root().child(1).child(2); // [9 | 10]
        leaf.insertAt(2, 11, "v11");
        leaf.count = 4;
        List<TreeValidator.Violation> found = TreeValidator.check(map);
        assertEquals(TreeValidator.Kind.OVERFLOW, found.get(0).kind());
        assertEquals("node " + leaf.id + " overflows: 4 keys, at most 3 allowed", found.get(0).describe());
        assertEquals("size() is 10 but 11 keys are stored", found.get(1).detail());
    }

    @Test
    void detectsKeysOutOfOrderInsideNode() {
        BTreeMap<Integer, String> map = sample();
        Node<Integer, String> mid = map.root().child(1); // [6 | 8]
        mid.set(0, 8, "x");
        mid.set(1, 6, "y");
        List<TreeValidator.Violation> found = TreeValidator.check(map);
        assertEquals(TreeValidator.Kind.ORDER, found.get(0).kind());
        assertEquals("node " + mid.id + " has misordered keys: 8 precedes 6", found.get(0).describe());
        assertTrue(found.stream().anyMatch(v -> v.kind() == TreeValidator.Kind.SEPARATOR));
    }

    @Test
    void detectsKeyOutsideSeparatorBounds() {
        BTreeMap<Integer, String> map = sample();
        Node<Integer, String> leaf = map.root().child(1).child(1); // [7] between 6 and 8
        leaf.set(0, 8, "dup");
        TreeValidator.Violation v = only(map);
        assertEquals(TreeValidator.Kind.SEPARATOR, v.kind());
        assertEquals("node " + leaf.id + " has misordered keys: 8 is outside (6, 8)", v.describe());
        leaf.set(0, 6, "dup");
        assertEquals(TreeValidator.Kind.SEPARATOR, only(map).kind());
        leaf.set(0, 7, "ok");
        Node<Integer, String> first = map.root().child(0).child(0); // [1], no lower bound
        first.set(0, -100, "fine");
        assertEquals(List.of(), TreeValidator.check(map));
        first.set(0, 2, "bad");
        assertEquals("2 is outside (null, 2)", only(map).detail());
    }

    @Test
    void detectsMissingChild() {
        BTreeMap<Integer, String> map = sample();
        Node<Integer, String> mid = map.root().child(1);
        mid.children[2] = null;
        List<TreeValidator.Violation> found = TreeValidator.check(map);
        assertEquals(TreeValidator.Kind.MISSING_CHILD, found.get(0).kind());
        assertEquals("node " + mid.id + " lacks a child: slot 2 of 3 is empty", found.get(0).describe());
        assertEquals(TreeValidator.Kind.SIZE, found.get(1).kind());
        assertEquals(2, found.size());
    }

    @Test
    void detectsUnevenLeafDepth() {
        BTreeMap<Integer, String> map = sample();
        // Replace the subtree [6 | 8] by a single leaf one level higher than its cousins.
        Node<Integer, String> shallow = map.newNode(true);
        shallow.insertAt(0, 5, "v5");
        shallow.insertAt(1, 6, "v6");
        shallow.insertAt(2, 7, "v7");
        map.root().children[1] = shallow;
        List<TreeValidator.Violation> found = TreeValidator.check(map);
        TreeValidator.Violation v = found.get(0);
        assertEquals(TreeValidator.Kind.DEPTH, v.kind());
        assertEquals("node " + shallow.id + " is unbalanced: leaf at depth 1, expected 2", v.describe());
        assertEquals(TreeValidator.Kind.SIZE, found.get(1).kind());
    }

    @Test
    void detectsSizeMismatchAndValidateThrows() {
        BTreeMap<Integer, String> map = sample();
        map.root().child(0).child(0).set(0, 1, "still fine");
        map.adopt(map.root(), 12);
        TreeValidator.Violation v = only(map);
        assertEquals(TreeValidator.Kind.SIZE, v.kind());
        assertEquals(-1, v.nodeId());
        assertEquals("tree is unbalanced: size() is 12 but 10 keys are stored", v.describe());
        IllegalStateException ex = assertThrows(IllegalStateException.class, () -> TreeValidator.validate(map));
        assertEquals("1 invariant violation(s): tree is unbalanced: size() is 12 but 10 keys are stored",
                ex.getMessage());
    }
}
