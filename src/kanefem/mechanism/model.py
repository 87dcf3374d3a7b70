"""The planar mechanism: its model, kinematics, rigid motion (incl. the periodic steady
state), joint forces and its elastic links one way and two ways (docs/theory.md section 5)."""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np

from .. import _animation, _checks, _core, _records
from ..bodies import NotSupportedError, _signed_hz
from ..simulate import MAX_STEPS_LIMIT, _steps
from .drives import ConstantSpeed, Path, Recorded, Torque, core_path
from .files import MechanismFiles
from . import spatial
from .parts import _COMPONENTS, GROUND, Coordinate, ElasticLink, Prismatic, Revolute, RigidBody, Spring, Weld, _name, _point, _rot
from .results import FlexibleMotion, LinkEigenvalues, MechanismForces, MechanismMotion
from .spatial import SpatialBody, SpatialLink

#: the core's functions of each space: kinematics, Kane's accelerations, joint forces, the motion
_PLANAR_API = dict(kinematics=_core.mech_kinematics, accelerations=_core.mech_accelerations,
                   joint_forces=_core.mech_joint_forces, simulate=_core.mech_simulate)
_SPATIAL_API = dict(kinematics=_core.smech_kinematics, accelerations=_core.smech_accelerations,
                    joint_forces=_core.smech_joint_forces, simulate=_core.smech_simulate)


def _space_of(bodies, joints, springs):
    """2 or 3: the space the parts say (bodies' classes, the points of joints and
    springs); parts of both refused by name."""
    spaces = []
    for b in bodies:
        spaces.append((3 if isinstance(b, (SpatialBody, SpatialLink)) else 2, f"body {getattr(b, 'name', b)!r}"))
    for J in joints:
        spaces.append((getattr(J, "space", 2), f"joint {getattr(J, 'name', J)!r}"))
    for S in springs:
        at = getattr(S, "at", ((0, 0),))
        spaces.append((len(at[0]), f"spring {getattr(S, 'name', S)!r}"))
    if not spaces:
        return 2
    first = spaces[0]
    for sp, what in spaces[1:]:
        if sp != first[0]:
            names = {2: "the plane", 3: "space"}
            raise ValueError(f"{what} is a part of {names[sp]}, {first[1]} one of {names[first[0]]}: a "
                             "mechanism's parts are all planar or all spatial (Mechanism.from_planar turns "
                             "a planar mechanism into a spatial one)")
    return first[0]


def _vector_of(name, value, dim):
    """A global vector of the mechanism's space (gravity), as a tuple."""
    return tuple(float(v) for v in _checks.array(name, value, shape=(dim,)))




# ---------------------------------------------------------------- the mechanism


class Mechanism(MechanismFiles):
    """A mechanism of rigid bodies and elastic links, planar or spatial.

    Its parts say the space: bodies, joints and springs with points of the plane
    (:class:`RigidBody`, :class:`ElasticLink`, 2-vectors) make a planar mechanism
    (docs/theory.md section 5.11), those with points of space
    (:class:`~kanefem.mechanism.SpatialBody`, :class:`~kanefem.mechanism.SpatialLink`,
    3-vectors, and the joints only space has) a spatial one (section 5.14); the same
    methods and results serve both.

    Parameters
    ----------
    bodies : sequence of RigidBody and ElasticLink, or of SpatialBody and SpatialLink
    joints : sequence of joints
        Planar: Revolute, Prismatic, Weld.  Spatial: Revolute, Prismatic (3-vector
        points and axes), Cylindrical, Spherical, Universal, Planar, Fixed.
    coordinates : sequence of Coordinate
        The independent coordinates, as many as the degrees of freedom (in the plane 3
        per body less 2 per revolute or prismatic joint and 3 per weld; in space 6 per
        body less each joint's independent constraints).
    springs : sequence of Spring
    gravity : (float, float) or (float, float, float), optional
        [m/s^2], global; default (0, -9.81) in the plane, (0, 0, -9.81) in space.
    name : str
    redundant : {"error", "independent"}
        Spatial: constraints that depend on others at the drawing (an overconstrained
        mechanism, such as a planar loop of revolutes in space) are an error naming
        them and the rank found, or ("independent") an independent set of them is kept
        (rows in order, each kept unless it depends on those before it) and every
        position checks that the others hold.  An overconstrained mechanism's joint
        forces are not unique (its compliance would decide them): the least-norm ones
        over every row are reported, which balance every body.

    Raises
    ------
    ValueError, TypeError
        Unknown names, duplicates, parts of both spaces, a wrong number of
        coordinates, redundant constraints (each named).
    GeometryError
        The drawing does not assemble.
    """

    def __init__(self, bodies, joints, coordinates, springs=(), gravity=None,
                 name="mechanism", *, redundant="error", _core_mech=None):
        self.name = _name("name", name)
        self.bodies = tuple(bodies)
        self.joints = tuple(joints)
        self.coordinates = tuple(coordinates)
        self.springs = tuple(springs)
        self.space = _space_of(self.bodies, self.joints, self.springs)
        self.gravity = _vector_of("gravity", ((0.0, -9.81) if self.space == 2 else (0.0, 0.0, -9.81))
                                  if gravity is None else gravity, self.space)
        self.redundant = _checks.choice("redundant", redundant, ("error", "independent"))
        if self.space == 2 and redundant != "error":
            raise ValueError("redundant is for a spatial mechanism (a planar one has no redundant rows)")
        for what, items, kinds in (("bodies", self.bodies,
                                    (RigidBody, ElasticLink) if self.space == 2 else (SpatialBody, SpatialLink)),
                                   ("joints", self.joints, (Revolute, Prismatic, Weld) if self.space == 2
                                    else tuple(spatial.SPATIAL_JOINTS.values())),
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
        self.links = tuple(b for b in self.bodies if isinstance(b, (ElasticLink, SpatialLink)))
        #: per coordinate name, the drive, initial value and rate its description gives
        #: ({"drive": ConstantSpeed or Torque or None, "initial": z0, "rate": z0'}; a TOML
        #: file's [[coordinate]] entries): what :func:`file_run` runs
        self.coordinate_drives = {}
        if self.space == 3:
            self._api = _SPATIAL_API
            try:
                self._core = _core.smech_create(**spatial.arrays(self, self.redundant == "independent"))
            except ValueError as e:
                if "redundant constraints" not in str(e):
                    raise
                raise ValueError(f"{e} (give Mechanism(..., redundant='independent'))") from None
            d = _core.smech_describe(self._core)
            self._q0 = np.column_stack([d["bodies"]["r"], d["bodies"]["quat"]]).ravel()
            self._z0 = np.array(d["z0"], float)
            self._frames = _records.saxes([spatial.link_axes(self, L) for L in self.links])
            return
        self._api = _PLANAR_API
        # a core mechanism made in C (the wind pump's, with its assembly rule) is not packed again
        self._core = _core_mech if _core_mech is not None else _core.mech_create(**self._arrays())
        self._q0 = _core.mech_describe(self._core)["q0"]
        # the elastic links' frames: origin at the elements' x = 0, body axes
        self._frames = _records.axes([dict(body=self._bidx[L.name], o=tuple(-L.centre_local)) for L in self.links])

    @classmethod
    def from_planar(cls, mechanism, name=None) -> "Mechanism":
        """The spatial description of a planar mechanism (the plane z = 0, revolute axes
        along z, welds :class:`~kanefem.mechanism.Fixed`, elastic links
        :class:`~kanefem.mechanism.SpatialLink` carrying the same elements): the same
        motion, joint forces and link eigenvalues to round-off.  Its loops' out-of-plane
        constraints are redundant in space; an independent set is kept
        (``redundant="independent"``)."""
        if not isinstance(mechanism, Mechanism):
            raise TypeError(f"mechanism must be a Mechanism, got {_checks._short(mechanism)}")
        return spatial.from_planar(mechanism, name)

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

    def coordinate_unit(self, coordinate) -> str:
        """The unit of a coordinate, by name or index: "rad" (an angle) or "m"."""
        k = coordinate if isinstance(coordinate, (int, np.integer)) else self._coord_index(coordinate)
        c = self.coordinates[k]
        if self.space == 3:
            return "rad" if spatial.coordinate_is_angle(self, c) else "m"
        if c.joint is not None:
            return "rad" if isinstance(self.joints[self._joint_index(c.joint)], Revolute) else "m"
        return "rad" if c.component == "angle" else "m"

    def link_quasi_static(self, link, frame) -> np.ndarray:
        """A link's quasi-static deflection at one instant of its frame's motion (a row of
        ``motion.frames[link]``), its reference conditions held (``quasi_static`` of ``kanefem.mechanism.model``):
        d over its DOFs, in its frame."""
        L = self.link(link)
        if self.space == 3:
            frame = self._link_frames(L, np.atleast_1d(frame))[0]
        return L.expand(quasi_static(L.model, frame, L._fixed))

    def link(self, name):
        """An elastic link (ElasticLink or SpatialLink) by name."""
        b = self.bodies[self._body_index(name)]
        if not isinstance(b, (ElasticLink, SpatialLink)):
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
            if len(C.name) > 23:
                raise ValueError(f"coordinate name {C.name!r} is longer than 23 characters (a planar mechanism's)")
            if C.joint is not None and C.component is not None:
                raise ValueError(f"{C.name}: a planar joint has one coordinate: give no component")
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
        if self.space == 3:
            return self._z0.copy()
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
        """Global positions over q (nt, nb, 3) of a point given in the drawing (spatial: q
        (nt, nb, 7), positions (nt, 3))."""
        if self.space == 3:
            return spatial.track(self, q, body, at)
        b = self._body_index(body)
        if b < 0:
            return np.broadcast_to(np.array(_point("at", at)), (q.shape[0], 2)).copy()
        p = self._local(body, at)
        th = q[:, b, 2]
        c, s = np.cos(th), np.sin(th)
        return np.column_stack([q[:, b, 0] + c * p[0] - s * p[1], q[:, b, 1] + s * p[0] + c * p[1]])

    def _joint_values(self, q):
        """Every joint's coordinates over q: name -> (nt, ncoord)."""
        if self.space == 3:
            return spatial.joint_values(self, q)
        out = {}
        for J in self.joints:
            if isinstance(J, Weld):
                out[J.name] = np.zeros((q.shape[0], 0))
                continue
            b0, b1 = (self._body_index(n) for n in J.bodies)
            th = [np.zeros(q.shape[0]) if b < 0 else q[:, b, 2] for b in (b0, b1)]
            if isinstance(J, Revolute):
                out[J.name] = (th[1] - th[0])[:, None]
            else:  # the slide along the axis (fixed in the first body) from the drawing's point
                P0, P1 = (self._track(q, n, J.at) for n in J.bodies)
                a0 = _rot(self._pose(J.bodies[0])[1]).T @ np.asarray(J.axis)
                axis = np.column_stack([np.cos(th[0]) * a0[0] - np.sin(th[0]) * a0[1],
                                        np.sin(th[0]) * a0[0] + np.cos(th[0]) * a0[1]])
                out[J.name] = np.sum(axis * (P1 - P0), axis=1)[:, None]
        return out

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
            Planar: ``q``, ``qd``, ``qdd`` (nt, nbody, 3): x, y, angle and their rates;
            ``A`` (nt, 3 nbody, nz) with q' = A z'; ``c`` (nt, 3 nbody) with q'' = A z''
            + c; ``Q`` (nt, 3 nbody) applied forces.  Spatial: ``q`` (nt, nbody, 7): the
            mass centre and the orientation's unit quaternion (w, x, y, z); ``qd``,
            ``qdd`` (nt, nbody, 6): the speeds u = (v, omega), the mass centre's velocity
            in global axes and the angular velocity in the body's axes, and their rates;
            ``A`` (nt, 6 nbody, nz) with u = A z', ``c`` with u' = A z'' + c, ``Q`` (nt, 6
            nbody): per body the force (global) and the moment about the mass centre
            (body axes).  ``frames``: per link, its frame (nt,).

        Raises
        ------
        GeometryError
            Where the loop cannot close or at a dead point, naming the coordinates.
        """
        z = self._states(z)
        rates = [None if v is None else self._rates(n, v, z.shape) for n, v in (("zd", zd), ("zdd", zdd))]
        k = self._api["kinematics"](self._core, z, rates[0], rates[1], frames=self._frames)
        nt, nb = z.shape[0], len(self.bodies)
        if self.space == 3:
            out = {"q": k["q"].reshape(nt, nb, 7), "qd": k["u"].reshape(nt, nb, 6),
                   "qdd": k["ud"].reshape(nt, nb, 6)}
        else:
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
        return self._api["accelerations"](self._core, z, zd, tau)

    # ------------------------------------------------------------ motion

    def _drives(self, drives):
        drives = {} if drives is None else _checks.mapping(
            "drives", drives, "a dict {coordinate name: ConstantSpeed, Torque, Path or Recorded}")
        for name in drives:
            self._coord_index(name)
        return [drives.get(c.name) for c in self.coordinates]


    def _drive_records(self, ds):
        """The core's drives of ``ds`` (one drive or None per coordinate): DRIVE_DTYPE
        records (``kanefem._records``) and, beside them, per coordinate the path or
        force law (a callable) or None; a constant torque is a record's force, no
        callable."""
        rows, functions = [], []
        for k, d in enumerate(ds):
            fn = None
            if d is None:
                row = dict(mode="free")
            elif isinstance(d, ConstantSpeed):
                row = dict(mode="speed", speed=d.speed)
            elif isinstance(d, Torque):
                row = dict(mode="free")
                if callable(d.law):
                    fn = d.law
                else:
                    row["force"] = _checks.real("Torque law", d.law)
            elif isinstance(d, (Path, Recorded)):
                row, fn = dict(mode="path"), core_path(d)
            else:
                raise TypeError(f"drives[{self.coordinates[k].name!r}] must be ConstantSpeed, "
                                f"Torque, Path or Recorded, got {d!r}")
            rows.append(row)
            functions.append(fn)
        return _records.drives(rows), functions

    def solve(self, t=None, *, duration=None, points=361, drives=None, z0=None, zd0=None,
              steady_state=False, rtol=1e-9, atol=1e-12, max_steps=None, progress=None) -> MechanismMotion:
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
        steady_state : bool
            Start on the periodic motion: for a mechanism driven at a constant speed
            (every driven coordinate :class:`ConstantSpeed`, the angles among them at one
            speed ``|omega|``, the period 2 pi / ``|omega|``), the free coordinates and
            rates at the first instant are found by shooting over one period (Newton on
            z(T) - z(0), z'(T) - z'(0) of the free coordinates, after three periods of
            transient); ``z0``, ``zd0`` are then the first guess.  ``stats`` holds the
            ``floquet_multipliers`` (``|mu| < 1``: the cycle attracts) and the
            ``shooting_iterations``.
        rtol, atol : float
            Error tolerances.
        max_steps : int, optional
            Steps allowed per integration (default the core's); beyond them a
            :class:`~kanefem.StepLimitError`.
        progress : callable, optional
            Called with the time now and then (Ctrl-C stops the run).

        Returns
        -------
        MechanismMotion

        Raises
        ------
        GeometryError
            The motion leaves the assembly region (the message names when and where).
        KanefemError
            ``steady_state``: no periodic motion found (the shooting residual named).
        """
        ds = self._drives(drives)
        steady_state = _checks.flag("steady_state", steady_state)
        nz = len(self.coordinates)
        if nz and not steady_state and all(isinstance(d, Recorded) for d in ds):
            return self._recorded(ds, t, duration, points)
        tt = self._check_size(self._time_grid(t, duration, points), "t or points")
        z0 = self._initial_coordinates(z0)
        zd0 = np.zeros(nz) if zd0 is None else _checks.array("zd0", zd0, shape=(nz,))
        drive_records, functions = self._drive_records(ds)
        rtol, atol = _checks.real("rtol", rtol), _checks.real("atol", atol)
        limits = {} if max_steps is None else {"max_steps": _checks.integer("max_steps", max_steps, minimum=1,
                                                                              maximum=2**62)}

        def run(times, z_start, zd_start, tolerance):
            return self._api["simulate"](self._core, drive_records, functions, z_start, zd_start, times,
                                       rtol=tolerance, atol=atol, progress=progress, **limits)

        stats = {}
        if steady_state:
            z0, zd0, stats = self._periodic(ds, run, z0, zd0, rtol)
        r = run(tt, z0, zd0, rtol)
        s = r["states"]
        stats.update(r["stats"])
        return self._motion(tt, s[:, :nz], s[:, nz:2 * nz], s[:, 2 * nz:3 * nz], s[:, 3 * nz:], stats)

    def length_scale(self) -> float:
        """A natural size of the mechanism's lengths [m]: the shortest distance between
        two joint points of one body (a crank's radius), 1 if there is none.  The
        periodic steady state measures its free lengths by it."""
        lengths = []
        for b in self.bodies:
            pts = [np.asarray(J.at, float) for J in self.joints if b.name in J.bodies]
            lengths += [float(np.linalg.norm(p - q)) for i, p in enumerate(pts) for q in pts[:i]]
        lengths = [x for x in lengths if x > 0.0]
        return min(lengths) if lengths else 1.0

    def _periodic(self, ds, run, z0, zd0, rtol):
        """(z0, zd0, stats) on the periodic motion at constant speed, by shooting over one
        period on the free coordinates and their rates (``run(t, z0, zd0, rtol)`` a
        simulation of this mechanism under its drives)."""
        speeds = {abs(d.speed) for k, d in enumerate(ds)
                  if isinstance(d, ConstantSpeed) and self.coordinate_unit(k) == "rad" and d.speed}
        other = [self.coordinates[k].name for k, d in enumerate(ds) if d is not None and (
            not isinstance(d, ConstantSpeed) or (self.coordinate_unit(k) != "rad" and d.speed))]
        if len(speeds) != 1 or other:
            raise ValueError("steady_state needs a mechanism driven at one constant speed: ConstantSpeed "
                             "drives of angles at one |speed| and no other drive"
                             + (f" (not {', '.join(map(repr, other))})" if other else ""))
        omega = speeds.pop()
        free = np.array([k for k, d in enumerate(ds) if d is None], dtype=int)
        if free.size == 0:
            return z0, zd0, {"floquet_multipliers": np.zeros(0), "shooting_iterations": 0}
        period = 2.0 * math.pi / omega
        tol = min(rtol, 1e-11)
        tgrid = np.array([0.0, period])
        nf = free.size
        z0, zd0 = np.array(z0, float), np.array(zd0, float)

        def flow(x):
            z, zd = z0.copy(), zd0.copy()
            z[free], zd[free] = x[:nf], x[nf:]
            st = run(tgrid, z, zd, tol)["states"][-1]
            return np.concatenate([st[free], st[len(ds) + free]])

        x = np.concatenate([z0[free], zd0[free]])
        size = np.array([1.0 if self.coordinate_unit(k) == "rad" else self.length_scale() for k in free])
        scale = np.concatenate([size, size * omega])  # a natural size of the free z and z'
        for _ in range(3):  # let the transient decay a little first
            try:
                x = flow(x)
            except _core.GeometryError:
                break
        jac = np.eye(2 * nf)
        for it in range(30):
            fx = flow(x)
            res = fx - x
            for j in range(2 * nf):
                dx = np.zeros(2 * nf)
                dx[j] = 1e-6 * scale[j]
                jac[:, j] = (flow(x + dx) - fx) / dx[j]
            if np.all(np.abs(res) <= 1e-9 * scale):
                break
            x = x + np.linalg.solve(jac - np.eye(2 * nf), -res)
        else:
            raise _core.KanefemError(
                f"no periodic motion found at {omega * 60 / (2 * math.pi):.6g} rpm "
                f"(shooting residual {np.abs(res).max():.3g} after 30 Newton steps)")
        z0[free], zd0[free] = x[:nf], x[nf:]
        return z0, zd0, {"floquet_multipliers": np.linalg.eigvals(jac), "shooting_iterations": it + 1}

    def _initial_coordinates(self, z0):
        """z0 (default the drawing's), its angles within what a double resolves as they
        turn (z0 = 1e300 rad left the crank standing)."""
        if z0 is None:
            return self.drawing_coordinates()
        z0 = _checks.array("z0", z0, shape=(len(self.coordinates),))
        for k, c in enumerate(self.coordinates):
            if self.coordinate_unit(k) == "rad":
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
        return _checks.time_grid(duration, points)

    def _check_size(self, tt, names, flexible=False):
        """Refuse a motion of tt.size instants whose arrays exceed the output bound, before
        they are allocated (points = 2^28 passed its own bound and asked for tens of GB):
        z, z', z'', force per coordinate; q, q', q'' (3 each) per body; a 15-double frame
        per link; two ways also d, d' per link DOF and 3 forces per joint."""
        nz, nb = len(self.coordinates), len(self.bodies)
        per = 4 * nz + (9 if self.space == 2 else 19) * nb + 15 * len(self.links)
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
        drive = self._api["joint_forces"](self._core, np.hstack([z, zd, zdd]))["drive"]
        # lam = inf means the least-squares straight line (the noise exceeds the scatter
        # about it): reported as None, the stats hold finite numbers only
        stats = {"noise": tuple(s.noise for s in splines),
                 "lam": tuple(s.lam if math.isfinite(s.lam) else None for s in splines)}
        return self._motion(tt, z, zd, zdd, drive, stats)

    def inverse_dynamics(self, t, z, zd=None, zdd=None, *, noise=0.0) -> MechanismMotion:
        """The rigid inverse dynamics of a trajectory: what every coordinate needs (a
        robot's joint torques and forces) to follow it, with no integration.

        Parameters
        ----------
        t : array_like, shape (nt,)
            Times [s], strictly increasing.
        z : array_like, shape (nt, nz)
            The coordinates at t (every one prescribed).
        zd, zdd : array_like, shape (nt, nz), optional
            Their rates and accelerations; both or neither.  Without them each
            coordinate's samples are smoothed and differentiated by the cubic smoothing
            spline of :class:`Recorded` (``noise``: the samples' standard deviation; 0,
            the default, interpolates; None estimates it), at least 4 samples.

        Returns
        -------
        MechanismMotion
            ``force``: the generalized force along each coordinate (joint torque [N m] or
            force [N]); the joint forces follow from :meth:`joint_forces`, the elastic
            links' frequencies along it from :meth:`link_eigenvalues`.
        """
        tt = self._check_size(self._time_grid(t, None, None), "t")
        z = self._states(z)
        if z.shape[0] != tt.size:
            raise ValueError(f"z has {z.shape[0]} rows, t {tt.size} instants")
        if (zd is None) != (zdd is None):
            raise ValueError("give both zd and zdd, or neither (the samples are then differentiated)")
        if zd is None:
            if noise is not None:
                noise = _checks.real("noise", noise, nonnegative=True)
            ds = [Recorded(tt, z[:, k], noise=noise) for k in range(z.shape[1])]
            return self._recorded(ds, None, None, None)
        zd, zdd = (self._rates(n, v, z.shape) for n, v in (("zd", zd), ("zdd", zdd)))
        drive = self._api["joint_forces"](self._core, np.hstack([z, zd, zdd]))["drive"]
        return self._motion(tt, z, zd, zdd, drive, {})

    def _motion(self, t, z, zd, zdd, force, stats, run=None):
        """The MechanismMotion of states; its bodies' kinematics and the links' frames
        solved here, or taken from ``run`` (a two-way run's, at its output times)."""
        if run is None:
            k = self.kinematics(z, zd, zdd)
        else:
            nt, nb = len(t), len(self.bodies)
            kin = run["kin"]
            if self.space == 3:  # per instant q (7 nb), u, u' (6 nb each)
                k = {"q": kin[:, :7 * nb].reshape(nt, nb, 7), "qd": kin[:, 7 * nb:13 * nb].reshape(nt, nb, 6),
                     "qdd": kin[:, 13 * nb:].reshape(nt, nb, 6)}
            else:
                k = {n: kin[:, i].reshape(nt, nb, 3) for i, n in enumerate(("q", "qd", "qdd"))}
            k["frames"] = {L.name: run["frames"][:, i] for i, L in enumerate(self.links)}
        return MechanismMotion(t=np.array(t, float), z=z, zd=zd, zdd=zdd, force=force, q=k["q"],
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
        return self._forces(motion)

    def _forces(self, motion, result=MechanismForces):
        """:meth:`joint_forces` of a motion of this mechanism's description (checked by
        the caller) as ``result`` (MechanismForces or a class of named views of it)."""
        r = self._api["joint_forces"](self._core, np.hstack([motion.z, motion.zd, motion.zdd]))
        axial = {L.name: self._link_axial(L, motion.q, self._link_frames(L, motion.frames[L.name]), r["joints"])
                 for L in self.links}
        return result(t=motion.t, joints=r["joints"], drive=r["drive"], link_axial=axial, mechanism=self)

    def _link_ports(self, link):
        """The joints at a link's ports: [(joint index, port index, sign of its force on the
        link)] (``ports``: a line body's nodes, a reduced body's interface items)."""
        xy = link.ports()[0]
        scale = max(float(np.ptp(xy, axis=0).max(initial=0.0)), 1e-300) if xy.shape[0] > 1 else 1.0
        R = link.rotation if self.space == 3 else _rot(link.angle)
        out = []
        for j, J in enumerate(self.joints):
            if link.name not in J.bodies:
                continue
            p = R.T @ (np.asarray(J.at) - np.asarray(link.start))
            hits = np.flatnonzero(np.linalg.norm(xy - p, axis=1) <= 1e-9 * scale) if self.space == 3 else \
                np.flatnonzero(np.hypot(xy[:, 0] - p[0], xy[:, 1] - p[1]) <= 1e-9 * scale)
            if not hits.size:
                where = (f"one of its end nodes {tuple(link.node_point(0))}, {tuple(link.node_point(-1))}"
                         if link._is_line() else
                         f"one of its ports {', '.join(str(tuple(link.port_point(k))) for k in range(xy.shape[0]))}")
                raise ValueError(f"joint {J.name!r} attaches to link {link.name!r} at {J.at}, not at {where}")
            out.append((j, int(hits[-1]), 1.0 if J.bodies[1] == link.name else -1.0))
        return out

    def _link_ends(self, link):
        """The joints at a line link's first and last node: [(joint index, end 0/1, sign)]
        (a joint at an interior node is refused: its force would not enter N(x))."""
        if self.space == 3:
            return self._spatial_link_ends(link)
        last = link.model.n_nodes - 1
        out = []
        for j, port, sign in self._link_ports(link):
            if port not in (0, last):
                raise ValueError(f"joint {self.joints[j].name!r} attaches to link {link.name!r} at "
                                 f"{self.joints[j].at}, not at one of its end nodes {link.node_point(0)}, "
                                 f"{link.end}")
            out.append((j, 0 if port == 0 else 1, sign))
        return out

    def _spatial_link_ends(self, link):
        """A spatial link's joints at its first and last node: [(joint index, end 0/1, sign)]."""
        nodes = np.asarray(link.body.nodes, float)
        x = np.zeros((nodes.shape[0], 3))
        x[:, :nodes.shape[1]] = nodes
        out = []
        for j, J in enumerate(self.joints):
            if link.name not in J.bodies:
                continue
            p = link.rotation.T @ (np.asarray(J.at) - np.asarray(link.start))
            ends = [e for e, xe in ((0, x[0]), (1, x[-1])) if np.linalg.norm(p - xe) <= 1e-9 * link.body.length]
            if not ends:
                raise ValueError(f"joint {J.name!r} attaches to link {link.name!r} at {J.at}, not at one of "
                                 f"its end nodes {tuple(link.node_point(0))}, {tuple(link.node_point(-1))}")
            out.append((j, ends[0], 1.0 if J.bodies[1] == link.name else -1.0))
        return out

    def _link_frames(self, link, frames):
        """A link's frame motion (FRAME_DTYPE records) as its elements take it: as it is,
        or, for planar elements riding on a spatial link, checked to stay in the frame's
        x-y plane and given as a planar motion (rotation about z, origin terms in x-y).

        Spatial: components of omega and eps at the kinematics' round-off (within 1e-13
        of |omega|, of |omega|^2 + |eps|; the rows' rates leave ~1e-15 where the motion has
        none, a hub turning about a fixed axis) are zero: they would move the
        eigenproblem to the general solver, or to a combination of every invariant
        (docs/theory.md section 5.16)."""
        if self.space == 2:
            return frames
        out = frames.copy()
        om, eps = out["omega"], out["eps"]
        w = np.linalg.norm(om, axis=-1)
        tol = 1e-13 * (w ** 2 + np.linalg.norm(eps, axis=-1))
        eps[np.abs(eps) <= tol[..., None]] = 0.0
        om[np.abs(om) <= 1e-13 * w[..., None]] = 0.0
        if not link.planar:
            return out
        for field, cols in (("omega", [0, 1]), ("eps", [0, 1]), ("v", [2]), ("a", [2]), ("vdot", [2])):
            v = out[field]
            scale = float(np.max(np.abs(v), initial=0.0))
            off = np.abs(v[..., cols])
            if np.any(off > 1e-8 * scale + 1e-12):
                i = int(np.argmax(off.max(axis=-1)))
                raise NotSupportedError(f"link {link.name!r} carries planar elements ({type(link.body).__name__}), "
                                        f"but its frame leaves its x-y plane: {field} = {v[i].tolist()} at instant "
                                        f"{i} (give it spatial elements, a Beam3D or Bar3D)")
            v[..., cols] = 0.0
        return out

    def _link_axis(self, link, q):
        """The link's x axis (its elements' line) in global axes over q, (nt, 3) or (nt, 2)."""
        b = self._bidx[link.name]
        if self.space == 3:
            return spatial.quaternions_matrices(q[:, b, 3:])[:, :, 0]
        return np.column_stack([np.cos(q[:, b, 2]), np.sin(q[:, b, 2])])

    def _link_axial(self, link, q, frames, joints):
        """K_G's coefficients of a link over a motion (docs/theory.md section 5.11): a line
        body's N(x), the quasi-static axial equilibrium under its inertial load and the
        joint forces at its ends; a reduced body's load-case coefficients (its frame's a
        and E + W W, then the joint forces and moments on its interface DOFs, in its axes)."""
        if not link._is_line():
            return self._link_load_cases(link, q, frames, joints)
        body = link.body
        if not body._straight_kg():
            raise NotSupportedError(f"link {link.name!r}: K_G from the joint forces needs a straight line body "
                                    "(as its constructor makes it); give geometric_stiffness=False")
        ex = self._link_axis(link, q)
        f_end = np.zeros((q.shape[0], 2))
        for j, end, sign in self._link_ends(link):
            f_end[:, end] += sign * np.sum(joints[:, j, :ex.shape[1]] * ex, axis=1)
        fixed = link._fixed
        nd = body.dofs_per_node
        fx = (bool(fixed[0]), bool(fixed[(body.n_nodes - 1) * nd]))
        if all(fx):  # a frame through both ends: the joint forces carry the axial load
            fx = (False, False)
        # N(x) is the inertial part plus the end force the free end takes (N(x_a) = -f_first,
        # or N(x_b) = f_last, or neither when both ends are held): one call over all instants
        # for the inertial part, the end force added to the constant coefficient (superposition:
        # the same N to round-off as a call per instant with its end forces, 360 calls fewer)
        c = _core.axial_force(body=body._body, frames=frames, f_first=0.0, f_last=0.0, fixed_first=fx[0],
                              fixed_last=fx[1])
        if not fx[0]:
            c[:, 0] -= f_end[:, 0]
        elif not fx[1]:
            c[:, 0] += f_end[:, 1]
        if not (np.isfinite(f_end).all() and np.isfinite(c).all()):  # the core names instant and value
            c = np.concatenate([_core.axial_force(body=body._body, frames=frames[i:i + 1], f_first=f_end[i, 0],
                                                  f_last=f_end[i, 1], fixed_first=fx[0], fixed_last=fx[1])
                                for i in range(q.shape[0])])
        return c

    def _link_load_cases(self, link, q, frames, joints):
        """A reduced link's K_G coefficients over a motion (nt, nkg): the inertial cases of
        its frame (kf_body_geometric_coefficients) and, on load case dim + dim^2 + k, the
        generalized force of the joints on coordinate k, in its axes (as kf_flexmech's
        reactions: in space the force and the moment about the link's own joint point)."""
        model = link.model
        c = _core.axial_force(body=model._body, frames=frames, f_first=0.0, f_last=0.0, fixed_first=False,
                              fixed_last=False)
        first = c.shape[1] - model._n_load
        b = self._bidx[link.name]
        dofs = link.ports()[1]
        if self.space == 3:
            R = spatial.quaternions_matrices(q[:, b, 3:])
        else:
            ex = np.column_stack([np.cos(q[:, b, 2]), np.sin(q[:, b, 2])])
        for j, port, sign in self._link_ports(link):
            F = joints[:, j]
            if self.space == 3:
                f, m = F[:, :3], F[:, 3:]
                if sign < 0:  # the link is the joint's first body: the reaction, about its point
                    J = self.joints[j]
                    P = [self._track(q, name, J.at) for name in J.bodies]
                    f, m = -f, -(m + np.cross(P[1] - P[0], f))
                loads = np.concatenate([np.einsum("tki,tk->ti", R, f), np.einsum("tki,tk->ti", R, m)], axis=1).T
                sign = 1.0
            else:
                loads = (F[:, 0] * ex[:, 0] + F[:, 1] * ex[:, 1], F[:, 1] * ex[:, 0] - F[:, 0] * ex[:, 1], F[:, 2])
            for k, load in zip(dofs[port], loads):
                if 0 <= k < model._n_load:
                    c[:, first + k] += sign * load
        return c

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
        links = [self.link(name) for name in names]
        for L in links:
            if geometric_stiffness:
                L._check_load_cases("link_eigenvalues(geometric_stiffness=True)")
        axial = self.joint_forces(motion).link_axial if geometric_stiffness else {}
        out = {}
        for L in links:
            name = L.name
            f = self._link_frames(L, motion.frames[name])
            ax = axial.get(name)
            if L.model.dim == 3:
                r = L.model.eigenvalues_vs_time(n_modes=n_modes, supports=L._model_supports, include_eps=include_eps,
                                                order=order, mode_shapes=False, frames=f,
                                                geometric_stiffness=geometric_stiffness, axial_force=ax)
            else:
                r = L.model.eigenvalues_vs_time(f["omega"][:, 2], f["eps"][:, 2], n_modes,
                                                supports=L._model_supports, include_eps=include_eps, order=order,
                                                mode_shapes=False, geometric_stiffness=geometric_stiffness,
                                                axial_force=ax)
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
        from ..motion import Motion
        from ..simulate import simulate

        self._check_motion(motion)
        _checks.choice("initial", initial, ("quasi-static", "rest"))
        L = self.link(link)
        if motion.t.shape[0] < 4:
            raise ValueError(f"motion must have at least 4 instants, got {motion.t.shape[0]}")
        b = self._bidx[L.name]
        t = motion.t - motion.t[0]
        origin = self._track(motion.q, L.name, L.start)
        gravity = self.gravity
        if self.space == 2:
            frame = Motion.from_samples(t, np.unwrap(motion.q[:, b, 2]), origin)
        elif L.planar:  # planar elements on a spatial link: its motion in its frame's x-y plane
            self._link_frames(L, motion.frames[L.name])
            R = spatial.quaternions_matrices(motion.q[:, b, 3:])
            e_z = R[0, :, 2]
            frame = Motion.from_samples(t, np.unwrap(np.arctan2(R[:, 1, 0], R[:, 0, 0])), origin[:, :2])
            if abs(abs(e_z[2]) - 1.0) > 1e-9:
                raise NotSupportedError(f"link {L.name!r} carries planar elements in a plane that is not the "
                                        "global x-y plane: give it spatial elements (a Beam3D or Bar3D)")
            gravity = self.gravity[:2]
        else:
            frame = Motion.from_rotations(t, spatial.quaternions_matrices(motion.q[:, b, 3:]), origin)
        d0 = None
        if initial == "quasi-static":
            d0 = quasi_static(L.model, self._link_frames(L, motion.frames[L.name])[0], L._fixed)
        if dt is None and method in ("newmark", "generalized-alpha"):
            w1 = math.sqrt(max(L.model.eigenvalues(1, supports=L._model_supports).eigenvalues[0], 1e-30))
            dt = min(2 * math.pi / w1 / 40, float(np.min(np.diff(t))))
        r = simulate(L.model, frame, float(t[-1]), dt=dt, method=method, supports=L._model_supports,
                     damping=damping, d0=d0, t_eval=t, gravity=gravity,
                     geometric_stiffness=geometric_stiffness, **simulate_options)
        return L.expand(dataclasses.replace(r, t=motion.t.copy()))

    # ------------------------------------------------------------ elastic links, two ways

    def simulate_flexible(self, t=None, *, duration=None, points=361, drives=None, z0=None,
                          zd0=None, d0=None, dd0=None, dt=None, rtol=1e-2, atol=1e-9, rho_inf=0.9, tol=1e-8,
                          max_iter=25, max_steps=2_000_000, progress=None,
                          axial_force="auto") -> FlexibleMotion:
        """The motion with the elastic links coupled both ways (floating frames).

        Rigid and elastic coordinates form one system, M(p) p'' = f(t, p, p'), with
        p = (free independent coordinates, the links' free elastic DOFs), integrated by
        generalized-alpha (Arnold-Bruls form, Newton iterations) with steps that land
        on every output time; the dependent rigid coordinates follow from the loop
        closure at every evaluation (coordinate partitioning: the constraints hold to
        round-off, docs/theory.md section 5.12).

        Each link's K_G (``ElasticLink.geometric_stiffness``, on by default) uses
        its axial force from the coupled solution at every step: the joint forces at
        its ends at the current accelerations and its axial inertia.

        The step is checked against an accuracy target (step doubling): the returned
        run is compared with a run at twice its step (half its cost), their difference
        estimating its error (Richardson, second order: difference / 3, times a margin
        of 1.5).  The first pair's step is chosen from ``rtol`` and the run's length so
        that it usually meets ``rtol`` at once; while the estimate exceeds ``rtol`` the
        steps are refined by the factor it asks for (error ~ h^2) and checked again
        against a run at twice the step.  ``stats["error_estimate"]`` holds the returned
        run's estimate (docs/theory.md section 5.12).

        Parameters
        ----------
        t, duration, points, drives, z0, zd0
            As in :meth:`solve` (:class:`Recorded` drives become paths).
        d0 : dict or "quasi-static", optional
            Link name -> initial elastic displacements over its DOFs (default zero);
            ``"quasi-static"``: each link's quasi-static deflection under its frame's
            inertia and gravity loads at the rigid motion's first instant (K_G not in
            it), so a run from a moving start carries no vibration the motion does not
            cause.
        dd0 : dict, optional
            Link name -> initial elastic velocities over its DOFs [m/s, rad/s]
            (default zero), checked as ``d0``; at the DOFs the link's reference
            conditions fix both are ignored (they stay zero).
        dt : float, optional
            The coarser step of the first pair of runs [s] (with ``rtol=None``: the
            step of the one run).  Default, with ``rtol``: T1 sqrt(rtol / (2 n)), T1
            the shortest first-mode period of the links at rest and n = max(1,
            duration / T1) the periods the run lasts (a free vibration's phase error
            grows as n (omega h)^2), at most T1 / 20; with ``rtol=None``: T1 / 20.
            At most the output interval.  Steps are equal within each output
            interval.
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
        axial_force : {"auto", "extrapolated", "iterated"}
            How K_G's axial force enters a step (docs/theory.md section 5.12).
            "extrapolated": linearly from the converged states of the two steps before
            (second order, as the scheme), held through the step; where every rigid
            coordinate is prescribed (a driven crank) the step's equations are then
            affine and one exact solve replaces Newton's iterations (``tol`` and
            ``max_iter`` unused there).  "iterated": from the joint forces of Newton's
            first two iterates, then held: no lag behind the step, for axial forces
            that change within a step more than a straight line from the two steps
            before follows (a sudden load, a recorded drive with jumps in its
            acceleration), and to reproduce runs made when it was the default.  "auto"
            (default):
            "extrapolated" where every rigid coordinate is prescribed, "iterated"
            where one is free (Newton iterates there anyway: the extrapolation saves
            nothing; measured on the flexible pendulum, the same answer to 1e-4).

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
        if self.space == 3:
            inner, split = spatial.with_hardware(self)
            if split:  # links with given rigid bodies: their elements and hardware fixed to them
                fm = inner.simulate_flexible(
                    t, duration=duration, points=points, drives=drives, z0=z0, zd0=zd0, d0=d0, dd0=dd0, dt=dt,
                    rtol=rtol, atol=atol, rho_inf=rho_inf, tol=tol, max_iter=max_iter, max_steps=max_steps,
                    progress=progress, axial_force=axial_force)
                return self._from_hardware(fm, split)
            for L in self.links:
                L._two_way()
        ds = self._drives(drives)
        nz = len(self.coordinates)
        tt = self._check_size(self._time_grid(t, duration, points), "t or points", flexible=True)
        z0 = self._initial_coordinates(z0)
        zd0 = np.zeros(nz) if zd0 is None else _checks.array("zd0", zd0, shape=(nz,))
        drive_records, functions = self._drive_records(ds)
        for L in self.links:
            self._check_reference(L)
        free = [np.flatnonzero(~L._fixed) for L in self.links]

        def elastic(name, given, what):  # per link over its free DOFs, checked by name and shape
            given = {} if given is None else _checks.mapping(name, given, f"a dict {{link name: {what}}}")
            out = []
            for L, f in zip(self.links, free):
                v = np.zeros(L.model.ndof) if L.name not in given else \
                    L._coordinates(f"{name}[{L.name!r}]", _checks.array(f"{name}[{L.name!r}]", given.pop(L.name),
                                                                        shape=(L.body.ndof,)))
                out.append(v[f])
            if given:
                raise ValueError(f"{name}: unknown links {', '.join(map(repr, given))}")
            return np.concatenate(out) if out else np.zeros(0)

        if isinstance(d0, str):
            if d0 != "quasi-static":
                raise TypeError(f"d0 must be a dict {{link name: displacements}} or 'quasi-static', got {d0!r}")
            # each link's quasi-static deflection under its frame's loads at the start (the
            # rigid motion's first instant; K_G not in it): a run from rest would start a
            # vibration the trajectory does not ask for
            first = self.solve(np.array([tt[0], tt[0] + max(1e-9, 1e-6 * float(tt[-1] - tt[0]))]), drives=drives,
                               z0=z0, zd0=zd0)
            d0 = {L.name: L.expand(quasi_static(L.model, self._link_frames(L, first.frames[L.name][:1])[0], L._fixed))
                  for L in self.links}
        x0 = np.concatenate([elastic("d0", d0, "displacements"), elastic("dd0", dd0, "velocities")])
        if rtol is not None:
            rtol = _checks.real("rtol", rtol, positive=True)
            if not 1e-12 <= rtol < 1.0:  # below, round-off of the runs themselves
                raise ValueError(f"rtol = {rtol!r} must lie in [1e-12, 1) (or be None: no check)")
        atol = _checks.real("atol", atol, nonnegative=True)
        max_steps = _checks.integer("max_steps", max_steps, minimum=1, maximum=MAX_STEPS_LIMIT)
        if dt is None:
            w = max(math.sqrt(max(L.model.eigenvalues(1, supports=L._model_supports).eigenvalues[0], 1e-30))
                    for L in self.links)
            period = 2 * math.pi / w
            dt = period / 20
            if tt.size > 1:
                dt = min(dt, float(np.min(np.diff(tt))))
            if rtol is not None:  # the first pair meets rtol at once on most runs (theory 5.12)
                h = period * math.sqrt(rtol / (2.0 * max(1.0, float(tt[-1] - tt[0]) / period)))
                # a whole number of steps in the shortest output interval, at most 10 % longer than h
                gap = float(np.min(np.diff(tt))) if tt.size > 1 else dt
                first = min(dt, gap / max(1.0, math.ceil(gap / h - 0.1)))
                if 2 * _base_steps(tt, first) <= max_steps:  # else from 1/20 of the period, refined
                    dt = first
        dt = _checks.real("dt", dt, positive=True)
        links = _records.links([dict(body=self._bidx[L.name], rayleigh=L.damping, geometric=L.geometric_stiffness)
                                for L in self.links])
        # a line body's ports are its nodes (the core's default); any other's given beside it
        # (a spatial reduced body's mass properties from its invariants: None)
        bodies = [L.model._body if L._is_line() else (L.model._body, *L.ports()) for L in self.links]
        fixed = [L._fixed for L in self.links]
        _checks.choice("axial_force", axial_force, ("auto", "extrapolated", "iterated"))
        if axial_force == "auto":  # extrapolated where it makes a step one solve
            axial_force = "extrapolated" if all(d is not None and not isinstance(d, Torque) for d in ds) \
                else "iterated"
        options = dict(dt=dt, rho_inf=_checks.real("rho_inf", rho_inf),
                       extrapolate=int(axial_force == "extrapolated"),
                       tol=_checks.real("tol", tol, positive=True),
                       max_iter=_checks.integer("max_iter", max_iter, minimum=1, maximum=1000), progress=progress)
        base = _base_steps(tt, dt)

        def run(refine):
            try:
                return _core.mech_flex_simulate(self._core, links, bodies, fixed, drive_records, functions, z0, zd0,
                                                x0, tt, refine=refine, max_steps=max_steps,
                                                frames=self._frames, **options)
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
            groups = _error_groups(self.links, free, ds, nz)
            scales = _error_scales(r, groups, nz)
            while True:
                # the next refinement: double, or the factor the last estimate asks for (error
                # ~ h^2, with 1.25 to spare); the estimate always compares a run with one at
                # twice its steps (a larger ratio would lean on a coarse run outside the
                # asymptotic range); refine is even after the first pair, so refine k / 2 is whole
                k = 2 if estimate is None else max(2, math.ceil(1.25 * math.sqrt(estimate / rtol)))
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
                    refine = refine * k // 2
                fine = run(refine * 2)
                runs += 1
                for key, v in fine["stats"].items():
                    counts[key] = counts.get(key, 0) + v
                scales = np.maximum(scales, _error_scales(fine, groups, nz))
                estimate = _error_estimate(r, fine, scales, groups, nz, 2, atol / rtol)
                refine, r = refine * 2, fine
                if estimate <= rtol:
                    break
        s = r["states"]
        stats = dict(counts, dt=dt / refine, refine=refine, runs=runs, rtol=rtol, atol=atol,
                     error_estimate=estimate, accurate=accurate,
                     geometric_stiffness={L.name: L.geometric_stiffness for L in self.links},
                     axial_force="joint forces and axial inertia of the coupled solution, at every step" +
                     (" (extrapolated from the two steps before)" if options["extrapolate"] else ""))
        motion = self._motion(tt, s[:, :nz], s[:, nz:2 * nz], s[:, 2 * nz:3 * nz], s[:, 3 * nz:], stats, r)
        d, dd, off = {}, {}, 0
        nfree = sum(len(f) for f in free)
        for L, f in zip(self.links, free):
            q, qd = np.zeros((tt.size, L.model.ndof)), np.zeros((tt.size, L.model.ndof))
            q[:, f] = r["elastic"][:, off:off + len(f)]
            qd[:, f] = r["elastic"][:, nfree + off:nfree + off + len(f)]
            d[L.name], dd[L.name] = L.expand(q), L.expand(qd)
            off += len(f)
        return FlexibleMotion(motion=motion, d=d, d_t=dd, joints=r["joints"], stats=stats,
                              geometric_stiffness=dict(stats["geometric_stiffness"]))

    def _from_hardware(self, fm, split):
        """The two-way motion of the mechanism whose given-mass links ran as their elements
        with their hardware fixed to them (spatial.with_hardware): its own bodies (each such
        link's reference point moved back to the description's mass centre) and joints."""
        nb, nj = len(self.bodies), len(self.joints)
        m = fm.motion
        q, qd, qdd = m.q[:, :nb].copy(), m.qd[:, :nb].copy(), m.qdd[:, :nb].copy()
        for name, (_, off) in split.items():
            b = self._bidx[name]
            R = spatial.quaternions_matrices(q[:, b, 3:])
            w, e = qd[:, b, 3:], qdd[:, b, 3:]
            wo = np.cross(w, off)
            q[:, b, :3] += R @ off
            qd[:, b, :3] += np.einsum("tij,tj->ti", R, wo)
            qdd[:, b, :3] += np.einsum("tij,tj->ti", R, np.cross(e, off) + np.cross(w, wo))
        motion = MechanismMotion(t=m.t, z=m.z, zd=m.zd, zdd=m.zdd, force=m.force, q=q, qd=qd, qdd=qdd,
                                 frames=m.frames, stats=m.stats, mechanism=self)
        return FlexibleMotion(motion=motion, d=fm.d, d_t=fm.d_t, joints=fm.joints[:, :nj], stats=fm.stats,
                              geometric_stiffness=fm.geometric_stiffness)

    def flexible_inverse_dynamics(self, t, z, zd=None, zdd=None, *, noise=0.0, d0="quasi-static",
                                  **options) -> FlexibleMotion:
        """The flexible inverse dynamics of a trajectory: what every coordinate needs (a
        robot's joint torques and forces) to follow it with its elastic links coupled both
        ways, beside the rigid :meth:`inverse_dynamics` of the same samples.

        Every coordinate is driven along the trajectory (a :class:`Path` through the samples
        and their rates: quintic Hermite pieces between the instants, so z, z', z'' are the
        samples' at every instant and smooth between; without rates, the smoothing spline of
        :class:`Recorded`) and :meth:`simulate_flexible` integrates the links' elastic
        coordinates on it; the drives' forces, ``motion.force``, are the torques, with the
        links' inertia, deflection and K_G in them.  The elastic links start from their
        quasi-static deflection at the first instant (``d0``; or as simulate_flexible takes
        it), so the torques carry no start-up vibration the trajectory does not cause.

        Parameters
        ----------
        t : array_like, shape (nt,)
            Times [s], strictly increasing.
        z : array_like, shape (nt, nz)
            The coordinates at t (every one prescribed).
        zd, zdd : array_like, shape (nt, nz), optional
            Their rates and accelerations; both or neither (then each coordinate's samples
            are smoothed and differentiated: ``noise`` as for :meth:`inverse_dynamics`).
        d0 : "quasi-static" or dict, optional
            The links' initial deflection (see :meth:`simulate_flexible`).
        **options
            :meth:`simulate_flexible`'s (``dd0``, ``dt``, ``rtol``, ``rho_inf``, ...).

        Returns
        -------
        FlexibleMotion
            ``motion.force``: the generalized force along each coordinate [N m or N];
            ``joints``: the joints' forces; ``d``: the links' deflections along the
            trajectory.  The links' frequencies along it: :meth:`link_eigenvalues` of
            ``motion``.
        """
        tt = self._check_size(self._time_grid(t, None, None), "t")
        z = self._states(z)
        if z.shape[0] != tt.size:
            raise ValueError(f"z has {z.shape[0]} rows, t {tt.size} instants")
        if (zd is None) != (zdd is None):
            raise ValueError("give both zd and zdd, or neither (the samples are then differentiated)")
        for key in ("drives", "z0", "zd0", "t", "duration", "points"):
            if key in options:
                raise TypeError(f"flexible_inverse_dynamics: {key} is set by the trajectory")
        if zd is None:
            if noise is not None:
                noise = _checks.real("noise", noise, nonnegative=True)
            drives = {c.name: Recorded(tt, z[:, k], noise=noise) for k, c in enumerate(self.coordinates)}
            z0 = np.array([drives[c.name].spline()(tt[0]) for c in self.coordinates])
            zd0 = np.array([drives[c.name].spline()(tt[0], 1) for c in self.coordinates])
        else:
            zd, zdd = (self._rates(n, v, z.shape) for n, v in (("zd", zd), ("zdd", zdd)))
            if not (np.isfinite(zd).all() and np.isfinite(zdd).all()):
                raise ValueError("zd and zdd must be finite")
            drives = {c.name: Path.through(tt, z[:, k], zd[:, k], zdd[:, k]) for k, c in enumerate(self.coordinates)}
            z0, zd0 = z[0], zd[0]
        return self.simulate_flexible(tt, drives=drives, z0=z0, zd0=zd0, d0=d0, **options)

    def _check_reference(self, link):
        """Joints attach to a link only at ports whose translations its reference
        conditions hold, so that the constraints see the frame's points."""
        if link._is_line():
            self._link_ends(link)  # a line body's joints at its end nodes
        dofs = link.ports()[1]
        for j, port, _ in self._link_ports(link):
            held = [link._fixed[k] for k in dofs[port][:self.space] if k >= 0]
            if not all(held):
                what = "node" if link._is_line() else "port"
                raise ValueError(f"joint {self.joints[j].name!r} attaches to link {link.name!r} at {what} "
                                 f"{port}, where its reference conditions {link.supports!r} leave it free: "
                                 "the elastic displacement there would break the joint")



def quasi_static(body, frame, fixed):
    """The quasi-static deflection of an elastic body on a moving frame at one instant:
    (K + K_eps + K_om) d = -q_a - q_eps - q_om over the DOFs not in ``fixed`` (a boolean
    mask, e.g. ``body.support_mask(supports)``), ``frame`` a record of
    ``kanefem.FRAME_DTYPE`` (omega, eps, a - g in the frame); d (ndof,)."""
    terms = body.motion_terms(frames=np.asarray(frame).reshape(1))
    K = body.stiffness_matrix() + terms.K_eps + terms.K_om
    f = -(terms.q_a + terms.q_eps + terms.q_om)
    free = ~np.asarray(fixed, bool)
    d = np.zeros(body.ndof)
    d[free] = np.linalg.solve(K[np.ix_(free, free)], f[free])
    return d




def _base_steps(tt, dt):
    """Steps of one two-way run at refine = 1 (the core's rule: equal steps of at most dt
    in each output interval; intervals within 1e-9 of a multiple of dt take that many)."""
    return max(1, int(np.sum(np.maximum(1.0, np.ceil(np.diff(tt) / dt * (1.0 - 1e-9))))))


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
        if not L._is_line():  # a reduced link: its full body's nodes' displacements (d = V q)
            groups.append(("v", off + np.arange(len(f)), L._translations(f)))
            off += len(f)
            continue
        nd = L.body.dofs_per_node
        kind = np.asarray(f) % nd
        nt = min(L.body.dim, nd)  # the translations of a node come first (u, v[, w]), then its rotations
        for sel in ((kind < nt), (kind >= nt)):
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
    if where == "v":  # nodes: the rows (Px, Py[, Pz]) of the translations of a reduced link's full body
        v = [x @ P.T for P in nodes]
        return np.hypot(*v) if len(v) == 2 else np.sqrt(sum(c * c for c in v))
    if nodes is None:
        return np.abs(x)
    # the displacement vector's length at each node (u, v of a node together)
    out = np.zeros((x.shape[0], int(nodes.max()) + 1))
    np.add.at(out, (slice(None), nodes), x * x)
    return np.sqrt(out)


def _error_scales(r, groups, nz):
    """Each group's (of :func:`_error_groups`) largest excursion over a run."""
    return np.array([float(np.max(_group_values(r, g, nz), initial=0.0)) for g in groups])


def _error_estimate(coarse, fine, scales, groups, nz, k, floor):
    """Richardson's estimate of the finer run's error (steps k times smaller, second
    order: difference / (k^2 - 1)), the largest over groups and output times relative to
    each group's peak plus ``floor`` (atol / rtol)."""
    worst = 0.0
    for g, scale in zip(groups, scales):
        where, cols, nodes = g
        if where == "z":
            diff = np.abs(fine["states"][:, cols[0]] - coarse["states"][:, cols[0]])
        else:
            delta = fine["elastic"][:, cols] - coarse["elastic"][:, cols]
            diff = _group_values({"elastic": delta[:, :]}, (where, np.arange(len(cols)), nodes), nz)
        e, den = float(np.max(diff, initial=0.0)) / (k * k - 1), float(scale + floor)
        # a quantity zero throughout (atol = 0): no error where the runs agree exactly
        worst = max(worst, 0.0 if e == 0.0 else e / den if den > 0.0 else math.inf)
    return float(_SAFETY * worst)


# Richardson's estimate is exact only as h -> 0; measured within 20 % of the true error on
# the slider-crank and the pendulum (tests), so reported and checked with a margin
_SAFETY = 1.5
