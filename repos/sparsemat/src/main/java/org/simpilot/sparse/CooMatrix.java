package org.simpilot.sparse;

import java.util.Arrays;

/**
 * A growable coordinate-format (COO) matrix: an unordered list of (row, column, value)
 * triplets, handy for assembly. Duplicates are summed by {@link #toCsr()}.
 */
public final class CooMatrix {

    /** Receives one stored entry at a time. */
    @FunctionalInterface
    public interface EntryVisitor {
        void visit(int row, int col, double value);
    }

    private static final int INITIAL_CAPACITY = 8;

    private final int rows;
    private final int cols;
    private int[] rowIdx;
    private int[] colIdx;
    private double[] vals;
    private int size;

    /** Creates an empty matrix; throws {@link IllegalArgumentException} for a negative shape. */
    public CooMatrix(int rows, int cols) {
        if (rows < 0 || cols < 0) {
            throw new IllegalArgumentException("negative shape " + rows + "x" + cols);
        }
        this.rows = rows;
        this.cols = cols;
        this.rowIdx = new int[INITIAL_CAPACITY];
        this.colIdx = new int[INITIAL_CAPACITY];
        this.vals = new double[INITIAL_CAPACITY];
    }

    /** Builds a COO matrix holding the non-zero entries of a rectangular dense array. */
    public static CooMatrix fromDense(double[][] dense) {
        int r = dense.length;
        int c = r == 0 ? 0 : dense[0].length;
        CooMatrix m = new CooMatrix(r, c);
        for (int i = 0; i < r; i++) {
            if (dense[i].length != c) {
                throw new IllegalArgumentException("row " + i + " has length " + dense[i].length + ", expected " + c);
            }
            for (int j = 0; j < c; j++) {
                if (dense[i][j] != 0.0) {
                    m.add(i, j, dense[i][j]);
                }
            }
        }
        return m;
    }

    /** Appends one triplet and returns {@code this} for chaining. */
    public CooMatrix add(int row, int col, double value) {
        if (row < 0 || row >= rows || col < 0 || col >= cols) {
            throw new IndexOutOfBoundsException("(" + row + ", " + col + ") outside " + rows + "x" + cols);
        }
        if (size == vals.length) {
            grow();
        }
        rowIdx[size] = row;
        colIdx[size] = col;
        vals[size] = value;
        size++;
        return this;
    }

    private void grow() {
        int capacity = Math.max(INITIAL_CAPACITY, vals.length * 2);
        rowIdx = Arrays.copyOf(rowIdx, capacity);
        colIdx = Arrays.copyOf(colIdx, capacity);
        vals = Arrays.copyOf(vals, capacity);
    }

    /** Number of rows. */
    public int rows() {
        return rows;
    }

    /** Number of columns. */
    public int cols() {
        return cols;
    }

    /** Number of stored triplets, duplicates included. */
    public int entryCount() {
        return size;
    }

    /**
     * Converts to CSR. Triplets are bucketed by row, each row is sorted by column,
     * duplicates are summed, and entries whose sum is exactly zero are dropped.
     */
    public CsrMatrix toCsr() {
        int[] rowPtr = new int[rows + 1];
        for (int k = 0; k < size; k++) {
            rowPtr[rowIdx[k] + 1]++;
        }
        for (int i = 0; i < rows; i++) {
            rowPtr[i + 1] += rowPtr[i];
        }
        int[] next = Arrays.copyOf(rowPtr, rows);
        int[] c = new int[size];
        double[] v = new double[size];
        for (int k = 0; k < size; k++) {
            int dst = next[rowIdx[k]]++;
            c[dst] = colIdx[k];
            v[dst] = vals[k];
        }

        // Compact in place: the write position n never overtakes the read position.
        int[] outPtr = new int[rows + 1];
        int n = 0;
        for (int i = 0; i < rows; i++) {
            int start = rowPtr[i];
            int end = rowPtr[i + 1];
            sortByColumn(c, v, start, end);
            int rowStart = n;
            for (int k = start; k < end; k++) {
                if (n > rowStart && c[n - 1] == c[k]) {
                    v[n - 1] += v[k];
                } else {
                    c[n] = c[k];
                    v[n] = v[k];
                    n++;
                }
            }
            int kept = rowStart;
            for (int k = rowStart; k < n; k++) {
                if (v[k] != 0.0) {
                    c[kept] = c[k];
                    v[kept] = v[k];
                    kept++;
                }
            }
            n = kept;
            outPtr[i + 1] = n;
        }
        return new CsrMatrix(rows, cols, outPtr, Arrays.copyOf(c, n), Arrays.copyOf(v, n));
    }

    /** Insertion sort of one row segment by column; rows are short, so this is fine. */
    private static void sortByColumn(int[] c, double[] v, int from, int to) {
        for (int k = from + 1; k < to; k++) {
            int col = c[k];
            double val = v[k];
            int j = k - 1;
            while (j >= from && c[j] > col) {
                c[j + 1] = c[j];
                v[j + 1] = v[j];
                j--;
            }
            c[j + 1] = col;
            v[j + 1] = val;
        }
    }
}
