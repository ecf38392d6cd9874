package org.simpilot.variates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StatisticsTest {

    // ---- summaries ----

    @Test
    void summaryOfKnownData() {
        Summary s = Summary.of(2, 4, 4, 4, 5, 5, 7, 9);
        assertEquals(8, s.count());
        assertEquals(5.0, s.mean(), 1e-15);
        assertEquals(32.0 / 7.0, s.variance(), 1e-12);
        assertEquals(Math.sqrt(32.0 / 7.0), s.stdDev(), 1e-12);
        assertEquals(2.0, s.min());
        assertEquals(9.0, s.max());
    }

    @Test
    void summaryIsStableForLargeOffsets() {
        Summary s = Summary.of(1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16);
        assertEquals(1e9 + 10, s.mean(), 1e-6);
        assertEquals(30.0, s.variance(), 1e-6);
    }

    @Test
    void summaryOfTooLittleDataIsUndefined() {
        Summary empty = new Summary();
        assertTrue(Double.isNaN(empty.mean()));
        assertTrue(Double.isNaN(empty.variance()));
        assertEquals(Double.POSITIVE_INFINITY, empty.min());
        assertEquals(Double.NEGATIVE_INFINITY, empty.max());
        assertEquals("Summary[n=0]", empty.toString());
        Summary one = Summary.of(3.5);
        assertEquals(3.5, one.mean());
        assertTrue(Double.isNaN(one.variance()));
        assertThrows(IllegalArgumentException.class, () -> one.add(Double.NaN));
    }

    @Test
    void summaryMergeEqualsSequentialSummary() {
        Variates v = new Variates(1);
        Summary all = new Summary();
        Summary left = new Summary();
        Summary right = new Summary();
        for (int i = 0; i < 1000; i++) {
            double x = v.gamma(2.0, 3.0);
            all.add(x);
            (i < 300 ? left : right).add(x);
        }
        Summary merged = left.merge(right);
        assertEquals(all.count(), merged.count());
        assertEquals(all.mean(), merged.mean(), 1e-12);
        assertEquals(all.variance(), merged.variance(), 1e-9);
        assertEquals(all.min(), merged.min());
        assertEquals(all.max(), merged.max());
        assertEquals(300, left.count(), "merge must not change its inputs");
    }

    @Test
    void summaryMergeWithEmptySide() {
        Summary data = Summary.of(1, 2, 6);
        Summary empty = new Summary();
        for (Summary merged : List.of(data.merge(empty), empty.merge(data))) {
            assertEquals(3, merged.count());
            assertEquals(3.0, merged.mean(), 1e-15);
            assertEquals(7.0, merged.variance(), 1e-12);
            assertEquals(1.0, merged.min());
            assertEquals(6.0, merged.max());
        }
        merged(data).add(100);
        assertEquals(3, data.count(), "a merged copy is independent of its source");
    }

    @Test
    void summaryMergeOfTwoEmptySummariesCanStillBeUsed() {
        Summary merged = new Summary().merge(new Summary());
        assertEquals(0, merged.count());
        merged.add(5.0);
        merged.add(7.0);
        assertEquals(6.0, merged.mean(), 1e-15);
        assertEquals(2.0, merged.variance(), 1e-15);
    }

    private static Summary merged(Summary s) {
        return s.merge(new Summary());
    }

    @Test
    void summaryToStringIsReadable() {
        assertEquals("Summary[n=3, mean=2.0000, sd=1.0000, min=1.0000, max=3.0000]",
                Summary.of(1, 2, 3).toString());
    }

    // ---- special functions and chi-square ----

    @Test
    void logGammaMatchesKnownValues() {
        assertEquals(0.0, GoodnessOfFit.logGamma(1.0), 1e-13);
        assertEquals(0.0, GoodnessOfFit.logGamma(2.0), 1e-13);
        assertEquals(0.5 * Math.log(Math.PI), GoodnessOfFit.logGamma(0.5), 1e-13);
        assertEquals(Math.log(362880.0), GoodnessOfFit.logGamma(10.0), 1e-12);
        assertEquals(Math.log(Math.sqrt(Math.PI) * 3.0 / 4.0), GoodnessOfFit.logGamma(2.5), 1e-13);
        // ln 99! by summing logarithms
        double log99 = 0.0;
        for (int k = 2; k <= 99; k++) {
            log99 += Math.log(k);
        }
        assertEquals(log99, GoodnessOfFit.logGamma(100.0), 1e-10);
        assertEquals(-Math.log(1e-6), GoodnessOfFit.logGamma(1e-6), 1e-5);
        assertThrows(IllegalArgumentException.class, () -> GoodnessOfFit.logGamma(0.0));
        assertThrows(IllegalArgumentException.class, () -> GoodnessOfFit.logGamma(-1.5));
    }

    @Test
    void incompleteGammaMatchesTheExponentialCase() {
        // P(1, x) = 1 - e^-x; x = 0.5 uses the series and x = 5 the continued fraction.
        for (double x : new double[] {0.1, 0.5, 1.5, 5.0, 20.0}) {
            assertEquals(1 - Math.exp(-x), GoodnessOfFit.regularizedGammaP(1.0, x), 1e-13, "P at " + x);
            assertEquals(Math.exp(-x), GoodnessOfFit.regularizedGammaQ(1.0, x), 1e-13, "Q at " + x);
        }
        // P(2, x) = 1 - (1 + x) e^-x
        for (double x : new double[] {0.7, 2.5, 9.0}) {
            assertEquals(1 - (1 + x) * Math.exp(-x), GoodnessOfFit.regularizedGammaP(2.0, x), 1e-13);
        }
        assertEquals(0.0, GoodnessOfFit.regularizedGammaP(3.0, 0.0));
        assertEquals(1.0, GoodnessOfFit.regularizedGammaQ(3.0, 0.0));
    }

    @Test
    void incompleteGammaKeepsFarTailsAccurate() {
        // Q(3, x) = e^-x (1 + x + x²/2): far in the tail 1 - P would lose every digit.
        for (double x : new double[] {40.0, 60.0, 200.0}) {
            double exact = Math.exp(-x) * (1 + x + x * x / 2);
            assertEquals(1.0, GoodnessOfFit.regularizedGammaQ(3.0, x) / exact, 1e-10, "x=" + x);
        }
        assertEquals(1.0, GoodnessOfFit.regularizedGammaP(2.0, 800.0));
        assertEquals(0.0, GoodnessOfFit.regularizedGammaQ(2.0, 800.0));
    }

    @Test
    void incompleteGammaRejectsBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> GoodnessOfFit.regularizedGammaP(0.0, 1.0));
        assertThrows(IllegalArgumentException.class, () -> GoodnessOfFit.regularizedGammaQ(1.0, -1.0));
        assertThrows(IllegalArgumentException.class, () -> GoodnessOfFit.regularizedGammaP(1.0, Double.NaN));
    }

    @Test
    void chiSquareSurvivalMatchesTables() {
        assertEquals(0.05, GoodnessOfFit.chiSquareSurvival(3.841459, 1), 1e-6);
        assertEquals(0.01, GoodnessOfFit.chiSquareSurvival(6.634897, 1), 1e-6);
        assertEquals(0.05, GoodnessOfFit.chiSquareSurvival(18.307038, 10), 1e-6);
        assertEquals(0.95, GoodnessOfFit.chiSquareSurvival(3.940299, 10), 1e-6);
        assertEquals(0.05, GoodnessOfFit.chiSquareSurvival(124.342113, 100), 1e-6);
        assertEquals(1.0, GoodnessOfFit.chiSquareSurvival(0.0, 4));
        assertEquals(1.0, GoodnessOfFit.chiSquareSurvival(-3.0, 4));
    }

    @Test
    void chiSquarePoolsSmallCells() {
        long[] observed = {3, 2, 10, 12, 1, 2};
        double[] expected = {2, 4, 10, 10, 3, 1};
        GoodnessOfFit.Result r = GoodnessOfFit.chiSquare(observed, expected, 0);
        // Cells become (5 vs 6), (10 vs 10) and (12 + 3 vs 10 + 4).
        assertEquals(2, r.degreesOfFreedom());
        assertEquals(1.0 / 6.0 + 1.0 / 14.0, r.statistic(), 1e-12);
        assertEquals(Math.exp(-r.statistic() / 2), r.pValue(), 1e-12);
        GoodnessOfFit.Result fitted = GoodnessOfFit.chiSquare(observed, expected, 1);
        assertEquals(1, fitted.degreesOfFreedom());
    }

    @Test
    void chiSquareRejectsInvalidTables() {
        assertThrows(IllegalArgumentException.class,
                () -> GoodnessOfFit.chiSquare(new long[] {1, 2}, new double[] {1}, 0));
        assertThrows(IllegalArgumentException.class,
                () -> GoodnessOfFit.chiSquare(new long[] {10, 10}, new double[] {10, 10}, -1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GoodnessOfFit.chiSquare(new long[] {10, -1}, new double[] {10, 10}, 0));
        assertTrue(e.getMessage().contains("cell 1"));
        assertThrows(IllegalArgumentException.class,
                () -> GoodnessOfFit.chiSquare(new long[] {10, 10}, new double[] {10, Double.NaN}, 0));
        assertThrows(IllegalStateException.class,
                () -> GoodnessOfFit.chiSquare(new long[] {1, 1}, new double[] {1, 2}, 0));
        assertThrows(IllegalStateException.class,
                () -> GoodnessOfFit.chiSquare(new long[] {10, 10}, new double[] {10, 10}, 1));
    }

    @Test
    void chiSquareUniformDetectsBias() {
        GoodnessOfFit.Result fair = GoodnessOfFit.chiSquareUniform(new long[] {100, 100, 100, 100});
        assertEquals(0.0, fair.statistic());
        assertEquals(3, fair.degreesOfFreedom());
        assertEquals(1.0, fair.pValue());
        assertFalse(fair.rejects(0.05));
        GoodnessOfFit.Result biased = GoodnessOfFit.chiSquareUniform(new long[] {150, 50, 100, 100});
        assertEquals(50.0, biased.statistic(), 1e-12);
        assertTrue(biased.rejects(0.001));
    }

    @Test
    void chiSquareOfHistogramUsesTheTails() {
        Histogram h = new Histogram(0.0, 4.0, 4);
        h.addAll(-1, 0.5, 1.5, 1.7, 2.5, 3.5, 3.6, 9, 9, 0.2);
        GoodnessOfFit.Result viaHistogram = GoodnessOfFit.chiSquare(h, x -> Math.min(1.0, Math.max(0.0, x / 4.0)), 0);
        // The first bin holds 3 (with underflow) and the last 4 (with overflow), against 2.5 each.
        GoodnessOfFit.Result direct = GoodnessOfFit.chiSquare(new long[] {3, 2, 1, 4},
                new double[] {2.5, 2.5, 2.5, 2.5}, 0);
        assertEquals(direct.statistic(), viaHistogram.statistic(), 1e-12);
        assertEquals(direct.degreesOfFreedom(), viaHistogram.degreesOfFreedom());
    }

    // ---- distribution specifications ----

    @Test
    void specParsesNamesCaseAndAbbreviations() {
        assertEquals(DistributionSpec.Family.NORMAL, DistributionSpec.parse("normal(0, 1)").family());
        assertEquals(DistributionSpec.Family.NORMAL, DistributionSpec.parse("  Gaussian( 1 ,2 ) ").family());
        assertEquals(DistributionSpec.Family.NORMAL, DistributionSpec.parse("norm(0,1)").family());
        assertEquals(DistributionSpec.Family.EXPONENTIAL, DistributionSpec.parse("exp(2)").family());
        assertEquals(DistributionSpec.Family.BINOMIAL, DistributionSpec.parse("BINOMIAL(10, 0.5)").family());
        assertEquals(Optional.empty(), DistributionSpec.Family.byName("cauchy"));
        assertEquals(Optional.of(DistributionSpec.Family.GAMMA), DistributionSpec.Family.byName(" gamma "));
        assertEquals(2, DistributionSpec.Family.BINOMIAL.arity());
        assertEquals(1, DistributionSpec.Family.POISSON.arity());
    }

    @Test
    void specRoundTripsThroughText() {
        for (String text : List.of("uniform(-1, 2.5)", "exponential(0.5)", "normal(3, 0.25)",
                "gamma(2.5, 1)", "beta(0.5, 0.5)", "poisson(12)", "binomial(40, 0.3)", "geometric(0.125)")) {
            DistributionSpec spec = DistributionSpec.parse(text);
            assertEquals(text, spec.toString());
            assertEquals(spec.toString(), DistributionSpec.parse(spec.toString()).toString());
        }
    }

    @Test
    void specReportsSyntaxErrors() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DistributionSpec.parse("normal 0 1"));
        assertTrue(e.getMessage().contains("expected name(arguments)"));
        assertThrows(IllegalArgumentException.class, () -> DistributionSpec.parse("(1, 2)"));
        e = assertThrows(IllegalArgumentException.class, () -> DistributionSpec.parse("lévy(1)"));
        assertTrue(e.getMessage().contains("unknown distribution 'lévy'"));
        e = assertThrows(IllegalArgumentException.class, () -> DistributionSpec.parse("gamma(2, x)"));
        assertTrue(e.getMessage().contains("argument 2 of gamma"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DistributionSpec.parse("normal(1)"));
        assertTrue(e.getMessage().contains("takes 2"));
        assertThrows(IllegalArgumentException.class, () -> DistributionSpec.parse("poisson()"));
        assertThrows(NullPointerException.class, () -> DistributionSpec.parse(null));
    }

    @Test
    void specValidatesParameters() {
        for (String bad : List.of("uniform(2, 1)", "normal(0, -1)", "poisson(-1)", "binomial(2.5, 0.5)",
                "binomial(-3, 0.5)", "binomial(10, 1.5)", "geometric(0)", "geometric(1.01)", "gamma(0, 1)",
                "beta(1, -2)", "exponential(0)", "normal(NaN, 1)", "uniform(0, Infinity)")) {
            assertThrows(IllegalArgumentException.class, () -> DistributionSpec.parse(bad), bad);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new DistributionSpec(DistributionSpec.Family.GAMMA, 2.0, -1.0));
        assertTrue(e.getMessage().contains("gamma parameters must be positive"));
        // Boundary values that are allowed
        DistributionSpec.parse("normal(0, 0)");
        DistributionSpec.parse("poisson(0)");
        DistributionSpec.parse("binomial(0, 1)");
        DistributionSpec.parse("geometric(1)");
    }

    @Test
    void specTheoreticalMomentsAreRight() {
        assertEquals(0.75, DistributionSpec.parse("uniform(-1, 2.5)").mean(), 1e-15);
        assertEquals(12.25 / 12, DistributionSpec.parse("uniform(-1, 2.5)").variance(), 1e-15);
        assertEquals(2.0, DistributionSpec.parse("exp(0.5)").mean(), 1e-15);
        assertEquals(4.0, DistributionSpec.parse("exp(0.5)").variance(), 1e-15);
        assertEquals(3.0, DistributionSpec.parse("normal(3, 0.5)").mean());
        assertEquals(0.25, DistributionSpec.parse("normal(3, 0.5)").variance());
        assertEquals(5.0, DistributionSpec.parse("gamma(2.5, 2)").mean(), 1e-15);
        assertEquals(10.0, DistributionSpec.parse("gamma(2.5, 2)").variance(), 1e-15);
        assertEquals(2.0 / 7.0, DistributionSpec.parse("beta(2, 5)").mean(), 1e-15);
        assertEquals(10.0 / 392.0, DistributionSpec.parse("beta(2, 5)").variance(), 1e-15);
        assertEquals(12.0, DistributionSpec.parse("poisson(12)").variance());
        assertEquals(12.0, DistributionSpec.parse("binomial(40, 0.3)").mean(), 1e-12);
        assertEquals(8.4, DistributionSpec.parse("binomial(40, 0.3)").variance(), 1e-12);
        assertEquals(8.0, DistributionSpec.parse("geometric(0.125)").mean());
        assertEquals(56.0, DistributionSpec.parse("geometric(0.125)").variance());
    }

    @Test
    void specSamplersMatchTheirTheoreticalMoments() {
        Variates v = new Variates(77);
        for (String text : List.of("uniform(-1, 2.5)", "exp(0.5)", "normal(3, 0.5)", "gamma(2.5, 2)",
                "beta(2, 5)", "poisson(12)", "binomial(40, 0.3)", "geometric(0.125)")) {
            DistributionSpec spec = DistributionSpec.parse(text);
            double[] xs = spec.sampler().draw(v, 20000);
            assertEquals(20000, xs.length);
            Summary s = Summary.of(xs);
            assertEquals(spec.mean(), s.mean(), 5 * Math.sqrt(spec.variance() / xs.length), text);
            assertEquals(spec.variance(), s.variance(), 0.1 * spec.variance(), text);
            if (spec.family() == DistributionSpec.Family.POISSON
                    || spec.family() == DistributionSpec.Family.BINOMIAL
                    || spec.family() == DistributionSpec.Family.GEOMETRIC) {
                for (double x : xs) {
                    assertEquals(Math.rint(x), x, text + " draws whole numbers");
                }
            }
        }
    }
}
