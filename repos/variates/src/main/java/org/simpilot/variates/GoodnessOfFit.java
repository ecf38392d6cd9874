package org.simpilot.variates;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.DoubleUnaryOperator;

/**
 * Pearson's chi-square goodness-of-fit test and the special functions behind its p-values:
 * log-gamma and the regularised incomplete gamma functions.
 */
public final class GoodnessOfFit {

    /** Adjacent chi-square cells are pooled until each expects at least this many counts. */
    public static final double MIN_EXPECTED = 5.0;

    private static final double HALF_LOG_TWO_PI = 0.5 * Math.log(2.0 * Math.PI);
    private static final double EPSILON = 1.0e-15;
    private static final double TINY = 1.0e-300;
    private static final int MAX_ITERATIONS = 1000;

    private GoodnessOfFit() {
    }

    /**
     * Outcome of a test.
     *
     * @param statistic value of the test statistic
     * @param degreesOfFreedom degrees of freedom
     * @param pValue probability of a statistic at least this extreme under the hypothesis
     */
    public record Result(double statistic, int degreesOfFreedom, double pValue) {

        /** @return whether the hypothesis is rejected at significance level {@code alpha} */
        public boolean rejects(double alpha) {
            return pValue < alpha;
        }
    }

    /**
     * Pearson's chi-square test of observed counts against expected counts. Adjacent cells
     * are pooled left to right until each pooled cell expects {@link #MIN_EXPECTED}; a short
     * remainder is added to the last pooled cell. Each parameter fitted to the data costs
     * one degree of freedom.
     */
    public static Result chiSquare(long[] observed, double[] expected, int fittedParameters) {
        if (observed.length != expected.length) {
            throw new IllegalArgumentException(observed.length + " observed cells but "
                    + expected.length + " expected");
        }
        if (fittedParameters < 0) {
            throw new IllegalArgumentException("negative number of fitted parameters");
        }
        List<double[]> cells = new ArrayList<>();
        double obs = 0.0;
        double exp = 0.0;
        for (int i = 0; i < observed.length; i++) {
            if (observed[i] < 0 || !(expected[i] >= 0.0)) {
                throw new IllegalArgumentException("invalid counts in cell " + i);
            }
            obs += observed[i];
            exp += expected[i];
            if (exp >= MIN_EXPECTED) {
                cells.add(new double[] {obs, exp});
                obs = 0.0;
                exp = 0.0;
            }
        }
        if (cells.isEmpty()) {
            throw new IllegalStateException("expected counts add up to less than " + MIN_EXPECTED);
        }
        double[] lastCell = cells.get(cells.size() - 1);
        lastCell[0] += obs;
        lastCell[1] += exp;
        int dof = cells.size() - 1 - fittedParameters;
        if (dof < 1) {
            throw new IllegalStateException("only " + cells.size() + " cells after pooling, "
                    + "too few for " + fittedParameters + " fitted parameters");
        }
        double statistic = 0.0;
        for (double[] cell : cells) {
            double diff = cell[0] - cell[1];
            statistic += diff * diff / cell[1];
        }
        return new Result(statistic, dof, chiSquareSurvival(statistic, dof));
    }

    /** Chi-square test of the hypothesis that all cells are equally likely. */
    public static Result chiSquareUniform(long[] observed) {
        long total = 0;
        for (long c : observed) {
            total += c;
        }
        double[] expected = new double[observed.length];
        Arrays.fill(expected, (double) total / observed.length);
        return chiSquare(observed, expected, 0);
    }

    /**
     * Chi-square test of a histogram against a distribution given by its CDF; values outside
     * the histogram's range are counted in its first and last bins.
     */
    public static Result chiSquare(Histogram histogram, DoubleUnaryOperator cdf, int fittedParameters) {
        return chiSquare(histogram.countsWithTails(), histogram.expectedCounts(cdf), fittedParameters);
    }

    /** @return the upper tail {@code P(X >= x)} of a chi-square distribution */
    public static double chiSquareSurvival(double x, double degreesOfFreedom) {
        if (x <= 0.0) {
            return 1.0;
        }
        return regularizedGammaQ(0.5 * degreesOfFreedom, 0.5 * x);
    }

    /**
     * Natural logarithm of the gamma function for positive arguments: the argument is
     * shifted to at least 10 with Γ(x) = Γ(x + 1) / x and Stirling's series is applied there.
     */
    public static double logGamma(double x) {
        if (!(x > 0.0)) {
            throw new IllegalArgumentException("logGamma needs a positive argument, got " + x);
        }
        double product = 1.0;
        while (x < 10.0) {
            product *= x;
            x += 1.0;
        }
        double inv = 1.0 / x;
        double inv2 = inv * inv;
        double series = inv * (1.0 / 12 - inv2 * (1.0 / 360 - inv2 * (1.0 / 1260
                - inv2 * (1.0 / 1680 - inv2 / 1188))));
        return (x - 0.5) * Math.log(x) - x + HALF_LOG_TWO_PI + series - Math.log(product);
    }

    /** Regularised lower incomplete gamma function P(a, x), for a > 0 and x >= 0. */
    public static double regularizedGammaP(double a, double x) {
        checkGammaArguments(a, x);
        if (x < a + 1.0) {
            return lowerSeries(a, x);
        }
        return 1.0 - upperFraction(a, x);
    }

    /** Regularised upper incomplete gamma function Q(a, x) = 1 - P(a, x). */
    public static double regularizedGammaQ(double a, double x) {
        checkGammaArguments(a, x);
        if (x < a + 1.0) {
            return 1.0 - lowerSeries(a, x);
        }
        return upperFraction(a, x);
    }

    private static void checkGammaArguments(double a, double x) {
        if (!(a > 0.0) || !(x >= 0.0)) {
            throw new IllegalArgumentException("incomplete gamma needs a > 0 and x >= 0, got a="
                    + a + ", x=" + x);
        }
    }

    /** x^a e^-x / Γ(a), the common factor of both expansions. */
    private static double prefactor(double a, double x) {
        return Math.exp(a * Math.log(x) - x - logGamma(a));
    }

    /** P(a, x) by its power series; converges quickly for x < a + 1 and gives 0 at x = 0. */
    private static double lowerSeries(double a, double x) {
        double denominator = a;
        double term = 1.0 / a;
        double sum = term;
        while (Math.abs(term) > EPSILON * Math.abs(sum)) {
            denominator += 1.0;
            term *= x / denominator;
            sum += term;
        }
        return sum * prefactor(a, x);
    }

    /** Q(a, x) by Legendre's continued fraction, evaluated with the modified Lentz scheme. */
    private static double upperFraction(double a, double x) {
        double b = x + 1.0 - a;
        double numeratorRatio = 1.0 / TINY;
        double denominatorRatio = 1.0 / b;
        double value = denominatorRatio;
        for (int i = 1; i <= MAX_ITERATIONS; i++) {
            double an = -i * (i - a);
            b += 2.0;
            // Only called with x >= a + 1, where the ratios stay well away from zero.
            denominatorRatio = 1.0 / (an * denominatorRatio + b);
            numeratorRatio = b + an / numeratorRatio;
            double step = denominatorRatio * numeratorRatio;
            value *= step;
            if (Math.abs(step - 1.0) < EPSILON) {
                return value * prefactor(a, x);
            }
        }
        throw new ArithmeticException("continued fraction for Q(" + a + ", " + x + ") did not converge");
    }
}
