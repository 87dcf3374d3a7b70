"""Figures a researcher can put in a report (issue 16): units on the axes, absolute y
ranges with the relative variation of a nearly constant quantity, engine orders on
Campbell diagrams, the moving DOF by default, visible coinciding curves, one x axis per
figure.  Checked on the matplotlib objects (Agg backend)."""

import re

import matplotlib
import numpy as np
import pytest
from matplotlib.figure import Figure

import kanefem
from kanefem import _plots, _results
from kanefem.mechanism import ConstantSpeed, slider_crank

matplotlib.use("Agg")

UNIT = re.compile(r"\[[^\]]+\]")


@pytest.fixture(autouse=True)
def close_figures():
    """plot() without axes opens a pyplot figure: close them after each test."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture(scope="module")
def pump_run():
    pump = kanefem.WindPump()
    m = pump.solve(rpm=140, revolutions=1, steady_state=True, points_per_revolution=36)
    return pump, m, pump.joint_forces(m), pump.lever_eigenvalues(m, n_modes=2, n_elements=6)



def legend_texts(ax):
    leg = ax.get_legend()
    return [t.get_text() for t in leg.get_texts()] if leg else []


def relative_percent(y):
    y = np.asarray(y, dtype=float)
    return 100 * (y.max() - y.min()) / 2 / abs(y.mean())


def check_honest_y(ax, y):
    """The y range shows the values' scale, and the legend gives the variation."""
    lo, hi = ax.get_ylim()
    mean = abs(float(np.mean(y)))
    assert lo <= 0.0 <= hi or hi - lo > 0.01 * mean, (lo, hi, mean)
    rel = relative_percent(y)
    texts = [t for t in legend_texts(ax) if "±" in t]
    assert texts, legend_texts(ax)
    shown = [float(re.search(r"± ([0-9.]+) %", t).group(1)) for t in texts]
    # two significant digits of the true relative variation
    assert any(abs(s - rel) <= 0.051 * rel for s in shown), (shown, rel)
    ax.figure.canvas.draw()
    assert ax.yaxis.get_offset_text().get_text() == ""  # no "+6.514e1" offset


def test_lever_frequencies_show_their_scale_and_variation(pump_run):
    pump, m, f, eig = pump_run
    ax = eig.plot()
    f1 = eig.frequencies_hz[:, 0]
    assert relative_percent(f1) < 0.01  # a 0.00x % change, which must look like one
    check_honest_y(ax, f1)
    assert UNIT.search(ax.get_ylabel()) and UNIT.search(ax.get_xlabel())


def test_a_varying_quantity_keeps_its_own_range(pump_run):
    pump, m, f, eig = pump_run
    ax = f.plot()
    lo, hi = ax.get_ylim()
    F = np.hypot(*f.F_D.T)
    assert hi >= F.max() and lo <= 0.0 + F.min()
    assert not any("±" in t for t in legend_texts(ax))  # varies by far more than 1 %


def test_sweep_plot_of_a_nearly_constant_output(tmp_path):
    res = kanefem.sweep(_small_lever, {"rpm": [100.0, 150.0, 200.0]}, progress=False)
    ax = res.plot("f1_min_Hz")
    assert ax.get_ylabel() == "f1_min [Hz]" and ax.get_xlabel() == "rpm [rev/min]"
    check_honest_y(ax, [r["f1_min_Hz"] for r in res.results])


def _small_lever(rpm):
    return kanefem.studies.windpump_lever(rpm=rpm, points_per_revolution=12, n_elements=4)


def test_campbell_of_a_sweep_over_rpm_has_engine_order_lines():
    res = kanefem.sweep(_small_lever, {"rpm": [100.0, 150.0, 200.0]}, progress=False)
    ax = res.campbell("rpm")
    orders = [ln for ln in ax.get_lines() if ln.get_gid() == "engine-order"]
    assert len(orders) == 3  # 1x, 2x, 3x: at 1.7..10 Hz, inside the axis from 0 to the modes
    for k, ln in zip((1, 2, 3), orders):
        np.testing.assert_allclose(ln.get_ydata(), k * np.asarray(ln.get_xdata()) / 60.0)
    labels = [t.get_text() for t in ax.texts if t.get_gid() == "engine-order"]
    assert labels and all("×" in t for t in labels)
    assert ax.get_ylim()[0] == 0.0 and ax.get_xlabel() == "rpm [rev/min]"
    assert ax.get_ylabel() == "frequency [Hz]"
    assert "engine orders k × speed" in legend_texts(ax)


def test_campbell_omega_orders_in_hz():
    res = kanefem.sweep(kanefem.studies.beam_eigenvalues,
                        {"omega": [100.0, 200.0, 400.0], "length": [1.2], "supports": ["clamped-free"]},
                        progress=False)
    ax = res.campbell("omega", orders=(1, 2, 3, 1000))
    orders = [ln for ln in ax.get_lines() if ln.get_gid() == "engine-order"]
    assert res.stack("frequencies_hz").max() < 1000 * 100 / (2 * np.pi)
    assert len(orders) == 3  # order 1000 (above 15.9 kHz) is beyond every mode: left out
    np.testing.assert_allclose(orders[1].get_ydata(), 2 * np.asarray(orders[1].get_xdata()) / (2 * np.pi))
    assert ax.get_xlabel() == "omega [rad/s]"


def test_default_response_plot_shows_the_moving_dof(pump_run):
    pump, m, f, eig = pump_run
    r = pump.lever_response(m, n_elements=6, progress=False)
    ax = r.plot()
    (line,) = ax.get_lines()
    y = line.get_ydata()
    n = len(r.dof_names)
    trans = [j for j in range(r.d.shape[1]) if r.dof_names[j % n] in ("u", "v")]
    best = max(trans, key=lambda j: np.ptp(r.d[:, j]))
    np.testing.assert_array_equal(y, r.d[:, best])
    assert np.ptp(y) > 0  # it moves (node -1, "u" of a pinned lever, the old default, does not)
    node, dof = best // n, r.dof_names[best % n]
    assert dof == "v" and f"{dof}, node {node}" in ax.get_ylabel() and "[m]" in ax.get_ylabel()
    # asked for explicitly: that DOF
    (line,) = r.plot(node=2, dof="theta").get_lines()
    np.testing.assert_array_equal(line.get_ydata(), r.node(2, "theta"))


def test_coinciding_curves_stay_visible():
    fig = Figure()
    ax = fig.add_subplot()
    x = np.linspace(0, 1, 20)
    ax.plot(x, np.sin(x), label="a")
    ax.plot(x, np.sin(x) + 1e-6, label="b")
    ax.plot(x, np.cos(x), label="c")
    _results.finish_axes(ax)
    a, b, c = ax.get_lines()
    # b dashed on top of a, which is wider: both show
    assert b.get_linestyle() != a.get_linestyle() and a.get_linewidth() > b.get_linewidth()
    assert b.get_zorder() > a.get_zorder()
    assert b.get_label() == "b (on a)" and c.get_label() == "c" and c.get_linestyle() == "-"


def axes_of(figures):
    return [ax for fig in figures for ax in fig.axes]


def test_windpump_job_figures(pump_run, tmp_path, monkeypatch):
    pump, m, f, eig = pump_run
    figures = {}
    monkeypatch.setattr(_plots, "_save", lambda fig, path: figures.setdefault(path.name, fig))
    _plots.windpump_figures(tmp_path, pump, m, f, eig)
    assert sorted(figures) == ["joint_forces.png", "lever_eigenvalues.png", "motion.png"]
    for name, fig in figures.items():
        for ax in fig.axes:
            assert UNIT.search(ax.get_ylabel()), (name, ax.get_ylabel())
            assert UNIT.search(ax.get_xlabel()), (name, ax.get_xlabel())
    # cycle results on the crank angle, in every panel but the sketch
    for name in ("joint_forces.png", "lever_eigenvalues.png"):
        assert {ax.get_xlabel() for ax in figures[name].axes} == {"crank angle from start [deg]"}
    assert figures["motion.png"].axes[1].get_xlabel() == "crank angle from start [deg]"
    for k, ax in enumerate(figures["lever_eigenvalues.png"].axes):
        check_honest_y(ax, eig.eigenvalues[:, k])
        np.testing.assert_allclose(ax.get_lines()[0].get_xdata()[[0, -1]], [0.0, 350.0])


def test_mechanism_job_figures(tmp_path, monkeypatch):
    mech = slider_crank(elements=4)
    t = np.linspace(0.0, 2 * np.pi / 150.0, 25)
    drives = {"crank": ConstantSpeed(150.0)}
    motion = mech.solve(t, drives=drives)
    eig = mech.link_eigenvalues(motion, n_modes=2)
    flex = mech.simulate_flexible(t, drives=drives, dt=t[1] / 4)
    figures = {}
    monkeypatch.setattr(_plots, "_save", lambda fig, path: figures.setdefault(path.name, fig))
    _plots.mechanism_figures(tmp_path, mech, motion, mech.joint_forces(motion), eig, flex)
    assert sorted(figures) == ["eigenvalues.png", "flexible_motion.png", "joint_forces.png", "motion.png"]
    for name, fig in figures.items():
        for ax in fig.axes:
            assert UNIT.search(ax.get_ylabel()), (name, ax.get_ylabel())
            assert UNIT.search(ax.get_xlabel()), (name, ax.get_xlabel())
        xs = {ax.get_xlabel() for ax in fig.axes if ax.get_xlabel() != "x [m]"}
        assert xs == {"crank angle from start [deg]"}, (name, xs)  # a cycle: the crank angle everywhere
    ax = figures["eigenvalues.png"].axes[0]
    assert ax.get_ylim()[0] == 0.0  # frequencies from zero
    np.testing.assert_allclose(ax.get_lines()[0].get_xdata()[[0, -1]], [0.0, 360.0])
    # no crank (the crank at rest, no torque): time on every panel
    rest = mech.solve(t, drives={"crank": kanefem.Torque(0.0)})
    figures.clear()
    _plots.mechanism_figures(tmp_path, mech, rest, mech.joint_forces(rest), {}, None)
    for name, fig in figures.items():
        assert {ax.get_xlabel() for ax in fig.axes if ax.get_xlabel() != "x [m]"} == {"t [s]"}, name


@pytest.mark.parametrize("make", ["MechanismMotion", "MechanismForces", "LinkEigenvalues", "FlexibleMotion"])
def test_mechanism_results_plot_with_units(make):
    mech = slider_crank(elements=4)
    t = np.linspace(0.0, 2 * np.pi / 150.0, 13)
    drives = {"crank": ConstantSpeed(150.0)}
    motion = mech.solve(t, drives=drives)
    r = {"MechanismMotion": lambda: motion, "MechanismForces": lambda: mech.joint_forces(motion),
         "LinkEigenvalues": lambda: mech.link_eigenvalues(motion)["rod"],
         "FlexibleMotion": lambda: mech.simulate_flexible(t, drives=drives, dt=t[1] / 4)}[make]()
    ax = r.plot()
    assert ax.get_lines() and UNIT.search(ax.get_ylabel()) and ax.get_xlabel() == "t [s]"


def test_finishing_an_axes_twice_changes_nothing(pump_run):
    pump, m, f, eig = pump_run
    ax = eig.plot()
    first = legend_texts(ax)
    eig.plot(ax=ax)  # the same lines again, on the same axes
    _results.finish_axes(ax)
    assert legend_texts(ax)[:2] == first and all(t.count("±") == 1 for t in legend_texts(ax))


def test_finish_axes_leaves_other_axes_alone():
    # a log axis (no offset formatter), lines of dates: nothing raises, nothing changes
    fig = Figure()
    ax = fig.add_subplot()
    ax.semilogy([1.0, 2.0, 3.0], [10.0, 10.0001, 10.0002])
    _results.finish_axes(ax)
    assert ax.get_yscale() == "log" and ax.get_ylim()[0] > 0
    ax = fig.add_subplot()
    days = np.array(["2026-01-01", "2026-01-02"], dtype="datetime64[D]")
    ax.plot(days, [1.0, 2.0])
    assert _results.finish_axes(ax) is ax
