package org.simpilot.variates;

import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.Objects;

/**
 * A continuous distribution fitted to observed data by linear interpolation between order
 * statistics: the i-th smallest of n observations sits at cumulative probability i/(n-1).
 *
 * <p>Sampling inverts this piecewise-linear CDF, so draws never leave
 * {@code [min, max]} of the data but can fall between observed values.
 */
public final class EmpiricalDistribution {

    private final double[] sorted;

    /** @param data observations, at least one, none NaN; the array is copied */
    public EmpiricalDistribution(double[] data) {
        Objects.requireNonNull(data, "data");
        if (data.length == 0) {
            throw new IllegalArgumentException("an empirical distribution needs data");
        }
        this.sorted = data.clone();
        for (double x : sorted) {
            if (Double.isNaN(x)) {
                throw new IllegalArgumentException("data must not contain NaN");
            }
        }
        Arrays.sort(sorted);
    }

    /** @return the distribution fitted to a collection of observations */
    public static EmpiricalDistribution of(Collection<? extends Number> data) {
        double[] values = new double[data.size()];
        Iterator<? extends Number> it = data.iterator();
        for (int i = 0; it.hasNext(); i++) {
            values[i] = it.next().doubleValue();
        }
        return new EmpiricalDistribution(values);
    }

    /** @return number of observations */
    public int size() {
        return sorted.length;
    }

    /** @return smallest observation */
    public double min() {
        return sorted[0];
    }

    /** @return largest observation */
    public double max() {
        return sorted[sorted.length - 1];
    }

    /** Index of the last observation not above {@code x}, or -1 when all are above it. */
    private int lastAtOrBelow(double x) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] <= x) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo - 1;
    }

    /** @return the interpolated cumulative probability at {@code x} */
    public double cdf(double x) {
        int i = lastAtOrBelow(x);
        if (i < 0) {
            return 0.0;
        }
        int last = sorted.length - 1;
        if (i == last) {
            return 1.0;
        }
        double fraction = (x - sorted[i]) / (sorted[i + 1] - sorted[i]);
        return (i + fraction) / last;
    }

    /** @return the interpolated quantile at level {@code q} in {@code [0, 1]} */
    public double quantile(double q) {
        if (!(q >= 0.0 && q <= 1.0)) {
            throw new IllegalArgumentException("quantile level must lie in [0, 1], got " + q);
        }
        int last = sorted.length - 1;
        double h = q * last;
        int i = (int) Math.floor(h);
        if (i >= last) {
            return sorted[last];
        }
        return sorted[i] + (h - i) * (sorted[i + 1] - sorted[i]);
    }

    /** @return the mean of the fitted (interpolated) distribution */
    public double mean() {
        if (sorted.length == 1) {
            return sorted[0];
        }
        // Each gap carries mass 1/(n-1) spread evenly, so its mean is the gap's midpoint.
        double sum = 0.0;
        for (int i = 0; i + 1 < sorted.length; i++) {
            sum += 0.5 * (sorted[i] + sorted[i + 1]);
        }
        return sum / (sorted.length - 1);
    }

    /** @return one draw from the fitted distribution, by inversion */
    public double sample(Prng rng) {
        return quantile(rng.nextDouble());
    }

    /** @return {@code count} draws from the fitted distribution */
    public double[] sample(Prng rng, int count) {
        if (count < 0) {
            throw new IllegalArgumentException("negative count " + count);
        }
        double[] out = new double[count];
        for (int k = 0; k < count; k++) {
            out[k] = sample(rng);
        }
        return out;
    }
}
