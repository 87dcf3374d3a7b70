"""Sweeps on 2 cores: threads against one thread, and a local Dask cluster's overhead.

The same sweep, the wind pump's lever eigenvalues over one crank turn on the periodic
motion (kanefem.studies.windpump_lever: shooting for the steady state, the rigid
motion at 360 instants, joint forces, 2 eigenvalues of the 10-element lever per
instant) at N crank speeds, run

* on 1 thread (what a user's for-loop does) and on 2 threads (kanefem.sweep's
  default on this machine): ratio = 1-thread time / 2-thread time (2.0 is perfect);
* on a dask.distributed.LocalCluster of 2 single-threaded worker processes: the
  overhead per point = (Dask time - 2-thread time) / N;
* with a store (one NPZ per point, written atomically with fsync) against none.

First, the call that used to serialize threads: WindPump.solve (steady state, one
turn) for N speeds on 1 and 2 threads, and on 2 processes (sharing nothing: the
ceiling for this workload under whatever else loads the machine); before the per-step 2x2 and 11x11 solves were
taken out of LAPACK, SciPy's OpenBLAS route ran it at 0.70-0.80x of serial on 2
threads.  Run once per LAPACK route (KANEFEM_LAPACK_SOURCE=scipy for SciPy's).

    python bench/bench_sweep.py [--repeat 3] [--quick]
"""

import concurrent.futures as cf
import os
import tempfile
import time

import kanefem
from _timing import best, repeat_args
from kanefem import studies


def solve_one(rpm):
    """One steady-state turn; the CPU time it took [s] (a lock that spins, as OpenBLAS's
    does, shows there even when other jobs load the machine)."""
    c0 = time.thread_time()
    kanefem.WindPump().solve(rpm=rpm, revolutions=1, steady_state=True)
    return time.thread_time() - c0


def main():
    args = repeat_args(__doc__, default_repeat=3)
    n = 4 if args.quick else 16
    rpms = [100.0 + 100.0 * k / (n - 1) for k in range(n)]
    grid = {"rpm": rpms}
    study = studies.windpump_lever
    print(f"kanefem {kanefem.__version__}, LAPACK: {kanefem.lapack_source()}, {os.cpu_count()} CPU(s), "
          f"{n} points, best of {args.repeat}")

    print(f"load average {os.getloadavg()[0]:.2f} (other jobs on the 2 cores lower every 2-way ratio; "
          "2 processes share nothing and give this workload's ceiling)")
    with cf.ThreadPoolExecutor(1) as one, cf.ThreadPoolExecutor(2) as two, cf.ProcessPoolExecutor(2) as procs:
        list(procs.map(solve_one, rpms[:2]))  # start the workers
        t1, c1 = best(lambda: sum(one.map(solve_one, rpms)), args.repeat)
        t2, c2 = best(lambda: sum(two.map(solve_one, rpms)), args.repeat)
        tp, _ = best(lambda: sum(procs.map(solve_one, rpms)), args.repeat)
    print(f"{'WindPump.solve x' + str(n):34s} 1 thread {t1:7.3f} s   2 threads {t2:7.3f} s   ratio {t1 / t2:5.2f}x"
          f"   (2 processes {t1 / tp:.2f}x; CPU time 2 threads / 1 thread {c2 / c1:.2f})")

    t1, ref = best(lambda: kanefem.sweep(study, grid, workers=1, progress=False), args.repeat)
    t2, res = best(lambda: kanefem.sweep(study, grid, workers=2, progress=False), args.repeat)
    print(f"{'sweep windpump_lever':34s} 1 thread {t1:7.3f} s   2 threads {t2:7.3f} s   ratio {t1 / t2:5.2f}x"
          f"   ({1e3 * t1 / n:.1f} ms per point)")

    def stored():
        with tempfile.TemporaryDirectory() as tmp:
            return kanefem.sweep(study, grid, workers=2, store=tmp, progress=False)

    ts, _ = best(stored, args.repeat)
    print(f"{'  with a store (NPZ per point)':34s} 2 threads {ts:7.3f} s   overhead {1e3 * (ts - t2) / n:+.2f} ms per point")

    try:
        import distributed
    except ImportError:
        print("Dask: not installed (pip install 'kanefem[dask]')")
        return
    t0 = time.perf_counter()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        t_start = time.perf_counter() - t0
        kanefem.sweep(study, {"rpm": [140.0, 141.0]}, executor=client, progress=False)  # warm the workers
        td, dres = best(lambda: kanefem.sweep(study, grid, executor=client, progress=False), args.repeat)
    same = all((a["eigenvalues"] == b["eigenvalues"]).all() for a, b in zip(res.results, dres.results))
    print(f"{'sweep on Dask LocalCluster(2)':34s} {td:7.3f} s   overhead {1e3 * (td - t2) / n:+.1f} ms per point "
          f"vs 2 threads (cluster start {t_start:.1f} s); same results: {same}")


if __name__ == "__main__":
    main()
