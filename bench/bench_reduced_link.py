"""A reduced plane mesh as the slider-crank's rod, two ways: kanefem against Exudyn's ObjectFFRFreducedOrder.

The mechanism of bench_mechanism.py (crank 0.15 m at 150 rad/s, rod 0.30 m, slider of
half the rod's mass), its rod a plane-stress mesh (quad8; a rectangular section of the
round 6 mm rod's area and second moment: h = 5.20 mm, thickness 5.44 mm) pinned at two
nodes on its axis, reduced by Craig-Bampton to its m lowest fixed-interface modes (the
pins' translations held in the link's frame, so the link's elastic coordinates are the m
modal amplitudes).  The same mesh, M, K and modes are fed to Exudyn's
ObjectFFRFreducedOrder through its FEMinterface (bench/_exudyn_models.py: ffrf_body,
slider_crank_ffrf).  The quantity: the rod's midpoint deflection from its chord over one
turn.

Routes:
* kanefem, without K_G: the same model as Exudyn's (a linear reduced body in a floating
  frame); their answers are printed side by side (the models agree to the integrators'
  accuracy);
* kanefem, with K_G (the default of a link: the reduced body's unit load cases combined
  with the joint forces at every step, docs/theory.md section 3.18), which Exudyn's
  reduced body lacks: its answer differs from the linear one by what K_G does;
* Exudyn (generalized-alpha, index 3, fixed step).

Equal accuracy: each route's time-discretization error, measured against its own solution
at 16000 steps per turn, below 1 % of the peak deflection: for every route the smallest
step count of a doubling ladder (62 .. 2000 per turn; --quick: 250 .. 1000) that reaches
it is timed, CPU time of this process (time.process_time), best of --repeat runs, one BLAS
thread.  The one-time preprocessing is timed apart: kanefem's reduction (ReducedBody, with
the K_G load cases) and Exudyn's (ObjectFFRFreducedOrderInterface: the projected inertia
terms, given kanefem's modes); each timed run builds its mechanism (kanefem's link and
Mechanism, Exudyn's system) and integrates.  Two sizes of mesh (--quick: the small one):
the per-step cost of both is set by the modes, not the mesh.

With --convergence instead: the reduced rod (30 x 2 mesh) against the same mesh as an
exact link (every fixed-interface mode, n_modes="all"), as modes are added: the largest
relative difference over the turn of the first two frequencies with K_G (one way), of the
midpoint deflection (two ways, 250 steps) relative to its peak, of the peak von Mises
stress over the turn in the rod's middle half, and of the quasi-static von Mises stress
there at one instant (the table of docs/theory.md section 3.18).

    python bench/bench_reduced_link.py [--repeat 3] [--quick] [--modes 6] [--convergence]
"""

import math
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from _timing import best  # noqa: E402
import _exudyn_models  # noqa: E402

import kanefem  # noqa: E402
from kanefem.mechanism import ConstantSpeed, ElasticLink, Mechanism, slider_crank  # noqa: E402

SPEED = 150.0
TURN = 2 * math.pi / SPEED
T_OUT = np.linspace(0.0, TURN, 51)
ACCURACY, REFERENCE = 0.01, 16000
CRANK, LENGTH = 0.15, 0.30
AREA = math.pi * 0.006**2 / 4
HEIGHT = math.sqrt(12 * (AREA * 0.006**2 / 16) / AREA)  # I = t h^3 / 12 = pi d^4 / 64
THICKNESS = AREA / HEIGHT


def rod_mesh(nx, ny):
    """The plane-stress rod along x from pin A (0, 0) to pin B (0.30, 0): (body, A, mid, B)."""
    mesh = kanefem.Mesh.rectangle(LENGTH, HEIGHT, nx, ny, cell="quad8", origin=(0.0, -HEIGHT / 2))
    body = kanefem.MeshBody(mesh, E=200e9, nu=0.3, rho=7870.0, thickness=THICKNESS)
    near = lambda p: int(np.argmin(np.hypot(*(body.nodes - p).T)))  # noqa: E731
    return body, near((0.0, 0.0)), near((LENGTH / 2, 0.0)), near((LENGTH, 0.0))


def kanefem_route(red, mid, geometric):
    """Two ways at fixed steps (the ladder finds the step), K_G's forces extrapolated from
    the two steps before (one solve per step of the driven crank); each run builds its
    mechanism (as Exudyn's builds its system), the reduced body made once before."""
    template = slider_crank()

    def run(steps):
        link = ElasticLink("rod", red, start=(CRANK, 0.0), geometric_stiffness=geometric)
        mech = Mechanism([template.bodies[0], link, template.bodies[2]], template.joints, template.coordinates,
                         gravity=template.gravity, name="slider-crank")
        fm = mech.simulate_flexible(T_OUT, drives={"crank": ConstantSpeed(SPEED)}, dt=TURN / steps, rho_inf=0.9,
                                    rtol=None, axial_force="extrapolated")
        return fm.displacement("rod", mid)[:, 1]
    run.__name__ = f"kanefem {'with' if geometric else 'without'} K_G"
    return run, ElasticLink("rod", red, geometric_stiffness=geometric).mass


def exudyn_route(cms, body, a, mid, b, slider_mass):
    def run(steps):
        t, v = _exudyn_models.slider_crank_ffrf(cms, LENGTH, a, mid, b, mid_offset=float(body.nodes[mid, 1]),
                                                steps=int(steps), r=CRANK, speed=SPEED, slider_mass=slider_mass,
                                                rho_inf=0.9)
        return np.interp(T_OUT, t, v)
    run.__name__ = "Exudyn FFRFreducedOrder"
    return run


def at_accuracy(route, ladder, repeat):
    """(steps, CPU time, answer, error) of the cheapest rung within ACCURACY of the route's
    own solution at REFERENCE steps."""
    ref = route(REFERENCE)
    peak = np.abs(ref).max()
    for steps in ladder:
        err = np.abs(route(steps) - ref).max() / peak
        if err <= ACCURACY:
            seconds, v = best(lambda: route(steps), max(repeat, 3), clock=time.process_time)
            return steps, seconds, v, err, ref
    raise RuntimeError(f"{route.__name__}: no rung of {ladder} reaches {ACCURACY}")


def main():
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing; the best is kept")
    ap.add_argument("--quick", action="store_true", help="the small mesh, one run each (CI smoke run)")
    ap.add_argument("--modes", type=int, default=6, help="fixed-interface modes kept")
    ap.add_argument("--convergence", action="store_true", help="the table of reductions against the exact mesh link")
    args = ap.parse_args()
    if args.convergence:
        return convergence(args.quick)
    if args.quick:
        args.repeat = 1
    ladder = [62, 125, 250, 500, 1000, 2000] if not args.quick else [250, 500, 1000]
    sizes = [(30, 2)] if args.quick else [(30, 2), (120, 4)]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"slider-crank, one turn at {SPEED} rad/s; rod a plane-stress quad8 mesh reduced to {args.modes} "
          f"fixed-interface modes; midpoint deflection to {100 * ACCURACY:g} % of its peak against each route's "
          f"own solution at {REFERENCE} steps; CPU time, one BLAS thread (load average {load:.1f})")
    for nx, ny in sizes:
        body, a, mid, b = rod_mesh(nx, ny)
        c0 = time.process_time()
        red = kanefem.ReducedBody(body, interface=[a, b], n_modes=args.modes, prestress_supports="free")
        t_red = time.process_time() - c0
        link = ElasticLink("rod", red)
        modes = red.basis_matrix[:, ~link._fixed]
        c0 = time.process_time()
        cms = _exudyn_models.ffrf_body(body.nodes, body.mass_matrix(), body.stiffness_matrix(), modes, a)
        t_cms = time.process_time() - c0
        print(f"\nmesh {nx} x {ny} quad8, {body.ndof} DOFs; preprocessing once: kanefem's reduction {t_red:.3f} s "
              f"(with the K_G load cases), Exudyn's FFRF interface {t_cms:.3f} s (given the modes)")
        rows = {}
        k_lin, mass = kanefem_route(red, mid, False)
        k_geo, _ = kanefem_route(red, mid, True)
        ex = exudyn_route(cms, body, a, mid, b, 0.5 * mass)
        for route in (k_lin, k_geo, ex):
            steps, seconds, v, err, ref = at_accuracy(route, ladder, args.repeat)
            rows[route.__name__] = (steps, seconds, v, ref)
            print(f"  {route.__name__:24s} {steps:5d} steps  {seconds * 1e3:8.2f} ms CPU  (error {100 * err:.2f} %, "
                  f"peak {1e3 * np.abs(v).max():.3f} mm)")
        exu = rows[ex.__name__]
        same = np.abs(rows[k_lin.__name__][3] - exu[3]).max() / np.abs(exu[3]).max()
        kg = np.abs(rows[k_geo.__name__][3] - rows[k_lin.__name__][3]).max() / np.abs(exu[3]).max()
        print(f"  converged answers: kanefem without K_G and Exudyn differ by {same:.1e} of the peak; "
              f"K_G moves kanefem's by {100 * kg:.1f} %")
        for name in (k_lin.__name__, k_geo.__name__):
            print(f"  ratio Exudyn / {name}: {exu[1] / rows[name][1]:.1f}x CPU")


def convergence(quick):
    """The reduced rod against the exact mesh link as modes are added."""
    nx = 8 if quick else 30
    body, a, mid, b = rod_mesh(nx, 2)
    t = np.linspace(0.0, TURN, 41)
    drives = {"crank": ConstantSpeed(SPEED)}
    template = slider_crank()

    def run(link):
        mech = Mechanism([template.bodies[0], link, template.bodies[2]], template.joints, template.coordinates,
                         gravity=template.gravity)
        motion = mech.solve(t, drives=drives)
        f = mech.link_eigenvalues(motion, n_modes=2)["rod"].frequencies_hz
        c0 = time.process_time()
        fm = mech.simulate_flexible(t, drives=drives, rtol=None, dt=TURN / 250, axial_force="extrapolated")
        seconds = time.process_time() - c0
        qs, d = mech.link_quasi_static("rod", motion.frames["rod"][13]), fm.d["rod"]
        if link.model is link.body:
            qs, d = link.model.expand(qs), link.model.expand(d)
        st = body.stresses(d)
        span = (st.x[:, 0] > 0.075) & (st.x[:, 0] < 0.225)
        return (f, fm.displacement("rod", mid)[:, 1], st["von_mises_Pa"][:, span].max(),
                body.stresses(qs)["von_mises_Pa"][0, span].max(), seconds)

    exact = ElasticLink("rod", body, start=(CRANK, 0.0), supports={a: "pinned", b: "pinned"})
    f0, v0, s0, q0, t0 = run(exact)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"plane-stress rod {nx} x 2 quad8 ({body.ndof} DOFs) in the slider-crank at {SPEED} rad/s; the exact "
          f"link ({exact.model.kept['n_modes']} modes) two ways in {t0:.2f} s CPU (250 steps; load {load:.1f})")
    print("modes  f1 (K_G)  f2 (K_G)  deflection  peak stress  quasi-static stress  two-way CPU")
    for n in (2, 4, 8, 16, 32):
        red = kanefem.ReducedBody(body, interface=[a, b], n_modes=n, prestress_supports="free")
        f, v, s_, q, sec = run(ElasticLink("rod", red, start=(CRANK, 0.0)))
        e = np.abs(f / f0 - 1).max(axis=0)
        print(f"{n:5d}  {e[0]:8.1e}  {e[1]:8.1e}  {np.abs(v - v0).max() / np.abs(v0).max():10.1e}  "
              f"{abs(s_ / s0 - 1):11.1e}  {abs(q / q0 - 1):19.1e}  {sec * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
