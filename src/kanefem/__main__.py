"""Command line: ``python -m kanefem <job> [options]`` (also the ``kanefem`` script).

Jobs write their tables (CSV) into an output folder, atomically, and print a summary.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from . import __version__
from ._io import write_csv


def _cmd_eigen(args):
    from .bodies import AxialBar, PlanarBeam

    if args.body == "beam":
        body = PlanarBeam(args.length, args.elements, E=args.E, A=args.A, I=args.I, rho=args.rho)
    else:
        body = AxialBar(args.length, args.elements, E=args.E, A=args.A, rho=args.rho)
    supports = args.supports or body._default_supports
    r = body.eigenvalues(args.modes, omega=args.omega, eps=args.eps, supports=supports,
                         include_eps=not args.no_eps, mode_shapes=False)
    rows = [(k + 1, lam, w, f) for k, (lam, w, f) in
            enumerate(zip(r.eigenvalues, r.angular_frequencies, r.frequencies_hz))]
    print(f"{body!r}, supports={supports!r}, omega={args.omega} rad/s, eps={args.eps} rad/s^2")
    print(f"solver: {r.solver}")
    print(f"{'mode':>4} {'lambda [rad^2/s^2]':>20} {'omega [rad/s]':>16} {'f [Hz]':>14}")
    for k, lam, w, f in rows:
        print(f"{k:>4} {lam:>20.10g} {w:>16.10g} {f:>14.8g}")
    if args.out:
        path = write_csv(args.out, "eigenvalues.csv", ["mode", "lambda_rad2_s2", "omega_rad_s", "f_hz"], rows)
        print(f"wrote {path}")
    return 0


def _cmd_windpump(args):
    from ._core import KanefemError
    from .windpump import WindPump

    if args.config and not Path(args.config).is_file():
        raise ValueError(f"--config {args.config}: no such file")
    pump = WindPump.from_toml(args.config) if args.config else WindPump()
    p = pump.params
    out = Path(args.out)
    print(f"kanefem {__version__}: the wind pump at {args.rpm:g} rpm, {args.revolutions:g} turn(s), "
          f"{'periodic steady state' if not args.transient else 'from rest at x_D0'}")
    print(f"parameters: {'reference configuration' if not args.config else args.config} {pump!r}")
    try:
        motion = pump.solve(rpm=args.rpm, revolutions=args.revolutions,
                            steady_state=not args.transient, points_per_revolution=args.points)
    except KanefemError as exc:  # no periodic motion found
        raise ValueError(f"{exc}; try --transient") from None
    forces = pump.joint_forces(motion)
    eig = pump.lever_eigenvalues(motion, n_modes=args.modes, n_elements=args.elements,
                                 include_eps=not args.no_eps,
                                 geometric_stiffness=args.geometric_stiffness,
                                 gyroscopic=args.gyroscopic)
    written = [pump.to_toml(out / "windpump.toml")]
    for name, result in (("motion.csv", motion), ("joint_forces.csv", forces),
                         ("lever_eigenvalues.csv", eig)):
        header, rows = result.table()
        written.append(write_csv(out, name, header, rows))

    if args.response:
        resp = pump.lever_response(motion, n_elements=args.elements)
        n = args.elements // 2  # the middle node (or the one before it)
        qs = np.array([pump._lever_quasi_static(pump.lever(args.elements), row)
                       for row in motion.lever_frame])
        rows = zip(resp.t, resp.d[:, 3 * n + 1], qs[:, 3 * n + 1], resp.d[:, 3 * n + 2])
        written.append(write_csv(out, "lever_response.csv",
                                 ["t_s", "v_mid_m", "v_mid_quasi_static_m", "theta_mid_rad"], rows))
        dev = np.max(np.abs(resp.d[:, 3 * n + 1] - qs[:, 3 * n + 1]))
        print(f"lever response (Newmark, node {n}): v = {resp.d[:, 3 * n + 1].min():.3e} .. "
              f"{resp.d[:, 3 * n + 1].max():.3e} m, {dev:.2e} m from quasi-static")

    mu = np.degrees(motion.transmission_angle)
    print(f"slider x_D: {motion.x_D.min():.4f} .. {motion.x_D.max():.4f} m; transmission angle "
          f"{mu.min():.1f} .. {mu.max():.1f} deg; motor torque {forces.motor_torque.min():.3g} .. "
          f"{forces.motor_torque.max():.3g} N m (mean power {np.mean(forces.motor_torque * motion.omega1):.3g} W)")
    for name, F in (("A", forces.F_A), ("B", forces.F_B), ("C'", forces.F_C), ("D", forces.F_D)):
        print(f"|F_{name}| max {np.hypot(*F.T).max():8.2f} N", end="; " if name != "D" else "\n")
    print(f"lever BC' ({args.elements} elements, pinned-pinned), solver {eig.solver}:")
    for k in range(args.modes):
        f = eig.frequencies_hz[:, k]
        print(f"  mode {k + 1}: f = {f.min():.6g} .. {f.max():.6g} Hz, lambda = "
              f"{eig.eigenvalues[:, k].min():.8g} .. {eig.eigenvalues[:, k].max():.8g} rad^2/s^2")
    if args.no_plots:
        print("plots: not asked for (--no-plots)")
    else:
        try:
            from . import _plots
            written += _plots.windpump_figures(out, pump, motion, forces, eig)
        except ImportError as exc:
            print(f"plots skipped: {exc} (pip install 'kanefem[plot]' for PNG figures)")
    for path in written:
        print(f"wrote {path}")
    return 0


def build_parser():
    p = argparse.ArgumentParser(
        prog="kanefem",
        description="Elastic links in moving mechanisms: finite elements and Kane's method.",
    )
    p.add_argument("--version", action="version", version=f"kanefem {__version__}")
    sub = p.add_subparsers(dest="job", metavar="JOB", required=True)

    e = sub.add_parser(
        "eigen",
        help="natural frequencies of a beam or bar in a rotating frame",
        description="Frozen-time natural frequencies of a straight beam or bar whose frame "
        "rotates at omega [rad/s] with angular acceleration eps [rad/s^2]. Defaults: a steel "
        "lever 0.6 m long, 10 elements, pinned at both ends, at 140 rpm.",
    )
    e.add_argument("--body", choices=("beam", "bar"), default="beam", help="element kind (default beam)")
    e.add_argument("--length", type=float, default=0.6, help="length [m] (default 0.6)")
    e.add_argument("--elements", type=int, default=10, help="number of elements (default 10)")
    e.add_argument("--E", type=float, default=210e9, help="Young's modulus [Pa] (default 210e9)")
    e.add_argument("--A", type=float, default=2.0e-4, help="section area [m^2] (default 2e-4)")
    e.add_argument("--I", type=float, default=1.67e-9, help="second moment of area [m^4] (default 1.67e-9)")
    e.add_argument("--rho", type=float, default=7850.0, help="density [kg/m^3] (default 7850)")
    e.add_argument("--supports", default=None,
                   help="support preset, e.g. pinned-pinned, clamped-free, free-free; bar: fixed-free")
    e.add_argument("--modes", type=int, default=4, help="number of modes (default 4)")
    e.add_argument("--omega", type=float, default=140 * 2 * math.pi / 60,
                   help="frame angular velocity [rad/s] (default 140 rpm = 14.66)")
    e.add_argument("--eps", type=float, default=0.0, help="frame angular acceleration [rad/s^2] (default 0)")
    e.add_argument("--no-eps", action="store_true", help="leave out the non-symmetric K_eps")
    e.add_argument("--out", default=None, help="folder to write eigenvalues.csv into (optional)")
    e.set_defaults(func=_cmd_eigen)

    w = sub.add_parser(
        "windpump",
        help="the wind-pump mechanism: rigid motion, joint forces, lever eigenvalues",
        description="The wind-pump mechanism of the papers (docs/theory.md section 5) at a constant "
        "crank speed: its rigid motion by Kane's method (on the periodic steady state unless "
        "--transient), the joint forces at A, B, C', D and the guide, and the frozen-time "
        "eigenvalues of the elastic lever BC' over the cycle (seed 000, Fig. 6). Writes "
        "windpump.toml (the parameters used), motion.csv, joint_forces.csv, "
        "lever_eigenvalues.csv and, if matplotlib is installed, PNG plots into the output "
        "folder (each file written atomically). Units: SI, angles in radians.",
    )
    w.add_argument("--rpm", type=float, default=140.0, help="crank speed [rev/min] (default 140)")
    w.add_argument("--revolutions", type=float, default=1.0, help="crank turns to compute (default 1)")
    w.add_argument("--points", type=int, default=360, help="instants per crank turn (default 360)")
    w.add_argument("--elements", type=int, default=10, help="beam elements of the lever BC' (default 10)")
    w.add_argument("--modes", type=int, default=2, help="lever eigenvalues per instant (default 2)")
    w.add_argument("--no-eps", action="store_true",
                   help="leave out K_eps (then lambda_k(t) = lambda_k(rest) - omega2(t)^2)")
    w.add_argument("--geometric-stiffness", action="store_true",
                   help="add K_G from the lever's axial force (joint forces + axial inertia)")
    w.add_argument("--gyroscopic", action="store_true",
                   help="complex eigenvalues of s^2 M + s C + K_eff (with the Coriolis matrix)")
    w.add_argument("--transient", action="store_true",
                   help="start from rest at x_D0 instead of on the periodic steady state")
    w.add_argument("--config", default=None, metavar="FILE.toml",
                   help="wind-pump parameters (TOML, as windpump.toml in the output); "
                   "default: the reference configuration")
    w.add_argument("--out", default="windpump-output", metavar="DIR", help="output folder (default windpump-output)")
    w.add_argument("--no-plots", action="store_true", help="write the CSV files only")
    w.add_argument("--response", action="store_true",
                   help="also integrate the elastic lever in time on the motion (Newmark) and "
                        "write lever_response.csv: midspan deflection against the quasi-static one")
    w.set_defaults(func=_cmd_windpump)
    return p


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError) as exc:
        parser.exit(2, f"kanefem {args.job}: error: {exc}\n")


if __name__ == "__main__":
    sys.exit(main())
