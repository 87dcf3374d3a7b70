"""The wind-pump mechanism (docs/theory.md section 5): kinematics, Kane's rigid dynamics, joint
forces, the lever's eigenvalues, configuration files and the command line.

Every check compares independent routes: positions against their own finite
differences, Kane's projection against the bodies' Newton-Euler equations, the energy
of the whole mechanism against the work of its forces."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanefem
from kanefem import GeometryError, WindPump, WindPumpParams, _records

REF = WindPumpParams()


@pytest.fixture(scope="module")
def pump():
    return WindPump()


@pytest.fixture(scope="module")
def steady(pump):
    return pump.solve(rpm=140, revolutions=1, steady_state=True)


def e(a):
    return np.stack([np.cos(a), np.sin(a)], axis=-1)


def cross(a, b):
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


# ---------------------------------------------------------------- kinematics


@pytest.mark.parametrize("branch", [1, -1])
@pytest.mark.parametrize("x_D", [0.45, 0.55, 0.70])
def test_closure_residual_full_turn(branch, x_D):
    pump = WindPump(branch=branch)
    p = pump.params
    alpha = np.linspace(0.0, 2 * math.pi, 3601)
    k = pump.kinematics(alpha, x_D)
    B = p.l1 * e(alpha)
    D = np.column_stack([np.full_like(alpha, x_D), np.full_like(alpha, p.e)])
    C_lever = B + p.l2 * e(k["theta"][:, 1])
    C_rocker = D + p.h * e(k["theta"][:, 2] + p.psi)
    res = np.hypot(*(C_lever - C_rocker).T)
    # round-off: a few roundings in sqrt, atan2, cos and sin of lengths <= 0.85 m; 2e-16 m is
    # one ulp of 1 m, so 4e-15 m allows ~20 ulp
    assert res.max() < 4e-15, res.max()
    # the branch parameter: C' to the left (+1) or right (-1) of the line B -> D
    side = np.sign(cross(D - B, k["points"][:, 2] - B))
    assert np.all(side == branch)


def _path(t):
    """A smooth path through the assembly region with its exact rates."""
    q = np.column_stack([0.4 + 2.0 * t + 0.3 * np.sin(2 * t), 0.56 + 0.05 * np.sin(3 * t)])
    u = np.column_stack([2.0 + 0.6 * np.cos(2 * t), 0.15 * np.cos(3 * t)])
    ud = np.column_stack([-1.2 * np.sin(2 * t), -0.45 * np.sin(3 * t)])
    return q, u, ud


ANGLE_ROWS = [2, 5, 8]


def _fd(fun, t, h):
    """4th-order central difference of fun(t) (rows), angle rows unwrapped around t."""
    vals = [fun(t + s * h) for s in (-2, -1, 1, 2)]
    centre = fun(t)
    for v in vals:
        v[:, ANGLE_ROWS] = centre[:, ANGLE_ROWS] + np.angle(np.exp(1j * (v[:, ANGLE_ROWS] - centre[:, ANGLE_ROWS])))
    return (vals[0] - 8 * vals[1] + 8 * vals[2] - vals[3]) / (12 * h)


def test_velocities_and_accelerations_equal_finite_differences(pump):
    t = np.linspace(0.0, 3.0, 61)

    def kin(tt):
        q, u, ud = _path(tt)
        return pump.kinematics(q[:, 0], q[:, 1], u[:, 0], u[:, 1], ud[:, 0], ud[:, 1])

    k = kin(t)
    h = 1e-3
    v_fd = _fd(lambda tt: kin(tt)["r"], t, h)
    a_fd = _fd(lambda tt: kin(tt)["v"], t, h)
    # truncation h^4 r^(5) / 30 and round-off 1e-16 / h: measured 5e-12 and 2e-11 of the
    # largest rate (5e-8 and 2e-7 at h = 1e-2: the h^4 law)
    assert np.abs(k["v"] - v_fd).max() < 1e-10 * np.abs(k["v"]).max()
    assert np.abs(k["a"] - a_fd).max() < 1e-10 * np.abs(k["a"]).max()
    # the acceleration of B and the lever frame's rates follow the same rule
    aB_fd = _fd(lambda tt: np.pad(kin(tt)["vB"], ((0, 0), (0, 10))), t, h)[:, :2]
    assert np.abs(k["aB"] - aB_fd).max() < 1e-10 * np.abs(k["aB"]).max()
    assert np.array_equal(k["lever"]["omega"][:, 2], k["omega"][:, 1])
    assert np.array_equal(k["lever"]["eps"][:, 2], k["eps"][:, 1])


def test_A_and_B_are_the_partial_rates(pump):
    """r' = A u and r'' = A u' + B w with w = (omega1^2, omega1 xdot_D, xdot_D^2)."""
    q, u, ud = _path(np.linspace(0, 3, 17))
    k = pump.kinematics(q[:, 0], q[:, 1], u[:, 0], u[:, 1], ud[:, 0], ud[:, 1])
    w = np.column_stack([u[:, 0] ** 2, u[:, 0] * u[:, 1], u[:, 1] ** 2])
    assert np.allclose(np.einsum("trj,tj->tr", k["A"], u), k["v"], rtol=0, atol=1e-14)
    a = np.einsum("trj,tj->tr", k["A"], ud) + np.einsum("trj,tj->tr", k["B"], w)
    assert np.allclose(a, k["a"], rtol=0, atol=1e-13)


def test_points_and_transmission_angle(pump):
    p = pump.params
    pts = pump.points(np.array([0.0, math.pi / 2]), 0.55)
    assert pts["A"].shape == (2, 2) and np.all(pts["A"] == 0.0)
    assert np.allclose(pts["B"], [[p.l1, 0.0], [0.0, p.l1]], atol=1e-16)
    assert np.allclose(pts["D"], [[0.55, p.e]] * 2)
    assert np.allclose(np.hypot(*(pts["C"] - pts["B"]).T), p.l2, atol=1e-15)
    assert np.allclose(np.hypot(*(pts["C"] - pts["D"]).T), p.h, atol=1e-15)


def test_reference_configuration_assembles_as_documented(pump, steady):
    """The claims of WindPumpParams' docstring."""
    alpha = np.linspace(0, 2 * math.pi, 721)
    for x in (0.421, 0.55, 0.759):
        pump.points(alpha, x)  # whole turns assemble
    for x in (0.41, 0.77):
        with pytest.raises(GeometryError):
            pump.points(alpha, x)
    mu = np.degrees(steady.transmission_angle)
    assert 60 < mu.min() and mu.max() < 75  # docstring: 63..72 deg over the 140 rpm cycle


@settings(max_examples=200, deadline=None)
@given(
    l1=st.floats(0.01, 1.0), l2=st.floats(0.05, 2.0), h=st.floats(0.05, 2.0), e_=st.floats(-1.0, 1.0),
    psi=st.floats(-7.0, 7.0), branch=st.sampled_from([1, -1]),
    alpha=st.floats(-20.0, 20.0), x_D=st.floats(-3.0, 3.0),
)
def test_any_geometry_closes_or_raises_cleanly(l1, l2, h, e_, psi, branch, alpha, x_D):
    """For any lengths and position: either the loop closes to round-off (with finite,
    consistent rates), or a GeometryError names alpha and x_D; nothing else."""
    pump = WindPump(l1=l1, l2=l2, h=h, e=e_, psi=psi, branch=branch)
    try:
        k = pump.kinematics(alpha, x_D, 1.0, 0.1)
    except GeometryError as exc:
        assert "alpha =" in str(exc) and "x_D =" in str(exc)
        return
    B, C, D = k["points"][1], k["points"][2], k["points"][3]
    scale = l1 + l2 + h + abs(x_D) + abs(e_)
    assert abs(np.hypot(*(C - B)) - l2) < 1e-14 * scale
    assert abs(np.hypot(*(C - D)) - h) < 1e-14 * scale
    assert abs(math.sin(k["mu"])) >= 1e-6  # KF_WINDPUMP_DEAD: closer to a dead point raises
    assert np.all(np.isfinite(k["A"])) and np.all(np.isfinite(k["B"]))


# ---------------------------------------------------------------- geometry errors


def test_unreachable_positions_raise_naming_alpha_and_x_D(pump):
    with pytest.raises(GeometryError, match=r"alpha = 0\.3 rad, x_D = 1\.5 m.*cannot close|cannot close.*alpha = 0\.3 rad, x_D = 1\.5 m"):
        pump.points(0.3, 1.5)
    with pytest.raises(ValueError):  # GeometryError is a ValueError
        pump.points(0.3, -2.0)


def test_dead_point_raises(pump):
    p = pump.params
    # |BD| = l2 + h: the circles touch, lever and rocker arm are aligned
    x = math.sqrt((p.l2 + p.h) ** 2 * (1 - 1e-15) - (p.e - 0.0) ** 2) + p.l1
    with pytest.raises(GeometryError, match="dead point|cannot close"):
        pump.points(0.0, x)
    x = math.sqrt((p.l2 + p.h) ** 2 * (1 - 1e-13) - p.e**2) + p.l1
    with pytest.raises(GeometryError, match=r"dead point.*transmission angle"):
        pump.points(0.0, x)


def test_motion_leaving_the_assembly_region_raises_with_time(pump):
    soft = pump.replace(k=0.0, c_D=0.0, F_r=0.0)
    with pytest.raises(GeometryError, match=r"at t = .* s .*x_D"):
        soft.solve(rpm=140, revolutions=2, xdot_D=3.0)
    with pytest.raises(GeometryError, match="initial state"):
        pump.solve(x_D=1.5)


# ---------------------------------------------------------------- parameters and files


@pytest.mark.parametrize("name", ["l1", "l2", "h", "A2", "rho2", "E2", "I2", "v_F"])
@pytest.mark.parametrize("value", [0.0, -1.0, math.nan, math.inf])
def test_invalid_values_raise_naming_them(name, value):
    with pytest.raises(ValueError, match=name):
        WindPump(**{name: value})


@pytest.mark.parametrize("name", ["m1", "J1", "m3", "J3", "M3", "m_D", "k", "F_r", "c_D", "g", "hg", "L"])
def test_negative_masses_and_loads_raise(name):
    with pytest.raises(ValueError, match=f"{name} = -1 must be >= 0"):
        WindPump(**{name: -1.0})


def test_bad_branch_names_and_types():
    with pytest.raises(ValueError, match="branch = 0 must be"):
        WindPump(branch=0)
    with pytest.raises(TypeError, match="branch"):
        WindPump(branch=0.5)
    with pytest.raises(ValueError, match="unknown wind-pump parameter.*'l3'"):
        WindPump(l3=1.0)
    with pytest.raises(TypeError, match="M3"):
        WindPump(M3="heavy")


def test_toml_round_trip_and_errors(tmp_path):
    pump = WindPump(M3=6.5, psi=3.0, branch=-1, x_D0=0.52)
    path = pump.to_toml(tmp_path / "pump.toml")
    back = WindPump.from_toml(path)
    assert back.params == pump.params  # repr() of floats round-trips exactly
    flat = tmp_path / "flat.toml"
    flat.write_text("l2 = 0.65\nk = 2500\n[rocker]\nM3 = 4\n")
    p = WindPump.from_toml(flat).params
    assert (p.l2, p.k, p.M3, p.l1) == (0.65, 2500.0, 4.0, REF.l1)
    bad = tmp_path / "bad.toml"
    for text, pattern in [
        ("[wheel]\nr = 1\n", r"unknown table \[wheel\]"),
        ("[crank]\nl2 = 1\n", r"\[crank\] has no parameter 'l2'"),
        ("[crank]\nl1 = -0.1\n", r"bad.toml: l1 = -0.1 must be positive"),
        ("l1 = \n", "not valid TOML"),
        ("zeta = 1\n", "unknown wind-pump parameter"),
    ]:
        bad.write_text(text)
        with pytest.raises(ValueError, match=pattern):
            WindPump.from_toml(bad)


# ---------------------------------------------------------------- rigid dynamics


def _energy(pump, m):
    """Kinetic + potential energy of the mechanism, from positions and velocities."""
    p = pump.params
    k = pump.kinematics(m.alpha, m.x_D, m.omega1, m.xdot_D)
    m2 = p.rho2 * p.A2 * p.l2
    mass = np.array([p.m1, p.m1, p.J1, m2, m2, m2 * p.l2**2 / 12, p.m3, p.m3, p.J3, p.M3, p.M3, p.m_D])
    T = 0.5 * (k["v"] ** 2) @ mass
    V = p.g * k["r"][:, [1, 4, 7, 10]] @ mass[[1, 4, 7, 10]] + 0.5 * p.k * (m.x_D - p.x_D0) ** 2
    return T + V


def test_energy_is_conserved_without_friction_and_motor():
    """Motor off (torque 0), no friction, no pump load: T + V is constant, and its drift
    shrinks with the integrator's tolerance (the error is the integrator's, not the model's)."""
    pump = WindPump(F_r=0.0, c_D=0.0)
    t = np.linspace(0.0, 3.0, 31)  # few outputs: the steps are set by the tolerance
    drift = {}
    for rtol in (1e-9, 1e-11):
        m = pump.solve(drive="torque", torque=0.0, t=t, alpha0=0.5, omega1=3.0, x_D=0.6,
                       rtol=rtol, atol=rtol * 1e-2)
        E = _energy(pump, m)
        drift[rtol] = np.abs(E - E[0]).max() / abs(E[0])
        assert np.ptp(m.x_D) > 0.05 and np.ptp(m.alpha) > 3.0  # it really moves
        # measured: about 3 rtol |E| (DP5's error per step is ~rtol of the state)
        assert drift[rtol] < 30 * rtol, (rtol, drift[rtol])
    # fifth order: 100x tighter tolerance, 100x smaller drift (measured 101x)
    assert 30 < drift[1e-9] / drift[1e-11] < 300


def _simpson(y, t):
    n = (y.size - 1) // 2 * 2
    hh = t[1] - t[0]
    s = y[0] + y[n] + 4 * y[1:n:2].sum() + 2 * y[2:n - 1:2].sum()
    return hh / 3 * s


def test_energy_balance_with_friction_pump_load_and_motor():
    """E(t) - E(0) = int (M_m omega1 - F_r tanh(v / v_F) v - c_D v^2) dt."""
    pump = WindPump(v_F=0.02)  # a wider friction band keeps the integrand smooth
    law = lambda t, a, w: 4.0 + 2.0 * math.sin(a) - 0.1 * w  # noqa: E731
    t = np.linspace(0.0, 1.5, 30001)
    m = pump.solve(drive="torque", torque=law, t=t, omega1=10.0, rtol=1e-11, atol=1e-13)
    p = pump.params
    v = m.xdot_D
    power = m.motor_torque * m.omega1 - p.F_r * np.tanh(v / p.v_F) * v - p.c_D * v**2
    E = _energy(pump, m)
    work = _simpson(power, t)
    # Simpson on 3e4 intervals: error ~ h^4 max|P''''| ~ 1e-13 relative; the integrator 1e-8
    assert abs((E[-1] - E[0]) - work) < 1e-7 * np.abs(power).max() * t[-1]
    assert abs(work) > 1.0  # the balance is not trivially zero


def test_motor_torque_law_reappears_in_the_joint_forces(pump):
    law = lambda t, a, w: 6.0 - 0.3 * (w - 14.0)  # noqa: E731
    m = pump.solve(drive="torque", torque=law, revolutions=2, omega1=14.0)
    f = pump.joint_forces(m)
    expected = 6.0 - 0.3 * (m.omega1 - 14.0)
    assert np.abs(m.motor_torque - expected).max() < 1e-14 * 6
    # Newton-Euler (LU of the 11 x 11 system) against the law: round-off of forces ~1e2 N
    assert np.abs(f.motor_torque - expected).max() < 1e-11
    assert np.abs(f.slider_residual).max() < 1e-10


def test_constant_speed_drive_is_exact_and_kane_torque_matches_newton_euler(pump):
    m = pump.solve(rpm=120, revolutions=1.5)
    w = 120 * 2 * math.pi / 60
    assert np.all(m.omega1 == w) and np.all(m.eps1 == 0.0)
    assert np.allclose(m.alpha, w * m.t, rtol=0, atol=1e-14 * 20)
    f = pump.joint_forces(m)
    # two routes to the motor torque: Kane's projection along omega1 and the crank's
    # moment equation of the Newton-Euler system (torques ~ 10 N m, round-off 1e-13)
    assert np.abs(f.motor_torque - m.motor_torque).max() < 1e-11
    assert np.abs(f.slider_residual).max() < 1e-10


def test_steady_state_is_periodic(pump):
    w = 140 * 2 * math.pi / 60
    T = 2 * math.pi / w
    m = pump.solve(rpm=140, t=np.linspace(0, 3 * T, 7), steady_state=True)
    # shooting to 1e-9 l1 and an integration at rtol 1e-9: periodic to ~1e-9 m
    assert abs(m.x_D[2] - m.x_D[0]) < 1e-8 and abs(m.x_D[6] - m.x_D[0]) < 1e-8
    assert abs(m.xdot_D[6] - m.xdot_D[0]) < 1e-7
    assert np.all(np.abs(m.stats["floquet_multipliers"]) < 1)  # damped: the cycle attracts


# ---------------------------------------------------------------- joint forces


def _newton_euler_residuals(pump, m, f):
    """The bodies' Newton-Euler equations, accelerations rebuilt from the motion's
    angles and rates by a_P = a_O + eps J rho - omega^2 rho (not from A and B)."""
    p = pump.params
    g = np.array([0.0, -p.g])
    J = lambda v: np.stack([-v[..., 1], v[..., 0]], axis=-1)  # noqa: E731

    def acc(aO, rho, ang, om, ep):
        r = rho * e(ang)
        return aO + ep[:, None] * J(r) - (om**2)[:, None] * r, r

    aA = np.zeros((m.t.size, 2))
    a1, r1 = acc(aA, p.a1 * p.l1, m.alpha, m.omega1, m.eps1)
    aB, rB = acc(aA, p.l1, m.alpha, m.omega1, m.eps1)
    a2, r2 = acc(aB, p.l2 / 2, m.theta2, m.omega2, m.eps2)
    aD = np.column_stack([m.xddot_D, np.zeros_like(m.t)])
    a3, r3 = acc(aD, p.hg, m.theta3 + p.xi, m.omega3, m.eps3)
    aG, rG = acc(aD, p.L, m.theta3, m.omega3, m.eps3)
    cB = p.l2 * e(m.theta2)  # C' - B
    cD = p.h * e(m.theta3 + p.psi)  # C' - D
    m2 = p.rho2 * p.A2 * p.l2
    J2 = m2 * p.l2**2 / 12
    v = m.xdot_D
    Q_slider = -p.k * (m.x_D - p.x_D0) - p.F_r * np.tanh(v / p.v_F) - p.c_D * v
    res = {}
    # crank, moments about its mass centre
    res["crank F"] = f.F_A - f.F_B + p.m1 * g - p.m1 * a1
    res["crank M"] = f.motor_torque + cross(-r1, f.F_A) + cross(rB - r1, -f.F_B) - p.J1 * m.eps1
    # lever, moments about its mass centre
    res["lever F"] = f.F_B - f.F_C + m2 * g - m2 * a2
    res["lever M"] = cross(-r2, f.F_B) + cross(cB - r2, -f.F_C) - J2 * m.eps2
    # rocker + weight, moments about C'
    res["rocker F"] = f.F_C - f.F_D + (p.m3 + p.M3) * g - p.m3 * a3 - p.M3 * aG
    res["rocker M"] = (cross(-cD, -f.F_D) + cross(r3 - cD, p.m3 * (g - a3)) + cross(rG - cD, p.M3 * (g - aG))
                       - p.J3 * m.eps3)
    res["slider x"] = f.F_D[:, 0] + f.slider_residual + Q_slider - p.m_D * m.xddot_D
    res["slider y"] = f.F_D[:, 1] + f.N_guide - p.m_D * p.g
    return res


@pytest.mark.parametrize("drive", ["steady", "torque"])
def test_joint_forces_satisfy_each_bodys_newton_euler_equations(pump, steady, drive):
    if drive == "steady":
        m = steady
    else:
        m = pump.solve(drive="torque", torque=lambda t, a, w: 5.0 + math.cos(a), revolutions=1.5)
    f = pump.joint_forces(m)
    scale = max(np.abs(f.F_A).max(), np.abs(f.F_D).max())
    for name, r in _newton_euler_residuals(pump, m, f).items():
        # round-off of an LU solve of forces ~1e2 N (measured < 5e-16 of the largest)
        assert np.abs(r).max() < 1e-13 * scale, (name, np.abs(r).max())


def test_lever_axial_force_balances_at_both_ends(pump, steady):
    f = pump.joint_forces(steady)
    c = f.lever_axial
    e2 = e(steady.theta2)
    N_B = -np.sum(f.F_B * e2, axis=1)  # compression when the crank pushes along B->C'
    l2 = pump.params.l2
    N_C = c[:, 0] + c[:, 1] * l2 + c[:, 2] * l2**2
    assert np.array_equal(c[:, 0], N_B)
    # the other end: the rocker pulls the lever with -F_C; Newton for the lever's axis
    assert np.abs(N_C - (-np.sum(f.F_C * e2, axis=1))).max() < 1e-12 * np.abs(N_B).max()


def test_lever_axial_force_is_the_quasi_static_one_of_the_core(pump, steady):
    """Two routes to N(x): the mechanism's (joint forces and axial inertia) and the lever
    body's quasi-static axial equilibrium under the same end forces (free-free)."""
    f = pump.joint_forces(steady)
    beam = pump.lever(10)
    e2 = e(steady.theta2)
    ends = np.column_stack([np.sum(f.F_B * e2, axis=1), -np.sum(f.F_C * e2, axis=1)])
    for i in range(0, 360, 30):
        c = beam.axial_force(omega=steady.omega2[i], eps=steady.eps2[i], a_O=steady.lever_frame["a"][i, :2],
                             supports="free-free", end_forces=tuple(ends[i]))
        assert np.abs(c - f.lever_axial[i]).max() < 1e-12 * np.abs(f.lever_axial[i]).max()


def test_lever_geometric_stiffness(pump, steady):
    sl = pytest.importorskip("scipy.linalg")
    r = pump.lever_eigenvalues(steady, n_modes=2, include_eps=False, geometric_stiffness=True)
    plain = pump.lever_eigenvalues(steady, n_modes=2, include_eps=False)
    assert r.options["geometric_stiffness"] and r.axial_force.shape == (360, 3)
    beam = pump.lever(10)
    free = ~beam.support_mask("pinned-pinned")
    ix = np.ix_(free, free)
    M, K = beam.mass_matrix()[ix], beam.stiffness_matrix()[ix]
    for i in range(0, 360, 40):
        KG = beam.geometric_stiffness(r.axial_force[i])[ix]
        lam = sl.eigh(K + KG - steady.omega2[i] ** 2 * M, M, eigvals_only=True)[:2]
        assert np.abs(r.eigenvalues[i] - lam).max() < 1e-10 * lam[-1]  # two dense solvers: 4e-12
    # tension stiffens, compression softens: the change follows the mean axial force
    # (N / N_Euler ~ 1 %, so first order in N: Delta lambda_1 / lambda_1 ~ N_mean / N_Euler)
    p = pump.params
    N_euler = math.pi**2 * p.E2 * p.I2 / p.l2**2
    c = r.axial_force
    N_mean = c[:, 0] + c[:, 1] * p.l2 / 2 + c[:, 2] * p.l2**2 / 3
    rel = r.eigenvalues[:, 0] / plain.eigenvalues[:, 0] - 1
    assert np.ptp(rel) > 5e-3  # visible over the cycle
    # second order in N / N_Euler and the difference between phi_1 and sin(pi x / l):
    # measured 7e-4 of the largest change
    assert np.abs(rel - N_mean / N_euler).max() < 5e-3 * np.abs(N_mean / N_euler).max()
    g = pump.lever_eigenvalues(steady, n_modes=2, include_eps=False, geometric_stiffness=True,
                               gyroscopic=True)
    assert np.abs(g.eigenvalues / r.eigenvalues - 1).max() < 1e-6  # Coriolis: tiny, as above


# ---------------------------------------------------------------- recorded motions


def test_recorded_motion_reproduces_the_simulated_one(pump):
    # a smooth motion (wide friction band): a spline through 1 ms samples cannot follow the
    # sub-millisecond force reversal of v_F = 1 mm/s, and the test is about the spline route
    pump = pump.replace(v_F=0.05)
    t = np.linspace(0, 0.6, 601)
    ref = pump.solve(drive="torque", torque=lambda t, a, w: 6.0, t=t, omega1=12.0)
    rec = pump.solve(drive="recorded", samples=(t, ref.alpha, ref.x_D), noise=0.0)
    inner = slice(50, -50)  # natural end conditions of the spline disturb the ends
    # cubic interpolation at h = 1 ms: second derivatives to ~h^2 f'''' / 12 ~ 1e-4 of their size
    assert np.abs(rec.eps1 - ref.eps1)[inner].max() < 1e-3 * np.abs(ref.eps1).max()
    assert np.abs(rec.xddot_D - ref.xddot_D)[inner].max() < 1e-3 * np.abs(ref.xddot_D).max()
    f_ref, f_rec = pump.joint_forces(ref), pump.joint_forces(rec)
    assert np.abs(f_rec.F_B - f_ref.F_B)[inner].max() < 1e-3 * np.abs(f_ref.F_B).max()
    assert np.abs(rec.motor_torque - 6.0)[inner].max() < 1e-2
    # what the slider lacks: the spline's error times the slider's mass, ~1e-3 of the forces
    assert np.abs(f_rec.slider_residual[inner]).max() < 1e-3 * np.abs(f_ref.F_D).max()


def test_recorded_noisy_samples_are_smoothed(pump):
    rng = np.random.default_rng(7)
    t = np.linspace(0, 0.8, 1601)
    ref = pump.solve(rpm=140, t=t, steady_state=True)
    sa, sx = 2e-4, 2e-5  # optical measurement: 0.01 deg, 0.02 mm
    rec = pump.solve(drive="recorded", samples=np.column_stack(
        [t, ref.alpha + sa * rng.normal(size=t.size), ref.x_D + sx * rng.normal(size=t.size)]))
    est_a, est_x = rec.stats["noise"]
    assert 0.8 < est_a / sa < 1.2 and 0.8 < est_x / sx < 1.2  # a 1600-sample estimate: +-5 %
    inner = slice(100, -100)
    # smoothing keeps the velocities to a few percent of their range
    assert np.abs(rec.xdot_D - ref.xdot_D)[inner].max() < 0.03 * np.ptp(ref.xdot_D)
    assert np.abs(rec.omega1 - ref.omega1)[inner].max() < 0.01 * ref.omega1[0]


def test_recorded_input_errors(pump):
    with pytest.raises(ValueError, match="needs samples"):
        pump.solve(drive="recorded")
    with pytest.raises(ValueError, match="strictly increasing"):
        pump.solve(drive="recorded", samples=([0, 1, 1, 2], [0, 1, 2, 3], [0.5] * 4))
    with pytest.raises(ValueError, match="shape"):
        pump.solve(drive="recorded", samples=np.zeros((5, 2)))
    with pytest.raises(ValueError, match="torque is only used with drive='torque'"):
        pump.solve(torque=1.0)
    with pytest.raises(ValueError, match="drive = 'electric'"):
        pump.solve(drive="electric")
    with pytest.raises(ValueError, match="rpm must be positive"):
        pump.solve(rpm=0.0)
    with pytest.raises(ValueError, match="needs torque"):
        pump.solve(drive="torque")


# ---------------------------------------------------------------- the lever


def test_lever_eigenvalues_shift_identity(pump, steady):
    """With K_eps and K_G off: lambda_k(t) = lambda_k(at rest) - omega2(t)^2."""
    r = pump.lever_eigenvalues(steady, n_modes=3, include_eps=False)
    rest = pump.lever(10).eigenvalues(3, supports="pinned-pinned").eigenvalues
    expect = rest[None, :] - steady.omega2[:, None] ** 2
    assert r.solver == "symmetric"
    assert np.abs(r.eigenvalues - expect).max() < 1e-12 * rest[-1]  # a pure shift, round-off
    # and the same from scratch: the lever's dense matrices and a generalized eigen solver
    sl = pytest.importorskip("scipy.linalg")
    beam = pump.lever(10)
    free = ~beam.support_mask("pinned-pinned")
    M = beam.mass_matrix()[np.ix_(free, free)]
    K = beam.stiffness_matrix()[np.ix_(free, free)]
    for i in range(0, 360, 45):
        lam = sl.eigh(K - steady.omega2[i] ** 2 * M, M, eigvals_only=True)[:3]
        assert np.abs(r.eigenvalues[i] - lam).max() < 1e-9 * lam[-1]  # two dense solvers
    assert r.eigenvalues.shape == (360, 3) and r.frequencies_hz.shape == (360, 3)
    # K_eps changes them, slightly (eps2 ~ 30 rad/s^2 against lambda_1 ~ 1.7e5)
    r_eps = pump.lever_eigenvalues(steady, n_modes=3)
    assert r_eps.solver == "general"
    d = np.abs(r_eps.eigenvalues - r.eigenvalues).max(axis=0)
    assert np.all(d > 0) and np.all(d < 1e-4 * rest)


def test_lever_eigenvalues_with_k_eps_are_continued_and_equal_dense_eig(pump, steady):
    """The K_eps turn (the wind-pump benchmark's general path) is certified at every instant
    by Rayleigh-Ritz on the predicted basis (Gram-Schmidt basis, inverse-iteration Ritz
    vectors; docs/theory.md section 3.7), with no subspace step and no full solve, and its
    eigenvalues are those of a dense nonsymmetric solver on the lever's matrices."""
    sl = pytest.importorskip("scipy.linalg")
    r = pump.lever_eigenvalues(steady, n_modes=2, geometric_stiffness=False)
    assert r.solver == "general"
    assert r.stats["continued"] == 360 and r.stats["full_solves"] == 0 and r.stats["iterations"] == 0
    beam = pump.lever(10)
    free = ~beam.support_mask("pinned-pinned")
    M = beam.mass_matrix()[np.ix_(free, free)]
    K = beam.stiffness_matrix()[np.ix_(free, free)]
    G = beam.combination([[0.0, -1.0], [1.0, 0.0]])[np.ix_(free, free)]  # K_eps / eps = S_yx - S_xy
    for i in range(0, 360, 40):
        lam = sl.eig(K - steady.omega2[i] ** 2 * M + steady.eps2[i] * G, M, right=False)
        lam = np.sort(lam.real)[:2]
        # the certificate's residual 1e-8 gives eigenvalues to round-off (res^2 / gap; 4e-12
        # measured); K_eps itself moves them only ~1e-11 here (eps2 ~ 30 rad/s^2, second order),
        # so this checks the solver's path and accuracy (the shift-identity test that K_eps acts)
        assert np.abs(r.eigenvalues[i] - lam).max() < 1e-9 * lam[-1]


def test_lever_frequencies_match_the_pinned_beam(pump, steady):
    p = pump.params
    r = pump.lever_eigenvalues(steady, n_modes=1, n_elements=40, include_eps=False)
    f1 = math.pi / (2 * p.l2**2) * math.sqrt(p.E2 * p.I2 / (p.rho2 * p.A2))
    # 40 elements: h^4 convergence, ~1e-8; omega2^2 / lambda_1 ~ 3e-5 shifts the rest
    assert np.abs(r.frequencies_hz[:, 0] / f1 - 1).max() < 5e-5


def test_gyroscopic_eigenvalues(pump, steady):
    g = pump.lever_eigenvalues(steady, n_modes=2, gyroscopic=True, include_eps=False)
    assert g.solver == "gyroscopic" and g.s.shape == (360, 2)
    # undamped and stable: s on the imaginary axis (dgeev round-off of a 2n = 62 matrix)
    assert np.abs(g.s.real).max() < 1e-9 * np.abs(g.s).max()
    plain = pump.lever_eigenvalues(steady, n_modes=2, include_eps=False)
    # the Coriolis coupling of the lever's slow rotation (|omega2| < 3 rad/s against
    # omega_1 = 409 rad/s) moves them very little: measured 3e-8
    assert np.abs(g.eigenvalues / plain.eigenvalues - 1).max() < 1e-6
    with pytest.raises(ValueError, match="tracked"):
        pump.lever_eigenvalues(steady, gyroscopic=True, order="tracked")


def test_gyroscopic_against_scipy_first_order_form():
    sl = pytest.importorskip("scipy.linalg")
    beam = kanefem.PlanarBeam(0.6, 6, E=210e9, A=2e-4, I=1.67e-9, rho=7850)
    om, ep = 60.0, 900.0  # fast enough for the Coriolis term to matter
    r = beam.gyroscopic_eigenvalues([0.0, om], [0.0, ep], 4)
    lam0 = beam.eigenvalues(4).eigenvalues
    assert np.abs(r.s[0] ** 2 + lam0).max() < 1e-9 * lam0.max()  # no rotation: s^2 = -lambda
    free = ~beam.support_mask("pinned-pinned")
    terms = beam.motion_terms(om, ep)
    M = beam.mass_matrix()[np.ix_(free, free)]
    C = terms.C[np.ix_(free, free)]
    K = (beam.stiffness_matrix() + terms.K_om + terms.K_eps)[np.ix_(free, free)]
    n = M.shape[0]
    Z = np.block([[np.zeros((n, n)), np.eye(n)], [-np.linalg.solve(M, K), -np.linalg.solve(M, C)]])
    s = sl.eigvals(Z)
    s = s[s.imag >= 0]
    s = s[np.argsort(np.abs(s))][:4]
    assert np.abs(r.s[1] - s).max() < 1e-11 * np.abs(s).max()  # two dgeev routes: measured 1e-14


def test_lever_eigenvalue_errors(pump, steady):
    with pytest.raises(TypeError, match="WindPumpMotion"):
        pump.lever_eigenvalues({"t": [0.0]})
    with pytest.raises(ValueError, match="other wind-pump parameters"):
        pump.replace(M3=7.0).lever_eigenvalues(steady)
    with pytest.raises(ValueError, match="n_modes"):
        pump.lever_eigenvalues(steady, n_modes=100)


# ---------------------------------------------------------------- command line


def test_command_line_writes_its_tables(tmp_path, capsys):
    from kanefem.__main__ import main

    out = tmp_path / "out"
    assert main(["windpump", "--out", str(out), "--revolutions", "0.5", "--modes", "3", "--no-plots"]) == 0
    text = capsys.readouterr().out
    assert "mode 3" in text and "solver general" in text
    eig = np.loadtxt(out / "lever_eigenvalues.csv", delimiter=",", skiprows=1)
    forces = np.loadtxt(out / "joint_forces.csv", delimiter=",", skiprows=1)
    motion = np.loadtxt(out / "motion.csv", delimiter=",", skiprows=1)
    assert eig.shape == (180, 7) and forces.shape[0] == 180 and motion.shape[0] == 180
    assert WindPump.from_toml(out / "windpump.toml").params == REF
    # the CSV holds what the API computes
    pump = WindPump()
    m = pump.solve(revolutions=0.5, steady_state=True)
    assert np.allclose(eig[:, 1:4], pump.lever_eigenvalues(m, n_modes=3).eigenvalues, rtol=1e-12)


def test_command_line_plots_and_config(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from kanefem.__main__ import main

    cfg = WindPump(M3=4.0).to_toml(tmp_path / "cfg.toml")
    out = tmp_path / "out"
    assert main(["windpump", "--out", str(out), "--config", str(cfg), "--revolutions", "0.25",
                 "--no-eps", "--rpm", "120", "--points", "100"]) == 0
    for name in ("motion.png", "joint_forces.png", "lever_eigenvalues.png"):
        assert (out / name).stat().st_size > 1000
    assert WindPump.from_toml(out / "windpump.toml").params.M3 == 4.0
    assert "solver symmetric" in capsys.readouterr().out
    assert main(["windpump", "--out", str(out), "--revolutions", "0.1", "--geometric-stiffness",
                 "--gyroscopic", "--no-plots"]) == 0
    header = (out / "lever_eigenvalues.csv").read_text().splitlines()[0]
    assert "s1_im_rad_s" in header and "solver gyroscopic" in capsys.readouterr().out
    assert main(["windpump", "--out", str(out), "--revolutions", "1", "--response", "--no-plots"]) == 0
    table = np.loadtxt(out / "lever_response.csv", delimiter=",", skiprows=1)
    # quasi-static response (see test_lever_response_follows_the_quasi_static_deflection)
    assert np.max(np.abs(table[:, 1] - table[:, 2])) < 0.03 * np.ptp(table[:, 2])


def test_command_line_help_and_errors(capsys, tmp_path):
    from kanefem.__main__ import main

    with pytest.raises(SystemExit):
        main(["windpump", "--help"])
    text = capsys.readouterr().out
    for option in ("--rpm", "--revolutions", "--points", "--elements", "--modes", "--no-eps",
                   "--geometric-stiffness", "--gyroscopic", "--transient", "--config", "--out",
                   "--no-plots"):
        assert option in text, option
    with pytest.raises(SystemExit) as exc:
        main(["windpump", "--config", str(tmp_path / "missing.toml"), "--out", str(tmp_path)])
    assert exc.value.code == 2 and "No such file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["windpump", "--rpm", "-5", "--out", str(tmp_path)])
    assert "rpm must be positive" in capsys.readouterr().err


# ---------------------------------------------------------------- the binding


def test_binding_does_not_leak():
    import gc
    import sys
    import tracemalloc

    from kanefem import _core

    pump = WindPump()
    mech = pump._mechanism._core  # the wind pump's calls into the core go through the mechanism's
    t = np.linspace(0, 0.05, 40)
    beam = pump.lever(4)

    def simulate(mode, speed, law, zd0):
        drives = _records.drives([dict(mode=mode, speed=speed), dict(mode="free")])
        return _core.mech_simulate(mech, drives, [law, None], np.array([0.0, 0.55]), np.array(zd0), t)

    def work():
        st = simulate(1, 14.0, None, [14.0, 0.0])["states"]
        simulate(0, 0.0, lambda *a: 3.0, [10.0, 0.0])
        _core.mech_joint_forces(mech, st[:, :6])
        _core.mech_kinematics(mech, st[:, :2], st[:, 2:4], st[:, 4:6])
        beam.gyroscopic_eigenvalues(st[:, 2] * 0.1, st[:, 4], 2)
        for bad in (lambda: _core.mech_kinematics(mech, [[0.0, 2.0]], [[0, 0]], [[0, 0]]),
                    lambda: simulate(0, 0.0, lambda *a: 1 / 0, [0.0, 0.0])):
            try:
                bad()
            except (ValueError, ZeroDivisionError):
                pass

    for _ in range(10):
        work()
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(200):
        work()
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    # one leaked (40, 7) state array per call would be 200 * 2240 bytes = 448 kB
    assert grown < 100_000, grown
    st, stats = simulate(1, 14.0, None, [14.0, 0.0]).values()
    assert sys.getrefcount(st) == 2 and sys.getrefcount(stats) == 2  # owned once


def test_torque_law_errors_propagate():
    pump = WindPump()
    with pytest.raises(ZeroDivisionError):
        pump.solve(drive="torque", torque=lambda t, a, w: 1 / 0)
    with pytest.raises(TypeError):
        pump.solve(drive="torque", torque=lambda t, a, w: "strong")
    with pytest.raises(ValueError, match="torque law returned nan"):
        pump.solve(drive="torque", torque=lambda t, a, w: math.nan)


# ---------------------------------------------------------------- the lever in time

@pytest.fixture(scope="module")
def steady_two_turns():
    pump = kanefem.WindPump()
    return pump, pump.solve(rpm=140, revolutions=2, steady_state=True)


def test_lever_response_follows_the_quasi_static_deflection(steady_two_turns):
    """At 140 rpm the crank's harmonics (2.3 Hz and multiples) are far below the lever's
    first mode (65 Hz): the response is quasi-static up to a dynamic amplification of
    order (f/f_1)^2 ~ 1e-3 per harmonic, plus what the discrete start leaves; measured
    1.1 % of the quasi-static range at midspan, bounded here by 3 %."""
    pump, m = steady_two_turns
    r = pump.lever_response(m)
    np.testing.assert_array_equal(r.t, m.t)
    beam = pump.lever(10)
    qs = np.array([pump.lever_quasi_static(row, n_elements=beam.n_elements) for row in m.lever_frame])
    mid = 5 * 3 + 1  # v at the middle node
    span = np.ptp(qs[:, mid])
    assert span > 1e-5  # the lever does bend (0.15 mm range)
    assert np.max(np.abs(r.d[:, mid] - qs[:, mid])) < 0.03 * span
    fixed = beam.support_mask("pinned-pinned")
    assert np.all(r.d[:, fixed] == 0)


def test_lever_response_integrators_agree(steady_two_turns):
    """Newmark and generalized-alpha at the same step: both second order, agreeing to a
    small fraction of the deflection (measured 2e-3 of the range)."""
    pump, m = steady_two_turns
    a = pump.lever_response(m, method="newmark")
    b = pump.lever_response(m, method="generalized-alpha")
    mid = 5 * 3 + 1
    assert np.max(np.abs(a.d[:, mid] - b.d[:, mid])) < 0.02 * np.ptp(a.d[:, mid])


def test_lever_response_from_rest_and_bad_input(steady_two_turns):
    pump, m = steady_two_turns
    r = pump.lever_response(m, initial="rest")
    assert np.all(r.d[0] == 0) and np.all(r.v[0] == 0)
    with pytest.raises(ValueError, match="initial"):
        pump.lever_response(m, initial="static")
    with pytest.raises(TypeError, match="WindPumpMotion"):
        pump.lever_response(object())


def test_the_pumps_results_are_views_of_the_general_mechanism_results(pump):
    """WindPump is a preset of Mechanism: its motion, forces and lever eigenvalues are the
    general results, its named quantities read their coordinates, bodies and joints (one
    table, kanefem.windpump.VIEWS), so they equal what the general accessors give, exactly."""
    from kanefem.mechanism import LinkEigenvalues, MechanismForces, MechanismMotion
    from kanefem.windpump import VIEWS

    m = pump.solve(rpm=140, revolutions=0.05)
    f = pump.joint_forces(m)
    assert isinstance(m, MechanismMotion) and isinstance(f, MechanismForces)
    assert isinstance(pump.lever_eigenvalues(m, n_elements=4), LinkEigenvalues)
    assert m.mechanism is pump.mechanism() and f.mechanism is pump.mechanism()
    z, zd, zdd = m.coordinate("x_D")
    np.testing.assert_array_equal(m.x_D, z)
    np.testing.assert_array_equal(m.xddot_D, zdd)
    np.testing.assert_array_equal(m.omega1, m.coordinate("alpha")[1])
    np.testing.assert_array_equal(m.theta3, m.body("rocker")[0][:, 2])
    np.testing.assert_array_equal(m.points["C"], m.point("lever", pump.mechanism().link("lever").end))
    np.testing.assert_array_equal(f.F_C, f.joint("C")[0])
    np.testing.assert_array_equal(f.lever_axial, f.link_axial["lever"])
    assert set(VIEWS["motion"]) <= set(m.to_dict()) and "F_A" in f.to_dict()
