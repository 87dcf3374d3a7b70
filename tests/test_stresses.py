"""Stresses of meshes and section forces of beams (issue 20, item 3; docs/theory.md
section 2.10): a cantilever under a tip load against beam theory (M = P (L - x),
sigma = M y / I) at Gauss points and nodes, for beams and meshes; the constant-stress
patch for every element kind; von Mises against the hand formula; modal stresses and
responses; tables and VTU files."""

import numpy as np
import pytest

import kanefem
from kanefem import Beam3D, Mesh, MeshBody, NotSupportedError, PlanarBeam, _core
from kanefem._results import COLUMN
from test_mesh_elements import bump, hex_dominant, plane_mixed, quadratic_pyramids  # tests/ on the path

sp = pytest.importorskip("scipy.sparse")
spla = pytest.importorskip("scipy.sparse.linalg")
meshio = pytest.importorskip("meshio")

E, NU, RHO = 2.1e11, 0.3, 7800.0
P, L = 100.0, 1.0


def solve_fixed(body, Q, fixed, d_fixed=None):
    """K d = Q on the free DOFs, d = d_fixed (default 0) on the fixed ones."""
    K = body.stiffness_matrix()
    K = sp.csr_matrix(K)
    d = np.zeros(body.ndof) if d_fixed is None else np.array(d_fixed, float)
    free = ~fixed
    d[free] = spla.spsolve(K[free][:, free].tocsc(), Q[free] - K[free][:, fixed] @ d[fixed])
    return d


# ---------------------------------------------------------------- beams


def test_planar_cantilever_section_forces_are_beam_theory_at_ends_and_gauss_points():
    """A clamped beam with a tip load P: N = 0, V = P, M = P (L - x) exactly (the
    Hermite element reproduces the cubic deflection), at the element ends and at the
    Gauss stations; the extreme fibre's stress M c / I from it."""
    b, h = 0.02, 0.05
    beam = PlanarBeam(L, 8, E=E, A=b * h, Izz=b * h ** 3 / 12, rho=RHO)
    Q = np.zeros(beam.ndof)
    Q[-2] = P
    d = solve_fixed(beam, Q, beam.support_mask("clamped-free"))
    for at in ("ends", "gauss"):
        r = beam.section_forces(d, at=at)
        x = r.x[:, 0]
        assert r.names == ("N_N", "V_N", "M_Nm") and r.at == at
        # round-off of K d at |K| ~ E I / l^3 ~ 1e5 times d: 1e-9 relative is far above it
        np.testing.assert_allclose(r["M_Nm"][0], P * (L - x), atol=1e-9 * P * L)
        np.testing.assert_allclose(r["V_N"][0], P, rtol=1e-9)
        np.testing.assert_allclose(r["N_N"][0], 0.0, atol=1e-9 * P)
        sigma = r["M_Nm"][0] * (h / 2) / beam.Izz
        np.testing.assert_allclose(sigma, P * (L - x) * (h / 2) / beam.Izz, rtol=1e-9, atol=1e-3)
    # the peak is at the clamp
    value, k, p = beam.section_forces(d).peak()
    assert k == 0 and p == 0 and value == pytest.approx(P * L, rel=1e-9)


def test_the_cores_gauss_point_moments_equal_the_end_force_interpolation():
    """The core's D B d at the planar beam's own quadrature points (E I v'') against
    the linear moment between the element's end forces (K_e d_e): two routes through
    the element, for a random state (the moment is linear in a Hermite element)."""
    beam = PlanarBeam(1.2, 5, E=E, A=1e-4, Izz=2e-8, rho=RHO)
    d = np.random.default_rng(3).standard_normal((2, beam.ndof)) * 1e-3
    core = _core.point_strains(beam._body, d)
    ends = beam.section_forces(d).values.reshape(2, 5, 2, 3)  # set, element, end, (N, V, M)
    xq = core["x"][:, 0].reshape(5, -1)
    x0 = beam.nodes[:-1, 0][:, None]
    s = (xq - x0) / (1.2 / 5)
    M = ends[:, :, 0, None, 2] * (1 - s) + ends[:, :, 1, None, 2] * s
    scale = np.abs(M).max()
    np.testing.assert_allclose(core["sig"][:, :, 1].reshape(2, 5, -1), M, atol=1e-10 * scale)
    Nq = core["sig"][:, :, 0].reshape(2, 5, -1)
    np.testing.assert_allclose(Nq, np.broadcast_to(ends[:, :, 0, None, 0], Nq.shape),
                               atol=1e-10 * np.abs(ends[..., 0]).max())


@pytest.mark.parametrize("axis", ["x", "y"])
def test_spatial_cantilever_section_forces_in_element_axes(axis):
    """A Beam3D cantilever (on x, or built from nodes along y) with tip forces across
    both section axes and a tip torque: Vy = Fy, Vz = Fz, T = Mt, Mz = Fy (L - s),
    My = -Fz (L - s) (My = -E Iyy w'' with theta_y = -w'), in the element's axes."""
    n, Fy, Fz, Mt = 6, 40.0, -25.0, 7.0
    sec = dict(E=E, A=1e-4, Izz=1e-8, Iyy=2e-8, J=3e-8, rho=RHO)
    if axis == "x":
        beam = Beam3D(L, n, **sec)
        e1, e2, e3 = np.eye(3)
    else:  # along +y, ref = x: e3 = e1 x ref = -z, e2 = e3 x e1 = x
        nodes = np.zeros((n + 1, 3))
        nodes[:, 1] = np.linspace(0, L, n + 1)
        beam = Beam3D.from_mesh(nodes, np.column_stack([np.arange(n), np.arange(1, n + 1)]),
                                ref=(1.0, 0.0, 0.0), **sec)
        e1, e2, e3 = np.array([0, 1.0, 0]), np.array([1.0, 0, 0]), np.array([0, 0, -1.0])
    Q = np.zeros(beam.ndof)
    Q[-6:-3] = Fy * e2 + Fz * e3
    Q[-3:] = Mt * e1
    d = solve_fixed(beam, Q, beam.support_mask("clamped-free"))
    for at in ("ends", "gauss"):
        r = beam.section_forces(d, at=at)
        s = r.x @ e1
        expect = {"N_N": 0.0, "Vy_N": Fy, "Vz_N": Fz, "T_Nm": Mt, "Mz_Nm": Fy * (L - s), "My_Nm": -Fz * (L - s)}
        for name, v in expect.items():
            np.testing.assert_allclose(r[name][0], np.broadcast_to(v, s.shape), atol=1e-8 * 40.0, err_msg=name)


def test_bars_carry_their_axial_force():
    """An axial bar pulled at its end and a truss's members: N = F in each."""
    bar = kanefem.AxialBar(2.0, 4, E=E, A=1e-4, rho=RHO)
    Q = np.zeros(bar.ndof)
    Q[-1] = 500.0
    d = solve_fixed(bar, Q, bar.support_mask("fixed-free"))
    np.testing.assert_allclose(bar.section_forces(d)["N_N"][0], 500.0, rtol=1e-9)
    # a two-bar truss: a load F down at the apex of two bars at +-45 degrees: each
    # compressed by F / sqrt 2
    nodes = np.array([[-1.0, 0, 0], [1.0, 0, 0], [0.0, 1.0, 0]])
    truss = kanefem.Bar3D.from_mesh(nodes, [[0, 2], [1, 2]], E=E, A=1e-4, rho=RHO)
    fixed = np.zeros(truss.ndof, bool)
    fixed[:6] = True
    fixed[8] = True  # z of the apex (the plane truss has no out-of-plane stiffness)
    Q = np.zeros(truss.ndof)
    Q[7] = -1000.0
    d = solve_fixed(truss, Q, fixed)
    np.testing.assert_allclose(truss.section_forces(d)["N_N"][0], -1000.0 / np.sqrt(2), rtol=1e-9)


# ---------------------------------------------------------------- meshes: cantilever


@pytest.mark.parametrize("cell,n,tol_gauss,tol_nodes", [
    ("quad", (40, 4), 0.01, 1e-4),          # quad4 with incompatible modes
    ("quad9", (20, 2), 0.005, 1e-4),
    ("hexahedron", (20, 2, 2), 0.02, 0.01),  # hex8 with incompatible modes
])
def test_mesh_cantilever_bending_stress_is_beam_theory(cell, n, tol_gauss, tol_nodes):
    """A clamped strip with a tip shear P: sigma_xx = -P (L - x) y / I (M y / I with the
    beam's sign: tension on the side away from the load) at the Gauss points and at the
    recovered nodes, away from the clamp and the loaded end (Saint-Venant: 0.2 L each),
    relative to the largest bending stress.  Tolerances: what each element does at
    this mesh (the clamp's Poisson constraint and the shear's end loading are not beam
    theory), measured and kept with headroom."""
    b, h = 0.02, 0.05
    I = b * h ** 3 / 12
    if len(n) == 2:
        mesh = Mesh.rectangle(L, h, *n, cell=cell, origin=(0.0, -h / 2))
        body = MeshBody(mesh, E=E, nu=NU, rho=RHO, thickness=b)
    else:
        mesh = Mesh.box(L, h, b, *n, cell=cell, origin=(0.0, -h / 2, -b / 2))
        body = MeshBody(mesh, E=E, nu=NU, rho=RHO)
    fixed = body.support_mask({lambda x: np.isclose(x[:, 0], 0.0): "fixed"})
    tip = np.flatnonzero(np.isclose(body.nodes[:, 0], L))
    Q = np.zeros(body.ndof)
    Q[tip * body.dim + 1] = P / len(tip)
    d = solve_fixed(body, Q, fixed)
    for at, tol in (("gauss", tol_gauss), ("nodes", tol_nodes)):
        r = body.stresses(d, at=at)
        x, y = r.x[:, 0], r.x[:, 1]
        ref = -P * (L - x) * y / I
        mid = (x > 0.2 * L) & (x < 0.8 * L)
        err = np.abs(r["sigma_xx_Pa"][0][mid] - ref[mid]).max() / (P * L * h / 2 / I)
        assert err < tol, f"{cell} at {at}: {err:.3g}"


# ---------------------------------------------------------------- constant-stress patch

KINDS = ["triangle", "triangle6", "quad", "quad8", "quad9", "tetra", "tetra10", "hexahedron",
         "hexahedron20", "hexahedron27", "wedge", "wedge15", "pyramid", "pyramid13"]


def patch_mesh(cell):
    if cell in ("triangle", "triangle6", "quad", "quad8", "quad9"):
        return Mesh.structured((3, 3), cell, bump)
    if cell == "pyramid13":
        q = quadratic_pyramids(Mesh.structured((3, 3, 3), "pyramid", lambda s: s))
        return Mesh(bump(q.nodes), q.cells, "pyramid13")
    if cell == "hex-wedge-pyramid" or cell == "tri-quad":
        m = hex_dominant() if cell.startswith("hex") else plane_mixed()
        return Mesh(bump(m.nodes), [c for _, c in m.blocks], [t for t, _ in m.blocks])
    return Mesh.structured((3, 3, 3), cell, bump)


def hooke(dim, eps, plane_strain=False):
    """sigma = D eps (Voigt, engineering shears) written out: Lame's constants."""
    lam, mu = E * NU / ((1 + NU) * (1 - 2 * NU)), E / (2 * (1 + NU))
    if dim == 3:
        tr = eps[:3].sum()
        return np.concatenate([lam * tr + 2 * mu * eps[:3], mu * eps[3:]])
    if plane_strain:
        tr = eps[:2].sum()
        return np.array([lam * tr + 2 * mu * eps[0], lam * tr + 2 * mu * eps[1], mu * eps[2]])
    c = E / (1 - NU ** 2)
    return np.array([c * (eps[0] + NU * eps[1]), c * (eps[1] + NU * eps[0]), mu * eps[2]])


@pytest.mark.parametrize("cell,formulation", [(c, "incompatible") for c in KINDS + ["hex-wedge-pyramid", "tri-quad"]]
                         + [("quad", "full"), ("hexahedron", "full")])
def test_constant_stress_patch_is_exact_for_every_kind(cell, formulation):
    """Boundary nodes displaced by u = G x (a constant strain), the distorted interior
    solved: every Gauss point and every recovered node carries sigma = D eps(G)
    exactly (to round-off), with von Mises of it; the incompatible kinds' recovered
    internal modes add nothing (Taylor's form)."""
    mesh = patch_mesh(cell)
    dim = mesh.dim
    body = MeshBody(mesh, E=E, nu=NU, rho=RHO, formulation=formulation, **({"thickness": 0.01} if dim == 2 else {}))
    G = 1e-3 * np.random.default_rng(5).standard_normal((dim, dim))
    u = mesh.nodes @ G.T
    x = mesh.nodes
    boundary = np.repeat(np.any(np.isclose(x, 0.0) | np.isclose(x, 1.0), axis=1), dim)
    d = solve_fixed(body, np.zeros(body.ndof), boundary, u.ravel())
    S = 0.5 * (G + G.T)
    eps = (np.array([S[0, 0], S[1, 1], 2 * S[0, 1]]) if dim == 2 else
           np.array([S[0, 0], S[1, 1], S[2, 2], 2 * S[1, 2], 2 * S[0, 2], 2 * S[0, 1]]))
    sigma = hooke(dim, eps)
    comps = ("xx", "yy", "xy") if dim == 2 else ("xx", "yy", "zz", "yz", "xz", "xy")
    scale = np.abs(sigma).max()
    for at in ("gauss", "nodes"):
        r = body.stresses(d, at=at)
        got = np.stack([r[f"sigma_{c}_Pa"][0] for c in comps], axis=1)
        err = np.abs(got - sigma).max() / scale
        assert err < 1e-9, f"{cell} {formulation} at {at}: {err:.3g}"
        np.testing.assert_allclose(np.stack([r[f"eps_{c}_m_m"][0] for c in comps], axis=1),
                                   np.broadcast_to(eps, got.shape), atol=1e-9 * np.abs(eps).max())
        np.testing.assert_allclose(r["von_mises_Pa"][0], kanefem.von_mises(sigma), rtol=1e-9)


@pytest.mark.parametrize("cell", ["quad", "hexahedron"])
def test_the_recovered_incompatible_modes_remove_the_parasitic_shear(cell):
    """Pure bending u = -kappa x z, w = kappa x^2 / 2 (plane: u = -kappa x y, v = kappa x^2 / 2)
    on one rectangular cell: the nodal values make the bilinear element shear (gamma =
    -kappa x at its Gauss points), which the incompatible modes cancel exactly; with
    them recovered the strain is the bending strain -kappa z and no shear, without them
    (formulation="full") the parasitic shear shows: this is what the stresses of quad4i /
    hex8i need the modes for."""
    kappa = 1e-3
    dim = 2 if cell == "quad" else 3
    mesh = Mesh.rectangle(2.0, 0.4, 1, 1, cell=cell, origin=(-1.0, -0.2)) if dim == 2 else \
        Mesh.box(2.0, 0.3, 0.4, 1, 1, 1, cell=cell, origin=(-1.0, -0.15, -0.2))
    x = mesh.nodes
    across = x[:, dim - 1]  # y in the plane, z in space
    u = np.zeros_like(x)
    u[:, 0] = -kappa * x[:, 0] * across
    u[:, dim - 1] = kappa * x[:, 0] ** 2 / 2
    shear = "xy" if dim == 2 else "xz"
    for formulation, parasitic in (("incompatible", False), ("full", True)):
        body = MeshBody(mesh, E=E, nu=NU, rho=RHO, formulation=formulation, **({"thickness": 0.01} if dim == 2 else {}))
        r = body.stresses(u.ravel())
        xq, cq = r.x[:, 0], r.x[:, dim - 1]
        np.testing.assert_allclose(r["eps_xx_m_m"][0], -kappa * cq, atol=1e-12 * kappa)
        gamma = r[f"eps_{shear}_m_m"][0]
        if parasitic:
            np.testing.assert_allclose(gamma, -kappa * xq, rtol=1e-10)
        else:
            np.testing.assert_allclose(gamma, 0.0, atol=1e-12 * kappa)


def test_plane_strain_carries_sigma_zz_into_von_mises():
    mesh = Mesh.rectangle(1.0, 1.0, 2, 2)
    body = MeshBody(mesh, E=E, nu=NU, rho=RHO, thickness=1.0, plane_strain=True)
    d = np.zeros(body.ndof)
    d[0::2] = 1e-3 * body.nodes[:, 0]
    r = body.stresses(d)
    sig = hooke(2, np.array([1e-3, 0.0, 0.0]), plane_strain=True)
    szz = NU * (sig[0] + sig[1])
    np.testing.assert_allclose(r["sigma_xx_Pa"][0], sig[0], rtol=1e-12)
    np.testing.assert_allclose(r["sigma_zz_Pa"][0], szz, rtol=1e-12)
    hand = np.sqrt(0.5 * ((sig[0] - sig[1]) ** 2 + (sig[1] - szz) ** 2 + (szz - sig[0]) ** 2))
    np.testing.assert_allclose(r["von_mises_Pa"][0], hand, rtol=1e-12)


def test_von_mises_against_the_hand_formula():
    """Uniaxial: |sigma|; pure shear: sqrt(3) tau; hydrostatic: 0; a general state
    against the principal-stress form sqrt(((s1-s2)^2 + (s2-s3)^2 + (s3-s1)^2) / 2)."""
    assert kanefem.von_mises([-7.0, 0, 0, 0, 0, 0]) == pytest.approx(7.0, rel=1e-15)
    assert kanefem.von_mises([0, 0, 0, 0, 0, 2.0]) == pytest.approx(2 * np.sqrt(3), rel=1e-15)
    assert kanefem.von_mises([5.0, 5.0, 5.0, 0, 0, 0]) == pytest.approx(0.0, abs=1e-14)
    s = np.array([3.0, -1.0, 2.0, 0.5, -1.5, 0.7])
    T = np.array([[s[0], s[5], s[4]], [s[5], s[1], s[3]], [s[4], s[3], s[2]]])
    p = np.linalg.eigvalsh(T)
    hand = np.sqrt(0.5 * ((p[0] - p[1]) ** 2 + (p[1] - p[2]) ** 2 + (p[2] - p[0]) ** 2))
    assert kanefem.von_mises(s) == pytest.approx(hand, rel=1e-13)
    assert kanefem.von_mises([1.0, 0.0, 1.0]) == pytest.approx(np.sqrt(1 + 3), rel=1e-15)  # plane stress
    with pytest.raises(ValueError, match="sigma"):
        kanefem.von_mises([1.0, 2.0])


# ---------------------------------------------------------------- modes, responses, tables


def test_modal_and_response_stresses_and_their_tables():
    """Modal stresses of an EigenResult are the stresses of each mass-normalized mode
    shape; a SimulationResult's are those of each instant; tables follow the scheme."""
    mesh = Mesh.rectangle(0.6, 0.05, 12, 2, cell="quad9")
    body = MeshBody(mesh, E=E, nu=NU, rho=RHO, thickness=0.01)
    supports = {lambda x: np.isclose(x[:, 0], 0.0): "fixed"}
    res = body.eigenvalues(3, supports=supports)
    r = body.stresses(res, at="nodes")
    assert r.values.shape[:2] == (3, body.n_nodes)
    for k in range(3):
        one = body.stresses(res.mode_shapes[:, k], at="nodes")
        np.testing.assert_allclose(r.values[k], one.values[0], rtol=1e-12, atol=1e-6)
    df = r.to_dataframe()
    assert list(df.columns[:5]) == ["mode", "f_Hz", "node", "x_m", "y_m"] and len(df) == 3 * body.n_nodes
    np.testing.assert_allclose(df["f_Hz"].to_numpy()[:: body.n_nodes], res.frequencies_hz)
    for name in df.columns:
        assert name in ("mode", "node", "element", "instant") or COLUMN.match(name), name
    # the first bending mode is largest in stress at the clamp
    value, k, p = r.peak()
    assert r.x[p, 0] < 0.1 and r["von_mises_Pa"][k].max() == pytest.approx(abs(value))
    # a response: one set per instant, the time column
    sim = kanefem.SimulationResult(t=np.array([0.0, 0.1]), d=np.stack([res.mode_shapes[:, 0], res.mode_shapes[:, 1]]),
                                   v=np.zeros((2, body.ndof)), p=None, method="test")
    rs = body.stresses(sim)
    np.testing.assert_allclose(rs.values[1], body.stresses(res.mode_shapes[:, 1]).values[0], rtol=1e-12, atol=1e-6)
    df = rs.to_dataframe()
    assert list(df.columns[:3]) == ["instant", "t_s", "element"]
    assert np.array_equal(sim.stresses(body, at="nodes").values, body.stresses(sim, at="nodes").values)
    assert np.array_equal(res.stresses(body).values, body.stresses(res).values)
    with pytest.raises(TypeError, match="body must be"):
        res.stresses(None)
    back = kanefem.StressResult.from_dict(rs.to_dict())
    assert back.names == rs.names and np.array_equal(back.values, rs.values)


def test_beam_modal_section_forces():
    """Modal section forces of a clamped beam's first mode: the moment is largest at
    the clamp and nearly zero at the free end (K_e d_e carries the consistent inertia
    lambda (M phi) at the nodes, so the free end shows a moment that vanishes with the
    element size: 0.3 % of the clamp's at 10 elements)."""
    beam = PlanarBeam(1.0, 10, E=E, A=1e-4, Izz=1e-8, rho=RHO)
    res = beam.eigenvalues(2, supports="clamped-free")
    r = beam.section_forces(res)
    assert r.values.shape == (2, 20, 3) and r.frequencies_hz is not None
    assert np.array_equal(res.stresses(beam).values, r.values)  # the result's helper
    M = np.abs(r["M_Nm"][0])
    assert M[0] == M.max() and M[-1] < 0.005 * M[0]


def test_bad_inputs_are_named(monkeypatch):
    beam = PlanarBeam(1.0, 4, E=E, A=1e-4, Izz=1e-8, rho=RHO)
    plate = MeshBody(Mesh.rectangle(1.0, 1.0, 2, 2), E=E, nu=NU, rho=RHO, thickness=0.01)
    with pytest.raises(ValueError, match=r"d must have shape \(15,\)"):
        beam.section_forces(np.zeros(14))
    with pytest.raises(ValueError, match="finite"):
        plate.stresses(np.full(plate.ndof, np.nan))
    with pytest.raises(ValueError, match="at"):
        plate.stresses(np.zeros(plate.ndof), at="centre")
    with pytest.raises(NotSupportedError, match="PlanarBeam does not support stresses"):
        beam.stresses(np.zeros(beam.ndof))
    with pytest.raises(NotSupportedError, match="MeshBody does not support section_forces"):
        plate.section_forces(np.zeros(plate.ndof))
    res = plate.eigenvalues(2, mode_shapes=False)
    with pytest.raises(ValueError, match="mode shapes"):
        plate.stresses(res)
    # a result past the output limit is refused before it is allocated
    monkeypatch.setattr(kanefem._checks, "MAX_OUTPUT_VALUES", 1000)
    with pytest.raises(ValueError, match=r"d ask for stresses .* more than the limit"):
        plate.stresses(np.zeros((100, plate.ndof)))
    with pytest.raises(ValueError, match=r"d ask for section forces"):
        beam.section_forces(np.zeros((100, beam.ndof)))


# ---------------------------------------------------------------- VTU files


def test_vtu_files_carry_the_stresses_and_read_back(tmp_path):
    """write_vtu: the nodal stresses as point data and each cell's Gauss mean as cell
    data, read back by meshio equal to the StressResults; write_modes: each mode's von
    Mises; write_response: every instant's file has them."""
    m = hex_dominant(n=2)
    body = MeshBody(m, E=E, nu=NU, rho=RHO)
    G = 1e-3 * np.array([[1.0, 0.2, 0], [0, -0.5, 0.1], [0.3, 0, 0.4]])
    d = (body.nodes @ G.T).ravel() + 1e-4 * np.sin(3 * body.nodes).ravel()
    path = body.write_vtu(tmp_path / "s.vtu", d)
    back = meshio.read(path)
    nodes = body.stresses(d, at="nodes")
    gauss = body.stresses(d, at="gauss")
    for name in ("von_mises_Pa", "sigma_xx_Pa", "eps_xy_m_m"):
        np.testing.assert_allclose(back.point_data[name], nodes[name][0], rtol=1e-12)
        cell = np.concatenate([np.asarray(c) for c in back.cell_data[name]])
        mean = np.bincount(gauss.index, weights=gauss[name][0]) / np.bincount(gauss.index)
        np.testing.assert_allclose(cell, mean, rtol=1e-12)
    res = body.eigenvalues(2, supports={lambda x: np.isclose(x[:, 0], 0.0): "fixed"})
    back = meshio.read(body.write_modes(tmp_path / "m.vtu", res))
    for k in (1, 2):
        np.testing.assert_allclose(back.point_data[f"mode_{k}_von_mises_Pa"],
                                   body.stresses(res.mode_shapes[:, k - 1], at="nodes")["von_mises_Pa"][0], rtol=1e-12)
    sim = kanefem.SimulationResult(t=np.array([0.0, 0.5]), d=np.stack([d, 2 * d]), v=np.zeros((2, body.ndof)),
                                   p=None, method="test")
    body.write_response(tmp_path / "r.pvd", sim)
    second = meshio.read(tmp_path / "r_vtu" / "r_000001.vtu")
    np.testing.assert_allclose(second.point_data["sigma_xx_Pa"], 2 * nodes["sigma_xx_Pa"][0], rtol=1e-12)
    plain = meshio.read(body.write_vtu(tmp_path / "p.vtu", d, stresses=False))
    assert "von_mises_Pa" not in plain.point_data
