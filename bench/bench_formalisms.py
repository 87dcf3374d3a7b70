"""What it costs to derive the equations of motion by Kane, Gibbs-Appell, Lagrange,
Hamilton and Maggi, measured, beside the papers' Table 1; and the numeric routes of the
C core timed against each other.

Part 1 (SymPy, kanefem.symbolic): for each method and body size n, the equations of n
planar beam elements are derived and we record the scalar derivatives actually taken
(every call of sympy.diff, counted), the same counted per vector/matrix operation, the
size of the result (sympy.count_ops) and the wall time.  Route "element" differentiates
each element with respect to its own coordinates and assembles (what a finite element
code does); route "monolithic" differentiates the body's energies with respect to every
coordinate (run for small n only).  Maggi projects Lagrange's expressions onto the
null space of the pinned-pinned supports.  The papers' figures (seed 000 Table 1, seed
004 Table 1) are printed beside; they do not say what they counted.

Part 2 (C core): Kane's generalized inertia forces at one state by the invariants
(M d'' + C d' + ...) and by direct quadrature of (R N)^T a; frozen-time eigenvalues over
a crank turn with supports deleted and with Maggi's projection onto a QR null-space
basis.  Ratios are times of the second route over the first; differences are relative.

    python bench/bench_formalisms.py [--out DIR] [--resume] [--quick]

--out DIR writes DIR/formalisms_costs.csv (atomically, after every derivation);
--resume skips the derivations already in that file (a full run takes 10-20 minutes).
"""

import argparse
import math
import platform
from pathlib import Path

import numpy as np

import kanefem
from _timing import best

FULL_SIZES = (5, 10, 15, 20, 25, 30, 40)
QUICK_SIZES = (1, 2, 5)


def part1(args):
    import sympy

    from kanefem import symbolic

    sizes = QUICK_SIZES if args.quick else tuple(args.sizes)
    mono_max = 1 if args.quick else args.monolithic_max_n
    path = Path(args.out) / "formalisms_costs.csv" if args.out else None
    done = symbolic.read_cost_csv(path) if (args.resume and path and path.exists()) else {}
    rows = []

    def progress(row):
        rows.append(row)
        if row.status != "ok" and (row.method, row.route, row.n_elements) not in done:
            return  # not run (see the tables)
        t = "" if row.status != "ok" else f"{row.seconds:8.2f} s"
        print(f"  {row.route:<10} {row.method:<13} n = {row.n_elements:>2}: "
              f"{row.derivatives:>6} derivatives {row.matrix_ops:>5} matrix ops "
              f"{row.ops:>8} ops {t} {'' if row.status == 'ok' else row.status}", flush=True)
        if path:
            symbolic.write_cost_csv(list(done.values()) + [r for r in rows if (r.method, r.route, r.n_elements) not in done], path)

    print(f"Part 1: derivations in SymPy {sympy.__version__} (sizes {sizes}; monolithic up to "
          f"n = {mono_max}; a (method, route) stops after a derivation over {args.max_seconds:.0f} s)")
    all_rows = symbolic.measure_costs(
        n_elements=sizes, routes=("element", "monolithic"), max_seconds=args.max_seconds,
        monolithic_max_n=mono_max, measure_sizes=not args.quick, progress=progress, done=done,
    )
    if path:
        symbolic.write_cost_csv(all_rows, path)
        print(f"wrote {path}")
    print()
    for route in ("element", "monolithic"):
        print(symbolic.format_cost_table(all_rows, route))
        print()
    ok = {(r.method, r.route, r.n_elements): r for r in all_rows if r.status == "ok"}
    print("Ratios per size, element route (measured scalar derivatives | paper; time):")
    print(f"{'n':>3} {'L/K derivs':>11} {'paper':>7} {'GA/K derivs':>12} {'paper':>7} "
          f"{'L/K time':>9} {'GA/K time':>10} {'H/K time':>9}")
    for n in sizes:
        k, lg, ga, h = (ok.get((m, "element", n)) for m in ("kane", "lagrange", "gibbs-appell", "hamilton"))
        if not (k and lg and ga):
            continue
        p = symbolic.PAPER_TABLE1.get(n)
        pl = f"{p['lagrange'] / p['kane']:.1f}" if p else "-"
        pg = f"{p['gibbs-appell'] / p['kane']:.1f}" if p else "-"
        ht = f"{h.seconds / k.seconds:.1f}" if h else "-"
        print(f"{n:>3} {lg.derivatives / k.derivatives:>11.2f} {pl:>7} {ga.derivatives / k.derivatives:>12.2f} "
              f"{pg:>7} {lg.seconds / k.seconds:>9.1f} {ga.seconds / k.seconds:>10.1f} {ht:>9}")
    return all_rows




def part2(args):
    repeat = 1 if args.quick else 5
    print(f"\nPart 2: numeric routes in the C core (LAPACK: {kanefem.lapack_source()}), best of {repeat}")
    print(f"{'task':<44} {'first [ms]':>11} {'second [ms]':>12} {'ratio':>7} {'max rel diff':>13}")
    rng = np.random.default_rng(0)
    for n in (10, 40):
        beam = kanefem.PlanarBeam(0.6, n, E=210e9, A=2e-4, I=1.67e-9, rho=7850)
        d, d_t, d_tt = rng.uniform(-1e-3, 1e-3, (3, beam.ndof))
        calls = 200

        def run(route):
            return [beam.inertia_forces(d, d_t, d_tt, 14.66, 30.0, (0.5, -9.81), route=route)
                    for _ in range(calls)][-1]

        t1, f1 = best(lambda: run("invariants"), repeat)
        t2, f2 = best(lambda: run("quadrature"), repeat)
        diff = np.abs(f1 - f2).max() / np.abs(f1).max()
        print(f"{f'F* at one state, {n} elements (x{calls})':<44} {t1 * 1e3:>11.2f} {t2 * 1e3:>12.2f} "
              f"{t2 / t1:>7.2f} {diff:>13.1e}")
    # eigenvalues over a crank turn: supports deleted vs Maggi's projection
    beam = kanefem.PlanarBeam(0.6, 10, E=210e9, A=2e-4, I=1.67e-9, rho=7850)
    a = np.linspace(0, 2 * math.pi, 360, endpoint=False)
    w1, lam = 140 * 2 * math.pi / 60, 0.1 / 0.6
    c = np.sqrt(1 - (lam * np.sin(a)) ** 2)
    omega, eps = w1 * lam * np.cos(a) / c, -(w1**2) * lam * np.sin(a) * (1 - lam**2) / c**3
    G = beam.constraint_matrix("pinned-pinned")
    G = np.linalg.qr(rng.normal(size=(4, 4)))[0] @ G  # rotated rows: a basis that is not a selection

    def turn(**kw):
        beam._eig_cache.clear()  # count the one-off factorization in every run
        return beam.eigenvalues_vs_time(omega, eps, 2, mode_shapes=False, **kw).eigenvalues

    t1, e1 = best(lambda: turn(supports="pinned-pinned"), repeat)
    t2, e2 = best(lambda: turn(constraints=G), repeat)
    print(f"{'eigenvalues, 360 instants, supports vs Maggi':<44} {t1 * 1e3:>11.2f} {t2 * 1e3:>12.2f} "
          f"{t2 / t1:>7.2f} {np.abs(e1 / e2 - 1).max():>13.1e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=list(FULL_SIZES),
                    help="numbers of elements (default: the papers' 5 10 15 20 25 30 40)")
    ap.add_argument("--monolithic-max-n", type=int, default=10,
                    help="run the monolithic route up to this size (default 10)")
    ap.add_argument("--max-seconds", type=float, default=300.0,
                    help="stop a (method, route) after a derivation slower than this (default 300)")
    ap.add_argument("--out", help="folder for formalisms_costs.csv")
    ap.add_argument("--resume", action="store_true", help="skip derivations already in --out's CSV")
    ap.add_argument("--quick", action="store_true",
                    help=f"CI smoke run: sizes {QUICK_SIZES}, monolithic n = 1, one repeat (< 60 s)")
    args = ap.parse_args()
    print(f"kanefem {kanefem.__version__}, Python {platform.python_version()}, "
          f"{platform.machine()} {platform.processor() or ''}".rstrip())
    try:
        import sympy  # noqa: F401  (kanefem's optional extra "symbolic")
    except ImportError:
        print('Part 1 skipped: SymPy is not installed (pip install "kanefem[symbolic]")')
    else:
        part1(args)
    part2(args)


if __name__ == "__main__":
    main()
