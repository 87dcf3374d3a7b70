"""Command line: ``python -m kanefem <job> [options]`` (also the ``kanefem`` script).

Jobs write their tables (CSV) into an output folder, atomically, and print a summary.
"""

from __future__ import annotations

import argparse
import math
import sys

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
