"""Stresses of meshes and section forces of beams (docs/theory.md section 2.10).

Meshes: the strains eps = B d at every quadrature point of every element (the
internal modes of the incompatible-mode quad4 / hex8 recovered element by element,
alpha = -Kaa^-1 Kau d_e, and their strains added), the stresses sigma = D eps and
the von Mises stress, at the Gauss points; at the nodes by extrapolation and
averaging: each element's Gauss values are fitted by least squares with the
polynomials of its kind's degree in reference coordinates and evaluated at its nodes,
then every node takes the plain mean over the elements that share it.

Beams: the element end forces f_e = K_e d_e (from the element's stiffness on its
displacements, in the element's axes) give the section forces and moments on the face
whose outward normal is the element's axis e1: at the second node +f_2, at the first
-f_1.  Without loads along the element (the nodal forces of the consistent loads and
inertia are what the end forces carry), N, the shears and the torque are constant
along it and the moments linear, which gives them at the element's two Gauss
stations.

The displacement sets can be one vector (ndof,), several (n, ndof), the mode
shapes of an :class:`~kanefem.EigenResult` (modal stresses: per unit modal
coordinate of the mass-normalized modes) or the displacements of a
:class:`~kanefem.SimulationResult` (a response in time).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _checks, _core
from ._results import ResultMixin

__all__ = ["StressResult", "von_mises"]

#: Voigt order of the plane and solid strains and stresses (engineering shears)
PLANE_COMPONENTS = ("xx", "yy", "xy")
SOLID_COMPONENTS = ("xx", "yy", "zz", "yz", "xz", "xy")

#: how the values at the nodes of a mesh are made
MESH_RECOVERY = ("Gauss-point values extrapolated to each element's nodes (least squares in the kind's "
                 "polynomial degree), then the plain mean over the elements sharing a node")

#: values (sets x points x strains) per call into the core: a Ctrl-C is seen between calls, and
#: each call recomputes the incompatible modes' condensation of every cell (about 0.3 s per 1e4 hex8)
_CHUNK_VALUES = 5_000_000


@dataclass
class StressResult(ResultMixin):
    """Stresses (meshes) or section forces (beams) at points, for one or more
    displacement sets (a state, the modes of an eigen result, the instants of a response).

    Attributes
    ----------
    names : tuple of str
        The quantities, each with its unit (``sigma_xx_Pa``, ``von_mises_Pa``,
        ``eps_xx_m_m`` for meshes; ``N_N``, ``V_N``, ``M_Nm`` (planar) or ``N_N``,
        ``Vy_N``, ``Vz_N``, ``T_Nm``, ``My_Nm``, ``Mz_Nm`` (spatial) for beams).
    values : ndarray, shape (n_sets, n_points, len(names))
        The values, in SI units.
    x : ndarray, shape (n_points, dim)
        Where (undeformed, body frame) [m].
    index : ndarray of int, shape (n_points,)
        The element (Gauss points, element ends) or the node (nodes) of each point.
    index_name : str
        ``"element"`` or ``"node"``.
    at : str
        ``"gauss"``, ``"nodes"`` or ``"ends"`` (a beam element's two ends).
    t : ndarray or None, shape (n_sets,)
        Times of the sets [s] (a response).
    frequencies_hz : ndarray or None, shape (n_sets,)
        Frequencies of the modes [Hz] (modal stresses).
    recovery : str
        How the values were obtained (docs/theory.md section 2.10).
    """

    names: tuple
    values: np.ndarray
    x: np.ndarray
    index: np.ndarray
    index_name: str
    at: str
    t: np.ndarray | None = None
    frequencies_hz: np.ndarray | None = None
    recovery: str = ""

    def __getitem__(self, name) -> np.ndarray:
        """The values of one quantity, (n_sets, n_points): ``r["von_mises_Pa"]``."""
        name = _checks.choice("name", name, tuple(self.names))
        return self.values[:, :, list(self.names).index(name)]

    def peak(self, name=None):
        """(value, set, point) where a quantity is largest in magnitude (default: von Mises
        for meshes, the bending moment for beams); set and point count from 0."""
        name = self._main() if name is None else name
        v = np.abs(self[name])
        k, p = np.unravel_index(int(np.argmax(v)), v.shape)
        return float(self[name][k, p]), int(k), int(p)

    def _main(self):
        for n in ("von_mises_Pa", "M_Nm", "Mz_Nm", "N_N"):
            if n in self.names:
                return n
        return self.names[0]

    def _columns(self):
        """One row per (set, point): instant or mode (and t_s or f_Hz), the element or
        node, x_m, y_m (, z_m), then every quantity."""
        ns, npt, _ = self.values.shape
        cols = {}
        if self.frequencies_hz is not None:
            cols["mode"] = np.repeat(np.arange(1, ns + 1), npt)
            cols["f_Hz"] = np.repeat(np.asarray(self.frequencies_hz, float), npt)
        else:
            cols["instant"] = np.repeat(np.arange(ns), npt)
            if self.t is not None:
                cols["t_s"] = np.repeat(np.asarray(self.t, float), npt)
        cols[self.index_name] = np.tile(np.asarray(self.index), ns)
        for k, axis in enumerate("xyz"[: self.x.shape[1]]):
            cols[f"{axis}_m"] = np.tile(self.x[:, k], ns)
        for k, name in enumerate(self.names):
            cols[name] = self.values[:, :, k].ravel()
        return cols

    def plot(self, ax=None, name=None, which=0, **kwargs):
        """A quantity (default von Mises or the moment) along x for one set (``which``: the
        mode or instant, from 0); return the axes."""
        from ._results import _axes, axis_label

        ax = _axes(ax)
        name = self._main() if name is None else name
        k = _checks.integer("which", which, minimum=0, maximum=self.values.shape[0] - 1)
        order = np.argsort(self.x[:, 0], kind="stable")
        ax.plot(self.x[order, 0], self[name][k, order], "." if self.at != "ends" else "-", **kwargs)
        ax.set_xlabel(axis_label("x_m"))
        ax.set_ylabel(axis_label(name) + (f" ({'mode' if self.frequencies_hz is not None else 'instant'} {k})"
                                          if self.values.shape[0] > 1 else ""))
        return ax


def von_mises(sigma, plane=None):
    """The von Mises stress of stresses in Voigt order (..., 3) plane or (..., 6) solid.

    sqrt(((s_xx - s_yy)^2 + (s_yy - s_zz)^2 + (s_zz - s_xx)^2) / 2 + 3 (s_yz^2 + s_xz^2
    + s_xy^2)); a plane state takes s_zz from ``plane``: None (plane stress, s_zz = 0)
    or an array of s_zz (plane strain: nu (s_xx + s_yy)).
    """
    s = np.asarray(sigma, dtype=float)
    if s.shape[-1] == 3:
        xx, yy, xy = s[..., 0], s[..., 1], s[..., 2]
        zz = np.zeros_like(xx) if plane is None else np.asarray(plane, float)
        yz = xz = 0.0
    elif s.shape[-1] == 6:
        xx, yy, zz, yz, xz, xy = (s[..., k] for k in range(6))
    else:
        raise ValueError(f"sigma must have 3 (plane) or 6 (solid) components last, got shape {s.shape}")
    return np.sqrt(0.5 * ((xx - yy) ** 2 + (yy - zz) ** 2 + (zz - xx) ** 2) + 3.0 * (yz ** 2 + xz ** 2 + xy ** 2))


# ---------------------------------------------------------------- displacement sets


def of_result(result, body, at=None):
    """A result's stresses on its body: MeshBody.stresses or a line body's section_forces
    (the helpers EigenResult.stresses and SimulationResult.stresses)."""
    from .bodies import FlexibleBody

    if not isinstance(body, FlexibleBody):
        raise TypeError(f"body must be the kanefem body the result was computed for, got {type(body).__name__}")
    if hasattr(body, "mesh"):
        return body.stresses(result, at="gauss" if at is None else at)
    return body.section_forces(result, at="ends" if at is None else at)


def displacement_sets(body, d):
    """(sets (n, ndof), t, frequencies_hz) from a vector, an array of rows, an
    EigenResult (its mode shapes; one instant) or a SimulationResult (its d)."""
    t = f = None
    name = type(d).__name__
    if name == "EigenResult":
        if d.mode_shapes is None:
            raise ValueError("d: the EigenResult has no mode shapes (mode_shapes=True)")
        if np.ndim(d.mode_shapes) != 2:
            raise ValueError("d: the EigenResult has several instants; pass result.mode_shapes[k] for one")
        f = np.asarray(d.frequencies_hz, float)
        sets = np.asarray(d.mode_shapes, float).T
    elif name == "SimulationResult":
        sets, t = np.asarray(d.d, float), np.asarray(d.t, float)
    else:
        sets = _checks.array("d", d)
        if sets.ndim == 1:
            sets = sets[None]
    if sets.ndim != 2 or sets.shape[1] != body.ndof:
        raise ValueError(f"d must have shape ({body.ndof},) or (n, {body.ndof}) (the body's DOFs), "
                         f"got {np.shape(sets)}")
    if not np.all(np.isfinite(sets)):
        raise ValueError("d must be finite")
    return np.ascontiguousarray(sets), t, f


def _chunks(n_sets, per_set):
    step = max(1, _CHUNK_VALUES // max(1, per_set))
    return [slice(k, min(n_sets, k + step)) for k in range(0, n_sets, step)]


def _point_strains(body, sets):
    """eps, sig (n, npts, ns), x, element from the core, in chunks of sets."""
    first = _core.point_strains(body._body, sets[:1])
    npts, ns = first["eps"].shape[1:]
    # strains, stresses, von Mises and the result's copy: refused before allocating past the limit
    _checks.output_size("d", 3.0 * len(sets) * npts * (ns + 1), "stresses at every quadrature point")
    eps = np.empty((len(sets), npts, ns))
    sig = np.empty_like(eps)
    for sl in _chunks(len(sets), npts * ns + body.ndof):
        r = _core.point_strains(body._body, sets[sl])
        eps[sl], sig[sl] = r["eps"], r["sig"]
    return eps, sig, first["x"], first["element"]


# ---------------------------------------------------------------- meshes


def _monomials(family, order, dim):
    """Exponent tuples of the fitting polynomials of a kind's family and degree."""
    rng = range(order + 1)
    if family == "tensor":
        return [e for e in np.ndindex(*(order + 1,) * dim)]
    if family == "wedge":
        return [(a, b, c) for a in rng for b in rng for c in rng if a + b <= order]
    return [e for e in np.ndindex(*(order + 1,) * dim) if sum(e) <= order]  # simplex, pyramid


_FAMILIES = {"tri3": ("simplex", 1), "tri6": ("simplex", 2), "tet4": ("simplex", 1),
             "tet10": ("simplex", 2), "quad4": ("tensor", 1), "quad4i": ("tensor", 1),
             "quad8": ("tensor", 2), "quad9": ("tensor", 2), "hex8": ("tensor", 1),
             "hex8i": ("tensor", 1), "hex20": ("tensor", 2), "hex27": ("tensor", 2),
             "wedge6": ("wedge", 1), "wedge15": ("wedge", 2), "pyramid5": ("simplex", 1),
             "pyramid13": ("simplex", 2)}


def extrapolation_matrix(kind):
    """(nnode, nquad): a kind's Gauss values to its nodes, the least-squares fit by the
    polynomials of its degree evaluated at the nodes (exact for fields of that degree)."""
    family, order = _FAMILIES[kind]
    xq, xn = _core.element_reference(kind=_core.element_kinds()[kind]["kind"])
    exps = _monomials(family, order, xq.shape[1])

    def basis(x):
        return np.column_stack([np.prod(x ** np.array(e), axis=1) for e in exps])

    return basis(xn) @ np.linalg.pinv(basis(xq))


def _averaging(body, element):
    """The sparse (n_nodes, npts) operator: per element extrapolation, nodal mean."""
    import scipy.sparse as sp

    cached = getattr(body, "_stress_averaging", None)
    if cached is not None:
        return cached
    rows, cols, vals = [], [], []
    first = 0
    for kind, (_, cells) in zip(body._kinds, body.mesh.blocks):
        E = extrapolation_matrix(kind)
        nn, nq = E.shape
        nel = len(cells)
        pts = first + np.arange(nel)[:, None] * nq + np.arange(nq)[None, :]  # (nel, nq)
        rows.append(np.repeat(cells, nq, axis=1).ravel())              # node of (e, a, q)
        cols.append(np.tile(pts, (1, nn)).reshape(nel, nn, nq).ravel())
        vals.append(np.broadcast_to(E, (nel, nn, nq)).ravel())
        first += nel * nq
    if first != len(element):  # the core's point order is the blocks' (meshes._create_core)
        raise RuntimeError(f"the core has {len(element)} quadrature points, the blocks {first}")
    P = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(body.n_nodes, first))
    count = np.zeros(body.n_nodes)
    for _, cells in body.mesh.blocks:
        np.add.at(count, cells.ravel(), 1.0)
    P = sp.diags(1.0 / np.maximum(count, 1.0)) @ P
    body._stress_averaging = P
    return P


def mesh_stresses(body, d, at="gauss", both=False):
    """The strains, stresses and von Mises stress of a MeshBody (see MeshBody.stresses);
    ``both``: the (Gauss, nodes) pair from one evaluation."""
    at = _checks.choice("at", at, ("gauss", "nodes"))
    both = _checks.flag("both", both)
    sets, t, f = displacement_sets(body, d)
    eps, sig, x, element = _point_strains(body, sets)
    gauss = _mesh_result(body, eps, sig, x, element, "element", "gauss", t, f,
                         "Gauss points of every element (sigma = D B d)")
    if at == "gauss" and not both:
        return gauss
    P = _averaging(body, element)
    n, npts, ns = eps.shape

    def to_nodes(a):
        return (P @ a.transpose(1, 0, 2).reshape(npts, n * ns)).reshape(body.n_nodes, n, ns).transpose(1, 0, 2)

    nodes = _mesh_result(body, to_nodes(eps), to_nodes(sig), body.nodes, np.arange(body.n_nodes), "node",
                         "nodes", t, f, MESH_RECOVERY)
    return (gauss, nodes) if both else nodes


def _mesh_result(body, eps, sig, x, index, index_name, at, t, f, recovery):
    """A mesh's StressResult from its strains and stresses (n, points, components)."""
    comps = PLANE_COMPONENTS if body.dim == 2 else SOLID_COMPONENTS
    szz = None
    if body.dim == 2 and body.plane_strain:
        szz = body.nu * (sig[..., 0] + sig[..., 1])
    vm = von_mises(sig, szz)
    names = tuple(f"sigma_{c}_Pa" for c in comps) + ("von_mises_Pa",) + tuple(f"eps_{c}_m_m" for c in comps)
    values = np.concatenate([sig, vm[..., None], eps], axis=2)
    if szz is not None:
        names += ("sigma_zz_Pa",)
        values = np.concatenate([values, szz[..., None]], axis=2)
    return StressResult(names=names, values=values, x=np.array(x, float), index=np.asarray(index),
                        index_name=index_name, at=at, t=t, frequencies_hz=f, recovery=recovery)


# ---------------------------------------------------------------- beams

#: the section forces of each line kind, in the order of its local end forces
_SECTION_NAMES = {"bar2": ("N_N",), "bar3d": ("N_N",), "beam2": ("N_N", "V_N", "M_Nm"),
                  "beam3d": ("N_N", "Vy_N", "Vz_N", "T_Nm", "My_Nm", "Mz_Nm")}
#: which of them vary linearly along an element (the moments); the others are constant
_LINEAR = {"beam2": (2,), "beam3d": (4, 5)}

#: Gauss-Legendre stations of a beam element (two points on [0, 1])
_GAUSS = np.array([0.5 - 0.5 / np.sqrt(3.0), 0.5 + 0.5 / np.sqrt(3.0)])


def _element_axes(body, kind, x1, x2):
    """Lam (nel, 3, 3): rows e1, e2, e3 of each element (local = Lam body), as the core."""
    e1 = x2 - x1
    e1 = e1 / np.linalg.norm(e1, axis=1)[:, None]
    if kind == "beam3d":
        h = np.broadcast_to(np.asarray(body.ref, float), e1.shape)
    else:  # bar3d: the coordinate axis least aligned with e1 (ties to the first)
        h = np.eye(3)[np.argmin(np.abs(e1), axis=1)]
    e3 = np.cross(e1, h)
    e3 /= np.linalg.norm(e3, axis=1)[:, None]
    return np.stack([e1, np.cross(e3, e1), e3], axis=1)


def _local_end_forces(body, f, x1, x2):
    """(n, nel, 2, k): the end forces of each element node in the element's axes."""
    kind = body._kind
    n, nel, _ = f.shape
    if kind == "bar2":
        return (f * np.sign(x2[:, 0] - x1[:, 0])[None, :, None]).reshape(n, nel, 2, 1)
    if kind == "beam2":
        e = (x2 - x1) / np.linalg.norm(x2 - x1, axis=1)[:, None]
        c, s = e[:, 0, None], e[:, 1, None]  # per element, broadcast over its two nodes
        g = f.reshape(n, nel, 2, 3)
        return np.stack([c * g[..., 0] + s * g[..., 1], -s * g[..., 0] + c * g[..., 1], g[..., 2]], axis=-1)
    Lam = _element_axes(body, kind, x1, x2)
    if kind == "bar3d":
        g = f.reshape(n, nel, 2, 3)
        return np.einsum("ej,nepj->nep", Lam[:, 0], g)[..., None]
    g = f.reshape(n, nel, 2, 2, 3)  # node, (force, moment), body axes
    return np.einsum("eij,nepkj->nepki", Lam, g).reshape(n, nel, 2, 6)


def section_forces(body, d, at="ends"):
    """The section forces and moments of a line body (see FlexibleBody.section_forces)."""
    at = _checks.choice("at", at, ("ends", "gauss"))
    kind = body._kind
    sets, t, freq = displacement_sets(body, d)
    elements = np.asarray(body._elements, dtype=np.intp)
    nel = len(elements)
    _checks.output_size("d", 4.0 * len(sets) * nel * 2 * body.dofs_per_node, "section forces")
    f = np.empty((len(sets), nel, 2 * body.dofs_per_node))
    for sl in _chunks(len(sets), nel * 2 * body.dofs_per_node + body.ndof):
        f[sl] = _core.element_forces(body._body, sets[sl])
    x1, x2 = body.nodes[elements[:, 0]], body.nodes[elements[:, 1]]
    local = _local_end_forces(body, f, x1, x2)
    # on the face whose outward normal is e1: -f at the first node, +f at the second
    ends = np.stack([-local[:, :, 0], local[:, :, 1]], axis=2)  # (n, nel, 2, k)
    names = _SECTION_NAMES[kind]
    how = "element end forces f_e = K_e d_e in element axes (face normal e1: -f_1, +f_2)"
    if at == "ends":
        values = ends.reshape(len(sets), 2 * nel, len(names))
        x = np.stack([x1, x2], axis=1).reshape(2 * nel, -1)
        index = np.repeat(np.arange(nel), 2)
    else:
        xi = _GAUSS[None, :, None]
        lin = np.zeros(len(names), bool)
        lin[list(_LINEAR.get(kind, ()))] = True
        # constants: the mean of the two ends (equal for an element in equilibrium); moments linear
        mean = 0.5 * (ends[:, :, 0] + ends[:, :, 1])
        line = ends[:, :, 0, None, :] * (1 - xi) + ends[:, :, 1, None, :] * xi
        values = np.where(lin, line, mean[:, :, None, :]).reshape(len(sets), 2 * nel, len(names))
        x = (x1[:, None, :] * (1 - xi) + x2[:, None, :] * xi).reshape(2 * nel, -1)
        index = np.repeat(np.arange(nel), 2)
        how += "; at the two Gauss stations of each element by its equilibrium (moments linear)"
    return StressResult(names=names, values=values, x=np.array(x, float), index=index, index_name="element",
                        at=at, t=t, frequencies_hz=freq, recovery=how)
