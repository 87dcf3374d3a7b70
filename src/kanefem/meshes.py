"""Meshes of plane and solid elements: node and connectivity arrays, read and written
with meshio, generated in code for simple shapes.

A :class:`Mesh` is what a mesher gives: nodes (n, dim), cells of one element kind
(nel, nodes per cell) in VTK/meshio node order, or blocks of several kinds (a
hex-dominant Gmsh mesh: hexahedra, wedges, pyramids), and named node sets (for supports).
:class:`kanefem.MeshBody` turns it into a flexible body in a moving frame
(docs/theory.md section 2.7).

Cell types (meshio names) and the element kinds they become:

============  =======  =====  ===========================================
meshio        kind     dim    element
============  =======  =====  ===========================================
triangle      tri3     2      linear triangle
triangle6     tri6     2      quadratic triangle
quad          quad4    2      bilinear quadrilateral
quad8         quad8    2      serendipity quadrilateral
quad9         quad9    2      biquadratic quadrilateral
tetra         tet4     3      linear tetrahedron
tetra10       tet10    3      quadratic tetrahedron
hexahedron    hex8     3      trilinear hexahedron
hexahedron20  hex20    3      serendipity hexahedron
hexahedron27  hex27    3      triquadratic hexahedron
wedge         wedge6   3      linear wedge (triangular prism)
wedge15       wedge15  3      serendipity wedge
pyramid       pyramid5 3      linear pyramid (rational basis)
pyramid13     pyramid13 3     quadratic pyramid (rational basis)
============  =======  =====  ===========================================

Linear elements lock in bending (a thin link meshed with tri3/tet4 is far too stiff);
quad4 and hex8 are therefore built with incompatible modes by default
(``MeshBody(..., formulation="incompatible")``, kinds quad4i / hex8i, docs/theory.md
section 2.7), and fully integrated only on request (``formulation="full"``).  Use the
quadratic elements for thin links.

>>> m = Mesh.rectangle(1.0, 0.1, 10, 1, cell="quad9")
>>> m.kind, m.nodes.shape, m.cells.shape
('quad9', (63, 2), (10, 9))
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Mapping
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import _checks, _core, _interrupt
from .bodies import _DENSE_EIGEN_NDOF, _KINDS, EigenResult, FlexibleBody, _expand_shapes, _not_supported
from ._io import atomic_path, atomic_write, inside

#: meshio cell type -> element kind
CELL_KINDS = {
    "triangle": "tri3",
    "triangle6": "tri6",
    "quad": "quad4",
    "quad8": "quad8",
    "quad9": "quad9",
    "tetra": "tet4",
    "tetra10": "tet10",
    "hexahedron": "hex8",
    "hexahedron20": "hex20",
    "hexahedron27": "hex27",
    "wedge": "wedge6",
    "wedge15": "wedge15",
    "pyramid": "pyramid5",
    "pyramid13": "pyramid13",
}
#: element kind -> meshio cell type
KIND_CELLS = {v: k for k, v in CELL_KINDS.items()}
_CELL_DIM = {c: (2 if k[0] in "tq" and not k.startswith("tet") else 3) for c, k in CELL_KINDS.items()}
#: topological dimension of meshio cell types that may appear beside the body's cells
_OTHER_DIMS = {"vertex": 0, "line": 1, "line3": 1, "triangle7": 2, "quad": 2, "wedge18": 3,
               "pyramid14": 3}

# reference node positions (in units of half a cell) of the structured generators, VTK order
_QUAD_REF = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1), (0, -1), (1, 0), (0, 1), (-1, 0), (0, 0)])
_HEX_REF = np.array(
    [(-1, -1, -1), (1, -1, -1), (1, 1, -1), (-1, 1, -1), (-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1),
     (0, -1, -1), (1, 0, -1), (0, 1, -1), (-1, 0, -1), (0, -1, 1), (1, 0, 1), (0, 1, 1), (-1, 0, 1),
     (-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0),
     (-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1), (0, 0, 0)])
_TRI_EDGES = [(0, 1), (1, 2), (2, 0)]
_TET_EDGES = [(0, 1), (1, 2), (0, 2), (0, 3), (1, 3), (2, 3)]


def _meshio():
    try:
        import meshio
    except ImportError:  # pragma: no cover - the optional extra
        raise ImportError("reading and writing mesh files needs meshio: pip install 'kanefem[mesh]'") from None
    # meshio (5.3) maps the VTK and Gmsh 15-node wedge and 13-node pyramid to these
    # names but leaves them out of its table of cell dimensions, so a CellBlock of
    # them cannot be made (KeyError 'wedge15'): add the missing entries
    dims = getattr(getattr(meshio, "_mesh", None), "topological_dimension", None)
    if isinstance(dims, dict):
        for name in ("wedge15", "pyramid13"):
            dims.setdefault(name, 3)
    return meshio


@dataclass
class Mesh:
    """Nodes and cells of one element kind, or blocks of several, with named node sets.

    Parameters
    ----------
    nodes : array_like, shape (n, dim)
        Node coordinates in the body frame [m], dim 2 (plane) or 3 (solid).
    cells : array_like of int, shape (nel, nodes per cell), or a sequence of them
        Node indices of each cell, in VTK/meshio order (counter-clockwise in the plane);
        a mixed mesh: one array per block (e.g. hexahedra, then wedges).
    cell_type : str or sequence of str
        A meshio cell type (see the module table), e.g. ``"quad9"``, ``"tetra10"``;
        a mixed mesh: one per block, all plane or all solid (e.g.
        ``("hexahedron", "wedge")``).  Blocks of one type are merged, and a mesh whose
        blocks have one type is a mesh of that type.
    point_sets : dict of str -> array of int, optional
        Named node sets (e.g. from the mesh file), usable as supports.

    Attributes
    ----------
    kind : str or tuple of str
        The element kind (``"quad9"``, ``"tet10"``, ...); a mixed mesh: one per block.
    dim : int
        2 or 3.
    blocks : list of (cell_type, cells)
        The cell blocks (one for a mesh of one type); cells are numbered block after
        block.
    """

    nodes: np.ndarray
    cells: np.ndarray
    cell_type: str
    point_sets: dict = field(default_factory=dict)

    def __post_init__(self):
        mixed = isinstance(self.cell_type, (list, tuple))
        types = list(self.cell_type) if mixed else [self.cell_type]
        for t in types:
            if not isinstance(t, str) or t not in CELL_KINDS:
                raise ValueError(f"cell_type = {_checks._short(t)} is not supported; supported cell types: "
                                 f"{', '.join(CELL_KINDS)}")
        if mixed:
            if not types:
                raise ValueError("cell_type = () names no cell type")
            if not isinstance(self.cells, (list, tuple)) or len(self.cells) != len(types):
                raise ValueError(f"a mesh of the cell types {types} needs one cell array per type "
                                 f"(cells = a list of {len(types)} arrays), got {_checks._short(self.cells)}")
            dims = {_CELL_DIM[t] for t in types}
            if len(dims) > 1:
                raise ValueError(f"cell_type = {types} mixes plane and solid cells: a mesh is one or the other")
        self.nodes = _checks.array("nodes", self.nodes, ndim=2)
        dim = _CELL_DIM[types[0]]
        if self.nodes.shape[1] != dim:
            raise ValueError(f"nodes must have shape (n, {dim}) for {types[0]} cells, "
                             f"got {self.nodes.shape}")
        arrays = list(self.cells) if mixed else [self.cells]
        merged: dict = {}
        offset = 0
        for t, c in zip(types, arrays):
            c = self._block(t, c, offset)
            offset += c.shape[0]
            merged.setdefault(t, []).append(c)
        if offset == 0:
            raise ValueError("the mesh has no cells")
        merged = {t: np.concatenate(v) for t, v in merged.items() if sum(len(x) for x in v)}
        if len(merged) == 1:
            (self.cell_type, self.cells), = merged.items()
        else:
            self.cell_type, self.cells = tuple(merged), tuple(merged.values())
        if not isinstance(self.point_sets, Mapping):
            raise TypeError(f"point_sets must be a dict of name -> node indices, got {_checks._short(self.point_sets)}")
        self.point_sets = {str(k): np.unique(np.asarray(v, dtype=np.int64)) for k, v in self.point_sets.items()}
        for name, idx in self.point_sets.items():
            if idx.size and (idx[0] < 0 or idx[-1] >= self.nodes.shape[0]):
                raise ValueError(f"point set {name!r} refers to nodes outside 0..{self.nodes.shape[0] - 1}")

    def _block(self, cell_type, cells, offset):
        """One block's cells checked (integer, its node count, nodes that exist); cells
        are named by their number in the mesh (offset: the cells before the block)."""
        try:
            cells = np.asarray(cells)
        except (ValueError, TypeError) as exc:  # ragged lists: NumPy's message names nothing
            raise ValueError(f"cells must be an integer array (n_cells, nodes per cell), got "
                             f"{_checks._short(cells)} ({exc})") from None
        if cells.dtype.kind not in "iu":
            raise TypeError(f"cells must be an integer array, got dtype {cells.dtype}")
        nn = _NODES_PER_CELL[cell_type]
        if cells.ndim != 2 or cells.shape[1] != nn:
            raise ValueError(f"cells must have shape (nel, {nn}) for {cell_type}, got {cells.shape}")
        bad = np.flatnonzero((cells < 0).any(axis=1) | (cells >= self.nodes.shape[0]).any(axis=1))
        if bad.size:
            c = int(bad[0])
            raise ValueError(f"cell {offset + c} refers to node(s) {cells[c].tolist()}, outside "
                             f"0..{self.nodes.shape[0] - 1} (missing nodes)")
        return cells.astype(np.int64)

    # ------------------------------------------------------------ properties

    @property
    def blocks(self) -> list:
        if isinstance(self.cell_type, tuple):
            return list(zip(self.cell_type, self.cells))
        return [(self.cell_type, self.cells)]

    @property
    def mixed(self) -> bool:
        """Whether the mesh holds several cell types."""
        return isinstance(self.cell_type, tuple)

    def _remapped(self, nodes, renumber, point_sets) -> "Mesh":
        """The mesh on new nodes, each block's cells renumbered by ``renumber``."""
        types, cells = zip(*[(t, renumber(c)) for t, c in self.blocks])
        return Mesh(nodes, list(cells), list(types), point_sets)

    def _cell_nodes(self) -> np.ndarray:
        """Every cell's nodes, one flat array."""
        return np.concatenate([c.ravel() for _, c in self.blocks])

    @property
    def kind(self):
        if self.mixed:
            return tuple(CELL_KINDS[t] for t in self.cell_type)
        return CELL_KINDS[self.cell_type]

    @property
    def dim(self) -> int:
        return self.nodes.shape[1]

    @property
    def n_nodes(self) -> int:
        return self.nodes.shape[0]

    @property
    def n_cells(self) -> int:
        return sum(c.shape[0] for _, c in self.blocks)

    @property
    def type_name(self) -> str:
        """The cell type, or the types joined by "+" (``"hexahedron+wedge"``)."""
        return "+".join(t for t, _ in self.blocks)

    def __repr__(self):
        return (f"Mesh({self.type_name}: {self.n_nodes} nodes, {self.n_cells} cells, dim {self.dim}, "
                f"point sets {sorted(self.point_sets)})")

    # ------------------------------------------------------------ node sets

    def nodes_where(self, predicate) -> np.ndarray:
        """Indices of the nodes whose coordinates satisfy ``predicate``.

        Parameters
        ----------
        predicate : callable
            ``predicate(x) -> bool array`` with ``x`` the (n, dim) node coordinates,
            e.g. ``lambda x: np.isclose(x[:, 0], 0.0)``.
        """
        _checks.callable_("predicate", predicate)
        mask = np.asarray(predicate(self.nodes.copy()))
        if mask.dtype != bool or mask.shape != (self.n_nodes,):
            raise ValueError(f"a node predicate must return a boolean array of shape ({self.n_nodes},), "
                             f"got {mask.dtype} {mask.shape}")
        return np.flatnonzero(mask)

    def unused_nodes(self) -> np.ndarray:
        """Nodes that belong to no cell."""
        used = np.zeros(self.n_nodes, dtype=bool)
        used[self._cell_nodes()] = True
        return np.flatnonzero(~used)

    def pruned(self) -> "Mesh":
        """The same mesh without the nodes that belong to no cell (renumbered; point sets
        keep their used nodes)."""
        used = np.zeros(self.n_nodes, dtype=bool)
        used[self._cell_nodes()] = True
        new = np.cumsum(used) - 1
        sets = {k: new[v[used[v]]] for k, v in self.point_sets.items()}
        return self._remapped(self.nodes[used], lambda c: new[c], sets)

    def transformed(self, rotation, translation=None) -> "Mesh":
        """The mesh moved rigidly: x -> R x + t (R a proper rotation, dim x dim)."""
        R = _checks.array("rotation", rotation, shape=(self.dim, self.dim))
        if not np.allclose(R @ R.T, np.eye(self.dim), atol=1e-12) or np.linalg.det(R) < 0:
            raise ValueError("rotation must be a proper rotation matrix (R R^T = I, det R = 1)")
        t = np.zeros(self.dim) if translation is None else _checks.array("translation", translation,
                                                                         shape=(self.dim,))
        return self._remapped(self.nodes @ R.T + t, np.copy, dict(self.point_sets))

    # ------------------------------------------------------------ meshio

    @classmethod
    def read(cls, path, *, dim=None, prune=False, file_format=None) -> "Mesh":
        """Read a mesh file with meshio (Gmsh .msh, Abaqus .inp, VTU, ...).

        The body's cells are the cells of the highest dimension in the file (one block
        per supported type; see :func:`Mesh.from_meshio`); lower-dimensional cells (boundary
        lines, faces) and named sets become node sets for supports.

        Parameters
        ----------
        path : str or os.PathLike
        dim : {2, 3}, optional
            Take the cells of this dimension (default: the highest in the file).
        prune : bool
            Drop nodes that belong to no body cell (a mesher's geometry points) instead
            of raising.
        file_format : str, optional
            meshio's format name, when the file's extension does not say it: ``"gmsh"``,
            ``"vtk"``, ``"vtu"`` or ``"abaqus"``.

        Raises
        ------
        MeshFileError
            (a ValueError) naming the file and what is wrong: not a regular file, a
            format other than Gmsh .msh (2.2, 4.1), VTK .vtk, VTU and Abaqus .inp, XML
            entities, declared sizes larger than the file can hold, or a damaged file
            (whatever meshio raised, also its ``sys.exit``, except MemoryError and
            KeyboardInterrupt); sizes are checked before anything is allocated
            (``kanefem._meshfiles``).
        ValueError
            The mesh in the file is not one body (see :func:`Mesh.from_meshio`).
        """
        path = _checks.path("path", path)
        return _from_file(path, read_meshio(path, file_format), lambda m: cls.from_meshio(m, dim=dim, prune=prune))

    @classmethod
    def from_meshio(cls, m, *, dim=None, prune=False) -> "Mesh":
        """A Mesh from a ``meshio.Mesh``.

        Node sets are gathered from ``point_sets`` (e.g. Abaqus NSET), from
        ``cell_sets`` (e.g. Gmsh physical groups, Abaqus ELSET: the nodes of those
        cells) and from Gmsh's ``gmsh:physical`` tags named in ``field_data``.

        Raises
        ------
        ValueError
            No supported cells; cells of a lower dimension whose nodes are not all nodes of
            the body's cells (mixed dimensions), naming the cell; a plane mesh whose z
            coordinates vary; unused nodes (unless ``prune``); unsupported cell types of
            the body's dimension.
        """
        prune = _checks.flag("prune", prune)
        blocks = [(b.type, np.asarray(b.data)) for b in m.cells]
        known = [(i, t) for i, (t, _) in enumerate(blocks) if t in CELL_KINDS]
        if dim is None:
            dims = [_CELL_DIM[t] for _, t in known] + [_OTHER_DIMS.get(t, 0) for t, _ in blocks]
            top = max(dims) if dims else 0
        else:
            top = _checks.integer("dim", dim, minimum=2, maximum=3)
        body = [(i, t) for i, t in known if _CELL_DIM[t] == top]
        other_top = [t for t, _ in blocks if t not in CELL_KINDS and _OTHER_DIMS.get(t, -1) == top]
        if other_top:
            raise ValueError(f"cell type(s) {sorted(set(other_top))} of dimension {top} are not supported; "
                             f"supported: {', '.join(CELL_KINDS)}")
        types = list(dict.fromkeys(t for _, t in body))  # in the file's order
        if not types:
            raise ValueError(f"the mesh has no supported cells of dimension {top} "
                             f"(cell types {[t for t, _ in blocks]}; supported: {', '.join(CELL_KINDS)})")
        ctype = "+".join(types)
        # one block per type (a hex-dominant Gmsh mesh: hexahedra, wedges, pyramids)
        body_cells = [np.concatenate([blocks[i][1] for i, t_ in body if t_ == t]) for t in types]
        body_cells = [_vtk_wedges(t, c, np.asarray(m.points, dtype=float)) for t, c in zip(types, body_cells)]
        cells = np.concatenate([c.ravel() for c in body_cells])
        pts = np.asarray(m.points, dtype=float)
        if top == 2:
            if pts.shape[1] == 3:
                z = pts[:, 2]
                if np.ptp(z) > 1e-12 * max(1.0, np.ptp(pts[:, :2])):
                    k = int(np.argmax(np.abs(z - z[0])))
                    raise ValueError(f"a plane mesh must lie in a plane z = const; node {k} has z = {z[k]!r} "
                                     f"and node 0 z = {z[0]!r}")
            pts = pts[:, :2]
        in_body = np.zeros(len(pts), dtype=bool)
        in_body[cells.ravel()] = True
        # lower-dimensional cells must lie on the body (boundary cells, for node sets)
        for i, (t, data) in enumerate(blocks):
            if any(i == j for j, _ in body) or data.size == 0:
                continue
            d = _CELL_DIM.get(t, _OTHER_DIMS.get(t))
            if d is None:
                raise ValueError(f"cell block {i} has the unknown cell type {t!r}")
            if d > top:
                raise ValueError(f"cell block {i} ({t}) is of dimension {d} > {top}")
            off = ~in_body[data].all(axis=1)
            if off.any():
                c = int(np.flatnonzero(off)[0])
                raise ValueError(f"mixed dimensions: cell {c} of block {i} ({t}) has nodes "
                                 f"{data[c].tolist()} that belong to no {ctype} cell")
        sets = {}
        for name, idx in (m.point_sets or {}).items():
            sets[name] = np.asarray(idx)
        for name, per_block in (m.cell_sets or {}).items():
            nodes = [np.asarray(blocks[i][1])[np.asarray(sel, dtype=np.int64)].ravel()
                     for i, sel in enumerate(per_block) if sel is not None and len(sel)]
            if nodes:
                sets.setdefault(name, np.unique(np.concatenate(nodes)))
        tags = (m.cell_data or {}).get("gmsh:physical")
        if tags is not None:
            for name, (tag, _) in ((n, v[:2]) for n, v in (m.field_data or {}).items()):
                nodes = [blocks[i][1][np.asarray(tg) == tag].ravel() for i, tg in enumerate(tags)]
                nodes = [x for x in nodes if x.size]
                if nodes:
                    sets.setdefault(name, np.unique(np.concatenate(nodes)))
        mesh = cls.__new__(cls)
        mesh.nodes, mesh.cells, mesh.cell_type, mesh.point_sets = pts, body_cells, types, sets
        mesh.__post_init__()
        unused = mesh.unused_nodes()
        if unused.size:
            if not prune:
                raise ValueError(f"node {int(unused[0])} (and {unused.size - 1} more) belongs to no {ctype} "
                                 "cell; pass prune=True to drop unused nodes")
            mesh = mesh.pruned()
        return mesh

    def to_meshio(self, point_data=None, cell_data=None):
        """A ``meshio.Mesh`` of this mesh (3-D points), with optional point data
        ``{name: (n,) or (n, k) array}`` and cell data ``{name: [one array per block]}``."""
        meshio = _meshio()
        pts = self.nodes if self.dim == 3 else np.column_stack([self.nodes, np.zeros(self.n_nodes)])
        return meshio.Mesh(pts, self.blocks, point_data=point_data or {}, cell_data=cell_data or {},
                           point_sets={k: v for k, v in self.point_sets.items()})

    def write(self, path, point_data=None, file_format=None, cell_data=None):
        """Write the mesh (and point and cell data) with meshio, atomically; the format
        from the extension (``.vtu``, ``.msh``, ``.inp``, ...) or ``file_format``."""
        return write_meshio(path, self.to_meshio(point_data, cell_data), file_format)

    # ------------------------------------------------------------ generators

    @classmethod
    def rectangle(cls, lx, ly, nx, ny, cell="quad", origin=(0.0, 0.0)) -> "Mesh":
        """A structured mesh of the rectangle [0, lx] x [0, ly] (+ origin).

        Parameters
        ----------
        lx, ly : float
            Side lengths [m].
        nx, ny : int
            Cells along x and y (triangles: two per square cell).
        cell : str
            A plane cell type: ``"triangle"``, ``"triangle6"``, ``"quad"``, ``"quad8"``,
            ``"quad9"`` (or the kind names ``"tri3"``, ``"quad9"``, ...).
        origin : (float, float)
        """
        lx = _checks.real("lx", lx, positive=True)
        ly = _checks.real("ly", ly, positive=True)
        org = _checks.array("origin", origin, shape=(2,))
        return cls.structured((nx, ny), cell, lambda s: org + s * [lx, ly])

    @classmethod
    def box(cls, lx, ly, lz, nx, ny, nz, cell="hexahedron", origin=(0.0, 0.0, 0.0)) -> "Mesh":
        """A structured mesh of the box [0, lx] x [0, ly] x [0, lz] (+ origin).

        ``cell``: ``"tetra"``, ``"tetra10"`` (six tetrahedra per cube, Kuhn's
        subdivision), ``"hexahedron"``, ``"hexahedron20"``, ``"hexahedron27"``,
        ``"wedge"``, ``"wedge15"`` (two per cube), ``"pyramid"`` (six per cube, apex at
        its centre) (or the kind names).
        """
        ls = [_checks.real(n, v, positive=True) for n, v in (("lx", lx), ("ly", ly), ("lz", lz))]
        org = _checks.array("origin", origin, shape=(3,))
        return cls.structured((nx, ny, nz), cell, lambda s: org + s * ls)

    @classmethod
    def annulus(cls, r_inner, r_outer, n_r, n_theta, cell="quad9", thickness=None, n_z=1,
                angle=2 * np.pi) -> "Mesh":
        """A ring (or disc sector) r_inner <= r <= r_outer about the origin, in the x-y
        plane; with ``thickness`` a solid ring of that height along z (cells of the
        solid type, e.g. ``"hexahedron27"``).  A full turn (angle 2 pi) is closed
        (the seam's nodes are merged).  Nodes lie on the circles exactly, so with
        quadratic cells the curved sides are represented to second order.
        """
        r0 = _checks.real("r_inner", r_inner, positive=True)
        r1 = _checks.real("r_outer", r_outer, positive=True)
        if not r1 > r0:
            raise ValueError(f"r_outer = {r1!r} must exceed r_inner = {r0!r}")
        ang = _checks.real("angle", angle, positive=True)
        full = bool(np.isclose(ang, 2 * np.pi))
        _cell_counts(["n_r", "n_theta"] + (["n_z"] if thickness is not None else []),
                     [n_r, n_theta] + ([n_z] if thickness is not None else []))
        if full and n_theta < 2:
            raise ValueError(f"n_theta = {n_theta} must be >= 2 for a full ring (one cell would close on itself)")
        if thickness is None:
            def f(s):
                r, th = r0 + (r1 - r0) * s[:, 0], ang * s[:, 1]
                return np.column_stack([r * np.cos(th), r * np.sin(th)])
            m = cls.structured((n_r, n_theta), cell, f)
        else:
            h = _checks.real("thickness", thickness, positive=True)

            def f(s):
                r, th = r0 + (r1 - r0) * s[:, 0], ang * s[:, 1]
                return np.column_stack([r * np.cos(th), r * np.sin(th), h * s[:, 2]])
            m = cls.structured((n_r, n_theta, n_z), cell, f)
        if full:
            try:
                m = m.merged(1e-9 * r1)
            except ValueError:  # cells smaller than the seam's tolerance
                raise ValueError(f"the ring's cells (r_inner = {r0!r}, r_outer = {r1!r}, thickness = {thickness!r}) "
                                 f"are smaller than the tolerance that closes its seam (1e-9 r_outer = "
                                 f"{1e-9 * r1:g} m): their nodes would merge") from None
        return m

    @classmethod
    def structured(cls, shape, cell, mapping) -> "Mesh":
        """A structured mesh of the unit square or cube, mapped to space.

        Parameters
        ----------
        shape : tuple of int
            Cells per direction, (nx, ny) or (nx, ny, nz).
        cell : str
            Cell type (meshio name or kind name) of that dimension.
        mapping : callable
            ``mapping(s) -> x``: from reference coordinates s (m, dim) in [0, 1]^dim to
            node coordinates (m, dim); it must preserve orientation.
        """
        cell = KIND_CELLS.get(cell, cell) if isinstance(cell, str) else cell
        if not isinstance(cell, str) or cell not in CELL_KINDS:
            raise ValueError(f"cell = {cell!r} is not one of {', '.join(CELL_KINDS)}")
        dim = len(shape)
        if dim != _CELL_DIM[cell]:
            raise ValueError(f"cell = {cell!r} needs {_CELL_DIM[cell]} cell counts, got shape {shape!r}")
        n = _cell_counts([f"n{'xyz'[k]}" for k in range(dim)], shape)
        # a lattice with two steps per cell holds every node of every order
        lat = [2 * v + 1 for v in n]
        corners = np.array(list(itertools.product(*[range(v) for v in n])))
        centres = 2 * corners + 1  # lattice coordinates of the cell centres
        local = _local_nodes(cell)  # (k, nodes, dim) lattice offsets from the centre
        cells_lat = (centres[:, None, None, :] + local[None]).reshape(-1, local.shape[1], dim)
        strides = np.cumprod([1] + lat[:-1])
        idx = (cells_lat * strides).sum(axis=2)
        grid = np.array(list(itertools.product(*[range(v) for v in lat[::-1]])))[:, ::-1]
        s = grid / (np.array(lat) - 1)
        gidx = (grid * strides).sum(axis=1)
        order = np.argsort(gidx)
        nodes = np.asarray(mapping(s[order]), dtype=float)
        mesh = cls(nodes, idx, cell)
        return mesh.pruned()

    def _tributary(self, nodes):
        """The tributary measure of each of ``nodes`` on the boundary facets they span
        (docs/theory.md section 3.18): w_a = sum over those facets of int N_a dA, the
        consistent nodal share of a uniform traction (edges of a plane mesh per unit
        thickness, faces of a solid mesh).  A boundary facet is one that belongs to one
        cell; it is spanned when every node of it is in ``nodes``.  Returns (w, covered):
        w (len(nodes),) and whether each node lies on such a facet (a node on none has
        w = 0)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        inside_ = np.zeros(self.n_nodes, dtype=bool)
        inside_[nodes] = True
        found = []  # (facet kind, facet nodes (k, m)) of every facet inside the item
        for cell_type, cells in self.blocks:
            for kind, local in _FACETS[cell_type]:
                fn = cells[:, local]
                fn = fn[inside_[fn].all(axis=1)]
                if fn.size:
                    found.append((kind, fn))
        w = np.zeros(self.n_nodes)
        covered = np.zeros(self.n_nodes, dtype=bool)
        if found:
            # a facet of two cells (same corner set) is inside the body, not on its boundary
            corners = [np.sort(fn[:, : _FACET_CORNERS[kind]], axis=1) for kind, fn in found]
            width = max(c.shape[1] for c in corners)
            keys = np.vstack([np.pad(c, ((0, 0), (0, width - c.shape[1])), constant_values=-1) for c in corners])
            _, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
            once = counts[inverse.ravel()] == 1
            start = 0
            for kind, fn in found:
                keep = once[start:start + fn.shape[0]]
                start += fn.shape[0]
                fn = fn[keep]
                if fn.size:
                    np.add.at(w, fn.ravel(), _facet_integrals(kind, self.nodes[fn]).ravel())
                    covered[fn.ravel()] = True
        return w[nodes], covered[nodes]

    def merged(self, tol) -> "Mesh":
        """The mesh with nodes closer than ``tol`` merged into one (e.g. the seam of a
        closed ring)."""
        tol = _checks.real("tol", tol, positive=True)
        with np.errstate(all="ignore"):
            scaled = np.round(self.nodes / tol)
        if not np.all(np.abs(scaled) < 2.0**62):
            raise ValueError(f"tol = {tol!r} is too small for node coordinates up to "
                             f"{np.abs(self.nodes).max():g} (the merge grid overflows)")
        _, first, inverse = np.unique(scaled.astype(np.int64), axis=0, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        offset = 0
        for _, c in self.blocks:
            srt = np.sort(inverse[c], axis=1)
            bad = np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
            if bad.size:
                raise ValueError(f"tol = {tol!r} merges nodes of one cell (cell {offset + int(bad[0])}: nodes "
                                 f"{c[bad[0]].tolist()}): it must be smaller than the cells")
            offset += c.shape[0]
        sets = {k: np.unique(inverse[v]) for k, v in self.point_sets.items()}
        return self._remapped(self.nodes[first], lambda c: inverse[c], sets)


#: the most cells a structured mesh holds (its generator takes seconds per 10^6 cells)
MAX_STRUCTURED_CELLS = 10**6


def _cell_counts(names, values):
    """Cell counts per direction, each >= 1, their product at most MAX_STRUCTURED_CELLS
    (checked before anything is allocated), named by ``names``."""
    n = [_checks.integer(name, v, minimum=1, maximum=100_000) for name, v in zip(names, values)]
    if math.prod(n) > MAX_STRUCTURED_CELLS:
        raise ValueError(f"{' x '.join(names)} = {' x '.join(map(str, n))} cells is more than a structured mesh "
                         f"holds ({MAX_STRUCTURED_CELLS:.0e}): read a larger mesh from a file (Mesh.read)")
    return n


_NODES_PER_CELL = {"triangle": 3, "triangle6": 6, "quad": 4, "quad8": 8, "quad9": 9, "tetra": 4,
                   "tetra10": 10, "hexahedron": 8, "hexahedron20": 20, "hexahedron27": 27,
                   "wedge": 6, "wedge15": 15, "pyramid": 5, "pyramid13": 13}


#: the facets of each cell type, (facet kind, local nodes: corners first, then the facet's
#: own mid-edge and centre nodes in the facet kind's order), VTK/meshio node numbering
_FACETS = {
    "triangle": [("line2", [0, 1]), ("line2", [1, 2]), ("line2", [2, 0])],
    "triangle6": [("line3", [0, 1, 3]), ("line3", [1, 2, 4]), ("line3", [2, 0, 5])],
    "quad": [("line2", [0, 1]), ("line2", [1, 2]), ("line2", [2, 3]), ("line2", [3, 0])],
    "quad8": [("line3", [0, 1, 4]), ("line3", [1, 2, 5]), ("line3", [2, 3, 6]), ("line3", [3, 0, 7])],
    "quad9": [("line3", [0, 1, 4]), ("line3", [1, 2, 5]), ("line3", [2, 3, 6]), ("line3", [3, 0, 7])],
    "tetra": [("tri3", [0, 1, 2]), ("tri3", [0, 1, 3]), ("tri3", [1, 2, 3]), ("tri3", [2, 0, 3])],
    "tetra10": [("tri6", [0, 1, 2, 4, 5, 6]), ("tri6", [0, 1, 3, 4, 8, 7]), ("tri6", [1, 2, 3, 5, 9, 8]),
                ("tri6", [2, 0, 3, 6, 7, 9])],
    "hexahedron": [("quad4", [0, 1, 2, 3]), ("quad4", [4, 5, 6, 7]), ("quad4", [0, 1, 5, 4]),
                   ("quad4", [1, 2, 6, 5]), ("quad4", [2, 3, 7, 6]), ("quad4", [3, 0, 4, 7])],
    "hexahedron20": [("quad8", [0, 1, 2, 3, 8, 9, 10, 11]), ("quad8", [4, 5, 6, 7, 12, 13, 14, 15]),
                     ("quad8", [0, 1, 5, 4, 8, 17, 12, 16]), ("quad8", [1, 2, 6, 5, 9, 18, 13, 17]),
                     ("quad8", [2, 3, 7, 6, 10, 19, 14, 18]), ("quad8", [3, 0, 4, 7, 11, 16, 15, 19])],
    "hexahedron27": [("quad9", [0, 1, 2, 3, 8, 9, 10, 11, 24]), ("quad9", [4, 5, 6, 7, 12, 13, 14, 15, 25]),
                     ("quad9", [0, 1, 5, 4, 8, 17, 12, 16, 22]), ("quad9", [1, 2, 6, 5, 9, 18, 13, 17, 21]),
                     ("quad9", [2, 3, 7, 6, 10, 19, 14, 18, 23]), ("quad9", [3, 0, 4, 7, 11, 16, 15, 19, 20])],
    "wedge": [("tri3", [0, 1, 2]), ("tri3", [3, 4, 5]), ("quad4", [0, 1, 4, 3]), ("quad4", [1, 2, 5, 4]),
              ("quad4", [2, 0, 3, 5])],
    "wedge15": [("tri6", [0, 1, 2, 6, 7, 8]), ("tri6", [3, 4, 5, 9, 10, 11]),
                ("quad8", [0, 1, 4, 3, 6, 13, 9, 12]), ("quad8", [1, 2, 5, 4, 7, 14, 10, 13]),
                ("quad8", [2, 0, 3, 5, 8, 12, 11, 14])],
    "pyramid": [("quad4", [0, 1, 2, 3]), ("tri3", [0, 1, 4]), ("tri3", [1, 2, 4]), ("tri3", [2, 3, 4]),
                ("tri3", [3, 0, 4])],
    "pyramid13": [("quad8", [0, 1, 2, 3, 5, 6, 7, 8]), ("tri6", [0, 1, 4, 5, 10, 9]), ("tri6", [1, 2, 4, 6, 11, 10]),
                  ("tri6", [2, 3, 4, 7, 12, 11]), ("tri6", [3, 0, 4, 8, 9, 12])],
}
#: the corner nodes of each facet kind (they name a facet: two cells share it when they share them)
_FACET_CORNERS = {"line2": 2, "line3": 2, "tri3": 3, "tri6": 3, "quad4": 4, "quad8": 4, "quad9": 4}


def _facet_rule(kind):
    """Gauss points and weights on a facet kind's reference element: 3 points on
    [-1, 1], 3 x 3 on [-1, 1]^2, Strang and Fix's 6 points (degree 4) on the unit
    triangle; each exact for the facet's shape functions times an affine Jacobian."""
    g, gw = np.polynomial.legendre.leggauss(3)
    if kind.startswith("line"):
        return g[:, None], gw
    if kind.startswith("quad"):
        return np.array([(a, b) for a in g for b in g]), np.outer(gw, gw).ravel()
    a, b = 0.445948490915965, 0.091576213509771
    pts = np.array([(a, a), (1 - 2 * a, a), (a, 1 - 2 * a), (b, b), (1 - 2 * b, b), (b, 1 - 2 * b)])
    return pts, np.r_[[0.223381589678011 / 2] * 3, [0.109951743655322 / 2] * 3]


def _facet_shapes(kind, p):
    """Shape functions N (npoints, m) and their derivatives dN (npoints, m, facet dim) of a
    facet kind at reference points p (npoints, facet dim), nodes in _FACETS' order."""
    if kind.startswith("line"):
        x = p[:, 0]
        one = np.ones_like(x)
        if kind == "line2":
            return np.column_stack([(1 - x) / 2, (1 + x) / 2]), np.stack([-one / 2, one / 2], axis=1)[..., None]
        return (np.column_stack([x * (x - 1) / 2, x * (x + 1) / 2, 1 - x * x]),
                np.stack([x - 0.5, x + 0.5, -2 * x], axis=1)[..., None])
    x, y = p[:, 0], p[:, 1]
    if kind.startswith("tri"):
        L = np.stack([1 - x - y, x, y], axis=1)
        dL = np.array([[-1.0, -1.0], [1.0, 0.0], [0.0, 1.0]])
        if kind == "tri3":
            return L, np.broadcast_to(dL, (len(x), 3, 2)).copy()
        N = np.column_stack([L * (2 * L - 1)] + [4 * L[:, i] * L[:, j] for i, j in ((0, 1), (1, 2), (2, 0))])
        dN = np.concatenate([(4 * L - 1)[:, :, None] * dL[None]] +
                            [4 * (L[:, j, None] * dL[i] + L[:, i, None] * dL[j])[:, None] for i, j in
                             ((0, 1), (1, 2), (2, 0))], axis=1)
        return N, dN
    ref = _QUAD_REF[: {"quad4": 4, "quad8": 8, "quad9": 9}[kind]]
    if kind == "quad4":
        N = (1 + x[:, None] * ref[:, 0]) * (1 + y[:, None] * ref[:, 1]) / 4
        dN = np.stack([ref[:, 0] * (1 + y[:, None] * ref[:, 1]) / 4, ref[:, 1] * (1 + x[:, None] * ref[:, 0]) / 4], 2)
        return N, dN
    if kind == "quad9":  # Lagrange products of the quadratic line's functions
        def line(t, r):
            v = np.where(r == 0, 1 - t * t, t * (t + r) / 2)
            return v, np.where(r == 0, -2 * t, t + r / 2)
        fx, gx = line(x[:, None], ref[:, 0])
        fy, gy = line(y[:, None], ref[:, 1])
        return fx * fy, np.stack([gx * fy, fx * gy], 2)
    xi, eta = ref[:, 0], ref[:, 1]  # serendipity: corners, then mid-edge nodes
    X, Y = x[:, None], y[:, None]
    corner = xi * eta != 0
    Nc = (1 + X * xi) * (1 + Y * eta) * (X * xi + Y * eta - 1) / 4
    dcx = xi * (1 + Y * eta) * (2 * X * xi + Y * eta) / 4
    dcy = eta * (1 + X * xi) * (X * xi + 2 * Y * eta) / 4
    Nm = np.where(xi == 0, (1 - X * X) * (1 + Y * eta), (1 + X * xi) * (1 - Y * Y)) / 2
    dmx = np.where(xi == 0, -X * (1 + Y * eta), xi * (1 - Y * Y) / 2)
    dmy = np.where(xi == 0, eta * (1 - X * X) / 2, -Y * (1 + X * xi))
    return np.where(corner, Nc, Nm), np.stack([np.where(corner, dcx, dmx), np.where(corner, dcy, dmy)], 2)


def _facet_integrals(kind, x):
    """int N_a dA over facets of one kind with node coordinates x (k, m, space dim): (k, m)
    (an edge's length measure in the plane, a face's area in space)."""
    p, gw = _facet_rule(kind)
    N, dN = _facet_shapes(kind, p)
    J = np.einsum("kmd,pme->kpde", x, dN)  # (facets, points, space dim, facet dim)
    if J.shape[-1] == 1:
        measure = np.linalg.norm(J[..., 0], axis=-1)
    else:
        measure = np.linalg.norm(np.cross(J[..., 0], J[..., 1]), axis=-1)
    return np.einsum("kp,p,pm->km", measure, gw, N)


def _kuhn_tets():
    """Six positively oriented tetrahedra of the cube [-1, 1]^3 (Kuhn's subdivision
    along the main diagonal), as corner offsets."""
    tets = []
    for perm in itertools.permutations(range(3)):
        p = np.array([-1, -1, -1])
        verts = [p.copy()]
        for axis in perm:
            p[axis] = 1
            verts.append(p.copy())
        v = np.array(verts)
        if np.linalg.det(v[1:] - v[0]) < 0:
            v[[1, 2]] = v[[2, 1]]
        tets.append(v)
    return tets


def _local_nodes(cell):
    """Lattice offsets (k cells per square/cube, nodes, dim) of a cell type's nodes from
    the centre of a structured square/cube (two lattice steps per cell)."""
    if cell in ("quad", "quad8", "quad9"):
        return _QUAD_REF[None, : _NODES_PER_CELL[cell]]
    if cell in ("hexahedron", "hexahedron20", "hexahedron27"):
        return _HEX_REF[None, : _NODES_PER_CELL[cell]]
    if cell in ("wedge", "wedge15"):
        return _wedges(cell == "wedge15")
    if cell == "pyramid":
        return _pyramids()
    if cell == "pyramid13":
        raise ValueError("cell = 'pyramid13' has nodes off the structured lattice: build the mesh "
                         "of 'pyramid' cells and read or construct the 13-node cells (Mesh(nodes, cells, 'pyramid13'))")
    if cell in ("triangle", "triangle6"):
        simplices = [np.array([(-1, -1), (1, -1), (1, 1)]), np.array([(-1, -1), (1, 1), (-1, 1)])]
        edges = _TRI_EDGES
    else:
        simplices = _kuhn_tets()
        edges = _TET_EDGES
    out = []
    for v in simplices:
        nodes = list(v)
        if cell in ("triangle6", "tetra10"):
            nodes += [(v[i] + v[j]) // 2 for i, j in edges]
        out.append(nodes)
    return np.array(out)


#: the mirror image of a wedge's node order (its two triangles turned the other way)
_WEDGE_MIRROR = {"wedge": [0, 2, 1, 3, 5, 4],
                 "wedge15": [0, 2, 1, 3, 5, 4, 8, 7, 6, 11, 10, 9, 12, 14, 13]}


def _vtk_wedges(cell_type, cells, points):
    """Wedges in VTK's order (the first triangle's normal points away from the second).
    Gmsh numbers its prisms the other way round (the first triangle's normal points to
    the second) and meshio passes them through unchanged, so a hex-dominant Gmsh mesh
    would hold only inverted wedges: such cells are turned into VTK's order."""
    if cell_type not in _WEDGE_MIRROR or cells.size == 0 or cells.min() < 0 or cells.max() >= len(points):
        return cells  # (bad indices: the Mesh refuses them, naming the cell)
    x = points[cells[:, :4]]
    turn = np.einsum("ij,ij->i", np.cross(x[:, 1] - x[:, 0], x[:, 2] - x[:, 0]), x[:, 3] - x[:, 0]) > 0
    if turn.any():
        cells = cells.copy()
        cells[turn] = cells[turn][:, _WEDGE_MIRROR[cell_type]]
    return cells


def _wedges(quadratic):
    """Two wedges per cube (its square split along a diagonal, extruded along z) in
    VTK order: the bottom triangle turns clockwise seen from the top triangle."""
    out = []
    for tri in ([(-1, -1), (1, 1), (1, -1)], [(-1, -1), (-1, 1), (1, 1)]):
        v = [(x, y, -1) for x, y in tri] + [(x, y, 1) for x, y in tri]
        if quadratic:
            v += [tuple((np.add(v[i], v[j])) // 2) for i, j in
                  [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (0, 3), (1, 4), (2, 5)]]
        out.append(v)
    return np.array(out)


def _pyramids():
    """Six pyramids per cube, one on each face with its apex at the centre; the base
    turns counter-clockwise seen from the apex (VTK)."""
    out = []
    for axis in range(3):
        for side in (-1, 1):
            a, b = [k for k in range(3) if k != axis]
            base = []
            for p, q in [(-1, -1), (1, -1), (1, 1), (-1, 1)]:
                c = [0, 0, 0]
                c[axis], c[a], c[b] = side, p, q
                base.append(c)
            base = np.array(base)
            # the base's normal (right-hand rule) must point to the apex at the origin
            if np.cross(base[1] - base[0], base[3] - base[0]) @ (-base[0]) < 0:
                base = base[[0, 3, 2, 1]]
            out.append(np.vstack([base, [(0, 0, 0)]]))
    return np.array(out)


def read_meshio(path, file_format=None):
    """A meshio.Mesh read from ``path`` after the checks of ``kanefem._meshfiles`` (a
    regular file of a known format whose declared sizes it can hold); a MeshFileError
    naming the file for whatever meshio raises on a damaged one (also its sys.exit)."""
    from ._meshfiles import MeshFileError, check

    meshio = _meshio()
    fmt = check(path, file_format)
    try:
        return meshio.read(os.fspath(path), file_format=fmt)
    except (KeyboardInterrupt, MemoryError):  # an allocation the checks missed is a defect, not a file's
        raise
    except BaseException as exc:  # noqa: BLE001 - SystemExit (meshio's sys.exit), ReadError, IndexError, ...
        what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise MeshFileError(f"{path}: not a readable {fmt} mesh file ({what[:300]})") from None


def _from_file(path, m, convert):
    """convert(m) of a meshio.Mesh read from ``path``, its errors naming the file (a mesh
    meshio built from a damaged file can fail in any way: a MeshFileError)."""
    from ._meshfiles import MeshFileError

    try:
        return convert(m)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{path}: {exc}") from None
    except (IndexError, KeyError, AttributeError, OverflowError) as exc:
        raise MeshFileError(f"{path}: not a consistent mesh ({type(exc).__name__}: {exc})") from None


def write_meshio(path, mesh, file_format=None):
    """Write a meshio.Mesh atomically: into a temporary file beside ``path``, then moved
    onto it (meshio writes by file name)."""
    meshio = _meshio()
    path = Path(path)
    fmt = file_format
    if fmt is None:  # by the suffixes, longest first (".vtu", ".msh", ".xdmf", ...): meshio's table
        types = meshio.extension_to_filetypes
        suffixes = [("".join(path.suffixes[k:])).lower() for k in range(len(path.suffixes))]
        fmt = next((types[s][0] for s in suffixes if s in types), None)
        if fmt is None:
            raise ValueError(f"path = {str(path)!r}: meshio writes no format with this suffix; give "
                             f"file_format or one of {', '.join(sorted(types))}")

    with atomic_path(path) as tmp:
        meshio.write(tmp, mesh, file_format=fmt)  # _io: the temporary file of atomic_path
    return path


# ---------------------------------------------------------------- the body


#: free DOFs up to which solver="auto" uses the dense eigen solver of the core (O(n^3))
_DENSE_EIGEN_MAX = 300


#: MeshBody's formulations of the linear quadrilateral and hexahedron
FORMULATIONS = ("incompatible", "full")
_INCOMPATIBLE = {"quad4": "quad4i", "hex8": "hex8i"}


class MeshBody(FlexibleBody):
    """A flexible body meshed with plane or solid elements, in a moving frame.

    The body's equations are those of every kanefem body (docs/theory.md section 1),
    with the invariants integrated over the mesh (section 2.7) and stored on one sparse
    pattern (section 3.11).  Matrices are returned by the Body contract's storage rule
    (docs/api/contract.md): ``scipy.sparse`` CSR matrices unless ``storage="dense"``.

    Parameters
    ----------
    mesh : Mesh
        Nodes (body-frame coordinates [m]) and cells of one kind, e.g. from
        :meth:`Mesh.read` or :meth:`Mesh.rectangle`.
    E : float
        Young's modulus [Pa].
    nu : float
        Poisson's ratio, in (-1, 0.5).
    rho : float
        Density [kg/m^3].
    thickness : float
        Plane meshes: the thickness [m] (mass and stiffness per unit area are rho t and
        D t).  Not for solid meshes.
    plane_strain : bool
        Plane meshes: plane strain instead of plane stress.
    storage : {"auto", "sparse", "banded", "dense"}
        The storage of the matrices (docs/api/contract.md): "auto" (= "sparse", CSR)
        for any size; "dense" or "banded" for small meshes (to compare paths).  The
        older spellings "csr" and "band" are aliases of "sparse" and "banded".
    formulation : {"incompatible", "full"}
        quad4 and hex8 cells: "incompatible" (default) adds Wilson's incompatible
        modes in Taylor's form, condensed per element (kinds quad4i / hex8i: no
        shear locking in bending, patch test passed on distorted meshes); "full" is
        the fully integrated isoparametric element (12-21 % stiff in thick-plate
        bending).  Other cell types have one formulation and accept either.

    Notes
    -----
    DOFs are node-major, ``node * dim + k`` with k in ``dof_names`` (``ux, uy[,
    uz]``).  Rates: ``omega``/``eps`` are numbers (about the frame's z axis) or, for
    solid meshes, 3-vectors in body axes; ``a_O`` has dim components (origin
    acceleration minus gravity, body axes); or pass ``frames`` (:data:`FRAME_DTYPE`).
    Supports: see :meth:`support_mask`; the default is none (free-free).

    Examples
    --------
    >>> import numpy as np, kanefem
    >>> mesh = kanefem.Mesh.rectangle(1.0, 0.05, 40, 2, cell="quad9")
    >>> plate = kanefem.MeshBody(mesh, E=2.1e11, nu=0.3, rho=7800, thickness=0.01)
    >>> r = plate.eigenvalues(1, supports={lambda x: x[:, 0] == 0.0: "fixed"})
    >>> round(float(r.frequencies_hz[0]), 0)   # 1.8751^2 sqrt(EI/(rho A L^4)) / 2 pi = 41.8
    42.0
    """

    _default_supports = None
    _presets: dict = {}

    _storages = ("sparse", "banded", "dense")
    _AUTO_DENSE_NDOF = 0  # "auto" is CSR at every size
    _sparse_as_band = False
    SPARSE_EIGEN_FROM = _DENSE_EIGEN_MAX
    _cells_name = "cells"

    def __init__(self, mesh, *, E, nu, rho, thickness=None, plane_strain=False, storage="auto",
                 formulation="incompatible"):
        if not isinstance(mesh, Mesh):
            raise TypeError(f"mesh must be a kanefem.Mesh, got {mesh!r}")
        _checks.choice("formulation", formulation, FORMULATIONS)
        self.mesh = mesh
        self.formulation = formulation
        kinds = [CELL_KINDS[t] for t, _ in mesh.blocks]
        if formulation == "incompatible":
            kinds = [_INCOMPATIBLE.get(k, k) for k in kinds]
        self._kinds = tuple(kinds)  # one per block
        self._kind = kinds[0]
        self.dof_names = ("ux", "uy", "uz")[: mesh.dim]
        FlexibleBody.__init__(self, mesh.nodes, mesh.cells, E=E, nu=nu, rho=rho, thickness=thickness,
                              plane_strain=plane_strain, storage=storage)

    def _material(self, *, E, nu, rho, thickness=None, plane_strain=False):
        """E, nu, rho and, for a plane mesh, thickness and plane_strain: the core's section."""
        self.E = _checks.real("E", E, positive=True)
        self.nu = _checks.real("nu", nu)
        self.rho = _checks.real("rho", rho, positive=True)
        section = {"E": self.E, "nu": self.nu, "rho": self.rho}
        if self.mesh.dim == 2:
            if thickness is None:
                raise ValueError("a plane mesh needs its thickness (thickness=...)")
            self.thickness = _checks.real("thickness", thickness, positive=True)
            self.plane_strain = _checks.flag("plane_strain", plane_strain)
            section.update(thickness=self.thickness, plane_strain=float(self.plane_strain))
        else:
            if thickness is not None or _checks.flag("plane_strain", plane_strain):
                raise ValueError("thickness and plane_strain are for plane meshes; this mesh is solid")
            self.thickness, self.plane_strain = None, False
        return section

    def _line_only(self, what):
        raise _not_supported(self, what, "a mesh's K_G comes from the prestress of its frame's inertial "
                             "loads (docs/theory.md section 2.11); apply other loads as nodal forces")

    def _create_core(self, nodes, elements, section, storage):
        if not self.mesh.mixed:
            return super()._create_core(nodes, elements, section, storage)
        blocks = self.mesh.blocks
        kinds = np.concatenate([np.full(len(c), _KINDS[k]["kind"]) for k, (_, c) in zip(self._kinds, blocks)])
        sizes = np.concatenate([np.full(len(c), c.shape[1]) for _, c in blocks])
        ptr = np.concatenate([[0], np.cumsum(sizes)])
        conn = np.concatenate([c.ravel() for _, c in blocks])
        return _core.body_create_mixed(kinds=kinds, coords=nodes, conn=conn, ptr=ptr, section=section,
                                       storage=storage)

    def __repr__(self):
        return (f"MeshBody({self.mesh.type_name}: {self.n_nodes} nodes, {self.mesh.n_cells} cells, "
                f"{self.ndof} DOFs, E={self.E!r}, nu={self.nu!r}, rho={self.rho!r}"
                + (f", thickness={self.thickness!r}" + (", plane strain" if self.plane_strain else "")
                   if self.dim == 2 else "") + f", storage={self.storage!r}"
                + (f", formulation={self.formulation!r}"
                   if any(CELL_KINDS[t] in _INCOMPATIBLE for t, _ in self.mesh.blocks) else "") + ")")

    # ------------------------------------------------------------ motion

    def _motion(self, omega, eps, a_O, frames, one):
        """The frame states of one instant or of a time grid (the body's _frame/_frames)."""
        if one:
            return self._frame(omega, eps, a_O, frames)
        return self._frames(omega, 0.0 if eps is None and frames is None else eps, a_O, frames)

    # ------------------------------------------------------------ supports

    def node_set(self, selector) -> np.ndarray:
        """Node indices of a selector: a point-set name of the mesh, a predicate
        ``f(x) -> bool array`` on the (n, dim) coordinates, a node index or an array of
        node indices."""
        if isinstance(selector, str):
            if selector not in self.mesh.point_sets:
                raise ValueError(f"supports: {selector!r} is not a node set of the mesh "
                                 f"({', '.join(map(repr, self.mesh.point_sets)) or 'it has none'})")
            return self.mesh.point_sets[selector]
        if callable(selector):
            return self.mesh.nodes_where(selector)
        idx = np.atleast_1d(np.asarray(selector))
        if idx.dtype.kind not in "iu" or idx.ndim != 1:
            raise TypeError(f"supports: a node selector must be a set name, a predicate or node indices, "
                            f"got {selector!r}")
        if idx.size and (idx.min() < -self.n_nodes or idx.max() >= self.n_nodes):
            raise ValueError(f"supports: node index out of range for {self.n_nodes} nodes")
        return np.unique(idx % self.n_nodes)

    def support_mask(self, supports) -> np.ndarray:
        """Which DOFs the supports fix (boolean, length ndof).

        Parameters
        ----------
        supports : dict or list of (selector, kind) pairs, or None
            selector: a node-set name of the mesh (from the file), a predicate on the
            coordinates (``lambda x: np.isclose(x[:, 0], 0)``), a node index or an array
            of indices; kind: ``"fixed"`` (also ``"clamped"``: every DOF of the nodes;
            ``"pinned"``: their displacements, the same on a mesh of plane or solid
            cells, whose nodes have no rotations) or a tuple of DOF names from
            ``dof_names``.

        Raises
        ------
        ValueError
            An unknown set name or kind, a selector that selects no node.
        """
        fixed = np.zeros(self.ndof, dtype=bool)
        if supports is None:
            return fixed
        items = supports.items() if isinstance(supports, dict) else supports
        try:
            items = list(items)
        except TypeError:
            raise TypeError(f"supports must be a dict or a list of (selector, kind) pairs, got {supports!r}") from None
        for pair in items:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"supports: each entry must be a (selector, kind) pair, got {pair!r}")
            selector, kind = pair
            nodes = self.node_set(selector)
            if nodes.size == 0:
                raise ValueError(f"supports: {selector!r} selects no node")
            if isinstance(kind, str):
                if kind not in ("fixed", "clamped", "pinned"):
                    raise ValueError(f"supports[{selector!r}] = {kind!r} is not 'fixed' (or 'clamped', "
                                     f"'pinned') or a tuple of DOF names from {self.dof_names}")
                offsets = range(self.dim if kind == "pinned" else self.dofs_per_node)
            else:
                try:
                    offsets = [self.dof_names.index(n) for n in kind]
                except (TypeError, ValueError):
                    raise ValueError(f"supports[{selector!r}] = {kind!r}: DOF names must come from "
                                     f"{self.dof_names}") from None
            for off in offsets:
                fixed[nodes * self.dofs_per_node + off] = True
        return fixed

    # ------------------------------------------------------------ eigenvalues

    def _solver(self, solver, fixed, constraints=None):
        _checks.choice("solver", solver, ("auto", "dense", "sparse"))
        if solver == "auto":
            # the sparse solver needs CSR storage: a body stored dense or banded is solved dense
            solver = "dense" if self.storage != "sparse" or (~fixed).sum() <= _DENSE_EIGEN_MAX else "sparse"
        if solver == "sparse" and self.storage != "sparse":
            raise ValueError("solver='sparse' needs the body in sparse storage (storage='auto' or 'sparse')")
        if solver == "dense" and constraints is not None and self.ndof > _DENSE_EIGEN_NDOF:
            raise _not_supported(self, f"solver='dense' with constraints= and {self.ndof} DOFs",
                                 "the dense Maggi projection (an orthonormal basis by QR) takes at most "
                                 f"{_DENSE_EIGEN_NDOF} DOFs; solver='sparse' eliminates one DOF per "
                                 "constraint and keeps the matrices sparse")
        return solver

    def _solve(self, motion, n_modes, supports, include_eps, order, mode_shapes, solver, constraints,
               geometric_stiffness, progress, axial_force=None):
        geometric = _checks.flag("geometric_stiffness", geometric_stiffness)
        include_eps = _checks.flag("include_eps", include_eps)
        mode_shapes = _checks.flag("mode_shapes", mode_shapes)
        n_modes = _checks.integer("n_modes", n_modes, minimum=1, maximum=self.ndof)
        if progress is not None:  # checked before the run, not at its first call (False crashed part way)
            _checks.callable_("progress", progress)
        fixed = self.support_mask(supports)
        solver = self._solver(solver, fixed, constraints)
        if solver == "dense":
            ctx = self._eig_context(supports, geometric, constraints)
            kg = self._geometric_rows(motion, supports, None, axial_force) if geometric else None
            r = _interrupt.call(_core.eig_solve, eig=ctx, frames=motion, n_modes=n_modes,
                                include_eps=bool(include_eps), vectors=bool(mode_shapes),
                                tracked=order == "tracked", progress=progress, polls=True,
                                axial_force=kg, flops=10.0 * float(self.ndof)**3)  # one dense instant
            st = r["stats"]
            return r["eigenvalues"], r["eigenvalues_imag"], r["mode_shapes"], st
        from .sparse import eigen_solve

        proj = None
        if constraints is not None:  # the body projected on d = T z (section 3.3), its own K_G
            proj = self._constrained(supports, constraints, geometric)
            ctx = proj.ctx
        else:
            ctx = self._sparse_context(fixed)
        if n_modes > ctx.red.n - 6:
            raise ValueError(f"n_modes = {n_modes} is out of 1..{ctx.red.n - 6} for the sparse solver "
                             f"({ctx.red.n} free DOFs); use solver='dense'")
        kg, lock = None, contextlib.nullcontext()
        if geometric and proj is None:  # K_G(t) from the core's prestress basis of these supports, held meanwhile
            lock = self._kg_lock()
            ctx.kg_matrix = lambda c: ctx.red.matrix(_core.geometric_matrix(body=self._body, coefficients=c))
        try:
            with lock:
                if geometric:
                    if proj is None:
                        self._geometric_basis(supports)
                    kg = self._geometric_rows(motion, supports, None, axial_force, constraints)
                lam, im, shapes, st = eigen_solve(ctx, motion, n_modes, bool(include_eps), bool(mode_shapes),
                                                  order == "tracked", progress, kg=kg)
                if proj is not None and shapes is not None:
                    shapes = _expand_shapes(proj, shapes, order == "tracked")
        except RuntimeError as exc:  # SuperLU's singular factor, ARPACK's failures (ArpackError)
            raise _core.LinAlgError(
                f"solver='sparse' failed: {exc} (E = {self.E!r}, rho = {self.rho!r}: a stiffness negligible "
                "against the masses leaves the shifted matrices singular; solver='dense' solves small "
                "meshes without shifts)") from None
        finally:
            ctx.kg_matrix = None  # valid while the lock was held; no cycle body -> context -> body
        return lam, im, shapes, st

    def eigenvalues(self, n_modes, omega=0.0, eps=0.0, supports=None, include_eps=True, mode_shapes=True,
                    geometric_stiffness=False, a_O=None, end_forces=None, axial_force=None,
                    constraints=None, *, frames=None, solver="auto") -> EigenResult:
        """Frozen-time eigenvalues of (K + K_om [+ K_eps]) phi = lambda M phi at one instant.

        Parameters
        ----------
        n_modes : int
            Number of lowest modes.
        omega, eps : float or array_like, shape (3,)
            Rates about z, or 3-vectors in body axes (solid meshes); or ``frames``.
        supports : dict or list, optional
            See :meth:`support_mask`; default none (free-free: rigid-body modes at
            lambda = -omega^2 ... 0 come first).
        include_eps, mode_shapes, constraints
            As for :meth:`FlexibleBody.eigenvalues` (constraints: the dense solver's
            orthonormal basis, or the sparse solver's elimination basis, section 3.3).
        solver : {"auto", "dense", "sparse"}
            "dense": the core's dense solver (section 3.5); "sparse": shift-invert
            Lanczos/Arnoldi (ARPACK + SuperLU, section 3.12); "auto": dense up to 300
            free DOFs (and for a body not stored in CSR).

        Returns
        -------
        EigenResult
            ``stats`` also says how instants were solved (``shifted``: planar exact shift;
            ``continued``; ``full_solves``).
        """
        if end_forces is not None:
            self._line_only("end_forces")
        motion = self._motion(omega, eps, a_O, frames, True)
        if axial_force is not None:
            axial_force = np.atleast_2d(_checks.array("axial_force", axial_force, shape=(self._n_kg(),)))
        lam, im, shapes, st = self._solve(motion, n_modes, supports, include_eps, "ascending", mode_shapes,
                                          solver, constraints, geometric_stiffness, None, axial_force)
        st = dict(st)
        bounds = st.pop("error_bounds", None)
        return EigenResult(eigenvalues=lam[0], eigenvalues_imag=im[0],
                           mode_shapes=None if shapes is None else shapes[0], solver=st.pop("solver"),
                           stats=st, error_bounds=None if bounds is None else bounds[0])

    def eigenvalues_vs_time(self, omega=None, eps=None, n_modes=1, supports=None, include_eps=True,
                            order="ascending", mode_shapes=True, geometric_stiffness=False, a_O=None,
                            end_forces=None, axial_force=None, constraints=None, *, frames=None,
                            solver="auto", progress=None) -> EigenResult:
        """Frozen-time eigenvalues over a time grid (docs/theory.md sections 3.7, 3.12).

        Parameters
        ----------
        omega, eps : array_like, shape (nt,) or (nt, 3)
            Rates at each instant (about z, or 3-vectors); or ``frames`` (nt,).
        n_modes, supports, include_eps, mode_shapes, constraints, solver
            As in :meth:`eigenvalues`.
        order : {"ascending", "tracked"}
            Tracked: mode k keeps its identity between instants (by the M-inner product
            of the shapes).
        progress : callable, optional
            ``progress(k)`` after instant k (sparse solver).

        Returns
        -------
        EigenResult
            ``eigenvalues`` (nt, n_modes), ``mode_shapes`` (nt, ndof, n_modes) or None.
        """
        if end_forces is not None:
            self._line_only("end_forces")
        _checks.choice("order", order, ("ascending", "tracked"))
        motion = self._motion(omega, eps, a_O, frames, False)
        lam, im, shapes, st = self._solve(motion, n_modes, supports, include_eps, order, mode_shapes, solver,
                                          constraints, geometric_stiffness, progress, axial_force)
        st = dict(st)
        bounds = st.pop("error_bounds", None)
        return EigenResult(eigenvalues=lam, eigenvalues_imag=im, mode_shapes=shapes, solver=st.pop("solver"),
                           order=order, stats=st, error_bounds=bounds)

    # ------------------------------------------------------------ output

    def displacement_field(self, d) -> np.ndarray:
        """Nodal displacements d (ndof,) as (n_nodes, 3) vectors (z = 0 in the plane)."""
        d = _checks.array("d", d, shape=(self.ndof,))
        out = np.zeros((self.n_nodes, 3))
        out[:, : self.dim] = d.reshape(self.n_nodes, self.dofs_per_node)[:, : self.dim]
        return out

    def stresses(self, d, at="gauss"):
        """Strains, stresses and von Mises stress (docs/theory.md section 2.10).

        eps = B d at every quadrature point of every cell (the condensed internal modes
        of the incompatible-mode quad4 / hex8 recovered per cell and included),
        sigma = D eps, and von Mises; at the nodes each cell's Gauss values are
        extrapolated to its nodes (least squares in the kind's polynomial degree) and
        every node takes the mean over its cells.

        Parameters
        ----------
        d : array_like (ndof,) or (n, ndof), EigenResult or SimulationResult
            Displacements: one state, several, the mode shapes of an eigen result at one
            instant (modal stresses, per unit modal coordinate of the mass-normalized
            modes) or a response in time.
        at : {"gauss", "nodes"}
            The quadrature points (``x``, ``index`` = cell) or the nodes.

        Returns
        -------
        StressResult
            ``names``: ``sigma_xx_Pa, sigma_yy_Pa, sigma_xy_Pa`` (plane; solid: xx, yy,
            zz, yz, xz, xy), ``von_mises_Pa``, the strains ``eps_xx_m_m``, ... (engineering
            shears), and for plane strain ``sigma_zz_Pa``; values (n_sets, n_points,
            names).

        Examples
        --------
        >>> import numpy as np, kanefem
        >>> plate = kanefem.MeshBody(kanefem.Mesh.rectangle(2.0, 1.0, 2, 1), E=1e9, nu=0.25,
        ...                          rho=1000, thickness=0.1)
        >>> d = np.zeros(plate.ndof); d[0::2] = 1e-3 * plate.nodes[:, 0]   # eps_xx = 1e-3
        >>> r = plate.stresses(d)
        >>> np.allclose(r["sigma_xx_Pa"], 1e9 / (1 - 0.25**2) * 1e-3)
        True
        """
        from . import stresses

        return stresses.mesh_stresses(self, d, at)

    def section_forces(self, d, at="ends"):
        raise _not_supported(self, "section_forces", "stresses(d) gives a mesh's strains and stresses")

    def _stress_fields(self, sets, prefix=""):
        """Point and cell data of the stresses of displacement sets (n, ndof): the
        nodal values (point data) and each cell's mean over its Gauss points (cell data),
        ``<prefix><name>`` for every quantity."""
        from . import stresses

        gauss, nodes = stresses.mesh_stresses(self, sets, both=True)
        count = np.bincount(gauss.index, minlength=self.mesh.n_cells).astype(float)
        sizes = np.cumsum([0] + [len(c) for _, c in self.mesh.blocks])
        point, cell = {}, {}
        for k in range(len(sets)):
            p = prefix.format(k + 1) if "{" in prefix else prefix
            for j, name in enumerate(nodes.names):
                point[p + name] = nodes.values[k, :, j]
                mean = np.bincount(gauss.index, weights=gauss.values[k, :, j],
                                   minlength=self.mesh.n_cells) / count
                cell[p + name] = [mean[a:b] for a, b in zip(sizes[:-1], sizes[1:])]
        return point, cell

    def write_vtu(self, path, displacement=None, point_data=None, stresses=True):
        """Write the mesh with a displacement field (ndof,) and other point data to a VTU
        file for ParaView, atomically.  With a displacement and ``stresses`` (default),
        the stresses too: point data at the nodes (recovered, :meth:`stresses`) and
        cell data (each cell's mean over its Gauss points), named as the
        StressResult's quantities (``sigma_xx_Pa``, ``von_mises_Pa``, ``eps_xx_m_m``, ...)."""
        data, cells = dict(point_data or {}), None
        if displacement is not None:
            data["displacement"] = self.displacement_field(displacement)
            if _checks.flag("stresses", stresses):
                point, cells = self._stress_fields(np.asarray(displacement, float)[None])
                data.update(point)
        return self.mesh.write(path, point_data=data, file_format="vtu", cell_data=cells)

    def write_modes(self, path, result, instant=0, stresses=True):
        """Write the mode shapes of an EigenResult (one instant) to a VTU file: point data
        ``mode_k`` (unit mass-normalized displacement vectors) and the eigenvalue and
        frequency of each mode in its name (``mode_1_f=12.34Hz``); with ``stresses``
        (default) each mode's von Mises stress (modal, per unit modal coordinate) as
        point data (recovered at the nodes) and cell data (each cell's Gauss mean),
        ``mode_k_von_mises_Pa``."""
        if _checks.path("path", path).suffix != ".vtu":  # VTU under another name was written
            raise ValueError(f"path must end in .vtu (the file is VTU), got {str(path)!r}")
        shapes = result.mode_shapes
        if shapes is None:
            raise ValueError("the result has no mode shapes (mode_shapes=True)")
        shapes = shapes if shapes.ndim == 3 else shapes[None]
        # an instant the result does not have is refused (it was ignored for one instant)
        instant = _checks.integer("instant", instant, minimum=0, maximum=shapes.shape[0] - 1)
        shapes, lam = shapes[instant], np.atleast_2d(result.eigenvalues)[instant]
        if shapes.shape[0] != self.ndof:
            raise ValueError(f"the mode shapes have {shapes.shape[0]} DOFs, the body {self.ndof}")
        f = np.sign(lam) * np.sqrt(np.abs(lam)) / (2 * np.pi)
        data = {f"mode_{k + 1}_f={f[k]:.6g}Hz": self.displacement_field(shapes[:, k])
                for k in range(shapes.shape[1])}
        cells = None
        if _checks.flag("stresses", stresses):
            point, cells = self._stress_fields(np.ascontiguousarray(shapes.T), prefix="mode_{}_")
            keep = [n for n in point if n.endswith("von_mises_Pa")]
            data.update({n: point[n] for n in keep})
            cells = {n: cells[n] for n in keep}
        return self.mesh.write(path, point_data=data, file_format="vtu", cell_data=cells)

    def write_response(self, path, result, every=1, stresses=True):
        """Write a response in time (a SimulationResult) as a ParaView collection: one VTU
        per written instant in the folder ``<path stem>_vtu`` beside ``path`` (a .pvd file
        listing them with their times); every file atomically, the .pvd last.  With
        ``stresses`` (default) each file has the stresses as :meth:`write_vtu` writes them."""
        from xml.sax.saxutils import quoteattr

        path = Path(path)
        if path.suffix != ".pvd":
            raise ValueError(f"path must end in .pvd, got {str(path)!r}")
        every = _checks.integer("every", every, minimum=1, maximum=_checks.MAX_OUTPUT_VALUES)
        d = np.asarray(result.d)
        if d.ndim != 2 or d.shape[1] != self.ndof:
            raise ValueError(f"result.d must have shape (nt, {self.ndof}), got {d.shape}")
        folder = path.parent / (path.stem + "_vtu")
        entries = []
        for k in range(0, d.shape[0], every):
            name = f"{path.stem}_{k:06d}.vtu"
            data = {"velocity": self.displacement_field(result.v[k])} if getattr(result, "v", None) is not None else {}
            self.write_vtu(inside(folder, name), d[k], data, stresses=stresses)
            entries.append((float(result.t[k]), f"{folder.name}/{name}"))
        lines = ['<?xml version="1.0"?>',
                 '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">', "  <Collection>"]
        lines += [f'    <DataSet timestep="{t!r}" group="" part="0" file={quoteattr(f)}/>' for t, f in entries]
        lines += ["  </Collection>", "</VTKFile>", ""]
        return atomic_write(path, lambda fo: fo.write("\n".join(lines)))
