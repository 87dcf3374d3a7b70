"""Reduced bodies (issue 21, docs/theory.md section 3.18): the inertia invariants, K and
the prestress K_G of a full body projected once onto a Craig-Bampton or free-interface
basis, run by the core's solvers as a body of given matrices."""

import math
import os

import numpy as np
import pytest

import kanefem
from kanefem import Beam3D, Mesh, MeshBody, PlanarBeam, ReducedBody, _core
from kanefem.studies import SpinUp

STEEL = dict(E=2.1e11, rho=7800.0)
#: Southwell's coefficient of a uniform cantilever's first flap mode (Wright et al. 1982)
ALPHA1 = 1.1933


def beam(n=60):
    return PlanarBeam(1.0, n, E=2.1e11, A=1e-4, I=1e-8, rho=7800)


L, B, H = 1.0, 0.05, 0.01


def root(x):
    return np.isclose(x[:, 0], 0.0)


def tip(x):
    return np.isclose(x[:, 0], L)


@pytest.fixture(scope="module")
def solid_blade():
    """A hex8 (incompatible modes) blade 1000 x 50 x 10 mm, as tests/test_prestress.py's."""
    mesh = Mesh.box(L, B, H, 30, 2, 1, cell="hexahedron", origin=(0.0, -B / 2, -H / 2))
    return MeshBody(mesh, **STEEL, nu=0.0)


# ---------------------------------------------------------------- the projection


def test_motion_terms_are_the_projected_ones():
    """Every motion term of the reduced body is V^T (the full body's) V, to round-off: the
    given-matrix body of the core combines the projected invariants as a meshed one does
    (spatial blocks, three-axis rates)."""
    full = Beam3D(1.0, 12, **STEEL, A=1e-4, Izz=1e-8, Iyy=2e-8, J=2e-8)
    red = ReducedBody(full, interface=[0, -1], n_modes=5)
    V = red.basis_matrix
    om, ep, a = (1.0, -2.0, 30.0), (4.0, 5.0, -6.0), (0.5, -9.81, 2.0)
    t, T = red.motion_terms(om, ep, a), full.motion_terms(om, ep, a)
    for name in ("C", "K_eps", "K_om"):
        ref = V.T @ getattr(T, name) @ V
        np.testing.assert_allclose(getattr(t, name), ref, atol=1e-12 * np.abs(ref).max())
    for name in ("q_eps", "q_om", "q_a"):
        ref = V.T @ getattr(T, name)
        np.testing.assert_allclose(getattr(t, name), ref, atol=1e-12 * np.abs(ref).max())
    # the structure of section 1.5 holds exactly: C, K_eps skew, M, K_om symmetric
    assert np.array_equal(t.C, -t.C.T) and np.array_equal(t.K_eps, -t.K_eps.T)
    assert np.array_equal(t.K_om, t.K_om.T)
    M = red.mass_matrix()
    assert np.array_equal(M, M.T)
    np.testing.assert_allclose(M, V.T @ full.mass_matrix() @ V, atol=1e-12 * np.abs(M).max())


def test_craig_bampton_converges_as_modes_are_added():
    """A planar beam (60 elements) reduced with both end nodes as the interface (a
    mechanism link), pinned at both interface nodes, against the full beam pinned-pinned.
    Relative error of the lowest four frequencies (81.5, 326.0, 733.5, 1304.1 Hz):

    ======  =========  =========  =========  =========
    modes   f1         f2         f3         f4
    ======  =========  =========  =========  =========
    2       7.5e-05    6.8e-04    3.8e-01    4.5e-01
    4       2.1e-06    3.8e-05    1.7e-03    2.8e-03
    8       3.2e-08    4.8e-06    2.4e-05    3.2e-04
    16      2.6e-09    8.6e-08    1.7e-06    5.5e-06
    ======  =========  =========  =========  =========

    Rayleigh-Ritz: from above, and better with every mode."""
    full = beam()
    g = full.eigenvalues(4, supports="pinned-pinned").frequencies_hz
    errors = []
    for m in (2, 4, 8, 16):
        red = ReducedBody(full, interface=[0, -1], n_modes=m)
        f = red.eigenvalues(4, supports={0: "pinned", 1: "pinned"}).frequencies_hz
        assert np.all(f >= g * (1 - 1e-9))  # an upper bound (to the solvers' round-off)
        errors.append(f / g - 1)
    errors = np.array(errors)
    assert np.all(np.diff(errors, axis=0) <= 1e-12)
    assert errors[-1].max() < 1e-5 and errors[-1, 0] < 1e-8
    assert red.kept["n_modes"] == 16 and red.kept["n_boundary"] == 6
    assert red.ndof == 22 and red.dof_names[:3] == ("i0_u", "i0_v", "i0_theta")


def test_free_interface_converges_as_modes_are_added():
    """The free-free beam's normal modes plus the residual attachment modes of both end
    nodes, then pinned at the ends through constraints on the reduced coordinates,
    against the full beam pinned-pinned.  Relative errors of the lowest four frequencies:

    ======  =========  =========  =========  =========
    modes   f1         f2         f3         f4
    ======  =========  =========  =========  =========
    4       1.9e-05    2.0e-02    1.9e-02    8.3e-01
    6       1.4e-07    1.6e-05    3.4e-05    2.7e-02
    8       4.6e-09    2.6e-07    9.2e-07    7.9e-05
    12      6.2e-10    1.2e-08    6.0e-08    3.1e-06
    ======  =========  =========  =========  =========
    """
    full = beam()
    g = full.eigenvalues(4, supports="pinned-pinned").frequencies_hz
    last = np.inf
    for m in (4, 6, 8, 12):
        red = ReducedBody(full, interface=[0, -1], basis="free-interface", n_modes=m)
        f = red.eigenvalues(4, supports=None, constraints=red.interface_rows("pinned-pinned")).frequencies_hz
        err = np.abs(f / g - 1)
        assert err[3] < last
        last = err[3]
    assert last < 1e-5
    # with the free body's modes only (no interface) the kept modes are exact
    free = ReducedBody(full, basis="free-interface", n_modes=7)
    np.testing.assert_allclose(free.eigenvalues(7, supports=None).frequencies_hz[3:],
                               full.eigenvalues(7, supports="free-free").frequencies_hz[3:], rtol=1e-8)
    assert free.kept["attachment"] == 0 and free.dof_names[0] == "q1"
    # held at node 0 (supports of the normal modes), node 0's attachment modes vanish and are
    # dropped; the other end's three are kept, and the clamped-free modes are exact
    held = ReducedBody(full, interface=[0, -1], basis="free-interface", n_modes=4, supports="clamped-free")
    assert held.kept["attachment"] == 3 and held.ndof == 7
    np.testing.assert_allclose(held.eigenvalues(4, supports=None).frequencies_hz,
                               full.eigenvalues(4, supports="clamped-free").frequencies_hz, rtol=1e-7)


def test_cutoff_keeps_the_modes_below_it():
    """cutoff_hz keeps exactly the fixed-interface modes below the cut-off, and says so."""
    full = beam()
    fixed = full.eigenvalues(8, supports="clamped-clamped").frequencies_hz
    red = ReducedBody(full, interface=[0, -1], cutoff_hz=1000.0)
    assert red.kept["n_modes"] == int((fixed < 1000.0).sum()) == 3
    # two dense solvers, each to ~1e-13 of the largest eigenvalue (1e5 times the first)
    np.testing.assert_allclose(red.kept["frequencies_hz"], fixed[:3], rtol=1e-7)
    assert red.kept["cutoff_hz"] == 1000.0
    # a sparse mesh by ARPACK, with more modes than its first guess
    body = MeshBody(Mesh.rectangle(1.0, 0.1, 40, 2, cell="quad"), **STEEL, nu=0.3, thickness=0.01)
    red = ReducedBody(body, interface=[root], cutoff_hz=14000.0)
    held = body.eigenvalues(20, supports={root: "fixed"}).frequencies_hz
    assert red.kept["n_modes"] == int((held < 14000.0).sum()) > 12


# ---------------------------------------------------------------- stress stiffening


def test_reduced_beam_blade_stiffens_as_the_full_one():
    """A Beam3D blade clamped at its root (the interface), spinning about z with K_G: the
    flap slope d(omega^2)/d(Omega^2) of the reduced body (8 modes) equals the full beam's
    to 3e-5 and Southwell's alpha_1 to 2e-3 (30 elements, O(Omega^4))."""
    full = Beam3D(L, 30, **STEEL, A=B * H, Izz=H * B**3 / 12, Iyy=B * H**3 / 12, J=1e-9)
    red = ReducedBody(full, interface=[0], n_modes=8)
    lam0 = full.eigenvalues(1).eigenvalues[0]
    Om = 0.3 * math.sqrt(lam0)
    slopes = []
    for body, sup in ((full, None), (red, "clamped")):
        at_rest = body.eigenvalues(1, supports=sup).eigenvalues[0]
        spun = body.eigenvalues(1, omega=(0.0, 0.0, Om), supports=sup, geometric_stiffness=True).eigenvalues[0]
        slopes.append((spun - at_rest) / Om**2)
    # each eigenvalue carries the dense solver's round-off, ~1e-7 relative and LAPACK-dependent,
    # which the slope divides by Omega^2 / lambda_0 = 0.09: 1.2e-5 apart on reference LAPACK
    assert slopes[1] == pytest.approx(slopes[0], abs=3e-5)
    assert slopes[1] == pytest.approx(ALPHA1, abs=2e-3)
    # without K_G the reduced blade does not stiffen (the peers' linear reduced bodies)
    plain = ReducedBody(full, interface=[0], n_modes=8, geometric_stiffness=False)
    soft = plain.eigenvalues(1, omega=(0.0, 0.0, Om), supports="clamped").eigenvalues[0]
    assert abs(soft - lam0) < 1e-3 * (slopes[0] * Om**2)
    with pytest.raises(kanefem.NotSupportedError, match="geometric_stiffness"):
        plain.eigenvalues(1, omega=(0.0, 0.0, Om), supports="clamped", geometric_stiffness=True)
    assert red.kept["geometric_stiffness"] and not plain.kept["geometric_stiffness"]


def test_free_body_has_no_prestress_by_default():
    """A free-interface plate with no supports has no static prestress: by default the
    reduced body is made without K_G (and says so); asked for, the full body's error names
    the supports."""
    plate = plate_body("quad")
    red = ReducedBody(plate, interface=[root], basis="free-interface", n_modes=5)
    assert not red.kept["geometric_stiffness"] and red.kept["attachment"] == 3  # the rigid edge: ux, uy, rz
    with pytest.raises(ValueError, match="supports that hold the body"):
        ReducedBody(plate, interface=[root], basis="free-interface", n_modes=5, geometric_stiffness=True)
    held = ReducedBody(plate, interface=[root], basis="free-interface", n_modes=5, prestress_supports={root: "fixed"})
    assert held.kept["geometric_stiffness"]


def test_reduced_solid_blade_stiffens_as_the_full_one(solid_blade):
    """The hex8 blade with its root face condensed to one rigid interface node (RBE2),
    clamped there (= the full body's root fixed): the flap slope converges to the full
    mesh's (1.19175) as modes are added; the reduced problem has 6 + n DOFs instead of
    558."""
    body = solid_blade
    lam0 = body.eigenvalues(1, supports={root: "fixed"}).eigenvalues[0]
    Om = 0.3 * math.sqrt(lam0)
    spun = body.eigenvalues(1, omega=(0.0, 0.0, Om), supports={root: "fixed"}, geometric_stiffness=True,
                            solver="dense").eigenvalues[0]
    ref = (spun - lam0) / Om**2
    errors = []
    for m in (2, 4, 8):
        red = ReducedBody(body, interface=[root], n_modes=m)
        r0 = red.eigenvalues(1).eigenvalues[0]
        assert r0 == pytest.approx(lam0, rel=1e-7)  # the fixed-interface modes are kept exactly
        r1 = red.eigenvalues(1, omega=(0.0, 0.0, Om), geometric_stiffness=True).eigenvalues[0]
        errors.append(abs((r1 - r0) / Om**2 - ref))
    assert errors[-1] < 1e-5 and errors[0] > errors[-1]
    assert ref == pytest.approx(ALPHA1, abs=5e-3)


def test_spin_up_peak_deflection():
    """The spin-up benchmark (kanefem.studies.spin_up, K_G on, Newmark 5 ms): the beam
    reduced to its root node + 4 modes has the full beam's peak tip deflection within
    0.5 % (measured 5.5e-5; 10 modes: 3e-7), and follows its history."""
    s = SpinUp(omega_s=4.0)
    full = s.simulate(t_end=30.0)
    vf = full.node(-1, "v")
    red = ReducedBody(s.body(), interface=[0], n_modes=4)
    r = kanefem.simulate(red, s.motion(), 30.0, dt=0.005, supports="clamped", geometric_stiffness=True)
    vr = red.expand(r).node(-1, "v")
    peak = np.abs(vf).max()
    assert peak > 0.3  # the benchmark's deflection, not a trivial zero
    assert np.abs(vr).max() == pytest.approx(peak, rel=5e-3)
    assert np.abs(vr).max() == pytest.approx(peak, rel=2e-4)
    assert np.abs(vr - vf).max() < 1e-3 * peak


def test_time_grid_gyroscopic_and_simulate_run_on_it():
    """The contract's methods: eigenvalues over a time grid equal one-instant solves, the
    gyroscopic eigenvalues at rest are i sqrt(lambda), simulate runs."""
    full = Beam3D(1.0, 16, **STEEL, A=1e-4, Izz=1e-8, Iyy=2e-8, J=2e-8)
    red = ReducedBody(full, interface=[0], n_modes=6)
    w = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 40.0], [0.0, 10.0, 80.0]])
    grid = red.eigenvalues_vs_time(w, np.zeros((3, 3)), 3, geometric_stiffness=True).eigenvalues
    for t in range(3):
        one = red.eigenvalues(3, omega=w[t], geometric_stiffness=True, mode_shapes=False).eigenvalues
        np.testing.assert_allclose(grid[t], one, rtol=1e-10)
    s = red.gyroscopic_eigenvalues(w[:1], np.zeros((1, 3)), 2).s[0]
    np.testing.assert_allclose(s.imag**2, grid[0, :2], rtol=1e-8)
    assert red.model["element"] == "reduced" and red.model["of"]["element"] == "beam3d"


# ---------------------------------------------------------------- expansion, stresses, output


def test_expanded_modes_and_stresses(solid_blade, tmp_path):
    """Reduced mode shapes expanded to the mesh are the full body's (to sign), and so are
    their modal stresses; the expanded modes are written as VTU by the full body's writer."""
    body = solid_blade
    red = ReducedBody(body, interface=[root], n_modes=6)
    rr = red.eigenvalues(2)
    rf = body.eigenvalues(2, supports={root: "fixed"})
    ex = red.expand(rr)
    assert ex.mode_shapes.shape == (body.ndof, 2)
    for k in range(2):
        a, b = ex.mode_shapes[:, k], rf.mode_shapes[:, k]
        sign = np.sign(a @ b)
        np.testing.assert_allclose(sign * a, b, atol=1e-6 * np.abs(b).max())
        sr = red.stresses(rr.mode_shapes[:, k])["von_mises_Pa"]
        sf = body.stresses(b)["von_mises_Pa"]
        np.testing.assert_allclose(sr, sf, atol=1e-5 * sf.max())
    path = tmp_path / "modes.vtu"
    red.write_modes(path, rr)
    import meshio

    data = meshio.read(path).point_data
    assert any(name.startswith("mode_1_f=") for name in data)


# ---------------------------------------------------------------- bad input


def test_bad_input_is_named(solid_blade):
    body = solid_blade
    # one node of a solid holds its translations only: the blade still turns about it
    with pytest.raises(ValueError, match="interface.*rigid-body motion"):
        ReducedBody(body, interface=[0], n_modes=2)
    with pytest.raises(ValueError, match="n_modes = 500"):
        ReducedBody(beam(), interface=[0, -1], n_modes=500)
    with pytest.raises(ValueError, match="interface"):
        ReducedBody(beam(), n_modes=2)
    with pytest.raises(TypeError, match="n_modes or as cutoff_hz"):
        ReducedBody(beam(), interface=[0])
    with pytest.raises(ValueError, match="basis"):
        ReducedBody(beam(), interface=[0], n_modes=2, basis="guyan")
    with pytest.raises(TypeError, match="supports = 'clamped-free'.*free-interface"):
        ReducedBody(beam(), interface=[0], n_modes=2, supports="clamped-free")
    red = ReducedBody(beam(), interface=[0, -1], n_modes=2)
    with pytest.raises(kanefem.NotSupportedError, match="end_forces"):
        red.axial_force(omega=3.0, end_forces=(1.0, 0.0))
    with pytest.raises(kanefem.NotSupportedError, match="quadrature"):
        red.inertia_forces(np.zeros(8), np.zeros(8), np.zeros(8), route="quadrature")
    with pytest.raises(ValueError, match="supports"):
        red.support_mask({0: "hinged"})
    free = ReducedBody(beam(), interface=[0], basis="free-interface", n_modes=4)
    with pytest.raises(kanefem.NotSupportedError, match="free-interface"):
        free.eigenvalues(1, supports="clamped")


def test_given_body_checks_its_matrices():
    """The core's given-matrix body refuses non-symmetric K, an S_ji that is not S_ij^T,
    non-finite entries and massless coordinates, naming the array."""
    n = 3
    S = np.zeros((4, n, n))
    S[0] = S[3] = np.eye(n)
    K = np.diag([1.0, 2.0, 3.0])
    s, Mo = np.zeros((4, n)), np.zeros((2, n))
    _core.body_create_given(S=S, K=K, s=s, Mo=Mo)
    bad = K.copy()
    bad[0, 1] = 1.0
    with pytest.raises(ValueError, match="K.*not symmetric"):
        _core.body_create_given(S=S, K=bad, s=s, Mo=Mo)
    S2 = S.copy()
    S2[1, 0, 1] = 0.5
    with pytest.raises(ValueError, match="not the transpose"):
        _core.body_create_given(S=S2, K=K, s=s, Mo=Mo)
    S3 = S.copy()
    S3[0, 2, 2] = S3[3, 2, 2] = 0.0
    with pytest.raises(ValueError, match="carry mass"):
        _core.body_create_given(S=S3, K=K, s=s, Mo=Mo)
    with pytest.raises(ValueError, match="finite"):
        _core.body_create_given(S=S, K=K * np.nan, s=s, Mo=Mo)
    with pytest.raises(ValueError, match="KG"):
        _core.body_create_given(S=S, K=K, s=s, Mo=Mo, KG=np.zeros((5, n, n)))


# ---------------------------------------------------------------- files


def plate_body(cell="quad8"):
    return MeshBody(Mesh.rectangle(1.0, 0.1, 20, 2, cell=cell), **STEEL, nu=0.3, thickness=0.01)


def exported(plate, folder, order=None):
    """The plate's M and K as an FE code exports them: Matrix Market files with the rows
    in another order, and the node/DOF map as two integer columns."""
    import scipy.io

    p = np.arange(plate.ndof) if order is None else order
    scipy.io.mmwrite(folder / "M.mtx", plate.mass_matrix()[p][:, p])
    scipy.io.mmwrite(folder / "K.mtx", plate.stiffness_matrix()[p][:, p])
    dof_map = np.array([(k // 2, k % 2) for k in range(plate.ndof)])[p]
    np.savetxt(folder / "map.txt", dof_map, fmt="%d")
    return folder / "M.mtx", folder / "K.mtx", folder / "map.txt"


def test_imported_matrices_give_the_meshed_invariants(tmp_path):
    """M and K of a quad8 plate written as Matrix Market with shuffled rows, read back with
    the node/DOF map and the mesh: the invariants derived from M and the coordinates equal
    the elements' (S_ij exactly, s_ij and Mo to round-off: isoparametric elements), and the
    reduced bodies of both run to the same eigenvalues with spin and angular acceleration."""
    plate = plate_body()
    order = np.random.default_rng(7).permutation(plate.ndof)
    model = kanefem.ImportedModel.read(*exported(plate, tmp_path, order), plate.mesh)
    a, b = model.inertia_invariants(), plate.inertia_invariants()
    for i in range(2):
        for j in range(2):
            assert abs(a["S"][i][j] - b["S"][i][j]).max() == 0.0
    np.testing.assert_allclose(a["s"], b["s"], atol=1e-14 * np.abs(b["s"]).max())
    np.testing.assert_allclose(a["Mo"], b["Mo"], atol=1e-14 * np.abs(b["Mo"]).max())
    r1 = ReducedBody(model, interface=[root], n_modes=6)
    r2 = ReducedBody(plate, interface=[root], n_modes=6, geometric_stiffness=False)
    l1 = r1.eigenvalues(4, omega=30.0, eps=10.0).eigenvalues
    l2 = r2.eigenvalues(4, omega=30.0, eps=10.0).eigenvalues
    np.testing.assert_allclose(l1, l2, rtol=1e-10)  # the dense solver's round-off on 9 DOFs
    with pytest.raises(kanefem.NotSupportedError, match="geometric_stiffness"):
        ReducedBody(model, interface=[root], n_modes=2, geometric_stiffness=True)
    path = tmp_path / "modes.vtu"
    r1.write_modes(path, r1.eigenvalues(2), stresses=False)
    import meshio

    assert meshio.read(path).point_data["mode_1_f=%.6gHz" % r1.eigenvalues(1).frequencies_hz[0]].shape == (
        plate.n_nodes, 3)


def test_bad_imported_matrices_are_named(tmp_path):
    plate = plate_body("quad")
    M, K = plate.mass_matrix(), plate.stiffness_matrix()
    dm = np.array([(k // 2, k % 2) for k in range(plate.ndof)])
    with pytest.raises(ValueError, match="stiffness is not symmetric"):
        kanefem.ImportedModel(M, K + np.triu(np.ones(K.shape), 1) * 1e3, dm, plate.mesh)
    bad = M.copy().tolil()
    bad[0, 0] = -1.0
    with pytest.raises(ValueError, match="mass is not positive definite"):
        kanefem.ImportedModel(bad.tocsr(), K, dm, plate.mesh)
    with pytest.raises(ValueError, match="stiffness is not positive semidefinite"):
        kanefem.ImportedModel(M, -K, dm, plate.mesh)
    with pytest.raises(ValueError, match=r"dof_map must have shape \(126, 2\)"):
        kanefem.ImportedModel(M, K, dm[:-1], plate.mesh)
    twice = dm.copy()
    twice[1] = twice[0]
    with pytest.raises(ValueError, match="appears twice or never"):
        kanefem.ImportedModel(M, K, twice, plate.mesh)
    far = dm.copy()
    far[0, 0] = 999
    with pytest.raises(ValueError, match="node 999"):
        kanefem.ImportedModel(M, K, far, plate.mesh)
    (tmp_path / "junk.mtx").write_text("not a matrix\n")
    with pytest.raises(ValueError, match="mass: .*junk.mtx: not a Matrix Market file"):
        kanefem.ImportedModel.read(tmp_path / "junk.mtx", tmp_path / "junk.mtx", dm, plate.mesh)
    # a header declaring more entries than the file holds: refused before SciPy allocates
    (tmp_path / "lying.mtx").write_text("%%MatrixMarket matrix coordinate real general\n100000 100000 900000000\n1 1 1.0\n")
    mass_file = exported(plate, tmp_path)[0]
    with pytest.raises(ValueError, match="stiffness: .*lying.mtx: the header declares"):
        kanefem.ImportedModel.read(mass_file, tmp_path / "lying.mtx", dm, plate.mesh)
    if hasattr(os, "mkfifo"):  # a FIFO is refused, not waited on
        os.mkfifo(tmp_path / "fifo.mtx")
        with pytest.raises(ValueError, match="fifo.mtx: is a FIFO"):
            kanefem.ImportedModel.read(tmp_path / "fifo.mtx", tmp_path / "K.mtx", dm, plate.mesh)


def test_save_and_load(tmp_path, solid_blade):
    """A reduced body with K_G saved to the NPZ schema and loaded (without pickle) gives
    the same eigenvalues with stress stiffening; with its full body it expands and
    recovers stresses; files of another schema or version are refused naming them."""
    red = ReducedBody(solid_blade, interface=[root], n_modes=4)
    path = tmp_path / "blade.npz"
    red.save(path)
    back = ReducedBody.load(path)
    om = (0.0, 0.0, 300.0)
    np.testing.assert_array_equal(back.eigenvalues(3, omega=om, geometric_stiffness=True).eigenvalues,
                                  red.eigenvalues(3, omega=om, geometric_stiffness=True).eigenvalues)
    assert back.dof_names == red.dof_names and back.kept["n_modes"] == 4
    q = np.arange(red.ndof, dtype=float)
    np.testing.assert_array_equal(back.expand(q), red.expand(q))
    with pytest.raises(kanefem.NotSupportedError, match="full="):
        back.stresses(q)
    with_full = ReducedBody.load(path, full=solid_blade)
    np.testing.assert_array_equal(with_full.stresses(q).values, red.stresses(q).values)
    with pytest.raises(ValueError, match="full has"):
        ReducedBody.load(path, full=plate_body())
    z = dict(np.load(path))
    z["version"] = np.array(4)
    np.savez(tmp_path / "v4.npz", **z)
    with pytest.raises(ValueError, match="v4.npz: schema version 4, this kanefem reads versions 1 to 3"):
        ReducedBody.load(tmp_path / "v4.npz")
    # a version 2 file (before the interface kinds and weights) reads its items as rigid
    new = ("interface_kinds", "interface_weighting", "interface_weights")
    z = {k: v for k, v in np.load(path).items() if k not in new}
    z["version"] = np.array(2)
    np.savez(tmp_path / "v2.npz", **z)
    assert ReducedBody.load(tmp_path / "v2.npz").kept["interface_kinds"] == ["rigid"] == back.kept["interface_kinds"]
    # a version 1 file (before the prestress, full_dof_names and full_nodes arrays) still reads
    z = {k: v for k, v in np.load(path).items() if k not in ("prestress", "full_dof_names", "full_nodes") + new}
    z["version"] = np.array(1)
    np.savez(tmp_path / "v1.npz", **z)
    v1 = ReducedBody.load(tmp_path / "v1.npz")
    np.testing.assert_array_equal(v1.eigenvalues(3, omega=om, geometric_stiffness=True).eigenvalues,
                                  red.eigenvalues(3, omega=om, geometric_stiffness=True).eigenvalues)
    assert v1.kept["prestress"] == "supports" and back.kept["prestress"] == "supports"
    np.testing.assert_array_equal(back.full_nodes(), solid_blade.nodes)
    assert v1.full_nodes().shape == (0, 3)
    np.savez(tmp_path / "other.npz", a=np.zeros(2))
    with pytest.raises(ValueError, match="other.npz: not a kanefem reduced body"):
        ReducedBody.load(tmp_path / "other.npz")
    (tmp_path / "text.npz").write_text("hello")
    with pytest.raises(ValueError, match="text.npz: not a readable reduced body NPZ file"):
        ReducedBody.load(tmp_path / "text.npz")
    z = dict(np.load(path))
    z["K"] = z["K"] + np.triu(np.ones_like(z["K"]), 1)
    np.savez(tmp_path / "asym.npz", **z)
    with pytest.raises(ValueError, match="asym.npz: .*K.*not symmetric"):
        ReducedBody.load(tmp_path / "asym.npz")
    z = dict(np.load(path))
    z["obj"] = np.array([object()], dtype=object)
    np.savez(tmp_path / "pickled.npz", **z)
    with pytest.raises(ValueError, match="pickled.npz: member 'obj.npy' has dtype object"):
        ReducedBody.load(tmp_path / "pickled.npz")
    z = dict(np.load(path))
    z["version"] = np.array("one")
    np.savez(tmp_path / "vtext.npz", **z)
    with pytest.raises(ValueError, match="vtext.npz: array 'version' is of dtype <U3"):
        ReducedBody.load(tmp_path / "vtext.npz")


def test_responses_and_stresses_converge_as_modes_are_added():
    """A quad8 plate 1000 x 100 x 10 mm clamped at its root (a rigid interface, held), a
    harmonic tip force of 100 N at 292 Hz (between the first two modes, 83 and 500 Hz) from
    rest, 30 ms of Newmark at 20 us: the reduced response (the load projected, V^T f;
    expanded, V q) against the full mesh's.  Relative errors of the peak tip deflection,
    of its history (max |u_r - u| / max |u|) and of the peak von Mises stress over the
    mesh (every 0.5 ms):

    ======  ==========  ==========  ==========
    modes   peak u      history u   peak vM
    ======  ==========  ==========  ==========
    1       1.5e-01     2.0e-01     4.5e-01
    2       1.1e-02     1.9e-02     3.9e-02
    4       3.6e-03     6.4e-03     2.3e-02
    8       8.3e-04     1.5e-03     4.0e-03
    16      4.8e-04     8.7e-04     4.4e-04
    ======  ==========  ==========  ==========

    The start from rest excites every mode a little: the modes left out are the error."""
    plate = plate_body()
    tip = int(np.flatnonzero(np.isclose(plate.nodes[:, 0], 1.0) & np.isclose(plate.nodes[:, 1], 0.05))[0])
    lam = plate.eigenvalues(2, supports={root: "fixed"}).eigenvalues
    f = np.zeros(plate.ndof)
    f[2 * tip + 1] = 100.0
    load = kanefem.HarmonicLoad(f, 0.5 * (math.sqrt(lam[0]) + math.sqrt(lam[1])))
    rest = kanefem.Motion.constant_speed(0.0)
    full = kanefem.simulate(plate, rest, 0.03, dt=2e-5, supports={root: "fixed"}, loads=load)
    u = full.d[:, 2 * tip + 1]
    vm = plate.stresses(full.d[::25])["von_mises_Pa"].max()
    errors = []
    for m in (1, 4, 16):
        red = ReducedBody(plate, interface=[root], n_modes=m)
        r = red.expand(kanefem.simulate(red, rest, 0.03, dt=2e-5, supports="clamped", loads=red.project(load)))
        ur = r.d[:, 2 * tip + 1]
        errors.append((abs(np.abs(ur).max() / np.abs(u).max() - 1), np.abs(ur - u).max() / np.abs(u).max(),
                       abs(plate.stresses(r.d[::25])["von_mises_Pa"].max() / vm - 1)))
    errors = np.array(errors)
    assert np.all(errors[1] < errors[0]) and np.all(errors[2] < errors[1])
    assert errors[2, 0] < 1e-3 and errors[2, 1] < 2e-3 and errors[2, 2] < 2e-3


def test_reduced_body_honours_the_contract(solid_blade):
    """The contract's methods on a reduced mesh: dense matrices (the reduced storage),
    every combination and K_G the projection of the full body's, constraint rows of the
    supports, and simulate from rest in balance (d = 0 exactly) and spinning (finite)."""
    from test_body_contract import METHODS

    red = ReducedBody(solid_blade, interface=[root], n_modes=4)
    V = red.basis_matrix
    for m in METHODS + ("expand", "project", "save"):
        assert callable(getattr(red, m)), m
    assert red.storage == "dense" and isinstance(red.mass_matrix(), np.ndarray)
    c = np.arange(9.0).reshape(3, 3)
    ref = V.T @ solid_blade.combination(c, 2.0) @ V
    # K V of the constraint modes cancels on the interior: V^T K V to ~1e-10 of K's scale
    np.testing.assert_allclose(red.combination(c, 2.0), ref, atol=1e-9 * np.abs(ref).max())
    inv = red.inertia_invariants()
    assert inv["S"].shape == (3, 3, red.ndof, red.ndof) and inv["s"].shape == (3, 3, red.ndof)
    coef = red.axial_force(omega=(0.0, 0.0, 100.0), a_O=(1.0, 2.0, 3.0))
    assert coef.shape == (12,)
    np.testing.assert_allclose(coef, solid_blade.axial_force(omega=(0.0, 0.0, 100.0), a_O=(1.0, 2.0, 3.0),
                                                              supports={root: "fixed"}), rtol=0, atol=0)
    ref = V.T @ solid_blade.geometric_stiffness(coef, supports={root: "fixed"}) @ V
    np.testing.assert_allclose(red.geometric_stiffness(coef), ref, atol=1e-10 * np.abs(ref).max())
    assert red.constraint_matrix("clamped").shape == (6, red.ndof)
    rest = kanefem.simulate(red, kanefem.Motion.constant_speed(0.0), 2e-3, dt=1e-4)
    assert np.array_equal(rest.d, np.zeros_like(rest.d))
    spin = kanefem.simulate(red, kanefem.Motion.constant_speed(20.0), 2e-3, dt=1e-4,
                            geometric_stiffness=True)
    assert np.all(np.isfinite(spin.d)) and np.abs(spin.d).max() > 0.0
    assert "ReducedBody(MeshBody of 558 DOFs" in repr(red)


def test_free_interface_blade_held_by_constraints_stiffens():
    """A free-interface Beam3D blade (free-free modes + the root node's attachment modes,
    the prestress of the root clamped) held at the root through constraints on its modal
    coordinates (interface_rows), spinning at 60 rad/s with K_G: the lowest three
    eigenvalues converge to the full clamped blade's (relative errors with 6 / 12 / 24
    modes: 5e-1, 1.5e-5, 1.5e-7 at the worst of the three)."""
    full = Beam3D(L, 30, **STEEL, A=B * H, Izz=H * B**3 / 12, Iyy=B * H**3 / 12, J=1e-9)
    om = (0.0, 0.0, 60.0)
    ref = full.eigenvalues(3, omega=om, geometric_stiffness=True).eigenvalues
    worst = []
    for m in (12, 24):
        red = ReducedBody(full, interface=[0], basis="free-interface", n_modes=m, prestress_supports="clamped-free")
        lam = red.eigenvalues(3, omega=om, supports=None, constraints=red.interface_rows("clamped-free"),
                              geometric_stiffness=True).eigenvalues
        worst.append(np.abs(lam / ref - 1).max())
    # 24 modes: the dense solver's round-off of the Maggi-projected problem (~1e-13 of its
    # largest eigenvalue, 1e6 times the first) is the rest
    assert worst[0] < 5e-5 and worst[1] < 5e-7 and worst[1] < worst[0]
