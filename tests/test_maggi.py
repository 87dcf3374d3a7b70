"""Maggi's projection: a null-space basis of linear constraints G d = 0 by LAPACK's QR
with column pivoting, and frozen-time eigenvalues of the projected equations, against
direct elimination of supports and against an independent SciPy route."""

import numpy as np
import pytest
import scipy.linalg as sl
from hypothesis import given, settings
from hypothesis import strategies as st

import kanefem

E, A, I, RHO = 2.1e11, 3e-4, 2.5e-9, 7850.0


def beam(n=6, length=1.1):
    return kanefem.PlanarBeam(length, n, E=E, A=A, I=I, rho=RHO)


# ---------------------------------------------------------------- the basis


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 30), data=st.data())
def test_basis_spans_the_null_space_with_redundant_rows(seed, n, data):
    rank = data.draw(st.integers(0, n - 1))
    extra = data.draw(st.integers(0, 3))
    rng = np.random.default_rng(seed)
    # G = P Q: rank `rank` with `rank + extra` rows (extra rows are combinations)
    G = rng.normal(size=(rank + extra, rank)) @ rng.normal(size=(rank, n)) if rank else np.zeros((extra, n))
    B = kanefem.maggi_basis(G)
    assert B.shape == (n, n - rank)
    # orthonormal columns from Householder QR: round-off of order n eps
    np.testing.assert_allclose(B.T @ B, np.eye(n - rank), rtol=0, atol=50 * n * np.finfo(float).eps)
    if G.size:
        np.testing.assert_allclose(G @ B, 0, rtol=0, atol=1e-12 * np.abs(G).max() * n)


def test_no_constraint_is_the_identity_and_all_fixed_is_empty():
    np.testing.assert_array_equal(kanefem.maggi_basis(np.zeros((0, 4))), np.eye(4))
    assert kanefem.maggi_basis(np.eye(3)).shape == (3, 0)


def test_rtol_decides_the_rank():
    G = np.array([[1.0, 0.0, 0.0], [0.0, 1e-10, 0.0]])
    assert kanefem.maggi_basis(G).shape == (3, 1)  # 1e-10 is above the default tolerance
    assert kanefem.maggi_basis(G, rtol=1e-8).shape == (3, 2)  # ... and below this one


@pytest.mark.parametrize(
    "G, rtol, exc, match",
    [
        ([1.0, 2.0], None, ValueError, "constraints"),
        ([[1.0, np.nan]], None, ValueError, "constraints"),
        ([[1.0, 2.0]], 1.5, ValueError, "rtol"),  # rtol lies in [0, 1); 0 is the default
        ([[1.0, 2.0]], -1.0, ValueError, "rtol"),
        (np.zeros((1, 0)), None, ValueError, "column"),
        ("abc", None, TypeError, "constraints"),
    ],
)
def test_basis_errors(G, rtol, exc, match):
    with pytest.raises(exc, match=match):
        kanefem.maggi_basis(G, rtol=rtol)


# ---------------------------------------------------------------- projected eigenvalues


@pytest.mark.parametrize("supports", ["pinned-pinned", "clamped-free", "clamped-pinned"])
@pytest.mark.parametrize("omega, eps", [(0.0, 0.0), (9.0, 0.0), (9.0, 400.0)])
def test_supports_as_constraints_give_the_same_eigenvalues(supports, omega, eps):
    b = beam()
    G = b.constraint_matrix(supports)
    # rotate each node's constraint rows among themselves: same null space, but the QR
    # basis is no longer a selection of DOFs, so the projection does real work
    rng = np.random.default_rng(7)
    Q, _ = np.linalg.qr(rng.normal(size=(G.shape[0], G.shape[0])))
    direct = b.eigenvalues(4, omega, eps, supports=supports)
    for rows in (G, Q @ G):
        maggi = b.eigenvalues(4, omega, eps, constraints=rows)
        assert maggi.solver == direct.solver
        # one generalized eigenproblem in two bases: round-off amplified by the spread
        # of the spectrum (lambda_max / lambda_1 ~ 1e7 with the axial modes)
        np.testing.assert_allclose(maggi.eigenvalues, direct.eigenvalues, rtol=1e-9)
        np.testing.assert_allclose(maggi.eigenvalues_imag, direct.eigenvalues_imag, rtol=0,
                                   atol=1e-9 * abs(direct.eigenvalues[0]))
        phi = maggi.mode_shapes
        scale = np.abs(phi).max()
        np.testing.assert_allclose(G @ phi, 0, rtol=0, atol=1e-12 * scale)
        if eps == 0.0:  # symmetric: M-orthonormal shapes, same as by deletion (same sign rule)
            M = b.mass_matrix()
            np.testing.assert_allclose(phi.T @ M @ phi, np.eye(4), rtol=0, atol=1e-9)
            np.testing.assert_allclose(phi, direct.mode_shapes, rtol=0, atol=1e-7 * scale)


def general_constraints(b):
    """u at both ends tied (u_0 = u_N), v = 0 at both ends, and a roller on a track at
    30 degrees at the middle node (its displacement along the track normal is zero)."""
    n = b.ndof
    mid = 3 * (b.n_nodes // 2)
    G = np.zeros((4, n))
    G[0, 0], G[0, n - 3] = 1.0, -1.0
    G[1, 1] = 1.0
    G[2, n - 2] = 1.0
    G[3, mid], G[3, mid + 1] = -np.sin(np.pi / 6), np.cos(np.pi / 6)
    return G


@pytest.mark.parametrize("eps", [0.0, 250.0])
def test_general_constraints_against_scipy_null_space(eps):
    b = beam(8)
    omega = 11.0
    G = general_constraints(b)
    r = b.eigenvalues(5, omega, eps, constraints=G)
    # independent route: SVD null space (scipy) and a dense generalized eigensolver
    N = sl.null_space(G)
    t = b.motion_terms(omega, eps)
    Keff = b.stiffness_matrix() + t.K_om + t.K_eps
    lam = sl.eigvals(N.T @ Keff @ N, N.T @ b.mass_matrix() @ N)
    lam = lam[np.argsort(lam.real)][:5]
    np.testing.assert_allclose(r.eigenvalues, lam.real, rtol=1e-9)
    np.testing.assert_allclose(r.eigenvalues_imag, lam.imag, rtol=0, atol=1e-9 * abs(lam[0]))
    np.testing.assert_allclose(G @ r.mode_shapes, 0, rtol=0, atol=1e-12 * np.abs(r.mode_shapes).max())


def test_constraints_combine_with_supports_and_over_time():
    b = beam(6)
    tie = np.zeros((1, b.ndof))
    tie[0, 2], tie[0, b.ndof - 1] = 1.0, 1.0  # theta_0 = -theta_N (antisymmetric ends)
    both = np.vstack([b.constraint_matrix("pinned-pinned"), tie])
    r1 = b.eigenvalues(3, 5.0, 80.0, supports="pinned-pinned", constraints=tie)
    r2 = b.eigenvalues(3, 5.0, 80.0, constraints=both)
    np.testing.assert_allclose(r1.eigenvalues, r2.eigenvalues, rtol=1e-12)
    omega = np.array([0.0, 5.0, 10.0])
    eps = np.array([0.0, 80.0, -40.0])
    turn = b.eigenvalues_vs_time(omega, eps, 3, constraints=both)
    for k in range(3):
        one = b.eigenvalues(3, omega[k], eps[k], constraints=both)
        # continuation vs a fresh solve of the same instant: converged to 1e-10 or better
        np.testing.assert_allclose(turn.eigenvalues[k], one.eigenvalues, rtol=1e-10)


def test_constraint_errors_name_the_argument():
    b = beam(3)
    with pytest.raises(ValueError, match="constraints must have 12 columns"):
        b.eigenvalues(1, constraints=np.zeros((1, 5)))
    with pytest.raises(ValueError, match="constraints.*fix all 12 DOFs"):
        b.eigenvalues(1, constraints=np.eye(12))
    with pytest.raises(ValueError, match="constraints"):
        b.eigenvalues(1, constraints=[[np.inf] * 12])
    with pytest.raises(ValueError, match="n_modes"):
        b.eigenvalues(12, constraints=b.constraint_matrix("pinned-pinned"))
    with pytest.raises(ValueError, match="basis must have shape"):
        kanefem._core.eig_create_projected(b._body, np.eye(5))


def test_geometric_stiffness_through_the_projection():
    """K_G is projected like every other term: with the same axial force, supports as
    constraints give the eigenvalues of supports deleted (a spinning lever, stiffened)."""
    b = beam(6)
    N = (5e3, 0.0, 0.0)  # a constant tension [N]: K_G positive semidefinite
    direct = b.eigenvalues(3, 30.0, 200.0, supports="pinned-pinned", geometric_stiffness=True,
                           axial_force=N)
    G = np.linalg.qr(np.random.default_rng(2).normal(size=(4, 4)))[0] @ b.constraint_matrix("pinned-pinned")
    maggi = b.eigenvalues(3, 30.0, 200.0, constraints=G, geometric_stiffness=True, axial_force=N)
    # one eigenproblem in two bases: round-off amplified by the spread of the spectrum
    np.testing.assert_allclose(maggi.eigenvalues, direct.eigenvalues, rtol=1e-9)
    plain = b.eigenvalues(3, 30.0, 200.0, constraints=G)
    assert np.all(maggi.eigenvalues > plain.eigenvalues)  # tension stiffens
