"""The boundary between Python and the C core (issue 8): one frame type, keyword calls,
one statistics layout, one family of errors, values outside the double range refused
before LAPACK sees them, long C loops that stop on Ctrl-C, a bounded context cache."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import numpy.linalg
import pytest

import kanefem
from kanefem import _core, _records, frames

STEEL = dict(E=210e9, A=2e-4, I=1.67e-9, rho=7850.0)


# ---------------------------------------------------------------- the frame type


def test_frame_dtype_is_the_c_struct():
    """Five 3-vectors of doubles, packed in the order of struct kf_frame (the binding
    builds the dtype from offsetof, so this pins the layout the core reads)."""
    d = kanefem.FRAME_DTYPE
    assert d.names == ("omega", "eps", "v", "a", "vdot")
    assert d.itemsize == 15 * 8
    assert [d.fields[n][1] for n in d.names] == [0, 24, 48, 72, 96]
    assert all(d.fields[n][0] == np.dtype(("<f8", (3,))) for n in d.names)


def test_mechanism_records_are_the_c_structs():
    """Joints, springs and coordinates cross into the core as records whose layout the
    binding takes from struct kf_joint / kf_spring / kf_coord (offsetof): integers as C
    int, lengths as doubles, in the structs' order with their padding."""
    i, f = np.dtype(np.intc), np.dtype(np.float64)
    j = kanefem.JOINT_DTYPE
    assert j.names == ("kind", "body", "p0", "p1", "axis", "angle", "k", "s0", "c", "F_r", "v_F")
    assert j.fields["kind"][0] == i and j.fields["body"][0] == np.dtype((i, (2,)))
    assert all(j.fields[n][0] == np.dtype((f, (2,))) for n in ("p0", "p1", "axis"))
    # int kind, int body[2] (12 bytes), then doubles from the next multiple of 8
    assert [j.fields[n][1] for n in j.names] == [0, 4, 16, 32, 48, 64, 72, 80, 88, 96, 104]
    assert j.itemsize == 112 and j.isalignedstruct
    s = kanefem.SPRING_DTYPE
    assert s.names == ("body", "p0", "p1", "k", "L0", "c") and s.itemsize == 64
    assert [s.fields[n][1] for n in s.names] == [0, 8, 24, 40, 48, 56]
    c = kanefem.COORD_DTYPE
    assert c.names == ("kind", "index", "name") and c.fields["name"][0] == np.dtype("S24")
    assert c.itemsize == 32


def test_mechanism_records_are_refused_in_another_dtype():
    """The binding takes no float rows or look-alike dtypes: the exact record type only,
    and the core validates its fields (an index out of range names the record)."""
    from kanefem import _core, _records
    arrays = kanefem.mechanism.slider_crank()._arrays()
    _core.mech_create(**arrays)  # as made
    nj = arrays["joints"].size
    with pytest.raises(TypeError, match="joints must be a 1-D array of kanefem.JOINT_DTYPE"):
        _core.mech_create(**{**arrays, "joints": np.zeros((nj, 15))})  # the old float rows
    # the same fields packed (p0 at byte 12, not 16): not the struct
    packed = np.dtype([(n, _records.JOINT_DTYPE.fields[n][0]) for n in _records.JOINT_DTYPE.names])
    with pytest.raises(TypeError, match="joints must be a 1-D array of kanefem.JOINT_DTYPE"):
        _core.mech_create(**{**arrays, "joints": np.zeros(nj, packed)})
    with pytest.raises(TypeError, match="springs must be a 1-D array of kanefem.SPRING_DTYPE"):
        _core.mech_create(**{**arrays, "springs": [(0, 0)]})
    bad = arrays["joints"].copy()
    bad["body"][0, 1] = 99
    with pytest.raises(ValueError, match=r"joints\[0\]\.body = 99 is not a body"):
        _core.mech_create(**{**arrays, "joints": bad})
    long = arrays["coords"].copy()
    long["name"][0] = b"x" * 24  # no room for the NUL
    with pytest.raises(ValueError, match=r"coords\[0\]\.name must be a non-empty string of at most 23"):
        _core.mech_create(**{**arrays, "coords": long})


def test_drive_and_link_records_are_the_c_structs():
    """Drives, elastic links and axes on bodies cross as records laid out as struct
    kf_mech_drive, kf_mech_link and kf_mech_axes: the offsets the binding took by offsetof equal those the platform's C
    ABI gives the same declarations (ctypes lays a C struct out by the compiler's rules,
    independently of the extension), the pointers as unnamed bytes between the fields."""
    import ctypes

    class Drive(ctypes.Structure):  # csrc/kf_mechanism.h, kf_mech_drive
        _fields_ = [("mode", ctypes.c_int), ("speed", ctypes.c_double), ("path", ctypes.c_void_p),
                    ("law", ctypes.c_void_p), ("params", ctypes.c_void_p), ("force", ctypes.c_double)]

    class Link(ctypes.Structure):  # kf_mech_link
        _fields_ = [("body", ctypes.c_int), ("fe", ctypes.c_void_p), ("fixed", ctypes.c_void_p),
                    ("rayleigh", ctypes.c_double * 2), ("geometric", ctypes.c_int), ("nport", ctypes.c_int),
                    ("port_xy", ctypes.c_void_p), ("port_dof", ctypes.c_void_p), ("mass", ctypes.c_void_p)]

    class Axes(ctypes.Structure):  # kf_mech_axes
        _fields_ = [("body", ctypes.c_int), ("o", ctypes.c_double * 2), ("phi", ctypes.c_double)]

    i, f = np.dtype(np.intc), np.dtype(np.float64)
    for dtype, struct, fields in ((kanefem.DRIVE_DTYPE, Drive, {"mode": i, "speed": f, "force": f}),
                                  (kanefem.LINK_DTYPE, Link, {"body": i, "rayleigh": np.dtype((f, (2,))),
                                                              "geometric": i}),
                                  (kanefem.AXES_DTYPE, Axes, {"body": i, "o": np.dtype((f, (2,))), "phi": f})):
        assert dtype.names == tuple(fields)
        assert {n: dtype.fields[n][0] for n in dtype.names} == fields
        assert {n: dtype.fields[n][1] for n in dtype.names} == {n: getattr(struct, n).offset for n in fields}
        assert dtype.itemsize == ctypes.sizeof(struct) and dtype.isalignedstruct
    # the records as _records makes them: integers stay integers
    d = _records.drives([dict(mode="speed", speed=15.0), dict(mode="free", force=-2.5), dict(mode="path")])
    assert d["mode"].tolist() == [1, 0, 2] and d["mode"].dtype == i
    assert d["speed"].tolist() == [15.0, 0.0, 0.0] and d["force"].tolist() == [0.0, -2.5, 0.0]
    lk = _records.links([dict(body=2, rayleigh=(0.1, 1e-4), geometric=True)])
    assert lk["body"].tolist() == [2] and lk["geometric"].tolist() == [1]
    assert lk["rayleigh"].tolist() == [[0.1, 1e-4]]


def test_bad_drive_and_link_records_are_refused_naming_the_field():
    """No float rows or look-alike dtypes; a record whose field the core cannot take is
    refused with the record's index and the field's name and value."""
    sc = kanefem.mechanism.slider_crank(elements=3)
    core, rod, t = sc._core, sc.link("rod"), np.linspace(0.0, 1e-3, 3)
    nd = int((~rod._fixed).sum())

    def rigid(drives, functions=(None,)):
        return _core.mech_simulate(core, drives, list(functions), [0.0], [150.0], t)

    def flexible(links, drives=None):
        drives = _records.drives([dict(mode="speed", speed=150.0)]) if drives is None else drives
        return _core.mech_flex_simulate(core, links, [rod.body._body], [rod._fixed], drives, [None], [0.0],
                                        [150.0], np.zeros(2 * nd), t, dt=5e-4)

    assert rigid(_records.drives([dict(mode="speed", speed=150.0)]))["states"].shape == (3, 4)
    with pytest.raises(TypeError, match="drives must be a 1-D array of kanefem.DRIVE_DTYPE"):
        rigid(np.array([1.0]))  # the old float column of modes
    packed = np.dtype([(n, _records.DRIVE_DTYPE.fields[n][0]) for n in _records.DRIVE_DTYPE.names])
    with pytest.raises(TypeError, match="drives must be a 1-D array of kanefem.DRIVE_DTYPE"):
        rigid(np.zeros(1, packed))
    for field, value, message in (("mode", 7, r"drives\[0\]\.mode = 7"),
                                  ("speed", np.nan, r"drives\[0\]\.speed = nan"),
                                  ("force", 3.0, r"drives\[0\]\.force = 3 .*0 unless the mode is 0")):
        bad = _records.drives([dict(mode="speed", speed=150.0)])
        bad[field][0] = value
        with pytest.raises(ValueError, match=message):
            rigid(bad)
    with pytest.raises(ValueError, match=r"drives\[0\] .* is a path drive without a path"):
        rigid(_records.drives([dict(mode="path")]))
    with pytest.raises(ValueError, match=r"functions\[0\] must be None: drives\[0\]\.mode = 1"):
        rigid(_records.drives([dict(mode="speed", speed=1.0)]), [lambda t: (0, 0, 0)])
    with pytest.raises(ValueError, match="drives holds 2 records, the mechanism has 1 coordinates"):
        rigid(_records.drives([{}, {}]), [None, None])

    good = _records.links([dict(body=1, geometric=True)])
    assert flexible(good)["elastic"].shape == (3, 2 * nd)
    with pytest.raises(TypeError, match="links must be a 1-D array of kanefem.LINK_DTYPE"):
        flexible([dict(body=1, fe=rod.body._body, fixed=rod._fixed, rayleigh=np.zeros(2), geometric=True)])
    for field, value, message in (("body", 99, r"links\[0\]\.body = 99 is not a body"),
                                  ("rayleigh", (-1.0, 0.0), r"links\[0\]\.rayleigh = \(-1, 0\) must be finite"),
                                  ("geometric", 2, r"links\[0\]\.geometric = 2 must be 0 or 1")):
        bad = good.copy()
        bad[field][0] = value
        with pytest.raises(ValueError, match=message):
            flexible(bad)
    z = np.array([[0.3]])
    axes = _records.axes([dict(body=1, o=(0.1, 0.0))])
    assert _core.mech_kinematics(core, z, frames=axes)["frames"].shape == (1, 1)
    with pytest.raises(TypeError, match="frames must be a 1-D array of kanefem.AXES_DTYPE"):
        _core.mech_kinematics(core, z, frames=np.array([[1.0, 0.1, 0.0, 0.0]]))  # the old float row
    bad = axes.copy()
    bad["body"][0] = 7
    with pytest.raises(ValueError, match=r"frames\[0\]\.body = 7 is not a body"):
        _core.mech_kinematics(core, z, frames=bad)
    bad = axes.copy()
    bad["phi"][0] = np.inf
    with pytest.raises(ValueError, match=r"frames\[0\]: o = \(0.1, 0\), phi = inf must be finite"):
        _core.mech_kinematics(core, z, frames=bad)
    with pytest.raises(ValueError, match=r"fixed\[0\] has 3 flags"):
        _core.mech_flex_simulate(core, good, [rod.body._body], [np.zeros(3, bool)],
                                 _records.drives([dict(mode="speed", speed=150.0)]), [None], [0.0], [150.0],
                                 np.zeros(2 * nd), t, dt=5e-4)


def test_planar_frames_fill_z_rates_and_in_plane_vectors():
    f = frames.planar([1.0, 2.0, 3.0], eps=0.5, a_O=(0.0, -9.81), v_O=[[1, 2], [3, 4], [5, 6]])
    assert f.shape == (3,)
    np.testing.assert_array_equal(f["omega"], [[0, 0, 1], [0, 0, 2], [0, 0, 3]])
    np.testing.assert_array_equal(f["eps"][:, 2], 0.5)
    np.testing.assert_array_equal(f["a"], [[0, -9.81, 0]] * 3)
    np.testing.assert_array_equal(f["v"][:, :2], [[1, 2], [3, 4], [5, 6]])
    with pytest.raises(ValueError, match="a_O"):
        frames.planar([1.0, 2.0], a_O=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="eps"):
        frames.planar([1.0, 2.0], eps=[1.0, 2.0, 3.0])


def test_motion_evaluate_returns_the_frames_the_core_integrates():
    m = kanefem.Motion.from_samples(np.linspace(0, 1, 21), 1.5 * np.linspace(0, 1, 21) ** 2)
    s = m.evaluate([0.25, 0.5], gravity=(0.0, -9.81))
    assert s.frames.dtype == kanefem.FRAME_DTYPE
    # theta = 1.5 t^2: omega = 3 t, eps = 3; the spline of a quadratic is exact
    np.testing.assert_allclose(s.frames["omega"][:, 2], [0.75, 1.5], rtol=0, atol=1e-12)
    np.testing.assert_allclose(s.eps, [3.0, 3.0], rtol=0, atol=1e-10)
    np.testing.assert_array_equal(s.a_O, s.frames["a"][:, :2])


def test_a_planar_body_refuses_rotation_about_x_or_y():
    """The core checks each frame: a planar body turns about z only, and says which field."""
    beam = kanefem.PlanarBeam(0.6, 4, **STEEL)
    f = frames.empty(1)
    f["omega"][0] = (0.3, 0.0, 1.0)
    with pytest.raises(ValueError, match="omega.*about its frame's z axis"):
        _core.motion_terms(body=beam._body, frame=f)
    ctx = beam._eig_context("pinned-pinned")
    f["omega"][0] = (0.0, 0.0, 1.0)
    f["eps"][0] = (0.0, 2.0, 0.0)
    with pytest.raises(ValueError, match="instant 0: eps"):
        _core.eig_solve(eig=ctx, frames=f, n_modes=1, include_eps=True, vectors=False, tracked=False)


def test_a_function_motion_may_return_vectors():
    """omega and eps as numbers (about z) or 3-vectors, a_O with 2 or 3 components: the
    same frame either way."""
    bar = kanefem.AxialBar(1.0, 4, E=210e9, A=2e-5, rho=5e4)
    r1 = kanefem.simulate(bar, kanefem.Motion.from_function(lambda t: (3.0, 0.0, (0.0, 0.0))),
                          0.01, dt=1e-4, progress=False)
    r2 = kanefem.simulate(bar, kanefem.Motion.from_function(lambda t: ((0, 0, 3.0), (0, 0, 0), (0, 0, 0))),
                          0.01, dt=1e-4, progress=False)
    np.testing.assert_array_equal(r1.d, r2.d)
    with pytest.raises(ValueError, match="about its frame's z axis"):
        kanefem.simulate(bar, kanefem.Motion.from_function(lambda t: ((1.0, 0, 3.0), 0.0, (0, 0))),
                         0.01, dt=1e-4, progress=False)
    with pytest.raises(TypeError, match="omega from the motion function"):
        kanefem.simulate(bar, kanefem.Motion.from_function(lambda t: ("x", 0.0, (0, 0))),
                         0.01, dt=1e-4, progress=False)


# ---------------------------------------------------------------- one statistics layout


def test_integration_statistics_have_the_same_keys_everywhere():
    keys = {"steps", "rejected", "evaluations", "factorizations", "solves"}
    bar = kanefem.AxialBar(1.0, 4, E=210e9, A=2e-5, rho=5e4)
    for method in kanefem.simulate.__globals__["METHODS"]:
        r = kanefem.simulate(bar, kanefem.Motion.constant_speed(3.0), 0.01, dt=1e-4,
                             method=method, progress=False)
        assert keys <= set(r.stats), (method, r.stats)
    motion = kanefem.WindPump().solve(rpm=140, revolutions=0.1, steady_state=False)
    assert keys <= set(motion.stats)
    # the rigid motion's right-hand side ran: at least 6 evaluations per step (DP5)
    assert motion.stats["evaluations"] >= 6 * motion.stats["steps"] > 0


# ---------------------------------------------------------------- the error family


def test_error_family():
    assert issubclass(kanefem.LinAlgError, kanefem.KanefemError)
    assert issubclass(kanefem.LinAlgError, numpy.linalg.LinAlgError)
    assert issubclass(kanefem.GeometryError, (kanefem.KanefemError, ValueError))
    assert issubclass(kanefem.GeometryError, kanefem.KanefemError)
    assert issubclass(kanefem.DivergenceError, kanefem.KanefemError)
    assert issubclass(kanefem.StepLimitError, kanefem.KanefemError)
    assert issubclass(kanefem.RangeError, kanefem.KanefemError)
    assert issubclass(kanefem.RangeError, FloatingPointError)
    assert issubclass(kanefem.RangeError, ValueError)


def test_max_steps_is_a_step_limit_error_naming_it():
    """Exhausting max_steps was a LinAlgError ('did not converge'); it is its own error."""
    bar = kanefem.AxialBar(1.0, 10, E=210e9, A=2e-5, rho=5e4)
    with pytest.raises(kanefem.StepLimitError, match="max_steps"):
        kanefem.simulate(bar, kanefem.Motion.constant_speed(3.0), 0.1, method="rk45-lagrange",
                         max_steps=20, progress=False)
    with pytest.raises(kanefem.StepLimitError, match="dt"):
        kanefem.simulate(bar, kanefem.Motion.constant_speed(3.0), 0.1, dt=1e-4, max_steps=10,
                         progress=False)


# ---------------------------------------------------------------- the double range


@pytest.mark.parametrize("section, name", [
    (dict(I=1e300), "E"),        # E I / l^3 overflows: xerbla ended the process before
    (dict(rho=1e-300), "rho"),   # element masses subnormal: lambda was -omega^2 for all modes
    (dict(rho=1e-320), "rho"),   # masses zero: the message blamed the supports
])
def test_sections_outside_the_double_range_are_named(section, name):
    with pytest.raises(kanefem.RangeError, match=name):
        kanefem.PlanarBeam(0.6, 10, **{**STEEL, **section}).eigenvalues(2, eps=1.0)


def test_stiffness_to_mass_overflow_is_named_where_the_body_is_built():
    """Each matrix finite, their ratio not: the eigenvalues would lose every digit."""
    # refused where the body is built: each DOF's k_ii / m_ii is 1e309 (issue 8's fuzz)
    with pytest.raises(kanefem.RangeError, match=r"frequency scale k/m = .*E = 1e\+20, rho = 1e-290"):
        kanefem.PlanarBeam(0.6, 10, **{**STEEL, "rho": 1e-290, "E": 1e20})


def test_omega_whose_square_overflows_is_refused():
    """omega = 1e160 returned -inf eigenvalues."""
    beam = kanefem.PlanarBeam(0.6, 10, **STEEL)
    with pytest.raises(kanefem.RangeError, match="omega"):
        beam.eigenvalues(2, omega=1e160)
    with pytest.raises(kanefem.RangeError, match="omega"):
        beam.eigenvalues_vs_time([1.0, 1e160], [0.0, 0.0], 2)
    with pytest.raises(kanefem.RangeError, match="omega"):
        beam.motion_terms(1e200)


def test_linked_and_scipy_lapack_never_see_a_non_finite_matrix():
    """In a fresh process on each LAPACK route: the overflow case that made reference
    LAPACK's xerbla print and exit(0) now raises in Python and the process goes on."""
    code = textwrap.dedent("""
        import kanefem
        try:
            kanefem.PlanarBeam(0.6, 10, E=210e9, A=2e-4, I=1e300, rho=7850).eigenvalues(2, eps=1.0)
        except kanefem.RangeError as e:
            print("raised", kanefem.lapack_source().split()[0])
    """)
    routes = {"linked": {}, "scipy": {"KANEFEM_LAPACK_SOURCE": "scipy"}}
    if not _core.lapack_linked():
        routes.pop("linked")
    # (the route is the child's own: not inherited from a run on the other route)
    base = {k: v for k, v in os.environ.items() if k != "KANEFEM_LAPACK_SOURCE"}
    for want, env in routes.items():
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**base, **env}, timeout=120)
        assert out.returncode == 0 and out.stdout.strip() == f"raised {want}", out


# ---------------------------------------------------------------- integers, messages


def test_huge_integers_are_value_errors_naming_the_argument():
    """The binding's int parsing raised OverflowError."""
    beam = kanefem.PlanarBeam(0.6, 4, **STEEL)
    with pytest.raises(ValueError, match="n_modes"):
        beam.eigenvalues(2**40)
    with pytest.raises(ValueError, match="max_steps"):
        kanefem.simulate(beam, kanefem.Motion.constant_speed(1.0), 0.01, max_steps=2**70,
                         progress=False)


def test_callback_messages_carry_the_time():
    """PyErr_Format has no %g: the messages printed a literal '%g' instead of the time."""
    bar = kanefem.AxialBar(1.0, 4, E=210e9, A=2e-5, rho=5e4)
    with pytest.raises(ValueError) as info:
        kanefem.simulate(bar, kanefem.Motion.constant_speed(1.0), 0.01, dt=1e-3,
                         loads=lambda t: np.zeros(3), progress=False)
    assert "%g" not in str(info.value) and "at t = 0" in str(info.value)
    with pytest.raises(ValueError) as info:
        kanefem.simulate(bar, kanefem.Motion.from_function(lambda t: (1.0, 0.0, (0.0,))), 0.01,
                         dt=1e-3, progress=False)
    assert "%g" not in str(info.value) and "at t = 0" in str(info.value)


def test_every_core_function_takes_keywords():
    """The binding's functions are called by keyword from the package; a positional
    slip cannot silently swap two floats."""
    bar = kanefem.AxialBar(1.0, 2, E=210e9, A=2e-5, rho=5e4)
    terms = _core.motion_terms(body=bar._body, frame=frames.planar(2.0))
    np.testing.assert_allclose(terms["K_om"], -4.0 * bar.mass_matrix(), rtol=1e-15)
    with pytest.raises(TypeError):
        _core.motion_terms(bar._body, frames.planar(2.0), 1.0)


# ---------------------------------------------------------------- the context cache


def test_eigen_context_cache_is_bounded():
    """Contexts keyed by constraint matrices grew without limit (+426 MiB for 100 distinct
    matrices on a 100-element beam); now the least recently used are dropped, and a
    dropped one is rebuilt with the same answer."""
    beam = kanefem.PlanarBeam(1.0, 20, **STEEL)
    first = None
    for k in range(30):
        G = np.zeros((1, beam.ndof))
        G[0, 3 * (k % 19) + 4] = 1.0 + k  # distinct matrices
        r = beam.eigenvalues(1, constraints=G, supports="pinned-pinned")
        first = r.eigenvalues[0] if first is None else first
    assert len(beam._eig_cache) <= kanefem.bodies._EIG_CACHE_SIZE
    G = np.zeros((1, beam.ndof))
    G[0, 4] = 1.0
    again = beam.eigenvalues(1, constraints=G, supports="pinned-pinned").eigenvalues[0]
    assert abs(again - first) <= 1e-12 * abs(first)


# ---------------------------------------------------------------- Ctrl-C in C loops


def _interrupt_after_start(code, ready="ready"):
    """Run code in a child, send SIGINT once it prints `ready` plus 0.5 s, return (seconds
    from the signal to the child's exit, stderr)."""
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == ready
        time.sleep(0.5)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
        return time.monotonic() - sent, err
    finally:
        child.kill()


@pytest.mark.parametrize("call", [
    # 3e6 instants ignored SIGINT for 76 s
    "beam.eigenvalues_vs_time(np.full(3_000_000, 15.0), np.full(3_000_000, 30.0), 2)",
    "beam.gyroscopic_eigenvalues(np.full(200_000, 15.0), np.zeros(200_000), 2)",
    # 5000 turns ignored it for 6 s
    "kanefem.WindPump().solve(rpm=140, revolutions=5000, steady_state=False)",
])
def test_ctrl_c_stops_long_core_loops(call):
    code = f"""
        import numpy as np, kanefem
        beam = kanefem.PlanarBeam(0.6, 10, E=210e9, A=2e-4, I=1.67e-9, rho=7850)
        print("ready", flush=True)
        {call}
        print("finished", flush=True)
    """
    delay, err = _interrupt_after_start(code)
    assert "KeyboardInterrupt" in err, err
    # the core looks at signals every 0.1 s; allow for a loaded 2-core machine
    assert delay < 10.0, delay
