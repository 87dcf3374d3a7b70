"""Banded and sparse line bodies (issue 19): the same numbers as the dense path at 100
elements, and a 1e4-element planar beam and 3D beam through every API a 10-element one
has, in O(n) memory (no n x n array is ever made)."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import kanefem

STEEL = dict(E=2.1e11, A=1e-4, rho=7800.0)
SECTION = {"PlanarBeam": dict(Izz=1e-8), "AxialBar": {}, "Beam3D": dict(Izz=1e-8, Iyy=2e-8, J=3e-8),
           "Bar3D": {}}
RATES = {1: (3.0, 20.0), 2: (3.0, 20.0), 3: ((0.5, 1.0, 3.0), (0.0, 2.0, 20.0))}


def make(name, n, storage):
    return getattr(kanefem, name)(1.0, n, storage=storage, **STEEL, **SECTION[name])


def dense(a):
    return a.toarray() if sp.issparse(a) else a


@pytest.mark.parametrize("name", list(SECTION))
@pytest.mark.parametrize("storage", ["banded", "sparse"])
def test_matrices_equal_the_dense_path(name, storage):
    """Every matrix of a 100-element body stored banded or sparse is CSR and equals the
    dense body's to round-off (the same element sums, stored another way)."""
    b, d = make(name, 100, storage), make(name, 100, "dense")
    assert b.storage == storage and d.storage == "dense"
    om, ep = RATES[3 if name in ("Beam3D", "Bar3D") else 2]
    t, t0 = b.motion_terms(om, ep, frames=None), d.motion_terms(om, ep)
    pairs = [(b.mass_matrix(), d.mass_matrix()), (b.stiffness_matrix(), d.stiffness_matrix()),
             (t.C, t0.C), (t.K_eps, t0.K_eps), (t.K_om, t0.K_om),
             (b.combination(np.eye(b.dim), 2.0), d.combination(np.eye(d.dim), 2.0)),
             (b.geometric_stiffness([1e3, -5.0, 2.0]), d.geometric_stiffness([1e3, -5.0, 2.0]))]
    S, S0 = b.inertia_invariants()["S"], d.inertia_invariants()["S"]
    pairs += [(S[i][j], S0[i][j]) for i in range(b.dim) for j in range(b.dim)]
    for a, ref in pairs:
        assert isinstance(a, sp.csr_matrix) and a.shape == (b.ndof, b.ndof)
        scale = max(np.abs(ref).max(), 1e-300)
        assert np.abs(dense(a) - ref).max() <= 1e-14 * scale  # identical sums: round-off only
    for v, ref in ((t.q_eps, t0.q_eps), (t.q_om, t0.q_om), (t.q_a, t0.q_a)):
        np.testing.assert_allclose(v, ref, rtol=1e-14, atol=1e-14 * np.abs(ref).max())
    G = b.constraint_matrix(b.default_supports)
    assert isinstance(G, sp.csr_matrix)
    np.testing.assert_array_equal(G.toarray(), d.constraint_matrix(d.default_supports))


def equilibrated_eigsh(body, supports, A, k):
    """An independent reference: SciPy's eigsh in shift-invert mode on the dense body's
    reduced (A, M), symmetrically equilibrated by D = diag(A)^-1/2 (which keeps the digits
    the unscaled factor of an ill-conditioned beam stiffness loses)."""
    free = ~body.support_mask(supports)
    A, M = sp.csr_matrix(A[np.ix_(free, free)]), sp.csr_matrix(body.mass_matrix()[np.ix_(free, free)])
    D = sp.diags(1.0 / np.sqrt(A.diagonal()))
    return np.sort(spla.eigsh((D @ A @ D).tocsc(), k, (D @ M @ D).tocsc(), sigma=0.0,
                             return_eigenvectors=False))


@pytest.mark.parametrize("name", ["PlanarBeam", "Beam3D"])
def test_eigenvalues_agree_with_the_dense_path(name):
    """At 100 elements the banded body's shift-invert eigenvalues (at rest, spinning, with
    K_G) equal an independent equilibrated eigsh to 1e-8, and the dense core's to that
    solver's own round-off (eps x cond, lambda_max / lambda_1 ~ 1e9: 2e-8 at rest, 2e-7
    with K_G on the first mode, 3e-6 for Beam3D, where the banded one is the closer to the
    reference or the continuum);
    with K_eps (general), over time and gyroscopic, the dense core's to the same bound."""
    b, d = make(name, 100, "banded"), make(name, 100, "dense")
    om, ep = RATES[3 if name == "Beam3D" else 2]
    sup = d.default_supports
    # the dense core's round-off, above; it depends on the LAPACK (Beam3D with K_G: 3e-6 with
    # OpenBLAS, 6.4e-6 with reference LAPACK), the banded path is held to the exact value at rest
    tol = 3e-7 if name == "PlanarBeam" else 2e-5
    for kw in (dict(), dict(omega=om), dict(omega=om, geometric_stiffness=True)):
        r, r0 = b.eigenvalues(4, **kw), d.eigenvalues(4, **kw)
        A = d.stiffness_matrix() + d.motion_terms(kw.get("omega", 0.0)).K_om
        if "geometric_stiffness" in kw:
            A = A + d.geometric_stiffness(d.axial_force(om, supports=sup))
        if name == "PlanarBeam":  # (Beam3D's torsion DOFs leave the equilibrated eigsh 3e-6 off)
            np.testing.assert_allclose(r.eigenvalues, equilibrated_eigsh(d, sup, A, 4), rtol=1e-8,
                                       err_msg=str(kw))
        elif not kw:  # clamped-free, (1.8751.. / L)^4 EI / (rho A); the FE error is ~3e-8 here
            exact = 1.87510406871196**4 * 2.1e11 * 1e-8 / (7800.0 * 1e-4)
            assert r.eigenvalues[0] == pytest.approx(exact, rel=1e-7)
            assert abs(r0.eigenvalues[0] / exact - 1.0) > 1e-6  # the dense core's is 3e-6 off
        np.testing.assert_allclose(r.eigenvalues, r0.eigenvalues, rtol=tol, err_msg=str(kw))
        # mass-normalized shapes over all DOFs, the same up to sign
        M = d.mass_matrix()
        overlap = np.abs(np.einsum("ik,ij,jk->k", r.mode_shapes, M, r0.mode_shapes))
        np.testing.assert_allclose(overlap, 1.0, atol=1e-6)
    r, r0 = b.eigenvalues(4, om, ep), d.eigenvalues(4, om, ep)
    np.testing.assert_allclose(r.eigenvalues, r0.eigenvalues, rtol=tol)
    om_t = np.array([om, om]) if np.ndim(om) else np.array([om, 2 * om])
    ep_t = np.array([ep, ep]) if np.ndim(ep) else np.array([0.0, ep])
    r, r0 = (x.eigenvalues_vs_time(om_t, ep_t, 3, order="tracked") for x in (b, d))
    np.testing.assert_allclose(r.eigenvalues, r0.eigenvalues, rtol=tol)
    g, g0 = (x.gyroscopic_eigenvalues(om_t[:1], ep_t[:1], 3, include_eps=False) for x in (b, d))
    np.testing.assert_allclose(g.s.imag, g0.s.imag, rtol=tol)
    assert np.abs(g.s.real).max() < 1e-6 * np.abs(g.s).max()  # undamped, stable: imaginary s


def test_banded_eigenvalues_are_the_closer_to_the_continuum():
    """Pinned-pinned beam, 100 elements: the consistent-mass FE eigenvalue is a Rayleigh-Ritz
    upper bound of the continuum value (k pi)^4 EI / (rho A L^4), above it by the FE error
    (< 1e-8 for the first mode here).  The banded path's is above by less than 1e-8; the
    dense solver's round-off (~2e-8) is larger than the FE error."""
    b = make("PlanarBeam", 100, "banded")
    exact = np.pi**4 * 2.1e11 * 1e-8 / (7800.0 * 1e-4)
    lam = b.eigenvalues(1).eigenvalues[0]
    assert 0.0 <= (lam - exact) / exact < 1e-8


def test_auto_storage_picks_band_above_the_measured_size():
    """storage="auto": dense up to 300 DOFs (where the dense path is as fast), the core's band
    beyond; "sparse" of a line body is held as a band too (returned CSR)."""
    assert make("PlanarBeam", 99, "auto").storage == "dense"
    big = make("PlanarBeam", 100, "auto")
    assert big.storage == "banded" and isinstance(big.mass_matrix(), sp.csr_matrix)
    assert make("PlanarBeam", 100, "sparse")._layout == "banded"


def test_simulate_banded_equals_dense():
    """The C stepper on the band body gives the dense body's response (both reduce the body
    in their storage and factor it: the same arithmetic up to round-off)."""
    motion = kanefem.Motion.constant_speed(5.0)
    r, r0 = (kanefem.simulate(make("PlanarBeam", 100, s), motion, 0.01, dt=1e-4,
                              geometric_stiffness=True) for s in ("banded", "dense"))
    np.testing.assert_allclose(r.d, r0.d, rtol=0, atol=1e-9 * np.abs(r0.d).max())
    assert np.abs(r0.d).max() > 0.0


@pytest.mark.parametrize("name", ["PlanarBeam", "Beam3D"])
def test_ten_thousand_elements_every_api(name):
    """A 1e4-element body (30,003 or 60,006 DOFs; dense matrices would take 7 or 29 GB each)
    through every API a 10-element one has: matrices, invariants, motion terms, inertia
    forces both routes, supports, K_G, eigenvalues (one instant, over time, gyroscopic) and
    a simulation.  Each call's result is checked against an identity that does not need a
    dense matrix."""
    b = make(name, 10_000, "auto")
    assert b.storage == "banded"
    spatial = name == "Beam3D"
    om, ep = RATES[3 if spatial else 2]
    M = b.mass_matrix()
    assert isinstance(M, sp.csr_matrix) and M.nnz < 40 * b.ndof  # O(n) storage
    # the mass of the body: rigid translation along x of M is rho A L
    ux = np.zeros(b.ndof)
    ux[0::b.dofs_per_node] = 1.0
    assert ux @ (M @ ux) == pytest.approx(7800.0 * 1e-4 * 1.0, rel=1e-12)
    inv = b.inertia_invariants()
    assert isinstance(inv["S"][0][0], sp.csr_matrix)
    t = b.motion_terms(om, ep)
    assert abs((t.C + t.C.T)).max() <= 1e-12 * abs(t.C).max()  # skew
    d = 1e-4 * np.sin(np.arange(b.ndof))
    f1 = b.inertia_forces(d, d, d, om, ep)
    f2 = b.inertia_forces(d, d, d, om, ep, route="quadrature")
    np.testing.assert_allclose(f1, f2, rtol=0, atol=1e-10 * np.abs(f2).max())
    G = b.constraint_matrix(b.default_supports)
    assert isinstance(G, sp.csr_matrix) and G.shape[1] == b.ndof
    c = b.axial_force(om)
    KG = b.geometric_stiffness(c)
    assert isinstance(KG, sp.csr_matrix)
    # a spatial body off the rest state goes through the sparse path's continuation, a
    # minute at 60,006 DOFs today (issue 19's eigen work): at rest here, spinning in the
    # gyroscopic call below
    om_e = np.zeros(3) if spatial else om
    r = b.eigenvalues(2, om_e)
    # clamped-free (3D) or pinned-pinned (planar) first bending mode within 10 % of the
    # continuum: at 1e4 elements K's condition (~n^4) costs every double-precision solver
    # (eigsh too) digits; the value checks the route, not the precision
    exact = (1.8751**4 if spatial else np.pi**4) * 2.1e11 * 1e-8 / (7800.0 * 1e-4)
    lam0 = r.eigenvalues[0] + np.dot(om_e, om_e)
    assert lam0 == pytest.approx(exact, rel=0.1)
    assert r.mode_shapes.shape == (b.ndof, 2)
    rt = b.eigenvalues_vs_time(np.array([om_e, om_e]), np.zeros((2, 3)) if spatial else [0.0, 0.0], 2,
                               mode_shapes=False)
    # a single instant solves for the wanted modes and one more, a time grid for GUARD
    # more: two subspaces, so the two answers agree within their certificates (at 1e4
    # elements a double solve's error, section 3.16), plus round-off
    np.testing.assert_array_less(np.abs(rt.eigenvalues[1] - r.eigenvalues),
                                 rt.error_bounds[1] + r.error_bounds + 1e-8 * np.abs(r.eigenvalues))
    g = b.gyroscopic_eigenvalues(np.array([om]), np.zeros((1, 3)) if spatial else [0.0], 1)
    assert np.isfinite(g.s).all() and g.s[0, 0].imag > 0
    motion = kanefem.Motion.constant_spin(om) if spatial else kanefem.Motion.constant_speed(om)
    s = kanefem.simulate(b, motion, 2e-4, dt=1e-4, geometric_stiffness=True)
    assert s.d.shape == (3, b.ndof) and np.isfinite(s.d).all()


def test_spatial_symmetric_turn_is_continued_in_c_and_certified():
    """A spatial spin over 90 instants (K_eps off): the core continues each instant from the
    previous one's basis, certified by Weyl's intervals [lambda0_k - |omega|^2, lambda0_k]
    (no full solve while |omega|^2 is below half the gaps), and every eigenvalue equals
    SciPy's eigh of the same (K + K_om(t), M) to the certificate's 1e-8 relative residual
    (its eigenvalue error is below that) plus the reference's own round-off: LAPACK's eigh is
    backward stable, so its k-th eigenvalue may be off by ~eps lambda_max / lambda_k relative
    (2e-8 at lambda_1 here; its drivers gv/gvx/gvd spread by 1e-9 and a 40-digit Rayleigh quotient
    puts the continued values within 1e-10, so the reference, not the path, is the looser side)."""
    import scipy.linalg as la

    b = make("Beam3D", 20, "dense")
    t = np.linspace(0.0, 1.0, 90)
    om = np.column_stack([5.0 * np.sin(2 * np.pi * t), 10.0 * t, 40.0 * t])
    r = b.eigenvalues_vs_time(om, np.zeros((90, 3)), 6, include_eps=False, mode_shapes=False)
    assert r.stats["full_solves"] == 0 and r.stats["continued"] == 89  # instant 0 continues from rest
    free = ~b.support_mask("clamped-free")
    K, M = b.stiffness_matrix()[np.ix_(free, free)], b.mass_matrix()[np.ix_(free, free)]
    for k in range(0, 90, 11):
        Ko = b.motion_terms(om[k]).K_om[np.ix_(free, free)]
        ref = la.eigh(K + Ko, M, eigvals_only=True, subset_by_index=[0, 5])
        lam_max = la.eigh(K + Ko, M, eigvals_only=True, subset_by_index=[K.shape[0] - 1] * 2)[0]
        bound = 1e-8 + 4 * np.finfo(float).eps * lam_max / ref
        assert np.all(np.abs(r.eigenvalues[k] - ref) <= bound * ref), (k, (r.eigenvalues[k] - ref) / ref)
