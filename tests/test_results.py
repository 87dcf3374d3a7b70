"""Result objects: to_dict/from_dict round trips, to_dataframe, plot, and the wind
pump's animation (matplotlib's Agg backend)."""

import doctest
import gc
import math
import sys

import matplotlib
import numpy as np
import pytest

import kanefem
from kanefem import _animation, _results

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def pump_results():
    pump = kanefem.WindPump()
    m = pump.solve(rpm=140, revolutions=1, steady_state=True, points_per_revolution=72)
    return pump, m, pump.joint_forces(m), pump.lever_eigenvalues(m, n_modes=2)


@pytest.fixture(scope="module")
def beam():
    return kanefem.PlanarBeam(0.6, 6, E=210e9, A=2e-4, I=1.67e-9, rho=7850)


def all_results(pump_results, beam):
    pump, m, f, eig = pump_results
    return {
        "EigenResult": beam.eigenvalues(3, omega=10.0, eps=5.0, supports="pinned-pinned"),
        "EigenResult over time": beam.eigenvalues_vs_time([0.0, 10.0, 20.0], [0.0, 0.0, 0.0], 2,
                                                           supports="pinned-pinned"),
        "GyroscopicResult": beam.gyroscopic_eigenvalues([5.0, 10.0], [0.0, 0.0], 2, supports="pinned-pinned"),
        "SimulationResult": kanefem.studies.rotating_bar(t_end=0.002),
        "WindPumpMotion": m,
        "JointForces": f,
        "LeverEigenvalues": eig,
        "LeverEigenvalues gyroscopic": pump.lever_eigenvalues(m, gyroscopic=True),
    }


def records_equal(a, b):
    assert sorted(a) == sorted(b)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def test_round_trip_through_to_dict_and_from_dict(pump_results, beam):
    for label, r in all_results(pump_results, beam).items():
        rec = r.to_dict()
        assert all(isinstance(v, np.ndarray) for v in rec.values()), label
        back = type(r).from_dict(rec)
        records_equal(rec, back.to_dict())
    # nested values come back with their types: the pump's parameters, a motion's
    # points, a simulation's DOF names and method
    m = pump_results[1]
    back = kanefem.WindPumpMotion.from_dict(m.to_dict())
    assert back.params == m.params and isinstance(back.params, kanefem.WindPumpParams)
    assert type(back.params.branch) is int and back.drive == "constant-speed"
    np.testing.assert_array_equal(back.points["C"], m.points["C"])
    s = kanefem.studies.rotating_bar(t_end=0.001)
    back = kanefem.SimulationResult.from_dict(s.to_dict())
    assert back.dof_names == ("u",) and back.method == "newmark" and back.p is None
    assert back.stats["steps"] == s.stats["steps"]
    with pytest.raises(TypeError, match="record must be a mapping"):
        kanefem.EigenResult.from_dict([1, 2])


def test_dataframes_hold_the_results_values(pump_results, beam):
    pump, m, f, eig = pump_results
    r = beam.eigenvalues(3, omega=10.0, supports="pinned-pinned")
    df = r.to_dataframe()
    assert list(df.columns) == ["instant", "mode", "lambda_rad2_s2", "lambda_imag_rad2_s2", "f_Hz"]
    np.testing.assert_array_equal(df["f_Hz"], r.frequencies_hz)
    np.testing.assert_array_equal(df["mode"], [1, 2, 3])
    rt = beam.eigenvalues_vs_time([0.0, 10.0, 20.0], [0.0, 0.0, 0.0], 2, supports="pinned-pinned")
    df = rt.to_dataframe()
    assert len(df) == 6
    np.testing.assert_array_equal(df["lambda_rad2_s2"], rt.eigenvalues.ravel())
    g = beam.gyroscopic_eigenvalues([5.0, 10.0], [0.0, 0.0], 2, supports="pinned-pinned")
    df = g.to_dataframe()
    np.testing.assert_array_equal(df["s_im_rad_s"], g.s.imag.ravel())
    # the time series use the command line's CSV columns (units in the names)
    df = m.to_dataframe()
    header, _ = m.table()
    assert list(df.columns) == header and len(df) == 72
    np.testing.assert_array_equal(df["x_D_m"], m.x_D)
    np.testing.assert_array_equal(f.to_dataframe()["motor_torque_Nm"], f.motor_torque)
    np.testing.assert_array_equal(eig.to_dataframe()["f2_Hz"], eig.frequencies_hz[:, 1])
    s = kanefem.studies.rotating_bar(t_end=0.002)
    df = s.to_dataframe()
    assert df.shape == (s.t.size, 1 + 2 * s.d.shape[1])
    np.testing.assert_array_equal(df["u_n10_m"], s.node(10))
    np.testing.assert_array_equal(df["u_n3_rate_m_s"], s.node(3, what="v"))


def test_to_dataframe_without_pandas_says_how_to_install_it(monkeypatch, beam):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    with pytest.raises(ImportError, match="pip install pandas"):
        beam.eigenvalues(2).to_dataframe()


def test_plot_without_matplotlib_says_how_to_install_it(monkeypatch, beam):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install 'kanefem\[plot\]'"):
        beam.eigenvalues(2).plot()


def test_plots_draw_the_results_values(pump_results, beam):
    pump, m, f, eig = pump_results
    r = beam.eigenvalues(3, supports="pinned-pinned")
    (line,) = r.plot().get_lines()
    np.testing.assert_array_equal(line.get_ydata(), r.frequencies_hz)
    lines = eig.plot().get_lines()
    assert len(lines) == 2
    np.testing.assert_array_equal(lines[1].get_ydata(), eig.frequencies_hz[:, 1])
    np.testing.assert_array_equal(lines[0].get_xdata(), eig.t)
    lines = f.plot().get_lines()
    np.testing.assert_allclose(lines[1].get_ydata(), np.hypot(*f.F_B.T))
    lines = m.plot().get_lines()
    np.testing.assert_allclose(lines[0].get_ydata(), 1e3 * (m.x_D - m.params.x_D0))
    s = kanefem.studies.rotating_bar(t_end=0.002)
    (line,) = s.plot(node=5, what="v").get_lines()
    np.testing.assert_array_equal(line.get_ydata(), s.node(5, what="v"))
    g = beam.gyroscopic_eigenvalues([5.0, 10.0], [0.0, 0.0], 2, supports="pinned-pinned")
    assert len(g.plot().get_lines()) == 2
    # on given axes
    fig = matplotlib.figure.Figure()
    ax = fig.add_subplot()
    assert r.plot(ax=ax) is ax


def test_campbell_engine_orders():
    # f = k x / 60 for rpm, drawn inside the modes' frequency range only (order 9,
    # at 9..27 Hz, is above modes at 1..6 Hz: no line)
    ax = _results.campbell([60.0, 120.0, 180.0], [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]],
                           x_to_hz=lambda rpm: rpm / 60.0, orders=(1, 2, 9))
    dotted = [ln for ln in ax.get_lines() if ln.get_linestyle() == ":"]
    assert len(dotted) == 2
    np.testing.assert_allclose(dotted[1].get_ydata(), 2 * dotted[1].get_xdata() / 60.0)
    np.testing.assert_array_equal(dotted[1].get_xdata(), [60.0, 120.0, 180.0])


def test_results_module_examples():
    r = doctest.testmod(_results, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert r.failed == 0 and r.attempted >= 4


# ---------------------------------------------------------------- animation


def test_lever_shape_is_the_rigid_lever_plus_the_magnified_deflection(pump_results):
    pump, m, _, _ = pump_results
    k, n_el = 17, 4
    ndof = 3 * (n_el + 1)
    zero = np.zeros(ndof)
    B, C = m.points["B"][k], m.points["C"][k]
    straight = _animation.lever_shape(m, zero, k, magnify=100.0)
    # undeformed: the segment B -> C', evenly divided
    np.testing.assert_allclose(straight[0], B, atol=1e-15)
    np.testing.assert_allclose(straight[-1], C, atol=1e-12)
    # a midspan deflection v with the rotations of a half sine, magnified 100 x,
    # moves the middle point 100 v along the lever's normal
    d = zero.copy()
    l2 = m.params.l2
    for i in range(n_el + 1):
        x = i * l2 / n_el
        d[3 * i + 1] = 1e-4 * math.sin(math.pi * x / l2)
        d[3 * i + 2] = 1e-4 * math.pi / l2 * math.cos(math.pi * x / l2)
    bent = _animation.lever_shape(m, d, k, magnify=100.0, n_sub=8)
    mid = bent.shape[0] // 2
    normal = np.array([-math.sin(m.theta2[k]), math.cos(m.theta2[k])])
    np.testing.assert_allclose((bent[mid] - straight[mid]) @ normal, 100 * 1e-4, rtol=1e-12)
    # between nodes, the cubic Hermite interpolation of the half sine is within 0.2 %
    s = np.linspace(0, l2, bent.shape[0])
    np.testing.assert_allclose((bent - straight) @ normal, 1e-2 * np.sin(np.pi * s / l2), atol=2e-3 * 1e-2)


@pytest.mark.filterwarnings("ignore:Animation was deleted without rendering")  # the returned one
def test_animation_writes_a_gif_atomically(tmp_path, pump_results):
    PIL = pytest.importorskip("PIL.Image")
    pump, m, _, _ = pump_results
    resp = pump.lever_response(m)
    path = pump.animate(m, response=resp, path=tmp_path / "pump.gif", frames=5, fps=5)
    assert path == tmp_path / "pump.gif"
    with PIL.open(path) as im:
        assert im.n_frames == 5
    assert [p.name for p in tmp_path.iterdir()] == ["pump.gif"]  # no temporary file left
    anim = pump.animate(m, response=resp, frames=3)
    assert type(anim).__name__ == "FuncAnimation"
    del anim  # now, under this test's warning filter
    gc.collect()
    ax = pump.draw_frame(m, 10, response=resp, magnify=0.0)
    lever = ax.get_lines()[5]  # crank, lever, rigid lever, ... (see _Frames)
    np.testing.assert_allclose(lever.get_xydata()[-1], m.points["C"][10], atol=1e-12)


def test_animation_bad_input(tmp_path, pump_results):
    pump, m, _, _ = pump_results
    resp = pump.lever_response(m)
    with pytest.raises(ValueError, match=r"\.gif or \.mp4"):
        pump.animate(m, response=resp, path=tmp_path / "pump.avi")
    with pytest.raises(ValueError, match="response.d has shape"):
        pump.animate(m, response=kanefem.studies.rotating_bar(t_end=0.001), path=tmp_path / "a.gif")
    with pytest.raises(ValueError, match="magnify must be >= 0"):
        pump.draw_frame(m, 0, response=resp, magnify=-1.0)
    with pytest.raises(ValueError, match="k = 72"):
        pump.draw_frame(m, 72, response=resp)
    with pytest.raises(ValueError, match="other wind-pump parameters"):
        kanefem.WindPump(M3=6.0).animate(m, response=resp)
    from matplotlib import animation

    if not animation.writers.is_available("ffmpeg"):
        with pytest.raises(RuntimeError, match="needs ffmpeg"):
            pump.animate(m, response=resp, path=tmp_path / "pump.mp4")
