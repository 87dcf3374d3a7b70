"""Flexible bodies in a floating frame of reference (docs/theory.md section 1.6):
kanefem.FloatingBody, csrc/kf_ffrf.c.

References outside the code: the one-way equations of docs/theory.md section 1 (the
body's motion terms, kanefem.simulate), the planar links of kf_flexmech (their own
derivation and code), Euler's equations of a rigid body (SciPy's DOP853), Newton-Euler
for the drive of a rigid body, the conservation laws, Exudyn's ObjectFFRFreducedOrder on
the same mesh and modes.
"""

import math

import numpy as np
import pytest

import kanefem
from kanefem import _core, _records
from kanefem.mechanism import Coordinate, ElasticLink, Mechanism

E_AL, RHO_AL = 7e10, 2700.0


def _beam(n_elements=6, **kw):
    """An aluminium strip 1 m long, 4 cm^2, its two bending stiffnesses apart."""
    return kanefem.Beam3D(1.0, n_elements, E=E_AL, A=4e-4, Izz=2e-8, Iyy=8e-9, J=1e-8, rho=RHO_AL, **kw)


@pytest.fixture(scope="module")
def plate():
    """A reduced aluminium plate 300 x 200 x 5 mm (hex8, 6 x 4 x 1 cells): the lowest 14
    free-free modes (6 of them rigid), its floating body on the mean axes."""
    body = kanefem.MeshBody(kanefem.Mesh.box(0.3, 0.2, 0.005, 6, 4, 1), E=E_AL, nu=0.33, rho=RHO_AL,
                            storage="dense")
    red = kanefem.ReducedBody(body, basis="free-interface", n_modes=14, geometric_stiffness=False)
    return kanefem.FloatingBody(red)


def _frame_state(fb, R, omega, eps, a_OL, d, d_t, v=(0.0, 0.0, 0.0)):
    """A state with orientation R and the speeds of a frame whose origin x = 0 has the
    body-axes acceleration a_OL; the matching accelerations (r_c'' global, eps) of the
    reference point x_c."""
    W, Ee = np.cross(np.eye(3), omega).T * -1, np.cross(np.eye(3), eps).T * -1  # [w]x, [eps]x
    xc = fb.centre
    a_cL = a_OL + (Ee + W @ W) @ xc
    st = fb.state(rotation=R, velocity=v, omega=omega, d=d, d_t=d_t)
    return st, np.concatenate([R @ a_cL, eps])


def _one_way_accelerations(body, fixed, omega, eps, a_OL, d, d_t, damping=(0.0, 0.0), kg=None):
    """d'' over the free DOFs from the one-way equations (docs/theory.md section 1.2):
    M d'' = -(C d' + (K + K_eps + K_om [+ K_G]) d + q_a + q_eps + q_om) - (alpha M + beta K) d'."""
    T = body.motion_terms(omega, eps, a_OL)
    dense = lambda X: np.asarray(X.toarray() if hasattr(X, "toarray") else X)  # noqa: E731
    M, K = dense(body.mass_matrix()), dense(body.stiffness_matrix())
    A = K + dense(T.K_eps) + dense(T.K_om) + (0.0 if kg is None else dense(kg))
    rhs = -(dense(T.C) @ d_t + A @ d + T.q_a + T.q_eps + T.q_om) - (damping[0] * M + damping[1] * K) @ d_t
    free = ~fixed
    return np.linalg.solve(M[np.ix_(free, free)], rhs[free])


def _rotation(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.cross(np.eye(3), axis).T * -1
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


# ---------------------------------------------------------------- the rigid body of the elements


def test_mass_properties_of_a_beam_are_its_closed_forms():
    """m = rho A L at x_c = L/2, and the inertia about x_c: the line mass's m L^2/12 plus
    the section's (the beam's four section points, exact for its second moments): J_xx =
    rho (Izz + Iyy) L, J_yy = m L^2/12 + rho Iyy L, J_zz = m L^2/12 + rho Izz L."""
    b = _beam()
    fb = kanefem.FloatingBody(b)
    m = RHO_AL * 4e-4
    assert fb.mass == pytest.approx(m, rel=1e-14)
    np.testing.assert_allclose(fb.centre, [0.5, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(fb.inertia, np.diag([RHO_AL * 2.8e-8, m / 12 + RHO_AL * 8e-9, m / 12 + RHO_AL * 2e-8]),
                               rtol=1e-13, atol=1e-18)
    assert fb.n_elastic == b.ndof - 6 and fb.geometric_stiffness and fb.rigid_margin > 1e-6


# ---------------------------------------------------------------- prescribed frame: the one-way equations


@pytest.mark.parametrize("kind", ["beam3d", "bar3d", "reduced"])
def test_elastic_rows_under_a_prescribed_frame_are_the_one_way_equations(kind):
    """With the frame's motion given (omega, eps, the origin's acceleration, gravity), the
    elastic rows M q'' = f_e - M_er (r_c'', eps) are the one-way equations of docs/theory.md
    section 1.2 (the body's motion terms; K_G of the same instant; Rayleigh damping), to the
    round-off of the solves (1e-11 of the accelerations)."""
    rng = np.random.default_rng(7)
    damping = (0.3, 2e-5)
    if kind == "beam3d":
        body, ref = _beam(), "clamped-free"
    elif kind == "bar3d":
        body, ref = kanefem.Bar3D.from_mesh([[0, 0, 0], [0.6, 0, 0], [0.3, 0.4, 0.1]], [[0, 1], [1, 2], [2, 0]],
                                            E=E_AL, A=4e-4, rho=RHO_AL), {0: "fixed", 1: ("v", "w"), 2: ("w",)}
    else:
        body = kanefem.ReducedBody(_beam(20), interface=[0], n_modes=8)
        ref = {0: "clamped"}
    fb = kanefem.FloatingBody(body, ref, damping=kanefem.Rayleigh(*damping))
    fixed = fb._fixed
    d, d_t = np.zeros(body.ndof), np.zeros(body.ndof)
    d[~fixed], d_t[~fixed] = rng.normal(size=(2, (~fixed).sum())) * [[1e-4], [1e-2]]
    omega, eps, a_OL = np.array([0.3, -1.2, 2.0]), np.array([0.5, 0.1, -0.7]), np.array([1.0, -2.0, 3.0])
    R = _rotation([1.0, 2.0, -0.5], 0.8)
    g = np.array([0.0, 0.0, -9.81])
    st, acc = _frame_state(fb, R, omega, eps, a_OL, d, d_t)
    M, f = fb.equations(st, gravity=g, accelerations=acc)
    qdd = np.linalg.solve(M[6:, 6:], f[6:] - M[6:, :6] @ acc)
    a_g = a_OL - R.T @ g  # the one-way route's a_O - g_L
    kg = None
    if fb.geometric_stiffness:  # the one-way K_G of this instant
        kg = body.geometric_stiffness(body.axial_force(omega, eps, a_g, supports=ref), supports=ref)
    expect = _one_way_accelerations(body, fixed, omega, eps, a_g, d, d_t, damping, kg)
    assert np.abs(qdd - expect).max() < 1e-11 * np.abs(expect).max()


@pytest.mark.parametrize("geometric", [False, True])
def test_prescribed_motion_integrates_as_simulate(geometric):
    """A spatial motion of the frame (samples of a tumbling, translating orientation),
    gravity, Rayleigh damping, K_G on or off: simulate(motion=) takes the same Newmark
    steps as kanefem.simulate on the same equations, so the responses agree to round-off
    (1e-10 of the largest; measured 2.6e-12)."""
    beam = _beam(10)
    damping = kanefem.Rayleigh(0.5, 1e-5)
    fb = kanefem.FloatingBody(beam, "clamped-free", geometric_stiffness=geometric, damping=damping)
    tq = np.linspace(0.0, 1.0, 41)
    q = np.column_stack([np.cos(0.6 * tq**2), 0.6 * np.sin(0.6 * tq**2), 0.8 * np.sin(0.6 * tq**2), 0 * tq])
    motion = kanefem.Motion.from_rotations(tq, q, r_O=np.column_stack([0.1 * tq**2, 0 * tq, 0.05 * tq**3]))
    t = np.linspace(0.0, 0.5, 51)
    g = (0.0, 0.0, -9.81)
    r = fb.simulate(t, motion=motion, dt=1e-3, gravity=g, method="newmark")
    s = kanefem.simulate(beam, motion, 0.5, dt=1e-3, method="newmark", supports="clamped-free", t_eval=t, gravity=g,
                         damping=damping, geometric_stiffness=geometric, progress=False)
    assert r.stats["steps"] == s.stats["steps"] == 500
    assert np.abs(r.d - s.d).max() < 1e-10 * np.abs(s.d).max()
    assert np.abs(r.d_t - s.v).max() < 1e-10 * np.abs(s.v).max()
    assert r.drive.shape == (51, 6) and r.position is None


def test_prescribed_drive_of_a_stiff_body_is_newton_euler():
    """The drive's force and torque on a nearly rigid beam (E x 1e4) under a prescribed
    tumbling motion are the rigid body's Newton-Euler F = m (a_c - g), T = J eps + omega x
    J omega (body axes, at x_c), within the elastic share (1e-5; measured 7e-7), once the
    vibration the start excites (released undeformed) is damped (rho_inf = 0.5)."""
    beam = kanefem.Beam3D(1.0, 6, E=E_AL * 1e4, A=4e-4, Izz=2e-8, Iyy=8e-9, J=1e-8, rho=RHO_AL)
    fb = kanefem.FloatingBody(beam, "clamped-free", geometric_stiffness=False, damping=kanefem.Rayleigh(0.0, 1e-6))
    tq = np.linspace(0.0, 1.0, 41)
    q = np.column_stack([np.cos(0.8 * tq**2), 0.6 * np.sin(0.8 * tq**2), 0.8 * np.sin(0.8 * tq**2), 0 * tq])
    motion = kanefem.Motion.from_rotations(tq, q, r_O=np.column_stack([0.2 * tq**2, 0 * tq, 0 * tq]))
    t = np.linspace(0.0, 0.6, 13)
    g = np.array([0.0, 0.0, -9.81])
    r = fb.simulate(t, motion=motion, dt=2e-4, gravity=g, rho_inf=0.5)
    s = motion.evaluate(t, gravity=g)
    J, xc = fb.inertia, fb.centre
    for k in range(2, t.size):  # after the start's transient (released undeformed) has died out
        om, ep = s.omega[k], s.eps[k]
        a_c = s.a_O[k] + np.cross(ep, xc) + np.cross(om, np.cross(om, xc))  # minus g, body axes
        F, T = fb.mass * a_c, J @ ep + np.cross(om, J @ om)
        assert np.abs(r.drive[k, :3] - F).max() < 1e-5 * np.abs(F).max()
        assert np.abs(r.drive[k, 3:] - T).max() < 1e-5 * np.abs(T).max()


# ---------------------------------------------------------------- planar motion: the planar link


@pytest.mark.parametrize("supports", ["clamped-free", "pinned-pinned"])
@pytest.mark.parametrize("geometric", [False, True])
def test_planar_motion_is_the_planar_links(supports, geometric):
    """A Beam3D moving in its x-y plane has the planar link's equations (csrc/kf_flexmech.c,
    a free PlanarBeam link of a planar mechanism, its own derivation): the in-plane
    accelerations equal the planar ones once the Beam3D's section inertia about z (rho Izz
    L, which its four section points carry and the planar line mass does not) is taken
    out of J_zz; the out-of-plane ones are zero exactly.  To 1e-9: the planar solve's
    round-off and its fixed point on K_G's axial force (1e-10 of N); measured 1.2e-10."""
    L, ne, E, A, I = 1.0, 6, E_AL, 4e-4, 2e-8
    pb = kanefem.PlanarBeam(L, ne, E=E, A=A, I=I, rho=RHO_AL)
    arm = ElasticLink("arm", pb, supports=supports, geometric_stiffness=geometric)
    mech = Mechanism([arm], [], [Coordinate("x", body="arm", component="x"), Coordinate("y", body="arm", component="y"),
                                 Coordinate("th", body="arm", component="angle")], gravity=(0.0, -9.81))
    free = ~arm._fixed
    rng = np.random.default_rng(2)
    d, d_t = np.zeros(pb.ndof), np.zeros(pb.ndof)
    d[free], d_t[free] = rng.normal(size=(2, free.sum())) * [[1e-3], [1e-1]]
    th = 0.7
    z, zd = mech.drawing_coordinates().copy(), np.array([0.3, -0.2, 3.0])
    z[2] = th
    r = _core.mech_flex_dynamics(mech._core, _records.links([dict(body=0, geometric=geometric)]), [pb._body],
                                 [arm._fixed], _records.drives([dict(mode="free")] * 3), [None] * 3, 0.0, z, z, zd,
                                 d[free], d_t[free])
    b3 = kanefem.Beam3D(L, ne, E=E, A=A, Izz=I, Iyy=3e-8, J=1e-8, rho=RHO_AL)
    fb = kanefem.FloatingBody(b3, supports, geometric_stiffness=geometric)
    inplane = np.zeros((ne + 1, 6), dtype=bool)
    inplane[:, [0, 1, 5]] = True
    inplane = inplane.ravel()
    d3, dt3 = np.zeros(b3.ndof), np.zeros(b3.ndof)
    d3[inplane], dt3[inplane] = d, d_t
    st = fb.state(position=[z[0], z[1], 0.0], rotation=_rotation([0, 0, 1], th), velocity=[zd[0], zd[1], 0.0],
                  omega=[0.0, 0.0, zd[2]], d=d3, d_t=dt3)
    acc = np.array([r["zdd"][0], r["zdd"][1], 0.0, 0.0, 0.0, r["zdd"][2]])  # K_G's loads at the planar solution
    M, f = fb.equations(st, gravity=[0.0, -9.81, 0.0], accelerations=acc)
    M[5, 5] -= RHO_AL * I * L
    x = np.linalg.solve(M, f)
    qdd = np.zeros(b3.ndof)
    qdd[fb._map] = x[6:]
    assert np.abs(x[[0, 1, 5]] - r["zdd"]).max() < 1e-9 * np.abs(r["zdd"]).max()
    assert np.abs(qdd[inplane][free] - r["ddd"]).max() < 1e-9 * np.abs(r["ddd"]).max()
    assert np.all(x[[2, 3, 4]] == 0.0) and np.all(qdd[~inplane] == 0.0)


# ---------------------------------------------------------------- free motion: conservation


def _drift(fb, r):
    """The largest relative changes of the energy, linear and angular momentum over a motion."""
    E, p, H = fb.energy(r), fb.momentum(r), fb.angular_momentum(r)
    return (np.abs(E - E[0]).max() / E[0], np.abs(p - p[0]).max() / np.linalg.norm(p[0]),
            np.abs(H - H[0]).max() / np.linalg.norm(H[0]))


def test_free_beam_conserves_energy_and_momenta():
    """A free beam (frame clamped to its first node) tumbling about a non-principal axis
    and flapping: no force, no damping, no K_G, so its energy, linear momentum and
    angular momentum (about the mass centre) are invariants of the equations.
    Dormand-Prince at rtol 1e-10 keeps them to 1e-9 (measured 5e-14, 1e-14, 3e-14);
    Newmark's average acceleration (exact for the energy of linear systems) keeps them
    to its second-order error here, 3e-7 at dt = 1e-4 s (measured: energy 4.6e-8, linear
    momentum 1.2e-5 of |p| through the stiff axial vibration of the node-fixed frame,
    angular momentum 1.6e-9), falling with dt."""
    beam = _beam(3)
    fb = kanefem.FloatingBody(beam, "clamped-free", geometric_stiffness=False)
    x = beam.nodes[:, 0]
    d_t = np.zeros(beam.ndof)
    d_t[2::6], d_t[4::6] = 0.05 * x**2, -0.1 * x  # a flap velocity w = 0.05 x^2, theta_y = -w'
    st = fb.state(position=fb.centre, velocity=[0.1, 0.0, 0.0], omega=[0.5, 8.0, 2.0], d_t=d_t)
    t = np.linspace(0.0, 0.02, 11)
    assert max(_drift(fb, fb.simulate(t, st, method="dp5", rtol=1e-10, atol=1e-13))) < 1e-9
    e1, e2 = (_drift(fb, fb.simulate(t, st, method="newmark", dt=dt)) for dt in (1e-4, 5e-5))
    assert e1[0] < 3e-7 and e1[2] < 3e-7 and e1[1] < 1e-4
    assert all(b < a for a, b in zip(e1, e2))


def test_free_reduced_plate_conserves_at_second_order(plate):
    """The reduced plate spinning (mostly about its intermediate axis) and vibrating in its
    first and third elastic modes: Dormand-Prince keeps energy and angular momentum to 1e-9
    (measured 8e-11, 5e-15); Newmark's error is second order (energy 2.2e-7, 5.6e-8,
    1.4e-8 and angular momentum 3.2e-7, 8.0e-8, 2.0e-8 at dt = 2, 1, 0.5e-4 s: ratios
    within 3.5-4.5 of the 4 of order 2), and the mean axes keep the linear momentum m v
    exactly (their coordinates carry no first moment)."""
    qd = np.zeros(plate.n_elastic)
    qd[0], qd[2] = 0.05, 0.03
    st = plate.state(position=plate.centre, velocity=[0.2, 0.0, 0.1], omega=[2.0, 30.0, 1.0], d_t=plate.modes @ qd)
    t = np.linspace(0.0, 0.2, 41)
    assert max(_drift(plate, plate.simulate(t, st, method="dp5", rtol=1e-10, atol=1e-13))) < 1e-9
    errs = [_drift(plate, plate.simulate(t, st, method="newmark", dt=dt)) for dt in (2e-4, 1e-4, 5e-5)]
    for k in (0, 2):
        for a, b in zip(errs, errs[1:]):
            assert 3.5 < a[k] / b[k] < 4.5
    assert errs[0][0] < 5e-7 and max(e[1] for e in errs) < 1e-14


def test_rigid_limit_is_eulers_intermediate_axis_flip():
    """A stiff plate (E x 300, first elastic mode 5.6 kHz) spun about its intermediate
    principal axis with a small perturbation tumbles as Euler's equations of the rigid body
    with its inertia say (SciPy DOP853, rtol 1e-12): omega within 1e-5 of the spin over 6 s
    (a full flip) at dt = 1 ms (measured 3.6e-6; 5.3e-5 and 1.4e-5 at 4 and 2 ms: second
    order, the elastic share (Omega / omega_1)^2 ~ 1e-8 below it)."""
    from scipy.integrate import solve_ivp

    body = kanefem.MeshBody(kanefem.Mesh.box(0.3, 0.2, 0.01, 6, 4, 1), E=2e13, nu=0.3, rho=7800.0, storage="dense")
    fb = kanefem.FloatingBody(kanefem.ReducedBody(body, basis="free-interface", n_modes=14, geometric_stiffness=False))
    J, spin = fb.inertia, 4.0
    om0 = np.array([1e-3, spin, 1e-3])  # y: the intermediate axis (J_xx < J_yy < J_zz)
    assert J[0, 0] < J[1, 1] < J[2, 2]
    t = np.linspace(0.0, 6.0, 121)
    ref = solve_ivp(lambda _, w: np.linalg.solve(J, -np.cross(w, J @ w)), (0.0, 6.0), om0, t_eval=t, rtol=1e-12,
                    atol=1e-14, method="DOP853")
    assert ref.y[1].min() < -0.99 * spin  # it flips
    r = fb.simulate(t, fb.state(position=fb.centre, omega=om0), dt=1e-3, rho_inf=0.8)
    assert np.abs(r.omega - ref.y.T).max() < 1e-5 * spin


def test_accelerations_take_k_g_at_themselves():
    """With K_G its loads follow the accelerations (the frame's inertia): accelerations()
    solves the affine system at once, so the equations at those accelerations hold to
    round-off (a tumbling, vibrating free beam on the mean axes)."""
    fb = kanefem.FloatingBody(_beam(6), "mean-axes")
    assert fb.geometric_stiffness
    rng = np.random.default_rng(3)
    st = fb.state(rotation=_rotation([1, 1, 0], 0.4), omega=[0.5, 20.0, 3.0],
                  d=fb.modes @ rng.normal(size=fb.n_elastic) * 1e-5, d_t=fb.modes @ rng.normal(size=fb.n_elastic) * 1e-3)
    a, eps, d_tt = fb.accelerations(st, gravity=[0.0, 0.0, -9.81])
    M, f = fb.equations(st, gravity=[0.0, 0.0, -9.81], accelerations=np.concatenate([a, eps]))
    q_tt = fb.modes.T @ fb.body.mass_matrix() @ d_tt
    assert np.abs(M @ np.concatenate([a, eps, q_tt]) - f).max() < 1e-10 * np.abs(f).max()


def test_free_spinning_beam_has_the_centrifugal_k_g_of_its_spin():
    """A free beam spinning steadily about its mass centre (mean axes): its K_G (from the
    frame's motion at the accelerations solved for) is the one-way K_G of a frame spinning
    about x_c, the free-free beam's centrifugal tension (docs/theory.md sections 2.4-2.5,
    first end free), on each of the lowest elastic modes to 1e-9 (measured 1e-14; the
    deformation's own accelerations, 1e-9 rad/s^2, move the loads by less)."""
    beam = _beam(6)
    fb = kanefem.FloatingBody(beam, "mean-axes")
    fb0 = kanefem.FloatingBody(beam, "mean-axes", geometric_stiffness=False)
    spin = np.array([0.0, 20.0, 0.0])
    a_O = -np.cross(spin, np.cross(spin, fb.centre))  # the origin x = 0 about x_c at rest
    KG = beam.geometric_stiffness(beam.axial_force(spin, np.zeros(3), a_O, supports=None), supports=None)
    for k in range(3):
        d = fb.modes[:, k] * 1e-3
        st = fb.state(omega=spin, d=d)
        acc = np.concatenate(fb.accelerations(st)[:2])
        df = fb.equations(st, accelerations=acc)[1][6:] - fb0.equations(st, accelerations=acc)[1][6:]
        assert -1e-3 * df[k] == pytest.approx(d @ KG @ d, rel=1e-9)  # -q_k (f - f0)_k = q^T K_G q


# ---------------------------------------------------------------- against Exudyn


def test_free_body_against_exudyn_ffrf_reduced_order():
    """A free hex8 strip (500 x 50 x 20 mm, 10 x 2 x 1 cells, E = 2 GPa) in its six lowest
    free-free elastic modes, spinning at about 6 rad/s and vibrating, 0.1 s: kanefem on the
    mean axes of those modes against Exudyn's ObjectFFRFreducedOrder given the same mesh,
    mass and stiffness matrices and modes (its frame at the mesh origin, ours at the mass
    centre: the same frame, offset).  Exudyn's generalized-alpha at 4e-5 and 2e-5 s,
    Richardson-extrapolated, against kanefem's Dormand-Prince at rtol 1e-10: modal
    coordinates within 1e-3 of their peak (measured 7.8e-5), omega within 1e-5 rad/s
    (6.6e-7), the orientation within 1e-8 (5e-10), well inside Exudyn's own error at 2e-5 s
    (2.7e-3 of the peak, which its Richardson estimate predicts)."""
    exu = pytest.importorskip("exudyn")
    import scipy.sparse as sp
    from exudyn.FEM import FEMinterface, ObjectFFRFreducedOrderInterface
    from exudyn.itemInterface import SensorNode

    mesh = kanefem.Mesh.box(0.5, 0.05, 0.02, 10, 2, 1)
    body = kanefem.MeshBody(mesh, E=2e9, nu=0.3, rho=1200.0, storage="dense")
    red = kanefem.ReducedBody(body, basis="free-interface", n_modes=12, geometric_stiffness=False)
    fb = kanefem.FloatingBody(red, "mean-axes")
    assert fb.n_elastic == 6
    Psi = red.basis_matrix @ fb.modes  # the elastic coordinates' shapes on the mesh
    M, K = body.mass_matrix(), body.stiffness_matrix()
    om0, qd0 = np.array([0.3, 6.0, 0.5]), np.array([0.02, -0.01, 0, 0, 0, 0])
    T, nout = 0.1, 21
    t = np.linspace(0.0, T, nout)
    r = fb.simulate(t, fb.state(position=fb.centre, omega=om0, d_t=fb.modes @ qd0), method="dp5", rtol=1e-10,
                    atol=1e-13)
    q = r.d @ red.mass_matrix() @ fb.modes

    def exudyn_run(h):
        fem = FEMinterface()
        fem.nodes = {"Position": np.asarray(mesh.nodes, float)}
        fem.massMatrix, fem.stiffnessMatrix = sp.csr_matrix(M), sp.csr_matrix(K)
        fem.modeBasis = {"matrix": Psi, "type": "NormalModes"}
        fem.surface, fem.postProcessingModes = [], {}
        cms = ObjectFFRFreducedOrderInterface(fem)
        mbs = exu.SystemContainer().AddSystem()
        obj = cms.AddObjectFFRFreducedOrder(mbs, positionRef=[0, 0, 0], initialVelocity=list(-np.cross(om0, fb.centre)),
                                            initialAngularVelocity=list(om0))
        mbs.SetNodeParameter(obj["nGenericODE2"], "initialCoordinates_t", list(qd0))
        out = exu.OutputVariableType
        sens = [mbs.AddSensor(SensorNode(nodeNumber=n, storeInternal=True, outputVariableType=v))
                for n, v in ((obj["nRigidBody"], out.AngularVelocityLocal), (obj["nGenericODE2"], out.Coordinates),
                             (obj["nRigidBody"], out.RotationMatrix))]
        mbs.Assemble()
        ss = exu.SimulationSettings()
        ss.timeIntegration.numberOfSteps, ss.timeIntegration.endTime = int(round(T / h)), T
        ss.timeIntegration.generalizedAlpha.spectralRadius = 1.0
        ss.timeIntegration.newton.relativeTolerance, ss.timeIntegration.newton.absoluteTolerance = 1e-12, 1e-14
        ss.solution.sensors.writePeriod = T / (nout - 1)
        ss.solution.file.write = False
        ss.timeIntegration.verboseMode = 0
        exu.SolveDynamic(mbs, ss)
        return [mbs.GetSensorStoredData(s)[:, 1:] for s in sens]

    (w1, z1, R1), (w2, z2, R2) = exudyn_run(4e-5), exudyn_run(2e-5)
    peak = np.abs(q).max()
    assert np.abs((4 * z2 - z1) / 3 - q).max() < 1e-3 * peak
    assert np.abs((4 * w2 - w1) / 3 - r.omega).max() < 1e-5
    assert np.abs((4 * R2 - R1) / 3 - r.rotation.reshape(nout, 9)).max() < 1e-8
    assert np.abs(z2 - q).max() > 1e-3 * peak  # Exudyn's own error at 2e-5 s: the agreement is not its step's


def test_reduced_body_loaded_without_its_full_body_takes_given_mass_properties(tmp_path):
    """A ReducedBody read from its file has no full body: its mass properties (those of
    the full body, which the invariants do not hold) must be given, and with them it is
    the same floating body as before saving (the same accelerations to round-off)."""
    red = kanefem.ReducedBody(_beam(10), interface=[0], n_modes=6)
    fb = kanefem.FloatingBody(red)
    loaded = kanefem.ReducedBody.load(red.save(tmp_path / "r.npz"))
    with pytest.raises(TypeError, match="mass_properties"):
        kanefem.FloatingBody(loaded)
    with pytest.raises(TypeError, match="mass_properties"):  # not twice: the full body has them
        kanefem.FloatingBody(red, mass_properties=(fb.mass, fb.centre, fb.inertia))
    fl = kanefem.FloatingBody(loaded, mass_properties=(fb.mass, fb.centre, fb.inertia))
    rng = np.random.default_rng(5)
    d = np.zeros(red.ndof)
    d[fb._map] = rng.normal(size=fb.n_elastic) * 1e-5
    st = fb.state(rotation=_rotation([0, 1, 1], 0.3), omega=[1.0, 2.0, -3.0], d=d, d_t=d * 100)
    a, b = fb.accelerations(st, gravity=[0, 0, -9.81]), fl.accelerations(st, gravity=[0, 0, -9.81])
    for x, y in zip(a, b):
        np.testing.assert_allclose(y, x, rtol=1e-10, atol=1e-10 * np.abs(x).max())


def test_storage_and_reduction_leave_the_motion_unchanged():
    """The same beam in band and dense storage moves the same (the band products and band
    LU against the dense ones: 1e-10 of the largest deflection over 400 steps; measured equal
    bitwise); a solid mesh on its mean axes and its ReducedBody keeping every mode (the same
    space) have the same accelerations (1e-8: the reduction's modes to their own round-off;
    measured 1.6e-10)."""
    t = np.linspace(0.0, 0.02, 5)
    runs = []
    for storage in ("dense", "banded"):
        beam = _beam(8, storage=storage)
        fb = kanefem.FloatingBody(beam, "clamped-free")
        d_t = np.zeros(beam.ndof)
        d_t[2::6] = 0.05 * beam.nodes[:, 0] ** 2
        d_t[:6] = 0.0
        runs.append(fb.simulate(t, fb.state(omega=[0.5, 8.0, 2.0], d_t=d_t), dt=5e-5))
    assert np.abs(runs[0].d - runs[1].d).max() < 1e-10 * np.abs(runs[0].d).max()
    assert np.abs(runs[0].omega - runs[1].omega).max() < 1e-10 * 8.0
    mesh = kanefem.MeshBody(kanefem.Mesh.box(0.2, 0.05, 0.02, 2, 1, 1), E=7e10, nu=0.3, rho=RHO_AL, storage="dense")
    red = kanefem.ReducedBody(mesh, basis="free-interface", n_modes=mesh.ndof, geometric_stiffness=False)
    fm, fr = kanefem.FloatingBody(mesh, geometric_stiffness=False), kanefem.FloatingBody(red)
    assert fm.n_elastic == fr.n_elastic == mesh.ndof - 6
    d = fm.modes @ np.random.default_rng(4).normal(size=fm.n_elastic) * 1e-6
    q = red.basis_matrix.T @ mesh.mass_matrix() @ d  # the same field in the reduced coordinates
    sm = fm.state(rotation=_rotation([1, 0, 1], 0.5), omega=[3.0, -1.0, 2.0], d=d, d_t=1e3 * d)
    sr = fr.state(rotation=_rotation([1, 0, 1], 0.5), omega=[3.0, -1.0, 2.0], d=q, d_t=1e3 * q)
    am, ar = fm.accelerations(sm, gravity=[0, 0, -9.81]), fr.accelerations(sr, gravity=[0, 0, -9.81])
    for x, y in zip(am[:2], ar[:2]):
        assert np.abs(x - y).max() < 1e-8 * np.abs(x).max()


def test_one_floating_body_from_several_threads(plate):
    """The core runs with the GIL released and keeps its last state in the floating body's
    workspace: calls on one body from several threads are taken one at a time (its lock),
    each with the answer it has alone (bitwise)."""
    from concurrent.futures import ThreadPoolExecutor

    t = np.linspace(0.0, 0.01, 3)
    states = [plate.state(omega=[0.0, w, 1.0]) for w in (5.0, 10.0, 15.0, 20.0)]
    alone = [plate.simulate(t, s, dt=1e-4).omega for s in states]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda s: plate.simulate(t, s, dt=1e-4).omega, states))
        accs = list(pool.map(lambda s: plate.accelerations(s)[1], states * 3))
    assert all(np.array_equal(a, b) for a, b in zip(alone, together))
    assert all(np.array_equal(a, plate.accelerations(s)[1]) for a, s in zip(accs, states * 3))


# ---------------------------------------------------------------- results and bad input


def test_results_round_trip_and_table(plate):
    r = plate.simulate(np.linspace(0.0, 0.01, 3), plate.state(omega=[0.0, 5.0, 0.0]), dt=1e-3)
    back = kanefem.FloatingMotion.from_dict(r.to_dict())
    np.testing.assert_array_equal(back.quaternion, r.quaternion)
    np.testing.assert_allclose(back.rotation[-1], _rotation([0, 1, 0], 0.05), atol=1e-12)
    head = r.table()[0]
    assert head[:4] == ["t_s", "r_x_m", "r_y_m", "r_z_m"] and "omega_y_rad_s" in head and "rot_y_rad" in head
    s = r.state(-1)
    assert isinstance(s, kanefem.FloatingState) and s.omega[1] == pytest.approx(5.0, rel=1e-9)


def test_bad_input_is_refused_by_name():
    beam = _beam(4)
    with pytest.raises(kanefem.NotSupportedError, match="planar"):
        kanefem.FloatingBody(kanefem.PlanarBeam(1.0, 4, E=E_AL, A=4e-4, I=2e-8, rho=RHO_AL))
    with pytest.raises(kanefem.NotSupportedError, match="rotary_inertia"):
        kanefem.FloatingBody(_beam(4, theory="timoshenko", shear_coefficient=0.85))
    with pytest.raises(TypeError, match="mass_properties"):
        kanefem.FloatingBody(beam, mass_properties=(1.0, np.zeros(3), np.eye(3)))
    with pytest.raises(TypeError, match="damping"):
        kanefem.FloatingBody(beam, damping=(0.1, 0.0))
    fb = kanefem.FloatingBody(beam)
    with pytest.raises(ValueError, match=r"d\[0\]"):
        fb.state(d=np.ones(beam.ndof))
    with pytest.raises(ValueError, match="rotation"):
        fb.state(rotation=2 * np.eye(3))
    with pytest.raises(ValueError, match="quaternion is zero"):
        fb.state(rotation=np.zeros(4))
    with pytest.raises(ValueError, match="strictly increasing"):
        fb.simulate([0.0, 0.0])
    with pytest.raises(ValueError, match="method"):
        fb.simulate([0.0, 1.0], method="rk4")
    with pytest.raises(ValueError, match="rho_inf"):
        fb.simulate([0.0, 1.0], rho_inf=2.0)
    with pytest.raises(ValueError, match="dp5"):
        fb.simulate([0.0, 1.0], motion=kanefem.Motion.constant_spin([0, 0, 1.0]), method="dp5")
    with pytest.raises(ValueError, match="spatial"):
        fb.simulate([0.0, 1.0], motion=kanefem.Motion.constant_speed(1.0))
    # a straight bar has no inertia about its axis: free motion refused, its frame prescribed taken
    bar = kanefem.FloatingBody(kanefem.Bar3D(1.0, 3, E=E_AL, A=4e-4, rho=RHO_AL), "fixed-free")
    assert bar.rigid_margin < 1e-10
    with pytest.raises(ValueError, match="rigid margin"):
        bar.simulate([0.0, 0.1])
    r = bar.simulate([0.0, 0.01], motion=kanefem.Motion.constant_spin([0.0, 0.0, 3.0]), dt=1e-3)
    assert np.all(np.isfinite(r.d))
    # mean axes: a state must lie within the elastic modes
    fm = kanefem.FloatingBody(beam, "mean-axes")
    u = np.zeros(beam.ndof)
    u[0::6] = 1e-3  # a rigid translation
    with pytest.raises(ValueError, match="mean-axis"):
        fm.state(d=u)
    with pytest.raises(kanefem.NotSupportedError, match="geometric_stiffness"):
        kanefem.FloatingBody(kanefem.MeshBody(kanefem.Mesh.box(0.1, 0.1, 0.1, 1, 1, 1), E=1e9, nu=0.3, rho=1e3,
                                              storage="dense"), geometric_stiffness=True)
