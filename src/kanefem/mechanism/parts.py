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

from .. import _checks
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
    """A link's Rayleigh damping (alpha [1/s], beta [s]), both >= 0, as a tuple."""
    a = _checks.array(f"{name}: damping", value)
    if a.shape != (2,):
        raise ValueError(f"{name}: damping must be (alpha, beta), got {_checks._short(value)}")
    return tuple(_checks.real(f"{name}: damping", float(v), nonnegative=True) for v in a)


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


@dataclass(frozen=True, eq=False)
class ElasticLink:
    """An elastic link: a straight body of finite elements on a rigid body's axes.

    The link's frame (the elements' x axis) starts at ``start`` along ``angle`` in
    the drawing.  In the rigid model the link is the rigid body of its elements:
    mass ``m = rho A L``, mass centre at mid length, inertia ``m L^2 / 12`` (the
    consistent line mass has no rotary inertia).  Its elastic displacements are
    measured in that frame with the reference conditions ``supports`` (default
    pinned-pinned: u = v = 0 at both ends, the frame through the end joints), which
    must hold the link's rigid motion; joints attach to it at supported nodes.

    Attributes
    ----------
    name : str
    body : PlanarBeam or AxialBar
        The elements (on the frame's x axis from ``body.origin``).
    start : (float, float)
        Where the frame origin (x = 0 of the elements) is in the drawing [m].
    angle : float
        The frame's x axis in the drawing [rad].
    supports : str or dict
        Reference conditions, as :meth:`~kanefem.FlexibleBody.support_mask` takes them.
    damping : (float, float)
        Rayleigh damping (alpha [1/s], beta [s]) of the elastic coordinates.
    geometric_stiffness : bool
        Add K_G from the link's axial force (joint forces and axial inertia) in the
        two-way runs (:meth:`Mechanism.simulate_flexible`), where that force is known
        from the coupled solution at every step.  Default on: without it a link under
        thrust or centrifugal tension has the wrong lateral stiffness (the slider-crank's
        rod is 26 % off a converged reference with it over a turn, a swinging flexible
        pendulum 97 % over half a swing; docs/theory.md section 5.12).  The one-way :meth:`Mechanism.link_eigenvalues`
        takes its own ``geometric_stiffness`` argument.
    """

    name: str
    body: FlexibleBody
    start: tuple = (0.0, 0.0)
    angle: float = 0.0
    supports: object = "pinned-pinned"
    damping: tuple = (0.0, 0.0)
    geometric_stiffness: bool = True

    def __post_init__(self):
        _name("link name", self.name)
        if not isinstance(self.body, (PlanarBeam, AxialBar)):
            raise TypeError(f"{self.name}: body must be a PlanarBeam or an AxialBar, got "
                            f"{type(self.body).__name__}")
        if getattr(self.body, "rotary_inertia", False):  # docs/theory.md section 2.9
            raise NotSupportedError(f"{self.name}: an elastic link does not support a PlanarBeam with "
                                    "rotary_inertia=True (the mechanism's K_om is -omega^2 M); give "
                                    "rotary_inertia=False")
        object.__setattr__(self, "start", _point(f"{self.name}: start", self.start))
        object.__setattr__(self, "angle", _checks.real(f"{self.name}: angle", self.angle))
        object.__setattr__(self, "damping", _rayleigh(self.name, self.damping))
        fixed = self.body.support_mask(self.supports)
        object.__setattr__(self, "_fixed", fixed)
        object.__setattr__(self, "geometric_stiffness", _checks.flag("geometric_stiffness", self.geometric_stiffness))

    # the rigid body of the elements (uniform straight bodies)
    @property
    def mass(self) -> float:
        b = self.body
        return b.rho * b.A * b.length

    @property
    def inertia(self) -> float:
        return self.mass * self.body.length**2 / 12.0

    @property
    def x_centre(self) -> float:
        """The mass centre on the frame's x axis [m]."""
        return self.body.origin + 0.5 * self.body.length

    @property
    def centre(self) -> tuple:
        c = np.asarray(self.start) + _rot(self.angle) @ np.array([self.x_centre, 0.0])
        return (float(c[0]), float(c[1]))

    def node_point(self, node) -> tuple:
        """A node's position in the drawing [m] (node -1: the last)."""
        x = self.body.nodes[node]
        p = np.asarray(self.start) + _rot(self.angle) @ x[:2]
        return (float(p[0]), float(p[1]))

    @property
    def end(self) -> tuple:
        """The last node in the drawing [m]."""
        return self.node_point(-1)


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
