"""Constraints on banded and sparse bodies of any size (docs/theory.md section 3.3): the
sparse elimination basis (one slave DOF per constraint row), the eigen paths, the
integrators and K_G on the projected matrices, against the dense Maggi route (an
orthonormal basis by QR) where both run, against supports where the constraint is one,
and against closed forms."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import kanefem
from kanefem import Mesh, MeshBody, Motion, simulate

E, A, I, RHO = 2.1e11, 1e-4, 1e-8, 7800.0
EI, RA = E * I, RHO * A


def beam(n, length=1.0, **kw):
    return kanefem.PlanarBeam(length, n, E=E, A=A, I=I, rho=RHO, **kw)


def clamp_x0(x):
    return np.isclose(x[:, 0], 0.0)


def roller_and_tie(b):
    """An inclined roller at the middle node (u cos a + v sin a = 0, a = 0.3) and a tie
    v_5 = v_15 (two nodes moving together across the span)."""
    G = np.zeros((2, b.ndof))
    mid = 3 * (b.n_nodes // 2)
    G[0, mid], G[0, mid + 1] = math.cos(0.3), math.sin(0.3)
    G[1, 3 * 5 + 1], G[1, 3 * 15 + 1] = 1.0, -1.0
    return G


# ---------------------------------------------------------------- the basis


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 40), data=st.data())
def test_elimination_basis_spans_the_null_space(seed, n, data):
    """G T = 0 to round-off, one unit row per master (z = d[masters]), and the span of
    maggi_basis' orthonormal B (the projection of T on it is T itself): random sparse
    constraints of at most n - 1 independent rows, some DOFs fixed."""
    rng = np.random.default_rng(seed)
    m = data.draw(st.integers(1, max(1, n // 2)))
    G = sp.random(m, n, density=min(1.0, 3.0 / n), random_state=rng, format="csr")
    G = G[np.diff(G.indptr) > 0]
    fixed = rng.random(n) < 0.1
    G = G[np.asarray(abs(G[:, ~fixed]).sum(axis=1)).ravel() > 0]  # rows on free DOFs
    full = np.vstack([G.toarray(), np.eye(n)[fixed]])
    rank = np.linalg.matrix_rank(full)
    if rank < full.shape[0]:  # dependent rows: named, and refused
        with pytest.raises(ValueError, match="depend on the others"):
            kanefem.elimination_basis(G, fixed=fixed)
        return
    T, masters = kanefem.elimination_basis(G, fixed=fixed)
    assert T.shape == (n, n - rank) and sp.issparse(T) and masters.shape == (n - rank,)
    if n == rank:  # everything held
        return
    assert np.abs(full @ T.toarray()).max() <= 1e-12 * max(1.0, abs(T).max())
    np.testing.assert_array_equal(T[masters].toarray(), np.eye(n - rank))
    B = kanefem.maggi_basis(full)
    np.testing.assert_allclose(B @ (B.T @ T.toarray()), T.toarray(), atol=1e-10 * max(1.0, abs(T).max()))


def test_elimination_basis_of_a_chain_and_of_dependent_rows():
    """A chain d_0 = d_1 = ... = d_n (n rows) leaves one master carrying every DOF, in
    O(n) (10^4 rows well under a second); rows that depend on earlier ones are named with
    the rows they combine, a row on fixed DOFs only as such; the pivot is a coefficient
    within PIVOT_THRESHOLD of the row's largest (never the tiny one)."""
    n = 10001
    G = sp.diags([np.ones(n - 1), -np.ones(n - 1)], [0, 1], shape=(n - 1, n), format="csr")
    T, masters = kanefem.elimination_basis(G)
    assert T.shape == (n, 1) and T.nnz == n and np.all(T.data == 1.0)
    with pytest.raises(ValueError, match=r"row 2 \(of rows 0, 1\)"):
        kanefem.elimination_basis([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 2.0, 1.0]])
    with pytest.raises(ValueError, match="row 0 .*only DOFs the supports fix"):
        kanefem.elimination_basis([[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]], fixed=[True, False, False])
    T, masters = kanefem.elimination_basis([[1e-12, 1.0, 0.5]])
    assert 0 in masters and 1 not in masters  # the slave is d_1, not the tiny d_0
    with pytest.raises(ValueError, match="rtol"):
        kanefem.elimination_basis([[1.0, 1.0]], rtol=1.5)
    with pytest.raises(ValueError, match="fixed"):
        kanefem.elimination_basis([[1.0, 1.0]], fixed=[True])
    with pytest.raises(TypeError, match="constraints"):
        kanefem.elimination_basis([["a", 1.0]])


# ---------------------------------------------------------------- the eigen paths


@pytest.mark.parametrize("eps", [0.0, 300.0])
def test_sparse_route_gives_the_dense_maggi_route(eps):
    """A 20-element beam, pinned-pinned, with an inclined roller and a tie: the
    elimination basis (solver='sparse') and the orthonormal QR basis (solver='dense')
    give the same eigenvalues and M-normalized mode shapes (signs by the rule of section
    3.9) to 1e-9 (the dense solver's round-off on a spectrum spread of 1e5: measured
    5e-12 on the values, 8e-11 on the shapes), symmetric and with K_eps; G phi = 0."""
    b = beam(20)
    G = roller_and_tie(b)
    rd = b.eigenvalues(5, 20.0, eps, supports="pinned-pinned", constraints=G, solver="dense")
    rs = b.eigenvalues(5, 20.0, eps, supports="pinned-pinned", constraints=G, solver="sparse")
    assert rs.solver == rd.solver == ("general" if eps else "symmetric")
    np.testing.assert_allclose(rs.eigenvalues, rd.eigenvalues, rtol=1e-9)
    np.testing.assert_allclose(rs.mode_shapes, rd.mode_shapes, rtol=0, atol=1e-9 * np.abs(rd.mode_shapes).max())
    assert np.abs(G @ rs.mode_shapes).max() <= 1e-14 * np.abs(rs.mode_shapes).max()
    assert np.all(rs.error_bounds <= 1e-8 * rs.eigenvalues)
    # over time, tracked, and the banded beam's automatic route is the sparse one
    bb = beam(20, storage="banded")
    w = np.linspace(0.0, 40.0, 5)
    rt = bb.eigenvalues_vs_time(w, np.full(5, eps), 3, supports="pinned-pinned", constraints=G, order="tracked")
    rdt = b.eigenvalues_vs_time(w, np.full(5, eps), 3, supports="pinned-pinned", constraints=G, order="tracked",
                                solver="dense")
    assert "continued" in rt.stats or "shifted" in rt.stats
    np.testing.assert_allclose(rt.eigenvalues, rdt.eigenvalues, rtol=1e-9)


def test_gyroscopic_and_geometric_through_the_elimination_basis():
    """A spinning clamped-free Beam3D whose middle node's v and w move together and whose
    rotations at two nodes are tied: gyroscopic eigenvalues of the two routes to 1e-8 (the
    sparse route's continuation accepts residuals of 1e-8), and with a constant tension
    (K_G) the eigenvalues of the two routes to 2e-8 (the dense solver's round-off, eps
    lambda_max / lambda_k: 3.4e-9 measured at the first), stiffer than without."""
    b = kanefem.Beam3D(1.0, 30, E=E, A=A, Izz=I, Iyy=2 * I, J=3 * I, rho=RHO)
    G = np.zeros((2, b.ndof))
    G[0, 6 * 15 + 1], G[0, 6 * 15 + 2] = 1.0, -1.0
    G[1, 6 * 10 + 3], G[1, 6 * 20 + 3] = 1.0, 1.0
    om = np.array([[0.0, 0.0, 30.0], [0.0, 0.0, 60.0]])
    rd = b.gyroscopic_eigenvalues(om, np.zeros((2, 3)), 4, supports="clamped-free", constraints=G, solver="dense")
    rs = b.gyroscopic_eigenvalues(om, np.zeros((2, 3)), 4, supports="clamped-free", constraints=G, solver="sparse")
    np.testing.assert_allclose(rs.s, rd.s, rtol=1e-8)
    N = (2e3, 0.0, 0.0)
    kw = dict(supports="clamped-free", constraints=G, geometric_stiffness=True, axial_force=N)
    gd, gs = (b.eigenvalues(4, (0.0, 0.0, 30.0), solver=s, **kw) for s in ("dense", "sparse"))
    np.testing.assert_allclose(gs.eigenvalues, gd.eigenvalues, rtol=2e-8)
    plain = b.eigenvalues(4, (0.0, 0.0, 30.0), supports="clamped-free", constraints=G, solver="sparse")
    assert np.all(gs.eigenvalues > plain.eigenvalues)


def test_two_spans_by_a_constraint_against_the_closed_form():
    """v = 0 at the middle of a pinned-pinned beam, as a constraint: a continuous beam of
    two equal spans, whose lowest mode is antisymmetric with a node of zero moment at the
    middle support: each span a pinned-pinned beam of L/2, lambda_1 = (2 pi / L)^4 EI /
    (rho A).  200 elements: within 1e-8 (the element's h^4 error, measured 5e-10)."""
    b = beam(200, storage="banded")
    mid = 3 * 100 + 1
    G = sp.csr_matrix(([1.0], ([0], [mid])), shape=(1, b.ndof))
    r = b.eigenvalues(2, supports="pinned-pinned", constraints=G)
    exact = (2 * math.pi) ** 4 * EI / RA
    assert abs(r.eigenvalues[0] / exact - 1) < 1e-8
    assert r.error_bounds[0] <= 1e-8 * exact


def test_a_mesh_with_constraints_and_its_prestress():
    """A quad8 cantilever whose tip nodes move together across (a rigid tip in y) and
    whose tip's middle node rolls on an inclined track: the sparse and the dense route
    agree to 1e-9.  With K_G from the prestress (section 2.11) the static fields satisfy
    the constraints and the projected equilibrium T^T (K u - f) = 0; constraints that
    are supports give the supports' K_G eigenvalues (1e-9)."""
    b = MeshBody(Mesh.rectangle(0.4, 0.05, 16, 2, cell="quad8"), E=210e9, nu=0.3, rho=7850.0, thickness=0.01)
    sup = {clamp_x0: "fixed"}
    tip = np.flatnonzero(np.isclose(b.nodes[:, 0], 0.4))
    rows = []
    for t in tip[1:]:
        g = np.zeros(b.ndof)
        g[2 * t + 1], g[2 * tip[0] + 1] = 1.0, -1.0
        rows.append(g)
    g = np.zeros(b.ndof)
    g[2 * tip[0]], g[2 * tip[0] + 1] = math.cos(0.4), math.sin(0.4)
    G = np.array(rows + [g])
    rd = b.eigenvalues(4, 50.0, 0.0, supports=sup, constraints=G, solver="dense")
    rs = b.eigenvalues(4, 50.0, 0.0, supports=sup, constraints=sp.csr_matrix(G), solver="sparse")
    np.testing.assert_allclose(rs.eigenvalues, rd.eigenvalues, rtol=1e-9)
    # the prestress of the constrained motions
    T, masters = kanefem.elimination_basis(G, fixed=b.support_mask(sup))
    U, _ = b._prestress_fields(b.support_mask(sup), T, masters)
    K = b.stiffness_matrix()
    F = np.array([-b._vector("Mo", i) for i in range(2)] + [-b._vector("s", i, j) for i in range(2) for j in range(2)])
    assert np.abs(G @ U.T).max() <= 1e-12 * np.abs(U).max()
    res = T.T @ (K @ U.T - F.T)
    assert np.abs(res).max() <= 1e-9 * np.abs(T.T @ F.T).max()
    # supports written as constraints: the supports' K_G
    free_rows = b.constraint_matrix(sup)
    kw = dict(geometric_stiffness=True, solver="sparse")
    via = b.eigenvalues_vs_time([0.0, 300.0], [0.0, 0.0], 3, constraints=free_rows, **kw)
    direct = b.eigenvalues_vs_time([0.0, 300.0], [0.0, 0.0], 3, supports=sup, **kw)
    np.testing.assert_allclose(via.eigenvalues, direct.eigenvalues, rtol=1e-9)
    assert via.eigenvalues[1, 0] > direct.eigenvalues[0, 0] - 300.0**2  # stiffened against the shift


# ---------------------------------------------------------------- 1e4 elements: eigenvalues and simulate


def test_ten_thousand_elements_with_a_constraint():
    """A 1e4-element planar beam (30,003 DOFs) held at its middle by a constraint
    (u = v = 0 there) against the same beam with a support at its middle node, through
    the eigen path and Newmark: the same physics by two routes (the elimination basis and
    the projection; row and column deletion).  Eigenvalues to 1e-9 (measured 5e-10: the
    refinement's own agreement).  The response to 1e-6 of its largest value: at this
    size Newmark's effective matrix M + h^2/4 K has a condition number near 1e7 even at
    h = 1 us, and the response itself moves by 3e-8 when gravity changes by 4 eps
    (measured, and the routes differ by as much: 3e-8); G d = 0 at every output."""
    N = 10000
    b = beam(N, storage="banded")
    mid = 3 * (N // 2)
    G = sp.csr_matrix(([1.0, 1.0], ([0, 1], [mid, mid + 1])), shape=(2, b.ndof))
    both = {0: "pinned", N // 2: "pinned", N: "pinned"}
    r1 = b.eigenvalues(2, supports="pinned-pinned", constraints=G)
    r2 = b.eigenvalues(2, supports=both)
    np.testing.assert_allclose(r1.eigenvalues, r2.eigenvalues, rtol=1e-9)
    t = np.linspace(0.0, 0.02, 21)
    motion = Motion.from_samples(t, 30.0 * t**2)
    kw = dict(dt=1e-6, t_eval=np.linspace(0.0, 2e-5, 5), progress=False, gravity=(0.0, -9.81))
    s1 = simulate(b, motion, 2e-5, supports="pinned-pinned", constraints=G, **kw)
    s2 = simulate(b, motion, 2e-5, supports=both, **kw)
    assert np.max(np.abs(s1.d - s2.d)) <= 1e-6 * np.max(np.abs(s2.d))
    assert np.abs(G @ s1.d.T).max() == 0.0


# ---------------------------------------------------------------- simulate


def _held_beam(N):
    """A beam of N elements, pinned at its ends, its middle node held by a constraint
    (G) or by a support (both), and nodal loads at the middle and a quarter node."""
    b = beam(N)
    mid = 3 * (N // 2)
    G = np.zeros((2, b.ndof))
    G[0, mid], G[1, mid + 1] = 1.0, 1.0
    Q = np.zeros(b.ndof)
    Q[mid + 1], Q[3 * (N // 4) + 1] = 50.0, 5.0
    return b, G, Q, {0: "pinned", N // 2: "pinned", N: "pinned"}


@pytest.mark.parametrize("method, N", [("newmark", 40), ("generalized-alpha", 40), ("rk45-lagrange", 8)])
def test_simulate_with_constraints_against_the_supports_route(method, N):
    """A beam whose middle node is held by a constraint, with and without K_G, a harmonic
    load on the held node (taken by the constraint) and gravity: the response of the
    same beam supported at its middle node, to 1e-9 (measured 2e-12 to 4e-12); a
    callable load likewise.  RK45 on a coarser beam (an explicit method on a stiff one
    takes 1e5 steps)."""
    b, G, Q, both = _held_beam(N)
    t = np.linspace(0.0, 0.1, 21)
    motion = Motion.from_samples(t, 30.0 * t**2)
    step = {} if method == "rk45-lagrange" else {"dt": 1e-4}
    for geo in (False, True):
        kw = dict(method=method, progress=False, gravity=(0.0, -9.81), geometric_stiffness=geo,
                  t_eval=np.linspace(0.0, 0.02, 5), loads=kanefem.HarmonicLoad(Q, 300.0), **step)
        r1 = simulate(b, motion, 0.02, supports="pinned-pinned", constraints=G, **kw)
        r2 = simulate(b, motion, 0.02, supports=both, **kw)
        assert np.max(np.abs(r1.d - r2.d)) <= 1e-9 * np.max(np.abs(r2.d)), geo
        assert np.abs(G @ r1.d.T).max() == 0.0
    kw = dict(method=method, progress=False, loads=lambda t_: Q * math.sin(300.0 * t_),
              t_eval=np.linspace(0.0, 0.02, 5), **step)
    r3 = simulate(b, motion, 0.02, supports="pinned-pinned", constraints=G, **kw)
    r4 = simulate(b, motion, 0.02, supports=both, **kw)
    assert np.max(np.abs(r3.d - r4.d)) <= 1e-9 * np.max(np.abs(r4.d))


def test_simulate_refuses_what_constraints_do_not_take():
    """d0 that violates the constraints, ModalDamping, Hamilton's momentum: refused by
    name; the dense Maggi route beyond 5000 DOFs: NotSupportedError naming the sparse
    route."""
    b = beam(10)
    G = np.zeros((1, b.ndof))
    G[0, 4], G[0, 7] = 1.0, -1.0  # v_1 = v_2
    m = Motion.constant_speed(5.0)
    d0 = np.zeros(b.ndof)
    d0[4] = 1e-4
    with pytest.raises(ValueError, match="d0 violates the constraints"):
        simulate(b, m, 0.01, dt=1e-4, constraints=G, d0=d0, progress=False)
    d0[7] = 1e-4
    r = simulate(b, m, 0.001, dt=1e-4, constraints=G, d0=d0, progress=False)
    assert r.d[0, 4] == r.d[0, 7] == 1e-4
    with pytest.raises(TypeError, match="ModalDamping"):
        simulate(b, m, 0.01, dt=1e-4, constraints=G, damping=kanefem.ModalDamping(0.02), progress=False)
    with pytest.raises(ValueError, match="rk45-hamilton"):
        simulate(b, m, 0.01, method="rk45-hamilton", constraints=G, progress=False)
    big = beam(2000, storage="banded")
    with pytest.raises(kanefem.NotSupportedError, match="solver='sparse'"):
        big.eigenvalues(1, constraints=sp.csr_matrix(([1.0], ([0], [4])), shape=(1, big.ndof)), solver="dense")
