"""The installation a user gets: .ci/smoke.py (what CI and cibuildwheel run on every sdist
and wheel) passes here too, and the installed metadata declares exactly pyproject.toml's
dependencies, whichever LAPACK route the build took (CI runs this on both)."""

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / ".ci" / "smoke.py"


def test_smoke_test_and_declared_dependencies(tmp_path):
    if not SMOKE.exists():
        pytest.skip(".ci/smoke.py not next to the tests")
    args = [sys.executable, str(SMOKE)]
    try:
        importlib.metadata.distribution("kanefem")
        args += ["--requires", str(ROOT / "pyproject.toml")]
    except importlib.metadata.PackageNotFoundError:
        pass  # an in-place build on PYTHONPATH has no metadata to compare; the rest still runs
    r = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "smoke test passed" in r.stdout, r.stdout
    if "--requires" in args:
        assert "Requires-Dist (same as pyproject.toml)" in r.stdout
    assert list(tmp_path.iterdir()) == []  # it wrote only into its own temporary folder


def test_every_package_folder_is_listed_for_the_wheel():
    """setuptools puts into a wheel only the packages pyproject.toml lists: a subpackage left
    out (kanefem.mechanism, when it was made) imports from the source tree but not once
    installed ('cannot import name mechanism'), which only a fresh install would show."""
    from kanefem._io import _tomllib

    listed = set(_tomllib().loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    src = ROOT / "src"
    folders = {".".join(p.parent.relative_to(src).parts) for p in src.glob("kanefem/**/__init__.py")}
    assert folders == listed, (sorted(folders), sorted(listed))
