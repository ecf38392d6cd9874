package org.simpilot.variates;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A finite discrete distribution over arbitrary outcomes, sampled in constant time with
 * Walker's alias method (Vose's construction).
 *
 * <p>Column {@code i} of the table keeps outcome {@code i} with probability
 * {@code cutoff[i]} and otherwise yields its alias. Tables are immutable.
 *
 * @param <T> type of the outcomes
 */
public final class AliasTable<T> {

    private final List<T> outcomes;
    private final Map<T, Integer> indexOf;
    private final double[] probabilities;
    private final double[] cutoff;
    private final int[] alias;

    /**
     * Builds a table from outcomes and their (not necessarily normalised) weights.
     *
     * @param outcomes distinct outcomes
     * @param weights non-negative finite weights, one per outcome, with a positive sum
     */
    public AliasTable(List<T> outcomes, double[] weights) {
        Objects.requireNonNull(outcomes, "outcomes");
        Objects.requireNonNull(weights, "weights");
        if (outcomes.isEmpty()) {
            throw new IllegalArgumentException("at least one outcome is required");
        }
        if (outcomes.size() != weights.length) {
            throw new IllegalArgumentException(outcomes.size() + " outcomes but "
                    + weights.length + " weights");
        }
        int n = weights.length;
        this.outcomes = Collections.unmodifiableList(new ArrayList<>(outcomes));
        this.indexOf = new HashMap<>();
        double total = 0.0;
        for (int i = 0; i < n; i++) {
            double w = weights[i];
            if (!(w >= 0.0) || Double.isInfinite(w)) {
                throw new IllegalArgumentException("weight of " + outcomes.get(i) + " is " + w);
            }
            if (indexOf.put(outcomes.get(i), i) != null) {
                throw new IllegalArgumentException("duplicate outcome " + outcomes.get(i));
            }
            total += w;
        }
        if (!(total > 0.0)) {
            throw new IllegalArgumentException("weights sum to zero");
        }
        this.probabilities = new double[n];
        for (int i = 0; i < n; i++) {
            probabilities[i] = weights[i] / total;
        }
        this.cutoff = new double[n];
        this.alias = new int[n];
        build();
    }

    /** Builds a table from a map of weights; the map's iteration order fixes the columns. */
    public static <T> AliasTable<T> of(Map<T, ? extends Number> weights) {
        List<T> keys = new ArrayList<>(weights.size());
        double[] w = new double[weights.size()];
        int i = 0;
        for (Map.Entry<T, ? extends Number> e : weights.entrySet()) {
            keys.add(e.getKey());
            w[i++] = e.getValue().doubleValue();
        }
        return new AliasTable<>(keys, w);
    }

    private void build() {
        int n = probabilities.length;
        double[] scaled = new double[n];
        Deque<Integer> small = new ArrayDeque<>();
        Deque<Integer> large = new ArrayDeque<>();
        for (int i = 0; i < n; i++) {
            scaled[i] = probabilities[i] * n;
            if (scaled[i] < 1.0) {
                small.push(i);
            } else {
                large.push(i);
            }
        }
        while (!small.isEmpty() && !large.isEmpty()) {
            int s = small.pop();
            int l = large.pop();
            cutoff[s] = scaled[s];
            alias[s] = l;
            // The large column gives away what fills the small one up to 1.
            scaled[l] = (scaled[l] + scaled[s]) - 1.0;
            if (scaled[l] < 1.0) {
                small.push(l);
            } else {
                large.push(l);
            }
        }
        // Whatever is left is full up to rounding error.
        for (int l : large) {
            cutoff[l] = 1.0;
        }
        for (int s : small) {
            cutoff[s] = 1.0;
        }
    }

    /** Recomputes each outcome's probability from cutoffs and aliases, to check the build. */
    double[] impliedProbabilities() {
        int n = cutoff.length;
        double[] implied = new double[n];
        for (int i = 0; i < n; i++) {
            implied[i] += cutoff[i] / n;
            implied[alias[i]] += (1.0 - cutoff[i]) / n;
        }
        return implied;
    }

    /** @return number of outcomes */
    public int size() {
        return outcomes.size();
    }

    /** @return the outcomes in column order */
    public List<T> outcomes() {
        return outcomes;
    }

    /** @return the probability of an outcome, zero for unknown outcomes */
    public double probability(T outcome) {
        Integer i = indexOf.get(outcome);
        return i == null ? 0.0 : probabilities[i];
    }

    /** @return the column index of a random outcome */
    public int sampleIndex(Prng rng) {
        int column = rng.nextInt(cutoff.length);
        return rng.nextDouble() < cutoff[column] ? column : alias[column];
    }

    /** @return a random outcome */
    public T sample(Prng rng) {
        return outcomes.get(sampleIndex(rng));
    }

    /** Draws repeatedly; returns outcome to count in column order, zero counts included. */
    public Map<T, Integer> tally(Prng rng, int draws) {
        int[] counts = new int[size()];
        for (int k = 0; k < draws; k++) {
            counts[sampleIndex(rng)]++;
        }
        Map<T, Integer> result = new LinkedHashMap<>();
        for (int i = 0; i < counts.length; i++) {
            result.put(outcomes.get(i), counts[i]);
        }
        return result;
    }

    /** @return the most probable outcome; the first one in column order on ties */
    public T mode() {
        int best = 0;
        for (int i = 1; i < probabilities.length; i++) {
            if (probabilities[i] > probabilities[best]) {
                best = i;
            }
        }
        return outcomes.get(best);
    }

    /** @return the outcomes from most to least probable; ties keep their column order */
    public List<T> ranked() {
        List<T> sorted = new ArrayList<>(outcomes);
        sorted.sort(Comparator.comparingDouble((T o) -> probabilities[indexOf.get(o)]).reversed());
        return sorted;
    }
}
