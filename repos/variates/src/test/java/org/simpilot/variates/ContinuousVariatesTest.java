package org.simpilot.variates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.DoubleSupplier;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;

class ContinuousVariatesTest {

    private static final int N = 40000;
    private static final double MIN_P = 1e-4;

    static double standardNormalCdf(double z) {
        double half = 0.5 * GoodnessOfFit.regularizedGammaP(0.5, 0.5 * z * z);
        return z < 0 ? 0.5 - half : 0.5 + half;
    }

    static double[] draw(int n, DoubleSupplier supplier) {
        double[] xs = new double[n];
        for (int i = 0; i < n; i++) {
            xs[i] = supplier.getAsDouble();
        }
        return xs;
    }

    static double fitPValue(double[] xs, double lo, double hi, int bins, DoubleUnaryOperator cdf) {
        Histogram h = new Histogram(lo, hi, bins);
        h.addAll(xs);
        return GoodnessOfFit.chiSquare(h, cdf, 0).pValue();
    }

    static void assertMoments(double[] xs, double mean, double variance, double relativeVarianceTolerance) {
        Summary s = Summary.of(xs);
        assertEquals(mean, s.mean(), 5 * Math.sqrt(variance / xs.length), "mean");
        assertEquals(variance, s.variance(), relativeVarianceTolerance * variance, "variance");
    }

    @Test
    void uniformCoversTheIntervalEvenly() {
        Variates v = new Variates(1);
        double[] xs = draw(N, () -> v.uniform(-2.0, 6.0));
        for (double x : xs) {
            assertTrue(x >= -2.0 && x < 6.0);
        }
        assertMoments(xs, 2.0, 64.0 / 12.0, 0.03);
        assertTrue(fitPValue(xs, -2.0, 6.0, 16, x -> (x + 2.0) / 8.0) > MIN_P);
    }

    @Test
    void uniformRejectsEmptyOrInfiniteIntervals() {
        Variates v = new Variates(1);
        assertThrows(IllegalArgumentException.class, () -> v.uniform(1.0, 1.0));
        assertThrows(IllegalArgumentException.class, () -> v.uniform(2.0, 1.0));
        assertThrows(IllegalArgumentException.class, () -> v.uniform(Double.NaN, 1.0));
        assertThrows(IllegalArgumentException.class, () -> v.uniform(-Double.MAX_VALUE, Double.MAX_VALUE));
    }

    @Test
    void exponentialFollowsItsDistribution() {
        Variates v = new Variates(2);
        double rate = 2.5;
        double[] xs = draw(N, () -> v.exponential(rate));
        for (double x : xs) {
            assertTrue(x > 0.0 && Double.isFinite(x));
        }
        assertMoments(xs, 1 / rate, 1 / (rate * rate), 0.06);
        assertTrue(fitPValue(xs, 0.0, 2.0, 25, x -> 1 - Math.exp(-rate * x)) > MIN_P);
    }

    @Test
    void exponentialRejectsBadRates() {
        Variates v = new Variates(2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> v.exponential(0.0));
        assertTrue(e.getMessage().contains("rate"));
        assertThrows(IllegalArgumentException.class, () -> v.exponential(-1.0));
        assertThrows(IllegalArgumentException.class, () -> v.exponential(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> v.exponential(Double.POSITIVE_INFINITY));
    }

    @Test
    void standardNormalFollowsItsDistribution() {
        Variates v = new Variates(3);
        double[] xs = draw(N, v::standardNormal);
        assertMoments(xs, 0.0, 1.0, 0.04);
        assertTrue(fitPValue(xs, -3.5, 3.5, 35, ContinuousVariatesTest::standardNormalCdf) > MIN_P);
    }

    @Test
    void normalVariatesArriveInPairs() {
        Prng rng = new Prng(4);
        Variates v = new Variates(rng);
        v.standardNormal();
        long afterFirst = rng.draws();
        assertTrue(afterFirst >= 2);
        v.standardNormal();
        assertEquals(afterFirst, rng.draws(), "the second of a pair must come from the cache");
        v.standardNormal();
        assertTrue(rng.draws() > afterFirst, "a third variate starts a new pair");
    }

    @Test
    void pairedNormalsAreUncorrelated() {
        Variates v = new Variates(5);
        double sumProducts = 0.0;
        int pairs = 20000;
        for (int i = 0; i < pairs; i++) {
            sumProducts += v.standardNormal() * v.standardNormal();
        }
        assertEquals(0.0, sumProducts / pairs, 5 / Math.sqrt(pairs));
    }

    @Test
    void normalShiftsAndScales() {
        Variates v = new Variates(6);
        double[] xs = draw(N, () -> v.normal(10.0, 3.0));
        assertMoments(xs, 10.0, 9.0, 0.04);
        assertTrue(fitPValue(xs, 0.0, 20.0, 30, x -> standardNormalCdf((x - 10.0) / 3.0)) > MIN_P);
        assertEquals(-4.5, v.normal(-4.5, 0.0));
        assertThrows(IllegalArgumentException.class, () -> v.normal(0.0, -1.0));
        assertThrows(IllegalArgumentException.class, () -> v.normal(0.0, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> v.normal(0.0, Double.POSITIVE_INFINITY));
    }

    @Test
    void gammaWithLargeShapeFollowsItsDistribution() {
        Variates v = new Variates(7);
        double shape = 2.5;
        double scale = 2.0;
        double[] xs = draw(N, () -> v.gamma(shape, scale));
        assertMoments(xs, shape * scale, shape * scale * scale, 0.06);
        assertTrue(fitPValue(xs, 0.0, 20.0, 40,
                x -> GoodnessOfFit.regularizedGammaP(shape, x / scale)) > MIN_P);
    }

    @Test
    void gammaWithSmallShapeUsesTheBoostCorrectly() {
        Variates v = new Variates(8);
        double shape = 0.3;
        double[] xs = draw(N, () -> v.gamma(shape, 1.0));
        for (double x : xs) {
            assertTrue(x >= 0.0 && Double.isFinite(x));
        }
        assertMoments(xs, shape, shape, 0.12);
        assertTrue(fitPValue(xs, 0.0, 2.0, 20, x -> GoodnessOfFit.regularizedGammaP(shape, x)) > MIN_P);
    }

    @Test
    void gammaWithUnitShapeIsExponential() {
        Variates v = new Variates(9);
        double[] xs = draw(N, () -> v.gamma(1.0, 0.5));
        assertTrue(fitPValue(xs, 0.0, 3.0, 30, x -> 1 - Math.exp(-2.0 * x)) > MIN_P);
    }

    @Test
    void gammaWithHugeShapeIsNearlyNormal() {
        Variates v = new Variates(10);
        double[] xs = draw(N, () -> v.gamma(400.0, 0.25));
        assertMoments(xs, 100.0, 25.0, 0.04);
        assertTrue(fitPValue(xs, 80.0, 120.0, 40,
                x -> GoodnessOfFit.regularizedGammaP(400.0, x / 0.25)) > MIN_P);
    }

    @Test
    void gammaRejectsBadParameters() {
        Variates v = new Variates(11);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> v.gamma(0.0, 1.0));
        assertTrue(e.getMessage().contains("shape"));
        e = assertThrows(IllegalArgumentException.class, () -> v.gamma(1.0, -2.0));
        assertTrue(e.getMessage().contains("scale"));
    }

    @Test
    void betaHasTheRightMomentsAndRange() {
        Variates v = new Variates(12);
        double[] xs = draw(N, () -> v.beta(2.0, 5.0));
        for (double x : xs) {
            assertTrue(x >= 0.0 && x <= 1.0);
        }
        assertMoments(xs, 2.0 / 7.0, 10.0 / (49.0 * 8.0), 0.05);
    }

    @Test
    void betaWithHalfShapesIsArcsine() {
        Variates v = new Variates(13);
        double[] xs = draw(N, () -> v.beta(0.5, 0.5));
        DoubleUnaryOperator arcsine = x -> 2.0 / Math.PI * Math.asin(Math.sqrt(Math.max(0.0, x)));
        assertTrue(fitPValue(xs, 0.0, 1.0, 20, arcsine) > MIN_P);
        assertThrows(IllegalArgumentException.class, () -> v.beta(0.5, 0.0));
        assertThrows(IllegalArgumentException.class, () -> v.beta(-1.0, 1.0));
    }

    @Test
    void chiSquaredFollowsItsDistribution() {
        Variates v = new Variates(14);
        double[] xs = draw(N, () -> v.chiSquared(3.0));
        assertMoments(xs, 3.0, 6.0, 0.06);
        assertTrue(fitPValue(xs, 0.0, 12.0, 30, x -> GoodnessOfFit.regularizedGammaP(1.5, x / 2)) > MIN_P);
        assertThrows(IllegalArgumentException.class, () -> v.chiSquared(0.0));
    }

    @Test
    void variatesAreReproducibleFromTheSeed() {
        Variates a = new Variates(99);
        Variates b = new Variates(new Prng(99));
        for (int i = 0; i < 50; i++) {
            assertEquals(a.gamma(1.7, 1.0), b.gamma(1.7, 1.0));
            assertEquals(a.poisson(30.0), b.poisson(30.0));
        }
        assertThrows(NullPointerException.class, () -> new Variates(null));
    }
}
