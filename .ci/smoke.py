"""Smoke test of an installed kanefem (a wheel or an sdist in a fresh environment).

    python .ci/smoke.py [--requires pyproject.toml]

Run from outside the source tree, so that the installed package is the one tested:
imports it, checks a beam's first natural frequency against the closed form and that the
shipped example mechanisms are installed and parse, runs the main job (python -m kanefem windpump) into a temporary folder and checks its files and
manifest; with --requires, checks that the installed metadata's Requires-Dist is exactly
the dependency list pyproject.toml declares (the same on every machine).  Used by
.ci/run (stages 2a, 2b) and by cibuildwheel's test-command (pyproject.toml).
"""

import argparse
import importlib.metadata
import importlib.resources
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time


def fail(message):
    sys.exit(f"smoke test FAILED: {message}")


def load_toml(text, name):
    try:
        import tomllib
    except ImportError:  # Python 3.10: tomli is a dependency there
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        fail(f"{name} is not valid TOML: {exc}")


def check_requires(pyproject):
    with open(pyproject, encoding="utf-8") as f:
        declared = load_toml(f.read(), pyproject)["project"]["dependencies"]
    installed = importlib.metadata.requires("kanefem") or []
    # extras' requirements carry a marker 'extra == "..."'; the run-time ones do not
    installed = [r for r in installed if "extra ==" not in r]

    def norm(req):
        return re.sub(r"\s+", "", req).replace("'", '"').lower()

    if sorted(map(norm, installed)) != sorted(map(norm, declared)):
        fail(f"Requires-Dist {installed} differs from pyproject.toml's dependencies {declared}")
    print("Requires-Dist (same as pyproject.toml):", "; ".join(installed))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requires", metavar="PYPROJECT",
                        help="compare the installed Requires-Dist with this file's dependencies")
    args = parser.parse_args()
    start = time.perf_counter()

    import kanefem

    where = os.path.dirname(kanefem.__file__)
    print(f"kanefem {kanefem.__version__} from {where}; LAPACK: {kanefem.lapack_source()}")
    if args.requires:
        check_requires(args.requires)

    # a pinned-pinned beam: f1 = (pi/L)^2 sqrt(E I / (rho A)) / (2 pi); 10 cubic elements
    # converge as h^4 (docs/theory.md 2.1), 1e-5 here; 1e-4 leaves room and still fails
    # for any wrong matrix, support or LAPACK call
    L, E, A, I, rho = 0.6, 210e9, 2e-4, 1.67e-9, 7850.0
    beam = kanefem.PlanarBeam(length=L, n_elements=10, E=E, A=A, I=I, rho=rho)
    f1 = beam.eigenvalues(1, omega=0.0, supports="pinned-pinned").frequencies_hz[0]
    exact = (math.pi / L) ** 2 * math.sqrt(E * I / (rho * A)) / (2 * math.pi)
    if not abs(f1 / exact - 1) < 1e-4:
        fail(f"pinned-pinned beam f1 = {f1!r} Hz, closed form {exact!r} Hz")
    print(f"pinned-pinned beam: f1 = {f1:.6f} Hz, closed form {exact:.6f} Hz")

    # the shipped example mechanisms (package data) are in the installation and parse
    examples = [p for p in importlib.resources.files("kanefem").joinpath("examples").iterdir()
                if p.name.endswith(".toml")]
    if not examples:
        fail("the installation holds no kanefem/examples/*.toml")
    for p in examples:
        load_toml(p.read_text(encoding="utf-8"), p.name)
    print(f"examples: {', '.join(sorted(p.name for p in examples))}")

    # the main job, as the README gives it, into a temporary folder
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "windpump-output")
        run = subprocess.run([sys.executable, "-m", "kanefem", "windpump", "--out", out],
                             capture_output=True, text=True, cwd=tmp)
        if run.returncode != 0:
            fail(f"python -m kanefem windpump exited {run.returncode}:\n{run.stdout}{run.stderr}")
        with open(os.path.join(out, "manifest.json")) as f:
            manifest = json.load(f)
        files = manifest["files"]
        for name in ("motion.csv", "joint_forces.csv", "lever_eigenvalues.csv", "windpump.toml"):
            if name not in files:
                fail(f"the main job wrote no {name} (manifest lists {sorted(files)})")
        pngs = [n for n in files if n.endswith(".png")]
        if not pngs:
            fail(f"the main job drew no PNG figure (manifest lists {sorted(files)})")
        print(f"python -m kanefem windpump: {len(files)} files ({len(pngs)} PNG), "
              f"LAPACK {manifest.get('lapack')!r}, platform {manifest.get('platform')!r}")
    print(f"smoke test passed in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
