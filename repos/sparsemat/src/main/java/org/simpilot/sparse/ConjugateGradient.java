package org.simpilot.sparse;

import java.util.ArrayList;
import java.util.List;

/**
 * Conjugate gradients for symmetric positive definite systems, optionally Jacobi
 * preconditioned. A non-positive curvature {@code pᵀAp} is reported as a breakdown.
 */
public final class ConjugateGradient extends IterativeSolver<ConjugateGradient> {

    /** Largest asymmetry tolerated by the up-front symmetry check. */
    public static final double SYMMETRY_TOLERANCE = 1e-12;

    private boolean preconditioned;

    @Override
    protected ConjugateGradient self() {
        return this;
    }

    /** Enables or disables diagonal (Jacobi) preconditioning. */
    public ConjugateGradient withJacobiPreconditioner(boolean enabled) {
        this.preconditioned = enabled;
        return this;
    }

    @Override
    public String name() {
        return preconditioned ? "PCG(Jacobi)" : "CG";
    }

    @Override
    protected SolverResult iterate(CsrMatrix a, double[] b, double[] x) {
        if (!a.isSymmetric(SYMMETRY_TOLERANCE)) {
            throw new IllegalArgumentException(name() + " requires a symmetric matrix");
        }
        int n = b.length;
        double[] invDiag = preconditioned ? inverseDiagonal(a) : null;
        double limit = threshold(norm2(b));
        List<Double> history = new ArrayList<>();

        double[] r = residual(a, x, b);
        double rNorm = norm2(r);
        history.add(rNorm);
        if (rNorm <= limit) {
            return new SolverResult(x, 0, rNorm, SolverResult.Status.CONVERGED, history);
        }
        double[] z = precondition(invDiag, r);
        double[] p = z.clone();
        double rz = dot(r, z);

        for (int k = 1; k <= maxIterations; k++) {
            double[] ap = a.multiply(p);
            double curvature = dot(p, ap);
            if (curvature <= 0.0) {
                return new SolverResult(x, k - 1, rNorm, SolverResult.Status.BREAKDOWN, history);
            }
            double alpha = rz / curvature;
            for (int i = 0; i < n; i++) {
                x[i] += alpha * p[i];
                r[i] -= alpha * ap[i];
            }
            rNorm = norm2(r);
            history.add(rNorm);
            if (rNorm <= limit) {
                return new SolverResult(x, k, rNorm, SolverResult.Status.CONVERGED, history);
            }
            z = precondition(invDiag, r);
            double rzNext = dot(r, z);
            double beta = rzNext / rz;
            rz = rzNext;
            for (int i = 0; i < n; i++) {
                p[i] = z[i] + beta * p[i];
            }
        }
        return new SolverResult(x, maxIterations, rNorm, SolverResult.Status.MAX_ITERATIONS, history);
    }

    /** Reciprocals of the diagonal; a preconditioner needs every one of them positive. */
    private static double[] inverseDiagonal(CsrMatrix a) {
        double[] d = a.diagonal();
        for (int i = 0; i < d.length; i++) {
            if (!(d[i] > 0.0)) {
                throw new IllegalArgumentException("Jacobi preconditioner needs a positive diagonal, row "
                        + i + " has " + d[i]);
            }
            d[i] = 1.0 / d[i];
        }
        return d;
    }

    /** Applies z = M⁻¹ r, or copies r when running unpreconditioned. */
    private static double[] precondition(double[] invDiag, double[] r) {
        if (invDiag == null) {
            return r.clone();
        }
        double[] z = new double[r.length];
        for (int i = 0; i < r.length; i++) {
            z[i] = invDiag[i] * r[i];
        }
        return z;
    }
}
