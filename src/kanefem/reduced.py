"""Reduced flexible bodies: the inertia invariants projected onto a reduction basis once
(docs/theory.md section 3.18).

A :class:`ReducedBody` is made from any kanefem body (PlanarBeam, Beam3D, MeshBody, ...)
or an :class:`ImportedModel` with a Craig-Bampton basis (static constraint modes of the
interface DOFs plus fixed-interface normal modes; an interface of many nodes condensed to
one node first, rigidly (RBE2-like) or as their weighted average (RBE3-like,
distributing)) or a free-interface basis (normal modes plus residual attachment modes).
Its coordinates are the amplitudes q of the basis columns, d = V q, and its invariants are

    S_ij^r = V^T S_ij V,   s_ij^r = V^T s_ij,   Mo_i^r = V^T Mo_i,   K^r = V^T K V,
    R_ij^r = V^T R_ij V,   K_G,c^r = V^T K_G,c V   (the prestress unit load cases),

handed to the C core as a body of given matrices (``kf_body_create_given``): every motion
term, eigen solve and integrator step of the core then runs on it unchanged, at a cost set
by the number of modes, not by the mesh.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from . import _checks, _core, _interrupt, frames
from .bodies import FlexibleBody, NotSupportedError, _not_supported

__all__ = ["ReducedBody", "ImportedModel"]

#: how each DOF name of the full bodies moves under a rigid motion of an interface: a
#: translation along axis k ("t", k) or a rotation about axis k ("r", k)
_DOF_MOTION = {"u": ("t", 0), "v": ("t", 1), "w": ("t", 2), "ux": ("t", 0), "uy": ("t", 1),
               "uz": ("t", 2), "theta": ("r", 2), "theta_x": ("r", 0), "theta_y": ("r", 1),
               "theta_z": ("r", 2), "rx": ("r", 0), "ry": ("r", 1), "rz": ("r", 2)}
#: the DOFs of a condensed (rigid) interface node, planar and spatial
_MASTER_DOFS = {2: ("ux", "uy", "rz"), 3: ("ux", "uy", "uz", "rx", "ry", "rz")}
#: the bases offered
BASES = ("craig-bampton", "free-interface")
#: the most normal modes a reduced body keeps (its matrices are dense: 1000 modes, 8 MB each)
MAX_MODES = 1000


def _scipy():
    import scipy.linalg as la
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    return la, sp, spla


def _to_dense_or_csr(X):
    _, sp, _ = _scipy()
    return sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, float)


def _project(V, X, symmetric=True):
    """V^T X V (dense m x m) for a dense or sparse X; made exactly symmetric for a
    symmetric X (V^T X V loses symmetry to round-off: a static constraint mode's K V
    cancels to the size of its round-off)."""
    P = np.asarray(V.T @ np.asarray(X @ V))
    return 0.5 * (P + P.T) if symmetric else P


class _SymmetricFactor:
    """A factor of a symmetric positive definite matrix (dense Cholesky or SuperLU), refused
    with ``error`` when it is singular: a pivot below 1e-13 of the largest diagonal entry
    (a free rigid-body motion leaves one at round-off)."""

    def __init__(self, A, error):
        la, sp, _ = _scipy()
        self.sparse = sp.issparse(A)
        self.A = A
        if self.sparse:
            from .sparse import Factor

            try:
                self.fac = Factor(sp.csr_matrix(A), symmetric=True)
            except RuntimeError:
                raise error from None
            pivots = np.abs(self.fac.lu.U.diagonal())
        else:
            try:
                self.fac = la.cho_factor(A)
            except la.LinAlgError:
                raise error from None
            pivots = np.diag(self.fac[0]) ** 2
        if pivots.size and pivots.min() < 1e-13 * np.abs(A.diagonal()).max():
            raise error

    def solve(self, B):
        la, _, _ = _scipy()
        B = np.asarray(B, float)
        X = self.fac.solve(B) if self.sparse else la.cho_solve(self.fac, B)
        return np.asarray(X).reshape(B.shape)


def _lowest_modes(K, M, n_modes, cutoff, shift, what):
    """The lowest eigenpairs of K phi = lam M phi (M-normalized): n_modes of them, or all
    below cutoff (rad^2/s^2).  Dense matrices by LAPACK, sparse ones by ARPACK in
    shift-invert mode about ``shift`` (below the lowest eigenvalue)."""
    la, sp, spla = _scipy()
    n = K.shape[0]
    if n_modes == 0:
        return np.zeros(0), np.zeros((n, 0))
    if not sp.issparse(K):
        if cutoff is None:
            lam, phi = la.eigh(K, M, subset_by_index=[0, n_modes - 1])
        else:
            lam, phi = la.eigh(K, M, subset_by_value=[-np.inf, cutoff])
        return lam, phi
    A = sp.csr_matrix(K - shift * M) if shift else sp.csr_matrix(K)
    fac = _SymmetricFactor(A, ValueError(f"{what}: K - sigma M is singular"))
    op = spla.LinearOperator((n, n), matvec=fac.solve, dtype=float)
    k = n_modes if cutoff is None else min(12, n - 2)
    while True:
        if k >= n - 1:
            if n > MAX_MODES:
                raise ValueError(f"cutoff_hz: more than {k} modes lie below the cut-off ({what}); give n_modes "
                                 f"or a lower cutoff_hz")
            lam, phi = la.eigh(K.toarray(), M.toarray())
        else:
            lam, phi = spla.eigsh(K, k=k, M=M, sigma=shift, OPinv=op, which="LM")
        order = np.argsort(lam)
        lam, phi = lam[order], phi[:, order]
        if cutoff is None or lam[-1] > cutoff or k >= n - 1:
            break
        if k >= MAX_MODES:
            raise ValueError(f"cutoff_hz: more than {MAX_MODES} modes lie below the cut-off ({what}); give "
                             "n_modes or a lower cutoff_hz")
        k = min(2 * k, n - 1)
    if cutoff is not None:
        keep = lam <= cutoff
        lam, phi = lam[keep], phi[:, keep]
        if lam.size > MAX_MODES:
            raise ValueError(f"cutoff_hz: {lam.size} modes lie below the cut-off ({what}), more than {MAX_MODES}; "
                             "give n_modes or a lower cutoff_hz")
    else:
        lam, phi = lam[:n_modes], phi[:, :n_modes]
    # M-normalize (ARPACK's vectors are M-orthonormal to its tolerance)
    phi = phi / np.sqrt(np.einsum("ij,ij->j", phi, np.asarray(M @ phi)))
    return lam, phi


def geometric_cases(full, fixed, fields=None):
    """K_G,c of a full body for the unit load cases a_i, (E + W W)_ij (docs/theory.md
    section 2.11) with the prestress of the supports ``fixed`` (a mask), or of the static
    solutions ``fields`` = (U (ncase, ndof), end axes) the caller made: a list of dim +
    dim^2 matrices in the body's storage (a straight line body's N(x) loads only by a_x
    and (W W)_xx, its other cases zero).  Raises ValueError where the supports leave the
    body free (a prestress needs supports that hold it)."""
    d = full.dim
    cases = []
    if full._straight_kg():  # N(x) of a straight line body: only a_x and (W W)_xx load it
        last_u = (full.n_nodes - 1) * full.dofs_per_node
        zero = full.geometric_stiffness(np.zeros(3)) * 0.0
        def straight(omega, a):
            motion = frames.from_rates(omega, 0.0 if np.ndim(omega) == 0 else np.zeros(3), a, dim=d)
            c = _core.axial_force(body=full._body, frames=motion, f_first=0.0, f_last=0.0,
                                  fixed_first=bool(fixed[0]), fixed_last=bool(fixed[last_u]))[0]
            return full._matrix(_core.geometric_matrix(body=full._body, coefficients=c))
        for i in range(d):
            cases.append(straight(0.0, np.eye(d)[0]) if i == 0 else zero)
        spin = 1.0 if d == 2 else np.array([0.0, 0.0, 1.0])
        for k in range(d * d):  # (W W)_xx = -1 for a unit spin about z
            cases.append(-straight(spin, None) if k == 0 else zero)
        return cases
    with full._kg_lock():
        if fields is not None:  # the caller's static solutions
            _core.body_set_prestress(body=full._body, fields=fields[0], axes=fields[1])
            full._prestress_key = None  # the body's own supports' basis is made again when asked
        elif getattr(full, "_prestress_key", None) != fixed.tobytes():
            U, axes = full._prestress_fields(fixed)
            _core.body_set_prestress(body=full._body, fields=U, axes=axes)
            full._prestress_key = fixed.tobytes()
        n = full._n_prestress_cases()
        for c in range(d + d * d):
            e = np.zeros(n)
            e[c] = 1.0
            cases.append(full._matrix(_core.geometric_matrix(body=full._body, coefficients=e)))
    return cases


#: the kinds of an interface item of several nodes: condensed to a rigid node (RBE2,
#: a kinematic coupling) or to a node moving as their weighted average (RBE3, a
#: distributing coupling)
INTERFACE_KINDS = ("rigid", "distributing")
#: how a distributing item weights its nodes by name (or an array of weights)
WEIGHTINGS = ("tributary", "equal")


class _Interface:
    """The interface of a reduced body as ReducedBody._interface_map builds it."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def _interface_item(k, entry):
    """(selector, kind, weights) of interface item k: a node index or a selector of several
    nodes (kind "rigid"), or a dict {"nodes": selector, "kind": ..., "weights": ...}."""
    if not isinstance(entry, Mapping):
        return entry, "rigid", None
    extra = sorted(map(str, set(entry) - {"nodes", "kind", "weights"}))
    if extra:
        raise ValueError(f"interface[{k}]: unknown key(s) {', '.join(map(repr, extra))} (an item takes 'nodes', "
                         "'kind' and 'weights')")
    if "nodes" not in entry:
        raise ValueError(f"interface[{k}] = {_checks._short(entry)} names no 'nodes'")
    kind = entry.get("kind", "rigid")
    if not isinstance(kind, str):
        raise TypeError(f"interface[{k}]: kind must be 'rigid' (RBE2, kinematic coupling) or 'distributing' "
                        f"(RBE3, distributing coupling), got {_checks._short(kind)}")
    if kind not in INTERFACE_KINDS:
        raise ValueError(f"interface[{k}]: kind = {kind!r} is not 'rigid' (RBE2, kinematic coupling) or "
                         "'distributing' (RBE3, distributing coupling)")
    return entry["nodes"], kind, entry.get("weights")


def _distributing_rows(k, x, w):
    """The centre c = sum w x / sum w of a distributing item's nodes (positions x (m, dim),
    weights w) and G, its master's motion as the weighted average of theirs: U = sum w u
    / sum w, Theta = J^-1 sum w r x u with r = x - c and J = sum w (|r|^2 I - r r^T) (the
    scalar sum w |r|^2 in the plane).  G has a row per master DOF (translations, then
    rotations) and a column per node translation, node-major (docs/theory.md section
    3.18)."""
    m, dim = x.shape
    W = float(np.sum(w))
    if not (np.all(np.isfinite(w)) and abs(W) > 1e-12 * float(np.abs(w).sum())):
        raise ValueError(f"interface[{k}]: the weights of a distributing interface must be finite with a "
                         f"non-zero sum, got sum {W!r}")
    c = w @ x / W
    r = x - c
    nrot = 1 if dim == 2 else 3
    G = np.zeros((dim + nrot, m * dim))
    for i in range(dim):
        G[i, i::dim] = w / W
    scale = float(np.abs(w) @ np.einsum("ij,ij->i", r, r))
    if dim == 2:
        J = np.array([[float(w @ np.einsum("ij,ij->i", r, r))]])
        cross = np.stack([-r[:, 1], r[:, 0]], axis=1)[None]  # (r x u)_z = -r_y u_x + r_x u_y
    else:
        J = (w * np.einsum("ij,ij->i", r, r)).sum() * np.eye(3) - np.einsum("a,ai,aj->ij", w, r, r)
        zero = np.zeros(m)  # (r x u)_i = [r]x u
        cross = np.array([[zero, -r[:, 2], r[:, 1]], [r[:, 2], zero, -r[:, 0]], [-r[:, 1], r[:, 0], zero]])
        cross = np.moveaxis(cross, 2, 1)  # (3, m, 3)
    lam = np.linalg.eigvalsh(J)
    if not (scale > 0 and lam.min() > 1e-10 * scale):
        what = "coincide" if dim == 2 else "lie on one line"
        raise ValueError(f"interface[{k}]: the nodes of a distributing interface {what} (or their weights cancel), "
                         "so their motion defines no rotation of its node: give nodes that span "
                         + ("a line" if dim == 2 else "a plane") + ", or kind='rigid'")
    Jinv = np.linalg.inv(J)
    G[dim:] = np.einsum("ij,jak->iak", Jinv, cross.reshape(nrot, m, dim) * w[None, :, None]).reshape(nrot, m * dim)
    return c, G


class ReducedBody(FlexibleBody):
    """A flexible body in reduced coordinates: the inertia invariants, K and the prestress
    K_G of a full kanefem body projected once onto a reduction basis (docs/theory.md
    section 3.18).

    Parameters
    ----------
    body : FlexibleBody or ImportedModel
        The full body (PlanarBeam, Beam3D, Bar3D, AxialBar, MeshBody, any FlexibleBody), or
        an FE model's imported matrices; it is kept (``full``) for expansion, stresses and
        output.
    interface : list, optional
        The interface: each item a node index (its DOFs stay physical coordinates of the
        reduced body) or several nodes (an array of indices, or for a mesh a node-set name
        or predicate) condensed to one interface node with DOFs ``ux, uy, rz`` in the
        plane, ``ux, uy, uz, rx, ry, rz`` in space.  By default the condensation is
        *rigid* (RBE2, a kinematic coupling): the node sits at the nodes' centroid and they
        follow its translations and rotations, which stiffens the face they form.  As a
        dict ``{"nodes": selector, "kind": "distributing", "weights": ...}`` it is
        *distributing* (RBE3, a distributing coupling): the node sits at the nodes' weighted
        centroid and moves as the weighted average of their translations (its rotation the
        weighted least-squares rotation about it), so it transmits a force and moment to
        them by their weights without stiffening the face (docs/theory.md section 3.18).
        ``weights``: ``"tributary"`` (each node's share of the area of the mesh's boundary
        facets the item's nodes span, a plane mesh's edges times its thickness: the
        consistent nodal forces of a uniform traction), ``"equal"``, or an array (one per
        node: in the order of the item's node indices, or of the nodes a set name or
        predicate selects, ascending); default tributary where those facets
        cover every node of the item, else equal (``kept`` says which).  ``{"nodes": ...,
        "kind": "rigid"}`` is the default condensation.  Required for Craig-Bampton.
    basis : {"craig-bampton", "free-interface"}
        Craig-Bampton: the static constraint modes of the interface DOFs plus the
        fixed-interface normal modes; coordinates (interface DOFs, modal amplitudes).
        Free-interface: the normal modes of the body held by ``supports`` plus one residual
        attachment mode per interface DOF; coordinates the modal amplitudes of the
        reduced problem (mass-normalized, ascending).
    n_modes : int or "all", optional
        The number of normal modes kept; ``"all"`` (Craig-Bampton): every fixed-interface
        mode, an exact change of coordinates (at most MAX_MODES; a small body's exact
        model, e.g. a mesh link of a mechanism).
    cutoff_hz : float, optional
        Instead of n_modes: keep every normal mode below this frequency [Hz].
    supports : optional
        Free-interface only: the full body's supports of the normal modes (default none).
    geometric_stiffness : bool, optional
        Project the prestress K_G of the unit load cases (docs/theory.md section 2.11) so
        that ``geometric_stiffness=True`` works on the reduced body.  Default: on for a
        kanefem body whose prestress supports hold it (``kept["geometric_stiffness"]`` says
        whether it was made), off for an :class:`ImportedModel` (not supported there).
    prestress_supports : optional
        The full body's supports of that prestress; default: the interface held (every
        interface DOF fixed: a node or rigid item's nodes held, a distributing item's
        weighted average motion) for Craig-Bampton, ``supports`` for free-interface.
        ``"free"`` (Craig-Bampton): the prestress of the free body, the K_G basis of a
        mechanism link (docs/theory.md section 3.18): the inertial cases with inertia
        relief (each load less the rigid-body inertia it would accelerate the free body
        with) and one unit load case per interface DOF, whose coefficients are the loads
        on those DOFs (a link's joint forces; zero in the body's own eigen methods,
        ``axial_force`` rows may give them).

    Attributes
    ----------
    full : FlexibleBody
        The full body.
    basis_matrix : ndarray, shape (full.ndof, ndof)
        V, with d_full = V q.
    kept : dict
        What was kept: ``basis``, ``n_boundary`` (interface DOFs), ``n_modes``,
        ``frequencies_hz`` of the kept normal modes, ``cutoff_hz``, ``attachment`` (the
        residual attachment modes of a free-interface basis), ``interface`` (the items'
        nodes), ``interface_kinds`` (per item ``"node"``, ``"rigid"`` or
        ``"distributing"``), ``interface_weights`` and ``interface_weighting`` (a
        distributing item's node weights and ``"tributary"``, ``"equal"`` or ``"given"``;
        None for the others), ``geometric_stiffness`` (whether the K_G basis was
        projected), ``prestress`` (``"free"``, ``"supports"`` or None: how).

    Notes
    -----
    Supports of a Craig-Bampton body name interface items: ``"clamped"`` (every interface
    DOF, the default), ``"free"`` (or None), or ``{item: kind}`` with kind ``"clamped"``/
    ``"fixed"``, ``"pinned"`` (the translations) or a tuple of its DOF names.  A
    free-interface body has no physical coordinates: it takes no supports (constraints
    through :meth:`interface_rows` and ``constraints=``).

    Examples
    --------
    >>> import kanefem
    >>> beam = kanefem.PlanarBeam(1.0, 40, E=2.1e11, A=1e-4, I=1e-8, rho=7800)
    >>> red = kanefem.ReducedBody(beam, interface=[0], n_modes=6)
    >>> red.ndof                                   # 3 root DOFs + 6 modes
    9
    >>> f = red.eigenvalues(2, supports="clamped").frequencies_hz
    >>> g = beam.eigenvalues(2, supports="clamped-free").frequencies_hz
    >>> bool(abs(f[0] / g[0] - 1) < 1e-9)
    True
    """

    _kind = "reduced"

    def __init__(self, body, interface=None, *, basis="craig-bampton", n_modes=None, cutoff_hz=None,
                 supports=None, geometric_stiffness=None, prestress_supports=None):
        if not isinstance(body, (FlexibleBody, ImportedModel)) or isinstance(body, ReducedBody):
            raise TypeError(f"body must be a full kanefem body (PlanarBeam, Beam3D, MeshBody, ...) or an "
                            f"ImportedModel, got {body!r}")
        self.full = body
        self.basis = _checks.choice("basis", basis, BASES)
        if (n_modes is None) == (cutoff_hz is None):
            raise TypeError("give the normal modes kept as n_modes or as cutoff_hz (one of them)")
        every = isinstance(n_modes, str) and n_modes == "all"
        if every and self.basis != "craig-bampton":
            raise ValueError("n_modes = 'all' keeps every fixed-interface mode of a Craig-Bampton basis")
        if n_modes is not None and not every:
            n_modes = _checks.integer("n_modes", n_modes, minimum=0, maximum=min(body.ndof, MAX_MODES))
        cutoff = None
        if cutoff_hz is not None:
            with np.errstate(over="ignore"):  # a cut-off beyond every mode: inf
                cutoff = float((2 * np.pi * np.float64(_checks.real("cutoff_hz", cutoff_hz, positive=True))) ** 2)
        explicit = geometric_stiffness is not None
        imported = isinstance(body, ImportedModel)
        if not explicit:  # when the full body has elements to stress (or given cases) and supports that hold it
            geometric_stiffness = not imported or body.geometric is not None
        geometric = _checks.flag("geometric_stiffness", geometric_stiffness)
        if geometric and imported and body.geometric is None:
            raise _not_supported(body, "geometric_stiffness", "imported matrices carry no elements to take a "
                                 "prestress from: give the ImportedModel the K_G of its unit load cases "
                                 "(geometric=...), or geometric_stiffness=False")
        if geometric and imported and prestress_supports is not None:
            raise _not_supported(body, f"prestress_supports={_checks._short(prestress_supports)}",
                                 "an imported model's K_G cases are the ones given (made with the supports of "
                                 "their static solutions); a link's free prestress needs the stresses of the "
                                 "interface load cases, which imported matrices cannot give: "
                                 "geometric_stiffness=False")
        if self.basis == "craig-bampton" and supports is not None:
            raise TypeError(f"supports = {_checks._short(supports)}: the supports of the normal modes are for a "
                            "free-interface basis; a Craig-Bampton basis holds the interface (prestress_supports "
                            "sets its K_G's)")
        free_prestress = isinstance(prestress_supports, str) and prestress_supports == "free"
        if free_prestress and self.basis != "craig-bampton":
            raise ValueError("prestress_supports='free' (the free body's prestress with interface load cases) "
                             "needs a Craig-Bampton basis: its interface DOFs take the loads")
        face = self._interface_map(interface)
        T, nb, items, names = face.T, face.nb, face.items, face.names
        held = None  # the factor of K on the coordinates the held interface leaves free
        if self.basis == "craig-bampton":
            if nb == 0:
                raise ValueError("interface: a Craig-Bampton basis needs interface nodes (where joints attach)")
            V, lam, held = self._craig_bampton(T, nb, n_modes, cutoff, interface)
            names = tuple(names) + tuple(f"q{k + 1}" for k in range(V.shape[1] - nb))
            ps = None if prestress_supports is None or free_prestress else body.support_mask(prestress_supports)
            self._supported = True
        else:
            self._free_supports = body.support_mask(supports)
            V, lam = self._free_interface(face.D, nb, n_modes, cutoff)
            names = tuple(f"q{k + 1}" for k in range(V.shape[1]))
            ps = self._free_supports if prestress_supports is None else body.support_mask(prestress_supports)
            self._supported = False
        self.basis_matrix = V
        self.basis_matrix.setflags(write=False)
        self.n_boundary = nb if self.basis == "craig-bampton" else 0
        self.interface = items
        self.interface_positions = face.positions
        self._interface_names = names[: self.n_boundary]
        self.kept = {"basis": self.basis, "n_boundary": self.n_boundary, "n_modes": int(lam.size),
                     "frequencies_hz": np.sqrt(np.maximum(lam, 0.0)) / (2 * math.pi),
                     "cutoff_hz": None if cutoff_hz is None else float(cutoff_hz),
                     "attachment": V.shape[1] - lam.size if self.basis == "free-interface" else 0,
                     "interface": [list(map(int, np.atleast_1d(i))) for i in items],
                     "interface_kinds": list(face.kinds), "interface_weights": list(face.weights),
                     "interface_weighting": list(face.weighting)}
        KG = None
        self._n_load = 0
        if geometric and free_prestress:
            KG = self._free_geometric_cases(face.D)
            self._n_load = nb
        elif geometric and imported:
            KG = body.geometric
        elif geometric:
            try:
                KG = self._geometric_cases(ps, T, nb, held)
            except ValueError:  # the prestress supports leave the body free
                if explicit:
                    raise
        del held
        self.kept["geometric_stiffness"] = KG is not None
        self.kept["prestress"] = None if KG is None else "free" if free_prestress else "supports"
        self._set_core(self._projected(V, KG), names)

    # ------------------------------------------------------------ the basis

    def _interface_map(self, interface):
        """The interface as a change of coordinates (an :class:`_Interface`): T (full ndof x
        (nb + n_rest)), sparse, with full DOFs = T [boundary DOFs; the other DOFs], the
        interface's boundary DOFs first; D (full ndof x nb), the full body's forces of a
        unit generalized force on each boundary DOF (T^T D = [I; 0]); the items, their
        kinds and weights, the boundary DOF names and the items' positions."""
        _, sp, _ = _scipy()
        body, n, nf = self.full, self.full.ndof, self.full.dofs_per_node
        if interface is None:
            interface = []
        if isinstance(interface, (str, int, np.integer, Mapping)) or callable(interface):
            interface = [interface]
        if not isinstance(interface, (list, tuple, np.ndarray)):
            raise TypeError(f"interface must be a list of items (a node index, several nodes, a node-set name, a "
                            f"predicate or a dict {{'nodes': ..., 'kind': ...}}), got {_checks._short(interface)}")
        rows, cols, vals, names, positions = [], [], [], [], []
        loads = []  # (full DOFs, boundary columns, values) of D
        out = _Interface(items=[], kinds=[], weights=[], weighting=[])
        used = np.zeros(body.n_nodes, dtype=bool)
        eliminated = np.zeros(n, dtype=bool)
        distributing = []  # (dependent DOFs, other DOFs, their coefficients, first boundary column)
        nb = 0
        for k, entry in enumerate(interface):
            item, kind, weights = _interface_item(k, entry)
            nodes = self._item_nodes(k, item)
            if used[nodes].any():
                raise ValueError(f"interface[{k}] = {_checks._short(item)} shares nodes with an earlier interface "
                                 "item")
            used[nodes] = True
            out.items.append(nodes)
            if nodes.size == 1 and kind == "distributing":
                raise ValueError(f"interface[{k}] = {_checks._short(item)}: a distributing interface averages the "
                                 "motion of several nodes; this item selects one (give it without kind: the "
                                 "node's own DOFs)")
            if weights is not None and kind != "distributing":
                raise ValueError(f"interface[{k}]: weights are for kind='distributing', not {kind!r}")
            dofs = (nodes[:, None] * nf + np.arange(nf)).ravel()
            if nodes.size == 1:  # the node's own DOFs
                for j in range(nf):
                    rows.append(dofs[j]), cols.append(nb + j), vals.append(1.0)
                loads.append((dofs, nb + np.arange(nf), np.ones(nf)))
                eliminated[dofs] = True
                names += [f"i{k}_{d}" for d in body.dof_names]
                positions.append(body.nodes[nodes[0]])
                out.kinds.append("node"), out.weights.append(None), out.weighting.append(None)
                nb += nf
                continue
            dim = body.dim
            master = _MASTER_DOFS[dim]
            if kind == "rigid":  # the nodes follow a master at their centroid (RBE2)
                centre = body.nodes[nodes].mean(axis=0)
                Ti = np.zeros((dofs.size, len(master)))
                for a, node in enumerate(nodes):
                    r = body.nodes[node] - centre
                    for j, dname in enumerate(body.dof_names):
                        if dname not in _DOF_MOTION:
                            raise NotSupportedError(f"interface[{k}]: a rigid interface of {type(body).__name__} "
                                                    f"DOF {dname!r} is not implemented")
                        what, axis = _DOF_MOTION[dname]
                        for c, expr in self._rigid_row(dim, what, axis, r):
                            rows.append(node * nf + j), cols.append(nb + c), vals.append(expr)
                            Ti[a * nf + j, c] = expr
                # a unit load on a master DOF: forces on the slaves with T_i^T f = e_k
                loads.append((np.repeat(dofs, len(master)), np.tile(nb + np.arange(len(master)), dofs.size),
                              (Ti @ np.linalg.inv(Ti.T @ Ti)).ravel()))
                eliminated[dofs] = True
                out.weights.append(None), out.weighting.append(None)
            else:  # the master is the weighted average of the nodes' motion (RBE3)
                w, how = self._item_weights(k, nodes, self._in_given_order(item, nodes, weights))
                centre, G = _distributing_rows(k, body.nodes[nodes], w)
                tdofs = self._translation_dofs(k, nodes)
                # the master's DOFs replace len(master) of the nodes' translations (those QR
                # with pivoting picks, G_d regular): u_d = G_d^-1 (u_R - G_o u_o)
                la = _scipy()[0]
                piv = la.qr(G, mode="r", pivoting=True)[1]
                dep, oth = piv[: len(master)], piv[len(master):]
                A = np.linalg.inv(G[:, dep])
                distributing.append((tdofs[dep], tdofs[oth], A, -A @ G[:, oth], nb))
                loads.append((np.repeat(tdofs, len(master)), np.tile(nb + np.arange(len(master)), tdofs.size),
                              G.T.ravel()))
                eliminated[tdofs[dep]] = True
                out.weights.append(w), out.weighting.append(how)
            positions.append(centre)
            out.kinds.append(kind)
            names += [f"i{k}_{d}" for d in master]
            nb += len(master)
        rest = np.flatnonzero(~eliminated)
        column = np.full(n, -1)
        column[rest] = nb + np.arange(rest.size)
        rows += list(rest)
        cols += list(column[rest])
        vals += [1.0] * rest.size
        for dep, oth, A, B, first in distributing:
            m = len(dep)
            rows += list(np.repeat(dep, m)) + list(np.repeat(dep, len(oth)))
            cols += list(np.tile(first + np.arange(m), m)) + list(np.tile(column[oth], m))
            vals += list(A.ravel()) + list(B.ravel())
        T = sp.csr_matrix((vals, (rows, cols)), shape=(n, nb + rest.size))
        T.eliminate_zeros()
        if loads:
            r, c, v = (np.concatenate(x) for x in zip(*loads))
        else:
            r = c = np.zeros(0, np.int64)
            v = np.zeros(0)
        D = sp.csr_matrix((v, (r, c)), shape=(n, nb))
        out.T, out.D, out.nb, out.names = T, D, nb, names
        out.positions = np.array(positions).reshape(-1, body.dim)
        return out

    def _item_nodes(self, k, item):
        """The nodes of interface item k: a node index, or several (indices, a node-set
        name or a predicate of a mesh)."""
        body = self.full
        if isinstance(item, (int, np.integer)):
            return np.array([body._node_index(item, f"interface[{k}]")])
        if hasattr(body, "node_set"):
            try:
                nodes = body.node_set(item)
            except (TypeError, ValueError) as exc:  # the mesh's message speaks of supports
                raise type(exc)(f"interface[{k}] = {_checks._short(item)}: "
                                f"{str(exc).removeprefix('supports: ')}") from None
        else:
            if isinstance(item, (str, bytes, Mapping)) or callable(item):
                raise TypeError(f"interface[{k}] = {_checks._short(item)}: a {type(body).__name__} has no node "
                                "sets: give node indices")
            nodes = np.unique([body._node_index(v, f"interface[{k}]") for v in np.atleast_1d(item)])
        if nodes.size == 0:
            raise ValueError(f"interface[{k}] = {_checks._short(item)} selects no node")
        return np.asarray(nodes, dtype=np.int64)

    def _in_given_order(self, item, nodes, weights):
        """Weights given beside node indices follow the indices' order: as the sorted
        nodes' (the order of ``nodes``)."""
        if weights is None or isinstance(weights, str) or isinstance(item, (str, bytes, Mapping)) or callable(item):
            return weights
        given = np.atleast_1d(np.asarray(item))
        w = np.asarray(weights) if isinstance(weights, (list, tuple, np.ndarray)) else None
        if given.dtype.kind not in "iu" or given.ndim != 1 or w is None or w.shape != (given.size,) \
                or given.size != nodes.size:
            return weights  # (refused by _item_weights, naming the shape)
        return w[np.argsort(given % self.full.n_nodes, kind="stable")]

    def _translation_dofs(self, k, nodes):
        """The full DOFs of the nodes' translations, (node, axis) node-major."""
        body = self.full
        local = []
        for axis in range(body.dim):
            hit = [j for j, nm in enumerate(body.dof_names) if _DOF_MOTION.get(nm) == ("t", axis)]
            if not hit:
                raise NotSupportedError(f"interface[{k}]: a distributing interface averages the nodes' "
                                        f"translations; {type(body).__name__} has none along axis {axis}")
            local.append(hit[0])
        return (nodes[:, None] * body.dofs_per_node + np.array(local)).ravel()

    def _item_weights(self, k, nodes, weights):
        """A distributing item's node weights and how they were chosen: ``"tributary"``
        (the consistent nodal areas of the mesh's boundary facets the nodes span: lengths
        times the thickness of a plane MeshBody), ``"equal"``, or ``"given"`` (an array);
        default tributary where the mesh's facets cover every node of the item, else equal."""
        body = self.full
        mesh = getattr(body, "mesh", None)
        from .meshes import Mesh

        if weights is None or isinstance(weights, str):
            how = _checks.choice(f"interface[{k}]: weights", weights, WEIGHTINGS) if weights is not None else None
            if how in (None, "tributary") and isinstance(mesh, Mesh):
                w, covered = mesh._tributary(nodes)
                if covered.all():
                    return w * (getattr(body, "thickness", None) or 1.0), "tributary"
                if how == "tributary":
                    bad = int(nodes[~covered][0])
                    raise ValueError(f"interface[{k}]: weights='tributary': node {bad} lies on no boundary facet "
                                     "of the mesh whose nodes are all in the item (give weights='equal' or an "
                                     "array)")
            elif how == "tributary":
                raise ValueError(f"interface[{k}]: weights='tributary' needs a mesh of plane or solid cells; "
                                 f"a {type(body).__name__} has none (give weights='equal' or an array)")
            return np.ones(nodes.size), "equal"
        w = _checks.array(f"interface[{k}]: weights", weights, shape=(nodes.size,))
        return w, "given"

    @staticmethod
    def _rigid_row(dim, what, axis, r):
        """(master column, coefficient) pairs of one slave DOF: a translation along axis
        takes U_axis + (Theta x r)_axis, a rotation Theta_axis."""
        if dim == 2:  # master (ux, uy, rz): Theta x r = rz (-r_y, r_x)
            if what == "r":
                return [(2, 1.0)]
            return [(axis, 1.0), (2, -r[1] if axis == 0 else r[0])]
        if what == "r":
            return [(3 + axis, 1.0)]
        # (Theta x r)_a = Theta_b r_c - Theta_c r_b, (a, b, c) cyclic
        b, c = (axis + 1) % 3, (axis + 2) % 3
        return [(axis, 1.0), (3 + b, r[c]), (3 + c, -r[b])]

    def _craig_bampton(self, T, nb, n_modes, cutoff, interface):
        """V = T [[I, 0], [Psi, Phi]]: Psi = -K_ii^-1 K_ib the static constraint modes,
        Phi the fixed-interface normal modes; and the factor of K_ii."""
        _, sp, _ = _scipy()
        K = self.full.stiffness_matrix()
        M = self.full.mass_matrix()
        Kt, Mt = T.T @ K @ T, T.T @ M @ T
        if not sp.issparse(K):
            Kt, Mt = np.asarray(Kt), np.asarray(Mt)
        ni = Kt.shape[0] - nb
        if ni < 1:
            raise ValueError(f"interface: the interface holds all {self.full.ndof} DOFs, no interior is left")
        if isinstance(n_modes, str):  # "all": every fixed-interface mode
            if ni > MAX_MODES:
                raise ValueError(f"n_modes = 'all': the interior has {ni} DOFs, more than MAX_MODES = {MAX_MODES} "
                                 "modes; give n_modes (a reduction)")
            n_modes = ni
        if n_modes is not None and n_modes > ni:
            raise ValueError(f"n_modes = {n_modes}: the interior has {ni} DOFs, so at most {ni} "
                             "fixed-interface modes (all of them: an exact change of coordinates)")
        Kii, Kib, Mii = Kt[nb:, nb:], Kt[nb:, :nb], Mt[nb:, nb:]
        fac = _SymmetricFactor(Kii, ValueError(
            f"interface = {_checks._short(interface)}: "
            f"held at the interface the body still has a free rigid-body motion (K_ii of the {ni} interior "
            "DOFs is singular): add interface nodes, or condense several to a rigid interface"))
        Kib_d = Kib.toarray() if sp.issparse(Kib) else Kib
        Psi = -fac.solve(Kib_d)
        if n_modes == 0 and cutoff is None:
            lam, Phi = np.zeros(0), np.zeros((ni, 0))
        else:
            lam, Phi = _lowest_modes(Kii, Mii, n_modes, cutoff, 0.0, "the fixed-interface modes")
        B = np.zeros((nb + ni, nb + lam.size))
        B[:nb, :nb] = np.eye(nb)
        B[nb:, :nb] = Psi
        B[nb:, nb:] = Phi
        return np.asarray(T @ B), lam, fac

    def _free_interface(self, D, nb, n_modes, cutoff):
        """V = [Phi, Psi] M-orthonormalized: Phi the normal modes of the body on its
        supports, Psi the residual attachment modes of the interface DOFs, G_res f with the
        shifted residual flexibility G_res = (K - s M)^-1 - sum phi phi^T / (lam - s) and f
        the loads of a unit force on each interface DOF (the columns of D)."""
        _, sp, _ = _scipy()
        full = self.full
        K, M = full.stiffness_matrix(), full.mass_matrix()
        free = ~self._free_supports
        nfree = int(free.sum())
        if n_modes is not None and n_modes + nb > nfree:
            raise ValueError(f"n_modes = {n_modes}: with {nb} attachment modes the body's {nfree} free DOFs "
                             f"allow at most {nfree - nb} normal modes")
        if sp.issparse(K):
            K, M = sp.csr_matrix(K), sp.csr_matrix(M)
            Kf, Mf = K[free][:, free], M[free][:, free]
        else:
            Kf, Mf = K[np.ix_(free, free)], M[np.ix_(free, free)]
        # a shift below zero: rigid-body modes (lam = 0) are welcome
        shift = -1e-6 * float(np.mean(np.asarray(Kf.diagonal()) / np.asarray(Mf.diagonal())))
        lam, Phi = _lowest_modes(Kf, Mf, n_modes, cutoff, shift, "the free-interface modes")
        F = np.asarray(D.toarray())[free]  # the loads of the interface DOFs
        if np.abs(F).sum() and nb:
            fac = _SymmetricFactor(Kf - shift * Mf, ValueError("K - sigma M is singular"))
            Psi = fac.solve(F) - Phi @ ((Phi.T @ F) / (lam - shift)[:, None])
            W = np.hstack([Phi, Psi])
        else:
            W = Phi
        # an M-orthonormal basis of the columns' span (an attachment mode of a supported
        # interface DOF is zero: dropped), then the reduced eigenproblem makes it modal
        la = _scipy()[0]
        norms = np.sqrt(np.einsum("ij,ij->j", W, np.asarray(Mf @ W)))
        W = W[:, norms > 0] / norms[norms > 0]
        if W.shape[1] == 0:
            raise ValueError(f"n_modes = {lam.size} and an interface with no free DOF: the basis is empty")
        mu, U = la.eigh(_project(W, Mf))
        keep = mu > 1e-12 * mu.max()
        W = W @ (U[:, keep] / np.sqrt(mu[keep]))
        _, X = la.eigh(_project(W, Kf))
        V = np.zeros((full.ndof, W.shape[1]))
        V[free] = W @ X
        return V, lam

    # ------------------------------------------------------------ invariants

    def _geometric_cases(self, fixed, T, nb, held):
        """K_G,c of the full body for the unit load cases a_i, (E + W W)_ij (section 2.11)
        with the prestress of the supports ``fixed`` (a mask), or (None) of the interface
        held: u_c = T_r K_rr^-1 T_r^T f_c with T_r the coordinates the held interface leaves
        free (K_rr is the Craig-Bampton K_ii, factored once: ``held``), so a node or rigid
        item holds its nodes and a distributing one only its weighted average motion
        (docs/theory.md section 3.18).  A straight line body's N(x) takes the fixity of its
        end nodes."""
        full = self.full
        if fixed is not None:
            return geometric_cases(full, fixed)
        if full._straight_kg():
            return geometric_cases(full, np.asarray(abs(T[:, :nb]).sum(axis=1)).ravel() > 0)
        F, axes = full._prestress_loads()
        Tr = T[:, nb:]
        X = np.asarray(held.solve(np.asarray(Tr.T @ F.T))).reshape(Tr.shape[1], -1)
        return geometric_cases(full, None, fields=(np.asarray(Tr @ X).T, axes))

    def _free_geometric_cases(self, D):
        """K_G,c of the full body's free prestress (docs/theory.md section 3.18): the
        inertial cases a_i, (E + W W)_ij and a unit load on each interface DOF (the columns
        of T's boundary part), each with inertia relief: K u + B lam = f, B^T u = 0, B = M R
        the rigid-body inertia loads (Mo_i and h_k, from the invariants), so u is the
        static response of the free body to f less the rigid-body inertia of its
        resultant (exact for an equilibrated load, whatever the supports)."""
        la, sp, spla = _scipy()
        full, d = self.full, self.full.dim
        n = full.ndof
        inv = full.inertia_invariants()
        Mo, sv = np.asarray(inv["Mo"], float), np.asarray(inv["s"], float)
        B = [Mo[i] for i in range(d)]
        for k in ((2,) if d == 2 else (0, 1, 2)):  # h_k = int rho N^T (e_k x x)
            p, q = (k + 1) % 3, (k + 2) % 3
            B.append(sv[q, p] - sv[p, q])
        B = np.array(B).T
        norms = np.linalg.norm(B, axis=0)
        if norms.min() <= 1e-10 * norms.max():  # a rigid motion without inertia cannot relieve a load
            motion = ["translation along x", "translation along y", "translation along z", "rotation about x",
                      "rotation about y", "rotation about z"]
            k = int(np.argmin(norms))
            name = motion[k] if d == 3 else motion[k if k < 2 else 5]
            raise ValueError(f"prestress_supports='free': the {name} of the free {type(full).__name__} carries no "
                             "inertia (a line body without its sections' rotary inertia), so inertia relief cannot "
                             "balance a load about it; give geometric_stiffness=False, or reduce a mesh")
        K = full.stiffness_matrix()
        B = B * (abs(K).max() / norms)  # each column at K's scale (the same u: lambda rescaled)
        F = [-Mo[i] for i in range(d)] + [-sv[i, j] for i in range(d) for j in range(d)]
        # a unit generalized force on interface DOF k: full-body forces f with T^T f = (e_k, 0)
        # (one node: the DOF itself; a rigid item: its resultant spread over the nodes; a
        # distributing one: its nodes' forces by their weights, G^T e_k)
        F = np.array(F + list(D.toarray().T))
        nr = B.shape[1]
        rhs = np.zeros((n + nr, F.shape[0]))
        rhs[:n] = F.T
        bad = ValueError(f"prestress_supports='free': the free {type(full).__name__} has a zero-energy motion "
                         "beyond its rigid ones (K singular on more than the rigid modes), so its prestress is "
                         "not defined")
        if sp.issparse(K):
            A = sp.bmat([[sp.csr_matrix(K), sp.csr_matrix(B)], [sp.csr_matrix(B.T), None]], format="csc")
            try:
                X = _interrupt.call(spla.splu, A).solve(rhs)
            except RuntimeError:
                raise bad from None
        else:
            A = np.block([[np.asarray(K), B], [B.T, np.zeros((nr, nr))]])
            try:
                X = la.solve(A, rhs)
            except la.LinAlgError:
                raise bad from None
        res = np.abs(A @ X - rhs).max()
        if not np.all(np.isfinite(X)) or res > 1e-8 * (abs(A).max() * np.abs(X).max() + np.abs(rhs).max()):
            raise bad
        U = X[:n].T
        cases = []
        for c in range(U.shape[0]):
            acc, Mc = np.zeros(d), np.zeros((d, d))
            if c < d:
                acc[c] = 1.0
            elif c < d + d * d:
                Mc.flat[c - d] = 1.0
            cases.append(full._matrix(_core.prestress_matrix(body=full._body, field=U[c], acc=acc, Mc=Mc)))
        return cases

    def _ports(self, dim=2):
        """The interface items as a link's ports: (positions (nitems, dim) in the body's
        frame, dofs): in the plane (dim 2) dofs (nitems, 3), the coordinates of each item's x
        and y translations and its rotation about z; in space (dim 3) (nitems, 6), its
        translations along x, y, z and rotations about them; -1 where it has none."""
        names = self._interface_names
        x = np.zeros((len(self.interface), dim))
        pos = np.asarray(self.interface_positions, float)
        x[:, :min(dim, pos.shape[1])] = pos[:, :dim]
        dofs = np.full((len(self.interface), 3 if dim == 2 else 6), -1, dtype=np.int64)
        for c, nm in enumerate(names):
            k, _, dof = nm[1:].partition("_")
            motion = _DOF_MOTION.get(dof)
            if motion is None or (dim == 2 and motion not in (("t", 0), ("t", 1), ("r", 2))):
                continue
            slot = (2 if dim == 2 else 3 + motion[1]) if motion[0] == "r" else motion[1]
            dofs[int(k), slot] = c
        return x, dofs

    def _projected(self, V, KG):
        """The projected invariants, as kf_body_create_given takes them."""
        inv = self.full.inertia_invariants()
        d = self.full.dim
        S = np.zeros((d * d,) + (V.shape[1],) * 2)
        for i in range(d):
            for j in range(i, d):
                S[i * d + j] = _project(V, inv["S"][i][j], symmetric=i == j)
                S[j * d + i] = S[i * d + j].T
        out = {"S": S, "K": _project(V, self.full.stiffness_matrix()),
               "s": np.array([V.T @ inv["s"][i, j] for i in range(d) for j in range(d)]),
               "Mo": np.array([V.T @ inv["Mo"][i] for i in range(d)])}
        if "R" in inv:
            out["R"] = np.array([_project(V, inv["R"][i][j]) for i in range(d) for j in range(d)])
        if KG is not None:
            out["KG"] = np.array([_project(V, X) for X in KG])
        return out

    def _set_core(self, inv, names):
        """The core's body of the given invariants, and the sizes the base class reads."""
        self._invariants = inv
        self._body = _core.body_create_given(**inv)
        info = _core.body_info(self._body)
        self.ndof, self.dim = info["ndof"], info["dim"]
        self.dofs_per_node = self.ndof
        self.dof_names = tuple(names)
        self._layout = self.storage = "dense"
        self.nodes = np.zeros((1, self.dim))
        self.nodes.setflags(write=False)
        self.n_nodes = 1
        self._elements = np.zeros((0, 2), dtype=np.int64)
        from collections import OrderedDict

        self._eig_cache = OrderedDict()
        self._has_kg = "KG" in inv
        self.rotary_inertia = "R" in inv

    @property
    def model(self) -> dict:
        """``element`` "reduced", the full body's model (``of``) and what was kept."""
        return {"element": "reduced", "of": None if self.full is None else self.full.model, "basis": self.basis,
                "n_boundary": self.n_boundary, "n_modes": self.kept["n_modes"]}

    @property
    def default_supports(self):
        return "clamped" if self._supported else None

    @property
    def _default_supports(self):
        return "clamped" if getattr(self, "_supported", False) else None

    def __repr__(self):
        of = type(self.full).__name__ if self.full is not None else (getattr(self, "_stored_type", "") or "a body")
        return (f"ReducedBody({of} of {self.basis_matrix.shape[0]} DOFs, basis={self.basis!r}, "
                f"{self.n_boundary} interface DOFs + {self.kept['n_modes']} modes)")

    # ------------------------------------------------------------ supports

    def support_mask(self, supports) -> np.ndarray:
        """Which coordinates the supports fix: ``"clamped"`` (every interface DOF),
        ``"pinned"`` (the translations of every interface item), ``"free"`` or None (none),
        or ``{item: kind}`` over interface items with kind ``"clamped"``/``"fixed"``,
        ``"pinned"`` (translations) or a tuple of the item's DOF names (``ux``... for a
        rigid interface, the full body's names for one node)."""
        fixed = np.zeros(self.ndof, dtype=bool)
        if supports is None or (isinstance(supports, str) and supports == "free"):
            return fixed
        if not self._supported:
            raise NotSupportedError(f"ReducedBody with a free-interface basis does not support supports="
                                    f"{supports!r}: its coordinates are modal; constrain the interface with "
                                    "constraints=body.interface_rows(full_supports)")
        if isinstance(supports, str):
            if supports not in ("clamped", "fixed", "pinned"):
                raise ValueError(f"supports = {supports!r} is not 'clamped', 'pinned', 'free' or a dict "
                                 "{item: kind}")
            if supports == "pinned":
                return self.support_mask({k: "pinned" for k in range(len(self.interface))})
            fixed[: self.n_boundary] = True
            return fixed
        if not isinstance(supports, dict):
            raise TypeError(f"supports must be 'clamped', 'free', None or a dict {{item: kind}}, got {supports!r}")
        prefixes = [f"i{k}_" for k in range(len(self.interface))]
        for item, kind in supports.items():
            k = _checks.index("supports item", item, len(self.interface), "interface items")
            cols = [c for c, nm in enumerate(self._interface_names) if nm.startswith(prefixes[k])]
            local = [self._interface_names[c][len(prefixes[k]):] for c in cols]
            if isinstance(kind, str):
                if kind in ("clamped", "fixed"):
                    chosen = local
                elif kind == "pinned":
                    chosen = [nm for nm in local if _DOF_MOTION.get(nm, ("r",))[0] == "t"]
                else:
                    raise ValueError(f"supports[{item!r}] = {kind!r} is not 'clamped', 'fixed', 'pinned' or a "
                                     f"tuple of DOF names from {tuple(local)}")
            else:
                if not isinstance(kind, (tuple, list)):
                    raise TypeError(f"supports[{item!r}] = {kind!r} is not 'clamped', 'fixed', 'pinned' or a "
                                    f"tuple of DOF names from {tuple(local)}")
                chosen = list(kind)
                bad = [nm for nm in chosen if nm not in local]
                if bad:
                    raise ValueError(f"supports[{item!r}] = {kind!r}: DOF names must come from {tuple(local)}")
            for nm in chosen:
                fixed[cols[local.index(nm)]] = True
        return fixed

    def interface_rows(self, supports):
        """Constraint rows on the reduced coordinates of the full body's supports:
        ``full.constraint_matrix(supports) @ V`` (for ``constraints=`` of the eigen methods,
        e.g. to hold a free-interface body)."""
        return self._full("interface_rows").constraint_matrix(supports) @ self.basis_matrix

    # ------------------------------------------------------------ K_G

    def _straight_kg(self):
        return False

    def _n_prestress_cases(self):
        return self.dim + self.dim**2 + self._n_load

    def _end_axes(self):
        return np.zeros((2, self.dim))

    def _geometric_basis(self, supports, constrained=None):
        """The projected K_G basis was made with the body (its prestress supports); it does
        not depend on the supports or constraints of a call."""
        if not self._has_kg:
            raise _not_supported(self, "geometric_stiffness", "build it with geometric_stiffness=True")

    def _eig_context(self, supports, geometric=False, constraints=None):
        """As the base's, but the projected K_G basis does not depend on the supports, so
        it also combines with constraints (a free-interface body held through
        :meth:`interface_rows`)."""
        if geometric:
            self._geometric_basis(supports)
        if constraints is not None:
            return self._projected_context(supports, geometric, constraints)
        return self._supports_context(supports, geometric)

    def _axial_rows(self, motion, supports, end_forces, constrained=None):
        if end_forces is not None and np.any(_checks.array("end_forces", end_forces, shape=(2,)) != 0):
            raise _not_supported(self, "end_forces", "loads on the interface DOFs (a reduced body has no end "
                                 "nodes); its K_G has the inertial load cases only")
        self._geometric_basis(supports)
        return _core.axial_force(body=self._body, frames=motion, f_first=0.0, f_last=0.0,
                                 fixed_first=False, fixed_last=False)

    # ------------------------------------------------------------ expansion and output

    def expand(self, q):
        """Reduced coordinates back to the full body's DOFs, d = V q.

        Parameters
        ----------
        q : array_like (ndof,) or (n, ndof), EigenResult or SimulationResult
            One state, several, the mode shapes of an eigen result or a response.

        Returns
        -------
        ndarray (full.ndof,) or (n, full.ndof); an EigenResult with mode shapes (full.ndof,
        n_modes) (or (nt, full.ndof, n_modes)); a SimulationResult over the full body's DOFs.
        """
        import dataclasses

        V = self.basis_matrix
        name = type(q).__name__
        if name == "EigenResult":
            if q.mode_shapes is None:
                raise ValueError("q: the EigenResult has no mode shapes (mode_shapes=True)")
            return dataclasses.replace(q, mode_shapes=np.einsum("fn,...nk->...fk", V, q.mode_shapes))
        if name == "SimulationResult":
            return dataclasses.replace(q, d=q.d @ V.T, v=q.v @ V.T, p=None,
                                       dof_names=() if self.full is None else self.full.dof_names)
        q = _checks.array("q", q)
        if q.shape[-1] != self.ndof or q.ndim > 2:
            raise ValueError(f"q must have shape ({self.ndof},) or (n, {self.ndof}), got {q.shape}")
        return q @ V.T

    def full_nodes(self):
        """The full body's node coordinates (nodes, dim) [m]: its own, or those its file
        stored; an empty array where they are not known (a version 1 file)."""
        if self.full is not None:
            return np.asarray(self.full.nodes, float)
        nodes = getattr(self, "_stored_nodes", None)
        return np.zeros((0, self.dim)) if nodes is None else nodes.copy()

    def _full_dof_names(self):
        """The full body's DOF names per node (stored in the file when it is not at hand)."""
        if self.full is not None:
            return tuple(self.full.dof_names)
        return getattr(self, "_stored_dof_names", ())

    def _translation_rows(self, components=2):
        """(rows_x, rows_y[, rows_z], nodes) of the basis for the full body's translations
        along x, y (and z, with ``components=3``) at each node (None for a direction the
        body has no DOF along), or None where the full body's DOF layout is not known (a
        version 1 file loaded without it)."""
        names = self._full_dof_names()
        if not names:
            return None
        nd = len(names)
        ks = [[k for k, nm in enumerate(names) if _DOF_MOTION.get(nm) == ("t", c)] for c in range(components)]
        nn = self.basis_matrix.shape[0] // nd
        if not ks[0] or nn * nd != self.basis_matrix.shape[0]:
            return None
        base = np.arange(nn) * nd
        return (*((base + k[0]) if k else None for k in ks), nn)

    def _full(self, what):
        """The full body, for what needs its elements or mesh."""
        if self.full is None:
            raise _not_supported(self, what, "load it with ReducedBody.load(path, full=the full body)")
        return self.full

    def project(self, f):
        """Forces on the full body's DOFs as generalized forces on the reduced coordinates,
        V^T f: an array (full.ndof,) or (n, full.ndof), or a HarmonicLoad (its amplitude
        projected) for :func:`kanefem.simulate`."""
        from .simulate import HarmonicLoad

        if isinstance(f, HarmonicLoad):
            return HarmonicLoad(self.project(f.amplitude), f.omega, f.phase)
        f = _checks.array("f", f)
        n = self.basis_matrix.shape[0]
        if f.shape[-1] != n or f.ndim > 2:
            raise ValueError(f"f must have shape ({n},) or (k, {n}) (the full body's DOFs), got {f.shape}")
        return f @ self.basis_matrix

    def stresses(self, d, at="gauss"):
        """Stresses of the expanded displacements on the full mesh (``full.stresses``)."""
        return self._full("stresses").stresses(self.expand(d), at)

    def section_forces(self, d, at="ends"):
        """Section forces of the expanded displacements on the full line body."""
        return self._full("section_forces").section_forces(self.expand(d), at)

    def write_vtu(self, path, displacement=None, point_data=None, stresses=True):
        """The full mesh with the expanded displacement (``full.write_vtu``)."""
        disp = None if displacement is None else self.expand(displacement)
        return self._full("write_vtu").write_vtu(path, disp, point_data, stresses)

    def write_modes(self, path, result, instant=0, stresses=True):
        """The expanded mode shapes on the full mesh (``full.write_modes``)."""
        return self._full("write_modes").write_modes(path, self.expand(result), instant, stresses)

    def write_response(self, path, result, every=1, stresses=True):
        """The expanded response on the full mesh (``full.write_response``)."""
        return self._full("write_response").write_response(path, self.expand(result), every, stresses)

    def inertia_forces(self, d, d_t, d_tt, omega=0.0, eps=0.0, a_O=None, route="invariants", *,
                       frames=None):
        """Kane's F* from the projected invariants (``route="invariants"``); quadrature
        has no elements here: ``self.full.inertia_forces(self.expand(...), route="quadrature")``
        projected by V^T is the same check on the full body."""
        if route == "quadrature":
            raise _not_supported(self, "route='quadrature'",
                                 "V^T full.inertia_forces(V d, V d_t, V d_tt, ..., route='quadrature')")
        return super().inertia_forces(d, d_t, d_tt, omega, eps, a_O, route, frames=frames)

    # ------------------------------------------------------------ files

    def save(self, path):
        """Write the reduced body to an NPZ file of the schema ``kanefem.reduced`` version
        ``SCHEMA_VERSION`` (3) (docs/theory.md section 3.18; no pickled objects), atomically.

        Arrays: ``schema`` (the name), ``version``, ``S`` (dim^2, n, n), ``K`` (n, n), ``s``
        (dim^2, n), ``Mo`` (dim, n), ``R`` and ``KG`` when present, ``V`` (full ndof, n) the
        basis, ``dof_names`` (n,), ``basis``, ``n_boundary``, ``frequencies_hz`` of the kept
        modes, ``cutoff_hz`` (NaN if none), ``interface_nodes`` with ``interface_ptr`` (item k's
        nodes at ptr[k]:ptr[k+1]), ``interface_positions``, ``full_type`` and ``full_ndof``;
        since version 2 also ``prestress`` (how ``KG`` was made: ``"free"``, whose last
        ``n_boundary`` cases are the interface load cases, ``"supports"``, or ``""``: no KG)
        ``full_dof_names`` (the full body's DOF names per node) and ``full_nodes`` (its node
        coordinates, (nodes, dim); empty if unknown): a link's displacements at the full
        body's nodes without it; since version 3 ``interface_kinds`` (per item: ``"node"``,
        ``"rigid"``, ``"distributing"``), ``interface_weighting`` (per item: how a
        distributing item's weights were chosen, else ``""``) and ``interface_weights``
        (beside ``interface_nodes``: a distributing item's node weights, NaN for the others).
        """
        from ._io import atomic_write

        path = _checks.path("path", path)
        if path.suffix != ".npz":
            raise ValueError(f"path must end in .npz, got {str(path)!r}")
        items = [np.atleast_1d(np.asarray(i, dtype=np.int64)) for i in self.interface]
        data = dict(self._invariants)
        data.update(schema=np.array(SCHEMA), version=np.array(SCHEMA_VERSION), V=self.basis_matrix,
                    dof_names=np.array(self.dof_names, dtype=str), basis=np.array(self.basis),
                    n_boundary=np.array(self.n_boundary), frequencies_hz=self.kept["frequencies_hz"],
                    cutoff_hz=np.array(np.nan if self.kept["cutoff_hz"] is None else self.kept["cutoff_hz"]),
                    interface_nodes=np.concatenate(items) if items else np.zeros(0, np.int64),
                    interface_ptr=np.cumsum([0] + [i.size for i in items]).astype(np.int64),
                    interface_positions=self.interface_positions,
                    full_type=np.array(type(self.full).__name__ if self.full is not None else ""),
                    full_ndof=np.array(self.basis_matrix.shape[0]),
                    prestress=np.array(self.kept.get("prestress") or ""),
                    full_dof_names=np.array(self._full_dof_names(), dtype=str),
                    full_nodes=self.full_nodes(),
                    interface_kinds=np.array(self.kept["interface_kinds"], dtype=str).reshape(-1),
                    interface_weighting=np.array([w or "" for w in self.kept["interface_weighting"]],
                                                 dtype=str).reshape(-1),
                    interface_weights=np.concatenate(
                        [np.full(i.size, np.nan) if w is None else np.asarray(w, float)
                         for i, w in zip(items, self.kept["interface_weights"])]) if items else np.zeros(0))
        return atomic_write(path, lambda f: np.savez(f, **data), mode="wb")

    @classmethod
    def load(cls, path, full=None):
        """Read a reduced body written by :meth:`save`.

        Parameters
        ----------
        path : str or os.PathLike
            An NPZ file of the schema ``kanefem.reduced``, version 1 to ``SCHEMA_VERSION`` (3).
        full : FlexibleBody or ImportedModel, optional
            The full body it was reduced from, for stresses and VTU output of expanded
            results (``expand`` works without it: the basis is in the file).

        Raises
        ------
        ValueError
            naming the file: not an NPZ of this schema, another schema version, a missing or
            malformed array, matrices the core refuses, a ``full`` of another size.
        """
        from .sweep import read_npz

        path = _checks.path("path", path)
        # the sweep store's checked reader: regular file, sizes, headers, no objects, CRCs
        arrays = read_npz(path, ValueError, "reduced body NPZ file")
        def kind(name, kinds, ndim):
            a = arrays.get(name)
            if a is None or a.dtype.kind not in kinds or a.ndim != ndim:
                got = "missing" if a is None else f"of dtype {a.dtype} and {a.ndim} dimension(s)"
                raise ValueError(f"{path}: array {name!r} is {got} (schema {SCHEMA!r} version {SCHEMA_VERSION})")
            return a

        if str(arrays.get("schema", "")) != SCHEMA or arrays["schema"].dtype.kind != "U":
            raise ValueError(f"{path}: not a kanefem reduced body (schema {SCHEMA!r} expected)")
        version = kind("version", "iu", 0)
        if int(version) not in range(1, SCHEMA_VERSION + 1):
            raise ValueError(f"{path}: schema version {int(version)}, this kanefem reads versions 1 to "
                             f"{SCHEMA_VERSION}")
        prestress, full_names, full_nodes = ("supports" if "KG" in arrays else ""), (), None
        if int(version) >= 2:
            prestress = str(kind("prestress", "U", 0))
            full_names = tuple(str(x) for x in kind("full_dof_names", "U", 1))
            full_nodes = np.asarray(kind("full_nodes", "f", 2), float)
            if not np.all(np.isfinite(full_nodes)) or (full_nodes.size and (
                    full_nodes.shape[1] != arrays["Mo"].shape[0] or not full_names
                    or full_nodes.shape[0] * len(full_names) != arrays["V"].shape[0])):
                raise ValueError(f"{path}: full_nodes {full_nodes.shape} and full_dof_names {full_names} do not "
                                 f"fit the basis of {arrays['V'].shape[0]} rows")
            if prestress not in ("free", "supports", "") or (prestress == "") != ("KG" not in arrays):
                raise ValueError(f"{path}: prestress = {prestress!r} is not 'free', 'supports' or '' (no KG) "
                                 "as the file's KG says")
        inv = {k: kind(k, "f", nd) for k, nd in (("S", 3), ("K", 2), ("s", 2), ("Mo", 2))}
        inv.update({k: kind(k, "f", 3) for k in ("R", "KG") if k in arrays})
        V = kind("V", "f", 2)
        ptr, nodes = kind("interface_ptr", "iu", 1), kind("interface_nodes", "iu", 1)
        names = kind("dof_names", "U", 1)
        for name, kinds, nd in (("basis", "U", 0), ("n_boundary", "iu", 0), ("frequencies_hz", "f", 1),
                                ("cutoff_hz", "f", 0), ("interface_positions", "f", 2), ("full_ndof", "iu", 0)):
            kind(name, kinds, nd)
        n = inv["K"].shape[0]
        if (V.shape[1] != n or names.size != n or ptr.size < 1 or ptr[0] != 0 or ptr[-1] != nodes.size
                or np.any(np.diff(ptr.astype(np.int64)) < 0) or not 0 <= int(arrays["n_boundary"]) <= n
                or int(arrays["full_ndof"]) != V.shape[0]):
            raise ValueError(f"{path}: the arrays do not fit together (K {inv['K'].shape}, V {V.shape}, "
                             f"{names.size} DOF names, interface_ptr {ptr.shape}, n_boundary "
                             f"{int(arrays['n_boundary'])})")
        for name in ("V", "frequencies_hz", "interface_positions"):
            if not np.all(np.isfinite(arrays[name])):
                raise ValueError(f"{path}: array {name!r} has non-finite entries")
        if full is not None and getattr(full, "ndof", None) != V.shape[0]:
            raise ValueError(f"full has {getattr(full, 'ndof', None)} DOFs, the file's basis {V.shape[0]}")
        basis = str(arrays["basis"])
        if basis not in BASES:
            raise ValueError(f"{path}: basis = {basis!r} is not one of {BASES}")
        self = cls.__new__(cls)
        self.full, self.basis = full, basis
        self.basis_matrix = V
        V.setflags(write=False)
        self.n_boundary = int(arrays["n_boundary"])
        self.interface = [nodes[a:b] for a, b in zip(ptr[:-1], ptr[1:])]
        self.interface_positions = np.asarray(arrays["interface_positions"], float)
        names = tuple(str(x) for x in names)
        self._interface_names = names[: self.n_boundary]
        self._supported = basis == "craig-bampton"
        cutoff = float(arrays["cutoff_hz"])
        freqs = np.asarray(arrays["frequencies_hz"], float)
        items = len(self.interface)
        if int(version) >= 3:
            kinds = [str(x) for x in kind("interface_kinds", "U", 1)]
            weighting = [str(x) or None for x in kind("interface_weighting", "U", 1)]
            w = np.asarray(kind("interface_weights", "f", 1), float)
            if len(kinds) != items or len(weighting) != items or w.size != nodes.size or any(
                    k not in ("node",) + INTERFACE_KINDS for k in kinds):
                raise ValueError(f"{path}: interface_kinds {kinds[:8]}, interface_weighting and interface_weights "
                                 f"({w.size}) do not fit the {items} interface items of {nodes.size} nodes")
            weights = [None if k != "distributing" else w[a:b] for k, a, b in zip(kinds, ptr[:-1], ptr[1:])]
            if any(x is not None and not np.all(np.isfinite(x)) for x in weights):
                raise ValueError(f"{path}: interface_weights of a distributing item are not finite")
        else:  # before version 3 every item of several nodes was rigid
            kinds = ["node" if i.size == 1 else "rigid" for i in self.interface]
            weighting, weights = [None] * items, [None] * items
        self.kept = {"basis": basis, "n_boundary": self.n_boundary, "n_modes": int(freqs.size),
                     "frequencies_hz": freqs, "cutoff_hz": None if math.isnan(cutoff) else cutoff,
                     "attachment": 0 if self._supported else len(names) - freqs.size,
                     "interface": [list(map(int, i)) for i in self.interface],
                     "interface_kinds": kinds, "interface_weights": weights, "interface_weighting": weighting,
                     "geometric_stiffness": "KG" in inv, "prestress": prestress or None}
        self._n_load = self.n_boundary if prestress == "free" else 0
        self._stored_dof_names = full_names
        self._stored_nodes = full_nodes if full_nodes is not None and full_nodes.size else None
        self._stored_type = str(arrays["full_type"]) if arrays["full_type"].dtype.kind == "U" else ""
        d = inv["Mo"].shape[0]
        if "KG" in inv and inv["KG"].shape[0] != d + d * d + self._n_load:
            raise ValueError(f"{path}: KG has {inv['KG'].shape[0]} cases, a {prestress!r} prestress of dim {d} "
                             f"has {d + d * d + self._n_load}")
        try:
            self._set_core(inv, names)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{path}: {exc}") from None
        return self


#: the largest Matrix Market or DOF map file ImportedModel.read reads (it is read whole)
MATRIX_FILE_MAX = 8 << 30


def _read_matrix_market(name, path, raw, shape=None):
    """A real matrix from the bytes of a Matrix Market file (coordinate or array, general or
    symmetric), parsed here with NumPy and checked at every step: the banner, a size line
    the file can hold (and, given ``shape``, of that shape; else square), ASCII text,
    exactly the declared number of entries, integer indices in range.  (SciPy's
    ``mmread`` reads the same files, but its C++ reader crashed the process on a damaged
    file, a NUL byte in an entry: docs/theory.md section 3.18.)"""
    _, sp, _ = _scipy()
    where = f"{name}: {path}"
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not a Matrix Market file: byte {exc.start} is not ASCII") from None
    if "\x00" in text:
        raise ValueError(f"{where}: not a Matrix Market file: it holds a NUL byte")
    lines = text.split("\n")
    banner = lines[0].strip().lower().split()
    if len(banner) != 5 or banner[0] != "%%matrixmarket" or banner[1] != "matrix" or \
            banner[2] not in ("coordinate", "array") or banner[3] not in ("real", "integer", "double") or \
            banner[4] not in ("general", "symmetric"):
        raise ValueError(f"{where}: not a Matrix Market file of a real general or symmetric matrix "
                         f"(banner {lines[0][:80]!r})")
    k = 1
    while k < len(lines) and (not lines[k].strip() or lines[k].lstrip().startswith("%")):
        k += 1
    coordinate = banner[2] == "coordinate"
    want = 3 if coordinate else 2
    try:
        dims = [int(v) for v in lines[k].split()] if k < len(lines) else []
    except ValueError:
        dims = []
    if len(dims) != want or min(dims) < 0 or max(dims[:2]) > 2**31 - 1 or (shape is None and dims[0] != dims[1]):
        raise ValueError(f"{where}: the size line {lines[k][:80] if k < len(lines) else ''!r} is not {want} "
                         "non-negative integers of a square matrix")
    if shape is not None and tuple(dims[:2]) != tuple(shape):
        raise ValueError(f"{where}: the size line declares a {dims[0]} x {dims[1]} matrix, {shape[0]} x "
                         f"{shape[1]} expected")
    n, ncol = dims[0], dims[1]
    count = dims[2] if coordinate else n * ncol
    if count * (4 if coordinate else 2) > len(raw):
        raise ValueError(f"{where}: the header declares {dims}, more than the file's {len(raw)} bytes hold")
    try:
        values = np.array("\n".join(lines[k + 1:]).split(), dtype=float)
    except ValueError as exc:
        raise ValueError(f"{where}: an entry is not a number ({exc})") from None
    if values.size != count * (want if coordinate else 1):
        raise ValueError(f"{where}: {values.size} numbers after the size line, the header declares "
                         f"{count} entries")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{where}: the matrix has non-finite entries")
    symmetric = banner[4] == "symmetric"
    if coordinate:
        e = values.reshape(count, 3)
        ij = e[:, :2]
        if not (np.all(ij == np.round(ij)) and np.all(ij >= 1) and np.all(ij <= [n, ncol])):
            raise ValueError(f"{where}: entry indices must be integers in 1..{n} (rows), 1..{ncol} (columns)")
        i, j, v = ij[:, 0].astype(np.int64) - 1, ij[:, 1].astype(np.int64) - 1, e[:, 2]
        if symmetric:
            if n != ncol or np.any(j > i):
                raise ValueError(f"{where}: a symmetric file lists the lower triangle of a square matrix only "
                                 "(an entry above it)")
            off = i != j
            i, j, v = np.r_[i, j[off]], np.r_[j, i[off]], np.r_[v, v[off]]
        return sp.csr_matrix((v, (i, j)), shape=(n, ncol))
    if symmetric:
        raise ValueError(f"{where}: a symmetric array file is not supported (give a general array or coordinates)")
    return sp.csr_matrix(values.reshape(n, ncol, order="F"))


#: the NPZ schema of a saved reduced body (ReducedBody.save): its name and version
SCHEMA = "kanefem.reduced"
SCHEMA_VERSION = 3


def _case_names(dim):
    """The unit load cases of a K_G basis by name, in its order: a_i, then (E + W W)_ij
    row-major (``a_x``, ..., ``EWW_xx``, ``EWW_xy``, ...)."""
    axes = "xyz"[:dim]
    return [f"a_{i}" for i in axes] + [f"EWW_{i}{j}" for i in axes for j in axes]


#: the Levi-Civita symbol: (a x b)_i = eps[i, j, k] a_j b_k
_EPS = np.zeros((3, 3, 3))
for _i, _j, _k in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
    _EPS[_i, _j, _k], _EPS[_i, _k, _j] = 1.0, -1.0


class _Nodes:
    """The nodes of a model whose cells kanefem's Mesh does not take (beams, shells) or of
    a bare coordinate array: coordinates, named node sets and the cells for output."""

    def __init__(self, points, dim, point_sets=None, cells=()):
        pts = np.asarray(points, dtype=float)
        if pts.ndim != 2 or pts.shape[1] not in (2, 3) or not pts.shape[0]:
            raise ValueError(f"mesh: node coordinates must have shape (n, 2) or (n, 3), got {pts.shape}")
        if not np.all(np.isfinite(pts)):
            raise ValueError("mesh: node coordinates must be finite")
        if dim == 2 and pts.shape[1] == 3:
            z = pts[:, 2]
            if np.ptp(z) > 1e-12 * max(1.0, float(np.ptp(pts[:, :2]))):
                raise ValueError(f"mesh: a planar model (dim = 2) must lie in a plane z = const; node "
                                 f"{int(np.argmax(np.abs(z - z[0])))} is off it")
        if dim == 3 and pts.shape[1] == 2:
            pts = np.column_stack([pts, np.zeros(len(pts))])
        self.nodes = pts[:, :dim]
        self.dim, self.n_nodes = dim, pts.shape[0]
        self.point_sets = {str(k): np.unique(np.asarray(v, dtype=np.int64)) for k, v in (point_sets or {}).items()}
        for name, idx in self.point_sets.items():
            if idx.size and (idx[0] < 0 or idx[-1] >= self.n_nodes):
                raise ValueError(f"mesh: point set {name!r} refers to nodes outside 0..{self.n_nodes - 1}")
        self.cells = list(cells)

    def nodes_where(self, predicate):
        from .meshes import Mesh

        return Mesh.nodes_where(self, predicate)

    def write(self, path, point_data=None, file_format=None, cell_data=None):
        """The nodes (and the model's cells, or vertices) with point data, with meshio."""
        from .meshes import _meshio, write_meshio

        pts = np.column_stack([self.nodes, np.zeros((self.n_nodes, 3 - self.dim))])
        cells = self.cells or [("vertex", np.arange(self.n_nodes)[:, None])]
        return write_meshio(path, _meshio().Mesh(pts, cells, point_data=point_data or {}), file_format)


def _model_mesh(mesh, dim):
    """A kanefem Mesh (plane or solid cells: tributary weights and node sets) or the
    model's nodes (_Nodes) from a Mesh, a meshio.Mesh or an array of coordinates."""
    from .meshes import _CELL_DIM, Mesh

    if dim is not None:
        dim = _checks.integer("dim", dim, minimum=2, maximum=3)
    if isinstance(mesh, _Nodes):
        if dim is not None and dim != mesh.dim:
            raise ValueError(f"dim = {dim}, but the model's nodes are {mesh.dim}-dimensional")
        return mesh
    if isinstance(mesh, Mesh):
        if dim is not None and dim != mesh.dim:
            raise ValueError(f"dim = {dim}, but the mesh is {mesh.dim}-dimensional")
        return mesh
    if type(mesh).__name__ == "Mesh" and hasattr(mesh, "points") and hasattr(mesh, "cells"):  # meshio
        pts = np.asarray(mesh.points, dtype=float)
        if pts.ndim != 2 or pts.shape[1] not in (2, 3):
            raise ValueError(f"mesh: meshio points of shape {pts.shape}")
        blocks = [(b.type, np.asarray(b.data)) for b in mesh.cells]
        solid = [t for t, _ in blocks if _CELL_DIM.get(t) == 3]
        plane = [t for t, _ in blocks if _CELL_DIM.get(t) == 2]
        flat = pts.shape[1] == 2 or np.ptp(pts[:, 2]) <= 1e-12 * max(1.0, float(np.ptp(pts[:, :2])))
        if solid and dim in (None, 3) or plane and flat and dim in (None, 2):
            return Mesh.from_meshio(mesh, dim=dim)
        sets = dict(mesh.point_sets or {})
        for name, per_block in (mesh.cell_sets or {}).items():  # as Mesh.from_meshio gathers them
            nodes = [np.asarray(blocks[i][1])[np.asarray(sel, dtype=np.int64)].ravel()
                     for i, sel in enumerate(per_block) if sel is not None and len(sel)]
            if nodes:
                sets.setdefault(name, np.unique(np.concatenate(nodes)))
        return _Nodes(pts, dim or pts.shape[1], sets, blocks)
    if isinstance(mesh, (list, tuple, np.ndarray)):
        pts = _checks.array("mesh", mesh, ndim=2)
        return _Nodes(pts, dim or pts.shape[1])
    raise TypeError(f"mesh must be a kanefem.Mesh, a meshio.Mesh or node coordinates (n, dim), got "
                    f"{type(mesh).__name__}")


class ImportedModel:
    """A full model from an FE code's mass and stiffness matrices, to be reduced by
    :class:`ReducedBody` (docs/theory.md section 3.18).

    The matrices act on the DOFs a node/DOF map lists: the translations of every node
    (solid and plane-stress meshes), or its translations and rotations (beam and shell
    models: what Abaqus ``*MATRIX GENERATE``, Ansys and Nastran DMAP exports give); the
    mesh gives the node coordinates.  The inertia invariants follow from M and the
    coordinates when M is *separable*: no coupling between translations and rotations,
    one nodal mass m_ab for every displacement component (the same block of M for each,
    none between components), and rotational blocks J_ab (the rotary inertia of the
    material that turns with the node: sections, shell normals, lumped inertias).  Then,
    exactly (docs/theory.md section 3.18),

        S_ij[(a,i),(b,j)] = m_ab,   s_ij[(a,i)] = sum_b m_ab x_bj,   Mo_i[(a,i)] = sum_b m_ab,

    and on the rotations, with Theta_ab = tr(J_ab)/2 I - J_ab the material's second
    moments, S_ij[(a,k),(b,l)] = eps_ikm eps_jln Theta_ab,mn and s_ij[(a,k)] =
    eps_ikm sum_b Theta_ab,mj.  That is the structure of isoparametric solids and
    membranes, of beams and shells that interpolate translations and rotations
    independently (Timoshenko beams such as Abaqus B31, Ansys BEAM188; Mindlin shells
    such as S4R, SHELL181) and of lumped masses with rotary inertia.  A mass that couples
    translations and rotations (an Euler-Bernoulli beam's Hermite mass, Nastran's
    coupled mass) does not determine the invariants: give them (``invariants``) or
    export a separable mass.

    Parameters
    ----------
    mass, stiffness : array_like or scipy.sparse matrix, shape (n, n)
        M and K, symmetric; M positive definite, K positive semidefinite.
    dof_map : array_like of int, shape (n, 2)
        Row r of the matrices is DOF dof_map[r, 1] of node dof_map[r, 0] of the mesh:
        0 .. dim - 1 the displacements along x, y (, z), then the rotations: 2 about z in
        the plane, 3, 4, 5 about x, y, z in space.  Every node has the same DOFs (its
        displacements, or its displacements and rotations), each exactly once.
    mesh : kanefem.Mesh, meshio.Mesh or array_like (nodes, dim)
        The nodes the map refers to: a mesh of plane or solid cells (a kanefem or meshio
        mesh: node sets, tributary weights of distributing interfaces), a meshio mesh of
        beam or shell cells (its points and node sets), or the node coordinates.
    dim : {2, 3}, optional
        The model's dimension.  Default: the mesh's (a plane or solid mesh), else the
        coordinates' columns; a planar beam model given 3-D points needs ``dim=2``.
    geometric : sequence or dict of (n, n) matrices, optional
        K_G of the unit load cases (docs/theory.md section 2.11), in the matrices' DOF
        order: a_x, a_y (, a_z), then (E + W W)_ij row-major (names ``"a_x"``, ...,
        ``"EWW_xx"``, ``"EWW_xy"``, ...: a dict needs every one).  Case a_i is the
        geometric stiffness of the static prestress of the body load -rho e_i (a unit
        acceleration of its frame along i), case (E + W W)_ij of the body load -rho x_j e_i,
        each solved with the supports that hold the body in service (a reduced body's
        interface clamped); an FE code's stress-stiffness (differential stiffness) matrix
        of that static step.  Give a zero matrix for a case the motions never load.
        Symmetric.  With it a ReducedBody projects them (``geometric_stiffness``).
    invariants : dict, optional
        For a mass that is not separable: ``{"S": S, "s": s}`` with S the dim x dim
        blocks S_ij = int rho N_i^T N_j (a nested list of (n, n) matrices, or an array
        (dim, dim, n, n)) and s (dim, dim, n) the first moments int rho N_i^T x_j, in the
        matrices' DOF order (a kanefem body's ``inertia_invariants()``); checked: S_ji =
        S_ij^T, sum S_ii = M, and s against the rigid rotations of M.

    Attributes
    ----------
    geometric : list of scipy.sparse matrices or None
        The K_G cases in node-major order.
    rotations : bool
        Whether the nodes carry rotations.

    Examples
    --------
    >>> import kanefem
    >>> plate = kanefem.MeshBody(kanefem.Mesh.rectangle(1.0, 0.1, 10, 2, cell="quad"),
    ...                          E=2.1e11, nu=0.3, rho=7800, thickness=0.01)
    >>> dof_map = [(k // 2, k % 2) for k in range(plate.ndof)]
    >>> model = kanefem.ImportedModel(plate.mass_matrix(), plate.stiffness_matrix(), dof_map, plate.mesh)
    >>> model.ndof == plate.ndof
    True
    """

    storage = "sparse"
    _default_supports = None

    def __init__(self, mass, stiffness, dof_map, mesh, *, dim=None, geometric=None, invariants=None):
        _, sp, _ = _scipy()
        self.mesh = _model_mesh(mesh, dim)
        self.dim = self.mesh.dim
        self.nodes = np.asarray(self.mesh.nodes, float)[:, : self.dim]
        self.n_nodes = self.nodes.shape[0]
        M, K = (self._matrix_arg(name, X) for name, X in (("mass", mass), ("stiffness", stiffness)))
        if M.shape != K.shape:
            raise ValueError(f"mass {M.shape} and stiffness {K.shape} must have the same shape")
        perm = self._dof_permutation(dof_map, M.shape[0])
        # node-major numbering: new DOF node * nf + k holds old row perm[new]
        self._P = sp.csr_matrix((np.ones(self.ndof), (np.arange(self.ndof), perm)), shape=(self.ndof,) * 2)
        self._M = self._ordered(M)
        self._K = self._ordered(K)
        self._check_definite()
        self.geometric = None if geometric is None else self._geometric_arg(geometric)
        if invariants is None:
            self._invariants = self._separable_invariants()
        else:
            self._invariants = self._given_invariants(invariants)

    def _ordered(self, X):
        """A matrix in the map's row order as the node-major one."""
        _, sp, _ = _scipy()
        return sp.csr_matrix(self._P @ X @ self._P.T)

    @staticmethod
    def _matrix_arg(name, X, shape=None):
        _, sp, _ = _scipy()
        X = sp.csr_matrix(X, dtype=float) if sp.issparse(X) else sp.csr_matrix(_checks.array(name, X, ndim=2))
        if X.shape[0] != X.shape[1]:
            raise ValueError(f"{name} must be square, got shape {X.shape}")
        if shape is not None and X.shape != shape:
            raise ValueError(f"{name} must have the matrices' shape {shape}, got {X.shape}")
        if not np.all(np.isfinite(X.data)):
            raise ValueError(f"{name} has non-finite entries")
        asym = abs(X - X.T).max() if X.nnz else 0.0
        big = abs(X).max() if X.nnz else 0.0
        if asym > 1e-10 * big:
            raise ValueError(f"{name} is not symmetric: max |X - X^T| = {asym:.3g}, max |X| = {big:.3g}")
        return X

    def _dof_permutation(self, dof_map, n):
        """perm[node * nf + k] = the matrix row of (node, k), checked by name; sets
        dofs_per_node, dof_names, ndof and rotations."""
        d = self.dim
        nrot = 1 if d == 2 else 3
        m = _checks.array("dof_map", dof_map, ndim=2)
        if m.shape != (n, 2):
            raise ValueError(f"dof_map must have shape ({n}, 2) (one (node, DOF) row per matrix row), "
                             f"got {m.shape}")
        if not np.all(m == np.round(m)):
            raise ValueError("dof_map must hold integers (node, DOF)")
        m = m.astype(np.int64)
        if n and (m[:, 0].min() < 0 or m[:, 0].max() >= self.n_nodes):
            raise ValueError(f"dof_map: node {int(m[:, 0].max() if m[:, 0].max() >= self.n_nodes else m[:, 0].min())} "
                             f"is not one of the mesh's {self.n_nodes} nodes")
        if n and (m[:, 1].min() < 0 or m[:, 1].max() >= d + nrot):
            raise ValueError(f"dof_map: DOFs must be 0..{d + nrot - 1} (0..{d - 1} the displacements, then the "
                             f"rotations: {'2 about z' if d == 2 else '3, 4, 5 about x, y, z'}), got "
                             f"{int(m[:, 1].min() if m[:, 1].min() < 0 else m[:, 1].max())}")
        self.rotations = bool(n) and bool(m[:, 1].max() >= d)
        nf = d + nrot if self.rotations else d
        self.dofs_per_node, self.ndof = nf, self.n_nodes * nf
        self.dof_names = (("ux", "uy", "uz")[:d] + (("rz",) if d == 2 else ("rx", "ry", "rz"))[: nf - d])
        if n != self.ndof:
            counts = np.bincount(m[:, 0], minlength=self.n_nodes)
            bad = np.flatnonzero(counts != nf)
            first = int(bad[0]) if bad.size else 0
            raise ValueError(f"dof_map: the matrices have {n} rows, the mesh's {self.n_nodes} nodes x {nf} DOFs "
                             f"{self.ndof} (every node needs the same DOFs: {', '.join(self.dof_names)}); node "
                             f"{first} has {int(counts[first]) if bad.size else nf}")
        key = m[:, 0] * nf + m[:, 1]
        perm = np.full(self.ndof, -1)
        perm[key] = np.arange(n)
        if np.any(perm < 0):
            k = int(np.flatnonzero(perm < 0)[0])
            raise ValueError(f"dof_map: (node {k // nf}, DOF {k % nf}) appears twice or never")
        return perm

    def _geometric_arg(self, geometric):
        """The K_G cases (a sequence in the basis' order or a dict by name), node-major."""
        names = _case_names(self.dim)
        if isinstance(geometric, Mapping):
            unknown = sorted(map(str, set(geometric) - set(names)))
            missing = [nm for nm in names if nm not in geometric]
            if unknown or missing:
                raise ValueError(f"geometric: the cases are {', '.join(names)} (every one: a zero matrix for a "
                                 f"case the motions never load); " + (f"unknown {unknown}" if unknown else
                                                                    f"missing {missing}"))
            geometric = [geometric[nm] for nm in names]
        if isinstance(geometric, (str, bytes)) or not hasattr(geometric, "__len__") or len(geometric) != len(names):
            raise TypeError(f"geometric must be the {len(names)} K_G matrices of the unit load cases "
                            f"{', '.join(names)} (a sequence in that order or a dict), got "
                            f"{_checks._short(geometric)}")
        shape = (self.ndof, self.ndof)
        return [self._ordered(self._matrix_arg(f"geometric[{nm!r}]", X, shape)) for nm, X in zip(names, geometric)]

    def _check_definite(self):
        """M positive definite, K positive semidefinite (K + delta M definite), by factors."""
        _, sp, _ = _scipy()
        from .sparse import Factor

        def pivots(A):
            try:
                return Factor(sp.csr_matrix(A), symmetric=True).lu.U.diagonal()
            except RuntimeError:
                return np.array([-1.0])
        diag = self._M.diagonal()
        if np.any(diag <= 0):
            k = int(np.flatnonzero(diag <= 0)[0])
            nf = self.dofs_per_node
            raise ValueError(f"mass is not positive definite: DOF {self.dof_names[k % nf]} of node {k // nf} has "
                             f"M = {float(diag[k])!r} on the diagonal" + (" (a lumped mass without rotary inertia: export "
                                                                  "a mass with the rotations' inertia)"
                                                                  if k % nf >= self.dim else ""))
        if not (pivots(self._M) > 0).all():
            raise ValueError("mass is not positive definite (a factor of M has a pivot <= 0)")
        scale = float(np.max(self._K.diagonal() / diag))
        if not (pivots(self._K + 1e-8 * scale * self._M) > 0).all():
            raise ValueError("stiffness is not positive semidefinite (K + 1e-8 (k/m)_max M has a pivot <= 0)")

    def rigid_motions(self):
        """The rigid motions of the model over its DOFs (node-major), (ndof, 3) in the plane
        (x, y, rotation about z) or (ndof, 6) in space (x, y, z, rotations about x, y, z):
        a translation moves every node, a rotation theta moves node a by theta x x_a and
        turns its rotations by theta.  K R = 0 (to round-off) for a free model whose map
        and coordinates fit its matrices."""
        d, nf = self.dim, self.dofs_per_node
        nrot = 1 if d == 2 else 3
        R = np.zeros((self.ndof, d + nrot))
        x = self.nodes
        for i in range(d):
            R[i::nf, i] = 1.0
        axes = (2,) if d == 2 else (0, 1, 2)
        for c, k in enumerate(axes):
            ek = np.eye(3)[k]
            move = np.cross(ek, np.column_stack([x, np.zeros((self.n_nodes, 3 - d))]))[:, :d]
            for i in range(d):
                R[i::nf, d + c] = move[:, i]
            if self.rotations:
                R[d + c::nf, d + c] = 1.0
        return R

    def _mass_properties(self):
        """(mass, centre (3,), second moments about it (3, 3)) of a spatial model from R^T M R,
        R its rigid motions: m I, the first moments and the inertia tensor J_O about the
        origin; the second moments int xb xb^T dm = tr(J_c) / 2 I - J_c."""
        if self.dim != 3:
            raise ValueError("the mass properties of a spatial model (dim 3)")
        R = self.rigid_motions()
        A = R.T @ np.asarray(self._M @ R)
        m = float(np.trace(A[:3, :3]) / 3)
        c = np.array([A[1, 5], A[2, 3], A[0, 4]]) / m  # (e_k x c) m, k = z, x, y
        Jc = A[3:, 3:] - m * (c @ c * np.eye(3) - np.outer(c, c))
        return m, c, 0.5 * np.trace(Jc) * np.eye(3) - Jc

    def _separable_invariants(self):
        """S, s, Mo from a separable M (the class docstring), each part checked: refused,
        naming the coupling found and what would do, otherwise."""
        _, sp, _ = _scipy()
        d, nf, nn = self.dim, self.dofs_per_node, self.n_nodes
        M = self._M.tocoo()
        ca, cb = M.row % nf, M.col % nf
        big = np.abs(M.data).max()
        what = ("the inertia invariants S_ij, s_ij of such elements are integrals of their shape functions that "
                "M does not hold: export a separable mass (a lumped mass with rotary inertia, or elements that "
                "interpolate translations and rotations independently: Timoshenko beams such as B31 or BEAM188, "
                "Mindlin shells such as S4R or SHELL181), or give invariants={'S': ..., 's': ...}")
        mixed = (ca < d) != (cb < d)
        if np.abs(M.data[mixed]).max(initial=0.0) > 1e-10 * big:
            k = int(np.argmax(np.abs(M.data) * mixed))
            raise ValueError(f"mass couples translations and rotations (DOF {self.dof_names[ca[k]]} of node "
                             f"{M.row[k] // nf} with {self.dof_names[cb[k]]} of node {M.col[k] // nf}: "
                             f"{M.data[k]:.3g} against {big:.3g}; an Euler-Bernoulli beam's or a coupled "
                             f"consistent mass): {what}")
        tt = (ca < d) & (cb < d)
        cross = tt & (ca != cb)
        if np.abs(M.data[cross]).max(initial=0.0) > 1e-10 * big:
            raise ValueError(f"mass couples different displacement components "
                             f"({np.abs(M.data[cross]).max():.3g} against {big:.3g}): {what}")
        blocks = [sp.csr_matrix((M.data[tt & (ca == k) & (cb == k)],
                                 (M.row[tt & (ca == k) & (cb == k)] // nf, M.col[tt & (ca == k) & (cb == k)] // nf)),
                                shape=(nn, nn)) for k in range(d)]
        for k in range(1, d):
            diff = abs(blocks[k] - blocks[0]).max() if (blocks[k] - blocks[0]).nnz else 0.0
            if diff > 1e-8 * big:
                hint = (" (a planar model with rotations read as a spatial one? give dim=2)"
                        if d == 3 and not self.rotations and k == 2 else "")
                raise ValueError(f"mass: component {k}'s nodal mass differs from component 0's by {diff:.3g}"
                                 f"{hint}: {what}")
        m = blocks[0]
        # the translations: S_ij[(a,i),(b,j)] = m_ab, s_ij[(a,i)] = sum_b m_ab x_bj, Mo_i[(a,i)] = sum_b m_ab
        mc = m.tocoo()
        rows, cols, vals = {}, {}, {}
        for i in range(d):
            for j in range(d):
                rows[i, j], cols[i, j], vals[i, j] = [mc.row * nf + i], [mc.col * nf + j], [mc.data]
        s = np.zeros((d, d, self.ndof))
        Mo = np.zeros((d, self.ndof))
        mx = m @ self.nodes
        m1 = np.asarray(m.sum(axis=1)).ravel()
        for i in range(d):
            Mo[i, i::nf] = m1
            for j in range(d):
                s[i, j, i::nf] = mx[:, j]
        if self.rotations:  # the material turning with the nodes: Theta_ab = tr(J_ab) / 2 I - J_ab
            rr = ~((ca < d) | (cb < d))
            a, b = M.row[rr] // nf, M.col[rr] // nf
            k, l, v = ca[rr] - d, cb[rr] - d, M.data[rr]
            pairs, inv = np.unique(a * nn + b, return_inverse=True)
            nrot = 1 if d == 2 else 3
            J = np.zeros((pairs.size, nrot, nrot))
            np.add.at(J, (inv.ravel(), k, l), v)
            pa, pb = pairs // nn, pairs % nn
            if d == 2:  # the split of J over x and y is not known; no planar term depends on it
                Theta = J[:, 0, 0][:, None, None] / 2 * np.eye(2)
                E = np.array([[0.0, -1.0], [1.0, 0.0]])[:, :, None]  # (e_z x r)_i = E[i, m] r_m
            else:
                Theta = np.trace(J, axis1=1, axis2=2)[:, None, None] / 2 * np.eye(3) - J
                E = _EPS  # (e_k x r)_i = eps[i, k, m] r_m
            for i in range(d):
                for j in range(d):
                    if d == 3:
                        blk = np.einsum("km,ln,pmn->pkl", E[i], E[j], Theta)
                    else:
                        blk = np.einsum("m,n,pmn->p", E[i, :, 0], E[j, :, 0], Theta)[:, None, None]
                    kk, ll = np.meshgrid(np.arange(nrot), np.arange(nrot), indexing="ij")
                    rows[i, j].append((pa[:, None, None] * nf + d + kk).ravel())
                    cols[i, j].append((pb[:, None, None] * nf + d + ll).ravel())
                    vals[i, j].append(blk.ravel())
            # s_ij[(a,k)] = (e_k x r)_i r_j summed: E[i, k, m] Theta_a,mj, Theta_a = sum_b Theta_ab
            Ta = np.zeros((nn,) + Theta.shape[1:])
            np.add.at(Ta, pa, Theta)
            for i in range(d):
                for j in range(d):
                    for c in range(nrot):
                        e = E[i, c] if d == 3 else E[i, :, 0]
                        s[i, j, d + c::nf] = Ta[:, :, j] @ e
        S = [[sp.csr_matrix((np.concatenate(vals[i, j]), (np.concatenate(rows[i, j]), np.concatenate(cols[i, j]))),
                            shape=(self.ndof, self.ndof)) for j in range(d)] for i in range(d)]
        return {"S": S, "s": s, "Mo": Mo}

    def _given_invariants(self, invariants):
        """S and s given (a mass that is not separable), checked and put in node-major order."""
        _, sp, _ = _scipy()
        d, n = self.dim, self.ndof
        if not isinstance(invariants, Mapping) or set(invariants) != {"S", "s"}:
            raise TypeError(f"invariants must be a dict {{'S': S_ij blocks, 's': s_ij}}, got "
                            f"{_checks._short(invariants)}")
        S_in = invariants["S"]
        if not hasattr(S_in, "__len__") or len(S_in) != d or any(not hasattr(r, "__len__") or len(r) != d
                                                                  for r in S_in):
            raise TypeError(f"invariants['S'] must hold {d} x {d} matrices S_ij, got {_checks._short(S_in)}")
        S = [[self._ordered(self._block_arg(f"invariants['S'][{i}][{j}]", S_in[i][j])) for j in range(d)]
             for i in range(d)]
        big = abs(self._M).max()
        for i in range(d):
            for j in range(i, d):
                gap = abs(S[i][j] - S[j][i].T).max() if (S[i][j] - S[j][i].T).nnz else 0.0
                if gap > 1e-10 * big:
                    raise ValueError(f"invariants['S']: S_{'xyz'[j]}{'xyz'[i]} is not the transpose of "
                                     f"S_{'xyz'[i]}{'xyz'[j]} (they differ by {gap:.3g})")
        gap = abs(sum(S[i][i] for i in range(d)) - self._M).max()
        if gap > 1e-10 * big:
            raise ValueError(f"invariants['S']: sum S_ii differs from the mass matrix by {gap:.3g} (max |M| = "
                             f"{big:.3g}): not the same model or DOF map")
        s_in = _checks.array("invariants['s']", invariants["s"], shape=(d, d, n))
        s = np.array([[self._P @ s_in[i, j] for j in range(d)] for i in range(d)])
        R = self.rigid_motions()
        Mo = np.array([S[i][i] @ R[:, i] for i in range(d)])
        # the rigid rotations: h_k = M r_k = s_qp - s_pq (docs/theory.md section 3.18)
        h = self._M @ R[:, d:]
        for c, (p, q) in enumerate([(0, 1)] if d == 2 else [(1, 2), (2, 0), (0, 1)]):
            gap = np.abs(s[q, p] - s[p, q] - h[:, c]).max()
            if gap > 1e-8 * max(np.abs(h[:, c]).max(), 1e-300):
                raise ValueError(f"invariants['s']: s_{'xyz'[q]}{'xyz'[p]} - s_{'xyz'[p]}{'xyz'[q]} differs from M r "
                                 f"(r the rigid rotation about {'xyz'[2] if d == 2 else 'xyz'[c]}) by {gap:.3g}: the "
                                 "first moments, the node coordinates or the DOF map do not fit M")
        return {"S": S, "s": s, "Mo": Mo}

    def _block_arg(self, name, X):
        _, sp, _ = _scipy()
        X = sp.csr_matrix(X, dtype=float) if sp.issparse(X) else sp.csr_matrix(_checks.array(name, X, ndim=2))
        if X.shape != (self.ndof, self.ndof):
            raise ValueError(f"{name} must have shape {(self.ndof, self.ndof)}, got {X.shape}")
        if not np.all(np.isfinite(X.data)):
            raise ValueError(f"{name} has non-finite entries")
        return X

    @classmethod
    def read(cls, mass, stiffness, dof_map, mesh, *, dim=None, geometric=None, invariants=None):
        """Read M and K from Matrix Market files (the files ``scipy.io.mmwrite`` writes and FE
        codes export: coordinate or array, general or symmetric, real), the DOF map from a
        text file of two integer columns (node, DOF) or an array, and the mesh from a file
        (Gmsh, Abaqus .inp, VTU, ...: a mesh of plane or solid cells as :meth:`Mesh.read`
        reads it, or a beam or shell model's nodes and node sets) or as the constructor
        takes it.  ``geometric`` (the K_G cases) and ``invariants["S"]`` (the S_ij blocks)
        may hold Matrix Market files, ``invariants["s"]`` a Matrix Market array of shape
        (n, dim^2) (column i dim + j: s_ij).  Every file is read as a regular file of at
        most ``MATRIX_FILE_MAX`` bytes and its size line checked before anything it
        declares is allocated; errors name the file."""
        import io

        from ._io import read_bytes
        from .meshes import Mesh, _from_file, read_meshio

        def matrix(name, p, shape=None):
            if not (isinstance(p, (str, bytes)) or hasattr(p, "__fspath__")):
                return p
            p = _checks.path(name, p)
            X = _read_matrix_market(name, p, read_bytes(p, limit=MATRIX_FILE_MAX, what="Matrix Market file"),
                                    shape)
            try:
                return cls._matrix_arg(name, X) if shape is None else X
            except ValueError as exc:
                raise ValueError(f"{p}: {exc}") from None

        M, K = matrix("mass", mass), matrix("stiffness", stiffness)
        n = M.shape[0]
        if isinstance(dof_map, (str, bytes)) or hasattr(dof_map, "__fspath__"):
            p = _checks.path("dof_map", dof_map)
            raw = read_bytes(p, limit=MATRIX_FILE_MAX, what="DOF map")
            try:
                dof_map = np.loadtxt(io.BytesIO(raw), dtype=float, ndmin=2)
            except (ValueError, UnicodeError, IndexError) as exc:
                raise ValueError(f"dof_map: {p}: not two columns of integers ({exc})") from None
        if not isinstance(mesh, Mesh) and (isinstance(mesh, str) or hasattr(mesh, "__fspath__")):
            p = _checks.path("mesh", mesh)
            mesh = _from_file(p, read_meshio(p), lambda m: _model_mesh(m, dim))
        else:
            mesh = _model_mesh(mesh, dim)
        if isinstance(geometric, Mapping):
            geometric = {k: matrix(f"geometric[{k!r}]", v, (n, n)) for k, v in geometric.items()}
        elif isinstance(geometric, (list, tuple)):
            geometric = [matrix(f"geometric[{k}]", v, (n, n)) for k, v in enumerate(geometric)]
        if isinstance(invariants, Mapping) and set(invariants) == {"S", "s"}:
            S = invariants["S"]
            if isinstance(S, (list, tuple)):
                S = [[matrix(f"invariants['S'][{i}][{j}]", X, (n, n)) for j, X in enumerate(row)]
                     if isinstance(row, (list, tuple)) else row for i, row in enumerate(S)]
            s = invariants["s"]
            if isinstance(s, (str, bytes)) or hasattr(s, "__fspath__"):
                d = mesh.dim
                s = np.asarray(matrix("invariants['s']", s, (n, d * d)).toarray()).T.reshape(d, d, n)
            invariants = {"S": S, "s": s}
        return cls(M, K, dof_map, mesh, dim=dim, geometric=geometric, invariants=invariants)

    # what ReducedBody and the Body contract read
    def mass_matrix(self):
        """M in node-major order (ndof = nodes x DOFs per node), CSR."""
        return self._M

    def stiffness_matrix(self):
        """K in node-major order, CSR."""
        return self._K

    def inertia_invariants(self) -> dict:
        """S (a dim x dim nested list of CSR), s (dim, dim, ndof), Mo (dim, ndof): from M and
        the node coordinates (the class's formulas), or as given (``invariants``)."""
        inv = self._invariants
        return {"S": [list(row) for row in inv["S"]], "s": inv["s"].copy(), "Mo": inv["Mo"].copy()}

    @property
    def model(self) -> dict:
        return {"element": "imported", "nodes": self.n_nodes, "dim": self.dim, "rotations": self.rotations}

    def _straight_kg(self):
        return False

    def _node_index(self, node, name="node"):
        return _checks.index(name, node, self.n_nodes, "nodes")

    def node_set(self, selector):
        """As MeshBody.node_set: a set name, a predicate on the coordinates, indices."""
        from .meshes import MeshBody

        return MeshBody.node_set(self, selector)

    def support_mask(self, supports):
        """As MeshBody.support_mask (``"fixed"``/``"clamped"``: every DOF of the nodes,
        ``"pinned"``: their displacements)."""
        from .meshes import MeshBody

        return MeshBody.support_mask(self, supports)

    def constraint_matrix(self, supports):
        return np.eye(self.ndof)[self.support_mask(supports)]

    def displacement_field(self, d):
        from .meshes import MeshBody

        return MeshBody.displacement_field(self, d)

    def write_vtu(self, path, displacement=None, point_data=None, stresses=False):
        """The mesh with a displacement field (no stresses: no elements)."""
        if stresses:
            raise NotSupportedError("ImportedModel does not support stresses: its elements are not known")
        data = dict(point_data or {})
        if displacement is not None:
            data["displacement"] = self.displacement_field(displacement)
        return self.mesh.write(path, point_data=data, file_format="vtu")

    def write_modes(self, path, result, instant=0, stresses=False):
        """Mode shapes as VTU point data ``mode_k_f=...Hz`` (MeshBody.write_modes without stresses)."""
        from .meshes import MeshBody

        if stresses:
            raise NotSupportedError("ImportedModel does not support stresses: its elements are not known")
        return MeshBody.write_modes(self, path, result, instant, stresses=False)

    def stresses(self, d, at="gauss"):
        raise NotSupportedError("ImportedModel does not support stresses: its elements are not known "
                                "(import the mesh as a MeshBody to recover stresses)")

    section_forces = stresses
