"""Timing shared by the benchmarks: the best of several runs (the least disturbed by
whatever else the machine does), with the last result."""

import math
import time


def best(fn, repeat, clock=time.perf_counter):
    """Run fn() repeat times; return (shortest time [s], its result): wall time, or the
    process's CPU time with clock=time.process_time (less disturbed by other jobs on a
    shared machine)."""
    t_best, out = math.inf, None
    for _ in range(max(1, repeat)):
        t0 = clock()
        out = fn()
        t_best = min(t_best, clock() - t0)
    return t_best, out


def repeat_args(doc, default_repeat=5):
    """The command line every timing benchmark shares: --repeat N, --quick (one run each,
    the CI smoke run)."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=default_repeat, help="runs per timing; the best is kept")
    ap.add_argument("--quick", action="store_true", help="one run each (CI smoke run)")
    args = ap.parse_args()
    if args.quick:
        args.repeat = 1
    return args
