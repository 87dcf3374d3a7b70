"""The spatial beam's section model (docs/theory.md section 2.9, issue 20): Timoshenko shear
deformation, rotary inertia, the section turning to second order.  Every reference comes
from outside the code: closed forms coded here from their sources (cited at each test),
not from kanefem's matrices.

- Timoshenko frequencies of a simply supported beam vs Timoshenko's frequency equation,
  and the shear-locking check at L/h = 1000 (Timoshenko = Euler-Bernoulli there);
- one element's stiffness vs the textbook Timoshenko matrix (Przemieniecki);
- a shaft's torsion frequencies unchanged by a spin about its own axis;
- the propeller moment: a flat blade's torsion slope d(omega_t^2)/d(Omega^2) vs its
  analytic value (I_zz - I_yy) / (I_zz + I_yy);
- a spinning shaft's forward and backward whirl vs the Rayleigh shaft's closed form;
- the invariants route of Kane's inertia forces vs direct quadrature at a state;
- the model stated in results, and the bad inputs.
"""

import math

import numpy as np
import pytest

import kanefem
from kanefem import Beam3D, NotSupportedError

E, RHO, NU = 2.1e11, 7800.0, 0.3
G = E / (2 * (1 + NU))


def rectangle(b, h):
    """A solid b x h section (b along the section's y): A, Izz = int y^2, Iyy = int z^2, and
    the torsion constant of a thin-ish rectangle (Roark's approximation; it only sets the
    torsion frequencies, which every test here measures against the same J)."""
    lo, hi = min(b, h), max(b, h)
    J = hi * lo**3 * (1 / 3 - 0.21 * lo / hi * (1 - lo**4 / (12 * hi**4)))
    return dict(A=b * h, Izz=h * b**3 / 12, Iyy=b * h**3 / 12, J=J)


def circle(R):
    return dict(A=math.pi * R**2, Izz=math.pi * R**4 / 4, Iyy=math.pi * R**4 / 4, J=math.pi * R**4 / 2)


def fraction(shapes, dofs):
    """Share of each mode's |phi| on the given DOF numbers of a node (0..5)."""
    total = np.abs(shapes).sum(axis=0)
    return sum(np.abs(shapes[k::6]).sum(axis=0) for k in dofs) / total


def timoshenko_ss(n, L, A, I, kappa):
    """Flexural frequency [rad/s] of mode n of a simply supported Timoshenko beam: the lower
    root of Timoshenko's frequency equation (S. P. Timoshenko, Phil. Mag. 41 (1921) 744;
    in the form of Han, Benaroya and Wei, J. Sound Vib. 225 (1999) 935, section 5) for
    v = V sin(kx), psi = Psi cos(kx), k = n pi / L:
    (rho A w^2 - kGA k^2)(rho I w^2 - EI k^2 - kGA) - (kGA k)^2 = 0."""
    k = n * math.pi / L
    kGA = kappa * G * A
    a = RHO * A * RHO * I
    b = -(RHO * A * (E * I * k**2 + kGA) + RHO * I * kGA * k**2)
    c = kGA * E * I * k**4
    w2 = 2 * c / (-b + math.sqrt(b * b - 4 * a * c))  # the small root without cancellation
    return math.sqrt(w2)


def euler_bernoulli_ss(n, L, A, I):
    return (n * math.pi / L) ** 2 * math.sqrt(E * I / (RHO * A))


def lateral_v(beam, n_modes, supports):
    """The lowest frequencies of the modes bending in the x-y plane (v, theta_z)."""
    r = beam.eigenvalues(n_modes, supports=supports)
    keep = fraction(r.mode_shapes, (1, 5)) > 0.9
    return np.sqrt(r.eigenvalues[keep])


@pytest.mark.parametrize("slenderness", [10.0, 1000.0])
def test_timoshenko_frequencies_of_a_simply_supported_beam(slenderness):
    # a rectangular beam bending in its deep direction; kappa by Cowper's formula
    L, h = 1.0, 1.0 / slenderness
    sec = rectangle(h, 0.5 * h)  # b (along y) = h: bending in v has the depth h
    kappa = 10 * (1 + NU) / (12 + 11 * NU)  # Cowper (1966), solid rectangle
    ref = np.array([timoshenko_ss(n, L, sec["A"], sec["Izz"], kappa) for n in (1, 2, 3)])
    eb = np.array([euler_bernoulli_ss(n, L, sec["A"], sec["Izz"]) for n in (1, 2, 3)])
    w = {}
    for n_el in (40, 80):
        beam = Beam3D(L, n_el, E=E, rho=RHO, nu=NU, **sec, theory="timoshenko", shear_coefficient="rectangle")
        w[n_el] = lateral_v(beam, 30, "pinned-pinned")[:3]
    assert beam.shear_coefficient == pytest.approx((kappa, kappa), rel=1e-15)
    if slenderness == 10.0:
        # shear and rotary inertia matter here: 1.6 %, 6 %, 12 % below Euler-Bernoulli
        np.testing.assert_array_less(w[80], np.array([0.99, 0.95, 0.9]) * eb)
        # The two-node element's shear strain is constant per element, so the frequencies
        # converge at order 2 (measured 2.00): 40 elements within 6.3e-6, 9.0e-5, 4.0e-4;
        # Richardson's extrapolation from 40 and 80 elements within 5e-7 of the closed form
        # (measured 6e-9, 8e-8, 3.2e-7: the next order's remainder)
        err40, err80 = w[40] / ref - 1, w[80] / ref - 1
        np.testing.assert_allclose(np.log2(err40 / err80), 2.0, atol=0.02)
        np.testing.assert_array_less(err40, [7e-6, 1e-4, 4.5e-4])
        np.testing.assert_allclose((4 * w[80] - w[40]) / 3, ref, rtol=5e-7)
    else:
        # shear locking check: at L/h = 1000 the Timoshenko element is the Euler-Bernoulli
        # one up to the physical difference (1.7e-6, 6.6e-6, 1.5e-5 here), not stiffer (a
        # locking element is off by orders of magnitude); both within the cubic
        # interpolation's error of their closed forms (2.6e-8, 4.3e-7, 2.2e-6 at 40 elements)
        np.testing.assert_allclose(w[40], ref, rtol=3e-6)
        eb_beam = Beam3D(L, 40, E=E, rho=RHO, nu=NU, **sec)
        w_eb = lateral_v(eb_beam, 30, "pinned-pinned")[:3]
        np.testing.assert_allclose(w[40] / w_eb, ref / eb, rtol=2e-7)


def test_one_timoshenko_element_has_the_textbook_stiffness():
    # J. S. Przemieniecki, Theory of Matrix Structural Analysis (McGraw-Hill 1968) eq. 5.116:
    # over (v1, th1, v2, th2) the bending block is EI / ((1 + phi) l^3) times
    # [[12, 6l, -12, 6l], [6l, (4 + phi) l^2, -6l, (2 - phi) l^2], ...], phi = 12 EI / (kGA l^2)
    l, sec, kappa = 0.3, rectangle(0.05, 0.02), 0.8
    beam = Beam3D(l, 1, E=E, rho=RHO, nu=NU, **sec, theory="timoshenko", shear_coefficient=kappa)
    K = beam.stiffness_matrix()
    for I, idx, sign in ((sec["Izz"], [1, 5, 7, 11], 1.0), (sec["Iyy"], [2, 4, 8, 10], -1.0)):
        phi = 12 * E * I / (kappa * G * sec["A"] * l**2)
        ref = E * I / ((1 + phi) * l**3) * np.array([
            [12, 6 * l, -12, 6 * l],
            [6 * l, (4 + phi) * l**2, -6 * l, (2 - phi) * l**2],
            [-12, -6 * l, 12, -6 * l],
            [6 * l, (2 - phi) * l**2, -6 * l, (4 + phi) * l**2]])
        S = np.diag([1.0, sign, 1.0, sign])  # theta_y = -w': the x-z plane's signs
        np.testing.assert_allclose(K[np.ix_(idx, idx)], S @ ref @ S, rtol=1e-12, atol=1e-9 * ref.max())


def test_torsion_of_a_shaft_is_unchanged_by_its_spin():
    # A rigid section spinning about its own axis feels no centrifugal moment on its twist:
    # the twist's linear part loses rho I_p Omega^2 (the lever's centrifugal softening),
    # the second-order part -theta^2 r / 2 gives it back exactly.  Seeds' beam: -20 % at
    # 0.6 of the first torsion frequency; with the section turning to second order: 0.
    L, sec = 1.0, circle(0.02)
    wt = math.pi / (2 * L) * math.sqrt(G * sec["J"] / (RHO * sec["J"]))  # GJ / (rho I_p), I_p = J
    for rotary, change in ((True, 0.0), (False, None)):
        beam = Beam3D(L, 16, E=E, rho=RHO, nu=NU, **sec, rotary_inertia=rotary)
        torsion = []
        for spin in (0.0, 0.6 * wt):
            r = beam.eigenvalues(30, omega=(spin, 0.0, 0.0), include_eps=False)
            keep = fraction(r.mode_shapes, (3,)) > 0.99
            torsion.append(r.eigenvalues[keep][:2])
        if rotary:
            np.testing.assert_allclose(torsion[1], torsion[0], rtol=1e-10)
            # and the first is the closed form's (16 linear elements: 1.3e-3 h^2-error)
            assert math.sqrt(torsion[0][0]) == pytest.approx(wt, rel=2e-3)
        else:  # the seeds' linear twist: omega_t^2 - Omega^2 for a round shaft (-20 % in omega)
            np.testing.assert_allclose(torsion[1], torsion[0] - (0.6 * wt) ** 2, rtol=1e-10)
            assert math.sqrt(torsion[1][0] / torsion[0][0]) < 0.81


def test_propeller_moment_of_a_flat_blade():
    # A flat blade (chord along y, in the plane of rotation) spinning about z at Omega: the
    # centrifugal field turns a twisted section back flat, the "propeller moment"
    # Omega^2 rho (I_zz - I_yy) theta per length (D. H. Hodges and E. H. Dowell, NASA TN
    # D-7818 (1974), the term (k_m2^2 - k_m1^2) Omega^2 of the torsion equation; R. L. Bielawa,
    # Rotary Wing Structural Dynamics and Aeroelasticity (AIAA 1992), section 9.2).  With the
    # torsional inertia rho I_p, I_p = I_zz + I_yy, every torsion mode has
    # d(omega_t^2)/d(Omega^2) = (I_zz - I_yy) / (I_zz + I_yy), 15/17 for I_zz / I_yy = 16.
    L, sec = 1.0, rectangle(0.04, 0.01)
    assert sec["Izz"] / sec["Iyy"] == pytest.approx(16.0)
    analytic = (sec["Izz"] - sec["Iyy"]) / (sec["Izz"] + sec["Iyy"])
    wt = math.pi / (2 * L) * math.sqrt(G * sec["J"] / (RHO * (sec["Izz"] + sec["Iyy"])))
    spin = 0.5 * wt
    for rotary, slope_ref in ((True, analytic), (False, -sec["Iyy"] / (sec["Izz"] + sec["Iyy"]))):
        beam = Beam3D(L, 20, E=E, rho=RHO, nu=NU, **sec, rotary_inertia=rotary)
        lam = []
        for w in (0.0, spin):
            r = beam.eigenvalues(16, omega=(0.0, 0.0, w), include_eps=False)
            keep = fraction(r.mode_shapes, (3,)) > 0.99
            lam.append(r.eigenvalues[keep][:2])
        slope = (lam[1] - lam[0]) / spin**2
        # the stiffening is proportional to the torsional mass, so the slope is exact in the
        # discrete model too (round-off of lambda ~ 1e7 over Omega^2 ~ 1e6)
        np.testing.assert_allclose(slope, slope_ref, rtol=1e-6)
    assert analytic == pytest.approx(15 / 17)


def rayleigh_whirl(n, L, A, I, spin):
    """Forward and backward whirl [rad/s] of mode n of a simply supported spinning Rayleigh
    shaft (rotary inertia, polar moment I_p = 2 I, no shear), in the inertial frame:
    (rho A + rho I k^2) w^2 -+ Omega rho I_p k^2 w - EI k^4 = 0, k = n pi / L (G. Genta,
    Dynamics of Rotating Systems, Springer 2005, section 4.8 (the Rayleigh beam with
    gyroscopic moments); M. Lalanne and G. Ferraris, Rotordynamics Prediction in
    Engineering, Wiley 1998, chapter 2)."""
    k = n * math.pi / L
    m, g = RHO * A + RHO * I * k**2, spin * RHO * 2 * I * k**2
    root = math.sqrt(g * g + 4 * m * E * I * k**4)
    return (g + root) / (2 * m), (-g + root) / (2 * m)


def test_forward_and_backward_whirl_of_a_spinning_shaft():
    # kanefem's frame spins with the shaft: a whirl at w in the inertial frame appears at
    # w - Omega (forward) and w + Omega (backward) in it.  A stubby shaft (L / R = 10) at a
    # spin of 0.3 of its first bending frequency
    L, R = 1.0, 0.1
    sec = circle(R)
    w0 = euler_bernoulli_ss(1, L, sec["A"], sec["Izz"])
    spin = 0.3 * w0
    beam = Beam3D(L, 40, E=E, rho=RHO, nu=NU, **sec, rotary_inertia=True)
    s = beam.gyroscopic_eigenvalues([(spin, 0.0, 0.0)], [(0.0, 0.0, 0.0)], 16,
                                    supports="pinned-pinned").s[0]
    got = np.abs(s.imag)
    for n in (1, 2):
        wf, wb = rayleigh_whirl(n, L, sec["A"], sec["Izz"], spin)
        for target in (abs(wf - spin), wb + spin):
            # 40 Hermite elements with consistent rotary inertia: below 1e-6 for mode 2
            assert np.min(np.abs(got - target)) / target < 1e-6, (n, target)
        if n == 1:
            assert wf - wb > 0.02 * spin  # the gyroscopic split (zero without rotary inertia)
    # without rotary inertia (the seeds' beam) both whirls stay at omega_0 for every spin
    plain = Beam3D(L, 40, E=E, rho=RHO, nu=NU, **sec)
    s = plain.gyroscopic_eigenvalues([(spin, 0.0, 0.0)], [(0.0, 0.0, 0.0)], 4, supports="pinned-pinned").s[0]
    w_eb = plain.eigenvalues(1, supports="pinned-pinned").angular_frequencies[0]
    np.testing.assert_allclose(np.sort(np.abs(s.imag))[:2], [w_eb - spin, w_eb + spin], rtol=1e-8)


def test_invariants_route_equals_direct_quadrature_with_second_order_sections():
    # Kane's F* from the invariants (M, C, K_eps + K_om with R_ij, q terms) against the
    # core's direct quadrature at a state (the Hessian of theta x (theta x r) times d met by
    # the rigid motion's acceleration at each section point), in a random spatial motion
    rng = np.random.default_rng(7)
    sec = rectangle(0.03, 0.012)
    nodes = np.array([[0, 0, 0], [0.4, 0.1, -0.05], [0.7, 0.3, 0.1]])
    beam = Beam3D.from_mesh(nodes, [[0, 1], [1, 2]], E=E, rho=RHO, nu=NU, **sec, ref=(0.2, 0.3, 1.0),
                            theory="timoshenko", shear_coefficient=(0.8, 0.7))
    d, dt, dtt = (rng.standard_normal(beam.ndof) * 1e-3 for _ in range(3))
    w, e, a = rng.standard_normal(3) * 5, rng.standard_normal(3) * 30, rng.standard_normal(3)
    f1 = beam.inertia_forces(d, dt, dtt, omega=w, eps=e, a_O=a)
    f2 = beam.inertia_forces(d, dt, dtt, w, e, a, route="quadrature")
    np.testing.assert_allclose(f1, f2, rtol=0, atol=1e-12 * np.abs(f1).max())
    inv = beam.inertia_invariants()
    # R_ij are symmetric matrices, and K_om = sum WW_ij (S_ij + R_ij)
    R = inv["R"]
    assert np.array_equal(R, np.swapaxes(R, 2, 3)) or np.allclose(R, np.swapaxes(R, 2, 3), rtol=0,
                                                                  atol=1e-15 * np.abs(R).max())
    W = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
    WW = W @ W
    K_om = np.einsum("ij,ijab->ab", WW, inv["S"] + R)
    np.testing.assert_allclose(beam.motion_terms(omega=w).K_om, K_om, rtol=0, atol=1e-13 * np.abs(K_om).max())


def test_rotary_inertia_and_shear_leave_the_euler_bernoulli_default_alone():
    sec = rectangle(0.03, 0.012)
    plain = Beam3D(1.0, 6, E=E, rho=RHO, nu=NU, **sec)
    assert plain.model == {"element": "beam3d", "theory": "euler-bernoulli", "rotary_inertia": False}
    assert "R" not in plain.inertia_invariants()
    timo = Beam3D(1.0, 6, E=E, rho=RHO, nu=NU, **sec, theory="timoshenko", shear_coefficient="rectangle")
    assert timo.rotary_inertia and timo.model["theory"] == "timoshenko"
    # the stated model travels with the results and their dictionaries
    r = timo.eigenvalues(2)
    assert r.model == timo.model
    flat = r.to_dict()
    assert str(flat["model.theory"]) == "timoshenko" and bool(flat["model.rotary_inertia"])
    back = kanefem.EigenResult.from_dict(flat)
    assert back.model["theory"] == "timoshenko"
    g = timo.gyroscopic_eigenvalues([(0.0, 0.0, 10.0)], [(0.0, 0.0, 0.0)], 2)
    assert g.model == timo.model
    # rotary inertia adds mass to the bending motions only (v, w and the rotations
    # theta_z = v', theta_y = -w'): rho int (Izz theta_z^2 + Iyy theta_y^2) dx
    rot = Beam3D(1.0, 6, E=E, rho=RHO, nu=NU, **sec, rotary_inertia=True)
    dM = rot.mass_matrix() - plain.mass_matrix()
    moved = np.flatnonzero(np.abs(dM).sum(axis=0) > 0) % 6
    assert set(moved) == {1, 2, 4, 5}
    x = np.linspace(0, 1, 7)
    slope = np.zeros(rot.ndof)  # v = x^2 / 2: theta_z = x, its rotary energy rho Izz / 3
    slope[1::6], slope[5::6] = x**2 / 2, x
    assert slope @ dM @ slope == pytest.approx(RHO * sec["Izz"] / 3, rel=1e-12)
    # a tube's coefficient from A and I_p (Cowper's formula with m = r_i / r_o = 0.5)
    ro, ri = 0.05, 0.025
    tube = dict(A=math.pi * (ro**2 - ri**2), Izz=math.pi * (ro**4 - ri**4) / 4,
                Iyy=math.pi * (ro**4 - ri**4) / 4, J=math.pi * (ro**4 - ri**4) / 2)
    k = Beam3D(1.0, 2, E=E, rho=RHO, nu=NU, **tube, theory="timoshenko", shear_coefficient="tube").shear_coefficient
    m2 = 0.25
    assert k[0] == pytest.approx(6 * (1 + NU) * (1 + m2)**2 / ((7 + 6 * NU) * (1 + m2)**2 + (20 + 12 * NU) * m2),
                                 rel=1e-12)
    assert Beam3D(1.0, 2, E=E, rho=RHO, nu=NU, **circle(0.01), theory="timoshenko",
                  shear_coefficient="circle").shear_coefficient[0] == pytest.approx(6 * 1.3 / (7 + 1.8))


def test_bad_model_arguments_are_named():
    sec = rectangle(0.03, 0.012)
    with pytest.raises(TypeError, match="shear_coefficient"):
        Beam3D(1.0, 4, E=E, rho=RHO, **sec, theory="timoshenko")
    with pytest.raises(TypeError, match="theory='timoshenko'"):
        Beam3D(1.0, 4, E=E, rho=RHO, **sec, shear_coefficient=0.8)
    with pytest.raises(ValueError, match="theory"):
        Beam3D(1.0, 4, E=E, rho=RHO, **sec, theory="reissner")
    for bad in (-0.5, 0.0, float("nan"), (0.8, 0.7, 0.6), "hexagon"):
        with pytest.raises(ValueError, match="shear_coefficient"):
            Beam3D(1.0, 4, E=E, rho=RHO, **sec, theory="timoshenko", shear_coefficient=bad)
    with pytest.raises(TypeError, match="rotary_inertia"):
        Beam3D(1.0, 4, E=E, rho=RHO, **sec, rotary_inertia="yes")
    with pytest.raises(ValueError, match="tube"):  # a solid circle has no inner radius
        Beam3D(1.0, 4, E=E, rho=RHO, **circle(0.01), theory="timoshenko", shear_coefficient="tube")


def test_simulated_twist_of_a_spinning_shaft_is_the_twist_at_rest():
    # The integrators form K_om with R_ij too (kf_body_ode.c): a shaft spinning about its
    # own axis, released with a twist, twists exactly as at rest (the twist decouples from
    # bending and its stiffness does not change with the spin); the seeds' beam would
    # oscillate at omega_t^2 - Omega^2 instead
    L, sec = 1.0, circle(0.02)
    beam = Beam3D(L, 8, E=E, rho=RHO, nu=NU, **sec, rotary_inertia=True)
    wt = math.pi / (2 * L) * math.sqrt(G / RHO)
    d0 = np.zeros(beam.ndof)
    d0[3::6] = 1e-3 * np.linspace(0, 1, 9)  # a linear twist
    T = 2 * math.pi / wt
    kw = dict(dt=T / 400, d0=d0, progress=False, t_eval=np.linspace(0, T, 41))
    rest = kanefem.simulate(beam, kanefem.Motion.constant_spin([0.0, 0.0, 0.0]), T, **kw).d
    spin = kanefem.simulate(beam, kanefem.Motion.constant_spin([0.6 * wt, 0.0, 0.0]), T, **kw).d
    # same Newmark steps on the same torsion equations: equal to round-off (the spin's
    # centrifugal load on the other DOFs is zero along the axis)
    np.testing.assert_allclose(spin[:, 3::6], rest[:, 3::6], rtol=0, atol=1e-12)
    assert np.abs(rest[:, 3::6]).max() > 0.5e-3


def coupled_bending_torsion(L, EI, GJ, m, I_alpha, e, w_max, n=4000):
    """Natural frequencies [rad/s] of a clamped-free beam whose mass axis lies e off its
    elastic (shear-centre) axis: EI w'''' + m (w'' - e theta)'' = 0 in time,
    I_alpha theta'' - m e w'' - GJ theta_xx = 0 (J. R. Banerjee, "Coupled
    bending-torsional dynamic stiffness matrix for beam elements", Int. J. Numer. Meth.
    Eng. 28 (1989) 1283-1298, eqs. 1-2).  For w, theta ~ exp(lambda x): the cubic in
    lambda^2 below, six exponentials, the six end conditions w = w' = theta = 0 at the
    root and w'' = w''' = theta' = 0 at the tip; the frequencies are the zeros of the
    6 x 6 determinant (columns scaled, growing exponentials taken from the tip)."""
    def det(w):
        mu = np.roots([EI * GJ, EI * I_alpha * w**2, -m * w**2 * GJ,
                       -m * I_alpha * w**4 + (m * e * w**2) ** 2]).astype(complex)
        lam = np.concatenate([np.sqrt(mu), -np.sqrt(mu)])
        B = -(EI * lam**4 - m * w**2) / (m * e * w**2)  # theta per unit w of each exponential
        f0 = np.exp(np.where(lam.real > 0, -lam * L, 0))
        fL = np.exp(np.where(lam.real > 0, 0, lam * L))
        Mx = np.array([f0, lam * f0, B * f0, lam**2 * fL, lam**3 * fL, B * lam * fL])
        return np.linalg.det(Mx / np.abs(Mx).max(axis=0))
    return zeros_of(det, w_max, n)


def zeros_of(det, w_max, n):
    """The frequencies in (0, w_max] where |det| has a local minimum (a zero of the
    frequency determinant), each refined by Brent's method."""
    from scipy.optimize import minimize_scalar
    ws = np.linspace(w_max / n, w_max, n)
    a = np.abs([det(w) for w in ws])
    roots = []
    for i in range(1, n - 1):
        if a[i] < a[i - 1] and a[i] < a[i + 1]:
            r = minimize_scalar(lambda w: abs(det(w)), bracket=(ws[i - 1], ws[i], ws[i + 1]), tol=1e-12)
            roots.append(r.x)
    return np.array(roots)


def timoshenko_cantilever(L, A, I, kappa, w_max, n=3000):
    """Flexural frequencies [rad/s] of a clamped-free Timoshenko beam: Timoshenko's equations
    kGA (v'' - psi') = rho A v_tt, EI psi'' + kGA (v' - psi) = rho I psi_tt (Timoshenko 1921;
    Han, Benaroya and Wei 1999, section 5) with v, psi ~ exp(lambda x): a quadratic in
    lambda^2, four exponentials, the end conditions v = psi = 0 at the root and
    EI psi' = kGA (v' - psi) = 0 at the tip; the zeros of the 4 x 4 determinant."""
    kGA = kappa * G * A

    def det(w):
        # (kGA l^2 + rho A w^2)(EI l^2 - kGA + rho I w^2) + (kGA l)^2 = 0, a quadratic in l^2
        mu = np.roots([kGA * E * I, kGA * (RHO * I * w**2 - kGA) + RHO * A * w**2 * E * I + kGA**2,
                       RHO * A * w**2 * (RHO * I * w**2 - kGA)]).astype(complex)
        lam = np.concatenate([np.sqrt(mu), -np.sqrt(mu)])
        P = (kGA * lam**2 + RHO * A * w**2) / (kGA * lam)  # psi per unit v
        f0 = np.exp(np.where(lam.real > 0, -lam * L, 0))
        fL = np.exp(np.where(lam.real > 0, 0, lam * L))
        Mx = np.array([f0, P * f0, P * lam * fL, (lam - P) * fL])
        return np.linalg.det(Mx / np.abs(Mx).max(axis=0))
    return zeros_of(det, w_max, n)


def test_shear_centre_offset_couples_bending_and_torsion_as_banerjee():
    # Banerjee's (1989) Goland wing: EI = 9.75e6 N m^2, GJ = 9.88e5 N m^2, m = 35.75 kg/m,
    # I_alpha = 8.64 kg m about the elastic axis, mass axis 0.18 m behind it, L = 6 m.
    # Its published frequencies (Table 1, to the digits given): 49.6, 97.0, 248.9, 355.6,
    # 451.0, 610.3 rad/s; the exact ones from the coded frequency equation above
    EI, GJ, m, I_alpha, e, L = 9.75e6, 9.88e5, 35.75, 8.64, 0.18, 6.0
    exact = coupled_bending_torsion(L, EI, GJ, m, I_alpha, e, 700.0)
    assert exact.size == 6
    np.testing.assert_allclose(exact, [49.6, 97.0, 248.9, 355.6, 451.0, 610.3], rtol=2e-3)
    # the same beam as a Beam3D on its shear-centre axis: rho = 1, A = m, the flap
    # stiffness E Iyy, I_p about the centroid = I_alpha - m e^2 split evenly (a stiffer
    # chordwise bending would only raise lambda_max and the round-off), the centroid at -e_y
    Iyy = (I_alpha - m * e**2) / 2
    E_ = EI / Iyy
    J = GJ / (E_ / (2 * (1 + NU)))
    sec = dict(A=m, Iyy=Iyy, Izz=Iyy, J=J)
    w = {}
    for n_el in (40, 80):
        beam = Beam3D(L, n_el, E=E_, rho=1.0, nu=NU, **sec, shear_centre=(e, 0.0))
        r = beam.eigenvalues(20)
        # the flap-torsion modes (no chordwise bending, no stretching)
        keep = (fraction(r.mode_shapes, (1, 5)) < 0.01) & (fraction(r.mode_shapes, (0,)) < 0.01)
        w[n_el] = r.angular_frequencies[keep][:6]
    assert beam.model["shear_centre"] == (e, 0.0)
    # linear twist: order 2 (40 elements within 4.8e-6 .. 3.0e-3, 80 within 8e-7 .. 7.5e-4);
    # Richardson from 40 and 80 within 2e-6 (measured 5.5e-7 at most: the round-off of
    # lambda_1 against lambda_max ~ 1e13 of 480 DOFs)
    np.testing.assert_array_less(np.abs(w[40] / exact - 1), [1e-5, 1e-4, 6e-4, 4e-4, 2e-3, 4e-3])
    np.testing.assert_allclose((4 * w[80] - w[40]) / 3, exact, rtol=2e-6)
    # without the offset the flap and torsion frequencies are the uncoupled ones
    plain = Beam3D(L, 40, E=E_, rho=1.0, nu=NU, **sec)
    wt1 = math.pi / (2 * L) * math.sqrt(GJ / (I_alpha - m * e**2))
    assert np.any(np.isclose(plain.eigenvalues(20).angular_frequencies, wt1, rtol=2e-3))
    with pytest.raises(NotSupportedError, match="shear_centre"):
        Beam3D(L, 4, E=E_, rho=1.0, nu=NU, **sec, shear_centre=(e, 0.0), rotary_inertia=True)
    with pytest.raises(ValueError, match="shear_centre"):
        Beam3D(L, 4, E=E_, rho=1.0, nu=NU, **sec, shear_centre=(e, float("inf")))


def test_planar_beam_is_the_plane_case():
    # PlanarBeam(theory=..., rotary_inertia=...) is the element beam2t: Timoshenko's
    # frequencies at L/h = 10 as Beam3D's (the same closed form), its in-plane eigenvalues
    # those of a Beam3D in planar motion, spinning or not, gyroscopic too
    L, h = 1.0, 0.1
    sec = rectangle(h, 0.5 * h)
    kappa = 10 * (1 + NU) / (12 + 11 * NU)
    ref = np.array([timoshenko_ss(n, L, sec["A"], sec["Izz"], kappa) for n in (1, 2, 3)])
    w = {}
    for n_el in (40, 80):
        beam = kanefem.PlanarBeam(L, n_el, E=E, A=sec["A"], Izz=sec["Izz"], rho=RHO, nu=NU,
                                  theory="timoshenko", shear_coefficient="rectangle")
        w[n_el] = beam.eigenvalues(3).angular_frequencies
    np.testing.assert_allclose((4 * w[80] - w[40]) / 3, ref, rtol=5e-7)
    assert beam.model == {"element": "beam2t", "theory": "timoshenko", "rotary_inertia": True,
                          "shear_coefficient": (kappa, kappa)}
    planar = kanefem.PlanarBeam(L, 12, E=E, A=sec["A"], Izz=sec["Izz"], rho=RHO, nu=NU,
                                theory="timoshenko", shear_coefficient="rectangle")
    spatial = Beam3D(L, 12, E=E, rho=RHO, nu=NU, **sec, theory="timoshenko", shear_coefficient="rectangle")
    for spin in (0.0, 300.0):
        lp = planar.eigenvalues(4, omega=spin, supports="clamped-free").eigenvalues
        r3 = spatial.eigenvalues(40, omega=(0, 0, spin), supports="clamped-free", include_eps=False)
        l3 = r3.eigenvalues[fraction(r3.mode_shapes, (0, 1, 5)) > 0.99][:4]
        np.testing.assert_allclose(lp, l3, rtol=1e-9)  # two dense solvers' round-off
        sp = planar.gyroscopic_eigenvalues([spin], [0.0], 3, supports="clamped-free").s[0]
        s3 = spatial.gyroscopic_eigenvalues([(0, 0, spin)], [(0, 0, 0)], 12, supports="clamped-free").s[0]
        for s in sp:
            assert np.min(np.abs(s3.imag - s.imag)) < 1e-9 * abs(s)
    # a rotation about the spin axis feels no centrifugal term: K_om = -omega^2 times the
    # mass without rotary inertia (the section's -omega^2 rho I theta^2 and its second-order
    # +omega^2 rho I theta^2 cancel), not -omega^2 M as for the seeds' beam
    plain = kanefem.PlanarBeam(L, 12, E=E, A=sec["A"], Izz=sec["Izz"], rho=RHO, nu=NU, theory="timoshenko",
                               shear_coefficient="rectangle", rotary_inertia=False)
    M0 = plain.mass_matrix()
    assert not np.allclose(planar.mass_matrix(), M0)
    K_om = planar.motion_terms(omega=7.0).K_om
    np.testing.assert_allclose(K_om, -49.0 * M0, rtol=0, atol=1e-12 * np.abs(49.0 * M0).max())
    # Kane's inertia forces: invariants route = direct quadrature
    rng = np.random.default_rng(3)
    d, dt, dtt = (rng.standard_normal(planar.ndof) * 1e-3 for _ in range(3))
    f1 = planar.inertia_forces(d, dt, dtt, omega=3.0, eps=20.0, a_O=(1.0, -9.81))
    f2 = planar.inertia_forces(d, dt, dtt, 3.0, 20.0, (1.0, -9.81), route="quadrature")
    np.testing.assert_allclose(f1, f2, rtol=0, atol=1e-13 * np.abs(f1).max())
    # the seeds' planar beam is unchanged: element beam2, no section model
    seed = kanefem.PlanarBeam(L, 4, E=E, A=sec["A"], I=sec["Izz"], rho=RHO)
    assert seed.model == {"element": "beam2", "theory": "euler-bernoulli", "rotary_inertia": False}
    assert not hasattr(seed, "nu")
    with pytest.raises(TypeError, match="shear_coefficient"):
        kanefem.PlanarBeam(L, 4, E=E, A=sec["A"], I=sec["Izz"], rho=RHO, theory="timoshenko")


def test_a_mechanism_link_refuses_rotary_inertia():
    from kanefem.mechanism import ElasticLink
    beam = kanefem.PlanarBeam(0.5, 4, E=E, A=1e-4, I=1e-9, rho=RHO, rotary_inertia=True)
    with pytest.raises(NotSupportedError, match="rotary_inertia"):
        ElasticLink("lever", beam)


def test_eigenvalues_with_k_eps_of_second_order_sections_equal_scipy():
    # K_eps = sum E_ij (S_ij + R_ij) has a symmetric second-order part: the eigen solvers
    # (continuation against the symmetric part, and the gyroscopic first-order form) against
    # SciPy's dense eig of the matrices motion_terms returns, in a spatial motion
    import scipy.linalg as sla
    sec = rectangle(0.03, 0.012)
    beam = Beam3D(0.8, 8, E=E, rho=RHO, nu=NU, **sec, rotary_inertia=True, ref=(0, 0.6, 0.8))
    w, e = np.array([3.0, -20.0, 40.0]), np.array([900.0, 300.0, -1500.0])
    t = beam.motion_terms(omega=w, eps=e)
    Keps_sym = 0.5 * (t.K_eps + t.K_eps.T)
    assert np.abs(Keps_sym).max() > 1e-6 * np.abs(t.K_eps).max()  # R's part is there
    free = ~beam.support_mask("clamped-free")
    ix = np.ix_(free, free)
    M, K = beam.mass_matrix()[ix], (beam.stiffness_matrix() + t.K_eps + t.K_om)[ix]
    lam = np.sort_complex(sla.eig(K, M, right=False))
    r = beam.eigenvalues(6, omega=w, eps=e)
    assert r.solver == "general"
    np.testing.assert_allclose(r.eigenvalues, lam.real[:6], rtol=1e-9)
    # gyroscopic: s^2 M + s C + K_eff
    C = t.C[ix]
    n = M.shape[0]
    Z = np.block([[np.zeros((n, n)), np.eye(n)], [-np.linalg.solve(M, K), -np.linalg.solve(M, C)]])
    s_ref = np.linalg.eigvals(Z)
    s_ref = s_ref[s_ref.imag >= 0]
    s_ref = s_ref[np.argsort(np.abs(s_ref))][:6]
    s = beam.gyroscopic_eigenvalues([w], [e], 6).s[0]
    np.testing.assert_allclose(np.sort(np.abs(s)), np.sort(np.abs(s_ref)), rtol=1e-8)


def test_timoshenko_cantilever_against_its_frequency_equation():
    # a stubby clamped-free beam (L/h = 5) bending in v: Timoshenko's frequency equation
    # solved here (above; 2043.8, 11027.2, 26282.4 rad/s, Euler-Bernoulli's first 2106.6)
    # against 40 and 80 elements: 3.1e-6, 8.6e-5, 4.7e-4 at 40, order 2.00, Richardson
    # within 1e-6
    L, h = 0.5, 0.1
    sec = rectangle(h, 0.5 * h)
    kappa = 10 * (1 + NU) / (12 + 11 * NU)
    w1 = 1.8751**2 * math.sqrt(E * sec["Izz"] / (RHO * sec["A"] * L**4))  # Euler-Bernoulli's first
    exact = timoshenko_cantilever(L, sec["A"], sec["Izz"], kappa, 16 * w1, n=4000)[:3]
    assert exact.size == 3 and exact[0] < 0.99 * w1  # shear and rotary inertia soften it
    w = {}
    for n_el in (40, 80):
        beam = kanefem.PlanarBeam(L, n_el, E=E, A=sec["A"], Izz=sec["Izz"], rho=RHO, nu=NU,
                                  theory="timoshenko", shear_coefficient=kappa)
        r = beam.eigenvalues(6, supports="clamped-free")
        keep = fraction_planar(r.mode_shapes) > 0.5  # bending, not the axial modes
        w[n_el] = r.angular_frequencies[keep][:3]
    np.testing.assert_array_less(np.abs(w[40] / exact - 1), 2e-3)
    np.testing.assert_allclose((4 * w[80] - w[40]) / 3, exact, rtol=1e-6)


def fraction_planar(shapes):
    """Share of each planar mode's |phi| on (v, theta)."""
    return (np.abs(shapes[1::3]).sum(axis=0) + np.abs(shapes[2::3]).sum(axis=0)) / np.abs(shapes).sum(axis=0)
