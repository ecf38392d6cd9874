package org.simpilot.sparse;

/**
 * Shared configuration and helpers for iterative solvers of {@code A x = b}.
 *
 * @param <S> the concrete solver type, returned by the fluent setters
 */
public abstract class IterativeSolver<S extends IterativeSolver<S>> {

    /** Default stopping tolerance. */
    public static final double DEFAULT_TOLERANCE = 1e-10;
    /** Default iteration budget. */
    public static final int DEFAULT_MAX_ITERATIONS = 1000;
    /** A residual this many times larger than the initial one counts as divergence. */
    public static final double DIVERGENCE_FACTOR = 1e8;

    /** Stopping tolerance; relative to ‖b‖ unless {@link #relative} is false. */
    protected double tolerance = DEFAULT_TOLERANCE;
    /** Maximum number of iterations. */
    protected int maxIterations = DEFAULT_MAX_ITERATIONS;
    /** Whether the tolerance is scaled by the norm of the right-hand side. */
    protected boolean relative = true;

    /** The concrete solver, for fluent setters. */
    protected abstract S self();

    /** Short name used in reports. */
    public abstract String name();

    /** Runs the iteration on already validated input; {@code x} holds the initial guess. */
    protected abstract SolverResult iterate(CsrMatrix a, double[] b, double[] x);

    /** Sets the stopping tolerance, which must be positive. */
    public S withTolerance(double tol) {
        if (!(tol > 0.0)) {
            throw new IllegalArgumentException("tolerance must be positive: " + tol);
        }
        this.tolerance = tol;
        return self();
    }

    /** Sets the iteration budget, which must be at least one. */
    public S withMaxIterations(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxIterations must be at least 1: " + max);
        }
        this.maxIterations = max;
        return self();
    }

    /** Chooses between a relative ({@code tol * ‖b‖}) and an absolute stopping test. */
    public S withRelativeTolerance(boolean rel) {
        this.relative = rel;
        return self();
    }

    /** Solves {@code A x = b} starting from the zero vector. */
    public SolverResult solve(CsrMatrix a, double[] b) {
        return solve(a, b, null);
    }

    /** Solves {@code A x = b} from {@code x0} (left untouched; {@code null} means zero). */
    public SolverResult solve(CsrMatrix a, double[] b, double[] x0) {
        if (!a.isSquare()) {
            throw new IllegalArgumentException(name() + " needs a square matrix, got " + a.rows() + "x" + a.cols());
        }
        if (b.length != a.rows()) {
            throw new IllegalArgumentException("right-hand side has length " + b.length + ", expected " + a.rows());
        }
        if (x0 != null && x0.length != a.cols()) {
            throw new IllegalArgumentException("initial guess has length " + x0.length + ", expected " + a.cols());
        }
        double[] x = x0 == null ? new double[a.cols()] : x0.clone();
        return iterate(a, b, x);
    }

    /** Residual threshold for a right-hand side of norm {@code bNorm}. */
    protected final double threshold(double bNorm) {
        // A zero right-hand side has no scale, so fall back to the absolute test.
        if (relative && bNorm > 0.0) {
            return tolerance * bNorm;
        }
        return tolerance;
    }

    /** Dense dot product. */
    protected static double dot(double[] u, double[] v) {
        double sum = 0.0;
        for (int i = 0; i < u.length; i++) {
            sum += u[i] * v[i];
        }
        return sum;
    }

    /** Dense Euclidean norm. */
    protected static double norm2(double[] u) {
        return Math.sqrt(dot(u, u));
    }

    /** Computes {@code b - A x}. */
    protected static double[] residual(CsrMatrix a, double[] x, double[] b) {
        double[] r = a.multiply(x);
        for (int i = 0; i < r.length; i++) {
            r[i] = b[i] - r[i];
        }
        return r;
    }
}
