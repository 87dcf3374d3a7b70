"""Frozen-time eigenvalues over one crank turn: kanefem against NumPy + SciPy.

The 2 lowest eigenvalues of a 10-element pinned-pinned steel beam (the lever of a
slider-crank at 140 rpm) at 360 instants, with K_eps off (symmetric) and on
(general).  The alternative is what a user writes today: the beam's matrices
assembled once in NumPy from the closed-form element matrices, then at each
instant K_eff = K - omega^2 M [+ eps G] formed in NumPy and handed to
scipy.linalg.eigh (subset) or scipy.linalg.eig.  Both compute eigenvalues only,
or both also the mode shapes (second table).  Times are the best of several runs;
the ratio is SciPy time / kanefem time.

    python bench/bench_eigen.py [--repeat 5]
"""

import math

import numpy as np
import scipy.linalg as sl

import kanefem
from _timing import best, repeat_args

L, N_EL, E, A, I, RHO = 0.6, 10, 210e9, 2.0e-4, 1.67e-9, 7850.0
NT = 360


def crank_turn(rpm=140.0, r=0.1, l=0.6):
    """Angular velocity and acceleration of a slider-crank's connecting rod."""
    w1 = rpm * 2 * math.pi / 60
    a = np.linspace(0, 2 * math.pi, NT, endpoint=False)
    lam = r / l
    c = np.sqrt(1 - (lam * np.sin(a)) ** 2)
    omega = w1 * lam * np.cos(a) / c
    eps = -(w1**2) * lam * np.sin(a) * (1 - lam**2) / c**3
    return omega, eps


def numpy_matrices():
    """Global M, K, G = S_yx - S_xy of the beam, assembled in NumPy from closed forms."""
    l, m = L / N_EL, RHO * A
    ke = np.zeros((6, 6))
    ke[np.ix_([0, 3], [0, 3])] = E * A / l * np.array([[1, -1], [-1, 1]])
    b = [1, 2, 4, 5]
    ke[np.ix_(b, b)] = E * I / l**3 * np.array(
        [[12, 6 * l, -12, 6 * l], [6 * l, 4 * l * l, -6 * l, 2 * l * l],
         [-12, -6 * l, 12, -6 * l], [6 * l, 2 * l * l, -6 * l, 4 * l * l]])
    me = np.zeros((6, 6))
    me[np.ix_([0, 3], [0, 3])] = m * l / 6 * np.array([[2, 1], [1, 2]])
    me[np.ix_(b, b)] = m * l / 420 * np.array(
        [[156, 22 * l, 54, -13 * l], [22 * l, 4 * l * l, 13 * l, -3 * l * l],
         [54, 13 * l, 156, -22 * l], [-13 * l, -3 * l * l, -22 * l, 4 * l * l]])
    syx = np.zeros((6, 6))
    syx[np.ix_(b, [0, 3])] = m * l * np.array(
        [[7 / 20, 3 / 20], [l / 20, l / 30], [3 / 20, 7 / 20], [-l / 30, -l / 20]])
    ge = syx - syx.T
    n = 3 * (N_EL + 1)
    M, K, G = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
    for e in range(N_EL):
        ix = np.ix_(range(3 * e, 3 * e + 6), range(3 * e, 3 * e + 6))
        M[ix] += me
        K[ix] += ke
        G[ix] += ge
    free = np.ones(n, bool)
    free[[0, 1, n - 3, n - 2]] = False
    r = np.ix_(free, free)
    return M[r], K[r], G[r]


def scipy_turn(omega, eps, include_eps, vectors):
    M, K, G = numpy_matrices()
    out = np.empty((NT, 2))
    for k in range(NT):
        Keff = K - omega[k] ** 2 * M
        if include_eps:
            Keff = Keff + eps[k] * G
            if vectors:
                w, v = sl.eig(Keff, M)
            else:
                w = sl.eig(Keff, M, right=False)
            out[k] = np.sort(w.real)[:2]
        else:
            w = sl.eigh(Keff, M, subset_by_index=[0, 1], eigvals_only=not vectors)
            out[k] = w[0] if vectors else w
    return out


def kanefem_turn(beam, omega, eps, include_eps, vectors):
    return beam.eigenvalues_vs_time(omega, eps, 2, include_eps=include_eps, mode_shapes=vectors).eigenvalues


def kanefem_per_instant(beam, omega, eps, include_eps, vectors):
    out = np.empty((NT, 2))
    for k in range(NT):
        out[k] = beam.eigenvalues(2, omega[k], eps[k], include_eps=include_eps, mode_shapes=vectors).eigenvalues
    return out




def main():
    args = repeat_args(__doc__)
    omega, eps = crank_turn()
    beam = kanefem.PlanarBeam(L, N_EL, E=E, A=A, I=I, rho=RHO)
    print(f"kanefem {kanefem.__version__} (LAPACK: {kanefem.lapack_source()}), "
          f"{N_EL}-element pinned-pinned beam, {NT} instants, 2 modes")
    print(f"{'path':<10} {'outputs':<10} {'SciPy [ms]':>11} {'turn [ms]':>10} {'ratio':>7} "
          f"{'per-instant [ms]':>17} {'ratio':>7} {'max rel diff':>13}")
    for include_eps, path in ((False, "symmetric"), (True, "general")):
        for vectors in (False, True):
            ts, ref = best(lambda: scipy_turn(omega, eps, include_eps, vectors), args.repeat)
            beam._eig_cache.clear()  # count the one-off factorization in every run
            tk, res = best(lambda: (beam._eig_cache.clear(), kanefem_turn(beam, omega, eps, include_eps, vectors))[1], args.repeat)
            tp, res_p = best(lambda: kanefem_per_instant(beam, omega, eps, include_eps, vectors), args.repeat)
            diff = max(np.max(np.abs(res - ref) / np.abs(ref)), np.max(np.abs(res_p - ref) / np.abs(ref)))
            print(f"{path:<10} {'+shapes' if vectors else 'values':<10} {ts * 1e3:>11.2f} {tk * 1e3:>10.2f} "
                  f"{ts / tk:>7.1f} {tp * 1e3:>17.2f} {ts / tp:>7.1f} {diff:>13.1e}")


if __name__ == "__main__":
    main()
