"""Sparse linear algebra of mesh bodies: supports on a CSR pattern, the factorization,
frozen-time eigenvalues by shift-invert Lanczos/Arnoldi with continuation over a time
grid, and the sparse solver the core's time integrators call back (docs/theory.md
sections 3.11-3.13, 3.15, 4.13).

The C core assembles every matrix of a mesh body (M, K and the inertia blocks S_ij) on
one CSR pattern, so any combination K + sum c_ij S_ij is an axpy over value arrays
(``_core.body_combine``); this module restricts such values to the free DOFs (a gather)
and hands them to SciPy: SuperLU (``scipy.sparse.linalg.splu``) factors, in a
nested-dissection order of the mesh (``nested_dissection``, ``Factor``), ARPACK
(``eigsh``/``eigs`` in shift-invert mode) finds the lowest modes.
"""

from __future__ import annotations

import math

import numpy as np

from . import _checks, _core, _interrupt
from ._eigcert import m_orthonormal as _m_orthonormal


def _scipy():
    try:
        import scipy.linalg as la
        import scipy.sparse as sp
        import scipy.sparse.linalg as spla
    except ImportError:  # pragma: no cover - the optional extra
        raise ImportError("mesh bodies need SciPy: pip install 'kanefem[mesh]'") from None
    return sp, spla, la


# ---------------------------------------------------------------- supports on a pattern


class Reduction:
    """The free-DOF part of a CSR pattern: which stored values survive when the rows and
    columns of fixed DOFs are deleted, and the reduced pattern.  Reducing a matrix is
    then one gather, ``values[keep]`` (section 3.11).

    Parameters
    ----------
    indptr, indices : ndarray of int32
        The body's shared pattern.
    fixed : ndarray of bool, shape (ndof,)
    points : ndarray, shape (ndof, dim), optional
        Where each DOF sits (its node's coordinates): then :attr:`order` is a nested
        dissection of the free DOFs for :class:`Factor` (section 3.15).
    """

    def __init__(self, indptr, indices, fixed, points=None):
        n = indptr.shape[0] - 1
        free = ~np.asarray(fixed, dtype=bool)
        rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr))
        keep = free[rows] & free[indices]
        counts = np.bincount(rows[keep], minlength=n)[free]
        del rows
        # int32 positions when they fit (the gather index is as long as the pattern)
        self.keep = np.flatnonzero(keep).astype(np.int32 if indices.shape[0] < 2**31 else np.intp)
        del keep
        new = (np.cumsum(free) - 1).astype(np.int32)
        self.indices = new[indices[self.keep]]
        self.indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
        self.free = np.flatnonzero(free)
        self.n = self.free.shape[0]
        self.ndof = n
        self.points = None if points is None else np.asarray(points, dtype=float)[self.free]
        self._order = None

    @property
    def order(self):
        """A fill-reducing order of the free DOFs (nested dissection on the DOFs' points,
        computed once), or None without points."""
        if self._order is None and self.points is not None:
            self._order = nested_dissection(self.indptr, self.indices, self.points)
        return self._order

    def matrix(self, values):
        """The reduced CSR matrix of full-pattern values."""
        sp, _, _ = _scipy()
        return sp.csr_matrix((values[self.keep], self.indices, self.indptr), shape=(self.n, self.n))

    def scatter(self, x):
        """Free-DOF vectors (n, ...) to all DOFs (zero at the supports)."""
        out = np.zeros((self.ndof,) + x.shape[1:], dtype=x.dtype)
        out[self.free] = x
        return out


def dof_points(body):
    """Where each DOF of a body sits, (ndof, dim): its node's coordinates (DOFs are
    node-major); None for a body without nodes.  A projected body (constraints) gives its
    masters' points."""
    if hasattr(body, "_dof_points"):
        return body._dof_points
    nodes = getattr(body, "nodes", None)
    per = getattr(body, "dofs_per_node", None)
    if nodes is None or per is None or nodes.shape[0] * per != body.ndof:
        return None
    return np.repeat(np.asarray(nodes, dtype=float).reshape(nodes.shape[0], -1), per, axis=0)


# ---------------------------------------------------------------- ordering and factorization

#: parts of at most this many DOFs are not dissected further
ND_LEAF = 32


def nested_dissection(indptr, indices, points, leaf=ND_LEAF):
    """A fill-reducing order of a structurally symmetric pattern by geometric nested
    dissection (section 3.15): cut the DOFs at the median of one coordinate of their
    points (of the coordinates, the one whose cut has the smallest separator), take the
    DOFs of one side that touch the other side (the smaller such set) as the separator,
    and number the two parts (each dissected the same way) first and the separator
    last.  A mesh's separators are then single layers of nodes across it, and the
    factor's fill grows with its cross-sections, not its length.  Parts of at most
    ``leaf`` DOFs are ordered by reverse Cuthill-McKee.

    Returns the new order as an index array: row/column ``k`` of the reordered matrix is
    DOF ``order[k]``.
    """
    sp, _, _ = _scipy()
    from scipy.sparse import csgraph

    n = indptr.shape[0] - 1
    G = sp.csr_matrix((np.ones(indices.shape[0], dtype=bool), indices, indptr), shape=(n, n))
    order = np.empty(n, dtype=np.intp)
    # explicit stack (a degenerate point set could nest deeper than Python's recursion):
    # (DOFs, their subgraph, their points, first position of the range they fill)
    stack = [(np.arange(n), G, np.asarray(points, dtype=float), 0)]
    while stack:
        S, H, P, lo = stack.pop()
        m = S.shape[0]
        best = None
        for axis in range(P.shape[1]) if m > leaf else ():  # the cut with the smallest separator
            x = P[:, axis]
            med = np.median(x)
            left = x < med
            if not left.any():
                left = x <= med  # more than half at the minimum
            if left.all() or not left.any():
                continue  # all at one coordinate (or not finite): no cut along this axis
            right = ~left
            sep_l, sep_r = left & (H @ right), right & (H @ left)  # DOFs with a neighbour across
            sep = sep_l if np.count_nonzero(sep_l) <= np.count_nonzero(sep_r) else sep_r
            if best is None or np.count_nonzero(sep) < np.count_nonzero(best[1]):
                best = (left, sep)
        if best is None:
            # a leaf: reverse Cuthill-McKee, a narrow profile inside it
            order[lo:lo + m] = S[csgraph.reverse_cuthill_mckee(H, symmetric_mode=True)] if m > 2 else S
            continue
        left, sep = best
        right = ~left
        a, b, s = np.flatnonzero(left & ~sep), np.flatnonzero(right & ~sep), np.flatnonzero(sep)
        order[lo + m - s.shape[0]:lo + m] = S[s]
        for part, start in ((b, lo + a.shape[0]), (a, lo)):
            if part.shape[0]:
                stack.append((S[part], H[part][:, part], P[part], start))
    return order


class Factor:
    """A sparse factorization by SuperLU, with ``solve(b)`` for vectors or blocks.

    With ``order`` (a fill-reducing order such as :func:`nested_dissection`'s) the
    matrix is reordered symmetrically, P A P^T, and factored in that order with diagonal
    pivots (SuperLU's symmetric mode): always on the diagonal for a symmetric A (positive
    definite after the shift of section 3.12), by threshold PIVOT for a general one (an
    off-diagonal pivot only where the diagonal is under PIVOT times its column's
    largest).  Without it, a symmetric A is ordered by minimum degree on A + A^T and
    pivoted on the diagonal, a general A by COLAMD with partial pivoting (section 3.15).

    The reordered matrix is gathered straight from A's CSR arrays and handed to SuperLU
    as the CSC arrays of its transpose (no other copy of A); solves use the transposed
    factor.
    """

    #: diagonal pivot threshold of the general (nonsymmetric) reordered factor
    PIVOT = 0.1

    def __init__(self, A, symmetric, order=None):
        sp, spla, _ = _scipy()
        self.n = A.shape[0]
        self.order = None
        if order is None:
            A = A.tocsc()
            if symmetric:
                self.lu = _interrupt.call(spla.splu, A, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                                          options={"SymmetricMode": True}, owned=True)
            else:
                self.lu = _interrupt.call(spla.splu, A, permc_spec="COLAMD", owned=True)
        else:
            order = np.asarray(order, dtype=np.intp)
            A = A.tocsr()
            A.sum_duplicates()
            inv = np.empty(self.n, dtype=np.int32)
            inv[order] = np.arange(self.n, dtype=np.int32)
            lengths = np.diff(A.indptr)[order]
            indptr = np.zeros(self.n + 1, dtype=np.int32)
            np.cumsum(lengths, out=indptr[1:])
            take = np.arange(A.nnz, dtype=np.intp)  # where in A each reordered entry is
            take -= np.repeat(indptr[:-1] - A.indptr[order], lengths)
            B = sp.csc_matrix((A.data[take], inv[A.indices[take]], indptr), shape=A.shape)  # (P A P^T)^T
            del take
            self.lu = _interrupt.call(spla.splu, B, permc_spec="NATURAL",
                                      diag_pivot_thresh=0.0 if symmetric else self.PIVOT,
                                      options={"SymmetricMode": True}, owned=True)
            self.order = order
        self.nnz = int(self.lu.nnz)  # of L and U (not copied out as SciPy matrices)

    def pivot_ratios(self, A):
        """|U_kk| / |A_kk| of the factor of A, in the factor's order (the smallest tells a
        nearly singular A).  SciPy builds L and U as matrices to give U's diagonal and
        keeps them with the factor: its memory twice over, for the factor's life (a
        mesh's eigen context asks :func:`nearly_singular` instead)."""
        base = np.abs(A.diagonal())
        if self.order is not None:
            base = base[self.order]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.abs(self.lu.U.diagonal()) / base[self.lu.perm_c]

    def solve(self, b):
        b = np.asarray(b, dtype=float)
        if self.order is None:
            return self.lu.solve(b)
        x = np.empty_like(b)
        x[self.order] = self.lu.solve(b[self.order], trans="T")
        return x


class NodalMassFactor:
    """M^-1 on the free DOFs of a plane or solid mesh by factors of its nodal mass m
    (M = m (x) I, docs/theory.md sections 3.11, 3.15): deleting the fixed DOFs leaves,
    for each displacement component k, m on the nodes whose component k is free, and no
    coupling between components, so M_free^-1 is the direct sum of those blocks'
    inverses.  One factor per distinct node set (one for supports that fix whole nodes),
    of a matrix dim^2 times smaller than M, in nested-dissection order of the nodes:
    about a dim^2-th of the fill of M's own factor (1/9 for a solid).

    Parameters
    ----------
    m : sparse matrix, shape (nnode, nnode)
        The nodal mass.
    free : ndarray of int
        The free DOFs, increasing (DOF = node dim + k).
    dim : int
    points : ndarray, shape (nnode, dim), optional
        The nodes' coordinates, for the order.
    """

    def __init__(self, m, free, dim, points=None):
        free = np.asarray(free)
        nodes, comp = free // dim, free % dim
        factors = {}
        self.parts = []
        for k in range(dim):
            pos = np.flatnonzero(comp == k)
            if pos.size == 0:
                continue
            F = nodes[pos]
            key = F.tobytes()
            if key not in factors:
                mk = m[F][:, F].tocsr()
                order = None
                if points is not None and F.size > ND_LEAF:
                    order = nested_dissection(mk.indptr, mk.indices, np.asarray(points, dtype=float)[F])
                factors[key] = Factor(mk, symmetric=True, order=order)
            self.parts.append((pos, factors[key]))
        self.nnz = sum(f.nnz for f in factors.values())

    @classmethod
    def of(cls, body, free):
        """The factor for a body whose mass matrix is m (x) I (a MeshBody; checked
        exactly on the stored values), else None."""
        d = body.dim
        if getattr(body, "dofs_per_node", None) != d or not hasattr(body, "_indptr") or body.ndof % d:
            return None
        sp, _, _ = _scipy()
        M = sp.csr_matrix((body._values("M"), body._indices, body._indptr), shape=(body.ndof, body.ndof))
        m = M[::d, ::d].tocsr()
        for k in range(d):
            for j in range(d):
                B = M[k::d, j::d]
                if (k == j and (B != m).nnz) or (k != j and B.count_nonzero()):
                    return None  # not one nodal mass on every component
        del M
        return cls(m, free, d, getattr(body, "nodes", None))

    def solve(self, b):
        b = np.asarray(b, dtype=float)
        x = np.empty_like(b)
        for pos, F in self.parts:
            x[pos] = F.solve(b[pos])
        return x


def nearly_singular(F, A, B=None, tol=1e-13):
    """Whether the symmetric positive semidefinite A, factored as F, is singular to working
    precision (a free rigid-body motion): the Rayleigh quotient q = x^T A x / x^T B x of
    x = A^-1 B v, for a fixed pseudo-random v, at or below tol max_i A_ii / B_ii, or x not
    finite (B: M, or None for the identity).  q >= lambda_min(A, B) always, and a pivot at
    round-off (a rigid mode: ~1e-16 of its diagonal entry) amplifies x's component along
    the null space by its inverse, so that q falls to round-off.  Unlike the pivots
    (:meth:`Factor.pivot_ratios`), no copy of the factor: two products and a solve."""
    n = A.shape[0]
    v = np.cos(1.7 * np.arange(n) + 0.3)  # deterministic, not orthogonal to any fixed mode
    Bv = v if B is None else B @ v
    with np.errstate(all="ignore"):
        x = F.solve(Bv)
        den = float(x @ x) if B is None else float(x @ (B @ x))
        q = float(x @ (A @ x)) / den
        scale = float(np.max(A.diagonal() / (1.0 if B is None else B.diagonal())))
    return not (math.isfinite(q) and den > 0.0 and q > tol * scale)


#: the widest band (largest |i - j| of a stored entry) that :func:`factor` factors by band
#: LAPACK; a line body's band is 2 n_dof,node - 1 (5 planar, 11 spatial beams)
BAND_MAX = 64


def bandwidth(A):
    """The largest |i - j| over the stored entries of a CSR matrix."""
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    return int(np.abs(rows - A.indices).max()) if A.nnz else 0


class BandFactor:
    """A band factorization, with the interface of :class:`Factor`: Cholesky in the core
    (``kf_band_cholesky``) of a symmetric matrix, which exists exactly when it is
    positive definite (Sylvester's inertia: no pivot <= 0; otherwise RuntimeError, as
    SuperLU's for a singular matrix), or LU with partial pivoting (LAPACK ``dgbtrf``) of a
    general one.  O(n b^2) to factor and O(n b) per solve for a half-bandwidth b: a line
    body's matrices (docs/theory.md section 3.16), where SuperLU's setup costs 20-50x
    more."""

    def __init__(self, A, symmetric, b=None):
        from scipy.linalg import lapack

        A = A.tocsr()
        self.n = n = A.shape[0]
        self.b = b = bandwidth(A) if b is None else b
        self.symmetric = symmetric
        self.order = None
        rows = np.repeat(np.arange(n), np.diff(A.indptr))
        cols = A.indices
        if symmetric:
            low = rows >= cols
            ab = np.zeros((n, b + 1))  # ab[j, d] = A(j + d, j): LAPACK's lower band, column-major
            ab[cols[low], (rows - cols)[low]] = A.data[low]
            self.diag = ab[:, 0].copy()
            try:
                self.c = _core.band_cholesky(ab=ab)
            except np.linalg.LinAlgError as e:
                raise RuntimeError(str(e)) from None
        else:
            ab = np.zeros((3 * b + 1, n), order="F")
            ab[2 * b + rows - cols, cols] = A.data
            lu, piv, info = lapack.dgbtrf(ab, b, b, overwrite_ab=1)
            if info != 0:
                raise RuntimeError(f"the matrix is singular (U[{info - 1}, {info - 1}] = 0)")
            self.c, self.piv = lu, piv
        self.nnz = int(self.c.size)

    def pivot_ratios(self, A=None):
        """|pivot_k| / |A_kk|: the Cholesky factor's squared diagonal over A's diagonal."""
        if not self.symmetric:
            raise NotImplementedError("pivot ratios of a band LU")
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.c[:, 0] ** 2 / np.abs(self.diag)

    def solve(self, b):
        from scipy.linalg import lapack

        b = np.asarray(b, dtype=float)
        if self.symmetric:
            return _core.band_cholesky_solve(L=self.c, b=b)
        x, info = lapack.dgbtrs(self.c, self.b, self.b, b, self.piv)
        if info != 0:  # pragma: no cover - LAPACK's argument checks
            raise RuntimeError(f"band solve: LAPACK info = {info}")
        return x


def factor(A, symmetric, order=None):
    """The factor of a sparse matrix: by band LAPACK (:class:`BandFactor`) when its band is
    at most BAND_MAX wide and no fill-reducing order is given (a line body), else SuperLU
    (:class:`Factor`)."""
    A = A.tocsr()
    if order is None:
        b = bandwidth(A)
        if b <= BAND_MAX and b < A.shape[0]:
            return BandFactor(A, symmetric, b)
    return Factor(A, symmetric, order=order)





#: ARPACK's relative tolerance: every pair it returns is refined in twice the precision
#: and certified afterwards (section 3.17), so its own convergence to machine precision
#: (eigsh's default) buys nothing; 1e-8 leaves residuals whose Kato-Temple bound is
#: ~1e-16 relative and costs 10-30 % fewer iterations
ARPACK_TOL = 1e-8


def _arpack(solve, n, k, v0=None, **kw):
    """ARPACK's eigsh or eigs (solve) with a deterministic start vector (the same answer
    on every run: ARPACK's own start is random) and, when an Arnoldi cycle finds no
    shifts or does not converge, one retry with a larger subspace (ncv)."""
    _, spla, _ = _scipy()
    if v0 is None:
        v0 = 1.0 + 0.5 * np.cos(0.7 * np.arange(n))
    try:
        return solve(k=k, v0=v0, tol=ARPACK_TOL, **kw)
    except (spla.ArpackError, spla.ArpackNoConvergence):
        ncv = min(n - 1, max(4 * k + 1, 40))
        return solve(k=k, v0=v0, ncv=ncv, maxiter=max(10 * n, 1000), **kw)


# ---------------------------------------------------------------- frames


def frame_operators(frame):
    """W, E and W W (3 x 3) of one frame record (body axes)."""
    def skew(w):
        return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    W = skew(np.asarray(frame["omega"], dtype=float))
    E = skew(np.asarray(frame["eps"], dtype=float))
    return W, E, W @ W


# ---------------------------------------------------------------- eigenvalues


def _m_extend(Q, W, M):
    """Q (M-orthonormal) extended by the part of span(W) M-orthogonal to it: two rounds
    of block Gram-Schmidt, then W's remainder orthonormalized on its own scale (a
    correction can be many orders smaller than the basis)."""
    for _ in range(2):
        W = W - Q @ (Q.T @ (M @ W))
    norms = np.sqrt(np.maximum(np.einsum("ik,ik->k", W, M @ W), 0.0))
    W = W[:, norms > 0] / norms[norms > 0]
    if W.shape[1] == 0:
        return Q
    Wq = _m_orthonormal(W, M, drop=1e-10)
    for _ in range(2):
        Wq = Wq - Q @ (Q.T @ (M @ Wq))
    Wq = _m_orthonormal(Wq, M, drop=1e-10)
    return np.column_stack([Q, Wq])


def _sign_rule(X):
    """Make the first component within 1e-9 of the largest magnitude positive (column-wise,
    as the dense solver, section 3.9)."""
    for k in range(X.shape[1]):
        a = np.abs(X[:, k])
        i = int(np.argmax(a >= (1.0 - 1e-9) * a.max()))
        if X[i, k] < 0:
            X[:, k] = -X[:, k]
    return X


class _IndexReduction:
    """The free-DOF part of any body-sized matrix (dense, banded as CSR, or sparse): rows
    and columns of the fixed DOFs deleted by indexing.  The interface of
    :class:`Reduction` for bodies that are not stored on a mesh pattern (beams)."""

    def __init__(self, fixed):
        self.free = np.flatnonzero(~np.asarray(fixed, dtype=bool))
        self.n = self.free.shape[0]
        self.ndof = fixed.shape[0]

    def matrix(self, A):
        sp, _, _ = _scipy()
        A = sp.csr_matrix(A)
        return A[self.free][:, self.free].tocsr()

    scatter = Reduction.scatter


class _Sum:
    """K + D applied as two products, formed only on request (``formed``): an instant's
    matrix, whose rounded sum would cost the stiff K's digits (section 3.17)."""

    def __init__(self, K, D, absK=None):
        self.K, self.D = K, D
        self.shape = K.shape
        self._absK = absK

    def __matmul__(self, X):
        return self.K @ X + self.D @ X

    def __abs__(self):
        # |K + D| <= |K| + |D|, applied as two products (|K| kept by the context)
        return _Sum(abs(self.K) if self._absK is None else self._absK, abs(self.D))

    def formed(self):
        return (self.K + self.D).tocsr()


class SparseEigen:
    """Frozen-time eigenvalues of a body with fixed DOFs on sparse matrices (sections
    3.12, 3.17).

    Holds what is constant: the reduced M and K, the at-rest modes (mu_k, X) with a few
    guard modes and their certificates, the factor of K + delta M that serves as the
    shift-invert operator at rest, the preconditioner of the continuation and of the
    refinement, and the factor of M (the norm of the certificates).  Any body serves: a
    mesh body through its CSR pattern (a gather per matrix), any other through its
    ``combination`` (its storage converted to CSR).
    """

    #: guard modes beyond the requested ones (continuation and certificate)
    GUARD = 4
    #: relative residual at which a continued Ritz pair is accepted (or the rounding floor)
    TOL = 1e-10
    MAXIT = 30
    #: relative certificate (to |theta| + the rates' scale) an accepted instant must reach
    CERT_TOL = 1e-8

    def __init__(self, body, fixed, geometric=None):
        self.body = body
        fixed = np.asarray(fixed, dtype=bool)
        self.mesh = getattr(body, "storage", None) == "sparse" and hasattr(body, "_indptr")
        #: a plane or solid mesh (not a line body returned as CSR)
        self.continuum = self.mesh and not getattr(body, "_sparse_as_band", True)
        self.red = Reduction(body._indptr, body._indices, fixed, dof_points(body)) if self.mesh else _IndexReduction(fixed)
        if self.red.n == 0:
            raise ValueError("the supports fix every DOF: nothing can move")
        # the body's mass matrix (it may hold inertia beyond sum S_ii, e.g. rotary inertia)
        self.M = self.red.matrix(body._values("M") if self.mesh else body.mass_matrix())
        if self.mesh:
            self.K = self.combine(np.zeros((body.dim, body.dim)), 1.0)
        else:
            self.K = self.red.matrix(body.combination(np.zeros((body.dim, body.dim)), 1.0))
            # a line body's band holds the element's structural zeros (4.4 of a Beam3D's 23
            # entries per row are not zero): every product, the Dot2 ones most, skips them
            self.M.eliminate_zeros()
            self.K.eliminate_zeros()
        dk, dm = self.K.diagonal(), self.M.diagonal()
        self.scale = float(np.max(np.abs(dk) / dm))
        self.F = None
        self._delta = None
        self.MF = None
        self.rest = {}
        #: coefficients -> K_G on the free DOFs (CSR), set by the body when K_G is asked
        #: (docs/theory.md section 2.11)
        self.kg_matrix = None
        #: the fill-reducing order of the free DOFs (meshes: nested dissection, section 3.15)
        self.order = getattr(self.red, "order", None)
        from . import _eigcert

        self.PM = _eigcert.Compensated(self.M, plain=True)
        self._exact_shift = None
        self._absK = None
        self._conts = {}

    @property
    def exact_shift(self):
        """Whether sum WW_ij S_ij = -w^2 M for in-plane spin: S_xx + S_yy = M (a plane
        body without rotary inertia beyond its S), the exact shift of section 3.6 (decided
        at the first instant that turns)."""
        if self._exact_shift is None:
            if self.body.dim == 2:
                D = self.combine(-np.eye(2), 0.0, second=True) + self.M
                self._exact_shift = bool(abs(D).max() <= 1e-14 * abs(self.M).max()) if D.nnz else True
            else:
                self._exact_shift = False
        return self._exact_shift

    def combine(self, coef, stiffness, second=False):
        """stiffness K + sum coef_ij S_ij over the free DOFs (CSR); second: with the
        second-order rotation invariants, sum coef_ij (S_ij + R_ij), as the stiffness-like
        terms K_eps and K_om of a rotary-inertia beam take them (section 2.9)."""
        second = _checks.flag("second", second)
        coef = np.asarray(coef, dtype=float)
        if self.mesh:
            return self.red.matrix(_core.body_combine(body=self.body._body, coef=coef, stiffness=float(stiffness)))
        # other bodies: K and the reduced S_ij (and R_ij) once, each as its values on one
        # shared pattern (the union of theirs, a band for a line body), then an axpy over
        # those values per call (section 3.16's argument on the free DOFs)
        d = self.body.dim
        if stiffness != 0.0 and not np.any(coef):
            return self.K if stiffness == 1.0 else stiffness * self.K
        if not hasattr(self, "_S"):
            self._shared_pattern()
        data = stiffness * self._Kd
        for (i, j), S in self._S.items():
            if coef[i, j] != 0.0:
                data = data + coef[i, j] * S
                if second and (i, j) in self._R:
                    data = data + coef[i, j] * self._R[i, j]
        sp, _, _ = _scipy()
        return sp.csr_matrix((data, self._pattern[1], self._pattern[0]), shape=(self.red.n, self.red.n))

    @staticmethod
    def _pattern_values(X, P):
        """The values of the CSR matrix X on the pattern of P (which holds X's)."""
        n = P.shape[0]
        X = X.tocsr()
        X.sum_duplicates()
        keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(P.indptr)) * n + P.indices
        r = np.repeat(np.arange(n, dtype=np.int64), np.diff(X.indptr))
        out = np.zeros(P.indices.shape[0])
        out[np.searchsorted(keys, r * n + X.indices)] = X.data
        return out

    def _shared_pattern(self):
        """K, S_ij (S_ji = S_ij^T) and R_ij of a body that is not a mesh as value arrays on
        the union of their free-DOF patterns (made once, at the first motion term)."""
        sp, _, _ = _scipy()
        d, n = self.body.dim, self.red.n
        mats = {}
        for i in range(d):
            for j in range(i, d):
                E = np.zeros((d, d))
                E[i, j] = 1.0
                mats["S", i, j] = self.red.matrix(self.body.combination(E, 0.0))
                mats["S", j, i] = mats["S", i, j].T.tocsr()
        if self.body.model.get("rotary_inertia"):  # the body has the invariants R_ij
            for i in range(d):
                for j in range(d):
                    mats["R", i, j] = self.red.matrix(self.body._matrix(_core.body_matrix(self.body._body, "R", i, j)))
        mats["K"] = self.K
        union = None
        for X in mats.values():
            X.sum_duplicates()
            X.eliminate_zeros()
            P = sp.csr_matrix((np.ones(X.nnz), X.indices, X.indptr), shape=(n, n))
            union = P if union is None else union + P
        union.sort_indices()
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(union.indptr))
        keys = rows * n + union.indices

        def values(X):
            X = X.tocsr()
            X.sum_duplicates()
            r = np.repeat(np.arange(n, dtype=np.int64), np.diff(X.indptr))
            out = np.zeros(keys.shape[0])
            out[np.searchsorted(keys, r * n + X.indices)] = X.data
            return out

        self._pattern = (union.indptr, union.indices)
        self._Kd = values(mats.pop("K"))
        self._S = {key[1:]: values(X) for key, X in mats.items() if key[0] == "S"}
        self._R = {key[1:]: values(X) for key, X in mats.items() if key[0] == "R"}

    @property
    def delta(self):
        """The shift at rest (section 3.17): 0 if K factors safely, else 1e-8 max K_ii/M_ii."""
        self.factor_rest()
        return self._delta

    def factor_rest(self):
        """The factor of K + delta M.  delta is zero when K itself factors with no pivot
        below 1e-13 of its diagonal entry (a rigid mode leaves one at rounding level,
        ~1e-16; a chain of n elements 1/n^3); else 1e-8 max K_ii/M_ii (section 3.12),
        which for a long beam (the rotations' K_ii/M_ii ~ 1/h^4) lies above lambda_1,
        where it would stall shift-invert and refinement."""
        if self.F is None:
            try:
                F = factor(self.K, True, self.order)
                if self.continuum:  # a mesh: no copy of its large factor (section 3.15)
                    regular = not nearly_singular(F, self.K, self.M)
                else:  # a band factor's pivots are at hand (SuperLU's would copy the factor)
                    piv = F.pivot_ratios(self.K)
                    regular = np.all(np.isfinite(piv)) and piv.min() > 1e-13
                if regular:
                    self.F, self._delta = F, 0.0
            except RuntimeError:  # exactly singular
                pass
            if self.F is None:
                self._delta = 1e-8 * self.scale
                self.F = factor(self.K + self._delta * self.M, True, self.order)
        return self.F

    def factor_mass(self):
        """The factor of M on the free DOFs (the norm of the certificates): a mesh's by
        its nodal mass (:class:`NodalMassFactor`, a ninth of M's fill for a solid)."""
        if self.MF is None:
            self.MF = NodalMassFactor.of(self.body, self.red.free) if self.mesh else None
        if self.MF is None:  # a band factor for a line body, SuperLU in the body's order otherwise
            self.MF = factor(self.M, True, self.order if self.continuum else None)
        return self.MF

    def matrix(self, frame, include_eps, kg=None, split=False):
        """A(t) = K + sum (WW [+ E])_ij S_ij [+ K_G] over the free DOFs, and whether it is
        symmetric; ``split``: (K + D unformed, whether symmetric, D), D = A - K the motion
        terms (of the order of the mass matrix times the rates: products with them need no
        more than the working precision, section 3.17)."""
        split = _checks.flag("split", split)
        W, E, WW = frame_operators(frame)
        d = self.body.dim
        c = WW[:d, :d] + (E[:d, :d] if include_eps else 0.0)
        symmetric = not (include_eps and np.any(E[:d, :d] != 0.0))
        A = None if split else self.combine(c, 1.0, second=True)
        D = self.combine(c, 0.0, second=True) if split else None
        if split and kg is not None and self.kg_split:
            # K_G is stiff like K (its quadratic form cancels as K's does): K + K_G summed
            # error-free, Dot2 over the high part, the low part with the motion terms
            Khi, Klo, _ = self.stiff_sum(kg)
            D = D + Klo
            return _Sum(Khi, D, abs(Khi)), symmetric, D
        if kg is not None:  # K_G of the coefficients kg: the body's prestress basis or N(x) basis
            if self.kg_matrix is not None:
                G = self.kg_matrix(kg)
            else:
                G = _core.geometric_matrix(body=self.body._body, coefficients=kg)
                G = self.red.matrix(G if self.mesh else self.body._matrix(G))
            A = None if A is None else A + G
            D = None if D is None else D + G
        if split:
            if self._absK is None:
                self._absK = abs(self.K)
            return _Sum(self.K, D, self._absK), symmetric, D
        return A, symmetric

    @property
    def kg_split(self):
        """Whether K_G is summed error-free into K (:meth:`stiff_sum`): a line body of its
        own (not a mesh, a reduced body's given K_G or a body projected onto constraints,
        whose K_G goes with the motion terms)."""
        return not self.mesh and self.kg_matrix is None and hasattr(self.body, "_n_kg")

    def stiff_sum(self, kg):
        """K + sum_k c_k KG_k (:meth:`kg_basis`) as hi + lo, summed error-free (TwoProduct by
        Dekker's split, TwoSum; the core's form_terms in csrc/kf_eigcont.c), on the union of
        their patterns: (hi, lo, |K| + sum |c_k| |KG_k|) as CSR."""
        from . import _eigcert as ec

        sp, _, _ = _scipy()
        n = self.red.n
        mats = [self.K] + [G for G in self.kg_basis()]
        P = None
        for X in mats:
            S = sp.csr_matrix((np.ones(X.nnz), X.indices, X.indptr), shape=(n, n))
            P = S if P is None else P + S
        P.sort_indices()
        hi = self._pattern_values(self.K, P)
        lo = np.zeros_like(hi)
        ab = np.abs(hi)
        for ck, G in zip(np.asarray(kg, dtype=float), mats[1:]):
            if ck == 0.0:
                continue
            g = self._pattern_values(G, P)
            p, pe = ec.two_product(ck, g)
            hi, f = ec._two_sum(hi, p)
            lo = lo + (f + pe)
            ab = ab + np.abs(p)
        def csr(v):
            return sp.csr_matrix((v, P.indices.copy(), P.indptr.copy()), shape=(n, n))

        return csr(hi), csr(lo), csr(ab)

    def at_rest(self, p):
        """The p lowest modes of (K, M): mu (p,), X (n, p), M-normalized, and their
        certificates (p,)."""
        if p not in self.rest:
            mu, X = self.full(self.K, p, True, -self.delta, self.factor_rest())
            mu, X, bound = self.certified(self.K, mu.real, X.real, True, self.factor_rest(),
                                          target=1e-10 * np.abs(mu.real))
            self.rest[p] = (mu, X, bound)
        return self.rest[p]

    def continuation(self, p, ms, geometric):
        """The core's continuation (:class:`_Continuation`) for p basis columns and ms wanted
        pairs, made once and cached; None where it does not apply: a mesh (SuperLU factors),
        a body projected onto constraints or a reduced one (:attr:`kg_split`), a body whose
        factors are not band Cholesky ones, or one with second-order rotation
        invariants (rotary inertia: their centrifugal term is not bounded by M's, so the
        brackets of section 3.17 do not hold)."""
        geometric = _checks.flag("geometric", geometric)
        key = (p, ms, geometric)
        if key not in self._conts:
            ok = not self.mesh and self.kg_split and not self.body.model.get("rotary_inertia")
            F = self.factor_rest() if ok else None
            MF = self.factor_mass() if ok else None
            ok = ok and all(isinstance(X, BandFactor) and X.symmetric for X in (F, MF))
            self._conts[key] = _Continuation(self, p, ms, geometric) if ok else None
        return self._conts[key]

    def pencil_range(self, G, psd=False):
        """(lo, hi) holding every eigenvalue of the pencil (G, K + delta M), G symmetric:
        ARPACK's extreme ones widened by 1 % (and 1e-9 of the larger), each proved by a band
        Cholesky factor of hi K_delta - G and G - lo K_delta (positive definite: Sylvester's
        law of inertia); ``psd``: G is positive semidefinite by construction, lo = 0.
        None when a bound could not be proved (theory 3.17: the K_G brackets)."""
        psd = _checks.flag("psd", psd)
        _, spla, _ = _scipy()
        Kd = (self.K + self.delta * self.M).tocsr() if self.delta else self.K
        F = self.factor_rest()
        n = self.red.n
        Minv = spla.LinearOperator((n, n), matvec=F.solve, dtype=float)
        out = []
        for which in ("SA", "LA"):
            if which == "SA" and psd:
                out.append(0.0)
                continue
            try:
                lam = _arpack(lambda **o: spla.eigsh(G, M=Kd, Minv=Minv, which=which, return_eigenvectors=False,
                                                     **o), n, 1)
            except (spla.ArpackError, spla.ArpackNoConvergence):
                return None
            out.append(float(lam[0]))
        lo, hi = out
        pad = 0.01 * max(abs(lo), abs(hi)) + 1e-9 * max(abs(lo), abs(hi), 1e-300)
        lo, hi = (lo - pad if not psd else 0.0), hi + pad
        for _ in range(4):
            try:
                factor((hi * Kd - G).tocsr(), True)
                if not psd:
                    factor((G - lo * Kd).tocsr(), True)
                return lo, hi
            except RuntimeError:  # not proved: wider
                lo, hi = (lo - 4 * pad if not psd else 0.0), hi + 4 * pad
                pad *= 4
        return None

    def formation(self, frame, include_eps, kg=None):
        """(B, m): B >= |D| elementwise for the plain part D of :meth:`matrix` (split), with
        gamma_m B bounding its formation's rounding too, so that the certificates hold for the
        exact K + sum c_ij (S_ij + R_ij) + sum c_k KG_k (section 3.17): B = sum |c_ij| (|S_ij|
        + |R_ij|) (m counts their products and sums), plus with K_G the stiff sum's low part
        |lo| and its own rounding; None for a mesh (its blocks are combined in the core) and
        with K_G where it is not split (:attr:`kg_split`: K_G's own |G| is then taken from D)."""
        from . import _eigcert as ec

        if self.mesh or (kg is not None and not self.kg_split):
            return None
        sp, _, _ = _scipy()
        W, E, WW = frame_operators(frame)
        d, n = self.body.dim, self.red.n
        c = np.abs(WW[:d, :d] + (E[:d, :d] if include_eps else 0.0))
        if not hasattr(self, "_S"):
            self._shared_pattern()
        data = np.zeros(self._pattern[1].shape[0])
        for (i, j), S in self._S.items():
            data += c[i, j] * np.abs(S)
            if (i, j) in self._R:
                data += c[i, j] * np.abs(self._R[i, j])
        B = sp.csr_matrix((data, self._pattern[1], self._pattern[0]), shape=(n, n))
        m = 2 * d * d + 2
        if kg is not None:
            # the stiff sum's low part, and its own rounding (:meth:`stiff_sum`: 2 nkg error
            # terms summed, each at most u times the sum's absolute value)
            _, lo, ab = self.stiff_sum(kg)
            ns = len(self.kg_basis())
            g = 2 * ns * ec.EPS * (2 * ns * ec.EPS / (1 - 2 * ns * ec.EPS))
            B = B + abs(lo) + g * ab
        return B, m

    def kg_basis(self):
        """K_G's basis matrices on the free DOFs (K_G = sum_k c_k KG_k, kf_body_geometric),
        made once: a line body's (the straight body's N(x) basis or the prestress cases of
        the supports its core basis was last made for)."""
        if getattr(self, "_kg_basis", None) is None:
            nkg = self.body._n_kg()
            basis = []
            for k in range(nkg):
                e = np.zeros(nkg)
                e[k] = 1.0
                G = self.red.matrix(self.body._matrix(_core.geometric_matrix(body=self.body._body, coefficients=e)))
                G.eliminate_zeros()
                basis.append(G)
            self._kg_basis = basis
        return self._kg_basis

    def certified(self, A, theta, X, symmetric, F, steps=1, count=None, target=None, D=None, Dabs=None):
        """Refine real Ritz pairs (theta, X) of (A, M) by inverse iteration in
        double-double with the factor F, and bound each eigenvalue's error (section 3.17).
        Returns (theta, X M-normalized, bounds); the bounds of complex pairs are
        first-order ones through their left Ritz vectors.  ``count``: only the first
        count pairs are refined and bounded (the wanted ones and the neighbour above,
        which Kato-Temple needs); the others are returned as given, bound inf.
        ``target``: bounds (of the first pairs) that need no comparison with the given
        pairs' own certificates.  ``D``: A = K + D, products with K in twice the precision,
        with D (the motion terms) in the working one; ``Dabs``: :meth:`formation`'s bound of
        D and of its rounding."""
        from . import _eigcert as ec

        q = X.shape[1]
        if count is not None and count < q and not (np.iscomplexobj(X) or np.iscomplexobj(theta)):
            th, U, bd = self.certified(A, np.asarray(theta)[:count], X[:, :count], symmetric, F, steps,
                                       target=target, D=D, Dabs=Dabs)
            rest = X[:, count:] / np.sqrt(np.einsum("ik,ik->k", X[:, count:], self.M @ X[:, count:]))
            return (np.concatenate([th, np.asarray(theta)[count:]]), np.column_stack([U, rest]),
                    np.concatenate([bd, np.full(q - count, np.inf)]))

        PA = ec.Compensated(A) if D is None else ec.Compensated(A.K if isinstance(A, _Sum) else self.K,
                                                                 plain_part=D, plain_abs=Dabs)
        MF = self.factor_mass()
        if np.iscomplexobj(X) or np.iscomplexobj(theta):
            theta = np.asarray(theta, dtype=complex)
            th_r, _, Y = ec.rayleigh_ritz(PA, self.M, np.column_stack([np.real(X), np.imag(X)]), False)
            idx = [int(np.argmin(np.abs(th_r - t))) for t in theta]
            Y = Y[:, idx] if np.iscomplexobj(Y) else None
            th, bound = ec.certify(PA, self.PM, MF, theta, np.asarray(X, dtype=complex), Y, False)
            return th, X, bound
        Y = None
        if not symmetric:
            th_r, _, Y = ec.rayleigh_ritz(PA, self.M, X, False)
            Y = None if np.iscomplexobj(th_r) else Y[:, [int(np.argmin(np.abs(th_r - t))) for t in theta]]
        U, theta, products, first = ec.inverse_refine(PA, self.PM, F, X, theta, steps, Y)
        theta, bound = ec.certify(PA, self.PM, MF, theta, U, Y, symmetric, products=products)
        X = U[0] + U[1]
        if steps and (target is None or np.any(bound[:len(target)] > target)):
            # per column the smaller certificate of the refined and the given pair: where
            # cond(F) eps nears one (a 1e4-element beam) the refinement is no refinement
            th0, bound0 = ec.certify(PA, self.PM, MF, first[1], first[0], Y, symmetric, products=first[2])
            keep = bound0 < bound
            if keep.any():
                theta, bound, X = theta.copy(), bound.copy(), X.copy()
                theta[keep], bound[keep], X[:, keep] = th0[keep], bound0[keep], first[0][0][:, keep]
        X = X / np.sqrt(np.einsum("ik,ik->k", X, self.M @ X))
        return theta, X, bound

    def full(self, A, k, symmetric, sigma, F=None, v0=None, definite=True):
        """The k eigenvalues of (A, M) nearest above sigma by ARPACK in shift-invert mode
        (sigma below the spectrum: the lowest ones), sorted by real part."""
        definite = _checks.flag("definite", definite)
        _, spla, _ = _scipy()
        n = self.red.n
        if isinstance(A, _Sum):
            A = A.formed()
        if F is None:
            S = A - sigma * self.M
            try:  # Cholesky where sigma lies below the spectrum (a band factor proves it)
                F = factor(S, symmetric and definite, self.order)
            except RuntimeError:
                if not (symmetric and definite):
                    raise
                F = factor(S, False, self.order)  # not definite after all: a general LU
        op = spla.LinearOperator((n, n), matvec=F.solve, dtype=float)
        if n <= k + 1 or (not symmetric and n <= k + 2):
            raise ValueError(f"n_modes = {k} is too many for {n} free DOFs with the sparse solver "
                             "(use solver='dense')")
        if symmetric:
            lam, X = _arpack(lambda **o: spla.eigsh(A, M=self.M, sigma=sigma, which="LM", OPinv=op, **o), n, k, v0)
        else:
            kk = min(k + 1, n - 2)  # one more, so a complex pair is not cut
            lam, X = _arpack(lambda **o: spla.eigs(A, M=self.M, sigma=sigma, which="LM", OPinv=op, **o), n, kk, v0)
        order = np.lexsort((lam.imag, lam.real))[:k]
        self.last_factor = F
        return lam[order], X[:, order]

    def continue_from(self, A, X, m, symmetric, bracket):
        """Block Rayleigh-Ritz from the basis X, expanded by preconditioned residuals
        F^-1 R with F the factor at rest (a Davidson step).  Returns (theta, U, iterations)
        once the m lowest Ritz pairs have relative residuals below TOL (or the rounding
        floor of a double vector, 8 eps || |A| |u| || / (|theta| ||M u||)) and lie in the
        brackets, else None."""
        _, _, la = _scipy()
        F = self.factor_rest()
        M = self.M
        p = X.shape[1]
        Q = _m_orthonormal(X, M)
        lo, hi, scale = bracket
        absA = None
        for it in range(1, self.MAXIT + 1):
            AQ, MQ = A @ Q, M @ Q
            H = Q.T @ AQ
            if symmetric:
                theta, Z = np.linalg.eigh(0.5 * (H + H.T))
            else:
                theta, Z = la.eig(H)
                order = np.lexsort((theta.imag, theta.real))
                theta, Z = theta[order], Z[:, order]
                if np.any(np.abs(theta[:m].imag) > 0.0):
                    return None  # a complex pair: the full solver decides
                theta, Z = theta.real, Z.real
            Z = Z[:, :p]
            U, MU = Q @ Z, MQ @ Z  # A U = (A Q) Z: no product with A again
            th = theta[:p]
            R = AQ @ Z - MU * th
            norm_mu = (np.abs(th) + scale) * np.linalg.norm(MU, axis=0)
            res = np.linalg.norm(R, axis=0) / norm_mu
            ok = np.all(res[:m] <= self.TOL)
            if not ok:  # the rounding floor of a double vector
                absA = abs(A) if absA is None else absA
                floor = 8 * np.finfo(float).eps * np.linalg.norm(absA @ np.abs(U[:, :m]), axis=0) / norm_mu[:m]
                ok = np.all(res[:m] <= floor)
            if ok:
                if np.all(th[:m] >= lo - scale * 1e-9) and np.all(th[:m] <= hi + scale * 1e-9):
                    return th, U, it
                return None
            # U is M-orthonormal when symmetric (Q is, Z orthogonal)
            Q = _m_extend(U if symmetric else _m_orthonormal(U, M), F.solve(R), M)
        return None


def _instant(ctx, f, X, m, ms, p, w2, e_norm, skew, include_eps, stats, kg=None, one=False):
    """The ms lowest eigenpairs at one frame: (theta, imag, U, bounds, the next
    continuation basis X).  The planar shift if it applies, else certified continuation
    from X (the modes at rest when None), else ARPACK (sections 3.12, 3.17); a single
    instant (``one``) goes to ARPACK straight away: the modes at rest would cost a solve
    of their own."""
    imag = np.zeros(ms)
    count = min(ms + 1, p)
    if (w2 == 0.0 or ctx.exact_shift) and not skew and kg is None:
        # sum WW_ij S_ij = -w^2 M exactly: every eigenvalue shifts, no shape changes
        mu, Xr, rest_bound = ctx.at_rest(p)
        stats["shifted"] += 1
        return mu[:ms] - w2, imag, Xr[:, :ms], rest_bound[:ms] + np.finfo(float).eps * np.abs(mu[:ms]), X
    A, symmetric, D = ctx.matrix(f, include_eps, kg, split=True)
    Dabs = ctx.formation(f, include_eps, kg)
    got = None
    if not one and kg is None:
        mu = ctx.at_rest(p)[0]
        X = ctx.at_rest(p)[1] if X is None else X
        # brackets of the ms lowest eigenvalues: [mu_k - |w|^2 - |e|, mu_k + |e|] (without K_G)
        lo, hi = mu[0] - w2 - e_norm, mu[ms - 1] + e_norm
        scale = abs(mu[p - 1]) + w2 + e_norm
        if ms < p and mu[ms] - w2 - e_norm > hi:
            got = ctx.continue_from(A, X, ms, symmetric, (lo, hi, scale))
    if got is not None:
        theta, U, its = got
        # certified as it is, refined in twice the precision only where the certificate
        # asks (section 3.17): a continued pair's plain residual often certifies it
        target = ctx.CERT_TOL * (np.abs(theta[:ms]) + w2 + e_norm + 100 * ctx.delta)
        # as is first while that served the instant before (a stiff body's plain residual
        # rarely certifies: then straight to the refinement)
        for steps in (0, 1) if stats["refined"] * 2 <= stats["continued"] else (1,):
            th, Ur, bound = ctx.certified(A, theta, U, symmetric, ctx.factor_rest(), steps=steps, count=count,
                                          target=target, D=D, Dabs=Dabs)
            if np.all(bound[:ms] <= target):
                stats["continued"] += 1
                stats["iterations"] += its
                stats["refined"] += steps > 0
                return th[:ms], imag, Ur[:, :ms], bound[:ms], Ur
    # with K_G (indefinite) sigma need not lie below the spectrum: a general LU, and
    # ARPACK's nearest eigenvalues to sigma are still the lowest ones
    lam, V = ctx.full(A, p, symmetric, -(w2 + e_norm + ctx.delta), definite=kg is None)
    stats["full_solves"] += 1
    if np.all(lam.imag == 0.0):
        # the given pairs' own certificates are compared only where the refined ones are not
        # already at the refinement's usual level (1e-10 relative: a 1e4-element beam's are not)
        theta, U, bound = ctx.certified(A, lam.real, V.real, symmetric, ctx.last_factor, count=count, D=D, Dabs=Dabs,
                                        target=1e-10 * np.abs(lam.real[:ms]))
        return theta[:ms], imag, U[:, :ms], bound[:ms], U
    # a complex pair: its two columns are the real and imaginary parts of its vector
    _, _, bound = ctx.certified(A, lam, V, symmetric, ctx.last_factor, D=D, Dabs=Dabs)
    U = np.column_stack([V[:, k].real if lam[k].imag >= 0 else V[:, k].imag for k in range(ms)])
    return lam.real[:ms], lam.imag[:ms], U, bound[:ms], X


class _Continuation:
    """The core's continuation over a time grid (``kf_eigcont``, csrc/kf_eigcont.c;
    docs/theory.md section 3.17) for a line body's symmetric instants: K, M, M's band
    factor and the motion terms' basis (the centrifugal S_ij and K_G's basis when asked)
    handed over once; per instant their coefficients and a lower bound of the
    (ms+1)-th eigenvalue (:meth:`lower`), whose Weyl brackets prove the continued pairs the
    lowest.  One run at a time (the context holds its workspace)."""

    def __init__(self, ctx, p, ms, geometric):
        import threading

        sp, _, _ = _scipy()
        d, n = ctx.body.dim, ctx.red.n
        if not hasattr(ctx, "_S"):
            ctx._shared_pattern()
        # the stored invariants themselves (the certified matrix is K + sum WW_ij S_ij +
        # sum c_k KG_k exactly, its formation's rounding bounded in the core), each on its
        # own copy of the shared pattern (eliminate_zeros works in place)
        self.pairs = [(i, j) for i in range(d) for j in range(d)]
        terms = [sp.csr_matrix((ctx._S[i, j].copy(), ctx._pattern[1].copy(), ctx._pattern[0].copy()),
                               shape=(n, n)) for i, j in self.pairs]
        self.nkg = 0
        if geometric:
            kgb = ctx.kg_basis()
            self.nkg = len(kgb)
            terms += [G.copy() for G in kgb]
        P = None
        for T in terms:
            T.sum_duplicates()
            T.eliminate_zeros()
            S = sp.csr_matrix((np.ones(T.nnz), T.indices, T.indptr), shape=(n, n))
            P = S if P is None else P + S
        P.sort_indices()
        values = np.array([SparseEigen._pattern_values(T, P) for T in terms]).reshape(len(terms), P.nnz)
        self.kg_terms = terms[len(self.pairs):]
        M, K, MF = ctx.M, ctx.K, ctx.factor_mass()
        self.cap = _core.eigcont_create(K=(K.indptr, K.indices, K.data), M=(M.indptr, M.indices, M.data),
                                        P=(P.indptr, P.indices), terms=values, mf=MF.c, p=p, ms=ms,
                                        nstiff=self.nkg)
        _core.eigcont_set(self.cap, factor=ctx.factor_rest().c)
        self.ctx, self.p, self.ms = ctx, p, ms
        self.lock = threading.Lock()
        self._kg_range = None

    def coefficients(self, frames, kg):
        """(nt, nterm): W W_ij of each pair, then the K_G coefficients."""
        d = self.ctx.body.dim
        om = np.asarray(frames["omega"], dtype=float)
        WW = om[:, :, None] * om[:, None, :] - np.einsum("ti,ti->t", om, om)[:, None, None] * np.eye(3)
        cols = [WW[:, i, j] for i, j in self.pairs]
        if self.nkg:
            cols += list(np.asarray(kg, dtype=float).T)
        return np.column_stack(cols) if cols else np.zeros((frames.shape[0], 0))

    def lower(self, frames, kg):
        """A lower bound of lambda_{ms+1} at each instant (section 3.17): Weyl from rest,
        D = sum WW_ij S_ij between -|w|^2 M and 0, and K_G between g K_delta and its upper
        bound, K_delta = K + delta M, g <= 0 from the K_G basis's proven pencil ranges
        (:meth:`kg_lower`): lambda_k >= (1 + g)(mu_k + delta) - delta - |w|^2 for 1 + g > 0,
        mu_k the k-th eigenvalue at rest less its certificate.  -inf where unknown."""
        ctx = self.ctx
        mu, _, bound = ctx.at_rest(self.p)
        om = np.asarray(frames["omega"], dtype=float)
        w2 = np.einsum("ti,ti->t", om, om)
        g = np.zeros(frames.shape[0]) if not self.nkg else self.kg_lower(kg)
        s = 1.0 + g
        low = (mu[self.ms] - bound[self.ms] + ctx.delta) * s - ctx.delta - w2
        with np.errstate(invalid="ignore"):
            return np.where((s > 0.0) & np.isfinite(low), low, -np.finfo(float).max)

    def kg_lower(self, kg):
        """g(t) <= min x^T K_G(t) x / x^T K_delta x.  A straight line body's K_G is
        int N(x) G^T G with N = c0 + c1 x + c2 x^2: between N_min and N_max times the unit
        case's (positive semidefinite), so g = min(N_min, 0) beta with beta the largest
        eigenvalue of (KG(N = 1), K_delta); any other body's is sum_k c_k KG_k over its
        prestress cases: g = sum_k min(c_k lo_k, c_k hi_k) with [lo_k, hi_k] each case's
        proven range.  -inf where a range could not be proven."""
        kg = np.asarray(kg, dtype=float)
        ctx = self.ctx
        if self._kg_range is None:
            if ctx.body._straight_kg():
                x = np.asarray(ctx.body.nodes, dtype=float)[:, 0]
                self._kg_range = ("straight", (x.min(), x.max()), ctx.pencil_range(self.kg_terms[0], psd=True))
            else:
                self._kg_range = ("cases", None, [ctx.pencil_range(G) for G in self.kg_terms])
        kind, span, ranges = self._kg_range
        if kind == "straight":
            if ranges is None:
                return np.full(kg.shape[0], -np.inf)
            (xa, xb), (c0, c1, c2) = span, kg.T
            ends = np.minimum(c0 + c1 * xa + c2 * xa**2, c0 + c1 * xb + c2 * xb**2)
            with np.errstate(divide="ignore", invalid="ignore"):
                xv = np.where(c2 > 0.0, -c1 / (2.0 * c2), xa)
            inside = (c2 > 0.0) & (xv > xa) & (xv < xb)
            nmin = np.where(inside, np.minimum(ends, c0 + c1 * xv + c2 * xv**2), ends)
            return np.minimum(nmin, 0.0) * ranges[1]
        if any(r is None for r in ranges):
            return np.full(kg.shape[0], -np.inf)
        lo = np.array([r[0] for r in ranges])
        hi = np.array([r[1] for r in ranges])
        return np.minimum(kg * lo, kg * hi).sum(axis=1)

    def begin(self):
        """A call's first run starts from the factor at rest (the same answers whatever the
        context ran before)."""
        _core.eigcont_set(self.cap, factor=self.ctx.factor_rest().c)
        self.fresh = True

    def restart(self, X, F):
        """Continue from a full solve's basis X (n x p) and, if it is a band Cholesky
        factor, its factor F of A - sigma M (a shift near the instant's spectrum)."""
        _core.eigcont_set(self.cap, basis=np.ascontiguousarray(X[:, :self.p]),
                          factor=F.c if isinstance(F, BandFactor) and F.symmetric else None)
        self.fresh = False

    def solve(self, t0, t1, frames, kg, X, w2s, e_norms, want_vectors, stats, progress, finish):
        """Instants t0 .. t1 - 1 by the core, each handed to finish(t, theta, imag, U, bounds);
        returns how many were done (the run stops at an instant it cannot certify)."""
        ctx = self.ctx
        if X is not None or self.fresh:
            _core.eigcont_set(self.cap, basis=np.ascontiguousarray(ctx.at_rest(self.p)[1] if X is None else X))
            self.fresh = False
        fr = frames[t0:t1]
        k = None if kg is None else np.asarray(kg)[t0:t1]
        scale = w2s[t0:t1] + e_norms[t0:t1] + 100.0 * ctx.delta
        keys = ("continued", "repeated", "iterations", "refined", "refactored")

        with self.lock:
            r = _core.eigcont_run(self.cap, self.coefficients(fr, k), self.lower(fr, k), scale, SparseEigen.CERT_TOL,
                                  bool(want_vectors), tuple(stats.get(key, 0) for key in keys), None)
        stats.update(zip(keys, r["stats"]))
        imag = np.zeros(self.ms)
        for t in range(r["done"]):
            finish(t0 + t, r["theta"][t], imag, None if r["vectors"] is None else r["vectors"][t], r["bounds"][t])
        return r["done"]


def eigen_solve(ctx, frames, n_modes, include_eps, vectors, tracked, progress=None, kg=None):
    """Eigenvalues at each frame (sections 3.12, 3.17): the exact shift for in-plane
    spin of a plane body, certified continuation from the previous instant (a line body's
    symmetric instants in the core, ``kf_eigcont``), ARPACK as the safeguard (a single
    instant: ARPACK straight away); every eigenvalue bounded, refined in twice the
    precision where its certificate asks (always after ARPACK).  Returns the arrays and
    stats of an EigenResult (stats["error_bounds"]: (nt, n_modes); stats["refined"]:
    continued instants that needed the refinement)."""
    red = ctx.red
    nt = frames.shape[0]
    m = n_modes
    # the subspace: the wanted modes and one above (Kato-Temple's neighbour) at a single
    # instant; over a time grid GUARD more, whose brackets certify the continuation
    p = min(m + (1 if nt == 1 else ctx.GUARD), red.n - 2)
    if p < m + 1:
        raise ValueError(f"n_modes = {m} is too many for {red.n} free DOFs with the sparse solver "
                         "(use solver='dense')")
    ms = min(m + 2, p) if tracked else m
    lam_re = np.zeros((nt, m))
    lam_im = np.zeros((nt, m))
    bounds = np.zeros((nt, m))
    shapes = np.zeros((nt, red.ndof, m)) if vectors else None
    stats = {"full_solves": 0, "continued": 0, "iterations": 0, "shifted": 0, "repeated": 0, "refined": 0}
    general = False
    X = None
    prev = None
    dim = ctx.body.dim
    last = None  # the previous instant's rates and processed (theta, imag, U, bound)
    om = np.asarray(frames["omega"], dtype=float)
    w2s = np.einsum("ti,ti->t", om, om)
    e_norms = np.linalg.norm(np.asarray(frames["eps"], dtype=float), axis=1) if include_eps else np.zeros(nt)
    skews = np.zeros(nt, dtype=bool)
    if include_eps:
        ev = np.asarray(frames["eps"], dtype=float)
        skews = np.any(ev[:, 2:] != 0.0, axis=1) if dim == 2 else np.any(ev != 0.0, axis=1)
    general = bool(skews.any())
    # the core's continuation: a line body's symmetric instants that are not an exact shift
    cont = ctx.continuation(p, ms, kg is not None) if nt > 1 else None
    core = np.zeros(nt, dtype=bool)
    if cont is not None:
        cont.begin()
        shift = (w2s == 0.0) | ctx.exact_shift if kg is None else np.zeros(nt, dtype=bool)
        core = ~skews & ~shift

    def finish(t, theta, imag, U, bd):
        """Order (tracked), signs and normalization of one instant's pairs; store them."""
        nonlocal prev
        if U is not None:
            U = np.array(U, dtype=float)
            if np.all(imag == 0.0):
                U = U / np.sqrt(np.einsum("ik,ik->k", U, ctx.M @ U))
            order = np.arange(ms)
            if tracked and prev is not None:
                order = _track(prev, U, ctx.M)
            theta, imag, U, bd = np.asarray(theta)[order], imag[order], U[:, order], np.asarray(bd)[order]
            if tracked and prev is not None:
                sg = np.sign(np.einsum("ik,ik->k", prev, ctx.M @ U[:, :m]))
                U[:, :m] = U[:, :m] * np.where(sg == 0, 1.0, sg)
            else:
                U = _sign_rule(U)
            prev = U[:, :m] if tracked else None
        lam_re[t] = np.real(theta[:m])
        lam_im[t] = imag[:m]
        bounds[t] = bd[:m]
        if vectors:
            shapes[t] = red.scatter(U[:, :m])
        if progress is not None:
            progress(t)
        return theta, imag, U, bd

    t = 0
    while t < nt:
        f = frames[t]
        kt = None if kg is None else kg[t]
        key = np.concatenate([f["omega"], f["eps"], [] if kt is None else kt]).tobytes()
        if last is not None and last[0] == key:
            # the same rates as the previous instant (a constant speed): the same modes
            theta, imag, U, bd = last[1]
            stats["repeated"] += 1
            lam_re[t], lam_im[t], bounds[t] = np.real(theta[:m]), imag[:m], bd[:m]
            if vectors:
                shapes[t] = red.scatter(U[:, :m])
            t += 1
            continue
        if core[t]:
            end = t + int(np.argmin(core[t:])) if not core[t:].all() else nt
            done = cont.solve(t, end, frames, kg, X, w2s, e_norms, vectors or tracked, stats, progress,
                              finish)
            t += done
            last = None
            X = None  # the core keeps its basis
            if t == end:
                continue
            # the core could not certify instant t: ARPACK, and the core continues from it
            theta, imag, U, bd, X = _instant(ctx, frames[t], None, m, ms, p, w2s[t], e_norms[t], False,
                                             include_eps, stats, None if kg is None else kg[t], one=True)
            cont.restart(X, ctx.last_factor)
        else:
            theta, imag, U, bd, X = _instant(ctx, f, X, m, ms, p, w2s[t], e_norms[t], bool(skews[t]), include_eps,
                                             stats, kt, one=nt == 1)
        theta, imag, U, bd = finish(t, theta, imag, U, bd)
        last = (key, (theta, imag, U, bd))
        t += 1
    stats["solver"] = "general" if general else "symmetric"
    stats["error_bounds"] = bounds
    return lam_re, lam_im, shapes, stats


# ---------------------------------------------------------------- gyroscopic, damped


def _small_qep(Mp, Cp, Kp):
    """All eigenvalues s of the small dense (s^2 Mp + s Cp + Kp) x = 0 by the first-order
    form (dense QZ), with right vectors."""
    _, _, la = _scipy()
    q = Mp.shape[0]
    # Fan-Lin-Van Dooren scaling s = g mu, g = sqrt(||K|| / ||M||): the three coefficient
    # matrices of similar norm, else QZ's backward error eps ||K|| swamps |s|^2 ||M||
    nk, nm, nc = (np.linalg.norm(X, 1) for X in (Kp, Mp, Cp))
    g = math.sqrt(nk / nm) if nk > 0 and nm > 0 else 1.0
    d = max(nk, g * nc, g * g * nm) or 1.0
    Z, I = np.zeros((q, q)), np.eye(q)
    mu, V = la.eig(np.block([[Z, I], [-Kp / d, -(g / d) * Cp]]), np.block([[I, Z], [Z, (g * g / d) * Mp]]))
    ok = np.isfinite(mu)
    return g * mu[ok], V[:q, ok]


def _pick(s, p):
    """Indices of the p eigenvalues with Im s >= 0 (a real one counts once) of smallest
    |s|, ties by Re s (section 3.10's order)."""
    tol = 1e-12 * (np.abs(s).max() if s.size else 1.0)
    up = np.flatnonzero(s.imag >= -tol)
    order = np.lexsort((s[up].real, np.round(np.abs(s[up]), 12)))
    return up[order[:p]]


class Quadratic:
    """s^2 M + s C + K_eff at one instant on the free DOFs, with C = 2 sum W_ij S_ij + D
    (D = alpha M + beta K, Rayleigh damping) (section 3.17).  K_eff = K + D_m is kept as
    its stiff part K (with K_G's high part where it is summed error-free) and the motion
    terms D_m, never rounded into one matrix for the residuals: P(s) x = (1 + beta s) K x
    + D_m x + s (2 W S + alpha M) x + s^2 M x, K x in twice the precision (Dot2)."""

    def __init__(self, ctx, frame, include_eps, rayleigh, kg=None):
        from . import _eigcert as ec

        W, _, _ = frame_operators(frame)
        d = ctx.body.dim
        self.ctx = ctx
        A, self.symmetric, self.D = ctx.matrix(frame, include_eps, kg, split=True)
        self.K0 = A.K  # the stiff part: ctx.K, or K + K_G's high part
        self.Dabs = ctx.formation(frame, include_eps, kg)
        if self.Dabs is None:
            self.Dabs = (abs(self.D), 0)
        self.alpha, self.beta = rayleigh
        self.G = ctx.combine(2.0 * W[:d, :d], 0.0)
        if self.alpha:
            self.G = self.G + self.alpha * ctx.M
        # beta K x = beta K0 x - beta (K0 - K) x: the second (K_G's high part) in double
        self.dK = None if self.K0 is ctx.K or not self.beta else (self.K0 - ctx.K).tocsr()
        if getattr(ctx, "_PK0", None) is None or ctx._PK0[0] is not self.K0:
            ctx._PK0 = (self.K0, ec.Compensated(self.K0))
        self.PK = ctx._PK0[1]
        self.M = ctx.M
        self._K = self._C = self._abs = self._H = None

    @property
    def K(self):
        """K_eff rounded to one matrix (the factors, ARPACK and the dense QZ)."""
        if self._K is None:
            self._K = (self.K0 + self.D).tocsr()
        return self._K

    @property
    def C(self):
        if self._C is None:
            self._C = self.G + self.beta * self.ctx.K if self.beta else self.G
        return self._C

    def products(self, X, bound=True):
        """(K0 X, D X, G X, M X, their error bounds) for X complex, a pair (hi, lo) or an
        array; ``bound`` False: no bounds (None; an intermediate product nobody certifies)."""
        from . import _eigcert as ec

        pair = isinstance(X, tuple)
        x = X[0] + X[1] if pair else X
        if bound:
            K0X, eK = ec.accurate(self.PK, X)
        else:
            Xh, Xl = X if pair else (X, None)
            re = self.PK.product(np.ascontiguousarray(Xh.real), None if Xl is None else Xl.real, bound=False)[0]
            im = self.PK.product(np.ascontiguousarray(Xh.imag), None if Xl is None else Xl.imag, bound=False)[0]
            K0X = re + 1j * im
        n = x.shape[0]
        Y = _rmul(self._stacked(), x)
        DX, GX, MX = Y[:n], Y[n:2 * n], Y[2 * n:]
        if not bound:
            return K0X, DX, GX, MX, None
        ax = np.abs(X[0]) + np.abs(X[1]) if pair else np.abs(X)
        if self._abs is None:
            B, mD = self.Dabs
            g = lambda L: L * ec.EPS / (1 - L * ec.EPS)
            LD = int(np.diff(self.D.indptr).max()) + mD + 2
            LG = int(np.diff(self.G.indptr).max()) + 2
            LM = self.ctx.PM.L
            # |D|, |G| (+ |beta| |K0 - K|) and |M| scaled by their products' gamma
            EG = g(LG) * abs(self.G)
            if self.dK is not None:
                EG = EG + abs(self.beta) * g(int(np.diff(self.dK.indptr).max()) + 2) * abs(self.dK)
            self._abs = (g(LD) * B, EG, 2 * LM * ec.EPS * self.ctx.PM.absA)
        BD, BG, BM = self._abs
        return K0X, DX, GX, MX, (eK, BD @ ax, BG @ ax, BM @ ax)

    def _stacked(self):
        """D, G (- beta (K0 - K), moved into G's part) and M stacked: one product for three."""
        if self._H is None:
            sp, _, _ = _scipy()
            G = self.G if self.dK is None else self.G - self.beta * self.dK
            self._H = sp.vstack([self.D, G, self.M], format="csr")
        return self._H

    def on_basis(self, V, s, c):
        """(P(s) V c, P'(s) V c, M V c) from the products of :meth:`project` (V c complex
        (nv, k)): V is exact, its products rounded once (K V by Dot2)."""
        V0, K0V, DV, GV, MV = self._VP
        if V0 is not V:
            raise ValueError("on_basis needs the basis of the last projection")
        K, D, G, M = (_rmul_dense(X, c) for X in (K0V, DV, GV, MV))
        return (1.0 + self.beta * s) * K + D + s * G + s**2 * M, 2 * s * M + G + self.beta * K, M

    def residual(self, s, X, prods=None, bound=True):
        """P(s) X per column (X complex (n, k) or a pair), accurate, a bound on its rounding
        (None if not ``bound``), and P'(s) X = 2 s M X + C X."""
        from . import _eigcert as ec

        K0X, DX, GX, MX, e = self.products(X, bound) if prods is None else prods
        a = 1.0 + self.beta * s
        t1, t3, t4 = K0X * a, GX * s, MX * s**2
        R = t1 + DX + t3 + t4
        dP = 2 * s * MX + GX + self.beta * K0X
        if e is None:
            return R, None, dP
        eK, eD, eG, eM = e
        err = (np.abs(a) * eK + eD + np.abs(s) * eG + np.abs(s) ** 2 * eM
               + 8 * ec.EPS * (np.abs(t1) + np.abs(DX) + np.abs(t3) + np.abs(t4)))
        return R, err, dP

    def project(self, V):
        """Ritz values and vectors of the QEP on span(V) (V real); the products with V are
        kept for :meth:`on_basis`."""
        n = V.shape[0]
        K0V, _ = self.PK.product(V, bound=False)
        HV = self._stacked() @ V
        DV, GV, MV = HV[:n], HV[n:2 * n], HV[2 * n:]
        VK = V.T @ K0V
        Kp = VK + V.T @ DV
        Cp = V.T @ GV + self.beta * VK
        Mp = V.T @ MV
        self._VP = (V, K0V, DV, GV, MV)
        s, Z = _small_qep(Mp, Cp, Kp)
        return s, Z, (Mp, Cp, Kp)

    def full(self, p, sigma):
        """The p eigenvalues (Im s >= 0) nearest the real shift sigma (below the lowest
        |s|) by ARPACK on the first-order form, shift-inverted through the factor of
        P(sigma) = sigma^2 M + sigma C + K (n x n)."""
        _, spla, _ = _scipy()
        n = self.M.shape[0]
        F = Factor((self.K + sigma * self.C + sigma**2 * self.M).tocsc(),
                   symmetric=self.symmetric and sigma == 0.0)
        CM = self.C + sigma * self.M
        M = self.M

        def op(v):
            v1, v2 = v[:n], v[n:]
            x = -F.solve(M @ v2 + CM @ v1)
            return np.concatenate([x, v1 + sigma * x])

        k = min(2 * p + 2, 2 * n - 2)
        A = spla.LinearOperator((2 * n, 2 * n), matvec=op, dtype=float)
        nu, Z = _arpack(lambda **o: spla.eigs(A, which="LM", **o), 2 * n, k)
        s = sigma + 1.0 / nu
        idx = _pick(s, p)
        return s[idx], Z[:n, idx], F


def _basis(X, M):
    """A real M-orthonormal basis of the span of complex vectors' real and imaginary parts."""
    return _m_orthonormal(np.column_stack([X.real, X.imag]), M, drop=1e-10)


#: relative residual ||P(s)x|| / (|s|^2 ||Mx||) of an accepted continued pair, or
#: QFLOOR times its computed rounding bound where that is larger; the refinement rounds
#: (qep_refine) and the Davidson steps tried before ARPACK
QTOL = 1e-7
QFLOOR = 10.0
QROUNDS = 4
QTOL_STEPS = 10


def _rmul(A, X):
    """A X for a real sparse A and complex X (the real and imaginary parts as real
    columns: SciPy would convert A's values to complex at every product)."""
    k = X.shape[1]
    Y = A @ np.column_stack([X.real, X.imag])
    return Y[:, :k] + 1j * Y[:, k:]


def _rmul_dense(A, c):
    """A c for a real dense A and complex c."""
    return A @ c.real + 1j * (A @ c.imag)


def _csolve(F, R):
    """F^-1 R for a real factor F and complex R."""
    Z = F.solve(np.column_stack([R.real, R.imag]))
    k = R.shape[1]
    return Z[:, :k] + 1j * Z[:, k:]


def _left_vectors(proj, V, s):
    """The left Ritz vectors y = V u, u^H P_V(s) = 0 (the projection's left null vectors)."""
    Mp, Cp, Kp = proj
    Y = np.empty((V.shape[0], s.shape[0]), dtype=complex)
    for k in range(s.shape[0]):
        u, _, _ = np.linalg.svd(Kp + s[k] * Cp + s[k] ** 2 * Mp)
        Y[:, k] = V @ u[:, -1]
    return Y


def qep_refine(q, s, X, Y, F, V, proj, rounds=QROUNDS):
    """Refine the pairs (s, X) in double-double (section 3.17): one step of residual
    inverse iteration x <- x - F^-1 P(s) x with P(s) x accurate (F real, a factor of
    P(sigma)), which removes a double vector's rounding noise in the stiff directions
    (there F ~ P(s)); then a Newton step for the error left in span(V) (the low modes,
    where F is no inverse of P(s)): c, ds from V^T (P(s) x + P(s) V c + ds P'(s) x) = 0,
    z^H c = 0 (z the Ritz coordinates), x <- x + V c, s <- s + ds.  Returns (s, (hi, lo),
    bounds, relative residuals, relative rounding floors): the first-order bounds
    ||y|| (||P(s) x|| + its rounding) / |y^H P'(s) x| of the refined pairs, y the left
    Ritz vectors."""
    from . import _eigcert as ec

    Mp, Cp, Kp = proj
    k = s.shape[0]
    nv = V.shape[1]
    Xh = np.array(X, dtype=complex)
    Xl = np.zeros_like(Xh)
    R, _, dP = q.residual(s, Xh, bound=False)
    for r in range(rounds):
        Xh, Xl = ec.dd_sub((Xh, Xl), _csolve(F, R))
        K0X, DX, GX, MX, _ = prods = q.products((Xh, Xl), bound=False)
        R, _, dP = q.residual(s, (Xh, Xl), prods)
        Z = V.T @ (Xh + Xl)
        VR, VdP = V.T @ R, V.T @ dP
        C = np.empty((nv, k), dtype=complex)
        ds = np.empty(k, dtype=complex)
        for j in range(k):
            A = np.zeros((nv + 1, nv + 1), dtype=complex)
            A[:nv, :nv] = Kp + s[j] * Cp + s[j] ** 2 * Mp
            A[:nv, nv] = VdP[:, j]
            A[nv, :nv] = Z[:, j].conj()
            sol = np.linalg.solve(A, -np.concatenate([VR[:, j], [0.0]]))
            C[:, j], ds[j] = sol[:nv], sol[nv]
        Xh, Xl = ec.dd_sub((Xh, Xl), -(V @ C))
        # P(s + ds)(x + V c) = P(s) x + P(s) V c + ds P'(s)(x + V c) + ds^2 M (x + V c),
        # exactly: the next step's residual without a product of its own
        PVc, dPVc, MVc = q.on_basis(V, s, C)
        MX = MX + MVc
        R = R + PVc + ds * (dP + dPVc) + ds**2 * MX
        dP = dP + dPVc + 2 * ds * MX
        s = s + ds
        scale = np.abs(s) ** 2 * np.linalg.norm(MX, axis=0) + 1e-300
        if r + 1 < rounds and np.any(np.linalg.norm(R, axis=0) > QTOL * scale):
            continue
        # the certificate: the residual formed accurately, with its rounding bound
        prods = q.products((Xh, Xl))
        R, err, dP = q.residual(s, (Xh, Xl), prods)
        scale = np.abs(s) ** 2 * np.linalg.norm(prods[3], axis=0) + 1e-300
        nr, ne = np.linalg.norm(R, axis=0), np.linalg.norm(err, axis=0)
        if np.all(nr <= np.maximum(QTOL, QFLOOR * ne / scale) * scale):
            break
    den = np.abs(np.einsum("ik,ik->k", Y.conj(), dP))
    ny = np.linalg.norm(Y, axis=0)
    with np.errstate(divide="ignore"):
        bounds = np.where(den > 0, ny * (nr + ne) / den, np.inf)
    return s, (Xh, Xl), bounds, nr / scale, ne / scale


def _qep_certify(q, s, X, V):
    """First-order error bounds ||y|| ||P(s) x|| / |y^H P'(s) x| (section 3.17), with y
    the left Ritz vector of the projection on V (the null vector of P_V(s)^H)."""
    Mp, Cp, Kp = V.T @ (q.M @ V), V.T @ (q.C @ V), V.T @ (q.K @ V)
    Y = _left_vectors((Mp, Cp, Kp), V, s)
    R, err, dP = q.residual(s, X)
    den = np.abs(np.einsum("ik,ik->k", Y.conj(), dP))
    num = np.linalg.norm(Y, axis=0) * (np.linalg.norm(R, axis=0) + np.linalg.norm(err, axis=0))
    with np.errstate(divide="ignore"):
        return np.where(den > 0, num / den, np.inf)


#: relative residual ||P(s)x|| / (|s|^2 ||Mx||) of an accepted continued pair, or
#: QFLOOR times its computed rounding bound where that is larger; the Davidson steps tried
#: before ARPACK
#: free DOFs up to which a full solve of the quadratic problem is dense (QZ, O(n^3))
QEP_DENSE_MAX = 200


def gyroscopic_solve(ctx, frames, n_modes, include_eps, rayleigh=(0.0, 0.0), kg=None, tracked=False):
    """The n_modes eigenvalues s of smallest |s| (Im s >= 0) of s^2 M + s C + K_eff at
    each frame, C with Rayleigh damping: continuation on a real subspace (the previous
    instant's vectors, Rayleigh-Ritz on the projected quadratic problem, one step of
    residual inverse iteration in twice the precision, Davidson expansion by F^-1 of the
    residuals' real and imaginary parts, F the last full solve's factor), ARPACK on the
    first-order form as the safeguard, and a first-order error bound per eigenvalue
    (section 3.17).  Returns (s (nt, m), bounds (nt, m), stats)."""
    tracked = _checks.flag("tracked", tracked)
    nt = frames.shape[0]
    m = n_modes
    n = ctx.red.n
    p = min(m + ctx.GUARD, n - 1)
    if p < m or (n > QEP_DENSE_MAX and 2 * p + 2 > 2 * n - 2):
        raise ValueError(f"n_modes = {m} is too many for {n} free DOFs with the sparse solver "
                         "(use solver='dense')")
    Fq = ctx.factor_rest()  # the refinement's and Davidson's factor: the last full solve's P(sigma)
    S = np.zeros((nt, m), dtype=complex)
    B = np.zeros((nt, m))
    stats = {"full_solves": 0, "continued": 0, "iterations": 0, "repeated": 0}
    V = None
    last = None
    for t in range(nt):
        f = frames[t]
        kt = None if kg is None else kg[t]
        key = np.concatenate([f["omega"], f["eps"], [] if kt is None else kt]).tobytes()
        if last is not None and last[0] == key:
            S[t], B[t] = last[1]
            stats["repeated"] += 1
            continue
        q = Quadratic(ctx, f, include_eps, rayleigh, kt)
        got = None
        if V is not None:
            for it in range(1, QTOL_STEPS + 1):
                s_all, Z, proj = q.project(V)
                idx = _pick(s_all, p)
                s, X = s_all[idx], V @ Z[:, idx]
                X = X / np.linalg.norm(X, axis=0)
                Y = _left_vectors(proj, V, s[:m])
                s_r, Xr, bd, rel, floor = qep_refine(q, s[:m], X[:, :m], Y, Fq, V, proj)
                if np.all(rel[:m] <= np.maximum(QTOL, QFLOOR * floor[:m])):
                    X[:, :m] = Xr[0] + Xr[1]
                    got = (s_r, X, bd, it)
                    break
                R, _, _ = q.residual(s, X, bound=False)
                V = _m_extend(_basis(X, q.M), Fq.solve(np.column_stack([R.real, R.imag])), q.M)
        if got is not None:
            s, X, bd, its = got
            stats["continued"] += 1
            stats["iterations"] += its
        else:
            if n <= QEP_DENSE_MAX:  # small: the dense QZ of the whole first-order form
                s_all, Z = _small_qep(q.M.toarray(), q.C.toarray(), q.K.toarray())
                idx = _pick(s_all, p)
                s, X = s_all[idx], Z[:, idx]
            else:
                w2 = float(np.dot(f["omega"], f["omega"]))
                e_norm = float(np.linalg.norm(f["eps"])) if include_eps else 0.0
                s, X, Fq = q.full(p, -math.sqrt(w2 + e_norm + ctx.delta))
            stats["full_solves"] += 1
            X = X / np.linalg.norm(X, axis=0)
            V0 = _basis(X, q.M)
            proj = q.project(V0)[2]
            s, Xm = s[:m], X[:, :m]
            Y = _left_vectors(proj, V0, s)
            bd0 = _qep_certify(q, s, Xm, V0)
            # ARPACK's vectors are further off than a continued instant's: twice the rounds
            s_r, Xr, bd, _, _ = qep_refine(q, s, Xm, Y, Fq, V0, proj, rounds=2 * QROUNDS)
            better = bd < bd0  # per pair the smaller certificate (as the symmetric path)
            s = np.where(better, s_r, s)
            X[:, :m] = np.where(better, Xr[0] + Xr[1], Xm)
            bd = np.where(better, bd, bd0)
        V = _basis(X, q.M)
        S[t], B[t] = s[:m], bd[:m]
        last = (key, (S[t], B[t]))
    return S, B, stats


def _track(prev, U, M):
    """Assign each previous mode the candidate with the largest |M-inner product|
    (greedy, as the dense solver, section 3.9); unassigned candidates follow in order."""
    C = np.abs(prev.T @ (M @ U))
    m = prev.shape[1]
    order = [-1] * m
    taken = set()
    for _ in range(m):
        C_masked = C.copy()
        for k in range(m):
            if order[k] >= 0:
                C_masked[k, :] = -1
        for j in taken:
            C_masked[:, j] = -1
        k, j = np.unravel_index(np.argmax(C_masked), C.shape)
        order[k] = j
        taken.add(j)
    rest = [j for j in range(U.shape[1]) if j not in taken]
    return np.array(order + rest)


# ---------------------------------------------------------------- time integration


def csr_factor(values, indptr, indices, order=None):
    """The sparse solver of the core's integrators (``_core.simulate(factor=...)``,
    docs/theory.md section 4.13): the core hands the CSR matrix of the free DOFs (M, or
    the effective matrix whenever it changed) and solves with the returned factor.  A
    symmetric matrix (no Coriolis, no K_eps) is ordered and pivoted symmetrically; with
    ``order`` (a fill-reducing order of the unknowns) in that order (:class:`Factor`)."""
    sp, _, _ = _scipy()
    n = indptr.shape[0] - 1
    A = sp.csr_matrix((values, indices, indptr), shape=(n, n))
    return Factor(A, symmetric=(A != A.T).nnz == 0, order=order)


class IntegratorFactor:
    """:func:`csr_factor` in the nested-dissection order of the unknowns' points, the
    order of the eigen path's factors (section 3.15), computed at the first call and
    reused: the core hands every matrix of a run on one pattern (and any order of the
    unknowns is a valid one: it sets the fill, not the result).

    Parameters
    ----------
    points : ndarray, shape (n, dim), or None
        Where each unknown sits (the free DOFs' nodes); None: SuperLU's own ordering.
    """

    def __init__(self, points):
        self.points = None if points is None else np.asarray(points, dtype=float)
        self.order = None

    def __call__(self, values, indptr, indices):
        if self.points is None or self.points.shape[0] != indptr.shape[0] - 1:
            return csr_factor(values, indptr, indices)
        if self.order is None:
            self.order = nested_dissection(indptr, indices, self.points)
        return csr_factor(values, indptr, indices, self.order)
