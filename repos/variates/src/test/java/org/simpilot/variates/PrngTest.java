package org.simpilot.variates;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PrngTest {

    @Test
    void sameSeedGivesSameStream() {
        Prng a = new Prng(42);
        Prng b = new Prng(42);
        for (int i = 0; i < 100; i++) {
            assertEquals(a.nextLong(), b.nextLong());
        }
    }

    @Test
    void nearbySeedsGiveUnrelatedStreams() {
        Prng a = new Prng(1);
        Prng b = new Prng(2);
        int equalBits = 0;
        for (int i = 0; i < 200; i++) {
            equalBits += 64 - Long.bitCount(a.nextLong() ^ b.nextLong());
        }
        // Unrelated streams agree on about half of the bits.
        assertEquals(0.5, equalBits / (200.0 * 64), 0.02);
    }

    @Test
    void seedMixingAvalanches() {
        Prng rng = new Prng(8);
        long flipped = 0;
        int trials = 0;
        for (int k = 0; k < 20; k++) {
            long z = rng.nextLong();
            for (int bit = 0; bit < 64; bit++) {
                flipped += Long.bitCount(Prng.scramble(z) ^ Prng.scramble(z ^ (1L << bit)));
                trials++;
            }
        }
        // Flipping one input bit flips about half of the output bits.
        assertEquals(32.0, (double) flipped / trials, 1.0);
    }

    @Test
    void streamDoesNotRepeatAndZeroSeedWorks() {
        Prng rng = new Prng(0);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 20000; i++) {
            assertTrue(seen.add(rng.nextLong()), "repeated output at draw " + i);
        }
    }

    @Test
    void everyBitIsBalanced() {
        Prng rng = new Prng(7);
        int n = 20000;
        int[] ones = new int[64];
        for (int i = 0; i < n; i++) {
            long x = rng.nextLong();
            for (int bit = 0; bit < 64; bit++) {
                ones[bit] += (int) ((x >>> bit) & 1L);
            }
        }
        for (int bit = 0; bit < 64; bit++) {
            assertEquals(n / 2.0, ones[bit], 400, "bit " + bit);
        }
    }

    @Test
    void drawsCountsProducedWords() {
        Prng rng = new Prng(3);
        assertEquals(0, rng.draws());
        rng.nextLong();
        rng.nextDouble();
        rng.nextOpenDouble();
        rng.nextInt();
        rng.nextInt(16);
        assertEquals(5, rng.draws());
    }

    @Test
    void nextIntWithPowerOfTwoBoundIsUniform() {
        Prng rng = new Prng(11);
        long[] counts = new long[8];
        for (int i = 0; i < 40000; i++) {
            counts[rng.nextInt(8)]++;
        }
        assertTrue(GoodnessOfFit.chiSquareUniform(counts).pValue() > 1e-4);
        for (int i = 0; i < 50; i++) {
            assertEquals(0, rng.nextInt(1));
        }
        // A power-of-two bound never needs a second draw.
        assertEquals(40050, rng.draws());
    }

    @Test
    void nextIntWithPowerOfTwoBoundTakesTheTopBits() {
        Prng rng = new Prng(14);
        Prng twin = rng.copy();
        for (int i = 0; i < 100; i++) {
            assertEquals((int) (twin.nextLong() >>> 61), rng.nextInt(8));
            assertEquals((int) (twin.nextLong() >>> 34), rng.nextInt(1 << 30));
        }
    }

    @Test
    void nextIntWithSmallBoundIsUniformAndInRange() {
        Prng rng = new Prng(12);
        long[] counts = new long[7];
        for (int i = 0; i < 70000; i++) {
            int r = rng.nextInt(7);
            assertTrue(r >= 0 && r < 7);
            counts[r]++;
        }
        assertTrue(GoodnessOfFit.chiSquareUniform(counts).pValue() > 1e-4, Arrays.toString(counts));
    }

    @Test
    void nextIntWithLargeBoundHasNoModuloBias() {
        Prng rng = new Prng(13);
        int bound = 3 << 29;
        int n = 30000;
        int low = 0;
        for (int i = 0; i < n; i++) {
            int r = rng.nextInt(bound);
            assertTrue(r >= 0 && r < bound);
            if (r < (1 << 29)) {
                low++;
            }
        }
        // Without rejection a third of the range would be twice as likely.
        assertEquals(1.0 / 3.0, (double) low / n, 0.015);
    }

    @Test
    void nextIntRejectsNonPositiveBounds() {
        Prng rng = new Prng(1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> rng.nextInt(0));
        assertTrue(e.getMessage().contains("bound"));
        assertThrows(IllegalArgumentException.class, () -> rng.nextInt(-5));
    }

    @Test
    void nextDoubleIsInUnitIntervalWithUniformMoments() {
        Prng rng = new Prng(21);
        Summary s = new Summary();
        for (int i = 0; i < 50000; i++) {
            double u = rng.nextDouble();
            assertTrue(u >= 0.0 && u < 1.0);
            s.add(u);
        }
        assertEquals(0.5, s.mean(), 0.006);
        assertEquals(1.0 / 12.0, s.variance(), 0.002);
    }

    @Test
    void nextOpenDoubleIsStrictlyInsideUnitInterval() {
        Prng rng = new Prng(22);
        Summary s = new Summary();
        for (int i = 0; i < 50000; i++) {
            double u = rng.nextOpenDouble();
            assertTrue(u > 0.0 && u < 1.0);
            s.add(u);
        }
        assertEquals(0.5, s.mean(), 0.006);
        assertTrue(s.min() < 0.001 && s.max() > 0.999);
    }

    @Test
    void shuffleMakesEveryPermutationEquallyLikely() {
        Prng rng = new Prng(31);
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < 24000; i++) {
            List<Integer> list = new ArrayList<>(List.of(0, 1, 2, 3));
            rng.shuffle(list);
            seen.merge(list.toString(), 1, Integer::sum);
        }
        assertEquals(24, seen.size());
        long[] counts = seen.values().stream().mapToLong(Integer::longValue).toArray();
        assertTrue(GoodnessOfFit.chiSquareUniform(counts).pValue() > 1e-4);
    }

    @Test
    void shuffleKeepsTheElements() {
        Prng rng = new Prng(32);
        List<String> list = new ArrayList<>(List.of("a", "b", "c", "d", "e", "f", "g"));
        rng.shuffle(list);
        List<String> sorted = new ArrayList<>(list);
        sorted.sort(null);
        assertEquals(List.of("a", "b", "c", "d", "e", "f", "g"), sorted);
        List<String> empty = new ArrayList<>();
        rng.shuffle(empty);
        assertTrue(empty.isEmpty());
        assertThrows(NullPointerException.class, () -> rng.shuffle(null));
    }

    @Test
    void chooseReturnsSortedDistinctValuesWithEqualInclusion() {
        Prng rng = new Prng(41);
        int[] inclusion = new int[10];
        for (int round = 0; round < 20000; round++) {
            int[] pick = rng.choose(10, 4);
            assertEquals(4, pick.length);
            for (int i = 0; i < pick.length; i++) {
                assertTrue(pick[i] >= 0 && pick[i] < 10);
                if (i > 0) {
                    assertTrue(pick[i - 1] < pick[i]);
                }
                inclusion[pick[i]]++;
            }
        }
        for (int count : inclusion) {
            assertEquals(0.4, count / 20000.0, 0.02);
        }
    }

    @Test
    void chooseHandlesEdgeSizesAndRejectsImpossibleOnes() {
        Prng rng = new Prng(42);
        assertArrayEquals(new int[] {0, 1, 2, 3, 4}, rng.choose(5, 5));
        assertEquals(0, rng.choose(5, 0).length);
        assertThrows(IllegalArgumentException.class, () -> rng.choose(3, 4));
        assertThrows(IllegalArgumentException.class, () -> rng.choose(3, -1));
    }

    @Test
    void copyContinuesTheSameStreamIndependently() {
        Prng original = new Prng(51);
        original.nextLong();
        Prng copy = original.copy();
        assertEquals(original.draws(), copy.draws());
        long[] fromCopy = new long[20];
        for (int i = 0; i < fromCopy.length; i++) {
            fromCopy[i] = copy.nextLong();
        }
        assertEquals(1, original.draws());
        for (long expected : fromCopy) {
            assertEquals(expected, original.nextLong());
        }
    }

    @Test
    void splitAdvancesParentOnceAndGivesADifferentStream() {
        Prng parent = new Prng(61);
        Prng twin = parent.copy();
        Prng child = parent.split();
        Prng childAgain = twin.split();
        assertEquals(1, parent.draws());
        assertEquals(0, child.draws());
        for (int i = 0; i < 10; i++) {
            long c = child.nextLong();
            assertEquals(c, childAgain.nextLong());
            assertNotEquals(c, parent.nextLong());
        }
    }
}
