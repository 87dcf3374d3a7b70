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


# ---------------------------------------------------------------- bounded work (item 4)


def test_rule_every_integer_argument_has_an_upper_bound():
    """The grep-able rule for counts: every ``_checks.integer`` call in the package passes
    ``maximum=`` (a count that sizes work or memory is bounded where it is read; an index
    by its sequence, through ``_checks.index``; ``maximum=None`` marks, visibly, an
    integer that sizes nothing, such as a branch sign)."""
    bad = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "integer" and getattr(node.func.value, "id", "") == "_checks"
                    and not any(k.arg == "maximum" for k in node.keywords)):
                bad.append(f"{path.name}:{node.lineno}")
    assert not bad, "give these _checks.integer calls a maximum: " + ", ".join(bad)


def test_grid_counted_before_it_is_built():
    from kanefem.sweep import expand_grid

    # 4 x 1000^4 points used to be built in memory (hours, then MemoryError)
    with pytest.raises(ValueError, match=r"4e\+06 points, more than the limit of 100000"):
        expand_grid({"a": [1, 2, 3, 4], "b": range(1000), "c": range(1000), "d": range(1000),
                     "e": range(1000)})
    with pytest.raises(ValueError, match="rpm"):  # one factor of 10^7, never listed in full
        kanefem.sweep(lambda **k: {"x": 1.0}, {"rpm": range(10**7)}, name="probe", progress=False)
    with pytest.raises(ValueError, match="list of points"):
        expand_grid([{"a": k} for k in range(_checks.MAX_POINTS + 1)])
    assert len(expand_grid({"a": range(100), "b": range(1000)})) == _checks.MAX_POINTS  # the bound itself


def test_cli_sweep_count_bounded(tmp_path):
    from kanefem.__main__ import _sweep_values

    with pytest.raises(ValueError, match=r"--sweep rpm=100:200:10000000: COUNT = 10000000 is more than"):
        _sweep_values("rpm", "100:200:10000000")
    assert _sweep_values("rpm", "100:200:3") == [100.0, 150.0, 200.0]


def test_flexible_step_bounded_as_simulate():
    crank = kanefem.mechanism.slider_crank(elements=2)
    # dt = 1e-12 over 0.1 s (1e11 steps) ran for ever; simulate refuses the same at once
    with pytest.raises(kanefem.StepLimitError, match=r"dt = 1e-12 and the duration = 0.1 need 1e\+11"):
        crank.simulate_flexible(duration=0.1, dt=1e-12, drives={"crank": kanefem.mechanism.ConstantSpeed(150.0)})


def test_rk_max_step_bounded():
    bar = kanefem.AxialBar(1.0, 3, E=210e9, A=2e-5, rho=5e4)
    with pytest.raises(kanefem.StepLimitError, match=r"max_step = 1e-300 and t_end = 1.0 need 1e\+300"):
        kanefem.simulate(bar, kanefem.Motion.constant_speed(1.0), 1.0, method="rk45-lagrange",
                         max_step=1e-300, progress=False)


def test_symbolic_sizes_bounded():
    from kanefem import symbolic

    with pytest.raises(ValueError, match=r"n_elements = 1000 must be <= 100"):
        symbolic.derive("kane", 1000)
    with pytest.raises(ValueError, match=r"max_seconds must be positive, got -1.0"):
        symbolic.measure_costs(max_seconds=-1)
    with pytest.raises(ValueError, match="monolithic_max_n"):
        symbolic.measure_costs(n_elements=(1,), monolithic_max_n=10**6)
