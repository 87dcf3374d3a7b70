"""Issue 17, items 4-7: bounded work, Ctrl-C in third-party and dense calls, results that
were silently wrong, and messages that name the argument.  Each case failed (hung, ran
on, returned a wrong number, or blamed another argument) before its fix."""

import ast
import os
import pathlib
import re
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kanefem
from kanefem import _checks, _interrupt

PACKAGE = pathlib.Path(kanefem.__file__).parent
SOURCES = sorted(PACKAGE.rglob("*.py"))  # the subpackages too (kanefem.mechanism)


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
    # the core's eig_create on 600 beam elements (1803 DOFs, stored dense): several seconds of dense
    # LAPACK in one C call (3.5 s at 400 elements ignored Ctrl-C)
    ("beam = kanefem.PlanarBeam(1.0, 600, E=210e9, A=1e-4, I=1e-8, rho=7800.0, storage='dense')\n"
     "        cached = lambda: len(beam._eig_cache)",
     "beam.eigenvalues(2, solver='dense')"),  # the dense core (auto goes sparse beyond 1000 free DOFs)
    # SciPy's SuperLU on a 3D Laplacian of 36^3 unknowns (splu ignored Ctrl-C for 6-11 s
    # at 1.6e5 DOF)
    ("import scipy.sparse as sp\n"
     "        from kanefem.sparse import Factor\n"
     "        T = sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(36, 36)); I = sp.identity(36)\n"
     "        A = (sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T)).tocsc()\n"
     "        cached = lambda: 0",
     "Factor(A, symmetric=True)"),
    # one instant of the gyroscopic problem (a dense 2n x 2n nonsymmetric eigenproblem)
    # of 300 beam elements: seconds in one dgeev (18 s at 400 elements), the context made
    # (and cached) before
    ("beam = kanefem.PlanarBeam(1.0, 300, E=210e9, A=1e-4, I=1e-8, rho=7800.0, storage='dense')\n"
     "        beam.eigenvalues(1)\n"
     "        cached = lambda: len(beam._eig_cache) - 1",
     "beam.gyroscopic_eigenvalues([1.0], [0.0], 2)"),
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


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")
def test_interrupt_call_in_a_forked_child():
    """A forked child (the fuzz test's examples, multiprocessing's fork start) has none of
    its parent's threads: a call handed to the parent's worker waited forever (the fuzz
    test's 30 s hang on a reduced link's eigenvalues). The child starts its own worker."""
    _interrupt.call(divmod, 7, 2)  # the parent's worker exists
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        signal.alarm(10)  # a hang ends the child with SIGALRM
        os._exit(0 if _interrupt.call(divmod, 9, 2) == (4, 1) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"the child's status {status}"


def test_factors_made_in_the_worker_are_freed():
    """SciPy's SuperLU frees a factor only in the thread that made it: the factors
    _interrupt.call makes in its worker are dropped there (``owned=True``), so six
    factors of 12 MB made and dropped in turn leave the process's memory as it was
    (within one factor; a thread per call with the factor dropped in the main thread kept
    every one: +75 MB measured here, 67 MB per simulate call of a 1e4-DOF mesh)."""
    import gc

    import scipy.sparse as sp

    from kanefem.sparse import Factor

    def rss_mb():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024

    n = 18
    D = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    eye = sp.eye(n)
    A = (sp.kron(sp.kron(D, eye), eye) + sp.kron(sp.kron(eye, D), eye) + sp.kron(sp.kron(eye, eye), D)).tocsr()
    F = Factor(A, True)
    size = F.nnz * 12 / 2**20  # values and indices of L and U
    assert isinstance(F.lu, _interrupt.Owned) and size > 10
    del F
    gc.collect()
    before = rss_mb()
    for _ in range(6):
        F = Factor(A, True)
        F.solve(np.ones(A.shape[0]))
        del F
        gc.collect()
    assert rss_mb() - before < size


#: the calls that run for seconds in one C call without looking at signals
_LONG_CALLS = (r"\b(spla\.splu|_core\.eig_create|_core\.eig_create_projected|_core\.eig_solve|"
               r"_core\.eig_gyroscopic|_core\.null_basis)\b")


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


# ---------------------------------------------------------------- flags (item 6)


def _bool_parameters():
    """(file, function, parameter) of every parameter of a public function or method
    and every dataclass field of the package whose default is True or False."""
    out = []
    for path in SOURCES:
        if path.name == "_checks.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and not (node.name.startswith("_") and not node.name.startswith("__")):
                args = node.args.args + node.args.kwonlyargs
                defaults = ([None] * (len(node.args.args) - len(node.args.defaults)) + list(node.args.defaults)
                            + list(node.args.kw_defaults))
                out += [(path.name, node.name, a.arg) for a, d in zip(args, defaults)
                        if isinstance(d, ast.Constant) and isinstance(d.value, bool)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, bool) and isinstance(node.target, ast.Name):
                out.append((path.name, "dataclass field", node.target.id))
    return out


#: bool-or-other parameters, checked by their own rule: progress is None, a bool or a
#: callable (simulate, sweeps); measure_sizes of the DerivativeCount record is set from
#: derive's checked flag
_NOT_FLAGS = {"progress", "_seen"}


def test_rule_every_flag_passes_through_the_one_check():
    """The grep-able rule for flags: every parameter with a bool default is read by
    ``_checks.flag("name", ...)`` somewhere in the package (where it is used, or where
    it is forwarded to), so "no", 0 and None are refused as flags everywhere."""
    text = "\n".join(p.read_text() for p in SOURCES)
    checked = set(re.findall(r'flag\(\s*"(\w+)"', text))
    for block in re.findall(r"_checks\.flag\(name, v\) for name, v in \((.*?)\)\)\)", text, re.S):
        checked |= set(re.findall(r'\("(\w+)"', block))
    missing = sorted({f"{f}: {fn}({p})" for f, fn, p in _bool_parameters() if p not in checked | _NOT_FLAGS})
    assert not missing, "read these flags with _checks.flag: " + ", ".join(missing)


@pytest.mark.parametrize("call", [
    lambda: kanefem.MeshBody(kanefem.Mesh.rectangle(1.0, 0.1, 2, 1), E=1e9, nu=0.3, rho=1e3, thickness=0.01,
                             plane_strain="no"),  # was taken as True
    lambda: kanefem.mechanism.ElasticLink("rod", kanefem.PlanarBeam(0.3, 2, E=2e11, A=1e-4, I=1e-9, rho=7850.0),
                                          geometric_stiffness="no"),
    lambda: kanefem.frames.from_rates([1.0, 2.0], [0.0, 0.0], instants="yes"),
    lambda: kanefem.Mesh.from_meshio(kanefem.Mesh.rectangle(1.0, 1.0, 1, 1).to_meshio(), prune="no"),
])
def test_truthy_strings_are_not_flags(call):
    with pytest.raises(TypeError, match=r"must be True or False, got '(no|yes)'"):
        call()


# ---------------------------------------------------------------- silent or wrong (item 6)

BEAM = dict(E=210e9, A=2e-4, I=1.67e-9, rho=7850.0)


def test_eps_beyond_what_the_stiffness_survives_is_refused():
    beam = kanefem.PlanarBeam(0.6, 10, **BEAM)
    # eps = 1e300 gave eigenvalues of -6e121 (omega = 1e160 was refused as an overflow)
    with pytest.raises(kanefem.KanefemError, match="overflows the double range"):
        beam.eigenvalues(4, eps=1e300)
    # eps = 1e25 gave 5.4e8 (= 2^29, rounding) for the 3.7e8 that eps = 1e10 ... 1e22 give
    with pytest.raises(kanefem.KanefemError, match="lost in their rounding"):
        beam.eigenvalues(4, eps=1e25)
    ref = beam.eigenvalues(4, eps=1e10).eigenvalues
    got = beam.eigenvalues(4, eps=1e22).eigenvalues  # noise ~ 2.2e-16 x 9.5e21 = 2e6
    assert np.allclose(got, ref, rtol=5e-3), (got, ref)


def test_a_O_checked_when_it_does_not_enter_the_result():
    beam = kanefem.PlanarBeam(0.6, 4, **BEAM)
    for bad, what in (([np.nan, 0.0], "finite"), ([1.0, 2.0, 3.0], "shape")):
        with pytest.raises(ValueError, match=f"a_O must .*{what}"):
            beam.eigenvalues(2, omega=3.0, a_O=bad)  # ignored without geometric stiffness
        with pytest.raises(ValueError, match="a_O"):
            beam.eigenvalues_vs_time([1.0, 2.0], [0.0, 0.0], 2, a_O=[bad, [0.0, 0.0]])
    # a valid a_O does not change the eigenvalues without geometric stiffness
    assert np.array_equal(beam.eigenvalues(2, omega=3.0, eps=5.0, a_O=[100.0, 50.0]).eigenvalues,
                          beam.eigenvalues(2, omega=3.0, eps=5.0).eigenvalues)
    frame = kanefem.frames.from_rates(3.0, 0.0)
    with pytest.raises(ValueError, match="not both"):  # frames= replaced a_O without a word
        beam.eigenvalues(2, a_O=[1.0, 0.0], frames=frame)


def test_planar_motion_refuses_a_z_component():
    motion = kanefem.Motion.from_function(lambda t: (1.0, 0.0, (0.0, 0.0, 5.0)))
    with pytest.raises(ValueError, match=r"a_O at t = 0.0 is \[0.0, 0.0, 5.0\]: a planar motion has no z"):
        motion.evaluate([0.0, 1.0])  # a_O[:, :2] dropped the 5
    beam = kanefem.PlanarBeam(0.6, 4, **BEAM)
    with pytest.raises(ValueError, match=r"a = \(0, 0, 5\).*a_O has a z component"):
        kanefem.simulate(beam, motion, 0.01, dt=1e-3, progress=False)  # the core dropped it too
    flat = kanefem.Motion.from_function(lambda t: (1.0, 0.0, (0.0, 2.0, 0.0)))
    assert flat.evaluate([0.0]).a_O.tolist() == [[0.0, 2.0]]


def _crank():
    return kanefem.mechanism.slider_crank(elements=2)


def test_explicit_time_arguments_conflict():
    M = kanefem.mechanism
    crank = _crank()
    with pytest.raises(ValueError, match="give the output times t or duration = 1.0"):
        crank.solve(np.linspace(0.0, 0.1, 5), duration=1.0, drives={"crank": M.ConstantSpeed(10.0)})
    t = np.linspace(0.0, 0.1, 11)
    rec = {"crank": M.Recorded(t, 150.0 * t, noise=0.0)}
    # a recorded drive replaced the grid asked for by the samples' times
    assert crank.solve(duration=0.05, points=6, drives=rec).t.tolist() == pytest.approx(
        [0.0, 0.01, 0.02, 0.03, 0.04, 0.05], abs=1e-15)
    with pytest.raises(ValueError, match=r"duration: the times 0 to 0.2 s leave the record of 'crank'"):
        crank.solve(duration=0.2, drives=rec)
    assert crank.solve(drives=rec).t.tolist() == t.tolist()  # no grid asked for: the samples'


def test_few_recorded_samples_need_a_noise_level():
    from kanefem._smoothing import SmoothingSpline

    t = np.linspace(0.0, 1.0, 3)
    # 3 samples of t^2: the estimate took the curvature for noise, a straight line, z'' = 0
    with pytest.raises(ValueError, match="needs at least 8 of them, got 3: give noise"):
        SmoothingSpline(t, t**2)
    assert float(SmoothingSpline(t, t**2, noise=0.0)(0.5, 2)) == pytest.approx(3.0)  # natural cubic
    t = np.linspace(0.0, 1.0, 41)
    assert float(SmoothingSpline(t, t**2)(0.5, 2)) == pytest.approx(2.0, rel=0.05)


def test_deflection_at_nan_is_refused():
    M = kanefem.mechanism
    crank = _crank()
    flex = crank.simulate_flexible(duration=0.002, points=3, drives={"crank": M.ConstantSpeed(150.0)})
    with pytest.raises(ValueError, match="x must be finite, got nan"):  # returned node 0's zeros
        flex.deflection("rod", float("nan"))
    motion = crank.solve(duration=0.01, points=3, drives={"crank": M.ConstantSpeed(150.0)})
    with pytest.raises(ValueError, match="at must be finite"):
        motion.point("ground", [np.nan, 0.0])


# ---------------------------------------------------------------- messages (item 7)


def test_drives_not_a_dict_is_named():
    with pytest.raises(TypeError, match=r"drives must be a dict \{coordinate name: ConstantSpeed.*got 'crank'"):
        _crank().solve(duration=0.1, drives="crank")  # "dictionary update sequence element #0 ..."
    with pytest.raises(TypeError, match="d0 must be a dict"):
        _crank().simulate_flexible(duration=0.01, d0="rod",
                                   drives={"crank": kanefem.mechanism.ConstantSpeed(150.0)})


@pytest.mark.parametrize("argv, option", [
    (["mechanism", "slider-crank", "--duration", "nan"], "--duration"),  # blamed --revolutions
    (["mechanism", "slider-crank", "--revolutions", "inf"], "--revolutions"),
    (["eigen", "--omega", "inf"], "--omega"),
    (["windpump", "--rpm", "nan"], "--rpm"),
])
def test_cli_non_finite_numbers_named(argv, option, tmp_path, capsys):
    from kanefem.__main__ import main

    with pytest.raises(SystemExit) as exc:  # argparse's usage error, status 2
        main(argv + ["--out", str(tmp_path / "out")])
    assert exc.value.code == 2
    assert f"argument {option}: " in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_rule_cli_floats_are_finite():
    """The grep-able rule: no option of the command line is parsed by argparse's float
    (which takes nan and inf); they all use _finite."""
    text = (PACKAGE / "__main__.py").read_text()
    assert "type=float" not in text


def test_huge_initial_angle_refused():
    # alpha0 = 1e300: every later angle was 1e300 (a turn is below the double's resolution)
    with pytest.raises(ValueError, match=r"alpha0 = 1e\+300 rad: a double resolves that angle only to 2.22e\+284"):
        kanefem.WindPump().solve(rpm=140, revolutions=0.1, alpha0=1e300)
    with pytest.raises(ValueError, match="theta0"):
        kanefem.Motion.constant_speed(1.0, theta0=1e20)


def test_float32_t_eval_ending_at_t_end():
    bar = kanefem.AxialBar(1.0, 3, E=210e9, A=2e-5, rho=5e4)
    t = np.linspace(0.0, 0.1, 11, dtype=np.float32)  # float32(0.1) = 0.10000000149 > 0.1
    r = kanefem.simulate(bar, kanefem.Motion.constant_speed(1.0), 0.1, dt=1e-3, t_eval=t, progress=False)
    assert r.t[-1] == 0.1 and r.t.size == 11
    with pytest.raises(ValueError, match="inside \\[0, t_end\\]"):  # beyond its precision: still refused
        kanefem.simulate(bar, kanefem.Motion.constant_speed(1.0), 0.1, dt=1e-3,
                         t_eval=np.linspace(0.0, 0.1001, 11, dtype=np.float32), progress=False)


@pytest.fixture(scope="module")
def plate():
    return kanefem.MeshBody(kanefem.Mesh.rectangle(1.0, 0.2, 16, 8, cell="quad"), E=7e10, nu=0.3, rho=2700.0,
                            thickness=0.01, storage="dense")


def test_dense_storage_above_the_sparse_threshold(plate):
    assert plate.ndof > 300
    # "auto" chose the sparse solver, then refused it for the storage it was given
    r = plate.eigenvalues(4)
    assert r.solver == "symmetric" and r.eigenvalues.shape == (4,)
    # free-free at rest: three rigid-body modes at 0 (to round-off of the 4th), then bending
    assert np.all(np.abs(r.eigenvalues[:3]) < 1e-6 * r.eigenvalues[3])


def test_mesh_progress_checked_before_the_run(plate):
    with pytest.raises(TypeError, match="progress must be callable, got False"):  # crashed at instant 0.1 s
        plate.eigenvalues_vs_time(np.linspace(0.0, 10.0, 3), np.zeros(3), 2, progress=False)


def test_write_modes_instant_and_extension(plate, tmp_path):
    r = plate.eigenvalues(2)
    with pytest.raises(ValueError, match=r"instant = 3 must be <= 0"):  # ignored for one instant
        plate.write_modes(tmp_path / "m.vtu", r, instant=3)
    with pytest.raises(ValueError, match=r"path must end in .vtu"):  # VTU was written as m.csv
        plate.write_modes(tmp_path / "m.csv", r)
    assert not any(tmp_path.iterdir())
    assert plate.write_modes(tmp_path / "m.vtu", r) is not None


def test_recorded_noise_beyond_the_squares():
    from kanefem._smoothing import SmoothingSpline

    t = np.linspace(0.0, 1.0, 8)
    # noise = 1e308: noise**2 raised OverflowError; a noise above every residual is the line
    s = SmoothingSpline(t, t**2, noise=1e308)
    # the line as a cubic B-spline (SciPy's make_lsq_spline): its curvature is round-off
    assert s.lam == np.inf and abs(float(s(0.5, 2))) < 1e-12


def test_massless_slider_named():
    # m_D = 0: t_end / (2 pi sqrt(m_D / k)) raised ZeroDivisionError (Python floats) or
    # blamed an infinite number of spring periods
    with pytest.raises(ValueError, match=r"m_D = 0.0: the slider's equation of motion"):
        kanefem.WindPump(m_D=0.0).solve(rpm=140, t=[0.0, 0.01], steady_state=False)


def test_mechanism_motion_size_bounded_before_it_is_allocated():
    M = kanefem.mechanism
    crank = _crank()
    # points = 2^28 passed points' own bound and asked for 1.2e10 doubles (99 GB)
    with pytest.raises(ValueError, match=r"t or points ask for a motion of 1.235e\+10 values"):
        crank.solve(duration=0.01, points=2**28, drives={"crank": M.ConstantSpeed(10.0)})
    with pytest.raises(ValueError, match="t or points ask for a motion"):
        crank.simulate_flexible(duration=0.01, points=10**7, drives={"crank": M.ConstantSpeed(10.0)})


def test_huge_initial_crank_angle_refused():
    crank = _crank()
    with pytest.raises(ValueError, match=r"z0\[0\] \(crank\) = 1e\+300 rad"):  # the crank stood still
        crank.solve(duration=0.01, points=3, z0=[1e300], drives={"crank": kanefem.mechanism.ConstantSpeed(10.0)})
