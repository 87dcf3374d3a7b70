"""The Body contract (docs/api/contract.md) over the five body types: method set, names,
storage types, the one error for what a type cannot do, and the same physical body
described two ways giving the same numbers."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp

import kanefem

STEEL = dict(E=2.1e11, rho=7800.0)
L, N = 1.0, 6


def planar_beam(**kw):
    return kanefem.PlanarBeam(L, N, **STEEL, A=1e-4, Izz=1e-8, **kw)


def axial_bar(**kw):
    return kanefem.AxialBar(L, N, **STEEL, A=1e-4, **kw)


def beam3d(**kw):
    return kanefem.Beam3D(L, N, **STEEL, A=1e-4, Izz=1e-8, Iyy=2e-8, J=3e-8, **kw)


def bar3d(**kw):
    return kanefem.Bar3D(L, N, **STEEL, A=1e-4, **kw)


def mesh_body(**kw):
    mesh = kanefem.Mesh.rectangle(L, 0.05, 8, 1, cell="quad")
    return kanefem.MeshBody(mesh, **STEEL, nu=0.3, thickness=0.01, **kw)


BODIES = {"PlanarBeam": planar_beam, "AxialBar": axial_bar, "Beam3D": beam3d, "Bar3D": bar3d,
          "MeshBody": mesh_body}
METHODS = ("mass_matrix", "stiffness_matrix", "inertia_invariants", "combination", "motion_terms",
           "inertia_forces", "support_mask", "constraint_matrix", "eigenvalues", "eigenvalues_vs_time",
           "gyroscopic_eigenvalues", "axial_force", "geometric_stiffness", "write_vtu", "write_modes",
           "write_response", "stresses", "section_forces")
#: the contract's names of the material and section of each type (keyword-only)
MATERIAL = {"PlanarBeam": {"E", "A", "Izz", "rho"}, "AxialBar": {"E", "A", "rho"},
            "Beam3D": {"E", "A", "Izz", "Iyy", "J", "rho", "nu", "ref"}, "Bar3D": {"E", "A", "rho"},
            "MeshBody": {"E", "nu", "rho", "thickness", "plane_strain"}}


@pytest.mark.parametrize("name", BODIES)
def test_method_set_and_names(name):
    """Every method of the contract is there; geometry positional, material keyword-only by
    the contract's names, storage keyword-only; the values are kept under those names."""
    body = BODIES[name]()
    cls = type(body)
    assert cls.__name__ == name and isinstance(body, kanefem.FlexibleBody)
    for m in METHODS:
        assert callable(getattr(body, m)), m
    params = inspect.signature(cls).parameters
    keyword = {p for p, v in params.items() if v.kind is inspect.Parameter.KEYWORD_ONLY}
    positional = [p for p, v in params.items() if v.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert positional == (["mesh"] if name == "MeshBody" else ["length", "n_elements"])
    assert MATERIAL[name] | {"storage"} <= keyword
    for q in MATERIAL[name] - {"ref", "plane_strain", "thickness"}:
        assert getattr(body, q) == pytest.approx({**STEEL, "A": 1e-4, "Izz": 1e-8, "Iyy": 2e-8, "J": 3e-8,
                                                  "nu": 0.3}[q], rel=0, abs=0)
    with pytest.raises(TypeError):  # material given positionally: refused, not misread
        cls(L, N, 2.1e11) if name != "MeshBody" else cls(body.mesh, 2.1e11)


@pytest.mark.parametrize("storage", ["auto", "dense", "banded", "sparse", "band", "csr"])
@pytest.mark.parametrize("name", BODIES)
def test_storage_rule(name, storage):
    """ndarray for dense storage, CSR for banded and sparse, in every matrix-returning
    method; the same numbers whatever the storage; a storage the type lacks raises the
    contract's error."""
    make = BODIES[name]
    body = make(storage=storage)
    expect = {"auto": "sparse" if name == "MeshBody" else "dense", "band": "banded", "csr": "sparse"}
    assert body.storage == expect.get(storage, storage)
    kind = np.ndarray if body.storage == "dense" else sp.csr_matrix
    t = body.motion_terms(omega=3.0, eps=2.0)
    coef = np.eye(body.dim)
    mats = [body.mass_matrix(), body.stiffness_matrix(), t.C, t.K_eps, t.K_om, body.combination(coef, 1.0)]
    S = body.inertia_invariants()["S"]
    mats += [S[i][j] for i in range(body.dim) for j in range(body.dim)]
    if name != "MeshBody":
        mats.append(body.geometric_stiffness([1.0, 0.0, 0.0]))
    for m in mats:
        assert isinstance(m, kind) and m.shape == (body.ndof, body.ndof)
    for v in (t.q_eps, t.q_om, t.q_a):
        assert isinstance(v, np.ndarray) and v.shape == (body.ndof,)
    dense = make(storage="dense")
    ref = dense.motion_terms(omega=3.0, eps=2.0)
    # the same assembled numbers, stored three ways: equal to round-off of the sums
    for a, b in ((body.mass_matrix(), dense.mass_matrix()), (t.K_om, ref.K_om), (t.C, ref.C)):
        a = a.toarray() if sp.issparse(a) else a
        assert np.allclose(a, b, rtol=0, atol=1e-12 * np.abs(b).max())


@pytest.mark.parametrize("call", [
    lambda b: b.axial_force(3.0, end_forces=(1.0, 0.0)),
    lambda b: b.eigenvalues(1, end_forces=(1.0, 0.0)),
    lambda b: b.eigenvalues_vs_time([1.0], [0.0], 1, end_forces=(0.0, 1.0)),
], ids=["axial_force", "eig end_forces", "vs_time end_forces"])
def test_mesh_end_forces_not_supported(call):
    """A MeshBody's K_G comes from the prestress of its frame's inertial loads (docs/theory.md
    section 2.11); a line body's end forces are not a mesh's: the one error, naming the type,
    a KanefemError and a NotImplementedError."""
    with pytest.raises(kanefem.NotSupportedError, match="MeshBody does not support") as info:
        call(mesh_body())
    assert isinstance(info.value, kanefem.KanefemError) and isinstance(info.value, NotImplementedError)


@pytest.mark.parametrize("call", [
    lambda b: b.eigenvalues(1, geometric_stiffness=True),
    lambda b: b.gyroscopic_eigenvalues([1.0], [0.0], 1, geometric_stiffness=True),
], ids=["eig K_G", "gyro K_G"])
def test_mesh_stress_stiffening_needs_supports(call):
    """A free mesh has no static prestress (a rigid motion is free): a ValueError naming
    the supports."""
    with pytest.raises(ValueError, match="supports that hold the body"):
        call(mesh_body())


@pytest.mark.parametrize("method", ["write_vtu", "write_modes", "write_response"])
@pytest.mark.parametrize("name", ["PlanarBeam", "AxialBar", "Beam3D", "Bar3D"])
def test_line_body_vtu_not_supported(name, method, tmp_path):
    body = BODIES[name]()
    r = body.eigenvalues(1)
    with pytest.raises(kanefem.NotSupportedError, match=rf"{name} does not support {method}: .*to_dataframe"):
        getattr(body, method)(tmp_path / "x.vtu", r)
    assert list(tmp_path.iterdir()) == []


def test_planar_beam_alias_I():
    """I= is the documented alias of Izz: the same body; both given is refused by name."""
    a = kanefem.PlanarBeam(L, N, **STEEL, A=1e-4, I=1e-8)
    b = planar_beam()
    assert a.Izz == a.I == b.I == 1e-8
    assert np.array_equal(a.stiffness_matrix(), b.stiffness_matrix())
    with pytest.raises(TypeError, match="give Izz or its alias I, not both"):
        kanefem.PlanarBeam(L, N, **STEEL, A=1e-4, Izz=1e-8, I=1e-8)
    assert not hasattr(axial_bar(), "I") and not hasattr(beam3d(), "I")  # the alias is the planar beam's


def test_planar_beam_is_beam3d_in_the_plane():
    """A Beam3D turning about z has PlanarBeam's in-plane equations (docs/theory.md 2.8): its
    (u, v, theta_z) block of M, K, C, K_eps, K_om, q and the in-plane eigenvalues equal the
    planar beam's to round-off."""
    p, s = planar_beam(), beam3d()
    plane = np.array([[6 * k, 6 * k + 1, 6 * k + 5] for k in range(N + 1)]).ravel()
    tp, ts = p.motion_terms(omega=7.0, eps=3.0, a_O=(1.0, -9.81)), s.motion_terms(omega=(0, 0, 7.0), eps=(0, 0, 3.0),
                                                                                 a_O=(1.0, -9.81, 0.0))
    for a, b in ((p.mass_matrix(), s.mass_matrix()), (p.stiffness_matrix(), s.stiffness_matrix()),
                 (tp.C, ts.C), (tp.K_eps, ts.K_eps), (tp.K_om, ts.K_om)):
        assert np.allclose(a, b[np.ix_(plane, plane)], rtol=0, atol=1e-12 * np.abs(a).max())
    for a, b in ((tp.q_eps, ts.q_eps), (tp.q_om, ts.q_om), (tp.q_a, ts.q_a)):
        assert np.allclose(a, b[plane], rtol=0, atol=1e-12 * np.abs(a).max())
    # in-plane modes: hold w, theta_x, theta_y everywhere and clamp the root
    sup = {0: "clamped", **{k: ("w", "theta_x", "theta_y") for k in range(1, N + 1)}}
    lp = p.eigenvalues(3, omega=7.0, supports="clamped-free").eigenvalues
    ls = s.eigenvalues(3, omega=(0, 0, 7.0), supports=sup).eigenvalues
    assert np.allclose(lp, ls, rtol=1e-10, atol=0)


def test_axial_bar_is_bar3d_along_its_axis():
    """Bar3D's axial DOFs carry AxialBar's equations: M, K and the spinning bar's axial
    eigenvalues (lambda(at rest) - omega^2, exactly) agree to round-off."""
    a, b = axial_bar(), bar3d()
    axial = np.arange(0, 3 * (N + 1), 3)
    for x, y in ((a.mass_matrix(), b.mass_matrix()), (a.stiffness_matrix(), b.stiffness_matrix())):
        assert np.allclose(x, y[np.ix_(axial, axial)], rtol=0, atol=1e-12 * np.abs(x).max())
    sup = {0: "fixed", **{k: ("v", "w") for k in range(1, N + 1)}}
    la = a.eigenvalues(3, omega=15.0).eigenvalues
    lb = b.eigenvalues(3, omega=(0, 0, 15.0), supports=sup).eigenvalues
    assert np.allclose(la, lb, rtol=1e-10, atol=0)
    la0 = a.eigenvalues(3).eigenvalues
    assert np.allclose(la0 - la, 225.0, rtol=1e-9)  # the planar exact shift by omega^2


def test_base_route_takes_the_contract_names():
    """FlexibleBody.__init__ (a bent body) takes the same keyword names, I as the alias."""
    nodes = [[0.0, 0.0], [0.5, 0.1], [1.0, 0.0]]
    a = kanefem.FlexibleBody.__new__(kanefem.PlanarBeam)
    kanefem.FlexibleBody.__init__(a, nodes, [[0, 1], [1, 2]], **STEEL, A=1e-4, Izz=1e-8)
    b = kanefem.FlexibleBody.__new__(kanefem.PlanarBeam)
    kanefem.FlexibleBody.__init__(b, nodes, [[0, 1], [1, 2]], **STEEL, A=1e-4, I=1e-8)
    assert np.array_equal(a.stiffness_matrix(), b.stiffness_matrix()) and a.ndof == 9


@pytest.mark.parametrize("name", BODIES)
def test_every_body_simulates_and_starts_from_rest_in_balance(name):
    """simulate takes every body type: a body at rest in a frame at rest, no load, stays
    at d = 0 exactly (no spurious forcing from any storage path); spinning up at constant
    speed, a supported body deflects by a finite amount."""
    body = BODIES[name]()
    supports = ({lambda x: x[:, 0] == 0.0: "fixed"} if name == "MeshBody"
                else "clamped-free" if name in ("PlanarBeam", "Beam3D") else "fixed-free")
    rest = kanefem.simulate(body, kanefem.Motion.constant_speed(0.0), 2e-3, dt=1e-4, supports=supports)
    assert rest.d.shape[1] == body.ndof and np.array_equal(rest.d, np.zeros_like(rest.d))
    spin = kanefem.simulate(body, kanefem.Motion.constant_speed(20.0), 2e-3, dt=1e-4, supports=supports)
    assert np.all(np.isfinite(spin.d)) and np.abs(spin.d).max() > 0.0
