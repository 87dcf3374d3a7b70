"""The parts of a mechanism: bodies (rigid bodies, elastic links), joints, springs and
the independent coordinates (docs/theory.md sections 5.11 and 5.14).

The parts say the space: points of the plane (2-vectors) make a planar mechanism, points
of space (3-vectors) a spatial one.  :class:`Revolute`, :class:`Prismatic`,
:class:`Spring` and :class:`Coordinate` serve both; the spatial bodies and the joints
only space has are in :mod:`kanefem.mechanism.spatial`."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _checks, _core
from ..bodies import AxialBar, FlexibleBody, NotSupportedError, PlanarBeam


#: the ground's name in joints and springs
GROUND = "ground"
_COMPONENTS = {"x": 0, "y": 1, "angle": 2}


def _point(name, value):
    return tuple(float(v) for v in _checks.array(name, value, shape=(2,)))


def _vector(name, value):
    """A point or direction of the plane (2,) or of space (3,), as a tuple."""
    a = _checks.array(name, value, ndim=1)
    if a.shape not in ((2,), (3,)):
        raise ValueError(f"{name} must have 2 (planar) or 3 (spatial) components, got shape {a.shape}")
    return tuple(float(v) for v in a)


def _rayleigh(name, value):
    """A link's Rayleigh damping (alpha [1/s], beta [s]), both >= 0, as a tuple (a TypeError
    for anything but a pair, a ValueError for a negative or non-finite one)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise TypeError(f"{name}: damping must be (alpha, beta), got {_checks._short(value)}")
    return tuple(_checks.real(f"{name}: damping", v, nonnegative=True) for v in value)


def _direction(name, value, dim):
    """A unit direction of dim components (a zero one refused by name)."""
    a = _checks.array(name, value, shape=(dim,))
    n = float(np.linalg.norm(a))
    if not n > 0:
        raise ValueError(f"{name} must not be zero")
    return tuple(float(v) for v in a / n)


def _rot(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s], [s, c]])


# ---------------------------------------------------------------- bodies


@dataclass(frozen=True)
class RigidBody:
    """A rigid body, as it lies in the drawing.

    Attributes
    ----------
    name : str
    mass : float
        Mass [kg] (>= 0).
    inertia : float
        Moment of inertia about the mass centre [kg m^2] (>= 0).
    centre : (float, float)
        The mass centre in the drawing [m].
    angle : float
        The body axes' angle in the drawing [rad].
    """

    name: str
    mass: float
    inertia: float
    centre: tuple = (0.0, 0.0)
    angle: float = 0.0

    def __post_init__(self):
        _name("body name", self.name)
        object.__setattr__(self, "mass", _checks.real(f"{self.name}: mass", self.mass, nonnegative=True))
        object.__setattr__(self, "inertia", _checks.real(f"{self.name}: inertia", self.inertia, nonnegative=True))
        object.__setattr__(self, "centre", _point(f"{self.name}: centre", self.centre))
        object.__setattr__(self, "angle", _checks.real(f"{self.name}: angle", self.angle))


class _LinkModel:
    """What the elastic links of both spaces (:class:`ElasticLink`, and
    :class:`~kanefem.mechanism.SpatialLink`) share: the body they compute with (a body of
    elements, a Craig-Bampton ReducedBody, or a small MeshBody reduced exactly with every
    fixed-interface mode), their reference conditions (checked to hold the link's rigid
    motion) and their ports, where joints attach (a line body's nodes, a reduced body's
    interface items).  A subclass sets ``_DIM`` (its space) and ``_LINE`` (its line
    bodies)."""

    _DIM = 2
    _LINE = (PlanarBeam, AxialBar)
    #: refuse sections turning to second order (rotary inertia) at once (a planar link's
    #: K_om is -omega^2 M in its one-way runs too); a spatial link refuses them two ways only
    _REFUSE_SECOND = True

    def _set_model(self, body, supports, geometric):
        """``model``, ``supports``, ``_model_supports`` and ``_fixed`` of the link's body."""
        from ..meshes import MeshBody
        from ..reduced import ReducedBody, _SymmetricFactor

        if self._REFUSE_SECOND and getattr(body, "rotary_inertia", False):  # docs/theory.md section 2.9
            raise NotSupportedError(f"{self.name}: an elastic link does not support a body with rotary "
                                    "inertia (the mechanism's K_om is -omega^2 M); give rotary_inertia=False")
        model_supports = None
        if isinstance(body, ReducedBody):
            if body.basis != "craig-bampton":
                raise NotSupportedError(f"{self.name}: an elastic link does not support a ReducedBody with a "
                                        f"{body.basis} basis: joints attach at physical interface DOFs, which "
                                        "a Craig-Bampton basis keeps (basis='craig-bampton')")
            model = body
            if supports is None:
                supports = self._default_reduced_supports(body)
        elif isinstance(body, MeshBody):
            if supports is None or isinstance(supports, str):
                raise ValueError(f"{self.name}: a MeshBody link needs its reference conditions as "
                                 "{selector: kind} (each selector, a node, a node set or a predicate, a port "
                                 f"where joints attach), got supports = {supports!r}")
            items = list(supports.items()) if isinstance(supports, dict) else supports
            if not (isinstance(items, (list, tuple)) and items and
                    all(isinstance(p, (list, tuple)) and len(p) == 2 for p in items)):
                raise TypeError(f"{self.name}: supports of a MeshBody link must be a dict {{selector: kind}} or "
                                f"(selector, kind) pairs, one per port, got {_checks._short(supports)}")
            model = ReducedBody(body, [sel for sel, _ in items], n_modes="all",
                                geometric_stiffness=geometric, prestress_supports="free" if geometric else None)
            model_supports = {k: kind for k, (_, kind) in enumerate(items)}
        else:
            model = body
            if supports is None:
                supports = self._default_line_supports(body)
        object.__setattr__(self, "supports", supports)
        object.__setattr__(self, "model", model)
        # the reference conditions as the model takes them (a MeshBody link's: on its items)
        object.__setattr__(self, "_model_supports", model_supports if isinstance(body, MeshBody) else supports)
        fixed = model.support_mask(self._model_supports)
        object.__setattr__(self, "_fixed", fixed)
        if geometric:
            self._check_load_cases("geometric_stiffness=True")
        # the reference conditions must hold the link's rigid motion: K on the free DOFs regular
        free = ~fixed
        K = model.stiffness_matrix()
        Kf = K[np.ix_(free, free)] if isinstance(K, np.ndarray) else K.tocsr()[free][:, free]
        hold = ("hold its translations at two ports, or its translations and rotation at one" if self._DIM == 2 else
                "hold its translations at three ports not on a line, or at two and its rotation about the line "
                "through them at one, or its translations and rotations at one")
        _SymmetricFactor(Kf, ValueError(
            f"{self.name}: the reference conditions supports = {supports!r} leave a rigid motion of the link "
            f"free (K on its free coordinates is singular): {hold}"))

    def _check_load_cases(self, what):
        """A reduced link's K_G needs the load cases of its free body and interface
        (``prestress_supports="free"``): NotSupportedError naming ``what`` otherwise."""
        model = self.model
        if self._is_line() or model._n_load:
            return
        raise NotSupportedError(
            f"{self.name}: {what} needs the link's K_G load cases: its ReducedBody "
            + ("has no K_G" if not model.kept["geometric_stiffness"] else "made its K_G with the interface held")
            + "; build it with prestress_supports='free' (the inertial cases of the free body and one unit "
            "load case per interface DOF, which the joint forces combine), or leave K_G out "
            "(geometric_stiffness=False)")

    def _is_line(self):
        return isinstance(self.body, self._LINE)

    def ports(self):
        """Where joints attach: (positions (nport, dim) in the link's frame [m], dofs (nport,
        3) in the plane: the coordinates of ``model`` for each port's translations along x, y
        and its rotation; (nport, 6) in space: translations along x, y, z and rotations about
        them; -1 where there is none): a line body's nodes, a reduced body's interface items."""
        from ..reduced import _DOF_MOTION

        model, dim = self.model, self._DIM
        if self._is_line():
            nd = model.dofs_per_node
            dofs = np.full((model.n_nodes, 3 if dim == 2 else 6), -1, dtype=np.int64)
            for c, nm in enumerate(model.dof_names):  # u, v, w, theta (about z), theta_x ...
                what, axis = _DOF_MOTION[nm]
                slot = axis if what == "t" else (2 if dim == 2 else 3 + axis)
                dofs[:, slot] = np.arange(model.n_nodes) * nd + c
            x = np.zeros((model.n_nodes, dim))
            k = min(dim, model.nodes.shape[1])
            x[:, :k] = model.nodes[:, :k]
            return x, dofs
        return model._ports(dim)

    def _node(self, node):
        """A node's position in the link's frame (a line body's; a reduced or mesh link's full
        body's), (dim,)."""
        nodes = self.body.nodes if self._is_line() or self.model is not self.body else self.model.full_nodes()
        x = nodes[_checks.index("node", node, nodes.shape[0], "nodes")] if not isinstance(node, int) or node >= 0 \
            else nodes[node]
        out = np.zeros(self._DIM)
        out[:min(len(x), self._DIM)] = x[:self._DIM]
        return out

    def _translations(self, free):
        """The translations along x, y (and z in space) at the full body's nodes of a reduced
        link's free coordinates ``free`` (rows of its basis): a tuple of dim (nodes, nfree)
        arrays; every row of the basis (and zeros) where the full body's DOF layout is unknown."""
        V = self.model.basis_matrix
        rows = self.model._translation_rows(self._DIM)
        if rows is None:
            return (V[:, free],) + tuple(np.zeros((V.shape[0], len(free))) for _ in range(self._DIM - 1))
        *rs, _ = rows
        return tuple(V[r][:, free] if r is not None else np.zeros((len(rs[0]), len(free))) for r in rs)

    def _coordinates(self, name, d):
        """Displacements over the body's DOFs as ``model``'s coordinates: the same, or for a
        MeshBody link the coordinates of its exact reduction (d must lie in its span: a rigid
        interface item moves rigidly)."""
        if self.model is self.body:
            return d
        V = self.model.basis_matrix
        q, *_ = np.linalg.lstsq(V, d, rcond=None)
        if np.abs(V @ q - d).max() > 1e-9 * max(np.abs(d).max(), 1e-300):
            raise ValueError(f"{name}: the displacements are not a motion of the link's reduction (its "
                             "rigid interface items move rigidly)")
        return q

    def _middle_node(self):
        """The full body's node nearest the mass centre (a reduced or mesh link's)."""
        nodes = self.model.full_nodes()
        if not nodes.size:
            return 0
        c = np.asarray(self._rigid_centre_local(), float)
        return int(np.argmin(np.linalg.norm(nodes[:, :self._DIM] - c[:nodes.shape[1]][:self._DIM], axis=1)))

    def expand(self, d):
        """The link's displacements over ``model``'s coordinates as displacements over its
        body's DOFs: the identity, or a MeshBody link's reduction ``model.expand``."""
        if self.model is self.body:
            return d
        return self.model.expand(d)


@dataclass(frozen=True, eq=False)
class ElasticLink(_LinkModel):
    """An elastic link: a flexible body on a rigid body's axes (docs/theory.md sections
    5.11-5.12).

    The link's frame (the body's own axes: a beam's x axis, a mesh's coordinates) has its
    origin at ``start`` and its x axis along ``angle`` in the drawing.  In the rigid model
    the link is the rigid body of its flexible body: mass, mass centre and inertia about
    it from its invariants (the core's ``kf_body_rigid``: a straight beam's are
    ``rho A L``, mid length, ``m L^2 / 12``; a reduced body's follow from its projected
    invariants).  Its elastic displacements are measured in that frame with the
    reference conditions ``supports``, which must hold the link's rigid motion (checked:
    K on the free coordinates must be positive definite); joints attach to it at *ports*
    whose translations the reference conditions hold: a line body's nodes, a reduced
    body's interface nodes (an interface item of several nodes is one port, at their
    centroid: rigid, or distributing, at their weighted centroid, carrying the joint's
    force and moment to them by their weights without stiffening them; docs/theory.md
    section 3.18).

    Attributes
    ----------
    name : str
    body : PlanarBeam, AxialBar, ReducedBody or MeshBody
        The flexible body.  A straight :class:`~kanefem.PlanarBeam` or
        :class:`~kanefem.AxialBar` on its frame's x axis; a Craig-Bampton
        :class:`~kanefem.ReducedBody` (of a beam, a plane or solid mesh or imported
        matrices: joints at its interface items; a spatial one moves in the frame's x-y
        plane, docs/theory.md section 5.12); or a small :class:`~kanefem.MeshBody`, which
        the link reduces exactly (``model``: Craig-Bampton with every fixed-interface mode,
        the interface the items its ``supports`` name; a port of several nodes is rigid,
        or distributing given as (``{"nodes": selector, "kind": "distributing"}``, kind)
        pairs).
    start : (float, float)
        Where the frame origin (x = 0 of the body) is in the drawing [m].
    angle : float
        The frame's x axis in the drawing [rad].
    supports : str or dict, optional
        Reference conditions, as the body's ``support_mask`` takes them.  Default: a
        beam's ``"pinned-pinned"`` (u = v = 0 at both ends, the frame through the end
        joints; an AxialBar's ``"fixed-fixed"``), a reduced body's ``"pinned"`` (the
        translations of every interface item; ``"clamped"`` where it has one item; a
        spatial body's first item also held against rotation about x and y, a hinge about
        z, so that the frame stays in the plane).  A MeshBody link needs them:
        ``{selector: kind}``, each selector (a node, a node set or a predicate) a port.
    damping : (float, float)
        Rayleigh damping (alpha [1/s], beta [s]) of the elastic coordinates.
    geometric_stiffness : bool
        Add K_G in the two-way runs (:meth:`Mechanism.simulate_flexible`), from the
        link's loads known from the coupled solution at every step: a straight line
        body's axial force (joint forces at its ends and axial inertia); a reduced
        body's prestress cases, its frame's inertial loads and the joint forces on its
        interface (a ReducedBody built with ``prestress_supports="free"``; a MeshBody
        link makes them).  Default on: without it a link under thrust or centrifugal
        tension has the wrong lateral stiffness (the slider-crank's rod is 26 % off a
        converged reference with it over a turn, a swinging flexible pendulum 97 % over
        half a swing; docs/theory.md section 5.12).  The one-way
        :meth:`Mechanism.link_eigenvalues` takes its own ``geometric_stiffness``
        argument.
    model : FlexibleBody
        What the link computes with (set from ``body``): the body itself, or a MeshBody's
        exact reduction.

    Raises
    ------
    TypeError
        A body of another type.
    NotSupportedError
        A beam with rotary inertia, a free-interface or spatial reduced body, K_G of a
        body without the load cases a link needs (named, with what would do it).
    ValueError
        Reference conditions that leave a rigid motion of the link free.
    """

    name: str
    body: FlexibleBody
    start: tuple = (0.0, 0.0)
    angle: float = 0.0
    supports: object = None
    damping: tuple = (0.0, 0.0)
    geometric_stiffness: bool = True

    def __post_init__(self):
        from ..reduced import ReducedBody

        _name("link name", self.name)
        body = self.body
        geometric = _checks.flag("geometric_stiffness", self.geometric_stiffness)
        object.__setattr__(self, "geometric_stiffness", geometric)
        from ..meshes import MeshBody
        if not isinstance(body, (PlanarBeam, AxialBar, ReducedBody, MeshBody)):
            raise TypeError(f"{self.name}: body must be a PlanarBeam or an AxialBar, a ReducedBody or a "
                            f"plane MeshBody, got {type(body).__name__}")
        self._set_model(body, self.supports, geometric)
        object.__setattr__(self, "start", _point(f"{self.name}: start", self.start))
        object.__setattr__(self, "angle", _checks.real(f"{self.name}: angle", self.angle))
        object.__setattr__(self, "damping", _rayleigh(self.name, self.damping))
        rigid = _core.body_rigid(body=self.model._body)
        object.__setattr__(self, "_rigid", (float(rigid["mass"]), rigid["centre"][:2].copy(),
                                            float(rigid["inertia"][2, 2])))

    def _default_reduced_supports(self, red):
        return _default_supports(red)

    @staticmethod
    def _default_line_supports(body):
        return "pinned-pinned" if isinstance(body, PlanarBeam) else "fixed-free"

    def _rigid_centre_local(self):
        return self._rigid[1]

    # the rigid body of the flexible body (docs/theory.md section 5.12)
    @property
    def mass(self) -> float:
        """The link's mass [kg]."""
        return self._rigid[0]

    @property
    def inertia(self) -> float:
        """The link's moment of inertia about its mass centre [kg m^2]."""
        return self._rigid[2]

    @property
    def centre_local(self) -> np.ndarray:
        """The mass centre in the link's frame [m], (2,)."""
        return self._rigid[1].copy()

    @property
    def x_centre(self) -> float:
        """The mass centre on the frame's x axis [m] (a line body's)."""
        return float(self._rigid[1][0])

    @property
    def centre(self) -> tuple:
        c = np.asarray(self.start) + _rot(self.angle) @ self._rigid[1]
        return (float(c[0]), float(c[1]))

    def _to_drawing(self, x):
        """A point of the link's frame in the drawing."""
        return np.asarray(self.start) + _rot(self.angle) @ np.asarray(x, float)[:2]

    def port_point(self, port) -> tuple:
        """A port's position in the drawing [m]."""
        xy = self.ports()[0][_checks.index("port", port, self.ports()[0].shape[0], "ports")]
        return tuple(float(v) for v in self._to_drawing(xy))

    def node_point(self, node) -> tuple:
        """A node's position in the drawing [m] (node -1: the last); a reduced or mesh
        link's full body's node."""
        return tuple(float(v) for v in self._to_drawing(self._node(node)))

    @property
    def end(self) -> tuple:
        """The last node in the drawing [m]."""
        return self.node_point(-1)


def _default_supports(red):
    """A reduced link's default reference conditions: ``"clamped"`` with one interface
    item; ``"pinned"`` (every item's translations) for a planar body; for a spatial one also
    the first item's rotations about x and y (a hinge about z: the frame stays in the plane)."""
    from ..reduced import _DOF_MOTION

    if len(red.interface) == 1:
        return "clamped"
    if red.dim == 2:
        return "pinned"
    out = {}
    for k in range(len(red.interface)):
        local = [nm[len(f"i{k}_"):] for nm in red._interface_names if nm.startswith(f"i{k}_")]
        motion = {nm: _DOF_MOTION.get(nm) for nm in local}
        out[k] = tuple(nm for nm in local if motion[nm] is not None and (motion[nm][0] == "t" or (
            k == 0 and motion[nm] != ("r", 2))))
    return out


# ---------------------------------------------------------------- joints and forces


def _name(what, name):
    if not isinstance(name, str) or not name:
        raise TypeError(f"{what} must be a non-empty string, got {name!r}")
    return name


@dataclass(frozen=True)
class _Joint:
    name: str
    bodies: tuple
    at: tuple
    k: float = 0.0
    s0: float | None = None
    damping: float = 0.0
    friction: float = 0.0
    v_F: float = 1e-3

    def __post_init__(self):
        _name("joint name", self.name)
        if not (isinstance(self.bodies, (tuple, list)) and len(self.bodies) == 2):
            raise ValueError(f"{self.name}: bodies must be two body names, got {self.bodies!r}")
        object.__setattr__(self, "bodies", tuple(_name(f"{self.name}: body", b) for b in self.bodies))
        if self.bodies[0] == self.bodies[1]:
            raise ValueError(f"{self.name}: joins {self.bodies[0]!r} to itself")
        object.__setattr__(self, "at", _vector(f"{self.name}: at", self.at))
        self._laws()

    @property
    def space(self) -> int:
        """2 for a joint of the plane, 3 for one of space (the length of ``at``)."""
        return len(self.at)

    def _laws(self):
        """Check the force law's numbers (one coordinate)."""
        for f in ("k", "damping", "friction"):
            object.__setattr__(self, f, _checks.real(f"{self.name}: {f}", getattr(self, f), nonnegative=True))
        object.__setattr__(self, "v_F", _checks.real(f"{self.name}: v_F", self.v_F, positive=True))
        if self.s0 is not None:
            object.__setattr__(self, "s0", _checks.real(f"{self.name}: s0", self.s0))


def _spatial_joint_options(joint, axis, default_axis, offset):
    """Check a shared joint's ``axis`` and ``offset`` by its space: in the plane the
    axis is the plane's (Revolute: none; Prismatic: a 2-vector) and there is no offset;
    in space a unit 3-vector (default ``default_axis``) and the coordinate's value in
    the drawing."""
    name = joint.name
    if joint.space == 2:
        if offset != 0.0:
            raise ValueError(f"{name}: offset is for a spatial joint (a planar joint's coordinate is "
                             "measured in the plane's axes)")
        return axis
    object.__setattr__(joint, "offset", _checks.real(f"{name}: offset", offset))
    return _direction(f"{name}: axis", default_axis if axis is None else axis, 3)


@dataclass(frozen=True)
class Revolute(_Joint):
    """A revolute joint at a point of the drawing; optional force law on its
    relative angle s: torque -k (s - s0) - damping s' - friction tanh(s' / v_F)
    on the second body (reaction on the first); s0 defaults to the drawing's angle.

    In the plane (``at`` a 2-vector) s = theta1 - theta0, the bodies' angle
    difference.  In space (``at`` a 3-vector) the bodies turn about ``axis``
    (default z) and s is ``offset`` plus the angle turned since the drawing (the
    right-hand rule about the axis).

    Attributes
    ----------
    name : str
    bodies : (str, str)
        The two bodies (or ``"ground"``); its force is the first's on the second.
    at : (float, float) or (float, float, float)
        The joint's point in the drawing [m].
    k, s0, damping, friction, v_F : float
        Torsion spring [N m/rad], its free angle [rad], viscous damper [N m s],
        Coulomb friction torque [N m] regularized over v_F [rad/s].
    axis : (float, float, float), optional
        Spatial: the axis in the drawing (normalized; default (0, 0, 1)).
    offset : float
        Spatial: the angle s in the drawing [rad] (default 0).
    """

    axis: tuple | None = None
    offset: float = 0.0

    def __post_init__(self):
        super().__post_init__()
        if self.space == 2 and self.axis is not None:
            raise ValueError(f"{self.name}: a planar revolute turns about the plane's normal: it takes "
                             "no axis (give 'at' 3 components for a spatial one)")
        object.__setattr__(self, "axis", _spatial_joint_options(self, self.axis, (0.0, 0.0, 1.0), self.offset))


@dataclass(frozen=True)
class Prismatic(_Joint):
    """A prismatic joint: the second body slides along ``axis`` (drawing direction,
    fixed in the first body) without turning relative to it.  Its coordinate s is
    the distance slid from the drawing's point ``at`` (in space plus ``offset``);
    force law -k (s - s0) - damping s' - friction tanh(s' / v_F) [N] on the second
    body.

    Attributes
    ----------
    axis : (float, float) or (float, float, float)
        The sliding direction in the drawing (normalized; default x).
    offset : float
        Spatial: the slide s in the drawing [m] (default 0).
    """

    axis: tuple | None = None
    offset: float = 0.0

    def __post_init__(self):
        super().__post_init__()
        if self.space == 2:
            object.__setattr__(self, "axis", _direction(f"{self.name}: axis",
                                                        (1.0, 0.0) if self.axis is None else self.axis, 2))
        object.__setattr__(self, "axis", _spatial_joint_options(self, self.axis, (1.0, 0.0, 0.0), self.offset))


@dataclass(frozen=True)
class Weld(_Joint):
    """Two bodies welded at a point (no relative motion); no force law."""

    def __post_init__(self):
        super().__post_init__()
        if self.space != 2:
            raise ValueError(f"{self.name}: a Weld joins bodies of the plane; in space use Fixed "
                             "(kanefem.mechanism.Fixed)")
        if self.k or self.damping or self.friction or self.s0 is not None:
            raise ValueError(f"{self.name}: a weld has no coordinate for a spring, damper or friction")


@dataclass(frozen=True)
class Spring:
    """A spring-damper between point ``at[0]`` of ``bodies[0]`` and ``at[1]`` of
    ``bodies[1]`` (drawing): tension k (L - length) + damping L' [N]; ``length``
    defaults to the drawing's distance."""

    name: str
    bodies: tuple
    at: tuple
    k: float
    length: float | None = None
    damping: float = 0.0

    def __post_init__(self):
        _name("spring name", self.name)
        if not (isinstance(self.bodies, (tuple, list)) and len(self.bodies) == 2):
            raise ValueError(f"{self.name}: bodies must be two body names, got {self.bodies!r}")
        object.__setattr__(self, "bodies", tuple(self.bodies))
        a = _checks.array(f"{self.name}: at", self.at, ndim=2)
        if a.shape not in ((2, 2), (2, 3)):
            raise ValueError(f"{self.name}: at must be two points of the plane (2, 2) or of space (2, 3), "
                             f"got shape {a.shape}")
        object.__setattr__(self, "at", (tuple(float(v) for v in a[0]), tuple(float(v) for v in a[1])))
        object.__setattr__(self, "k", _checks.real(f"{self.name}: k", self.k, nonnegative=True))
        object.__setattr__(self, "damping", _checks.real(f"{self.name}: damping", self.damping, nonnegative=True))
        if self.length is not None:
            object.__setattr__(self, "length", _checks.real(f"{self.name}: length", self.length, nonnegative=True))


@dataclass(frozen=True)
class Coordinate:
    """An independent coordinate: ``component`` of ``body``, or a coordinate of
    ``joint``.

    Planar: a body's "x", "y" or "angle"; a joint's coordinate (a revolute's relative
    angle, a prismatic's sliding distance), ``component`` None.  Spatial: a body's
    "x", "y", "z" (its mass centre) or "rx", "ry", "rz" (the angles of its rotation R =
    Rx(rx) Ry(ry) Rz(rz); "angle" is "rz"); a joint's coordinate by ``component``:
    "angle" (revolute), "slide" (prismatic), "slide" and "angle" (cylindrical),
    "angle1" and "angle2" (universal), "x", "y" and "angle" (planar), "rx", "ry" and
    "rz" (spherical); None takes a one-coordinate joint's."""

    name: str
    body: str | None = None
    component: str | None = None
    joint: str | None = None

    def __post_init__(self):
        _name("coordinate name", self.name)
        if len(self.name) > 63:  # the core's limit (a planar mechanism's is 23: checked there)
            raise ValueError(f"coordinate name {self.name!r} is longer than 63 characters")
        if (self.joint is None) == (self.body is None):
            raise ValueError(f"{self.name}: give either joint= or body= (with component=)")
        if self.body is not None:
            _checks.choice(f"{self.name}: component", self.component, tuple(_COMPONENTS) + _SPATIAL_COMPONENTS)
        elif self.component is not None and not isinstance(self.component, str):
            raise TypeError(f"{self.name}: component must be a name (a string), got {self.component!r}")


#: a spatial body's components beyond the planar ones
_SPATIAL_COMPONENTS = ("z", "rx", "ry", "rz")
