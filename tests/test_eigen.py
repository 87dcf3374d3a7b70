"""Frozen-time eigenvalues: analytic frequencies and their convergence, the exact
rotating-bar identity, the general (K_eps) path against SciPy, mode shapes."""

import math

import numpy as np
import pytest

import kanefem

E, RHO = 2.1e11, 7850.0
A, I = 4e-4, 3.3e-9
L = 1.2

# roots of cos(bL) cosh(bL) = -1 (clamped-free)
BETA_L_CF = (1.87510406871196, 4.69409113297418, 7.85475743823761)


def bending_omega(beta_l):
    return beta_l**2 * math.sqrt(E * I / (RHO * A * L**4))


@pytest.mark.parametrize("k", [0, 1, 2])
def test_clamped_free_beam_frequencies(k):
    beam = kanefem.PlanarBeam(L, 40, E=E, A=A, I=I, rho=RHO)
    r = beam.eigenvalues(4, supports="clamped-free")
    exact = bending_omega(BETA_L_CF[k])
    # cubic Hermite elements: relative error ~ c (k h / L)^4, measured 3.5e-9, 1.3e-7,
    # 1.0e-6 for modes 1-3 at 40 elements; 3e-6 bounds all three
    assert r.angular_frequencies[k] == pytest.approx(exact, rel=3e-6)
    assert r.frequencies_hz[k] == pytest.approx(exact / (2 * math.pi), rel=3e-6)
    assert r.solver == "symmetric"


@pytest.mark.parametrize("k", [1, 2, 3])
def test_pinned_pinned_beam_frequencies(k):
    beam = kanefem.PlanarBeam(L, 40, E=E, A=A, I=I, rho=RHO)
    r = beam.eigenvalues(3, supports="pinned-pinned")
    exact = bending_omega(k * math.pi)
    # O(h^4): measured 2.6e-8, 4.2e-7, 2.1e-6 for modes 1-3 at 40 elements
    assert r.angular_frequencies[k - 1] == pytest.approx(exact, rel=5e-6)


def observed_order(errors, ns):
    return [math.log(errors[i] / errors[i + 1]) / math.log(ns[i + 1] / ns[i]) for i in range(len(ns) - 1)]


def test_beam_convergence_order_is_four():
    ns = [4, 8, 16]
    exact = bending_omega(BETA_L_CF[1])
    errs = []
    for n in ns:
        beam = kanefem.PlanarBeam(L, n, E=E, A=A, I=I, rho=RHO)
        errs.append(abs(beam.eigenvalues(2, supports="clamped-free").angular_frequencies[1] - exact) / exact)
    orders = observed_order(errs, ns)
    # Hermite cubics: eigenvalue error O(h^4) (Strang & Fix); allow the pre-asymptotic wobble
    assert all(3.7 < p < 4.3 for p in orders), orders


def test_fixed_free_bar_frequencies_converge_with_order_two():
    ns = [10, 20, 40, 80]
    c = math.sqrt(E / RHO)
    exact = [(2 * k - 1) * math.pi / (2 * L) * c for k in (1, 2, 3)]
    errs = []
    for n in ns:
        bar = kanefem.AxialBar(L, n, E=E, A=A, rho=RHO)
        w = bar.eigenvalues(3, supports="fixed-free").angular_frequencies
        errs.append(abs(w[2] - exact[2]) / exact[2])
        assert w[0] == pytest.approx(exact[0], rel=2.0 / n**2)
    orders = observed_order(errs, ns)
    # linear elements with consistent mass: frequency error O(h^2)
    assert all(1.9 < p < 2.1 for p in orders), orders


@pytest.mark.parametrize("Omega", [0.0, 15.0, 400.0, 3000.0])
def test_rotating_bar_identity_is_exact(Omega):
    """omega_k^2 = omega_k0^2 - Omega^2, also discretely (K_om = -Omega^2 M)."""
    bar = kanefem.AxialBar(1.0, 10, E=210e9, A=0.2e-4, rho=1.0 / 0.2e-4)
    r0 = bar.eigenvalues(5)
    r = bar.eigenvalues(5, omega=Omega)
    np.testing.assert_allclose(r.eigenvalues, r0.eigenvalues - Omega**2, rtol=1e-13, atol=0)


def test_beam_shift_identity_over_a_time_grid():
    """With K_eps off, lambda_k(t) = lambda_k(rest) - omega(t)^2 at every instant."""
    beam = kanefem.PlanarBeam(0.6, 10, E=E, A=A, I=I, rho=RHO)
    t = np.linspace(0, 0.43, 200)
    omega = 14.66 + 3 * np.sin(14.66 * t)
    r = beam.eigenvalues_vs_time(omega, 3 * 14.66 * np.cos(14.66 * t), 3, include_eps=False)
    rest = beam.eigenvalues(3)
    np.testing.assert_allclose(r.eigenvalues, rest.eigenvalues[None, :] - omega[:, None] ** 2, rtol=1e-13)
    assert r.solver == "symmetric"


def reference_eig(beam, omega, eps, supports, include_eps, n_modes):
    """The same problem by SciPy on the matrices the user would form."""
    sl = pytest.importorskip("scipy.linalg")
    M, K = beam.mass_matrix(), beam.stiffness_matrix()
    t = beam.motion_terms(omega, eps)
    Keff = K + t.K_om + (t.K_eps if include_eps else 0.0)
    free = ~beam.support_mask(supports)
    w = sl.eig(Keff[np.ix_(free, free)], M[np.ix_(free, free)], right=False)
    order = np.lexsort((w.imag, w.real))
    return w[order][:n_modes]


@pytest.mark.parametrize("eps", [40.0, 3000.0, -2.0e5])
def test_general_solver_matches_scipy(eps):
    beam = kanefem.PlanarBeam(0.6, 10, E=E, A=A, I=I, rho=RHO)
    r = beam.eigenvalues(3, omega=14.0, eps=eps)
    assert r.solver == "general"
    ref = reference_eig(beam, 14.0, eps, "pinned-pinned", True, 3)
    np.testing.assert_allclose(r.eigenvalues, ref.real, rtol=1e-9)
    np.testing.assert_allclose(r.eigenvalues_imag, ref.imag, atol=1e-9 * abs(ref[0]))


def test_large_eps_falls_back_to_full_solve_and_stays_right():
    """When the Bauer-Fike discs overlap, continuation is not certified: a full
    decomposition decides, and the result still equals SciPy's."""
    beam = kanefem.PlanarBeam(0.6, 4, E=E, A=A, I=1e-6, rho=RHO)
    lam0 = beam.eigenvalues(3, supports="free-free").eigenvalues
    eps = 1e5 * (1 + lam0.max())
    r = beam.eigenvalues(3, eps=eps, supports="free-free")
    assert r.stats["full_solves"] == 1
    ref = reference_eig(beam, 0.0, eps, "free-free", True, 3)
    np.testing.assert_allclose(r.eigenvalues, ref.real, rtol=1e-8, atol=1e-8 * abs(ref).max())


def test_eigenvalues_vs_time_general_equals_per_instant_scipy():
    beam = kanefem.PlanarBeam(0.6, 10, E=E, A=A, I=I, rho=RHO)
    th = np.linspace(0, 2 * np.pi, 72, endpoint=False)
    omega = 14.66 * (1 + 0.3 * np.sin(th))
    eps = 14.66**2 * 0.3 * np.cos(th) * 40
    r = beam.eigenvalues_vs_time(omega, eps, 2)
    assert r.solver == "general"
    assert r.stats["continued"] + r.stats["full_solves"] == len(th)
    assert r.stats["continued"] > 0.9 * len(th)  # the continuation does the work
    for k in range(0, len(th), 7):
        ref = reference_eig(beam, omega[k], eps[k], "pinned-pinned", True, 2)
        np.testing.assert_allclose(r.eigenvalues[k], ref.real, rtol=1e-9)


def test_mode_shapes_are_mass_normalized_eigenvectors():
    beam = kanefem.PlanarBeam(0.6, 8, E=E, A=A, I=I, rho=RHO)
    M, K = beam.mass_matrix(), beam.stiffness_matrix()
    for include_eps in (False, True):
        r = beam.eigenvalues(3, omega=20.0, eps=5e3, include_eps=include_eps)
        t = beam.motion_terms(20.0, 5e3)
        Keff = K + t.K_om + (t.K_eps if include_eps else 0)
        fixed = beam.support_mask("pinned-pinned")
        assert np.all(r.mode_shapes[fixed] == 0)
        for k in range(3):
            phi = r.mode_shapes[:, k]
            res = (Keff @ phi - r.eigenvalues[k] * M @ phi)[~fixed]
            assert np.linalg.norm(res) <= 1e-7 * np.linalg.norm(Keff @ phi)
            assert phi @ M @ phi == pytest.approx(1.0, rel=1e-8)
            # sign convention: the first component within 1e-9 of the largest magnitude is positive
            big = np.abs(phi).max()
            assert phi[np.flatnonzero(np.abs(phi) >= (1 - 1e-9) * big)[0]] > 0


def test_tracked_order_keeps_shapes_continuous():
    beam = kanefem.PlanarBeam(0.6, 10, E=E, A=A, I=I, rho=RHO)
    th = np.linspace(0, 2 * np.pi, 90)
    eps = 2e5 * np.cos(th)
    r = beam.eigenvalues_vs_time(np.full_like(th, 10.0), eps, 3, order="tracked")
    M = beam.mass_matrix()
    for t in range(1, len(th)):
        for k in range(3):
            a, b = r.mode_shapes[t - 1, :, k], r.mode_shapes[t, :, k]
            assert a @ M @ b > 0.95  # the same mode, same sign, from one instant to the next
    # here no two modes cross, so tracked and ascending agree
    ra = beam.eigenvalues_vs_time(np.full_like(th, 10.0), eps, 3)
    # both continue from different bases; each converges to within the 1e-8 residual
    # criterion, which puts eigenvalues within ~1e-11 (res^2 / gap)
    np.testing.assert_allclose(r.eigenvalues, ra.eigenvalues, rtol=1e-10)


def test_negative_eigenvalue_gives_negative_frequency_not_nan():
    bar = kanefem.AxialBar(1.0, 4, E=1e6, A=1e-4, rho=1000.0)
    w0 = bar.eigenvalues(1).angular_frequencies[0]
    r = bar.eigenvalues(1, omega=2 * w0)
    assert r.eigenvalues[0] == pytest.approx(-3 * w0**2, rel=1e-12)
    assert r.frequencies_hz[0] == pytest.approx(-math.sqrt(3) * w0 / (2 * math.pi), rel=1e-12)
