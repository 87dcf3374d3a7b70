"""Sparse eigenvalues of any body: refined, certified, continued over a time grid, and the
damped gyroscopic problem (docs/theory.md section 3.17; issues 19 and 20)."""

import math

import numpy as np
import pytest

import kanefem
from kanefem import frames as fr

pytest.importorskip("scipy")

E, RHO = 2.1e11, 7800.0


def test_axial_bar_3000_elements_certificates_contain_the_exact_discrete_error():
    # fixed-fixed linear bar: K = EA/h tridiag(-1, 2, -1), M = rho A h/6 tridiag(1, 4, 1)
    # share the sine eigenvectors v_i = sin(i t_j), t_j = j pi / n, with the eigenvalues
    # 6E/(rho h^2) (1 - cos t_j) / (2 + cos t_j).  The stored matrices differ from these
    # by their rounding (element lengths from rounded node coordinates), which moves the
    # eigenvalues by ~1e-11 relative, more than the certificates: the reference for
    # the stored problem is the Rayleigh quotient of the sine vector in 40-digit
    # arithmetic (mpmath), exact to second order in that perturbation (~1e-22).
    mpmath = pytest.importorskip("mpmath")
    import scipy.sparse as sp

    n, L = 3000, 2.0
    bar = kanefem.AxialBar(L, n, E=E, A=1e-4, rho=RHO)
    r = bar.eigenvalues(3, supports="fixed-fixed", solver="sparse")
    free = np.flatnonzero(~bar.support_mask("fixed-fixed"))
    K, M = (sp.csr_matrix(X)[free][:, free].tocoo() for X in (bar.stiffness_matrix(), bar.mass_matrix()))
    h = L / n
    with mpmath.workdps(40):
        for j in range(1, 4):
            v = [mpmath.sin((i + 1) * mpmath.pi * j / n) for i in range(free.size)]

            def quad(A):
                return mpmath.fsum(mpmath.mpf(float(a)) * v[i] * v[k] for a, i, k in zip(A.data, A.row, A.col))

            ref = float(quad(K) / quad(M))
            assert abs(r.eigenvalues[j - 1] - ref) <= r.error_bounds[j - 1], (j, r.eigenvalues[j - 1] - ref)
            t = j * math.pi / n
            closed = 6 * E / (RHO * h * h) * 2 * math.sin(t / 2) ** 2 / (2 + math.cos(t))
            assert abs(ref - closed) <= 1e-10 * closed  # the stored matrices' rounding
    # the bounds are tight (Kato-Temple): within 1e-11 of the eigenvalue, ||K|| / lambda_1 ~ 4e6
    assert np.all(r.error_bounds <= 1e-11 * r.eigenvalues)


@pytest.mark.parametrize("n_el, eigsh_error", [(1000, 2.5e-6)])
def test_planar_beam_1000_elements_beats_eigsh_against_the_continuum(n_el, eigsh_error):
    # pinned-pinned Euler-Bernoulli: lambda_k = (k pi / L)^4 EI / (rho A); the FE error
    # at 1000 elements is ~1e-10, eigsh shift-invert's 2.5e-6 (issue 19), the dense path's 4e-4
    L, A, I = 1.0, 1e-4, 1e-8
    beam = kanefem.PlanarBeam(L, n_el, E=E, A=A, I=I, rho=RHO)
    r = beam.eigenvalues(4, mode_shapes=False)  # auto: sparse beyond 1000 free DOFs
    assert r.error_bounds is not None
    exact = (np.arange(1, 5) * math.pi / L) ** 4 * E * I / (RHO * A)
    rel = np.abs(r.eigenvalues - exact) / exact
    assert np.all(rel <= 1e-9), rel  # far better than eigsh's 2.5e-6
    assert np.all(r.error_bounds <= 1e-9 * exact)


def _planar_beam(n_el=40):
    return kanefem.PlanarBeam(1.0, n_el, E=E, A=1e-4, I=1e-8, rho=RHO)


def test_sparse_path_of_a_beam_equals_the_dense_one_over_a_crank_turn_with_k_eps():
    beam = _planar_beam(40)
    a = np.linspace(0, 2 * math.pi, 48, endpoint=False)
    omega, eps = 15.0 * np.cos(a), 400.0 * np.sin(a)
    d = beam.eigenvalues_vs_time(omega, eps, 4, solver="dense", mode_shapes=False)
    s = beam.eigenvalues_vs_time(omega, eps, 4, solver="sparse", mode_shapes=False)
    assert s.solver == "general"
    assert s.stats["continued"] >= 40, s.stats  # continuation carries the turn
    # the dense solve of this problem (||K|| / lambda_1 ~ 1e7) is good to eps ||K|| / lambda_1
    # ~ 2e-9 relative (measured 1e-9 with OpenBLAS, 1.2e-9 with reference LAPACK): the certified
    # sparse values agree within their bounds plus 1e-8, five times that bound
    tol = s.error_bounds + 1e-8 * np.abs(d.eigenvalues)
    assert np.all(np.abs(s.eigenvalues - d.eigenvalues) <= tol)


def test_spinning_shaft_whirl_split_equals_omega0_plus_minus_spin():
    # an isotropic Euler-Bernoulli shaft spinning about its own axis at Omega, seen in the
    # spinning frame: M q'' + 2 Omega G q' + (K - Omega^2 M_t) q = 0 for the transverse
    # DOFs, whose bending pair splits exactly into omega_0 - Omega and omega_0 + Omega
    # (the forward and backward whirl seen from the rotating frame)
    shaft = kanefem.Beam3D(1.0, 30, E=E, A=1e-4, Izz=1e-8, Iyy=1e-8, J=2e-8, rho=RHO)
    w0 = math.sqrt(shaft.eigenvalues(1, supports="pinned-pinned").eigenvalues[0])
    spin = 0.3 * w0
    om = np.array([[spin, 0.0, 0.0]])
    r = shaft.gyroscopic_eigenvalues(om, np.zeros((1, 3)), 2, supports="pinned-pinned", solver="sparse")
    s = r.s[0]
    assert np.allclose(s.imag, [w0 - spin, w0 + spin], rtol=1e-9), (s, w0 - spin, w0 + spin)
    assert np.all(np.abs(s.real) <= 1e-6 * w0)
    dense = shaft.gyroscopic_eigenvalues(om, np.zeros((1, 3)), 2, supports="pinned-pinned", solver="dense").s[0]
    assert np.all(np.abs(s - dense) <= r.error_bounds[0] + 1e-9 * np.abs(dense))


def test_rayleigh_damping_ratios_equal_the_closed_form():
    # classical (Rayleigh) damping D = alpha M + beta K keeps the undamped modes, so each
    # s = -zeta w + i w sqrt(1 - zeta^2) with zeta = alpha / (2 w) + beta w / 2 exactly
    mesh = kanefem.Mesh.rectangle(1.0, 0.1, 40, 4, cell="quad")
    plate = kanefem.MeshBody(mesh, E=E, nu=0.3, rho=RHO, thickness=0.01)
    sup = {lambda x: x[:, 0] == 0.0: "fixed"}
    lam = plate.eigenvalues(4, supports=sup, solver="sparse")
    alpha, beta = 2.0, 2e-5
    g = plate.gyroscopic_eigenvalues([0.0], [0.0], 4, supports=sup, rayleigh=(alpha, beta))
    w = np.sqrt(lam.eigenvalues)
    zeta = alpha / (2 * w) + beta * w / 2
    assert np.allclose(g.damping_ratios[0], zeta, rtol=1e-8, atol=0)
    exact = -zeta * w + 1j * w * np.sqrt(1 - zeta**2)
    # the error of the reference (through lambda's bound) plus the gyroscopic bound
    ref_err = lam.error_bounds / (2 * w) * 2 + 1e-12 * w
    assert np.all(np.abs(g.s[0] - exact) <= g.error_bounds[0] + ref_err)
    df = g.to_dataframe() if _has_pandas() else None
    if df is not None:
        assert np.allclose(df["zeta"].to_numpy(), zeta)
        assert "error_bound_rad_s" in df


def _has_pandas():
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def test_damped_gyroscopic_continuation_over_a_spin_up_of_a_meshed_disc_agrees_with_full_solves():
    mesh = kanefem.Mesh.annulus(0.05, 0.2, 3, 24, cell="quad")
    disc = kanefem.MeshBody(mesh, E=E, nu=0.3, rho=RHO, thickness=0.005)
    hub = {lambda x: np.hypot(x[:, 0], x[:, 1]) < 0.0501: "fixed"}
    om = np.linspace(0.0, 300.0, 30)
    r = disc.gyroscopic_eigenvalues(om, np.zeros_like(om), 4, supports=hub, rayleigh=(1.0, 1e-6),
                                    solver="sparse")
    assert r.stats["continued"] >= 25, r.stats
    # each instant on its own (a full solve every time: one instant per call)
    for k in (0, 13, 29):
        one = disc.gyroscopic_eigenvalues(om[k:k + 1], [0.0], 4, supports=hub, rayleigh=(1.0, 1e-6),
                                          solver="sparse")
        assert np.all(np.abs(r.s[k] - one.s[0]) <= r.error_bounds[k] + one.error_bounds[0])
    assert np.all(r.error_bounds <= 1e-6 * np.abs(r.s))


def test_sparse_gyroscopic_of_a_mesh_equals_the_dense_core_undamped():
    mesh = kanefem.Mesh.box(0.4, 0.04, 0.04, 10, 2, 2)
    bar = kanefem.MeshBody(mesh, E=E, nu=0.3, rho=RHO)
    sup = {lambda x: x[:, 0] == 0.0: "fixed"}
    om = np.array([[0.0, 0.0, 200.0], [50.0, 0.0, 150.0]])
    d = bar.gyroscopic_eigenvalues(om, np.zeros((2, 3)), 4, supports=sup, solver="dense")
    s = bar.gyroscopic_eigenvalues(om, np.zeros((2, 3)), 4, supports=sup, solver="sparse")
    assert np.all(np.abs(s.s - d.s) <= s.error_bounds + 1e-9 * np.abs(d.s))


def test_damping_needs_the_sparse_solver_and_bad_rayleigh_is_named():
    beam = _planar_beam(8)
    with pytest.raises(ValueError, match="rayleigh"):
        beam.gyroscopic_eigenvalues([0.0], [0.0], 2, rayleigh=(1.0, 0.0), solver="dense")
    with pytest.raises(ValueError, match="rayleigh"):
        beam.gyroscopic_eigenvalues([0.0], [0.0], 2, rayleigh=(1.0,))
    with pytest.raises(ValueError, match="solver"):
        beam.eigenvalues(2, solver="lapack")
    # a small damped body: the sparse path solves it (dense QZ of the small problem)
    r = beam.gyroscopic_eigenvalues([0.0], [0.0], 2, rayleigh=(1.0, 0.0))
    w = np.sqrt(beam.eigenvalues(2).eigenvalues)
    assert np.allclose(r.damping_ratios[0], 1.0 / (2 * w), rtol=1e-7)


def test_campbell_diagram_draws_damping_ratios():
    plt = pytest.importorskip("matplotlib.pyplot")
    from kanefem._results import campbell

    x = np.linspace(0, 100, 5)
    f = np.column_stack([10 + 0.01 * x, 20 - 0.01 * x])
    z = np.column_stack([0.01 + 0 * x, 0.02 + 0 * x])
    ax = campbell(x, f, damping=z)
    twins = [a for a in ax.figure.axes if a is not ax]
    assert len(twins) == 1 and len(twins[0].get_lines()) == 2
    assert np.allclose(twins[0].get_lines()[1].get_ydata(), 0.02)
    plt.close(ax.figure)


# ---------------------------------------------------------------- issue 19: the C kernels


def test_dot2_products_in_the_core_bound_their_error_against_40_digits():
    # rows with cancellation down to ~1e-12 of their terms (a stiff K times a smooth
    # vector): the plain double product loses those digits, Dot2 keeps them; its bound
    # (u |y| + gamma_L^2 |A| |x| + gamma_{L+2} |A| |xlo|, Ogita-Rump-Oishi) must contain the
    # exact error, evaluated with every entry exact in 40 digits
    mpmath = pytest.importorskip("mpmath")
    import scipy.sparse as sp

    from kanefem import _core

    rng = np.random.default_rng(7)
    n, L = 40, 9
    rows, cols, vals = [], [], []
    for i in range(n):
        j = rng.choice(n, L, replace=False)
        v = rng.standard_normal(L) * 10.0 ** rng.integers(0, 12, L)
        v[-1] = -v[:-1].sum() + 1e-3 * rng.standard_normal()  # near cancellation against x = 1
        rows += [i] * L
        cols += list(j)
        vals += list(v)
    A = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    X = 1.0 + 1e-9 * rng.standard_normal((n, 3))
    Xl = X * 1e-17 * rng.standard_normal((n, 3))
    y, err = _core.csr_dot2(indptr=A.indptr.astype(np.int32), indices=A.indices.astype(np.int32),
                            values=A.data, x=X, xlo=Xl)
    plain = A @ (X + Xl)
    worse = 0
    with mpmath.workdps(40):
        for i in range(n):
            for c in range(3):
                exact = mpmath.fsum(mpmath.mpf(float(A.data[q])) * (mpmath.mpf(float(X[A.indices[q], c]))
                                                                     + mpmath.mpf(float(Xl[A.indices[q], c])))
                                    for q in range(A.indptr[i], A.indptr[i + 1]))
                e = abs(mpmath.mpf(float(y[i, c])) - exact)
                assert e <= err[i, c], (i, c, float(e), err[i, c])
                # rounded once: within one rounding of the exact value, plus the bound's eps^2 part
                assert e <= 2 * np.finfo(float).eps * abs(float(exact)) + err[i, c]
                worse += abs(mpmath.mpf(float(plain[i, c])) - exact) > 100 * e
    assert worse > n  # the plain product is far off on most of these rows


def test_dot2_binding_refuses_bad_csr_by_name():
    from kanefem import _core

    ip, ix, v = np.array([0, 1, 2], np.int32), np.array([0, 5], np.int32), np.ones(2)
    with pytest.raises(ValueError, match="indices"):
        _core.csr_dot2(indptr=ip, indices=ix, values=v, x=np.ones((2, 1)))
    with pytest.raises(ValueError, match="indptr"):
        _core.csr_dot2(indptr=np.array([0, 2, 1], np.int32), indices=np.array([0], np.int32), values=np.ones(1),
                       x=np.ones((2, 1)))
    with pytest.raises(TypeError, match="int32"):
        _core.csr_dot2(indptr=ip.astype(np.int64), indices=ix, values=v, x=np.ones((2, 1)))


def test_eigcont_binding_refuses_bad_arguments_by_name():
    # the continuation's binding: a 4 x 4 pencil K = tridiag(-1, 2, -1), M = I, one term (I)
    from kanefem import _core

    ip = np.array([0, 2, 5, 8, 10], np.int32)
    ix = np.array([0, 1, 0, 1, 2, 1, 2, 3, 2, 3], np.int32)
    kv = np.array([2.0, -1, -1, 2, -1, -1, 2, -1, -1, 2])
    mi = (np.arange(5, dtype=np.int32), np.arange(4, dtype=np.int32), np.ones(4))
    terms = (ix == np.repeat(np.arange(4), np.diff(ip))).astype(float)[None, :]
    args = dict(K=(ip, ix, kv), M=mi, P=(ip, ix), terms=terms, mf=np.ones((4, 1)), p=3, ms=2)
    cap = _core.eigcont_create(**args)
    with pytest.raises(ValueError, match="basis"):  # no basis yet
        _core.eigcont_run(cap, np.zeros((1, 1)), np.zeros(1), np.zeros(1), 1e-8, False, (0,) * 5)
    with pytest.raises(ValueError, match="shape"):
        _core.eigcont_set(cap, basis=np.ones((4, 2)))
    with pytest.raises(ValueError, match="coef"):
        _core.eigcont_run(cap, np.zeros((1, 2)), np.zeros(1), np.zeros(1), 1e-8, False, (0,) * 5)
    with pytest.raises(TypeError, match="continuation context"):
        _core.eigcont_run("cap", np.zeros((1, 1)), np.zeros(1), np.zeros(1), 1e-8, False, (0,) * 5)
    with pytest.raises(ValueError, match="n_modes"):
        _core.eigcont_create(**dict(args, p=2))
    with pytest.raises(ValueError, match="terms"):
        _core.eigcont_create(**dict(args, terms=np.ones((1, 3))))
    with pytest.raises(ValueError, match="indices"):
        _core.eigcont_create(**dict(args, K=(ip, np.where(ix == 3, 7, ix).astype(np.int32), kv)))
    # a run: lambda = 2 - 2 cos(j pi / 5) + c at c = 0 and 0.5 (L: the third exactly, less 0.01)
    _core.eigcont_set(cap, factor=np.column_stack([np.sqrt([2.0, 1.5, 4 / 3, 1.25]),
                                                   -1 / np.sqrt([2.0, 1.5, 4 / 3, 1.25])]),
                      basis=np.sin(np.outer(np.arange(1, 5), np.arange(1, 4)) * np.pi / 5))
    lam = 2 - 2 * np.cos(np.arange(1, 4) * np.pi / 5)
    r = _core.eigcont_run(cap, np.array([[0.0], [0.5]]), lam[2] + np.array([0.0, 0.5]) - 0.01, np.zeros(2),
                          1e-8, True, (0,) * 5)
    assert r["done"] == 2 and r["stats"][0] == 2, r
    exact = lam[:2] + np.array([[0.0], [0.5]])
    assert np.all(np.abs(r["theta"] - exact) <= r["bounds"]) and np.all(r["bounds"] <= 1e-14), r


def test_band_cholesky_solves_as_lapack_and_proves_definiteness():
    # a line body's shift-invert factor: the core's band Cholesky against LAPACK's
    # (SciPy's cholesky_banded / cho_solve_banded, lower form) on a random band matrix,
    # to the solve's round-off (cond ~1e3 here: 1e-12); a matrix with a negative
    # eigenvalue is refused (Sylvester's inertia: a Cholesky pivot <= 0)
    import scipy.linalg as la

    from kanefem import _core
    from kanefem.sparse import BandFactor

    rng = np.random.default_rng(3)
    n, b = 200, 5
    ab = rng.uniform(-1.0, 1.0, (n, b + 1))  # ab[j, d] = A(j + d, j)
    ab[n - np.arange(n)[:, None] <= np.arange(b + 1)[None, :]] = 0.0  # rows beyond the last
    ab[:, 0] = 2.0 * b + 1.0 + rng.uniform(0.0, 1.0, n)  # diagonally dominant: definite
    Lp = np.ascontiguousarray(ab.T)  # LAPACK's lower band layout, (b + 1, n)
    B = rng.standard_normal((n, 4))
    ref = la.cho_solve_banded((la.cholesky_banded(Lp, lower=True), True), B)
    L = _core.band_cholesky(ab=ab)
    x = _core.band_cholesky_solve(L=L, b=B)
    np.testing.assert_allclose(x, ref, rtol=0, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_allclose(_core.band_cholesky_solve(L=L, b=B[:, 0]), ref[:, 0], rtol=0,
                               atol=1e-12 * np.abs(ref).max())
    import scipy.sparse as sp

    A = sp.diags([Lp[0]] + [Lp[d, : n - d] for d in range(1, b + 1)] * 2,
                 [0] + [-d for d in range(1, b + 1)] + list(range(1, b + 1)), format="csr")
    np.testing.assert_allclose(A @ x, B, rtol=0, atol=1e-12 * np.abs(B).max())
    lam_min = np.linalg.eigvalsh(A.toarray())[0]
    with pytest.raises(RuntimeError, match="not positive definite"):
        BandFactor(A - (lam_min + 1e-3) * sp.eye(n), True)
    with pytest.raises(kanefem.LinAlgError, match="not positive definite"):
        _core.band_cholesky(ab=np.array([[1.0, 2.0], [1.0, 0.0]]))  # [[1, 2], [2, 1]]: eigenvalues 3, -1


def test_spinning_beam3d_keeps_k_and_k_om_apart_40_digits():
    # A = K + K_om of a spinning clamped-free Beam3D: K's entries reach ~1e9 lambda_1, so the
    # rounded sum fl(K + K_om) (what a user hands eigsh, and what the sparse path factored
    # before issue 19's split) moves lambda_1 by ~1e-7 relative at 200 elements (2e-4 at
    # 1000).  The sparse path forms A u as Dot2(K, u) + K_om u: its eigenvalues agree with
    # the 50-digit Rayleigh quotient of K + K_om at the returned mode (exact to second
    # order in the mode's rounding, ~1e-20 relative) within the certificates, which the
    # rounded sum's quotient misses by 1e5 times them
    mpmath = pytest.importorskip("mpmath")
    from kanefem.sparse import SparseEigen, eigen_solve

    shaft = kanefem.Beam3D(1.0, 200, E=E, A=1e-4, Izz=1e-8, Iyy=2e-8, J=2e-8, rho=RHO, storage="banded")
    om = np.array([[20.0, 50.0, 120.0], [24.0, 45.0, 125.0]])  # one instant by ARPACK; a grid continued
    ctx = SparseEigen(shaft, shaft.support_mask("clamped-free"))
    frame = fr.from_rates(om, np.zeros_like(om), None, instants=True, dim=3)
    for t, (lam, _, shapes, st) in enumerate([eigen_solve(ctx, frame[:1], 2, False, True, False),
                                              eigen_solve(ctx, frame, 2, False, True, False)]):
        assert st["continued"] == 2 * t, st
        A, _, D = ctx.matrix(frame[t], False, None, split=True)
        A = A.formed()  # the rounded sum fl(K + K_om)
        free = ctx.red.free

        def quad(X, xs):
            c = X.tocoo()
            return mpmath.fsum(mpmath.mpf(float(d)) * xs[i] * xs[j] for d, i, j in zip(c.data, c.row, c.col))

        with mpmath.workdps(50):
            for k in range(2):
                xs = [mpmath.mpf(float(v)) for v in shapes[t][free, k]]
                m = quad(ctx.M, xs)
                exact = (quad(ctx.K, xs) + quad(D, xs)) / m
                rounded = quad(A, xs) / m
                bound = st["error_bounds"][t][k]
                assert abs(lam[t][k] - float(exact)) <= bound, (t, k, lam[t][k] - float(exact), bound)
                assert bound <= 1e-8 * lam[t][k]  # the continuation's acceptance (CERT_TOL)
                assert abs(float(rounded - exact)) > 10 * bound


def test_core_continuation_with_k_g_holds_the_50_digit_rayleigh_quotients():
    # The core's continuation over a grid (kf_eigcont) of a spinning, axially loaded
    # clamped-free Beam3D: A(t) = K + sum WW_ij(t) S_ij + sum c_k(t) KG_k, the K_G terms
    # stiff (summed error-free into K, Dot2 over the sum).  Instant 2 is loaded past the
    # first buckling load: the Weyl brackets prove nothing there, the core stops, ARPACK
    # solves it and the core continues from its basis.  Every returned eigenvalue is within
    # its certificate of the 50-digit Rayleigh quotient of the exact A(t) (each stored
    # matrix's entries and the coefficients from the given omega exact) at the returned
    # mode: that quotient is the eigenvalue to second order in the mode's rounding (~1e-20
    # relative), and the dense path, which forms fl(A), is 1e-6..1e-5 away from it.
    mpmath = pytest.importorskip("mpmath")
    import scipy.sparse as sp

    shaft = kanefem.Beam3D(1.0, 40, E=E, A=1e-4, Izz=1e-8, Iyy=2e-8, J=2e-8, rho=RHO, storage="banded")
    om = 182.4 * np.array([[0.1, 0.2, 0.3], [0.12, 0.2, 0.31], [0.15, 0.1, 0.2], [0.15, 0.12, 0.2],
                           [0.05, 0.0, 0.1]])
    ax = np.array([[-1500.0, 0.0, 0.0], [-1000.0, 50.0, 0.0], [-6000.0, 0.0, 0.0], [-500.0, 0.0, 20.0],
                   [0.0, 0.0, 0.0]])  # (c0, c1, c2) of N(x) [N, N/m, N/m^2]; P_cr ~ 5.2 kN
    r = shaft.eigenvalues_vs_time(om, np.zeros_like(om), 2, supports="clamped-free", include_eps=False,
                                  geometric_stiffness=True, axial_force=ax, solver="sparse")
    st = r.stats
    assert (st["continued"], st["full_solves"]) == (4, 1), st  # the core's 4, ARPACK's 1
    assert r.eigenvalues[2, 0] < 0.0  # past buckling: the ARPACK instant
    free = np.flatnonzero(~shaft.support_mask("clamped-free"))

    def reduced(X):
        return sp.csr_matrix(X)[free][:, free].tocoo()

    K, M = reduced(shaft.stiffness_matrix()), reduced(shaft.mass_matrix())
    S = shaft.inertia_invariants()["S"]
    S = {(i, j): reduced(S[i][j]) for i in range(3) for j in range(3)}
    G = [reduced(shaft.geometric_stiffness(np.eye(3)[k])) for k in range(3)]
    with mpmath.workdps(50):
        for t in range(om.shape[0]):
            w = [mpmath.mpf(float(v)) for v in om[t]]
            ww = {(i, j): w[i] * w[j] - (sum(v * v for v in w) if i == j else 0) for i, j in S}
            for k in range(2):
                xs = [mpmath.mpf(float(v)) for v in r.mode_shapes[t][free, k]]

                def quad(X):
                    return mpmath.fsum(mpmath.mpf(float(a)) * xs[i] * xs[j] for a, i, j in zip(X.data, X.row, X.col))

                num = quad(K) + sum(ww[ij] * quad(X) for ij, X in S.items()) \
                    + sum(mpmath.mpf(float(ax[t, q])) * quad(X) for q, X in enumerate(G))
                exact = float(num / quad(M))
                bound = r.error_bounds[t, k]
                assert abs(r.eigenvalues[t, k] - exact) <= bound, (t, k, r.eigenvalues[t, k] - exact, bound)
                assert bound <= 1e-8 * (abs(exact) + om[t] @ om[t])  # the continuation's acceptance


def test_one_refinement_step_reaches_the_floor_and_the_certificate_holds_40_digits():
    # a 3000-element pinned-pinned beam (||K|| / lambda_1 ~ 1e14): ARPACK's pairs carry
    # the rounding of double vectors (certificates ~3e-5 relative at lambda_1); one step of
    # inverse iteration in twice the precision, each column deflated against the lower ones
    # only, takes every bound to the floor of the stored matrices' rounding (~4e-12
    # relative; deflating against the higher columns too had made every other step worse
    # than none), and the 40-digit Rayleigh quotient of each returned mode is within it
    mpmath = pytest.importorskip("mpmath")
    import scipy.sparse as sp

    beam = kanefem.PlanarBeam(1.0, 3000, E=E, A=1e-4, I=1e-8, rho=RHO, storage="banded")
    r = beam.eigenvalues(2, mode_shapes=True)
    assert np.all(r.error_bounds <= 1e-11 * r.eigenvalues), r.error_bounds / r.eigenvalues
    free = np.flatnonzero(~beam.support_mask("pinned-pinned"))
    K, M = (sp.csr_matrix(X)[free][:, free].tocoo() for X in (beam.stiffness_matrix(), beam.mass_matrix()))
    with mpmath.workdps(40):
        for k in range(2):
            xs = [mpmath.mpf(float(v)) for v in r.mode_shapes[free, k]]

            def quad(A):
                return mpmath.fsum(mpmath.mpf(float(a)) * xs[i] * xs[j] for a, i, j in zip(A.data, A.row, A.col))

            rq = float(quad(K) / quad(M))
            # the quotient of the returned (double) mode exceeds the eigenvalue by
            # ~(eps ||K|| |u|)^2 / gap, 1e-20 relative here: the reference is exact enough
            assert abs(r.eigenvalues[k] - rq) <= r.error_bounds[k], (k, r.eigenvalues[k] - rq, r.error_bounds[k])


def test_damped_gyroscopic_bounds_contain_the_40_digit_eigenvalues():
    # The sparse QEP path over a grid of a spinning clamped-free Beam3D with 1 % Rayleigh
    # damping: P(s) = s^2 M + s (2 sum W_ij S_ij + alpha M + beta K) + K + sum (WW)_ij S_ij,
    # K kept apart from the motion terms and refined in twice the precision (section 3.17).
    # Reference: each eigenvalue of the exact P (the stored matrices' entries, the given
    # omega, alpha and beta exact) by Newton on the bordered system
    # [P(s) x; c^T x - 1] = 0 in 40-digit arithmetic (mpmath), the correction solved with
    # the double Jacobian (linear convergence at ~1e-6 a step; iterated to 1e-30).  Every
    # computed eigenvalue lies within its first-order bound of that eigenvalue, and the
    # bounds are small (the continuation accepts at the rounding floor, not above it).
    # Measured: errors 2e-18..1.4e-16 relative, bounds 1e-12..3e-8 (first order in the
    # residual; the Newton-corrected s is second order).
    mpmath = pytest.importorskip("mpmath")
    import scipy.linalg as sl
    import scipy.sparse as sp

    shaft = kanefem.Beam3D(1.0, 40, E=E, A=1e-4, Izz=1e-8, Iyy=2e-8, J=2e-8, rho=RHO, storage="banded")
    w = np.sqrt(shaft.eigenvalues(2, supports="clamped-free").eigenvalues)
    beta = 2 * 0.01 / (w[0] + w[1])
    alpha = beta * w[0] * w[1]
    om = 0.3 * w[0] * np.array([[0.2, 0.3, 1.0], [0.25, 0.25, 1.05]])
    r = shaft.gyroscopic_eigenvalues(om, np.zeros_like(om), 4, supports="clamped-free", include_eps=False,
                                     rayleigh=(alpha, beta), solver="sparse")
    assert r.stats["continued"] == 1 and r.stats["full_solves"] == 1, r.stats  # ARPACK, then continued
    free = np.flatnonzero(~shaft.support_mask("clamped-free"))
    n = free.size

    def reduced(X):
        return sp.csr_matrix(X)[free][:, free].tocoo()

    K, M = reduced(shaft.stiffness_matrix()), reduced(shaft.mass_matrix())
    S = shaft.inertia_invariants()["S"]
    S = {(i, j): reduced(S[i][j]) for i in range(3) for j in range(3)}
    with mpmath.workdps(40):
        a_, b_ = mpmath.mpf(float(alpha)), mpmath.mpf(float(beta))

        def entries(X, c=1):
            return [(i, j, c * mpmath.mpf(float(v))) for v, i, j in zip(X.data, X.row, X.col)]

        Kmp, Mmp = entries(K), entries(M)
        for t in range(om.shape[0]):
            wv = [mpmath.mpf(float(v)) for v in om[t]]
            Wm = [[0, -wv[2], wv[1]], [wv[2], 0, -wv[0]], [-wv[1], wv[0], 0]]
            D, G = [], []
            for (i, j), X in S.items():
                ww = wv[i] * wv[j] - (sum(v * v for v in wv) if i == j else 0)
                D += entries(X, ww)
                if Wm[i][j] != 0:
                    G += entries(X, 2 * Wm[i][j])
            # P(s) x = (1 + beta s) K x + D x + s (G + alpha M) x + s^2 M x
            parts = [(Kmp, lambda s: 1 + b_ * s), (D, lambda s: 1), (G, lambda s: s),
                     (Mmp, lambda s: a_ * s + s * s)]

            def residual(s, x):
                y = [mpmath.mpc(0)] * n
                for ent, coef in parts:
                    c = coef(s)
                    for i, j, v in ent:
                        y[i] += c * v * x[j]
                return y

            Kd = K.toarray()
            Md = M.toarray()
            Dd = sum(float(ww) * S[ij].toarray() for ij, ww in
                     (((i, j), om[t][i] * om[t][j] - (om[t] @ om[t] if i == j else 0)) for i, j in S))
            Wd = np.array([[0, -om[t][2], om[t][1]], [om[t][2], 0, -om[t][0]], [-om[t][1], om[t][0], 0]])
            Cd = sum(2 * Wd[i, j] * S[i, j].toarray() for i, j in S) + alpha * Md + beta * Kd
            for k in range(4):
                s0 = r.s[t, k]
                P = Kd + Dd + s0 * Cd + s0 * s0 * Md
                x0 = np.linalg.solve(P, np.ones(n))  # inverse iteration from s0: the eigenvector
                x0 = x0 / x0[np.argmax(np.abs(x0))]
                c = np.zeros(n)
                c[np.argmax(np.abs(x0))] = 1.0
                J = np.zeros((n + 1, n + 1), dtype=complex)
                J[:n, :n] = P
                J[:n, n] = (2 * s0 * Md + Cd) @ x0
                J[n, :n] = c
                lu = sl.lu_factor(J)
                x = [mpmath.mpc(complex(v)) for v in x0]
                s = mpmath.mpc(complex(s0))
                for _ in range(12):
                    F = residual(s, x) + [mpmath.fsum(ci * xi for ci, xi in zip(c, x) if ci) - 1]
                    d = sl.lu_solve(lu, np.array([complex(v) for v in F]))
                    x = [xi - complex(di) for xi, di in zip(x, d[:n])]
                    s = s - complex(d[n])
                    if abs(d[n]) <= 1e-30 * abs(s0):
                        break
                assert abs(d[n]) <= 1e-30 * abs(s0), (t, k, abs(d[n]))
                err = abs(complex(s - mpmath.mpc(complex(s0))))
                bound = r.error_bounds[t, k]
                assert err <= bound, (t, k, err, bound)
                assert bound <= 1e-6 * abs(s0), (t, k, bound)
