package org.simpilot.sparse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

import org.junit.jupiter.api.Test;

class SparseVectorTest {

    private static List<SparseVector.Entry> entries(SparseVector v) {
        List<SparseVector.Entry> out = new ArrayList<>();
        for (SparseVector.Entry e : v) {
            out.add(e);
        }
        return out;
    }

    private static SparseVector.Entry e(int index, double value) {
        return new SparseVector.Entry(index, value);
    }

    @Test
    void ofSortsIndicesSumsDuplicatesAndDropsZeros() {
        SparseVector v = SparseVector.of(6, new int[] {4, 1, 4, 0, 5}, new double[] {1.0, 2.0, 3.0, 0.0, -1.0});
        assertEquals(List.of(e(1, 2.0), e(4, 4.0), e(5, -1.0)), entries(v));
        assertEquals(3, v.nnz());
        assertEquals(6, v.dimension());
    }

    @Test
    void ofDropsDuplicatesThatCancel() {
        SparseVector v = SparseVector.of(4, new int[] {2, 1, 2}, new double[] {1.5, 7.0, -1.5});
        assertEquals(List.of(e(1, 7.0)), entries(v));
    }

    @Test
    void ofRejectsBadInput() {
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> SparseVector.of(3, new int[] {0, 1}, new double[] {1.0}));
        assertTrue(ex.getMessage().contains("differ in length"));
        assertThrows(IndexOutOfBoundsException.class, () -> SparseVector.of(3, new int[] {3}, new double[] {1.0}));
        assertThrows(IndexOutOfBoundsException.class, () -> SparseVector.of(3, new int[] {-1}, new double[] {1.0}));
        assertThrows(IllegalArgumentException.class, () -> SparseVector.of(-1, new int[0], new double[0]));
        assertThrows(IllegalArgumentException.class, () -> SparseVector.zeros(-2));
    }

    @Test
    void fromDenseKeepsOnlyNonZerosAndRoundTrips() {
        double[] dense = {0.0, 3.5, 0.0, -2.0, 0.0};
        SparseVector v = SparseVector.fromDense(dense);
        assertEquals(List.of(e(1, 3.5), e(3, -2.0)), entries(v));
        assertArrayEquals(dense, v.toDense());
        assertEquals(5, v.dimension());
    }

    @Test
    void zerosIsEmpty() {
        SparseVector z = SparseVector.zeros(4);
        assertEquals(0, z.nnz());
        assertArrayEquals(new double[4], z.toDense());
    }

    @Test
    void getFindsStoredValuesAndZeros() {
        SparseVector v = SparseVector.of(5, new int[] {3, 1}, new double[] {9.0, 4.0});
        assertEquals(4.0, v.get(1));
        assertEquals(9.0, v.get(3));
        assertEquals(0.0, v.get(0));
        assertEquals(0.0, v.get(4));
        assertThrows(IndexOutOfBoundsException.class, () -> v.get(5));
        assertThrows(IndexOutOfBoundsException.class, () -> v.get(-1));
    }

    @Test
    void dotMergesInterleavedIndices() {
        SparseVector u = SparseVector.of(8, new int[] {0, 2, 5, 7}, new double[] {1, 2, 3, 1});
        SparseVector w = SparseVector.of(8, new int[] {1, 2, 6, 7}, new double[] {4, 5, 1, 2});
        assertEquals(12.0, u.dot(w));
        assertEquals(12.0, w.dot(u));
        assertEquals(15.0, u.dot(u));
        assertEquals(0.0, u.dot(SparseVector.zeros(8)));
    }

    @Test
    void dotRequiresSameDimension() {
        SparseVector u = SparseVector.zeros(3);
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> u.dot(SparseVector.zeros(4)));
        assertTrue(ex.getMessage().contains("3 vs 4"));
    }

    @Test
    void axpyTakesTheUnionAndDropsCancellations() {
        SparseVector y = SparseVector.of(6, new int[] {0, 3}, new double[] {1.0, 2.0});
        SparseVector x = SparseVector.of(6, new int[] {1, 3, 4}, new double[] {1.0, -1.0, 5.0});
        SparseVector sum = y.axpy(2.0, x);
        assertEquals(List.of(e(0, 1.0), e(1, 2.0), e(4, 10.0)), entries(sum));
        // the operands are untouched
        assertEquals(List.of(e(0, 1.0), e(3, 2.0)), entries(y));
    }

    @Test
    void axpyCopiesTrailingEntriesOfEitherOperand() {
        SparseVector y = SparseVector.of(6, new int[] {5}, new double[] {1.0});
        SparseVector x = SparseVector.of(6, new int[] {0, 2}, new double[] {3.0, 4.0});
        assertEquals(List.of(e(0, -3.0), e(2, -4.0), e(5, 1.0)), entries(y.axpy(-1.0, x)));
        assertEquals(List.of(e(0, 3.0), e(2, 4.0), e(5, 0.5)), entries(x.axpy(0.5, y)));
        assertThrows(IllegalArgumentException.class, () -> x.axpy(1.0, SparseVector.zeros(5)));
    }

    @Test
    void scaleMultipliesEveryValue() {
        SparseVector v = SparseVector.of(4, new int[] {0, 2}, new double[] {1.5, -2.0});
        assertEquals(List.of(e(0, -3.0), e(2, 4.0)), entries(v.scale(-2.0)));
        assertEquals(List.of(e(0, 1.5), e(2, -2.0)), entries(v));
    }

    @Test
    void scaleByZeroGivesAnEmptyVector() {
        SparseVector v = SparseVector.of(4, new int[] {0, 2}, new double[] {1.5, -2.0});
        SparseVector z = v.scale(0.0);
        assertEquals(0, z.nnz());
        assertEquals(SparseVector.zeros(4), z);
    }

    @Test
    void simpleNorms() {
        SparseVector v = SparseVector.of(10, new int[] {2, 7, 9}, new double[] {3.0, -4.0, 0.5});
        assertEquals(7.5, v.norm1(), 1e-15);
        assertEquals(4.0, v.normInf());
        assertEquals(Math.sqrt(25.25), v.norm2(), 1e-14);
        SparseVector empty = SparseVector.zeros(3);
        assertEquals(0.0, empty.norm1());
        assertEquals(0.0, empty.norm2());
        assertEquals(0.0, empty.normInf());
    }

    @Test
    void norm2HandlesRisingAndFallingMagnitudes() {
        SparseVector v = SparseVector.fromDense(new double[] {1.0, 3.0, 2.0});
        assertEquals(Math.sqrt(14.0), v.norm2(), 1e-14);
        SparseVector w = SparseVector.fromDense(new double[] {2.0, -1.0, 2.0});
        assertEquals(3.0, w.norm2(), 1e-14);
    }

    @Test
    void norm2DoesNotOverflowOrUnderflow() {
        SparseVector huge = SparseVector.fromDense(new double[] {3e200, 4e200});
        assertEquals(5e200, huge.norm2(), 1e186);
        SparseVector mixed = SparseVector.fromDense(new double[] {3e200, 1e-200, 4e200});
        assertEquals(5e200, mixed.norm2(), 1e186);
        SparseVector tiny = SparseVector.fromDense(new double[] {3e-200, 4e-200});
        assertEquals(5e-200, tiny.norm2(), 1e-214);
    }

    @Test
    void iteratorWalksEntriesThenFails() {
        SparseVector v = SparseVector.of(3, new int[] {2, 0}, new double[] {1.0, 2.0});
        Iterator<SparseVector.Entry> it = v.iterator();
        assertTrue(it.hasNext());
        assertEquals(e(0, 2.0), it.next());
        assertEquals(e(2, 1.0), it.next());
        assertFalse(it.hasNext());
        NoSuchElementException ex = assertThrows(NoSuchElementException.class, it::next);
        assertTrue(ex.getMessage().contains("after 2"));
    }

    @Test
    void equalityAndHashing() {
        SparseVector a = SparseVector.of(5, new int[] {1, 3}, new double[] {1.0, 2.0});
        SparseVector b = SparseVector.of(5, new int[] {3, 1}, new double[] {2.0, 1.0});
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertEquals(a, a);
        assertNotEquals(a, SparseVector.of(6, new int[] {1, 3}, new double[] {1.0, 2.0}));
        assertNotEquals(a, SparseVector.of(5, new int[] {1, 4}, new double[] {1.0, 2.0}));
        assertNotEquals(a, SparseVector.of(5, new int[] {1, 3}, new double[] {1.0, 2.5}));
        assertNotEquals(a, "not a vector");
        assertNotEquals(a.hashCode(), SparseVector.of(5, new int[] {1, 3}, new double[] {1.0, 2.5}).hashCode());
    }

    @Test
    void toStringListsEntries() {
        SparseVector v = SparseVector.of(5, new int[] {4, 1}, new double[] {-2.0, 0.5});
        assertEquals("SparseVector(5){1=0.5, 4=-2.0}", v.toString());
        assertEquals("SparseVector(2){}", SparseVector.zeros(2).toString());
    }
}
