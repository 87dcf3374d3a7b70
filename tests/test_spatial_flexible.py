"""Elastic links of spatial mechanisms coupled both ways (docs/theory.md section 5.17; issue
22): the spatial two-way solver against the planar one on a planar mechanism described in
space, against Exudyn's floating body on the same spatial slider-crank (its mesh, matrices
and modes), a reduced link against the beam it was reduced from, the energy of a free
flexible spatial chain, the inverse dynamics of an elastic arm, and bad input named."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import kanefem
from kanefem import Mesh, MeshBody, NotSupportedError, ReducedBody
from kanefem.mechanism import (ConstantSpeed, Coordinate, ElasticLink, Mechanism, Prismatic, Revolute, RigidBody,
                               SpatialBody, SpatialLink, Torque, Weld, spatial_slider_crank)
from kanefem.mechanism.spatial import quaternions_matrices

ROOT = Path(__file__).resolve().parents[1]
SPEED = 150.0
TURN = 2 * math.pi / SPEED
# the slider-crank's rod: 0.15 m crank, 0.30 m rod of 6 mm steel, 10 elements
R_CRANK, L_ROD, DIA, E_STEEL, RHO_STEEL = 0.15, 0.30, 0.006, 200e9, 7870.0
AREA = math.pi * DIA**2 / 4
I_ROD = AREA * DIA**2 / 16


def planar_and_spatial_slider_cranks(geometric):
    """The planar slider-crank with a PlanarBeam rod and the same mechanism in space (the
    plane z = 0, revolutes about z) with a Beam3D rod of the same in-plane section.  The
    models differ in one number: the Beam3D's section points carry the section's inertia
    about z, rho I L (kf_body_rigid integrates the points of its invariants), which the
    planar line mass does not; the planar model gets it as a massless body welded to the rod
    (its inertia turns with the rod's frame), so both rods have the same rigid body."""
    pb = kanefem.PlanarBeam(L_ROD, 10, E=E_STEEL, A=AREA, I=I_ROD, rho=RHO_STEEL)
    b3 = kanefem.Beam3D(L_ROD, 10, E=E_STEEL, A=AREA, Izz=I_ROD, Iyy=I_ROD, J=2 * I_ROD, rho=RHO_STEEL)
    ms = 0.5 * RHO_STEEL * AREA * L_ROD
    r, L = R_CRANK, L_ROD
    planar = Mechanism([RigidBody("crank", 0.0, 0.0, centre=(r / 2, 0.0)),
                        ElasticLink("rod", pb, start=(r, 0.0), geometric_stiffness=geometric),
                        RigidBody("cap", 0.0, RHO_STEEL * I_ROD * L, centre=(r, 0.0)),
                        RigidBody("slider", ms, 0.0, centre=(r + L, 0.0))],
                       [Revolute("O", ("ground", "crank"), (0.0, 0.0)), Revolute("A", ("crank", "rod"), (r, 0.0)),
                        Weld("W", ("rod", "cap"), (r, 0.0)), Revolute("B", ("rod", "slider"), (r + L, 0.0)),
                        Prismatic("guide", ("ground", "slider"), (r + L, 0.0), axis=(1.0, 0.0))],
                       [Coordinate("crank", joint="O")], gravity=(0.0, -9.81))
    z = (0.0, 0.0, 1.0)
    spatial = Mechanism([SpatialBody("crank", 0.0, (0.0, 0.0, 0.0), centre=(r / 2, 0.0, 0.0)),
                         SpatialLink("rod", b3, start=(r, 0.0, 0.0), supports="pinned-pinned",
                                     geometric_stiffness=geometric),
                         SpatialBody("slider", ms, (0.0, 0.0, 0.0), centre=(r + L, 0.0, 0.0))],
                        [Revolute("O", ("ground", "crank"), (0.0, 0.0, 0.0), axis=z),
                         Revolute("A", ("crank", "rod"), (r, 0.0, 0.0), axis=z),
                         Revolute("B", ("rod", "slider"), (r + L, 0.0, 0.0), axis=z),
                         Prismatic("guide", ("ground", "slider"), (r + L, 0.0, 0.0), axis=(1.0, 0.0, 0.0))],
                        [Coordinate("crank", joint="O")], gravity=(0.0, -9.81, 0.0), redundant="independent")
    return planar, spatial


@pytest.mark.parametrize("geometric", [True, False])
def test_a_planar_mechanism_in_space_is_the_planar_two_way_solver(geometric):
    """The slider-crank driven at 150 rad/s under gravity: the spatial solver's Beam3D rod
    (its floating frame from kf_ffrf, the spatial closure, the joints' forces in space)
    moves as the planar solver's PlanarBeam rod (csrc/kf_flexmech.c's planar links): the
    midpoint deflection and the drive torque over a turn to 1e-9 of their peaks (the two
    solve the same equations in other coordinates: measured 3e-13); the rod stays in its
    plane (w, theta_x, theta_y exactly zero) and the out-of-plane joint forces vanish."""
    planar, spatial = planar_and_spatial_slider_cranks(geometric)
    t = np.linspace(0.0, TURN, 26)
    opts = dict(drives={"crank": ConstantSpeed(SPEED)}, dt=TURN / 400, rtol=None)
    p, s = planar.simulate_flexible(t, **opts), spatial.simulate_flexible(t, **opts)
    assert s.geometric_stiffness == {"rod": geometric}
    vp = p.deflection("rod", 0.15)
    vs = s.deflection("rod", 0.15)
    assert np.abs(vs - vp).max() < 1e-9 * np.abs(vp).max()
    assert np.abs(s.motion.force - p.motion.force).max() < 1e-9 * np.abs(p.motion.force).max()
    d = s.d["rod"].reshape(len(t), -1, 6)
    assert np.abs(d[:, :, [2, 3, 4]]).max() == 0.0
    assert s.joints.shape == (len(t), 4, 6)
    scale = np.abs(s.joints).max()
    assert np.abs(s.joints[:, :, 2]).max() < 1e-9 * scale and np.abs(s.joints[:, :, 3:5]).max() < 1e-9 * scale
    # the planar joint forces of the pins, as the planar solver's (its joints A, B: 1, 3)
    assert np.abs(s.joints[:, [1, 2], :2] - p.joints[:, [1, 3], :2]).max() < 1e-9 * scale


def test_a_free_coordinate_in_space_is_the_planar_two_way_solver():
    """A free pendulum (a 1 m steel strip hanging from a revolute at its clamped first
    node, released horizontal under gravity) swings in space as in the plane: a free rigid
    coordinate (Newton's iterations with the iteration matrix of the elastic block) gives
    the tip's deflection to 1e-9 of its peak and the swing to 1e-12 rad (measured 2.6e-13
    and 5e-15), with the planar run's count of evaluations and factorizations."""
    E, rho, A, I = 200e9, 7870.0, 0.05 * 0.003, 0.05 * 0.003**3 / 12
    pb = kanefem.PlanarBeam(1.0, 8, E=E, A=A, I=I, rho=rho)
    b3 = kanefem.Beam3D(1.0, 8, E=E, A=A, Izz=I, Iyy=0.003 * 0.05**3 / 12, J=1e-10, rho=rho)
    planar = Mechanism([ElasticLink("beam", pb, supports="clamped-free", damping=(0.0, 1e-5)),
                        RigidBody("cap", 0.0, rho * I * 1.0, centre=(0.0, 0.0))],
                       [Revolute("O", ("ground", "beam"), (0.0, 0.0)), Weld("W", ("beam", "cap"), (0.0, 0.0))],
                       [Coordinate("angle", joint="O")], gravity=(0.0, -9.81))
    spatial = Mechanism([SpatialLink("beam", b3, supports="clamped-free", damping=(0.0, 1e-5))],
                        [Revolute("O", ("ground", "beam"), (0.0, 0.0, 0.0), axis=(0.0, 0.0, 1.0))],
                        [Coordinate("angle", joint="O")], gravity=(0.0, -9.81, 0.0))
    t = np.linspace(0.0, 0.3, 16)
    opts = dict(drives={"angle": Torque(0.0)}, dt=0.3 / 600, rtol=None)
    p, s = planar.simulate_flexible(t, **opts), spatial.simulate_flexible(t, **opts)
    tip_p, tip_s = p.d["beam"][:, -2], s.d["beam"][:, -5]
    assert np.abs(tip_s - tip_p).max() < 1e-9 * np.abs(tip_p).max()
    assert np.abs(s.motion.z - p.motion.z).max() < 1e-12
    assert (s.stats["evaluations"], s.stats["factorizations"]) == (p.stats["evaluations"], p.stats["factorizations"])


def solid_rod(nx=20):
    """The rod as a steel hex8 bar (6 x 6 mm, the round rod's area within 27 %), its end
    faces condensed to rigid interface items at A (x = 0) and B (x = 0.3), reduced by
    Craig-Bampton with 8 fixed-interface modes, no K_G (Exudyn's floating body has none):
    (mesh, reduced body, the faces' nodes, the midpoint node on an edge)."""
    h = 0.006
    solid = MeshBody(Mesh.box(L_ROD, h, h, nx, 1, 1, cell="hexahedron", origin=(0.0, -h / 2, -h / 2)),
                     E=E_STEEL, nu=0.3, rho=RHO_STEEL)
    faces = [lambda x: np.isclose(x[:, 0], 0.0), lambda x: np.isclose(x[:, 0], L_ROD)]
    red = ReducedBody(solid, interface=faces, n_modes=8, geometric_stiffness=False)
    nodes = [np.flatnonzero(np.isclose(solid.nodes[:, 0], x)) for x in (0.0, L_ROD)]
    mid = int(np.argmin(np.linalg.norm(solid.nodes - [0.15, -h / 2, -h / 2], axis=1)))
    return solid, red, nodes, mid


def test_spatial_slider_crank_against_exudyn():
    """The slider-crank with its guide 5 cm above the crank's plane (spherical joint at the
    crank pin, universal at the slider), its rod a reduced hex8 bar, driven at 150 rad/s:
    Exudyn's ObjectFFRFreducedOrder fed the same mesh, mass and stiffness matrices and the
    free columns of kanefem's Craig-Bampton basis (bench/_exudyn_models.py), the joints on
    its floating frame, gives the same elastic displacement of the rod's midpoint in its
    frame over a turn.  Each side at 1000 and 2000 steps, Richardson-extrapolated (both
    generalized-alpha schemes are second order: kanefem's coordinate partitioning, Exudyn's
    index 3): the extrapolated answers agree to 2e-6 of the peak (measured 4e-7); at 1000
    steps each they differ by 2.6e-5 of the peak, 4x less at 2000 (each side's own error
    there is 2.4e-3 against its 4000 steps: the two second-order schemes err alike).  The
    deflection has both components, in (v) and out of (w, half of v) the crank's plane."""
    pytest.importorskip("exudyn")  # in the test extra
    if str(ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(ROOT / "bench"))
    import _exudyn_models as X

    solid, red, faces, mid = solid_rod()
    mech = spatial_slider_crank(rod_body=red, geometric_stiffness=False)
    link = mech.link("rod")
    t = np.linspace(0.0, TURN, 26)
    k = mech.kinematics([[0.0]], [[SPEED]])  # the frame's rigid velocity at t = 0, global axes
    b = mech.bodies.index(link)
    R = link.rotation
    w = R @ k["qd"][0, b, 3:]
    v0 = k["qd"][0, b, :3] + np.cross(w, np.asarray(link.start) - k["q"][0, b, :3])
    cms = X.ffrf_body(solid.nodes, solid.mass_matrix(), solid.stiffness_matrix(), red.basis_matrix[:, ~link._fixed])
    ours, theirs = [], []
    for steps in (1000, 2000):
        fm = mech.simulate_flexible(t, drives={"crank": ConstantSpeed(SPEED)}, dt=TURN / steps, rtol=None)
        ours.append(fm.displacement("rod", mid))
        te, ue = X.spatial_slider_crank_ffrf(cms, R, link.start, faces, [(0.0, 0.0, 0.0), (L_ROD, 0.0, 0.0)], mid,
                                             solid.nodes[mid], v0, w, steps=steps, slider_mass=0.5 * link.rigid()[0])
        theirs.append(np.column_stack([np.interp(t, te, ue[:, i]) for i in range(3)]))
    peak = np.abs(theirs[1]).max()
    assert np.abs(theirs[1][:, 2]).max() > 0.3 * peak  # out of the crank's plane: w is a third of v or more
    assert np.abs(ours[0] - theirs[0]).max() < 1e-4 * peak
    rich = [x[1] + (x[1] - x[0]) / 3 for x in (ours, theirs)]
    assert np.abs(rich[0] - rich[1]).max() < 2e-6 * peak


def test_a_reduced_link_is_the_beam_it_was_reduced_from():
    """The spatial slider-crank's Beam3D rod reduced by Craig-Bampton with every
    fixed-interface mode (its end nodes the interface, held as the beam: translations at
    both, twist at A) is the beam rod two ways to 1e-10 of the peak without K_G (the same
    space of displacements: measured 1.9e-13), and its K_G from the reduced body's unit
    load cases combined with the joints' forces and moments at its ports (not the beam's
    N(x) from its end forces) follows the beam's within 1 % of the peak (measured 0.48 %:
    the two K_G rules, as in the plane, docs/theory.md section 5.12); one way, its first
    frequency with K_G over the turn within 1 % of the beam's."""
    beam = kanefem.Beam3D(L_ROD, 10, E=E_STEEL, A=AREA, Izz=I_ROD, Iyy=I_ROD, J=2 * I_ROD, rho=RHO_STEEL)
    t = np.linspace(0.0, TURN, 26)
    drives = {"crank": ConstantSpeed(SPEED)}
    opts = dict(drives=drives, dt=TURN / 400, rtol=None)
    for geometric, tol in ((False, 1e-10), (True, 1e-2)):
        red = ReducedBody(beam, interface=[0, -1], n_modes="all", geometric_stiffness=geometric,
                          prestress_supports="free" if geometric else None)
        full = spatial_slider_crank(rod_body=beam, rod_supports={0: "pinned", -1: "spherical"},
                                    geometric_stiffness=geometric)
        reduced = spatial_slider_crank(rod_body=red, geometric_stiffness=geometric)
        assert reduced.link("rod").supports == {0: ("u", "v", "w", "theta_x"), 1: ("u", "v", "w")}
        a, b = (m.simulate_flexible(t, **opts).displacement("rod", 5) for m in (full, reduced))
        assert np.abs(a - b).max() < tol * np.abs(a).max()
    motion = full.solve(t, drives=drives)
    f_full = full.link_eigenvalues(motion, n_modes=1)["rod"].frequencies_hz[:, 0]
    motion = reduced.solve(t, drives=drives)
    f_red = reduced.link_eigenvalues(motion, n_modes=1)["rod"].frequencies_hz[:, 0]
    assert np.abs(f_red / f_full - 1).max() < 1e-2


def free_chain(geometric=False):
    """A flexible spatial double pendulum: two aluminium rods (4 mm, 0.5 and 0.4 m, 6
    Beam3D elements each), the first on a revolute about a tilted axis (0, 0.6, 0.8) at
    its first end, the second on a revolute about the first's axis at its far end and
    perpendicular to it, clamped there (its first bending frequency 7 Hz), released at rest
    under gravity: a free motion in space (no drive, no damping)."""
    E, rho, d = 70e9, 2700.0, 0.004
    A, I = math.pi * d * d / 4, math.pi * d**4 / 64
    b1 = kanefem.Beam3D(0.5, 6, E=E, A=A, Izz=I, Iyy=I, J=2 * I, rho=rho)
    b2 = kanefem.Beam3D(0.4, 6, E=E, A=A, Izz=I, Iyy=I, J=2 * I, rho=rho)
    l1 = SpatialLink("l1", b1, supports="pinned-pinned", geometric_stiffness=geometric)
    l2 = SpatialLink("l2", b2, start=(0.5, 0.0, 0.0), orientation=[[0, -1, 0], [1, 0, 0], [0, 0, 1]],
                     supports="clamped-free", geometric_stiffness=geometric)
    joints = [Revolute("O", ("ground", "l1"), (0.0, 0.0, 0.0), axis=(0.0, 0.6, 0.8)),
              Revolute("E", ("l1", "l2"), (0.5, 0.0, 0.0), axis=(1.0, 0.0, 0.0))]
    return Mechanism([l1, l2], joints, [Coordinate("q1", joint="O"), Coordinate("q2", joint="E")],
                     gravity=(0.0, 0.0, -9.81))


def chain_energy(mech, fm):
    """Kinetic, strain and gravity energy of each instant: the links' floating bodies'
    (FloatingBody.energy, 1/2 u^T M(d) u + 1/2 d^T K d - g . (m r_c + R S_d), of the same
    bodies and reference conditions) at the mechanism's states."""
    out = np.zeros(len(fm.t))
    for L in mech.links:
        b = mech.bodies.index(L)
        fb = kanefem.FloatingBody(L.body, L.supports)
        Rs = quaternions_matrices(fm.motion.q[:, b, 3:])
        for k in range(len(fm.t)):
            st = fb.state(position=fm.motion.q[k, b, :3], rotation=Rs[k], velocity=fm.motion.qd[k, b, :3],
                          omega=fm.motion.qd[k, b, 3:], d=fm.d[L.name][k], d_t=fm.d_t[L.name][k])
            out[k] += fb.energy(st, gravity=mech.gravity)
    return out


def test_energy_of_a_free_flexible_spatial_chain():
    """Without damping and K_G (which acts on the elastic rows only, docs/theory.md
    section 1.6) the coupled equations are Lagrange's of the chain's kinetic and potential
    energy, and Newmark's average acceleration (rho_inf = 1) conserves it up to its second
    order error: over half a second of a 3D swing (both joints turning, the second rod's tip
    deflecting 0.3 mm), the energy's largest departure from its start is below 1e-4 of m g
    L at h = 1 ms (measured 2.0e-5) and falls by 4 when h halves (measured 3.74; bounds
    3-5: second order)."""
    mech = free_chain()
    t = np.linspace(0.0, 0.5, 11)
    drives = {"q1": Torque(0.0), "q2": Torque(0.0)}
    mgl = sum(L.rigid()[0] for L in mech.links) * 9.81 * 0.5
    drift = []
    for h in (1e-3, 5e-4):
        fm = mech.simulate_flexible(t, drives=drives, dt=h, rtol=None, rho_inf=1.0)
        assert fm.geometric_stiffness == {"l1": False, "l2": False}
        e = chain_energy(mech, fm)
        drift.append(np.abs(e - e[0]).max() / mgl)
    assert np.abs(fm.d["l2"][:, -4]).max() > 2e-4  # the tip deflects (v of the last node)
    assert drift[0] < 1e-4
    assert 3.0 < drift[0] / drift[1] < 5.0


def quintic(t, amplitudes):
    """A rest-to-rest quintic trajectory 10 s^3 - 15 s^4 + 6 s^5 (s = t / t_end) of each
    coordinate to its amplitude: z, z', z'' (nt, nz)."""
    T = t[-1]
    s = t / T
    S, Sd, Sdd = 10 * s**3 - 15 * s**4 + 6 * s**5, (30 * s**2 - 60 * s**3 + 30 * s**4) / T, (
        60 * s - 180 * s**2 + 120 * s**3) / T**2
    a = np.asarray(amplitudes, float)
    return S[:, None] * a, Sd[:, None] * a, Sdd[:, None] * a


def test_a_joint_damper_dissipates_what_the_chain_loses():
    """A damper on a joint acts on the links' frames; the iteration matrix then takes the
    free rigid coordinates' tangent (kf_flexmech.c, flex_jacobian; without it Newton
    diverges).  The free chain with c = 0.02 N m s on its elbow, rho_inf = 1, no K_G: its
    energy plus the work the damper took, int c q2'^2 dt (trapezoid on the 1 ms output
    grid), stays its start within 2e-5 m g L (measured 6.3e-7 at h = 1 ms, 3.8e-6 at 0.5
    ms: the trapezoid's and Newton's tolerance), against 0.069 m g L dissipated."""
    from scipy.integrate import cumulative_trapezoid

    free = free_chain()
    elbow = Revolute("E", ("l1", "l2"), (0.5, 0.0, 0.0), axis=(1.0, 0.0, 0.0), damping=0.02)
    mech = Mechanism(free.bodies, [free.joints[0], elbow], free.coordinates, gravity=free.gravity)
    t = np.linspace(0.0, 0.5, 501)
    fm = mech.simulate_flexible(t, drives={"q1": Torque(0.0), "q2": Torque(0.0)}, dt=1e-3, rtol=None, rho_inf=1.0)
    e = chain_energy(mech, fm)
    lost = cumulative_trapezoid(0.02 * fm.motion.zd[:, 1] ** 2, t, initial=0.0)
    mgl = sum(L.rigid()[0] for L in mech.links) * 9.81 * 0.5
    assert lost[-1] > 0.05 * mgl
    assert np.abs(e + lost - e[0]).max() < 2e-5 * mgl


def test_flexible_inverse_dynamics_of_a_chain_does_the_work_of_its_energy():
    """The drives' forces of a chain following a trajectory with its elastic links coupled
    both ways (Mechanism.flexible_inverse_dynamics) do the work its energy gains: int sum
    F_k z_k' dt = E(t) - E(0) (no damping, no K_G, rho_inf = 1), within 2e-5 m g L
    (measured 2.1e-6 at 1 ms; the trapezoid of the power on the 1 ms output grid) of a
    0.38 m g L swing; the torques differ from the rigid inverse dynamics' by the links'
    deflection and vibration (5 % of q1's peak for these 4 mm rods)."""
    from scipy.integrate import cumulative_trapezoid

    mech = free_chain()
    t = np.linspace(0.0, 0.5, 501)
    z, zd, zdd = quintic(t, (0.8, -0.6))
    fm = mech.flexible_inverse_dynamics(t, z, zd, zdd, dt=1e-3, rtol=None, rho_inf=1.0)
    assert np.abs(fm.motion.z - z).max() < 1e-12
    e = chain_energy(mech, fm)
    work = cumulative_trapezoid((fm.motion.force * fm.motion.zd).sum(axis=1), t, initial=0.0)
    mgl = sum(L.rigid()[0] for L in mech.links) * 9.81 * 0.5
    assert abs(work[-1]) > 0.3 * mgl
    assert np.abs(e - e[0] - work).max() < 2e-5 * mgl
    rigid = mech.inverse_dynamics(t, z, zd, zdd)
    diff = np.abs(fm.motion.force - rigid.force).max(axis=0) / np.abs(rigid.force).max(axis=0)
    assert 0.01 < diff[0] < 0.1


def test_flexible_inverse_dynamics_of_a_constant_speed_is_the_driven_run():
    """The quintic Hermite pieces through samples of a linear motion (z = omega t, z' =
    omega, z'' = 0) are that motion exactly, so flexible_inverse_dynamics of a crank turning
    at constant speed is simulate_flexible under ConstantSpeed, planar and spatial, from the
    same start (d0=None: at rest): the deflection and the drive torque to 1e-10 of their
    peaks (measured 5e-12: the paths' round-off through the steps)."""
    t = np.linspace(0.0, TURN, 51)
    z, zd = (SPEED * t)[:, None], np.full((t.size, 1), SPEED)
    for mech in (kanefem.mechanism.slider_crank(elements=4), spatial_slider_crank(elements=4)):
        fi = mech.flexible_inverse_dynamics(t, z, zd, np.zeros_like(z), d0=None)
        fs = mech.simulate_flexible(t, drives={"crank": ConstantSpeed(SPEED)})
        a, b = fi.displacement("rod", 2), fs.displacement("rod", 2)
        assert np.abs(a - b).max() < 1e-10 * np.abs(b).max()
        assert np.abs(fi.motion.force - fs.motion.force).max() < 1e-10 * np.abs(fs.motion.force).max()


def test_flexible_inverse_dynamics_of_a_robot_arm():
    """A three-link Denavit-Hartenberg arm whose forearm is an elastic aluminium tube (3
    Beam3D elements, clamped at the elbow) on the arm's given mass, inertia and centre: two
    ways its rigid body is its elements' and a rigid 'hardware' body fixed to it that adds
    up to the description's (spatial.with_hardware), so every body's prescribed motion is
    the rigid solve's to round-off (measured 4e-16 in q, 8e-14 in q'').  The torques differ
    from the rigid inverse dynamics' by the vibration the quintic's jerk steps excite, a
    force m j / omega: doubled when E is quartered (measured 1.96-2.01), while the
    quasi-static deflection grows 4 times (measured 4.03).  The core's path of the Hermite
    pieces (Path.through) is the Python function of the same pieces to round-off."""
    from scipy.interpolate import BPoly

    from kanefem.mechanism import Path as PathDrive
    from kanefem.mechanism.robots import dh_chain

    table = [[0.0, 0.3, 0.0, math.pi / 2], [0.0, 0.0, 0.5, 0.0], [0.0, 0.0, 0.4, 0.0]]
    d = 0.02
    A, I = math.pi * d * d / 4, math.pi * d**4 / 64
    t = np.linspace(0.0, 0.5, 51)
    z, zd, zdd = quintic(t, (1.0, 0.6, -0.8))
    diffs, peaks = [], []
    for E in (70e9, 70e9 / 4):
        m = dh_chain(table, masses=[2.0, 2.0, 1.5], inertias=[(0.01, 0.01, 0.01), (0.002, 0.05, 0.05),
                                                              (0.002, 0.03, 0.03)],
                     centres=[(0, 0, 0), (-0.25, 0, 0), (-0.2, 0, 0)],
                     elastic={"link3": dict(E=E, A=A, Izz=I, Iyy=I, J=2 * I, rho=2700.0, elements=3)})
        fm = m.flexible_inverse_dynamics(t, z, zd, zdd)
        assert fm.stats["accurate"]
        drives = {c.name: PathDrive.through(t, z[:, k], zd[:, k], zdd[:, k]) for k, c in enumerate(m.coordinates)}
        rigid = m.solve(t, drives=drives, z0=z[0], zd0=zd[0])
        assert np.abs(fm.motion.q - rigid.q).max() < 1e-12
        assert np.abs(fm.motion.qdd - rigid.qdd).max() < 1e-9
        diffs.append(np.abs(fm.motion.force - rigid.force).max(axis=0) / np.abs(rigid.force).max(axis=0))
        peaks.append(np.abs(fm.d["link3"]).max())
    assert np.all(diffs[0] < 0.01)
    assert np.all((1.7 < diffs[1] / diffs[0]) & (diffs[1] / diffs[0] < 2.3))
    assert 3.8 < peaks[1] / peaks[0] < 4.2
    pieces = [BPoly.from_derivatives(t, np.column_stack([z[:, k], zd[:, k], zdd[:, k]])) for k in range(3)]
    python = {c.name: PathDrive((lambda f: lambda s: (float(f(s)), float(f(s, 1)), float(f(s, 2))))(pieces[k]))
              for k, c in enumerate(m.coordinates)}
    other = m.solve(t, drives=python, z0=z[0], zd0=zd[0])
    assert np.abs(other.q - rigid.q).max() < 1e-13
    assert np.abs(other.force - rigid.force).max() < 1e-8 * np.abs(rigid.force).max()
    with pytest.raises(ValueError, match="give both zd and zdd, or neither"):
        m.flexible_inverse_dynamics(t, z, zd)
    with pytest.raises(TypeError, match="flexible_inverse_dynamics: drives is set by the trajectory"):
        m.flexible_inverse_dynamics(t, z, zd, zdd, drives={})
    with pytest.raises(ValueError, match="t must hold at least 2 strictly increasing times"):
        PathDrive.through(t[::-1], z[:, 0], zd[:, 0], zdd[:, 0])
    with pytest.raises(ValueError, match="breakpoints must be finite and strictly increasing"):
        kanefem._core.path_pieces(np.array([0.0, 1.0, 1.0]), np.zeros((2, 4)))


def test_bad_input_is_named():
    """What the spatial two-way runs cannot hold is refused by name before any step:
    planar elements on a spatial link, a link whose given rigid body is lighter than its
    elements, a beam with rotary inertia, a joint at a port its reference conditions
    leave free, a straight Bar3D held at its ends (its spin about its own axis is free:
    neither its reference conditions nor its stiffness hold it), a reduced link's K_G
    without its load cases."""
    t = np.linspace(0.0, 0.01, 3)
    drives = {"crank": ConstantSpeed(SPEED)}
    pb = kanefem.PlanarBeam(L_ROD, 4, E=E_STEEL, A=AREA, I=I_ROD, rho=RHO_STEEL)
    with pytest.raises(NotSupportedError, match="link 'rod' carries planar elements .*move one way only"):
        Mechanism.from_planar(kanefem.mechanism.slider_crank()).simulate_flexible(t, drives=drives)
    beam = kanefem.Beam3D(L_ROD, 4, E=E_STEEL, A=AREA, Izz=I_ROD, Iyy=I_ROD, J=2 * I_ROD, rho=RHO_STEEL)
    m = spatial_slider_crank(rod_body=beam)
    rod = m.link("rod")
    light = SpatialLink("rod", beam, start=rod.start, orientation=rod.orientation, supports=rod.supports,
                        mass=0.01, inertia=(1e-6, 1e-3, 1e-3), centre=tuple(rod.node_point(2)))
    bodies = [m.bodies[0], light, m.bodies[2]]
    with pytest.raises(ValueError, match="link 'rod': its given mass 0.01 kg is less than its elements'"):
        Mechanism(bodies, m.joints, m.coordinates, gravity=m.gravity).simulate_flexible(t, drives=drives)
    rotary = kanefem.Beam3D(L_ROD, 4, E=E_STEEL, A=AREA, Izz=I_ROD, Iyy=I_ROD, J=2 * I_ROD, rho=RHO_STEEL,
                            rotary_inertia=True)
    with pytest.raises(NotSupportedError, match="link 'rod': a beam whose sections turn to second order"):
        spatial_slider_crank(rod_body=rotary, rod_supports="pinned-pinned").simulate_flexible(t, drives=drives)
    with pytest.raises(ValueError, match="joint 'B' attaches to link 'rod' at node 4, where its reference"):
        spatial_slider_crank(rod_body=beam, rod_supports="clamped-free").simulate_flexible(t, drives=drives)
    bar = kanefem.Bar3D(L_ROD, 4, E=E_STEEL, A=AREA, rho=RHO_STEEL)
    with pytest.raises(ValueError, match="rod: the reference conditions .* leave a rigid motion of the link free"):
        spatial_slider_crank(rod_body=bar, rod_supports="fixed-fixed")
    red = ReducedBody(beam, interface=[0, -1], n_modes=2)
    with pytest.raises(NotSupportedError, match="rod: geometric_stiffness=True needs the link's K_G load cases"):
        spatial_slider_crank(rod_body=red).simulate_flexible(t, drives=drives)
    with pytest.raises(TypeError, match="a ReducedBody on a spatial link must be spatial"):
        SpatialLink("rod", ReducedBody(pb, interface=[0, -1], n_modes=2))
