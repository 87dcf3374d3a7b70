"""Refined and certified eigenpairs on sparse matrices (docs/theory.md section 3.17).

* ``Compensated``: A X for a CSR matrix in twice the working precision (Ogita-Rump-Oishi
  Dot2: error-free products and sums, in the C core, ``kf_csr_dot2``), so
  that the residual of a stiff, ill-conditioned problem (a 1000-element beam has
  ||K|| / lambda_1 ~ 1e12) is not lost to rounding;
* ``rayleigh_ritz``: the Ritz pairs of (A, M) on a basis, with A Q in that precision;
* ``certify``: a bound on |lambda - theta| per Ritz pair: the residual in the M^-1 norm
  (symmetric: Bauer-Fike for a definite pencil, sharpened to Kato-Temple by the gaps),
  or its first-order image through the left vector (general, non-normal);
* ``Quadratic``: the lowest |s| of (s^2 M + s C + K) x = 0 (gyroscopic and damped) by
  shift-invert on the first-order form, continuation on a real subspace, and the same
  first-order certificate.
"""

from __future__ import annotations

import math

import numpy as np

from . import _checks, _core

EPS = np.finfo(float).eps / 2  # unit roundoff


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


_SPLITTER = 134217729.0  # 2^27 + 1 (Dekker)


def _split(a):
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


def two_product(a, b):
    """(p, e) with p = fl(a b) and p + e = a b exactly (Dekker's TwoProduct, as the core's
    kf_csr_dot2: no fused multiply-add)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, (((ah * bh - p) + ah * bl) + al * bh) + al * bl


class Compensated:
    """A CSR matrix whose products A X the core forms in twice the working precision
    (``kf_csr_dot2``: Ogita-Rump-Oishi Dot2, error-free products by Dekker's split and
    error-free sums, with an elementwise bound on the error; GIL released).  ``plain``:
    products in the working precision (a well-conditioned matrix such as a mass matrix,
    whose products need no more; their rounding is still bounded).  ``plain_part``: the
    operator is A + plain_part, the second's products in the working precision (the
    motion terms next to a stiff K: Dot2 over K's entries only).  ``plain_abs``: (B, m) with
    B >= |plain_part| elementwise covering also the rounding of plain_part's own formation
    from m products (fl(sum c_q T_q): B = sum |c_q| |T_q|): the bounds then hold for the
    exact sum (docs/theory.md section 3.17)."""

    def __init__(self, A, plain=False, plain_part=None, plain_abs=None):
        plain = _checks.flag("plain", plain)
        self.plain = plain
        A = A.tocsr()
        A.sum_duplicates()
        self.n = A.shape[0]
        self.L = int(np.diff(A.indptr).max()) if self.n else 0
        self.A = A
        self.indptr = A.indptr.astype(np.int32, copy=False)
        self.indices = A.indices.astype(np.int32, copy=False)
        self._abs = None
        self.D = None
        if plain_part is not None:
            self.D = plain_part.tocsr()
            self.LD = int(np.diff(self.D.indptr).max()) if self.n else 0
            self.absD = abs(self.D)
            if plain_abs is not None:
                self.absD, m = plain_abs
                self.LD += int(m)

    @property
    def absA(self):
        if self._abs is None:
            self._abs = abs(self.A)
        return self._abs

    def product(self, Xh, Xl=None, bound=True):
        """(A (Xh + Xl) rounded once, a bound on its error), Xh 1-D or 2-D; ``bound``
        False: the bound of the Dot2 part only (the plain part's is not formed; an
        intermediate product whose bound nobody reads)."""
        bound = _checks.flag("bound", bound)
        one = Xh.ndim == 1
        Xh = np.ascontiguousarray(Xh.reshape(Xh.shape[0], -1), dtype=float)
        if Xl is not None:
            Xl = np.ascontiguousarray(Xl.reshape(Xh.shape), dtype=float)
        y, err = _core.csr_dot2(indptr=self.indptr, indices=self.indices, values=self.A.data, x=Xh, xlo=Xl,
                                ncol=self.A.shape[1])
        if self.D is not None:
            # + D (Xh + Xl): the sum rounded (u |x|), the product (gamma_L |D| |x|), the
            # sum with y (u |y + D x|)
            x = Xh if Xl is None else Xh + Xl
            dy = self.D @ x
            ax = np.abs(Xh) if Xl is None else np.abs(Xh) + np.abs(Xl)
            y = y + dy
            if bound:
                err = err + (self.LD + 2) * EPS / (1 - (self.LD + 2) * EPS) * (self.absD @ ax) + EPS * np.abs(y)
        return (y[:, 0], err[:, 0]) if one else (y, err)


def accurate(P, X):
    """A X rounded once, X a double-double pair (hi, lo) or an array, and a bound on its
    error (elementwise): Dot2 of X's high part plus A lo (``Compensated.product``)."""
    if isinstance(X, tuple):
        Xh, Xl = X
    else:
        Xh, Xl = X, None
    if np.iscomplexobj(Xh):
        re, ere = accurate(P, (Xh.real, None if Xl is None else Xl.real))
        im, eim = accurate(P, (Xh.imag, None if Xl is None else Xl.imag))
        return re + 1j * im, ere + eim
    if P.plain:  # a well-conditioned matrix (mass): the working precision, its error bounded
        y = P.A @ Xh + (0.0 if Xl is None else P.A @ Xl)
        return y, (2 * P.L * EPS) * (P.absA @ (np.abs(Xh) + (0.0 if Xl is None else np.abs(Xl))))
    return P.product(np.asarray(Xh, dtype=float), Xl)


def dd_sub(X, C):
    """(hi, lo) - C exactly to twice the precision (C an array)."""
    Xh, Xl = X
    s, e = _two_sum(Xh, -C)
    return _fast(s, e + Xl)


def _fast(a, b):
    s = a + b
    return s, b - (s - a)


def inverse_refine(PA, PM, F, U, theta, steps=2, Y=None):
    """Inverse iteration u <- F^-1 M u for each column, in double-double: with
    A u = theta M u + r, F^-1 M u = (u - F^-1 r) / (theta - sigma), so the step is
    u - F^-1 r with r computed accurately (never rescaled: a rescaled double vector is
    rounded again).  Components of the eigenvectors above shrink by
    (theta - sigma) / (lambda_j - sigma): the rounding noise of a double vector, which
    lives in the stiff modes and sets a residual floor of eps ||A|| ||u||, is removed.
    Returns ((hi, lo), theta, (A U, its error, M U, its error)) with theta the Rayleigh
    quotients and the products those of the returned U (for ``certify``), and the same
    triple for the given U (its products None unless steps is 0) (where the factor's own error cond(F) eps nears one, F^-1 r is
    no correction at all: the caller keeps, per column, the one whose certificate is
    smaller)."""
    Uh = np.array(U, dtype=float)
    Ul = np.zeros_like(Uh)
    M = PM.A
    first = None
    for step in range(steps + 1):
        last = step == steps
        AU, eA = PA.product(Uh, Ul if step else None, bound=last)
        u = Uh + Ul
        MU = M @ u
        theta = np.einsum("ik,ik->k", u, AU) / np.einsum("ik,ik->k", u, MU)
        eM = (2 * PM.L * EPS) * (PM.absA @ (np.abs(Uh) + np.abs(Ul))) if last else None
        if step == 0:
            # the given pairs: their products' bounds are formed by certify if it is asked
            first = ((Uh, Ul), theta, None if not last else (AU, eA, MU, eM))
        if last:
            break
        Uh, Ul = dd_sub((Uh, Ul), F.solve(AU - MU * theta))
        Uh, Ul = _deflate((Uh, Ul), M, Y)
    return (Uh, Ul), theta, (AU, eA, MU, eM), first


def _deflate(U, M, Y=None):
    """Remove from each column u_k its components along the lower columns u_j, j < k (the
    columns ascend by eigenvalue), one column after the other (modified Gram-Schmidt:
    oblique along the left vectors Y when given, else M-orthogonal), in double-double.
    Inverse iteration amplifies the components of the lower modes by (theta_k - sigma) /
    (lambda_j - sigma), up to 1e8 against a rigid mode, and damps the higher ones, which
    are left alone: deflating a column against a higher one as well, itself carrying the
    amplified lower mode, took that mode out of the lower column (every other step was
    then worse than none: lambda_1 of a 3000-element beam bounded at 1.4e-8 relative
    after two steps, 3e-5 after one or three).  The coefficients are small, so their
    products are rounded at a small scale."""
    Uh, Ul = np.array(U[0], dtype=float), np.array(U[1], dtype=float)
    q = Uh.shape[1]
    MU = np.empty_like(Uh)
    MY = None if Y is None else M @ Y
    W = MU if Y is None else MY  # M w_j: numerators (M w_j)^T u_k, M symmetric
    den = np.empty(q)
    for k in range(q):
        if k:
            c = (W[:, :k].T @ Uh[:, k]) / den[:k]
            s, e = _two_sum(Uh[:, k], -(Uh[:, :k] @ c))
            Uh[:, k], Ul[:, k] = _fast(s, e + Ul[:, k])
        MU[:, k] = M @ Uh[:, k]
        den[k] = W[:, k] @ Uh[:, k]
    return Uh, Ul


def _m_inv_norm(MF, R):
    """sqrt(r^H M^-1 r) per column, M^-1 applied by the factor of M."""
    if np.iscomplexobj(R):
        return np.sqrt(_m_inv_norm(MF, R.real) ** 2 + _m_inv_norm(MF, R.imag) ** 2)
    W = MF.solve(R)
    # the solve's relative error (cond(M) eps, M a well-conditioned mass matrix) is
    # covered by the factor (1 + 1e-8)
    return np.sqrt(np.maximum(np.einsum("i...,i...->...", R, W), 0.0)) * (1.0 + 1e-8)


def m_orthonormal(V, M, drop=1e-12):
    """An M-orthonormal basis of span(V) (directions with a Gram eigenvalue below drop
    times the largest are dropped)."""
    G = V.T @ (M @ V)
    G = 0.5 * (G + G.T)
    s, U = np.linalg.eigh(G)
    k = s > drop * s[-1]
    return V @ (U[:, k] / np.sqrt(s[k]))


def rayleigh_ritz(PA, M, V, symmetric):
    """Ritz values and vectors of (A, M) on span(V) with A Q in twice the precision.
    Returns (theta ascending by real part, Ritz vectors (n, q) complex or real, left
    Ritz vectors or None for symmetric)."""
    import scipy.linalg as la

    Q = m_orthonormal(V, M)
    AQ, _ = accurate(PA, Q)
    H = Q.T @ AQ
    if symmetric:
        theta, Z = np.linalg.eigh(0.5 * (H + H.T))
        return theta, Q @ Z, None
    theta, ZL, Z = la.eig(H, left=True, right=True)
    order = np.lexsort((theta.imag, theta.real))
    theta, ZL, Z = theta[order], ZL[:, order], Z[:, order]
    if np.all(np.abs(theta.imag) <= 1e-14 * np.abs(theta).max()):
        return theta.real, Q @ Z.real, Q @ ZL.real
    return theta, Q @ Z, Q @ ZL


def certify(PA, PM, MF, theta, U, Y=None, symmetric=True, neighbours=None, products=None):
    """Error bounds for Ritz pairs (theta_k, U[:, k]) of (A, M).

    Symmetric: the Rayleigh quotients (returned in place of theta) and, with
    eps_k = ||A u - theta M u||_{M^-1} / ||u||_M (every rounding bounded and added),
    min(eps_k, eps_k^2 / gap_k + delta_k): Bauer-Fike for a definite pencil (an
    eigenvalue lies within eps_k), Kato-Temple where the neighbours' intervals
    (theta_j +- eps_j of ``neighbours``, default the given pairs themselves) leave a gap
    (not for the highest neighbour: what lies above it is not known);
    delta_k bounds the computed quotient's distance from the exact one: its rounding and
    |u|^T (eA + |theta| eM) / u^T M u from the products' errors.  The Kato-Temple part assumes the given
    pairs and neighbours are all the eigenvalues in their range (the solvers find the
    lowest ones).

    General (Y the left Ritz vectors): ||y||_M eps_k ||u||_M / |y^H M u|, the first-order
    bound on the error of a simple eigenvalue (exact as eps -> 0, not rigorous at finite eps).

    ``products``: A U, M U and their error bounds if already at hand.

    Returns (theta, bounds).
    """
    symmetric = _checks.flag("symmetric", symmetric)
    AU, eA, MU, eM = (*accurate(PA, U), *accurate(PM, U)) if products is None else products
    U = U[0] + U[1] if isinstance(U, tuple) else U  # for inner products: double suffices
    norm_u = np.sqrt(np.abs(np.einsum("i...,i...->...", U.conj(), MU)))
    if symmetric:
        num = np.einsum("ik,ik->k", U, AU)
        den = np.einsum("ik,ik->k", U, MU)
        theta = num / den
        n = U.shape[0]
        # the quotient's rounding, and what the products' errors move it by: |u^T (A u)~ -
        # u^T A u| <= |u|^T eA (a motion term's plain product, K_G's formation: first order)
        delta = (2 * n * EPS * (np.abs(U) * (np.abs(AU) + np.abs(theta) * np.abs(MU))).sum(axis=0)
                 + (np.abs(U) * (eA + np.abs(theta) * eM)).sum(axis=0)) / den
    theta = np.asarray(theta)
    R = AU - MU * theta
    bound_r = eA + np.abs(theta) * eM + 2 * EPS * (np.abs(AU) + np.abs(theta * MU))
    both = _m_inv_norm(MF, np.concatenate([R, bound_r.astype(R.dtype)], axis=-1))  # one solve
    eps = (both[..., :R.shape[-1]] + both[..., R.shape[-1]:]) / norm_u
    if not symmetric:
        if Y is None:
            return theta, np.full(theta.shape, np.inf)
        MY = PM.A @ Y
        y_norm = np.sqrt(np.abs(np.einsum("ik,ik->k", Y.conj(), MY)))
        yMu = np.abs(np.einsum("ik,ik->k", Y.conj(), MU))
        with np.errstate(divide="ignore"):
            kappa = np.where(yMu > 0, y_norm * norm_u / yMu, np.inf)
        return theta, kappa * eps
    th_n, eps_n = (theta, eps) if neighbours is None else neighbours
    out = eps + delta
    for k in range(theta.shape[0]):
        d = np.abs(th_n - theta[k])
        others = np.ones(th_n.shape[0], dtype=bool)
        others[np.argmin(d)] = False  # the pair itself
        gap = float(np.min(d[others] - eps_n[others])) if others.any() else math.inf
        if theta[k] < th_n.max() and gap > eps[k]:  # Kato-Temple: (theta - gap, theta + gap) holds one eigenvalue
            out[k] = min(eps[k], eps[k] ** 2 / gap) + delta[k]
    return theta, out


def refine(PA, PM, F, U, symmetric, rounds=3, tol=1e-13):
    """Davidson rounds with residuals in twice the precision: Rayleigh-Ritz on span(U),
    then on [U, F^-1 R] (F a factor of A - sigma M or a nearby operator), until the
    relative residuals ||r|| / (|theta| ||M u||) reach tol or the rounds run out.
    The correction F^-1 R is small, so the solve's relative error (cond(F) eps) costs
    little of it: mixed-precision iterative refinement of the subspace.  Returns
    (theta, U, Y) for the p = U.shape[1] lowest pairs (Y: left vectors, general case)."""
    p = U.shape[1]
    V = U
    for it in range(rounds + 1):
        theta, X, Y = rayleigh_ritz(PA, PM.A, V, symmetric)
        theta, X = theta[:p], X[:, :p]
        Y = None if Y is None else Y[:, :p]
        if it == rounds or np.iscomplexobj(X):
            break
        AX, _ = accurate(PA, X)
        MX = PM.A @ X
        R = AX - MX * theta
        rel = np.linalg.norm(R, axis=0) / (np.abs(theta) * np.linalg.norm(MX, axis=0) + 1e-300)
        if np.all(rel <= tol):
            break
        V = np.column_stack([X, F.solve(R)])
    return theta, X, Y
