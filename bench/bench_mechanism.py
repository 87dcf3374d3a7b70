"""The flexible slider-crank over one crank turn: kanefem (one way and two ways) against the
same mechanism in Exudyn, a general multibody code, at equal accuracy.

The mechanism: crank 0.15 m at 150 rad/s, connecting rod 0.30 m of 6 mm steel in 10 beam
elements, slider of half the rod's mass (kanefem.mechanism.slider_crank; Exudyn:
bench/_exudyn_models.py, absolute-nodal-coordinate cables).  The quantity: the rod's
midpoint deflection from its chord over the turn.

Equal accuracy: each route's time-discretization error, measured against its own solution
at 16000 steps per turn, below the same fraction (1 %) of the peak deflection: for every
route the smallest step count of a doubling ladder (62 .. 1000 steps per turn; --quick: 250
.. 1000) that reaches it is timed.  The routes solve different models of the same
mechanism (one way: the rigid motion drives the rod, no coupling; two ways: kanefem's
floating frame with K_G; Exudyn: geometrically exact cables), so each is held to its own
converged answer; their answers' difference is printed too.  Two two-way rows:

  - fixed step: simulate_flexible(dt=turn / steps, rtol=None) at the ladder's step, every
    other option at its default (K_G on, its axial force extrapolated: the default where
    every coordinate is driven);
  - every default: simulate_flexible as a user calls it, the step chosen and checked by its
    accuracy target (rtol = 1 %: the returned run and one at twice its step, both timed);
    its error against the same converged curve is printed beside its own estimate.

Every call builds its model (kanefem's slider_crank(), Exudyn's system) inside the timing.
Ratio = Exudyn's time / kanefem's: CPU time of this process (time.process_time, best of
--repeat runs: a loaded machine stretches a waiting process's wall time, not its CPU time)
and wall time (best of the same number of runs).  One BLAS thread on both sides.

    python bench/bench_mechanism.py [--repeat 5] [--quick]
"""

import math
import time

import numpy as np

from _timing import best, repeat_args
import _exudyn_models

from kanefem.mechanism import ConstantSpeed, slider_crank

SPEED = 150.0
TURN = 2 * math.pi / SPEED
T_OUT = np.linspace(0.0, TURN, 51)  # compared here; the routes step as they are told
ACCURACY, REFERENCE = 0.01, 16000


def two_way(steps):
    """Fixed steps (no accuracy check: the ladder below finds the step), every other option
    at its default."""
    fm = slider_crank().simulate_flexible(T_OUT, drives={"crank": ConstantSpeed(SPEED)}, dt=TURN / steps,
                                          rtol=None)
    return fm.deflection("rod", 0.15)


def two_way_defaults():
    """As a user calls it: every default, the step chosen and checked by rtol = 1 %."""
    fm = slider_crank().simulate_flexible(T_OUT, drives={"crank": ConstantSpeed(SPEED)})
    return fm.deflection("rod", 0.15), fm.stats


def one_way(steps):
    """The rigid motion (Dormand-Prince, landing on the samples), then the rod's response on
    its frame's motion (Newmark) at the given steps per turn."""
    m = slider_crank(geometric_stiffness=True)
    motion = m.solve(np.linspace(0.0, TURN, max(steps // 4, 50) + 1), drives={"crank": ConstantSpeed(SPEED)})
    r = m.link_response(motion, "rod", dt=TURN / steps)
    node = m.link("rod").body.n_elements // 2
    return np.interp(T_OUT, motion.t, r.d[:, 3 * node + 1])


def exudyn(steps):
    t, v = _exudyn_models.slider_crank(n_elements=10, steps=int(steps), rho_inf=0.9)
    return np.interp(T_OUT, t, v)


def timed(fn, repeat):
    """(best CPU time, best wall time, the last result) over repeat runs each."""
    cpu, out = best(fn, repeat, clock=time.process_time)
    wall, _ = best(fn, repeat)
    return cpu, wall, out


def at_accuracy(route, accuracy, ladder, repeat):
    """(steps, CPU time, wall time, answer, error) of the cheapest rung whose error against
    the route's own solution at REFERENCE steps is below accuracy of its peak."""
    ref = route(REFERENCE)
    peak = np.abs(ref).max()
    for steps in ladder:
        v = route(steps)
        err = np.abs(v - ref).max() / peak
        if err <= accuracy:
            cpu, wall, v = timed(lambda: route(steps), max(repeat, 3))
            return steps, cpu, wall, v, err
    raise RuntimeError(f"{route.__name__}: no rung of {ladder} reaches {accuracy}")


def main():
    args = repeat_args(__doc__, default_repeat=5)
    accuracy = ACCURACY
    ladder = [62, 125, 250, 500, 1000] if not args.quick else [250, 500, 1000]
    print(f"flexible slider-crank, one turn at {SPEED} rad/s, 10 elements; midpoint deflection "
          f"to {100 * accuracy:g} % of its peak against each route's own solution at {REFERENCE} steps")
    rows = {}
    for name, route in (("kanefem one way", one_way), ("kanefem two ways, fixed step", two_way),
                        ("Exudyn (ANCF)", exudyn)):
        steps, cpu, wall, v, err = at_accuracy(route, accuracy, ladder, args.repeat)
        rows[name] = (cpu, wall, v)
        print(f"{name:33s} {steps:5d} steps  CPU {cpu * 1e3:7.2f} ms  wall {wall * 1e3:7.2f} ms  error "
              f"{100 * err:.2f} %  peak {1e3 * np.abs(v).max():.3f} mm")
    ref = two_way(REFERENCE)
    cpu, wall, (v, stats) = timed(two_way_defaults, max(args.repeat, 3))
    err = np.abs(v - ref).max() / np.abs(ref).max()
    rows["kanefem two ways, every default"] = (cpu, wall, v)
    print(f"{'kanefem two ways, every default':33s} {stats['steps']:5d} steps  CPU {cpu * 1e3:7.2f} ms  wall "
          f"{wall * 1e3:7.2f} ms  error {100 * err:.2f} %  (its estimate {100 * stats['error_estimate']:.2f} %, "
          f"{stats['runs']} runs: {stats['steps'] // 3} + {2 * stats['steps'] // 3} steps)"
          if stats["runs"] == 2 else
          f"{'kanefem two ways, every default':33s} {stats['steps']:5d} steps  CPU {cpu * 1e3:7.2f} ms  wall "
          f"{wall * 1e3:7.2f} ms  error {100 * err:.2f} %  (its estimate {100 * stats['error_estimate']:.2f} %, "
          f"{stats['runs']} runs)")
    ex_cpu, ex_wall, ex_v = rows["Exudyn (ANCF)"]
    print("ratios, Exudyn / kanefem at equal accuracy (CPU, wall):")
    for name in ("kanefem one way", "kanefem two ways, fixed step", "kanefem two ways, every default"):
        cpu, wall, v = rows[name]
        diff = np.abs(v - ex_v).max() / np.abs(ex_v).max()
        print(f"  {name:33s} {ex_cpu / cpu:5.1f}x CPU  {ex_wall / wall:5.1f}x wall   (answers differ by "
              f"{100 * diff:.1f} % of the peak)")


if __name__ == "__main__":
    main()
