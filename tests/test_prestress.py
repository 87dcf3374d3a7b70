"""Stress stiffening of bodies of any shape from their linear prestress (docs/theory.md
section 2.11): coned, swept and bent line bodies, the tension-torsion term, plane and
solid meshes, in the dense and sparse eigen paths, over a time grid and in time.

References from outside the code: Southwell's coefficient of the first flap mode of a
uniform cantilever with zero hub radius, alpha_1 = 1.1933 (Wright, Smith, Thresher,
Wang, "Vibration modes of centrifugally stiffened beams", J. Appl. Mech. 49 (1982)
197-202); free-body statics of a bent cantilever; the closed-form torsion frequencies
of a shaft under tension, omega^2 = (GJ + P Ip / A) / (rho Ip) ((2k - 1) pi / 2L)^2; the
transverse frequencies of a spinning free disc in the membrane limit (Lamb & Southwell,
"The vibrations of a spinning disk", Proc. R. Soc. Lond. A 99 (1921) 272-280, section 2).
"""

import math

import numpy as np
import pytest
import scipy.linalg

import kanefem
from kanefem import Beam3D, Mesh, MeshBody

STEEL = dict(E=2.0e11, rho=7800.0)
ALPHA1 = 1.1933  # Southwell, first flap mode, uniform cantilever, zero hub radius (Wright et al. 1982)


def rotation(axis, angle):
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def blade(nodes, section, n=None, **kw):
    nodes = np.asarray(nodes, float)
    el = np.c_[np.arange(len(nodes) - 1), np.arange(1, len(nodes))]
    return Beam3D.from_mesh(nodes, el, **STEEL, **section, **kw)


SECTION = dict(A=5e-4, Izz=1.0417e-7, Iyy=4.1667e-9, J=1.6e-8)  # 50 x 10 mm, J a round number


def straight_nodes(n, L=1.0):
    return np.c_[np.linspace(0.0, L, n + 1), np.zeros(n + 1), np.zeros(n + 1)]


def test_a_rotated_straight_blade_has_the_x_axis_blade_frequencies():
    """The same blade built along an arbitrary direction (prestress path, section 2.11)
    and along x (closed-form N(x), section 2.5), its spin, origin acceleration and tip
    load rotated with it: the same eigenvalues (two independent routes to K_G)."""
    R = rotation((1.0, 2.0, 0.5), 0.7)
    ref = Beam3D(1.0, 12, **STEEL, **SECTION)
    rot = blade(straight_nodes(12) @ R.T, SECTION, ref=R @ np.array([0.0, 1.0, 0.0]))
    assert not rot._straight_kg() and ref._straight_kg()
    omega, a_O = np.array([0.3, 2.0, 40.0]), np.array([30.0, -5.0, 2.0])
    kw = dict(geometric_stiffness=True, end_forces=(0.0, 300.0), include_eps=False)
    lam_ref = ref.eigenvalues(8, omega=omega, a_O=a_O, **kw).eigenvalues
    lam_rot = rot.eigenvalues(8, omega=R @ omega, a_O=R @ a_O, supports="clamped-free", **kw).eigenvalues
    # the dense solver's round-off is ~1e-13 of the largest eigenvalue (the axial modes,
    # ~1e6 times these): 1e-7 of the lowest
    np.testing.assert_allclose(lam_rot, lam_ref, rtol=1e-7)
    # without K_G the rotated and straight blades are equal too; with it they stiffen
    soft = ref.eigenvalues(8, omega=omega, include_eps=False).eigenvalues
    assert lam_ref[0] > soft[0] * 1.05


def test_a_rotated_blade_over_a_time_grid_and_in_time():
    """Spin-up over a time grid: eigenvalues_vs_time of the rotated blade equals the
    x-axis blade's at every instant; and a response in time with K_G rotated back equals
    the x-axis blade's (the integrator takes the prestress basis too)."""
    R = rotation((0.0, 0.0, 1.0), 0.9) @ rotation((1.0, 0.0, 0.0), 0.4)
    ref = Beam3D(1.0, 8, **STEEL, **SECTION)
    rot = blade(straight_nodes(8) @ R.T, SECTION, ref=R @ np.array([0.0, 1.0, 0.0]))
    w = np.linspace(0.0, 60.0, 7)
    om = np.c_[np.zeros(7), np.zeros(7), w]
    lam_ref = ref.eigenvalues_vs_time(om, np.zeros((7, 3)), 4, geometric_stiffness=True).eigenvalues
    lam_rot = rot.eigenvalues_vs_time(om @ R.T, np.zeros((7, 3)), 4, supports="clamped-free",
                                      geometric_stiffness=True).eigenvalues
    np.testing.assert_allclose(lam_rot, lam_ref, rtol=1e-7)  # round-off, as above
    def spin_up(axis, W=80.0, T=0.2):  # Kane et al.'s smooth spin-up to W in T, then constant
        def f(t):
            if t >= T:
                return W * axis, 0.0 * axis, np.zeros(3)
            return (W * (t / T - math.sin(2 * math.pi * t / T) / (2 * math.pi)) * axis,
                    W / T * (1 - math.cos(2 * math.pi * t / T)) * axis, np.zeros(3))
        return kanefem.Motion.from_function(f, spatial=True)

    motion = spin_up(np.array([0.0, 0.0, 1.0]))
    m_rot = spin_up(R @ np.array([0.0, 0.0, 1.0]))
    opts = dict(t_end=0.3, method="newmark", dt=1e-3, geometric_stiffness=True)
    r_ref = kanefem.simulate(ref, motion, **opts)
    r_rot = kanefem.simulate(rot, m_rot, supports="clamped-free", **opts)
    tip_ref = r_ref.d[:, -6:-3]
    tip_rot = r_rot.d[:, -6:-3] @ R  # body components back to the x-axis blade's
    assert np.abs(tip_ref).max() > 1e-6  # the spin-up moves the tip
    np.testing.assert_allclose(tip_rot, tip_ref, atol=1e-9 * np.abs(tip_ref).max())


@pytest.mark.parametrize("beta_deg", [10.0, 25.0])
def test_coned_blade_follows_southwell_with_coning(beta_deg):
    """A blade coned by beta out of the rotation plane, spinning about z: its tension is
    cos^2 beta of the radial blade's, its flap motion (normal to the blade in the x-z
    plane) is softened by sin^2 beta, its lag motion (along y) by 1, so
    d(omega^2)/d(Omega^2) = alpha_1 cos^2 beta - sin^2 beta (flap) and alpha_1 cos^2 beta
    - 1 (lag), alpha_1 = 1.1933 (Wright et al. 1982), to first order in Omega^2."""
    beta = math.radians(beta_deg)
    e = np.array([math.cos(beta), 0.0, math.sin(beta)])
    n = 40
    sec = dict(SECTION, Izz=SECTION["Iyy"])  # square-ish: flap and lag of equal stiffness
    body = blade(np.outer(np.linspace(0.0, 1.0, n + 1), e), sec, ref=(0.0, 1.0, 0.0))
    # modes: two bending modes of equal frequency at rest (flap, lag)
    lam0 = body.eigenvalues(2, supports="clamped-free").eigenvalues
    Om = 0.1 * math.sqrt(lam0[0])
    r = body.eigenvalues(2, omega=(0.0, 0.0, Om), supports="clamped-free", geometric_stiffness=True)
    slope = (r.eigenvalues - lam0) / Om**2
    lag = ALPHA1 * math.cos(beta)**2 - 1.0
    flap = ALPHA1 * math.cos(beta)**2 - math.sin(beta)**2
    # the published coefficient to 4 digits, 40 elements, the O(Omega^4) term: 3e-3
    np.testing.assert_allclose(np.sort(slope), sorted([lag, flap]), atol=3e-3)
    # which is which: the flap mode moves along the x-z normal of the blade
    shapes = r.mode_shapes
    k_flap = int(np.argmax(np.abs(shapes[2::6]).sum(axis=0)))
    assert slope[k_flap] == pytest.approx(flap, abs=3e-3)


def test_bent_blade_axial_force_is_the_free_body_one():
    """A blade of two straight segments, radial (length a) then swept by gamma in the
    rotation plane (length c), clamped at the hub, spinning about z: K_G's quadratic form
    on an infinitesimal rigid rotation theta equals sum_e |theta x e1|^2 int_e N ds, with
    N the free-body axial force (the outboard centrifugal resultant projected on the
    element's axis); and a tip load P along the last element gives N = P outboard, P cos
    gamma inboard."""
    a, c, gamma, ne = 0.6, 0.4, math.radians(35.0), 30
    d2 = np.array([math.cos(gamma), math.sin(gamma), 0.0])
    n1, n2 = 18, 12
    nodes = np.vstack([np.outer(np.linspace(0, a, n1 + 1), [1, 0, 0]),
                       a * np.array([1, 0, 0]) + np.outer(np.linspace(0, c, n2 + 1)[1:], d2)])
    body = blade(nodes, SECTION, ref=(0.0, 0.0, 1.0))
    mu, Om = STEEL["rho"] * SECTION["A"], 30.0
    coef = body.axial_force(omega=(0.0, 0.0, Om), supports="clamped-free")
    KG = body.geometric_stiffness(coef, supports="clamped-free")
    # int N over each segment, from the free-body N: segment 2, N2(s) = mu Om^2 [a cos g (c - s)
    # + (c^2 - s^2) / 2]; segment 1, N1(x) = mu Om^2 [(a^2 - x^2) / 2 + a c + c^2 cos g / 2]
    I2 = mu * Om**2 * (a * math.cos(gamma) * c**2 / 2 + c**3 / 3)
    I1 = mu * Om**2 * (a**3 / 3 + (a * c + c**2 * math.cos(gamma) / 2) * a)

    def rigid(theta):
        v = np.zeros(body.ndof)
        for k, x in enumerate(body.nodes):
            v[6 * k: 6 * k + 3] = np.cross(theta, x)
            v[6 * k + 3: 6 * k + 6] = theta
        return v

    for theta, expect in (((0, 0, 1.0), I1 + I2), ((1.0, 0, 0), I2 * math.sin(gamma)**2)):
        v = rigid(np.array(theta))
        assert v @ KG @ v == pytest.approx(expect, rel=1e-10)
    P = 250.0
    KP = body.geometric_stiffness(body.axial_force(supports="clamped-free", end_forces=(0.0, P)),
                                  supports="clamped-free")
    v = rigid(np.array([0.0, 0.0, 1.0]))
    assert v @ KP @ v == pytest.approx(P * c + P * math.cos(gamma) * a, rel=1e-10)


def test_tension_torsion_trapeze_term():
    """A shaft clamped at one end, pulled by P at the other: the torsion frequencies
    (GJ + P Ip / A) / (rho Ip) ((2k - 1) pi / (2L))^2.  The K_G torsion term has the
    element form of GJ's, so the ratio to the unloaded shaft is exact to round-off, and
    the frequencies converge to the closed form (h^2)."""
    L, n, nu = 1.0, 60, 0.3
    sec = dict(A=3e-4, Izz=2e-8, Iyy=1e-8, J=2.5e-8)
    body = Beam3D(L, n, **STEEL, **sec, nu=nu)
    Ip = sec["Izz"] + sec["Iyy"]
    GJ = STEEL["E"] / (2 * (1 + nu)) * sec["J"]
    P = 0.5 * GJ * sec["A"] / Ip  # raises the torsional stiffness by half

    def torsion(r):
        k = np.argmax(np.abs(r.mode_shapes[3::6]).sum(axis=0) / np.abs(r.mode_shapes).sum(axis=0))
        return r.eigenvalues[k]

    # bending stiff enough that the first torsion mode is among the lowest few
    r0 = body.eigenvalues(12, supports="clamped-free")
    rP = body.eigenvalues(12, supports="clamped-free", geometric_stiffness=True, end_forces=(0.0, P))
    t0, tP = torsion(r0), torsion(rP)
    assert tP / t0 == pytest.approx(1.5, rel=1e-9)
    exact = (GJ + P * Ip / sec["A"]) / (STEEL["rho"] * Ip) * (math.pi / (2 * L))**2
    assert tP == pytest.approx(exact, rel=2e-4)


# ---------------------------------------------------------------- meshes

L, B, H = 1.0, 0.05, 0.01


def solid_blade(nx=30, storage="auto"):
    mesh = Mesh.box(L, B, H, nx, 2, 1, cell="hexahedron", origin=(0.0, -B / 2, -H / 2))
    return MeshBody(mesh, **STEEL, nu=0.0, storage=storage)


ROOT = {(lambda x: np.isclose(x[:, 0], 0.0)): "fixed"}


@pytest.fixture(scope="module")
def mesh_blade():
    body = solid_blade()
    lam0 = body.eigenvalues(1, supports=ROOT).eigenvalues[0]
    return body, lam0


def test_solid_blade_southwell_coefficient(mesh_blade):
    """A hex8 (incompatible modes) blade 1000 x 50 x 10 mm clamped at its root spinning
    about z: the first (flap) mode's slope d(omega^2)/d(Omega^2) is Southwell's alpha_1 =
    1.1933 (Wright et al. 1982), and the beam blade's at the same speed; the dense and the
    sparse (shift-invert) paths agree."""
    body, lam0 = mesh_blade
    Om = 0.3 * math.sqrt(lam0)
    dense = body.eigenvalues(1, omega=(0.0, 0.0, Om), supports=ROOT, geometric_stiffness=True,
                             solver="dense").eigenvalues[0]
    sparse = body.eigenvalues(1, omega=(0.0, 0.0, Om), supports=ROOT, geometric_stiffness=True,
                              solver="sparse").eigenvalues[0]
    # the dense solver's round-off: ~1e-13 of the largest eigenvalue, 1e6 times this one
    assert sparse == pytest.approx(dense, rel=1e-6)
    slope = (dense - lam0) / Om**2
    # the mesh (30 x 2 x 1 cells: lam0 within 2e-4 of beam theory) and the O(Omega^4) term
    assert slope == pytest.approx(ALPHA1, abs=5e-3)
    beam = Beam3D(L, 30, **STEEL, A=B * H, Izz=H * B**3 / 12, Iyy=B * H**3 / 12, J=1e-9)
    b0 = beam.eigenvalues(1).eigenvalues[0]
    bslope = (beam.eigenvalues(1, omega=(0.0, 0.0, Om), geometric_stiffness=True).eigenvalues[0] - b0) / Om**2
    assert slope == pytest.approx(bslope, abs=2e-3)
    # without K_G the flap of a blade spinning about z does not change at all (to the
    # rotary inertia of its sections)
    soft = body.eigenvalues(1, omega=(0.0, 0.0, Om), supports=ROOT).eigenvalues[0]
    assert abs(soft - lam0) < 0.01 * (dense - lam0)


def test_solid_blade_over_a_time_grid(mesh_blade):
    """eigenvalues_vs_time with K_G (sparse and dense) equals one-instant solves; K_G is
    a combination of the load cases' K_G, so the grid needs no new static solve."""
    body, lam0 = mesh_blade
    w = np.linspace(0.0, 1.0, 4) * math.sqrt(lam0)
    om = np.c_[np.zeros(4), np.zeros(4), w]
    grid = body.eigenvalues_vs_time(om, np.zeros((4, 3)), 2, supports=ROOT, geometric_stiffness=True,
                                    solver="sparse", mode_shapes=False).eigenvalues
    for t in (0, 3):
        one = body.eigenvalues(2, omega=om[t], supports=ROOT, geometric_stiffness=True,
                               solver="dense", mode_shapes=False).eigenvalues
        np.testing.assert_allclose(grid[t], one, rtol=1e-6)  # dense round-off, as above
    assert np.all(np.diff(grid[:, 0]) > 0)  # the flap stiffens with speed


def test_plane_blade_lag_southwell():
    """A plane-stress strip (1 m x 20 mm, quad8) in the rotation plane, clamped at the
    axis, spinning about z: its first (lag) mode has omega^2 = omega_0^2 + (alpha_1 - 1)
    Omega^2 (stiffening less centrifugal softening), alpha_1 = 1.1933."""
    mesh = Mesh.rectangle(1.0, 0.02, 50, 2, cell="quad8", origin=(0.0, -0.01))
    body = MeshBody(mesh, **STEEL, nu=0.0, thickness=0.01)
    sup = {(lambda x: np.isclose(x[:, 0], 0.0)): "fixed"}
    lam0 = body.eigenvalues(1, supports=sup).eigenvalues[0]
    Om = 0.2 * math.sqrt(lam0)
    lam = body.eigenvalues(1, omega=Om, supports=sup, geometric_stiffness=True).eigenvalues[0]
    assert (lam - lam0) / Om**2 == pytest.approx(ALPHA1 - 1.0, abs=4e-3)


def test_mesh_prestress_needs_supports_and_no_end_forces():
    body = solid_blade(nx=4)
    with pytest.raises(ValueError, match="supports that hold the body"):
        body.eigenvalues(1, omega=(0, 0, 1.0), geometric_stiffness=True)
    with pytest.raises(kanefem.NotSupportedError, match="end_forces"):
        body.eigenvalues(1, supports=ROOT, geometric_stiffness=True, end_forces=(1.0, 0.0))
    c = body.axial_force(omega=(0.0, 0.0, 2.0), supports=ROOT)
    assert c.shape == (12,)  # a_O (3), E + W W (9)
    with pytest.raises(ValueError, match="axial_force"):
        body.geometric_stiffness(c[:3], supports=ROOT)
    KG = body.geometric_stiffness(c, supports=ROOT)
    assert abs(KG - KG.T).max() <= 1e-12 * abs(KG).max()


def test_solid_blade_in_compression_and_gyroscopic():
    """The blade pushed along its axis by an origin acceleration (a_O = +g x: compression
    from the root, N < 0) softens: the sparse path, whose shift must go below a spectrum
    lowered by K_G, equals the dense one.  With spin about z, the flap motion (along z)
    has no Coriolis coupling, so the gyroscopic eigenvalue of the flap mode is i sqrt of
    the frozen one with the same K_G."""
    body = solid_blade(nx=12)
    lam0 = body.eigenvalues(2, supports=ROOT, mode_shapes=False).eigenvalues
    g = 0.5 * 1.8751**2 * STEEL["E"] * B * H**3 / 12 / (STEEL["rho"] * B * H * L**3)  # a tenth-ish of buckling
    kw = dict(a_O=(g, 0.0, 0.0), supports=ROOT, geometric_stiffness=True, mode_shapes=False)
    dense = body.eigenvalues(2, solver="dense", **kw).eigenvalues
    sparse = body.eigenvalues(2, solver="sparse", **kw).eigenvalues
    np.testing.assert_allclose(sparse, dense, rtol=1e-6)  # the dense solver's round-off, as above
    assert dense[0] < 0.9 * lam0[0]
    Om = 0.5 * math.sqrt(lam0[0])
    lam = body.eigenvalues(1, omega=(0.0, 0.0, Om), supports=ROOT, geometric_stiffness=True,
                           include_eps=False, mode_shapes=False).eigenvalues[0]
    s = body.gyroscopic_eigenvalues([(0.0, 0.0, Om)], [(0.0, 0.0, 0.0)], 1, supports=ROOT,
                                    geometric_stiffness=True).s[0, 0]
    # dgeev on the first-order form: round-off ~1e-16 of its largest |s|, ~1e6 times this one
    assert abs(s.real) < 1e-6 * abs(s) and s.imag**2 == pytest.approx(lam, rel=1e-6)


def test_sparse_mesh_simulates_with_prestress_as_dense():
    """simulate with K_G on a mesh in sparse storage (the core's stepper with SciPy's
    factor, the prestress basis combined per instant) equals the same mesh in dense
    storage, same motion: a spin-up about an axis tilted out of the blade's plane, so the
    centrifugal load, its K_G and the Coriolis terms all act; K_G changes the response."""
    mesh = Mesh.box(L, B, H, 12, 2, 1, cell="hexahedron", origin=(0.0, -B / 2, -H / 2))
    axis = np.array([0.0, 0.3, 1.0]) / math.sqrt(1.09)
    W, T = 80.0, 0.2

    def f(t):  # Kane et al.'s smooth spin-up to W in T, then constant
        if t >= T:
            return W * axis, 0.0 * axis, np.zeros(3)
        return (W * (t / T - math.sin(2 * math.pi * t / T) / (2 * math.pi)) * axis,
                W / T * (1 - math.cos(2 * math.pi * t / T)) * axis, np.zeros(3))

    motion = kanefem.Motion.from_function(f, spatial=True)
    opts = dict(supports=ROOT, t_end=0.3, method="newmark", dt=1e-3)
    d = {}
    for storage in ("dense", "sparse"):
        body = MeshBody(mesh, **STEEL, nu=0.0, storage=storage)
        r = kanefem.simulate(body, motion, geometric_stiffness=True, **opts)
        d[storage] = r.d
        # one factor per step while the rates change (200 steps of spin-up) and the mass's;
        # at constant speed K_G(t) is constant too and the factor is reused
        assert r.stats["factorizations"] <= 202  # measured 201
    scale = np.abs(d["dense"]).max()
    # two factorizations (LAPACK dense, SuperLU) of the same iteration matrices: round-off
    # carried through 300 steps (measured 2e-9, as without K_G: 4e-9)
    np.testing.assert_allclose(d["sparse"], d["dense"], rtol=0, atol=1e-7 * scale)
    soft = kanefem.simulate(MeshBody(mesh, **STEEL, nu=0.0, storage="sparse"), motion, **opts).d
    assert np.abs(soft - d["sparse"]).max() > 0.1 * scale  # K_G is in the sparse response


def disc_mesh(a, n_rings):
    """A plane disc of radius a in tri6 cells: rings of 6k nodes, Delaunay triangles,
    mid-side nodes of the rim's edges on the circle."""
    from scipy.spatial import Delaunay

    pts = [np.zeros(2)]
    for k in range(1, n_rings + 1):
        th = 2 * np.pi * np.arange(6 * k) / (6 * k)
        pts += list(k * a / n_rings * np.c_[np.cos(th), np.sin(th)])
    pts = np.array(pts)
    tri = Delaunay(pts).simplices
    e1, e2 = pts[tri[:, 1]] - pts[tri[:, 0]], pts[tri[:, 2]] - pts[tri[:, 0]]
    flip = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0] < 0
    tri[flip] = tri[flip][:, [0, 2, 1]]
    nodes, mid, cells = list(pts), {}, []
    for t in tri:
        m = []
        for i, j in ((0, 1), (1, 2), (2, 0)):
            key = (min(t[i], t[j]), max(t[i], t[j]))
            if key not in mid:
                p = 0.5 * (pts[t[i]] + pts[t[j]])
                if np.isclose(np.hypot(*pts[t[i]]), a) and np.isclose(np.hypot(*pts[t[j]]), a):
                    p *= a / np.hypot(*p)
                mid[key] = len(nodes)
                nodes.append(p)
            m.append(mid[key])
        cells.append(list(t) + m)
    return Mesh(np.array(nodes), np.array(cells), "triangle6")


def test_spinning_disc_membrane_frequencies_are_lamb_southwell():
    """A free disc spinning about its axis, in the membrane limit (Lamb & Southwell, "The
    vibrations of a spinning disk", Proc. R. Soc. Lond. A 99 (1921) 272-280, section 2:
    flexural rigidity negligible beside the centrifugal tension).  The plane-stress disc's
    linear prestress under Omega (sigma_r = (3 + nu)/8 rho Omega^2 (a^2 - r^2), sigma_th =
    rho Omega^2/8 ((3 + nu) a^2 - (1 + 3 nu) r^2)) and K_G = int grad(phi)^T sigma grad(phi)
    (one direction's block is the membrane operator of a scalar transverse deflection w)
    give, with that block of M, the transverse frequencies in the rotating frame,

        p^2 / Omega^2 = [(3 + nu)(n + 2s)(n + 2s + 2) - (1 + 3 nu) n^2] / 8

    (n nodal diameters, s nodal circles): the polynomial solutions w = r^n F(r^2) of
    8 p^2/Omega^2 w + (3 + nu) (1/r)(r (1 - r^2) w')' - n^2 ((3 + nu) - (1 + 3 nu) r^2) w / r^2 = 0
    on r <= 1, whose series terminates at r^(n + 2s) only for these p.  n = 1, s = 0 is the
    tilt of the disc, p = Omega, a rigid motion: exact in any mesh."""
    a, nu, Om = 0.2, 0.3, 100.0
    mesh = disc_mesh(a, 8)
    body = MeshBody(mesh, **STEEL, nu=nu, thickness=0.002)
    X = mesh.nodes
    centre = int(np.argmin(np.hypot(X[:, 0], X[:, 1])))
    rim = int(np.argmin(np.hypot(X[:, 0] - a, X[:, 1])))
    # statically determinate supports of the free disc: the centrifugal load is
    # self-equilibrated, so their reactions are zero and the prestress is the free disc's
    sup = {centre: "fixed", rim: ("uy",)}
    c = body.axial_force(omega=Om, supports=sup)
    np.testing.assert_allclose(c, [0.0, 0.0, -Om**2, 0.0, 0.0, -Om**2], atol=1e-9 * Om**2)
    KG = body.geometric_stiffness(c, supports=sup)
    ux = np.arange(0, KG.shape[0], 2)  # DOFs node by node: (ux, uy) of node 0, node 1, ...
    A = KG[ux][:, ux].toarray()
    Mx = body.mass_matrix()[ux][:, ux].toarray()
    assert abs(A - A.T).max() <= 1e-12 * abs(A).max()
    lam = scipy.linalg.eigh(A, Mx, eigvals_only=True)[:14] / Om**2
    exact = sorted(((3 + nu) * (n + 2 * s) * (n + 2 * s + 2) - (1 + 3 * nu) * n * n) / 8
                   for n in range(8) for s in range(4) for _ in range(1 if n == 0 else 2))[:14]
    # 0 (rigid w), 1, 1 (tilt), 2.35, 2.35, 3.3, 4.05, 4.05, 5.95, 5.95, 6.1, 6.1, 8.5, 8.5
    np.testing.assert_allclose(lam[:3], exact[:3], atol=1e-9)  # rigid motions: round-off
    # quadratic cells on 8 rings: the discretization error, O(h^4), grows with the mode
    # number (measured 6e-6 at n = 2 .. 4.6e-4 at n = 4, s = 0; 1.2e-6 .. 9.5e-5 on 12
    # rings: the ratio 4.9 is (12/8)^4 = 5.1)
    np.testing.assert_allclose(lam[3:], exact[3:], rtol=2e-3)


def twisted_blade_nodes(n, twist):
    """A straight blade on x, 1 m: nodes, elements and each element's reference direction
    turned by the twist angle at its midpoint, twist * x / L about x."""
    x = np.linspace(0.0, L, n + 1)
    th = twist * 0.5 * (x[:-1] + x[1:]) / L
    return (np.c_[x, 0 * x, 0 * x], np.c_[np.arange(n), np.arange(1, n + 1)],
            np.c_[0 * th, np.cos(th), np.sin(th)])


def test_pre_twisted_blade_per_element_ref():
    """Beam3D.from_mesh with one ref per element: equal rows are the one-ref blade exactly;
    an isotropic section is unchanged by twist; a 50 x 10 mm blade twisted by 90 deg over
    its span (flap-lag coupling: its second frequency falls by 39 %) has the frequencies
    of a hex8 solid blade twisted the same way, at rest and spinning with K_G (the beam's
    and the mesh's prestress routes, section 2.11)."""
    n, twist = 30, math.pi / 2
    sec = dict(A=B * H, Izz=H * B**3 / 12, Iyy=B * H**3 / 12, J=1e-9, nu=0.0)
    nodes, el, refs = twisted_blade_nodes(n, twist)
    kw = dict(supports="clamped-free", mode_shapes=False)

    def lam(ref, section=sec, **more):
        beam = Beam3D.from_mesh(nodes, el, **STEEL, **section, ref=ref)
        return beam.eigenvalues(3, **kw, **more).eigenvalues

    flat = lam((0.0, 1.0, 0.0))
    np.testing.assert_array_equal(lam(np.tile([0.0, 1.0, 0.0], (n, 1))), flat)  # the same element matrices
    iso = dict(sec, Izz=sec["Iyy"])
    # the dense solver's round-off of the lowest eigenvalues (measured 2.6e-8), as above
    np.testing.assert_allclose(lam(refs, iso), lam((0.0, 1.0, 0.0), iso), rtol=1e-7)
    tw = lam(refs)
    assert tw[1] < 0.7 * flat[1]
    # the solid blade, its cross-sections turned by the same twist (60 x 4 x 1 hex8 cells)
    mesh = Mesh.box(L, B, H, 60, 4, 1, cell="hexahedron", origin=(0.0, -B / 2, -H / 2))
    X = mesh.nodes.copy()
    t = twist * X[:, 0] / L
    X[:, 1], X[:, 2] = (mesh.nodes[:, 1] * np.cos(t) - mesh.nodes[:, 2] * np.sin(t),
                        mesh.nodes[:, 1] * np.sin(t) + mesh.nodes[:, 2] * np.cos(t))
    solid = MeshBody(Mesh(X, mesh.blocks[0][1], "hexahedron"), **STEEL, nu=0.0)
    ls = solid.eigenvalues(3, supports=ROOT, mode_shapes=False).eigenvalues
    # beam model vs 3D solid on a coarse mesh: the untwisted blades differ by 1.5e-3
    # (lag) already; the twisted ones measured 1.2e-3, 2.3e-3, 1.6e-3
    np.testing.assert_allclose(ls, tw, rtol=4e-3)
    Om = 0.5 * math.sqrt(ls[0])
    spin = dict(omega=(0.0, 0.0, Om), geometric_stiffness=True)
    slope_beam = (lam(refs, **spin) - tw) / Om**2
    slope_solid = (solid.eigenvalues(3, supports=ROOT, mode_shapes=False, **spin).eigenvalues - ls) / Om**2
    # d(omega^2)/d(Omega^2) about 1.10, 1.17, 5.65: measured within 2.7e-3 of each other
    np.testing.assert_allclose(slope_solid, slope_beam, atol=6e-3)
    with pytest.raises(ValueError, match="ref"):
        Beam3D.from_mesh(nodes, el, **STEEL, **sec, ref=refs[:-1])
    with pytest.raises(ValueError, match="ref"):
        Beam3D.from_mesh(nodes, el, **STEEL, **sec, ref=np.c_[1.0 + 0 * refs[:, 0], 0 * refs[:, :2]])
