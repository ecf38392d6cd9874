package org.simpilot.sparse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class SolverTest {

    /** The 1-D Poisson matrix tridiag(-1, 2, -1), symmetric positive definite. */
    static CsrMatrix laplacian(int n) {
        CooMatrix coo = new CooMatrix(n, n);
        for (int i = 0; i < n; i++) {
            coo.add(i, i, 2.0);
            if (i > 0) {
                coo.add(i, i - 1, -1.0);
            }
            if (i + 1 < n) {
                coo.add(i, i + 1, -1.0);
            }
        }
        return coo.toCsr();
    }

    /** A random strictly diagonally dominant (non-symmetric) matrix. */
    static CsrMatrix dominant(Random rnd, int n) {
        CooMatrix coo = new CooMatrix(n, n);
        for (int i = 0; i < n; i++) {
            double offSum = 0.0;
            for (int j = 0; j < n; j++) {
                if (j != i && rnd.nextDouble() < 0.3) {
                    double v = rnd.nextDouble() * 2 - 1;
                    coo.add(i, j, v);
                    offSum += Math.abs(v);
                }
            }
            coo.add(i, i, offSum + 1.0 + rnd.nextDouble());
        }
        return coo.toCsr();
    }

    static double[] ones(int n) {
        double[] b = new double[n];
        java.util.Arrays.fill(b, 1.0);
        return b;
    }

    static double residualNorm(CsrMatrix a, double[] x, double[] b) {
        double[] ax = a.multiply(x);
        double s = 0.0;
        for (int i = 0; i < b.length; i++) {
            s += (b[i] - ax[i]) * (b[i] - ax[i]);
        }
        return Math.sqrt(s);
    }

    @Test
    void conjugateGradientSolvesPoisson() {
        int n = 20;
        CsrMatrix a = laplacian(n);
        double[] b = ones(n);
        SolverResult result = new ConjugateGradient().withTolerance(1e-12).solve(a, b);
        assertTrue(result.converged());
        assertEquals(SolverResult.Status.CONVERGED, result.status());
        assertTrue(result.iterations() <= n, "iterations " + result.iterations());
        assertTrue(result.iterations() >= 5);
        assertEquals(result.iterations() + 1, result.history().size());
        assertEquals(Math.sqrt(n), result.history().get(0), 1e-12);
        assertTrue(result.residualNorm() <= 1e-12 * Math.sqrt(n));
        assertEquals(result.residualNorm(), residualNorm(a, result.solution(), b), 1e-9);
        // exact solution of the discrete Poisson problem: x_i = (i+1)(n-i)/2
        for (int i = 0; i < n; i++) {
            assertEquals((i + 1) * (n - i) / 2.0, result.solution()[i], 1e-8);
        }
    }

    @Test
    void jacobiPreconditioningHelpsBadlyScaledSystems() {
        int n = 12;
        CooMatrix coo = new CooMatrix(n, n);
        for (int i = 0; i < n; i++) {
            coo.add(i, i, Math.pow(10, i % 6));
        }
        CsrMatrix a = coo.toCsr();
        double[] b = ones(n);
        SolverResult plain = new ConjugateGradient().solve(a, b);
        ConjugateGradient pcg = new ConjugateGradient().withJacobiPreconditioner(true);
        SolverResult pre = pcg.solve(a, b);
        assertTrue(pre.converged());
        assertEquals(1, pre.iterations());
        assertTrue(plain.iterations() >= 5, "plain CG took " + plain.iterations());
        assertEquals(1e-5, pre.solution()[5], 1e-15);
        assertEquals("PCG(Jacobi)", pcg.name());
        assertEquals("CG", new ConjugateGradient().name());
    }

    @Test
    void preconditionedCgSolvesPoissonToo() {
        CsrMatrix a = laplacian(15);
        double[] b = new double[15];
        b[3] = 1.0;
        b[10] = -2.0;
        SolverResult r = new ConjugateGradient().withJacobiPreconditioner(true).withTolerance(1e-11).solve(a, b);
        assertTrue(r.converged());
        assertTrue(residualNorm(a, r.solution(), b) <= 1e-10 * Math.sqrt(5));
    }

    @Test
    void conjugateGradientRejectsNonSymmetricMatrices() {
        CsrMatrix a = CsrMatrix.fromDense(new double[][] {{4, 1}, {0, 3}});
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> new ConjugateGradient().solve(a, ones(2)));
        assertTrue(ex.getMessage().contains("symmetric"));
    }

    @Test
    void preconditionerNeedsPositiveDiagonal() {
        CsrMatrix a = CsrMatrix.fromDense(new double[][] {{2, 1}, {1, 0}});
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> new ConjugateGradient().withJacobiPreconditioner(true).solve(a, ones(2)));
        assertTrue(ex.getMessage().contains("row 1"));
        CsrMatrix negative = CsrMatrix.fromDense(new double[][] {{-2, 0}, {0, 1}});
        assertThrows(IllegalArgumentException.class,
                () -> new ConjugateGradient().withJacobiPreconditioner(true).solve(negative, ones(2)));
    }

    @Test
    void conjugateGradientReportsBreakdownOnIndefiniteMatrix() {
        CsrMatrix a = CsrMatrix.fromDense(new double[][] {{1, 0}, {0, -1}});
        SolverResult r = new ConjugateGradient().solve(a, ones(2));
        assertEquals(SolverResult.Status.BREAKDOWN, r.status());
        assertFalse(r.converged());
        assertEquals(0, r.iterations());
        assertEquals(List.of(Math.sqrt(2)), r.history());
    }

    @Test
    void breakdownAfterSomeProgressKeepsTheIterationCount() {
        CsrMatrix a = CsrMatrix.fromDense(new double[][] {{1, 0, 0}, {0, 2, 0}, {0, 0, -3}});
        SolverResult r = new ConjugateGradient().solve(a, new double[] {1, 1, 0.5});
        assertEquals(SolverResult.Status.BREAKDOWN, r.status());
        assertTrue(r.iterations() >= 1);
        assertEquals(r.iterations() + 1, r.history().size());
    }

    @Test
    void conjugateGradientStopsAtTheIterationBudget() {
        CsrMatrix a = laplacian(20);
        SolverResult r = new ConjugateGradient().withMaxIterations(3).solve(a, ones(20));
        assertEquals(SolverResult.Status.MAX_ITERATIONS, r.status());
        assertEquals(3, r.iterations());
        assertEquals(4, r.history().size());
        assertEquals(r.residualNorm(), r.history().get(3));
        assertEquals(r.residualNorm(), residualNorm(a, r.solution(), ones(20)), 1e-9);
    }

    @Test
    void exactInitialGuessConvergesImmediatelyAndIsNotModified() {
        CsrMatrix a = laplacian(4);
        double[] x0 = {1, 2, 3, 4};
        double[] b = a.multiply(x0);
        SolverResult r = new ConjugateGradient().solve(a, b, x0);
        assertEquals(0, r.iterations());
        assertTrue(r.converged());
        assertArrayEquals(new double[] {1, 2, 3, 4}, r.solution());
        assertNotSame(x0, r.solution());
        SolverResult j = new JacobiSolver().solve(a, b, x0);
        assertEquals(0, j.iterations());
        assertTrue(j.converged());
    }

    @Test
    void initialGuessIsUsedAndLeftUntouched() {
        CsrMatrix a = laplacian(6);
        double[] x0 = {5, 5, 5, 5, 5, 5};
        SolverResult r = new ConjugateGradient().solve(a, ones(6), x0);
        assertArrayEquals(new double[] {5, 5, 5, 5, 5, 5}, x0);
        assertTrue(r.converged());
        assertEquals(residualNorm(a, x0, ones(6)), r.history().get(0), 1e-12);
    }

    @Test
    void zeroRightHandSideFallsBackToAbsoluteTolerance() {
        CsrMatrix a = laplacian(5);
        SolverResult trivial = new ConjugateGradient().solve(a, new double[5]);
        assertEquals(0, trivial.iterations());
        assertArrayEquals(new double[5], trivial.solution());
        SolverResult fromGuess = new ConjugateGradient().withTolerance(1e-9)
                .solve(a, new double[5], new double[] {1, -1, 2, 0, 3});
        assertTrue(fromGuess.converged());
        assertTrue(fromGuess.iterations() >= 1);
        for (double v : fromGuess.solution()) {
            assertEquals(0.0, v, 1e-8);
        }
    }

    @Test
    void relativeAndAbsoluteTolerancesDiffer() {
        Random rnd = new Random(7);
        CsrMatrix a = dominant(rnd, 15);
        double[] b = ones(15);
        for (int i = 0; i < b.length; i++) {
            b[i] = 1e6;
        }
        SolverResult rel = new JacobiSolver().withTolerance(1e-6).solve(a, b);
        SolverResult abs = new JacobiSolver().withTolerance(1e-6).withRelativeTolerance(false).solve(a, b);
        assertTrue(rel.converged());
        assertTrue(abs.converged());
        assertTrue(rel.residualNorm() > 1e-6, "relative stop at " + rel.residualNorm());
        assertTrue(rel.residualNorm() <= 1e-6 * Math.sqrt(15) * 1e6);
        assertTrue(abs.residualNorm() <= 1e-6);
        assertTrue(abs.iterations() > rel.iterations());
    }

    @Test
    void solveValidatesShapes() {
        ConjugateGradient cg = new ConjugateGradient();
        IllegalArgumentException square = assertThrows(IllegalArgumentException.class,
                () -> cg.solve(CsrMatrix.fromDense(new double[][] {{1, 2}}), ones(1)));
        assertTrue(square.getMessage().contains("CG needs a square matrix"));
        CsrMatrix a = laplacian(3);
        assertThrows(IllegalArgumentException.class, () -> cg.solve(a, ones(2)));
        IllegalArgumentException guess = assertThrows(IllegalArgumentException.class,
                () -> cg.solve(a, ones(3), new double[4]));
        assertTrue(guess.getMessage().startsWith("initial guess has length 4"));
        assertThrows(IllegalArgumentException.class, () -> new JacobiSolver().solve(a, ones(4)));
    }

    @Test
    void settersValidateTheirArguments() {
        assertThrows(IllegalArgumentException.class, () -> new ConjugateGradient().withTolerance(0.0));
        assertThrows(IllegalArgumentException.class, () -> new ConjugateGradient().withTolerance(-1e-3));
        assertThrows(IllegalArgumentException.class, () -> new JacobiSolver().withTolerance(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new JacobiSolver().withMaxIterations(0));
        JacobiSolver j = new JacobiSolver();
        assertTrue(j == j.withMaxIterations(1).withTolerance(1e-3).withRelativeTolerance(true));
    }

    @Test
    void jacobiSolvesDiagonallyDominantSystems() {
        Random rnd = new Random(2024);
        CsrMatrix a = dominant(rnd, 30);
        assertTrue(JacobiSolver.isDiagonallyDominant(a));
        double[] expected = new double[30];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = rnd.nextInt(11) - 5;
        }
        double[] b = a.multiply(expected);
        SolverResult r = new JacobiSolver().withTolerance(1e-12).solve(a, b);
        assertTrue(r.converged(), r.summary());
        assertTrue(r.iterations() > 3);
        assertEquals(r.iterations() + 1, r.history().size());
        assertArrayEquals(expected, r.solution(), 1e-9);
        assertEquals("Jacobi", new JacobiSolver().name());
    }

    @Test
    void jacobiRejectsZeroDiagonal() {
        CsrMatrix a = CsrMatrix.fromDense(new double[][] {{1, 2, 0}, {0, 3, 1}, {1, 1, 0}});
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> new JacobiSolver().solve(a, ones(3)));
        assertTrue(ex.getMessage().contains("row 2"));
    }

    @Test
    void jacobiDetectsDivergence() {
        CsrMatrix a = CsrMatrix.fromDense(new double[][] {{1, 2}, {2, 1}});
        SolverResult r = new JacobiSolver().solve(a, new double[] {1, 0});
        assertEquals(SolverResult.Status.DIVERGED, r.status());
        assertTrue(r.iterations() > 5 && r.iterations() < 100, "iterations " + r.iterations());
        assertTrue(r.residualNorm() > IterativeSolver.DIVERGENCE_FACTOR * r.history().get(0));
        assertTrue(r.history().get(r.iterations() - 1) <= IterativeSolver.DIVERGENCE_FACTOR * r.history().get(0));
    }

    @Test
    void jacobiStopsAtTheIterationBudget() {
        CsrMatrix a = laplacian(10);
        SolverResult r = new JacobiSolver().withMaxIterations(7).solve(a, ones(10));
        assertEquals(SolverResult.Status.MAX_ITERATIONS, r.status());
        assertEquals(7, r.iterations());
        assertEquals(8, r.history().size());
        assertTrue(r.history().get(7) < r.history().get(0));
        assertEquals(r.residualNorm(), residualNorm(a, r.solution(), ones(10)), 1e-12);
    }

    @Test
    void diagonalDominanceCheck() {
        assertTrue(JacobiSolver.isDiagonallyDominant(CsrMatrix.fromDense(new double[][] {{3, -1}, {1, -2}})));
        assertFalse(JacobiSolver.isDiagonallyDominant(laplacian(4)));
        assertFalse(JacobiSolver.isDiagonallyDominant(CsrMatrix.fromDense(new double[][] {{3, 1}, {2, 2}})));
        assertFalse(JacobiSolver.isDiagonallyDominant(CsrMatrix.fromDense(new double[][] {{0, 1}, {1, 0}})));
        assertFalse(JacobiSolver.isDiagonallyDominant(CsrMatrix.fromDense(new double[][] {{5, 1, 1}})));
        assertTrue(JacobiSolver.isDiagonallyDominant(CsrMatrix.fromDense(new double[][] {{1, 0}, {0, 1}})));
        assertFalse(JacobiSolver.isDiagonallyDominant(CsrMatrix.fromDense(new double[][] {{1, 5}, {0, 9}})));
    }

    @Test
    void summaryDescribesEveryStatus() {
        List<Double> h = new ArrayList<>(List.of(1.0, 0.5));
        assertEquals("converged after 3 iterations, residual 1.250e-04",
                new SolverResult(new double[1], 3, 1.25e-4, SolverResult.Status.CONVERGED, h).summary());
        assertEquals("not converged within 10 iterations, residual 2.000e+00",
                new SolverResult(new double[1], 10, 2.0, SolverResult.Status.MAX_ITERATIONS, h).summary());
        assertEquals("diverged at iteration 4, residual 1.000e+09",
                new SolverResult(new double[1], 4, 1e9, SolverResult.Status.DIVERGED, h).summary());
        assertEquals("broke down at iteration 2 (matrix not positive definite?)",
                new SolverResult(new double[1], 2, 0.1, SolverResult.Status.BREAKDOWN, h).summary());
    }

    @Test
    void resultValidatesAndFreezesHistory() {
        List<Double> h = new ArrayList<>(List.of(1.0));
        SolverResult r = new SolverResult(new double[1], 0, 1.0, SolverResult.Status.CONVERGED, h);
        h.add(2.0);
        assertEquals(List.of(1.0), r.history());
        assertThrows(UnsupportedOperationException.class, () -> r.history().add(3.0));
        assertThrows(IllegalArgumentException.class,
                () -> new SolverResult(new double[1], -1, 1.0, SolverResult.Status.CONVERGED, h));
        assertThrows(NullPointerException.class,
                () -> new SolverResult(null, 0, 1.0, SolverResult.Status.CONVERGED, h));
        assertThrows(NullPointerException.class, () -> new SolverResult(new double[1], 0, 1.0, null, h));
    }
}
