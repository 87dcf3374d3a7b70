"""The element matrices and inertia invariants against closed forms and against an
independent quadrature of the integrals of docs/theory.md section 1."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanefem

E, A, I, RHO = 2.1e11, 3e-4, 2.5e-9, 7850.0


def beam_closed_forms(l, m=RHO * A):
    """Textbook planar Euler-Bernoulli element (u1, v1, t1, u2, v2, t2)."""
    K = np.zeros((6, 6))
    ea, ei = E * A / l, E * I / l**3
    K[np.ix_([0, 3], [0, 3])] = ea * np.array([[1, -1], [-1, 1]])
    b = [1, 2, 4, 5]
    K[np.ix_(b, b)] = ei * np.array(
        [[12, 6 * l, -12, 6 * l], [6 * l, 4 * l * l, -6 * l, 2 * l * l],
         [-12, -6 * l, 12, -6 * l], [6 * l, 2 * l * l, -6 * l, 4 * l * l]]
    )
    M = np.zeros((6, 6))
    M[np.ix_([0, 3], [0, 3])] = m * l / 6 * np.array([[2, 1], [1, 2]])
    M[np.ix_(b, b)] = m * l / 420 * np.array(
        [[156, 22 * l, 54, -13 * l], [22 * l, 4 * l * l, 13 * l, -3 * l * l],
         [54, 13 * l, 156, -22 * l], [-13 * l, -3 * l * l, -22 * l, 4 * l * l]]
    )
    # docs/theory.md section 2: S_yx rows (v1, t1, v2, t2), columns (u1, u2)
    Syx = np.zeros((6, 6))
    Syx[np.ix_(b, [0, 3])] = m * l * np.array(
        [[7 / 20, 3 / 20], [l / 20, l / 30], [3 / 20, 7 / 20], [-l / 30, -l / 20]]
    )
    return M, K, Syx


def test_single_beam_element_matches_closed_forms():
    l = 0.37
    beam = kanefem.PlanarBeam(l, 1, E=E, A=A, I=I, rho=RHO)
    M, K, Syx = beam_closed_forms(l)
    inv = beam.inertia_invariants()
    # quadrature is exact for these polynomial integrands: agreement to round-off
    np.testing.assert_allclose(beam.mass_matrix(), M, rtol=0, atol=1e-14 * np.abs(M).max())
    np.testing.assert_allclose(beam.stiffness_matrix(), K, rtol=0, atol=1e-13 * np.abs(K).max())
    np.testing.assert_allclose(inv["S"][1, 0], Syx, rtol=0, atol=1e-14 * np.abs(Syx).max())
    np.testing.assert_allclose(inv["S"][0, 1], Syx.T, rtol=0, atol=1e-14 * np.abs(Syx).max())


def test_bar_element_closed_forms():
    l = 0.8
    bar = kanefem.AxialBar(l, 1, E=E, A=A, rho=RHO)
    m = RHO * A
    np.testing.assert_allclose(bar.mass_matrix(), m * l / 6 * np.array([[2, 1], [1, 2]]), rtol=1e-14)
    np.testing.assert_allclose(bar.stiffness_matrix(), E * A / l * np.array([[1, -1], [-1, 1]]), rtol=1e-14)
    inv = bar.inertia_invariants()
    # s_xx = int m N_x^T x dx with x from 0 to l: m l^2 (1/6, 1/3)
    np.testing.assert_allclose(inv["s"][0, 0], m * l * l * np.array([1 / 6, 1 / 3]), rtol=1e-14)
    assert np.all(inv["S"][1, 1] == 0) and np.all(inv["S"][0, 1] == 0)


# ---------------------------------------------------------------- independent quadrature

def hermite(xi, l):
    """Shape functions on one element, written out independently of the C core."""
    Nx = np.array([1 - xi, 0, 0, xi, 0, 0])
    Ny = np.array([0, 1 - 3 * xi**2 + 2 * xi**3, l * (xi - 2 * xi**2 + xi**3), 0,
                   3 * xi**2 - 2 * xi**3, l * (xi**3 - xi**2)])
    return np.vstack([Nx, Ny])


def direct_terms(length, n, origin, omega, eps, a):
    """docs/theory.md section 1 integrals by 8-point Gauss quadrature, element by element:
    C = 2 int rho N^T W N, K_eps = int rho N^T E N, K_om = int rho N^T W W N,
    q_eps = int rho N^T E x, q_om = int rho N^T W W x, q_a = int rho N^T a."""
    J = np.array([[0.0, -1.0], [1.0, 0.0]])
    W, Ee = omega * J, eps * J
    WW = W @ W
    ndof = 3 * (n + 1)
    out = {k: np.zeros((ndof, ndof)) for k in ("M", "C", "K_eps", "K_om")}
    out.update({k: np.zeros(ndof) for k in ("q_eps", "q_om", "q_a")})
    g, w = np.polynomial.legendre.leggauss(8)
    l, m = length / n, RHO * A
    for e in range(n):
        dofs = np.arange(3 * e, 3 * e + 6)
        for gi, wi in zip(g, w):
            xi = 0.5 * (gi + 1)
            N = hermite(xi, l)
            x = np.array([origin + (e + xi) * l, 0.0])
            dw = m * wi * 0.5 * l
            ix = np.ix_(dofs, dofs)
            out["M"][ix] += dw * N.T @ N
            out["C"][ix] += 2 * dw * N.T @ W @ N
            out["K_eps"][ix] += dw * N.T @ Ee @ N
            out["K_om"][ix] += dw * N.T @ WW @ N
            out["q_eps"][dofs] += dw * N.T @ Ee @ x
            out["q_om"][dofs] += dw * N.T @ WW @ x
            out["q_a"][dofs] += dw * N.T @ a
    return out


@settings(max_examples=30, deadline=None)
@given(
    omega=st.floats(-50, 50),
    eps=st.floats(-500, 500),
    ax=st.floats(-100, 100),
    ay=st.floats(-100, 100),
    n=st.integers(1, 7),
    origin=st.floats(-1, 1),
)
def test_invariant_terms_equal_direct_quadrature(omega, eps, ax, ay, n, origin):
    length = 0.9
    beam = kanefem.PlanarBeam(length, n, E=E, A=A, I=I, rho=RHO, origin=origin)
    t = beam.motion_terms(omega, eps, (ax, ay))
    ref = direct_terms(length, n, origin, omega, eps, np.array([ax, ay]))
    scale_m = np.abs(ref["M"]).max()
    np.testing.assert_allclose(beam.mass_matrix(), ref["M"], rtol=0, atol=1e-13 * scale_m)
    for name in ("C", "K_eps", "K_om"):
        got, want = getattr(t, name), ref[name]
        # a combination of invariants equals the integral up to round-off of the sums
        tol = 1e-13 * scale_m * max(abs(omega), abs(eps), omega**2, 1.0)
        np.testing.assert_allclose(got, want, rtol=0, atol=tol, err_msg=name)
    for name in ("q_eps", "q_om", "q_a"):
        want = ref[name]
        tol = 1e-12 * (np.abs(want).max() + scale_m)
        np.testing.assert_allclose(getattr(t, name), want, rtol=0, atol=tol, err_msg=name)


@settings(max_examples=40, deadline=None)
@given(omega=st.floats(-100, 100), eps=st.floats(-1e4, 1e4), n=st.integers(1, 12))
def test_structure_of_motion_terms(omega, eps, n):
    beam = kanefem.PlanarBeam(1.3, n, E=E, A=A, I=I, rho=RHO)
    M = beam.mass_matrix()
    t = beam.motion_terms(omega, eps)
    # M symmetric (bitwise: S_ij and S_ji^T are assembled from the same products) and positive definite
    np.testing.assert_array_equal(M, M.T)
    np.linalg.cholesky(M)
    scale = np.abs(M).max()
    # C and K_eps skew-symmetric, K_om symmetric negative semidefinite (exactly -omega^2 M here)
    np.testing.assert_allclose(t.C, -t.C.T, rtol=0, atol=1e-15 * scale * (1 + abs(omega)))
    np.testing.assert_allclose(t.K_eps, -t.K_eps.T, rtol=0, atol=1e-15 * scale * (1 + abs(eps)))
    np.testing.assert_allclose(t.K_om, t.K_om.T, rtol=0, atol=0)
    assert np.linalg.eigvalsh(t.K_om).max() <= 1e-12 * scale * omega**2
    np.testing.assert_allclose(t.K_om, -(omega**2) * M, rtol=1e-14, atol=1e-300)


def test_centrifugal_load_points_outward():
    """docs/theory.md section 1.3 (sign correction): for a bar spinning about an axis through O the
    load -q_om points outward (+x), with total m omega^2 x_G."""
    L, omega = 2.0, 3.0
    bar = kanefem.AxialBar(L, 5, E=E, A=A, rho=RHO)
    load = -bar.motion_terms(omega).q_om
    assert np.all(load > 0)
    m = RHO * A * L
    np.testing.assert_allclose(load.sum(), m * omega**2 * L / 2, rtol=1e-14)
