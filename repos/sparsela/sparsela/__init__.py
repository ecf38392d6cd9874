"""sparsela: small pure-Python sparse linear algebra.

Vectors are dictionaries of non-zeros; matrices come in COO, CSR and CSC
layouts that convert freely into one another.
"""

from .matrix import FORMATS, COOMatrix, CSCMatrix, CSRMatrix, SparseMatrix
from .matrix import as_csr, convert, diags, identity
from .mmio import MatrixMarketError, dump, dumps, load, loads
from .solvers import ConvergenceError, SingularMatrixError, SolveResult
from .solvers import conjugate_gradient, gauss_seidel, jacobi, residual_norm, solve, solve_triangular
from .vector import SparseVector

__version__ = "0.3.1"
