"""Spatial mechanisms: the parts only space has, and what a spatial description is
when it crosses into the C core (docs/theory.md section 5.14).

A spatial mechanism is described, like a planar one, in one assembled position, the
*drawing*, with points and directions of space (3-vectors):

* :class:`SpatialBody` -- mass, inertia tensor about the mass centre in the body's
  axes, where the mass centre is and how the body's axes are turned in the drawing
  (a rotation matrix or a quaternion);
* :class:`SpatialLink` -- a body whose axes carry finite elements (a
  :class:`~kanefem.Beam3D` or :class:`~kanefem.Bar3D`): its elastic motion one way
  (:meth:`Mechanism.link_eigenvalues`, :meth:`Mechanism.link_response`);
* the joints of space, beside :class:`~kanefem.mechanism.Revolute` and
  :class:`~kanefem.mechanism.Prismatic` with 3-vector points and axes:
  :class:`Cylindrical`, :class:`Spherical`, :class:`Universal`, :class:`Planar`,
  :class:`Fixed`;
* the same :class:`~kanefem.mechanism.Spring`, :class:`~kanefem.mechanism.Coordinate`
  and drives as in the plane.

Each joint has a frame (its axes x, y, z, as the drawing shows them); its coordinates
are slides of the second body's point along the first body's joint axes and the angles
(a, b, c) of the relative rotation Rx(a) Ry(b) Rz(c) of the second frame in the first,
each plus the joint's ``offset`` (its value in the drawing).  Orientations are unit
quaternions inside the solver, updated by the exponential map: no angle
parametrization of a body's orientation, so none of its singularities; only a joint
whose own angles are coordinates (a spherical joint, a universal one) has the
singular position b = +-90 deg of them, named where it is reached.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _checks, _core, _records
from ..bodies import AxialBar, Bar3D, Beam3D, FlexibleBody, NotSupportedError, PlanarBeam
from .parts import (GROUND, Coordinate, ElasticLink, Prismatic, Revolute, RigidBody, Spring, Weld, _direction,
                    _LinkModel, _name, _rayleigh)

# ---------------------------------------------------------------- rotations


def rotation(name, value) -> np.ndarray:
    """A rotation matrix (global = R body) from a 3 x 3 matrix (orthonormal within
    1e-6, determinant +1; re-orthonormalized) or a quaternion (w, x, y, z) of any
    nonzero norm; None is the identity.  Refused by name otherwise."""
    if value is None:
        return np.eye(3)
    a = _checks.array(name, value)
    if a.shape == (4,):
        n = float(np.linalg.norm(a))
        if not n > 1e-150:
            raise ValueError(f"{name} = {a.tolist()} is a quaternion of zero norm: no orientation")
        return quaternion_matrix(a / n)
    if a.shape != (3, 3):
        raise ValueError(f"{name} must be a rotation matrix (3, 3) or a quaternion (w, x, y, z), got "
                         f"shape {a.shape}")
    err = float(np.abs(a.T @ a - np.eye(3)).max())
    det = float(np.linalg.det(a))
    if not (err <= 1e-6 and det > 0):
        raise ValueError(f"{name} is not a rotation matrix: |R^T R - I| = {err:.3g}, det = {det:.6g} "
                         "(orthonormal axes as columns, right-handed)")
    return quaternion_matrix(quaternion(a))


def quaternion_matrix(q) -> np.ndarray:
    """The rotation matrix of a unit quaternion (w, x, y, z)."""
    w, x, y, z = (float(v) for v in q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def quaternion(R) -> np.ndarray:
    """The unit quaternion (w, x, y, z), w >= 0, of a rotation matrix (Shepperd's method:
    from the largest of w^2, x^2, y^2, z^2)."""
    from ..motion import _quaternions_of

    q = _quaternions_of(np.asarray(R, float)[None])[0]
    q = q / np.linalg.norm(q)
    return q if q[0] >= 0 else -q


def quaternions_matrices(q) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4) (w, x, y, z)."""
    q = np.asarray(q, float)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    R = np.empty(q.shape[:-1] + (3, 3))
    R[..., 0, 0] = 1 - 2 * (y * y + z * z)
    R[..., 0, 1] = 2 * (x * y - w * z)
    R[..., 0, 2] = 2 * (x * z + w * y)
    R[..., 1, 0] = 2 * (x * y + w * z)
    R[..., 1, 1] = 1 - 2 * (x * x + z * z)
    R[..., 1, 2] = 2 * (y * z - w * x)
    R[..., 2, 0] = 2 * (x * z - w * y)
    R[..., 2, 1] = 2 * (y * z + w * x)
    R[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return R


def axis_frame(z) -> np.ndarray:
    """A right-handed frame (axes as columns) whose z is the unit vector z; its x is
    the global axis (x, else y) least aligned with z, made perpendicular."""
    z = np.asarray(z, float)
    e = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = e - (e @ z) * z
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def _point3(name, value):
    return tuple(float(v) for v in _checks.array(name, value, shape=(3,)))


def _inertia(name, value):
    """An inertia tensor (3, 3) from a tensor or its principal moments (3,): symmetric,
    principal moments >= 0, each at most the sum of the other two (a real body's)."""
    a = _checks.array(name, value)
    if a.shape == (3,):
        a = np.diag(a)
    if a.shape != (3, 3):
        raise ValueError(f"{name} must be an inertia tensor (3, 3) or principal moments (3,), got shape {a.shape}")
    scale = float(np.abs(np.diag(a)).sum())
    if not np.allclose(a, a.T, rtol=0.0, atol=1e-12 * scale):
        raise ValueError(f"{name} is not symmetric: {a.tolist()}")
    a = 0.5 * (a + a.T)
    ev = np.linalg.eigvalsh(a)
    tol = 1e-10 * scale
    if ev[0] < -tol:
        raise ValueError(f"{name} has a negative principal moment {ev[0]:.6g} kg m^2")
    if ev[2] > ev[0] + ev[1] + tol:
        raise ValueError(f"{name} has principal moments {ev.tolist()} kg m^2, one larger than the sum of the "
                         "other two: no mass distribution has them")
    a.setflags(write=False)
    return a


# ---------------------------------------------------------------- bodies


@dataclass(frozen=True, eq=False)
class SpatialBody:
    """A rigid body of space, as it lies in the drawing.

    Attributes
    ----------
    name : str
    mass : float
        Mass [kg] (>= 0).
    inertia : array_like, shape (3, 3) or (3,)
        Inertia tensor about the mass centre in the body's axes [kg m^2], or its
        principal moments (the body's axes then its principal axes): symmetric,
        positive semidefinite, each principal moment at most the sum of the other two.
    centre : (float, float, float)
        The mass centre in the drawing [m].
    orientation : array_like, shape (3, 3) or (4,), optional
        The body's axes in the drawing: a rotation matrix (global = R body, the axes as
        columns) or a quaternion (w, x, y, z); default the global axes.  Kept as the
        unit quaternion (w >= 0).
    """

    name: str
    mass: float
    inertia: object
    centre: tuple = (0.0, 0.0, 0.0)
    orientation: object = None

    def __post_init__(self):
        _name("body name", self.name)
        object.__setattr__(self, "mass", _checks.real(f"{self.name}: mass", self.mass, nonnegative=True))
        object.__setattr__(self, "inertia", _inertia(f"{self.name}: inertia", self.inertia))
        object.__setattr__(self, "centre", _point3(f"{self.name}: centre", self.centre))
        R = rotation(f"{self.name}: orientation", self.orientation)
        object.__setattr__(self, "orientation", tuple(float(v) for v in quaternion(R)))

    @property
    def rotation(self) -> np.ndarray:
        """The body's axes in the drawing (global = R body)."""
        return quaternion_matrix(self.orientation)


def _rigid_of_elements(body):
    """(mass, centre (3,), inertia about it (3, 3)) of a body of elements in its frame: a
    spatial body's from the core (``kf_body_rigid``: integrated over the points of its
    inertia invariants, so a Beam3D's sections add their inertia, rho J L about its axis
    and rho I L about the others: the rigid body its floating frame has, docs/theory.md
    section 1.6); a planar line body its line mass (m, mid length, m L^2 / 12 about the
    frame's y and z)."""
    if isinstance(body, (PlanarBeam, AxialBar)):
        m = body.rho * body.A * body.length
        c = np.array([body.origin + 0.5 * body.length, 0.0, 0.0])
        return m, c, np.diag([0.0, 1.0, 1.0]) * m * body.length ** 2 / 12.0
    if body.dim != 3:
        raise NotSupportedError(f"{type(body).__name__}: a spatial link needs a spatial body (of dimension 3)")
    r = _core.body_rigid(body=body._body)
    if not r["mass"] > 0:
        raise ValueError(f"{type(body).__name__}: its elements have no mass")
    I_c = np.asarray(r["inertia"], float)
    return float(r["mass"]), np.asarray(r["centre"], float).copy(), 0.5 * (I_c + I_c.T)


@dataclass(frozen=True, eq=False)
class SpatialLink(_LinkModel):
    """An elastic link of a spatial mechanism: a body whose axes carry a flexible body.

    The link's frame (the flexible body's axes; x along a line body) has its origin at
    ``start`` and its axes ``orientation`` in the drawing, and the link's rigid body
    turns with it.  In the rigid model the link is, by default, the rigid body of its
    flexible body (the core's ``kf_body_rigid``: mass, mass centre and inertia tensor
    integrated over the points of its invariants, a Beam3D's sections with their own
    inertia; a reduced body's from its projected invariants); ``mass``, ``inertia`` and
    ``centre`` replace that for the one-way computations (a robot's link whose hardware
    the section does not hold: a URDF link's own).  Its elastic displacements are
    measured in its frame with the reference conditions ``supports``, which must hold
    the link's rigid motion (checked: K on the free coordinates regular); joints attach
    to it at *ports*, a line body's nodes or a reduced body's interface items, whose
    translations the reference conditions hold where the link is coupled both ways
    (:meth:`~kanefem.mechanism.Mechanism.simulate_flexible`).

    A planar :class:`~kanefem.PlanarBeam` or :class:`~kanefem.AxialBar` may ride on a
    spatial link whose motion keeps its frame's x-y plane (a planar mechanism described
    in space, :meth:`~kanefem.mechanism.Mechanism.from_planar`), one way; its frame
    motion is then checked to be planar.

    Attributes
    ----------
    name : str
    body : Beam3D, Bar3D, ReducedBody, MeshBody, PlanarBeam or AxialBar
        The flexible body: a straight :class:`~kanefem.Beam3D` or :class:`~kanefem.Bar3D`
        on its frame's x axis; a Craig-Bampton :class:`~kanefem.ReducedBody` of a spatial
        body (a beam, a solid mesh or imported matrices: joints at its interface items); a
        small solid :class:`~kanefem.MeshBody`, which the link reduces exactly (``model``:
        Craig-Bampton with every fixed-interface mode, the interface the items its
        ``supports`` name); or planar elements (above).
    start : (float, float, float)
        The frame origin (x = 0 of the elements) in the drawing [m].
    orientation : array_like, shape (3, 3) or (4,), optional
        The frame's axes in the drawing (rotation matrix or quaternion; default global).
    supports : str or dict, optional
        Reference conditions, as the body's ``support_mask`` takes them.  Default: a line
        body's own (a Beam3D's ``"clamped-free"``: a blade, a robot link on its hub; give
        ``"pinned-pinned"``, translations and twist at both ends, for a link with joints at
        both); a reduced body's ``"clamped"`` with one interface item, else the
        translations of every item and, where the items lie on a line, the first item's
        rotation about that line (the axis of x, y, z nearest it).  A MeshBody link needs
        them: ``{selector: kind}``, each selector (a node, a node set or a predicate) a port.
    damping : (float, float)
        Rayleigh damping (alpha [1/s], beta [s]) of the elastic coordinates.
    geometric_stiffness : bool
        Add K_G in the two-way runs, from the link's loads known from the coupled solution
        at every step: a straight line body's axial force (joint forces at its end nodes
        and axial inertia); a reduced body's prestress cases, its frame's inertial loads and
        the joints' forces and moments on its interface (a ReducedBody built with
        ``prestress_supports="free"``; a MeshBody link makes them).  Default on, as
        :class:`ElasticLink`'s.
    mass : float, optional
        The rigid body's mass [kg], with ``inertia`` and ``centre`` (one way only).
    inertia : array_like, shape (3, 3) or (3,), optional
        Its inertia tensor about its mass centre, in the frame's axes [kg m^2].
    centre : (float, float, float), optional
        Its mass centre in the drawing [m].
    model : FlexibleBody
        What the link computes with (set from ``body``): the body itself, or a MeshBody's
        exact reduction.
    """

    name: str
    body: FlexibleBody
    start: tuple = (0.0, 0.0, 0.0)
    orientation: object = None
    supports: object = None
    damping: tuple = (0.0, 0.0)
    geometric_stiffness: bool = True
    mass: float | None = None
    inertia: object = None
    centre: tuple | None = None

    _DIM = 3
    _LINE = (Beam3D, Bar3D, PlanarBeam, AxialBar)
    _REFUSE_SECOND = False

    def __post_init__(self):
        from ..meshes import MeshBody
        from ..reduced import ReducedBody

        _name("link name", self.name)
        body = self.body
        if not isinstance(body, (Beam3D, Bar3D, PlanarBeam, AxialBar, ReducedBody, MeshBody)):
            raise TypeError(f"{self.name}: body must be a Beam3D, Bar3D, ReducedBody, MeshBody, PlanarBeam or "
                            f"AxialBar, got {type(body).__name__}")
        if isinstance(body, (ReducedBody, MeshBody)) and body.dim != 3:
            raise TypeError(f"{self.name}: a {type(body).__name__} on a spatial link must be spatial (of "
                            f"dimension 3), got one of dimension {body.dim} (a planar one is an ElasticLink's)")
        object.__setattr__(self, "start", _point3(f"{self.name}: start", self.start))
        R = rotation(f"{self.name}: orientation", self.orientation)
        object.__setattr__(self, "orientation", tuple(float(v) for v in quaternion(R)))
        object.__setattr__(self, "damping", _rayleigh(self.name, self.damping))
        geometric = _checks.flag("geometric_stiffness", self.geometric_stiffness)
        object.__setattr__(self, "geometric_stiffness", geometric)
        # K_G's load cases are a two-way (and link_eigenvalues) matter for a reduced link:
        # checked where asked, not here (one way may run without them)
        self._set_model(body, self.supports, False)
        given = [v is not None for v in (self.mass, self.inertia, self.centre)]
        if any(given) and not all(given):
            raise ValueError(f"{self.name}: give mass, inertia and centre together (or none: the elements')")
        if all(given):
            object.__setattr__(self, "mass", _checks.real(f"{self.name}: mass", self.mass, nonnegative=True))
            object.__setattr__(self, "inertia", _inertia(f"{self.name}: inertia", self.inertia))
            object.__setattr__(self, "centre", _point3(f"{self.name}: centre", self.centre))
            object.__setattr__(self, "_rigid", None)
        else:
            m, c, I_c = _rigid_of_elements(self.model)
            object.__setattr__(self, "_rigid", (m, c, I_c))

    def _default_reduced_supports(self, red):
        return _default_spatial_supports(red)

    @staticmethod
    def _default_line_supports(body):
        return body.default_supports

    def _rigid_centre_local(self):
        """The mass centre in the link's frame (the elements', or the given one's)."""
        if self._rigid is None:
            return self.rotation.T @ (np.asarray(self.centre) - np.asarray(self.start))
        return self._rigid[1]

    @property
    def planar(self) -> bool:
        """Whether its elements are planar (they ride in the frame's x-y plane)."""
        return self.model.dim == 2

    @property
    def rotation(self) -> np.ndarray:
        """The frame's (and the link body's) axes in the drawing."""
        return quaternion_matrix(self.orientation)

    def rigid(self):
        """(mass, centre in the drawing (3,), inertia about it in the frame's axes (3, 3))."""
        if self._rigid is None:
            return self.mass, np.asarray(self.centre), np.asarray(self.inertia)
        m, c, I_c = self._rigid
        return m, np.asarray(self.start) + self.rotation @ c, I_c

    def _to_drawing(self, x):
        """A point of the link's frame in the drawing."""
        p = np.zeros(3)
        x = np.asarray(x, float)
        p[:x.shape[0]] = x
        return np.asarray(self.start) + self.rotation @ p

    def node_point(self, node) -> np.ndarray:
        """A node's position in the drawing [m] (node -1: the last); a reduced or mesh
        link's full body's node."""
        return self._to_drawing(self._node(node))

    def port_point(self, port) -> np.ndarray:
        """A port's position in the drawing [m]."""
        x = self.ports()[0]
        return self._to_drawing(x[_checks.index("port", port, x.shape[0], "ports")])

    def _two_way(self):
        """Refuse, by name, what the coupled (two-way) runs cannot hold."""
        if self.planar:
            raise NotSupportedError(f"link {self.name!r} carries planar elements ({type(self.body).__name__}), "
                                    "which move one way only on a spatial link: give it spatial elements (a "
                                    "Beam3D), or run the planar mechanism's simulate_flexible")
        if getattr(self.model, "rotary_inertia", False):
            raise NotSupportedError(f"link {self.name!r}: a beam whose sections turn to second order (rotary "
                                    "inertia) is not implemented two ways (its kinetic energy needs invariants "
                                    "beyond S_ij, docs/theory.md section 1.6); give rotary_inertia=False")
        if self.geometric_stiffness:
            self._check_load_cases("geometric_stiffness=True")


def with_hardware(mech):
    """The mechanism whose two-way runs stand for ``mech``'s: each spatial link with a given
    rigid body (a robot's link: its description's mass, inertia and centre, hardware the
    elements do not hold) becomes its elements' link and a rigid body carrying the rest
    (the description's mass less the elements', its centre and inertia so that the two add
    up to the description's) fixed to the link's frame at its first port whose
    translations the reference conditions hold; the rigid motion is the description's.
    Returns (mechanism, {link name: (elements' link, offset)}), the offset the description's
    mass centre from the elements' in the link's axes; (mech, {}) where no link has one."""
    import dataclasses

    from .model import Mechanism

    bodies, joints, split = [], list(mech.joints), {}
    extra = []
    for b in mech.bodies:
        if not (isinstance(b, SpatialLink) and b._rigid is None):
            bodies.append(b)
            continue
        link = dataclasses.replace(b, mass=None, inertia=None, centre=None)
        m_b, c_b, I_b = b.rigid()
        m_e, c_e, I_e = link.rigid()
        R = b.rotation
        split[b.name] = (link, R.T @ (np.asarray(c_b) - np.asarray(c_e)))
        bodies.append(link)
        m_x = m_b - m_e
        scale = max(m_b, m_e)
        if m_x < -1e-9 * scale:
            raise ValueError(f"link {b.name!r}: its given mass {m_b:.6g} kg is less than its elements' {m_e:.6g} kg: "
                             "two ways its rigid body is its elements' and what they do not hold (give the "
                             "link's whole mass, or none)")
        if m_x <= 1e-12 * scale:
            m_x, c_x = 0.0, np.asarray(c_b, float)
        else:
            c_x = (m_b * np.asarray(c_b) - m_e * np.asarray(c_e)) / m_x

        def steiner(m, c):  # about c_x, in the link's axes
            d = R.T @ (np.asarray(c) - c_x)
            return m * (float(d @ d) * np.eye(3) - np.outer(d, d))

        I_x = np.asarray(I_b) + steiner(m_b, c_b) - np.asarray(I_e) - steiner(m_e, c_e)
        I_x = 0.5 * (I_x + I_x.T)
        ev = np.linalg.eigvalsh(I_x)
        tol = 1e-9 * float(np.abs(np.linalg.eigvalsh(np.asarray(I_b))).max() + np.abs(ev).max())
        if m_x == 0.0 and np.abs(ev).max() <= tol:
            continue  # the description's rigid body is its elements'
        if ev[0] < -tol or ev[2] > ev[0] + ev[1] + tol:
            raise ValueError(f"link {b.name!r}: its given rigid body is not its elements' and a rigid body: the rest "
                             f"(mass {m_x:.6g} kg, principal moments {ev.tolist()} kg m^2 about its centre) is no mass "
                             "distribution; give the link's whole mass and inertia, or none")
        I_x = I_x + max(0.0, -ev[0]) * np.eye(3)  # round-off of the difference, within tol
        ports, dofs = link.ports()
        held = [k for k in range(ports.shape[0]) if all(link._fixed[j] for j in dofs[k, :3] if j >= 0)]
        if not held:
            raise ValueError(f"link {b.name!r}: its reference conditions hold no port's translations, where its "
                             "hardware (its given rigid body less its elements') could be fixed")
        name = f"{b.name}.hardware"
        extra.append(SpatialBody(name, m_x, I_x, centre=tuple(c_x), orientation=b.orientation))
        joints.append(Fixed(name, (b.name, name), tuple(link.port_point(held[0]))))
    if not split:
        return mech, {}
    inner = Mechanism(bodies + extra, joints, mech.coordinates, mech.springs, gravity=mech.gravity,
                      name=mech.name, redundant=mech.redundant)
    return inner, split


def _default_spatial_supports(red):
    """A reduced spatial link's default reference conditions: ``"clamped"`` with one
    interface item; else the translations of every item and, where the items lie on a line,
    the first item's rotation about the coordinate axis nearest that line (the rigid
    motion the translations leave)."""
    from ..reduced import _DOF_MOTION

    items = len(red.interface)
    if items == 1:
        return "clamped"
    x = np.asarray(red.interface_positions, float)
    d = x - x[0]
    collinear = np.linalg.matrix_rank(d, tol=1e-9 * max(float(np.abs(d).max()), 1e-300)) <= 1
    axis = int(np.argmax(np.abs(d[int(np.argmax(np.linalg.norm(d, axis=1)))]))) if collinear else None
    out = {}
    for k in range(items):
        local = [nm[len(f"i{k}_"):] for nm in red._interface_names if nm.startswith(f"i{k}_")]
        motion = {nm: _DOF_MOTION.get(nm, {"rx": ("r", 0), "ry": ("r", 1), "rz": ("r", 2)}.get(nm)) for nm in local}
        out[k] = tuple(nm for nm in local if motion[nm] is not None and (motion[nm][0] == "t" or (
            k == 0 and motion[nm] == ("r", axis))))
    return out


# ---------------------------------------------------------------- the joints only space has


def _per_coordinate(name, value, n, *, nonnegative=False, positive=False, optional=False):
    """A force-law number per coordinate: a scalar (for every one) or a sequence of n."""
    if value is None and optional:
        return None
    if isinstance(value, (list, tuple, np.ndarray)):
        a = _checks.array(name, value, shape=(n,))
        return tuple(_checks.real(f"{name}[{i}]", float(v), nonnegative=nonnegative, positive=positive)
                     for i, v in enumerate(a))
    v = _checks.real(name, value, nonnegative=nonnegative, positive=positive)
    return (v,) * n


@dataclass(frozen=True)
class _SpatialJoint:
    """A joint of space with any number of coordinates, each with its force law."""

    name: str
    bodies: tuple
    at: tuple
    k: object = 0.0
    s0: object = None
    damping: object = 0.0
    friction: object = 0.0
    v_F: object = 1e-3
    offset: object = 0.0

    #: the names of its coordinates (Coordinate.component), in the core's order
    COORDINATES = ()

    def __post_init__(self):
        _name("joint name", self.name)
        if not (isinstance(self.bodies, (tuple, list)) and len(self.bodies) == 2):
            raise ValueError(f"{self.name}: bodies must be two body names, got {self.bodies!r}")
        object.__setattr__(self, "bodies", tuple(_name(f"{self.name}: body", b) for b in self.bodies))
        if self.bodies[0] == self.bodies[1]:
            raise ValueError(f"{self.name}: joins {self.bodies[0]!r} to itself")
        object.__setattr__(self, "at", _point3(f"{self.name}: at", self.at))
        n = len(self.COORDINATES)
        if n == 0:
            if any(getattr(self, f) for f in ("k", "damping", "friction")) or self.s0 is not None:
                raise ValueError(f"{self.name}: a fixed joint has no coordinate for a spring, damper or friction")
            return
        for f in ("k", "damping", "friction"):
            object.__setattr__(self, f, _per_coordinate(f"{self.name}: {f}", getattr(self, f), n, nonnegative=True))
        object.__setattr__(self, "v_F", _per_coordinate(f"{self.name}: v_F", self.v_F, n, positive=True))
        object.__setattr__(self, "s0", _per_coordinate(f"{self.name}: s0", self.s0, n, optional=True))
        object.__setattr__(self, "offset", _per_coordinate(f"{self.name}: offset", self.offset, n))

    space = 3

    def frame(self) -> np.ndarray:
        """The joint's axes in the drawing (columns x, y, z)."""
        return np.eye(3)


@dataclass(frozen=True)
class Cylindrical(_SpatialJoint):
    """A cylindrical joint: the second body slides along and turns about ``axis``
    (fixed in the first body).  Coordinates "slide" [m] and "angle" [rad] (each plus
    ``offset``); force laws per coordinate: ``k``, ``s0``, ``damping``, ``friction``,
    ``v_F`` numbers (for both) or pairs (slide, angle).

    Attributes
    ----------
    axis : (float, float, float)
        In the drawing (normalized; default z).
    """

    axis: tuple = (0.0, 0.0, 1.0)
    COORDINATES = ("slide", "angle")

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "axis", _direction(f"{self.name}: axis", self.axis, 3))

    def frame(self):
        return axis_frame(self.axis)


@dataclass(frozen=True)
class Spherical(_SpatialJoint):
    """A spherical (ball) joint: a common point.  Its coordinates are the angles "rx",
    "ry", "rz" of the second body's rotation relative to the first, Rx(rx) Ry(ry)
    Rz(rz) about the joint frame's axes (``frame``, default the global axes in the
    drawing), each plus ``offset``; they are singular at ry = +-90 deg (only a
    coordinate or a force law on them uses them).

    Attributes
    ----------
    frame_axes : array_like, shape (3, 3) or (4,), optional
        The joint's axes in the drawing (rotation matrix or quaternion; default global).
    """

    frame_axes: object = None
    COORDINATES = ("rx", "ry", "rz")

    def __post_init__(self):
        super().__post_init__()
        R = rotation(f"{self.name}: frame_axes", self.frame_axes)
        object.__setattr__(self, "frame_axes", tuple(float(v) for v in quaternion(R)))

    def frame(self):
        return quaternion_matrix(self.frame_axes)


@dataclass(frozen=True)
class Universal(_SpatialJoint):
    """A universal (Hooke's) joint: a common point, the second body turning about
    ``axes[0]`` (fixed in the first) and ``axes[1]`` (fixed in the second),
    perpendicular to each other in the drawing.  Coordinates "angle1" (about the
    first axis), "angle2" (about the second), each plus ``offset``; singular where the
    joint bends by 90 deg.

    Attributes
    ----------
    axes : ((float, float, float), (float, float, float))
        The two axes in the drawing (normalized; default x and y).
    """

    axes: tuple = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))
    COORDINATES = ("angle1", "angle2")

    def __post_init__(self):
        super().__post_init__()
        a = _checks.array(f"{self.name}: axes", self.axes, shape=(2, 3))
        a1, a2 = (_direction(f"{self.name}: axes[{i}]", a[i], 3) for i in range(2))
        if abs(float(np.dot(a1, a2))) > 1e-9:
            raise ValueError(f"{self.name}: axes {a1} and {a2} must be perpendicular in the drawing "
                             f"(cosine {float(np.dot(a1, a2)):.3g})")
        object.__setattr__(self, "axes", (a1, a2))

    def frame(self):
        x, y = (np.asarray(a) for a in self.axes)
        y = y - (y @ x) * x
        y /= np.linalg.norm(y)
        return np.column_stack([x, y, np.cross(x, y)])


@dataclass(frozen=True)
class Planar(_SpatialJoint):
    """A planar joint: the second body's point stays in the plane through the first
    body's point normal to ``normal`` (fixed in the first body), turning about the
    normal only.  Coordinates "x", "y" (slides along the plane's axes) and "angle"
    (about the normal), each plus ``offset``.  The plane's x axis is the global axis
    (x, else y) least aligned with the normal, made perpendicular (``frame_axes``
    gives all three instead: its z the normal).

    Attributes
    ----------
    normal : (float, float, float)
        In the drawing (normalized; default z).
    frame_axes : array_like, shape (3, 3) or (4,), optional
    """

    normal: tuple = (0.0, 0.0, 1.0)
    frame_axes: object = None
    COORDINATES = ("x", "y", "angle")

    def __post_init__(self):
        super().__post_init__()
        if self.frame_axes is not None:
            R = rotation(f"{self.name}: frame_axes", self.frame_axes)
            object.__setattr__(self, "frame_axes", tuple(float(v) for v in quaternion(R)))
            object.__setattr__(self, "normal", tuple(float(v) for v in R[:, 2]))
        object.__setattr__(self, "normal", _direction(f"{self.name}: normal", self.normal, 3))

    def frame(self):
        if self.frame_axes is not None:
            return quaternion_matrix(self.frame_axes)
        return axis_frame(self.normal)


@dataclass(frozen=True)
class Fixed(_SpatialJoint):
    """Two bodies of space fixed to each other at a point (no relative motion; the
    plane's :class:`~kanefem.mechanism.Weld`).  No coordinate, no force law."""

    COORDINATES = ()


#: the joints of a spatial mechanism, by the core's kind
SPATIAL_JOINTS = {"revolute": Revolute, "prismatic": Prismatic, "cylindrical": Cylindrical,
                  "spherical": Spherical, "universal": Universal, "planar": Planar, "fixed": Fixed}


def joint_kind(J) -> str:
    """The core's name of a spatial joint's kind."""
    for kind, cls in SPATIAL_JOINTS.items():
        if type(J) is cls:
            return kind
    raise TypeError(f"{J.name}: not a joint of space: {type(J).__name__}")


def joint_coordinates(J) -> tuple:
    """The names of a spatial joint's coordinates, in the core's order."""
    if isinstance(J, Revolute):
        return ("angle",)
    if isinstance(J, Prismatic):
        return ("slide",)
    return J.COORDINATES


def joint_frame(J) -> np.ndarray:
    """A spatial joint's axes in the drawing (columns x, y, z)."""
    if isinstance(J, (Revolute, Prismatic)):
        return axis_frame(J.axis)
    return J.frame()


def _laws(J):
    """(k, s0, c, F_r, v_F, offset) per coordinate (3 each, zero-padded) of a spatial
    joint; s0 defaults to the coordinate's value in the drawing (its offset)."""
    n = len(joint_coordinates(J))
    if isinstance(J, (Revolute, Prismatic)):
        per = lambda v: (v,)  # noqa: E731
        vals = [per(J.k), per(J.s0), per(J.damping), per(J.friction), per(J.v_F), per(J.offset)]
    else:
        vals = [J.k, J.s0, J.damping, J.friction, J.v_F, J.offset] if n else [(), None, (), (), (), ()]
    if vals[1] is None or vals[1] == (None,):
        vals[1] = vals[5]
    pad = lambda v: list(v) + [0.0] * (3 - len(v))  # noqa: E731
    return [pad(v) for v in vals]


# ---------------------------------------------------------------- the core's description


def body_pose(mech, name):
    """(centre (3,), rotation (3, 3)) of a body in the drawing; the ground at the origin."""
    if name == GROUND:
        return np.zeros(3), np.eye(3)
    b = mech.bodies[mech._body_index(name)]
    if isinstance(b, SpatialLink):
        m, c, _ = b.rigid()
        return c, b.rotation
    return np.asarray(b.centre), b.rotation


def arrays(mech, redundant) -> dict:
    """The keyword arguments of ``_core.smech_create`` for a spatial mechanism."""
    bodies = []
    for b in mech.bodies:
        if isinstance(b, SpatialLink):
            m, c, I_c = b.rigid()
            bodies.append(dict(mass=m, inertia=I_c, r=c, quat=b.orientation))
        else:
            bodies.append(dict(mass=b.mass, inertia=b.inertia, r=b.centre, quat=b.orientation))
    rows = []
    for J in mech.joints:
        b0, b1 = (mech._body_index(n) for n in J.bodies)
        (c0, R0), (c1, R1) = (body_pose(mech, n) for n in J.bodies)
        F = joint_frame(J)
        at = np.asarray(J.at)
        k, s0, c, F_r, v_F, offset = _laws(J)
        rows.append(dict(kind=joint_kind(J), body=(b0, b1), p0=R0.T @ (at - c0), p1=R1.T @ (at - c1),
                         f0=R0.T @ F, f1=R1.T @ F, offset=offset, k=k, s0=s0, c=c, F_r=F_r, v_F=v_F,
                         name=J.name))
    springs = []
    for S in mech.springs:
        b0, b1 = (mech._body_index(n) for n in S.bodies)
        (c0, R0), (c1, R1) = (body_pose(mech, n) for n in S.bodies)
        p0, p1 = R0.T @ (np.asarray(S.at[0]) - c0), R1.T @ (np.asarray(S.at[1]) - c1)
        L0 = float(np.linalg.norm(np.subtract(S.at[1], S.at[0]))) if S.length is None else S.length
        springs.append(dict(body=(b0, b1), p0=p0, p1=p1, k=S.k, L0=L0, c=S.damping))
    coords = [coordinate_record(mech, C) for C in mech.coordinates]
    return dict(bodies=_records.sbodies(bodies), joints=_records.sjoints(rows), springs=_records.ssprings(springs),
                coords=_records.scoords(coords), gravity=np.array(mech.gravity), redundant=int(redundant))


#: a spatial body's coordinate components, in the core's order
BODY_COMPONENTS = ("x", "y", "z", "rx", "ry", "rz")


def coordinate_record(mech, C) -> dict:
    """The core's record of a spatial coordinate (checked by name)."""
    if C.body is not None:
        b = mech._body_index(C.body)
        if b < 0:
            raise ValueError(f"{C.name}: the ground has no coordinates")
        comp = "rz" if C.component == "angle" else C.component
        return dict(kind="body", index=b, component=BODY_COMPONENTS.index(comp), name=C.name)
    j = mech._joint_index(C.joint)
    J = mech.joints[j]
    names = joint_coordinates(J)
    if not names:
        raise ValueError(f"{C.name}: joint {C.joint!r} is fixed, which has no coordinate")
    if C.component is None:
        if len(names) != 1:
            raise ValueError(f"{C.name}: joint {C.joint!r} has the coordinates {', '.join(names)}: give "
                             "component=")
        comp = 0
    elif C.component in names:
        comp = names.index(C.component)
    else:
        raise ValueError(f"{C.name}: component {C.component!r} is not a coordinate of joint {C.joint!r} "
                         f"({type(J).__name__}: {', '.join(names)})")
    return dict(kind="joint", index=j, component=comp, name=C.name)


def coordinate_is_angle(mech, C) -> bool:
    """Whether a spatial coordinate is an angle."""
    if C.body is not None:
        return C.component in ("angle", "rx", "ry", "rz")
    J = mech.joints[mech._joint_index(C.joint)]
    comp = coordinate_record(mech, C)["component"]
    return joint_coordinates(J)[comp] not in ("slide", "x", "y")


def track(mech, q, body, at) -> np.ndarray:
    """Global positions over q (nt, nb, 7) of a point given in the drawing, (nt, 3)."""
    b = mech._body_index(body)
    p = np.asarray(_point3("at", at))
    if b < 0:
        return np.broadcast_to(p, (q.shape[0], 3)).copy()
    c0, R0 = body_pose(mech, body)
    local = R0.T @ (p - c0)
    R = quaternions_matrices(q[:, b, 3:])
    return q[:, b, :3] + R @ local


def link_axes(mech, link) -> dict:
    """A link's frame as axes on its body (SAXES_DTYPE's fields): origin at the elements'
    x = 0, axes the link's."""
    m, c, _ = link.rigid()
    R = link.rotation
    return dict(body=mech._bidx[link.name], o=R.T @ (np.asarray(link.start) - c), phi=np.eye(3))


# ---------------------------------------------------------------- from the plane


def from_planar(mech, name=None):
    """The spatial description of a planar mechanism: its plane z = 0, revolute axes
    along z, welds fixed joints, every angle an angle about z; the constraints of its
    loops are then redundant in space (a planar loop of revolutes removes 3 freedoms
    twice), so an independent set is kept.  The same motion and in-plane forces to
    round-off (docs/theory.md section 5.14)."""
    from .model import Mechanism

    if mech.space != 2:
        raise ValueError(f"{mech.name!r} is already spatial")
    rz = lambda a: np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0],  # noqa: E731
                             [0.0, 0.0, 1.0]])
    p3 = lambda p: (float(p[0]), float(p[1]), 0.0)  # noqa: E731
    bodies = []
    for b in mech.bodies:
        if isinstance(b, ElasticLink):
            bodies.append(SpatialLink(b.name, b.body, start=p3(b.start), orientation=rz(b.angle),
                                      supports=b.supports, damping=b.damping,
                                      geometric_stiffness=b.geometric_stiffness))
        else:
            bodies.append(SpatialBody(b.name, b.mass, (0.5 * b.inertia, 0.5 * b.inertia, b.inertia),
                                      centre=p3(b.centre), orientation=rz(b.angle)))
    joints = []
    for J in mech.joints:
        law = dict(k=J.k, s0=J.s0, damping=J.damping, friction=J.friction, v_F=J.v_F)
        if isinstance(J, Revolute):
            a0, a1 = (0.0 if n == GROUND else mech.bodies[mech._body_index(n)].angle for n in J.bodies)
            joints.append(Revolute(J.name, J.bodies, p3(J.at), axis=(0.0, 0.0, 1.0), offset=a1 - a0, **law))
        elif isinstance(J, Prismatic):
            joints.append(Prismatic(J.name, J.bodies, p3(J.at), axis=p3(J.axis), **law))
        elif isinstance(J, Weld):
            joints.append(Fixed(J.name, J.bodies, p3(J.at)))
        else:
            raise TypeError(f"{J.name}: {type(J).__name__} has no planar meaning")
    springs = [Spring(S.name, S.bodies, (p3(S.at[0]), p3(S.at[1])), S.k, length=S.length, damping=S.damping)
               for S in mech.springs]
    coords = [Coordinate(C.name, body=C.body, component="rz" if C.component == "angle" else C.component)
              if C.body is not None else Coordinate(C.name, joint=C.joint) for C in mech.coordinates]
    out = Mechanism(bodies, joints, coords, springs, gravity=p3(mech.gravity),
                    name=mech.name if name is None else name, redundant="independent")
    out.coordinate_drives = dict(mech.coordinate_drives)
    return out


def xyz_angles(R) -> np.ndarray:
    """The angles (a, b, c) of rotations R = Rx(a) Ry(b) Rz(c), (..., 3)."""
    R = np.asarray(R, float)
    a = np.arctan2(-R[..., 1, 2], R[..., 2, 2])
    b = np.arctan2(np.clip(R[..., 0, 2], -1.0, 1.0), np.hypot(R[..., 0, 0], R[..., 0, 1]))
    c = np.arctan2(-R[..., 0, 1], R[..., 0, 0])
    return np.stack([a, b, c], axis=-1)


def joint_values(mech, q) -> dict:
    """Every joint's coordinates over q (nt, nb, 7): joint name -> (nt, ncoord) [m or
    rad], as the core measures them (slides along the first body's joint axes, the
    angles of the relative rotation, each plus the offset), angles continued from the
    drawing's value."""
    nt = q.shape[0]
    Rs = {b.name: quaternions_matrices(q[:, i, 3:]) for i, b in enumerate(mech.bodies)}
    out = {}
    for J in mech.joints:
        names = joint_coordinates(J)
        if not names:
            out[J.name] = np.zeros((nt, 0))
            continue
        F = joint_frame(J)
        Fs, P = [], []
        for n in J.bodies:
            c0, R0 = body_pose(mech, n)
            if n == GROUND:
                Fs.append(np.broadcast_to(F, (nt, 3, 3)))
            else:
                Fs.append(Rs[n] @ (R0.T @ F))
            P.append(track(mech, q, n, J.at))
        rel = np.einsum("tki,tkj->tij", Fs[0], Fs[1])
        ang = xyz_angles(rel)
        d = P[1] - P[0]
        vals = []
        offset = _laws(J)[5]
        for i, nm in enumerate(names):
            if nm == "slide":
                v = np.einsum("ti,ti->t", Fs[0][:, :, 2], d)
            elif nm in ("x", "y") and isinstance(J, Planar):
                v = np.einsum("ti,ti->t", Fs[0][:, :, "xy".index(nm)], d)
            else:
                k = {"angle": 2, "rx": 0, "ry": 1, "rz": 2, "angle1": 0, "angle2": 1}[nm]
                v = np.unwrap(np.concatenate([[0.0], ang[:, k]]))[1:]
            vals.append(v + offset[i])
        out[J.name] = np.column_stack(vals)
    return out
