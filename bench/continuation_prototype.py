"""A NumPy continuation of the lowest eigenpairs over a time grid, the yardstick of issue 19:
block inverse iteration from the previous instant's modes, Rayleigh-Ritz, and a residual
certificate per eigenvalue; a full solve (scipy eigh subset) only when the certificate fails.

    lam, stats = continuation(K, M, A_of_t, nt, n_modes)

K, M: dense symmetric (free DOFs); A_of_t(t) -> the symmetric K_eff at instant t (K + K_om(t));
the correction of each residual is preconditioned by the factor at rest (Cholesky of
K + delta M), so an instant costs a few block solves with it and small dense Ritz problems.
Used by bench/bench_scaling.py side by side with kanefem.
"""

import numpy as np
import scipy.linalg as la


def _ritz(A, M, V):
    """Rayleigh-Ritz of (A, M) on span(V): Ritz values ascending and M-orthonormal vectors."""
    Q, _ = np.linalg.qr(V)
    H, G = Q.T @ A @ Q, Q.T @ M @ Q
    theta, Z = la.eigh(0.5 * (H + H.T), 0.5 * (G + G.T))
    return theta, Q @ Z


def continuation(K, M, A_of_t, nt, n_modes, guard=4, tol=1e-14, maxit=20):
    """The n_modes lowest eigenvalues of (A_of_t(t), M) for t = 0 .. nt-1, (nt, n_modes);
    stats: instants continued, block iterations, full solves, the largest certificate."""
    n = K.shape[0]
    p = min(n_modes + guard, n)
    delta = 1e-8 * float(np.max(np.diag(K) / np.diag(M)))
    F = la.cho_factor(K + delta * M)
    theta, X = la.eigh(K, M, subset_by_index=[0, p - 1])
    out = np.zeros((nt, n_modes))
    stats = {"continued": 0, "iterations": 0, "full_solves": 0, "certificate": 0.0}
    for t in range(nt):
        A = A_of_t(t)
        scale = float(np.max(np.abs(np.diag(A)) / np.diag(M)))
        for it in range(1, maxit + 1):
            if it == 1:
                theta, X = _ritz(A, M, X)
            R = A @ X[:, :n_modes] - (M @ X[:, :n_modes]) * theta[:n_modes]
            # the certificate: the backward error of each Ritz pair, ||r_k|| / ((|theta_k| +
            # ||A||) ||M x_k||) with ||A|| ~ max A_ii / M_ii; the eigenvalue's error is then
            # at most ~ (||A|| cert)^2 / gap (symmetric: quadratic in the residual)
            cert = np.linalg.norm(R, axis=0) / ((np.abs(theta[:n_modes]) + scale)
                                                * np.linalg.norm(M @ X[:, :n_modes], axis=0))
            if np.all(cert <= tol):
                break
            # one block inverse-iteration step on the residuals (preconditioned by the factor
            # at rest), Rayleigh-Ritz on the basis and its corrections, the p lowest kept
            Rp = A @ X - (M @ X) * theta[:p]
            theta, X = _ritz(A, M, np.column_stack([X[:, :p], la.cho_solve(F, Rp)]))
            X = X[:, :p]
        else:
            theta, X = la.eigh(A, M, subset_by_index=[0, p - 1])
            stats["full_solves"] += 1
            cert = np.zeros(n_modes)
            it = 0
        stats["continued"] += it > 0
        stats["iterations"] += it
        stats["certificate"] = max(stats["certificate"], float(cert.max()))
        out[t] = theta[:n_modes]
    return out, stats


if __name__ == "__main__":  # a self-check against eigh at every instant
    rng = np.random.default_rng(1)
    n = 60
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    K = (Q * np.arange(1.0, n + 1) ** 4) @ Q.T  # a beam's spectrum, k^4
    M = np.eye(n) + 0.01 * np.diag(rng.random(n))
    S = rng.standard_normal((n, n))
    S = -(S @ S.T) / n**2
    lam, st = continuation(K, M, lambda t: K + (t / 50) * S, 50, 4)
    ref = np.array([la.eigh(K + (t / 50) * S, M, eigvals_only=True)[:4] for t in range(50)])
    print(st, float(np.abs(lam - ref).max() / np.abs(ref).max()))
