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

import numpy as np

from . import _checks, _core, _interrupt


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
    node-major); None for a body without nodes."""
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
                                          options={"SymmetricMode": True})
            else:
                self.lu = _interrupt.call(spla.splu, A, permc_spec="COLAMD")
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
                                      options={"SymmetricMode": True})
            self.order = order
        self.nnz = int(self.lu.nnz)  # of L and U (not copied out as SciPy matrices)

    def solve(self, b):
        b = np.asarray(b, dtype=float)
        if self.order is None:
            return self.lu.solve(b)
        x = np.empty_like(b)
        x[self.order] = self.lu.solve(b[self.order], trans="T")
        return x


# ---------------------------------------------------------------- frames


def frame_operators(frame):
    """W, E and W W (3 x 3) of one frame record (body axes)."""
    def skew(w):
        return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    W = skew(np.asarray(frame["omega"], dtype=float))
    E = skew(np.asarray(frame["eps"], dtype=float))
    return W, E, W @ W


# ---------------------------------------------------------------- eigenvalues


def _m_orthonormal(V, M, drop=1e-12):
    """An M-orthonormal basis of span(V) (directions whose Gram eigenvalue is below drop
    times the largest are dropped)."""
    G = V.T @ (M @ V)
    G = 0.5 * (G + G.T)
    s, U = np.linalg.eigh(G)
    k = s > drop * s[-1]
    return V @ (U[:, k] / np.sqrt(s[k]))


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


class SparseEigen:
    """Frozen-time eigenvalues of a mesh body with fixed DOFs (section 3.12).

    Holds what is constant: the reduced M and K, the at-rest modes (mu_k, X) with a few
    guard modes, and the factor of K + delta M that serves as the shift-invert operator
    at rest and as the preconditioner of the continuation.
    """

    #: guard modes beyond the requested ones (continuation and certificate)
    GUARD = 4
    #: relative residual at which a continued Ritz pair is accepted
    TOL = 1e-10
    MAXIT = 30

    def __init__(self, body, fixed):
        self.body = body
        self.red = Reduction(body._indptr, body._indices, fixed, dof_points(body))
        if self.red.n == 0:
            raise ValueError("the supports fix every DOF: nothing can move")
        self.M = self.red.matrix(body._values("M"))
        self.K = self.red.matrix(body._values("K"))
        dk, dm = self.K.diagonal(), self.M.diagonal()
        # delta: far below the lowest eigenvalue of interest, large enough that K + delta M
        # is safely positive definite when K has rigid-body modes (section 3.12)
        self.scale = float(np.max(dk / dm))
        self.delta = 1e-8 * self.scale
        self.F = None
        self.rest = {}
        #: coefficients -> K_G on the free DOFs (CSR), set by the body when K_G is asked
        #: (docs/theory.md section 2.11)
        self.kg_matrix = None

    def factor_rest(self):
        if self.F is None:
            self.F = Factor(self.K + self.delta * self.M, symmetric=True, order=self.red.order)
        return self.F

    def matrix(self, frame, include_eps):
        """A(t) = K + sum (WW [+ E])_ij S_ij over the free DOFs, and whether it is
        symmetric."""
        W, E, WW = frame_operators(frame)
        d = self.body.dim
        c = WW[:d, :d] + (E[:d, :d] if include_eps else 0.0)
        symmetric = not (include_eps and np.any(E[:d, :d] != 0.0))
        return self.red.matrix(_core.body_combine(body=self.body._body, coef=c, stiffness=1.0)), symmetric

    def at_rest(self, p):
        """The p lowest modes of (K, M): mu (p,), X (n, p), M-orthonormal."""
        if p not in self.rest:
            mu, X = self.full(self.K, p, True, -self.delta, self.factor_rest())
            self.rest[p] = (mu.real, X.real)
        return self.rest[p]

    def full(self, A, k, symmetric, sigma, F=None, v0=None):
        """The k eigenvalues of (A, M) nearest above sigma by ARPACK in shift-invert mode
        (sigma below the spectrum: the lowest ones), sorted by real part."""
        _, spla, _ = _scipy()
        n = self.red.n
        if F is None:
            F = Factor(A - sigma * self.M, symmetric, order=self.red.order)
        op = spla.LinearOperator((n, n), matvec=F.solve, dtype=float)
        if n <= k + 1 or (not symmetric and n <= k + 2):
            raise ValueError(f"n_modes = {k} is too many for {n} free DOFs with the sparse solver "
                             "(use solver='dense')")
        if symmetric:
            lam, X = spla.eigsh(A, k=k, M=self.M, sigma=sigma, which="LM", OPinv=op, v0=v0)
        else:
            kk = min(k + 1, n - 2)  # one more, so a complex pair is not cut
            lam, X = spla.eigs(A, k=kk, M=self.M, sigma=sigma, which="LM", OPinv=op, v0=v0)
        order = np.lexsort((lam.imag, lam.real))[:k]
        return lam[order], X[:, order]

    def continue_from(self, A, X, m, symmetric, bracket):
        """Block Rayleigh-Ritz from the basis X, expanded by preconditioned residuals
        F^-1 R with F the factor at rest (a Davidson step).  Returns (theta, U, iterations)
        once the m lowest Ritz pairs have relative residuals below TOL and lie in the
        brackets, else None."""
        _, _, la = _scipy()
        F = self.factor_rest()
        M = self.M
        p = X.shape[1]
        Q = _m_orthonormal(X, M)
        lo, hi, scale = bracket
        for it in range(1, self.MAXIT + 1):
            H = Q.T @ (A @ Q)
            if symmetric:
                theta, Z = np.linalg.eigh(0.5 * (H + H.T))
            else:
                theta, Z = la.eig(H)
                order = np.lexsort((theta.imag, theta.real))
                theta, Z = theta[order], Z[:, order]
                if np.any(np.abs(theta[:m].imag) > 0.0):
                    return None  # a complex pair: the full solver decides
                theta, Z = theta.real, Z.real
            U = Q @ Z[:, :p]
            th = theta[:p]
            R = A @ U - (M @ U) * th
            MU = M @ U
            res = np.linalg.norm(R, axis=0) / ((np.abs(th) + scale) * np.linalg.norm(MU, axis=0))
            if np.all(res[:m] <= self.TOL):
                if np.all(th[:m] >= lo - scale * 1e-9) and np.all(th[:m] <= hi + scale * 1e-9):
                    return th, U, it
                return None
            Q = _m_extend(_m_orthonormal(U, M), F.solve(R), M)
        return None


def _instant(ctx, f, X, m, ms, p, mu, Xr, w2, e_norm, skew, include_eps, dim, stats, kg=None):
    """The ms lowest eigenpairs at one frame: (theta, imag, U, the next continuation
    basis X).  The planar shift if it applies, else certified continuation from X, else
    ARPACK (section 3.12).  With K_G coefficients kg (section 2.11): ARPACK, at a shift
    proven below the spectrum by the factor's inertia (symmetric), else by a Gershgorin
    bound of K_G's compression."""
    imag = np.zeros(ms)
    if kg is not None and np.any(kg != 0.0):
        A, symmetric = ctx.matrix(f, include_eps)
        A = A + ctx.kg_matrix(kg)
        stats["full_solves"] += 1
        F = None
        if symmetric:
            # the Ritz values of the rest modes bound the lowest eigenvalues from above; the
            # shift goes below them until the factor of A - sigma M has no negative pivot
            # (Sylvester: no eigenvalue below sigma; SuperLU's symmetric mode pivots on the
            # diagonal, so U's diagonal carries the inertia), so the ms eigenvalues nearest
            # sigma are the ms lowest
            Q = Xr[:, :ms]
            theta = np.linalg.eigvalsh(0.5 * (Q.T @ (A @ Q) + (Q.T @ (A @ Q)).T))
            gap = abs(theta[-1] - theta[0]) + abs(theta[0]) + ctx.delta
            sigma = theta[0] - 0.5 * gap
            for _ in range(60):
                F = Factor(A - sigma * ctx.M, True)
                if not np.any(F.lu.U.diagonal() < 0.0):
                    break
                sigma -= gap
                gap *= 4.0
            else:
                F = None
        if F is None:
            # Gershgorin: no eigenvalue of (K_G, M) below -max_i sum_j |K_G,ij| / min M_ii
            G = A - ctx.matrix(f, include_eps)[0]
            low = float(np.max(np.abs(G).sum(axis=1))) / float(ctx.M.diagonal().min())
            sigma = -(w2 + e_norm + ctx.delta + low)
        lam, V = ctx.full(A, ms, symmetric, sigma, F)
        if np.all(lam.imag == 0.0):
            return lam.real, imag, V.real, X
        U = np.column_stack([V[:, k].real if lam[k].imag >= 0 else V[:, k].imag for k in range(ms)])
        return lam.real, lam.imag, U, X
    if (dim == 2 or w2 == 0.0) and not skew:
        # sum WW_ij S_ij = -w^2 M exactly: every eigenvalue shifts, no shape changes
        stats["shifted"] += 1
        return mu[:ms] - w2, imag, Xr[:, :ms], X
    A, symmetric = ctx.matrix(f, include_eps)
    # brackets of the ms lowest eigenvalues: [mu_k - |w|^2 - |e|, mu_k + |e|]
    lo, hi = mu[0] - w2 - e_norm, mu[ms - 1] + e_norm
    scale = abs(mu[p - 1]) + w2 + e_norm
    separated = mu[ms] - w2 - e_norm > hi
    got = ctx.continue_from(A, X, ms, symmetric, (lo, hi, scale)) if separated else None
    if got is not None:
        theta, U, its = got
        stats["continued"] += 1
        stats["iterations"] += its
        return theta[:ms], imag, U[:, :ms], U
    lam, V = ctx.full(A, ms, symmetric, -(w2 + e_norm + ctx.delta))
    stats["full_solves"] += 1
    if np.all(lam.imag == 0.0):
        U = V.real
        return lam.real, imag, U, (np.column_stack([U, Xr[:, ms:p]]) if p > ms else U)
    # a complex pair: its two columns are the real and imaginary parts of its vector
    U = np.column_stack([V[:, k].real if lam[k].imag >= 0 else V[:, k].imag for k in range(ms)])
    return lam.real, lam.imag, U, X


def eigen_solve(ctx, frames, n_modes, include_eps, vectors, tracked, progress=None, kg=None):
    """Eigenvalues at each frame (section 3.12): the exact shift for in-plane spin of a
    plane body, certified continuation from the previous instant, ARPACK as the
    safeguard.  Returns the arrays and stats of an EigenResult."""
    red = ctx.red
    nt = frames.shape[0]
    m = n_modes
    p = min(m + ctx.GUARD, red.n - 2)
    if p < m + 1:
        raise ValueError(f"n_modes = {m} is too many for {red.n} free DOFs with the sparse solver "
                         "(use solver='dense')")
    mu, Xr = ctx.at_rest(p)
    ms = min(m + 2, p) if tracked else m
    lam_re = np.zeros((nt, m))
    lam_im = np.zeros((nt, m))
    shapes = np.zeros((nt, red.ndof, m)) if vectors else None
    stats = {"full_solves": 0, "continued": 0, "iterations": 0, "shifted": 0, "repeated": 0}
    general = False
    X = Xr
    prev = None
    dim = ctx.body.dim
    last = None  # the previous instant's rates and processed (theta, imag, U)
    for t in range(nt):
        f = frames[t]
        key = np.concatenate([f["omega"], f["eps"]] + ([] if kg is None else [kg[t]])).tobytes()
        W, E, WW = frame_operators(f)
        w2 = float(np.dot(f["omega"], f["omega"]))
        e_norm = float(np.linalg.norm(f["eps"])) if include_eps else 0.0
        skew = include_eps and np.any(E[:dim, :dim] != 0.0)
        general |= bool(skew)
        if last is not None and last[0] == key:
            # the same rates as the previous instant (a constant speed): the same modes
            theta, imag, U = last[1]
            stats["repeated"] += 1
        else:
            theta, imag, U, X = _instant(ctx, f, X, m, ms, p, mu, Xr, w2, e_norm, skew, include_eps, dim,
                                         stats, None if kg is None else kg[t])
            U = np.array(U, dtype=float)
            if np.all(imag == 0.0):
                U = U / np.sqrt(np.einsum("ik,ik->k", U, ctx.M @ U))
            order = np.arange(ms)
            if tracked and prev is not None:
                order = _track(prev, U, ctx.M)
            theta, imag, U = np.asarray(theta)[order], imag[order], U[:, order]
            if tracked and prev is not None:
                sg = np.sign(np.einsum("ik,ik->k", prev, ctx.M @ U[:, :m]))
                U[:, :m] = U[:, :m] * np.where(sg == 0, 1.0, sg)
            else:
                U = _sign_rule(U)
            prev = U[:, :m] if tracked else None
            last = (key, (theta, imag, U))
        lam_re[t] = theta[:m]
        lam_im[t] = imag[:m]
        if vectors:
            shapes[t] = red.scatter(U[:, :m])
        if progress is not None:
            progress(t)
    stats["solver"] = "general" if general else "symmetric"
    return lam_re, lam_im, shapes, stats


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


def csr_factor(values, indptr, indices):
    """The sparse solver of the core's integrators (``_core.simulate(factor=...)``,
    docs/theory.md section 4.13): the core hands the CSR matrix of the free DOFs (M, or
    the effective matrix whenever it changed) and solves with the returned factor.  A
    symmetric matrix (no Coriolis, no K_eps) is ordered and pivoted symmetrically."""
    sp, _, _ = _scipy()
    n = indptr.shape[0] - 1
    A = sp.csr_matrix((values, indices, indptr), shape=(n, n))
    return Factor(A, symmetric=(A != A.T).nnz == 0)
