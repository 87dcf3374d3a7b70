"""A 3D beam in spatial motion: kanefem against NumPy + SciPy.

A 20-element clamped-free steel link (Beam3D, 120 free DOFs) carried by a yaw-pitch
joint on a moving base, the motion given by 121 recorded samples of its orientation
(rotation matrices) and origin over one 2 s cycle (Motion.from_rotations).

1. Frozen-time eigenvalues (4 modes) at 360 instants of the cycle, K_eps off
   (symmetric) and on (general).  The alternative is what a user writes: the
   invariants S_ij (nine blocks), M and K taken once from kanefem, and at each
   instant K_eff = K + sum (W W)_ij S_ij [+ sum E_ij S_ij] formed in NumPy and
   handed to scipy.linalg.eigh (subset) or scipy.linalg.eig.  The frame states
   (omega, eps per instant) are handed to SciPy ready-made.
2. The response by Newmark's average acceleration, 2000 fixed steps with gravity:
   kanefem.simulate against the same Newmark loop in NumPy, C(t), K(t), f(t) formed
   from the invariants at every step and the effective matrix factored by
   scipy.linalg.lu_factor (dense) or solved by scipy.linalg.solve_banded (band).

Times are the best of several runs (the one-off context or factorization included
in every run), BLAS threads set to 1 unless the environment says otherwise; the
ratio is SciPy time / kanefem time.  KANEFEM_LAPACK_SOURCE=scipy runs the core on
SciPy's LAPACK, the same one the alternative uses.

    python bench/bench_spatial.py [--repeat 5] [--quick]
"""

import math
import os

# one thread on both sides (the core is single-threaded; a threaded BLAS on a shared
# machine measures the other processes); set these variables to override
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402
import scipy.linalg as sl  # noqa: E402

import kanefem  # noqa: E402
from _timing import best, repeat_args  # noqa: E402

L, N_EL = 0.8, 20
SECTION = dict(E=2.1e11, A=3e-4, rho=7850.0, Izz=2.5e-9, Iyy=6e-9, J=7e-9, nu=0.3)
T_CYCLE, GRAVITY = 2.0, np.array([0.0, 0.0, -9.81])


def rot(axis, a):
    k = np.asarray(axis, float)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(a) * K + (1 - math.cos(a)) * K @ K


def robot_motion():
    """Recorded samples of a yaw-pitch joint on a base moving back and forth."""
    t = np.linspace(0.0, T_CYCLE, 121)
    w = 2 * math.pi / T_CYCLE
    R = np.array([rot([0, 0, 1], 1.5 * math.sin(w * s)) @ rot([0, 1, 0], -0.6 * math.sin(2 * w * s))
                  for s in t])
    r = np.column_stack([0.3 * np.sin(w * t), 0 * t, 0.1 * np.cos(w * t)])
    return kanefem.Motion.from_rotations(t, R, r)


def skew(v):
    """(nt, 3) vectors -> (nt, 3, 3) skew matrices."""
    S = np.zeros(v.shape[:-1] + (3, 3))
    S[..., 0, 1], S[..., 0, 2], S[..., 1, 2] = -v[..., 2], v[..., 1], -v[..., 0]
    return S - np.swapaxes(S, -1, -2)


def invariants(beam, fixed):
    """M, K, S_ij (3, 3, n, n), s_ij (3, 3, n), Mo (3, n) on the free DOFs."""
    free = ~fixed
    inv = beam.inertia_invariants()
    r = np.ix_(free, free)
    return (beam.mass_matrix()[r], beam.stiffness_matrix()[r], inv["S"][:, :, free][:, :, :, free],
            inv["s"][:, :, free], inv["Mo"][:, free])


# ---------------------------------------------------------------- eigenvalues


def scipy_eigen(mats, F, include_eps):
    M, K, S, _, _ = mats
    W, E = skew(F["omega"]), skew(F["eps"])
    WW = W @ W
    out = np.empty((len(F), 4))
    for k in range(len(F)):
        c = WW[k] + E[k] if include_eps else WW[k]
        Keff = K + np.tensordot(c, S, axes=([0, 1], [0, 1]))
        if include_eps:
            out[k] = np.sort(sl.eig(Keff, M, right=False).real)[:4]
        else:
            out[k] = sl.eigh(Keff, M, subset_by_index=[0, 3], eigvals_only=True)
    return out


def kanefem_eigen(beam, F, include_eps):
    beam._eig_cache.clear()  # the one-off context in every run
    return beam.eigenvalues_vs_time(frames=F, n_modes=4, include_eps=include_eps,
                                    mode_shapes=False).eigenvalues


# ---------------------------------------------------------------- Newmark


def scipy_newmark(mats, F, dt, banded, bw):
    """Newmark's average acceleration, M a + C(t) v + K(t) d = f(t), from rest."""
    M, K, S, s, Mo = mats
    n = M.shape[0]
    W, E = skew(F["omega"]), skew(F["eps"])
    WW = W @ W
    d, v = np.zeros(n), np.zeros(n)

    def system(k):
        C = 2 * np.tensordot(W[k], S, axes=([0, 1], [0, 1]))
        Kt = K + np.tensordot(E[k] + WW[k], S, axes=([0, 1], [0, 1]))
        f = -F["a"][k] @ Mo - np.tensordot(E[k] + WW[k], s, axes=([0, 1], [0, 1]))
        return C, Kt, f

    C, Kt, f = system(0)
    a = sl.lu_solve(sl.lu_factor(M), f - C @ v - Kt @ d)
    rows, cols = np.nonzero(np.abs(np.subtract.outer(np.arange(n), np.arange(n))) <= bw)
    out = np.empty((len(F), n))
    out[0] = d
    for k in range(1, len(F)):
        C, Kt, f = system(k)
        ds, vs = d + dt * v + dt * dt / 4 * a, v + dt / 2 * a
        A = M + dt / 2 * C + dt * dt / 4 * Kt
        rhs = f - C @ vs - Kt @ ds
        if banded:
            ab = np.zeros((2 * bw + 1, n))
            ab[bw + rows - cols, cols] = A[rows, cols]
            a = sl.solve_banded((bw, bw), ab, rhs, check_finite=False)
        else:
            a = sl.lu_solve(sl.lu_factor(A, check_finite=False), rhs, check_finite=False)
        d, v = ds + dt * dt / 4 * a, vs + dt / 2 * a
        out[k] = d
    return out


def main():
    args = repeat_args(__doc__)
    nt, nsteps = (90, 400) if args.quick else (360, 2000)
    beam = kanefem.Beam3D(L, N_EL, **SECTION)
    fixed = beam.support_mask("clamped-free")
    motion = robot_motion()
    mats = invariants(beam, fixed)
    print(f"kanefem {kanefem.__version__} (LAPACK: {kanefem.lapack_source()}), {N_EL}-element "
          f"clamped-free Beam3D ({(~fixed).sum()} free DOFs) in spatial motion from samples")

    F = motion.evaluate(np.linspace(0, T_CYCLE, nt, endpoint=False)).frames
    print(f"\n1. eigenvalues, {nt} instants, 4 modes")
    print(f"{'path':<10} {'SciPy [ms]':>11} {'kanefem [ms]':>13} {'ratio':>7} {'max rel diff':>13}")
    for include_eps, path in ((False, "symmetric"), (True, "general")):
        ts, ref = best(lambda: scipy_eigen(mats, F, include_eps), args.repeat)
        tk, res = best(lambda: kanefem_eigen(beam, F, include_eps), args.repeat)
        diff = np.max(np.abs(res - ref) / np.abs(ref))
        print(f"{path:<10} {ts * 1e3:>11.1f} {tk * 1e3:>13.1f} {ts / tk:>7.1f} {diff:>13.1e}")

    t_end = T_CYCLE * nsteps / 2000
    dt = t_end / nsteps
    tt = np.linspace(0.0, t_end, nsteps + 1)
    Fg = motion.evaluate(tt, gravity=GRAVITY).frames
    bw = 11  # half bandwidth of the free DOFs: 2 nodes x 6 DOFs - 1
    print(f"\n2. Newmark response, {nsteps} steps of {dt * 1e3:g} ms, gravity")
    tk, rk = best(lambda: kanefem.simulate(beam, motion, t_end, dt=dt, gravity=GRAVITY,
                                           progress=False), args.repeat)
    dk = rk.d[:, ~fixed]
    print(f"{'alternative':<22} {'SciPy [ms]':>11} {'kanefem [ms]':>13} {'ratio':>7} {'max rel diff':>13}")
    for banded, name in ((False, "lu_factor (dense)"), (True, "solve_banded")):
        ts, ds = best(lambda: scipy_newmark(mats, Fg, dt, banded, bw), max(1, args.repeat // 2))
        diff = np.abs(ds - dk).max() / np.abs(dk).max()
        print(f"{name:<22} {ts * 1e3:>11.1f} {tk * 1e3:>13.1f} {ts / tk:>7.1f} {diff:>13.1e}")


if __name__ == "__main__":
    main()
