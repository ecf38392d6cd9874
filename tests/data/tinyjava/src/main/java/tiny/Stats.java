package tiny;

import java.util.ArrayList;
import java.util.List;

/** Small statistics over integer samples. */
public final class Stats {
    private static final int LIMIT = 1000;
    private final List<Integer> samples = new ArrayList<>();

    public void add(int value) {
        // values outside the limit are clamped
        if (value > LIMIT) {
            value = LIMIT;
        }
        samples.add(value);
    }

    public int sum() {
        int total = 0;
        for (int v : samples) {
            total += v;
        }
        return total;
    }

    public double mean() {
        if (samples.isEmpty()) {
            throw new IllegalStateException("no samples");
        }
        return (double) sum() / samples.size();
    }

    /** Not covered by any test: a hole here measures nothing. */
    public int scaled(int factor) {
        int result = sum() * factor;
        return result;
    }

    public int max() {
        int best = Integer.MIN_VALUE;
        for (int v : samples) {
            if (v > best) {
                best = v;
            }
        }
        return best;
    }
}
