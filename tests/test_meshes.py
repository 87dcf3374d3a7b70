"""Plane and solid elements from meshes (issue 10): patch tests, mass and invariants in
closed form, convergence to beam theory, the plate against the planar beam, invariance
under rigid rotation, the planar spin identity, direct quadrature, sparse against dense,
mesh files and bad meshes (docs/theory.md sections 2.7, 3.11-3.13, 4.13)."""

import math

import numpy as np
import pytest

import kanefem
from kanefem import Mesh, MeshBody, Motion, simulate

sp = pytest.importorskip("scipy.sparse")
spla = pytest.importorskip("scipy.sparse.linalg")
meshio = pytest.importorskip("meshio")

PLANE = ["triangle", "triangle6", "quad", "quad8", "quad9"]
SOLID = ["tetra", "tetra10", "hexahedron", "hexahedron20", "hexahedron27"]
STEEL = dict(E=2.1e11, nu=0.3, rho=7800.0)


def clamp_x0(x):
    return np.isclose(x[:, 0], 0.0)


def distorted(cell, n=3):
    """A mesh of the unit square/cube whose interior nodes are moved (curved edges for
    quadratic cells); the boundary stays put."""
    dim = 2 if cell in PLANE else 3

    def f(s):
        bump = np.prod(np.sin(np.pi * s), axis=1)
        return s + 0.08 * bump[:, None] * np.array([1.0, -0.7, 0.5][:dim])

    return Mesh.structured((n,) * dim, cell, f)


def body(mesh, **kw):
    args = dict(STEEL)
    if mesh.dim == 2:
        args["thickness"] = 0.01
    args.update(kw)
    return MeshBody(mesh, **args)


# ---------------------------------------------------------------- patch tests


@pytest.mark.parametrize("cell", PLANE + SOLID)
def test_patch_test_reproduces_a_linear_field(cell):
    """Boundary nodes displaced by a linear field u = G x + u0, the interior solved from
    K d = 0: every interior node takes the linear field (constant strain) exactly."""
    mesh = distorted(cell)
    b = body(mesh, nu=0.25)
    dim = mesh.dim
    rng = np.random.default_rng(7)
    G = 1e-3 * rng.standard_normal((dim, dim))
    u = mesh.nodes @ G.T + 1e-4 * np.arange(1, dim + 1)
    x = mesh.nodes
    boundary = np.any(np.isclose(x, 0.0) | np.isclose(x, 1.0), axis=1)
    fixed = np.repeat(boundary, dim)
    K = b.stiffness_matrix().tocsr()
    d = u.ravel().copy()
    free = ~fixed
    d[free] = spla.spsolve(K[free][:, free].tocsc(), -K[free][:, fixed] @ d[fixed])
    err = np.max(np.abs(d - u.ravel())) / np.max(np.abs(u))
    # round-off times the condition of the interior stiffness (~1e3 on this mesh)
    assert err < 1e-11, f"{cell}: patch test error {err:.3g}"
    assert (~boundary).sum() >= 1  # there is an interior to solve for


# ---------------------------------------------------------------- mass and invariants


@pytest.mark.parametrize("cell", ["triangle6", "quad8", "quad", "tetra10", "hexahedron20", "hexahedron27"])
def test_mass_and_invariants_of_a_box_in_closed_form(cell):
    """A box [0,a]x[0,b](x[0,c]) of density rho: mass, first and second moments and the
    centrifugal force from the invariants equal their closed forms (quadrature exact on
    straight-sided cells)."""
    dims = (0.3, 0.2, 0.1)
    if cell in PLANE:
        t = 0.01
        mesh = Mesh.rectangle(*dims[:2], 3, 2, cell=cell)
        b = body(mesh, thickness=t)
        m = STEEL["rho"] * t * dims[0] * dims[1]
    else:
        mesh = Mesh.box(*dims, 3, 2, 2, cell=cell)
        b = body(mesh)
        m = STEEL["rho"] * np.prod(dims)
    dim, n = mesh.dim, b.ndof
    inv = b.inertia_invariants()
    S, s, Mo = inv["S"], inv["s"], inv["Mo"]
    e = [np.zeros(n) for _ in range(dim)]
    for i in range(dim):
        e[i][i::dim] = 1.0  # unit translation along i
    for i in range(dim):
        for j in range(dim):
            # d^T S_ij d' = int rho u_i u'_j: for unit translations along a and b,
            # m delta_ia delta_jb
            for a_ in range(dim):
                for b_ in range(dim):
                    want = m if (a_ == i and b_ == j) else 0.0
                    assert e[a_] @ (S[i][j] @ e[b_]) == pytest.approx(want, rel=1e-13, abs=1e-13 * m)
            # sum of s_ij over the i-components = int rho x_j = m a_j / 2
            assert s[i, j][i::dim].sum() == pytest.approx(m * dims[j] / 2, rel=1e-13)
            # u_i = x_j: int rho x_j x_k over the box: a_j^2 / 3 (j = k), a_j a_k / 4
            for k in range(dim):
                uj = np.zeros(n)
                uj[i::dim] = mesh.nodes[:, j]
                uk = np.zeros(n)
                uk[i::dim] = mesh.nodes[:, k]
                want = m * (dims[j] ** 2 / 3 if j == k else dims[j] * dims[k] / 4)
                assert uj @ (S[i][i] @ uk) == pytest.approx(want, rel=1e-12)
        assert Mo[i].sum() == pytest.approx(m, rel=1e-13)
    # spinning about z at 10 rad/s: the total centrifugal load -q_om is m omega^2 x_G
    om = 10.0
    t_ = b.motion_terms(om)
    for j in range(2):
        assert -t_.q_om[j::dim].sum() == pytest.approx(m * om**2 * dims[j] / 2, rel=1e-12)
    # M is the sum of the diagonal blocks, symmetric and positive definite
    M = b.mass_matrix()
    assert abs(M - sum(S[i][i] for i in range(dim))).max() <= 1e-15 * abs(M).max()
    assert abs(M - M.T).max() == 0.0  # bitwise (section 1.4)


def test_total_mass_of_a_ring_converges_with_quadratic_cells():
    """A ring of quad9 cells: the nodes lie on the circles, so the area error is of order
    h^4 (curved sides represented to second order); at 4 x 96 cells below 1e-7 (6e-7 at
    4 x 48)."""
    r0, r1, t = 0.05, 0.15, 0.02
    b = body(Mesh.annulus(r0, r1, 4, 96, cell="quad9"), thickness=t)
    exact = STEEL["rho"] * t * math.pi * (r1**2 - r0**2)
    one = np.zeros(b.ndof)
    one[0::2] = 1.0
    assert one @ (b.mass_matrix() @ one) == pytest.approx(exact, rel=1e-7)


# ---------------------------------------------------------------- convergence to beam theory


def timoshenko_cantilever(n, E, G, rho, A, I, L, kappa):
    """The first n clamped-free frequencies [Hz] of a Timoshenko beam from its frequency
    equation (Han, Benaroya and Wei 1999); checked against a 1000-element Timoshenko
    model to 1e-7 when this test was written."""
    from scipy.optimize import brentq

    r2, s2 = I / (A * L**2), E * I / (kappa * A * G * L**2)

    def eq(b):
        q = np.sqrt((r2 - s2) ** 2 + 4 / b**2)
        a, be = np.sqrt((q - (r2 + s2)) / 2), np.sqrt((q + (r2 + s2)) / 2)
        return (2 + (b**2 * (r2 - s2) ** 2 + 2) * np.cosh(b * a) * np.cos(b * be)
                - b * (r2 + s2) / np.sqrt(1 - b**2 * r2 * s2) * np.sinh(b * a) * np.sin(b * be))

    grid = np.linspace(0.5, 60, 6000)
    v = eq(grid)
    roots = [brentq(eq, grid[i], grid[i + 1]) for i in range(len(grid) - 1) if v[i] * v[i + 1] < 0][:n]
    return np.array(roots) * np.sqrt(E * I / (rho * A * L**4)) / (2 * np.pi)


def test_solid_cantilever_converges_to_timoshenko_with_order_four():
    """A square steel bar (L/h = 20, nu = 0) of hex20 cells clamped at x = 0: the first
    bending frequency converges as the mesh refines along the bar with the observed
    order ~4 (eigenvalue error O(h^4) of quadratic elements; 3.7 from 12, 24, 48 cells,
    2.8 from 4, 8, 16: not yet asymptotic there), and the extrapolated value
    lies within 0.1 % of Timoshenko's (kappa = 5/6), 0.5 % below Euler-Bernoulli."""
    L, h, E, rho = 1.0, 0.05, 2.1e11, 7800.0
    f = []
    for nx in (12, 24, 48):
        b = MeshBody(Mesh.box(L, h, h, nx, 1, 1, cell="hexahedron20"), E=E, nu=0.0, rho=rho)
        f.append(b.eigenvalues(1, supports={clamp_x0: "fixed"}, mode_shapes=False).frequencies_hz[0])
    f = np.array(f)
    order = math.log2((f[0] - f[1]) / (f[1] - f[2]))
    assert 3.5 < order < 4.6, f"observed order {order:.2f}"
    extrap = f[2] - (f[1] - f[2]) / (2**order - 1)
    A, I = h * h, h**4 / 12
    f_t = timoshenko_cantilever(1, E, E / 2, rho, A, I, L, 5 / 6)[0]
    f_eb = 1.87510407**2 * math.sqrt(E * I / (rho * A * L**4)) / (2 * math.pi)
    # what 3-D elasticity has beyond Timoshenko's beam (the clamped face, the section's
    # shear distribution) is of order (h/L)^2 times small factors: under 0.1 %
    assert extrap == pytest.approx(f_t, rel=1e-3)
    assert f_eb > extrap > f_eb * (1 - 5e-3)  # shear and rotary inertia lower it


# ---------------------------------------------------------------- the plate and the planar beam


def test_plane_stress_strip_in_a_rotating_frame_matches_the_planar_beam():
    """A slender plane-stress strip (L/H = 50, nu = 0) of quad9 cells and the planar
    Euler-Bernoulli beam of the same section, clamped, at omega = 20 rad/s and eps = 300
    rad/s^2 (K_eps on): the lowest two bending eigenvalues agree within the beam's
    neglect of shear deformation and rotary inertia (Timoshenko's correction at
    L/H = 50: 0.05 % for mode 1, 0.35 % for mode 2), and so does the quasi-static tip
    deflection under the frame's angular acceleration."""
    L, H, t, E, rho = 1.0, 0.02, 0.01, 2.1e11, 7800.0
    plate = MeshBody(Mesh.rectangle(L, H, 50, 2, cell="quad9", origin=(0.0, -H / 2)), E=E, nu=0.0,
                     rho=rho, thickness=t)
    beam = kanefem.PlanarBeam(L, 50, E=E, A=H * t, I=t * H**3 / 12, rho=rho)
    om, ep = 20.0, 300.0
    rp = plate.eigenvalues(2, om, ep, supports={clamp_x0: "fixed"})
    rb = beam.eigenvalues(2, om, ep, supports="clamped-free")
    assert rp.solver == rb.solver == "general"
    assert rp.eigenvalues[0] == pytest.approx(rb.eigenvalues[0], rel=1e-3)
    assert rp.eigenvalues[1] == pytest.approx(rb.eigenvalues[1], rel=5e-3)
    # quasi-static: (K + K_eps + K_om) d = -q_eps - q_om, tip deflection v(L)
    fixed = plate.support_mask({clamp_x0: "fixed"})
    tp = plate.motion_terms(om, ep)
    Kp = (plate.stiffness_matrix() + tp.K_eps + tp.K_om).tocsr()
    dp = np.zeros(plate.ndof)
    dp[~fixed] = spla.spsolve(Kp[~fixed][:, ~fixed].tocsc(), -(tp.q_eps + tp.q_om)[~fixed])
    tip = np.flatnonzero(np.isclose(plate.nodes[:, 0], L) & np.isclose(plate.nodes[:, 1], 0.0))[0]
    fb = beam.support_mask("clamped-free")
    tb = beam.motion_terms(om, ep)
    Kb = beam.stiffness_matrix() + tb.K_eps + tb.K_om
    db = np.zeros(beam.ndof)
    db[~fb] = np.linalg.solve(Kb[np.ix_(~fb, ~fb)], -(tb.q_eps + tb.q_om)[~fb])
    assert dp[2 * tip + 1] == pytest.approx(db[-2], rel=3e-3)
    assert db[-2] < 0  # eps > 0 turns the frame counter-clockwise: the tip lags behind


# ---------------------------------------------------------------- frame invariance


def rotation(axis, angle):
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


@pytest.mark.parametrize("cell", ["tetra10", "hexahedron"])
def test_solid_eigenvalues_are_invariant_under_rigid_rotation(cell):
    """The same body meshed in rotated axes (x' = R x), with its frame's omega, eps and
    a_O rotated alike and the same nodes supported: the same eigenvalues (K_eps on, the
    general solver) to round-off of the conditioning (1e-9)."""
    mesh = Mesh.box(0.3, 0.04, 0.03, 6, 1, 1, cell=cell)
    R = rotation((1.0, 2.0, 0.5), 0.7)
    sup = [(mesh.nodes_where(clamp_x0), "fixed")]
    w, e, a = np.array([3.0, -5.0, 12.0]), np.array([40.0, 25.0, -60.0]), np.array([1.0, -9.81, 2.0])
    r0 = body(mesh).eigenvalues(6, w, e, supports=sup, a_O=a)
    r1 = body(mesh.transformed(R)).eigenvalues(6, R @ w, R @ e, supports=sup, a_O=R @ a)
    assert r0.solver == "general"
    np.testing.assert_allclose(r1.eigenvalues, r0.eigenvalues, rtol=1e-9)
    np.testing.assert_allclose(r1.eigenvalues_imag, r0.eigenvalues_imag, atol=1e-9 * r0.eigenvalues[-1])


def test_plane_eigenvalues_are_invariant_under_in_plane_rotation():
    """A plate turned in its plane by 0.9 rad (rates about z unchanged): same eigenvalues."""
    mesh = Mesh.rectangle(0.4, 0.05, 8, 2, cell="quad8")
    R = rotation((0, 0, 1), 0.9)[:2, :2]
    sup = [(mesh.nodes_where(clamp_x0), "fixed")]
    r0 = body(mesh).eigenvalues(5, 15.0, 200.0, supports=sup)
    r1 = body(mesh.transformed(R, (0.3, -0.2))).eigenvalues(5, 15.0, 200.0, supports=sup)
    np.testing.assert_allclose(r1.eigenvalues, r0.eigenvalues, rtol=1e-9)


# ---------------------------------------------------------------- the planar spin identity


@pytest.mark.parametrize("solver", ["dense", "sparse"])
def test_in_plane_spin_shifts_every_eigenvalue_by_omega_squared(solver):
    """lambda_k(Omega) = lambda_k(0) - Omega^2 for a plane mesh spinning in its plane
    (K_om = -Omega^2 M exactly, section 3.6): exact (bitwise for the sparse solver's
    shift, round-off for the dense one), and the same as SciPy's eigsh on K - Omega^2 M."""
    mesh = Mesh.rectangle(0.5, 0.05, 20, 2, cell="quad9")
    b = body(mesh)
    sup = {clamp_x0: "fixed"}
    omegas = np.array([0.0, 5.0, 30.0, 120.0])
    r = b.eigenvalues_vs_time(omegas, np.zeros(4), 4, supports=sup, solver=solver)
    lam0 = r.eigenvalues[0]
    for k, om in enumerate(omegas):
        np.testing.assert_allclose(r.eigenvalues[k], lam0 - om**2, rtol=0, atol=1e-12 * lam0[-1])
    if solver == "sparse":
        assert r.stats["shifted"] == 4
    fixed = b.support_mask(sup)
    K = b.stiffness_matrix()[~fixed][:, ~fixed]
    M = b.mass_matrix()[~fixed][:, ~fixed]
    ref = np.sort(spla.eigsh((K - 120.0**2 * M).tocsc(), 4, M.tocsc(), sigma=-2e4, which="LM")[0])
    # two solvers on a stiffness of condition ~1e9: agreement to ~1e-9
    np.testing.assert_allclose(r.eigenvalues[-1], ref, rtol=1e-8)


# ---------------------------------------------------------------- direct quadrature


@pytest.mark.parametrize("cell", PLANE + SOLID)
def test_inertia_forces_by_direct_quadrature_match_the_invariants(cell):
    """Kane's generalized inertia forces by quadrature of (R N)^T a at a random state
    (kf_body_inertia_forces_direct) equal those from the invariants (M, C, K_eps, K_om,
    q's) for every element kind, with spatial rates for solids."""
    assert_inertia_by_quadrature(body(distorted(cell, n=2)))


def assert_inertia_by_quadrature(b, seed=3):
    """The inertia forces of body b at a random state and motion, from the invariants and
    by direct quadrature, agree to round-off (also used by test_mesh_elements.py)."""
    rng = np.random.default_rng(seed)
    d, dd, ddd = (1e-3 * rng.standard_normal(b.ndof) for _ in range(3))
    if b.dim == 3:
        w, e, a = np.array([2.0, -3.0, 7.0]), np.array([30.0, 10.0, -25.0]), (1.0, -9.81, 0.5)
    else:
        w, e, a = 7.0, -25.0, (1.0, -9.81)
    f1 = b.inertia_forces(d, dd, ddd, w, e, a)
    f2 = b.inertia_forces(d, dd, ddd, w, e, a, route="quadrature")
    assert np.max(np.abs(f1 - f2)) <= 1e-12 * np.max(np.abs(f2))


# ---------------------------------------------------------------- sparse against dense


@pytest.mark.parametrize("cell", ["quad9", "tetra"])
def test_sparse_and_dense_storage_give_the_same_matrices(cell):
    """The CSR body and the dense body of one mesh: the same M, K, S_ij and motion terms
    (the same element sums; scattered in the same order)."""
    mesh = Mesh.rectangle(0.3, 0.1, 3, 2, cell=cell) if cell in PLANE else Mesh.box(0.3, 0.1, 0.1, 2, 1, 1, cell=cell)
    bs, bd = body(mesh), body(mesh, storage="dense")
    assert (bs.storage, bd.storage) == ("sparse", "dense")  # the contract's name of CSR storage
    for name in ("mass_matrix", "stiffness_matrix"):
        A, B = getattr(bs, name)(), getattr(bd, name)()
        assert abs(A - B).max() == 0.0
    w = 4.0 if mesh.dim == 2 else (1.0, 2.0, 4.0)
    ts, td = bs.motion_terms(w, 30.0 if mesh.dim == 2 else (5.0, 0.0, 30.0)), bd.motion_terms(
        w, 30.0 if mesh.dim == 2 else (5.0, 0.0, 30.0))
    for f in ("C", "K_eps", "K_om"):
        assert abs(getattr(ts, f) - getattr(td, f)).max() == 0.0
    assert np.array_equal(ts.q_om, td.q_om)


def _clamped_context(mesh):
    from kanefem.sparse import SparseEigen

    b = body(mesh)
    return b, SparseEigen(b, b.support_mask({clamp_x0: "fixed"}))


def test_nested_dissection_orders_every_free_dof_once_and_cuts_the_fill():
    """The fill-reducing order of the sparse eigen solver's factor (docs/theory.md section
    3.15): a permutation of the free DOFs, and fewer L + U entries than SuperLU's own
    minimum degree on A + A^T where the body is not thin (a 12^3 hex8 cube: 0.59 of it
    measured; a plate of 20 x 20 x 2 cells whose cells are 10x thicker than wide: 0.87,
    where cutting by the longest extent, not by the smallest separator, gave 2.2)."""
    from kanefem.sparse import Factor, nested_dissection

    for dims, bound in (((12, 12, 12), 0.7), ((20, 20, 2), 1.0)):
        _, ctx = _clamped_context(Mesh.box(1.0, 1.0, 1.0, *dims))
        order = ctx.red.order
        assert np.array_equal(np.sort(order), np.arange(ctx.red.n))
        A = ctx.K + ctx.delta * ctx.M
        nd, mmd = Factor(A, True, order=order).nnz, Factor(A, True).nnz
        assert nd <= bound * mmd, (dims, nd, mmd)
    # points that cannot be cut (all at one place, or not numbers): the DOFs in profile
    # order, each once (a cut that leaves one side empty would loop forever)
    red = ctx.red
    for points in (np.zeros((red.n, 3)), np.full((red.n, 3), np.nan)):
        same = nested_dissection(red.indptr, red.indices, points)
        assert np.array_equal(np.sort(same), np.arange(red.n))


def test_factor_in_nested_dissection_order_solves_symmetric_and_general_matrices():
    """Factor with an order (P A P^T in SuperLU's symmetric mode, solved through the
    transposed factor): the shifted stiffness (diagonal pivots) and a general matrix with
    a skew inertia part (threshold pivots), for a vector and a block of right-hand
    sides.  Backward error ||A x - b|| / (||A|| ||x||) at rounding level (1e-14: the
    diagonal pivots of a definite matrix do not grow), and the same x as without the
    order (SuperLU's own ordering) to the conditioning of K (~1e8 x 1e-16)."""
    from kanefem.sparse import Factor

    b, ctx = _clamped_context(Mesh.box(0.6, 0.1, 0.1, 6, 2, 2))
    S01 = ctx.red.matrix(b._values("S", 0, 1))
    rng = np.random.default_rng(7)
    for A, sym in ((ctx.K + ctx.delta * ctx.M, True), (ctx.K + ctx.delta * ctx.M + 1e3 * (S01 - S01.T), False)):
        F, F0 = Factor(A, sym, order=ctx.red.order), Factor(A, sym)
        for rhs in (rng.standard_normal(ctx.red.n), rng.standard_normal((ctx.red.n, 3))):
            x = F.solve(rhs)
            assert x.shape == rhs.shape
            r = np.linalg.norm(A @ x - rhs) / (sp.linalg.norm(A, 1) * np.linalg.norm(x))
            assert r < 1e-14, (sym, r)
            np.testing.assert_allclose(x, F0.solve(rhs), rtol=1e-7, atol=1e-7 * np.abs(x).max())


def test_sparse_eigenvalues_over_a_time_grid_match_the_dense_solver():
    """A solid bar whose frame turns about a wandering axis (12 instants, K_eps on): the
    sparse solver (continuation from the previous instant, ARPACK as safeguard) and the
    dense solver agree to 1e-8 (conditioning of K, ~1e8), and mode shapes have unit
    M-inner product; most instants are continued, not solved from scratch."""
    b = body(Mesh.box(0.4, 0.04, 0.03, 8, 1, 1, cell="hexahedron20"))
    th = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    om = np.column_stack([30 * np.sin(th), 20 * np.cos(th), 40 + 10 * np.sin(2 * th)])
    ep = np.column_stack([300 * np.cos(th), -200 * np.sin(th), 200 * np.cos(2 * th)])
    sup = {clamp_x0: "fixed"}
    rs = b.eigenvalues_vs_time(om, ep, 6, supports=sup, solver="sparse")
    rd = b.eigenvalues_vs_time(om, ep, 6, supports=sup, solver="dense")
    assert rs.solver == rd.solver == "general"
    np.testing.assert_allclose(rs.eigenvalues, rd.eigenvalues, rtol=1e-8)
    assert rs.stats["continued"] >= 10 and rs.stats["full_solves"] + rs.stats["continued"] == 12
    M = b.mass_matrix()
    dots = np.abs(np.einsum("tik,tik->tk", rs.mode_shapes, np.einsum("ij,tjk->tik", M.toarray(), rd.mode_shapes)))
    np.testing.assert_allclose(dots, 1.0, atol=1e-6)


def test_sparse_eigenvalues_of_a_free_plate_with_angular_acceleration():
    """A free-free plate (rigid modes: K singular, the shift delta keeps K + delta M
    definite) turning with eps: sparse and dense agree; the three rigid-body modes lie
    at lambda ~ -omega^2 (the frame's spin)."""
    b = body(Mesh.rectangle(0.2, 0.1, 6, 3, cell="quad8"))
    om = np.array([0.0, 10.0, 20.0])
    ep = np.array([0.0, 50.0, 100.0])
    rs = b.eigenvalues_vs_time(om, ep, 6, solver="sparse")
    rd = b.eigenvalues_vs_time(om, ep, 6, solver="dense")
    scale = rd.eigenvalues[:, -1:]
    # elastic modes directly; the rigid ones (equal real parts up to round-off, so their
    # order is round-off's) as sets
    assert np.all(np.abs(rs.eigenvalues[:, 3:] - rd.eigenvalues[:, 3:]) <= 1e-9 * scale)
    for x, y in ((rs.eigenvalues, rd.eigenvalues), (np.abs(rs.eigenvalues_imag), np.abs(rd.eigenvalues_imag))):
        assert np.all(np.abs(np.sort(x[:, :3], axis=1) - np.sort(y[:, :3], axis=1)) <= 1e-9 * scale)
    # rigid modes: between -omega^2 - |eps| and |eps| (section 3.12's brackets at mu = 0)
    assert np.all(np.abs(rs.eigenvalues[:, :3] + om[:, None] ** 2 / 2) <= om[:, None] ** 2 / 2 + ep[:, None] + 1e-12 * scale)


def test_tracked_order_follows_modes_like_the_dense_solver():
    """order='tracked' gives each curve one mode: the same curves as the dense solver's."""
    b = body(Mesh.box(0.3, 0.03, 0.028, 8, 1, 1, cell="hexahedron20"))
    w = np.linspace(0.0, 400.0, 9)
    om = np.column_stack([w, np.zeros(9), np.zeros(9)])  # about the bar's axis
    sup = {clamp_x0: "fixed"}
    rs = b.eigenvalues_vs_time(om, np.zeros((9, 3)), 4, supports=sup, order="tracked", solver="sparse")
    rd = b.eigenvalues_vs_time(om, np.zeros((9, 3)), 4, supports=sup, order="tracked", solver="dense")
    np.testing.assert_allclose(rs.eigenvalues, rd.eigenvalues, rtol=1e-8)


def test_sparse_newmark_equals_the_core_integrator_and_reuses_its_factor():
    """The sparse Newmark (and generalized-alpha) on a CSR body equals the core's
    fixed-step integrator on the dense body of the same mesh (same steps, balance and
    outputs) to round-off; at constant speed it factors the effective matrix once."""
    mesh = Mesh.rectangle(0.5, 0.05, 10, 1, cell="quad9")
    bs, bd = body(mesh), body(mesh, storage="dense")
    sup = {clamp_x0: "fixed"}
    t = np.linspace(0, 0.2, 41)
    mot = Motion.from_samples(t, 3.0 * t + 20 * t**2, np.column_stack([0.1 * np.sin(5 * t), 0.02 * t]))
    Q = np.zeros(bs.ndof)
    Q[-1] = 10.0
    load = kanefem.HarmonicLoad(Q, 300.0)
    for method in ("newmark", "generalized-alpha"):
        kw = dict(dt=2e-4, supports=sup, method=method, progress=False, loads=load, gravity=(0, -9.81))
        rs, rd = simulate(bs, mot, 0.04, **kw), simulate(bd, mot, 0.04, **kw)
        assert np.max(np.abs(rs.d - rd.d)) <= 1e-9 * np.max(np.abs(rd.d))
        assert np.max(np.abs(rs.v - rd.v)) <= 1e-9 * np.max(np.abs(rd.v))
        assert rs.stats["factorizations"] == rs.stats["steps"] + 1  # the speed varies
    r = simulate(bs, Motion.constant_speed(20.0), 0.02, dt=2e-4, supports=sup, progress=False,
                 gravity=(0, -9.81))
    assert r.stats["steps"] == 100 and r.stats["factorizations"] == 2  # M, and E once
    rd = simulate(bd, Motion.constant_speed(20.0), 0.02, dt=2e-4, supports=sup, progress=False,
                  gravity=(0, -9.81))
    assert np.max(np.abs(r.d - rd.d)) <= 1e-9 * np.max(np.abs(rd.d))
    with pytest.raises(ValueError, match="newmark"):
        simulate(bs, Motion.constant_speed(20.0), 0.02, method="rk45-lagrange", supports=sup, progress=False)


def test_the_integrators_factor_takes_the_eigen_paths_nested_dissection():
    """simulate's sparse factor (the callback of the core's stepper) is ordered by the
    eigen path's nested dissection (docs/theory.md sections 3.15, 4.13): on a clamped 8^3
    hex8 cube the effective matrix's L + U has fewer entries than under SuperLU's own
    minimum degree (0.65 of it measured: 6.0e5 against 9.3e5 for the unsymmetric
    effective matrix, which SuperLU orders by COLAMD), simulate gives bitwise the run with that
    factor, and the minimum-degree run's values to 1e-9 (the solves' rounding in another
    order)."""
    import kanefem.sparse as ks
    from kanefem import _core

    b = body(Mesh.box(0.1, 0.1, 0.1, 8, 8, 8))
    fixed = b.support_mask({clamp_x0: "fixed"})
    t = np.linspace(0.0, 2e-3, 5)
    motion = Motion.constant_speed(30.0)
    sizes = {"nd": [], "mmd": []}

    def run(name, make):
        def factor(values, indptr, indices):
            F = make(values, indptr, indices)
            sizes[name].append(F.nnz)
            return F
        return _core.simulate(body=b._body, fixed=fixed, motion=motion._core_motion((0.0, -9.81)),
                              t_eval=t, method=0, d0=np.zeros(b.ndof), v0=np.zeros(b.ndof), dt=5e-4,
                              factor=factor)["d"]

    d_nd = run("nd", ks.IntegratorFactor(ks.dof_points(b)[~fixed]))
    d_mmd = run("mmd", ks.csr_factor)
    assert max(sizes["nd"]) <= 0.9 * max(sizes["mmd"]), sizes
    r = simulate(b, motion, 2e-3, dt=5e-4, t_eval=t, supports={clamp_x0: "fixed"}, gravity=(0.0, -9.81),
                 progress=False)
    assert np.array_equal(r.d, d_nd)
    assert np.max(np.abs(d_nd - d_mmd)) <= 1e-9 * np.max(np.abs(d_mmd))


def test_mesh_eigenvalues_over_time_take_frames():
    """A mesh's eigenvalues_vs_time takes frames= alone (eps left at its default; it was
    refused as given with frames)."""
    b = body(Mesh.box(0.3, 0.03, 0.03, 6, 1, 1))
    fr = kanefem.frames.spatial(np.outer([0.0, 10.0], [0.0, 0.0, 1.0]), np.zeros((2, 3)), np.zeros((2, 3)))
    r = b.eigenvalues_vs_time(frames=fr, n_modes=2, supports={clamp_x0: "fixed"})
    s = b.eigenvalues_vs_time([[0.0, 0.0, 0.0], [0.0, 0.0, 10.0]], np.zeros((2, 3)), 2, supports={clamp_x0: "fixed"})
    np.testing.assert_array_equal(r.eigenvalues, s.eigenvalues)


# ---------------------------------------------------------------- files


def test_mesh_files_round_trip_through_meshio(tmp_path):
    """Written and read back as Gmsh, Abaqus and VTU: the same nodes and cells."""
    mesh = Mesh.box(0.2, 0.1, 0.05, 2, 2, 1, cell="tetra10")
    for name, fmt in (("m.msh", "gmsh22"), ("m.inp", None), ("m.vtu", None)):
        path = mesh.write(tmp_path / name, file_format=fmt)
        back = Mesh.read(path)
        assert back.cell_type == "tetra10"
        np.testing.assert_allclose(back.nodes, mesh.nodes, rtol=1e-12, atol=1e-15)
        assert np.array_equal(back.cells, mesh.cells)
    assert not list(tmp_path.glob(".*tmp"))  # atomic writes leave no temporary files


def test_gmsh_physical_groups_become_supports(tmp_path):
    """A Gmsh file with the body's quads and a named physical line ("clamp") on x = 0:
    the line's nodes are a node set, and supporting it clamps the plate."""
    plate = Mesh.rectangle(0.4, 0.05, 8, 2, cell="quad8")
    left = np.flatnonzero(np.isclose(plate.nodes[:, 0], 0.0))
    order = left[np.argsort(plate.nodes[left, 1])]
    lines = np.array([[order[0], order[2], order[1]], [order[2], order[4], order[3]]])
    pts = np.column_stack([plate.nodes, np.zeros(plate.n_nodes)])
    m = meshio.Mesh(pts, [("quad8", plate.cells), ("line3", lines)],
                    cell_data={"gmsh:physical": [np.full(plate.n_cells, 2), np.full(2, 1)],
                               "gmsh:geometrical": [np.full(plate.n_cells, 1), np.full(2, 1)]},
                    field_data={"clamp": np.array([1, 1]), "plate": np.array([2, 2])})
    meshio.write(tmp_path / "p.msh", m, file_format="gmsh22")
    back = Mesh.read(tmp_path / "p.msh")
    assert sorted(back.point_sets["clamp"]) == sorted(order)
    b = body(back)
    r1 = b.eigenvalues(2, supports={"clamp": "fixed"})
    r2 = body(plate).eigenvalues(2, supports={clamp_x0: "fixed"})
    np.testing.assert_allclose(r1.eigenvalues, r2.eigenvalues, rtol=1e-12)
    assert r1.eigenvalues[0] > 0  # clamped: no rigid modes


def test_modes_and_responses_are_written_for_paraview(tmp_path):
    """Mode shapes to one VTU (point data per mode, read back equal); a response in time
    as a .pvd collection of VTU files with their times."""
    b = body(Mesh.rectangle(0.3, 0.03, 6, 1, cell="quad9"))
    sup = {clamp_x0: "fixed"}
    r = b.eigenvalues(2, supports=sup)
    b.write_modes(tmp_path / "modes.vtu", r)
    back = meshio.read(tmp_path / "modes.vtu")
    names = sorted(n for n in back.point_data if "_f=" in n)  # and each mode's von Mises (test_stresses)
    assert len(names) == 2 and names[0].startswith("mode_1_f=")
    np.testing.assert_allclose(back.point_data[names[0]][:, :2], r.mode_shapes[:, 0].reshape(-1, 2), rtol=1e-15)
    res = simulate(b, Motion.constant_speed(10.0), 0.002, dt=5e-4, supports=sup, progress=False)
    pvd = b.write_response(tmp_path / "run.pvd", res)
    text = pvd.read_text()
    files = sorted((tmp_path / "run_vtu").glob("*.vtu"))
    assert len(files) == len(res.t) == text.count("<DataSet")
    last = meshio.read(files[-1])
    np.testing.assert_allclose(last.point_data["displacement"][:, :2], res.d[-1].reshape(-1, 2), rtol=1e-15)
    assert f'timestep="{float(res.t[-1])!r}"' in text


# ---------------------------------------------------------------- bad meshes


def test_bad_meshes_raise_naming_the_cell():
    quad = Mesh.rectangle(0.2, 0.1, 2, 1, cell="quad")
    cells = quad.cells.copy()
    cells[1] = cells[1][::-1]  # clockwise: inverted
    with pytest.raises(ValueError, match=r"cell 1 is inverted"):
        body(Mesh(quad.nodes, cells, "quad"))
    nodes = quad.nodes.copy()
    nodes[:, 1] = 0.0  # every node on one line: zero area
    with pytest.raises(ValueError, match=r"cell 0 is degenerate"):
        body(Mesh(nodes, quad.cells, "quad"))
    with pytest.raises(ValueError, match=r"cell 1 refers to node\(s\) .*\(missing nodes\)"):
        bad = quad.cells.copy()
        bad[1, 2] = 99
        Mesh(quad.nodes, bad, "quad")
    extra = np.vstack([quad.nodes, [[5.0, 5.0]]])
    with pytest.raises(ValueError, match=r"node 6 belongs to no element"):
        body(Mesh(extra, quad.cells, "quad"))
    with pytest.raises(ValueError, match=r"cell_type = 'pyramid14' is not supported"):
        Mesh(np.zeros((14, 3)), np.arange(14)[None], "pyramid14")
    with pytest.raises(ValueError, match=r"nu = 0.5"):
        body(quad, nu=0.5)
    with pytest.raises(ValueError, match="thickness"):
        MeshBody(quad, **STEEL)


def test_bad_mesh_files_raise(tmp_path):
    tet = Mesh.box(0.1, 0.1, 0.1, 1, 1, 1, cell="tetra")
    pts = tet.nodes
    # triangles whose nodes are not on the tets: mixed dimensions
    far = np.vstack([pts, [[1.0, 1.0, 1.0], [2.0, 1.0, 1.0], [1.0, 2.0, 1.0]]])
    m = meshio.Mesh(far, [("tetra", tet.cells), ("triangle", np.array([[8, 9, 10]]))])
    with pytest.raises(ValueError, match=r"mixed dimensions: cell 0 of block 1 \(triangle\)"):
        Mesh.from_meshio(m)
    # two kinds of the body's dimension
    hexa = Mesh.box(0.1, 0.1, 0.1, 1, 1, 1, cell="hexahedron")
    m = meshio.Mesh(hexa.nodes, [("hexahedron", hexa.cells), ("tetra", np.array([[0, 1, 2, 4]]))])
    assert Mesh.from_meshio(m).cell_type == ("hexahedron", "tetra")  # a mixed mesh (issue 20)
    # unsupported cells of the body's dimension
    m = meshio.Mesh(hexa.nodes, [("hexahedron", hexa.cells), ("wedge18", np.array([list(range(8)) + [0] * 10]))])
    with pytest.raises(ValueError, match=r"\['wedge18'\] .* not supported"):
        Mesh.from_meshio(m)
    # unused nodes: an error, or pruned on request
    m = meshio.Mesh(np.vstack([hexa.nodes, [[9.0, 9.0, 9.0]]]), [("hexahedron", hexa.cells)])
    with pytest.raises(ValueError, match=r"node 8 .* belongs to no hexahedron cell"):
        Mesh.from_meshio(m)
    assert Mesh.from_meshio(m, prune=True).n_nodes == 8
    # a plane mesh must be flat
    quad = Mesh.rectangle(0.1, 0.1, 1, 1, cell="quad")
    pts = np.column_stack([quad.nodes, [0.0, 0.0, 0.0, 0.01]])
    with pytest.raises(ValueError, match="plane z = const"):
        Mesh.from_meshio(meshio.Mesh(pts, [("quad", quad.cells)]))


def test_bad_arguments_raise_naming_them():
    b = body(Mesh.rectangle(0.2, 0.05, 4, 1, cell="quad8"))
    with pytest.raises(ValueError, match="planar body turns about its frame's z axis"):
        b.eigenvalues(2, omega=(1.0, 0.0, 2.0))
    with pytest.raises(ValueError, match="'nowhere' is not a node set"):
        b.support_mask({"nowhere": "fixed"})
    with pytest.raises(ValueError, match="selects no node"):
        b.support_mask({lambda x: x[:, 0] > 9.0: "fixed"})
    with pytest.raises(ValueError, match="DOF names must come from"):
        b.support_mask({0: ("uz",)})
    with pytest.raises(ValueError, match="supports that hold the body"):  # no static prestress of a free body
        b.eigenvalues(1, geometric_stiffness=True)
    with pytest.raises(TypeError, match="FRAME_DTYPE"):
        b.eigenvalues(1, frames=np.zeros(3))
