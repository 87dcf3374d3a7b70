"""Geometric (stress) stiffness: the element matrix, the quasi-static axial force,
Southwell stiffening of a rotating cantilever, Euler buckling."""

import math

import numpy as np
import pytest

import kanefem
from kanefem import _core

E, A, I, RHO = 2.1e11, 1e-4, 1e-8, 7800.0


def test_constant_axial_force_gives_the_textbook_matrix():
    l, N0 = 0.45, 1234.5
    beam = kanefem.PlanarBeam(l, 1, E=E, A=A, I=I, rho=RHO)
    KG = beam.geometric_stiffness((N0, 0.0, 0.0))
    b = [1, 2, 4, 5]  # v1, t1, v2, t2
    want = N0 / (30 * l) * np.array(
        [[36, 3 * l, -36, 3 * l], [3 * l, 4 * l * l, -3 * l, -l * l],
         [-36, -3 * l, 36, -3 * l], [3 * l, -l * l, -3 * l, 4 * l * l]]
    )
    # 4-point Gauss integrates x^k G^T G (degree <= 6) exactly: round-off agreement
    np.testing.assert_allclose(KG[np.ix_(b, b)], want, rtol=0, atol=1e-13 * np.abs(want).max())
    assert np.all(KG[[0, 3], :] == 0) and np.all(KG[:, [0, 3]] == 0)  # no axial DOF involved


def test_geometric_stiffness_is_linear_in_the_coefficients():
    beam = kanefem.PlanarBeam(1.3, 6, E=E, A=A, I=I, rho=RHO, origin=0.2)
    K1, K2 = beam.geometric_stiffness((1.0, 2.0, 3.0)), beam.geometric_stiffness((-4.0, 0.5, 7.0))
    K12 = beam.geometric_stiffness((-3.0, 2.5, 10.0))
    np.testing.assert_allclose(K12, K1 + K2, rtol=0, atol=1e-13 * np.abs(K12).max())
    np.testing.assert_allclose(K1, K1.T, rtol=0, atol=1e-15 * np.abs(K1).max())


def test_bar_has_no_geometric_stiffness():
    bar = kanefem.AxialBar(1.0, 4, E=E, A=A, rho=RHO)
    assert np.all(bar.geometric_stiffness((1e6, 1e6, 1e6)) == 0)


@pytest.mark.parametrize("supports", ["fixed-free", "free-fixed", "fixed-fixed"])
def test_axial_force_equals_the_finite_element_static_solution(supports):
    """With linear elements and consistent loads the FE nodal displacements of a uniform bar
    are exact, so EA (u2 - u1)/l equals the element average of the exact N(x): an
    independent route to the same polynomial."""
    L, n, origin = 2.0, 12, 0.3
    omega, a_x = 7.0, -3.5
    f_first, f_last = 150.0, -420.0
    bar = kanefem.AxialBar(L, n, E=E, A=A, rho=RHO, origin=origin)
    c = bar.axial_force(omega=omega, a_O=(a_x, 0.0), supports=supports, end_forces=(f_first, f_last))
    t = bar.motion_terms(omega, 0.0, (a_x, 0.0))
    load = -t.q_a - t.q_om
    load[0] += f_first
    load[-1] += f_last
    K = bar.stiffness_matrix()
    fixed = bar.support_mask(supports)
    free = ~fixed
    u = np.zeros(n + 1)
    u[free] = np.linalg.solve(K[np.ix_(free, free)], load[free])
    x = bar.nodes[:, 0]
    N_fe = E * A * np.diff(u) / np.diff(x)
    P = np.polynomial.Polynomial(c).integ()
    N_avg = (P(x[1:]) - P(x[:-1])) / np.diff(x)
    np.testing.assert_allclose(N_fe, N_avg, rtol=1e-9, atol=1e-9 * np.abs(N_avg).max())


def test_spinning_bar_tension():
    """Clamped at the axis, free at L: N(x) = rho A Omega^2 (L^2 - x^2) / 2."""
    beam = kanefem.PlanarBeam(2.0, 5, E=E, A=A, I=I, rho=RHO)
    c = beam.axial_force(omega=10.0, supports="clamped-free")
    m = RHO * A
    np.testing.assert_allclose(c, [m * 100 * 4 / 2, 0.0, -m * 100 / 2], rtol=1e-14, atol=1e-12)


def test_southwell_coefficients_of_a_rotating_cantilever():
    """In-plane bending of a cantilever rotating about its root: omega_k^2 = omega_k0^2 +
    (alpha_k - 1) Omega^2, with Southwell's alpha_1 = 1.1933, alpha_2 = 6.4782 (uniform
    beam, zero hub radius; Wright et al. 1982) and the -1 from centrifugal softening."""
    beam = kanefem.PlanarBeam(1.0, 40, E=E, A=A, I=I, rho=RHO)
    lam0 = beam.eigenvalues(2, supports="clamped-free", geometric_stiffness=True).eigenvalues
    Om = 10.0  # small against omega_1 = 184 rad/s, large enough for the difference to be exact
    lam = beam.eigenvalues(2, omega=Om, supports="clamped-free", geometric_stiffness=True).eigenvalues
    alpha = (lam - lam0) / Om**2 + 1
    # published to 4-5 digits; 40 elements and the O(Omega^4) term are well inside 2e-3
    assert alpha[0] == pytest.approx(1.1933, abs=2e-3)
    assert alpha[1] == pytest.approx(6.4782, abs=3e-3)
    # without K_G the seeds' linear model only softens
    soft = beam.eigenvalues(2, omega=Om, supports="clamped-free").eigenvalues
    np.testing.assert_allclose(soft, lam0 - Om**2, rtol=1e-12)


@pytest.mark.parametrize("ratio", [0.25, 0.5, 0.9])
def test_euler_buckling(ratio):
    """Pinned-roller beam under end compression P: lambda_1 = lambda_1(0) (1 - P/P_cr),
    P_cr = pi^2 EI / L^2 (the first mode is the buckling mode, sin(pi x/L))."""
    L = 1.0
    beam = kanefem.PlanarBeam(L, 30, E=E, A=A, I=I, rho=RHO)
    P = ratio * math.pi**2 * E * I / L**2
    sup = {0: "pinned", -1: "roller"}
    lam0 = beam.eigenvalues(1, supports=sup).eigenvalues[0]
    lam = beam.eigenvalues(1, supports=sup, geometric_stiffness=True, end_forces=(0.0, -P)).eigenvalues[0]
    # the FE errors of lambda and of the discrete P_cr are ~1e-7 at 30 elements, and
    # enter lambda/lambda_0 as ratio * 1e-7: an absolute 1e-6 bounds them
    assert lam / lam0 == pytest.approx(1 - ratio, abs=1e-6)


def test_geometric_eigenvalues_match_scipy_with_and_without_eps():
    sl = pytest.importorskip("scipy.linalg")
    beam = kanefem.PlanarBeam(0.6, 10, E=E, A=A, I=I, rho=RHO)
    omega, eps, a = 15.0, 400.0, (3.0, -9.81)
    c = beam.axial_force(omega, eps, a, supports="clamped-free", end_forces=(0.0, 50.0))
    M, K = beam.mass_matrix(), beam.stiffness_matrix()
    t = beam.motion_terms(omega, eps)
    free = ~beam.support_mask("clamped-free")
    for include_eps in (False, True):
        Keff = K + t.K_om + beam.geometric_stiffness(c) + (t.K_eps if include_eps else 0)
        w = sl.eig(Keff[np.ix_(free, free)], M[np.ix_(free, free)], right=False)
        w = np.sort(w.real)[:3]
        r = beam.eigenvalues(3, omega, eps, supports="clamped-free", include_eps=include_eps,
                             geometric_stiffness=True, a_O=a, end_forces=(0.0, 50.0))
        assert r.solver == ("general" if include_eps else "symmetric")
        np.testing.assert_allclose(r.eigenvalues, w, rtol=1e-9)
        # the same through the time-grid call, axial force given explicitly
        rs = beam.eigenvalues_vs_time([omega, omega], [eps, eps], 3, supports="clamped-free",
                                      include_eps=include_eps, geometric_stiffness=True,
                                      axial_force=np.vstack([c, c]))
        np.testing.assert_allclose(rs.eigenvalues, np.vstack([w, w]), rtol=1e-9)


def test_geometric_errors():
    beam = kanefem.PlanarBeam(1.0, 3, E=E, A=A, I=I, rho=RHO)
    with pytest.raises(ValueError, match="axial_force"):
        beam.geometric_stiffness((1.0, 2.0))
    with pytest.raises(ValueError, match="axial_force"):
        beam.geometric_stiffness((1.0, math.nan, 0.0))
    with pytest.raises(ValueError, match="axial_force"):
        beam.eigenvalues_vs_time([1.0, 2.0], [0.0, 0.0], 2, geometric_stiffness=True, axial_force=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="end_forces"):
        beam.eigenvalues(2, geometric_stiffness=True, end_forces=(math.inf, 0.0))
    with pytest.raises(ValueError, match="a_O"):
        beam.eigenvalues_vs_time([1.0, 2.0], [0.0, 0.0], 2, geometric_stiffness=True, a_O=np.zeros((2, 3)))
    # a body that is not a straight line on x has no N(x)
    crooked = _core.body_create(kind=1, coords=np.array([[0.0, 0.0], [1.0, 0.5], [2.0, 0.0]]),
                                conn=[[0, 1], [1, 2]], section={"E": E, "rho": RHO, "A": A, "Izz": I})
    with pytest.raises(ValueError, match="straight"):
        _core.geometric_matrix(body=crooked, coefficients=(1.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="straight"):
        _core.eig_create(body=crooked, fixed=np.zeros(9, bool), geometric=True)
    ctx = _core.eig_create(body=crooked, fixed=np.zeros(9, bool))
    with pytest.raises(ValueError, match="geometric"):
        _core.eig_solve(eig=ctx, frames=kanefem.frames.empty(1), n_modes=2, include_eps=True,
                        vectors=False, tracked=False, axial_force=np.zeros((1, 3)))
