"""Spatial mechanisms: a rigid robot arm's motion against Pinocchio's articulated-body
algorithm with SciPy's solve_ivp, at equal accuracy; and the cost of a right-hand side of
a planar mechanism described in space against the planar solver.

1. The arm: a 3-link arm (standard Denavit-Hartenberg table, axes in three directions,
   full inertia tensors, gravity; tests/test_spatial_mechanism.py's) falling freely with
   viscous joint damping from its drawing for 2 s, 201 output instants.  What a user would
   otherwise write: Pinocchio's ABA (C++, the fastest forward dynamics there is) as the
   right-hand side of scipy.integrate.solve_ivp (RK45, Dormand-Prince 5(4) as kanefem's
   driver, and DOP853).  Equal accuracy: each route's joint angles within 1e-6 rad of its
   own converged answer (rtol 1e-12) at every output instant; for each route the loosest
   rtol of the ladder 1e-4 .. 1e-11 that reaches it is timed.  kanefem: Kane's equations of
   the spatial mechanism in C (Newton's closure, the constraint Jacobian, the projection)
   under the same driver, landing on the outputs.
2. The right-hand side: the slider-crank, the four-bar and the wind pump (its general
   description, without its closed-form assembly rule) solved by the planar solver and
   described in space (Mechanism.from_planar: 6 speeds per body instead of 3, the loops'
   out-of-plane rows redundant), CPU time per evaluation of Kane's equations over a free
   motion.

Times are process CPU times (time.process_time, best of --repeat) with one BLAS thread.

    python bench/bench_spatial_mechanism.py [--repeat 5] [--quick]
"""

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from _timing import best, repeat_args  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import kanefem  # noqa: E402
from kanefem.mechanism import Mechanism, Torque, dh_chain, four_bar, slider_crank  # noqa: E402

DURATION, POINTS, DAMPING, TARGET = 2.0, 201, 0.05, 1e-6
LADDER = [1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11]


def arm_model():
    """The 3-link arm of the tests: kanefem's and Pinocchio's descriptions."""
    from test_spatial_mechanism import arm_links, arm_table, pinocchio_arm

    table = arm_table()
    m, c, inertias = arm_links()
    arm = dh_chain(table, masses=m, centres=c, inertias=inertias)
    # viscous joint damping, the same in both
    tables = arm.to_dict()
    for t in tables["joint"]:
        t["damping"] = DAMPING
    arm = Mechanism.from_dict(tables)
    pin, model = pinocchio_arm(table, m, c, inertias, "standard")
    return arm, pin, model, table[:, 0]


EVALS = {}  # route -> right-hand sides of its last run


def kanefem_route(arm, q0, rtol, points=POINTS):
    t = np.linspace(0.0, DURATION, points)
    m = arm.solve(t, z0=q0, rtol=rtol, atol=rtol * 1e-3)
    EVALS["kanefem"] = m.stats["evaluations"]
    return m.z


def pinocchio_route(pin, model, q0, rtol, method, points=POINTS):
    from scipy.integrate import solve_ivp

    data = model.createData()
    n = len(q0)

    def f(t, y):
        q, v = y[:n], y[n:]
        return np.concatenate([v, pin.aba(model, data, q, v, -DAMPING * v)])

    t = np.linspace(0.0, DURATION, points)
    r = solve_ivp(f, (0.0, DURATION), np.concatenate([q0, np.zeros(n)]), method=method, t_eval=t, rtol=rtol,
                  atol=rtol * 1e-3)
    EVALS[method] = r.nfev
    return r.y[:n].T


def at_accuracy(route, repeat, ladder):
    """(rtol, CPU time, error) of the loosest rtol whose answer is within TARGET of the
    route's own converged one."""
    ref = route(1e-12)
    for rtol in ladder:
        err = np.abs(route(rtol) - ref).max()
        if err <= TARGET:
            t, _ = best(lambda: route(rtol), repeat, clock=time.process_time)
            return rtol, t, err, ref
    raise RuntimeError("no rtol of the ladder reaches the target")


def rhs_cost(mech, repeat, duration):
    """CPU time per evaluation of Kane's equations over a free motion under a torque."""
    coord = mech.coordinates[0].name
    t, m = best(lambda: mech.solve(duration=duration, points=11, drives={coord: Torque(0.3)}), repeat,
                clock=time.process_time)
    return t / m.stats["evaluations"], m.stats["evaluations"]


def main():
    args = repeat_args(__doc__)
    print(f"load: {os.getloadavg()[0]:.2f} (1-minute average); kanefem {kanefem.__version__}")
    try:
        arm, pin, model, q0 = arm_model()
    except Exception as exc:  # Pinocchio is the peer (kanefem[robotics]); without it, part 2 only
        print(f"part 1 skipped: {exc}")
        arm = None
    if arm is not None:
        ladder = LADDER[2:6] if args.quick else LADDER
        for points in ((POINTS,) if args.quick else (POINTS, 21)):
            print(f"1. a 3-link arm falling freely for {DURATION} s ({points} outputs), joint angles within "
                  f"{TARGET:g} rad of each route's converged answer (kanefem's steps land on every output; "
                  "solve_ivp interpolates)")
            rk, tk, ek, refk = at_accuracy(lambda r: kanefem_route(arm, q0, r, points), args.repeat, ladder)
            rows = [("kanefem (Kane, C; DP5 in C)", rk, tk, ek, EVALS["kanefem"])]
            for method in ("RK45", "DOP853"):
                rp, tp, ep, refp = at_accuracy(lambda r: pinocchio_route(pin, model, q0, r, method, points),
                                               args.repeat, ladder)
                rows.append((f"Pinocchio ABA + solve_ivp {method}", rp, tp, ep, EVALS[method]))
            print(f"   the two converged answers differ by {np.abs(refk - refp).max():.2g} rad")
            print(f"   {'route':38s} {'rtol':>8s} {'CPU [ms]':>10s} {'error [rad]':>12s} {'RHS':>6s} "
                  f"{'us/RHS':>7s} {'time / kanefem':>15s}")
            for name, r, t, e, n in rows:
                print(f"   {name:38s} {r:8.0e} {1e3 * t:10.2f} {e:12.2e} {n:6d} {1e6 * t / n:7.1f} {t / tk:15.2f}")
    print("2. CPU time per right-hand side: the planar solver against the same mechanism described in space")
    cases = [("slider-crank", slider_crank(rod=None, crank_mass=0.3, crank_inertia=2e-3)),
             ("four-bar", four_bar()),
             ("wind pump (general)", Mechanism.from_toml(kanefem.mechanism.example("windpump")))]
    if args.quick:
        cases = cases[:1]
    print(f"   {'mechanism':22s} {'planar [us]':>12s} {'spatial [us]':>13s} {'ratio':>7s}")
    for name, planar in cases:
        spatial = Mechanism.from_planar(planar)
        duration = 0.2 if args.quick else 1.0
        tp, n = rhs_cost(planar, args.repeat, duration)
        ts, _ = rhs_cost(spatial, args.repeat, duration)
        print(f"   {name:22s} {1e6 * tp:12.2f} {1e6 * ts:13.2f} {ts / tp:7.2f}   ({n} evaluations)")


if __name__ == "__main__":
    main()
