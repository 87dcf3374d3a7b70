"""Spatial mechanisms (docs/theory.md sections 5.14-5.16; issue 22).

Each check compares independent routes: planar mechanisms described in space against
the planar solver; a robot arm's joint torques and joint forces against Pinocchio's
recursive Newton-Euler algorithm (Featherstone 2008), an implementation from outside
the code; spatial linkages against closed forms (an offset slider-crank, an RSUR
four-bar, Bennett's linkage), their rates differentiated by SymPy; a free spatial
double pendulum's energy and angular momentum; the rotating-blade frequencies of
Southwell's form (Wright et al. 1982) through the one-way links.
"""

import math

import numpy as np
import pytest

import kanefem
from kanefem import GeometryError, mechanism as M
from kanefem.mechanism import (ConstantSpeed, Coordinate, Cylindrical, Fixed, Mechanism, Path as ZPath,
                               Planar, Prismatic, Revolute, SpatialBody, SpatialLink, Spherical, Torque,
                               Universal)
from kanefem.mechanism.robots import dh_chain, dh_transforms

sp = pytest.importorskip("sympy")


def unit(v):
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


def rod_inertia(m, L, axis):
    """A slender rod's inertia tensor about its centre (global axes = body axes here)."""
    a = unit(axis)
    return m * L * L / 12 * (np.eye(3) - np.outer(a, a)) + 1e-6 * m * np.eye(3)


# ---------------------------------------------------------------- planar mechanisms in space


@pytest.mark.parametrize("which", ["slider_crank", "four_bar", "windpump"])
def test_planar_mechanisms_described_in_space_equal_the_planar_solver(which):
    """The same motion, drive, joint forces and link eigenvalues (K_G from the joint
    forces) as the planar solver, to round-off: 1e-12 of each quantity's scale (the
    measured differences are 1e-16..3e-14 relative; the integrations take the same
    steps, since their right-hand sides agree to round-off)."""
    if which == "windpump":
        P = kanefem.WindPump().mechanism()
        drives = {"alpha": ConstantSpeed(140 * 2 * math.pi / 60)}
    elif which == "four_bar":
        P = M.four_bar()
        drives = {"crank": Torque(0.8)}
    else:
        P = M.slider_crank(crank_mass=0.3, crank_inertia=2e-3, gravity=(0.0, -9.81))
        drives = {"crank": ConstantSpeed(30.0)}
    S = Mechanism.from_planar(P)
    assert S.space == 3 and S.redundant == "independent"
    mp = P.solve(duration=0.3, points=31, drives=drives)
    ms = S.solve(duration=0.3, points=31, drives=drives)
    for a, b in ((mp.z, ms.z), (mp.zd, ms.zd), (mp.zdd, ms.zdd), (mp.force, ms.force)):
        assert np.abs(a - b).max() <= 1e-12 * max(1.0, np.abs(a).max())
    assert np.abs(mp.q[:, :, :2] - ms.q[:, :, :2]).max() <= 1e-12
    assert np.abs(ms.q[:, :, 2]).max() <= 1e-12  # the plane z = 0
    fp, fs = P.joint_forces(mp), S.joint_forces(ms)
    scale = np.abs(fp.joints).max()
    assert np.abs(fp.joints[:, :, :2] - fs.joints[:, :, :2]).max() <= 1e-12 * scale
    assert np.abs(fp.joints[:, :, 2] - fs.joints[:, :, 5]).max() <= 1e-12 * scale
    assert np.abs(fs.joints[:, :, 2:5]).max() <= 1e-12 * scale  # nothing out of the plane
    assert np.abs(fp.drive - fs.drive).max() <= 1e-12 * max(1.0, np.abs(fp.drive).max())
    for name, ep in P.link_eigenvalues(mp).items():
        es = S.link_eigenvalues(ms)[name]
        assert np.abs(ep.eigenvalues - es.eigenvalues).max() <= 1e-12 * np.abs(ep.eigenvalues).max()
        assert np.abs(fp.link_axial[name] - fs.link_axial[name]).max() <= 1e-12 * np.abs(fp.link_axial[name]).max()


# ---------------------------------------------------------------- robot arms: Pinocchio's RNEA


def arm_table():
    """A 3-link arm with its axes in three directions (standard DH), drawn away from
    any symmetric pose."""
    return np.array([[0.3, 0.4, 0.05, math.pi / 2], [-0.7, 0.0, 0.45, 0.0], [1.1, 0.02, 0.35, -0.4]])


def arm_links():
    """Masses, mass centres (own frames) and full inertia tensors (off-diagonal terms)."""
    m = np.array([4.0, 2.5, 1.2])
    c = np.array([[0.0, -0.12, 0.03], [-0.2, 0.01, 0.02], [-0.15, 0.0, -0.01]])
    inertias = []
    for k, (a, b, cc, d) in enumerate([(0.05, 0.04, 0.03, 0.004), (0.01, 0.06, 0.055, -0.003),
                                       (0.004, 0.02, 0.021, 0.002)]):
        inertias.append(np.array([[a, d, 0.3 * d], [d, b, -0.5 * d], [0.3 * d, -0.5 * d, cc]]))
    return m, c, np.array(inertias)


def pinocchio_arm(table, m, c, inertias, convention):
    """The same arm as a Pinocchio model: each joint about its local z, placed by the
    DH transforms' constant parts."""
    pin = pytest.importorskip("pinocchio")
    model = pin.Model()
    parent = 0
    placement = pin.SE3.Identity()
    for i, (theta, d, a, alpha) in enumerate(table):
        if convention == "standard":
            C = np.eye(4)
            C[:3, 3] = (a, 0.0, d)
            ca, sa = math.cos(alpha), math.sin(alpha)
            C[:3, :3] = [[1, 0, 0], [0, ca, -sa], [0, sa, ca]]
            jid = model.addJoint(parent, pin.JointModelRZ(), placement, f"j{i}")
            # link i's frame is C in the joint's frame
            R, p = C[:3, :3], C[:3, 3]
            model.appendBodyToJoint(jid, pin.Inertia(float(m[i]), p + R @ c[i], R @ inertias[i] @ R.T),
                                    pin.SE3.Identity())
            placement = pin.SE3(R, p)
        parent = jid
    return pin, model


def test_arm_joint_torques_and_forces_equal_pinocchio_rnea():
    """A 3-link arm (axes in three directions, offset mass centres, full inertia
    tensors, gravity) following prescribed joint trajectories: kanefem's drive torques
    and joint forces (Kane's projection, the constraints' multipliers) against
    Pinocchio's recursive Newton-Euler algorithm at every instant, to 1e-10 of the
    torques' scale (both exact to round-off; measured ~1e-14)."""
    table = arm_table()
    m, c, inertias = arm_links()
    arm = dh_chain(table, masses=m, centres=c, inertias=inertias)
    pin, model = pinocchio_arm(table, m, c, inertias, "standard")
    data = model.createData()
    amp, w, ph = np.array([0.8, 0.6, 1.2]), np.array([3.0, 5.0, 7.0]), np.array([0.1, 0.4, -0.3])
    q0 = table[:, 0]

    def path(i):
        return ZPath(lambda t: (q0[i] + amp[i] * (np.sin(w[i] * t + ph[i]) - np.sin(ph[i])),
                                amp[i] * w[i] * np.cos(w[i] * t + ph[i]),
                                -amp[i] * w[i] ** 2 * np.sin(w[i] * t + ph[i])))

    motion = arm.solve(duration=1.0, points=41, drives={f"q{i + 1}": path(i) for i in range(3)})
    forces = arm.joint_forces(motion)
    assert np.abs(forces.drive - motion.force).max() <= 1e-10 * np.abs(motion.force).max()
    tau = np.array([pin.rnea(model, data, motion.z[k], motion.zd[k], motion.zdd[k]).copy()
                    for k in range(len(motion.t))])
    scale = np.abs(tau).max()
    assert scale > 5.0
    assert np.abs(motion.force - tau).max() <= 1e-10 * scale
    # the joint forces: Pinocchio's f[i] is the whole wrench joint i transmits (actuation
    # included), in the joint's frame about its origin; kanefem's is the constraint's,
    # global, about the joint's point, the drive torque along the axis apart
    for k in range(0, len(motion.t), 5):
        pin.rnea(model, data, motion.z[k], motion.zd[k], motion.zdd[k])
        pin.forwardKinematics(model, data, motion.z[k])
        for i in range(3):
            R = data.oMi[i + 1].rotation
            F, Mo = R @ data.f[i + 1].linear, R @ data.f[i + 1].angular
            axis = R[:, 2]
            assert np.abs(forces.joints[k, i, :3] - F).max() <= 1e-10 * scale
            assert np.abs(forces.joints[k, i, 3:] + motion.force[k, i] * axis - Mo).max() <= 1e-10 * scale


def test_arm_free_motion_under_torques_equals_pinocchio_aba():
    """Forward dynamics: kanefem's accelerations under given joint torques against
    Pinocchio's articulated-body algorithm at random states (1e-10 relative)."""
    table = arm_table()
    m, c, inertias = arm_links()
    arm = dh_chain(table, masses=m, centres=c, inertias=inertias)
    pin, model = pinocchio_arm(table, m, c, inertias, "standard")
    data = model.createData()
    rng = np.random.default_rng(3)
    z = table[:, 0] + 0.02 * np.cumsum(rng.normal(size=(20, 3)), axis=0)
    zd = rng.normal(size=(20, 3))
    tau = 5 * rng.normal(size=(20, 3))
    acc = arm.accelerations(z, zd, tau)
    ref = np.array([pin.aba(model, data, z[k], zd[k], tau[k]).copy() for k in range(20)])
    assert np.abs(acc - ref).max() <= 1e-10 * np.abs(ref).max()


def test_dh_modified_and_standard_chains_are_the_same_arm():
    """Craig's modified table of the standard arm gives the same frames and the same
    torques (the conventions differ in bookkeeping only)."""
    table = arm_table()
    fs, _ = dh_transforms(table)
    # Craig: alpha_{i-1}, a_{i-1} move to the next row; the last link's end frame lies
    # outside the modified chain
    mod = np.column_stack([table[:, 0], table[:, 1], np.r_[0.0, table[:-1, 2]], np.r_[0.0, table[:-1, 3]]])
    fm, _ = dh_transforms(mod, convention="modified")
    # frame i (modified) = frame i-1 (standard) turned by theta_i, moved by d_i
    for i in range(1, 3):
        T = fs[i - 1].copy()
        ref = T @ np.array([[math.cos(table[i, 0]), -math.sin(table[i, 0]), 0, 0],
                            [math.sin(table[i, 0]), math.cos(table[i, 0]), 0, 0], [0, 0, 1, table[i, 1]],
                            [0, 0, 0, 1]])
        assert np.abs(fm[i] - ref).max() <= 1e-14
    m, c, inertias = arm_links()
    # the same links, their mass centres and tensors moved to the modified frames
    cm, Im = [], []
    for i in range(3):
        rel = np.linalg.solve(fm[i], fs[i])
        cm.append(rel[:3, :3] @ c[i] + rel[:3, 3])
        Im.append(rel[:3, :3] @ inertias[i] @ rel[:3, :3].T)
    a_std = dh_chain(table, masses=m, centres=c, inertias=inertias)
    a_mod = dh_chain(mod, masses=m, centres=np.array(cm), inertias=np.array(Im), convention="modified")
    z = np.array([[0.3, -0.7, 1.1], [0.5, -0.2, 0.4]])
    zd = np.array([[1.0, -2.0, 0.5], [0.3, 0.2, -1.5]])
    assert np.abs(a_std.accelerations(z, zd) - a_mod.accelerations(z, zd)).max() <= 1e-11


# ---------------------------------------------------------------- spatial linkages: closed forms


def offset_slider_crank(r=0.1, l=0.35, h=0.04, e=0.06):
    """A crank in the x-y plane about z, its rod to a slider guided along x at height e
    above the crank's plane and h aside: revolute, spherical, universal, prismatic."""
    th0 = 0.0
    A = np.array([r, 0.0, 0.0])
    xB = r + math.sqrt(l * l - h * h - e * e)
    B = np.array([xB, h, e])
    d = unit(B - A)
    bodies = [SpatialBody("crank", 0.5, rod_inertia(0.5, r, (1, 0, 0)), centre=A / 2),
              SpatialBody("rod", 0.8, rod_inertia(0.8, l, d), centre=(A + B) / 2),
              SpatialBody("slider", 1.5, (1e-3, 1e-3, 1e-3), centre=B)]
    a2 = unit(np.cross(d, (0, 1, 0)))
    joints = [Revolute("O", ("ground", "crank"), (0, 0, 0), axis=(0, 0, 1), offset=th0),
              Spherical("A", ("crank", "rod"), A),
              Universal("B", ("slider", "rod"), B, axes=((0, 1, 0), a2)),
              Prismatic("guide", ("ground", "slider"), B, axis=(1, 0, 0))]
    return Mechanism(bodies, joints, [Coordinate("crank", joint="O")], gravity=(0, 0, -9.81)), (r, l, h, e)


def test_offset_slider_crank_against_its_closed_form():
    """The slider's position, velocity and acceleration against x = r cos t + sqrt(l^2 -
    (h - r sin t)^2 - e^2) and its derivatives (SymPy), at a driven crank speed, to
    1e-12 m (positions: Newton's tolerance 1e-10 L polished to round-off; rates: one
    linear solve)."""
    mech, (r, l, h, e) = offset_slider_crank()
    t = sp.Symbol("t")
    x = r * sp.cos(t) + sp.sqrt(l**2 - (h - r * sp.sin(t)) ** 2 - e**2)
    f = [closed_form(x, t, k) for k in range(3)]
    th = np.linspace(0, 2 * math.pi, 13)
    w = 7.0
    k = mech.kinematics(th[:, None], np.full((13, 1), w), np.full((13, 1), 2.0))
    xs = k["q"][:, 2, 0]
    ref = np.array([f[0](a) for a in th])
    assert np.abs(xs - ref).max() <= 1e-12
    v = np.array([f[1](a) * w for a in th])
    acc = np.array([f[2](a) * w * w + f[1](a) * 2.0 for a in th])
    assert np.abs(k["qd"][:, 2, 0] - v).max() <= 1e-12 * np.abs(v).max()
    assert np.abs(k["qdd"][:, 2, 0] - acc).max() <= 1e-12 * np.abs(acc).max()
    # the slider neither leaves its guide nor turns
    assert np.abs(k["q"][:, 2, 1:3] - (h, e)).max() <= 1e-12
    assert np.abs(k["q"][:, 2, 3:] - (1, 0, 0, 0)).max() <= 1e-12


def rsur(theta0=0.6):
    """A spatial four-bar: crank about z at the origin, coupler with a spherical and a
    universal end, rocker about a skew axis through D."""
    r, l = 0.12, 0.40
    D, b = np.array([0.30, 0.10, 0.15]), unit((0.3, -0.4, 0.8))
    u = unit(np.cross(b, (1, 0, 0)))  # the rocker arm's direction in the drawing, _|_ b
    c = 0.25
    A = np.array([r * math.cos(theta0), r * math.sin(theta0), 0.0])
    # the rocker angle phi (about b, from u) where |B - A| = l: B = D + c (cos phi u + sin phi (b x u))
    v = np.cross(b, u)
    P, Q, R = (2 * c * u @ (D - A), 2 * c * v @ (D - A), (D - A) @ (D - A) + c * c - l * l)
    phi = 2 * math.atan((Q + math.sqrt(P * P + Q * Q - R * R)) / (P - R))
    B = D + c * (math.cos(phi) * u + math.sin(phi) * v)
    dc = unit(B - A)
    bodies = [SpatialBody("crank", 0.4, rod_inertia(0.4, r, A), centre=A / 2),
              SpatialBody("coupler", 1.0, rod_inertia(1.0, l, dc), centre=(A + B) / 2),
              SpatialBody("rocker", 0.7, rod_inertia(0.7, c, B - D), centre=(B + D) / 2)]
    joints = [Revolute("O", ("ground", "crank"), (0, 0, 0), axis=(0, 0, 1), offset=theta0),
              Spherical("A", ("crank", "coupler"), A),
              Universal("B", ("coupler", "rocker"), B, axes=(unit(np.cross(dc, b)), b)),
              Revolute("D", ("ground", "rocker"), D, axis=b, offset=phi)]
    geometry = dict(r=r, l=l, c=c, D=D, b=b, u=u, v=v)
    return Mechanism(bodies, joints, [Coordinate("crank", joint="O")]), geometry


def closed_form(expr, x, k):
    """The k-th derivative of a SymPy expression in x as a function of floats, evaluated
    in 30 digits (the closed forms cancel digits: 4e-10 of the acceleration lost in
    doubles)."""
    import mpmath

    f = sp.lambdify(x, sp.diff(expr, x, k), "mpmath")

    def value(v):
        with mpmath.workdps(30):
            return float(f(mpmath.mpf(v)))

    return value


def test_rsur_four_bar_against_its_closed_form():
    """The rocker angle phi(theta) = 2 atan((Q + sqrt(P^2 + Q^2 - R^2)) / (P - R)) of the
    loop |B(phi) - A(theta)| = l, and its first two derivatives by SymPy (30 digits),
    against the rocker's rotation and angular velocity and acceleration (1e-12 rad and
    relative; measured 3e-14)."""
    mech, g = rsur()
    th = sp.Symbol("th")
    D, b, u, v = (sp.Matrix([sp.Float(x, 30) for x in g[k]]) for k in ("D", "b", "u", "v"))
    r, c, l = (sp.Float(g[k], 30) for k in ("r", "c", "l"))
    A = sp.Matrix([r * sp.cos(th), r * sp.sin(th), 0])
    P, Q = 2 * c * u.dot(D - A), 2 * c * v.dot(D - A)
    R = (D - A).dot(D - A) + c**2 - l**2
    phi = 2 * sp.atan((Q + sp.sqrt(P**2 + Q**2 - R**2)) / (P - R))
    f = [closed_form(phi, th, k) for k in range(3)]
    thetas = 0.6 + np.linspace(0.0, 1.5, 11)
    w, al = 4.0, -3.0
    k = mech.kinematics(thetas[:, None], np.full((11, 1), w), np.full((11, 1), al))
    motion_q = k["q"]
    Rr = M.spatial.quaternions_matrices(motion_q[:, 2, 3:])
    R0 = M.spatial.quaternions_matrices(np.array(mech.bodies[2].orientation))
    phi0 = f[0](0.6)
    for i, t in enumerate(thetas):
        # the rocker turned about b by phi - phi0 since the drawing
        rel = Rr[i] @ R0.T
        angle = math.atan2(np.cross(np.asarray(g["u"]), rel @ g["u"]) @ g["b"], g["u"] @ rel @ g["u"])
        assert abs(wrap(angle - (f[0](t) - phi0))) <= 1e-12
        wg = Rr[i] @ k["qd"][i, 2, 3:]
        eg = Rr[i] @ k["qdd"][i, 2, 3:]
        assert np.abs(wg - f[1](t) * w * g["b"]).max() <= 1e-12 * w
        assert np.abs(eg - (f[2](t) * w * w + f[1](t) * al) * g["b"]).max() <= 1e-12 * w * w


def wrap(x):
    return (x + math.pi) % (2 * math.pi) - math.pi


def bennett(theta1=0.9, a=0.3, alpha=math.radians(40), beta=math.radians(70)):
    """Bennett's linkage (Bennett 1903): links (a, alpha), (b, beta), (a, alpha), (b,
    beta), a / sin(alpha) = b / sin(beta), four revolutes; the ground is the fourth
    link.  With T_i = Rz(theta_i) Tx(a_i) Rx(alpha_i): theta3 = -theta1, theta4 =
    -theta2 and tan(theta1/2) tan(theta2/2) = sin((beta + alpha)/2) / sin((beta -
    alpha)/2)."""
    b = a * math.sin(beta) / math.sin(alpha)
    K = math.sin((beta + alpha) / 2) / math.sin((beta - alpha) / 2)
    th2 = 2 * math.atan(K / math.tan(theta1 / 2))
    table = [(theta1, 0.0, a, alpha), (th2, 0.0, b, beta), (-theta1, 0.0, a, alpha)]
    frames, joints = dh_transforms(table)
    bodies, js = [], []
    names = ["l1", "l2", "l3"]
    for i in range(3):
        p0, p1 = joints[i][:3, 3], frames[i][:3, 3]
        bodies.append(SpatialBody(names[i], 1.0 + 0.2 * i, rod_inertia(1.0 + 0.2 * i, np.linalg.norm(p1 - p0),
                                                                       p1 - p0),
                                  centre=(p0 + p1) / 2, orientation=frames[i][:3, :3]))
        js.append(Revolute(f"J{i + 1}", ("ground" if i == 0 else names[i - 1], names[i]), p0,
                           axis=joints[i][:3, 2], offset=table[i][0]))
    js.append(Revolute("J4", ("l3", "ground"), frames[2][:3, 3], axis=frames[2][:3, 2], offset=-th2))
    return js, bodies, K


def test_bennett_linkage_against_its_closed_form_and_its_redundancy_is_named():
    """Bennett's overconstrained linkage: refused as it stands, naming the rows that
    depend on the others and the rank (17 of 20); with an independent set kept, its
    motion follows tan(theta1/2) tan(theta2/2) = K exactly (1e-11 rad) and theta2's
    rate and acceleration (1e-10 relative)."""
    js, bodies, K = bennett()
    with pytest.raises(ValueError, match=r"redundant constraints: the joints' 20 rows have rank 17.*J4"):
        Mechanism(bodies, js, [Coordinate("t1", joint="J1")])
    mech = Mechanism(bodies, js, [Coordinate("t1", joint="J1")], redundant="independent")
    t = sp.Symbol("t")
    th2 = 2 * sp.atan(K / sp.tan(t / 2))
    f = [closed_form(th2, t, k) for k in range(3)]
    th = np.linspace(0.9, 2.4, 9)
    w, al = 2.0, 1.5
    k = mech.kinematics(th[:, None], np.full((9, 1), w), np.full((9, 1), al))
    motion = M.results.MechanismMotion(t=th, z=th[:, None], zd=np.full((9, 1), w), zdd=np.full((9, 1), al),
                                       force=np.zeros((9, 1)), q=k["q"], qd=k["qd"], qdd=k["qdd"], frames={},
                                       stats={}, mechanism=mech)
    j = motion.joint_coordinates()
    assert np.abs(wrap(j["J2"][:, 0] - [f[0](x) for x in th])).max() <= 1e-11
    assert np.abs(wrap(j["J3"][:, 0] + th)).max() <= 1e-11
    # theta2' = (w2 - w1) . z2 in global axes
    R = M.spatial.quaternions_matrices(k["q"][:, :, 3:])
    for i, x in enumerate(th):
        z2 = R[i, 0] @ np.array([0, 0, 1.0])  # joint 2's axis is link 1's frame z
        w1, w2 = R[i, 0] @ k["qd"][i, 0, 3:], R[i, 1] @ k["qd"][i, 1, 3:]
        e1, e2 = R[i, 0] @ k["qdd"][i, 0, 3:], R[i, 1] @ k["qdd"][i, 1, 3:]
        assert abs((w2 - w1) @ z2 - f[1](x) * w) <= 1e-10 * w
        # d/dt of (w2 - w1) . z2 = (e2 - e1) . z2 + (w2 - w1) . (w1 x z2)
        acc = (e2 - e1) @ z2 + (w2 - w1) @ np.cross(w1, z2)
        assert abs(acc - (f[2](x) * w * w + f[1](x) * al)) <= 1e-10 * w * w


# ---------------------------------------------------------------- energy and momentum


def spherical_double_pendulum(gravity=(0.0, 0.0, -9.81)):
    """Two rods on spherical joints, drawn tilted, coordinates the joints' angles."""
    p1, p2 = np.array([0.0, 0.0, 0.0]), np.array([0.25, 0.1, -0.4])
    p3 = p2 + np.array([-0.1, 0.3, -0.2])
    bodies = [SpatialBody("upper", 1.5, rod_inertia(1.5, 0.48, p2 - p1) + 0.002 * np.eye(3),
                          centre=(p1 + p2) / 2),
              SpatialBody("lower", 0.9, rod_inertia(0.9, 0.37, p3 - p2), centre=(p2 + p3) / 2)]
    joints = [Spherical("S1", ("ground", "upper"), p1), Spherical("S2", ("upper", "lower"), p2)]
    coords = [Coordinate(f"{j}{c}", joint=j, component=c) for j in ("S1", "S2") for c in ("rx", "ry", "rz")]
    return Mechanism(bodies, joints, coords, gravity=gravity)


def energy_and_momentum(mech, motion):
    """Kinetic plus potential energy, and the angular momentum about the origin."""
    T = V = 0.0
    H = np.zeros((len(motion.t), 3))
    E = np.zeros(len(motion.t))
    g = np.asarray(mech.gravity)
    for b, body in enumerate(mech.bodies):
        v, w = motion.qd[:, b, :3], motion.qd[:, b, 3:]
        I = np.asarray(body.inertia)
        R = M.spatial.quaternions_matrices(motion.q[:, b, 3:])
        T = 0.5 * body.mass * np.sum(v * v, axis=1) + 0.5 * np.einsum("ti,ij,tj->t", w, I, w)
        V = -body.mass * motion.q[:, b, :3] @ g
        E += T + V
        H += body.mass * np.cross(motion.q[:, b, :3], v) + np.einsum("tij,jk,tk->ti", R, I, w)
    return E, H


def test_free_spatial_double_pendulum_conserves_energy_and_momentum():
    """A free double pendulum on spherical joints (six coordinates): its energy stays
    within the integrator's tolerance (rtol 1e-10: 1e-8 of m g L over the swing), and
    without gravity its angular momentum about the fixed pivot too."""
    mech = spherical_double_pendulum()
    zd0 = np.array([0.5, -1.0, 2.0, 1.5, 0.3, -0.8])
    motion = mech.solve(duration=1.0, points=51, zd0=zd0, rtol=1e-10, atol=1e-12)
    E, _ = energy_and_momentum(mech, motion)
    mgL = 1.5 * 9.81 * 0.48
    assert np.ptp(E) <= 1e-8 * mgL
    free = spherical_double_pendulum(gravity=(0.0, 0.0, 0.0))
    motion = free.solve(duration=1.0, points=51, zd0=zd0, rtol=1e-10, atol=1e-12)
    E, H = energy_and_momentum(free, motion)
    assert np.ptp(E) <= 1e-8 * abs(E[0])
    assert np.abs(H - H[0]).max() <= 1e-8 * np.linalg.norm(H[0])


# ---------------------------------------------------------------- joints, force laws, springs


def test_cylindrical_joint_force_laws_against_damped_oscillators():
    """A body on a vertical cylindrical joint with a spring and damper on its slide and
    on its angle, under gravity: two independent damped oscillators, x(t) and theta(t)
    in closed form (1e-8 of the amplitude: the integrator's rtol 1e-10 over a few
    periods)."""
    m, Izz, k1, c1, k2, c2 = 2.0, 0.05, 800.0, 4.0, 3.0, 0.02
    body = SpatialBody("b", m, (0.08, 0.07, Izz), centre=(0.1, 0.0, 0.5))
    joint = Cylindrical("C", ("ground", "b"), (0.0, 0.0, 0.5), axis=(0, 0, 1), k=(k1, k2), damping=(c1, c2),
                        s0=(0.0, 0.0), offset=(0.0, 0.0))
    mech = Mechanism([body], [joint], [Coordinate("s", joint="C", component="slide"),
                                       Coordinate("th", joint="C", component="angle")], gravity=(0, 0, -9.81))
    x0, v0, a0, w0 = 0.01, -0.2, 0.3, 2.0
    motion = mech.solve(duration=0.6, points=61, z0=[x0, a0], zd0=[v0, w0], rtol=1e-10, atol=1e-13)

    def damped(mass, k, c, x0, v0, t, offset=0.0):
        wn, zeta = math.sqrt(k / mass), c / (2 * math.sqrt(k * mass))
        wd = wn * math.sqrt(1 - zeta**2)
        y0 = x0 - offset
        return offset + np.exp(-zeta * wn * t) * (y0 * np.cos(wd * t) + (v0 + zeta * wn * y0) / wd * np.sin(wd * t))

    t = motion.t
    xs = damped(m, k1, c1, x0, v0, t, offset=-m * 9.81 / k1)
    ths = damped(Izz + m * 0.1**2, k2, c2, a0, w0, t)  # its centre 0.1 m off the axis
    assert np.abs(motion.z[:, 0] - xs).max() <= 1e-8 * 0.02
    assert np.abs(motion.z[:, 1] - ths).max() <= 1e-8 * 0.5
    # the joint's coordinates as the motion gives them are the same
    jc = motion.joint_coordinates()["C"]
    assert np.abs(jc - motion.z).max() <= 1e-12


def test_planar_joint_and_point_spring_conserve_energy():
    """A body on a Planar joint to the ground (three coordinates) tethered by a point
    spring: its energy (with the spring's) stays within the tolerance, and it never
    leaves the plane or tilts."""
    body = SpatialBody("puck", 1.2, (0.02, 0.03, 0.04), centre=(0.2, 0.1, 0.3))
    joint = Planar("P", ("ground", "puck"), (0.2, 0.1, 0.3), normal=unit((0.2, -0.1, 1.0)))
    anchor = (0.0, 0.0, 0.3)
    spring = M.Spring("S", ("ground", "puck"), (anchor, (0.25, 0.1, 0.3)), k=50.0, length=0.1)
    coords = [Coordinate(c, joint="P", component=c) for c in ("x", "y", "angle")]
    mech = Mechanism([body], [joint], coords, [spring], gravity=(0.0, 0.0, -9.81))
    motion = mech.solve(duration=1.0, points=41, zd0=[0.3, -0.5, 4.0], rtol=1e-10, atol=1e-13)
    E, _ = energy_and_momentum(mech, motion)
    P = motion.point("puck", (0.25, 0.1, 0.3))
    E += 0.5 * 50.0 * (np.linalg.norm(P - anchor, axis=1) - 0.1) ** 2
    assert np.ptp(E) <= 1e-8 * np.abs(E).max()
    n = unit((0.2, -0.1, 1.0))
    assert np.abs((motion.q[:, 0, :3] - (0.2, 0.1, 0.3)) @ n).max() <= 1e-12
    Rb = M.spatial.quaternions_matrices(motion.q[:, 0, 3:])
    assert np.abs(Rb @ n - n).max() <= 1e-12  # it turns about the normal only


def test_description_errors_name_the_part():
    """Bad descriptions are refused with the part named."""
    b = SpatialBody("b", 1.0, (0.1, 0.1, 0.1))
    rev = Revolute("R", ("ground", "b"), (0, 0, 0), axis=(0, 0, 1))
    c = [Coordinate("q", joint="R")]
    with pytest.raises(ValueError, match="zero norm"):
        SpatialBody("b", 1.0, (1, 1, 1), orientation=(0, 0, 0, 0))
    with pytest.raises(ValueError, match="not a rotation matrix"):
        SpatialBody("b", 1.0, (1, 1, 1), orientation=[[1, 0, 0], [0, 1, 0.1], [0, 0, 1]])
    with pytest.raises(ValueError, match="b: inertia has principal moments"):
        SpatialBody("b", 1.0, (1.0, 1.0, 3.0))
    with pytest.raises(ValueError, match="b: inertia is not symmetric"):
        SpatialBody("b", 1.0, [[1, 0.1, 0], [0, 1, 0], [0, 0, 1]])
    with pytest.raises(ValueError, match="U: axes .* must be perpendicular"):
        Universal("U", ("ground", "b"), (0, 0, 0), axes=((1, 0, 0), (1, 1, 0)))
    with pytest.raises(ValueError, match="R: axis must not be zero"):
        Revolute("R", ("ground", "b"), (0, 0, 0), axis=(0, 0, 0))
    with pytest.raises(ValueError, match="in space use Fixed"):
        M.Weld("W", ("ground", "b"), (0, 0, 0))
    with pytest.raises(ValueError, match="takes no axis"):
        Revolute("R", ("ground", "b"), (0, 0), axis=(0, 0, 1))
    with pytest.raises(ValueError, match="unknown body 'c'"):
        Mechanism([b], [Revolute("R", ("ground", "c"), (0, 0, 0))], c)
    with pytest.raises(ValueError, match="joint 'R'.*part of the plane|part of space"):
        Mechanism([b], [Revolute("R", ("ground", "b"), (0, 0))], c)
    with pytest.raises(ValueError, match=r"6 x 1 - 5 = 1 degrees of freedom, but 2"):
        Mechanism([b], [rev], c + [Coordinate("x", body="b", component="x")])
    with pytest.raises(ValueError, match="component 'slide' is not a coordinate of joint 'R'"):
        Mechanism([b], [rev], [Coordinate("q", joint="R", component="slide")])
    with pytest.raises(ValueError, match="joint 'S' has the coordinates rx, ry, rz: give component"):
        Mechanism([b], [Spherical("S", ("ground", "b"), (0, 0, 0))], [Coordinate("q", joint="S")])
    with pytest.raises(ValueError, match="gravity must have shape"):
        Mechanism([b], [rev], c, gravity=(0, -9.81))
    # two coaxial revolutes: the second's rows depend on the first's; as records (the core's
    # own check: a Mechanism's drawing holds by construction) its point 1 cm off: inconsistent
    from kanefem import _core, _records

    I3 = np.eye(3)
    rows = [dict(kind="revolute", body=(-1, 0), p0=(0, 0, 0), p1=(0, 0, -0.05), f0=I3, f1=I3, name="R1"),
            dict(kind="revolute", body=(-1, 0), p0=(0, 0, 0.1), p1=(0, 0, 0.06), f0=I3, f1=I3, name="R2")]
    args = dict(bodies=_records.sbodies([dict(mass=1.0, inertia=0.1 * I3, r=(0, 0, 0.05), quat=(1, 0, 0, 0))]),
                joints=_records.sjoints(rows), springs=_records.ssprings([]),
                coords=_records.scoords([dict(kind="joint", index=0, component=0, name="q")]), gravity=np.zeros(3))
    with pytest.raises(ValueError, match=r"rank 5.*'R2' x of P1 - P0"):
        _core.smech_create(**args)
    with pytest.raises(GeometryError, match=r"joint 'R2' \(revolute\) fails its row z of P1 - P0 by 0\.01 m"):
        _core.smech_create(**args, redundant=1)
    rows[1]["p1"] = (0, 0, 0.05)  # coaxial and consistent: kept out, and it holds
    args["joints"] = _records.sjoints(rows)
    m = _core.smech_create(**args, redundant=1)
    assert (_core.smech_describe(m)["rows"], _core.smech_describe(m)["all_rows"]) == (5, 10)


def test_singular_positions_name_the_joint_and_the_instant():
    """A spherical pendulum whose driven angle ry reaches 90 deg (its angles' singular
    position), and an RSUR four-bar driven past the end of its range: GeometryError
    naming the joint and the time."""
    body = SpatialBody("bob", 1.0, (0.01, 0.01, 0.01), centre=(0, 0, -0.5))
    S = Spherical("S", ("ground", "bob"), (0, 0, 0))
    mech = Mechanism([body], [S], [Coordinate(f"a{c}", joint="S", component=c) for c in ("rx", "ry", "rz")])
    drives = {"ary": ZPath(lambda t: (1.2 * t, 1.2, 0.0)), "arx": ConstantSpeed(0.0), "arz": ConstantSpeed(0.0)}
    with pytest.raises(GeometryError, match=r"at t = 1\.3.*'S'"):
        mech.solve(duration=2.0, points=21, drives=drives)
    # a rod too short for the whole turn: its slider's dead point at sin(theta) = -(l^2 - e^2
    # - h^2)^(1/2) / r + h / r, theta = 3.83 rad, t = 1.28 s
    short, _ = offset_slider_crank(r=0.1, l=0.12)
    with pytest.raises(GeometryError, match=r"at t = 1\.2.*near a singular configuration.*joint 'A'"):
        short.solve(duration=2.0, points=21, drives={"crank": ConstantSpeed(3.0)})


# ---------------------------------------------------------------- TOML and URDF


def test_spatial_toml_round_trip_gives_the_same_mechanism(tmp_path):
    """Spatial descriptions written as TOML ([mechanism] space = "3d") and read back move
    the same (positions and speeds of every body, by name, to round-off)."""
    table = arm_table()
    m, c, inertias = arm_links()
    cases = [dh_chain(table, masses=m, centres=c, inertias=inertias), rsur()[0], offset_slider_crank()[0],
             spherical_double_pendulum(), Mechanism.from_planar(M.slider_crank())]
    js, bodies, _ = bennett()
    cases.append(Mechanism(bodies, js, [Coordinate("t1", joint="J1")], redundant="independent"))
    for mech in cases:
        back = Mechanism.from_toml(mech.to_toml(tmp_path / "m.toml"))
        assert back.space == 3 and back.redundant == mech.redundant
        z = mech.drawing_coordinates()
        assert np.abs(back.drawing_coordinates() - z).max() <= 1e-15
        zz, zd = z[None] + 0.1, np.ones((1, len(z)))
        k1, k2 = mech.kinematics(zz, zd), back.kinematics(zz, zd)
        for b in mech.bodies:
            i, j = mech._body_index(b.name), back._body_index(b.name)
            assert np.abs(k1["q"][:, i] - k2["q"][:, j]).max() <= 1e-14
            assert np.abs(k1["qd"][:, i] - k2["qd"][:, j]).max() <= 1e-13
    with pytest.raises(ValueError, match="space"):
        Mechanism.from_dict({"mechanism": {"space": "4d"}})
    with pytest.raises(ValueError, match=r"\[\[joint\]\] 'A': unknown key\(s\) 'normal'"):
        Mechanism.from_dict({"mechanism": {"space": "3d"}, "body": [{"name": "b", "mass": 1, "inertia": [1, 1, 1]}],
                             "joint": [{"name": "A", "kind": "spherical", "bodies": ["ground", "b"], "at": [0, 0, 0],
                                        "normal": [0, 0, 1]}]})


def arm_urdf(table, m, c, inertias):
    """The DH arm as URDF text: each joint's origin the DH constant part of the link
    before, each link's inertial in its own (DH) frame."""
    def rpy(R):
        return (math.atan2(R[2, 1], R[2, 2]), math.asin(-R[2, 0]), math.atan2(R[1, 0], R[0, 0]))

    def num(v):
        return " ".join(repr(float(x)) for x in np.atleast_1d(v))
    lines = ['<?xml version="1.0"?>', '<robot name="arm">', '  <link name="base"/>']
    prev = np.eye(4)
    for i, (theta, d, a, alpha) in enumerate(table):
        # joint i turns about z of frame i-1 (standard DH): the joint frame is frame i-1
        # turned by theta (the drawing), its child link's frame is C = Tz(d) Tx(a) Rx(alpha)
        # after it: a massless-free split into the joint's frame and a fixed offset
        Rt = np.array([[math.cos(theta), -math.sin(theta), 0], [math.sin(theta), math.cos(theta), 0], [0, 0, 1]])
        lines.append(f'  <joint name="j{i + 1}" type="revolute"><parent link="{"base" if i == 0 else f"l{i}"}"/>'
                     f'<child link="l{i + 1}"/><origin xyz="{num(prev[:3, 3])}" '
                     f'rpy="{num(rpy(prev[:3, :3] @ Rt))}"/><axis xyz="0 0 1"/>'
                     '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>')
        ca, sa = math.cos(alpha), math.sin(alpha)
        C = np.eye(4)
        C[:3, :3] = [[1, 0, 0], [0, ca, -sa], [0, sa, ca]]
        C[:3, 3] = (a, 0.0, d)
        lc = C[:3, :3] @ c[i] + C[:3, 3]
        Il = C[:3, :3] @ inertias[i] @ C[:3, :3].T
        lines.append(f'  <link name="l{i + 1}"><inertial><origin xyz="{num(lc)}" rpy="0 0 0"/>'
                     f'<mass value="{num(m[i])}"/><inertia ixx="{num(Il[0, 0])}" ixy="{num(Il[0, 1])}" '
                     f'ixz="{num(Il[0, 2])}" iyy="{num(Il[1, 1])}" iyz="{num(Il[1, 2])}" izz="{num(Il[2, 2])}"/>'
                     '</inertial></link>')
        prev = C
    lines.append("</robot>")
    return "\n".join(lines)


def test_urdf_arm_equals_the_dh_arm_and_pinocchios_own_urdf_reading(tmp_path):
    """The DH arm written as URDF: kanefem's reading (through yourdfpy) moves as the DH
    chain and its torques equal Pinocchio's RNEA on Pinocchio's own reading of the same
    file (urdfdom, an independent parser), to 1e-10 of their scale."""
    pytest.importorskip("yourdfpy")
    pin = pytest.importorskip("pinocchio")
    table = arm_table()
    m, c, inertias = arm_links()
    text = arm_urdf(table, m, c, inertias)
    path = tmp_path / "arm.urdf"
    path.write_text(text)
    robot = M.from_urdf(path)
    assert [co.name for co in robot.coordinates] == ["j1", "j2", "j3"]
    assert np.abs(robot.drawing_coordinates()).max() <= 1e-15  # the joint angles are zero in the file
    model = pin.buildModelFromXML(text)
    data = model.createData()
    rng = np.random.default_rng(5)
    z, zd, zdd = (rng.normal(size=(6, 3)) for _ in range(3))
    z = np.cumsum(0.1 * z, axis=0)
    k = robot.kinematics(z, zd, zdd)
    forces = robot._api["joint_forces"](robot._core, np.hstack([z, zd, zdd]))
    tau = np.array([pin.rnea(model, data, z[i], zd[i], zdd[i]).copy() for i in range(6)])
    assert np.abs(forces["drive"] - tau).max() <= 1e-10 * np.abs(tau).max()
    # the DH chain with coordinates q = theta0 + (the URDF's)
    arm = dh_chain(table, masses=m, centres=c, inertias=inertias)
    k2 = arm.kinematics(z + table[:, 0], zd, zdd)
    assert np.abs(k["q"][:, :, :3] - k2["q"][:, :, :3]).max() <= 1e-12


@pytest.mark.parametrize("bad, message", [
    ('<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute"><parent link="a"/>'
     '<child link="b"/><axis xyz="0 0 1"/></joint></robot>', "link 'b' has no <inertial>"),
    ('<robot name="r"><link name="a"/><link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" '
     'izz="3" ixy="0" ixz="0" iyz="0"/></inertial></link><joint name="j" type="revolute"><parent link="a"/>'
     '<child link="b"/><axis xyz="0 0 1"/></joint></robot>', "link 'b'.*principal moments"),
    ('<robot name="r"><link name="a"/><link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" '
     'izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link><link name="c"><inertial><mass value="1"/><inertia '
     'ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link><joint name="j" type="revolute">'
     '<parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint><joint name="k" type="revolute"><parent '
     'link="c"/><child link="b"/><axis xyz="0 0 1"/></joint></robot>', "closed loop"),
    ('<!DOCTYPE r [<!ENTITY x "xx">]><robot name="r"><link name="a"/></robot>', "DOCTYPE or ENTITY"),
    ('<robot name="r"><link name="a"/><link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" '
     'izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link><joint name="j" type="floating"><parent link="a"/>'
     '<child link="b"/></joint></robot>', "joint 'j' is 'floating'"),
    ('not xml at all', "not a URDF robot"),
])
def test_bad_urdf_files_are_refused_by_name(tmp_path, bad, message):
    pytest.importorskip("yourdfpy")
    path = tmp_path / "bad.urdf"
    path.write_text(bad)
    with pytest.raises(M.URDFError, match=message):
        M.from_urdf(path)


# ---------------------------------------------------------------- elastic links, one way


def spinning_blade(tilt, n_el=40):
    """A Beam3D blade (flat section: flap stiffness Iyy < lag Izz) welded radially to a hub
    turning about an axis tilted by ``tilt`` from z; the blade frame's z is the spin axis
    (flap), y the lag direction."""
    n = np.array([math.sin(tilt), 0.0, math.cos(tilt)])
    x = np.array([math.cos(tilt), 0.0, -math.sin(tilt)])
    beam = kanefem.Beam3D(1.0, n_el, E=70e9, A=1e-3, Izz=2e-7, Iyy=1e-8, J=1e-8, rho=2700.0)
    hub = SpatialBody("hub", 5.0, (0.1, 0.1, 0.1))
    blade = SpatialLink("blade", beam, start=(0, 0, 0), orientation=np.column_stack([x, np.cross(n, x), n]))
    joints = [Revolute("spin", ("ground", "hub"), (0, 0, 0), axis=n), Fixed("root", ("hub", "blade"), (0, 0, 0))]
    return Mechanism([hub, blade], joints, [Coordinate("psi", joint="spin")], gravity=(0, 0, 0)), beam


def test_blade_on_a_tilted_hub_has_southwells_coefficients():
    """The frozen-time eigenvalues of a blade on a hub spinning at Omega, with K_G from
    its joint forces and inertial load: lambda = lambda_0 + K Omega^2 with K = 1.1933 in
    flap and 1.1933 - 1 in lag (Southwell coefficients of a uniform cantilever, zero hub
    radius: Wright et al. 1982).  K from three speeds, (lambda - lambda_0) / Omega^2 =
    K + c Omega^2 + d Omega^4, to 2e-4 (the reference's 5 digits; 40 elements give the
    continuum's to 1e-5; the solver's round-off of lambda, 1e-3 at Omega = 0, divided by
    Omega^2 >= 100); on an untilted hub the same eigenvalues to round-off."""
    out = {}
    for tilt in (math.radians(35), 0.0):
        mech, beam = spinning_blade(tilt)
        lam = {}
        for W in (0.0, 10.0, 20.0, 30.0):
            motion = mech.solve(duration=0.2, points=3, drives={"psi": ConstantSpeed(W)})
            ev = mech.link_eigenvalues(motion, n_modes=2)["blade"]
            assert ev.geometric_stiffness and np.ptp(ev.eigenvalues, axis=0).max() <= 1e-9 * ev.eigenvalues[0, 1]
            lam[W] = ev.eigenvalues[0]
        Ws = np.array([10.0, 20.0, 30.0])
        k = np.array([(lam[W] - lam[0.0]) / W**2 for W in Ws])
        K = np.linalg.solve(np.column_stack([np.ones(3), Ws**2, Ws**4]), k)[0]
        assert abs(K[0] - 1.1933) <= 2e-4 and abs(K[1] - 0.1933) <= 2e-4
        out[tilt] = np.array(list(lam.values()))
    assert np.abs(out[0.0] - out[math.radians(35)]).max() <= 1e-10 * out[0.0].max()


def elastic_arm(frozen=False):
    """A two-link arm (shoulder about z, elbow about y) whose upper link is a Beam3D with
    its elements' own rigid mass (so its end loads balance its inertia exactly)."""
    beam = kanefem.Beam3D(0.6, 12, E=70e9, A=4e-4, Izz=2e-8, Iyy=3e-9, J=5e-9, rho=2700.0)
    upper = SpatialLink("upper", beam, start=(0, 0, 0.2), supports="clamped-free",
                        orientation=np.eye(3))  # along x, its frame's z vertical
    fore = SpatialBody("fore", 1.0, (1e-3, 0.012, 0.012), centre=(0.8, 0.0, 0.2))
    joints = [Revolute("shoulder", ("ground", "upper"), (0, 0, 0.2), axis=(0, 0, 1)),
              Revolute("elbow", ("upper", "fore"), (0.6, 0, 0.2), axis=(0, 1, 0))]
    return Mechanism([upper, fore], joints, [Coordinate("q1", joint="shoulder"), Coordinate("q2", joint="elbow")])


def test_a_horizontal_elastic_link_sags_as_a_cantilever_and_stays_there():
    """The arm held still, its upper link horizontal under gravity: the link's
    quasi-static deflection (under its frame's inertial load, the one-way model) is the
    cantilever's under its weight, w(L) = q L^4 / (8 EI) (Hermite elements are exact at
    the nodes for a uniform load: 1e-12 relative), down; and its one-way response from
    there stays there (1e-6 of it: the integrator's error on a motion that is at rest)."""
    arm = elastic_arm()
    t = np.linspace(0.0, 0.05, 11)
    motion = arm.inverse_dynamics(t, np.zeros((11, 2)), np.zeros((11, 2)), np.zeros((11, 2)))
    beam = arm.link("upper").body
    d = arm.link_quasi_static("upper", motion.frames["upper"][0])
    q, EI, L = 2700.0 * 4e-4 * 9.81, 70e9 * 3e-9, 0.6
    assert abs(d[6 * 12 + 2] + q * L**4 / (8 * EI)) <= 1e-12 * q * L**4 / (8 * EI)
    r = arm.link_response(motion, "upper")
    assert np.abs(r.d - d).max() <= 1e-6 * np.abs(d).max()


def test_inverse_dynamics_of_an_elastic_arm_and_its_frequencies_along_it():
    """An elastic arm along a joint trajectory given as samples: the inverse dynamics (the
    torques the trajectory needs) equal a prescribed-path solve's, and the upper link's
    axial force from the joint forces balances its inertia at both ends (N(0) = -F_root,
    N(L) = F_elbow along the link, to 1e-9 of their scale: two independent computations),
    its frequencies along the motion differing from those at rest."""
    arm = elastic_arm()
    t = np.linspace(0.0, 0.5, 101)
    z = np.column_stack([1.5 * np.sin(2 * np.pi * t), 0.8 * np.sin(2 * np.pi * t) ** 2])
    zd = np.column_stack([3 * np.pi * np.cos(2 * np.pi * t), 1.6 * np.pi * np.sin(4 * np.pi * t)])
    zdd = np.column_stack([-6 * np.pi**2 * np.sin(2 * np.pi * t), 6.4 * np.pi**2 * np.cos(4 * np.pi * t)])
    motion = arm.inverse_dynamics(t, z, zd, zdd)
    paths = {"q1": ZPath(lambda s: (1.5 * np.sin(2 * np.pi * s), 3 * np.pi * np.cos(2 * np.pi * s),
                                    -6 * np.pi**2 * np.sin(2 * np.pi * s))),
             "q2": ZPath(lambda s: (0.8 * np.sin(2 * np.pi * s) ** 2, 1.6 * np.pi * np.sin(4 * np.pi * s),
                                    6.4 * np.pi**2 * np.cos(4 * np.pi * s)))}
    solved = arm.solve(t, drives=paths)
    assert np.abs(solved.force - motion.force).max() <= 1e-10 * np.abs(motion.force).max()
    # from samples alone (splines through them): the same to the spline's error
    sampled = arm.inverse_dynamics(t, z)
    assert np.abs(sampled.force[5:-5] - motion.force[5:-5]).max() <= 2e-3 * np.abs(motion.force).max()
    forces = arm.joint_forces(motion)
    N = forces.link_axial["upper"]
    R = motion.rotation("upper")
    ex = R[:, :, 0]
    F_root = np.einsum("ti,ti->t", forces.joints[:, 0, :3], ex)  # ground on the link
    F_elbow = -np.einsum("ti,ti->t", forces.joints[:, 1, :3], ex)  # the forearm's on the link
    L = 0.6
    scale = np.abs(F_root).max()
    assert np.abs(N[:, 0] + F_root).max() <= 1e-9 * scale
    assert np.abs(N[:, 0] + N[:, 1] * L + N[:, 2] * L**2 - F_elbow).max() <= 1e-9 * scale
    ev = arm.link_eigenvalues(motion, n_modes=2)["upper"]
    rest = arm.link("upper").body.eigenvalues(2, supports="clamped-free").eigenvalues
    assert np.ptp(ev.frequencies_hz[:, 0]) > 1e-3 * math.sqrt(rest[0]) / (2 * math.pi)


def newton_euler_residual(mech, motion, forces):
    """Each body's Newton-Euler equations with the joint forces, the drives' torques
    (revolute coordinates) and gravity: the largest residual force and moment over the
    motion.  An overconstrained mechanism's joint forces are one of many solutions: any
    of them balances every body."""
    g = np.asarray(mech.gravity)
    worst = [0.0, 0.0]
    for b, body in enumerate(mech.bodies):
        m = body.mass if isinstance(body, SpatialBody) else body.rigid()[0]
        I = np.asarray(body.inertia) if isinstance(body, SpatialBody) else body.rigid()[2]
        R = M.spatial.quaternions_matrices(motion.q[:, b, 3:])
        r = motion.q[:, b, :3]
        F = m * g - m * motion.qdd[:, b, :3]
        w, e = motion.qd[:, b, 3:], motion.qdd[:, b, 3:]
        Mo = -np.einsum("tij,tj->ti", R, np.einsum("ij,tj->ti", I, e) + np.cross(w, np.einsum("ij,tj->ti", I, w)))
        for j, J in enumerate(mech.joints):
            if body.name not in J.bodies:
                continue
            sign = 1.0 if J.bodies[1] == body.name else -1.0
            P = motion.point(J.bodies[1], J.at)  # the point the force and moment are given at
            f, mom = sign * forces.joints[:, j, :3], sign * forces.joints[:, j, 3:]
            F += f
            Mo += mom + np.cross(P - r, f)
        for k, C in enumerate(mech.coordinates):
            J = mech.joints[mech._joint_index(C.joint)] if C.joint else None
            if isinstance(J, Revolute) and body.name in J.bodies:
                axis = motion.rotation(J.bodies[0]) @ (mech.bodies[mech._body_index(J.bodies[0])].rotation.T @ J.axis) \
                    if J.bodies[0] != "ground" else np.broadcast_to(J.axis, (len(motion.t), 3))
                Mo += (1.0 if J.bodies[1] == body.name else -1.0) * motion.force[:, k, None] * axis
        worst = [max(worst[0], np.abs(F).max()), max(worst[1], np.abs(Mo).max())]
    return worst


def test_joint_forces_balance_every_body_redundant_or_not():
    """The joint forces (least-norm multipliers where rows are redundant: Bennett's
    linkage) and the drive torques balance every body's Newton-Euler equations, to 1e-10
    of the largest joint force; Bennett's spread over its rows stays of the order of the
    loads (an arbitrary independent set had put 2.4 kN through 1 kg bars)."""
    js, bodies, _ = bennett()
    bennett_mech = Mechanism(bodies, js, [Coordinate("t1", joint="J1")], redundant="independent")
    table = arm_table()
    m, c, inertias = arm_links()
    arm = dh_chain(table, masses=m, centres=c, inertias=inertias)
    for mech, drives in ((bennett_mech, {"t1": ConstantSpeed(6.0)}), (arm, {"q2": Torque(3.0)}),
                         (rsur()[0], {"crank": ConstantSpeed(5.0)})):
        motion = mech.solve(duration=0.5, points=11, drives=drives)
        forces = mech.joint_forces(motion)
        scale = np.abs(forces.joints).max()
        resF, resM = newton_euler_residual(mech, motion, forces)
        assert resF <= 1e-10 * scale and resM <= 1e-10 * scale
    loads = max(b.mass for b in bodies) * (9.81 + 6.0**2 * 0.5)
    motion = bennett_mech.solve(duration=0.5, points=11, drives={"t1": ConstantSpeed(6.0)})
    assert np.abs(bennett_mech.joint_forces(motion).joints[:, :, :3]).max() <= 30 * loads


# ---------------------------------------------------------------- the command line


def test_command_line_runs_the_spatial_examples(tmp_path):
    """python -m kanefem mechanism runs the shipped spatial files: Bennett's linkage (its
    joint forces as 3-vectors) and the elastic arm (its upper arm's frequencies, 65.8 Hz
    at rest by Beam3D's 10 elements, near it along the motion; an animation on 3-D
    axes); --two-way refused by name where the upper arm's reference conditions
    ('clamped-free': a link on its shoulder) leave the elbow's node free."""
    import csv
    import subprocess
    import sys

    def run(*args):
        return subprocess.run([sys.executable, "-m", "kanefem", *map(str, args)], capture_output=True, text=True,
                              timeout=300)

    r = run("mechanism", M.example("bennett"), "--points", "25", "--no-plots", "--out", tmp_path / "b")
    assert r.returncode == 0, r.stderr
    with open(tmp_path / "b" / "joint_forces.csv") as f:
        head = next(csv.reader(f))
    assert {"F_J1_z_N", "M_J4_x_Nm", "theta1_drive_Nm"} <= set(head)
    r = run("mechanism", M.example("arm"), "--points", "13", "--no-plots", "--animate", "--out", tmp_path / "a")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a" / "mechanism.gif").stat().st_size > 0
    with open(tmp_path / "a" / "eigenvalues_link2.csv") as f:
        rows = list(csv.DictReader(f))
    f1 = np.array([float(row["f1_Hz"]) for row in rows])
    rest = M.Mechanism.from_toml(M.example("arm")).link("link2").body.eigenvalues(1, supports="clamped-free")
    assert np.abs(f1 / rest.frequencies_hz[0] - 1).max() < 0.01
    r = run("mechanism", M.example("arm"), "--two-way", "--out", tmp_path / "c")
    assert r.returncode == 2 and "joint 'joint3' attaches to link 'link2' at node 10" in r.stderr


def test_link_damping_is_checked_by_name():
    """A link's Rayleigh damping given as one number (found by the fuzz: 'int' object is not
    iterable, planar and spatial links alike) is a TypeError naming the link."""
    beam = kanefem.Beam3D(0.4, 2, E=7e10, A=1e-4, Izz=1e-9, Iyy=1e-9, J=2e-9, rho=2700.0)
    with pytest.raises(TypeError, match="L: damping must be \\(alpha, beta\\)"):
        SpatialLink("L", beam, damping=75)
    with pytest.raises(TypeError, match="r: damping must be \\(alpha, beta\\)"):
        M.ElasticLink("r", kanefem.PlanarBeam(0.4, 2, E=1e9, A=1e-4, I=1e-9, rho=1e3), damping=75)
    with pytest.raises(TypeError, match="kinds must be a sequence"):
        dh_chain(arm_table(), kinds=0, masses=[1.0, 1.0, 1.0])


def test_periodic_steady_state_of_a_spatial_mechanism():
    """solve(steady_state=True) on the shipped arm (its base at constant speed, shoulder
    and elbow on damped springs): the free coordinates and rates repeat after a period
    to the shooting's 1e-9 of their scales, and the cycle attracts (|mu| < 1)."""
    arm = Mechanism.from_toml(M.example("arm"))
    w = math.pi
    motion = arm.solve(duration=2 * math.pi / w, points=9, drives={"q1": ConstantSpeed(w)}, steady_state=True)
    assert np.abs(motion.z[-1, 1:] - motion.z[0, 1:]).max() <= 1e-8
    assert np.abs(motion.zd[-1, 1:] - motion.zd[0, 1:]).max() <= 1e-7
    assert np.abs(motion.stats["floquet_multipliers"]).max() < 1
