package org.simpilot.variates;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TablesTest {

    private static AliasTable<Integer> indexTable(double... weights) {
        List<Integer> keys = new ArrayList<>();
        for (int i = 0; i < weights.length; i++) {
            keys.add(i);
        }
        return new AliasTable<>(keys, weights);
    }

    private static void assertTableMatchesWeights(double... weights) {
        AliasTable<Integer> table = indexTable(weights);
        double total = Arrays.stream(weights).sum();
        double[] implied = table.impliedProbabilities();
        for (int i = 0; i < weights.length; i++) {
            assertEquals(weights[i] / total, implied[i], 1e-12, "outcome " + i + " of " + Arrays.toString(weights));
            assertEquals(weights[i] / total, table.probability(i), 1e-15);
        }
    }

    // ---- alias tables ----

    @Test
    void aliasTableReproducesTheWeights() {
        assertTableMatchesWeights(1.0);
        assertTableMatchesWeights(1, 1, 1, 1);
        assertTableMatchesWeights(0.1, 0.2, 0.3, 0.4);
        assertTableMatchesWeights(5, 0, 0, 1);
        // These two end the pairing loop with a rounding-error column on either work list.
        assertTableMatchesWeights(1, 2, 7);
        assertTableMatchesWeights(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        Prng rng = new Prng(1);
        double[] random = new double[60];
        for (int i = 0; i < random.length; i++) {
            random[i] = rng.nextDouble() * (i % 3 == 0 ? 100 : 1);
        }
        assertTableMatchesWeights(random);
    }

    @Test
    void aliasTableSamplesWithTheRightFrequencies() {
        AliasTable<String> table = new AliasTable<>(List.of("rare", "common", "médian", "never"),
                new double[] {1, 6, 3, 0});
        Map<String, Integer> tally = table.tally(new Prng(2), 50000);
        assertEquals(List.of("rare", "common", "médian", "never"), new ArrayList<>(tally.keySet()));
        assertEquals(0, tally.get("never"));
        long[] observed = {tally.get("rare"), tally.get("common"), tally.get("médian")};
        double[] expected = {5000, 30000, 15000};
        assertTrue(GoodnessOfFit.chiSquare(observed, expected, 0).pValue() > 1e-4, tally.toString());
    }

    @Test
    void aliasTableSampleReturnsOutcomesInProportion() {
        Map<Character, Double> weights = new LinkedHashMap<>();
        weights.put('x', 3.0);
        weights.put('y', 1.0);
        AliasTable<Character> table = AliasTable.of(weights);
        assertEquals(List.of('x', 'y'), table.outcomes());
        assertEquals(2, table.size());
        Prng rng = new Prng(3);
        int xs = 0;
        for (int i = 0; i < 20000; i++) {
            if (table.sample(rng) == 'x') {
                xs++;
            }
        }
        assertEquals(0.75, xs / 20000.0, 0.015);
        assertEquals(0.75, table.probability('x'), 1e-15);
        assertEquals(0.0, table.probability('z'));
    }

    @Test
    void aliasTableModePicksFirstOfTheLargest() {
        assertEquals(2, indexTable(1, 3, 5, 5, 2).mode());
        assertEquals(0, indexTable(4, 1, 4).mode());
        assertEquals("b", new AliasTable<>(List.of("a", "b"), new double[] {1, 2}).mode());
        assertEquals(List.of(2, 3, 1, 4, 0), indexTable(1, 3, 5, 5, 2).ranked());
    }

    @Test
    void aliasTableRejectsBadInput() {
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> indexTable());
        assertTrue(empty.getMessage().contains("at least one outcome"));
        assertThrows(IllegalArgumentException.class, () -> new AliasTable<>(List.of(1, 2), new double[] {1}));
        assertThrows(IllegalArgumentException.class, () -> indexTable(1, -1));
        assertThrows(IllegalArgumentException.class, () -> indexTable(1, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> indexTable(1, Double.POSITIVE_INFINITY));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> indexTable(0, 0));
        assertTrue(e.getMessage().contains("zero"));
        e = assertThrows(IllegalArgumentException.class,
                () -> new AliasTable<>(List.of("a", "b", "a"), new double[] {1, 1, 1}));
        assertTrue(e.getMessage().contains("duplicate"));
        assertThrows(NullPointerException.class, () -> new AliasTable<>(null, new double[0]));
    }

    @Test
    void aliasTableOutcomesAreImmutable() {
        List<String> keys = new ArrayList<>(List.of("a", "b"));
        AliasTable<String> table = new AliasTable<>(keys, new double[] {1, 1});
        keys.set(0, "changed");
        assertEquals(List.of("a", "b"), table.outcomes());
        assertThrows(UnsupportedOperationException.class, () -> table.outcomes().add("c"));
    }

    // ---- empirical distributions ----

    @Test
    void empiricalCdfInterpolatesBetweenOrderStatistics() {
        EmpiricalDistribution d = new EmpiricalDistribution(new double[] {4, 0, 2, 10, 6});
        assertEquals(0.0, d.cdf(-1.0));
        assertEquals(0.0, d.cdf(0.0));
        assertEquals(0.125, d.cdf(1.0), 1e-15);
        assertEquals(0.25, d.cdf(2.0), 1e-15);
        assertEquals(0.5, d.cdf(4.0), 1e-15);
        assertEquals(0.875, d.cdf(8.0), 1e-15);
        assertEquals(1.0, d.cdf(10.0));
        assertEquals(1.0, d.cdf(50.0));
    }

    @Test
    void empiricalCdfHandlesTies() {
        EmpiricalDistribution d = new EmpiricalDistribution(new double[] {1, 2, 2, 3});
        assertEquals(1.0 / 6.0, d.cdf(1.5), 1e-15);
        assertEquals(2.0 / 3.0, d.cdf(2.0), 1e-15);
        assertEquals(5.0 / 6.0, d.cdf(2.5), 1e-15);
    }

    @Test
    void empiricalQuantileInvertsTheCdf() {
        EmpiricalDistribution d = new EmpiricalDistribution(new double[] {3, 1, 8, 5, 13, 2});
        assertEquals(1.0, d.quantile(0.0));
        assertEquals(13.0, d.quantile(1.0));
        assertEquals(4.0, d.quantile(0.5), 1e-12);
        for (double x = 1.0; x <= 13.0; x += 0.25) {
            assertEquals(x, d.quantile(d.cdf(x)), 1e-9, "x=" + x);
        }
        assertThrows(IllegalArgumentException.class, () -> d.quantile(-0.1));
        assertThrows(IllegalArgumentException.class, () -> d.quantile(1.5));
        assertThrows(IllegalArgumentException.class, () -> d.quantile(Double.NaN));
    }

    @Test
    void empiricalWithOneObservationIsAPointMass() {
        EmpiricalDistribution d = new EmpiricalDistribution(new double[] {7.5});
        assertEquals(0.0, d.cdf(7.4));
        assertEquals(1.0, d.cdf(7.5));
        assertEquals(7.5, d.quantile(0.3));
        assertEquals(7.5, d.mean());
        assertEquals(7.5, d.sample(new Prng(1)));
    }

    @Test
    void empiricalMeanAndSamplingAgree() {
        EmpiricalDistribution d = new EmpiricalDistribution(new double[] {0, 1, 3});
        assertEquals(1.25, d.mean(), 1e-15);
        double[] xs = d.sample(new Prng(4), 40000);
        assertEquals(40000, xs.length);
        Summary s = Summary.of(xs);
        assertEquals(1.25, s.mean(), 0.02);
        assertTrue(s.min() >= 0.0 && s.max() <= 3.0);
        // Half the mass lies in [0, 1] and half in [1, 3].
        long low = Arrays.stream(xs).filter(x -> x < 1.0).count();
        assertEquals(0.5, low / 40000.0, 0.01);
        assertEquals(0, d.sample(new Prng(4), 0).length);
        assertThrows(IllegalArgumentException.class, () -> d.sample(new Prng(4), -1));
    }

    @Test
    void samplingFollowsTheFittedCdf() {
        Variates v = new Variates(5);
        double[] data = new double[5000];
        for (int i = 0; i < data.length; i++) {
            data[i] = v.exponential(1.0);
        }
        EmpiricalDistribution d = new EmpiricalDistribution(data);
        double[] xs = d.sample(new Prng(6), 20000);
        Histogram h = new Histogram(0.0, 4.0, 20);
        h.addAll(xs);
        assertTrue(GoodnessOfFit.chiSquare(h, d::cdf, 0).pValue() > 1e-4);
    }

    @Test
    void empiricalConstructionCopiesAndValidates() {
        double[] data = {3, 1, 2};
        EmpiricalDistribution d = new EmpiricalDistribution(data);
        assertArrayEquals(new double[] {3, 1, 2}, data);
        assertEquals(3, d.size());
        assertEquals(1.0, d.min());
        assertEquals(3.0, d.max());
        EmpiricalDistribution fromList = EmpiricalDistribution.of(List.of(3, 1.0, 2L));
        assertEquals(d.cdf(1.7), fromList.cdf(1.7), 1e-15);
        assertEquals(3, fromList.size());
        assertEquals(3.0, fromList.max());
        assertThrows(IllegalArgumentException.class, () -> new EmpiricalDistribution(new double[0]));
        assertThrows(IllegalArgumentException.class, () -> new EmpiricalDistribution(new double[] {1, Double.NaN}));
        assertThrows(NullPointerException.class, () -> new EmpiricalDistribution(null));
    }

    // ---- histograms ----

    @Test
    void histogramBinsAreHalfOpen() {
        Histogram h = new Histogram(0.0, 1.0, 8);
        assertEquals(-1, h.binOf(-1e-9));
        assertEquals(0, h.binOf(0.0));
        assertEquals(3, h.binOf(0.375));
        assertEquals(2, h.binOf(Math.nextDown(0.375)));
        assertEquals(7, h.binOf(Math.nextDown(1.0)));
        assertEquals(8, h.binOf(1.0));
        assertThrows(IllegalArgumentException.class, () -> h.binOf(Double.NaN));
        assertEquals(0.375, h.lowerEdge(3));
        assertEquals(0.5, h.upperEdge(3));
        assertEquals(1.0, h.upperEdge(7));
        // With a width of 0.1 the edges are inexact: the last bin must still end at hi.
        Histogram tenths = new Histogram(0.0, 1.0, 10);
        assertEquals(1.0, tenths.upperEdge(9));
        assertEquals(9, tenths.binOf(Math.nextDown(1.0)));
        // With thirds, the value just below hi rounds to a bin index of 3.
        assertEquals(2, new Histogram(0.0, 1.0, 3).binOf(Math.nextDown(1.0)));
    }

    @Test
    void histogramCountsUnderflowAndOverflow() {
        Histogram h = new Histogram(-1.0, 1.0, 4);
        h.addAll(-5, -1, -0.6, -0.2, 0.0, 0.1, 0.7, 1.0, 3.0, 2.0);
        assertArrayEquals(new long[] {2, 1, 2, 1}, h.counts());
        assertEquals(1, h.underflow());
        assertEquals(3, h.overflow());
        assertEquals(10, h.total());
        assertArrayEquals(new long[] {3, 1, 2, 4}, h.countsWithTails());
        assertEquals(4, h.bins());
        h.counts()[0] = 99;
        assertEquals(2, h.counts()[0]);
    }

    @Test
    void histogramForIntegersCentresBinsOnIntegers() {
        Histogram h = Histogram.forIntegers(2, 5);
        assertEquals(4, h.bins());
        assertEquals(0, h.binOf(2));
        assertEquals(3, h.binOf(5));
        assertEquals(-1, h.binOf(1));
        assertEquals(4, h.binOf(6));
        assertEquals(1.5, h.lowerEdge(0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Histogram.forIntegers(3, 2));
        assertTrue(e.getMessage().contains("empty integer range 3..2"));
    }

    @Test
    void histogramExpectedCountsIncludeTheTails() {
        Histogram h = new Histogram(0.0, 4.0, 4);
        h.addAll(-1, 0.5, 1.5, 2.5, 3.5, 3.6, 9, 9);
        double[] expected = h.expectedCounts(x -> Math.min(1.0, Math.max(0.0, (x + 4.0) / 16.0)));
        // The first bin takes everything below 1 and the last everything above 3.
        assertArrayEquals(new double[] {2.5, 0.5, 0.5, 4.5}, expected, 1e-12);
        assertEquals(h.total(), Arrays.stream(expected).sum(), 1e-12);
    }

    @Test
    void histogramRendersProportionalBars() {
        Histogram h = new Histogram(0.0, 3.0, 3);
        h.addAll(0.5, 0.5, 0.5, 0.5, 1.5, 1.5, 2.9);
        String[] lines = h.render(8).split("\n");
        assertEquals(3, lines.length);
        assertEquals("[   0.000,    1.000) ████████ 4", lines[0]);
        assertEquals("[   1.000,    2.000) ████ 2", lines[1]);
        assertEquals("[   2.000,    3.000) ██ 1", lines[2]);
        assertEquals("[   0.000,    1.000)  0", new Histogram(0, 1, 1).render(5).trim());
        assertThrows(IllegalArgumentException.class, () -> h.render(0));
    }

    @Test
    void histogramRejectsBadLayouts() {
        assertThrows(IllegalArgumentException.class, () -> new Histogram(1.0, 1.0, 3));
        assertThrows(IllegalArgumentException.class, () -> new Histogram(0.0, Double.POSITIVE_INFINITY, 3));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Histogram(0, 1, 0));
        assertTrue(e.getMessage().contains("bins"));
    }
}
