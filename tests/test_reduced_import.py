"""Imported models with rotational DOFs and K_G (issue 21; docs/theory.md section 3.18):
beam and shell models' matrices with their node/DOF map, the inertia invariants of a
separable mass (translations' nodal mass, rotations' rotary inertia) derived exactly,
K_G of the unit load cases given as matrices, and the readers' checks."""

import math
import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import kanefem
from kanefem import Beam3D, ImportedModel, PlanarBeam, ReducedBody, _core
from kanefem.mechanism import ConstantSpeed, ElasticLink, Mechanism, slider_crank
from kanefem.reduced import geometric_cases

E, RHO, NU = 2.1e11, 7800.0, 0.3


def timoshenko_beam(L=1.0, n=12, A=5e-4, Iy=1e-9, Iz=4e-8):
    """A spatial beam along x whose translations and rotations are interpolated
    independently (linear, as Abaqus' B31 or Ansys' BEAM188), coded here: M, K (shear
    by one-point integration), the node coordinates, and its inertia invariants by
    quadrature over each element (2 Gauss points) and its section (4 points (+-a, 0),
    (0, +-b) of A/4 with a^2 = 2 Iz/A, b^2 = 2 Iy/A: exact for the quadratic integrands):
    the material point (x, y, z) moves by u(x) + theta(x) x (0, y, z)."""
    nodes = np.column_stack([np.linspace(0.0, L, n + 1), np.zeros(n + 1), np.zeros(n + 1)])
    ndof = 6 * (n + 1)
    G = E / (2 * (1 + NU))
    a, b = math.sqrt(2 * Iz / A), math.sqrt(2 * Iy / A)
    section = [(a, 0.0), (-a, 0.0), (0.0, b), (0.0, -b)]
    gx, gw = np.polynomial.legendre.leggauss(2)
    S = np.zeros((3, 3, ndof, ndof))
    s = np.zeros((3, 3, ndof))
    K = np.zeros((ndof, ndof))
    le = L / n
    for e in range(n):
        dofs = np.r_[6 * e:6 * e + 12]
        for xi, wx in zip(gx, gw):
            Na = np.array([(1 - xi) / 2, (1 + xi) / 2])
            x = nodes[e, 0] + (1 + xi) / 2 * le
            for y, z in section:
                r = np.array([0.0, y, z])
                Nm = np.zeros((3, 12))
                for k in range(2):
                    Nm[:, 6 * k:6 * k + 3] = Na[k] * np.eye(3)
                    for c in range(3):
                        Nm[:, 6 * k + 3 + c] = Na[k] * np.cross(np.eye(3)[c], r)
                dm = RHO * A / 4 * wx * le / 2
                X = np.array([x, y, z])
                for i in range(3):
                    s[i, :, dofs] += dm * np.outer(Nm[i], X)
                    for j in range(3):
                        S[i, j][np.ix_(dofs, dofs)] += dm * np.outer(Nm[i], Nm[j])
        # stiffness: axial, torsion and the curvatures at the midpoint (exact: constant)
        dN = np.array([-1.0, 1.0]) / le
        Ke = np.zeros((12, 12))
        for k in range(2):
            for l in range(2):
                blk = np.zeros((6, 6))
                blk[0, 0] = E * A * dN[k] * dN[l]
                blk[3, 3] = G * (Iy + Iz) * dN[k] * dN[l]
                blk[4, 4] = E * Iy * dN[k] * dN[l]
                blk[5, 5] = E * Iz * dN[k] * dN[l]
                Ke[6 * k:6 * k + 6, 6 * l:6 * l + 6] += blk * le
        Bs = np.zeros((2, 12))  # shear at the midpoint: gamma_xy = v' - theta_z, gamma_xz = w' + theta_y
        Bs[0, [1, 7]] = dN
        Bs[0, [5, 11]] = -0.5
        Bs[1, [2, 8]] = dN
        Bs[1, [4, 10]] = 0.5
        Ke += 5 / 6 * G * A * le * Bs.T @ Bs
        K[np.ix_(dofs, dofs)] += Ke
    M = sum(S[i, i] for i in range(3))
    Mo = np.array([S[i, i] @ np.tile(np.eye(6)[i], n + 1) for i in range(3)])
    return M, K, nodes, {"S": S, "s": s, "Mo": Mo}


def dof_map(n_nodes, nf, order=None):
    m = np.array([(k // nf, k % nf) for k in range(n_nodes * nf)])
    return m if order is None else m[order]


def test_separable_beam_invariants_are_exact():
    """The independently interpolated beam's M (translations' consistent mass, rotations'
    section inertia: separable) with its rows shuffled: the invariants ImportedModel
    derives from M and the coordinates equal the beam's own by quadrature, S_ij and
    Mo_i to 1e-14 and s_ij to 1e-13 of their largest entries (round-off: measured 7e-21
    and 1.9e-16), rotary parts included; so every motion term of a reduced body of it is
    the projection of the beam's (a spin about a tilted axis with angular acceleration:
    C, K_eps, K_om and the loads to 1e-11, measured 2.5e-16), its rigid body is the beam's (m = rho A L, centre L/2, J_xx = rho Ip
    L, J_yy = rho Iy L + m L^2/12 to 1e-12: the rigid-motion checks) and an interface
    node keeps its six DOFs (ux ... rz) as physical coordinates."""
    A, Iy, Iz, L = 5e-4, 1e-9, 4e-8, 1.0
    M, K, nodes, ref = timoshenko_beam(L, 12, A, Iy, Iz)
    n = M.shape[0]
    order = np.random.default_rng(1).permutation(n)
    model = ImportedModel(sp.csr_matrix(M[order][:, order]), sp.csr_matrix(K[order][:, order]),
                          dof_map(13, 6, order), nodes)
    assert model.rotations and model.dof_names == ("ux", "uy", "uz", "rx", "ry", "rz")
    inv = model.inertia_invariants()
    for i in range(3):
        for j in range(3):
            X = inv["S"][i][j].toarray()
            assert np.abs(X - ref["S"][i, j]).max() <= 1e-14 * np.abs(ref["S"]).max()
    assert np.abs(inv["s"] - ref["s"]).max() <= 1e-13 * np.abs(ref["s"]).max()
    assert np.abs(inv["Mo"] - ref["Mo"]).max() <= 1e-14 * np.abs(ref["Mo"]).max()
    R = model.rigid_motions()
    assert np.abs(model.stiffness_matrix() @ R).max() < 1e-9 * abs(model.stiffness_matrix()).max()
    red = ReducedBody(model, interface=[0, 12], n_modes=6)
    assert red.dof_names[:6] == ("i0_ux", "i0_uy", "i0_uz", "i0_rx", "i0_ry", "i0_rz")
    assert not red.kept["geometric_stiffness"]  # no K_G cases given: none, said by kept
    V = red.basis_matrix
    om, ep, a = (3.0, -1.0, 20.0), (40.0, 10.0, -30.0), (1.0, -9.81, 3.0)
    t = red.motion_terms(om, ep, a)
    W, Ee = (np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]]) for w in (om, ep))
    WW = W @ W
    terms = {"C": 2 * sum(W[i, j] * ref["S"][i, j] for i in range(3) for j in range(3)),
             "K_eps": sum(Ee[i, j] * ref["S"][i, j] for i in range(3) for j in range(3)),
             "K_om": sum(WW[i, j] * ref["S"][i, j] for i in range(3) for j in range(3))}
    for name, X in terms.items():
        P = V.T @ X @ V
        assert np.abs(getattr(t, name) - P).max() < 1e-11 * np.abs(P).max()
    q_om = V.T @ sum(WW[i, j] * ref["s"][i, j] for i in range(3) for j in range(3))
    assert np.abs(t.q_om - q_om).max() < 1e-11 * np.abs(q_om).max()
    rigid = _core.body_rigid(body=red._body)
    m = RHO * A * L
    assert rigid["mass"] == pytest.approx(m, rel=1e-12)
    np.testing.assert_allclose(rigid["centre"], [L / 2, 0.0, 0.0], atol=1e-12 * L)
    np.testing.assert_allclose(np.diag(rigid["inertia"]), [RHO * (Iy + Iz) * L, RHO * Iy * L + m * L**2 / 12,
                                                           RHO * Iz * L + m * L**2 / 12], rtol=1e-12)
    # the model's own mass properties (a floating body's) likewise
    mm, c, Ic = model._mass_properties()
    assert mm == pytest.approx(m, rel=1e-12) and np.allclose(c, [L / 2, 0, 0], atol=1e-12)
    np.testing.assert_allclose(np.diag(Ic), [m * L**2 / 12, RHO * Iz * L, RHO * Iy * L], rtol=1e-12)


def export(folder, body, fixed, order):
    """A kanefem body as an FE code would export it, rows shuffled by ``order``: M, K, the
    DOF map, the K_G cases of its unit loads with ``fixed`` held, the invariants S_ij (one
    file each) and s_ij (an n x 9 array): Matrix Market files."""
    def write(name, X):
        path = folder / name
        scipy.io.mmwrite(path, sp.csr_matrix(X)[order][:, order] if X.shape[0] == X.shape[1] else X)
        return path

    n, nf, d = body.ndof, body.dofs_per_node, body.dim
    M, K = write("M.mtx", body.mass_matrix()), write("K.mtx", body.stiffness_matrix())
    np.savetxt(folder / "map.txt", dof_map(body.n_nodes, nf, order), fmt="%d")
    KG = [write(f"KG{c}.mtx", X) for c, X in enumerate(geometric_cases(body, fixed))]
    inv = body.inertia_invariants()
    S = [[write(f"S{i}{j}.mtx", inv["S"][i][j]) for j in range(d)] for i in range(d)]
    s = np.array([[inv["s"][i, j][order] for j in range(d)] for i in range(d)]).reshape(d * d, n).T
    scipy.io.mmwrite(folder / "s.mtx", s)
    return M, K, folder / "map.txt", KG, {"S": S, "s": folder / "s.mtx"}


def test_kanefem_beam_exported_and_imported(tmp_path):
    """A Beam3D blade (30 elements; its Hermite mass couples translations and rotations)
    exported to Matrix Market with shuffled rows and read back with its DOF map, its K_G
    cases (root held) and its invariants: a reduced body of it (root node and 8 modes) has
    the beam's reduced frequencies (1e-9; measured 1.6e-11: the two reductions' solvers,
    SuperLU and ARPACK against LAPACK) and, spinning about z with K_G, the same flap
    Southwell slope (1e-8; measured 9e-15), within 2e-3 of Southwell's
    1.1933 (Wright et al. 1982).  Without the invariants the import is refused naming the
    coupling and what would do; the beam's mesh is read from a meshio file of its line
    cells (its nodes)."""
    meshio = pytest.importorskip("meshio")
    L, B, H = 1.0, 0.05, 0.01
    beam = Beam3D(L, 30, E=E, rho=RHO, A=B * H, Izz=H * B**3 / 12, Iyy=B * H**3 / 12, J=1e-9)
    order = np.random.default_rng(3).permutation(beam.ndof)
    M, K, dm, KG, inv = export(tmp_path, beam, beam.support_mask("clamped-free"), order)
    meshio.write(tmp_path / "blade.vtu", meshio.Mesh(beam.nodes, [("line", beam._elements)]))
    with pytest.raises(ValueError, match=r"mass couples translations and rotations .*invariants="):
        ImportedModel.read(M, K, dm, tmp_path / "blade.vtu")
    model = ImportedModel.read(M, K, dm, tmp_path / "blade.vtu", geometric=KG, invariants=inv)
    assert model.n_nodes == 31 and model.rotations
    mine = ReducedBody(model, interface=[0], n_modes=8)
    theirs = ReducedBody(beam, interface=[0], n_modes=8)
    assert mine.kept["geometric_stiffness"] and mine.kept["prestress"] == "supports"
    f1, f2 = mine.eigenvalues(4).frequencies_hz, theirs.eigenvalues(4).frequencies_hz
    assert np.abs(f1 / f2 - 1).max() < 1e-9
    lam0 = theirs.eigenvalues(1).eigenvalues[0]
    Om = 0.3 * math.sqrt(lam0)
    slopes = []
    for red in (mine, theirs):
        spun = red.eigenvalues(1, omega=(0.0, 0.0, Om), geometric_stiffness=True).eigenvalues[0]
        slopes.append((spun - red.eigenvalues(1).eigenvalues[0]) / Om**2)
    assert slopes[0] == pytest.approx(slopes[1], abs=1e-8)
    assert slopes[0] == pytest.approx(1.1933, abs=2e-3)
    # the given invariants must describe M: another beam's are refused by name
    other = Beam3D(L, 30, E=E, rho=2 * RHO, A=B * H, Izz=H * B**3 / 12, Iyy=B * H**3 / 12, J=1e-9).inertia_invariants()
    S = [[sp.csr_matrix(X)[order][:, order] for X in row] for row in other["S"]]
    with pytest.raises(ValueError, match=r"sum S_ii differs from the mass matrix"):
        ImportedModel.read(M, K, dm, tmp_path / "blade.vtu", invariants={"S": S, "s": inv["s"]})


def lumped_rod(n=40):
    """The slider-crank's rod (0.3 m, 6 mm steel) as a planar beam model with a lumped mass:
    each node a mass m_a = rho A (its tributary length) and a rotary inertia J_a = m_a l_a^2
    / 12 (its segment as a thin rod): separable; K the kanefem beam's."""
    beam = slider_crank().link("rod").body
    rod = PlanarBeam(0.3, n, E=beam.E, A=beam.A, I=beam.I, rho=beam.rho)
    l = np.full(n + 1, 0.3 / n)
    l[[0, -1]] /= 2
    m = beam.rho * beam.A * l
    J = m * l**2 / 12
    M = sp.diags(np.column_stack([m, m, J]).ravel()).tocsr()
    return rod, M, m, J


def test_lumped_planar_model_as_a_mechanism_link():
    """A planar beam model with a lumped mass (ux, uy, rz at each node) is a reduced link
    of the slider-crank, joints at its end nodes (interface nodes with a rotation each):
    its rigid body is the lumped masses' exactly (m = rho A L, centre L/2, inertia sum
    m_a (x_a - L/2)^2 + J_a, to 1e-12: the rigid-motion checks through the invariants),
    and its frequencies over a turn (one way, no K_G: an imported model's link has no
    interface load cases) are the consistent-mass beam rod's within the lumping error
    (measured 2.6e-4 at 40 elements, 9.6e-4 at 20: as 1/n^2).  Two ways, its midpoint
    deflection is the beam rod's within 1 % of the peak (measured 0.27 %)."""
    errors = []
    for n in (20, 40):
        rod, M, m, J = lumped_rod(n)
        model = ImportedModel(M, rod.stiffness_matrix(), dof_map(n + 1, 3), rod.nodes, dim=2)
        assert model.dof_names == ("ux", "uy", "rz")
        red = ReducedBody(model, interface=[0, n], n_modes=8)
        assert not red.kept["geometric_stiffness"]
        link = ElasticLink("rod", red, start=(0.15, 0.0), geometric_stiffness=False)
        x = rod.nodes[:, 0]
        assert link.mass == pytest.approx(m.sum(), rel=1e-12)
        np.testing.assert_allclose(link.centre_local, [0.15, 0.0], atol=1e-12)
        assert link.inertia == pytest.approx(m @ (x - 0.15) ** 2 + J.sum(), rel=1e-12)
        np.testing.assert_array_equal(link.ports()[1], [[0, 1, 2], [3, 4, 5]])
        sc = slider_crank(geometric_stiffness=False)
        mech = Mechanism([sc.bodies[0], link, sc.bodies[2]], sc.joints, sc.coordinates, gravity=sc.gravity)
        t = np.linspace(0.0, 2 * math.pi / 150, 13)
        drives = {"crank": ConstantSpeed(150.0)}
        f = mech.link_eigenvalues(mech.solve(t, drives=drives), n_modes=1, geometric_stiffness=False)
        g = sc.link_eigenvalues(sc.solve(t, drives=drives), n_modes=1, geometric_stiffness=False)
        errors.append(np.abs(f["rod"].frequencies_hz / g["rod"].frequencies_hz - 1).max())
    assert errors[1] < 5e-4 and errors[0] > 3 * errors[1]
    opts = dict(drives=drives, rtol=None, dt=t[-1] / 250, axial_force="extrapolated")
    v = mech.simulate_flexible(t, **opts).displacement("rod", n // 2)[:, 1]
    v0 = sc.simulate_flexible(t, **opts).deflection("rod", 0.15)
    assert np.abs(v - v0).max() < 0.01 * np.abs(v0).max()


def test_bad_imported_models_are_named(tmp_path):
    """Rotational DOF maps, masses without rotary inertia, K_G cases and the readers'
    hardening: each refused naming the argument or file and the value."""
    rod, M, m, J = lumped_rod(4)
    K = rod.stiffness_matrix()
    dm = dof_map(5, 3)
    nodes = rod.nodes
    with pytest.raises(ValueError, match=r"DOFs must be 0..2 .*2 about z"):
        ImportedModel(M, K, np.column_stack([dm[:, 0], dm[:, 1] + 1]), nodes)
    mixed = dm.copy()
    mixed[2] = (1, 2)  # node 0 lacks its rotation, node 1 has two
    with pytest.raises(ValueError, match=r"appears twice or never"):
        ImportedModel(M, K, mixed, nodes)
    with pytest.raises(ValueError, match=r"every node needs the same DOFs: ux, uy, rz\); node 4 has 2"):
        ImportedModel(M[:14, :14], K[:14, :14], dm[:14], nodes)
    no_rot = sp.diags(np.column_stack([m, m, np.zeros(5)]).ravel()).tocsr()
    with pytest.raises(ValueError, match=r"DOF rz of node 0 has M = 0.0 .*without rotary inertia"):
        ImportedModel(no_rot, K, dm, nodes)
    # a planar model read as a spatial one: its rotary inertia is no translational mass
    with pytest.raises(ValueError, match=r"dim=2"):
        ImportedModel(M, K, dm, np.column_stack([nodes, np.zeros(5)]))
    with pytest.raises(TypeError, match=r"geometric must be the 6 K_G matrices"):
        ImportedModel(M, K, dm, nodes, geometric=[K])
    with pytest.raises(ValueError, match=r"geometric: the cases are a_x, a_y, EWW_xx.*missing"):
        ImportedModel(M, K, dm, nodes, geometric={"a_x": K})
    with pytest.raises(ValueError, match=r"geometric\['a_y'\] is not symmetric"):
        ImportedModel(M, K, dm, nodes, geometric=[K, K + sp.triu(sp.csr_matrix(np.ones(K.shape)), 1)] + [K] * 4)
    with pytest.raises(ValueError, match=r"must have the matrices' shape \(15, 15\)"):
        ImportedModel(M, K, dm, nodes, geometric=[K[:3, :3]] + [K] * 5)
    model = ImportedModel(M, K, dm, nodes, geometric=[0 * K] * 6)
    with pytest.raises(kanefem.NotSupportedError, match=r"prestress_supports='free'.*geometric_stiffness=False"):
        ReducedBody(model, interface=[0, 4], n_modes=2, prestress_supports="free")
    # files: the size line is checked against the model's size before the values are parsed
    scipy.io.mmwrite(tmp_path / "M.mtx", M)
    scipy.io.mmwrite(tmp_path / "K.mtx", K)
    scipy.io.mmwrite(tmp_path / "small.mtx", K[:6, :6])
    with pytest.raises(ValueError, match=r"geometric\[0\]: .*small.mtx: the size line declares a 6 x 6 matrix, "
                                         r"15 x 15 expected"):
        ImportedModel.read(tmp_path / "M.mtx", tmp_path / "K.mtx", dm, nodes, geometric=[tmp_path / "small.mtx"] * 6)
    raw = (tmp_path / "K.mtx").read_bytes()
    (tmp_path / "nul.mtx").write_bytes(raw[:-8] + b"\x00" + raw[-7:])  # a NUL inside the last entry
    with pytest.raises(ValueError, match=r"nul.mtx: not a Matrix Market file: it holds a NUL byte"):
        ImportedModel.read(tmp_path / "M.mtx", tmp_path / "K.mtx", dm, nodes, geometric=[tmp_path / "nul.mtx"] * 6)
    if hasattr(os, "mkfifo"):  # a FIFO is refused, not waited on
        os.mkfifo(tmp_path / "fifo.mtx")
        with pytest.raises(ValueError, match=r"fifo.mtx: is a FIFO"):
            ImportedModel.read(tmp_path / "M.mtx", tmp_path / "K.mtx", dm, nodes, geometric=[tmp_path / "fifo.mtx"] * 6)
    with pytest.raises(ValueError, match=r"invariants\['s'\]: .*the size line declares a 15 x 15 matrix, 15 x 4"):
        ImportedModel.read(tmp_path / "M.mtx", tmp_path / "K.mtx", dm, nodes,
                           invariants={"S": [[M, 0 * M], [0 * M, 0 * M]], "s": tmp_path / "K.mtx"})
    with pytest.raises(TypeError, match=r"invariants must be a dict"):
        ImportedModel(M, K, dm, nodes, invariants={"S": None})
