"""Distributing (RBE3-like) interfaces of reduced bodies (issue 21; docs/theory.md section
3.18): an interface node moving as the weighted average of its nodes' motion, which
transmits a joint's force and moment to them by their weights without stiffening the
face they form.  Checked against the full mesh loaded by the same nodal forces, against
beam theory, against the full mesh with the same coupling as multipoint constraints
(Maggi's projection, section 3.3), and as the ports of a mechanism link."""

import math

import numpy as np
import pytest
import scipy.sparse.linalg as spla

import kanefem
from kanefem import Mesh, MeshBody, ReducedBody, _core
from kanefem.mechanism import ConstantSpeed, ElasticLink, Mechanism, slider_crank

E, NU, RHO = 2.1e11, 0.3, 7800.0


def strip(L=1.0, h=0.1, nx=40, ny=4, t=0.01, cell="quad8"):
    """A plane-stress strip [0, L] x [-h/2, h/2], thickness t."""
    mesh = Mesh.rectangle(L, h, nx, ny, cell=cell, origin=(0.0, -h / 2))
    return MeshBody(mesh, E=E, nu=NU, rho=RHO, thickness=t)


def at_x(body, x):
    return np.flatnonzero(np.isclose(body.nodes[:, 0], x))


def edge_weights(body, nodes):
    """The consistent nodal forces of a unit traction on a straight quad8 edge, coded from
    the textbook (Zienkiewicz & Taylor, The Finite Element Method, vol. 1, 8.8): each
    3-node edge of length l gives l/6, 2 l/3, l/6 (times the thickness)."""
    y = body.nodes[nodes, 1]
    order = np.argsort(y)
    w = np.zeros(nodes.size)
    for e in range(0, nodes.size - 1, 2):
        a, m, b = order[e], order[e + 1], order[e + 2]
        le = y[b] - y[a]
        w[a] += le / 6
        w[b] += le / 6
        w[m] += 2 * le / 3
    return w * body.thickness


def face_weights(body, nodes):
    """The same for the faces of hex20 cells on a plane x = const, from the textbook's
    8-node serendipity face: a rectangle of area A gives -A/12 at its corners and A/3 at
    its mid-side nodes."""
    yz = body.nodes[nodes, 1:]
    ys, zs = np.unique(np.round(yz[:, 0], 12)), np.unique(np.round(yz[:, 1], 12))
    w = np.zeros(nodes.size)
    for i in range(0, ys.size - 1, 2):
        for j in range(0, zs.size - 1, 2):
            A = (ys[i + 2] - ys[i]) * (zs[j + 2] - zs[j])
            for a in range(nodes.size):
                iy, iz = np.searchsorted(ys, round(yz[a, 0], 12)) - i, np.searchsorted(zs, round(yz[a, 1], 12)) - j
                if 0 <= iy <= 2 and 0 <= iz <= 2 and (iy, iz) != (1, 1):
                    w[a] += -A / 12 if iy != 1 and iz != 1 else A / 3
    return w


def distributed_forces(body, nodes, w, F, M):
    """RBE3's nodal forces of a force F and moment M at the weighted centroid, coded from
    its definition (Nastran's RBE3, Abaqus' distributing coupling): f_a = w_a (F / W +
    (J^-1 M) x r_a), J = sum w_a (|r_a|^2 I - r_a r_a^T) (the scalar sum w_a |r_a|^2 in
    the plane)."""
    d = body.dim
    x = body.nodes[nodes]
    c = w @ x / w.sum()
    r = x - c
    f = np.zeros((nodes.size, d))
    if d == 2:
        J = w @ (r**2).sum(axis=1)
        f += np.outer(w, F) / w.sum() + (M / J) * w[:, None] * np.column_stack([-r[:, 1], r[:, 0]])
    else:
        J = (w @ (r**2).sum(axis=1)) * np.eye(3) - np.einsum("a,ai,aj->ij", w, r, r)
        f += np.outer(w, F) / w.sum() + w[:, None] * np.cross(np.linalg.solve(J, M), r)
    out = np.zeros(body.ndof)
    for k in range(d):
        out[nodes * d + k] = f[:, k]
    return out


def coupling_rows(body, nodes, w):
    """The distributing coupling as constraint rows on the full mesh (its node held):
    U = sum w u / W and, in the plane, theta = sum w (r x u)_z / J, coded from the
    definition (the plane only)."""
    x = body.nodes[nodes]
    r = x - w @ x / w.sum()
    J = w @ (r**2).sum(axis=1)
    G = np.zeros((3, body.ndof))
    G[0, nodes * 2], G[1, nodes * 2 + 1] = w / w.sum(), w / w.sum()
    G[2, nodes * 2], G[2, nodes * 2 + 1] = -w * r[:, 1] / J, w * r[:, 0] / J
    return G


def static(red, supports, loads):
    """The reduced body's static deflection under loads {coordinate name: value}."""
    free = ~red.support_mask(supports)
    f = np.zeros(red.ndof)
    for name, v in loads.items():
        f[red.dof_names.index(name)] = v
    q = np.zeros(red.ndof)
    q[free] = np.linalg.solve(red.stiffness_matrix()[np.ix_(free, free)], f[free])
    return q


def full_static(body, fixed, f):
    free = ~fixed
    u = np.zeros(body.ndof)
    u[free] = spla.spsolve(body.stiffness_matrix().tocsc()[free][:, free], f[free])
    return u


# ---------------------------------------------------------------- tributary weights


@pytest.mark.parametrize("cell", ["triangle", "triangle6", "quad", "quad8", "quad9", "tetra", "tetra10",
                                  "hexahedron", "hexahedron20", "hexahedron27", "wedge", "wedge15", "pyramid"])
def test_tributary_weights_integrate_the_face(cell):
    """Mesh._tributary of the nodes on the end x = 1 of a rectangle or box of every cell
    kind: the weights sum to the face's length or area and their first moments to its
    centroid (exact: the facets interpolate constants and linear fields), and quadratic
    facets give the exact second moment int y^2 (they interpolate quadratics); on the
    triangulated faces of simplices and on linear facets it is the trapezoidal rule's."""
    plane = cell in ("triangle", "triangle6", "quad", "quad8", "quad9")
    mesh = Mesh.rectangle(1.0, 0.3, 4, 3, cell=cell) if plane else Mesh.box(1.0, 0.3, 0.2, 4, 3, 2, cell=cell)
    nodes = np.flatnonzero(np.isclose(mesh.nodes[:, 0], 1.0))
    w, covered = mesh._tributary(nodes)
    area, c = (0.3, [0.15]) if plane else (0.06, [0.15, 0.1])
    assert covered.all()
    assert w.sum() == pytest.approx(area, rel=1e-14)
    np.testing.assert_allclose(w @ mesh.nodes[nodes, 1:] / w.sum(), c, rtol=1e-13)
    if cell in ("triangle6", "quad8", "quad9", "tetra10", "hexahedron20", "hexahedron27", "wedge15"):
        exact = 0.3**3 / 3 * (1.0 if plane else 0.2)
        assert w @ mesh.nodes[nodes, 1] ** 2 == pytest.approx(exact, rel=1e-13)
    # a face shared by two cells is not a boundary facet
    inner = np.flatnonzero(np.isclose(mesh.nodes[:, 0], 0.5))
    assert not mesh._tributary(inner)[1].any()


def test_tributary_weights_of_a_quadratic_pyramid():
    """One 13-node pyramid (square base 1 x 1, apex 1 above its centre): its base weighs
    1, its whole surface 1 + 4 x sqrt(5)/4 (four triangles of base 1 and slant height
    sqrt(5)/2), the serendipity base's corners -1/12 each and its mid-side nodes 1/3."""
    x = np.array([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0.5, 0.5, 1.0)], float)
    mids = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4), (2, 4), (3, 4)]
    nodes = np.vstack([x, [(x[a] + x[b]) / 2 for a, b in mids]])
    mesh = Mesh(nodes, [np.arange(13)], "pyramid13")
    base = np.flatnonzero(np.isclose(nodes[:, 2], 0.0))
    w, covered = mesh._tributary(base)
    assert covered.all() and w.sum() == pytest.approx(1.0, rel=1e-14)
    np.testing.assert_allclose(w[:4], -1 / 12, rtol=1e-13)
    np.testing.assert_allclose(w[4:], 1 / 3, rtol=1e-13)
    assert mesh._tributary(np.arange(13))[0].sum() == pytest.approx(1 + math.sqrt(5), rel=1e-14)


# ---------------------------------------------------------------- the load it transmits


@pytest.mark.parametrize("dim", [2, 3])
def test_a_distributing_face_carries_its_load_as_nodal_forces(dim):
    """A cantilever clamped at its root, its tip face a distributing interface (tributary
    weights), loaded at the interface node by a force and a moment: the expanded static
    deflection of the reduced body (2 modes: the static response to interface loads lies
    in the constraint modes) is the full mesh's under the same load spread over the face
    as RBE3's nodal forces, with the weights from the textbook's consistent edge / face
    loads: equal to the round-off of the two static solves (measured 3.4e-12 in the plane,
    1.1e-11 with hex20 in space); the weights themselves to 1e-15 of the face's area."""
    if dim == 2:
        body = strip(nx=40, ny=4)
        tip = at_x(body, 1.0)
        w = edge_weights(body, tip)
        F, M = np.array([300.0, -1000.0]), 50.0
        loads = {"i1_ux": F[0], "i1_uy": F[1], "i1_rz": M}
        face = body.thickness * 0.1
    else:
        body = MeshBody(Mesh.box(0.6, 0.1, 0.06, 6, 2, 2, cell="hexahedron20", origin=(0.0, -0.05, -0.03)),
                        E=E, nu=NU, rho=RHO)
        tip = at_x(body, 0.6)
        w = face_weights(body, tip)
        F, M = np.array([300.0, -1000.0, 700.0]), np.array([20.0, -50.0, 35.0])
        loads = dict(zip(["i1_ux", "i1_uy", "i1_uz", "i1_rx", "i1_ry", "i1_rz"], [*F, *M]))
        face = 0.1 * 0.06
    root = at_x(body, 0.0)
    red = ReducedBody(body, interface=[root, {"nodes": tip, "kind": "distributing"}], n_modes=2,
                      geometric_stiffness=False)
    assert red.kept["interface_kinds"] == ["rigid", "distributing"]
    assert red.kept["interface_weighting"] == [None, "tributary"]
    np.testing.assert_allclose(red.kept["interface_weights"][1], w, rtol=0, atol=1e-15 * face)
    np.testing.assert_allclose(red.interface_positions[1], body.nodes[tip].mean(axis=0), atol=1e-15)
    q = static(red, {0: "clamped"}, loads)
    f = distributed_forces(body, tip, w, F, M)
    u = full_static(body, body.support_mask([(root, "fixed")]), f)
    assert np.abs(red.expand(q) - u).max() < 1e-9 * np.abs(u).max()
    # its projection is the generalized force on the interface node, exactly what it transmits
    expect = np.zeros(red.ndof)
    for name, v in loads.items():
        expect[red.dof_names.index(name)] = v
    assert np.abs(red.project(f) - expect).max() < 1e-12 * np.abs(expect).max()


def test_a_rigid_face_is_stiffer_than_a_distributing_one():
    """The strip (L/h = 10, 40 x 4 quad8, its root nodes clamped) with its tip face a
    rigid (RBE2) or a distributing (RBE3) interface: a rigid face is stiffer, under a tip
    force and under a tip moment.  Both follow beam theory where it applies: the tip
    deflection under a force within 0.5 % of Timoshenko's PL^3/3EI + PL/(kGA), k = 5/6
    (measured -0.227 % distributing, -0.230 % rigid: the clamped root's Saint-Venant zone
    and the mesh), the rotation under a pure moment within 0.1 % of ML/EI for the
    distributing face, whose linear traction is the exact pure-bending stress (measured
    -0.071 %, the clamped root's restraint of the Poisson contraction), the rigid face
    stiffer (-0.142 %: it holds the tip face's contraction too).  A stubby block (L/h = 1),
    where beam theory does not apply, shows the ordering plainly."""
    L, h, t = 1.0, 0.1, 0.01
    I, A, G = t * h**3 / 12, t * h, E / (2 * (1 + NU))
    out = {}
    for shape in ("slender", "stubby"):
        body = strip(L, h, 40, 4) if shape == "slender" else strip(0.2, 0.2, 8, 8)
        tip = {"nodes": at_x(body, body.nodes[:, 0].max())}
        for kind in ("rigid", "distributing"):
            red = ReducedBody(body, interface=[at_x(body, 0.0), dict(tip, kind=kind)], n_modes=2,
                              geometric_stiffness=False)
            qP = static(red, {0: "clamped"}, {"i1_uy": -1000.0})
            qM = static(red, {0: "clamped"}, {"i1_rz": 50.0})
            out[shape, kind] = (qP[red.dof_names.index("i1_uy")], qM[red.dof_names.index("i1_rz")])
    for shape in ("slender", "stubby"):
        (vr, tr), (vd, td) = out[shape, "rigid"], out[shape, "distributing"]
        assert abs(vr) < abs(vd) and abs(tr) < abs(td)
    assert abs(out["stubby", "rigid"][0] / out["stubby", "distributing"][0] - 1) > 10 * abs(
        out["slender", "rigid"][0] / out["slender", "distributing"][0] - 1)
    beam = -1000.0 * (L**3 / (3 * E * I) + L / (5 / 6 * G * A))
    for kind in ("rigid", "distributing"):
        assert out["slender", kind][0] == pytest.approx(beam, rel=5e-3)
    assert out["slender", "distributing"][1] == pytest.approx(50.0 * L / (E * I), rel=1e-3)
    assert out["slender", "rigid"][1] < out["slender", "distributing"][1] * (1 - 3e-4)


# ---------------------------------------------------------------- frequencies


def test_frequencies_equal_the_full_mesh_with_the_coupling_as_constraints():
    """A plate strip (10 x 2 quad8, 170 DOFs) clamped at its root, its tip edge a
    distributing interface.  Held at the interface node, the reduced body's frequencies
    equal the full mesh's with the coupling as multipoint constraints G u = 0 (Maggi's
    projection, the rows coded from the definition), at any mode count (the
    fixed-interface modes are that problem's modes; measured 1.1e-13); free there, with
    every mode (an exact change of coordinates) they equal the full mesh's with its tip
    free, to 1e-10 (measured 8e-12): the coupling does not stiffen the face, and with
    fewer modes they converge to them from above (Rayleigh-Ritz; measured 7.6e-3, 1.9e-3,
    3.3e-4, 8.7e-5 at the fourth with 4, 8, 16, 32 modes).  A rigid tip edge, free,
    stiffens it: its frequencies are above the full mesh's (1.1e-6 to 9.7e-5)."""
    body = strip(0.5, 0.1, 10, 2)
    root, tip = at_x(body, 0.0), at_x(body, 0.5)
    item = {"nodes": tip, "kind": "distributing"}
    every = ReducedBody(body, interface=[root, item], n_modes="all", geometric_stiffness=False)
    w = every.kept["interface_weights"][1]
    held = body.eigenvalues(6, supports=[(root, "fixed")], constraints=coupling_rows(body, tip, w),
                            solver="dense").frequencies_hz
    free = body.eigenvalues(6, supports=[(root, "fixed")], solver="dense").frequencies_hz
    assert np.abs(every.eigenvalues(6, supports="clamped").frequencies_hz / held - 1).max() < 1e-10
    assert np.abs(every.eigenvalues(6, supports={0: "clamped"}).frequencies_hz / free - 1).max() < 1e-10
    last = np.inf
    for n in (4, 8, 16, 32):
        red = ReducedBody(body, interface=[root, item], n_modes=n, geometric_stiffness=False)
        assert np.abs(red.eigenvalues(4, supports="clamped").frequencies_hz / held[:4] - 1).max() < 1e-10
        err = red.eigenvalues(4, supports={0: "clamped"}).frequencies_hz / free[:4] - 1
        assert np.all(err > -1e-10) and err[3] < last
        last = err[3]
    assert last < 2e-4
    rigid = ReducedBody(body, interface=[root, {"nodes": tip, "kind": "rigid"}], n_modes="all",
                        geometric_stiffness=False)
    stiff = rigid.eigenvalues(4, supports={0: "clamped"}).frequencies_hz / free[:4] - 1
    assert np.all(stiff > 5e-7)


def test_held_distributing_root_prestress_is_the_constrained_one():
    """K_G of a reduced body whose distributing root is held (the default prestress
    supports): its unit load cases' static solutions are the full mesh's with the root
    coupling as a constraint, u = 0 only on average (solved here by the bordered system
    [[K, G^T], [G, 0]]); with every mode the reduced blade's eigenvalues spinning with K_G
    equal those of the full mesh under that constraint (Maggi's projection of K + K_om +
    K_G, SciPy's eigh) to 1e-8 (measured 9.4e-11: the round-off of the exact change of
    coordinates, whose modes reach 1e8 times the lowest), and its lowest frequency rises
    beyond the bare centrifugal shift (the prestress is tension)."""
    import scipy.linalg as la

    body = strip(0.5, 0.04, 10, 2, t=0.004)
    root = at_x(body, 0.0)
    red = ReducedBody(body, interface=[{"nodes": root, "kind": "distributing"}], n_modes="all")
    assert red.kept["geometric_stiffness"] and red.kept["prestress"] == "supports"
    G = coupling_rows(body, root, red.kept["interface_weights"][0])
    K, M = body.stiffness_matrix().toarray(), body.mass_matrix().toarray()
    inv = body.inertia_invariants()
    n = body.ndof
    A = np.block([[K, G.T], [G, np.zeros((3, 3))]])
    cases = [-inv["Mo"][i] for i in range(2)] + [-inv["s"][i, j] for i in range(2) for j in range(2)]
    U = la.solve(A, np.vstack([np.array(cases).T, np.zeros((3, len(cases)))]))[:n].T
    KG = []
    for c in range(len(cases)):
        acc, Mc = np.zeros(2), np.zeros((2, 2))
        if c < 2:
            acc[c] = 1.0
        else:
            Mc.flat[c - 2] = 1.0
        values = _core.prestress_matrix(body=body._body, field=U[c], acc=acc, Mc=Mc)
        KG.append(body._matrix(values).toarray())
    B = kanefem.maggi_basis(G)
    Om = 200.0
    # a spin Omega about z: a = 0, E + W W = -Omega^2 I (cases xx and yy)
    Kt = K - Om**2 * M - Om**2 * (KG[2] + KG[5])
    ref = la.eigh(B.T @ Kt @ B, B.T @ M @ B, eigvals_only=True)[:3]
    lam = red.eigenvalues(3, omega=Om, supports="clamped", geometric_stiffness=True).eigenvalues
    np.testing.assert_allclose(lam, ref, rtol=1e-8)
    at_rest = red.eigenvalues(1, supports="clamped").eigenvalues[0]
    assert lam[0] > at_rest - Om**2  # stiffened beyond the bare centrifugal shift


def test_free_interface_basis_with_a_distributing_interface():
    """A free-interface basis of the strip held at its root (the normal modes' supports)
    takes the distributing tip's attachment modes from its loads (G^T e_k, the nodal
    forces of a unit force or moment): its lowest frequencies are the kept modes'
    (1e-10 of the full strip's), and its static response to a force and moment at the
    tip, carried to the nodes by the weights (V^T f), is the full strip's within 1e-6,
    converging as modes are added (measured 1.7e-7, 1.1e-8, 2.9e-9 with 3, 6, 12: the
    residual flexibility is taken at a small negative shift, docs/theory.md 3.18)."""
    body = strip(0.5, 0.1, 10, 2)
    root, tip = at_x(body, 0.0), at_x(body, 0.5)
    ref = body.eigenvalues(3, supports=[(root, "fixed")], solver="dense").frequencies_hz
    f = distributed_forces(body, tip, np.ones(tip.size), np.array([300.0, -1000.0]), 50.0)
    u = full_static(body, body.support_mask([(root, "fixed")]), f)
    errors = []
    for n in (3, 6, 12):
        red = ReducedBody(body, interface=[{"nodes": tip, "kind": "distributing", "weights": "equal"}],
                          basis="free-interface", supports=[(root, "fixed")], n_modes=n, geometric_stiffness=False)
        assert red.kept["attachment"] == 3 and red.kept["interface_weighting"] == ["equal"]
        assert np.abs(red.eigenvalues(3).frequencies_hz / ref - 1).max() < 1e-10
        q = np.linalg.solve(red.stiffness_matrix(), red.project(f))
        errors.append(np.abs(red.expand(q) - u).max() / np.abs(u).max())
    assert errors[0] < 1e-6 and errors[0] > errors[1] > errors[2]


# ---------------------------------------------------------------- bad input


def test_bad_distributing_interfaces_are_named():
    body = strip(0.5, 0.1, 10, 2)
    tip = at_x(body, 0.5)
    cases = [
        ({"nodes": tip, "kind": "rbe3"}, ValueError, r"interface\[0\]: kind = 'rbe3' is not 'rigid'"),
        ({"nodes": tip, "kind": 3}, TypeError, r"interface\[0\]: kind must be"),
        ({"node": tip}, ValueError, r"interface\[0\]: unknown key\(s\) 'node'"),
        ({"kind": "distributing"}, ValueError, r"interface\[0\] = .* names no 'nodes'"),
        ({"nodes": tip[:1], "kind": "distributing"}, ValueError, r"a distributing interface averages"),
        ({"nodes": tip, "weights": "equal"}, ValueError, r"weights are for kind='distributing'"),
        ({"nodes": tip, "kind": "distributing", "weights": "area"}, ValueError, r"interface\[0\]: weights"),
        ({"nodes": tip, "kind": "distributing", "weights": np.ones(3)}, ValueError, r"weights must have shape"),
        ({"nodes": tip, "kind": "distributing", "weights": np.r_[1.0, -np.ones(tip.size - 1) / (tip.size - 1)]},
         ValueError, "non-zero sum"),
        ({"nodes": [int(tip[0]), int(tip[0]) + 1], "kind": "distributing", "weights": [1.0, np.nan]},
         ValueError, "weights"),
    ]
    for item, error, message in cases:
        with pytest.raises(error, match=message):
            ReducedBody(body, interface=[item], n_modes=2, geometric_stiffness=False)
    # an interior node set covers no boundary facet: tributary weights are refused by name
    inner = np.flatnonzero(np.isclose(body.nodes[:, 0], 0.25) & (np.abs(body.nodes[:, 1]) < 0.04))
    with pytest.raises(ValueError, match=r"weights='tributary': node \d+ lies on no boundary facet"):
        ReducedBody(body, interface=[at_x(body, 0.0), {"nodes": inner, "kind": "distributing",
                                                       "weights": "tributary"}], n_modes=2, geometric_stiffness=False)
    red = ReducedBody(body, interface=[at_x(body, 0.0), {"nodes": inner, "kind": "distributing"}], n_modes=2,
                      geometric_stiffness=False)
    assert red.kept["interface_weighting"][1] == "equal"  # the default falls back, and says so
    beam3d = kanefem.Beam3D(1.0, 4, E=E, A=1e-4, Izz=1e-8, Iyy=1e-8, J=2e-8, rho=RHO)
    with pytest.raises(ValueError, match=r"interface\[1\]: the nodes of a distributing interface lie on one line"):
        ReducedBody(beam3d, interface=[0, {"nodes": [2, 3, 4], "kind": "distributing"}], n_modes=2)
    with pytest.raises(ValueError, match=r"weights='tributary' needs a mesh"):
        ReducedBody(beam3d, interface=[0, {"nodes": [3, 4], "kind": "distributing", "weights": "tributary"}],
                    n_modes=2)
    bar = kanefem.AxialBar(1.0, 4, E=E, A=1e-4, rho=RHO)
    with pytest.raises(kanefem.NotSupportedError, match="none along axis 1"):
        ReducedBody(bar, interface=[0, {"nodes": [3, 4], "kind": "distributing"}], n_modes=2)
    # given weights follow the order of the given node indices (kept in ascending node order)
    a, b = int(tip[0]), int(tip[-1])
    one = ReducedBody(body, interface=[at_x(body, 0.0), {"nodes": [b, a], "kind": "distributing", "weights": [1.0, 2.0]}],
                      n_modes=2, geometric_stiffness=False)
    assert one.kept["interface"][1] == [a, b] and list(one.kept["interface_weights"][1]) == [2.0, 1.0]
    assert one.kept["interface_weighting"][1] == "given"
    # a planar beam's nodes on a line define its rotation: a distributing end of two nodes
    beam = kanefem.PlanarBeam(1.0, 4, E=E, A=1e-4, I=1e-8, rho=RHO)
    red = ReducedBody(beam, interface=[0, {"nodes": [3, 4], "kind": "distributing"}], n_modes=2)
    assert red.interface_positions[1] == pytest.approx([0.875, 0.0])


# ---------------------------------------------------------------- a mechanism link


SPEED = 150.0
TURN = 2 * math.pi / SPEED
AREA = math.pi * 0.006**2 / 4
HEIGHT = math.sqrt(12 * (AREA * 0.006**2 / 16) / AREA)
THICK = AREA / HEIGHT


def rod(nx=30, ny=2):
    """The slider-crank's rod as a plane-stress quad8 strip of its area and second moment."""
    mesh = Mesh.rectangle(0.3, HEIGHT, nx, ny, cell="quad8", origin=(0.0, -HEIGHT / 2))
    return MeshBody(mesh, E=200e9, nu=0.3, rho=7870.0, thickness=THICK)


def crank(link):
    sc = slider_crank()
    return Mechanism([sc.bodies[0], link, sc.bodies[2]], sc.joints, sc.coordinates, gravity=sc.gravity,
                     name="slider-crank")


def ends(kind):
    return [{"nodes": lambda x: np.isclose(x[:, 0], 0.0), "kind": kind},
            {"nodes": lambda x: np.isclose(x[:, 0], 0.3), "kind": kind}]


def test_a_reduced_link_with_distributing_ports():
    """The slider-crank's rod (an 8 x 2 quad8 strip) with its end edges as distributing
    ports at their centres (the pins), reduced to 8 modes with the K_G load cases of a
    link.  One way: the joint forces of the rigid motion, carried to the rod's nodes by
    the ports' weights, balance its rigid inertia at every instant (the resultant force
    and moment of the load cases' combination vanish to 1e-9 of the joint forces:
    measured 2.5e-16); its first frequency with K_G is the mesh's as a link (reduced
    exactly: every mode, the same ports given as (item, kind) pairs) within 2e-6 (measured 2.8e-7) and lies below the rigid-ported rod's
    (its end faces are free to deform: measured 1.0e-4 to 1.4e-4 lower).  Two ways: the
    midpoint deflection is the exact link's within 1e-4 of its peak (measured 5.5e-6;
    the rigid-ported rod's differs by 9.2e-4), and the coupled joint forces balance the
    rod's linear and angular momentum (rigid and elastic) at every instant, by central
    differences: within 2e-3 of the peak joint force (measured 4e-4 and 2e-4 at 32000
    steps a turn: the differences' O(dt^2) on the rod's 8.4 kHz axial vibration)."""
    body = rod(8, 2)
    mid = int(np.argmin(np.hypot(*(body.nodes - [0.15, 0.0]).T)))
    red = ReducedBody(body, interface=ends("distributing"), n_modes=8, prestress_supports="free")
    link = ElasticLink("rod", red, start=(0.15, 0.0))
    np.testing.assert_allclose(link.ports()[0], [[0.0, 0.0], [0.3, 0.0]], atol=1e-15)
    mech = crank(link)
    drives = {"crank": ConstantSpeed(SPEED)}
    t = np.linspace(0.0, TURN, 25)
    motion = mech.solve(t, drives=drives)
    c = mech.joint_forces(motion).link_axial["rod"]
    # the full body's loads of the load cases: the frame's inertial ones, then the ports'
    inv = body.inertia_invariants()
    loads = [-inv["Mo"][0], -inv["Mo"][1]] + [-inv["s"][i, j] for i in range(2) for j in range(2)]
    for k in range(2):
        w = red.kept["interface_weights"][k]
        for F, M in (((1.0, 0.0), 0.0), ((0.0, 1.0), 0.0), ((0.0, 0.0), 1.0)):
            loads.append(distributed_forces(body, red.interface[k], w, np.array(F), M))
    f = c @ np.array(loads)
    x, y = body.nodes[:, 0], body.nodes[:, 1]
    resultant = np.column_stack([f[:, 0::2].sum(axis=1), f[:, 1::2].sum(axis=1),
                                 (x * f[:, 1::2] - y * f[:, 0::2]).sum(axis=1)])
    assert np.abs(resultant).max() < 1e-9 * np.abs(c[:, 6:]).max()
    # the mesh as a link with distributing ports: reduced exactly, every fixed-interface mode
    exact = crank(ElasticLink("rod", body, start=(0.15, 0.0), supports=[(e, "pinned") for e in ends("distributing")]))
    assert exact.link("rod").model.kept["interface_kinds"] == ["distributing"] * 2
    rigid = crank(ElasticLink("rod", ReducedBody(body, interface=ends("rigid"), n_modes=8,
                                                 prestress_supports="free"), start=(0.15, 0.0)))
    f1, fe, fr = (m.link_eigenvalues(m.solve(t, drives=drives), n_modes=1)["rod"].frequencies_hz[:, 0]
                  for m in (mech, exact, rigid))
    assert np.abs(f1 / fe - 1).max() < 2e-6
    assert np.all(fr / f1 - 1 > 5e-5)
    steps = 250
    tt = np.linspace(0.0, TURN, steps + 1)
    opts = dict(drives=drives, rtol=None, dt=TURN / steps, axial_force="extrapolated")
    v, ve, vr = (m.simulate_flexible(tt, **opts).displacement("rod", mid)[:, 1] for m in (mech, exact, rigid))
    assert np.abs(v - ve).max() < 1e-4 * np.abs(ve).max() < np.abs(vr - ve).max()
    # the balance needs the rod's axial vibration (8.4 kHz) resolved: a quarter turn at
    # 32000 steps a turn, each step an output
    tq = np.linspace(0.0, TURN / 4, 8001)
    fine = mech.simulate_flexible(tq, drives=drives, rtol=None, dt=TURN / 32000, axial_force="extrapolated")
    _check_momentum(mech, link, fine)


def _check_momentum(mech, link, fm):
    """The joint forces on a link and gravity against the rates of its linear and angular
    momentum (about the drawing's origin) from its rigid motion and its elastic
    coordinates (docs/theory.md section 1.2: p = m v_c + R (omega J int rho u + int rho
    u'), H = int rho r x v), by central differences."""
    red = link.model
    Mo, s = red.inertia_invariants()["Mo"], red.inertia_invariants()["s"]
    S = red.inertia_invariants()["S"]
    m, cl = link.mass, link.centre_local
    Ic = link.inertia + m * cl @ cl  # about the frame origin
    b = mech._body_index("rod")
    q, qd = fm.motion.q[:, b], fm.motion.qd[:, b]
    th, om = q[:, 2], qd[:, 2]
    d, dd = fm.d["rod"], fm.d_t["rod"]
    cs, sn = np.cos(th), np.sin(th)

    def rot(v):  # the frame's axes to the drawing's, per instant
        return np.column_stack([cs * v[:, 0] - sn * v[:, 1], sn * v[:, 0] + cs * v[:, 1]])

    def perp(v):
        return np.column_stack([-v[:, 1], v[:, 0]])

    ru = np.column_stack([d @ Mo[0], d @ Mo[1]])  # int rho u (frame axes)
    rv = np.column_stack([dd @ Mo[0], dd @ Mo[1]])
    p = m * qd[:, :2] + rot(om[:, None] * perp(ru) + rv)
    rO = q[:, :2] - rot(np.tile(cl, (len(th), 1)))  # the frame origin
    vO = qd[:, :2] - om[:, None] * perp(rot(np.tile(cl, (len(th), 1))))
    Y1 = rot(m * cl + ru)  # int rho R y, y = x + u
    Mp = S[0][0] + S[1][1]
    Gs = S[1][0] - S[0][1]
    yy = Ic + 2 * d @ (s[0, 0] + s[1, 1]) + np.einsum("ti,ij,tj->t", d, Mp, d)  # int rho |y|^2
    yv = dd @ (s[1, 0] - s[0, 1]) - np.einsum("ti,ij,tj->t", d, Gs, dd)  # int rho y x u'
    cross = lambda a, c: a[:, 0] * c[:, 1] - a[:, 1] * c[:, 0]  # noqa: E731
    H = cross(rO, p) + cross(Y1, vO) + om * yy + yv
    g = np.asarray(mech.gravity)
    force = np.tile(m * g, (len(th), 1))
    torque = cross(rO * m + Y1, np.tile(g, (len(th), 1)))
    for j, port, sign in mech._link_ports(link):
        F = sign * fm.joints[:, j, :2]
        at = rO + rot(np.tile(link.ports()[0][port], (len(th), 1)))
        force += F
        torque += cross(at, F) + sign * fm.joints[:, j, 2]
    dt = np.diff(fm.t)[0]
    dp = (p[2:] - p[:-2]) / (2 * dt)
    dH = (H[2:] - H[:-2]) / (2 * dt)
    peak = np.abs(fm.joints[:, :, :2]).max()
    assert np.abs(dp - force[1:-1]).max() < 2e-3 * peak
    assert np.abs(dH - torque[1:-1]).max() < 2e-3 * peak * 0.3  # a force at the rod's length


def test_distributing_ports_in_toml(tmp_path):
    """A [[link]] of a mesh reduced at load takes distributing interface items as inline
    tables ({nodes = [...], kind = "distributing", weights = ...}); written again, its
    reduced body is saved beside the file (schema version 3) with the items' kinds and
    weights, and reads back to the same two-way motion."""
    body = rod(12, 2)
    body.mesh.write(tmp_path / "rod.vtu")
    left, right = at_x(body, 0.0), at_x(body, 0.3)
    plain = ReducedBody(body, interface=[left, right], n_modes=4, prestress_supports="free")
    path = crank(ElasticLink("rod", plain, start=(0.15, 0.0))).to_toml(tmp_path / "sc.toml",
                                                     drives={"crank": {"drive": ConstantSpeed(SPEED)}})
    items = (f'[{{nodes = {left.tolist()}, kind = "distributing"}}, '
             f'{{nodes = {right.tolist()}, kind = "distributing", weights = "equal"}}]')
    text = path.read_text().replace('body = "sc_rod.npz"', f'mesh = "rod.vtu"\nE = 200e9\nnu = 0.3\nrho = 7870.0\n'
                                    f'thickness = {THICK!r}\ninterface = {items}\nmodes = 4')
    (tmp_path / "mesh.toml").write_text(text)
    mech = Mechanism.from_toml(tmp_path / "mesh.toml")
    red = mech.link("rod").model
    assert red.kept["interface_kinds"] == ["distributing", "distributing"]
    assert red.kept["interface_weighting"] == ["tributary", "equal"]
    again = mech.to_toml(tmp_path / "again.toml", drives={"crank": {"drive": ConstantSpeed(SPEED)}})
    back = Mechanism.from_toml(again)
    kept = back.link("rod").model.kept
    assert kept["interface_kinds"] == red.kept["interface_kinds"]
    assert kept["interface_weighting"] == red.kept["interface_weighting"]
    np.testing.assert_array_equal(kept["interface_weights"][0], red.kept["interface_weights"][0])
    t = np.linspace(0.0, 0.004, 5)
    a = mech.simulate_flexible(t, drives={"crank": ConstantSpeed(SPEED)}, rtol=None, dt=2e-4)
    b = back.simulate_flexible(t, drives={"crank": ConstantSpeed(SPEED)}, rtol=None, dt=2e-4)
    assert np.abs(a.d["rod"] - b.d["rod"]).max() <= 1e-13 * np.abs(a.d["rod"]).max()
