"""Time per step against model size: Newmark on a planar beam from 10 to 10,000 elements.

The lever of bench_integrate.py (a pinned-pinned steel beam whose frame moves as the
connecting rod of a slider-crank, given by samples), cut into 10 .. 10,000 elements.  Every
Newmark step forms C(t) and K(t) from the invariants, the effective matrix, one banded LU
(LAPACK dgbtrf, half-bandwidth 5) and its solve, so the cost per step should grow
linearly with the number of elements.  Printed: the time per step, the fitted exponent of
time ~ elements^p, and the step against the flop count of the banded factorization
(n (kl + 2 kl (kl + ku)) flops for n unknowns): the rate that count implies, and the time
of dgbtrf alone on a band matrix of the same shape (SciPy's LAPACK, for scale).

Then (issue 19) the beam's other calls against size on its banded storage, each side by
side with what a user would write in SciPy, in the same run, on one BLAS thread (the load
average is printed): the motion terms (time and the Python-side peak memory, tracemalloc)
against the dense path; the lowest 6 eigenvalues at one instant against
``scipy.sparse.linalg.eigsh`` in shift-invert mode on the same matrices; the lowest 6 over
360 instants of a spin-up (planar symmetric: kanefem's exact shift lambda - omega^2)
against an ``eigsh`` loop; and a Newmark step against one ``scipy.linalg.solve_banded``
(factor and solve) of the same order.  Fitted exponents time ~ elements^p.

And the meshes (issue 19): the hex8 bar of bench_meshes.py at 1e3, 1e4 and 1e5 DOF (1e3
with --quick), clamped, spinning about z with an angular and an origin acceleration,
each call in a fresh process against what a scikit-fem user writes, in the same run:
the motion terms (C, K_eps, K_om and the load vectors: kanefem combines its invariants,
scikit-fem assembles the forms of the instant); the lowest 6 with shapes at the spinning
instant (kanefem's sparse eigen path against eigsh shift-invert on K + K_om); a Newmark
step at constant spin (kanefem: the first step with its factorizations, then a step
reusing the factor; scikit-fem: splu of the effective matrix and one solve, then a
solve).  Peak resident memory of each process (interpreter and imports included, and
above the imports alone), fitted exponents time and memory ~ DOF^p.

Every time is CPU time (one BLAS thread on both sides: a run's own time on a shared
machine), the best of the runs.

    python bench/bench_scaling.py [--quick]
"""

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one BLAS thread, both sides
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402
import scipy.linalg as la  # noqa: E402
import scipy.linalg.lapack as lapack  # noqa: E402
import scipy.sparse.linalg as spla  # noqa: E402

import kanefem  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import best as _best  # noqa: E402


def best(fn, repeat, clock=time.process_time):
    """(shortest CPU time of repeat runs [s], the last result)."""
    return _best(fn, repeat, clock=clock)
from bench_integrate import lever_case  # noqa: E402
from continuation_prototype import continuation  # noqa: E402

SIZES = (10, 30, 100, 300, 1000, 3000, 10000)
KL = KU = 5  # a planar beam: 2 nodes x 3 DOFs per element


def lu_flops(n):
    """dgbtrf on an n x n band: per column kl multipliers and a kl x (kl + ku) update."""
    return n * (KL + 2 * KL * (KL + KU))


def dgbtrf_seconds(n, repeat):
    """Time of SciPy's dgbtrf alone on a diagonally dominant band matrix of order n."""
    rng = np.random.default_rng(0)
    ab = np.zeros((2 * KL + KU + 1, n), order="F")
    ab[KL:, :] = rng.standard_normal((KL + KU + 1, n))
    ab[KL + KU, :] += 4 * (KL + KU + 1)  # the diagonal
    best = math.inf
    for _ in range(repeat):
        a = ab.copy(order="F")
        t0 = time.process_time()
        lu, piv, info = lapack.dgbtrf(a, KL, KU, overwrite_ab=True)
        best = min(best, time.process_time() - t0)
        assert info == 0
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="CI smoke run: fewer steps per size")
    args = ap.parse_args()
    work = 2e5 if args.quick else 2e6  # element-steps per size
    print(f"kanefem {kanefem.__version__} (LAPACK: {kanefem.lapack_source()}); Newmark, dt = 1 us; "
          "one LU of the effective matrix per step")
    head = (f"{'elements':>8} {'unknowns':>8} {'steps':>6} {'us/step':>9} {'us/step/el':>10} "
            f"{'LU Mflop':>8} {'Mflop/s':>8} {'dgbtrf us':>9} {'step/LU':>7}")
    print(head)
    print("-" * len(head))
    rows = []
    for nel in SIZES:
        case = lever_case(nel)
        steps = int(max(20, min(20000, work / nel)))
        t_end = steps * 1e-6
        body = case["body"]
        # warm up (page faults, caches), then time
        kanefem.simulate(body, case["motion"], 5e-6, dt=1e-6, supports=case["supports"],
                         gravity=case["gravity"], t_eval=[0.0, 5e-6], progress=False)
        t0 = time.process_time()
        r = kanefem.simulate(body, case["motion"], t_end, dt=1e-6, supports=case["supports"],
                             gravity=case["gravity"], t_eval=[0.0, t_end], progress=False)
        wall = time.process_time() - t0
        assert r.stats["steps"] == steps and r.stats["factorizations"] == steps + 1
        n = int((~body.support_mask(case["supports"])).sum())
        per = wall / steps
        flops = lu_flops(n)
        lu = dgbtrf_seconds(n, 3 if args.quick else 10)
        rows.append((nel, per))
        print(f"{nel:>8} {n:>8} {steps:>6} {per * 1e6:>9.1f} {per * 1e6 / nel:>10.3f} "
              f"{flops / 1e6:>8.3f} {flops / per / 1e6:>8.0f} {lu * 1e6:>9.1f} {per / lu:>7.1f}")
    nel, per = np.array(rows).T
    p_all = np.polyfit(np.log(nel), np.log(per), 1)[0]
    big = nel >= 100
    p_big = np.polyfit(np.log(nel[big]), np.log(per[big]), 1)[0]
    print(f"\nfitted exponent, time per step ~ elements^p: p = {p_all:.3f} (10..10,000), "
          f"p = {p_big:.3f} (100..10,000; below that a fixed cost per step weighs in)")
    print("'Mflop/s' is the banded LU's flop count divided by the whole step's time; "
          "'step/LU' the step against dgbtrf alone (SciPy's LAPACK): the rest of a step forms "
          "C(t), K(t), the effective matrix and the right-hand side, and solves.")
    beam_calls(args.quick)
    spatial_turn(1 if args.quick else 5)
    mesh_calls(args.quick)


# ---------------------------------------------------------------- issue 19: the other calls


def fit(sizes, times):
    """The exponent p of time ~ elements^p (least squares in log-log)."""
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])


def peak_bytes(fn):
    """(result, peak Python-side bytes allocated during fn()) by tracemalloc."""
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def steel_beam(nel, storage):
    return kanefem.PlanarBeam(1.0, nel, E=2.1e11, A=1e-4, I=1e-8, rho=7800.0, storage=storage)


def reduced(beam, supports="pinned-pinned"):
    """K, M over the free DOFs as SciPy CSC (what an eigsh user starts from)."""
    free = ~beam.support_mask(supports)
    K, M = (A[free][:, free].tocsc() for A in (beam.stiffness_matrix(), beam.mass_matrix()))
    return K, M


def beam_calls(quick):
    sizes = (10, 100, 1000, 10000) if quick else SIZES
    repeat = 1 if quick else 3
    load = os.getloadavg()[0]
    print(f"\nissue 19: a pinned-pinned steel beam 1 m, storage='banded'; one BLAS thread; "
          f"load average {load:.2f} on {os.cpu_count()} CPUs")
    head = (f"{'elements':>8} {'mt ms':>8} {'mt MB':>7} {'dense ms':>9} {'dense MB':>9} "
            f"{'eig6 ms':>8} {'eigsh ms':>8} {'/eigsh':>6} {'360 ms':>8} {'loop ms':>9} {'x360':>6} {'step us':>8} "
            f"{'solve_banded us':>15}")
    print(head)
    print("-" * len(head))
    rows = []
    omega = np.linspace(0.0, 50.0, 360)  # a spin-up: 360 instants, planar symmetric
    for nel in sizes:
        beam = steel_beam(nel, "banded")
        t_mt, (_, mem) = best(lambda: peak_bytes(lambda: beam.motion_terms(30.0, 100.0)), repeat)
        if nel <= 1000:
            dense = steel_beam(nel, "dense")
            t_dn, (_, mem_dn) = best(lambda: peak_bytes(lambda: dense.motion_terms(30.0, 100.0)), repeat)
        else:
            t_dn = mem_dn = math.nan  # 7 GB a matrix at 10,000 elements
        # eigen timings in CPU time, each call on the body with its eigen cache emptied (the
        # factors, ARPACK, refinement and certificates counted; building the body is not,
        # as building K and M is not on eigsh's side)
        cold = lambda: (beam._eig_cache.clear(), beam)[1]  # noqa: E731
        t_e6, _ = best(lambda: cold().eigenvalues(6, mode_shapes=False), 3 * repeat, clock=time.process_time)
        K, M = reduced(beam)
        t_sh, _ = best(lambda: spla.eigsh(K, 6, M, sigma=0.0, return_eigenvectors=False), 3 * repeat,
                       clock=time.process_time)
        t_360, _ = best(lambda: cold().eigenvalues_vs_time(omega, np.zeros(360), 6, mode_shapes=False), repeat,
                        clock=time.process_time)
        if nel <= 1000 or not quick:
            # what a user writes without the shift: eigsh of K - omega^2 M at every instant
            # (sigma below the spectrum), 36 of the 360 timed and scaled
            t_loop, _ = best(lambda: [spla.eigsh(K - w * w * M, 6, M, sigma=-w * w, return_eigenvectors=False)
                                      for w in omega[::10]], 1, clock=time.process_time)
            t_loop *= 10.0
        else:
            t_loop = math.nan
        case = lever_case(nel)
        steps = int(max(20, min(2000, 2e5 / nel)))
        kanefem.simulate(case["body"], case["motion"], 5e-6, dt=1e-6, supports=case["supports"],
                         gravity=case["gravity"], progress=False)
        t_st, _ = best(lambda: kanefem.simulate(case["body"], case["motion"], steps * 1e-6, dt=1e-6,
                                                supports=case["supports"], gravity=case["gravity"],
                                                t_eval=[0.0, steps * 1e-6], progress=False), 1)
        ab = np.zeros((2 * KL + 1, K.shape[0]))
        ab[KL, :] = 4.0 * (2 * KL + 1)
        ab[:KL, :] = ab[KL + 1:, :] = 1.0
        rhs = np.ones(K.shape[0])
        t_sb, _ = best(lambda: la.solve_banded((KL, KL), ab, rhs), 5 * repeat)
        rows.append((nel, t_mt, mem, t_e6, t_sh, t_360, t_loop, t_st / steps, t_sb))
        print(f"{nel:>8} {t_mt * 1e3:>8.2f} {mem / 1e6:>7.2f} {t_dn * 1e3:>9.2f} {mem_dn / 1e6:>9.2f} "
              f"{t_e6 * 1e3:>8.1f} {t_sh * 1e3:>8.1f} {t_e6 / t_sh:>6.2f} {t_360 * 1e3:>8.1f} {t_loop * 1e3:>9.1f} "
              f"{t_loop / t_360:>6.0f} "
              f"{t_st / steps * 1e6:>8.1f} {t_sb * 1e6:>15.1f}")
    r = np.array(rows)
    big = r[:, 0] >= 100
    names = ("motion terms", "their memory", "lowest 6, one instant", "eigsh", "lowest 6, 360 instants",
             "eigsh loop", "Newmark step", "solve_banded")
    print("\nfitted exponents (100..10,000 elements): " + "; ".join(
        f"{name} p = {fit(r[big, 0], r[big, k + 1]):.2f}" for k, name in enumerate(names)
        if np.all(np.isfinite(r[big, k + 1]))))
    print("mt: motion_terms (C, K_eps, K_om as CSR and the load vectors); MB: Python-side peak "
          "(tracemalloc; the core's band temporaries, the size of its results, not counted); "
          "dense: the same call on storage='dense' (n^2 a matrix, beyond memory at 10,000); "
          "eig6: eigenvalues(6), CPU time, eigen cache emptied (factor, ARPACK, refinement, "
          "certificates), vs eigsh(K, 6, M, sigma=0) on the same reduced K, M ('/eigsh': the goal "
          "is <= 2); 360: eigenvalues_vs_time over a spin-up vs an eigsh loop (36 instants timed, "
          "x10; 'x360': the goal is >= 5); step: one Newmark step of the slider-crank lever "
          "vs one solve_banded (LU and solve) of the same order and half-bandwidth.")



def spatial_turn(repeat):
    """The lowest 6 of a spinning clamped-free Beam3D (20 elements, 120 free DOFs) over 360
    instants (K_eps off): kanefem's certified continuation in C against the NumPy prototype
    (bench/continuation_prototype.py) on the same matrices, and against eigh per instant."""
    b = kanefem.Beam3D(1.0, 20, E=2.1e11, A=1e-4, Izz=1e-8, Iyy=2e-8, J=3e-8, rho=7800.0, storage="dense")
    t = np.linspace(0.0, 1.0, 360)
    om = np.column_stack([5.0 * np.sin(2 * np.pi * t), 10.0 * t, 40.0 * t])
    free = ~b.support_mask("clamped-free")
    K, M = (A[np.ix_(free, free)] for A in (b.stiffness_matrix(), b.mass_matrix()))
    S = b.inertia_invariants()["S"][:, :, free][:, :, :, free]

    def A_of_t(k):
        w = om[k]
        W = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
        return K + np.einsum("ij,ijkl->kl", W @ W, S)

    cpu = time.process_time
    t_k, r = best(lambda: b.eigenvalues_vs_time(om, np.zeros((360, 3)), 6, include_eps=False,
                                                mode_shapes=False), repeat, clock=cpu)
    t_p, (lam, st) = best(lambda: continuation(K, M, A_of_t, 360, 6), repeat, clock=cpu)
    t_e, ref = best(lambda: np.array([la.eigh(A_of_t(k), M, eigvals_only=True, subset_by_index=[0, 5])
                                      for k in range(360)]), max(1, repeat // 2), clock=cpu)
    err = float(np.max(np.abs(r.eigenvalues - ref) / np.abs(ref)))
    print(f"\nspatial turn, Beam3D 120 free DOFs, lowest 6 over 360 instants, CPU time (load {os.getloadavg()[0]:.2f}; "
          "the goal: >= 2x the prototype): "
          f"kanefem {t_k * 1e3:.1f} ms ({r.stats}), NumPy continuation prototype {t_p * 1e3:.1f} ms "
          f"({st['iterations']} block iterations), eigh per instant {t_e * 1e3:.1f} ms; kanefem "
          f"{t_p / t_k:.2f}x the prototype, {t_e / t_k:.2f}x eigh; largest relative difference from "
          f"eigh {err:.1e}")

# ---------------------------------------------------------------- issue 19: meshes


def mesh_calls(quick):
    """The mesh rows: bench_meshes.py's workers ("motion", "spin", "step", and "base" for
    the imports alone), each in a fresh process, kanefem and scikit-fem side by side."""
    import bench_meshes as bm

    try:
        import skfem  # noqa: F401
    except ImportError:
        print("\nmeshes: scikit-fem is not installed (pip install scikit-fem): nothing to compare against")
        return
    sizes = (1e3,) if quick else (1e3, 1e4, 1e5)
    repeat = 1 if quick else 2
    print(f"\nissue 19: a clamped hex8 steel bar 10:1:1 (bench_meshes.py), spinning at omega = {bm.OMEGA} rad/s, "
          f"eps = {bm.EPS} rad/s^2; CPU seconds, peak resident MiB of the call's own process; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    head = (f"{'DOF':>7} {'motion terms ms':>17} {'MiB':>11} {'lowest 6 s':>13} {'MiB':>11} {'|dlam|/lam':>10} "
            f"{'1st step s':>12} {'step ms':>13} {'MiB':>11}")
    print(head + "\n" + " " * 8 + "kanefem / scikit-fem in each pair of columns")
    print("-" * len(head))
    rows, worst = [], 0.0
    for size in sizes:
        r = {(side, step): bm.run(side, step, int(size), repeat) for step in ("base", "motion", "spin", "step")
             for side in ("kanefem", "skfem")}
        la, lb = np.array(r["kanefem", "spin"]["lam"]), np.array(r["skfem", "spin"]["lam"])
        d = float(np.max(np.abs(la - lb) / np.abs(lb)))
        ca, cb = r["kanefem", "motion"]["check"], r["skfem", "motion"]["check"]
        worst = max(worst, d, abs(ca - cb) / abs(cb))

        def pair(step, key="time", scale=1.0, fmt="{:6.1f}"):
            return f"{fmt.format(r['kanefem', step][key] * scale)} /{fmt.format(r['skfem', step][key] * scale)}"

        def mem(step):
            return f"{r['kanefem', step]['rss']:5.0f} /{r['skfem', step]['rss']:5.0f}"

        ndof = r["kanefem", "spin"]["ndof"]
        rows.append((ndof, r))
        print(f"{ndof:>7} {pair('motion', scale=1e3, fmt='{:7.1f}'):>17} {mem('motion'):>11} "
              f"{pair('spin', fmt='{:5.2f}'):>13} {mem('spin'):>11} {d:>10.1e} "
              f"{pair('step', fmt='{:5.2f}'):>12} {pair('step', 'step', 1e3, '{:5.1f}'):>13} {mem('step'):>11}")
    print("base MiB (the interpreter and the imports alone): "
          + "; ".join(f"{n} DOF kanefem {r['kanefem', 'base']['rss']:.0f}, scikit-fem {r['skfem', 'base']['rss']:.0f}"
                      for n, r in rows))
    if len(rows) > 1:
        n = np.array([row[0] for row in rows], dtype=float)
        fits = []
        for label, step, key in (("motion terms", "motion", "time"), ("lowest 6", "spin", "time"),
                                 ("first step", "step", "time"), ("step", "step", "step")):
            for side in ("kanefem", "skfem"):
                t = [row[1][side, step][key] for row in rows]
                m = [row[1][side, step]["rss"] - row[1][side, "base"]["rss"] for row in rows]
                fits.append(f"{label} {side}: time p = {fit(n, t):.2f}, memory above the imports p = {fit(n, m):.2f}")
        print("fitted exponents (time, memory ~ DOF^p):\n  " + "\n  ".join(fits))
    print("motion terms: kanefem's motion_terms (a combination of the invariants) vs scikit-fem's asm of the "
          "three bilinear and three linear forms of the instant; lowest 6: eigenvalues(6, omega, solver='sparse') "
          "with shapes vs condense + eigsh(K + K_om, 6, M, sigma below the spectrum); 1st step: kanefem's "
          "simulate of one step (M and the effective matrix factored, nested dissection) vs splu of the "
          "effective matrix (COLAMD) and a solve; step: kanefem's further steps (the factor reused: solves) vs "
          "a solve of splu's factor.")
    if worst > 1e-8:
        print(f"the two sides differ by {worst:.2e} > 1e-8")


if __name__ == "__main__":
    main()
