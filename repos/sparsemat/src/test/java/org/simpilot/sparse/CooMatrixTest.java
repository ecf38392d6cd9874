package org.simpilot.sparse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CooMatrixTest {

    @Test
    void rejectsNegativeShape() {
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> new CooMatrix(-1, 2));
        assertTrue(ex.getMessage().contains("-1x2"));
        assertThrows(IllegalArgumentException.class, () -> new CooMatrix(2, -1));
    }

    @Test
    void addRejectsCoordinatesOutsideTheMatrix() {
        CooMatrix m = new CooMatrix(2, 3);
        assertThrows(IndexOutOfBoundsException.class, () -> m.add(-1, 0, 1.0));
        assertThrows(IndexOutOfBoundsException.class, () -> m.add(2, 0, 1.0));
        assertThrows(IndexOutOfBoundsException.class, () -> m.add(0, -1, 1.0));
        assertThrows(IndexOutOfBoundsException.class, () -> m.add(0, 3, 1.0));
        assertEquals(0, m.entryCount());
    }

    @Test
    void addChainsAndCountsEntries() {
        CooMatrix m = new CooMatrix(2, 2);
        assertSame(m, m.add(0, 0, 1.0).add(1, 1, 2.0).add(1, 1, 3.0));
        assertEquals(3, m.entryCount());
        assertEquals(2, m.rows());
        assertEquals(2, m.cols());
    }

    @Test
    void growsPastTheInitialCapacity() {
        CooMatrix m = new CooMatrix(5, 5);
        for (int i = 0; i < 5; i++) {
            for (int j = 0; j < 5; j++) {
                m.add(i, j, 10 * i + j + 1);
            }
        }
        assertEquals(25, m.entryCount());
        CsrMatrix csr = m.toCsr();
        assertEquals(25, csr.nnz());
        for (int i = 0; i < 5; i++) {
            for (int j = 0; j < 5; j++) {
                assertEquals(10 * i + j + 1, csr.get(i, j));
            }
        }
    }

    @Test
    void toCsrSortsColumnsWithinEachRow() {
        CooMatrix m = new CooMatrix(3, 4);
        m.add(2, 3, 1.0).add(0, 2, 2.0).add(2, 0, 3.0).add(0, 1, 4.0).add(2, 1, 5.0).add(0, 3, 6.0);
        CsrMatrix expected = CsrMatrix.of(3, 4, new int[] {0, 3, 3, 6},
                new int[] {1, 2, 3, 0, 1, 3}, new double[] {4.0, 2.0, 6.0, 3.0, 5.0, 1.0});
        assertEquals(expected, m.toCsr());
    }

    @Test
    void toCsrSumsDuplicatesAndDropsCancelledEntries() {
        CooMatrix m = new CooMatrix(3, 3);
        m.add(0, 1, 1.0).add(0, 1, -1.0).add(0, 2, 3.0);
        m.add(1, 0, 2.0).add(1, 0, 2.5).add(1, 2, 0.0);
        m.add(2, 2, 1.0).add(2, 0, 4.0).add(2, 2, 1.0);
        CsrMatrix expected = CsrMatrix.of(3, 3, new int[] {0, 1, 2, 4},
                new int[] {2, 0, 0, 2}, new double[] {3.0, 4.5, 4.0, 2.0});
        assertEquals(expected, m.toCsr());
    }

    @Test
    void toCsrOfAnEmptyMatrix() {
        CsrMatrix csr = new CooMatrix(3, 2).toCsr();
        assertEquals(CsrMatrix.of(3, 2, new int[4], new int[0], new double[0]), csr);
        assertEquals(0, csr.nnz());
    }

    @Test
    void fromDenseSkipsZerosAndChecksShape() {
        double[][] dense = {{0, 1, 0}, {2, 0, 3}};
        CooMatrix m = CooMatrix.fromDense(dense);
        assertEquals(3, m.entryCount());
        assertArrayEquals(dense, m.toCsr().toDense());
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> CooMatrix.fromDense(new double[][] {{1, 2}, {3}}));
        assertTrue(ex.getMessage().contains("row 1"));
        CooMatrix empty = CooMatrix.fromDense(new double[0][]);
        assertEquals(0, empty.rows());
        assertEquals(0, empty.cols());
    }
}
