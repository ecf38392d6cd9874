package org.simpilot.variates;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.DoubleUnaryOperator;

/**
 * A histogram with equal-width bins over {@code [lo, hi)} plus underflow and overflow
 * counters. Bins are half-open: bin {@code i} holds {@code lowerEdge(i) <= x < upperEdge(i)}.
 */
public final class Histogram {

    /** Character used for the bars of {@link #render(int)}. */
    static final char BAR = '█';

    private final double lo;
    private final double hi;
    private final double width;
    private final long[] counts;
    private long underflow;
    private long overflow;

    /** Creates {@code bins} equal bins spanning {@code [lo, hi)}. */
    public Histogram(double lo, double hi, int bins) {
        if (!(lo < hi) || Double.isInfinite(hi - lo)) {
            throw new IllegalArgumentException("invalid range [" + lo + ", " + hi + ")");
        }
        if (bins <= 0) {
            throw new IllegalArgumentException("number of bins must be positive, got " + bins);
        }
        this.lo = lo;
        this.hi = hi;
        this.width = (hi - lo) / bins;
        this.counts = new long[bins];
    }

    /** @return a histogram with a unit-width bin centred on each integer of {@code [first, last]} */
    public static Histogram forIntegers(int first, int last) {
        if (last < first) {
            throw new IllegalArgumentException("empty integer range " + first + ".." + last);
        }
        return new Histogram(first - 0.5, last + 0.5, last - first + 1);
    }

    /** @return the bin of {@code x}, -1 for underflow or {@link #bins()} for overflow */
    public int binOf(double x) {
        if (Double.isNaN(x)) {
            throw new IllegalArgumentException("NaN has no bin");
        }
        if (x < lo) {
            return -1;
        }
        if (x >= hi) {
            return counts.length;
        }
        int bin = (int) ((x - lo) / width);
        // Rounding can push values just below hi into a bin that does not exist.
        return Math.min(bin, counts.length - 1);
    }

    /** Counts a value. */
    public void add(double x) {
        int bin = binOf(x);
        if (bin < 0) {
            underflow++;
        } else if (bin == counts.length) {
            overflow++;
        } else {
            counts[bin]++;
        }
    }

    /** Counts values. */
    public void addAll(double... xs) {
        for (double x : xs) {
            add(x);
        }
    }

    /** @return number of bins */
    public int bins() {
        return counts.length;
    }

    /** @return the counts of the bins (a copy) */
    public long[] counts() {
        return counts.clone();
    }

    /** @return values below the range */
    public long underflow() {
        return underflow;
    }

    /** @return values at or above the upper edge */
    public long overflow() {
        return overflow;
    }

    /** @return all values counted, including underflow and overflow */
    public long total() {
        long sum = underflow + overflow;
        for (long c : counts) {
            sum += c;
        }
        return sum;
    }

    /** @return the lower edge of a bin */
    public double lowerEdge(int bin) {
        return lo + bin * width;
    }

    /** @return the upper edge of a bin */
    public double upperEdge(int bin) {
        return bin == counts.length - 1 ? hi : lo + (bin + 1) * width;
    }

    /**
     * Expected counts of the bins for a hypothesised distribution, with the same total as
     * this histogram. The first and last bins absorb the tails, so the expectations add up
     * to {@link #total()} and can be compared with {@link #countsWithTails()}.
     *
     * @param cdf cumulative distribution function of the hypothesis
     * @return expected count per bin
     */
    public double[] expectedCounts(DoubleUnaryOperator cdf) {
        double[] expected = new double[counts.length];
        long total = total();
        double previous = 0.0;
        for (int i = 0; i < counts.length; i++) {
            double upper = i == counts.length - 1 ? 1.0 : cdf.applyAsDouble(upperEdge(i));
            expected[i] = (upper - previous) * total;
            previous = upper;
        }
        return expected;
    }

    /** @return the bin counts with underflow added to the first and overflow to the last */
    public long[] countsWithTails() {
        long[] c = counts.clone();
        c[0] += underflow;
        c[c.length - 1] += overflow;
        return c;
    }

    /**
     * Renders one line per bin: its range, a bar scaled so that the fullest bin is
     * {@code barWidth} characters long, and its count.
     *
     * @param barWidth length of the longest bar, positive
     * @return the rendering, lines separated by '\n'
     */
    public String render(int barWidth) {
        if (barWidth <= 0) {
            throw new IllegalArgumentException("bar width must be positive, got " + barWidth);
        }
        long peak = Arrays.stream(counts).max().orElse(0L);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < counts.length; i++) {
            int len = peak == 0 ? 0 : (int) Math.round((double) counts[i] * barWidth / peak);
            sb.append(String.format(Locale.ROOT, "[%8.3f, %8.3f) ", lowerEdge(i), upperEdge(i)));
            for (int k = 0; k < len; k++) {
                sb.append(BAR);
            }
            sb.append(' ').append(counts[i]).append('\n');
        }
        return sb.toString();
    }
}
