"""Robot arms: serial chains from Denavit-Hartenberg tables (docs/theory.md section
5.15); URDF files are read by :mod:`kanefem.mechanism.urdf`.

A Denavit-Hartenberg table gives, per joint, the transform from one link's frame to
the next:

* standard (Denavit and Hartenberg 1955; Spong, Hutchinson and Vidyasagar 2006):
  ``T_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)`` from frame i-1 to frame i; joint i
  turns (or slides) about z_{i-1}, and link i carries frame i, at its far end;
* modified (Craig 2005): ``T_i = Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i)``;
  joint i turns about z_i, at the origin of frame i, which link i carries.

The joint variable is theta_i (revolute) or d_i (prismatic); the table's value is the
drawing's, and the chain's coordinates ``q1``, ``q2``, ... equal the joint variables.
Each link's mass centre and inertia tensor are given in its own frame.
"""

from __future__ import annotations

import numpy as np

from .. import _checks
from .model import Mechanism
from .parts import GROUND, Coordinate, Prismatic, Revolute
from .spatial import SpatialBody, SpatialLink


def _transform(R=None, p=None):
    T = np.eye(4)
    if R is not None:
        T[:3, :3] = R
    if p is not None:
        T[:3, 3] = p
    return T


def _rz(t):
    c, s = np.cos(t), np.sin(t)
    return _transform(np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]))


def _rx(t):
    c, s = np.cos(t), np.sin(t)
    return _transform(np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]]))


def elastic_link(name, spec, start, end, mass, inertia, centre) -> SpatialLink:
    """A robot's elastic link: elements along the segment from ``start`` to ``end`` (the
    drawing's points of its joint and of the next), on a rigid body of the given mass,
    inertia tensor (global axes, about ``centre``) and centre, as the robot's description
    gives them (one way: the rigid motion is the description's).

    ``spec`` is a :class:`~kanefem.Beam3D` or :class:`~kanefem.Bar3D` of that length, or a
    dict of a section: ``kind`` ("beam3d", the default, or "bar3d"), ``elements``
    (default 10), the body's material and section keywords (E, A, Izz, Iyy, J, rho, ...),
    and optionally ``y``, a direction in the drawing for the section's y axis (made
    perpendicular to the segment; default the global axis least aligned with it)."""
    from ..bodies import Bar3D, Beam3D
    from .spatial import axis_frame

    start, end = np.asarray(start, float), np.asarray(end, float)
    length = float(np.linalg.norm(end - start))
    if not length > 1e-12:
        raise ValueError(f"elastic[{name!r}]: the link has no length between its joint and the next")
    x = (end - start) / length
    y_hint = None
    if isinstance(spec, (Beam3D, Bar3D)):
        body = spec
        if abs(body.length - length) > 1e-9 * length or body.origin != 0.0:
            raise ValueError(f"elastic[{name!r}]: its elements span {body.length!r} m from x = {body.origin!r}; the "
                             f"link is {length!r} m from its joint to the next")
    else:
        spec = dict(_checks.mapping(f"elastic[{name!r}]", spec, "a Beam3D, a Bar3D or a dict of its section"))
        kind = spec.pop("kind", "beam3d")
        _checks.choice(f"elastic[{name!r}]: kind", kind, ("beam3d", "bar3d"))
        n = _checks.integer(f"elastic[{name!r}]: elements", spec.pop("elements", 10), minimum=1,
                            maximum=Beam3D.MAX_ELEMENTS)
        y_hint = spec.pop("y", None)
        try:
            body = (Beam3D if kind == "beam3d" else Bar3D)(length, n, **spec)
        except TypeError as e:
            raise TypeError(f"elastic[{name!r}]: {e}") from None
    if y_hint is None:
        ax = axis_frame(x)
        y = ax[:, 0]
    else:
        y = np.asarray(_checks.array(f"elastic[{name!r}]: y", y_hint, shape=(3,)), float)
        y = y - (y @ x) * x
        if not np.linalg.norm(y) > 1e-9:
            raise ValueError(f"elastic[{name!r}]: y = {tuple(y_hint)} is along the link")
        y /= np.linalg.norm(y)
    Rl = np.column_stack([x, y, np.cross(x, y)])
    return SpatialLink(name, body, start=tuple(start), orientation=Rl, mass=mass, inertia=Rl.T @ inertia @ Rl,
                       centre=tuple(centre))


def dh_transforms(table, convention="standard") -> list:
    """The frames of a Denavit-Hartenberg chain (4 x 4 homogeneous transforms from the
    base): frames 1..n, and where each joint is (its axis' frame).

    Parameters
    ----------
    table : array_like, shape (n, 4)
        Per joint (theta, d, a, alpha) [rad, m, m, rad]; modified: (theta_i, d_i,
        a_{i-1}, alpha_{i-1}).
    convention : {"standard", "modified"}

    Returns
    -------
    (frames, joints) : two lists of n (4, 4) arrays
        frames[i]: link i+1's frame; joints[i]: a frame whose z is joint i+1's axis, at
        a point of it.
    """
    _checks.choice("convention", convention, ("standard", "modified"))
    tab = _checks.array("table", table, ndim=2)
    if tab.shape[1] != 4 or tab.shape[0] < 1:
        raise ValueError(f"table must have rows (theta, d, a, alpha), got shape {tab.shape}")
    T = np.eye(4)
    frames, joints = [], []
    for theta, d, a, alpha in tab:
        if convention == "standard":
            joints.append(T.copy())
            T = T @ _rz(theta) @ _transform(p=(0.0, 0.0, d)) @ _transform(p=(a, 0.0, 0.0)) @ _rx(alpha)
        else:
            T = T @ _rx(alpha) @ _transform(p=(a, 0.0, 0.0)) @ _rz(theta) @ _transform(p=(0.0, 0.0, d))
            joints.append(T.copy())
        frames.append(T.copy())
    return frames, joints


def dh_chain(table, *, kinds=None, masses, centres=None, inertias=None, convention="standard",
             elastic=None, gravity=(0.0, 0.0, -9.81), name="arm") -> Mechanism:
    """A serial robot arm from a Denavit-Hartenberg table.

    Parameters
    ----------
    table : array_like, shape (n, 4)
        Per joint (theta, d, a, alpha) [rad, m, m, rad] in the drawing, by the
        ``convention`` (see the module's text; modified: (theta_i, d_i, a_{i-1},
        alpha_{i-1})).
    kinds : sequence of str, optional
        Per joint "revolute" (theta varies; the default) or "prismatic" (d varies).
    masses : array_like, shape (n,)
        The links' masses [kg].
    centres : array_like, shape (n, 3), optional
        Each link's mass centre in its own frame [m] (default the frame's origin).
    inertias : array_like, shape (n, 3, 3) or (n, 3), optional
        Each link's inertia tensor about its mass centre in its frame's axes, or its
        principal moments [kg m^2] (default zero).
    convention : {"standard", "modified"}
    elastic : dict, optional
        Link name ("link1", ...) -> its elements along the segment from the joint it
        hangs on to the next joint (the last link: to its frame's origin): a
        :class:`~kanefem.Beam3D` or :class:`~kanefem.Bar3D` of that length, or a dict of
        a section: ``kind`` ("beam3d", the default, or "bar3d"), ``elements`` (default
        10), the body's material and section keywords (E, A, Izz, Iyy, J, rho, ...) and
        optionally ``y``, a direction in the drawing for the section's y axis (made
        perpendicular to the link; default the global axis least aligned with it).  That link becomes a
        :class:`~kanefem.mechanism.SpatialLink` carrying them, with the table's mass
        properties, for the one-way computations.
    gravity : (float, float, float)
        [m/s^2], in the base frame (default (0, 0, -9.81)).
    name : str

    Returns
    -------
    Mechanism
        Bodies ``link1``..``linkn``, joints ``joint1``..``jointn`` (each on the link
        before, the ground for the first), coordinates ``q1``..``qn`` equal to the
        joint variables (theta_i or d_i).
    """
    frames, jframes = dh_transforms(table, convention)
    n = len(frames)
    if kinds is None:
        kinds = ("revolute",) * n
    elif isinstance(kinds, (list, tuple)):
        kinds = tuple(kinds)
    else:
        raise TypeError(f"kinds must be a sequence of 'revolute' or 'prismatic' (one per joint), got "
                        f"{_checks._short(kinds)}")
    if len(kinds) != n:
        raise ValueError(f"kinds must have {n} entries (one per joint), got {len(kinds)}")
    for i, k in enumerate(kinds):
        _checks.choice(f"kinds[{i}]", k, ("revolute", "prismatic"))
    m = _checks.array("masses", masses, shape=(n,))
    c = np.zeros((n, 3)) if centres is None else _checks.array("centres", centres, shape=(n, 3))
    inert = np.zeros((n, 3)) if inertias is None else _checks.array("inertias", inertias)
    if inert.shape not in ((n, 3), (n, 3, 3)):
        raise ValueError(f"inertias must have shape ({n}, 3, 3) or ({n}, 3), got {inert.shape}")
    elastic = {} if elastic is None else _checks.mapping("elastic", elastic, "a dict {link name: body}")
    tab = np.asarray(table, float)
    names = [f"link{i + 1}" for i in range(n)]
    unknown = sorted(set(elastic) - set(names))
    if unknown:
        raise ValueError(f"elastic: unknown links {', '.join(map(repr, unknown))} (links: {', '.join(names)})")
    bodies, joints, coords = [], [], []
    for i in range(n):
        F = frames[i]
        R, o = F[:3, :3], F[:3, 3]
        centre = o + R @ c[i]
        if names[i] in elastic:
            # the link's segment: from its joint to the next (or to its frame's origin)
            start = jframes[i][:3, 3]
            end = jframes[i + 1][:3, 3] if i + 1 < n else o
            I_global = R @ (np.diag(inert[i]) if inert.ndim == 2 else inert[i]) @ R.T
            bodies.append(elastic_link(names[i], elastic[names[i]], start, end, float(m[i]), I_global, centre))
        else:
            bodies.append(SpatialBody(names[i], float(m[i]), inert[i], centre=tuple(centre), orientation=R))
        J = jframes[i]
        at, axis = tuple(J[:3, 3]), tuple(J[:3, 2])
        parent = GROUND if i == 0 else names[i - 1]
        if kinds[i] == "revolute":
            joints.append(Revolute(f"joint{i + 1}", (parent, names[i]), at, axis=axis, offset=float(tab[i, 0])))
        else:
            joints.append(Prismatic(f"joint{i + 1}", (parent, names[i]), at, axis=axis, offset=float(tab[i, 1])))
        coords.append(Coordinate(f"q{i + 1}", joint=f"joint{i + 1}"))
    return Mechanism(bodies, joints, coords, gravity=gravity, name=name)
