package org.simpilot.variates;

import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * A small, fast, seeded pseudo-random number generator.
 *
 * <p>The state is two 64-bit words advanced by a xorshift/rotate step; every output is the
 * sum of the two words passed through a multiply-and-fold finaliser. A given seed always
 * yields the same stream. Not suitable for cryptography, and not thread-safe: use
 * {@link #split()} to hand a generator to another thread.
 */
public final class Prng {

    /** Increment of the seeding sequence: 2^64 divided by the golden ratio, made odd. */
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    private static final long OUTPUT_MULTIPLIER = 0xD1342543DE82EF95L;
    /** 2^-53: turns the top 53 bits of a long into a double in [0, 1). */
    private static final double DOUBLE_UNIT = 0x1.0p-53;
    private static final double OPEN_UNIT = 0x1.0p-52;

    private final long seed;
    private long s0;
    private long s1;
    private long draws;

    /**
     * Creates a generator. Any seed is fine, including zero: it is spread over the state by
     * a mixing function, so nearby seeds give unrelated streams.
     *
     * @param seed the seed
     */
    public Prng(long seed) {
        this.seed = seed;
        this.s0 = scramble(seed + GOLDEN_GAMMA);
        this.s1 = scramble(seed + 2 * GOLDEN_GAMMA);
    }

    private Prng(Prng other) {
        this.seed = other.seed;
        this.s0 = other.s0;
        this.s1 = other.s1;
        this.draws = other.draws;
    }

    /** Finaliser of the seeding sequence: every input bit affects every output bit. */
    static long scramble(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** @return how many 64-bit words this generator has produced so far */
    public long draws() {
        return draws;
    }

    /** @return the next 64 pseudo-random bits */
    public long nextLong() {
        long a = s0;
        long b = s1;
        long out = (a + b) * OUTPUT_MULTIPLIER;
        b ^= a;
        s0 = Long.rotateLeft(a, 24) ^ b ^ (b << 16);
        s1 = Long.rotateLeft(b, 37);
        draws++;
        return out ^ (out >>> 29);
    }

    /** @return the next 32 pseudo-random bits, taken from the high half of a long */
    public int nextInt() {
        return (int) (nextLong() >>> 32);
    }

    /**
     * Returns a uniformly distributed int in {@code [0, bound)} without modulo bias.
     *
     * @param bound exclusive upper bound, must be positive
     * @return a value in {@code [0, bound)}
     */
    public int nextInt(int bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be positive, got " + bound);
        }
        if ((bound & (bound - 1)) == 0) {
            // A power of two: the top bits of one draw are exact (two shifts, as bound may be 1).
            return (int) ((nextLong() >>> 1) >>> (63 - Integer.numberOfTrailingZeros(bound)));
        }
        // Reject the incomplete last block of 2^31 so that every residue is equally likely.
        long span = 1L << 31;
        long limit = span - span % bound;
        long r = nextLong() >>> 33;
        while (r >= limit) {
            r = nextLong() >>> 33;
        }
        return (int) (r % bound);
    }

    /** @return a uniformly distributed double in {@code [0, 1)} with 53 random bits */
    public double nextDouble() {
        return (nextLong() >>> 11) * DOUBLE_UNIT;
    }

    /** @return a uniform double strictly inside {@code (0, 1)}, safe to take the log of */
    public double nextOpenDouble() {
        return ((nextLong() >>> 12) + 0.5) * OPEN_UNIT;
    }

    /**
     * Shuffles a list in place (Fisher–Yates); every permutation is equally likely.
     *
     * @param list the list to shuffle, must support {@code set}
     * @param <T> element type
     */
    public <T> void shuffle(List<T> list) {
        Objects.requireNonNull(list, "list");
        for (int i = list.size() - 1; i > 0; i--) {
            int j = nextInt(i + 1);
            T held = list.get(i);
            list.set(i, list.get(j));
            list.set(j, held);
        }
    }

    /**
     * Picks {@code k} distinct values of {@code 0 .. n-1}, every subset being equally likely
     * (Floyd's algorithm).
     *
     * @param n size of the population
     * @param k size of the sample
     * @return the sample in ascending order
     */
    public int[] choose(int n, int k) {
        if (k < 0 || k > n) {
            throw new IllegalArgumentException("cannot choose " + k + " of " + n);
        }
        TreeSet<Integer> chosen = new TreeSet<>();
        for (int j = n - k; j < n; j++) {
            int t = nextInt(j + 1);
            if (!chosen.add(t)) {
                chosen.add(j);
            }
        }
        int[] result = new int[k];
        int i = 0;
        for (int value : chosen) {
            result[i++] = value;
        }
        return result;
    }

    /** @return an independent copy that will produce exactly the same stream as this one */
    public Prng copy() {
        return new Prng(this);
    }

    /**
     * Derives a new generator seeded from this one's next output. The parent advances by one
     * draw; the child's stream is unrelated to the parent's continuation.
     *
     * @return a new generator
     */
    public Prng split() {
        return new Prng(scramble(nextLong() ^ seed));
    }
}
