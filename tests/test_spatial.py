"""Spatial motion (docs/theory.md sections 1.4, 2.8, 3.14, 4.6, issue 9): the 3D beam and
bar against closed forms, the planar beam as the special case of the 3D beam in planar
motion (matrices, eigenvalues, responses), K_om for spin about each axis against direct
quadrature, invariance under a rigid rotation, Southwell's flap and lag coefficients,
torsion frequencies with their order of convergence, the spatial motions and their
interpolation, energy conservation, the four integrators, Lagrange = Hamilton, and the
error paths."""

import math

import numpy as np
import pytest

import kanefem
from kanefem import Bar3D, Beam3D, Motion, PlanarBeam, frames, simulate

STEEL = dict(E=2.1e11, A=1e-4, rho=7800.0)
SECTION = dict(Izz=1e-8, Iyy=2.5e-8, J=2.2e-8, nu=0.3)
G_SHEAR = STEEL["E"] / (2 * (1 + SECTION["nu"]))


def in_plane(n_nodes):
    """The DOFs (u, v, theta_z) of every node of a Beam3D: PlanarBeam's (u, v, theta)."""
    return np.array([[6 * k, 6 * k + 1, 6 * k + 5] for k in range(n_nodes)]).ravel()


def rotation(axis, angle):
    """Rotation matrix by Rodrigues' formula."""
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def random_rotation(seed):
    rng = np.random.default_rng(seed)
    return rotation(rng.standard_normal(3), rng.uniform(0.5, 2.5))


def relerr(a, b):
    return float(np.abs(np.asarray(a) - np.asarray(b)).max() / np.abs(b).max())


# ---------------------------------------------------------------- the element


def local_matrices(L, E, A, rho, Izz, Iyy, J, nu):
    """Textbook 12 x 12 consistent mass (no rotary inertia of bending, torsional mass
    rho Ip L / 6 [2 1; 1 2], Ip = Izz + Iyy) and stiffness of a 3D Euler-Bernoulli beam
    in element axes, DOFs per node (u_a, u_b, u_c, th_a, th_b, th_c)."""
    Gs = E / (2 * (1 + nu))
    K, M = np.zeros((12, 12)), np.zeros((12, 12))
    bar = np.array([[1, -1], [-1, 1]])
    lin = np.array([[2, 1], [1, 2]]) / 6
    kb = np.array([[12, 6 * L, -12, 6 * L], [6 * L, 4 * L**2, -6 * L, 2 * L**2],
                   [-12, -6 * L, 12, -6 * L], [6 * L, 2 * L**2, -6 * L, 4 * L**2]]) / L**3
    mb = np.array([[156, 22 * L, 54, -13 * L], [22 * L, 4 * L**2, 13 * L, -3 * L**2],
                   [54, 13 * L, 156, -22 * L], [-13 * L, -3 * L**2, -22 * L, 4 * L**2]]) * L / 420
    flip = np.diag([1, -1, 1, -1])  # theta_b = -du_c/ds
    for idx, k, m in (([0, 6], E * A / L * bar, rho * A * L * lin),
                      ([3, 9], Gs * J / L * bar, rho * (Izz + Iyy) * L * lin),
                      ([1, 5, 7, 11], E * Izz * kb, rho * A * mb),
                      ([2, 4, 8, 10], E * Iyy * flip @ kb @ flip, rho * A * flip @ mb @ flip)):
        K[np.ix_(idx, idx)] += k
        M[np.ix_(idx, idx)] += m
    return M, K


def element_axes(x1, x2, ref):
    e1 = (x2 - x1) / np.linalg.norm(x2 - x1)
    e3 = np.cross(e1, ref)
    e3 /= np.linalg.norm(e3)
    return np.array([e1, np.cross(e3, e1), e3])


@pytest.mark.parametrize("seed", [None, 1, 2])
def test_one_element_equals_the_textbook_matrices(seed):
    """M and K of one element (on the x axis, or at a random position, direction and
    section orientation) equal T^T M_loc T, T^T K_loc T of the closed forms, to round-off;
    the torsional mass is rho (Iyy + Izz) L / 3 on the diagonal (consistent linear)."""
    rng = np.random.default_rng(seed)
    if seed is None:
        x1, x2, ref = np.zeros(3), np.array([0.7, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    else:
        x1, x2, ref = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3), rng.standard_normal(3)
    body = Beam3D.from_mesh(np.array([x1, x2]), [[0, 1]], **STEEL, **SECTION, ref=ref)
    L = float(np.linalg.norm(x2 - x1))
    Ml, Kl = local_matrices(L, **STEEL, **SECTION)
    T = np.kron(np.eye(4), element_axes(x1, x2, ref))
    M, K = body.mass_matrix(), body.stiffness_matrix()
    # the same polynomials integrated exactly by Gauss and in closed form: round-off
    assert relerr(M, T.T @ Ml @ T) < 1e-14
    assert relerr(K, T.T @ Kl @ T) < 1e-13
    if seed is None:  # torsion DOFs 3 and 9 on the x axis
        ip = STEEL["rho"] * (SECTION["Izz"] + SECTION["Iyy"]) * L
        assert M[3, 3] == pytest.approx(ip / 3, rel=1e-15)
        assert M[3, 9] == pytest.approx(ip / 6, rel=1e-15)


def test_geometric_stiffness_of_the_3d_beam_bends_both_ways():
    """K_G for a constant axial force N0: the textbook N0/(30 l)[36 3l ...] over (v,
    theta_z) and, with theta_y = -dw/dx, over (w, -theta_y); nothing on u; on theta_x the
    tension-torsion ("trapeze") term N0 Ip / A int theta_x'^2, N0 Ip / (A l) [1 -1; -1 1]."""
    L, N0 = 0.4, 1000.0
    body = Beam3D(L, 1, **STEEL, **SECTION)
    KG = body.geometric_stiffness([N0, 0.0, 0.0])
    kg = N0 / (30 * L) * np.array([[36, 3 * L, -36, 3 * L], [3 * L, 4 * L**2, -3 * L, -L**2],
                                   [-36, -3 * L, 36, -3 * L], [3 * L, -L**2, -3 * L, 4 * L**2]])
    flip = np.diag([1, -1, 1, -1])
    # 4 Gauss points integrate G^T G (degree 4) exactly
    np.testing.assert_allclose(KG[np.ix_([1, 5, 7, 11], [1, 5, 7, 11])], kg, rtol=1e-13, atol=1e-10)
    np.testing.assert_allclose(KG[np.ix_([2, 4, 8, 10], [2, 4, 8, 10])], flip @ kg @ flip, rtol=1e-13, atol=1e-10)
    assert np.abs(KG[[0, 6]]).max() == 0.0
    kt = N0 * (SECTION["Izz"] + SECTION["Iyy"]) / (body.A * L)
    np.testing.assert_allclose(KG[np.ix_([3, 9], [3, 9])], kt * np.array([[1, -1], [-1, 1]]), rtol=1e-13)
    assert np.abs(KG[np.ix_([3, 9], [1, 2, 4, 5, 7, 8, 10, 11])]).max() == 0.0


# ---------------------------------------------------------------- the planar special case


@pytest.fixture(scope="module")
def pair():
    """A Beam3D and the PlanarBeam it contains (same line mass, E Izz = E I)."""
    n = 6
    b3 = Beam3D(1.1, n, **STEEL, **SECTION)
    bp = PlanarBeam(1.1, n, I=SECTION["Izz"], **STEEL)
    return b3, bp, in_plane(n + 1)


def test_planar_motion_matrices_equal_the_planar_beam(pair):
    """In planar motion (omega, eps about z, a_O in the x-y plane) the in-plane rows and
    columns of M, K and every motion term are PlanarBeam's, and the in-plane DOFs are not
    coupled to the others at all."""
    b3, bp, ip = pair
    other = np.setdiff1d(np.arange(b3.ndof), ip)
    t3 = b3.motion_terms(3.0, 20.0, (1.0, -9.81, 0.0))
    tp = bp.motion_terms(3.0, 20.0, (1.0, -9.81))
    pairs = [(b3.mass_matrix(), bp.mass_matrix()), (b3.stiffness_matrix(), bp.stiffness_matrix())]
    pairs += [(getattr(t3, k), getattr(tp, k)) for k in ("C", "K_eps", "K_om")]
    for X3, Xp in pairs:
        # the 3D beam sums its four section points where the planar beam has one: round-off
        assert relerr(X3[np.ix_(ip, ip)], Xp) < 2e-15
        assert np.abs(X3[np.ix_(ip, other)]).max() == 0.0  # exactly uncoupled
    for k in ("q_eps", "q_om", "q_a"):
        assert relerr(getattr(t3, k)[ip], getattr(tp, k)) < 2e-15
        assert np.abs(getattr(t3, k)[other]).max() == 0.0


def test_planar_motion_eigenvalues_equal_the_planar_beam(pair):
    """The planar beam's eigenvalues are among the 3D beam's (whose other modes bend out
    of plane and twist), with K_eps (general solver) and with K_G, and so are the
    gyroscopic ones."""
    b3, bp, ip = pair
    for kw in (dict(omega=30.0, eps=500.0), dict(omega=30.0, geometric_stiffness=True)):
        lp = bp.eigenvalues(4, supports="clamped-free", **kw).eigenvalues
        r3 = b3.eigenvalues(12, supports="clamped-free", **kw)
        shapes = r3.mode_shapes
        inplane = np.abs(np.delete(shapes, ip, axis=0)).max(axis=0) < 1e-9 * np.abs(shapes).max(axis=0)
        l3 = r3.eigenvalues[inplane][:4]
        # independent dense solves of the same matrices: agree to 1e-12 of the largest
        assert relerr(l3, lp) < 1e-12, (l3, lp)
    sp = bp.gyroscopic_eigenvalues([30.0], [500.0], 3, supports="clamped-free").s[0]
    s3 = b3.gyroscopic_eigenvalues([30.0], [500.0], 10, supports="clamped-free").s[0]
    nearest = np.array([s3[np.argmin(np.abs(s3 - s))] for s in sp])
    assert relerr(nearest, sp) < 1e-11  # dgeev of 2n vs 2n' first-order forms


@pytest.mark.parametrize("method", ["newmark", "rk45-hamilton"])
def test_planar_motion_response_equals_the_planar_beam(pair, method):
    """simulate: the in-plane response of the 3D beam is the planar beam's, the rest stays
    exactly zero (a varying planar motion with gravity, from samples)."""
    b3, bp, ip = pair
    t = np.linspace(0.0, 0.05, 26)
    motion = Motion.from_samples(t, 20 * t + 100 * t**2, np.column_stack([0.3 * t**2, 0.1 * t]))
    kw = dict(t_eval=np.linspace(0, 0.05, 11), supports="clamped-free", gravity=(0.0, -9.81),
              progress=False, dt=1e-4, rtol=1e-10, atol=1e-14)
    r3 = simulate(b3, motion, 0.05, method=method, **kw)
    rp = simulate(bp, motion, 0.05, method=method, **kw)
    # the same equations; round-off differences of the matrices (1e-15) grow over the
    # steps (and steer the adaptive steps a little) to ~1e-12
    assert relerr(r3.d[:, ip], rp.d) < 1e-10
    assert np.abs(np.delete(r3.d, ip, axis=1)).max() == 0.0


# ---------------------------------------------------------------- spin about each axis


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_centrifugal_stiffness_for_spin_about_each_axis(axis):
    """K_om = -Omega^2 (M - S_aa) for spin about body axis a, and -K_om d is the change
    of Kane's inertia forces by direct quadrature (kf_body_inertia_forces_direct) when the
    body is displaced by d at rest relative to the frame."""
    body = Beam3D(0.9, 5, **STEEL, **SECTION, origin=0.2)
    Om = 17.0
    w = np.zeros(3)
    w[axis] = Om
    K_om = body.motion_terms(w).K_om
    S = body.inertia_invariants()["S"]
    np.testing.assert_allclose(K_om, -Om**2 * (body.mass_matrix() - S[axis, axis]), rtol=0,
                               atol=1e-14 * Om**2 * np.abs(body.mass_matrix()).max())
    d = np.random.default_rng(axis).standard_normal(body.ndof) * 0.1
    zero = np.zeros(body.ndof)
    f = body.inertia_forces(d, zero, zero, w, route="quadrature")
    # the quadrature of rho N^T (W W)(x + N d) at each point vs the invariant combination
    # -(K_om d + q_om): two summation orders of the same integrals
    assert relerr(f, -(K_om @ d + body.motion_terms(w).q_om)) < 1e-13
    assert np.all(np.linalg.eigvalsh(K_om) <= 1e-12 * Om**2 * np.abs(body.mass_matrix()).max())


def test_inertia_forces_in_general_motion_equal_direct_quadrature():
    """Every motion term at once: a random spatial motion and state, invariants vs
    quadrature (docs/theory.md section 6.2)."""
    body = Beam3D.from_mesh(np.array([[0, 0, 0], [0.3, 0.2, -0.1], [0.5, 0.5, 0.2]]), [[0, 1], [1, 2]],
                            **STEEL, **SECTION, ref=(0.0, 0.0, 1.0))
    rng = np.random.default_rng(7)
    d, dd, ddd = rng.standard_normal((3, body.ndof)) * 1e-2
    w, e, a = rng.uniform(-20, 20, 3), rng.uniform(-300, 300, 3), rng.uniform(-30, 30, 3)
    f_inv = body.inertia_forces(d, dd, ddd, w, e, a)
    f_quad = body.inertia_forces(d, dd, ddd, w, e, a, route="quadrature")
    assert relerr(f_inv, f_quad) < 1e-13  # two summation orders of the same integrals


def scipy_eigenvalues(body, supports, frame, n, kg=None):
    """The n lowest (by real part) eigenvalues of (K + K_om + K_eps [+ K_G], M), dense SciPy."""
    sl = pytest.importorskip("scipy.linalg")
    free = ~body.support_mask(supports)
    t = body.motion_terms(frames=frame)
    K = body.stiffness_matrix() + t.K_om + t.K_eps
    if kg is not None:
        K = K + body.geometric_stiffness(kg)
    r = np.ix_(free, free)
    return np.sort_complex(sl.eig(K[r], body.mass_matrix()[r], right=False))[:n]


def test_spatial_general_eigenvalues_continue_from_the_symmetric_part():
    """With K_eps in spatial motion (and with K_G), each instant is certified against its
    own symmetric part (docs/theory.md section 3.14) instead of a full dgeev: the same
    eigenvalues as SciPy's eig, most instants by continuation."""
    beam = Beam3D(0.9, 10, **STEEL, **SECTION)
    F = robot_motion().evaluate(np.linspace(0.0, 1.0, 30), gravity=(0.0, 0.0, -9.81)).frames
    for geometric in (False, True):
        r = beam.eigenvalues_vs_time(frames=F, n_modes=4, geometric_stiffness=geometric)
        kg = beam._axial_rows(F, "clamped-free", None) if geometric else [None] * len(F)
        for k in range(0, len(F), 7):
            ref = scipy_eigenvalues(beam, "clamped-free", F[k:k + 1], 4, kg[k])
            got = r.eigenvalues[k] + 1j * r.eigenvalues_imag[k]
            # two dense routes: round-off of eps lambda_max (the axial modes), ~1e-11 here
            assert relerr(got, ref) < 1e-9, (k, got, ref)
        assert r.solver == "general" and r.stats["continued"] >= 25, r.stats
    # a planar beam with K_G and K_eps: certified the same way now
    planar = PlanarBeam(0.9, 10, I=SECTION["Izz"], **STEEL)
    om, ep = np.linspace(0, 40, 20), np.linspace(-2000, 2000, 20)
    r = planar.eigenvalues_vs_time(om, ep, 3, geometric_stiffness=True)
    fr = frames.planar(om, ep)
    kg = planar._axial_rows(fr, "pinned-pinned", None)
    for k in (0, 9, 19):
        ref = scipy_eigenvalues(planar, "pinned-pinned", fr[k:k + 1], 3, kg[k])
        assert relerr(r.eigenvalues[k] + 1j * r.eigenvalues_imag[k], ref) < 1e-9
    assert r.stats["continued"] >= 15, r.stats


# ---------------------------------------------------------------- rigid rotation


def test_a_rigid_rotation_leaves_the_eigenvalues_unchanged():
    """The beam's nodes and section orientation rotated by Q, and its motion rotated with
    them (omega -> Q omega, eps -> Q eps): the same frozen-time problem in other axes,
    hence the same eigenvalues (symmetric, general, gyroscopic)."""
    n = 6
    x = np.linspace(0.1, 1.0, n + 1)
    nodes = np.column_stack([x, 0 * x, 0 * x])
    conn = np.column_stack([np.arange(n), np.arange(1, n + 1)])
    Q = random_rotation(3)
    a = Beam3D.from_mesh(nodes, conn, **STEEL, **SECTION, ref=(0.0, 1.0, 0.0))
    b = Beam3D.from_mesh(nodes @ Q.T, conn, **STEEL, **SECTION, ref=Q @ [0.0, 1.0, 0.0])
    W = np.array([[3.0, -40.0, 25.0], [10.0, 5.0, -60.0]])
    Ep = np.array([[300.0, 200.0, -100.0], [0.0, -900.0, 50.0]])
    sup = {0: "clamped"}
    for eps_on in (False, True):
        ra = a.eigenvalues_vs_time(W, Ep, 8, supports=sup, include_eps=eps_on, mode_shapes=False)
        rb = b.eigenvalues_vs_time(W @ Q.T, Ep @ Q.T, 8, supports=sup, include_eps=eps_on, mode_shapes=False)
        # the standard forms are similar matrices; dense solvers agree to 1e-12
        la = ra.eigenvalues + 1j * ra.eigenvalues_imag
        assert relerr(rb.eigenvalues + 1j * rb.eigenvalues_imag, la) < 1e-12
    ga = a.gyroscopic_eigenvalues(W, Ep, 6, supports=sup).s
    gb = b.gyroscopic_eigenvalues(W @ Q.T, Ep @ Q.T, 6, supports=sup).s
    assert relerr(gb, ga) < 1e-11


# ---------------------------------------------------------------- rotating blade


def mode_kind(shapes, n_nodes, k):
    """The largest displacement component of mode k: 'v' (lag), 'w' (flap), ..."""
    amp = [np.abs(shapes[c::6, k]).max() for c in range(6)]
    return ("u", "v", "w", "theta_x", "theta_y", "theta_z")[int(np.argmax(amp[:3] + [0, 0, 0]))] \
        if max(amp[:3]) > 0 else "theta_x"


def test_southwell_flap_and_lag_from_one_spatial_model():
    """A cantilever blade spinning about z at Omega, with K_G: flap (w) omega^2 = omega_0^2
    + alpha_k Omega^2 with Southwell's alpha_1 = 1.1933, alpha_2 = 6.4782; lag (v, in the
    plane of rotation) softened by exactly Omega^2 more: omega_lag^2 = omega_flap^2 -
    Omega^2 (Izz = Iyy)."""
    L, n, I = 1.0, 40, 1e-8
    blade = Beam3D(L, n, **STEEL, Izz=I, Iyy=I, J=2 * I)
    Om = 10.0  # small against omega_1 = 184 rad/s, as in the planar test
    supports = {0: "clamped", **{k: ("theta_x",) for k in range(1, n + 1)}}  # torsion out of the way
    r0 = blade.eigenvalues(4, supports=supports, geometric_stiffness=True)
    r = blade.eigenvalues(4, omega=(0.0, 0.0, Om), supports=supports, geometric_stiffness=True)
    kinds = [mode_kind(r.mode_shapes, n + 1, k) for k in range(4)]
    lag = r.eigenvalues[[k for k in range(4) if kinds[k] == "v"]]
    flap = r.eigenvalues[[k for k in range(4) if kinds[k] == "w"]]
    lam0 = r0.eigenvalues[::2]  # flap and lag coincide at rest (Izz = Iyy)
    assert len(lag) == len(flap) == 2
    alpha = (flap - lam0) / Om**2
    # published to 4-5 digits; 40 elements and the O(Omega^4) term are well inside 2e-3
    assert alpha[0] == pytest.approx(1.1933, abs=2e-3)
    assert alpha[1] == pytest.approx(6.4782, abs=3e-3)
    # lag is the planar model's in-plane bending (K + K_G - Omega^2 M on v): the same
    # eigenvalues to the dense solvers' round-off, a few eps lambda_max (the axial modes)
    planar = PlanarBeam(L, n, I=I, **STEEL)
    p = planar.eigenvalues(2, omega=Om, supports="clamped-free", geometric_stiffness=True).eigenvalues
    nfree = int((~blade.support_mask(supports)).sum())
    lam_max = blade.eigenvalues(nfree, supports=supports, mode_shapes=False).eigenvalues[-1]
    np.testing.assert_allclose(lag, p, rtol=0, atol=100 * np.finfo(float).eps * lam_max)
    # lag = flap - Omega^2: the v and w subsystems differ by -Omega^2 M exactly
    np.testing.assert_allclose(lag, flap - Om**2, rtol=0, atol=100 * np.finfo(float).eps * lam_max)


def test_spinning_string_frequencies():
    """A Bar3D hinged at the hub and spinning about z, with K_G, is a spinning string:
    flap omega_k^2 / Omega^2 = k (2k - 1), lag one less (the rigid flap at Omega and the
    rigid lag at 0 are exact for linear elements)."""
    bar = Bar3D(1.0, 60, **STEEL)
    Om = 20.0
    r = bar.eigenvalues(6, omega=(0.0, 0.0, Om), geometric_stiffness=True)
    ratio = r.eigenvalues / Om**2
    want = np.array([0, 1, 5, 6, 14, 15])
    # k = 1 exact (linear modes) up to the round-off of a standard form whose scale is the
    # axial stiffness (lambda_max ~ 1e13 here, so ~1e-3 absolute); k = 2, 3: O(h^2)
    # discretization, 1e-3 at 60 elements
    assert abs(ratio[0]) < 1e-5 and abs(ratio[1] - 1) < 1e-5
    np.testing.assert_allclose(ratio[2:], want[2:], rtol=3e-3)


# ---------------------------------------------------------------- torsion


def test_torsion_frequencies_and_their_order_of_convergence():
    """Clamped-free torsion: omega_n = (2n - 1) pi / (2L) sqrt(G J / (rho Ip)), Ip =
    Izz + Iyy (the section points' polar moment); linear elements with consistent mass
    converge at order 2 in the element length."""
    L = 1.3
    exact = (2 * np.arange(1, 4) - 1) * math.pi / (2 * L) * math.sqrt(
        G_SHEAR * SECTION["J"] / (STEEL["rho"] * (SECTION["Izz"] + SECTION["Iyy"])))
    errs = []
    for n in (8, 16, 32):
        beam = Beam3D(L, n, **STEEL, **SECTION)
        sup = {0: "clamped", **{k: ("u", "v", "w", "theta_y", "theta_z") for k in range(1, n + 1)}}
        w = beam.eigenvalues(3, supports=sup).angular_frequencies
        errs.append(np.abs(w / exact - 1))
    errs = np.array(errs)
    order = np.log2(errs[:-1] / errs[1:])
    assert np.all(np.abs(order - 2) < 0.05), order  # h^2, with small h^4 terms
    # (beta h)^2 / 12-like errors: 1e-4 for the first mode at 32 elements
    assert errs[-1, 0] < 2e-4 and errs[-1, 2] < 3e-3


# ---------------------------------------------------------------- frames and motions


def test_frames_spatial_and_from_rates():
    f = frames.spatial([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], eps=[0.0, 0.0, 1.0], a_O=[0.0, -9.81])
    assert f.dtype == kanefem.FRAME_DTYPE and f.shape == (2,)
    assert f["omega"][1].tolist() == [4.0, 5.0, 6.0] and f["eps"][0].tolist() == [0.0, 0.0, 1.0]
    assert f["a"][1].tolist() == [0.0, -9.81, 0.0]
    # numbers are rates about z, on a grid and at one instant
    g = frames.from_rates(np.array([1.0, 2.0]), np.array([[0, 0, 5.0], [1.0, 0, 0]]), instants=True, dim=3)
    assert g["omega"][:, 2].tolist() == [1.0, 2.0] and g["eps"][1].tolist() == [1.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="omega"):
        frames.spatial([1.0, 2.0])
    with pytest.raises(ValueError, match="a_O"):
        frames.from_rates([0.0, 0.0, 1.0], 0.0, a_O=[1.0, 2.0, 3.0, 4.0], dim=3)
    with pytest.raises(TypeError, match="FRAME_DTYPE"):
        Beam3D(1.0, 2, **STEEL, **SECTION).motion_terms(frames=np.zeros(3))


def test_frames_keyword_equals_rates():
    beam = Beam3D(1.0, 4, **STEEL, **SECTION)
    f = frames.spatial([3.0, -2.0, 5.0], [10.0, 0.0, -4.0], [0.0, 0.0, -9.81])
    a = beam.motion_terms((3.0, -2.0, 5.0), (10.0, 0.0, -4.0), (0.0, 0.0, -9.81))
    b = beam.motion_terms(frames=f)
    for k in ("C", "K_eps", "K_om", "q_a"):
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k))
    r1 = beam.eigenvalues_vs_time(frames=np.repeat(f, 3), n_modes=3)
    r2 = beam.eigenvalues_vs_time(np.tile([3.0, -2.0, 5.0], (3, 1)), np.tile([10.0, 0.0, -4.0], (3, 1)), 3)
    np.testing.assert_array_equal(r1.eigenvalues, r2.eigenvalues)
    # three equal instants: solved once, reused twice (docs/theory.md section 3.14)
    assert r1.stats["full_solves"] + r1.stats["continued"] == 1 and r1.stats["reused"] == 2


def test_planar_body_refuses_a_spatial_rotation():
    beam = PlanarBeam(1.0, 4, I=1e-8, **STEEL)
    with pytest.raises(ValueError, match="about its frame's z axis"):
        beam.motion_terms((1.0, 0.0, 2.0))
    with pytest.raises(ValueError, match="about its frame's z axis"):
        beam.eigenvalues_vs_time(np.zeros((2, 3)), np.array([[0, 1.0, 0], [0, 0, 0]]), 2)
    with pytest.raises(ValueError, match="about its frame's z axis"):
        simulate(beam, Motion.constant_spin([0.0, 1.0, 0.0]), 0.01, dt=1e-3, progress=False)
    # rotation about z only, given as 3-vectors: the planar results
    r1 = beam.eigenvalues(2, omega=(0.0, 0.0, 7.0), eps=(0.0, 0.0, 30.0))
    r2 = beam.eigenvalues(2, omega=7.0, eps=30.0)
    np.testing.assert_array_equal(r1.eigenvalues, r2.eigenvalues)


def body_rates(t, psi, theta):
    """Exact body-axes omega, eps of R = Rz(psi(t)) Ry(theta(t)); psi, theta give
    (value, first, second derivative) at t."""
    p, p1, p2 = psi(t)
    th, th1, th2 = theta(t)
    Ry = rotation([0, 1, 0], th)
    ez, ey = np.array([0.0, 0, 1]), np.array([0.0, 1, 0])
    om = Ry.T @ (p1 * ez) + th1 * ey
    # d/dt Ry^T = -[th1 ey]x Ry^T
    ep = -np.cross(th1 * ey, Ry.T @ (p1 * ez)) + Ry.T @ (p2 * ez) + th2 * ey
    return rotation([0, 0, 1], p) @ Ry, om, ep


def test_rotation_samples_interpolate_with_orders_4_3_2():
    """Motion.from_rotations of R(t) = Rz(psi) Ry(theta): the orientation (seen through
    gravity in body axes), omega and eps converge to the exact body rates at orders 4, 3
    and 2 in the sample spacing; matrices and quaternions (either order) give the same."""
    psi = lambda t: (0.8 * np.sin(3 * t), 2.4 * np.cos(3 * t), -7.2 * np.sin(3 * t))  # noqa: E731
    theta = lambda t: (0.5 * t**2 + 0.3 * t, t + 0.3, 1.0 + 0 * t)  # noqa: E731
    g = np.array([0.0, 0.0, -9.81])
    errs = []
    for n in (41, 81, 161):
        t = np.linspace(0.0, 2.0, n)
        # the largest error over points 1/4, 1/2, 3/4 into each interval, away from the ends
        probe = (t[:-1, None] + (t[1] - t[0]) * np.array([0.25, 0.5, 0.75])).ravel()
        probe = probe[(probe > 0.3) & (probe < 1.7)]
        R = np.array([body_rates(s, psi, theta)[0] for s in t])
        s = Motion.from_rotations(t, R).evaluate(probe, gravity=g)
        e = np.zeros(3)
        for k, tk in enumerate(probe):
            Rk, om, ep = body_rates(tk, psi, theta)
            e = np.maximum(e, [np.abs(s.a_O[k] + Rk.T @ g).max() / 9.81,
                               np.abs(s.omega[k] - om).max(), np.abs(s.eps[k] - ep).max()])
        errs.append(e)
    errs = np.array(errs)
    order = np.log2(errs[:-1] / errs[1:])
    # cubic splines: O(h^4) values, O(h^3) first and O(h^2) second derivatives
    np.testing.assert_allclose(order, [[4, 3, 2]] * 2, atol=0.1)
    assert errs[-1, 0] < 1e-8 and errs[-1, 1] < 3e-6 and errs[-1, 2] < 1e-3
    # quaternions (any sign, scalar last) give the same motion as the matrices
    t = np.linspace(0.0, 2.0, 41)
    probe = np.linspace(0.1, 1.9, 7)
    R = np.array([body_rates(s, psi, theta)[0] for s in t])
    from kanefem.motion import _quaternions_of

    q = _quaternions_of(R) * np.where(np.arange(41) % 3 == 0, -1.0, 1.0)[:, None]
    a = Motion.from_rotations(t, R).evaluate(probe).frames
    b = Motion.from_rotations(t, q[:, [1, 2, 3, 0]], order="xyzw").evaluate(probe).frames
    for k in ("omega", "eps"):
        np.testing.assert_allclose(a[k], b[k], rtol=0, atol=1e-12)


def test_origin_path_in_body_axes():
    """from_rotations with an origin path: v, a in body axes are R^T of the global
    ones (a circle at constant speed while the frame turns about x)."""
    t = np.linspace(0.0, 1.0, 201)
    R = np.array([rotation([1, 0, 0], 0.5 * s) for s in t])
    r = np.column_stack([np.cos(2 * t), np.sin(2 * t), 0 * t])
    s = Motion.from_rotations(t, R, r).evaluate([0.5])
    Rk = rotation([1, 0, 0], 0.25)
    v = Rk.T @ [-2 * math.sin(1.0), 2 * math.cos(1.0), 0.0]
    a = Rk.T @ [-4 * math.cos(1.0), -4 * math.sin(1.0), 0.0]
    # spline accuracy at h = 5e-3: velocities O(h^3), accelerations O(h^2)
    np.testing.assert_allclose(s.v_O[0], v, atol=1e-7)
    np.testing.assert_allclose(s.a_O[0], a, atol=1e-4)
    om = np.array([0.5, 0.0, 0.0])
    np.testing.assert_allclose(s.frames["vdot"][0], a - np.cross(om, v), atol=1e-4)


def test_constant_spin_motion():
    """omega constant, gravity turned by R(t)^T = exp(-t [omega]x) R0^T; and the same
    motion sampled (from_rotations) agrees to the interpolation error."""
    w = np.array([1.0, -2.0, 3.0])
    R0 = random_rotation(5)
    m = Motion.constant_spin(w, R0)
    t = np.linspace(0.0, 2.0, 9)
    g = np.array([0.0, 0.0, -9.81])
    s = m.evaluate(t, gravity=g)
    for k, tk in enumerate(t):
        Rk = R0 @ rotation(w, np.linalg.norm(w) * tk)
        np.testing.assert_allclose(s.a_O[k], -Rk.T @ g, atol=1e-13)
    np.testing.assert_array_equal(s.omega, np.tile(w, (9, 1)))
    assert np.all(s.eps == 0)
    ts = np.linspace(0.0, 2.0, 401)
    sampled = Motion.from_rotations(ts, np.array([R0 @ rotation(w, np.linalg.norm(w) * x) for x in ts]))
    p = sampled.evaluate(t[1:-1] + 0.01, gravity=g)
    q = m.evaluate(t[1:-1] + 0.01, gravity=g)
    np.testing.assert_allclose(p.omega, q.omega, atol=1e-7)  # h^3 with h = 5e-3, |w|^4 ~ 200
    np.testing.assert_allclose(p.a_O, q.a_O, atol=1e-8)


def test_function_motion_with_vectors_equals_the_spin():
    """Motion.from_function returning 3-vectors (called from C) and Motion.constant_spin
    (evaluated in C) give the same frames and the same response; evaluate reports
    3-vectors for a spatial function motion."""
    w = (1.5, -2.0, 4.0)
    f = Motion.from_function(lambda t: (w, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)), spatial=True)
    s = f.evaluate([0.0, 0.3])
    assert s.omega.shape == (2, 3) and s.omega[1].tolist() == list(w)
    beam = soft_beam(3)
    kw = dict(dt=1e-3, progress=False, t_eval=np.linspace(0, 0.2, 5))
    a = simulate(beam, f, 0.2, **kw).d
    b = simulate(beam, Motion.constant_spin(w), 0.2, **kw).d
    np.testing.assert_array_equal(a, b)  # the same frames, bit for bit


hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies


@hypothesis.settings(max_examples=25, deadline=None)
@hypothesis.given(seed=st.integers(0, 2**32 - 1), nel=st.integers(1, 4))
def test_structure_for_any_spatial_motion_and_geometry(seed, nel):
    """Random node positions, section orientation and spatial motion: M symmetric positive
    definite, C and K_eps skew (bitwise), K_om symmetric negative semidefinite, and the
    invariants' inertia forces equal direct quadrature."""
    rng = np.random.default_rng(seed)
    nodes = np.cumsum(rng.uniform(0.1, 0.5, (nel + 1, 3)) * rng.choice([-1, 1], (nel + 1, 3)), axis=0)
    conn = np.column_stack([np.arange(nel), np.arange(1, nel + 1)])
    ref = rng.standard_normal(3)
    body = Beam3D.from_mesh(nodes, conn, **STEEL, **SECTION, ref=ref)
    w, e, a = rng.uniform(-30, 30, 3), rng.uniform(-500, 500, 3), rng.uniform(-50, 50, 3)
    t = body.motion_terms(w, e, a)
    M = body.mass_matrix()
    assert np.array_equal(M, M.T) and np.linalg.eigvalsh(M).min() > 0
    assert np.array_equal(t.C, -t.C.T) and np.array_equal(t.K_eps, -t.K_eps.T)
    assert np.array_equal(t.K_om, t.K_om.T)
    # -K_om = sum W^T W S: PSD up to round-off of the scale |omega|^2 M
    assert np.linalg.eigvalsh(t.K_om).max() <= 1e-12 * np.dot(w, w) * np.abs(M).max()
    d, dd, ddd = rng.standard_normal((3, body.ndof)) * 1e-2
    f1 = body.inertia_forces(d, dd, ddd, w, e, a)
    f2 = body.inertia_forces(d, dd, ddd, w, e, a, route="quadrature")
    assert relerr(f1, f2) < 1e-12  # two summation orders of the same integrals


# ---------------------------------------------------------------- integration in space


def soft_beam(n=5):
    """Soft enough (E = 20 MPa) that fixed steps resolve every mode (cf. test_integrate)."""
    return Beam3D(1.2, n, E=2e7, A=4e-4, rho=1200.0, Izz=3e-8, Iyy=5e-8, J=6e-8, nu=0.35)


def robot_motion(t_end=1.0, n=121):
    """Samples of a yaw-pitch link base on a moving carriage (a spatial motion)."""
    t = np.linspace(0.0, t_end, n)
    R = np.array([rotation([0, 0, 1], 1.2 * np.sin(2 * s)) @ rotation([0, 1, 0], 0.4 * s**2) for s in t])
    r = np.column_stack([0.2 * np.sin(3 * t), 0.1 * t**2, 0 * t])
    return Motion.from_rotations(t, R, r)


def test_four_integrators_agree_in_spatial_motion():
    beam = soft_beam(3)  # highest mode 1e3 rad/s: resolved by the steps below
    motion = robot_motion()
    t = np.linspace(0.0, 1.0, 21)
    kw = dict(t_eval=t, gravity=(0.0, 0.0, -9.81), progress=False)
    ref = simulate(beam, motion, 1.0, method="rk45-lagrange", rtol=1e-11, atol=1e-15, **kw).d
    scale = np.abs(ref).max()
    ham = simulate(beam, motion, 1.0, method="rk45-hamilton", rtol=1e-11, atol=1e-15, **kw).d
    # Lagrange vs Hamilton form: the same trajectories to the tolerance
    assert np.abs(ham - ref).max() < 1e-8 * scale
    for method in ("newmark", "generalized-alpha"):
        e = [np.abs(simulate(beam, motion, 1.0, method=method, dt=dt, **kw).d - ref).max()
             for dt in (4e-4, 2e-4)]
        # second order: the error quarters when the step halves (measured 4.05), and is small
        assert 3.5 < e[0] / e[1] < 4.6, e
        assert e[1] < 5e-5 * scale, e


def test_hamilton_momentum_in_spatial_motion():
    """p = M d' + G d + h with G = sum W_ij S_ij = C/2 and h = sum W_ij s_ij + Mo v_L,
    from the Hamilton run's own d, d' (docs/theory.md section 4.3)."""
    beam = soft_beam(3)
    motion = robot_motion()
    r = simulate(beam, motion, 0.5, method="rk45-hamilton", t_eval=np.linspace(0, 0.5, 6),
                 rtol=1e-10, atol=1e-14, progress=False)
    inv = beam.inertia_invariants()
    fr = motion.evaluate(r.t).frames
    M = beam.mass_matrix()
    free = ~beam.support_mask("clamped-free")
    for k in range(len(r.t)):
        W = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 0]]) * 0.0
        w = fr["omega"][k]
        W = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
        G = np.einsum("ij,ijab->ab", W, inv["S"])
        h = np.einsum("ij,ija->a", W, inv["s"]) + fr["v"][k] @ inv["Mo"]
        p = M @ r.v[k] + G @ r.d[k] + h
        np.testing.assert_allclose(r.p[k][free], p[free], rtol=0, atol=1e-12 * np.abs(p).max())


def test_jacobi_integral_of_a_spinning_3d_beam():
    """Constant spin about a skew axis, no load: H = 1/2 d'^T M d' + 1/2 d^T (K + K_om) d +
    q_om^T d is conserved.  Written about the static deflection d_s ((K + K_om) d_s =
    -q_om), H = 1/2 d'^T M d' + 1/2 e^T (K + K_om) e + const with e = d - d_s, which avoids
    the cancellation of the large static terms."""
    beam = soft_beam(4)
    w = np.array([0.8, -1.5, 2.5])
    free = ~beam.support_mask("clamped-free")
    terms = beam.motion_terms(w)
    M, K = beam.mass_matrix(), beam.stiffness_matrix() + terms.K_om
    ds = np.zeros(beam.ndof)
    ds[free] = np.linalg.solve(K[np.ix_(free, free)], -terms.q_om[free])
    v0 = np.where(free, np.random.default_rng(2).standard_normal(beam.ndof) * 1e-2, 0.0)
    m = Motion.constant_spin(w)
    kw = dict(progress=False, t_eval=np.linspace(0, 2.0, 41), v0=v0, d0=ds)
    for method, tol, opts in (("newmark", 1e-10, dict(dt=2e-3)),
                              ("rk45-hamilton", 1e-5, dict(rtol=1e-10, atol=1e-14))):
        r = simulate(beam, m, 2.0, method=method, **opts, **kw)
        kinetic = np.einsum("ki,ij,kj->k", r.v, M, r.v) / 2
        H = kinetic + np.einsum("ki,ij,kj->k", r.d - ds, K, r.d - ds) / 2
        # Newmark conserves this quadratic energy exactly for C skew, K symmetric, f
        # constant: round-off over 1000 steps (measured 3e-12); RK45 to its tolerance,
        # taken relative to |d| ~ the 0.7 m static deflection (measured 2.5e-6)
        assert np.abs(H - H[0]).max() < tol * H[0], method
        assert np.ptp(kinetic) > 0.5 * H[0]  # the gyroscopic coupling moves energy around


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("name, value", [("Izz", 0.0), ("Iyy", -1e-8), ("J", math.nan), ("nu", 0.6),
                                         ("nu", -1.0)])
def test_bad_beam3d_section(name, value):
    kw = dict(SECTION, **{name: value})
    with pytest.raises(ValueError, match=name):
        Beam3D(1.0, 3, **STEEL, **kw)


def test_bad_orientation_vector():
    with pytest.raises(ValueError, match="ref.*parallel"):
        Beam3D(1.0, 3, **STEEL, **SECTION, ref=(2.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="ref"):
        Beam3D(1.0, 3, **STEEL, **SECTION, ref=(0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="ref"):
        Beam3D(1.0, 3, **STEEL, **SECTION, ref=(0.0, 1.0))


def test_bad_spatial_motions():
    t = np.linspace(0, 1, 5)
    with pytest.raises(ValueError, match="rotations"):
        Motion.from_rotations(t, np.zeros((5, 3)))
    with pytest.raises(ValueError, match=r"rotations\[2\] is not a rotation"):
        R = np.tile(np.eye(3), (5, 1, 1))
        R[2, 0, 0] = -1.0
        Motion.from_rotations(t, R)
    with pytest.raises(ValueError, match="quaternion 1 is zero"):
        Motion.from_rotations(t, np.array([[1.0, 0, 0, 0], [0, 0, 0, 0]] + [[1.0, 0, 0, 0]] * 3))
    with pytest.raises(ValueError, match="order"):
        Motion.from_rotations(t, np.tile([1.0, 0, 0, 0], (5, 1)), order="zyxw")
    with pytest.raises(ValueError, match="omega"):
        Motion.constant_spin([1.0, 2.0])
    with pytest.raises(ValueError, match="R0"):
        Motion.constant_spin([1.0, 2.0, 3.0], R0=2 * np.eye(3))
    with pytest.raises(ValueError, match="gravity"):
        Motion.constant_spin([1.0, 2.0, 3.0]).evaluate([0.0], gravity=(0.0, -9.81))
    with pytest.raises(ValueError, match="t = 2"):
        Motion.from_rotations(t, np.tile([1.0, 0, 0, 0], (5, 1))).evaluate([2.0])
