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
from kanefem import GeometryError, mechanism as M
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
