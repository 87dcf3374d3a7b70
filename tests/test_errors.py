"""Bad input raises a clear exception naming the argument, never a crash or a NaN."""

import gc
import math
import sys
import threading
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanefem
from kanefem import _core

GOOD = dict(length=1.0, n_elements=4, E=2e11, A=1e-4, I=1e-8, rho=7800.0)


@pytest.mark.parametrize("name", ["length", "E", "A", "I", "rho"])
@pytest.mark.parametrize("value", [0.0, -1.0, math.nan, math.inf, -math.inf])
def test_beam_rejects_nonpositive_or_nonfinite(name, value):
    with pytest.raises(ValueError, match=name):
        kanefem.PlanarBeam(**{**GOOD, name: value})


@pytest.mark.parametrize("value", [0, -3])
def test_n_elements_must_be_positive(value):
    with pytest.raises(ValueError, match="n_elements"):
        kanefem.PlanarBeam(**{**GOOD, "n_elements": value})


@pytest.mark.parametrize("value", [2.5, "4", True, None])
def test_n_elements_must_be_an_integer(value):
    with pytest.raises(TypeError, match="n_elements"):
        kanefem.PlanarBeam(**{**GOOD, "n_elements": value})


def test_bar_rejects_bad_values():
    with pytest.raises(ValueError, match="rho"):
        kanefem.AxialBar(1.0, 3, E=1e9, A=1e-4, rho=-2.0)
    with pytest.raises(ValueError, match="origin"):
        kanefem.AxialBar(1.0, 3, E=1e9, A=1e-4, rho=2.0, origin=math.nan)


@pytest.fixture(scope="module")
def beam():
    return kanefem.PlanarBeam(**GOOD)


@pytest.mark.parametrize("n_modes", [0, -1, 13, 100])
def test_n_modes_out_of_range(beam, n_modes):
    # pinned-pinned: 15 DOFs, 4 fixed -> 11 free
    with pytest.raises(ValueError, match="n_modes"):
        beam.eigenvalues(n_modes)


def test_n_modes_upper_bound_is_free_dofs(beam):
    assert beam.eigenvalues(11).eigenvalues.shape == (11,)
    with pytest.raises(ValueError, match="n_modes = 12 is out of 1..11"):
        beam.eigenvalues(12)


@pytest.mark.parametrize("kw", [dict(omega=math.nan), dict(eps=math.inf), dict(omega=-math.inf)])
def test_nonfinite_rates(beam, kw):
    name = next(iter(kw))
    with pytest.raises(ValueError, match=name):
        beam.eigenvalues(2, **kw)
    with pytest.raises(ValueError, match=name):
        beam.motion_terms(**{"omega": 0.0, **kw})


def test_bad_a_O(beam):
    with pytest.raises(ValueError, match="a_O"):
        beam.motion_terms(1.0, 0.0, (1.0, math.nan))
    with pytest.raises(ValueError, match="a_O"):
        beam.motion_terms(1.0, 0.0, (1.0, 2.0, 3.0))


def test_eigenvalues_vs_time_shapes(beam):
    with pytest.raises(ValueError, match="same length"):
        beam.eigenvalues_vs_time(np.zeros(5), np.zeros(4), 2)
    with pytest.raises(ValueError, match="omega"):
        beam.eigenvalues_vs_time(np.zeros((5, 2)), np.zeros((5, 2)), 2)
    with pytest.raises(ValueError, match="eps"):
        beam.eigenvalues_vs_time(np.zeros(3), [0.0, math.nan, 1.0], 2)
    with pytest.raises(ValueError, match="order"):
        beam.eigenvalues_vs_time(np.zeros(3), np.zeros(3), 2, order="sorted")
    empty = beam.eigenvalues_vs_time(np.zeros(0), np.zeros(0), 2)
    assert empty.eigenvalues.shape == (0, 2)


@pytest.mark.parametrize(
    "supports, match",
    [
        ("pinned-roller", "not a known preset"),
        ({0: "glued"}, "glued"),
        ({99: "pinned"}, "out of range"),
        ({0: ("u", "w")}, "DOF names"),
        ([0, 1], "preset name or a dict"),
    ],
)
def test_unknown_supports(beam, supports, match):
    with pytest.raises((ValueError, TypeError), match=match):
        beam.eigenvalues(2, supports=supports)


def test_bar_presets_are_checked():
    bar = kanefem.AxialBar(1.0, 3, E=1e9, A=1e-4, rho=2.0)
    with pytest.raises(ValueError, match="pinned-pinned"):
        bar.eigenvalues(1, supports="pinned-pinned")
    with pytest.raises(ValueError, match="fix all"):
        kanefem.AxialBar(1.0, 1, E=1e9, A=1e-4, rho=2.0).eigenvalues(1, supports="fixed-fixed")


SECTION = {"E": 1e9, "rho": 1.0, "A": 1.0, "Izz": 1.0}


def test_core_validates_meshes_itself():
    """The binding and the core check what the Python layer may not have."""
    nodes = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    with pytest.raises(ValueError, match="conn"):
        _core.body_create(kind=1, coords=nodes, conn=[[0, 5]], section=SECTION)
    with pytest.raises(ValueError, match="belongs to no element"):
        _core.body_create(kind=1, coords=nodes, conn=[[0, 1]], section=SECTION)
    with pytest.raises(ValueError, match="twice"):
        _core.body_create(kind=1, coords=nodes, conn=[[1, 1], [0, 2]], section=SECTION)
    def create(kind, coords, conn, **section):
        return _core.body_create(kind=kind, coords=coords, conn=conn, section={**SECTION, **section})

    with pytest.raises(ValueError, match="length"):
        create(1, np.array([[0.0, 0], [0, 0]]), [[0, 1]])
    with pytest.raises(ValueError, match="coords"):
        create(1, np.array([[0.0, 0], [np.nan, 0]]), [[0, 1]])
    with pytest.raises(ValueError, match="shape"):
        create(1, np.zeros((3, 3)), [[0, 1]])
    with pytest.raises(ValueError, match="kind"):
        create(99, nodes, [[0, 1]])  # kinds 0..13 exist
    with pytest.raises(ValueError, match="x axis"):
        create(0, np.array([[0.0, 0], [1, 1]]), [[0, 1]])
    with pytest.raises(ValueError, match="E = -1"):
        create(1, nodes[:2], [[0, 1]], E=-1.0)
    with pytest.raises(ValueError, match="unknown field 'G'"):
        create(1, nodes[:2], [[0, 1]], G=1.0)
    with pytest.raises(TypeError, match="E must be a real number"):
        create(1, nodes[:2], [[0, 1]], E="210e9")
    b = create(1, nodes[:2], [[0, 1]])
    bad = kanefem.frames.empty(2)
    bad["omega"][1, 2] = np.nan
    with pytest.raises(ValueError, match="instant 1: omega"):
        _core.eig_solve(eig=_core.eig_create(body=b, fixed=np.zeros(6, bool)), frames=bad, n_modes=1,
                        include_eps=True, vectors=True, tracked=False)
    with pytest.raises(TypeError, match="frame_dtype"):
        _core.eig_solve(eig=_core.eig_create(body=b, fixed=np.zeros(6, bool)), frames=np.zeros((2, 15)),
                        n_modes=1, include_eps=True, vectors=True, tracked=False)
    with pytest.raises(ValueError, match="supports mask"):
        _core.eig_create(body=b, fixed=np.zeros(5, bool))
    with pytest.raises(TypeError):
        _core.body_matrix(object(), "M")


@settings(max_examples=60, deadline=None)
@given(
    omega=st.floats(allow_nan=True, allow_infinity=True),
    eps=st.floats(allow_nan=True, allow_infinity=True),
    n_modes=st.integers(-3, 20),
)
def test_any_input_gives_a_result_or_a_clean_error(omega, eps, n_modes):
    beam = kanefem.PlanarBeam(1.0, 3, E=2e11, A=1e-4, I=1e-8, rho=7800.0)
    try:
        r = beam.eigenvalues(n_modes, omega=omega, eps=eps)
    except (ValueError, kanefem.LinAlgError):
        return
    # huge but finite rates may overflow omega^2: the result is then inf, never NaN
    assert not np.any(np.isnan(r.eigenvalues))


def test_no_leaks_on_repeated_calls():
    beam = kanefem.PlanarBeam(1.0, 10, E=2e11, A=1e-4, I=1e-8, rho=7800.0)
    om = np.linspace(0, 10, 50)

    def work():
        beam.eigenvalues_vs_time(om, om * 100, 3)
        beam.eigenvalues(2, omega=3.0, eps=100.0)
        beam.motion_terms(1.0, 2.0, (0.1, 0.2))
        beam.mass_matrix()
        try:
            beam.eigenvalues(99)
        except ValueError:
            pass

    for _ in range(20):
        work()
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(300):
        work()
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    # a leak of one result array per call would be > 300 * 50 * 3 * 8 bytes
    assert grown < 100_000, grown


def test_result_arrays_are_owned_once():
    beam = kanefem.PlanarBeam(1.0, 3, E=2e11, A=1e-4, I=1e-8, rho=7800.0)
    M = beam.mass_matrix()
    assert sys.getrefcount(M) == 2  # the local name and getrefcount's argument
    r = _core.eig_solve(eig=beam._eig_context("pinned-pinned"), frames=kanefem.frames.empty(4),
                        n_modes=2, include_eps=True, vectors=True, tracked=False)
    re, modes = r.pop("eigenvalues"), r.pop("mode_shapes")
    del r
    assert sys.getrefcount(re) == 2 and sys.getrefcount(modes) == 2


def test_threads_share_a_body():
    """The core holds no global mutable state: concurrent calls give the serial answer."""
    beam = kanefem.PlanarBeam(0.6, 10, E=2e11, A=1e-4, I=1e-8, rho=7800.0)
    th = np.linspace(0, 2 * np.pi, 200)
    om, ep = 15 + np.sin(th), 300 * np.cos(th)
    want = beam.eigenvalues_vs_time(om, ep, 3).eigenvalues
    results = [None] * 4

    def run(k):
        results[k] = beam.eigenvalues_vs_time(om, ep, 3).eigenvalues

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        np.testing.assert_array_equal(r, want)
