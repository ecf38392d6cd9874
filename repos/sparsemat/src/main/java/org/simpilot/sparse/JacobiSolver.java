package org.simpilot.sparse;

import java.util.ArrayList;
import java.util.List;

/**
 * The Jacobi iteration {@code x ← x + D⁻¹ (b − A x)}. It converges for strictly
 * diagonally dominant matrices; divergence elsewhere is detected and reported.
 */
public final class JacobiSolver extends IterativeSolver<JacobiSolver> {

    @Override
    protected JacobiSolver self() {
        return this;
    }

    @Override
    public String name() {
        return "Jacobi";
    }

    @Override
    protected SolverResult iterate(CsrMatrix a, double[] b, double[] x) {
        double[] diag = a.diagonal();
        for (int i = 0; i < diag.length; i++) {
            if (diag[i] == 0.0) {
                throw new IllegalArgumentException("Jacobi needs a non-zero diagonal, row " + i + " has none");
            }
        }
        double limit = threshold(norm2(b));
        List<Double> history = new ArrayList<>();
        double[] r = residual(a, x, b);
        double rNorm = norm2(r);
        history.add(rNorm);
        if (rNorm <= limit) {
            return new SolverResult(x, 0, rNorm, SolverResult.Status.CONVERGED, history);
        }
        double initial = rNorm;
        for (int k = 1; k <= maxIterations; k++) {
            for (int i = 0; i < x.length; i++) {
                x[i] += r[i] / diag[i];
            }
            r = residual(a, x, b);
            rNorm = norm2(r);
            history.add(rNorm);
            if (rNorm <= limit) {
                return new SolverResult(x, k, rNorm, SolverResult.Status.CONVERGED, history);
            }
            if (!Double.isFinite(rNorm) || rNorm > DIVERGENCE_FACTOR * initial) {
                return new SolverResult(x, k, rNorm, SolverResult.Status.DIVERGED, history);
            }
        }
        return new SolverResult(x, maxIterations, rNorm, SolverResult.Status.MAX_ITERATIONS, history);
    }

    /** True when every row has {@code |a_ii| > Σ_{j≠i} |a_ij|}, which guarantees convergence. */
    public static boolean isDiagonallyDominant(CsrMatrix a) {
        if (!a.isSquare()) {
            return false;
        }
        for (int i = 0; i < a.rows(); i++) {
            double diag = 0.0;
            double offDiag = 0.0;
            for (SparseVector.Entry e : a.row(i)) {
                if (e.index() == i) {
                    diag = Math.abs(e.value());
                } else {
                    offDiag += Math.abs(e.value());
                }
            }
            if (diag <= offDiag) {
                return false;
            }
        }
        return true;
    }
}
