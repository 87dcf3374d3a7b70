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
