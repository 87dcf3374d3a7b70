"""Reduced and meshed bodies as links of planar mechanisms (issue 21; docs/theory.md
sections 3.18, 5.11-5.12): the rigid body from the invariants, joints at interface nodes,
K_G of the reduced body's unit load cases combined with the joint forces, one way and two
ways, TOML files, and the same mesh and modes in Exudyn's ObjectFFRFreducedOrder."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import kanefem
from kanefem import Mesh, MeshBody, NotSupportedError, PlanarBeam, ReducedBody, _records
from kanefem.mechanism import (ConstantSpeed, Coordinate, ElasticLink, Mechanism, Path as ZPath, Revolute,
                               RigidBody, Weld, slider_crank)

ROOT = Path(__file__).resolve().parents[1]
SPEED = 150.0
TURN = 2 * math.pi / SPEED
#: Southwell's coefficient of a uniform cantilever's first bending mode (Wright et al. 1982):
#: in the plane of rotation (lag) lambda = lambda_0 + (ALPHA1 - 1) Omega^2 to first order
ALPHA1 = 1.1933
#: the slider-crank's rod (6 mm steel) as a plane-stress rectangle of the same area and second
#: moment: I = t h^3 / 12 = pi d^4 / 64, A = t h
AREA = math.pi * 0.006**2 / 4
HEIGHT = math.sqrt(12 * (AREA * 0.006**2 / 16) / AREA)
THICK = AREA / HEIGHT


def crank_mechanism(link):
    """The slider-crank of kanefem.mechanism.slider_crank() with ``link`` as its rod."""
    sc = slider_crank()
    return Mechanism([sc.bodies[0], link, sc.bodies[2]], sc.joints, sc.coordinates, gravity=sc.gravity,
                     name="slider-crank")


def rod_mesh(nx=30, ny=2):
    """The rod as a plane-stress quad8 mesh from pin A (0, 0) to pin B (0.3, 0): (body, A, mid, B)."""
    mesh = Mesh.rectangle(0.3, HEIGHT, nx, ny, cell="quad8", origin=(0.0, -HEIGHT / 2))
    body = MeshBody(mesh, E=200e9, nu=0.3, rho=7870.0, thickness=THICK)
    near = lambda p: int(np.argmin(np.hypot(*(body.nodes - p).T)))  # noqa: E731
    return body, near((0.0, 0.0)), near((0.15, 0.0)), near((0.3, 0.0))


@pytest.fixture(scope="module")
def beam_rod():
    """The shipped slider-crank (10-element beam rod) and its rod reduced by Craig-Bampton
    with both end nodes as the interface and the K_G load cases of a link."""
    sc = slider_crank()
    rod = sc.link("rod")
    return sc, rod


def reduced_rod(rod, n_modes, **kw):
    red = ReducedBody(rod.body, interface=[0, rod.body.n_nodes - 1], n_modes=n_modes, prestress_supports="free")
    return ElasticLink("rod", red, start=rod.start, angle=rod.angle, **kw)


def test_rigid_body_and_ports_from_the_invariants(beam_rod):
    """A reduced link's mass, mass centre and inertia come from its projected invariants
    (kf_body_rigid: B^T M^-1 B over the rigid motions): the beam's rho A L, L/2, m L^2/12
    to round-off; a plane mesh's (the section's own inertia added, m h^2/12) likewise; its
    ports are the interface items, with their translation and rotation coordinates."""
    sc, rod = beam_rod
    red = reduced_rod(rod, 4)
    m = rod.body.rho * rod.body.A * 0.3
    assert red.mass == pytest.approx(m, rel=1e-13) and rod.mass == pytest.approx(m, rel=1e-13)
    assert red.inertia == pytest.approx(m * 0.09 / 12, rel=1e-12)
    np.testing.assert_allclose(red.centre_local, [0.15, 0.0], atol=1e-15)
    xy, dofs = red.ports()
    np.testing.assert_array_equal(xy, [[0.0, 0.0], [0.3, 0.0]])
    np.testing.assert_array_equal(dofs, [[0, 1, 2], [3, 4, 5]])  # i0_u, i0_v, i0_theta, i1_...
    body, a, mid, b = rod_mesh(30, 2)
    mesh_red = ReducedBody(body, interface=[a, b], n_modes=4, prestress_supports="free")
    link = ElasticLink("rod", mesh_red)
    assert link.mass == pytest.approx(m, rel=1e-13)
    # the rectangle's polar inertia m (L^2 + h^2) / 12 (isoparametric quad8: exact)
    assert link.inertia == pytest.approx(m * (0.09 + HEIGHT**2) / 12, rel=1e-12)
    assert link.supports == "pinned" and link._fixed[:4].all() and not link._fixed[4:].any()
    # a free-interface basis held by supports has no rigid motion: refused by name, by the core
    held = ReducedBody(body, interface=[a, b], basis="free-interface", n_modes=6, supports={a: "fixed"},
                       geometric_stiffness=False)
    with pytest.raises(ValueError, match="translation along x is not a motion of the body's coordinates"):
        kanefem._core.body_rigid(body=held._body)


def test_reduced_rod_is_the_beam_rod_one_way(beam_rod):
    """One way, the reduced rod's frozen-time frequencies over a turn equal the beam rod's
    with K_G (its load cases: the frame's inertia with inertia relief plus the joint forces
    on the interface DOFs, against the beam's N(x) of the same loads) and without, to the
    mode truncation of the Rayleigh-Ritz quotient: measured 5e-8 and 4e-6 for the first
    two with 8 modes (the loads are in equilibrium one way, so both K_G rules give the same
    axial force)."""
    sc, rod = beam_rod
    mech = crank_mechanism(reduced_rod(rod, 8))
    t = np.linspace(0.0, TURN, 25)
    for geo in (True, False):
        ref = sc.link_eigenvalues(sc.solve(t, drives={"crank": ConstantSpeed(SPEED)}), n_modes=2,
                                  geometric_stiffness=geo)["rod"]
        r = mech.link_eigenvalues(mech.solve(t, drives={"crank": ConstantSpeed(SPEED)}), n_modes=2,
                                  geometric_stiffness=geo)["rod"]
        err = np.abs(r.frequencies_hz / ref.frequencies_hz - 1).max(axis=0)
        assert err[0] < 2e-7 and err[1] < 2e-5
    # K_G moves the first frequency over the turn (the rod's thrust): 124.9-145.7 Hz with, 131.4-132.0 without
    assert r.frequencies_hz[:, 0].max() - r.frequencies_hz[:, 0].min() < 1.0
    assert ref.frequencies_hz[:, 0].max() - ref.frequencies_hz[:, 0].min() < 1.0
    kg = mech.joint_forces(mech.solve(t, drives={"crank": ConstantSpeed(SPEED)})).link_axial["rod"]
    assert kg.shape == (25, 12)  # a (2), E + W W (4), the 6 interface DOFs' loads
    table = mech.joint_forces(mech.solve(t, drives={"crank": ConstantSpeed(SPEED)})).table()[0]
    assert "rod_kg_F_i1_u_N" in table and "rod_kg_a_x_m_s2" in table
    # the response on the rigid motion (link_response, Newmark, no K_G): the beam rod's midpoint
    # deflection within 2e-5 of its peak with 8 modes (measured 9.5e-6), to round-off with all
    t = np.linspace(0.0, TURN, 61)
    ref = sc.link_response(sc.solve(t, drives={"crank": ConstantSpeed(SPEED)}), "rod", dt=TURN / 1000).d[:, 16]
    for n, tol in ((8, 2e-5), ("all", 1e-10)):
        m = crank_mechanism(reduced_rod(rod, n))
        r = m.link_response(m.solve(t, drives={"crank": ConstantSpeed(SPEED)}), "rod", dt=TURN / 1000)
        v = r.d @ m.link("rod").model.basis_matrix[16]  # node 5's v
        assert np.abs(v - ref).max() < tol * np.abs(ref).max()


def test_reduced_rod_two_ways_converges_to_the_beam_rod(beam_rod):
    """Two ways, without K_G the reduced rod converges to the beam rod as modes are added
    (the same equations in the span of the basis; with every mode an exact change of
    coordinates): midpoint deflection over a turn, relative to its peak, measured 2.2e-3,
    1.5e-4, 9.6e-6, 5e-14 with 2, 4, 8 and all 27 modes.  With K_G the two differ by 0.47 %
    of the peak at every mode count: the coupled state's axial imbalance (the elastic
    inertia the rigid loads leave out) goes to the second end in the beam's N(x) and is
    spread by inertia relief in the reduced body's load cases (both are 1.8 % from
    Exudyn's geometrically exact cables, tests/test_mechanism.py)."""
    sc, rod = beam_rod
    t = np.linspace(0.0, TURN, 41)
    opts = dict(drives={"crank": ConstantSpeed(SPEED)}, rtol=None, dt=TURN / 500, axial_force="extrapolated")
    errors = {}
    for geo in (False, True):
        ref = slider_crank(geometric_stiffness=geo).simulate_flexible(t, **opts).deflection("rod", 0.15)
        for n in ((2, 4, 8, "all") if not geo else (8,)):
            fm = crank_mechanism(reduced_rod(rod, n, geometric_stiffness=geo)).simulate_flexible(t, **opts)
            errors[geo, n] = np.abs(fm.displacement("rod", 5)[:, 1] - ref).max() / np.abs(ref).max()
    assert errors[False, 2] > errors[False, 4] > errors[False, 8] > errors[False, "all"]
    assert errors[False, 8] < 3e-5 and errors[False, "all"] < 1e-10
    assert errors[True, 8] < 0.006


def test_two_way_rows_of_a_reduced_link_are_its_one_way_equations():
    """With its frame prescribed (a hub on a path), a reduced link's coupled elastic rows
    are the moving-frame equations of its projected invariants (docs/theory.md section
    1): the core's link of given invariants and ports against the body's motion terms."""
    beam = PlanarBeam(2.0, 8, E=7e10, A=4e-4, I=2e-7, rho=3000)
    red = ReducedBody(beam, interface=[0], n_modes=5, geometric_stiffness=False)
    hub = RigidBody("hub", 0.0, 5.0)
    arm = ElasticLink("arm", red, geometric_stiffness=False)
    assert arm.supports == "clamped"
    mech = Mechanism([hub, arm], [Revolute("O", ("ground", "hub"), (0, 0)), Weld("W", ("hub", "arm"), (0, 0))],
                     [Coordinate("hub", joint="O")], gravity=(0.0, -9.81))
    free = ~arm._fixed
    rng = np.random.default_rng(2)
    d, dd = np.zeros(red.ndof), np.zeros(red.ndof)
    d[free], dd[free] = rng.normal(size=(2, free.sum())) * [[1e-3], [1e-2]]
    th, om, eps = 0.7, 3.0, 2.0
    links = _records.links([dict(body=1, geometric=False)])
    r = kanefem._core.mech_flex_dynamics(mech._core, links, [(red._body, *arm.ports())], [arm._fixed],
                                         _records.drives([dict(mode="path")]), [lambda t: (th, om, eps)], 0.0, [th],
                                         [th], [om], d[free], dd[free])
    g_L = np.array([-9.81 * math.sin(th), -9.81 * math.cos(th)])
    T = red.motion_terms(om, eps, -g_L)
    rhs = -(T.C @ dd + (red.stiffness_matrix() + T.K_eps + T.K_om) @ d + T.q_a + T.q_eps + T.q_om)
    expect = np.linalg.solve(red.mass_matrix()[np.ix_(free, free)], rhs[free])
    assert np.abs(r["ddd"] - expect).max() < 1e-11 * np.abs(expect).max()


def _arm(body, **kw):
    """A hub turned at a constant speed with an elastic arm welded at its root."""
    arm = ElasticLink("arm", body, **kw)
    return Mechanism([RigidBody("hub", 1.0, 0.1), arm],
                     [Revolute("O", ("ground", "hub"), (0, 0)), Weld("W", ("hub", "arm"), (0.0, 0.0))],
                     [Coordinate("hub", joint="O")], gravity=(0.0, 0.0))


def test_spinning_reduced_link_stiffens_as_the_full_one():
    """K_G of a reduced link matters (what Exudyn's and Chrono's reduced bodies lack): an
    arm (1 m steel, clamped in a hub turning at a constant speed) reduced to its root node
    and 8 modes, one way.  Its first in-plane frequency rises as lambda_0 + (alpha_1 - 1)
    Omega^2 with K_G, Southwell's alpha_1 = 1.1933 (Wright et al. 1982; measured slope
    0.19325 at 10 rad/s), as the full beam link's within 3e-5 of lambda at 200 rad/s (the
    Rayleigh-Ritz quotient of its K_G: measured 1.05e-5, from above) and a
    plane-stress mesh arm's within 3e-3 (its 40 x 2 quad8 elements); without K_G it falls
    by exactly Omega^2 and at 200 rad/s the arm 'buckles' (lambda < 0) where the full
    model with K_G has f = 32 Hz."""
    beam = PlanarBeam(1.0, 40, E=2.1e11, A=1e-4, I=1e-8, rho=7800)
    lam0 = beam.eigenvalues(1, supports="clamped-free").eigenvalues[0]
    red = ReducedBody(beam, interface=[0], n_modes=8, prestress_supports="free")
    h = math.sqrt(12 * 1e-8 / 1e-4)
    mesh = MeshBody(Mesh.rectangle(1.0, h, 40, 2, cell="quad8", origin=(0.0, -h / 2)), E=2.1e11, nu=0.0, rho=7800,
                    thickness=1e-4 / h)
    red_mesh = ReducedBody(mesh, interface=[lambda x: np.isclose(x[:, 0], 0.0)], n_modes=8, prestress_supports="free")
    lam = {}
    for name, mech in (("beam", _arm(beam, supports="clamped-free")), ("reduced", _arm(red)),
                       ("mesh", _arm(red_mesh))):
        for om in (10.0, 200.0):
            motion = mech.solve(np.linspace(0.0, 0.01, 3), drives={"hub": ConstantSpeed(om)})
            for geo in (True, False):
                lam[name, om, geo] = mech.link_eigenvalues(motion, n_modes=1,
                                                           geometric_stiffness=geo)["arm"].eigenvalues[0, 0]
    assert (lam["reduced", 10.0, True] - lam0) / 100.0 == pytest.approx(ALPHA1 - 1, abs=2e-4)
    assert lam["reduced", 200.0, True] == pytest.approx(lam["beam", 200.0, True], rel=3e-5)  # Ritz: 1.05e-5
    assert lam["mesh", 200.0, True] == pytest.approx(lam["beam", 200.0, True], rel=3e-3)
    assert lam["reduced", 200.0, False] == pytest.approx(lam["reduced", 10.0, False] - (200.0**2 - 100.0), rel=1e-9)
    assert lam["reduced", 200.0, False] < 0 < lam["reduced", 200.0, True]


def test_spin_up_two_ways_with_a_reduced_arm():
    """The spin-up benchmark (Simo and Vu-Quoc 1986; docs/theory.md section 4.12) with the
    hub driven along its law, two ways, K_G on: the beam reduced to its root node and 6
    modes has the beam link's tip deflection within 5e-3 of its peak over 15 s (measured
    3.0e-3, the same with 4 or 10 modes; the beam link's is the one-way study's to 4e-9).
    The difference is the K_G rule, not the reduction: the beam's N(x) is the
    quasi-static one of the frame's rigid inertia with its tip free, the reduced body's
    adds the joint force at its root, which also carries the arm's elastic inertia
    (Coriolis of its lag rate), spread over it by inertia relief."""
    s = kanefem.studies.SpinUp(omega_s=4.0, n_elements=10)
    red = ReducedBody(s.body(), interface=[0], n_modes=6, prestress_supports="free")

    def path(t):
        Ts, W = s.T_s, s.omega_s
        th = W / Ts * (t * t / 2 + (Ts / (2 * math.pi)) ** 2 * (math.cos(2 * math.pi * t / Ts) - 1)) \
            if t < Ts else W * Ts / 2 + W * (t - Ts)
        return th, float(s.omega(t)), float(s.eps(t))

    t = np.linspace(0.0, 15.0, 151)
    tips = []
    for body, kw in ((s.body(), dict(supports="clamped-free")), (red, {})):
        mech = _arm(body, **kw)
        fm = mech.simulate_flexible(t, drives={"hub": ZPath(path)}, dt=0.01, rho_inf=1.0, rtol=None)
        tips.append(fm.displacement("arm", 10)[:, 1])
    assert np.abs(tips[1] - tips[0]).max() < 5e-3 * np.abs(tips[0]).max()


def test_plane_stress_rod_against_the_beam_rod_and_exudyn():
    """The rod as a plane-stress mesh (30 x 2 quad8, 490 DOFs) pinned at two nodes on its
    axis, reduced to 6 fixed-interface modes: one way its frequencies with K_G are the beam
    rod's within the models' difference (plane stress against Euler-Bernoulli: measured
    0.04 %); two ways, its midpoint deflection within 1 % of the beam rod's peak (measured
    0.62 %: that difference plus the K_G rule's 0.47 %).  Exudyn's ObjectFFRFreducedOrder
    fed the same mesh, M, K and modes (no K_G: kanefem's without) gives the same
    deflection: within 5e-5 of the peak at 1000 steps (measured 2.4e-5, 6e-6 at 2000: the
    two generalized-alpha schemes, index 3 and kanefem's coordinate partitioning, agree to
    their steps' accuracy)."""
    body, a, mid, b = rod_mesh(30, 2)
    red = ReducedBody(body, interface=[a, b], n_modes=6, prestress_supports="free")
    t = np.linspace(0.0, TURN, 51)
    drives = {"crank": ConstantSpeed(SPEED)}
    sc = slider_crank()
    mech = crank_mechanism(ElasticLink("rod", red, start=(0.15, 0.0)))
    f_mesh = mech.link_eigenvalues(mech.solve(t, drives=drives), n_modes=2)["rod"].frequencies_hz
    f_beam = sc.link_eigenvalues(sc.solve(t, drives=drives), n_modes=2)["rod"].frequencies_hz
    assert np.abs(f_mesh / f_beam - 1).max() < 2.5e-3
    opts = dict(drives=drives, rtol=None, dt=TURN / 1000, axial_force="extrapolated")
    beam = sc.simulate_flexible(t, **opts).deflection("rod", 0.15)
    mesh = mech.simulate_flexible(t, **opts).displacement("rod", mid)[:, 1]
    assert np.abs(mesh - beam).max() < 0.01 * np.abs(beam).max()
    pytest.importorskip("exudyn")  # in the test extra
    if str(ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(ROOT / "bench"))
    import _exudyn_models as X

    linear = ElasticLink("rod", red, start=(0.15, 0.0), geometric_stiffness=False)
    ours = crank_mechanism(linear).simulate_flexible(t, **opts).displacement("rod", mid)[:, 1]
    cms = X.ffrf_body(body.nodes, body.mass_matrix(), body.stiffness_matrix(), red.basis_matrix[:, ~linear._fixed],
                      a)
    te, ve = X.slider_crank_ffrf(cms, 0.3, a, mid, b, steps=1000, slider_mass=0.5 * linear.mass)
    theirs = np.interp(t, te, ve)
    assert np.abs(ours - theirs).max() < 5e-5 * np.abs(theirs).max()
    # without K_G the slider's thrust cannot soften the rod: 22 % of the peak
    assert np.abs(ours - mesh).max() > 0.1 * np.abs(mesh).max()


def test_spatial_bodies_move_in_the_plane():
    """A spatial body is a link of a planar mechanism moving in its frame's x-y plane (the
    planar special case of the spatial equations: the x, y parts of its invariants,
    K_om = -omega^2 (M - S_zz); docs/theory.md section 5.12).  A Beam3D rod reduced with
    every mode and held out of the plane at its first end (the default: a hinge about z
    there, the translations at the other) is the PlanarBeam rod, two ways without K_G
    (measured 3.5e-13 of the peak) and in its in-plane frequencies with it (one way; the
    out-of-plane modes are its own).  A solid rod (20 x 1 x 1 hex8 of the rod's area and
    second moment, its end faces condensed to rigid interface nodes, 8 modes, K_G of its
    load cases) follows the beam rod: first frequency within 0.5 % over the turn (measured
    0.26 %: the rigid end faces and the solid against the beam), midpoint deflection within
    3 % of its peak (measured 1.9 %; 0.8 % on a 30 x 2 x 2 mesh)."""
    sc = slider_crank(geometric_stiffness=False)
    rod = sc.link("rod").body
    b3 = kanefem.Beam3D(0.3, 10, E=rod.E, A=rod.A, Izz=rod.I, Iyy=rod.I, J=2 * rod.I, rho=rod.rho)
    red = ReducedBody(b3, interface=[0, -1], n_modes="all", geometric_stiffness=False)
    link = ElasticLink("rod", red, start=(0.15, 0.0), geometric_stiffness=False)
    assert link.supports == {0: ("u", "v", "w", "theta_x", "theta_y"), 1: ("u", "v", "w")}
    t = np.linspace(0.0, TURN, 41)
    drives = {"crank": ConstantSpeed(SPEED)}
    opts = dict(drives=drives, rtol=None, dt=TURN / 500, axial_force="extrapolated")
    mech = crank_mechanism(link)
    f3 = mech.link_eigenvalues(mech.solve(t, drives=drives), n_modes=6, geometric_stiffness=False)["rod"]
    f2 = sc.link_eigenvalues(sc.solve(t, drives=drives), n_modes=2, geometric_stiffness=False)["rod"]
    in_plane = np.abs(f3.frequencies_hz[:, :, None] - f2.frequencies_hz[:, None, :]).min(axis=1)
    assert in_plane.max() < 1e-8 * f2.frequencies_hz.max()
    v3 = mech.simulate_flexible(t, **opts).displacement("rod", 5)[:, 1]
    v2 = sc.simulate_flexible(t, **opts).deflection("rod", 0.15)
    assert np.abs(v3 - v2).max() < 1e-10 * np.abs(v2).max()
    h = HEIGHT
    solid = MeshBody(Mesh.box(0.3, h, THICK, 20, 1, 1, cell="hexahedron", origin=(0.0, -h / 2, -THICK / 2)),
                     E=200e9, nu=0.3, rho=7870.0)
    faces = [lambda x: np.isclose(x[:, 0], 0.0), lambda x: np.isclose(x[:, 0], 0.3)]
    red = ReducedBody(solid, interface=faces, n_modes=8, prestress_supports="free")
    link = ElasticLink("rod", red, start=(0.15, 0.0))
    assert link.mass == pytest.approx(rod.rho * rod.A * 0.3, rel=1e-13)
    mech = crank_mechanism(link)
    # the table names every K_G coefficient of a spatial body: 3 + 9 inertial cases, then 12 ports'
    forces = mech.joint_forces(mech.solve(t[:3], drives=drives))
    kg = [c for c in forces._columns() if c.startswith("rod_kg_")]
    assert len(kg) == forces.link_axial["rod"].shape[1] == 24
    assert kg[2] == "rod_kg_a_z_m_s2" and kg[11] == "rod_kg_EWW_zz_1_s2" and kg[12] == "rod_kg_F_i0_ux_N"
    beam = slider_crank()
    f = mech.link_eigenvalues(mech.solve(t, drives=drives), n_modes=1)["rod"].frequencies_hz[:, 0]
    f0 = beam.link_eigenvalues(beam.solve(t, drives=drives), n_modes=1)["rod"].frequencies_hz[:, 0]
    assert np.abs(f / f0 - 1).max() < 5e-3
    mid = int(np.argmin(np.hypot(*(solid.nodes - [0.15, 0.0, 0.0]).T)))
    v = mech.simulate_flexible(t, **opts).displacement("rod", mid)[:, 1]
    v0 = beam.simulate_flexible(t, **opts).deflection("rod", 0.15)
    assert np.abs(v - v0).max() < 0.03 * np.abs(v0).max()


def test_mesh_link_reduced_with_every_mode_is_exact_and_reductions_converge():
    """A MeshBody link is reduced exactly (every fixed-interface mode: the same space as
    the mesh's DOFs held at the pins): its frequencies without K_G equal the mesh's own on
    pinned supports (its motion terms: K_eps, K_om = -omega^2 M) to 5e-8 (measured 8e-9:
    the round-off of the change of coordinates, whose modes reach 3.6e8 lambda_1).
    Reductions of it converge to it as modes are added (this 8 x 2 mesh; the table of
    docs/theory.md section 3.18 is bench/bench_reduced_link.py --convergence's 30 x 2):
    frequencies with K_G over the turn (1e-6 with 3 modes, 1.3e-7 with 24: Rayleigh-Ritz
    of K_G, whose pins' point loads need many modes), the two-way midpoint deflection
    (2.4e-4, 2.8e-6, 9.5e-7 with 3, 8, 24), the peak von Mises stress over the turn in the
    middle half (away from the pins' point loads: 9.6e-5, 1.8e-3, 5.2e-5) and the
    quasi-static stress of an instant (5.4e-3, 2.6e-3, 2.5e-4).  The stresses converge
    irregularly: a peak over points is not the energy norm in which Rayleigh-Ritz
    converges monotonically."""
    body, a, mid, b = rod_mesh(8, 2)
    t = np.linspace(0.0, TURN, 21)
    drives = {"crank": ConstantSpeed(SPEED)}
    exact = ElasticLink("rod", body, start=(0.15, 0.0), supports={a: "pinned", b: "pinned"})
    assert exact.model.kept["n_modes"] == body.ndof - 4
    mech = crank_mechanism(exact)
    motion = mech.solve(t, drives=drives)
    ref = mech.link_eigenvalues(motion, n_modes=2, geometric_stiffness=False)["rod"].eigenvalues
    fr = motion.frames["rod"]
    own = body.eigenvalues_vs_time(fr["omega"][:, 2], fr["eps"][:, 2], 2, supports={a: "fixed", b: "fixed"},
                                   mode_shapes=False, solver="dense").eigenvalues
    assert np.abs(ref / own - 1).max() < 5e-8
    opts = dict(drives=drives, rtol=None, dt=TURN / 250, axial_force="extrapolated")

    def run(link):
        m = crank_mechanism(link)
        mo = m.solve(t, drives=drives)
        f = m.link_eigenvalues(mo, n_modes=2)["rod"].frequencies_hz
        fm = m.simulate_flexible(t, **opts)
        v = fm.displacement("rod", mid)[:, 1]
        qs, d = m.link_quasi_static("rod", mo.frames["rod"][7]), fm.d["rod"]
        if link.model is link.body:  # a reduced body's coordinates: on the mesh
            qs, d = link.model.expand(qs), link.model.expand(d)
        st = body.stresses(d)
        span = (st.x[:, 0] > 0.075) & (st.x[:, 0] < 0.225)  # the middle half, away from the pins' point loads
        return f, v, st["von_mises_Pa"][:, span].max(), body.stresses(qs)["von_mises_Pa"][0, span].max()

    f0, v0, s0, q0 = run(exact)
    errors = []
    for n in (3, 8, 24):
        red = ReducedBody(body, interface=[a, b], n_modes=n, prestress_supports="free")
        f, v, s, q = run(ElasticLink("rod", red, start=(0.15, 0.0)))
        errors.append((np.abs(f / f0 - 1).max(), np.abs(v - v0).max() / np.abs(v0).max(), abs(s / s0 - 1),
                       abs(q / q0 - 1)))
    errors = np.array(errors)
    assert np.all(np.diff(errors[:, 0]) < 0) and errors[:, 0].max() < 2e-6
    assert np.all(np.diff(errors[:, 1]) < 0) and errors[-1, 1] < 5e-6
    assert errors[-1, 2] < 2e-4 and errors[-1, 3] < 1e-3


def test_reduced_link_toml_round_trip_and_the_command_line(tmp_path, beam_rod):
    """A mechanism with a reduced link written to TOML saves the body beside the file
    (NPZ) and reads back the same two-way motion; a [[link]] naming a mesh file is reduced
    at load; paths are relative to the file and stay inside its folder; the command
    line's mechanism job runs such a file."""
    sc, rod = beam_rod
    mech = crank_mechanism(reduced_rod(rod, 6))
    path = mech.to_toml(tmp_path / "sc.toml", drives={"crank": {"drive": ConstantSpeed(SPEED)}})
    assert (tmp_path / "sc_rod.npz").is_file() and 'body = "sc_rod.npz"' in path.read_text()
    back = Mechanism.from_toml(path)
    t = np.linspace(0.0, 0.01, 6)
    a = mech.simulate_flexible(t, drives={"crank": ConstantSpeed(SPEED)}, rtol=None, dt=1e-4)
    b = back.simulate_flexible(t, drives={"crank": ConstantSpeed(SPEED)}, rtol=None, dt=1e-4)
    # the file lists rigid bodies before links: the same motion to round-off of the other order
    assert np.abs(a.d["rod"] - b.d["rod"]).max() < 1e-13 * np.abs(a.d["rod"]).max()
    # a mesh file reduced at load
    body, na, mid, nb = rod_mesh(20, 2)
    body.mesh.write(tmp_path / "rod.vtu")
    text = path.read_text().replace('body = "sc_rod.npz"', f'mesh = "rod.vtu"\nE = 200e9\nnu = 0.3\nrho = 7870.0\n'
                                    f'thickness = {THICK!r}\ninterface = [{na}, {nb}]\nmodes = 4')
    (tmp_path / "mesh.toml").write_text(text)
    m2 = Mechanism.from_toml(tmp_path / "mesh.toml")
    assert m2.link("rod").model.kept["n_modes"] == 4 and m2.link("rod").model.kept["prestress"] == "free"
    # outside the file's folder, or absolute: refused naming the key
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "up.toml").write_text(path.read_text().replace('"sc_rod.npz"', '"../sc_rod.npz"'))
    with pytest.raises(ValueError, match="up.toml: link 'rod': body = '../sc_rod.npz' resolves to .*outside"):
        Mechanism.from_toml(sub / "up.toml")
    (sub / "abs.toml").write_text(path.read_text().replace('"sc_rod.npz"', repr(str(tmp_path / "sc_rod.npz"))))
    with pytest.raises(ValueError, match="must be a path relative to the file's folder"):
        Mechanism.from_toml(sub / "abs.toml")
    (sub / "both.toml").write_text(text.replace('mesh = "rod.vtu"', 'mesh = "rod.vtu"\nbody = "sc_rod.npz"'))
    with pytest.raises(ValueError, match="give body .* or mesh .*, not both"):
        Mechanism.from_toml(sub / "both.toml")
    from kanefem.__main__ import main

    out = tmp_path / "out"
    assert main(["mechanism", str(path), "--out", str(out), "--points", "21", "--no-plots", "--modes", "2"]) == 0
    assert {"mechanism.toml", "mechanism_rod.npz", "eigenvalues_rod.csv"} <= {p.name for p in out.iterdir()}
    assert main(["mechanism", str(out / "mechanism.toml"), "--out", str(tmp_path / "again"), "--points", "21",
                 "--no-plots"]) == 0
    # a sweep of such a file: every point reads the link's file by its absolute path (its
    # description is read again elsewhere)
    assert main(["mechanism", str(path), "--out", str(tmp_path / "sweep"), "--points", "11", "--no-plots",
                 "--sweep", "coordinate.crank.speed=100:150:2", "--store", str(tmp_path / "store")]) == 0
    freqs = np.loadtxt(tmp_path / "sweep" / "sweep_frequencies.csv", delimiter=",", skiprows=1, usecols=(3, 4, 5))
    assert freqs.shape == (4, 3) and np.all(freqs > 100.0)


def test_bad_links_are_refused_by_name(beam_rod):
    """What a link of a reduced or meshed body cannot be is refused naming the link and
    what would do it."""
    sc, rod = beam_rod
    beam = rod.body
    with pytest.raises(NotSupportedError, match="free-interface basis"):
        ElasticLink("rod", ReducedBody(beam, interface=[0, -1], basis="free-interface", n_modes=4))
    with pytest.raises(NotSupportedError, match="prestress_supports='free'"):
        ElasticLink("rod", ReducedBody(beam, interface=[0, -1], n_modes=4))  # K_G with the interface held
    plain = ElasticLink("rod", ReducedBody(beam, interface=[0, -1], n_modes=4), geometric_stiffness=False)
    mech = crank_mechanism(plain)
    motion = mech.solve(np.linspace(0.0, 0.01, 3), drives={"crank": ConstantSpeed(SPEED)})
    with pytest.raises(NotSupportedError, match="link_eigenvalues.*prestress_supports='free'"):
        mech.link_eigenvalues(motion)
    assert mech.link_eigenvalues(motion, geometric_stiffness=False)["rod"].eigenvalues.shape == (3, 2)
    red = ReducedBody(beam, interface=[0, -1], n_modes=4, prestress_supports="free")
    with pytest.raises(ValueError, match="leave a rigid motion of the link free"):
        ElasticLink("rod", red, supports={0: ("v",), 1: ("v",)})
    with pytest.raises(ValueError, match="a MeshBody link needs its reference conditions"):
        ElasticLink("rod", rod_mesh(4, 1)[0])
    with pytest.raises(TypeError, match="PlanarBeam or an AxialBar, a ReducedBody or a plane MeshBody"):
        ElasticLink("rod", kanefem.Beam3D(0.3, 4, E=2e11, A=1e-4, Izz=1e-9, Iyy=1e-9, J=2e-9, rho=7800))
    with pytest.raises(ValueError, match="leave a rigid motion of the link free"):  # about the axis A-B
        ElasticLink("rod", ReducedBody(kanefem.Beam3D(0.3, 4, E=2e11, A=1e-4, Izz=1e-9, Iyy=1e-9, J=2e-9, rho=7800),
                                       interface=[0, -1], n_modes=2, geometric_stiffness=False),
                    supports="pinned", geometric_stiffness=False)
    # a joint away from the ports, a joint at a port the reference conditions leave free
    off = ElasticLink("rod", red, start=(0.16, 0.0))
    with pytest.raises(ValueError, match="joint 'A' attaches to link 'rod' at .*not at one of its ports"):
        crank_mechanism(off).simulate_flexible(duration=0.001, points=2, drives={"crank": ConstantSpeed(1.0)})
    loose = ElasticLink("rod", red, start=(0.15, 0.0), supports={0: "clamped"})
    with pytest.raises(ValueError, match="joint 'B' attaches to link 'rod' at port 1, where its reference"):
        crank_mechanism(loose).simulate_flexible(duration=0.001, points=2, drives={"crank": ConstantSpeed(1.0)})
    with pytest.raises(ValueError, match="n_modes = 'all' keeps every fixed-interface mode"):
        ReducedBody(beam, interface=[0], basis="free-interface", n_modes="all")


def test_animation_draws_a_reduced_link_as_its_displaced_nodes(tmp_path):
    """Mechanism.animate draws a reduced (or meshed) link as its full body's nodes displaced
    by the expanded deflection, magnified to a tenth of its extent."""
    pytest.importorskip("matplotlib")
    from kanefem._animation import link_nodes

    body, a, mid, b = rod_mesh(10, 2)
    red = ReducedBody(body, interface=[a, b], n_modes=4, prestress_supports="free")
    link = ElasticLink("rod", red, start=(0.15, 0.0))
    mech = crank_mechanism(link)
    t = np.linspace(0.0, TURN, 9)
    fm = mech.simulate_flexible(t, drives={"crank": ConstantSpeed(SPEED)}, rtol=None, dt=TURN / 100)
    x0, ux, uy = link_nodes(link, fm.d["rod"])
    np.testing.assert_array_equal(x0, body.nodes)
    np.testing.assert_allclose(uy[:, mid], fm.displacement("rod", mid)[:, 1], rtol=0, atol=1e-15)
    path = mech.animate(fm.motion, deflections=fm.d, path=tmp_path / "rod.gif", frames=3)
    assert path.stat().st_size > 1000
