"""Timing shared by the benchmarks: the best of several runs (the least disturbed by
whatever else the machine does), with the last result."""

import math
import time


def best(fn, repeat):
    """Run fn() repeat times; return (shortest wall time [s], its result)."""
    t_best, out = math.inf, None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        out = fn()
        t_best = min(t_best, time.perf_counter() - t0)
    return t_best, out
