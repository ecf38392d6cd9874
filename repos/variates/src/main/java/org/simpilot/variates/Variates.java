package org.simpilot.variates;

import java.util.Objects;

/**
 * Random variates of the common continuous and discrete distributions, drawn from a
 * {@link Prng}.
 *
 * <p>Normal variates use the polar method, which produces them in pairs: the second of each
 * pair is kept and returned by the next call. Gamma variates use the Marsaglia–Tsang
 * squeeze; beta and chi-squared variates are built from gammas.
 * Poisson and binomial variates reduce large parameters by order-statistic recursions and
 * finish with a simple method on what is left.
 */
public final class Variates {

    /** Poisson means at or below this are finished by multiplying uniforms. */
    static final double POISSON_PRODUCT_LIMIT = 16.0;
    /** Binomial trial counts at or below this are finished directly. */
    static final int BINOMIAL_DIRECT_LIMIT = 24;
    /** Largest Poisson mean accepted; results must fit in an int. */
    static final double MAX_POISSON_MEAN = 1.0e9;

    private final Prng rng;
    private double spareNormal;
    private boolean hasSpare;

    /** @param rng the generator to draw from; it is shared, not copied */
    public Variates(Prng rng) {
        this.rng = Objects.requireNonNull(rng, "rng");
    }

    /** @param seed seed of a fresh generator */
    public Variates(long seed) {
        this(new Prng(seed));
    }

    private static void requirePositive(double value, String name) {
        if (!(value > 0.0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(name + " must be positive and finite, got " + value);
        }
    }

    /** @return a uniform variate in {@code [lo, hi)} */
    public double uniform(double lo, double hi) {
        if (!(lo < hi) || Double.isInfinite(hi - lo)) {
            throw new IllegalArgumentException("invalid interval [" + lo + ", " + hi + ")");
        }
        return lo + (hi - lo) * rng.nextDouble();
    }

    /** @return an exponential variate with rate λ, that is with mean 1/λ */
    public double exponential(double rate) {
        requirePositive(rate, "rate");
        return -Math.log(rng.nextOpenDouble()) / rate;
    }

    /** @return a standard normal variate (polar method) */
    public double standardNormal() {
        if (hasSpare) {
            hasSpare = false;
            return spareNormal;
        }
        double u;
        double v;
        double s;
        do {
            u = 2.0 * rng.nextDouble() - 1.0;
            v = 2.0 * rng.nextDouble() - 1.0;
            s = u * u + v * v;
        } while (s >= 1.0 || s == 0.0);
        double factor = Math.sqrt(-2.0 * Math.log(s) / s);
        spareNormal = v * factor;
        hasSpare = true;
        return u * factor;
    }

    /** @return a normal variate with the given mean and (non-negative) standard deviation */
    public double normal(double mean, double sd) {
        if (!(sd >= 0.0) || Double.isInfinite(sd)) {
            throw new IllegalArgumentException("standard deviation must be finite and >= 0, got " + sd);
        }
        return mean + sd * standardNormal();
    }

    /** @return a gamma variate with shape k and scale θ (mean kθ) */
    public double gamma(double shape, double scale) {
        requirePositive(shape, "shape");
        requirePositive(scale, "scale");
        return scale * standardGamma(shape);
    }

    /** Gamma variate with unit scale; {@code shape} has been validated. */
    private double standardGamma(double shape) {
        if (shape < 1.0) {
            // If X ~ Gamma(a + 1) and U is uniform then X * U^(1/a) ~ Gamma(a).
            double boost = Math.pow(rng.nextOpenDouble(), 1.0 / shape);
            return standardGamma(shape + 1.0) * boost;
        }
        double d = shape - 1.0 / 3.0;
        double c = 1.0 / Math.sqrt(9.0 * d);
        while (true) {
            double x;
            double v;
            do {
                x = standardNormal();
                v = 1.0 + c * x;
            } while (v <= 0.0);
            v = v * v * v;
            double u = rng.nextOpenDouble();
            double x2 = x * x;
            if (u < 1.0 - 0.0331 * x2 * x2) {
                return d * v;
            }
            if (Math.log(u) < 0.5 * x2 + d * (1.0 - v + Math.log(v))) {
                return d * v;
            }
        }
    }

    /** @return a beta variate in {@code [0, 1]}, built from two gamma variates */
    public double beta(double a, double b) {
        requirePositive(a, "a");
        requirePositive(b, "b");
        double x = standardGamma(a);
        double y = standardGamma(b);
        return x / (x + y);
    }

    /** @return a chi-squared variate */
    public double chiSquared(double degreesOfFreedom) {
        requirePositive(degreesOfFreedom, "degrees of freedom");
        return 2.0 * standardGamma(0.5 * degreesOfFreedom);
    }

    /**
     * Poisson variate. Large means are cut down with Gamma-distributed arrival times of a
     * unit-rate Poisson process (Knuth's method); once the arrival time of the m-th event
     * passes the remaining mean, the earlier m-1 events are binomially split.
     *
     * @param mean mean λ, not negative
     * @return a Poisson variate
     */
    public int poisson(double mean) {
        if (!(mean >= 0.0) || mean > MAX_POISSON_MEAN) {
            throw new IllegalArgumentException("Poisson mean must lie in [0, " + MAX_POISSON_MEAN
                    + "], got " + mean);
        }
        int count = 0;
        double remaining = mean;
        while (remaining > POISSON_PRODUCT_LIMIT) {
            int m = (int) (remaining * 0.875);
            double arrival = standardGamma(m);
            if (arrival >= remaining) {
                return count + binomial(m - 1, remaining / arrival);
            }
            count += m;
            remaining -= arrival;
        }
        return count + poissonByProduct(remaining);
    }

    /** Counts how many uniforms can be multiplied together before dropping below e^-mean. */
    private int poissonByProduct(double mean) {
        double limit = Math.exp(-mean);
        double product = rng.nextDouble();
        int k = 0;
        while (product > limit) {
            product *= rng.nextDouble();
            k++;
        }
        return k;
    }

    /** @return the number of successes in {@code n} independent trials of probability {@code p} */
    public int binomial(int n, double p) {
        if (n < 0) {
            throw new IllegalArgumentException("number of trials must not be negative, got " + n);
        }
        if (!(p >= 0.0 && p <= 1.0)) {
            throw new IllegalArgumentException("probability must lie in [0, 1], got " + p);
        }
        if (p > 0.5) {
            // Count failures instead, which keeps the waiting-time method applicable.
            return n - binomial(n, 1.0 - p);
        }
        int successes = 0;
        int trials = n;
        double prob = p;
        while (trials > BINOMIAL_DIRECT_LIMIT) {
            // The a-th smallest of `trials` uniforms is Beta(a, trials + 1 - a).
            int a = 1 + trials / 2;
            int b = trials + 1 - a;
            double x = beta(a, b);
            if (x >= prob) {
                trials = a - 1;
                prob = prob / x;
            } else {
                successes += a;
                trials = b - 1;
                prob = (prob - x) / (1.0 - x);
            }
        }
        return successes + smallBinomial(trials, prob);
    }

    private int smallBinomial(int n, double p) {
        int successes = 0;
        if (n * p < 1.0) {
            // Jump from success to success with geometric gaps; p == 0 gives an infinite gap.
            double logQ = Math.log1p(-p);
            double position = 0.0;
            while (true) {
                position += Math.floor(Math.log(rng.nextOpenDouble()) / logQ) + 1.0;
                if (position > n) {
                    return successes;
                }
                successes++;
            }
        }
        for (int i = 0; i < n; i++) {
            if (rng.nextDouble() < p) {
                successes++;
            }
        }
        return successes;
    }

    /**
     * @param p success probability in {@code (0, 1]}
     * @return the number of trials up to and including the first success (at least one)
     */
    public int geometric(double p) {
        if (!(p > 0.0 && p <= 1.0)) {
            throw new IllegalArgumentException("probability must lie in (0, 1], got " + p);
        }
        if (p == 1.0) {
            return 1;
        }
        double trials = Math.ceil(Math.log(rng.nextOpenDouble()) / Math.log1p(-p));
        return trials >= Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) trials;
    }
}
