"""The flexible slider-crank over one crank turn: kanefem (one way and two ways) against the
same mechanism in Exudyn, a general multibody code, at equal accuracy.

The mechanism: crank 0.15 m at 150 rad/s, connecting rod 0.30 m of 6 mm steel in 10 beam
elements, slider of half the rod's mass (kanefem.mechanism.slider_crank; Exudyn:
bench/_exudyn_models.py, absolute-nodal-coordinate cables).  The quantity: the rod's
midpoint deflection from its chord over the turn.

Equal accuracy: each route's time-discretization error, measured against its own solution
at 16000 steps per turn, below the same fraction (1 %) of the peak deflection: for every
route the smallest step count of a doubling ladder (62 .. 1000 steps per turn; --quick: 250
.. 1000) that reaches it is timed (best of --repeat runs).  The three routes solve
different models of the same mechanism (one way: the rigid motion drives the rod, no
coupling; two ways: kanefem's floating frame with K_G, its axial force extrapolated
(simulate_flexible(axial_force="extrapolated")); Exudyn: geometrically exact cables), so
each is held to its own converged answer; their answers' difference is printed
too.  Ratio = Exudyn time / kanefem time, in wall time (best of --repeat) and in CPU time of
this process (time.process_time, mean of the same runs: less disturbed by a loaded machine,
where a waiting process's wall time grows and its CPU time does not).  A last row times the
two-way call with every default (the step chosen and checked by its accuracy target, rtol =
1 %, by step doubling: all its runs counted; K_G's axial force iterated).

    python bench/bench_mechanism.py [--repeat 3] [--quick]
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
    """Fixed steps (no accuracy check: the ladder below finds the step); K_G's axial force
    extrapolated from the two steps before, so each step of the driven crank is one solve."""
    m = slider_crank(geometric_stiffness=True)
    fm = m.simulate_flexible(T_OUT, drives={"crank": ConstantSpeed(SPEED)}, dt=TURN / steps, rho_inf=0.9,
                             rtol=None, axial_force="extrapolated")
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


def at_accuracy(route, accuracy, ladder, repeat):
    """(steps, time, answer, error) of the cheapest rung whose error against the route's
    own solution at REFERENCE steps is below accuracy of its peak."""
    ref = route(REFERENCE)
    peak = np.abs(ref).max()
    for steps in ladder:
        v = route(steps)
        err = np.abs(v - ref).max() / peak
        if err <= accuracy:
            runs = max(repeat, 3)
            c0 = time.process_time()
            seconds, v = best(lambda: route(steps), runs)
            return steps, seconds, v, err, (time.process_time() - c0) / runs
    raise RuntimeError(f"{route.__name__}: no rung of {ladder} reaches {accuracy}")


def main():
    args = repeat_args(__doc__, default_repeat=3)
    accuracy = ACCURACY
    ladder = [62, 125, 250, 500, 1000] if not args.quick else [250, 500, 1000]
    print(f"flexible slider-crank, one turn at {SPEED} rad/s, 10 elements; midpoint deflection "
          f"to {100 * accuracy:g} % of its peak against each route's own solution at {REFERENCE} steps")
    rows = {}
    for name, route in (("kanefem one way", one_way), ("kanefem two ways", two_way), ("Exudyn (ANCF)", exudyn)):
        steps, seconds, v, err, cpu = at_accuracy(route, accuracy, ladder, args.repeat)
        rows[name] = (steps, seconds, v, cpu)
        print(f"{name:18s} {steps:6d} steps  {seconds * 1e3:9.1f} ms  (CPU {cpu * 1e3:.1f} ms; error "
              f"{100 * err:.2f} %, peak {1e3 * np.abs(v).max():.3f} mm)")
    ref = two_way(REFERENCE)
    c0 = time.process_time()
    seconds, (v, stats) = best(two_way_defaults, max(args.repeat, 3))
    cpu = (time.process_time() - c0) / max(args.repeat, 3)
    err = np.abs(v - ref).max() / np.abs(ref).max()
    rows["kanefem two ways, defaults"] = (stats["steps"], seconds, v, cpu)
    print(f"{'kanefem two ways, defaults':18s} {stats['steps']:6d} steps  {seconds * 1e3:9.1f} ms  (CPU "
          f"{cpu * 1e3:.1f} ms; error {100 * err:.2f} %, its estimate {100 * stats['error_estimate']:.2f} %, {stats['runs']} runs)")
    ex = rows["Exudyn (ANCF)"]
    for name in ("kanefem one way", "kanefem two ways", "kanefem two ways, defaults"):
        steps, seconds, v, cpu = rows[name]
        diff = np.abs(v - ex[2]).max() / np.abs(ex[2]).max()
        print(f"ratio Exudyn / {name}: {ex[1] / seconds:.1f}x wall, {ex[3] / cpu:.1f}x CPU   (answers differ "
              f"by {100 * diff:.1f} % of the peak)")


if __name__ == "__main__":
    main()
