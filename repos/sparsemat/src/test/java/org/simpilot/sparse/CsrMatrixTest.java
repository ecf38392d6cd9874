package org.simpilot.sparse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class CsrMatrixTest {

    /** 3x4 example used by several tests. */
    private static final double[][] SAMPLE = {
        {1, 0, 2, 0},
        {0, 0, 0, 0},
        {3, 4, 0, 5},
    };

    static double[][] randomDense(Random rnd, int rows, int cols, double density) {
        double[][] d = new double[rows][cols];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                if (rnd.nextDouble() < density) {
                    d[i][j] = rnd.nextInt(9) - 4;
                }
            }
        }
        return d;
    }

    static double[][] denseProduct(double[][] a, double[][] b) {
        double[][] c = new double[a.length][b[0].length];
        for (int i = 0; i < a.length; i++) {
            for (int k = 0; k < b.length; k++) {
                for (int j = 0; j < b[0].length; j++) {
                    c[i][j] += a[i][k] * b[k][j];
                }
            }
        }
        return c;
    }

    private static List<SparseVector.Entry> entries(SparseVector v) {
        List<SparseVector.Entry> out = new ArrayList<>();
        v.forEach(out::add);
        return out;
    }

    @Test
    void ofAcceptsValidArraysAndCopiesThem() {
        int[] ptr = {0, 2, 2, 5};
        int[] cols = {0, 2, 0, 1, 3};
        double[] vals = {1, 2, 3, 4, 5};
        CsrMatrix m = CsrMatrix.of(3, 4, ptr, cols, vals);
        vals[0] = 99;
        cols[1] = 3;
        assertEquals(1.0, m.get(0, 0));
        assertEquals(2.0, m.get(0, 2));
        assertEquals(CsrMatrix.fromDense(SAMPLE), m);
    }

    @Test
    void ofRejectsMalformedStructure() {
        assertThrows(IllegalArgumentException.class, () -> CsrMatrix.of(-1, 2, new int[0], new int[0], new double[0]));
        assertThrows(IllegalArgumentException.class, () -> CsrMatrix.of(1, -2, new int[2], new int[0], new double[0]));
        IllegalArgumentException len = assertThrows(IllegalArgumentException.class,
                () -> CsrMatrix.of(2, 2, new int[] {0, 0}, new int[0], new double[0]));
        assertTrue(len.getMessage().contains("length 3"));
        IllegalArgumentException mismatch = assertThrows(IllegalArgumentException.class,
                () -> CsrMatrix.of(1, 2, new int[] {0, 2}, new int[] {0}, new double[] {1, 2}));
        assertTrue(mismatch.getMessage().contains("differ in length"));
        assertThrows(IllegalArgumentException.class,
                () -> CsrMatrix.of(1, 2, new int[] {1, 1}, new int[] {0}, new double[] {1}));
        assertThrows(IllegalArgumentException.class,
                () -> CsrMatrix.of(1, 2, new int[] {0, 0}, new int[] {0}, new double[] {1}));
        IllegalArgumentException dec = assertThrows(IllegalArgumentException.class,
                () -> CsrMatrix.of(3, 3, new int[] {0, 2, 1, 2}, new int[] {0, 1}, new double[] {1, 2}));
        assertTrue(dec.getMessage().contains("row 1"));
    }

    @Test
    void ofRejectsBadColumns() {
        assertThrows(IndexOutOfBoundsException.class,
                () -> CsrMatrix.of(1, 2, new int[] {0, 1}, new int[] {2}, new double[] {1}));
        assertThrows(IndexOutOfBoundsException.class,
                () -> CsrMatrix.of(1, 2, new int[] {0, 1}, new int[] {-1}, new double[] {1}));
        IllegalArgumentException dup = assertThrows(IllegalArgumentException.class,
                () -> CsrMatrix.of(2, 3, new int[] {0, 1, 3}, new int[] {0, 2, 2}, new double[] {1, 2, 3}));
        assertTrue(dup.getMessage().contains("row 1"));
        assertThrows(IllegalArgumentException.class,
                () -> CsrMatrix.of(1, 3, new int[] {0, 2}, new int[] {2, 1}, new double[] {1, 2}));
    }

    @Test
    void getAndShape() {
        CsrMatrix m = CsrMatrix.fromDense(SAMPLE);
        assertEquals(3, m.rows());
        assertEquals(4, m.cols());
        assertEquals(5, m.nnz());
        assertFalse(m.isSquare());
        assertEquals(5.0, m.get(2, 3));
        assertEquals(0.0, m.get(1, 1));
        assertEquals(0.0, m.get(0, 1));
        IndexOutOfBoundsException row = assertThrows(IndexOutOfBoundsException.class, () -> m.get(3, 0));
        assertEquals("row 3 outside [0, 3)", row.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> m.get(-1, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> m.get(0, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> m.get(0, -1));
    }

    @Test
    void rowAndColumnVectors() {
        CsrMatrix m = CsrMatrix.fromDense(SAMPLE);
        SparseVector row2 = m.row(2);
        assertEquals(4, row2.dimension());
        assertArrayEquals(new double[] {3, 4, 0, 5}, row2.toDense());
        assertEquals(0, m.row(1).nnz());
        SparseVector col0 = m.column(0);
        assertEquals(3, col0.dimension());
        assertEquals(List.of(new SparseVector.Entry(0, 1.0), new SparseVector.Entry(2, 3.0)), entries(col0));
        assertArrayEquals(new double[] {2, 0, 0}, m.column(2).toDense());
        assertTrue(assertThrows(IndexOutOfBoundsException.class, () -> m.row(-1)).getMessage().startsWith("row -1"));
        assertThrows(IndexOutOfBoundsException.class, () -> m.column(4));
    }

    @Test
    void multiplyDenseVector() {
        CsrMatrix m = CsrMatrix.fromDense(SAMPLE);
        assertArrayEquals(new double[] {7, 0, 31}, m.multiply(new double[] {1, 2, 3, 4}));
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> m.multiply(new double[3]));
        assertTrue(ex.getMessage().contains("length 3"));
    }

    @Test
    void multiplyMatchesDenseProductOnRandomMatrices() {
        Random rnd = new Random(42);
        for (int trial = 0; trial < 20; trial++) {
            int n = 1 + rnd.nextInt(7);
            int k = 1 + rnd.nextInt(7);
            int p = 1 + rnd.nextInt(7);
            double[][] a = randomDense(rnd, n, k, 0.4);
            double[][] b = randomDense(rnd, k, p, 0.4);
            CsrMatrix product = CsrMatrix.fromDense(a).multiply(CsrMatrix.fromDense(b));
            assertEquals(CsrMatrix.fromDense(denseProduct(a, b)), product, "trial " + trial);
        }
    }

    @Test
    void multiplyGrowsOutputForOuterProducts() {
        int n = 6;
        double[][] column = new double[n][1];
        double[][] row = new double[1][n];
        for (int i = 0; i < n; i++) {
            column[i][0] = i + 1;
            row[0][i] = 2;
        }
        CsrMatrix outer = CsrMatrix.fromDense(column).multiply(CsrMatrix.fromDense(row));
        assertEquals(n * n, outer.nnz());
        assertEquals(12.0, outer.get(5, 3));
        assertEquals(2.0, outer.get(0, 5));
    }

    @Test
    void multiplyDropsCancelledEntriesAndChecksShapes() {
        CsrMatrix a = CsrMatrix.fromDense(new double[][] {{1, 1}, {1, 0}});
        CsrMatrix b = CsrMatrix.fromDense(new double[][] {{1, 2}, {-1, 3}});
        CsrMatrix c = a.multiply(b);
        assertEquals(CsrMatrix.fromDense(new double[][] {{0, 5}, {1, 2}}), c);
        assertEquals(3, c.nnz());
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> a.multiply(CsrMatrix.fromDense(SAMPLE)));
        assertTrue(ex.getMessage().contains("2x2 * 3x4"));
    }

    @Test
    void transposeSwapsRowsAndColumns() {
        CsrMatrix m = CsrMatrix.fromDense(SAMPLE);
        CsrMatrix t = m.transpose();
        assertEquals(4, t.rows());
        assertEquals(3, t.cols());
        double[][] expected = {{1, 0, 3}, {0, 0, 4}, {2, 0, 0}, {0, 0, 5}};
        assertEquals(CsrMatrix.fromDense(expected), t);
        assertEquals(m, t.transpose());
    }

    @Test
    void rowSliceKeepsTheSelectedRows() {
        CsrMatrix m = CsrMatrix.fromDense(SAMPLE);
        assertEquals(CsrMatrix.fromDense(new double[][] {{0, 0, 0, 0}, {3, 4, 0, 5}}), m.rowSlice(1, 3));
        assertEquals(CsrMatrix.fromDense(new double[][] {{1, 0, 2, 0}}), m.rowSlice(0, 1));
        CsrMatrix empty = m.rowSlice(2, 2);
        assertEquals(0, empty.rows());
        assertEquals(4, empty.cols());
        assertThrows(IndexOutOfBoundsException.class, () -> m.rowSlice(-1, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> m.rowSlice(0, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> m.rowSlice(2, 1));
    }

    @Test
    void columnSliceReindexesColumns() {
        CsrMatrix m = CsrMatrix.fromDense(SAMPLE);
        assertEquals(CsrMatrix.fromDense(new double[][] {{0, 2}, {0, 0}, {4, 0}}), m.columnSlice(1, 3));
        assertEquals(CsrMatrix.fromDense(new double[][] {{0}, {0}, {5}}), m.columnSlice(3, 4));
        assertEquals(m, m.columnSlice(0, 4));
        assertEquals(0, m.columnSlice(2, 2).nnz());
        assertThrows(IndexOutOfBoundsException.class, () -> m.columnSlice(-1, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> m.columnSlice(0, 5));
        assertThrows(IndexOutOfBoundsException.class, () -> m.columnSlice(3, 2));
    }

    @Test
    void diagonalOfRectangularMatrix() {
        CsrMatrix m = CsrMatrix.fromDense(SAMPLE);
        assertArrayEquals(new double[] {1, 0, 0}, m.diagonal());
        assertArrayEquals(new double[] {1, 0, 0}, m.transpose().diagonal());
    }

    @Test
    void symmetryCheckHonoursTolerance() {
        CsrMatrix sym = CsrMatrix.fromDense(new double[][] {{2, 1, 0}, {1, 3, 4}, {0, 4, 5}});
        assertTrue(sym.isSymmetric(0.0));
        assertTrue(sym.isSquare());
        CsrMatrix near = CsrMatrix.fromDense(new double[][] {{2, 1.001}, {1, 3}});
        assertTrue(near.isSymmetric(1e-2));
        assertFalse(near.isSymmetric(1e-4));
        CsrMatrix lower = CsrMatrix.fromDense(new double[][] {{1, 0}, {1, 1}});
        assertFalse(lower.isSymmetric(0.5));
        assertFalse(CsrMatrix.fromDense(SAMPLE).isSymmetric(1e9));
    }

    @Test
    void cooRoundTripAndDenseExpansion() {
        CsrMatrix m = CsrMatrix.fromDense(SAMPLE);
        CooMatrix coo = m.toCoo();
        assertEquals(5, coo.entryCount());
        assertEquals(m, coo.toCsr());
        assertArrayEquals(SAMPLE, m.toDense());
    }

    @Test
    void forEachNonZeroVisitsInRowMajorOrder() {
        List<String> seen = new ArrayList<>();
        CsrMatrix.fromDense(SAMPLE).forEachNonZero((i, j, v) -> seen.add(i + "," + j + "=" + v));
        assertEquals(List.of("0,0=1.0", "0,2=2.0", "2,0=3.0", "2,1=4.0", "2,3=5.0"), seen);
    }

    @Test
    void equalsHashCodeAndToString() {
        CsrMatrix a = CsrMatrix.fromDense(SAMPLE);
        CsrMatrix b = CsrMatrix.fromDense(SAMPLE);
        assertEquals(a, b);
        assertEquals(a, a);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, a.rowSlice(0, 2));
        assertNotEquals(a, CsrMatrix.fromDense(new double[][] {{1, 0, 2, 0}, {0, 0, 0, 0}, {3, 4, 0, 6}}));
        assertNotEquals(a, CsrMatrix.fromDense(new double[][] {{1, 0, 2, 0}, {0, 0, 0, 0}, {3, 4, 5, 0}}));
        assertNotEquals(a, CsrMatrix.fromDense(new double[][] {{1, 0, 2, 0}, {0, 0, 0, 0}, {3, 4, 0, 5}, {0, 0, 0, 0}}));
        assertNotEquals(a, CsrMatrix.fromDense(new double[][] {{1, 0, 2, 0, 0}, {0, 0, 0, 0, 0}, {3, 4, 0, 5, 0}}));
        assertNotEquals(a, "matrix");
        assertNotEquals(a.hashCode(), a.transpose().hashCode());
        CsrMatrix top = CsrMatrix.fromDense(new double[][] {{1, 0}, {0, 0}});
        CsrMatrix bottom = CsrMatrix.fromDense(new double[][] {{0, 0}, {1, 0}});
        assertNotEquals(top, bottom);
        assertNotEquals(top.hashCode(), bottom.hashCode());
        assertEquals("CsrMatrix 3x4 nnz=5", a.toString());
    }
}
