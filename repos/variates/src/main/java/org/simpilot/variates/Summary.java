package org.simpilot.variates;

import java.util.Locale;

/**
 * Streaming summary statistics: count, extremes, mean and variance, updated one value at
 * a time in a numerically stable way (Welford's method). Two summaries of disjoint data
 * can be {@linkplain #merge merged} exactly, which lets tests summarise in parallel chunks.
 */
public final class Summary {

    private long count;
    private double mean;
    /** Sum of squared deviations from the current mean. */
    private double m2;
    private double min = Double.POSITIVE_INFINITY;
    private double max = Double.NEGATIVE_INFINITY;

    /** @return a summary of the given values */
    public static Summary of(double... values) {
        Summary s = new Summary();
        s.addAll(values);
        return s;
    }

    /** Adds one observation, which must not be NaN. */
    public void add(double x) {
        if (Double.isNaN(x)) {
            throw new IllegalArgumentException("cannot summarise NaN");
        }
        count++;
        double delta = x - mean;
        mean += delta / count;
        // Uses the deviation from both the old and the updated mean.
        m2 += delta * (x - mean);
        min = Math.min(min, x);
        max = Math.max(max, x);
    }

    /** @param values observations to add */
    public void addAll(double... values) {
        for (double v : values) {
            add(v);
        }
    }

    /** @return a new summary of this summary's data and another's; neither is changed */
    public Summary merge(Summary other) {
        Summary r = new Summary();
        if (count == 0 || other.count == 0) {
            Summary source = count == 0 ? other : this;
            r.copyFrom(source);
            return r;
        }
        double na = count;
        double nb = other.count;
        double n = na + nb;
        double delta = other.mean - mean;
        r.count = count + other.count;
        r.mean = mean + delta * nb / n;
        r.m2 = m2 + other.m2 + delta * delta * na * nb / n;
        r.min = Math.min(min, other.min);
        r.max = Math.max(max, other.max);
        return r;
    }

    private void copyFrom(Summary s) {
        count = s.count;
        mean = s.mean;
        m2 = s.m2;
        min = s.min;
        max = s.max;
    }

    /** @return number of observations */
    public long count() {
        return count;
    }

    /** @return arithmetic mean, NaN when empty */
    public double mean() {
        return count == 0 ? Double.NaN : mean;
    }

    /** @return unbiased sample variance, NaN with fewer than two observations */
    public double variance() {
        return count < 2 ? Double.NaN : m2 / (count - 1);
    }

    /** @return sample standard deviation */
    public double stdDev() {
        return Math.sqrt(variance());
    }

    /** @return smallest value, +∞ when empty */
    public double min() {
        return min;
    }

    /** @return largest value, -∞ when empty */
    public double max() {
        return max;
    }

    @Override
    public String toString() {
        if (count == 0) {
            return "Summary[n=0]";
        }
        return String.format(Locale.ROOT, "Summary[n=%d, mean=%.4f, sd=%.4f, min=%.4f, max=%.4f]",
                count, mean, stdDev(), min, max);
    }
}
