"""Issue 17, items 4-7: bounded work, Ctrl-C in third-party and dense calls, results that
were silently wrong, and messages that name the argument.  Each case failed (hung, ran
on, returned a wrong number, or blamed another argument) before its fix."""

import ast
import pathlib
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kanefem
from kanefem import _checks, _interrupt

PACKAGE = pathlib.Path(kanefem.__file__).parent
SOURCES = sorted(PACKAGE.glob("*.py"))


# ---------------------------------------------------------------- Ctrl-C (item 5)


def _interrupt_at(setup, call, delay=0.3):
    """Run ``setup`` then ``call`` in a child that sends itself SIGINT ``delay`` s into the
    call; return what the child printed: ("interrupted", seconds from the signal to the
    KeyboardInterrupt, whether a cache was filled) or ("finished", seconds)."""
    code = f"""
        import os, signal, threading, time
        import numpy as np, kanefem
        {setup}
        sent = []
        def fire():
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)
        threading.Timer({delay}, fire).start()
        t0 = time.monotonic()
        try:
            {call}
            print("finished", time.monotonic() - t0, flush=True)
        except KeyboardInterrupt:
            print("interrupted", time.monotonic() - sent[0], cached(), flush=True)
    """
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.parametrize("setup, call", [
    # the core's eig_create on 600 beam elements (1803 DOFs): several seconds of dense
    # LAPACK in one C call (3.5 s at 400 elements ignored Ctrl-C)
    ("beam = kanefem.PlanarBeam(1.0, 600, E=210e9, A=1e-4, I=1e-8, rho=7800.0)\n"
     "        cached = lambda: len(beam._eig_cache)",
     "beam.eigenvalues(2)"),
    # SciPy's SuperLU on a 3D Laplacian of 36^3 unknowns (splu ignored Ctrl-C for 6-11 s
    # at 1.6e5 DOF)
    ("import scipy.sparse as sp\n"
     "        from kanefem.sparse import Factor\n"
     "        T = sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(36, 36)); I = sp.identity(36)\n"
     "        A = (sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T)).tocsc()\n"
     "        cached = lambda: 0",
     "Factor(A, symmetric=True)"),
])
def test_ctrl_c_within_half_a_second_of_a_long_c_call(setup, call):
    out = _interrupt_at(setup, call)
    if out[0] == "finished":  # a machine fast enough to end it before the signal
        pytest.skip(f"the call took only {float(out[1]):.2f} s")
    assert out[0] == "interrupted"
    # the signal is answered within _interrupt.POLL = 0.05 s; 0.5 s is the bar (issue 17)
    assert float(out[1]) < 0.5, out
    assert out[2] == "0", "an interrupted call filled the eigen cache"


def test_interrupt_call_returns_and_raises_as_the_function():
    assert _interrupt.call(divmod, 7, 2) == (3, 1)
    with pytest.raises(ZeroDivisionError):
        _interrupt.call(divmod, 1, 0)


#: the calls that run for seconds in one C call without looking at signals
_LONG_CALLS = r"\b(spla\.splu|_core\.eig_create|_core\.eig_create_projected|_core\.null_basis)\b"


def test_rule_long_c_calls_go_through_interrupt_call():
    """The grep-able rule: every such call in the package is ``_interrupt.call(fn, ...)``."""
    bad = []
    for path in SOURCES:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for m in re.finditer(_LONG_CALLS, line):
                if not line[: m.start()].endswith("_interrupt.call("):
                    bad.append(f"{path.name}:{n}: {line.strip()}")
    assert not bad, "call these through kanefem._interrupt.call:\n" + "\n".join(bad)
