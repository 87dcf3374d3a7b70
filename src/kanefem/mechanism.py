"""Planar mechanisms with elastic links (docs/theory.md section 5).

A mechanism is described by its bodies in one assembled position, the *drawing*:

* :class:`RigidBody` -- mass, moment of inertia about the mass centre, and where the
  mass centre and the body's axes are in the drawing;
* :class:`ElasticLink` -- a straight :class:`~kanefem.PlanarBeam` (or
  :class:`~kanefem.AxialBar`) whose frame starts at ``start`` along ``angle``; in
  the rigid model it is the rigid body of its elements (mass rho A L, centre at mid
  length, inertia m L^2 / 12), and its elements ride on that body's axes;
* joints at points of the drawing: :class:`Revolute`, :class:`Prismatic`,
  :class:`Weld`, each optionally carrying a spring, a viscous damper and Coulomb
  friction (regularized: ``F_r tanh(s' / v_F)``) along its own coordinate;
  :class:`Spring` -- a spring-damper between two points;
* :class:`Coordinate` -- the independent coordinates (as many as the degrees of
  freedom): a body's x, y or angle, or a joint's coordinate;
* gravity.

The C core solves the loop closure by Newton's method (continuing from the drawing,
so a mechanism keeps the drawing's branch), velocities and accelerations through the
constraint Jacobian, Kane's equations projected on the constraints' null space, the
joint forces as the constraints' multipliers, and the motion in time under drives:
:class:`ConstantSpeed`, :class:`Torque` (a law, or a constant), :class:`Path` (a
prescribed z(t)), :class:`Recorded` (samples, smoothed).

Elastic links, one way (the seeds' method): every link's frame motion and axial
force come from the rigid solution (:meth:`Mechanism.link_eigenvalues`,
:meth:`Mechanism.link_response`).  Two ways: :meth:`Mechanism.simulate_flexible`
integrates the rigid and elastic coordinates together, so the rigid motion feels the
links.

>>> from kanefem.mechanism import ConstantSpeed, slider_crank
>>> m = slider_crank(rod=None)
>>> motion = m.solve(duration=0.05, points=11, drives={"crank": ConstantSpeed(150.0)})
>>> x = motion.body("slider")[0][-1, 0]  # after 7.5 rad: r cos a + sqrt(l^2 - r^2 sin^2 a)
>>> round(float(x), 9)
0.316954749
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path as _FilePath
from typing import Callable

import numpy as np

from . import _animation, _checks, _core, _records
from ._io import read_toml, write_toml
from ._results import ResultMixin, eigen_time_columns
from ._smoothing import SmoothingSpline
from .bodies import AxialBar, FlexibleBody, PlanarBeam, _signed_hz
from .simulate import MAX_STEPS_LIMIT, _steps

__all__ = [
    "GROUND", "RigidBody", "ElasticLink", "Revolute", "Prismatic", "Weld", "Spring",
    "Coordinate", "ConstantSpeed", "Torque", "Path", "Recorded", "Mechanism",
    "MechanismMotion", "MechanismForces", "LinkEigenvalues", "FlexibleMotion",
    "slider_crank", "four_bar", "example", "EXAMPLES",
]

#: the ground's name in joints and springs
GROUND = "ground"
_COMPONENTS = {"x": 0, "y": 1, "angle": 2}


def _point(name, value):
    return tuple(float(v) for v in _checks.array(name, value, shape=(2,)))


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
        object.__setattr__(self, "start", _point(f"{self.name}: start", self.start))
        object.__setattr__(self, "angle", _checks.real(f"{self.name}: angle", self.angle))
        damping = tuple(_checks.real(f"{self.name}: damping", v, nonnegative=True) for v in self.damping)
        if len(damping) != 2:
            raise ValueError(f"{self.name}: damping must be (alpha, beta), got {self.damping!r}")
        object.__setattr__(self, "damping", damping)
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
        object.__setattr__(self, "at", _point(f"{self.name}: at", self.at))
        for f in ("k", "damping", "friction"):
            object.__setattr__(self, f, _checks.real(f"{self.name}: {f}", getattr(self, f), nonnegative=True))
        object.__setattr__(self, "v_F", _checks.real(f"{self.name}: v_F", self.v_F, positive=True))
        if self.s0 is not None:
            object.__setattr__(self, "s0", _checks.real(f"{self.name}: s0", self.s0))


@dataclass(frozen=True)
class Revolute(_Joint):
    """A revolute joint at a point of the drawing; optional force law on its
    relative angle s = theta1 - theta0: torque -k (s - s0) - damping s' -
    friction tanh(s' / v_F) on the second body (reaction on the first); s0
    defaults to the drawing's angle.

    Attributes
    ----------
    name : str
    bodies : (str, str)
        The two bodies (or ``"ground"``); its force is the first's on the second.
    at : (float, float)
        The joint's point in the drawing [m].
    k, s0, damping, friction, v_F : float
        Torsion spring [N m/rad], its free angle [rad], viscous damper [N m s],
        Coulomb friction torque [N m] regularized over v_F [rad/s].
    """


@dataclass(frozen=True)
class Prismatic(_Joint):
    """A prismatic joint: the second body slides along ``axis`` (drawing direction,
    fixed in the first body) without turning relative to it.  Its coordinate s is
    the distance slid from the drawing's point ``at``; force law -k (s - s0) -
    damping s' - friction tanh(s' / v_F) [N] on the second body.

    Attributes
    ----------
    axis : (float, float)
        The sliding direction in the drawing (normalized).
    """

    axis: tuple = (1.0, 0.0)

    def __post_init__(self):
        super().__post_init__()
        a = _checks.array(f"{self.name}: axis", self.axis, shape=(2,))
        if not np.hypot(*a) > 0:
            raise ValueError(f"{self.name}: axis must not be zero")
        object.__setattr__(self, "axis", tuple(float(v) for v in a / np.hypot(*a)))


@dataclass(frozen=True)
class Weld(_Joint):
    """Two bodies welded at a point (no relative motion); no force law."""

    def __post_init__(self):
        super().__post_init__()
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
        a = _checks.array(f"{self.name}: at", self.at, shape=(2, 2))
        object.__setattr__(self, "at", (tuple(a[0]), tuple(a[1])))
        object.__setattr__(self, "k", _checks.real(f"{self.name}: k", self.k, nonnegative=True))
        object.__setattr__(self, "damping", _checks.real(f"{self.name}: damping", self.damping, nonnegative=True))
        if self.length is not None:
            object.__setattr__(self, "length", _checks.real(f"{self.name}: length", self.length, nonnegative=True))


@dataclass(frozen=True)
class Coordinate:
    """An independent coordinate: ``component`` ("x", "y" or "angle") of ``body``,
    or the coordinate of ``joint`` (a revolute's relative angle, a prismatic's
    sliding distance)."""

    name: str
    body: str | None = None
    component: str | None = None
    joint: str | None = None

    def __post_init__(self):
        _name("coordinate name", self.name)
        if len(self.name) > 23:
            raise ValueError(f"coordinate name {self.name!r} is longer than 23 characters")
        if (self.joint is None) == (self.body is None):
            raise ValueError(f"{self.name}: give either joint= or body= (with component=)")
        if self.body is not None:
            _checks.choice(f"{self.name}: component", self.component, tuple(_COMPONENTS))
        elif self.component is not None:
            raise ValueError(f"{self.name}: component is for a body coordinate, not a joint's")


# ---------------------------------------------------------------- drives


@dataclass(frozen=True)
class ConstantSpeed:
    """z = z0 + speed (t - t0) [rad/s or m/s]; the force it needs is an output."""

    speed: float

    def __post_init__(self):
        object.__setattr__(self, "speed", _checks.real("speed", self.speed))


@dataclass(frozen=True)
class Torque:
    """A free coordinate under an applied generalized force (a motor torque, or a
    force along a sliding coordinate): ``law(t, z, z')`` or a constant."""

    law: object = 0.0

    def function(self):
        if callable(self.law):
            return self.law
        value = _checks.real("Torque law", self.law)  # a constant torque
        return lambda t, z, zd: value


@dataclass(frozen=True)
class Path:
    """A prescribed coordinate: ``function(t) -> (z, z', z'')``."""

    function: Callable

    def __post_init__(self):
        if not callable(self.function):
            raise TypeError(f"Path.function must be callable, got {self.function!r}")


@dataclass(frozen=True, eq=False)
class Recorded:
    """A measured coordinate: samples (t, z), smoothed and differentiated by a cubic
    smoothing spline (``noise``: the standard deviation; None estimates it, 0
    interpolates)."""

    t: np.ndarray
    values: np.ndarray
    noise: float | None = None

    def spline(self):
        t = _checks.array("Recorded t", self.t, ndim=1)
        z = _checks.array("Recorded values", self.values, shape=(t.shape[0],))
        return SmoothingSpline(t, z, noise=self.noise)


# ---------------------------------------------------------------- results


@dataclass(frozen=True, eq=False)
class MechanismMotion(ResultMixin):
    """The rigid motion of a mechanism at nt instants.

    Attributes
    ----------
    t : ndarray (nt,)
        Time [s].
    z, zd, zdd : ndarray (nt, nz)
        Independent coordinates and their rates, in the order of
        ``mechanism.coordinates``.
    force : ndarray (nt, nz)
        The generalized force along each coordinate: a torque law's value, or what a
        prescribed coordinate needs (a motor torque) [N m or N].
    q, qd, qdd : ndarray (nt, nbody, 3)
        Every body's (x, y, angle) of its mass centre, and the rates.
    frames : dict
        Per elastic link, its frame's motion (``kanefem.FRAME_DTYPE``, (nt,)):
        origin at the elements' x = 0, x along them, a = a_O - g in the frame.
    stats : dict
    mechanism : Mechanism
    """

    t: np.ndarray
    z: np.ndarray
    zd: np.ndarray
    zdd: np.ndarray
    force: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    frames: dict
    stats: dict
    mechanism: "Mechanism"

    def coordinate(self, name):
        """(z, z', z'') of a coordinate by name."""
        k = self.mechanism._coord_index(name)
        return self.z[:, k], self.zd[:, k], self.zdd[:, k]

    def body(self, name):
        """(q, q', q'') of a body by name, each (nt, 3): x, y, angle."""
        b = self.mechanism._body_index(name)
        return self.q[:, b], self.qd[:, b], self.qdd[:, b]

    def point(self, body, at):
        """Where a point of a body (given in the drawing) is over the motion, (nt, 2) [m]."""
        return self.mechanism._track(self.q, body, at)

    def _columns(self):
        """The table's columns (see :mod:`kanefem._results` for the naming scheme)."""
        mech = self.mechanism
        cols = {"t_s": self.t}
        for k, c in enumerate(mech.coordinates):
            cols.update(_coordinate_columns(mech, k, self.z[:, k], self.zd[:, k], self.zdd[:, k], self.force[:, k]))
        for b, body in enumerate(mech.bodies):
            cols[f"{body.name}_x_m"] = self.q[:, b, 0]
            cols[f"{body.name}_y_m"] = self.q[:, b, 1]
            cols[f"{body.name}_angle_rad"] = self.q[:, b, 2]
        return cols


@dataclass(frozen=True, eq=False)
class MechanismForces(ResultMixin):
    """Joint forces over a motion (the constraints' multipliers).

    Attributes
    ----------
    t : ndarray (nt,)
    joints : ndarray (nt, njoint, 3)
        Per joint (F_x, F_y, M): the force [N] and moment [N m] its first body exerts
        on its second at the joint's point, global axes.
    drive : ndarray (nt, nz)
        The generalized force each coordinate needs beyond the mechanism's own forces
        (springs, dampers, friction, gravity): a motor torque; zero to round-off for a
        free coordinate of a motion of the model.
    link_axial : dict
        Per elastic link, its axial force N(x) = c0 + c1 x + c2 x^2 (tension > 0, x
        along the elements) from the joint forces at its ends and its axial inertia:
        (nt, 3) [N, N/m, N/m^2].
    mechanism : Mechanism
    """

    t: np.ndarray
    joints: np.ndarray
    drive: np.ndarray
    link_axial: dict
    mechanism: "Mechanism"

    def joint(self, name):
        """(F (nt, 2), M (nt,)) of a joint by name."""
        j = self.mechanism._joint_index(name)
        return self.joints[:, j, :2], self.joints[:, j, 2]

    def _columns(self):
        """The table's columns (see :mod:`kanefem._results` for the naming scheme)."""
        mech = self.mechanism
        cols = {"t_s": self.t}
        for j, J in enumerate(mech.joints):
            cols[f"F_{J.name}_x_N"] = self.joints[:, j, 0]
            cols[f"F_{J.name}_y_N"] = self.joints[:, j, 1]
            cols[f"M_{J.name}_Nm"] = self.joints[:, j, 2]
        for k, c in enumerate(mech.coordinates):
            cols[f"{c.name}_drive_{_drive_unit(mech, k)}"] = self.drive[:, k]
        for name, c in self.link_axial.items():
            cols[f"{name}_N0_N"], cols[f"{name}_N1_N_m"], cols[f"{name}_N2_N_m2"] = c.T
        return cols


@dataclass(frozen=True, eq=False)
class LinkEigenvalues(ResultMixin):
    """Frozen-time eigenvalues of an elastic link over a motion.

    Attributes
    ----------
    t : ndarray (nt,)
    eigenvalues, eigenvalues_imag : ndarray (nt, n_modes)
        lambda_k [rad^2/s^2] of (K + K_om [+ K_eps] [+ K_G]) phi = lambda M phi.
    frequencies_hz : ndarray (nt, n_modes)
        sqrt(lambda_k) / 2 pi (negative where lambda_k < 0).
    solver : str
    axial_force : ndarray (nt, 3) or None
        N(x) = c0 + c1 x + c2 x^2 at each instant, where K_G was included.
    geometric_stiffness : bool
        Whether K_G was included.
    axial_force_source : str or None
        How N was obtained (None without K_G).
    """

    t: np.ndarray
    eigenvalues: np.ndarray
    eigenvalues_imag: np.ndarray
    frequencies_hz: np.ndarray
    solver: str
    axial_force: np.ndarray | None = None
    stats: dict = field(default_factory=dict)
    geometric_stiffness: bool = False
    axial_force_source: str | None = None

    def _columns(self):
        """The table's columns (see :mod:`kanefem._results` for the naming scheme)."""
        return eigen_time_columns(self.t, self.eigenvalues, self.frequencies_hz, self.eigenvalues_imag)


@dataclass(frozen=True, eq=False)
class FlexibleMotion(ResultMixin):
    """The motion of a mechanism with its elastic links coupled both ways.

    Attributes
    ----------
    motion : MechanismMotion
        The rigid coordinates (with the links' elastic inertia acting on them); its
        ``force`` holds what prescribed coordinates need, elastic links included.
    d, d_t : dict
        Per link, the elastic displacements and velocities over all its DOFs, in its
        frame (nt, ndof); zero at the reference conditions.
    joints : ndarray (nt, njoint, 3)
        Joint forces, as ``joints`` of :class:`MechanismForces`.
    stats : dict
        The integrator's counts, the accuracy target and its ``error_estimate``
        (:meth:`Mechanism.simulate_flexible`).
    geometric_stiffness : dict
        Per link, whether K_G was included (its axial force from the coupled solution).
    """

    motion: MechanismMotion
    d: dict
    d_t: dict
    joints: np.ndarray
    stats: dict
    geometric_stiffness: dict = field(default_factory=dict)

    @property
    def t(self):
        return self.motion.t

    def deflection(self, link, x):
        """Lateral displacement v [m] of a link at x along it (a node), over time."""
        mech = self.motion.mechanism
        L = mech.bodies[mech._body_index(link)]
        x = _checks.real("x", x)  # nan is no node (it found node 0, whose deflection is zero)
        nodes = L.body.nodes[:, 0]
        i = int(np.argmin(np.abs(nodes - x)))
        if abs(nodes[i] - x) > 1e-9 * L.body.length:
            raise ValueError(f"x = {x} is not a node of {link} (nodes at {nodes.tolist()})")
        return self.d[link][:, i * L.body.dofs_per_node + 1]

    def _columns(self):
        """t_s, the coordinates (two ways) and each link's lateral deflection at its
        middle node ``<link>_v_mid_m`` (see :mod:`kanefem._results` for the names)."""
        m = self.motion
        mech = m.mechanism
        cols = {"t_s": m.t}
        for k, c in enumerate(mech.coordinates):
            cols.update(_coordinate_columns(mech, k, m.z[:, k], m.zd[:, k], None, m.force[:, k]))
        for L in mech.links:
            body = L.body
            node = (body.n_nodes - 1) // 2
            v = self.d[L.name][:, node * body.dofs_per_node + 1] if body.dofs_per_node > 1 else np.zeros(len(m.t))
            cols[f"{L.name}_v_mid_m"] = v
        return cols


def _drive_unit(mech, k):
    """The unit of coordinate k's generalized force: Nm (an angle) or N (a length)."""
    return "Nm" if mech._coord_unit(k) == "rad" else "N"


def _coordinate_columns(mech, k, z, zd, zdd, force):
    """A coordinate's value, rate, acceleration (if given) and drive force columns."""
    c, u = mech.coordinates[k], mech._coord_unit(k)
    cols = {f"{c.name}_{u}": z, f"{c.name}_rate_{u}_s": zd}
    if zdd is not None:
        cols[f"{c.name}_acc_{u}_s2"] = zdd
    cols[f"{c.name}_drive_{_drive_unit(mech, k)}"] = force
    return cols


# ---------------------------------------------------------------- the mechanism


class Mechanism:
    """A planar mechanism of rigid bodies and elastic links.

    Parameters
    ----------
    bodies : sequence of RigidBody and ElasticLink
    joints : sequence of Revolute, Prismatic, Weld
    coordinates : sequence of Coordinate
        The independent coordinates, as many as the degrees of freedom (3 per body
        less 2 per revolute or prismatic joint and 3 per weld).
    springs : sequence of Spring
    gravity : (float, float)
        [m/s^2], global (default (0, -9.81)).
    name : str

    Raises
    ------
    ValueError, TypeError
        Unknown names, duplicates, a wrong number of coordinates (each named).
    GeometryError
        The drawing does not assemble.
    """

    def __init__(self, bodies, joints, coordinates, springs=(), gravity=(0.0, -9.81),
                 name="mechanism", *, _core_mech=None):
        self.name = _name("name", name)
        self.bodies = tuple(bodies)
        self.joints = tuple(joints)
        self.coordinates = tuple(coordinates)
        self.springs = tuple(springs)
        self.gravity = _point("gravity", gravity)
        for what, items, kinds in (("bodies", self.bodies, (RigidBody, ElasticLink)),
                                   ("joints", self.joints, (Revolute, Prismatic, Weld)),
                                   ("coordinates", self.coordinates, (Coordinate,)),
                                   ("springs", self.springs, (Spring,))):
            names = set()
            for it in items:
                if not isinstance(it, kinds):
                    raise TypeError(f"{what} must hold {', '.join(k.__name__ for k in kinds)}, got {it!r}")
                if it.name in names or (what == "bodies" and it.name == GROUND):
                    raise ValueError(f"{what}: the name {it.name!r} is used twice (or is 'ground')")
                names.add(it.name)
        if not self.bodies:
            raise ValueError("a mechanism needs at least one body")
        self._bidx = {b.name: i for i, b in enumerate(self.bodies)}
        self._jidx = {j.name: i for i, j in enumerate(self.joints)}
        self._cidx = {c.name: i for i, c in enumerate(self.coordinates)}
        self.links = tuple(b for b in self.bodies if isinstance(b, ElasticLink))
        #: drives and initial values read from a TOML file's [[coordinate]] tables
        self.run_drives = {}
        arrays = self._arrays()
        self._core = _core_mech if _core_mech is not None else _core.mech_create(**arrays)
        self._q0 = _core.mech_describe(self._core)["q0"]
        # the elastic links' frames: origin at the elements' x = 0, body axes
        self._frames = np.array([[self._bidx[L.name], -L.x_centre, 0.0, 0.0] for L in self.links]).reshape(-1, 4)

    @classmethod
    def _from_core(cls, core, name, body_names, joint_names, links=None):
        """A mechanism around a core mechanism made in C (e.g. the wind pump's, with its
        assembly rule), its description read back: bodies and joints named, the
        bodies in ``links`` (name -> elements starting at the body's first joint
        point) elastic."""
        d = _core.mech_describe(core)
        links = {} if links is None else links
        q = d["q0"].reshape(-1, 3)
        pts = lambda b, p: p if b < 0 else q[b, :2] + _rot(q[b, 2]) @ p  # noqa: E731
        rows = d["joints"]
        bodies = []
        for b, bname in enumerate(body_names):
            if bname in links:
                first = next(r for r in rows if b in r["body"])
                start = pts(b, first["p1"] if first["body"][1] == b else first["p0"])
                bodies.append(ElasticLink(bname, links[bname], start=tuple(start), angle=float(q[b, 2])))
            else:
                bodies.append(RigidBody(bname, float(d["mass"][b]), float(d["inertia"][b]),
                                        centre=tuple(q[b, :2]), angle=float(q[b, 2])))
        kinds = (Revolute, Prismatic, Weld)
        name_of = lambda b: GROUND if b < 0 else body_names[b]  # noqa: E731
        joints = []
        for j, r in enumerate(rows):
            b0, b1 = (int(b) for b in r["body"])
            at = pts(b1, r["p1"])
            kw = {}
            kind = kinds[int(r["kind"])]
            if kind is Prismatic:
                th0 = 0.0 if b0 < 0 else q[b0, 2]
                axis = _rot(th0) @ r["axis"]
                s_drawing = float(axis @ (at - pts(b0, r["p0"])))  # the core measures from p0, kanefem from `at`
                kw = dict(axis=tuple(axis), s0=float(r["s0"]) - s_drawing)
            elif kind is Revolute:
                kw = dict(s0=float(r["s0"]))
            if kind is not Weld:
                kw.update(k=float(r["k"]), damping=float(r["c"]), friction=float(r["F_r"]),
                          v_F=float(r["v_F"]) if r["F_r"] > 0 else 1e-3)
            joints.append(kind(joint_names[j], (name_of(b0), name_of(b1)), tuple(at), **kw))
        coords = []
        for kind, index, cname in ((int(c["kind"]), int(c["index"]), c["name"].decode()) for c in d["coords"]):
            if kind == 3:
                coords.append(Coordinate(cname, joint=joint_names[index]))
            else:
                coords.append(Coordinate(cname, body=body_names[index], component=("x", "y", "angle")[kind]))
        return cls(bodies, joints, coords, gravity=d["gravity"], name=name, _core_mech=core)

    def __repr__(self):
        return (f"Mechanism({self.name!r}: {len(self.bodies)} bodies ({len(self.links)} elastic), "
                f"{len(self.joints)} joints, coordinates {', '.join(c.name for c in self.coordinates)})")

    # ------------------------------------------------------------ names

    @staticmethod
    def _text(what, name):
        """A name of a body, joint or coordinate: a string (a dict lookup of an array raised
        "unhashable type")."""
        if not isinstance(name, str):
            raise TypeError(f"{what} must be a name (a string), got {_checks._short(name)}")
        return name

    def _body_index(self, name):
        if self._text("body or link", name) == GROUND:
            return -1
        try:
            return self._bidx[name]
        except KeyError:
            raise ValueError(f"unknown body {name!r} (bodies: {', '.join(self._bidx)}, or 'ground')") from None

    def _joint_index(self, name):
        try:
            return self._jidx[self._text("joint", name)]
        except KeyError:
            raise ValueError(f"unknown joint {name!r} (joints: {', '.join(self._jidx)})") from None

    def _coord_index(self, name):
        try:
            return self._cidx[self._text("coordinate", name)]
        except KeyError:
            raise ValueError(f"unknown coordinate {name!r} (coordinates: {', '.join(self._cidx)})") from None

    def _coord_unit(self, k):
        c = self.coordinates[k]
        if c.joint is not None:
            return "rad" if isinstance(self.joints[self._joint_index(c.joint)], Revolute) else "m"
        return "rad" if c.component == "angle" else "m"

    def link(self, name) -> ElasticLink:
        """An elastic link by name."""
        b = self.bodies[self._body_index(name)]
        if not isinstance(b, ElasticLink):
            raise ValueError(f"{name!r} is not an elastic link (links: {', '.join(L.name for L in self.links)})")
        return b

    # ------------------------------------------------------------ the core's description

    def _pose(self, name):
        """(centre, angle) of a body in the drawing; the ground at the origin."""
        if name == GROUND:
            return np.zeros(2), 0.0
        b = self.bodies[self._body_index(name)]
        return np.asarray(b.centre), b.angle

    def _local(self, name, at):
        """A drawing point in a body's axes, from its reference point (ground: global)."""
        c, a = self._pose(name)
        return _rot(a).T @ (np.array(_point("at", at)) - c)

    def _arrays(self):
        nb = len(self.bodies)
        mass = np.array([b.mass for b in self.bodies])
        inertia = np.array([b.inertia for b in self.bodies])
        q0 = np.array([[*b.centre, b.angle] for b in self.bodies]).ravel()
        rows = []
        for J in self.joints:
            b0, b1 = (self._body_index(n) for n in J.bodies)
            p0, p1 = self._local(J.bodies[0], J.at), self._local(J.bodies[1], J.at)
            a0, a1 = self._pose(J.bodies[0])[1], self._pose(J.bodies[1])[1]
            axis = _rot(a0).T @ np.asarray(J.axis) if isinstance(J, Prismatic) else np.zeros(2)
            s_drawing = 0.0 if isinstance(J, Prismatic) else a1 - a0
            s0 = s_drawing if J.s0 is None else J.s0
            rows.append(dict(kind=type(J).__name__.lower(), body=(b0, b1), p0=p0, p1=p1, axis=axis, angle=a1 - a0,
                             k=J.k, s0=s0, c=J.damping, F_r=J.friction, v_F=J.v_F))
        springs = []
        for S in self.springs:
            b0, b1 = (self._body_index(n) for n in S.bodies)
            p0, p1 = self._local(S.bodies[0], S.at[0]), self._local(S.bodies[1], S.at[1])
            L0 = float(np.hypot(*np.subtract(S.at[1], S.at[0]))) if S.length is None else S.length
            springs.append(dict(body=(b0, b1), p0=p0, p1=p1, k=S.k, L0=L0, c=S.damping))
        coords = []
        for C in self.coordinates:
            if C.joint is not None:
                J = self.joints[self._joint_index(C.joint)]
                if isinstance(J, Weld):
                    raise ValueError(f"{C.name}: joint {C.joint!r} is a weld, which has no coordinate")
                coords.append(dict(kind="joint", index=self._joint_index(C.joint), name=C.name))
            else:
                b = self._body_index(C.body)
                if b < 0:
                    raise ValueError(f"{C.name}: the ground has no coordinates")
                coords.append(dict(kind=C.component, index=b, name=C.name))
        return dict(mass=mass, inertia=inertia, q0=q0, joints=_records.joints(rows),
                    springs=_records.springs(springs), coords=_records.coords(coords),
                    gravity=np.array(self.gravity))

    def drawing_coordinates(self) -> np.ndarray:
        """The independent coordinates of the drawing, (nz,)."""
        q = self._q0.reshape(-1, 3)
        z = []
        for C in self.coordinates:
            if C.body is not None:
                z.append(q[self._body_index(C.body), _COMPONENTS[C.component]])
                continue
            J = self.joints[self._joint_index(C.joint)]
            b0, b1 = (self._body_index(n) for n in J.bodies)
            th = [0.0 if b < 0 else q[b, 2] for b in (b0, b1)]
            if isinstance(J, Revolute):
                z.append(th[1] - th[0])
            else:  # the sliding distance is measured from the drawing
                P = [self._track(self._q0.reshape(1, -1, 3), n, J.at)[0] for n in J.bodies]
                axis = _rot(th[0]) @ (_rot(self._pose(J.bodies[0])[1]).T @ np.asarray(J.axis))
                z.append(float(axis @ (P[1] - P[0])))
        return np.array(z)

    def _track(self, q, body, at):
        """Global positions over q (nt, nb, 3) of a point given in the drawing."""
        b = self._body_index(body)
        if b < 0:
            return np.broadcast_to(np.array(_point("at", at)), (q.shape[0], 2)).copy()
        p = self._local(body, at)
        th = q[:, b, 2]
        c, s = np.cos(th), np.sin(th)
        return np.column_stack([q[:, b, 0] + c * p[0] - s * p[1], q[:, b, 1] + s * p[0] + c * p[1]])

    # ------------------------------------------------------------ kinematics

    def _states(self, z):
        """Rows of coordinates (nt, nz), checked by name."""
        nz = len(self.coordinates)
        z = np.atleast_2d(_checks.array("z", z))
        if z.ndim != 2 or z.shape[1] != nz:
            raise ValueError(f"z must have {nz} columns (one per coordinate), got shape {z.shape}")
        return z

    @staticmethod
    def _rates(name, value, shape):
        """Rates (or forces) given per row, or once for all rows, as an array of ``shape``."""
        v = _checks.array(name, value)
        try:
            return np.broadcast_to(v, shape).copy()
        except ValueError:
            raise ValueError(f"{name} must have shape {shape} (or broadcast to it), got {v.shape}") from None

    def kinematics(self, z, zd=None, zdd=None) -> dict:
        """Positions, velocities and accelerations at states (rows of z, zd, zdd).

        Instants are solved in order, each continued from the previous one (the first
        from the drawing), so the rows should follow a path.

        Returns
        -------
        dict
            ``q``, ``qd``, ``qdd`` (nt, nbody, 3); ``A`` (nt, 3 nbody, nz) with
            q' = A z'; ``c`` (nt, 3 nbody) with q'' = A z'' + c; ``Q`` (nt, 3 nbody)
            applied forces; ``frames``: per link, its frame (nt,).

        Raises
        ------
        GeometryError
            Where the loop cannot close or at a dead point, naming the coordinates.
        """
        z = self._states(z)
        rates = [None if v is None else self._rates(n, v, z.shape) for n, v in (("zd", zd), ("zdd", zdd))]
        k = _core.mech_kinematics(self._core, z, rates[0], rates[1], frames=self._frames)
        nt, nb = z.shape[0], len(self.bodies)
        out = {n: k[n].reshape(nt, nb, 3) for n in ("q", "qd", "qdd")}
        out.update(A=k["A"], c=k["c"], Q=k["Q"])
        out["frames"] = {L.name: k["frames"][:, i] for i, L in enumerate(self.links)}
        return out

    def accelerations(self, z, zd, forces=None) -> np.ndarray:
        """Kane's equations at states: z'' (nt, nz) of every coordinate left free,
        under the mechanism's forces and ``forces`` (nt, nz) applied along z (motor
        torques); rows continued as in :meth:`kinematics`."""
        nz = len(self.coordinates)
        z = self._states(z)
        zd = self._rates("zd", zd, z.shape)
        tau = None if forces is None else self._rates("forces", forces, z.shape)
        return _core.mech_accelerations(self._core, z, zd, tau)

    # ------------------------------------------------------------ motion

    def _drives(self, drives):
        drives = {} if drives is None else _checks.mapping(
            "drives", drives, "a dict {coordinate name: ConstantSpeed, Torque, Path or Recorded}")
        for name in drives:
            self._coord_index(name)
        return [drives.get(c.name) for c in self.coordinates]

    def solve(self, t=None, *, duration=None, points=361, drives=None, z0=None, zd0=None,
              rtol=1e-9, atol=1e-12, progress=None) -> MechanismMotion:
        """The rigid motion under drives, by Kane's equations (Dormand-Prince 5(4)).

        Parameters
        ----------
        t : array_like, optional
            Output times [s], strictly increasing, the first the initial instant;
            default ``points`` instants over ``duration``.
        duration : float
            [s], with ``points`` (default 361), when t is not given (giving both is
            refused).
        drives : dict, optional
            Coordinate name -> :class:`ConstantSpeed`, :class:`Torque`,
            :class:`Path` or :class:`Recorded`; the others are free (no applied
            force of their own).  When every coordinate is :class:`Recorded`, the
            motion is the smoothed samples (no integration; without t or duration,
            at the samples' times; a grid asked for must lie inside the records).
        z0, zd0 : array_like, optional
            Initial coordinates (default the drawing's) and rates (default 0).
        rtol, atol : float
            Error tolerances.
        progress : callable, optional
            Called with the time now and then (Ctrl-C stops the run).

        Returns
        -------
        MechanismMotion

        Raises
        ------
        GeometryError
            The motion leaves the assembly region (the message names when and where).
        """
        ds = self._drives(drives)
        nz = len(self.coordinates)
        if nz and all(isinstance(d, Recorded) for d in ds):
            return self._recorded(ds, t, duration, points)
        tt = self._check_size(self._time_grid(t, duration, points), "t or points")
        z0 = self._initial_coordinates(z0)
        zd0 = np.zeros(nz) if zd0 is None else _checks.array("zd0", zd0, shape=(nz,))
        modes, speeds, paths, laws = np.zeros(nz), np.zeros(nz), [None] * nz, [None] * nz
        for k, d in enumerate(ds):
            if d is None:
                continue
            if isinstance(d, ConstantSpeed):
                modes[k], speeds[k] = 1, d.speed
            elif isinstance(d, Torque):
                laws[k] = d.function()
            elif isinstance(d, Path):
                modes[k], paths[k] = 2, d.function
            elif isinstance(d, Recorded):
                spline = d.spline()
                modes[k], paths[k] = 2, (lambda s: lambda t: (s(t), s(t, 1), s(t, 2)))(spline)
            else:
                raise TypeError(f"drives[{self.coordinates[k].name!r}] must be ConstantSpeed, "
                                f"Torque, Path or Recorded, got {d!r}")
        r = _core.mech_simulate(self._core, modes, speeds, paths, laws, z0, zd0, tt,
                                rtol=_checks.real("rtol", rtol), atol=_checks.real("atol", atol),
                                progress=progress)
        s = r["states"]
        return self._motion(tt, s[:, :nz], s[:, nz:2 * nz], s[:, 2 * nz:3 * nz], s[:, 3 * nz:], r["stats"])

    def _initial_coordinates(self, z0):
        """z0 (default the drawing's), its angles within what a double resolves as they
        turn (z0 = 1e300 rad left the crank standing)."""
        if z0 is None:
            return self.drawing_coordinates()
        z0 = _checks.array("z0", z0, shape=(len(self.coordinates),))
        for k, c in enumerate(self.coordinates):
            if self._coord_unit(k) == "rad":
                _checks.angle(f"z0[{k}] ({c.name})", z0[k])
        return z0

    @staticmethod
    def _time_grid(t, duration, points):
        if t is not None and duration is not None:
            raise ValueError(f"give the output times t or duration = {duration!r} (with points), not both")
        if t is not None:
            tt = _checks.array("t", t, ndim=1)
            if tt.size < 1 or np.any(np.diff(tt) <= 0):
                raise ValueError("t must be a non-empty, strictly increasing array of times [s]")
            return tt
        if duration is None:
            raise ValueError("give the output times t, or duration (with points)")
        duration = _checks.real("duration", duration, positive=True)
        points = _checks.integer("points", points, minimum=2, maximum=_checks.MAX_OUTPUT_VALUES)
        return np.linspace(0.0, duration, points)

    def _check_size(self, tt, names, flexible=False):
        """Refuse a motion of tt.size instants whose arrays exceed the output bound, before
        they are allocated (points = 2^28 passed its own bound and asked for tens of GB):
        z, z', z'', force per coordinate; q, q', q'' (3 each) per body; a 15-double frame
        per link; two ways also d, d' per link DOF and 3 forces per joint."""
        nz, nb = len(self.coordinates), len(self.bodies)
        per = 4 * nz + 9 * nb + 15 * len(self.links)
        if flexible:
            per += 2 * sum(L.body.ndof for L in self.links) + 3 * len(self.joints)
        _checks.output_size(names, float(tt.size) * per, "a motion")
        return tt

    def _recorded(self, ds, t, duration, points):
        splines = [d.spline() for d in ds]
        if t is None and duration is None:
            tt = splines[0].t  # the samples' times
        else:  # the grid asked for, inside every record (a spline does not extrapolate)
            tt = self._check_size(self._time_grid(t, duration, points), "t or points")
            for c, s in zip(self.coordinates, splines):
                if tt[0] < s.t[0] or tt[-1] > s.t[-1]:
                    raise ValueError(f"{'t' if t is not None else 'duration'}: the times {tt[0]:g} to "
                                     f"{tt[-1]:g} s leave the record of {c.name!r} ({s.t[0]:g} to {s.t[-1]:g} s)")
        z = np.column_stack([s(tt) for s in splines])
        zd = np.column_stack([s(tt, 1) for s in splines])
        zdd = np.column_stack([s(tt, 2) for s in splines])
        drive = _core.mech_joint_forces(self._core, np.hstack([z, zd, zdd]))["drive"]
        stats = {"noise": tuple(s.noise for s in splines), "lam": tuple(s.lam for s in splines)}
        return self._motion(tt, z, zd, zdd, drive, stats)

    def _motion(self, t, z, zd, zdd, force, stats):
        k = self.kinematics(z, zd, zdd)
        return MechanismMotion(t=np.asarray(t, float), z=z, zd=zd, zdd=zdd, force=force, q=k["q"],
                               qd=k["qd"], qdd=k["qdd"], frames=k["frames"], stats=dict(stats),
                               mechanism=self)

    def _check_motion(self, motion):
        if not isinstance(motion, MechanismMotion):
            raise TypeError(f"motion must be a MechanismMotion (from Mechanism.solve), got {type(motion).__name__}")
        if motion.mechanism is not self:
            raise ValueError("motion was solved for another mechanism")

    animate = _animation.animate_mechanism  # the mechanism in motion, the links' deformation magnified

    # ------------------------------------------------------------ forces

    def joint_forces(self, motion) -> MechanismForces:
        """Joint forces, drive forces and the links' axial forces over a motion."""
        self._check_motion(motion)
        r = _core.mech_joint_forces(self._core, np.hstack([motion.z, motion.zd, motion.zdd]))
        axial = {L.name: self._link_axial(L, motion.q, motion.frames[L.name], r["joints"])
                 for L in self.links}
        return MechanismForces(t=motion.t, joints=r["joints"], drive=r["drive"], link_axial=axial,
                               mechanism=self)

    def _link_ends(self, link):
        """The joints at a link's first and last node: [(joint index, end 0/1, sign)]."""
        x = link.body.nodes[:, 0]
        out = []
        for j, J in enumerate(self.joints):
            if link.name not in J.bodies:
                continue
            p = _rot(link.angle).T @ (np.asarray(J.at) - np.asarray(link.start))
            ends = [e for e, xe in ((0, x[0]), (1, x[-1])) if math.hypot(p[0] - xe, p[1]) <= 1e-9 * link.body.length]
            if not ends:
                raise ValueError(f"joint {J.name!r} attaches to link {link.name!r} at {J.at}, not at one of "
                                 f"its end nodes {link.node_point(0)}, {link.end}")
            out.append((j, ends[0], 1.0 if J.bodies[1] == link.name else -1.0))
        return out

    def _link_axial(self, link, q, frames, joints):
        """N(x) of a link over a motion: the quasi-static axial equilibrium under its
        inertial load and the joint forces at its ends (docs/theory.md section 5.11)."""
        body = link.body
        b = self._bidx[link.name]
        ex = np.column_stack([np.cos(q[:, b, 2]), np.sin(q[:, b, 2])])
        f_end = np.zeros((q.shape[0], 2))
        for j, end, sign in self._link_ends(link):
            f_end[:, end] += sign * np.sum(joints[:, j, :2] * ex, axis=1)
        fixed = link._fixed
        nd = body.dofs_per_node
        fx = (bool(fixed[0]), bool(fixed[(body.n_nodes - 1) * nd]))
        if all(fx):  # a frame through both ends: the joint forces carry the axial load
            fx = (False, False)
        return np.array([_core.axial_force(body=body._body, frames=frames[i:i + 1], f_first=f_end[i, 0],
                                           f_last=f_end[i, 1], fixed_first=fx[0], fixed_last=fx[1])[0]
                         for i in range(q.shape[0])]).reshape(-1, 3)

    # ------------------------------------------------------------ elastic links, one way

    def link_eigenvalues(self, motion, n_modes=2, include_eps=True, geometric_stiffness=True,
                         order="ascending", links=None) -> dict:
        """Frozen-time eigenvalues of every elastic link over a motion (one way).

        Parameters
        ----------
        motion : MechanismMotion
        n_modes : int
        include_eps : bool
            Include K_eps (the general solver where eps != 0).
        geometric_stiffness : bool
            Add K_G from each link's axial force (``link_axial`` of :class:`MechanismForces`:
            quasi-static under the rigid motion's joint forces and axial inertia).
            Default on: that force is known from the rigid solution, and it moves the
            shipped slider-crank rod's first frequency by up to 11 % over a turn.  (The
            wind pump's :meth:`~kanefem.WindPump.lever_eigenvalues` keeps the seeds'
            method, K_G off, where it moves the lever's by 0.9 % at 140 rpm.)
        order : {"ascending", "tracked"}
        links : sequence of str, optional
            Default every link.

        Returns
        -------
        dict
            link name -> :class:`LinkEigenvalues`.
        """
        self._check_motion(motion)
        names = [L.name for L in self.links] if links is None else _checks.sequence("links", links)
        geometric_stiffness = _checks.flag("geometric_stiffness", geometric_stiffness)
        include_eps = _checks.flag("include_eps", include_eps)
        axial = self.joint_forces(motion).link_axial if geometric_stiffness else {}
        out = {}
        for name in names:
            L = self.link(name)
            f = motion.frames[name]
            ax = axial.get(name)
            r = L.body.eigenvalues_vs_time(f["omega"][:, 2], f["eps"][:, 2], n_modes, supports=L.supports,
                                           include_eps=include_eps, order=order, mode_shapes=False,
                                           geometric_stiffness=geometric_stiffness, axial_force=ax)
            out[name] = LinkEigenvalues(t=motion.t, eigenvalues=r.eigenvalues,
                                        eigenvalues_imag=r.eigenvalues_imag,
                                        frequencies_hz=_signed_hz(r.eigenvalues), solver=r.solver,
                                        axial_force=ax, stats=r.stats,
                                        geometric_stiffness=geometric_stiffness,
                                        axial_force_source="quasi-static, from the rigid motion's joint "
                                        "forces and axial inertia" if geometric_stiffness else None)
        return out

    def link_response(self, motion, link, method="newmark", dt=None, damping=None,
                      initial="quasi-static", geometric_stiffness=False, **simulate_options):
        """The elastic response of a link on a solved rigid motion, in time (one way).

        The link's frame follows the rigid motion (splines through the motion's
        samples of its angle and origin, so omega, eps and a_O are their exact
        derivatives), with gravity; ``geometric_stiffness`` adds K_G of the
        quasi-static axial force under the frame's inertial load with the link's
        reference conditions (the joint forces do not enter: see
        :meth:`link_eigenvalues` for those).  Off by default, unlike there and in
        :meth:`simulate_flexible`: without the joint forces this N is not the link's axial
        force (a connecting rod's comes mostly from them), so it is not known from the
        solution here.

        Returns
        -------
        SimulationResult
            ``t`` = ``motion.t``; ``d``, ``v`` over the link's DOFs in its frame.
        """
        from .motion import Motion
        from .simulate import simulate

        self._check_motion(motion)
        _checks.choice("initial", initial, ("quasi-static", "rest"))
        L = self.link(link)
        if motion.t.shape[0] < 4:
            raise ValueError(f"motion must have at least 4 instants, got {motion.t.shape[0]}")
        b = self._bidx[L.name]
        t = motion.t - motion.t[0]
        origin = self._track(motion.q, L.name, L.start)
        frame = Motion.from_samples(t, np.unwrap(motion.q[:, b, 2]), origin)
        d0 = _quasi_static(L, motion.frames[L.name][0]) if initial == "quasi-static" else None
        if dt is None and method in ("newmark", "generalized-alpha"):
            w1 = math.sqrt(max(L.body.eigenvalues(1, supports=L.supports).eigenvalues[0], 1e-30))
            dt = min(2 * math.pi / w1 / 40, float(np.min(np.diff(t))))
        r = simulate(L.body, frame, float(t[-1]), dt=dt, method=method, supports=L.supports,
                                damping=damping, d0=d0, t_eval=t, gravity=self.gravity,
                                geometric_stiffness=geometric_stiffness, **simulate_options)
        return dataclasses.replace(r, t=motion.t.copy())

    # ------------------------------------------------------------ elastic links, two ways

    def simulate_flexible(self, t=None, *, duration=None, points=361, drives=None, z0=None,
                          zd0=None, d0=None, dd0=None, dt=None, rtol=1e-2, atol=1e-9, rho_inf=0.9, tol=1e-8,
                          max_iter=25, max_steps=2_000_000, progress=None) -> FlexibleMotion:
        """The motion with the elastic links coupled both ways (floating frames).

        Rigid and elastic coordinates form one system, M(p) p'' = f(t, p, p'), with
        p = (free independent coordinates, the links' free elastic DOFs), integrated by
        generalized-alpha (Arnold-Bruls form, Newton iterations) with steps that land
        on every output time; the dependent rigid coordinates follow from the loop
        closure at every evaluation (coordinate partitioning: the constraints hold to
        round-off, docs/theory.md section 5.12).

        Each link's K_G (:attr:`ElasticLink.geometric_stiffness`, on by default) uses
        its axial force from the coupled solution at every step: the joint forces at
        its ends at the current accelerations and its axial inertia.

        The step is checked against an accuracy target (step doubling): the run is
        repeated with every step halved, the difference of the two estimates the finer
        run's error (Richardson, second order: difference / 3, times a margin of 1.5),
        and while it exceeds ``rtol`` the steps are refined by the power of two the
        estimate asks for (error ~ h^2), and checked again against a run at twice the
        step.  The finest run is returned; ``stats["error_estimate"]`` holds its
        estimate.

        Parameters
        ----------
        t, duration, points, drives, z0, zd0
            As in :meth:`solve` (:class:`Recorded` drives become paths).
        d0 : dict, optional
            Link name -> initial elastic displacements over its DOFs (default zero).
        dd0 : dict, optional
            Link name -> initial elastic velocities over its DOFs [m/s, rad/s]
            (default zero), checked as ``d0``; at the DOFs the link's reference
            conditions fix both are ignored (they stay zero).
        dt : float, optional
            The first (largest) step [s]; default 1/20 of the shortest first-mode
            period of the links at rest, at most the output interval.  Steps are equal
            within each output interval.
        rtol : float or None
            The accuracy target: the estimated error of every position at every output
            time, relative to that quantity's largest excursion over the run (per link:
            the nodes' displacements together, their rotations together; per free rigid
            coordinate: its range), plus ``atol``, in [1e-12, 1).  Default 1e-2 (1 % of
            the peak deflection).  None: one run at ``dt``, no check (``error_estimate``
            None).
        atol : float
            Absolute floor of that error [m or rad], for quantities that stay near zero.
        rho_inf : float
            Spectral radius at infinite step in [0, 1]: 1 is Newmark's average
            acceleration (no numerical damping); smaller damps the highest modes.
        tol : float
            Newton's tolerance on the acceleration correction, relative to the largest
            acceleration (default 1e-8; it also stops where the corrections stagnate at
            round-off).
        max_iter : int
            Newton iterations per step.
        max_steps : int
            Most steps of one run.  Where reaching ``rtol`` needs more, the finest run
            within it is returned with a ``RuntimeWarning`` naming its estimate
            (``stats["accurate"]`` False).

        Returns
        -------
        FlexibleMotion
            ``stats``: the integrator's counts summed over the runs, and ``dt`` (the
            largest step of the returned run), ``refine`` (its steps per step of
            ``dt``), ``runs``, ``rtol``, ``atol``, ``error_estimate``, ``accurate``;
            ``geometric_stiffness`` (per link) and ``axial_force`` (how N was obtained).
        """
        if not self.links:
            raise ValueError("the mechanism has no elastic links: use solve()")
        ds = self._drives(drives)
        nz = len(self.coordinates)
        tt = self._check_size(self._time_grid(t, duration, points), "t or points", flexible=True)
        z0 = self._initial_coordinates(z0)
        zd0 = np.zeros(nz) if zd0 is None else _checks.array("zd0", zd0, shape=(nz,))
        modes, speeds, paths, laws = np.zeros(nz), np.zeros(nz), [None] * nz, [None] * nz
        for k, d in enumerate(ds):
            if isinstance(d, ConstantSpeed):
                modes[k], speeds[k] = 1, d.speed
            elif isinstance(d, Torque):
                laws[k] = d.function()
            elif isinstance(d, Path):
                modes[k], paths[k] = 2, d.function
            elif isinstance(d, Recorded):
                spline = d.spline()
                modes[k], paths[k] = 2, (lambda s: lambda t: (s(t), s(t, 1), s(t, 2)))(spline)
            elif d is not None:
                raise TypeError(f"drives[{self.coordinates[k].name!r}] must be ConstantSpeed, "
                                f"Torque, Path or Recorded, got {d!r}")
        for L in self.links:
            self._check_reference(L)
        free = [np.flatnonzero(~L._fixed) for L in self.links]

        def elastic(name, given, what):  # per link over its free DOFs, checked by name and shape
            given = {} if given is None else _checks.mapping(name, given, f"a dict {{link name: {what}}}")
            out = []
            for L, f in zip(self.links, free):
                v = np.zeros(L.body.ndof) if L.name not in given else \
                    _checks.array(f"{name}[{L.name!r}]", given.pop(L.name), shape=(L.body.ndof,))
                out.append(v[f])
            if given:
                raise ValueError(f"{name}: unknown links {', '.join(map(repr, given))}")
            return np.concatenate(out) if out else np.zeros(0)

        x0 = np.concatenate([elastic("d0", d0, "displacements"), elastic("dd0", dd0, "velocities")])
        if rtol is not None:
            rtol = _checks.real("rtol", rtol, positive=True)
            if not 1e-12 <= rtol < 1.0:  # below, round-off of the runs themselves
                raise ValueError(f"rtol = {rtol!r} must lie in [1e-12, 1) (or be None: no check)")
        atol = _checks.real("atol", atol, nonnegative=True)
        max_steps = _checks.integer("max_steps", max_steps, minimum=1, maximum=MAX_STEPS_LIMIT)
        if dt is None:
            w = max(math.sqrt(max(L.body.eigenvalues(1, supports=L.supports).eigenvalues[0], 1e-30))
                    for L in self.links)
            dt = 2 * math.pi / w / 20
            if tt.size > 1:
                dt = min(dt, float(np.min(np.diff(tt))))
        dt = _checks.real("dt", dt, positive=True)
        links = [dict(body=self._bidx[L.name], fe=L.body._body, fixed=L._fixed, rayleigh=np.array(L.damping),
                      geometric=L.geometric_stiffness) for L in self.links]
        options = dict(dt=dt, rho_inf=_checks.real("rho_inf", rho_inf),
                       tol=_checks.real("tol", tol, positive=True),
                       max_iter=_checks.integer("max_iter", max_iter, minimum=1, maximum=1000), progress=progress)
        # steps of one run at refine = 1 (the core's rule: equal steps of at most dt)
        base = max(1, int(np.sum(np.maximum(1.0, np.ceil(np.diff(tt) / dt * (1.0 - 1e-9))))))

        def run(refine):
            try:
                return _core.mech_flex_simulate(self._core, links, modes, speeds, paths, laws, z0, zd0,
                                                x0, tt, refine=refine,
                                                max_steps=max_steps, **options)
            except _core.LinAlgError as e:
                if refine == 1:
                    raise
                # the accuracy check's own refinement failed: say so (a smaller dt is what it tried)
                kg = [L.name for L in self.links if L.geometric_stiffness and not any(L.damping)]
                hint = (f"; with K_G on, the undamped links {', '.join(map(repr, kg))} can grow an "
                        "instability once a step resolves their axial modes (docs/theory.md section "
                        "5.12): a little stiffness-proportional damping (ElasticLink damping=(0, beta)) "
                        "or a smaller rho_inf damps it") if kg else ""
                raise type(e)(f"{e} -- in the accuracy check's run at dt / {refine} (rtol = {rtol!r}; "
                              f"a larger rtol stops at coarser steps){hint}") from e

        # refused before any step, as simulate refuses the same (StepLimitError naming dt)
        _steps(float(tt[-1] - tt[0]), dt, max_steps, ("dt", "the duration"), hint="")
        if base > max_steps:  # the steps of the output intervals, each rounded up
            raise _core.StepLimitError(f"dt = {dt!r} s needs {base} steps over the output instants, more "
                                       f"than max_steps = {max_steps}: use a larger dt (or raise max_steps)")
        refine, r = 1, run(1)
        counts = dict(r["stats"])
        estimate, runs, accurate = None, 1, True
        if rtol is not None:
            scales = _error_scales(r, self.links, free, ds, nz)
            while True:
                # the next refinement: double, or what the last estimate asks for (error ~ h^2);
                # the estimate always compares a run with one at twice its steps (a larger
                # ratio would lean on a coarse run outside the asymptotic range)
                k = 2 if estimate is None else 2 ** max(1, math.ceil(math.log2(1.25 * math.sqrt(estimate / rtol))))
                if refine * k * base > max_steps:
                    if estimate is None:
                        raise ValueError(f"rtol = {rtol!r}: checking the step needs twice the {base} "
                                         f"steps of dt = {dt!r} s, more than max_steps = {max_steps}")
                    accurate = False
                    warnings.warn(f"simulate_flexible: estimated error {estimate:.3g} (relative to the "
                                  f"peaks) exceeds rtol = {rtol:g} at {refine * base} steps; a finer step "
                                  f"needs more than max_steps = {max_steps}", RuntimeWarning, stacklevel=2)
                    break
                if k > 2:
                    r = run(refine * k // 2)
                    runs += 1
                    for key, v in r["stats"].items():
                        counts[key] = counts.get(key, 0) + v
                    refine *= k // 2
                fine = run(refine * 2)
                runs += 1
                for key, v in fine["stats"].items():
                    counts[key] = counts.get(key, 0) + v
                scales = np.maximum(scales, _error_scales(fine, self.links, free, ds, nz))
                estimate = _error_estimate(r, fine, scales, self.links, free, ds, nz, 2, atol / rtol)
                refine, r = refine * 2, fine
                if estimate <= rtol:
                    break
        s = r["states"]
        stats = dict(counts, dt=dt / refine, refine=refine, runs=runs, rtol=rtol, atol=atol,
                     error_estimate=estimate, accurate=accurate,
                     geometric_stiffness={L.name: L.geometric_stiffness for L in self.links},
                     axial_force="joint forces and axial inertia of the coupled solution, at every step")
        motion = self._motion(tt, s[:, :nz], s[:, nz:2 * nz], s[:, 2 * nz:3 * nz], s[:, 3 * nz:], stats)
        d, dd, off = {}, {}, 0
        nfree = sum(len(f) for f in free)
        for L, f in zip(self.links, free):
            d[L.name] = np.zeros((tt.size, L.body.ndof))
            dd[L.name] = np.zeros((tt.size, L.body.ndof))
            d[L.name][:, f] = r["elastic"][:, off:off + len(f)]
            dd[L.name][:, f] = r["elastic"][:, nfree + off:nfree + off + len(f)]
            off += len(f)
        return FlexibleMotion(motion=motion, d=d, d_t=dd, joints=r["joints"], stats=stats,
                              geometric_stiffness=dict(stats["geometric_stiffness"]))

    def _check_reference(self, link):
        """Joints attach to a link only at nodes its reference conditions hold (u and v
        fixed), so that the constraints see the frame's points."""
        body = link.body
        nd = body.dofs_per_node
        for j, end, _ in self._link_ends(link):
            node = 0 if end == 0 else body.n_nodes - 1
            held = link._fixed[node * nd: node * nd + min(nd, 2)]
            if not np.all(held):
                raise ValueError(f"joint {self.joints[j].name!r} attaches to link {link.name!r} at node "
                                 f"{node}, where its reference conditions {link.supports!r} leave it free: "
                                 "the elastic displacement there would break the joint")

    # ------------------------------------------------------------ files

    @classmethod
    def from_toml(cls, path) -> "Mechanism":
        """Read a mechanism from a TOML file (see :meth:`to_toml`)."""
        path = _checks.path("path", path)
        data = read_toml(path)
        try:
            return cls.from_dict(data)
        except (ValueError, TypeError, KeyError) as exc:
            raise type(exc)(f"{path}: {exc}") from None

    @classmethod
    def from_dict(cls, data) -> "Mechanism":
        """A mechanism from the tables of a TOML file (:meth:`to_toml`)."""
        known = {"mechanism", "body", "link", "joint", "spring", "coordinate", "run", "sweep"}
        if not isinstance(data, Mapping):
            raise TypeError(f"data must be a dict of tables, got {_checks._short(data)}")
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown table(s) {', '.join(map(repr, unknown))} (known: {', '.join(sorted(known))})")
        for key in known - {"mechanism", "run", "sweep"}:
            if not isinstance(data.get(key, []), list):
                raise TypeError(f"[[{key}]] must be an array of tables, got {_checks._short(data[key])}")
        if not isinstance(data.get("mechanism", {}), Mapping):
            raise TypeError(f"[mechanism] must be a table, got {_checks._short(data['mechanism'])}")
        head = dict(data.get("mechanism", {}))
        name = head.pop("name", "mechanism")
        gravity = head.pop("gravity", (0.0, -9.81))
        if head:
            raise ValueError(f"[mechanism] has no key(s) {', '.join(map(repr, head))} (it has name, gravity)")

        def take(table, kind, allowed, where):
            if not isinstance(table, Mapping):
                raise TypeError(f"[[{where}]] must hold tables, got {table!r}")
            t = dict(table)
            extra = sorted(set(t) - set(allowed))
            if extra:
                raise ValueError(f"[[{where}]] {t.get('name', '?')!r}: unknown key(s) {', '.join(map(repr, extra))} "
                                 f"(allowed: {', '.join(allowed)})")
            return t

        bodies = []
        for t in data.get("body", []):
            t = take(t, RigidBody, ("name", "mass", "inertia", "centre", "angle"), "body")
            bodies.append(RigidBody(**t))
        for t in data.get("link", []):
            t = take(t, ElasticLink, ("name", "kind", "length", "elements", "E", "A", "I", "rho", "start",
                                      "angle", "end", "supports", "damping", "geometric_stiffness"), "link")
            kind = t.pop("kind", "beam")
            _checks.choice(f"link {t.get('name')!r}: kind", kind, ("beam", "bar"))
            start = t.pop("start", (0.0, 0.0))
            if "end" in t:
                end = _point("end", t.pop("end"))
                if "angle" in t or "length" in t:
                    raise ValueError(f"link {t.get('name')!r}: give end, or angle and length, not both")
                t["angle"] = math.atan2(end[1] - start[1], end[0] - start[0])
                t["length"] = math.hypot(end[0] - start[0], end[1] - start[1])
            need = ("length", "E", "A", "rho") + (("I",) if kind == "beam" else ())
            missing = [k for k in need if k not in t]
            if missing:
                raise ValueError(f"[[link]] {t.get('name', '?')!r}: missing key(s) {', '.join(map(repr, missing))} "
                                 f"(a {kind} link needs {', '.join(need)})")
            sec = dict(E=t.pop("E"), A=t.pop("A"), rho=t.pop("rho"))
            length = t.pop("length")
            n = _checks.integer(f"link {t.get('name')!r}: elements", t.pop("elements", 10), minimum=1,
                                maximum=PlanarBeam.MAX_ELEMENTS)
            body = PlanarBeam(length, n, I=t.pop("I"), **sec) if kind == "beam" else AxialBar(length, n, **sec)
            t.pop("I", None)
            bodies.append(ElasticLink(body=body, start=start, **t))
        kinds = {"revolute": Revolute, "prismatic": Prismatic, "weld": Weld}
        joints = []
        for t in data.get("joint", []):
            t = take(t, None, ("name", "kind", "bodies", "at", "axis", "k", "s0", "damping", "friction", "v_F"), "joint")
            kind = t.pop("kind", "revolute")
            _checks.choice(f"joint {t.get('name')!r}: kind", kind, tuple(kinds))
            joints.append(kinds[kind](**t))
        springs = [Spring(**take(t, Spring, ("name", "bodies", "at", "k", "length", "damping"), "spring"))
                   for t in data.get("spring", [])]
        coords = []
        for t in data.get("coordinate", []):
            t = take(t, Coordinate, ("name", "body", "component", "joint", "drive", "speed", "torque",
                                     "initial", "rate"), "coordinate")
            coords.append(Coordinate(**{k: t[k] for k in ("name", "body", "component", "joint") if k in t}))
        mech = cls(bodies, joints, coords, springs, gravity=gravity, name=name)
        mech.run_drives = cls._drives_of(data.get("coordinate", []))
        return mech

    @staticmethod
    def _drives_of(tables):
        """The drives and initial values a TOML file gives its coordinates."""
        out = {}
        for t in tables:
            drive = t.get("drive", "free")
            _checks.choice(f"coordinate {t['name']!r}: drive", drive, ("free", "constant-speed", "torque"))
            entry = {k: None if t.get(k) is None else _checks.real(f"coordinate {t['name']!r}: {k}", t[k])
                     for k in ("initial", "rate")}
            if drive == "constant-speed":
                if "speed" not in t:
                    raise ValueError(f"coordinate {t['name']!r}: a constant-speed drive needs its speed")
                entry["drive"] = ConstantSpeed(t["speed"])
            elif drive == "torque":
                entry["drive"] = Torque(_checks.real("torque", t.get("torque", 0.0)))
            out[t["name"]] = entry
        return out

    def _to_record(self):
        """The definition as a JSON string (how a result's to_dict() stores its
        mechanism), with the bodies' order (results index bodies by it); None if it
        cannot be written (:meth:`to_dict` refuses it)."""
        import json

        try:
            return json.dumps({"definition": self.to_dict(), "bodies": [b.name for b in self.bodies]},
                              default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o))
        except (ValueError, TypeError):
            return None

    @classmethod
    def _from_record(cls, text):
        """The mechanism of :meth:`_to_record`'s string (its bodies in their order)."""
        import json

        rec = json.loads(text)
        mech = cls.from_dict(rec["definition"])
        order = rec.get("bodies")
        if order and [b.name for b in mech.bodies] != order:
            drives = mech.run_drives
            mech = cls([mech.bodies[mech._body_index(n)] for n in order], mech.joints, mech.coordinates,
                       mech.springs, gravity=mech.gravity, name=mech.name)
            mech.run_drives = drives
        return mech

    def to_dict(self, drives=None) -> dict:
        """The tables of :meth:`to_toml`."""
        out = {"mechanism": {"name": self.name, "gravity": list(self.gravity)}}
        rigid = [b for b in self.bodies if isinstance(b, RigidBody)]
        if rigid:
            out["body"] = [{"name": b.name, "mass": b.mass, "inertia": b.inertia, "centre": list(b.centre),
                            "angle": b.angle} for b in rigid]
        if self.links:
            out["link"] = []
            for L in self.links:
                b = L.body
                if b.origin != 0.0:
                    raise ValueError(f"link {L.name!r}: elements from origin {b.origin} cannot be written (0 only)")
                t = {"name": L.name, "kind": "beam" if isinstance(b, PlanarBeam) else "bar", "length": b.length,
                     "elements": b.n_elements, "E": b.E, "A": b.A}
                if isinstance(b, PlanarBeam):
                    t["I"] = b.I
                t.update(rho=b.rho, start=list(L.start), angle=L.angle)
                if not isinstance(L.supports, str):
                    raise ValueError(f"link {L.name!r}: only preset supports can be written")
                t.update(supports=L.supports, damping=list(L.damping), geometric_stiffness=L.geometric_stiffness)
                out["link"].append(t)
        out["joint"] = []
        for J in self.joints:
            t = {"name": J.name, "kind": type(J).__name__.lower(), "bodies": list(J.bodies), "at": list(J.at)}
            if isinstance(J, Prismatic):
                t["axis"] = list(J.axis)
            if not isinstance(J, Weld):
                for f in ("k", "damping", "friction"):
                    if getattr(J, f):
                        t[f] = getattr(J, f)
                if J.s0 is not None:
                    t["s0"] = J.s0
                if J.friction:
                    t["v_F"] = J.v_F
            out["joint"].append(t)
        if self.springs:
            out["spring"] = [{"name": S.name, "bodies": list(S.bodies), "at": [list(S.at[0]), list(S.at[1])],
                              "k": S.k, **({} if S.length is None else {"length": S.length}),
                              "damping": S.damping} for S in self.springs]
        drives = self.run_drives if drives is None else drives
        if not isinstance(drives, Mapping) or not all(isinstance(e, Mapping) for e in drives.values()):
            raise TypeError(f"drives must map coordinate names to dicts ({{'drive': ..., 'initial': ..., "
                            f"'rate': ...}}), got {_checks._short(drives)}")
        out["coordinate"] = []
        for C in self.coordinates:
            t = {"name": C.name}
            t.update({"joint": C.joint} if C.joint else {"body": C.body, "component": C.component})
            entry = drives.get(C.name, {})
            d = entry.get("drive")
            if isinstance(d, ConstantSpeed):
                t.update(drive="constant-speed", speed=d.speed)
            elif isinstance(d, Torque) and not callable(d.law):
                t.update(drive="torque", torque=float(d.law))
            elif d is not None:
                raise ValueError(f"coordinate {C.name!r}: only constant-speed and constant torque drives "
                                 "can be written to TOML")
            for key in ("initial", "rate"):
                if entry.get(key) is not None:
                    t[key] = float(entry[key])
            out["coordinate"].append(t)
        return out

    def to_toml(self, path, drives=None, run=None, comment=None, sweep=None):
        """Write the mechanism as TOML (atomically); return the path.

        ``drives``: coordinate name -> {"drive": ConstantSpeed or constant Torque,
        "initial": z0, "rate": z0'} (default: what :meth:`from_toml` read);
        ``run``: a dict of scalars written as a ``[run]`` table (the command line's
        options); ``sweep``: a dict of lists of numbers written as a ``[sweep]`` table
        (the grid of ``python -m kanefem mechanism --sweep``; :meth:`from_toml` skips both).
        """
        path = _checks.path("path", path)
        tables = self.to_dict(drives)
        if run is not None and _checks.mapping("run", run, "a dict of scalars"):
            tables["run"] = dict(run)
        if sweep:
            tables["sweep"] = {k: list(v) for k, v in sweep.items()}
        comment = comment or (f"kanefem mechanism {self.name!r} (SI units, angles in radians; "
                              "points are those of the drawing)")
        return write_toml(path, tables, comment=comment)


def file_run(mech, duration=0.0, revolutions=1.0, points=361):
    """The run a mechanism's file describes: (t, drives, z0, zd0) for :meth:`Mechanism.solve`.

    Drives and initial values from the file's coordinates (``run_drives``; the drawing's
    coordinates and rest otherwise); ``points`` instants over ``duration`` [s], or
    (duration 0) over ``revolutions`` turns of the first angle driven at a constant
    speed, or ``revolutions`` seconds without one.  As ``python -m kanefem mechanism``
    runs a file.
    """
    drives = {n: e["drive"] for n, e in mech.run_drives.items() if e.get("drive") is not None}
    z0 = mech.drawing_coordinates()
    zd0 = np.zeros(len(z0))
    turn = None
    for k, c in enumerate(mech.coordinates):
        entry = mech.run_drives.get(c.name, {})
        if entry.get("initial") is not None:
            z0[k] = entry["initial"]
        if entry.get("rate") is not None:
            zd0[k] = entry["rate"]
        d = entry.get("drive")
        if isinstance(d, ConstantSpeed) and mech._coord_unit(k) == "rad" and d.speed and turn is None:
            turn = 2 * math.pi / abs(d.speed)
    if not (duration >= 0 and points >= 2):
        raise ValueError(f"duration = {duration!r} must be >= 0 and points = {points!r} >= 2 "
                         "(--duration, --points)")
    duration = duration or revolutions * (turn or 1.0)
    if not duration > 0:
        raise ValueError(f"revolutions must be positive, got {revolutions}")
    return np.linspace(0.0, duration, points), drives, z0, zd0


def _quasi_static(link, frame):
    """(K + K_eps + K_om) d = -q_a - q_eps - q_om at one instant, reference conditions."""
    body = link.body
    terms = body.motion_terms(frame["omega"][2], frame["eps"][2], frame["a"][:2])
    K = body.stiffness_matrix() + terms.K_eps + terms.K_om
    f = -(terms.q_a + terms.q_eps + terms.q_om)
    free = ~link._fixed
    d = np.zeros(body.ndof)
    d[free] = np.linalg.solve(K[np.ix_(free, free)], f[free])
    return d


# ---------------------------------------------------------------- examples

#: the example mechanisms shipped with the package (kanefem/examples/NAME.toml)
EXAMPLES = ("windpump", "slider_crank", "four_bar")


def _error_groups(links, free, ds, nz):
    """The quantities of the two-way accuracy target, as column groups of a run's
    positions (states' z for free rigid coordinates, elastic d over each link's free
    DOFs): per link its nodes' displacements (one group: the vector's length) and their
    rotations; per free rigid coordinate itself."""
    groups, off = [], 0
    for k in range(nz):
        if ds[k] is None or isinstance(ds[k], Torque):
            groups.append(("z", [k], None))
    for L, f in zip(links, free):
        nd = L.body.dofs_per_node
        kind = np.asarray(f) % nd
        for sel in ((kind < 2), (kind == 2)) if nd >= 3 else ((kind < 2),):
            cols = off + np.flatnonzero(sel)
            if cols.size:
                groups.append(("d", cols, np.asarray(f)[sel] // nd))
        off += len(f)
    return groups


def _group_values(r, group, nz):
    where, cols, nodes = group
    if where == "z":
        v = r["states"][:, cols[0]]
        return np.abs(v - v[0])
    x = r["elastic"][:, cols]
    if nodes is None:
        return np.abs(x)
    # the displacement vector's length at each node (u, v of a node together)
    out = np.zeros((x.shape[0], int(nodes.max()) + 1))
    np.add.at(out, (slice(None), nodes), x * x)
    return np.sqrt(out)


def _error_scales(r, links, free, ds, nz):
    """Each group's largest excursion over a run."""
    return np.array([float(np.max(_group_values(r, g, nz), initial=0.0))
                     for g in _error_groups(links, free, ds, nz)])


def _error_estimate(coarse, fine, scales, links, free, ds, nz, k, floor):
    """Richardson's estimate of the finer run's error (steps k times smaller, second
    order: difference / (k^2 - 1)), the largest over groups and output times relative to
    each group's peak plus ``floor`` (atol / rtol)."""
    worst = 0.0
    for g, scale in zip(_error_groups(links, free, ds, nz), scales):
        where, cols, nodes = g
        if where == "z":
            diff = np.abs(fine["states"][:, cols[0]] - coarse["states"][:, cols[0]])
        else:
            delta = fine["elastic"][:, cols] - coarse["elastic"][:, cols]
            diff = _group_values({"elastic": delta[:, :]}, ("d", np.arange(len(cols)), nodes), nz)
        e, den = float(np.max(diff, initial=0.0)) / (k * k - 1), float(scale + floor)
        # a quantity zero throughout (atol = 0): no error where the runs agree exactly
        worst = max(worst, 0.0 if e == 0.0 else e / den if den > 0.0 else math.inf)
    return float(_SAFETY * worst)


# Richardson's estimate is exact only as h -> 0; measured within 20 % of the true error on
# the slider-crank and the pendulum (tests), so reported and checked with a margin
_SAFETY = 1.5


def example(name) -> _FilePath:
    """The path of a shipped example (``"windpump"``, ``"slider_crank"``, ``"four_bar"``),
    for :meth:`Mechanism.from_toml` and ``python -m kanefem mechanism``."""
    from importlib import resources

    _checks.choice("name", name, EXAMPLES)
    return _FilePath(str(resources.files("kanefem") / "examples" / f"{name}.toml"))


def slider_crank(crank=0.15, rod=0.30, *, crank_mass=0.0, crank_inertia=0.0, slider_mass=None,
                 elements=10, E=200e9, diameter=0.006, rho=7870.0, gravity=(0.0, 0.0),
                 geometric_stiffness=True, rod_mass=None):
    """The slider-crank of the flexible-mechanism literature (docs/theory.md section 7.9).

    Crank OA (length ``crank``) turning about the origin, connecting rod AB
    (``rod``), slider B on the x axis; drawn at crank angle 0.  The rod is an
    elastic :class:`~kanefem.PlanarBeam` of ``elements`` elements with a round section
    (``diameter``, E, rho; default 6 mm steel, the benchmark's) pinned-pinned in its
    chord frame, or, with ``rod=None``, a rigid rod of the same length (0.30 m) and
    mass.  Slider mass default: half the rod's.  Coordinate ``"crank"`` (the crank
    angle); gravity off by default; the rod's ``geometric_stiffness`` (K_G in the
    two-way runs) on by default, as :class:`ElasticLink`'s.
    """
    length = 0.30 if rod is None else _checks.real("rod", rod, positive=True)
    r = _checks.real("crank", crank, positive=True)
    dia = _checks.real("diameter", diameter, positive=True)
    rho = _checks.real("rho", rho, positive=True)
    A = math.pi * dia * dia / 4
    I = A * dia * dia / 16  # noqa: E741 - pi d^4 / 64
    if not (0.0 < I and A < math.inf and I < math.inf):
        raise ValueError(f"diameter = {dia!r} m gives a section (A = {A:g} m^2, I = {I:g} m^4) "
                         "beyond the doubles")
    m_rod = rho * A * length if rod_mass is None else _checks.real("rod_mass", rod_mass, nonnegative=True)
    ms = 0.5 * m_rod if slider_mass is None else _checks.real("slider_mass", slider_mass, nonnegative=True)
    bodies = [RigidBody("crank", crank_mass, crank_inertia, centre=(r / 2, 0.0))]
    if rod is None:
        bodies.append(RigidBody("rod", m_rod, m_rod * length**2 / 12, centre=(r + length / 2, 0.0)))
    else:
        beam = PlanarBeam(length, _checks.integer("elements", elements, minimum=1, maximum=PlanarBeam.MAX_ELEMENTS), E=E, A=A, I=I, rho=rho)
        bodies.append(ElasticLink("rod", beam, start=(r, 0.0), geometric_stiffness=geometric_stiffness))
    bodies.append(RigidBody("slider", ms, 0.0, centre=(r + length, 0.0)))
    joints = [Revolute("O", (GROUND, "crank"), (0.0, 0.0)),
              Revolute("A", ("crank", "rod"), (r, 0.0)),
              Revolute("B", ("rod", "slider"), (r + length, 0.0)),
              Prismatic("guide", (GROUND, "slider"), (r + length, 0.0), axis=(1.0, 0.0))]
    return Mechanism(bodies, joints, [Coordinate("crank", joint="O")], gravity=gravity,
                     name="slider-crank")


def four_bar(a=0.1, b=0.3, c=0.25, d=0.3, *, masses=(1.0, 1.5, 1.2), gravity=(0.0, -9.81),
             branch=1, coupler=None):
    """A four-bar linkage: crank (a) from the ground pivot O = (0, 0), coupler (b),
    rocker (c) to the ground pivot (d, 0); uniform bars of the given masses; drawn at
    crank angle pi/2 on the branch with the coupler above the line from A to the
    rocker pivot (branch = +1) or below (-1).  Coordinate ``"crank"``.

    ``coupler``: a :class:`PlanarBeam` or :class:`AxialBar` of length ``b`` makes the
    coupler an elastic link (pinned-pinned from A to B; its mass is the elements',
    ``masses[1]`` is not used); None, a rigid bar."""
    a, b, c, d = (_checks.real(n, v, positive=True) for n, v in (("a", a), ("b", b), ("c", c), ("d", d)))
    if coupler is not None:
        if not isinstance(coupler, (PlanarBeam, AxialBar)):
            raise TypeError(f"coupler must be a PlanarBeam, an AxialBar or None, got {_checks._short(coupler)}")
        if not math.isclose(coupler.length, b, rel_tol=1e-12):
            raise ValueError(f"coupler has length {coupler.length!r} m: the coupler b = {b!r} m")
    m1, m2, m3 = _checks.array("masses", masses, shape=(3,))
    if _checks.integer("branch", branch, maximum=None) not in (1, -1):
        raise ValueError(f"branch must be 1 or -1, got {branch!r}")
    A = np.array([0.0, a])
    D = np.array([d, 0.0])
    e = D - A
    rho = math.hypot(*e)
    along = (b * b - c * c + rho * rho) / (2 * rho)
    perp = branch * math.sqrt(max(b * b - along * along, 0.0))
    u = e / rho
    B = A + along * u + perp * np.array([-u[1], u[0]])
    mid = lambda p, q: tuple((np.asarray(p) + np.asarray(q)) / 2)  # noqa: E731
    ang = lambda p, q: math.atan2(q[1] - p[1], q[0] - p[0])  # noqa: E731
    bodies = [RigidBody("crank", m1, m1 * a * a / 12, centre=mid((0, 0), A), angle=ang((0, 0), A)),
              RigidBody("coupler", m2, m2 * b * b / 12, centre=mid(A, B), angle=ang(A, B)) if coupler is None
              else ElasticLink("coupler", coupler, start=tuple(A), angle=ang(A, B)),
              RigidBody("rocker", m3, m3 * c * c / 12, centre=mid(B, D), angle=ang(D, B))]
    joints = [Revolute("O", (GROUND, "crank"), (0.0, 0.0)), Revolute("A", ("crank", "coupler"), tuple(A)),
              Revolute("B", ("coupler", "rocker"), tuple(B)), Revolute("D", (GROUND, "rocker"), tuple(D))]
    return Mechanism(bodies, joints, [Coordinate("crank", joint="O")], gravity=gravity, name="four-bar")
