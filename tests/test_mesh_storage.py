"""A plane or solid mesh in sparse storage keeps its nodal mass m once, not the dim^2
blocks S_ij = m (x) e_i e_j^T, and its prestress K_G cases per node pair (docs/theory.md
section 3.11): every API gives the values it gave when the blocks were stored.

The matrices are compared with the same mesh in dense storage (which stores the blocks);
what the solvers make of them with values recorded on main at 9cd6afd by
``python tests/test_mesh_storage.py --record`` (tests/data/mesh_storage_main.json).
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import kanefem
from kanefem import Mesh, MeshBody, Motion, simulate

DATA = Path(__file__).parent / "data" / "mesh_storage_main.json"
STEEL = {"E": 210e9, "nu": 0.3, "rho": 7850.0}


def clamp_x0(x):
    return np.isclose(x[:, 0], 0.0)


def _bodies():
    """A plane quad9 strip, a solid hex8 bar (incompatible modes), a tet10 bar and a mixed
    hexahedron-wedge mesh, all in sparse (CSR) storage."""
    quad9 = MeshBody(Mesh.rectangle(0.4, 0.05, 4, 1, cell="quad9"), thickness=0.01, **STEEL)
    hex8 = MeshBody(Mesh.box(0.4, 0.05, 0.04, 4, 1, 1), **STEEL)
    tet10 = MeshBody(Mesh.box(0.2, 0.05, 0.05, 2, 1, 1, cell="tetra10"), **STEEL)
    a = Mesh.box(0.1, 0.05, 0.05, 1, 1, 1)
    w = Mesh.box(0.2, 0.05, 0.05, 2, 1, 1, cell="wedge", origin=(0.1, 0.0, 0.0))
    joined = Mesh(np.vstack([a.nodes, w.nodes]), [a.cells, w.cells + a.n_nodes], ["hexahedron", "wedge"])
    mixed = MeshBody(joined.merged(1e-9), **STEEL)
    return {"quad9": quad9, "hex8": hex8, "tet10": tet10, "mixed": mixed}


def _probe(A):
    """A matrix's product with a fixed vector: what it does to every column, in ndof
    numbers (the recorded file stays small)."""
    return A @ np.cos(0.37 * np.arange(A.shape[0]) + 0.1)


def _cases():
    """What the solvers make of the matrices, on each body: K_G of the prestress (as
    its product with a fixed vector), eigenvalues (dense and sparse paths, a time grid with
    K_eps and K_G), and a Newmark run with K_G."""
    out = {}
    for name, b in _bodies().items():
        d = b.dim
        if d == 2:
            w, e, a = 7.0, -25.0, (1.0, -9.81)
            ws, es, aa = np.linspace(0.0, 40.0, 4), 30.0 * np.ones(4), np.tile([0.5, -9.81], (4, 1))
        else:
            w, e, a = np.array([2.0, -3.0, 7.0]), np.array([30.0, 10.0, -25.0]), (1.0, -9.81, 0.5)
            ws = np.outer(np.linspace(0.0, 40.0, 4), [0.3, 0.2, 1.0])
            es, aa = np.tile([10.0, -5.0, 30.0], (4, 1)), np.tile([0.5, -9.81, 0.2], (4, 1))
        sup = {clamp_x0: "fixed"}
        kg = b.geometric_stiffness(np.linspace(-1.0, 2.0, d + d * d), supports=sup)
        case = {"K_G": _probe(kg).tolist()}
        for solver in ("dense", "sparse"):
            r = b.eigenvalues(4, w, e, supports=sup, solver=solver, geometric_stiffness=True, a_O=a)
            case[f"eig-{solver}"] = np.concatenate([r.eigenvalues, r.eigenvalues_imag]).tolist()
        r = b.eigenvalues_vs_time(ws, es, n_modes=3, supports=sup, a_O=aa, solver="sparse", geometric_stiffness=True)
        case["eig-time"] = np.concatenate([r.eigenvalues.ravel(), r.eigenvalues_imag.ravel()]).tolist()
        ts = np.linspace(0.0, 0.02, 11)
        mt = Motion.from_samples(ts, 3.0 * ts + 20 * ts**2, np.column_stack([0.1 * np.sin(5 * ts), 0.02 * ts]))
        r = simulate(b, mt, 0.02, dt=1e-3, supports=sup, geometric_stiffness=True, progress=False,
                     damping=kanefem.Rayleigh(1.0, 1e-6), t_eval=[0.01, 0.02])
        case["simulate"] = np.concatenate([r.d[-1], r.v[-1]]).tolist()
        out[name] = case
    return out


def _close(x, ref):
    x, ref = np.asarray(x, dtype=float), np.asarray(ref, dtype=float)
    scale = np.max(np.abs(ref)) if ref.size else 0.0
    return float(np.max(np.abs(x - ref)) / scale) if scale > 0 else float(np.max(np.abs(x), initial=0.0))


@pytest.fixture(scope="module")
def cases():
    return _cases()


REF = json.loads(DATA.read_text())["cases"] if DATA.exists() else {}

#: the nodal combination forms c_kl m_ac in one product where the stored planar basis
#: summed two halves ((c_xx + c_yy)/2 M + (c_xx - c_yy)/2 P0): a few roundings of the
#: largest entry; S_ij, M and the motion terms are bitwise (section 3.11)
MATRIX_TOL = 4 * np.finfo(float).eps


@pytest.mark.parametrize("name", ["quad9", "hex8", "tet10", "mixed"])
def test_nodal_storage_gives_the_matrices_of_the_stored_blocks(name):
    """The body in sparse storage (nodal mass) against the same mesh in dense storage,
    which stores the dim^2 blocks: S_ij, M and the motion terms at a general instant
    bitwise, a general combination to 4 eps of its largest entry."""
    b = _bodies()[name]
    dense = MeshBody(b.mesh, storage="dense", formulation=b.formulation,
                     **({"thickness": b.thickness} if b.dim == 2 else {}), **STEEL)
    d = b.dim
    Ss, Sd = b.inertia_invariants()["S"], dense.inertia_invariants()["S"]
    for i in range(d):
        for j in range(d):
            assert np.array_equal(Ss[i][j].toarray(), Sd[i][j]), (name, i, j)
    assert np.array_equal(b.mass_matrix().toarray(), dense.mass_matrix())
    w, e, a = (7.0, -25.0, (1.0, -9.81)) if d == 2 else ((2.0, -3.0, 7.0), (30.0, 10.0, -25.0), (1.0, -9.81, 0.5))
    ts, td = b.motion_terms(w, e, a), dense.motion_terms(w, e, a)
    for f in ("C", "K_eps", "K_om"):
        assert np.array_equal(getattr(ts, f).toarray(), getattr(td, f)), (name, f)
    for f in ("q_eps", "q_om", "q_a"):
        assert np.array_equal(getattr(ts, f), getattr(td, f)), (name, f)
    coef = np.random.default_rng(3).standard_normal((d, d))
    A, B = b.combination(coef, 1.3).toarray(), dense.combination(coef, 1.3)
    assert np.max(np.abs(A - B)) <= MATRIX_TOL * np.max(np.abs(B))


@pytest.mark.parametrize("name", ["quad9", "hex8", "tet10", "mixed"])
def test_nodal_storage_gives_the_results_recorded_with_the_stored_blocks(cases, name):
    """What the solvers make of the matrices, against the values recorded on main (the
    blocks stored): K_G's product with a fixed vector to 1e-10, since its static solutions
    K u = f now come from a factor in nested-dissection order (cond(K) eps, ~1e6 x 1e-16;
    measured at most 2e-13); eigenvalues of the dense and the sparse path, and over a time
    grid with K_eps and K_G, to 1e-10 (measured at most 6e-14); a Newmark run with K_G and
    Rayleigh damping to 1e-9 (measured at most 3e-11: its factors and K_G's static
    solutions are in nested-dissection order, sections 3.15, 4.13)."""
    got, ref = cases[name], REF[name]
    for key, tol in (("K_G", 1e-10), ("eig-dense", 1e-10), ("eig-sparse", 1e-10), ("eig-time", 1e-10),
                     ("simulate", 1e-9)):
        assert _close(got[key], ref[key]) <= tol, (name, key, _close(got[key], ref[key]))


def test_nodal_masses_make_every_inertia_block():
    """What the nodal storage holds, read from the matrices it returns: S_xy is m on the
    (x, y) entries only (a ninth of the pattern's values nonzero: the eight other blocks'
    share is what is not stored), and the unit coefficient matrix gives every entry its
    node pair's mass, the value M holds at that node pair's (k, k) entry (bitwise)."""
    b = MeshBody(Mesh.box(0.2, 0.05, 0.05, 4, 1, 1), **STEEL)
    M = b.mass_matrix()
    Sxy = b.inertia_invariants()["S"][0][1]
    assert np.count_nonzero(Sxy.data) * 9 == M.nnz
    ones = b.combination(np.ones((3, 3)))
    rows = np.repeat(np.arange(b.ndof), np.diff(M.indptr))
    partner = M.indices + (rows % 3 - M.indices % 3)  # the same node pair's (k, k) entry
    assert np.array_equal(ones.data, np.asarray(M[rows, partner]).ravel())


@pytest.mark.parametrize("make", [lambda: MeshBody(Mesh.box(0.2, 0.05, 0.05, 4, 1, 1), **STEEL),
                                  lambda: kanefem.PlanarBeam(1.0, 400, E=1e9, A=1e-4, Izz=1e-9, rho=1e3)])
def test_returned_matrices_own_their_index_arrays(make):
    """A matrix a body returns (sparse or banded as CSR) owns its index arrays: SciPy's
    in-place eliminate_zeros on one (S_xy of a mesh, the skew part of a beam's combination,
    both mostly zeros) leaves the body's pattern, and every later matrix, as they were
    (on main the arrays were shared, and this changed M or K by up to 100 %)."""
    b = make()
    M0, K0 = b.mass_matrix().toarray(), b.stiffness_matrix().toarray()
    c = np.zeros((b.dim, b.dim))
    c[0, 1] = 1.0
    A = b.combination(c)
    A.eliminate_zeros()
    assert A.nnz < b.mass_matrix().nnz
    assert np.array_equal(b.mass_matrix().toarray(), M0) and np.array_equal(b.stiffness_matrix().toarray(), K0)


if __name__ == "__main__" and "--record" in sys.argv:
    DATA.write_text(json.dumps({"about": "Values of mesh bodies in sparse storage with the dim^2 inertia blocks "
                                "stored, recorded on main by tests/test_mesh_storage.py --record",
                                "cases": _cases()}, separators=(",", ":")))
