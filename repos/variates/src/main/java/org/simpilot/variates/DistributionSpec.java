package org.simpilot.variates;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * A distribution named by a short specification such as {@code "gamma(2.5, 1.5)"} or
 * {@code "binomial(40, 0.3)"}. A specification knows how to sample itself and its
 * theoretical mean and variance, so that simulations can be configured from text and
 * checked against theory.
 */
public final class DistributionSpec {

    /** Draws one value from a distribution; discrete families return whole numbers. */
    @FunctionalInterface
    public interface Sampler {

        /** @return one draw, using {@code variates} as the source of randomness */
        double draw(Variates variates);

        /** @return {@code count} independent draws */
        default double[] draw(Variates variates, int count) {
            double[] out = new double[count];
            for (int i = 0; i < count; i++) {
                out[i] = draw(variates);
            }
            return out;
        }
    }

    /** The supported families, with the number of parameters each takes. */
    public enum Family {
        UNIFORM(2), EXPONENTIAL(1), NORMAL(2), GAMMA(2), BETA(2), POISSON(1), BINOMIAL(2), GEOMETRIC(1);

        private final int arity;

        Family(int arity) {
            this.arity = arity;
        }

        /** @return number of parameters */
        public int arity() {
            return arity;
        }

        /** Looks a family up by name, ignoring case; a few common abbreviations are accepted. */
        public static Optional<Family> byName(String name) {
            String key = name.trim().toLowerCase(Locale.ROOT);
            switch (key) {
                case "gaussian":
                case "norm":
                    return Optional.of(NORMAL);
                case "exp":
                    return Optional.of(EXPONENTIAL);
                default:
                    for (Family f : values()) {
                        if (f.name().equalsIgnoreCase(key)) {
                            return Optional.of(f);
                        }
                    }
                    return Optional.empty();
            }
        }
    }

    private final Family family;
    private final double[] params;

    /** Creates a specification; parameters are in the order of the textual form. */
    public DistributionSpec(Family family, double... params) {
        this.family = Objects.requireNonNull(family, "family");
        if (params.length != family.arity()) {
            throw new IllegalArgumentException(family + " takes " + family.arity()
                    + " parameter(s), got " + params.length);
        }
        this.params = params.clone();
        validate();
    }

    /** Parses {@code name(p1, p2, ...)}, for example {@code "normal(0, 2.5)"}. */
    public static DistributionSpec parse(String text) {
        String s = Objects.requireNonNull(text, "text").trim();
        int open = s.indexOf('(');
        if (open <= 0 || !s.endsWith(")")) {
            throw new IllegalArgumentException("expected name(arguments), got '" + text + "'");
        }
        String name = s.substring(0, open).trim();
        Family family = Family.byName(name).orElseThrow(
                () -> new IllegalArgumentException("unknown distribution '" + name + "'"));
        String inner = s.substring(open + 1, s.length() - 1).trim();
        String[] parts = inner.isEmpty() ? new String[0] : inner.split(",");
        double[] values = new double[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i].trim();
            try {
                values[i] = Double.parseDouble(part);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("argument " + (i + 1) + " of " + name
                        + " is not a number: '" + part + "'", e);
            }
        }
        return new DistributionSpec(family, values);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    private void validate() {
        for (double p : params) {
            require(Double.isFinite(p), "parameters must be finite: " + Arrays.toString(params));
        }
        switch (family) {
            case UNIFORM:
                require(params[0] < params[1], "uniform needs lo < hi");
                break;
            case NORMAL:
                require(params[1] >= 0.0, "standard deviation must not be negative");
                break;
            case POISSON:
                require(params[0] >= 0.0, "Poisson mean must not be negative");
                break;
            case BINOMIAL:
                require(params[0] >= 0.0 && params[0] == Math.rint(params[0]),
                        "binomial trial count must be a whole number >= 0");
                require(params[1] >= 0.0 && params[1] <= 1.0, "binomial probability must lie in [0, 1]");
                break;
            case GEOMETRIC:
                require(params[0] > 0.0 && params[0] <= 1.0, "geometric probability must lie in (0, 1]");
                break;
            default:
                // The remaining families take strictly positive parameters only.
                for (double p : params) {
                    require(p > 0.0, family.name().toLowerCase(Locale.ROOT) + " parameters must be positive");
                }
        }
    }

    /** @return the family */
    public Family family() {
        return family;
    }

    /** @return a sampler for this distribution */
    public Sampler sampler() {
        double a = params[0];
        double b = params.length > 1 ? params[1] : Double.NaN;
        return switch (family) {
            case UNIFORM -> v -> v.uniform(a, b);
            case EXPONENTIAL -> v -> v.exponential(a);
            case NORMAL -> v -> v.normal(a, b);
            case GAMMA -> v -> v.gamma(a, b);
            case BETA -> v -> v.beta(a, b);
            case POISSON -> v -> v.poisson(a);
            case BINOMIAL -> v -> v.binomial((int) a, b);
            case GEOMETRIC -> v -> v.geometric(a);
        };
    }

    /** @return the theoretical mean */
    public double mean() {
        double a = params[0];
        double b = params.length > 1 ? params[1] : Double.NaN;
        return switch (family) {
            case UNIFORM -> 0.5 * (a + b);
            case EXPONENTIAL, GEOMETRIC -> 1.0 / a;
            case NORMAL, POISSON -> a;
            case GAMMA, BINOMIAL -> a * b;
            case BETA -> a / (a + b);
        };
    }

    /** @return the theoretical variance */
    public double variance() {
        double a = params[0];
        double b = params.length > 1 ? params[1] : Double.NaN;
        switch (family) {
            case UNIFORM:
                return (b - a) * (b - a) / 12.0;
            case EXPONENTIAL:
                return 1.0 / (a * a);
            case NORMAL:
                return b * b;
            case GAMMA:
                return a * b * b;
            case BETA: {
                double s = a + b;
                return a * b / (s * s * (s + 1.0));
            }
            case POISSON:
                return a;
            case BINOMIAL:
                return a * b * (1.0 - b);
            case GEOMETRIC:
                return (1.0 - a) / (a * a);
            default:
                throw new AssertionError("unhandled family " + family);
        }
    }

    /** @return the canonical textual form, which {@link #parse} reads back */
    @Override
    public String toString() {
        StringJoiner joiner = new StringJoiner(", ", family.name().toLowerCase(Locale.ROOT) + "(", ")");
        for (double p : params) {
            if (p == Math.rint(p) && Math.abs(p) < 1.0e15) {
                joiner.add(Long.toString((long) p));
            } else {
                joiner.add(Double.toString(p));
            }
        }
        return joiner.toString();
    }
}
