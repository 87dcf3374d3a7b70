"""One result contract (issue 16): every result class has to_dict/from_dict,
table/to_dataframe, to_mat and plot; column names carry units in one scheme; a sweep
becomes an xarray Dataset.  Each result is built from a small real computation."""

import re

import matplotlib
import numpy as np
import pytest
import scipy.io

import kanefem
from kanefem import _results
from kanefem.mechanism import ConstantSpeed, slider_crank

matplotlib.use("Agg")

#: columns without a unit: indices, counters and a sweep's parameter names
UNITLESS = {"instant", "mode", "steps", "omega_index", "element", "node", "zeta"}  # zeta: a damping ratio


@pytest.fixture(scope="module")
def results():
    """One instance of every result class (and the variants whose columns differ)."""
    pump = kanefem.WindPump()
    m = pump.solve(rpm=140, revolutions=1, steady_state=True, points_per_revolution=24)
    beam = kanefem.PlanarBeam(0.6, 6, E=210e9, A=2e-4, I=1.67e-9, rho=7850)
    mech = slider_crank(elements=4)
    t = np.linspace(0.0, 2 * np.pi / 150.0, 13)
    drives = {"crank": ConstantSpeed(150.0)}
    mm = mech.solve(t, drives=drives)
    out = {
        "EigenResult": beam.eigenvalues(3, omega=10.0, eps=5.0, supports="pinned-pinned"),
        "EigenResult over time": beam.eigenvalues_vs_time([0.0, 10.0, 20.0], [0.0, 0.0, 0.0], 2,
                                                           supports="pinned-pinned"),
        "GyroscopicResult": beam.gyroscopic_eigenvalues([5.0, 10.0], [0.0, 0.0], 2, supports="pinned-pinned"),
        "SimulationResult": kanefem.studies.rotating_bar(t_end=0.002),
        "SimulationResult lever": pump.lever_response(m, n_elements=4, progress=False),
        "WindPumpMotion": m,
        "JointForces": pump.joint_forces(m),
        "LeverEigenvalues": pump.lever_eigenvalues(m, n_modes=2, n_elements=4),
        "LeverEigenvalues gyroscopic": pump.lever_eigenvalues(m, n_elements=4, gyroscopic=True),
        "MechanismMotion": mm,
        "MechanismForces": mech.joint_forces(mm),
        "LinkEigenvalues": mech.link_eigenvalues(mm, n_modes=2)["rod"],
        "FlexibleMotion": mech.simulate_flexible(t, drives=drives, dt=t[1] / 4),
        "SweepResult": kanefem.sweep(kanefem.studies.beam_eigenvalues,
                                     {"omega": [0.0, 10.0, 20.0], "n_modes": [2]}, progress=False),
        "MeshBody EigenResult": _mesh_eigen(),
        "StressResult": _mesh_stresses(),
        "StressResult beam": beam.section_forces(beam.eigenvalues(2, supports="pinned-pinned")),
        "FloatingMotion": _floating(),
        "FloatingMotion prescribed": _floating(kanefem.Motion.constant_spin([0.0, 0.0, 3.0])),
    }
    return out


def _floating(motion=None):
    """A free beam tumbling in space, or its frame spinning (the drive's columns)."""
    fb = kanefem.FloatingBody(kanefem.Beam3D(0.5, 3, E=7e10, A=4e-4, Izz=2e-8, Iyy=8e-9, J=1e-8, rho=2700.0))
    return fb.simulate(np.linspace(0.0, 0.002, 3), fb.state(omega=[0.1, 2.0, 0.3]), motion=motion, dt=1e-4)


def _mesh_eigen():
    """A plane mesh's eigenvalues: the meshes' results are EigenResults."""
    body = kanefem.MeshBody(kanefem.Mesh.rectangle(0.6, 0.03, 6, 1), E=210e9, nu=0.3, rho=7850, thickness=0.01)
    return body.eigenvalues(2, supports={lambda x: x[:, 0] == 0.0: "fixed"}, mode_shapes=False)


def _mesh_stresses():
    """A plane mesh's stresses over a short response (the time column)."""
    body = kanefem.MeshBody(kanefem.Mesh.rectangle(0.6, 0.03, 6, 1), E=210e9, nu=0.3, rho=7850, thickness=0.01)
    d = 1e-4 * np.outer([0.0, 1.0], np.arange(body.ndof) % 3)
    return body.stresses(kanefem.SimulationResult(t=np.array([0.0, 0.1]), d=d, v=0 * d, p=None, method="x"))


RESULT_CLASSES = ["EigenResult", "GyroscopicResult", "SimulationResult", "WindPumpMotion", "JointForces",
                  "LeverEigenvalues", "MechanismMotion", "MechanismForces", "LinkEigenvalues",
                  "FlexibleMotion", "SweepResult", "StressResult", "FloatingMotion"]
LABELS = ["EigenResult", "EigenResult over time", "GyroscopicResult", "SimulationResult",
          "SimulationResult lever", "WindPumpMotion", "JointForces", "LeverEigenvalues",
          "LeverEigenvalues gyroscopic", "MechanismMotion", "MechanismForces", "LinkEigenvalues",
          "FlexibleMotion", "SweepResult", "MeshBody EigenResult", "StressResult", "StressResult beam",
          "FloatingMotion", "FloatingMotion prescribed"]


def test_every_result_class_is_covered(results):
    # the package's result classes are exactly the ResultMixin subclasses named here
    have = {type(r).__name__ for r in results.values()}
    assert have == set(RESULT_CLASSES)
    for name in RESULT_CLASSES:
        cls = getattr(kanefem, name)
        assert issubclass(cls, _results.ResultMixin), name
        for method in ("to_dict", "from_dict", "table", "to_dataframe", "to_mat", "plot"):
            assert callable(getattr(cls, method, None)), (name, method)


@pytest.mark.parametrize("label", LABELS)
def test_columns_follow_the_scheme(results, label):
    r = results[label]
    header, rows = r.table()
    params = set(r.names) if label == "SweepResult" else set()
    assert header and len(set(header)) == len(header)
    for name in header:
        if name in UNITLESS or name in params or name == "solver":
            continue
        assert _results.COLUMN.match(name), f"{label}: column {name!r} has no unit in the scheme"
        assert not name.endswith("_hz"), name  # Hz, as the unit is written
    df = r.to_dataframe()
    assert list(df.columns) == header and len(df) == len(rows)


def test_column_names_of_the_wind_pump_and_mechanism(results):
    assert results["JointForces"].table()[0][:3] == ["t_s", "F_A_x_N", "F_A_y_N"]
    assert "motor_torque_Nm" in results["JointForces"].table()[0]
    assert results["LeverEigenvalues"].table()[0][:5] == ["t_s", "lambda1_rad2_s2", "lambda2_rad2_s2",
                                                         "f1_Hz", "f2_Hz"]
    assert {"s1_re_rad_s", "s2_im_rad_s"} <= set(results["LeverEigenvalues gyroscopic"].table()[0])
    head = results["MechanismForces"].table()[0]
    assert {"F_A_x_N", "M_A_Nm", "crank_drive_Nm", "rod_N1_N_m"} <= set(head), head
    head = results["MechanismMotion"].table()[0]
    assert {"crank_rad", "crank_rate_rad_s", "crank_acc_rad_s2", "crank_drive_Nm"} <= set(head)
    assert results["FlexibleMotion"].table()[0][-1] == "rod_v_mid_m"
    m = results["WindPumpMotion"]
    df = m.to_dataframe()
    np.testing.assert_allclose(df["crank_deg"], np.degrees(m.alpha - m.alpha[0]))
    s = results["SimulationResult"]
    np.testing.assert_array_equal(s.to_dataframe()["u_n10_m"], s.node(10))


def test_the_studies_scalars_carry_units():
    r = kanefem.studies.windpump_lever(rpm=140, points_per_revolution=12, n_elements=4)
    scalars = [k for k, v in r.items() if np.ndim(v) == 0]
    assert set(scalars) == {"f1_min_Hz", "f1_max_Hz", "motor_torque_max_Nm", "mean_power_W", "F_B_max_N"}
    assert all(_results.COLUMN.match(k) for k in scalars)


@pytest.mark.parametrize("label", LABELS)
def test_to_dict_round_trip(results, label):
    r = results[label]
    rec = r.to_dict()
    assert rec and all(isinstance(v, np.ndarray) for v in rec.values())
    if label == "SweepResult":
        return  # stacked over the points: SweepResult is rebuilt from its store, not from to_dict
    back = type(r).from_dict(rec)
    again = back.to_dict()
    assert sorted(again) == sorted(rec)
    for k in rec:
        np.testing.assert_array_equal(again[k], rec[k], err_msg=k)
    assert back.table()[0] == r.table()[0]


def test_mechanism_results_keep_their_mechanism(results):
    m = results["MechanismMotion"]
    back = kanefem.MechanismMotion.from_dict(m.to_dict())
    assert [b.name for b in back.mechanism.bodies] == [b.name for b in m.mechanism.bodies]
    np.testing.assert_allclose(back.point("rod", (0.45, 0.0)), m.point("rod", (0.45, 0.0)))
    f = kanefem.FlexibleMotion.from_dict(results["FlexibleMotion"].to_dict())
    np.testing.assert_array_equal(f.deflection("rod", 0.15), results["FlexibleMotion"].deflection("rod", 0.15))


@pytest.mark.parametrize("label", LABELS)
def test_to_mat_loads_back_in_scipy(results, label, tmp_path):
    r = results[label]
    path = r.to_mat(tmp_path / "r.mat")
    assert path.exists() and [p.name for p in tmp_path.iterdir()] == ["r.mat"]
    m = scipy.io.loadmat(path, squeeze_me=True, simplify_cells=True)
    names = [k for k in m if not k.startswith("__")]
    assert all(re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,62}", k) for k in names), names
    header, rows = r.table()
    table = m["table"]
    rows = np.asarray(rows, dtype=float) if label != "SweepResult" else None
    for j, name in enumerate(header):
        key = _results.mat_name(name)
        if rows is not None:
            np.testing.assert_array_equal(np.atleast_1d(table[key]), rows[:, j], err_msg=name)
    if label == "WindPumpMotion":
        np.testing.assert_array_equal(m["x_D"], r.x_D)
        assert m["params"]["l1"] == r.params.l1 and m["drive"] == "constant-speed"
        np.testing.assert_array_equal(m["lever_frame"]["omega"], r.lever_frame["omega"])
    if label == "SweepResult":
        np.testing.assert_array_equal(m["param"]["omega"], [0.0, 10.0, 20.0])
        np.testing.assert_array_equal(m["frequencies_hz"], r.stack("frequencies_hz"))


def test_mat_names_are_valid_and_unique():
    assert _results.mat_name("f1 min [Hz]") == "f1_min__Hz_"
    assert _results.mat_name("1x") == "x1x"
    long = "a" * 80
    assert len(_results.mat_name(long)) == 63
    assert _results.mat_name(long, {_results.mat_name(long)}).endswith("_2")
    with pytest.raises(TypeError, match="path must be a file name"):
        kanefem.PlanarBeam(0.6, 2, E=1.0, A=1.0, I=1.0, rho=1.0).eigenvalues(1).to_mat(3)


def test_sweep_to_xarray(results):
    xr = pytest.importorskip("xarray")
    ds = results["SweepResult"].to_xarray()
    assert isinstance(ds, xr.Dataset)
    # a full factorial: one dimension per parameter, the values as coordinates
    assert ds["frequencies_hz"].dims == ("omega", "n_modes", "frequencies_hz_dim0")
    np.testing.assert_array_equal(ds["omega"], [0.0, 10.0, 20.0])
    np.testing.assert_array_equal(ds["frequencies_hz"].sel(omega=10.0, n_modes=2),
                                  kanefem.studies.beam_eigenvalues(omega=10.0, n_modes=2)["frequencies_hz"])
    # points that are not a full factorial: one dimension "point", the parameters along it
    res = kanefem.sweep(kanefem.studies.beam_eigenvalues, [{"omega": 0.0, "n_modes": 2}, {"omega": 5.0, "n_modes": 3},
                                                            {"omega": 7.0, "n_modes": 2}], progress=False)
    ds = res.to_xarray()
    assert ds["solver"].dims == ("point",) and list(ds["omega"].values) == [0.0, 5.0, 7.0]
    assert "frequencies_hz" not in ds  # 2 and 3 modes: differs between points


def test_to_xarray_without_xarray_names_the_extra(results, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "xarray", None)
    with pytest.raises(ImportError, match=r"kanefem\[xarray\]"):
        results["SweepResult"].to_xarray()


def test_a_none_among_numbers_is_stored_as_nan(tmp_path):
    # a recorded motion's smoothing data: (lam of alpha, None where the noise exceeds the scatter)
    rec = {}
    _results.flatten(rec, "stats", {"lam": (2.5e-5, None), "steps": 3})
    np.testing.assert_array_equal(rec["stats.lam"], [2.5e-5, np.nan])
    assert rec["stats.steps"] == 3
    with pytest.raises(TypeError, match="is not an array of numbers or strings"):
        _results.flatten({}, "x", [object()])


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"bodies": []}'])
def test_a_damaged_stored_mechanism_is_named(text):
    """A mechanism result's record holds its mechanism as JSON: a damaged one is a ValueError
    naming the field, not json's raw JSONDecodeError or a KeyError."""
    from kanefem.mechanism import Mechanism

    with pytest.raises(ValueError, match="mechanism = .*not a stored mechanism"):
        Mechanism._from_record(text)
