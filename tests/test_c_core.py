"""Build the C core on its own with AddressSanitizer + UBSan and run its C tests
(tests/c/test_core.c), leak detection on.  Needs gcc and a LAPACK that pkg-config
can find (Debian: liblapack-dev); skipped, with the reason, where they are missing."""

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CSRC = ROOT / "csrc"


def lapack_flags():
    if not shutil.which("pkg-config"):
        return None
    for pkgs in (("lapack", "blas"), ("lapack",)):
        r = subprocess.run(["pkg-config", "--libs", *pkgs], capture_output=True, text=True)
        if r.returncode == 0:
            return shlex.split(r.stdout)
    return None


@pytest.mark.skipif(not shutil.which("gcc"), reason="gcc not found")
def test_core_under_sanitizers(tmp_path):
    flags = lapack_flags()
    if flags is None:
        pytest.skip("no LAPACK found by pkg-config (apt-get install liblapack-dev)")
    if not CSRC.is_dir():
        pytest.skip("the C sources are not next to the tests")
    # the core without its binding (kf_python.c and kf_py_*.c include Python.h)
    sources = sorted(str(p) for p in CSRC.glob("kf_*.c") if not p.name.startswith("kf_py"))
    exe = tmp_path / "test_core"
    cmd = [
        "gcc", "-std=c11", "-g", "-O1", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter", "-Wno-missing-field-initializers",
        "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer",
        "-DKF_HAVE_LAPACK", f"-I{CSRC}", *sources, str(ROOT / "tests" / "c" / "test_core.c"),
        *flags, "-lm", "-o", str(exe),
    ]
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
    env.pop("LD_PRELOAD", None)
    run = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert " 0 failed" in run.stdout
