"""Instructions per right-hand side of the rigid mechanisms, and per step of the two-way
slider-crank, counted by callgrind (valgrind --tool=callgrind): repeatable figures where
CPU times on a shared machine are not (docs/theory.md sections 5.11 and 5.12).

Cases (each its own valgrind run of this script with --case):

  - slider-crank: the rigid slider-crank (bench_spatial_mechanism's), crank free under a
    torque of 0.3 N m for 1 s, Kane's equations in the core's Dormand-Prince 5(4) at
    rtol 1e-9 (the defaults): instructions inside kf_mech_integrate / its evaluations;
  - wind pump: WindPump().solve() (140 rpm, 360 points, its closed-form assembly and rate
    rules), the same count;
  - wind pump (general): the shipped windpump.toml, Newton's closure, torque-driven;
  - spatial slider-crank: the slider-crank described in space (Mechanism.from_planar), as
    the first case;
  - spatial arm: the 3-link arm of tests/test_spatial_mechanism.py falling freely for 2 s
    (bench_spatial_mechanism's run, rtol 1e-8);
  - two-way step: the flexible slider-crank at 150 rad/s, fixed steps of a turn / 200 and
    a turn / 400 (bench_mechanism's fixed-step row, K_G extrapolated): instructions inside
    kf_flexmech_run over the 600 steps.

Valgrind runs each case 20-50 times slower than native: about a minute in all.

    python bench/instructions_mechanism.py [--quick] [--case NAME]
"""

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

HERE = Path(__file__).resolve()


def arm():
    sys.path.insert(0, str(HERE.parents[1] / "tests"))
    from test_spatial_mechanism import arm_links, arm_table

    from kanefem.mechanism import Mechanism, dh_chain

    m, c, inertias = arm_links()
    tables = dh_chain(arm_table(), masses=m, centres=c, inertias=inertias).to_dict()
    for t in tables["joint"]:
        t["damping"] = 0.05
    return Mechanism.from_dict(tables)


def run_case(name):
    """The case's work; its count of right-hand sides (or steps)."""
    import kanefem
    from kanefem.mechanism import ConstantSpeed, Mechanism, Torque, slider_crank

    rigid_crank = dict(rod=None, crank_mass=0.3, crank_inertia=2e-3)
    if name in ("slider-crank", "spatial slider-crank", "wind pump (general)"):
        if name == "wind pump (general)":
            mech = Mechanism.from_toml(kanefem.mechanism.example("windpump"))
        else:
            mech = slider_crank(**rigid_crank)
        if name.startswith("spatial"):
            mech = Mechanism.from_planar(mech)
        coord = mech.coordinates[0].name
        return mech.solve(duration=1.0, points=11, drives={coord: Torque(0.3)}).stats["evaluations"]
    if name == "wind pump":
        return kanefem.WindPump().solve().stats["evaluations"]
    if name == "spatial arm":
        import numpy as np

        a = arm()
        return a.solve(np.linspace(0.0, 2.0, 201), rtol=1e-8, atol=1e-11).stats["evaluations"]
    if name == "two-way step":
        import numpy as np

        turn = 2 * math.pi / 150.0
        t = np.linspace(0.0, turn, 51)
        steps = 0
        for n in (200, 400):
            fm = slider_crank().simulate_flexible(t, drives={"crank": ConstantSpeed(150.0)}, dt=turn / n,
                                                  rtol=None)
            steps += fm.stats["steps"]
        return steps
    raise ValueError(f"case: no case {name!r}")


CASES = {"slider-crank": "kf_mech_integrate", "wind pump": "kf_mech_integrate",
         "wind pump (general)": "kf_mech_integrate", "spatial slider-crank": "kf_mech_integrate",
         "spatial arm": "kf_mech_integrate", "two-way step": "kf_flexmech_run"}


def count(name):
    """(instructions collected inside the case's C function, right-hand sides or steps)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                               f"--toggle-collect={CASES[name]}", sys.executable, str(HERE), "--case", name],
                              capture_output=True, text=True, check=True)
        n = int(re.search(r"^evaluations (\d+)$", proc.stdout, re.M).group(1))
        total = re.search(r"^summary: (\d+)", out.read_text(), re.M) or re.search(
            r"^totals: (\d+)", out.read_text(), re.M)
        return int(total.group(1)), n


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--case", help="run one case without valgrind (what each valgrind run does)")
    p.add_argument("--quick", action="store_true", help="the planar slider-crank only")
    args = p.parse_args()
    if args.case:
        print(f"evaluations {run_case(args.case)}")
        return
    print(f"load: {os.getloadavg()[0]:.2f} (1-minute average; callgrind counts do not depend on it)")
    print(f"{'case':24s} {'instructions':>14s} {'count':>7s} {'per count':>10s}")
    for name in (["slider-crank"] if args.quick else CASES):
        total, n = count(name)
        unit = "steps" if name == "two-way step" else "RHS"
        print(f"{name:24s} {total:14d} {n:7d} {total / n:10.0f}  per {unit}")


if __name__ == "__main__":
    main()
