"""Planar mechanisms with elastic links (docs/theory.md section 5; issue 11).

Every check compares independent routes: Kane's projection in absolute coordinates (the
C core) against Lagrange's equations with multipliers in relative coordinates derived by
SymPy; the joint forces against each body's Newton-Euler equations; energy against the
work of the forces; the two-way coupling against a general multibody code (Exudyn's
absolute-nodal-coordinate cables), against the one-way equations where the rigid motion
is prescribed, and against its own rigid limit.
"""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import kanefem
from kanefem import GeometryError, _records, mechanism as M
from kanefem.mechanism import (ConstantSpeed, Coordinate, ElasticLink, Mechanism, Path as ZPath,
                               Prismatic, Revolute, RigidBody, Spring, Torque, Weld)

sp = pytest.importorskip("sympy")
ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- an independent derivation

def lagrange(q, points, angles, V, constraints, Q, params=()):
    """Lagrange's equations with multipliers, derived by SymPy in the coordinates q:

        M(q) q'' + h(q, q') = Q + Phi_q^T lambda,   Phi(q) = 0,

    T = 1/2 sum m |r'|^2 + 1/2 sum J phi'^2 for points [(m, r(q))] and angles
    [(J, phi(q))], V(q) the potential, Q(q, q') the other generalized forces (SymPy, in q,
    the rates qdot[i] = Symbol(f"v{i}") and the symbols params).  Returns accel(qv, qdv,
    pv) -> q'' (NumPy), by the multiplier system with the constraints' second
    derivative, and the constraints' Jacobian as a function (for the dependent rates)."""
    t = sp.Symbol("t")
    qs = [sp.Function(f"q{i}")(t) for i in range(len(q))]
    sub = dict(zip(q, qs))
    T = 0
    for m, r in points:
        rt = [sp.diff(c.subs(sub), t) for c in r]
        T += m * sum(c**2 for c in rt) / 2
    for J, phi in angles:
        T += J * sp.diff(phi.subs(sub), t) ** 2 / 2
    L = T - V.subs(sub)
    qd = [sp.diff(x, t) for x in qs]
    qdd = [sp.diff(x, t, 2) for x in qs]
    eqs = [sp.diff(sp.diff(L, v), t) - sp.diff(L, x) for x, v in zip(qs, qd)]
    Mm = sp.Matrix([[sp.diff(e, a) for a in qdd] for e in eqs])
    h = sp.Matrix(eqs).subs({a: 0 for a in qdd})
    if constraints:
        Pq = sp.Matrix([c.subs(sub) for c in constraints]).jacobian(qs)
        gam = -(Pq * sp.Matrix(qd)).jacobian(qs) * sp.Matrix(qd)
    else:
        Pq, gam = sp.zeros(0, len(q)), sp.zeros(0, 1)
    sym_q, sym_qd = sp.symbols(f"x0:{len(q)}"), sp.symbols(f"v0:{len(q)}")
    Qv = sp.Matrix([sp.sympify(c).subs(dict(zip(q, sym_q))) for c in Q])
    back = {**dict(zip(qd, sym_qd)), **dict(zip(qs, sym_q))}  # rates first
    args = [sym_q, sym_qd, list(params)]
    f = [sp.lambdify(args, sp.Matrix(e).subs(back), "numpy") for e in (Mm, h, Pq, gam, Qv)]

    def accel(qv, qdv, pv=()):
        Mv, hv, Pv, gv, Qn = (np.array(fn(qv, qdv, list(pv)), float) for fn in f)
        Pv = Pv.reshape(-1, len(q))
        n, c = Mv.shape[0], Pv.shape[0]
        K = np.block([[Mv, -Pv.T], [Pv, np.zeros((c, c))]]) if c else Mv
        rhs = np.concatenate([(Qn - hv).ravel(), gv.ravel()]) if c else (Qn - hv).ravel()
        return np.linalg.solve(K, rhs)[:n]

    return accel, (lambda qv: np.array(f[2](qv, np.zeros(len(q)), [0.0] * len(params)), float))


def dependent_rates(jac, qv, free, rates):
    """The full q' from the free coordinates' rates: Phi_q q' = 0."""
    P = jac(qv)
    dep = [i for i in range(len(qv)) if i not in free]
    qd = np.zeros(len(qv))
    qd[free] = rates
    qd[dep] = np.linalg.solve(P[:, dep], -P[:, free] @ np.asarray(rates))
    return qd


def e(a):
    return sp.Matrix([sp.cos(a), sp.sin(a)])


def _bench_module(name):
    """A helper module of bench/ (shared with the benchmarks)."""
    import importlib

    if str(ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(ROOT / "bench"))
    return importlib.import_module(name)


# ---------------------------------------------------------------- examples


def slider_crank_rigid(g=9.81):
    return M.slider_crank(rod=None, crank_mass=0.3, crank_inertia=2e-3, slider_mass=0.25,
                          gravity=(0.0, -g))


def double_pendulum():
    """Two bars in a chain from a ground pivot, drawn horizontal; coordinates: the
    joints' angles (the second relative to the first)."""
    bodies = [RigidBody("upper", 1.2, 1.2 * 0.4**2 / 12, centre=(0.2, 0.0)),
              RigidBody("lower", 0.8, 0.8 * 0.3**2 / 12, centre=(0.55, 0.0))]
    joints = [Revolute("O", ("ground", "upper"), (0.0, 0.0)), Revolute("E", ("upper", "lower"), (0.4, 0.0))]
    return Mechanism(bodies, joints, [Coordinate("shoulder", joint="O"), Coordinate("elbow", joint="E")])


# ---------------------------------------------------------------- kinematics


def test_slider_crank_positions_and_rates_match_the_closed_form():
    m = slider_crank_rigid()
    r, l = 0.15, 0.30
    a = np.linspace(0.0, 4 * math.pi, 401)  # two turns, continued instant by instant
    w, eps = 3.0, -7.0
    k = m.kinematics(a[:, None], np.full((a.size, 1), w), np.full((a.size, 1), eps))
    s, c = np.sin(a), np.cos(a)
    root = np.sqrt(l * l - r * r * s * s)
    x = r * c + root
    dx = -r * s - r * r * s * c / root
    d2 = -r * c - r * r * (c * c - s * s) / root - r**4 * s * s * c * c / root**3
    slider = k["q"][:, 2, 0], k["qd"][:, 2, 0], k["qdd"][:, 2, 0]
    # round-off of lengths ~0.45 m (one ulp 5.6e-17 m); rates scale with w, eps
    assert np.abs(slider[0] - x).max() < 1e-15
    assert np.abs(slider[1] - dx * w).max() < 1e-14
    assert np.abs(slider[2] - (d2 * w * w + dx * eps)).max() < 1e-13
    # the rod's angle keeps its branch (rod to the right of the crank pin)
    assert np.all(np.abs(k["q"][:, 1, 2]) < math.asin(r / l) + 1e-12)


# ---------------------------------------------------------------- dynamics against Lagrange


def test_slider_crank_accelerations_against_lagrange_with_multipliers():
    m = slider_crank_rigid()
    r, l, g = 0.15, 0.30, 9.81
    mc, Jc, mr, ms = 0.3, 2e-3, m.bodies[1].mass, 0.25
    th, be, x = sp.symbols("theta beta x")
    A = r * e(th)
    accel, jac = lagrange(
        [th, be, x],
        points=[(mc, A / 2), (mr, A + l / 2 * e(be)), (ms, sp.Matrix([x, 0]))],
        angles=[(Jc, th), (mr * l**2 / 12, be)],
        V=g * (mc * A[1] / 2 + mr * (A[1] + l / 2 * sp.sin(be))),
        constraints=[r * sp.sin(th) + l * sp.sin(be), r * sp.cos(th) + l * sp.cos(be) - x],
        Q=[sp.Symbol("tau"), 0, 0], params=[sp.Symbol("tau")])
    rng = np.random.default_rng(3)
    for _ in range(6):
        a, w, tau = rng.uniform(-3, 3), rng.uniform(-40, 40), rng.uniform(-2, 2)
        k = m.kinematics([[a]], [[w]])
        qv = np.array([k["q"][0, 0, 2], k["q"][0, 1, 2], k["q"][0, 2, 0]])
        qd = dependent_rates(jac, qv, [0], [w])
        expect = accel(qv, qd, [tau])
        got = m.accelerations([[a]], [[w]], [[tau]])[0, 0]
        # two routes, round-off of terms ~ m r w^2 (~1e2): measured ~1e-13
        assert abs(got - expect[0]) < 1e-10 * (1 + abs(expect[0])), (got, expect[0])



def _four_bar_lagrange(fb):
    a, b, c, d = 0.1, 0.3, 0.25, 0.3
    (m1, m2, m3), g = (b.mass for b in fb.bodies), 9.81
    t1, t2, t3 = sp.symbols("t1 t2 t3")
    A = a * e(t1)
    D = sp.Matrix([d, 0])
    return lagrange(
        [t1, t2, t3],
        points=[(m1, A / 2), (m2, A + b / 2 * e(t2)), (m3, D + c / 2 * e(t3))],
        angles=[(m1 * a * a / 12, t1), (m2 * b * b / 12, t2), (m3 * c * c / 12, t3)],
        V=g * (m1 * A[1] / 2 + m2 * (A[1] + b / 2 * sp.sin(t2)) + m3 * c / 2 * sp.sin(t3)),
        constraints=list(A + b * e(t2) - D - c * e(t3)),
        Q=[sp.Symbol("tau"), 0, 0], params=[sp.Symbol("tau")])


def test_four_bar_accelerations_against_lagrange_with_multipliers():
    fb = M.four_bar()
    accel, jac = _four_bar_lagrange(fb)
    rng = np.random.default_rng(5)
    crank = np.sort(rng.uniform(1.0, 2.6, 8))  # a path: positions are continued along it
    for a in crank:
        w, tau = rng.uniform(-20, 20), rng.uniform(-3, 3)
        k = fb.kinematics([[a]])
        qv = k["q"][0, :, 2]
        # the closure SymPy's constraints state holds at kanefem's position (round-off)
        A = 0.1 * np.array([math.cos(qv[0]), math.sin(qv[0])])
        res = A + 0.3 * np.array([math.cos(qv[1]), math.sin(qv[1])]) - [0.3, 0.0] \
            - 0.25 * np.array([math.cos(qv[2]), math.sin(qv[2])])
        assert np.abs(res).max() < 1e-15
        qd = dependent_rates(jac, qv, [0], [w])
        expect = accel(qv, qd, [tau])[0]
        got = fb.accelerations([[a]], [[w]], [[tau]])[0, 0]
        # round-off of terms ~ m a w^2 ~ 40: measured ~1e-13
        assert abs(got - expect) < 1e-10 * (1 + abs(expect)), (a, got, expect)


def test_double_pendulum_joint_coordinates_against_lagrange():
    """Joint coordinates (the elbow's angle relative to the upper arm) and torques at
    both joints: tau_elbow does work on theta2 - theta1."""
    m = double_pendulum()
    t1, t2 = sp.symbols("t1 t2")
    tau1, tau2 = sp.symbols("tau1 tau2")
    E = 0.4 * e(t1)
    accel, _ = lagrange(
        [t1, t2],
        points=[(1.2, 0.2 * e(t1)), (0.8, E + 0.15 * e(t2))],
        angles=[(1.2 * 0.4**2 / 12, t1), (0.8 * 0.3**2 / 12, t2)],
        V=9.81 * (1.2 * 0.2 * sp.sin(t1) + 0.8 * (E[1] + 0.15 * sp.sin(t2))),
        constraints=[], Q=[tau1 - tau2, tau2], params=[tau1, tau2])
    rng = np.random.default_rng(11)
    z = np.cumsum(rng.uniform(-0.3, 0.3, (6, 2)), axis=0)
    zd = rng.uniform(-5, 5, (6, 2))
    tau = rng.uniform(-2, 2, (6, 2))
    got = m.accelerations(z, zd, tau)
    for i in range(6):
        q = np.array([z[i, 0], z[i, 0] + z[i, 1]])
        qd = np.array([zd[i, 0], zd[i, 0] + zd[i, 1]])
        qdd = accel(q, qd, tau[i])
        expect = [qdd[0], qdd[1] - qdd[0]]
        assert np.abs(got[i] - expect).max() < 1e-11 * (1 + np.abs(expect).max())


def test_windpump_accelerations_against_lagrange_with_multipliers():
    """The wind pump as a general mechanism: Kane's projection in absolute coordinates
    against Lagrange's equations in (alpha, x_D, theta2, theta3) with the loop closure
    as constraints, spring, friction, pump load and a motor torque."""
    pump = kanefem.WindPump(v_F=0.05)
    p = pump.params
    mech = pump.mechanism()
    al, x, th2, th3 = sp.symbols("alpha x th2 th3")
    tau = sp.Symbol("tau")
    B = p.l1 * e(al)
    D = sp.Matrix([x, p.e])
    m2 = p.rho2 * p.A2 * p.l2
    xd = sp.Symbol("v1")  # the rate of x (the helper's naming)
    accel, jac = lagrange(
        [al, x, th2, th3],
        points=[(p.m1, p.a1 * B), (m2, B + p.l2 / 2 * e(th2)), (p.m3, D + p.hg * e(th3 + p.xi)),
                (p.M3, D + p.L * e(th3)), (p.m_D, D)],
        angles=[(p.J1, al), (m2 * p.l2**2 / 12, th2), (p.J3, th3)],
        V=p.g * (p.m1 * p.a1 * B[1] + m2 * (B[1] + p.l2 / 2 * sp.sin(th2))
                 + p.m3 * (p.e + p.hg * sp.sin(th3 + p.xi)) + p.M3 * (p.e + p.L * sp.sin(th3)))
          + p.k * (x - p.x_D0) ** 2 / 2,
        constraints=list(B + p.l2 * e(th2) - D - p.h * e(th3 + p.psi)),
        Q=[tau, -p.F_r * sp.tanh(xd / p.v_F) - p.c_D * xd, 0, 0], params=[tau])
    rng = np.random.default_rng(2)
    for i in range(6):
        z = np.array([0.7 * i, rng.uniform(0.5, 0.6)])
        zd = np.array([rng.uniform(5, 20), rng.uniform(-0.5, 0.5)])
        T = rng.uniform(-5, 5)
        q = mech.kinematics([z])["q"][0]
        qv = np.array([z[0], z[1], q[1, 2], q[2, 2]])
        qd = dependent_rates(jac, qv, [0, 1], zd)
        expect = accel(qv, qd, [T])[:2]
        got = mech.accelerations([z], [zd], [[T, 0.0]])[0]
        # forces ~1e2 N on masses ~1..10 kg: round-off ~1e-12 of the accelerations
        assert np.abs(got - expect).max() < 1e-10 * (1 + np.abs(expect).max()), (got, expect)


def _sprung_four_bar(friction=0.0, damping=0.0):
    """The four-bar with a torsion spring at the coupler-rocker joint, a spring-damper
    from the crank pin to a ground point, and (optionally) a damper and friction at
    the crank's pivot."""
    fb = M.four_bar()
    A = fb.joints[1].at
    joints = [Revolute("O", ("ground", "crank"), (0.0, 0.0), damping=damping, friction=friction, v_F=0.5),
              fb.joints[1], Revolute("B", ("coupler", "rocker"), fb.joints[2].at, k=3.0),
              fb.joints[3]]
    springs = [Spring("S", ("ground", "crank"), ((0.0, 0.25), A), k=150.0, damping=damping)]
    return Mechanism(fb.bodies, joints, fb.coordinates, springs, name="sprung four-bar")


def _energy(mech, motion):
    """Kinetic + potential energy from the bodies' motion and the force elements."""
    g = np.asarray(mech.gravity)
    m = np.array([b.mass for b in mech.bodies])
    J = np.array([b.inertia for b in mech.bodies])
    q, qd = motion.q, motion.qd
    E = 0.5 * np.sum(m * (qd[..., 0] ** 2 + qd[..., 1] ** 2) + J * qd[..., 2] ** 2, axis=1)
    E -= np.sum(m * (q[..., 0] * g[0] + q[..., 1] * g[1]), axis=1)
    for Jn in mech.joints:
        if isinstance(Jn, Revolute) and Jn.k:
            th = [np.zeros(len(q)) if b == "ground" else q[:, mech._body_index(b), 2] for b in Jn.bodies]
            th0 = [0.0 if b == "ground" else mech.bodies[mech._body_index(b)].angle for b in Jn.bodies]
            s0 = th0[1] - th0[0] if Jn.s0 is None else Jn.s0
            E += 0.5 * Jn.k * (th[1] - th[0] - s0) ** 2
    for S in mech.springs:
        P = [motion.point(b, a) for b, a in zip(S.bodies, S.at)]
        L0 = math.hypot(*np.subtract(S.at[1], S.at[0])) if S.length is None else S.length
        E += 0.5 * S.k * (np.hypot(*(P[1] - P[0]).T) - L0) ** 2
    return E


def test_energy_is_conserved_without_drives_and_dissipation():
    """Gravity, a torsion spring and a point spring, no drive: T + V constant, its drift
    shrinking with the integrator's tolerance (the integrator's error, not the model's)."""
    mech = _sprung_four_bar()
    t = np.linspace(0.0, 2.0, 21)
    drift = {}
    for rtol in (1e-8, 1e-10):
        m = mech.solve(t, zd0=[12.0], rtol=rtol, atol=rtol * 1e-3)
        assert np.ptp(m.z[:, 0]) > 6.0  # the crank turns
        E = _energy(mech, m)
        drift[rtol] = np.abs(E - E[0]).max() / np.abs(E).max()
        # DP5 at rtol: ~rtol of the state per unit time
        assert drift[rtol] < 50 * rtol, (rtol, drift[rtol])
    assert 20 < drift[1e-8] / drift[1e-10] < 500  # fifth order: ~100x for 100x tolerance


def _simpson(y, t):
    n = (y.size - 1) // 2 * 2
    h = t[1] - t[0]
    return h / 3 * (y[0] + y[n] + 4 * y[1:n:2].sum() + 2 * y[2:n - 1:2].sum())


def test_power_balance_with_a_torque_law_friction_and_dampers():
    """E(t) - E(0) = int (tau omega - c omega^2 - F_r tanh(omega / v_F) omega - c_S L'^2) dt."""
    c, Fr = 0.02, 0.3
    mech = _sprung_four_bar(friction=Fr, damping=c)
    law = lambda t, a, w: 1.5 + math.sin(a) - 0.05 * w  # noqa: E731
    t = np.linspace(0.0, 1.0, 4001)
    m = mech.solve(t, drives={"crank": Torque(law)}, zd0=[8.0], rtol=1e-11, atol=1e-13)
    w = m.zd[:, 0]
    S = mech.springs[0]
    P = [m.point(b, a) for b, a in zip(S.bodies, S.at)]
    d = P[1] - P[0]
    L = np.hypot(*d.T)
    # L' from the crank pin's velocity (the other end is ground)
    r = P[1] - m.q[:, 0, :2]
    vpin = m.qd[:, 0, :2] + m.qd[:, 0, 2:3] * np.column_stack([-r[:, 1], r[:, 0]])
    Ld = np.sum(d * vpin, axis=1) / L
    power = m.force[:, 0] * w - c * w**2 - Fr * np.tanh(w / 0.5) * w - c * Ld**2
    assert np.abs(m.force[:, 0] - [law(0, a, v) for a, v in zip(m.z[:, 0], w)]).max() < 1e-13
    E = _energy(mech, m)
    work = _simpson(power, t)
    assert abs(work) > 1.0  # not trivially balanced
    # Simpson on 4000 intervals (error ~h^4) and the integrator at 1e-11
    assert abs(E[-1] - E[0] - work) < 1e-7 * np.abs(power).max() * t[-1]


def test_joint_forces_satisfy_each_bodys_newton_euler_equations():
    mech = _sprung_four_bar()
    m = mech.solve(duration=0.5, points=51, drives={"crank": ConstantSpeed(15.0)})
    f = mech.joint_forces(m)
    g = np.asarray(mech.gravity)
    # the spring's force on the crank at its pin
    S = mech.springs[0]
    P = [m.point(b, a) for b, a in zip(S.bodies, S.at)]
    d = P[1] - P[0]
    L = np.hypot(*d.T)
    L0 = math.hypot(*np.subtract(S.at[1], S.at[0]))
    Fs = -(S.k * (L - L0))[:, None] * d / L[:, None]
    scale = np.abs(f.joints).max()
    for b, body in enumerate(mech.bodies):
        F = body.mass * g[None, :] - body.mass * m.qdd[:, b, :2]
        Mo = -body.inertia * m.qdd[:, b, 2]
        for j, Jn in enumerate(mech.joints):
            for side, sign in ((0, -1.0), (1, 1.0)):
                if Jn.bodies[side] != body.name:
                    continue
                Fj = sign * f.joints[:, j, :2]
                Pj = m.point(body.name, Jn.at)
                r = Pj - m.q[:, b, :2]
                F += Fj
                Mo += r[:, 0] * Fj[:, 1] - r[:, 1] * Fj[:, 0] + sign * f.joints[:, j, 2]
                if isinstance(Jn, Revolute) and Jn.k:  # the torsion spring
                    th = [m.q[:, mech._body_index(n), 2] for n in Jn.bodies]
                    s0 = mech.bodies[mech._body_index(Jn.bodies[1])].angle - \
                        mech.bodies[mech._body_index(Jn.bodies[0])].angle
                    Mo += sign * -Jn.k * (th[1] - th[0] - s0)
        if body.name == "crank":
            Mo += f.drive[:, 0]  # the motor's torque
            r = P[1] - m.q[:, b, :2]
            F += Fs
            Mo += r[:, 0] * Fs[:, 1] - r[:, 1] * Fs[:, 0]
        # round-off of a solve of forces ~1e2 N: measured < 1e-14 of the largest
        assert np.abs(F).max() < 1e-12 * scale and np.abs(Mo).max() < 1e-12 * scale, body.name
    # two routes to the motor torque: the multipliers and Kane's drive along the crank
    assert np.abs(f.drive[:, 0] - m.force[:, 0]).max() < 1e-11 * np.abs(m.force).max()


def test_four_bar_trajectory_against_a_multiplier_dae():
    """The Lagrange-multiplier equations integrated by SciPy (Baumgarte-stabilized index 1)
    against kanefem's Kane equations integrated in z alone."""
    from scipy.integrate import solve_ivp

    fb = M.four_bar()
    accel, jac = _four_bar_lagrange(fb)
    q0 = fb.kinematics([[math.pi / 2]])["q"][0, :, 2]
    qd0 = dependent_rates(jac, q0, [0], [10.0])

    def rhs(t, y):
        return np.concatenate([y[3:], accel(y[:3], y[3:], [0.5])])

    t = np.linspace(0.0, 1.0, 11)
    ref = solve_ivp(rhs, (0, 1), np.concatenate([q0, qd0]), method="DOP853", t_eval=t, rtol=1e-12, atol=1e-12)
    m = fb.solve(t, drives={"crank": Torque(0.5)}, zd0=[10.0], rtol=1e-11, atol=1e-13)
    # two integrations at ~1e-11 of an unconstrained (index-1) DAE drifting by ~1e-10
    assert np.abs(m.z[:, 0] - ref.y[0]).max() < 1e-7
    assert np.abs(m.q[:, 2, 2] - ref.y[2]).max() < 1e-7


# ---------------------------------------------------------------- errors


def test_unreachable_positions_and_dead_points_raise_naming_the_coordinates():
    # a "crank" longer than the rest allows cannot turn: it leaves the assembly region
    fb = M.four_bar(a=0.2, b=0.2, c=0.25, d=0.3)
    with pytest.raises(GeometryError, match=r"cannot close at crank = 4\.5 rad"):
        fb.kinematics([[1.6], [4.5]])
    with pytest.raises(GeometryError, match=r"at t = .* s the motion leaves the assembly region.*crank ="):
        fb.solve(duration=1.0, points=11, drives={"crank": ConstantSpeed(2 * math.pi)})
    # the slider's position as the coordinate: the drawing (crank along the rod) is a dead point
    sc = M.slider_crank(rod=None)
    with pytest.raises(GeometryError, match=r"drawing.*x = 0\.45 m is a dead point"):
        Mechanism(sc.bodies, sc.joints, [Coordinate("x", body="slider", component="x")])
    with pytest.raises(ValueError, match=r"crank = nan must be finite|must be finite"):
        sc.kinematics([[math.nan]])


def test_description_errors_name_what_is_wrong():
    sc = M.slider_crank(rod=None)
    B, J, C = sc.bodies, sc.joints, sc.coordinates
    with pytest.raises(ValueError, match="unknown body 'rodd'"):
        Mechanism(B, [*J[:2], Revolute("B", ("rodd", "slider"), (0.45, 0.0)), J[3]], C)
    with pytest.raises(ValueError, match="3 x 3 - 6 = 3 degrees of freedom, but 1"):
        Mechanism(B, J[:3], C)
    with pytest.raises(ValueError, match="name 'crank' is used twice"):
        Mechanism([B[0], B[0], B[2]], J, C)
    with pytest.raises(ValueError, match="weld, which has no coordinate"):
        Mechanism(B, [*J[:3], Weld("W", ("ground", "slider"), (0.45, 0.0))],
                  [Coordinate("w", joint="W")])
    with pytest.raises(ValueError, match="crank: mass must be >= 0"):
        RigidBody("crank", -1.0, 0.0)
    with pytest.raises(TypeError, match="PlanarBeam or an AxialBar"):
        ElasticLink("rod", "a beam")
    with pytest.raises(ValueError, match="give either joint= or body="):
        Coordinate("q")
    with pytest.raises(ValueError, match="unknown coordinate 'theta'"):
        sc.solve(duration=0.1, drives={"theta": ConstantSpeed(1.0)})
    with pytest.raises(TypeError, match="must be ConstantSpeed, Torque, Path or Recorded"):
        sc.solve(duration=0.1, drives={"crank": 3.0})
    # a subnormal duration: linspace's times coincide (the two-way step rule divided by 0: NaN)
    with pytest.raises(ValueError, match="duration = 5e-324 s is too short for points = 361"):
        M.slider_crank(elements=2).simulate_flexible(duration=5e-324, drives={"crank": ConstantSpeed(150.0)})
    # a joint on an elastic link away from its reference conditions
    beam = kanefem.PlanarBeam(0.3, 4, E=2e11, A=1e-4, I=1e-9, rho=7800)
    hub = RigidBody("hub", 1.0, 0.1)
    link = ElasticLink("arm", beam, supports="clamped-free")
    arm = Mechanism([hub, link], [Revolute("O", ("ground", "hub"), (0, 0)), Weld("W", ("hub", "arm"), (0.3, 0.0))],
                    [Coordinate("hub", joint="O")], gravity=(0, 0))
    with pytest.raises(ValueError, match="attaches to link 'arm' at node 4, where its reference conditions"):
        arm.simulate_flexible(duration=0.01, points=3)


def test_toml_round_trip_and_errors(tmp_path):
    fb = _sprung_four_bar(friction=0.2, damping=0.01)
    path = fb.to_toml(tmp_path / "fb.toml", drives={"crank": {"drive": ConstantSpeed(3.0), "rate": 3.0}})
    back = Mechanism.from_toml(path)
    assert back.coordinate_drives["crank"]["drive"] == ConstantSpeed(3.0)
    assert back.run_drives is back.coordinate_drives  # the former name
    z = np.linspace(1.0, 2.0, 5)[:, None]
    a, b = fb.kinematics(z, 2.0, 1.0), back.kinematics(z, 2.0, 1.0)
    # repr() of floats round-trips: the same mechanism to the last bit
    assert np.array_equal(a["q"], b["q"]) and np.array_equal(a["Q"], b["Q"])
    bad = tmp_path / "bad.toml"
    for text, pattern in [
        ("[wheel]\nr = 1\n", r"unknown table\(s\) 'wheel'"),
        ("[[body]]\nname = 'a'\nmass = 1\ninertia = 1\ncolour = 'red'\n", r"unknown key\(s\) 'colour'"),
        ("[[joint]]\nname = 'O'\nkind = 'ball'\nbodies = ['ground', 'a']\nat = [0, 0]\n", "kind = 'ball'"),
        ("x = \n", "not valid TOML"),
    ]:
        bad.write_text(text)
        with pytest.raises(ValueError, match=pattern):
            Mechanism.from_toml(bad)


# ---------------------------------------------------------------- the wind pump as a mechanism


def test_windpump_is_one_mechanism_and_its_toml_gives_the_same_motion(tmp_path):
    """The shipped windpump.toml is the general description WindPump writes; loaded (no
    assembly rule: Newton continued from the drawing) it gives the wind pump's motion and
    joint forces."""
    pump = kanefem.WindPump()
    mech = pump.mechanism()
    w = 140 * 2 * math.pi / 60
    shipped = M.example("windpump")
    # it starts on the periodic steady state (x_D, x_D' at alpha = 0), as the windpump job
    steady = pump.solve(rpm=140, steady_state=True, revolutions=0.01)
    written = mech.to_toml(tmp_path / "w.toml", drives={
        "alpha": {"drive": ConstantSpeed(w), "initial": 0.0},
        "x_D": {"initial": steady.x_D[0], "rate": steady.xdot_D[0]}})
    from kanefem._io import _tomllib

    tables = lambda p: _tomllib().loads(Path(p).read_text())  # noqa: E731
    # the shipped file's [run] table holds the command line's options (the papers' one-way
    # method, K_G off, as python -m kanefem windpump); the mechanism's tables are the same
    assert {k: v for k, v in tables(shipped).items() if k != "run"} == tables(written)
    general = Mechanism.from_toml(shipped)
    ref = pump.solve(rpm=140, revolutions=0.5, points_per_revolution=90)
    m = general.solve(ref.t, drives={"alpha": ConstantSpeed(w)}, z0=[0.0, pump.params.x_D0])
    # the same equations from another starting position of Newton: the integrations agree
    # to their tolerance (rtol 1e-9 of positions ~0.5 m)
    assert np.abs(m.coordinate("x_D")[0] - ref.x_D).max() < 1e-9
    assert np.abs(m.force[:, 0] - ref.motor_torque).max() < 1e-7 * np.abs(ref.motor_torque).max()
    f_ref = pump.joint_forces(ref)
    F_B, _ = general.joint_forces(m).joint("B")
    assert np.abs(F_B - f_ref.F_B).max() < 1e-7 * np.abs(f_ref.F_B).max()
    # the lever's frame: the wind pump's lever_frame is the general link frame
    for field in ("omega", "eps", "a", "v"):
        assert np.abs(m.frames["lever"][field] - ref.lever_frame[field]).max() < 1e-6 * (
            1 + np.abs(ref.lever_frame[field]).max())


def test_steady_state_of_a_mechanism_at_constant_speed():
    """Mechanism.solve(steady_state=True) on the general description of the wind pump (the
    shipped file: Newton continued from the drawing, no assembly rule) finds the periodic
    motion the preset finds through its own core mechanism, from the spring's rest
    position: x_D, x_D' at t = 0 agree to 1e-12 (measured 3e-15: the same fixed point of the
    same equations, shot to 1e-9 of the scales l1 = 0.08 m and l1 omega), the motion
    repeats after one period to the output run's rtol 1e-9 (measured 8e-12 m, 5e-11 m/s),
    the Floquet multipliers agree.  Other drives are refused, named."""
    general = Mechanism.from_toml(M.example("windpump"))
    assert general.length_scale() == pytest.approx(0.08, rel=1e-12)  # the crank radius l1
    w = 140 * 2 * math.pi / 60
    m = general.solve(np.linspace(0.0, 2 * math.pi / w, 91), drives={"alpha": ConstantSpeed(w)},
                      z0=[0.0, 0.55], steady_state=True)
    ref = kanefem.WindPump().solve(rpm=140, steady_state=True, revolutions=0.01)
    assert abs(m.z[0, 1] - ref.x_D[0]) < 1e-12 and abs(m.zd[0, 1] - ref.xdot_D[0]) < 1e-12
    assert abs(m.z[-1, 1] - m.z[0, 1]) < 1e-9 and abs(m.zd[-1, 1] - m.zd[0, 1]) < 1e-8
    np.testing.assert_allclose(np.sort_complex(m.stats["floquet_multipliers"]),
                               np.sort_complex(ref.stats["floquet_multipliers"]), atol=1e-6)
    assert np.all(np.abs(m.stats["floquet_multipliers"]) < 1)  # the cycle attracts
    with pytest.raises(ValueError, match="steady_state needs a mechanism driven at one constant speed.*'alpha'"):
        general.solve(duration=0.1, drives={"alpha": M.Torque(1.0)}, steady_state=True)
    with pytest.raises(TypeError, match="steady_state"):
        general.solve(duration=0.1, drives={"alpha": ConstantSpeed(w)}, steady_state="yes")


# ---------------------------------------------------------------- elastic links, one way


@pytest.fixture(scope="module")
def flexible_crank():
    m = M.slider_crank()
    T = 2 * math.pi / 150
    return m, m.solve(np.linspace(0.0, T, 181), drives={"crank": ConstantSpeed(150.0)})


def test_link_eigenvalues_shift_identity(flexible_crank):
    """With K_eps and K_G off: lambda_k(t) = lambda_k(rest) - omega_rod(t)^2 exactly."""
    m, motion = flexible_crank
    r = m.link_eigenvalues(motion, n_modes=3, include_eps=False, geometric_stiffness=False)["rod"]
    rod = m.link("rod")
    rest = rod.body.eigenvalues(3, supports="pinned-pinned").eigenvalues
    w = motion.body("rod")[1][:, 2]
    assert r.solver == "symmetric"
    assert np.abs(r.eigenvalues - (rest[None, :] - w[:, None] ** 2)).max() < 1e-12 * rest[-1]
    # K_eps changes them only slightly (eps ~ 1e4 rad/s^2 against lambda_1 ~ 7e5)
    e = m.link_eigenvalues(motion, n_modes=3, geometric_stiffness=False)["rod"]
    assert e.solver == "general"
    assert 0 < np.abs(e.eigenvalues - r.eigenvalues).max() < 1e-2 * rest[0]


def test_link_axial_force_balances_at_both_ends(flexible_crank):
    """N(x) from the crank's force at A and the rod's axial inertia reaches, at B, the
    slider's force on the rod: two joint forces and the rod's inertia balance."""
    m, motion = flexible_crank
    f = m.joint_forces(motion)
    c = f.link_axial["rod"]
    th = motion.body("rod")[0][:, 2]
    ex = np.column_stack([np.cos(th), np.sin(th)])
    FA, _ = f.joint("A")  # crank on rod, at x = 0
    FB, _ = f.joint("B")  # rod on slider: the slider pulls the rod with -F_B
    assert np.array_equal(c[:, 0], -np.sum(FA * ex, axis=1))
    L = 0.3
    N_B = c[:, 0] + c[:, 1] * L + c[:, 2] * L**2
    # round-off of forces ~1e2 N
    assert np.abs(N_B - np.sum(-FB * ex, axis=1)).max() < 1e-11 * np.abs(c[:, 0]).max()
    # K_G from it: the eigenvalues follow the mean axial force to first order
    g = m.link_eigenvalues(motion, n_modes=1, include_eps=False, geometric_stiffness=True)["rod"]
    plain = m.link_eigenvalues(motion, n_modes=1, include_eps=False, geometric_stiffness=False)["rod"]
    assert g.geometric_stiffness and not plain.geometric_stiffness and plain.axial_force_source is None
    rod = m.link("rod").body
    N_euler = math.pi**2 * rod.E * rod.I / L**2
    N_mean = c[:, 0] + c[:, 1] * L / 2 + c[:, 2] * L**2 / 3
    rel = g.eigenvalues[:, 0] / plain.eigenvalues[:, 0] - 1
    assert np.ptp(rel) > 0.05  # the slider's inertia loads the rod to ~10 % of Euler's load
    # first order in N / N_Euler (second order ~1 %, and phi_1 is not sin(pi x / L) exactly)
    assert np.abs(rel - N_mean / N_euler).max() < 0.03 * np.abs(N_mean / N_euler).max()


def test_windpump_lever_eigenvalues_through_the_general_mechanism():
    pump = kanefem.WindPump()
    mech = pump.mechanism()
    ref = pump.solve(rpm=140, revolutions=0.25, points_per_revolution=120, steady_state=True)
    m = mech.solve(ref.t, drives={"alpha": ConstantSpeed(140 * math.pi / 30)}, z0=[ref.alpha[0], ref.x_D[0]],
                   zd0=[ref.omega1[0], ref.xdot_D[0]])
    a = mech.link_eigenvalues(m, n_modes=2, geometric_stiffness=True)["lever"]
    b = pump.lever_eigenvalues(ref, n_modes=2, geometric_stiffness=True)
    # the same motion (integrations at rtol 1e-9) and the same lever: to 1e-7 of lambda
    assert np.abs(a.eigenvalues - b.eigenvalues).max() < 1e-7 * b.eigenvalues.max()
    assert np.abs(a.axial_force - b.axial_force).max() < 1e-6 * np.abs(b.axial_force).max()


# ---------------------------------------------------------------- elastic links, two ways


def test_two_way_equations_at_a_state_are_the_one_way_ones_when_the_frame_is_prescribed():
    """With the link's frame driven (a hub on a prescribed path), the coupled equations'
    elastic rows are the moving-frame equations of docs/theory.md section 1 (the one-way
    route: the body's motion terms)."""
    beam = kanefem.PlanarBeam(2.0, 4, E=7e10, A=4e-4, I=2e-7, rho=3000)
    hub = RigidBody("hub", 0.0, 5.0)
    arm = ElasticLink("arm", beam, supports="clamped-free")
    mech = Mechanism([hub, arm], [Revolute("O", ("ground", "hub"), (0, 0)), Weld("W", ("hub", "arm"), (0, 0))],
                     [Coordinate("hub", joint="O")], gravity=(0.0, -9.81))
    free = ~arm._fixed
    rng = np.random.default_rng(1)
    d, dd = np.zeros(beam.ndof), np.zeros(beam.ndof)
    d[free], dd[free] = rng.normal(size=(2, free.sum())) * [[1e-2], [1e-1]]
    th, om, eps = 0.7, 3.0, 2.0
    links = _records.links([dict(body=1, geometric=False)])
    r = kanefem._core.mech_flex_dynamics(mech._core, links, [beam._body], [arm._fixed], _records.drives(
        [dict(mode="path")]), [lambda t: (th, om, eps)], 0.0, [th], [th], [om], d[free], dd[free])
    g_L = np.array([-9.81 * math.sin(th), -9.81 * math.cos(th)])  # gravity in the arm's axes
    T = beam.motion_terms(om, eps, -g_L)
    Mm, K = beam.mass_matrix(), beam.stiffness_matrix()
    rhs = -(T.C @ dd + (K + T.K_eps + T.K_om) @ d + T.q_a + T.q_eps + T.q_om)
    expect = np.linalg.solve(Mm[np.ix_(free, free)], rhs[free])
    # accelerations ~2e5 (stiff tip DOFs): round-off
    assert np.abs(r["ddd"] - expect).max() < 1e-12 * np.abs(expect).max()


def test_two_way_tends_to_the_rigid_mechanism_as_the_rod_stiffens():
    """E x 1e4 and 1e6: the crank torque of the coupled system approaches the rigid
    mechanism's like 1/E (the elastic deflection's share), with the start's high-frequency
    transient damped (rho_inf = 0: asymptotic annihilation)."""
    T = 2 * math.pi / 150
    t = np.linspace(0.0, T, 91)
    rigid = M.slider_crank(rod=None).solve(t, drives={"crank": ConstantSpeed(150.0)}).force[:, 0]
    err = {}
    for f in (1e4, 1e6):
        fm = M.slider_crank(E=200e9 * f).simulate_flexible(t, drives={"crank": ConstantSpeed(150.0)}, rho_inf=0.0,
                                                           dt=T / 1000, rtol=None)
        err[f] = np.abs(fm.motion.force[:, 0] - rigid).max() / np.abs(rigid).max()
    assert err[1e4] < 1e-5  # measured 3.4e-6
    assert 50 < err[1e4] / err[1e6] < 200  # 1/E: measured 100


def _beam_points(beam, ngauss=4):
    """Gauss points of a PlanarBeam, independent of the core: x, rho A dx, and the rows
    of N (u linear, v cubic Hermite) over all DOFs."""
    g, w = np.polynomial.legendre.leggauss(ngauss)
    out = []
    x = beam.nodes[:, 0]
    for el in range(beam.n_elements):
        h = x[el + 1] - x[el]
        for gi, wi in zip(g, w):
            s = (gi + 1) / 2
            N = np.zeros((2, beam.ndof))
            k = 3 * el
            N[0, [k, k + 3]] = 1 - s, s
            N[1, [k + 1, k + 2, k + 4, k + 5]] = (1 - 3 * s**2 + 2 * s**3, h * (s - 2 * s**2 + s**3),
                                                  3 * s**2 - 2 * s**3, h * (s**3 - s**2))
            out.append((x[el] + s * h, beam.rho * beam.A * h * wi / 2, N))
    return out


def test_two_way_conserves_energy_without_drives_and_dissipation():
    """A slider-crank coasting (no torque, no gravity, no damping): the rigid bodies'
    kinetic energy plus the rod's (by quadrature of its points' velocities, r_c + R (x -
    x_c + N d)), plus its strain energy, stays constant up to the integrator's error."""
    m = M.slider_crank(crank_mass=0.5, crank_inertia=1e-3, geometric_stiffness=False)  # the energy of K d only
    t = np.linspace(0.0, 0.02, 21)
    fm = m.simulate_flexible(t, drives={"crank": Torque(0.0)}, zd0=[100.0], dt=0.02 / 800, rho_inf=1.0, rtol=None)
    mo, rod = fm.motion, m.link("rod")
    b = m._body_index("rod")
    E = 0.5 * np.einsum("ti,ij,tj->t", fm.d["rod"], rod.body.stiffness_matrix(), fm.d["rod"])
    for i, body in enumerate(m.bodies):
        if body is not rod:
            E += 0.5 * (body.mass * (mo.qd[:, i, 0] ** 2 + mo.qd[:, i, 1] ** 2) + body.inertia * mo.qd[:, i, 2] ** 2)
    for i in range(t.size):
        th, om = mo.q[i, b, 2], mo.qd[i, b, 2]
        R = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
        for x, w, N in _beam_points(rod.body):
            r = np.array([x - rod.x_centre, 0.0]) + N @ fm.d["rod"][i]
            v = mo.qd[i, b, :2] + om * R @ np.array([-r[1], r[0]]) + R @ (N @ fm.d_t["rod"][i])
            E[i] += 0.5 * w * v @ v
    assert np.ptp(mo.z[:, 0]) > 1.5 and np.abs(fm.deflection("rod", 0.15)).max() > 1e-3  # it moves and bends
    # trapezoidal steps on a nonlinear system with its axial modes barely resolved
    # (omega h ~ 1.3): a bounded energy error, measured 3.4e-6
    assert np.abs(E - E[0]).max() < 2e-5 * E[0]


def _spin_up_mechanism(hub_inertia, n_elements=10):
    s = kanefem.studies.SpinUp(omega_s=4.0, n_elements=n_elements)
    arm = ElasticLink("beam", s.body(), supports="clamped-free", geometric_stiffness=True)
    mech = Mechanism([RigidBody("hub", 0.0, hub_inertia), arm],
                     [Revolute("O", ("ground", "hub"), (0, 0)), Weld("W", ("hub", "beam"), (0, 0))],
                     [Coordinate("hub", joint="O")], gravity=(0.0, 0.0))

    def path(t):
        Ts, W = s.T_s, s.omega_s
        th = W / Ts * (t * t / 2 + (Ts / (2 * math.pi)) ** 2 * (math.cos(2 * math.pi * t / Ts) - 1)) \
            if t < Ts else W * Ts / 2 + W * (t - Ts)
        return th, float(s.omega(t)), float(s.eps(t))

    return s, mech, path


@pytest.fixture(scope="module")
def spin_up():
    """The spin-up beam (10 m, Simo and Vu-Quoc's) on a hub driven along the one-way
    study's law, two ways, and the one-way result: 18 s at 10 ms steps."""
    s, mech, path = _spin_up_mechanism(10.0)
    t = np.linspace(0.0, 18.0, 361)
    two = mech.simulate_flexible(t, drives={"hub": ZPath(path)}, dt=0.01, rho_inf=1.0, rtol=None)  # one-way's steps
    one = s.simulate(t_end=18.0, geometric_stiffness=True, dt=0.01, t_eval=t)
    return s, mech, t, two, one


def test_spin_up_two_ways_with_the_hub_prescribed_is_the_one_way_result(spin_up):
    """With the hub's motion prescribed the beam's equations are the one-way ones (K_G
    included): the two integrators (both trapezoidal) agree to O(h^3); the hub torque the
    coupled system needs equals dH/dt, H the angular momentum of hub and beam computed
    from the one-way solution by quadrature (an independent route)."""
    s, mech, t, two, one = spin_up
    tip1, tip2 = one.node(-1, "v"), two.d["beam"][:, -2]
    assert np.ptp(tip1) > 0.3  # the beam lags by 0.4 m during the spin-up
    assert np.abs(tip2 - tip1).max() < 1e-4 * np.ptp(tip1)  # measured 1e-5
    beam, Jh = mech.link("beam").body, 10.0
    om = s.omega(t)
    H = Jh * om
    for i in range(t.size):
        for x, w, N in _beam_points(beam):
            r, vr = np.array([x, 0.0]) + N @ one.d[i], N @ one.v[i]
            H[i] += w * (om[i] * (r @ r) + r[0] * vr[1] - r[1] * vr[0])
    dH = np.gradient(H, t, edge_order=2)
    tau = two.motion.force[:, 0]
    rigid = (Jh + mech.link("beam").inertia + mech.link("beam").mass * 25.0) * s.eps(t)
    assert np.abs(tau - rigid).max() > 1.0  # the beam's deflection changes the torque (by 2.9 N m)
    # second differences of H sampled at 50 ms: measured 0.019 N m of 219
    assert np.abs(tau - dH)[2:-2].max() < 1e-3 * np.abs(tau).max()


def test_spin_up_torque_driven_hub(spin_up):
    """Driven by the torque the prescribed run needed, the hub follows the law and, with
    K_G's axial force taken as in that run (extrapolated: the default where every
    coordinate is prescribed), the tip its deflection; with a heavy hub (1000 kg m^2)
    under the rigid torque J eps, the coupling is weak: the hub nearly keeps the law and
    the tip the one-way deflection."""
    from scipy.interpolate import CubicSpline

    s, mech, t, two, one = spin_up
    assert "extrapolated" in two.stats["axial_force"]
    law = CubicSpline(t, two.motion.force[:, 0])
    back = mech.simulate_flexible(t, drives={"hub": Torque(lambda tt, a, w: float(law(tt)))}, dt=0.01, rtol=None,
                                  rho_inf=1.0, axial_force="extrapolated")
    assert np.abs(back.motion.zd[:, 0] - s.omega(t)).max() < 1e-5  # measured 1e-6 rad/s (spline of tau)
    assert np.abs(back.d["beam"][:, -2] - two.d["beam"][:, -2]).max() < 1e-6
    _, heavy, _ = _spin_up_mechanism(1000.0)
    arm = heavy.link("beam")
    J = 1000.0 + arm.inertia + arm.mass * arm.x_centre**2
    weak = heavy.simulate_flexible(t, drives={"hub": Torque(lambda tt, a, w: J * float(s.eps(tt)))}, dt=0.01, rtol=None,
                                   rho_inf=1.0)
    # the beam's share of the torque (~1 % of J eps) slows the hub by ~1e-3 of omega_s
    assert np.abs(weak.motion.zd[:, 0] - s.omega(t)).max() < 1e-2 * 4.0  # measured 2.6e-3 rad/s
    assert np.abs(weak.d["beam"][:, -2] - one.node(-1, "v")).max() < 0.03 * 0.4  # measured 1.2 %


def test_flexible_slider_crank_against_exudyn():
    """The flexible slider-crank (crank 0.15 m at 150 rad/s, rod 0.30 m of 6 mm steel, 10
    elements, slider half the rod's mass): the rod's midpoint deflection over the first
    turn against Exudyn's model of the same mechanism with absolute-nodal-coordinate
    cables (geometrically exact: stress stiffening is in it), both at 1000 steps.

    The literature's curves (Simo and Vu-Quoc 1986, Bauchau 2011) are not available
    here as numbers; the independent model stands in for them: its peak midpoint
    deflection is 1.54 % of the rod's length (4.6 mm), as kanefem's with K_G."""
    pytest.importorskip("exudyn")  # in the test extra; wheels exist for the usual platforms
    X = _bench_module("_exudyn_models")
    T = 2 * math.pi / 150
    te, ve = X.slider_crank(n_elements=10, steps=1000, rho_inf=0.9)
    t = np.linspace(0.0, T, 201)
    ref = np.interp(t, te, ve)
    assert 0.014 < np.abs(ref).max() / 0.3 < 0.017
    dev = {}
    for geo in (True, False):
        fm = M.slider_crank(geometric_stiffness=geo).simulate_flexible(
            t, drives={"crank": ConstantSpeed(150.0)}, dt=T / 1000, rho_inf=0.9, rtol=None)  # Exudyn's steps
        dev[geo] = np.abs(fm.deflection("rod", 0.15) - ref).max() / np.abs(ref).max()
    # linear floating frame + K_G against the exact strains: measured 1.8 % of the peak
    assert dev[True] < 0.04
    # without K_G the slider's thrust cannot soften the rod: measured 25 %
    assert dev[False] > 0.15


# ---------------------------------------------------------------- the command line


def test_mechanism_job_writes_one_set_and_reruns_from_it(tmp_path, capsys):
    import json

    from kanefem.__main__ import main

    out = tmp_path / "out"
    assert main(["mechanism", str(M.example("slider_crank")), "--out", str(out), "--points", "61",
                 "--two-way", "--no-plots", "--modes", "3"]) == 0
    text = capsys.readouterr().out
    assert "link rod (10 elements), solver general" in text and "two-way" in text
    files = {p.name for p in out.iterdir()}
    assert files == {"mechanism.toml", "motion.csv", "joint_forces.csv", "eigenvalues_rod.csv",
                     "flexible_motion.csv", "manifest.json"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["job"] == "mechanism" and set(manifest["files"]) == files - {"manifest.json"}
    eig = np.loadtxt(out / "eigenvalues_rod.csv", delimiter=",", skiprows=1)
    assert eig.shape == (61, 7)
    # the CSV holds what the API computes
    mech = Mechanism.from_toml(M.example("slider_crank"))
    t = np.linspace(0, 2 * math.pi / 150, 61)
    motion = mech.solve(t, drives={"crank": ConstantSpeed(150.0)})
    assert np.allclose(eig[:, 1:4], mech.link_eigenvalues(motion, n_modes=3)["rod"].eigenvalues, rtol=1e-12)
    flex = np.loadtxt(out / "flexible_motion.csv", delimiter=",", skiprows=1)
    assert 0.014 < np.abs(flex[:, -1]).max() / 0.3 < 0.017  # the midpoint deflection (test above)
    # mechanism.toml holds the description and, in [run], the options: it runs again
    again = tmp_path / "again"
    assert main(["mechanism", str(out / "mechanism.toml"), "--out", str(again)]) == 0
    for name in ("motion.csv", "joint_forces.csv", "eigenvalues_rod.csv", "flexible_motion.csv"):
        assert (again / name).read_bytes() == (out / name).read_bytes(), name


def test_mechanism_job_plots_and_errors(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from kanefem.__main__ import main

    out = tmp_path / "fb"
    assert main(["mechanism", str(M.example("four_bar")), "--out", str(out), "--points", "41"]) == 0
    for name in ("motion.png", "joint_forces.png"):
        assert (out / name).stat().st_size > 1000
    capsys.readouterr()
    rigid = M.four_bar().to_toml(tmp_path / "rigid.toml", drives={"crank": {"drive": ConstantSpeed(6.0)}})
    for argv, status, text in [
        (["mechanism", str(rigid), "--two-way"], 2, "--two-way needs an elastic link"),
        (["mechanism", str(tmp_path / "none.toml")], 2, "No such file"),
        (["mechanism", str(M.example("four_bar")), "--points", "1"], 2, "--points"),
    ]:
        with pytest.raises(SystemExit) as exc:
            main([*argv, "--out", str(tmp_path / "x")])
        assert exc.value.code == status
        assert text in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text(M.example("four_bar").read_text() + "\n[run]\nspeed = 3\n")
    with pytest.raises(SystemExit) as exc:
        main(["mechanism", str(bad), "--out", str(tmp_path / "x")])
    assert exc.value.code == 2 and "[run] has no option 'speed'" in capsys.readouterr().err
    # a crank that cannot turn: the motion leaves the assembly region, a failed computation
    M.four_bar(a=0.2, b=0.2).to_toml(bad, drives={"crank": {"drive": ConstantSpeed(6.0)}})
    with pytest.raises(SystemExit) as exc:
        main(["mechanism", str(bad), "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert exc.value.code == 1 and "failed: GeometryError: at t = " in err and "crank =" in err


def test_binding_does_not_leak():
    import gc
    import tracemalloc

    from kanefem import _core

    sc = M.slider_crank(elements=3)
    rod = sc.link("rod")
    links, bodies, fixed = _records.links([dict(body=1, geometric=True)]), [rod.body._body], [rod._fixed]
    speed, free = _records.drives([dict(mode="speed", speed=150.0)]), _records.drives([dict(mode="free")])
    t = np.linspace(0, 0.002, 5)

    def work():
        core = _core.mech_create(**sc._arrays())
        _core.mech_describe(core)
        k = _core.mech_kinematics(core, np.array([[0.1], [0.2]]), frames=sc._frames)
        _core.mech_accelerations(core, k["q"][:, 2:3] * 0 + 0.1, np.ones((2, 1)))
        st = _core.mech_simulate(core, speed, [None], [0.0], [0.0], t)["states"]
        _core.mech_joint_forces(core, st)
        nd = int((~rod._fixed).sum())
        _core.mech_flex_simulate(core, links, bodies, fixed, speed, [None], [0.0], [0.0], np.zeros(2 * nd), t,
                                 dt=5e-4)
        for bad in (lambda: _core.mech_kinematics(core, np.array([[np.inf]])),
                    lambda: _core.mech_flex_simulate(core, links, bodies, fixed, free, [lambda *a: 1 / 0],
                                                     [0.0], [10.0], np.zeros(2 * nd), t, dt=5e-4)):
            try:
                bad()
            except (ValueError, ZeroDivisionError):
                pass

    for _ in range(5):
        work()
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(100):
        work()
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    # one leaked (5, 4) state array per call would be 100 * 160 bytes; a capsule more
    assert grown < 50_000, grown


def test_prismatic_joint_coordinate_and_rates_by_finite_differences():
    """The slider's sliding distance (from the drawing's point) as the coordinate of a
    slider-crank drawn at crank angle 90 deg: positions, and velocities and accelerations
    against 4th-order finite differences of positions along a path."""
    r, l = 0.15, 0.30
    xB = math.sqrt(l * l - r * r)
    bodies = [RigidBody("crank", 0.3, 1e-3, centre=(0.0, r / 2), angle=math.pi / 2),
              RigidBody("rod", 0.07, 5e-4, centre=(xB / 2, r / 2), angle=math.atan2(-r, xB)),
              RigidBody("slider", 0.03, 0.0, centre=(xB, 0.0))]
    joints = [Revolute("O", ("ground", "crank"), (0, 0)), Revolute("A", ("crank", "rod"), (0, r)),
              Revolute("B", ("rod", "slider"), (xB, 0)),
              Prismatic("guide", ("ground", "slider"), (xB, 0), axis=(1.0, 0.0))]
    m = Mechanism(bodies, joints, [Coordinate("s", joint="guide")])
    assert m.drawing_coordinates()[0] == 0.0
    path = lambda t: (-0.05 * np.sin(t), -0.05 * np.cos(t), 0.05 * np.sin(t))  # noqa: E731
    t = np.linspace(0.0, 2.0, 41)
    k = m.kinematics(np.c_[path(t)[0]], np.c_[path(t)[1]], np.c_[path(t)[2]])
    assert np.abs(k["q"][:, 2, 0] - (xB + path(t)[0])).max() < 1e-16  # the slider's x
    h = 1e-3
    q = lambda tt: m.kinematics(np.c_[path(tt)[0]])["q"]  # noqa: E731
    qd = lambda tt: m.kinematics(np.c_[path(tt)[0]], np.c_[path(tt)[1]])["qd"]  # noqa: E731
    fd = lambda f: (f(t - 2 * h) - 8 * f(t - h) + 8 * f(t + h) - f(t + 2 * h)) / (12 * h)  # noqa: E731
    # truncation h^4 and round-off 1e-16 / h
    assert np.abs(fd(q) - k["qd"]).max() < 1e-10 * np.abs(k["qd"]).max()
    assert np.abs(fd(qd) - k["qdd"]).max() < 1e-9 * np.abs(k["qdd"]).max()


def test_recorded_coordinates_give_the_drive_of_the_measured_motion():
    """A motion under a torque law, sampled: as a Recorded drive (smoothing spline, no
    noise) its torque is the law's, to the spline's accuracy."""
    m = slider_crank_rigid()
    law = lambda t, a, w: 2.0 + math.sin(a)  # noqa: E731
    t = np.linspace(0.0, 0.3, 3001)  # 0.1 ms: the crank turns 0.02 rad per sample at the end
    ref = m.solve(t, drives={"crank": Torque(law)}, zd0=[20.0])
    rec = m.solve(drives={"crank": M.Recorded(t, ref.z[:, 0], noise=0.0)})
    inner = slice(100, -100)  # the spline's natural ends
    expect = [law(0, a, w) for a, w in zip(ref.z[:, 0], ref.zd[:, 0])]
    # cubic interpolation: second derivatives to (h omega)^2 / 12 ~ 3e-5 of their size,
    # times the mechanism's inertia over the torque; measured 3e-3 of it
    err = np.abs(rec.force[:, 0] - expect)[inner].max()
    assert err < 1e-2 * np.abs(expect).max(), err
    # a recorded path driving the integration gives the same torque
    part = slice(500, 2500, 10)
    pathrun = m.solve(t[part], drives={"crank": M.Recorded(t, ref.z[:, 0], noise=0.0)})
    assert np.abs(pathrun.force[:, 0] - rec.force[part, 0]).max() < 1e-9 * np.abs(expect).max()


def test_mechanism_animation_draws_the_links_deformed_between_their_joints():
    """A frame of Mechanism.animate: the pinned-pinned coupler's drawn ends are its joints A
    and B tracked by the rigid motion (u = v = 0 there), its middle is displaced from the
    chord by magnify times the response's v at the middle node."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from kanefem import _animation

    fb = Mechanism.from_toml(M.example("four_bar"))
    m = fb.solve(duration=0.2, points=25, drives={"crank": ConstantSpeed(10 * math.pi)})
    d = _animation.mechanism_deflections(fb, m, None)
    ax = Figure().add_subplot()
    frames = _animation._MechanismFrames(ax, m, d, magnify=500.0)
    k = 7
    frames.draw(k)
    x, y = frames.lines["coupler"].get_data()
    A, B = m.point("coupler", fb.joints[1].at)[k], m.point("coupler", fb.joints[2].at)[k]
    np.testing.assert_allclose([x[0], y[0]], A, atol=1e-12)
    np.testing.assert_allclose([x[-1], y[-1]], B, atol=1e-12)
    chord = (B - A) / np.linalg.norm(B - A)
    mid = np.array([x[len(x) // 2], y[len(y) // 2]]) - A
    v_mid = d["coupler"][k][3 * 4 + 1]  # node 4 of 8 elements: v
    assert abs(v_mid) > 0
    np.testing.assert_allclose(chord[0] * mid[1] - chord[1] * mid[0], 500.0 * v_mid, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- two-way defaults (issue 17, item 8)


def _reference(mech, t, drives, steps):
    """A converged two-way run: fixed steps of span / steps, no check."""
    return mech.simulate_flexible(t, drives=drives, dt=(t[-1] - t[0]) / steps, rtol=None)


def test_two_way_defaults_give_the_slider_crank_rod_within_the_tolerance():
    """The flexible slider-crank over one turn with every default: the rod's midpoint
    deflection within rtol (1 %) of the peak of a converged reference (K_G on, 16000
    steps; 8000 differ from it by 6e-5 of the peak).  The first pair of runs meets rtol
    (its step chosen from rtol and the 5.5 first-mode periods the turn lasts), with K_G's
    axial force extrapolated (every coordinate prescribed: one solve a step).  The old
    defaults (K_G off, one run at 1/20 of the rod's period) were 26 % off; K_G alone at
    that step, 2 %."""
    T = 2 * math.pi / 150
    t = np.linspace(0.0, T, 181)
    drives = {"crank": ConstantSpeed(150.0)}
    ref = _reference(M.slider_crank(geometric_stiffness=True), t, drives, 16000).deflection("rod", 0.15)
    fm = M.slider_crank().simulate_flexible(t, drives=drives)
    assert fm.geometric_stiffness == {"rod": True} and fm.stats["geometric_stiffness"] == {"rod": True}
    assert "coupled solution" in fm.stats["axial_force"] and "extrapolated" in fm.stats["axial_force"]
    assert fm.stats["runs"] == 2 and fm.stats["solves"] == fm.stats["steps"] == 3 * 180  # 180 + 360 steps
    err = np.abs(fm.deflection("rod", 0.15) - ref).max() / np.abs(ref).max()
    assert err < fm.stats["rtol"] == 1e-2, err  # measured 4.8e-3 (estimate 7.6e-3)
    assert fm.stats["accurate"] and err <= fm.stats["error_estimate"] <= 1e-2
    # Richardson's estimate times the margin 1.5: not far above the error either
    assert fm.stats["error_estimate"] <= 2.0 * err  # measured 1.57
    # K_G off is the old model: a quarter off
    old = M.slider_crank(geometric_stiffness=False).simulate_flexible(t, drives=drives, rtol=None)
    assert np.abs(old.deflection("rod", 0.15) - ref).max() / np.abs(ref).max() > 0.2  # measured 26 %
    assert old.geometric_stiffness == {"rod": False} and old.stats["error_estimate"] is None


def _flexible_pendulum(**link):
    """A 1 m steel strip (50 x 3 mm, 8 elements) hanging from a revolute joint at its
    first node, its frame tangent there (clamped-free), released horizontal under
    gravity; first bending frequency 2.4 Hz against the swing's 0.5 Hz.  Stiffness-
    proportional damping beta = 1e-5 s (4 % of critical on the 1.3 kHz axial mode, 1e-4
    on bending): undamped, the coupled model with K_G grows an instability once a step
    resolves the axial modes (below ~1e-4 s), so it has no converged reference."""
    beam = kanefem.PlanarBeam(1.0, 8, E=200e9, A=0.05 * 0.003, I=0.05 * 0.003**3 / 12, rho=7870.0)
    arm = ElasticLink("beam", beam, supports="clamped-free", damping=(0.0, 1e-5), **link)
    return Mechanism([arm], [Revolute("O", ("ground", "beam"), (0.0, 0.0))], [Coordinate("angle", joint="O")],
                     gravity=(0.0, -9.81))


def test_two_way_defaults_give_the_flexible_pendulum_within_the_tolerance():
    """Half a swing (0.966 s, to the far horizontal) with every default: the tip's lateral
    deflection within rtol (1 %) of the peak of a converged reference (16000 steps; 8000
    differ by 4e-4); the swing within 1e-3 rad.  The old defaults (K_G off, one run at 1/20
    of the first period) were 97 % off over the swing; K_G alone at that step, 82 %."""
    Th = 0.966
    t = np.linspace(0.0, Th, 61)
    drives = {"angle": Torque(0.0)}
    ref = _reference(_flexible_pendulum(), t, drives, 16000)
    tip = lambda r: r.d["beam"][:, -2]  # noqa: E731 - v of the last node
    peak = np.abs(tip(ref)).max()
    assert 0.01 < peak < 0.015  # 12.5 mm, near the bottom of the swing
    fm = _flexible_pendulum().simulate_flexible(t, drives=drives)
    assert fm.geometric_stiffness == {"beam": True}
    assert "extrapolated" not in fm.stats["axial_force"]  # a free coordinate: iterated (auto)
    err = np.abs(tip(fm) - tip(ref)).max() / peak
    assert err < 1e-2, err  # measured 2.7e-3
    # the estimate (every node's displacement, the rotations, the swing) bounds the tip's
    # error, and by Richardson's margin 1.5 and not much more: measured 4.7e-3, 1.74 err
    assert err <= fm.stats["error_estimate"] <= min(2.0 * err, 1e-2)
    assert np.abs(fm.motion.z[:, 0] - ref.motion.z[:, 0]).max() < 1e-3  # measured 2.6e-5 rad
    assert abs(ref.motion.z[-1, 0] + math.pi) < 2e-2  # it swings to the other side
    old = _flexible_pendulum(geometric_stiffness=False).simulate_flexible(t, drives=drives, rtol=None)
    assert np.abs(tip(old) - tip(ref)).max() / peak > 0.5  # measured 97 %


def test_two_way_error_estimate_bounds_the_true_error():
    """The standard crank run (the slider-crank over 0.1 s, 2.4 turns at 150 rad/s, output
    every 1 ms): the default run's estimate bounds its true error against a converged
    reference (32000 steps; 64000 differ from them by 6e-5 of the peak) and lies within
    rtol, for the default and a tighter rtol.  One run at the old default step: 11 % off
    with K_G, 31 % without, unreported."""
    t = np.linspace(0.0, 0.1, 101)
    drives = {"crank": ConstantSpeed(150.0)}
    m = M.slider_crank()
    ref = _reference(m, t, drives, 32000).deflection("rod", 0.15)
    peak = np.abs(ref).max()
    for rtol in (1e-2, 2e-3):
        fm = m.simulate_flexible(t, drives=drives, rtol=rtol)
        err = np.abs(fm.deflection("rod", 0.15) - ref).max() / peak
        est = fm.stats["error_estimate"]
        # measured: rtol 1e-2: error 4.4e-3, estimate 7.2e-3; 2e-3: 9.9e-4, 1.8e-3 (1.6 and
        # 1.8 times the error: Richardson's margin 1.5 on an estimate within 20 %)
        assert err <= est <= min(rtol, 2.0 * err), (rtol, err, est)
        # the first pair meets rtol: the returned run and one at twice its step
        assert fm.stats["runs"] == 2 and fm.stats["refine"] == 2
    one = m.simulate_flexible(t, drives=drives, rtol=None)
    assert np.abs(one.deflection("rod", 0.15) - ref).max() / peak > 0.05  # measured 11 %


def test_two_way_kinematics_are_the_mechanisms_at_its_states():
    """The bodies' q, q', q'' and the links' frames a two-way run returns (those its
    steps solved at the output times) are Mechanism.kinematics of its states, to
    round-off (two Newton solutions of the same closure, continued along different
    paths: measured 4e-17 to 1.7e-15 relative; bounds 1e-12 to 1e-10, the closure's
    own round-off times its condition)."""
    t = np.linspace(0.0, 0.02, 21)
    m = M.slider_crank(gravity=(0.0, -9.81))
    fm = m.simulate_flexible(t, drives={"crank": ConstantSpeed(150.0)}, dt=1e-4, rtol=None)
    mo = fm.motion
    k = m.kinematics(mo.z, mo.zd, mo.zdd)
    for name, tol in (("q", 1e-12), ("qd", 1e-11), ("qdd", 1e-10)):
        scale = np.abs(k[name]).max()
        assert np.abs(getattr(mo, name) - k[name]).max() <= tol * scale, name
    for field in kanefem.FRAME_DTYPE.names:
        a, b = mo.frames["rod"][field], k["frames"]["rod"][field]
        assert np.abs(a - b).max() <= 1e-10 * max(np.abs(b).max(), 1e-300), field


def test_two_way_axial_force_default():
    """axial_force="auto": extrapolated where every rigid coordinate is prescribed (one
    solve a step), iterated where one is free (Newton iterates anyway); a bad value is
    refused by name."""
    t = np.linspace(0.0, 0.01, 11)
    m = M.slider_crank()
    driven = m.simulate_flexible(t, drives={"crank": ConstantSpeed(150.0)}, dt=1e-4, rtol=None)
    assert "extrapolated" in driven.stats["axial_force"]
    assert driven.stats["solves"] == driven.stats["steps"] == 100
    free = m.simulate_flexible(t, drives={"crank": Torque(0.0)}, zd0=[150.0], dt=1e-4, rtol=None)
    assert "extrapolated" not in free.stats["axial_force"] and free.stats["solves"] > free.stats["steps"]
    with pytest.raises(ValueError, match="axial_force = 'lagged' is not one of 'auto', 'extrapolated', 'iterated'"):
        m.simulate_flexible(t, drives={"crank": ConstantSpeed(150.0)}, axial_force="lagged")


def test_two_way_initial_elastic_velocities():
    """dd0: the rod of a slider-crank held still (crank at zero speed, no gravity on the
    frame's motion) started with the velocity of its first pinned-pinned mode vibrates as
    that mode, d(t) = phi v sin(omega t) / omega (the frame does not move, so the elastic
    equation is the link's own M d'' + K d = 0).  Trapezoidal steps (rho_inf = 1) at
    omega h = 2 pi / 400 lag by (omega h)^2 / 12 per radian: 2.6e-4 of the amplitude
    after two periods (measured 2.6e-4).  Bad names and shapes are refused as d0's."""
    m = M.slider_crank(geometric_stiffness=False)
    rod = m.link("rod")
    ev = rod.body.eigenvalues(1, supports=rod.supports)
    w, phi = ev.angular_frequencies[0], ev.mode_shapes[:, 0]
    period = 2 * math.pi / w
    t = np.linspace(0.0, 2 * period, 41)
    v = 1e-3 * w * phi / np.abs(phi).max()  # 1 mm of amplitude
    drives = {"crank": ConstantSpeed(0.0)}
    fm = m.simulate_flexible(t, drives=drives, dd0={"rod": v}, dt=period / 400, rho_inf=1.0, rtol=None)
    exact = np.outer(np.sin(w * t) / w, v)
    assert np.abs(fm.d["rod"] - exact).max() <= 3.5e-4 * np.abs(exact).max()
    assert np.abs(fm.d_t["rod"] - np.outer(np.cos(w * t), v)).max() <= 3.5e-4 * np.abs(v).max()
    with pytest.raises(ValueError, match="dd0: unknown links 'crank'"):
        m.simulate_flexible(t, drives=drives, dd0={"crank": v}, rtol=None)
    with pytest.raises(ValueError, match=r"dd0\['rod'\]"):
        m.simulate_flexible(t, drives=drives, dd0={"rod": v[:-1]}, rtol=None)
    with pytest.raises(TypeError, match="dd0 must be a dict"):
        m.simulate_flexible(t, drives=drives, dd0=v, rtol=None)


def test_two_way_accuracy_target_is_bounded_and_says_so():
    """An rtol beyond max_steps: the finest run within it, a RuntimeWarning naming the
    estimate, stats['accurate'] False; a bad rtol or a max_steps below one run: ValueError."""
    t = np.linspace(0.0, 0.01, 11)
    drives = {"crank": ConstantSpeed(150.0)}
    m = M.slider_crank(elements=4)
    with pytest.warns(RuntimeWarning, match="exceeds rtol = 1e-09"):
        fm = m.simulate_flexible(t, drives=drives, rtol=1e-9, max_steps=400)
    assert not fm.stats["accurate"] and fm.stats["error_estimate"] > 1e-9 and fm.stats["steps"] <= 3 * 400
    for kw, text in ((dict(rtol=0.0), "rtol"), (dict(rtol=2.0), "rtol"), (dict(rtol=float("nan")), "rtol"),
                     (dict(rtol=5e-324), "rtol"),  # atol / rtol would overflow: a zero estimate
                     (dict(atol=-1.0), "atol")):
        with pytest.raises(ValueError, match=text):
            m.simulate_flexible(t, drives=drives, **kw)
    # fewer max_steps than one run takes: refused before any step, as simulate refuses it
    with pytest.raises(kanefem.StepLimitError, match="max_steps = 5"):
        m.simulate_flexible(t, drives=drives, max_steps=5)


def test_coupled_accelerations_with_k_g_settle_at_round_off():
    """The accelerations with K_G iterate on the links' axial forces (which depend on them
    through the joint forces); for a frame fixed at one end they do not, and the iteration's
    change stagnates at round-off (1e-13 of N): it is settled there.  The former test
    (1e-13) refused 87 of 300 states of a swinging pendulum as 'the axial forces of K_G do
    not settle' (found integrating the model with DOP853)."""
    from kanefem import _core

    m = _flexible_pendulum()
    L = m.link("beam")
    nf = int((~L._fixed).sum())
    links = _records.links([dict(body=m._bidx["beam"], geometric=True)])
    free = _records.drives([dict(mode="free")])
    rng = np.random.default_rng(1)
    for _ in range(300):
        d = rng.normal(size=nf) * np.tile([1e-7, 1e-2, 1e-2], nf // 3)
        dd = rng.normal(size=nf) * np.tile([1e-3, 0.3, 0.3], nf // 3)
        r = _core.mech_flex_dynamics(m._core, links, [L.body._body], [L._fixed], free, [None], 0.0,
                                     m.drawing_coordinates(), rng.uniform(-4, 1, 1), rng.normal(size=1) * 5, d, dd)
        assert np.all(np.isfinite(r["zdd"])) and np.all(np.isfinite(r["ddd"]))


def test_two_way_extrapolated_axial_force_is_second_order_and_one_solve_a_step():
    """axial_force="extrapolated": K_G's N extrapolated from the two converged steps before,
    held through the step.  The slider-crank (crank driven: every rigid coordinate
    prescribed) then solves each step once (the step's equations are affine, the iteration
    matrix their exact tangent): one factorization and one solve per step, two evaluations
    (the step's and its converged state's, for N).  It converges to the iterated scheme's
    curve (4000 steps: 1.3e-5 of the peak apart) at order 2 (250 -> 500 steps: measured
    1.99), and 250 steps per turn are within 1 % of it (0.97 %).  With a free rigid
    coordinate (the flexible pendulum) Newton iterates as before, to the same answer."""
    T = 2 * math.pi / 150
    t = np.linspace(0.0, T, 51)
    drives = {"crank": ConstantSpeed(150.0)}

    def run(steps, axial_force):
        return M.slider_crank(geometric_stiffness=True).simulate_flexible(
            t, drives=drives, dt=T / steps, rho_inf=0.9, rtol=None, axial_force=axial_force)

    fine = run(4000, "extrapolated")
    ref = fine.deflection("rod", 0.15)
    peak = np.abs(ref).max()
    assert np.abs(run(4000, "iterated").deflection("rod", 0.15) - ref).max() < 1e-4 * peak  # 1.3e-5
    assert "extrapolated" in fine.stats["axial_force"]
    errors = []
    for steps in (250, 500):
        fm = run(steps, "extrapolated")
        assert fm.stats["solves"] == fm.stats["factorizations"] == fm.stats["steps"] == steps
        assert fm.stats["evaluations"] == 2 * steps + 1
        errors.append(np.abs(fm.deflection("rod", 0.15) - ref).max() / peak)
    assert errors[0] < 1e-2, errors  # measured 0.97 %
    assert math.log2(errors[0] / errors[1]) > 1.8, errors  # measured 1.99
    Th = 0.966
    tp = np.linspace(0.0, Th, 61)
    swing = dict(drives={"angle": Torque(0.0)}, rtol=None, dt=Th / 2000)
    it = _flexible_pendulum().simulate_flexible(tp, **swing)
    ex = _flexible_pendulum().simulate_flexible(tp, axial_force="extrapolated", **swing)
    tip = it.d["beam"][:, -2]
    assert np.abs(ex.d["beam"][:, -2] - tip).max() < 1e-3 * np.abs(tip).max()  # measured 1.1e-4
    with pytest.raises(ValueError, match="axial_force"):
        _flexible_pendulum().simulate_flexible(tp, axial_force="lagged", **swing)
