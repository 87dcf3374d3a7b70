"""Robot arms from URDF files (docs/theory.md section 5.15).

The Unified Robot Description Format (ROS) describes a robot as a tree of links joined
by joints, with each link's mass, mass centre and inertia tensor and each joint's
place, axis and kind.  The file is parsed by ``yourdfpy`` (an optional dependency:
``pip install "kanefem[urdf]"``), chosen among the parsers on PyPI for being kept up
(``urdf-parser-py``'s last release is from 2021, ``urdfpy`` is abandoned, ``urchin``
pulls a renderer); it pulls ``trimesh`` for meshes, which kanefem does not load.  The
file is read here first, as every reader of the package reads an untrusted file:
a regular file of at most 16 MiB, UTF-8, with no XML DOCTYPE or ENTITY declaration
(entity expansion, external entities); then the robot is checked by name: every
moving link's inertia given and physical, the joints a tree (a link with two parents
is a closed loop URDF cannot hold), axes nonzero, no mimic joints.

The robot is drawn at its zero joint positions; its root link is fixed to the ground
(a fixed-base arm); each moving joint's coordinate bears the joint's name.  Links fixed
to their parent without an inertial block (tool frames) are frames of that parent;
links with mass are bodies, joined by the URDF's joints.  Which links are elastic, and
their sections, come from the user (``elastic``).
"""

from __future__ import annotations

import io
import re

import numpy as np

from .. import _checks
from .._io import TEXT_MAX, read_bytes
from .model import Mechanism
from .parts import GROUND, Coordinate, Prismatic, Revolute
from .robots import elastic_link
from .spatial import Fixed, Planar, SpatialBody


class URDFError(ValueError):
    """A URDF file kanefem cannot take: the message names the file and the element."""


def _yourdfpy():
    try:
        import yourdfpy
    except ImportError:
        raise ImportError("reading URDF files needs yourdfpy: pip install \"kanefem[urdf]\"") from None
    return yourdfpy


def _number(path, what, value):
    """A finite float from the parser's value (yourdfpy gives some as strings)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise URDFError(f"{path}: {what} = {value!r} is not a number") from None
    if not np.isfinite(v):
        raise URDFError(f"{path}: {what} = {value!r} is not finite")
    return v


def from_urdf(path, *, elastic=None, gravity=(0.0, 0.0, -9.81), name=None) -> Mechanism:
    """A spatial mechanism from a URDF file: a fixed-base robot at its zero joint positions.

    Parameters
    ----------
    path : str or path-like
    elastic : dict, optional
        Link name -> its elements along the segment from its joint to its child joint
        (it must have exactly one): a :class:`~kanefem.Beam3D` or :class:`~kanefem.Bar3D`
        of that length, or a dict of a section (``kind``, ``elements``, E, A, Izz, Iyy,
        J, rho, ..., ``y``; as :func:`~kanefem.mechanism.dh_chain` takes it).  The link
        keeps the file's mass properties.
    gravity : (float, float, float)
        [m/s^2], in the root link's frame.
    name : str, optional
        Default the robot's.

    Returns
    -------
    Mechanism
        Bodies named as the links, joints as the joints, one coordinate per moving
        joint named as the joint (a planar joint's: ``NAME.x``, ``NAME.y``,
        ``NAME.angle``).  Joint damping and friction become the joints' force laws.

    Raises
    ------
    URDFError
        A file kanefem refuses (its size, a DOCTYPE or ENTITY, not URDF), or a robot it
        cannot hold: a missing or unphysical inertia of a moving link, a closed loop or
        several roots, a zero axis, mimic or floating joints; each named.
    ImportError
        yourdfpy is not installed.
    """
    path = _checks.path("path", path)
    raw = read_bytes(path, limit=TEXT_MAX, what="URDF file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise URDFError(f"{path}: not a text (UTF-8) file: byte {exc.start}") from None
    if re.search(r"<!\s*(DOCTYPE|ENTITY)", text, re.I):
        raise URDFError(f"{path}: holds an XML DOCTYPE or ENTITY declaration (refused: entity expansion, "
                        "external entities)")
    if "\x00" in text:
        raise URDFError(f"{path}: holds a NUL character")
    yourdfpy = _yourdfpy()
    try:
        robot = yourdfpy.URDF.load(io.BytesIO(raw), build_scene_graph=False, load_meshes=False,
                                   build_collision_scene_graph=False, load_collision_meshes=False).robot
    except Exception as exc:  # the parser's own errors: lxml's, its asserts, its value errors
        raise URDFError(f"{path}: not a URDF robot kanefem can read ({type(exc).__name__}: {exc})") from None
    if robot is None or not robot.links:
        raise URDFError(f"{path}: has no <robot> with links")
    return _mechanism(path, robot, elastic, gravity, name)


def _mechanism(path, robot, elastic, gravity, name):
    links = {}
    for L in robot.links:
        if L.name in links:
            raise URDFError(f"{path}: link {L.name!r} is defined twice")
        links[L.name] = L
    joints, parent_of = {}, {}
    for J in robot.joints:
        if J.name in joints:
            raise URDFError(f"{path}: joint {J.name!r} is defined twice")
        for end in (J.parent, J.child):
            if end not in links:
                raise URDFError(f"{path}: joint {J.name!r} names the link {end!r}, which the file does not define")
        if J.child in parent_of:
            raise URDFError(f"{path}: link {J.child!r} is the child of joints {parent_of[J.child].name!r} and "
                            f"{J.name!r}: a closed loop, which URDF (a tree) cannot hold")
        if J.type not in ("revolute", "continuous", "prismatic", "fixed", "planar"):
            raise URDFError(f"{path}: joint {J.name!r} is {J.type!r}: kanefem takes revolute, continuous, "
                            "prismatic, fixed and planar joints (a floating base is not supported)")
        if getattr(J, "mimic", None) is not None:
            raise URDFError(f"{path}: joint {J.name!r} mimics {J.mimic.joint!r}: mimic joints are not supported")
        joints[J.name] = J
        parent_of[J.child] = J
    roots = [n for n in links if n not in parent_of]
    if len(roots) != 1:
        raise URDFError(f"{path}: the links must form one tree with one root; roots: {', '.join(map(repr, roots))}"
                        + (" (a closed loop)" if not roots else ""))
    children = {}
    for J in joints.values():
        children.setdefault(J.parent, []).append(J)
    elastic = {} if elastic is None else dict(_checks.mapping("elastic", elastic, "a dict {link name: section}"))
    unknown = sorted(set(elastic) - set(links))
    if unknown:
        raise ValueError(f"elastic: unknown links {', '.join(map(repr, unknown))} (links: {', '.join(links)})")

    # the drawing: each link's frame at the zero joint positions, breadth-first from the root
    frame = {roots[0]: np.eye(4)}
    body_of = {roots[0]: GROUND}  # a link's body: itself, or the parent it is a fixed frame of
    order, queue = [], [roots[0]]
    while queue:
        parent = queue.pop(0)
        for J in children.get(parent, []):
            origin = _transform(path, J)
            frame[J.child] = frame[parent] @ origin
            order.append(J)
            queue.append(J.child)
    bodies, kjoints, coords = [], [], []
    for J in order:
        T = frame[J.child]
        L = links[J.child]
        inertial = getattr(L, "inertial", None)
        massless = inertial is None
        if J.type == "fixed" and massless and J.child not in elastic:
            body_of[J.child] = body_of[J.parent]  # a frame of its parent (a tool frame)
            continue
        if massless:
            raise URDFError(f"{path}: link {J.child!r} has no <inertial>: its mass and inertia are needed (it "
                            f"moves with joint {J.name!r})")
        mass = _number(path, f"link {J.child!r} mass", inertial.mass)
        if mass < 0:
            raise URDFError(f"{path}: link {J.child!r} has mass {mass!r} < 0")
        Io = np.asarray(inertial.origin, float) if inertial.origin is not None else np.eye(4)
        I_in = np.array([[_number(path, f"link {J.child!r} inertia", v) for v in row] for row in inertial.inertia])
        R_link = T[:3, :3]
        centre = T[:3, :3] @ Io[:3, 3] + T[:3, 3]
        I_body = Io[:3, :3] @ I_in @ Io[:3, :3].T  # in the link's axes
        body_of[J.child] = J.child
        try:
            if J.child in elastic:
                kids = children.get(J.child, [])
                if len(kids) != 1:
                    raise URDFError(f"{path}: elastic link {J.child!r} has {len(kids)} child joints: its elements "
                                    "run from its joint to its one child joint")
                end = (T @ _transform(path, kids[0]))[:3, 3]
                bodies.append(elastic_link(J.child, elastic[J.child], T[:3, 3], end, mass,
                                           R_link @ I_body @ R_link.T, centre))
            else:
                bodies.append(SpatialBody(J.child, mass, I_body, centre=tuple(centre), orientation=R_link))
        except ValueError as exc:
            if isinstance(exc, URDFError):
                raise
            raise URDFError(f"{path}: link {J.child!r}: {exc}") from None
        parent = body_of[J.parent]
        at = tuple(T[:3, 3])
        damping = friction = 0.0
        if getattr(J, "dynamics", None) is not None:
            damping = _number(path, f"joint {J.name!r} damping", J.dynamics.damping or 0.0)
            friction = _number(path, f"joint {J.name!r} friction", J.dynamics.friction or 0.0)
            if damping < 0 or friction < 0:
                raise URDFError(f"{path}: joint {J.name!r} has damping {damping!r}, friction {friction!r}: both >= 0")
        laws = dict(damping=damping, friction=friction)
        if J.type == "fixed":
            kjoints.append(Fixed(J.name, (parent, J.child), at))
            continue
        axis = _axis(path, J, R_link)
        if J.type in ("revolute", "continuous"):
            kjoints.append(Revolute(J.name, (parent, J.child), at, axis=axis, **laws))
        elif J.type == "prismatic":
            kjoints.append(Prismatic(J.name, (parent, J.child), at, axis=axis, **laws))
        else:  # planar: the plane normal to the axis
            kjoints.append(Planar(J.name, (parent, J.child), at, normal=axis, damping=laws["damping"],
                                  friction=laws["friction"]))
        if J.type == "planar":
            coords += [Coordinate(f"{J.name}.{c}", joint=J.name, component=c) for c in ("x", "y", "angle")]
        else:
            coords.append(Coordinate(J.name, joint=J.name))
    if not bodies:
        raise URDFError(f"{path}: the robot has no link that moves")
    if not coords:
        raise URDFError(f"{path}: the robot has no moving joint")
    return Mechanism(bodies, kjoints, coords, gravity=gravity, name=robot.name if name is None else name)


def _transform(path, J):
    """A joint's origin (its child's frame in its parent's at the zero position), checked."""
    T = np.eye(4) if J.origin is None else np.asarray(J.origin, float)
    if T.shape != (4, 4) or not np.all(np.isfinite(T)):
        raise URDFError(f"{path}: joint {J.name!r} has an origin that is not finite")
    R = T[:3, :3]
    if not (np.abs(R.T @ R - np.eye(3)).max() <= 1e-9 and np.linalg.det(R) > 0):
        raise URDFError(f"{path}: joint {J.name!r}'s origin is not a rotation (|R^T R - I| = "
                        f"{np.abs(R.T @ R - np.eye(3)).max():.3g})")
    return T


def _axis(path, J, R_link):
    """A joint's axis in the drawing (the URDF gives it in the joint's frame, the child's)."""
    a = np.array([1.0, 0.0, 0.0]) if J.axis is None else np.asarray(J.axis, float)
    n = float(np.linalg.norm(a)) if np.all(np.isfinite(a)) and a.shape == (3,) else 0.0
    if not n > 1e-12:
        raise URDFError(f"{path}: joint {J.name!r} has the axis {a.tolist()}: it must be a nonzero 3-vector")
    return tuple(R_link @ (a / n))
