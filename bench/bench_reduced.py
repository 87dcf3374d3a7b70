"""A reduced solid blade against the full mesh: lowest modes with stress stiffening over a spin-up.

A hex8 blade (1000 x 50 x 10 mm, steel) clamped at its root face, spinning up about z to
300 rad/s; the lowest 4 frozen-time eigenvalues with K_G (the prestress of the centrifugal
load, docs/theory.md section 2.11) at nt instants of the spin-up.

* full: MeshBody.eigenvalues_vs_time (sparse shift-invert at every instant with K_G);
* reduced: ReducedBody (the root face condensed to one rigid interface node, Craig-Bampton
  with m fixed-interface modes, K_G of the 12 unit load cases projected once; docs/theory.md
  section 3.18), the reduction included in its time, then the same call on 6 + m coordinates.

The full mesh is solved at a few instants of the grid (every instant costs about the same:
one factorization and one ARPACK run) and its time per instant is scaled to the grid; the
reduced body's accuracy is its largest relative difference from the full mesh's eigenvalues
at those instants.  The ratio is full time / reduced time.

    python bench/bench_reduced.py [--repeat 1] [--quick] [--modes 20]
"""

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import kanefem  # noqa: E402


def root(x):
    return np.isclose(x[:, 0], 0.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a 30 x 2 x 1 mesh, 10 instants (CI smoke run)")
    ap.add_argument("--modes", type=int, default=20, help="fixed-interface modes kept")
    args = ap.parse_args()
    cells, nt, sampled = ((30, 2, 1), 10, 3) if args.quick else ((120, 8, 4), 360, 4)
    mesh = kanefem.Mesh.box(1.0, 0.05, 0.01, *cells, cell="hexahedron", origin=(0.0, -0.025, -0.005))
    blade = kanefem.MeshBody(mesh, E=2.1e11, nu=0.3, rho=7800)
    omega = np.zeros((nt, 3))
    omega[:, 2] = np.linspace(0.0, 300.0, nt)
    eps = np.zeros((nt, 3))
    pick = np.linspace(0, nt - 1, sampled).astype(int)

    t0 = time.perf_counter()
    red = kanefem.ReducedBody(blade, interface=[root], n_modes=args.modes)
    t_reduce = time.perf_counter() - t0
    t0 = time.perf_counter()
    r = red.eigenvalues_vs_time(omega, eps, 4, geometric_stiffness=True, mode_shapes=False)
    t_grid = time.perf_counter() - t0

    t0 = time.perf_counter()
    f = blade.eigenvalues_vs_time(omega[pick], eps[pick], 4, supports={root: "fixed"}, geometric_stiffness=True,
                                  mode_shapes=False)
    t_full = (time.perf_counter() - t0) / pick.size * nt
    err = np.abs(r.eigenvalues[pick] / f.eigenvalues - 1).max()

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"hex8 blade {cells[0]} x {cells[1]} x {cells[2]} cells, {blade.ndof} DOFs; lowest 4 modes with K_G "
          f"at {nt} instants (load average {load:.1f})")
    print(f"  full mesh      {t_full:9.3f} s  ({t_full / nt:.3f} s per instant, from {pick.size} instants)")
    print(f"  reduced        {t_reduce + t_grid:9.3f} s  (reduction {t_reduce:.3f} s once, then {t_grid:.4f} s "
          f"for the grid on {red.ndof} coordinates)")
    print(f"  ratio          {t_full / (t_reduce + t_grid):9.1f}x   reduced within {err:.1e} of the full "
          f"mesh's eigenvalues")


if __name__ == "__main__":
    main()
