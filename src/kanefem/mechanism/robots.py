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
        Link name ("link1", ...) -> a :class:`~kanefem.Beam3D` or :class:`~kanefem.Bar3D`
        along the link (from the joint it hangs on, x along the segment to the next
        joint): that link becomes a :class:`~kanefem.mechanism.SpatialLink` carrying
        it, with the link's own mass properties (the table's), for the one-way
        computations.
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
    kinds = ("revolute",) * n if kinds is None else tuple(kinds)
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
            if np.linalg.norm(end - start) <= 1e-12:
                raise ValueError(f"elastic[{names[i]!r}]: the link has no length between its joints")
            x = (end - start) / np.linalg.norm(end - start)
            from .spatial import axis_frame

            ax = axis_frame(x)  # z along the segment: turn it so that x is along it
            Rl = np.column_stack([ax[:, 2], ax[:, 0], ax[:, 1]])
            I_frame = Rl.T @ R @ (np.diag(inert[i]) if inert.ndim == 2 else inert[i]) @ R.T @ Rl
            bodies.append(SpatialLink(names[i], elastic[names[i]], start=tuple(start), orientation=Rl,
                                      mass=float(m[i]), inertia=I_frame, centre=tuple(centre)))
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
