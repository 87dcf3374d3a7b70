"""Time per step against model size: Newmark on a planar beam from 10 to 10,000 elements.

The lever of bench_integrate.py (a pinned-pinned steel beam whose frame moves as the
connecting rod of a slider-crank, given by samples), cut into 10 .. 10,000 elements.  Every
Newmark step forms C(t) and K(t) from the invariants, the effective matrix, one banded LU
(LAPACK dgbtrf, half-bandwidth 5) and its solve, so the cost per step should grow
linearly with the number of elements.  Printed: the time per step, the fitted exponent of
time ~ elements^p, and the step against the flop count of the banded factorization
(n (kl + 2 kl (kl + ku)) flops for n unknowns): the rate that count implies, and the time
of dgbtrf alone on a band matrix of the same shape (SciPy's LAPACK, for scale).

    python bench/bench_scaling.py [--quick]
"""

import argparse
import math
import os
import sys
import time

import numpy as np
import scipy.linalg.lapack as lapack

import kanefem

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_integrate import lever_case  # noqa: E402

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
        t0 = time.perf_counter()
        lu, piv, info = lapack.dgbtrf(a, KL, KU, overwrite_ab=True)
        best = min(best, time.perf_counter() - t0)
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
        t0 = time.perf_counter()
        r = kanefem.simulate(body, case["motion"], t_end, dt=1e-6, supports=case["supports"],
                             gravity=case["gravity"], t_eval=[0.0, t_end], progress=False)
        wall = time.perf_counter() - t0
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


if __name__ == "__main__":
    main()
