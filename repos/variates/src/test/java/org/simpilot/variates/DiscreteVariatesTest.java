package org.simpilot.variates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.DoubleUnaryOperator;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

class DiscreteVariatesTest {

    private static final int N = 40000;
    private static final double MIN_P = 1e-4;

    static int[] draw(int n, IntSupplier supplier) {
        int[] ks = new int[n];
        for (int i = 0; i < n; i++) {
            ks[i] = supplier.getAsInt();
        }
        return ks;
    }

    static double[] asDoubles(int[] ks) {
        double[] xs = new double[ks.length];
        for (int i = 0; i < ks.length; i++) {
            xs[i] = ks[i];
        }
        return xs;
    }

    /** Chi-square p-value of integer draws against a CDF, over unit bins first..last. */
    static double fitPValue(int[] ks, int first, int last, DoubleUnaryOperator cdf) {
        Histogram h = Histogram.forIntegers(first, last);
        h.addAll(asDoubles(ks));
        return GoodnessOfFit.chiSquare(h, cdf, 0).pValue();
    }

    static DoubleUnaryOperator poissonCdf(double mean) {
        return x -> x < 0 ? 0.0 : GoodnessOfFit.regularizedGammaQ(Math.floor(x) + 1.0, mean);
    }

    static DoubleUnaryOperator binomialCdf(int n, double p) {
        return x -> {
            double sum = 0.0;
            for (int k = 0; k <= Math.min(n, Math.floor(x)); k++) {
                double logPmf = GoodnessOfFit.logGamma(n + 1.0) - GoodnessOfFit.logGamma(k + 1.0)
                        - GoodnessOfFit.logGamma(n - k + 1.0) + k * Math.log(p) + (n - k) * Math.log1p(-p);
                sum += Math.exp(logPmf);
            }
            return Math.min(1.0, sum);
        };
    }

    static void assertMoments(int[] ks, double mean, double variance, double relativeVarianceTolerance) {
        Summary s = Summary.of(asDoubles(ks));
        assertEquals(mean, s.mean(), 5 * Math.sqrt(variance / ks.length), "mean");
        assertEquals(variance, s.variance(), relativeVarianceTolerance * variance, "variance");
    }

    @Test
    void poissonWithSmallMeanFollowsItsDistribution() {
        Variates v = new Variates(1);
        int[] ks = draw(N, () -> v.poisson(3.5));
        assertMoments(ks, 3.5, 3.5, 0.05);
        assertTrue(fitPValue(ks, 0, 15, poissonCdf(3.5)) > MIN_P);
    }

    @Test
    void poissonWithModerateMeanFollowsItsDistribution() {
        Variates v = new Variates(2);
        int[] ks = draw(N, () -> v.poisson(40.0));
        assertMoments(ks, 40.0, 40.0, 0.05);
        assertTrue(fitPValue(ks, 15, 70, poissonCdf(40.0)) > MIN_P);
    }

    @Test
    void poissonWithLargeMeanFollowsItsDistribution() {
        Variates v = new Variates(3);
        int[] ks = draw(N, () -> v.poisson(250.0));
        assertMoments(ks, 250.0, 250.0, 0.05);
        assertTrue(fitPValue(ks, 190, 310, poissonCdf(250.0)) > MIN_P);
    }

    @Test
    void poissonWithHugeMeanStaysCheapAndCentred() {
        Prng rng = new Prng(4);
        Variates v = new Variates(rng);
        int[] ks = draw(2000, () -> v.poisson(1.0e6));
        assertMoments(ks, 1.0e6, 1.0e6, 0.15);
        assertTrue(rng.draws() < 2000 * 500, "decomposition must avoid a million multiplications");
    }

    @Test
    void poissonEdgeCasesAndValidation() {
        Variates v = new Variates(5);
        for (int i = 0; i < 100; i++) {
            assertEquals(0, v.poisson(0.0));
        }
        assertThrows(IllegalArgumentException.class, () -> v.poisson(-0.5));
        assertThrows(IllegalArgumentException.class, () -> v.poisson(Double.NaN));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> v.poisson(2.0e9));
        assertTrue(e.getMessage().contains("Poisson mean"));
    }

    @Test
    void binomialWithFewTrialsFollowsItsDistribution() {
        Variates v = new Variates(6);
        int[] ks = draw(N, () -> v.binomial(10, 0.3));
        assertMoments(ks, 3.0, 2.1, 0.05);
        assertTrue(fitPValue(ks, 0, 10, binomialCdf(10, 0.3)) > MIN_P);
    }

    @Test
    void binomialWithManyTrialsFollowsItsDistribution() {
        Variates v = new Variates(7);
        int[] ks = draw(N, () -> v.binomial(1000, 0.3));
        for (int k : ks) {
            assertTrue(k >= 0 && k <= 1000);
        }
        assertMoments(ks, 300.0, 210.0, 0.05);
        assertTrue(fitPValue(ks, 250, 350, binomialCdf(1000, 0.3)) > MIN_P);
    }

    @Test
    void binomialWithHighProbabilityFollowsItsDistribution() {
        Variates v = new Variates(8);
        int[] ks = draw(N, () -> v.binomial(60, 0.8));
        assertMoments(ks, 48.0, 9.6, 0.05);
        assertTrue(fitPValue(ks, 35, 60, binomialCdf(60, 0.8)) > MIN_P);
    }

    @Test
    void sparseBinomialFollowsItsDistribution() {
        Variates v = new Variates(9);
        int[] ks = draw(N, () -> v.binomial(500, 0.004));
        assertMoments(ks, 2.0, 500 * 0.004 * 0.996, 0.05);
        assertTrue(fitPValue(ks, 0, 10, binomialCdf(500, 0.004)) > MIN_P);
    }

    @Test
    void sparseBinomialUsesWaitingTimes() {
        Prng rng = new Prng(10);
        Variates v = new Variates(rng);
        int[] ks = draw(N, () -> v.binomial(20, 0.02));
        assertMoments(ks, 0.4, 20 * 0.02 * 0.98, 0.05);
        assertTrue(fitPValue(ks, 0, 5, binomialCdf(20, 0.02)) > MIN_P);
        // One draw per success plus one, instead of one per trial.
        assertEquals(1.4 * N, rng.draws(), 0.05 * N);
    }

    @Test
    void binomialWithProbabilityNearOneIsAsCheapAsNearZero() {
        Prng rng = new Prng(11);
        Variates v = new Variates(rng);
        int[] ks = draw(N, () -> v.binomial(20, 0.98));
        assertMoments(ks, 19.6, 20 * 0.02 * 0.98, 0.05);
        assertEquals(1.4 * N, rng.draws(), 0.05 * N);
    }

    @Test
    void binomialEdgeCasesAndValidation() {
        Variates v = new Variates(12);
        for (int i = 0; i < 50; i++) {
            assertEquals(0, v.binomial(100, 0.0));
            assertEquals(100, v.binomial(100, 1.0));
            assertEquals(0, v.binomial(0, 0.4));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> v.binomial(-1, 0.5));
        assertTrue(e.getMessage().contains("trials"));
        assertThrows(IllegalArgumentException.class, () -> v.binomial(10, 1.5));
        assertThrows(IllegalArgumentException.class, () -> v.binomial(10, Double.NaN));
    }

    @Test
    void geometricFollowsItsDistribution() {
        Variates v = new Variates(13);
        int[] ks = draw(N, () -> v.geometric(0.2));
        for (int k : ks) {
            assertTrue(k >= 1);
        }
        assertMoments(ks, 5.0, 20.0, 0.08);
        assertTrue(fitPValue(ks, 1, 30, x -> x < 1 ? 0.0 : 1 - Math.pow(0.8, Math.floor(x))) > MIN_P);
    }

    @Test
    void geometricEdgeCasesAndValidation() {
        Variates v = new Variates(14);
        for (int i = 0; i < 50; i++) {
            assertEquals(1, v.geometric(1.0));
        }
        int capped = 0;
        for (int i = 0; i < 100; i++) {
            int k = v.geometric(1e-12);
            assertTrue(k >= 1);
            if (k == Integer.MAX_VALUE) {
                capped++;
            }
        }
        assertTrue(capped >= 95, "huge waits are capped at Integer.MAX_VALUE");
        assertThrows(IllegalArgumentException.class, () -> v.geometric(0.0));
        assertThrows(IllegalArgumentException.class, () -> v.geometric(1.5));
        assertThrows(IllegalArgumentException.class, () -> v.geometric(Double.NaN));
    }
}
