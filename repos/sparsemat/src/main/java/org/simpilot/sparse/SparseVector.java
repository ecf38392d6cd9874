package org.simpilot.sparse;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * An immutable sparse vector: strictly increasing indices with their non-zero values.
 * Arithmetic returns new vectors; the backing arrays are never handed out.
 */
public final class SparseVector implements Iterable<SparseVector.Entry> {

    /** One stored (index, value) pair. */
    public record Entry(int index, double value) {
    }

    private static final int[] NO_INDICES = new int[0];
    private static final double[] NO_VALUES = new double[0];

    private final int dimension;
    private final int[] indices;
    private final double[] values;

    /** Trusted constructor: arrays must be sorted, duplicate- and zero-free, and unshared. */
    SparseVector(int dimension, int[] indices, double[] values) {
        this.dimension = dimension;
        this.indices = indices;
        this.values = values;
    }

    /**
     * Builds a vector from index/value pairs in any order. Duplicate indices are
     * summed and entries that end up exactly zero are dropped.
     *
     * @throws IllegalArgumentException if the arrays differ in length or the dimension is negative
     * @throws IndexOutOfBoundsException if an index lies outside {@code [0, dimension)}
     */
    public static SparseVector of(int dimension, int[] indices, double[] values) {
        checkDimension(dimension);
        if (indices.length != values.length) {
            throw new IllegalArgumentException("indices and values differ in length: "
                    + indices.length + " vs " + values.length);
        }
        Integer[] order = new Integer[indices.length];
        for (int k = 0; k < order.length; k++) {
            checkIndex(indices[k], dimension);
            order[k] = k;
        }
        Arrays.sort(order, Comparator.comparingInt(k -> indices[k]));
        int[] sortedIdx = new int[order.length];
        double[] sortedVal = new double[order.length];
        int count = 0;
        for (Integer k : order) {
            if (count > 0 && sortedIdx[count - 1] == indices[k]) {
                sortedVal[count - 1] += values[k];
            } else {
                sortedIdx[count] = indices[k];
                sortedVal[count] = values[k];
                count++;
            }
        }
        return compacted(dimension, sortedIdx, sortedVal, count);
    }

    /** Copies the non-zero entries of a dense array. */
    public static SparseVector fromDense(double[] dense) {
        int[] idx = new int[dense.length];
        double[] val = new double[dense.length];
        for (int i = 0; i < dense.length; i++) {
            idx[i] = i;
            val[i] = dense[i];
        }
        return compacted(dense.length, idx, val, dense.length);
    }

    /** The all-zero vector of the given dimension. */
    public static SparseVector zeros(int dimension) {
        checkDimension(dimension);
        return new SparseVector(dimension, NO_INDICES, NO_VALUES);
    }

    /** Keeps the first {@code count} entries whose value is not zero, trimming the arrays. */
    private static SparseVector compacted(int dimension, int[] idx, double[] val, int count) {
        int kept = 0;
        for (int k = 0; k < count; k++) {
            if (val[k] != 0.0) {
                idx[kept] = idx[k];
                val[kept] = val[k];
                kept++;
            }
        }
        return new SparseVector(dimension, Arrays.copyOf(idx, kept), Arrays.copyOf(val, kept));
    }

    private static void checkDimension(int dimension) {
        if (dimension < 0) {
            throw new IllegalArgumentException("dimension must not be negative: " + dimension);
        }
    }

    private static void checkIndex(int index, int dimension) {
        if (index < 0 || index >= dimension) {
            throw new IndexOutOfBoundsException("index " + index + " outside [0, " + dimension + ")");
        }
    }

    private void checkSameDimension(SparseVector other) {
        if (other.dimension != dimension) {
            throw new IllegalArgumentException("dimension mismatch: " + dimension + " vs " + other.dimension);
        }
    }

    /** Logical length of the vector. */
    public int dimension() {
        return dimension;
    }

    /** Number of stored (non-zero) entries. */
    public int nnz() {
        return indices.length;
    }

    /** Value at a logical index, zero when nothing is stored there. */
    public double get(int index) {
        checkIndex(index, dimension);
        int pos = Arrays.binarySearch(indices, index);
        return pos >= 0 ? values[pos] : 0.0;
    }

    /** Dot product with another sparse vector, walking both index lists once. */
    public double dot(SparseVector other) {
        checkSameDimension(other);
        double sum = 0.0;
        int a = 0;
        int b = 0;
        while (a < indices.length && b < other.indices.length) {
            int ia = indices[a];
            int ib = other.indices[b];
            if (ia == ib) {
                sum += values[a] * other.values[b];
                a++;
                b++;
            } else if (ia < ib) {
                a++;
            } else {
                b++;
            }
        }
        return sum;
    }

    /** Returns {@code this + alpha * x}; entries that cancel out are dropped. */
    public SparseVector axpy(double alpha, SparseVector x) {
        checkSameDimension(x);
        int[] idx = new int[indices.length + x.indices.length];
        double[] val = new double[idx.length];
        int a = 0;
        int b = 0;
        int n = 0;
        while (a < indices.length || b < x.indices.length) {
            int ia = a < indices.length ? indices[a] : Integer.MAX_VALUE;
            int ib = b < x.indices.length ? x.indices[b] : Integer.MAX_VALUE;
            if (ia < ib) {
                idx[n] = ia;
                val[n] = values[a++];
            } else if (ib < ia) {
                idx[n] = ib;
                val[n] = alpha * x.values[b++];
            } else {
                idx[n] = ia;
                val[n] = values[a++] + alpha * x.values[b++];
            }
            n++;
        }
        return compacted(dimension, idx, val, n);
    }

    /** Returns {@code alpha * this}. */
    public SparseVector scale(double alpha) {
        if (alpha == 0.0) {
            return zeros(dimension);
        }
        double[] scaled = new double[values.length];
        for (int k = 0; k < values.length; k++) {
            scaled[k] = alpha * values[k];
        }
        return new SparseVector(dimension, indices.clone(), scaled);
    }

    /** Sum of absolute values. */
    public double norm1() {
        double sum = 0.0;
        for (double v : values) {
            sum += Math.abs(v);
        }
        return sum;
    }

    /** Euclidean norm, accumulated with a running scale so huge entries do not overflow. */
    public double norm2() {
        double scale = 0.0;
        double ssq = 1.0;
        for (double v : values) {
            double abs = Math.abs(v);
            if (abs > scale) {
                double ratio = scale / abs;
                ssq = 1.0 + ssq * ratio * ratio;
                scale = abs;
            } else {
                double ratio = abs / scale;
                ssq += ratio * ratio;
            }
        }
        return scale * Math.sqrt(ssq);
    }

    /** Largest absolute value, zero for the empty vector. */
    public double normInf() {
        double max = 0.0;
        for (double v : values) {
            max = Math.max(max, Math.abs(v));
        }
        return max;
    }

    /** Expands to a dense array. */
    public double[] toDense() {
        double[] dense = new double[dimension];
        for (int k = 0; k < indices.length; k++) {
            dense[indices[k]] = values[k];
        }
        return dense;
    }

    /** First position in {@code a[from, to)} whose value is at least {@code key}. */
    static int lowerBound(int[] a, int from, int to, int key) {
        int lo = from;
        int hi = to;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @Override
    public Iterator<Entry> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < indices.length;
            }

            @Override
            public Entry next() {
                if (next >= indices.length) {
                    throw new NoSuchElementException("no more entries after " + indices.length);
                }
                Entry e = new Entry(indices[next], values[next]);
                next++;
                return e;
            }
        };
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SparseVector other)) {
            return false;
        }
        return dimension == other.dimension
                && Arrays.equals(indices, other.indices)
                && Arrays.equals(values, other.values);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * dimension + Arrays.hashCode(indices)) + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("SparseVector(").append(dimension).append(')');
        sb.append('{');
        for (int k = 0; k < indices.length; k++) {
            if (k > 0) {
                sb.append(", ");
            }
            sb.append(indices[k]).append('=').append(values[k]);
        }
        return sb.append('}').toString();
    }
}
