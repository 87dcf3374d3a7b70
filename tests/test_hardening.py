"""Issue 8, the Python side: types, sizes before memory, and messages that name the
argument.  Each case was observed to pass silently or fail with an unrelated message
before the fix; each asserts the exception type and the argument named."""

import math
import warnings

import numpy as np
import pytest

import kanefem
from kanefem import Motion, simulate
from kanefem import _checks
from kanefem import studies

BEAM = dict(length=0.6, n_elements=4, E=210e9, A=2e-4, I=1.7e-9, rho=7850.0)
BAR = dict(length=1.0, n_elements=3, E=210e9, A=2e-5, rho=5e4)


@pytest.fixture(scope="module")
def beam():
    return kanefem.PlanarBeam(**BEAM)


@pytest.fixture(scope="module")
def bar():
    return kanefem.AxialBar(**BAR)


@pytest.fixture(scope="module")
def pump():
    return kanefem.WindPump()


@pytest.fixture(scope="module")
def pump_motion(pump):
    return pump.solve(rpm=140, revolutions=0.05, points_per_revolution=100)


@pytest.fixture(autouse=True)
def no_complex_warning():
    # a complex value must be refused, not cast with NumPy's ComplexWarning
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        yield


# ---------------------------------------------------------------- 2. types: scalars


@pytest.mark.parametrize("value", [True, False, np.bool_(True), "210e9", b"1", 1 + 0j,
                                   np.complex128(2.0), np.str_("1.0"), None, np.array([0.6]),
                                   np.array(1.0 + 0j), [0.6]])
@pytest.mark.parametrize("name", ["length", "E", "A", "I", "rho", "origin"])
def test_real_arguments_refuse_non_numbers(name, value):
    with pytest.raises(TypeError, match=rf"\b{name}\b"):
        kanefem.PlanarBeam(**{**BEAM, name: value})


@pytest.mark.parametrize("value", [0.6, 3, np.float32(0.5), np.int64(2), np.uint8(1),
                                   np.array(0.6), np.array(2)])
def test_real_arguments_take_numbers(value):
    b = kanefem.PlanarBeam(**{**BEAM, "length": value})
    assert b.length == float(value) and type(b.length) is float  # stored as a Python float


def test_integers_take_numpy_integers_and_refuse_bools_and_floats():
    assert kanefem.PlanarBeam(**{**BEAM, "n_elements": np.int32(4)}).n_elements == 4
    for value in (np.bool_(True), True, 4.0, np.float64(4.0), "4"):
        with pytest.raises(TypeError, match="n_elements"):
            kanefem.PlanarBeam(**{**BEAM, "n_elements": value})


def test_huge_int_is_refused_as_a_value_not_an_overflow():
    with pytest.raises(ValueError, match="E"):
        kanefem.PlanarBeam(**{**BEAM, "E": 10**400})


def test_base_class_is_refused_by_name():
    with pytest.raises(TypeError, match="FlexibleBody"):
        kanefem.FlexibleBody([[0.0, 0.0], [1.0, 0.0]], [[0, 1]], E=1.0, A=1.0, I=1.0, rho=1.0)


# ---------------------------------------------------------------- 2. types: arrays


@pytest.mark.parametrize("bad, kind", [([1.0 + 1j, 0.0], "complex"), ([True, False], "bool"),
                                      (["1", "2"], "str"), ([1.0, None], "object")])
def test_a_O_refuses_non_real_arrays(beam, bad, kind):
    with pytest.raises(TypeError, match=rf"a_O.*{kind}"):
        beam.motion_terms(1.0, 0.0, bad)


def test_rates_arrays_refuse_complex(beam):
    with pytest.raises(TypeError, match="omega"):
        beam.eigenvalues_vs_time(np.ones(3, complex), np.zeros(3), 2)
    with pytest.raises(TypeError, match="eps"):
        beam.gyroscopic_eigenvalues(np.ones(3), np.zeros(3, complex), 2)


def test_constraints_refuse_complex(beam):
    G = np.zeros((1, beam.ndof), complex)
    G[0, 1] = 1.0
    with pytest.raises(TypeError, match="constraints"):
        beam.eigenvalues(2, constraints=G)
    with pytest.raises(TypeError, match="constraints"):
        kanefem.maggi_basis(G)


@pytest.mark.parametrize("name", ["d0", "v0"])
def test_initial_state_refuses_complex(bar, name):
    x = np.zeros(bar.ndof, complex)
    with pytest.raises(TypeError, match=name):
        simulate(bar, Motion.constant_speed(1.0), 1e-3, dt=1e-4, progress=False, **{name: x})


def test_ragged_arrays_name_the_argument(beam):
    with pytest.raises(ValueError, match="d_tt"):
        beam.inertia_forces(np.zeros(beam.ndof), np.zeros(beam.ndof), [[1.0], [1.0, 2.0]])


def test_motion_constructors_refuse_non_numbers():
    t = np.linspace(0.0, 1.0, 5)
    with pytest.raises(TypeError, match="theta"):
        Motion.from_samples(t, t * (1 + 1j))
    with pytest.raises(TypeError, match="omega"):
        Motion.constant_speed(True)
    with pytest.raises(TypeError, match="theta0"):
        Motion.constant_speed(1.0, theta0="0")
    with pytest.raises(TypeError, match="gravity"):
        Motion.constant_speed(1.0).evaluate([0.0], gravity=(0j, -9.81))


def test_load_and_damping_objects_check_their_fields(bar):
    with pytest.raises(TypeError, match="amplitude"):
        kanefem.HarmonicLoad(["1", "2"], omega=1.0)
    with pytest.raises(TypeError, match="omega"):
        kanefem.HarmonicLoad(np.ones(bar.ndof), omega="5")
    with pytest.raises(TypeError, match="alpha"):
        kanefem.Rayleigh(alpha=True)
    with pytest.raises(TypeError, match="ratios"):
        kanefem.ModalDamping(ratios=[0.01j])
    with pytest.raises(ValueError, match="ratios"):
        kanefem.ModalDamping(ratios=[[0.01]])
    assert type(kanefem.Rayleigh(alpha=np.float32(0.5)).alpha) is float


def test_flags_refuse_strings(beam, bar):
    # "no" is truthy: a flag must be a bool, not whatever bool() makes of it
    with pytest.raises(TypeError, match="mode_shapes"):
        beam.eigenvalues(2, mode_shapes="no")
    with pytest.raises(TypeError, match="geometric_stiffness"):
        simulate(bar, Motion.constant_speed(1.0), 1e-3, dt=1e-4, geometric_stiffness="no", progress=False)
    with pytest.raises(TypeError, match="progress"):
        simulate(bar, Motion.constant_speed(1.0), 1e-3, dt=1e-4, progress="yes")


# ---------------------------------------------------------------- 2. types: the wind pump


@pytest.mark.parametrize("name, value", [("M3", True), ("l1", "0.09"), ("k", 1 + 0j), ("branch", 1.0),
                                         ("branch", True)])
def test_windpump_parameters_refuse_non_numbers(name, value):
    with pytest.raises(TypeError, match=rf"\b{name}\b"):
        kanefem.WindPump(**{name: value})


@pytest.mark.parametrize("line, name", [("M3 = true", "M3"), ('l1 = "0.09"', "l1"),
                                        ("[rocker]\nL = [0.4]", "L")])
def test_windpump_toml_refuses_non_numbers(tmp_path, line, name):
    path = tmp_path / "pump.toml"
    path.write_text(line + "\n")
    with pytest.raises(TypeError, match=rf"\b{name}\b") as info:
        kanefem.WindPump.from_toml(path)
    assert str(path) in str(info.value)  # and the file


def test_windpump_toml_path_is_named():
    with pytest.raises(TypeError, match="path"):
        kanefem.WindPump.from_toml(5)


def test_torque_must_be_a_number_or_callable(pump):
    with pytest.raises(TypeError, match="torque"):
        pump.solve(drive="torque", torque="5", revolutions=0.01)


def test_windpump_states_refuse_complex_and_name_shapes(pump):
    with pytest.raises(TypeError, match="alpha"):
        pump.points([0.1j], 0.55)
    with pytest.raises(ValueError, match="alpha.*x_D"):
        pump.points(np.zeros(2), np.full(3, 0.55))


def test_windpump_flags_and_noise(pump, pump_motion):
    with pytest.raises(TypeError, match="gyroscopic"):
        pump.lever_eigenvalues(pump_motion, gyroscopic="yes")
    with pytest.raises(TypeError, match="steady_state"):
        pump.solve(revolutions=0.01, steady_state=1)
    samples = (pump_motion.t, pump_motion.alpha, pump_motion.x_D)
    with pytest.raises(ValueError, match="noise"):
        pump.solve(drive="recorded", samples=samples, noise=(1e-3, 1e-3, 1e-3))


# ---------------------------------------------------------------- 2. types: studies, symbolic


def test_studies_check_their_arguments():
    with pytest.raises(TypeError, match="area"):
        studies.RotatingBar(area="2e-5")
    with pytest.raises(TypeError, match="omega_s"):
        studies.SpinUp(omega_s=4j)
    with pytest.raises(TypeError, match=r"\bt\b"):
        studies.SpinUp().omega(["1.0"])
    with pytest.raises(ValueError, match="method"):
        studies.rotating_bar(t_end=1e-3, method=5)
    with pytest.raises(TypeError, match="values"):
        studies.rotating_bar_sweep("area", 5)
    with pytest.raises(ValueError, match="parameter"):
        studies.rotating_bar_sweep(["area"], [1e-5])


def test_symbolic_derive_checks_constraints():
    symbolic = pytest.importorskip("kanefem.symbolic")
    row = [0.0] * 6
    with pytest.raises(ValueError, match="constraints"):
        symbolic.derive("kane", 1, constraints=[[math.nan] + row[1:]])
    with pytest.raises(ValueError, match="constraints"):
        symbolic.derive("kane", 1, constraints=[[math.inf] + row[1:]])
    with pytest.raises(TypeError, match="constraints"):
        symbolic.derive("kane", 1, constraints=[["x"] + row[1:]])
    with pytest.raises(TypeError, match="constraints"):
        symbolic.derive("kane", 1, constraints=[[True] + row[1:]])
    with pytest.raises(TypeError, match="measure_sizes"):
        symbolic.derive("kane", 1, measure_sizes="yes")
    with pytest.raises(ValueError, match="G"):
        symbolic.null_space_basis([[1.0, math.nan]])


def test_symbolic_csv_names_the_file(tmp_path):
    symbolic = pytest.importorskip("kanefem.symbolic")
    path = tmp_path / "costs.csv"
    path.write_text("method,route\nkane,element\n")
    with pytest.raises(ValueError, match="path"):
        symbolic.read_cost_csv(path)
    with pytest.raises(ValueError, match="route"):
        symbolic.format_cost_table([], route="other")


# ---------------------------------------------------------------- 3. sizes before memory


def test_tiny_dt_is_refused_by_step_count(bar):
    with pytest.raises(kanefem.StepLimitError, match=r"dt = 1e-300 and t_end = 1\.0 need 1e\+300 fixed steps"):
        simulate(bar, Motion.constant_speed(1.0), 1.0, dt=1e-300, progress=False)
    with pytest.raises(kanefem.StepLimitError, match=r"dt .* t_end .*max_steps = 100\b"):
        simulate(bar, Motion.constant_speed(1.0), 1.0, dt=1e-3, max_steps=100, progress=False)


def test_output_size_is_checked_before_allocation(bar):
    # the example: 1e8 steps (max_steps allows them) with one output row per
    # step would be 6.4 GB of d and v
    with pytest.raises(ValueError, match=r"dt and t_end.*outputs of 8e\+08 values"):
        simulate(bar, Motion.constant_speed(1.0), 1.0, dt=1e-8, progress=False)
    many = kanefem.AxialBar(1.0, 200, E=210e9, A=2e-5, rho=5e4)
    with pytest.raises(ValueError, match="t_eval"):
        simulate(many, Motion.constant_speed(1.0), 1.0, method="rk45-lagrange",
                 t_eval=np.linspace(0.0, 1.0, 1_000_000), progress=False)


def test_eigen_output_size_is_checked(beam):
    om = np.zeros(2_000_000)
    with pytest.raises(ValueError, match="omega and n_modes"):
        beam.eigenvalues_vs_time(om, om, 10)


def test_null_basis_size_is_checked():
    with pytest.raises(ValueError, match="constraints"):
        kanefem.maggi_basis(np.zeros((0, 20_000)))


@pytest.mark.parametrize("kw, name", [(dict(revolutions=1e7), "revolutions"),
                                      (dict(points_per_revolution=10**9), "points_per_revolution"),
                                      (dict(t=np.arange(3_000_000) * 1e-3), r"\bt\b")])
def test_windpump_point_count_is_checked(pump, kw, name):
    with pytest.raises(ValueError, match=name):
        pump.solve(**kw)


def test_windpump_float_point_count_is_a_type_error(pump):
    with pytest.raises(TypeError, match="points_per_revolution"):
        pump.solve(points_per_revolution=1e9)


@pytest.mark.parametrize("rtol", [1e-300, 1e-15, 100 * np.finfo(float).eps / 2])
def test_unreachable_rtol_is_refused_before_running(bar, pump, rtol):
    with pytest.raises(ValueError, match="rtol"):
        simulate(bar, Motion.constant_speed(1.0), 0.01, method="rk45-lagrange", rtol=rtol, progress=False)
    with pytest.raises(ValueError, match="rtol"):
        pump.solve(revolutions=0.01, rtol=rtol)


def test_smallest_meetable_rtol_is_accepted(bar):
    r = simulate(bar, Motion.constant_speed(1.0), 1e-3, method="rk45-lagrange",
                 rtol=_checks.MIN_RTOL, progress=False)
    assert np.all(np.isfinite(r.d))


@pytest.mark.parametrize("value", [2**70, 2**62 + 1])
def test_huge_max_steps_is_a_value_error(bar, value):
    with pytest.raises(ValueError, match="max_steps"):
        simulate(bar, Motion.constant_speed(1.0), 1e-3, dt=1e-4, max_steps=value, progress=False)


# ---------------------------------------------------------------- 6. messages


def test_end_forces_of_wrong_length(beam):
    with pytest.raises(ValueError, match="end_forces"):
        beam.axial_force(1.0, end_forces=(1.0,))
    with pytest.raises(ValueError, match="end_forces"):
        beam.eigenvalues(2, geometric_stiffness=True, end_forces=(1.0,))


def test_nodal_load_names_node(bar):
    with pytest.raises(ValueError, match=r"^node 50 is out of range") as info:
        kanefem.HarmonicLoad.nodal(bar, 50, "u", 1.0, 1.0)
    assert "supports" not in str(info.value)
    with pytest.raises(ValueError, match="dof"):
        kanefem.HarmonicLoad.nodal(bar, 0, ["u"], 1.0, 1.0)
    with pytest.raises(TypeError, match="body"):
        kanefem.HarmonicLoad.nodal("bar", 0, "u", 1.0, 1.0)


def test_huge_n_modes_is_a_value_error(beam):
    with pytest.raises(ValueError, match="n_modes"):
        beam.eigenvalues(2**40)
    with pytest.raises(ValueError, match="n_modes"):
        beam.gyroscopic_eigenvalues([0.0], [0.0], 2**40)


@pytest.mark.parametrize("kw", [dict(origin=1e308), dict(origin=1e10, length=1e-3),
                                dict(origin=1e308, length=1e308, n_elements=1)])
def test_unresolvable_nodes_name_origin_and_length(kw):
    with pytest.raises(ValueError, match=r"origin = .* and length = "):
        kanefem.PlanarBeam(**{**BEAM, **kw})


def test_large_origin_that_resolves_the_nodes_is_fine():
    b = kanefem.AxialBar(**{**BAR, "origin": 1e3})
    # element lengths to 1e-13 (1000 has an ulp of 1.1e-13; elements are 1/3 m)
    np.testing.assert_allclose(np.diff(b.nodes[:, 0]), 1.0 / 3, rtol=1e-12)


@pytest.mark.parametrize("kw, names", [
    (dict(rho=1e-320), r"rho = 9.99989e-321"),  # (1e-320 is stored as the subnormal 9.99989e-321)               # subnormal: the mass matrix would be 0
    (dict(rho=1e-300, A=1e-10), r"rho = 1e-300 and A = 1e-10"),   # rho A underflows
    (dict(rho=1e300, A=1e10), r"rho = 1e\+300, A"),    # rho A overflows
    (dict(E=1e-300), r"E = 1e-300"),
    (dict(I=1e300), r"E = .*, I = 1e\+300"),           # EI overflows (issue 8, item 1's input)
    (dict(length=1e-300), r"mass of DOF.*length / n_elements = 1e-300"),  # rho A l_e^3 of the rotations underflows first  # the element stiffness overflows
])
def test_sections_whose_products_are_not_normal_doubles(kw, names):
    with pytest.raises(ValueError, match=names):
        kanefem.PlanarBeam(**{**BEAM, **kw})


def test_maggi_rtol_must_lie_in_0_1():
    G = [[1.0, 1.0, 0.0]]
    with pytest.raises(ValueError, match="rtol = 1.5"):
        kanefem.maggi_basis(G, rtol=1.5)
    # 0 selects the default: the same basis as no rtol
    np.testing.assert_array_equal(kanefem.maggi_basis(G, rtol=0.0), kanefem.maggi_basis(G))
    assert kanefem.maggi_basis(G, rtol=0.5).shape == (3, 2)


def test_simulation_t_is_a_copy_of_t_eval(bar):
    t_eval = np.linspace(0.0, 1e-3, 5)
    r = simulate(bar, Motion.constant_speed(1.0), 1e-3, dt=1e-4, t_eval=t_eval, progress=False)
    assert not np.shares_memory(r.t, t_eval)
    t_eval[:] = -1.0
    np.testing.assert_array_equal(r.t, np.linspace(0.0, 1e-3, 5))


def test_result_node_names_bad_choices(bar):
    r = simulate(bar, Motion.constant_speed(1.0), 1e-3, dt=1e-4, progress=False)
    with pytest.raises(ValueError, match="what"):
        r.node(-1, what=["d"])
    with pytest.raises(ValueError, match="dof"):
        r.node(-1, dof=np.array(["u"]))


def test_short_bar_elements_are_refused_before_an_infinite_stiffness():
    # EA / l_e = 7.8e303 is finite, but the element integrates (1 / l_e)^2 EA l_e, and
    # 1 / l_e^2 = 1e600 overflows: the stiffness matrix was inf (found by the fuzz test)
    with pytest.raises(ValueError, match=r"stiffness matrix overflows.*length / n_elements = 1e-300"):
        kanefem.AxialBar(1e-300, 1, E=1e6, A=0.0078125, rho=100.0)


@pytest.mark.parametrize("elements, error, match", [
    ([[0, 2]], ValueError, r"elements: element 0 refers to node 2, outside 0..1"),
    ([[0, 0], [0, 1]], ValueError, r"elements: element 0 uses node 0 twice"),
    ([[0.0, 1.0]], TypeError, r"elements must be a 2-D integer array"),   # was truncated silently
    ([[0, 1, 1]], ValueError, r"elements must have shape"),
])
def test_mesh_errors_name_elements(elements, error, match):
    # the core names these "conn"; the Python argument is elements
    body = kanefem.FlexibleBody.__new__(kanefem.PlanarBeam)
    with pytest.raises(error, match=match):
        kanefem.FlexibleBody.__init__(body, [[0.0, 0.0], [1.0, 0.0]], elements, E=1e9, A=1e-4, I=1e-8, rho=1e3)


def test_unused_node_names_nodes():
    body = kanefem.FlexibleBody.__new__(kanefem.AxialBar)
    with pytest.raises(ValueError, match=r"elements: node 2 belongs to no element"):
        kanefem.FlexibleBody.__init__(body, [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]], [[0, 1]],
                                      E=1e9, A=1e-4, I=1.0, rho=1e3)


def test_body_size_is_bounded_before_allocation():
    # 10^7 elements were accepted: about 45 GB of matrices, built before any check
    with pytest.raises(ValueError, match=r"n_elements = 10000000 must be <= 200000"):
        kanefem.PlanarBeam(**{**BEAM, "n_elements": 10_000_000})


@pytest.mark.parametrize("make, match", [
    # the bar's first moment rho A l_e x overflowed: invariants s = inf (found by the fuzz test)
    (lambda: kanefem.AxialBar(1e150, 1, E=1e6, A=0.0078125, rho=1e30), r"first moment.*rho = 1e\+30"),
    # E / (rho l_e^2) = 2.5e307: the eigenvalue was nan (found by the fuzz test)
    (lambda: kanefem.AxialBar(1.0, 5, E=1e6, A=0.0078125, rho=1e-300), r"frequency scale k/m = 7.5e\+307.*E = 1e\+06, rho = 1e-300"),
    # EI / (rho A l_e^4) overflowed; the modal damping's eigh did not converge (fuzz)
    (lambda: kanefem.PlanarBeam(0.125, 2, E=1e6, A=0.0078125, I=5.96e-8, rho=1e-300), r"rho = 1e-300"),
])
def test_eigenvalue_and_moment_scales_are_checked(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_a_mesh_of_its_own_is_checked_without_a_length():
    # the message of a straight body says how l_e comes from length and n_elements; a body
    # of its own mesh has no length (AttributeError before; found by the fuzz test)
    body = kanefem.FlexibleBody.__new__(kanefem.PlanarBeam)
    with pytest.raises(ValueError, match=r"frequency scale k/m = 3e-302.*E = 1e-300, rho = 100"):
        kanefem.FlexibleBody.__init__(body, [[0.0, 0.0], [1.0, 0.0]], [[0, 1]], E=1e-300, A=0.0078125,
                                      I=1e-12, rho=100.0)


def test_rotating_bar_density_is_checked():
    # area * length = 1e-600 underflows to 0: ZeroDivisionError before (found by the fuzz test)
    with pytest.raises(ValueError, match=r"mass = 1.0, area = 1e-300, length = 1e-300"):
        studies.RotatingBar(length=1e-300, area=1e-300)


def test_motion_state_and_windpump_motion_own_their_times(pump):
    t = np.linspace(0.0, 0.01, 4)
    state = Motion.constant_speed(2.0).evaluate(t)
    m = pump.solve(t=t)
    assert not np.shares_memory(state.t, t) and not np.shares_memory(m.t, t)


def test_sketch_names_ax(pump_motion):
    with pytest.raises(TypeError, match="ax"):
        pump_motion.sketch(ax=5)


def test_bent_bar_names_nodes():
    # the core names its coords; the Python argument is nodes (found by the fuzz test)
    body = kanefem.FlexibleBody.__new__(kanefem.AxialBar)
    with pytest.raises(ValueError, match=r"nodes: axial bar element 0 must lie on the body's x axis"):
        kanefem.FlexibleBody.__init__(body, [[0.0, 0.0], [0.5, 0.1], [1.0, 0.0]], [[0, 1], [1, 2]],
                                      E=1e9, A=1e-4, I=1.0, rho=1e3)


def test_stiffness_intermediates_are_checked():
    # EA / l_e = 6e300 is a double, but the core's B^T D B is EA / l_e^2 = 3.6e309 before
    # the weight l_e: the stiffness matrix was inf (found by the fuzz test)
    with pytest.raises(ValueError, match=r"stiffness matrix overflows: E = 1e\+300 with A = 1e-08"):
        kanefem.AxialBar(1e-8, 6, E=1e300, A=1e-8, rho=1e300)


def test_recorded_motion_reports_a_straight_line_fit_as_none(pump):
    # a noise larger than the samples' scatter about a line: lam = inf was in the stats
    m = pump.solve(revolutions=0.2, points_per_revolution=40)
    r = pump.solve(drive="recorded", samples=(m.t, m.alpha, np.full(m.t.size, 0.55)), noise=(0.0, 1e-3))
    assert r.stats["lam"][0] == 0.0 and r.stats["lam"][1] is None
    np.testing.assert_allclose(r.x_D, 0.55, rtol=0, atol=1e-15)  # the line through constant samples


def test_rayleigh_ratios_that_overflow():
    # 2 zeta w1 w2 / (w1 + w2) = inf; the message blamed alpha, not an argument (fuzz)
    with pytest.raises(ValueError, match="omega_1 = 1e\\+300"):
        kanefem.Rayleigh.from_ratios(0.5, 1e300, 1e300)


def test_spin_up_ramp_that_overflows():
    # omega_s / T_s = -inf: omega(t) and eps(t) were nan (found by the fuzz test)
    with pytest.raises(ValueError, match=r"omega_s = -1e\+300 and T_s = 1e-150"):
        studies.SpinUp(omega_s=-1e300, T_s=1e-150)


def test_huge_points_per_revolution_is_a_value_error(pump):
    # 10**300 points: an OverflowError in revolutions * points_per_revolution (fuzz)
    with pytest.raises(ValueError, match="points_per_revolution"):
        pump.solve(revolutions=1e-8, points_per_revolution=10**300)


def test_inertia_forces_that_overflow_name_the_state():
    bar = kanefem.AxialBar(1.0, 2, E=3e11, A=1.0, rho=1e5)
    n = bar.ndof
    with pytest.raises(ValueError, match="d, d_t, d_tt"):
        bar.inertia_forces(np.zeros(n), np.zeros(n), np.full(n, 1e305))


# ---------------------------------------------------------------- the fuzz of the second-wave API
# (spatial bodies, meshes, mechanisms, sweeps; tests/test_fuzz.py): each case was found by
# a probe, raised an unrelated exception or named no argument before its fix


def test_spin_up_first_frequency_lost_in_round_off():
    # EI negligible against EA: the eigenvalue was -6e-20 and math.sqrt raised "math domain error"
    # (on the dense path: 90 elements, 273 DOFs; storage="auto" is dense up to 300)
    s = studies.SpinUp(omega_s=120.0, T_s=33579, length=33579, EA=5.9e16, rhoA=4.6e16, n_elements=90)
    with pytest.raises(ValueError, match=r"EI = 14000\.0 is lost in round-off"):
        s.first_frequency()
    # at 100 elements the body is banded and shift-invert on its factor keeps the digits:
    # (1.8751 / L)^2 sqrt(EI / rhoA), the clamped-free value, to the FE error
    s = studies.SpinUp(omega_s=120.0, T_s=33579, length=33579, EA=5.9e16, rhoA=4.6e16, n_elements=100)
    assert s.first_frequency() == pytest.approx((1.87510407 / 33579) ** 2 * math.sqrt(14000 / 4.6e16), rel=1e-5)


def test_windpump_lever_errors_name_the_pump_parameters():
    # the lever's PlanarBeam named its own rho, A, length: the pump has rho2, A2, l2
    with pytest.raises(kanefem.RangeError, match=r"rho2 = 7850 and A2 = 0\.0002 .* l2 / n_elements = 1e-150"):
        kanefem.WindPump(l2=1e-150)


def test_windpump_points_of_no_state(pump):
    # alpha of shape (1, 1, 0): numpy's "cannot reshape array of size 0"
    with pytest.raises(ValueError, match=r"the states are empty \(broadcast shape \(1, 1, 0\)\): alpha \(1, 1, 0\)"):
        pump.points([[[]]], 0.55)


def _slider_crank_tables():
    from kanefem import mechanism as mech

    return mech.Mechanism.from_toml(mech.example("slider_crank")).to_dict()


def test_mechanism_tables_missing_a_key():
    # a link without rho was a bare KeyError('rho')
    from kanefem import mechanism as mech

    tables = _slider_crank_tables()
    del tables["link"][0]["rho"]
    with pytest.raises(ValueError, match=r"\[\[link\]\] 'rod': missing key\(s\) 'rho'"):
        mech.Mechanism.from_dict(tables)
    tables = _slider_crank_tables()
    tables["coordinate"][0].pop("speed")
    with pytest.raises(ValueError, match="coordinate 'crank': a constant-speed drive needs its speed"):
        mech.Mechanism.from_dict(tables)
    tables = _slider_crank_tables()
    tables["coordinate"][0]["initial"] = "x"
    with pytest.raises(TypeError, match="coordinate 'crank': initial must be a real number, got 'x'"):
        mech.Mechanism.from_dict(tables)
    tables = _slider_crank_tables()
    tables["body"] = {"name": "x"}  # [body] instead of [[body]]
    with pytest.raises(TypeError, match=r"\[\[body\]\] must be an array of tables"):
        mech.Mechanism.from_dict(tables)


def test_mechanism_builders_check_their_arguments():
    from kanefem import mechanism as mech

    # masses of two values: "not enough values to unpack (expected 3, got 2)"
    with pytest.raises(ValueError, match=r"masses must have shape \(3,\), got \(2,\)"):
        mech.four_bar(masses=(1.0, 2.0))
    with pytest.raises(ValueError, match="branch must be 1 or -1, got 2"):
        mech.four_bar(branch=2)
    # diameter ** 2 raised OverflowError; an object rod mass a TypeError of float * object
    with pytest.raises(ValueError, match=r"diameter = 1\.2e\+300 m gives a section"):
        mech.slider_crank(diameter=1.2e300)
    with pytest.raises(TypeError, match="rod_mass must be a real number"):
        mech.slider_crank(rod_mass=object())


def test_mechanism_methods_name_their_arguments():
    from kanefem import mechanism as mech

    m = mech.slider_crank(elements=2)
    # "input operand has more dimensions than allowed by the axis remapping"
    with pytest.raises(ValueError, match=r"zd must have shape \(2, 1\) \(or broadcast to it\), got \(0, 2, 4\)"):
        m.accelerations(np.zeros((2, 1)), np.zeros((0, 2, 4)))
    motion = m.solve(duration=0.01, points=4, drives={"crank": mech.ConstantSpeed(40.0)})
    with pytest.raises(TypeError, match="links must be a sequence, got 7"):  # "'int' object is not iterable"
        m.link_eigenvalues(motion, links=7)
    with pytest.raises(TypeError, match="drives must map coordinate names to dicts"):  # ([run] is the CLI's now)
        m.to_toml("unused.toml", drives=1e100)
    with pytest.raises(TypeError, match="Torque law must be a real number, got 'x'"):
        m.solve(duration=0.01, points=3, drives={"crank": mech.Torque("x")})


def test_mesh_node_predicate_must_be_callable():
    mesh = kanefem.Mesh.rectangle(1.0, 0.1, 2, 1)
    with pytest.raises(TypeError, match="predicate must be callable, got 7850.0"):  # "'float' object is not callable"
        mesh.nodes_where(7850.0)


def test_mesh_merge_that_collapses_cells():
    # tol merged the nodes of a cell: MeshBody then said "elements: element 0 uses node 3
    # twice", naming neither the mesh's cells nor tol
    mesh = kanefem.Mesh.box(0.25, 1e-30, 1.0, 1, 1, 1, cell="tetra")
    with pytest.raises(ValueError, match=r"tol = 1e-08 merges nodes of one cell"):
        mesh.merged(1e-8)
    with pytest.raises(ValueError, match=r"tol = 1e-300 is too small for node coordinates up to 1"):
        mesh.merged(1e-300)  # the merge grid's integers overflowed silently
    with pytest.raises(ValueError, match=r"r_inner = 1e-30, r_outer = 0\.5"):
        kanefem.Mesh.annulus(1e-30, 0.5, 1, 3, cell="quad")
    with pytest.raises(ValueError, match="n_theta = 1 must be >= 2 for a full ring"):
        kanefem.Mesh.annulus(0.1, 0.5, 1, 1, cell="quad")
    # a mesh body names its connectivity "cells", as the Mesh does
    mesh = kanefem.Mesh([[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 1, 2, 2]], "quad")
    with pytest.raises(ValueError, match="cells: element 0 uses node 2 twice"):
        kanefem.MeshBody(mesh, E=2e11, nu=0.3, rho=7800, thickness=0.01)


def test_structured_mesh_size_is_checked_before_allocating():
    # 100,000 x 100,000 cells: a MemoryError after 31 s of allocating
    with pytest.raises(ValueError, match=r"nx x ny = 100000 x 100000 cells is more than a structured mesh holds"):
        kanefem.Mesh.rectangle(1.0, 1.0, 100_000, 100_000)
    with pytest.raises(ValueError, match=r"cell = \['quad'\] is not one of"):  # "unhashable type: 'list'"
        kanefem.Mesh.rectangle(1.0, 1.0, 2, 2, cell=["quad"])


def test_modal_damping_of_a_mesh_body_in_dense_storage():
    # the mesh body's matrices are scipy.sparse: numpy's cholesky raised "0-dimensional
    # array given"; now they are made dense, and the damping matches the modal definition
    mesh = kanefem.Mesh.rectangle(1.0, 0.1, 3, 1)
    body = kanefem.MeshBody(mesh, E=2e11, nu=0.3, rho=7800, thickness=0.01, storage="dense")
    fixed = body.support_mask({0: "fixed", 4: "fixed"})
    C = kanefem.ModalDamping(0.02).matrix(body, fixed)
    M = body.mass_matrix()[np.ix_(~fixed, ~fixed)]  # dense storage: an ndarray (the Body contract)
    K = body.stiffness_matrix()[np.ix_(~fixed, ~fixed)]
    from scipy.linalg import eigh

    lam, phi = eigh(K, M)  # mass-normalized modes: phi^T C phi = 2 zeta omega_k I
    np.testing.assert_allclose(phi.T @ C @ phi, np.diag(2 * 0.02 * np.sqrt(lam)), rtol=0,
                               atol=1e-9 * 2 * 0.02 * np.sqrt(lam.max()))  # round-off of the largest entry


def test_constant_spin_orientation_shape():
    # R0 of shape (0, 1, 0): "operand has more dimensions than subscripts given in einstein sum"
    with pytest.raises(ValueError, match=r"R0 must have shape \(3, 3\), got \(0, 1, 0\)"):
        kanefem.Motion.constant_spin([0.0, 0.0, 1.0], R0=np.zeros((0, 1, 0)))


def _small_study(omega=0.0, label="a"):
    return {"x": np.full(2, omega), "label": label}


def test_sweep_result_lookups_name_what_is_missing():
    r = kanefem.sweep(_small_study, {"omega": [0.0, 1.0], "label": ["a", "b"]}, progress=False, workers=1)
    # a KeyError (a lookup by name) that is also a KanefemError
    with pytest.raises(kanefem.KanefemError, match="no parameter 'w'") as info:
        r.param("w")
    assert isinstance(info.value, KeyError)
    with pytest.raises(KeyError, match="output 'nope' is not at every point"):  # plot: a bare KeyError('nope')
        r.plot("nope")
    with pytest.raises(TypeError, match="y = 'label' is not a numeric output"):  # "could not convert string"
        r.plot("label")
    with pytest.raises(TypeError, match="x = 'label' is not a numeric parameter"):
        r.campbell(x="label", frequencies="x")
    with pytest.raises(TypeError, match=r"a parameter name must be a string, got array\(\['a'\]"):
        r.campbell(x=np.array(["a"]))  # "unhashable type: 'numpy.ndarray'"
    with pytest.raises(ValueError, match="k = 4 is out of range for 4 point"):  # "list index out of range"
        r.result(4)
    with pytest.raises(TypeError, match="k must be an integer, got \\[1\\]"):  # "list indices must be integers"
        r.result([1])
    with pytest.raises(TypeError, match="cls must be a class with from_dict"):  # AttributeError of int.from_dict
        r.result(0, int)
    with pytest.raises(IndexError, match="k = -5 is out of range"):  # the sequence protocol's error
        r[-5]
    assert len(list(r)) == 4  # iteration ends at the IndexError


def test_sweep_store_must_be_a_path():
    # "expected str, bytes or os.PathLike object, not float"
    with pytest.raises(TypeError, match="store must be a file path"):
        kanefem.sweep(_small_study, {"omega": [0.0]}, store=1.5, progress=False)


def test_more_mechanism_arguments_named():
    from kanefem import mechanism as mech

    # np.linspace's "index -1 is out of bounds" for 2**63 points
    with pytest.raises(ValueError, match="points = 9223372036854775808 must be <= 268435456"):
        mech.slider_crank(rod=None).solve(duration=0.05, points=2**63)
    # the PlanarBeam's "n_elements must be an integer": slider_crank calls it elements
    with pytest.raises(TypeError, match="elements must be an integer, got np.True_"):
        mech.slider_crank(elements=np.True_)


def test_sparse_eigen_solver_failure_is_a_kanefem_error():
    # E negligible against the masses: scipy's ArpackError (or SuperLU's RuntimeError
    # "Factor is exactly singular") escaped, naming nothing
    nodes = [[0.0, 0.0], [1.0, 0.0], [1.0, 0.2], [0.0, 0.2], [2.0, 0.0], [2.0, 0.2]]
    mesh = kanefem.Mesh(nodes, [[1, 4, 5, 2], [0, 1, 2, 3]], "quad")
    body = kanefem.MeshBody(mesh, E=1e-150, nu=0.39, rho=1e-8, thickness=1e300, plane_strain=True)
    with pytest.raises(kanefem.LinAlgError, match=r"solver='sparse' failed: .*\(E = 1e-150, rho = 1e-08"):
        body.eigenvalues_vs_time([0.0, 4.5, 35.8], [6.3, 1.2, 0.0], 3, solver="sparse")


def test_windpump_crank_speed_that_underflows(pump):
    # rpm = 5e-324 is positive, but rpm 2 pi / 60 = 0: "float division by zero"
    with pytest.raises(ValueError, match="rpm = 5e-324 is too small"):
        pump.solve(drive="torque", rpm=5e-324, torque=-3763.0, revolutions=0.07)


def test_motion_evaluated_at_no_time():
    # t = []: "cannot reshape array of size 0 into shape (0,newaxis)"; now an empty state
    s = Motion.constant_spin([0.0, 0.0, 2.0]).evaluate([])
    assert s.omega.shape == (0, 3) and s.frames.shape == (0,)


def test_mechanism_names_must_be_strings():
    # link=np.array(['rod']): "unhashable type: 'numpy.ndarray'" from the dict of bodies
    from kanefem import mechanism as mech

    m = mech.slider_crank(elements=2)
    motion = m.solve(duration=0.01, points=5, drives={"crank": mech.ConstantSpeed(40.0)})
    with pytest.raises(TypeError, match=r"body or link must be a name \(a string\), got array\(\['rod'\]"):
        m.link_response(motion, np.array(["rod"]))


def test_mesh_point_sets_must_be_a_dict():
    # "'float' object has no attribute 'items'"
    with pytest.raises(TypeError, match="point_sets must be a dict of name -> node indices, got 1.0"):
        kanefem.Mesh([[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 1, 2, 3]], "quad", 1.0)


def test_sweep_dataframe_output_name():
    # to_dataframe(['a']): pandas' TypeError with an empty message
    pytest.importorskip("pandas")
    r = kanefem.sweep(_small_study, {"omega": [0.0, 1.0]}, progress=False, workers=1)
    with pytest.raises(TypeError, match=r"an output name must be a string, got \['a'\]"):
        r.to_dataframe(["a"])


def test_function_motion_spatial_flag():
    # spatial=np.array([True, False]): "The truth value of an array ... is ambiguous"
    with pytest.raises(TypeError, match="spatial must be True or False"):
        Motion.from_function(lambda t: (0.0, 0.0, (0.0, 0.0)), spatial=np.array([True, False]))


def test_mechanism_link_elements_named_as_the_table_key():
    # elements = 1.0 in [[link]]: the message said n_elements, the PlanarBeam's name
    from kanefem import mechanism as mech

    tables = _slider_crank_tables()
    tables["link"][0]["elements"] = 1.0
    with pytest.raises(TypeError, match="link 'rod': elements must be an integer, got 1.0"):
        mech.Mechanism.from_dict(tables)


def test_mesh_eigen_flags_are_read_as_flags():
    # mode_shapes=np.array([True, False]) on a mesh: "The truth value of an array ... is
    # ambiguous" (CI's fuzz, seed 20261123, probe mesh_methods); a MeshBody now reads its
    # eigen flags as every other body does
    mesh = kanefem.Mesh.rectangle(0.2, 0.05, 4, 1)
    body = kanefem.MeshBody(mesh, E=2e11, nu=0.3, rho=7800, thickness=0.01)
    with pytest.raises(TypeError, match=r"mode_shapes must be True or False, got array\(\[ True, False\]\)"):
        body.eigenvalues_vs_time([1.0, 2.0], [0.0, 0.0], 1, mode_shapes=np.array([True, False]))
    with pytest.raises(TypeError, match="include_eps must be True or False, got 1"):
        body.eigenvalues(1, include_eps=1)


def test_shift_of_a_constrained_body_whose_mass_underflows():
    # rho = 1e-150: the Rayleigh quotient's x M x underflowed to 0 and the shift rule raised
    # ZeroDivisionError (CI's fuzz, seed 20261123, probe simulate); the shift is kept (dt given:
    # the default step comes from eigenvalues at the round-off of each LAPACK route)
    beam = kanefem.PlanarBeam(1e8, 3, E=1e-8, A=1e-8, I=7.4e-7, rho=1e-150)
    C = np.zeros((1, beam.ndof))
    C[0, 1] = 1.0
    r = simulate(beam, Motion.constant_speed(1.0), 0.0035, supports="free-free", constraints=C,
                 damping=kanefem.Rayleigh(0.1, 1e-6), rho_inf=0.04, dt=0.0035 / 20, progress=False)
    assert np.all(np.isfinite(r.d))


def test_sparse_eigen_beyond_double_precision_is_a_range_error():
    # E A / E I and rho 130 decades apart under a constraint: the shifted band factor was not
    # positive definite (RuntimeError), ARPACK's start vector vanished, bounds came out inf or
    # vectors NaN, by LAPACK route (CI's fuzz, seed 20261123, on SciPy's route): one RangeError
    # naming the inputs' scales, a ValueError as before
    beam = kanefem.PlanarBeam(1e8, 6, E=7.92e11, A=1e-150, I=3.59e-7, rho=1e-30)
    C = np.full((1, beam.ndof), 0.55)
    C[0, 3] = -0.86
    with pytest.raises(kanefem.RangeError, match=r"failed in double precision .*\(E, A, I, rho\)"):
        beam.eigenvalues(2, omega=-1e-150, eps=1e-150, constraints=C, solver="sparse")
