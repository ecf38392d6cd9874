package org.simpilot.sparse;

import java.util.Arrays;

/**
 * An immutable compressed-sparse-row matrix. Row {@code i} occupies positions
 * {@code [rowPtr[i], rowPtr[i + 1])} of the column and value arrays, with strictly
 * increasing columns inside each row.
 */
public final class CsrMatrix {

    private final int rows;
    private final int cols;
    private final int[] rowPtr;
    private final int[] colIdx;
    private final double[] values;

    /** Trusted constructor; callers hand over ownership of well-formed arrays. */
    CsrMatrix(int rows, int cols, int[] rowPtr, int[] colIdx, double[] values) {
        this.rows = rows;
        this.cols = cols;
        this.rowPtr = rowPtr;
        this.colIdx = colIdx;
        this.values = values;
    }

    /** Validates and copies raw CSR arrays, rejecting malformed structure. */
    public static CsrMatrix of(int rows, int cols, int[] rowPtr, int[] colIdx, double[] values) {
        if (rows < 0 || cols < 0) {
            throw new IllegalArgumentException("negative shape " + rows + "x" + cols);
        }
        if (rowPtr.length != rows + 1) {
            throw new IllegalArgumentException("rowPtr must have length " + (rows + 1) + " but has " + rowPtr.length);
        }
        if (colIdx.length != values.length) {
            throw new IllegalArgumentException("colIdx and values differ in length");
        }
        if (rowPtr[0] != 0 || rowPtr[rows] != values.length) {
            throw new IllegalArgumentException("rowPtr must start at 0 and end at " + values.length);
        }
        for (int i = 0; i < rows; i++) {
            if (rowPtr[i] > rowPtr[i + 1]) {
                throw new IllegalArgumentException("rowPtr decreases at row " + i);
            }
            for (int k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
                if (colIdx[k] < 0 || colIdx[k] >= cols) {
                    throw new IndexOutOfBoundsException("column " + colIdx[k] + " in row " + i + " outside [0, " + cols + ")");
                }
                if (k > rowPtr[i] && colIdx[k] <= colIdx[k - 1]) {
                    throw new IllegalArgumentException("columns of row " + i + " are not strictly increasing");
                }
            }
        }
        return new CsrMatrix(rows, cols, rowPtr.clone(), colIdx.clone(), values.clone());
    }

    /** Converts a rectangular dense array, keeping only its non-zero entries. */
    public static CsrMatrix fromDense(double[][] dense) {
        return CooMatrix.fromDense(dense).toCsr();
    }

    /** Number of rows. */
    public int rows() {
        return rows;
    }

    /** Number of columns. */
    public int cols() {
        return cols;
    }

    /** Number of stored entries. */
    public int nnz() {
        return values.length;
    }

    /** True when the matrix has as many rows as columns. */
    public boolean isSquare() {
        return rows == cols;
    }

    private void checkRow(int i) {
        if (i < 0 || i >= rows) {
            throw new IndexOutOfBoundsException("row " + i + " outside [0, " + rows + ")");
        }
    }

    private void checkCol(int j) {
        if (j < 0 || j >= cols) {
            throw new IndexOutOfBoundsException("column " + j + " outside [0, " + cols + ")");
        }
    }

    /** Entry (i, j), zero when not stored. Costs a binary search within the row. */
    public double get(int i, int j) {
        checkRow(i);
        checkCol(j);
        int pos = Arrays.binarySearch(colIdx, rowPtr[i], rowPtr[i + 1], j);
        return pos >= 0 ? values[pos] : 0.0;
    }

    /** Row {@code i} as a sparse vector of dimension {@link #cols()}. */
    public SparseVector row(int i) {
        checkRow(i);
        return SparseVector.of(cols,
                Arrays.copyOfRange(colIdx, rowPtr[i], rowPtr[i + 1]),
                Arrays.copyOfRange(values, rowPtr[i], rowPtr[i + 1]));
    }

    /** Column {@code j} as a sparse vector of dimension {@link #rows()}. */
    public SparseVector column(int j) {
        checkCol(j);
        int[] idx = new int[rows];
        double[] val = new double[rows];
        int n = 0;
        for (int i = 0; i < rows; i++) {
            int pos = Arrays.binarySearch(colIdx, rowPtr[i], rowPtr[i + 1], j);
            if (pos >= 0) {
                idx[n] = i;
                val[n++] = values[pos];
            }
        }
        return SparseVector.of(rows, Arrays.copyOf(idx, n), Arrays.copyOf(val, n));
    }

    /** Computes {@code A x} for a dense vector. */
    public double[] multiply(double[] x) {
        if (x.length != cols) {
            throw new IllegalArgumentException("vector length " + x.length + " does not match " + cols + " columns");
        }
        double[] y = new double[rows];
        for (int i = 0; i < rows; i++) {
            double sum = 0.0;
            for (int k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
                sum += values[k] * x[colIdx[k]];
            }
            y[i] = sum;
        }
        return y;
    }

    /** Sparse product {@code this * other} with a per-row dense accumulator (Gustavson). */
    public CsrMatrix multiply(CsrMatrix other) {
        if (cols != other.rows) {
            throw new IllegalArgumentException("inner dimensions differ: " + rows + "x" + cols
                    + " * " + other.rows + "x" + other.cols);
        }
        int[] marker = new int[other.cols];
        Arrays.fill(marker, -1);
        double[] acc = new double[other.cols];
        int[] touched = new int[other.cols];
        int[] outPtr = new int[rows + 1];
        int[] outCols = new int[Math.max(1, nnz() + other.nnz())];
        double[] outVals = new double[outCols.length];
        int n = 0;
        for (int i = 0; i < rows; i++) {
            int count = 0;
            for (int ka = rowPtr[i]; ka < rowPtr[i + 1]; ka++) {
                int j = colIdx[ka];
                double a = values[ka];
                for (int kb = other.rowPtr[j]; kb < other.rowPtr[j + 1]; kb++) {
                    int c = other.colIdx[kb];
                    if (marker[c] != i) {
                        marker[c] = i;
                        acc[c] = 0.0;
                        touched[count++] = c;
                    }
                    acc[c] += a * other.values[kb];
                }
            }
            Arrays.sort(touched, 0, count);
            if (n + count > outCols.length) {
                int capacity = Math.max(outCols.length * 2, n + count);
                outCols = Arrays.copyOf(outCols, capacity);
                outVals = Arrays.copyOf(outVals, capacity);
            }
            for (int t = 0; t < count; t++) {
                int c = touched[t];
                if (acc[c] != 0.0) {
                    outCols[n] = c;
                    outVals[n] = acc[c];
                    n++;
                }
            }
            outPtr[i + 1] = n;
        }
        return new CsrMatrix(rows, other.cols, outPtr, Arrays.copyOf(outCols, n), Arrays.copyOf(outVals, n));
    }

    /** Returns the transpose, built with a counting sort over the column indices. */
    public CsrMatrix transpose() {
        int nnz = nnz();
        int[] ptr = new int[cols + 1];
        for (int k = 0; k < nnz; k++) {
            ptr[colIdx[k] + 1]++;
        }
        for (int j = 0; j < cols; j++) {
            ptr[j + 1] += ptr[j];
        }
        int[] next = Arrays.copyOf(ptr, cols);
        int[] tc = new int[nnz];
        double[] tv = new double[nnz];
        for (int i = 0; i < rows; i++) {
            for (int k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
                int dst = next[colIdx[k]]++;
                tc[dst] = i;
                tv[dst] = values[k];
            }
        }
        return new CsrMatrix(cols, rows, ptr, tc, tv);
    }

    /** Rows {@code [from, to)} as a new matrix with the same number of columns. */
    public CsrMatrix rowSlice(int from, int to) {
        if (from < 0 || to > rows || from > to) {
            throw new IndexOutOfBoundsException("bad row range [" + from + ", " + to + ") of " + rows);
        }
        int base = rowPtr[from];
        int[] ptr = new int[to - from + 1];
        for (int i = from; i <= to; i++) {
            ptr[i - from] = rowPtr[i] - base;
        }
        return new CsrMatrix(to - from, cols,
                ptr, Arrays.copyOfRange(colIdx, base, rowPtr[to]), Arrays.copyOfRange(values, base, rowPtr[to]));
    }

    /** Columns {@code [from, to)} as a new matrix, re-indexed to start at zero. */
    public CsrMatrix columnSlice(int from, int to) {
        if (from < 0 || to > cols || from > to) {
            throw new IndexOutOfBoundsException("bad column range [" + from + ", " + to + ") of " + cols);
        }
        int[] ptr = new int[rows + 1];
        int[] c = new int[nnz()];
        double[] v = new double[c.length];
        int n = 0;
        for (int i = 0; i < rows; i++) {
            int k = SparseVector.lowerBound(colIdx, rowPtr[i], rowPtr[i + 1], from);
            while (k < rowPtr[i + 1] && colIdx[k] < to) {
                c[n] = colIdx[k] - from;
                v[n] = values[k];
                n++;
                k++;
            }
            ptr[i + 1] = n;
        }
        return new CsrMatrix(rows, to - from, ptr, Arrays.copyOf(c, n), Arrays.copyOf(v, n));
    }

    /** The main diagonal, of length {@code min(rows, cols)}. */
    public double[] diagonal() {
        double[] d = new double[Math.min(rows, cols)];
        for (int i = 0; i < d.length; i++) {
            d[i] = get(i, i);
        }
        return d;
    }

    /** True when the matrix is square and {@code |a_ij - a_ji| <= tolerance} everywhere. */
    public boolean isSymmetric(double tolerance) {
        if (!isSquare()) {
            return false;
        }
        for (int i = 0; i < rows; i++) {
            for (int k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
                if (Math.abs(values[k] - get(colIdx[k], i)) > tolerance) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Visits the stored entries row by row, in increasing column order. */
    public void forEachNonZero(CooMatrix.EntryVisitor visitor) {
        for (int i = 0; i < rows; i++) {
            for (int k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
                visitor.visit(i, colIdx[k], values[k]);
            }
        }
    }

    /** Converts to coordinate format. */
    public CooMatrix toCoo() {
        CooMatrix coo = new CooMatrix(rows, cols);
        forEachNonZero(coo::add);
        return coo;
    }

    /** Expands to a dense array. */
    public double[][] toDense() {
        double[][] dense = new double[rows][cols];
        forEachNonZero((i, j, v) -> dense[i][j] = v);
        return dense;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof CsrMatrix other)) {
            return false;
        }
        return rows == other.rows && cols == other.cols
                && Arrays.equals(rowPtr, other.rowPtr)
                && Arrays.equals(colIdx, other.colIdx)
                && Arrays.equals(values, other.values);
    }

    @Override
    public int hashCode() {
        int h = 31 * rows + cols;
        h = 31 * h + Arrays.hashCode(rowPtr);
        h = 31 * h + Arrays.hashCode(colIdx);
        return 31 * h + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        return "CsrMatrix " + rows + "x" + cols + " nnz=" + nnz();
    }
}
