package org.simpilot.sparse;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Outcome of an iterative solve: final iterate, iterations spent, final residual
 * ‖b − Ax‖₂, why the solver stopped, and the residual history (entry 0 is the start).
 */
public record SolverResult(double[] solution, int iterations, double residualNorm, Status status,
                           List<Double> history) {

    /** Why an iterative solver stopped. */
    public enum Status {
        /** The residual fell below the requested tolerance. */
        CONVERGED,
        /** The iteration budget ran out first. */
        MAX_ITERATIONS,
        /** The residual grew without bound. */
        DIVERGED,
        /** A division by a non-positive quantity made further progress impossible. */
        BREAKDOWN
    }

    /** Validates the components and freezes the history. */
    public SolverResult {
        Objects.requireNonNull(solution, "solution");
        Objects.requireNonNull(status, "status");
        if (iterations < 0) {
            throw new IllegalArgumentException("iterations must not be negative: " + iterations);
        }
        history = List.copyOf(history);
    }

    /** True when the solver reached the tolerance. */
    public boolean converged() {
        return status == Status.CONVERGED;
    }

    /** One-line human readable description. */
    public String summary() {
        String residual = String.format(Locale.ROOT, "%.3e", residualNorm);
        return switch (status) {
            case CONVERGED -> "converged after " + iterations + " iterations, residual " + residual;
            case MAX_ITERATIONS -> "not converged within " + iterations + " iterations, residual " + residual;
            case DIVERGED -> "diverged at iteration " + iterations + ", residual " + residual;
            case BREAKDOWN -> "broke down at iteration " + iterations + " (matrix not positive definite?)";
        };
    }
}
