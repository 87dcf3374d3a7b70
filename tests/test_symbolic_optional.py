"""SymPy is optional: kanefem never imports it, and kanefem.symbolic without it fails
with an ImportError that says how to install the extra.  Runs with or without SymPy
(each check in a fresh interpreter, where SymPy is hidden or watched)."""

import os
import subprocess
import sys
from pathlib import Path

import kanefem

PARENT = str(Path(kanefem.__file__).resolve().parents[1])


def run(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([PARENT, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)


def test_symbolic_without_sympy_names_the_extra():
    r = run(
        "import sys\n"
        "sys.modules['sympy'] = None  # as if SymPy were not installed\n"
        "try:\n"
        "    import kanefem.symbolic\n"
        "except ImportError as exc:\n"
        "    print('ImportError:', exc)\n"
    )
    assert r.returncode == 0, r.stderr
    assert "ImportError: kanefem.symbolic needs SymPy" in r.stdout
    assert 'pip install "kanefem[symbolic]"' in r.stdout


def test_kanefem_does_not_import_sympy():
    r = run("import sys, kanefem\nprint('sympy' in sys.modules)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"
