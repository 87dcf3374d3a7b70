"""Rigid motions of a body frame over time, for :func:`kanefem.simulate`.

A planar frame turns about its z axis by the angle theta(t) and its origin O moves
in the plane; a spatial frame turns in space (orientation R(t), global = R local).
The body's equations need, at every instant, the angular velocity omega, the angular
acceleration eps and the origin's acceleration a_O in the body frame (docs/theory.md
section 1); Hamilton's momentum also needs the origin's velocity.  The ways to give
them (docs/theory.md section 4.6):

* :meth:`Motion.constant_speed` -- planar, omega constant, origin at rest (in C);
* :meth:`Motion.spin_up` -- planar, a hub spun up smoothly from rest to a constant
  speed (in C);
* :meth:`Motion.from_samples` -- planar, theta(t) and r_O(t) sampled in time,
  interpolated by not-a-knot cubic splines and differentiated exactly (fitted and
  evaluated in C, so a simulation calls no Python);
* :meth:`Motion.constant_spin` -- spatial, a constant angular velocity about any axis
  (in C);
* :meth:`Motion.from_rotations` -- spatial, samples of the orientation (quaternions or
  rotation matrices) and of r_O(t), interpolated and differentiated exactly in C;
* :meth:`Motion.from_function` -- any Python callable ``f(t) -> (omega, eps, a_O)``
  (numbers about z, or 3-vectors), called from C at every evaluation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _checks, _core


@dataclass(frozen=True)
class MotionState:
    """A frame's motion at a set of instants (arrays over the instants).

    Attributes
    ----------
    t : ndarray, shape (nt,)
        Times [s].
    omega, eps : ndarray, shape (nt,) or (nt, 3)
        Angular velocity [rad/s] and acceleration [rad/s^2]: about z (planar motions),
        or 3-vectors in body axes (spatial motions).
    v_O : ndarray, shape (nt, 2) or (nt, 3)
        Velocity of the origin in the body frame [m/s] (zero for a function motion,
        which does not give it).
    a_O : ndarray, shape (nt, 2) or (nt, 3)
        Acceleration of the origin minus gravity, in the body frame [m/s^2].
    frames : ndarray of kanefem.frames.FRAME_DTYPE, shape (nt,)
        The same as the core sees it (see :mod:`kanefem.frames`).
    """

    t: np.ndarray
    omega: np.ndarray
    eps: np.ndarray
    v_O: np.ndarray
    a_O: np.ndarray
    frames: np.ndarray


class Motion:
    """The rigid motion of a body frame over time, in the plane or in space.

    Make one with :meth:`constant_speed`, :meth:`spin_up`, :meth:`from_samples` (planar),
    :meth:`constant_spin`, :meth:`from_rotations` (spatial) or :meth:`from_function`;
    pass it to :func:`kanefem.simulate`.

    Attributes
    ----------
    kind : str
        ``"constant"``, ``"spinup"``, ``"samples"``, ``"spin"``, ``"rotations"`` or
        ``"function"``.
    t_range : (float, float)
        The times at which the motion is defined [s].
    has_angle : bool
        Whether the frame's orientation is known, which gravity given in the global
        frame needs (all but a function motion).
    spatial : bool
        Whether rates are 3-vectors (gravity then has 3 components, and
        :meth:`evaluate` returns 3-vectors).
    """

    def __init__(self, kind, make, t_range, has_angle, text, spatial=False):
        self.kind = kind
        self._make = make  # gravity (2,) or (3,) -> the core's motion
        self.t_range = t_range
        self.has_angle = has_angle
        self.spatial = spatial
        self._text = text

    def __repr__(self):
        return f"Motion.{self._text}"

    # ------------------------------------------------------------ constructors

    @classmethod
    def constant_speed(cls, omega, theta0=0.0) -> "Motion":
        """Rotation at constant angular velocity about the (fixed) frame origin.

        Parameters
        ----------
        omega : float
            Angular velocity [rad/s].
        theta0 : float
            Angle of the frame at t = 0 [rad] (matters only with gravity).

        Examples
        --------
        >>> m = Motion.constant_speed(15.0)
        >>> float(m.evaluate([0.0, 1.0]).omega[1])
        15.0
        """
        omega = _checks.real("omega", omega)
        theta0 = _checks.angle("theta0", theta0)
        return cls("constant",
                   lambda g: _core.motion_constant(omega=omega, theta0=theta0, gravity=g),
                   (-math.inf, math.inf), True, f"constant_speed({omega!r}, theta0={theta0!r})")

    @classmethod
    def spin_up(cls, omega_s, T_s, theta0=0.0) -> "Motion":
        """A hub spun up from rest about the fixed frame origin (Simo and Vu-Quoc 1986):

            omega(t) = (omega_s / T_s) (t - T_s / (2 pi) sin(2 pi t / T_s))   for t < T_s,
            omega(t) = omega_s                                                 after,

        an angular acceleration (omega_s / T_s)(1 - cos(2 pi t / T_s)) that rises and falls
        smoothly, the angle its integral from ``theta0`` (so gravity may be given); in C,
        so a simulation calls no Python.

        Parameters
        ----------
        omega_s : float
            Final angular velocity [rad/s].
        T_s : float
            Duration of the spin-up [s], > 0.
        theta0 : float
            Angle of the frame at t = 0 [rad].

        Examples
        --------
        >>> s = Motion.spin_up(4.0, 15.0).evaluate([7.5, 15.0, 20.0])
        >>> s.omega.round(12).tolist(), s.eps.round(12).tolist()
        ([2.0, 4.0, 4.0], [0.533333333333, 0.0, 0.0])
        """
        omega_s = _checks.real("omega_s", omega_s)
        T_s = _checks.real("T_s", T_s, positive=True)
        theta0 = _checks.angle("theta0", theta0)
        _core.motion_spinup(omega_s=omega_s, T_s=T_s, theta0=theta0, gravity=np.zeros(2))  # checked now
        return cls("spinup",
                   lambda g: _core.motion_spinup(omega_s=omega_s, T_s=T_s, theta0=theta0, gravity=g),
                   (-math.inf, math.inf), True, f"spin_up({omega_s!r}, {T_s!r}, theta0={theta0!r})")

    @classmethod
    def from_function(cls, f, *, spatial=False) -> "Motion":
        """A motion given by a Python function of time.

        Parameters
        ----------
        f : callable
            ``f(t) -> (omega, eps, a_O)``: angular velocity [rad/s] and angular
            acceleration [rad/s^2] (numbers, about z, or 3-vectors in body axes) and
            the acceleration of the frame origin in the body frame [m/s^2] (2 or 3
            components; subtract gravity, also in the body frame, to include it).
            Called from the C core at every evaluation; an exception it raises stops
            the simulation and propagates.
        spatial : bool
            Whether :meth:`evaluate` reports 3-vectors (the simulation takes either).

        Notes
        -----
        The origin's velocity is not given, so Hamilton's momentum is the one
        relative to the origin, p - Mo v_O (the trajectories are the same).

        Examples
        --------
        >>> m = Motion.from_function(lambda t: (2.0 * t, 2.0, (0.0, 0.0)))
        >>> float(m.evaluate([1.5]).omega[0])
        3.0
        """
        if not callable(f):
            raise TypeError(f"f must be callable, got {f!r}")
        name = getattr(f, "__name__", type(f).__name__)
        return cls("function", lambda g: _core.motion_function(f=f), (-math.inf, math.inf),
                   False, f"from_function({name})", spatial=_checks.flag("spatial", spatial))

    @classmethod
    def from_samples(cls, t, theta, r_O=None) -> "Motion":
        """A motion sampled in time: the frame's angle and origin position.

        The samples are interpolated by not-a-knot cubic splines (as
        ``scipy.interpolate.CubicSpline``), whose exact derivatives give omega,
        eps, the origin's velocity and acceleration; then rotated into the body
        frame.  Interpolation, not smoothing: noisy measurements should be smoothed
        first, since the second derivative amplifies noise.

        Parameters
        ----------
        t : array_like, shape (n,)
            Strictly increasing sample times [s], n >= 4.
        theta : array_like, shape (n,)
            Angle of the frame's x axis from the global x axis [rad] (unwrapped:
            continuous, no jumps of 2 pi).
        r_O : array_like, shape (n, 2), optional
            Position of the frame origin in the global frame [m]; default fixed at 0.

        Examples
        --------
        >>> t = np.linspace(0.0, 1.0, 41)
        >>> m = Motion.from_samples(t, 0.5 * 3.0 * t**2)   # eps = 3 rad/s^2
        >>> s = m.evaluate([0.5])
        >>> round(float(s.omega[0]), 12), round(float(s.eps[0]), 12)
        (1.5, 3.0)
        """
        t = _sample_times(t)
        n = t.shape[0]
        theta = _checks.array("theta", theta, shape=(n,))
        r = np.zeros((n, 2)) if r_O is None else _checks.array("r_O", r_O, shape=(n, 2))
        y = np.column_stack([theta, r])
        coef = _core.spline_fit(t=t, y=y)
        return cls("samples", lambda g: _core.motion_spline(t=t, coef=coef, gravity=g),
                   (float(t[0]), float(t[-1])), True,
                   f"from_samples(<{n} samples on [{t[0]:g}, {t[-1]:g}] s>)")

    @classmethod
    def constant_spin(cls, omega, R0=None) -> "Motion":
        """Rotation at a constant angular velocity about a fixed axis through the
        (fixed) frame origin: R(t) = R0 exp(t [omega]x) (evaluated in C).

        Parameters
        ----------
        omega : array_like, shape (3,)
            Angular velocity in body axes [rad/s] (constant in body and in global axes).
        R0 : array_like, shape (3, 3), optional
            Orientation at t = 0 (global = R0 local); default the identity.  Matters only
            with gravity.

        Examples
        --------
        >>> m = Motion.constant_spin([0.0, 3.0, 4.0])
        >>> m.evaluate([0.0, 1.0]).omega[1].tolist()
        [0.0, 3.0, 4.0]
        >>> s = m.evaluate([math.pi / 5], gravity=(0.0, 0.0, -9.81))   # half a turn
        >>> (np.round(s.a_O[0], 12) + 0.0).tolist()   # -g in body axes, g turned by pi about (0, .6, .8)
        [0.0, 9.4176, 2.7468]
        """
        omega = _checks.array("omega", omega, shape=(3,))
        R0 = np.eye(3) if R0 is None else _rotation_matrices("R0", _checks.array("R0", R0, shape=(3, 3))[None])[0]
        return cls("spin", lambda g: _core.motion_spin(omega=omega, R0=R0, gravity=g),
                   (-math.inf, math.inf), True, f"constant_spin({omega.tolist()!r})", spatial=True)

    @classmethod
    def from_rotations(cls, t, rotations, r_O=None, *, order="wxyz") -> "Motion":
        """A spatial motion sampled in time: the frame's orientation and origin.

        The orientations are turned into unit quaternions of continuous sign; their
        four components and the origin's three coordinates are interpolated by
        not-a-knot cubic splines, and R(t) is the rotation of the normalized
        interpolant ``q(t) / |q(t)|``.  omega and eps are the exact derivatives of that
        rotation in body axes (``omega = 2 vec(q* q') / |q|^2``, eps its derivative),
        evaluated in C; the error of the interpolant is O(h^4) in the orientation,
        O(h^3) in omega and O(h^2) in eps for samples h apart (docs/theory.md section
        4.6).  Interpolation, not smoothing.

        Parameters
        ----------
        t : array_like, shape (n,)
            Strictly increasing sample times [s], n >= 4.
        rotations : array_like, shape (n, 4) or (n, 3, 3)
            Unit quaternions (any sign; normalized here) or rotation matrices (global
            = R local; orthonormal within 1e-6, determinant +1).
        r_O : array_like, shape (n, 3), optional
            Position of the frame origin in the global frame [m]; default fixed at 0.
        order : {"wxyz", "xyzw"}
            Component order of quaternions (``"xyzw"`` is SciPy's ``as_quat()``).

        Examples
        --------
        >>> t = np.linspace(0.0, 1.0, 41)
        >>> half = 0.5 * 2.0 * t                       # 2 rad/s about x
        >>> q = np.column_stack([np.cos(half), np.sin(half), 0 * t, 0 * t])
        >>> s = Motion.from_rotations(t, q).evaluate([0.5])
        >>> np.round(s.omega[0], 6).tolist(), (np.round(s.eps[0], 6) + 0.0).tolist()
        ([2.0, 0.0, 0.0], [0.0, 0.0, 0.0])
        """
        t = _sample_times(t)
        n = t.shape[0]
        rot = _checks.array("rotations", rotations)
        if rot.shape == (n, 3, 3):
            q = _quaternions_of(_rotation_matrices("rotations", rot))
        elif rot.shape == (n, 4):
            _checks.choice("order", order, ("wxyz", "xyzw"))
            q = rot if order == "wxyz" else rot[:, [3, 0, 1, 2]]
            norm = np.linalg.norm(q, axis=1)
            if not np.all(norm > 0):
                raise ValueError(f"rotations: quaternion {int(np.argmin(norm))} is zero")
            q = q / norm[:, None]
        else:
            raise ValueError(f"rotations must have shape ({n}, 4) (quaternions) or ({n}, 3, 3) "
                             f"(rotation matrices), got {rot.shape}")
        # q and -q are the same rotation: choose signs so that neighbours agree
        flips = np.cumprod(np.where(np.sum(q[1:] * q[:-1], axis=1) < 0, -1.0, 1.0))
        q = q * np.concatenate([[1.0], flips])[:, None]
        r = np.zeros((n, 3)) if r_O is None else _checks.array("r_O", r_O, shape=(n, 3))
        coef = _core.spline_fit(t=t, y=np.column_stack([q, r]))
        return cls("rotations", lambda g: _core.motion_rotation(t=t, coef=coef, gravity=g),
                   (float(t[0]), float(t[-1])), True,
                   f"from_rotations(<{n} samples on [{t[0]:g}, {t[-1]:g}] s>)", spatial=True)

    # ------------------------------------------------------------ use

    def _core_motion(self, gravity=None):
        """The core's motion (a capsule the integrators evaluate in C), with gravity
        given in the global frame ((2,) for a planar motion, (3,) for a spatial one)."""
        if gravity is not None and not self.has_angle:
            raise ValueError(
                "gravity needs the frame's orientation, which a function motion does not give: "
                "subtract it from a_O (in the body frame) inside the function instead"
            )
        k = 3 if self.spatial else 2
        g = np.zeros(k) if gravity is None else _checks.array("gravity", gravity, shape=(k,))
        return self._make(g)

    def evaluate(self, t, gravity=None) -> MotionState:
        """The motion at times t, as the simulation sees it.

        Parameters
        ----------
        t : array_like, shape (nt,)
            Times [s], inside ``t_range``.
        gravity : array_like, shape (2,) or (3,), optional
            Gravity in the global frame [m/s^2] (3 components for a spatial motion),
            subtracted from ``a_O``.

        Returns
        -------
        MotionState
        """
        t = np.array(np.atleast_1d(_checks.array("t", t)))  # a copy: the state owns its times
        if t.ndim != 1:
            raise ValueError(f"t must be a 1-D array of times, got shape {t.shape}")
        f = _core.motion_eval(motion=self._core_motion(gravity), t=t)
        for name in f.dtype.names:  # a function's values are the user's: check them here
            bad = ~np.isfinite(f[name]).all(axis=tuple(range(1, f[name].ndim)))  # per instant (none: empty)
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise ValueError(f"the motion's {name} at t = {t[k]!r} is {f[name][k].tolist()}, not finite "
                                 f"(the motion function f returned it, or the motion overflows there)")
        if self.spatial:
            return MotionState(t=t, omega=f["omega"], eps=f["eps"], v_O=f["v"], a_O=f["a"],
                               frames=f)
        # a planar state keeps z rates and x-y origin terms: anything else would be dropped
        for name, field, out in (("omega", "omega", slice(0, 2)), ("eps", "eps", slice(0, 2)),
                                 ("v_O", "v", slice(2, 3)), ("a_O", "a", slice(2, 3))):
            bad = np.any(f[field][:, out] != 0.0, axis=1)
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise ValueError(f"the motion's {name} at t = {float(t[k])!r} is {f[field][k].tolist()}: a planar "
                                 f"motion has no {'rotation about x or y' if out.start == 0 else 'z component'} "
                                 "(make it with spatial=True)")
        return MotionState(t=t, omega=f["omega"][:, 2], eps=f["eps"][:, 2], v_O=f["v"][:, :2],
                           a_O=f["a"][:, :2], frames=f)


def _sample_times(t):
    """Sample times for a cubic spline: 1-D, at least 4, strictly increasing."""
    t = _checks.array("t", t, ndim=1)
    n = t.shape[0]
    if n < 4:
        raise ValueError(f"t must hold at least 4 samples for a cubic spline, got {n}")
    if not np.all(np.diff(t) > 0):
        k = int(np.flatnonzero(np.diff(t) <= 0)[0])
        raise ValueError(f"t must be strictly increasing, got t[{k}] = {t[k]!r} and "
                         f"t[{k + 1}] = {t[k + 1]!r}")
    return t


def _rotation_matrices(name, R):
    """(n, 3, 3) rotation matrices, checked: orthonormal within 1e-6, determinant +1."""
    R = _checks.array(name, R)
    err = np.abs(np.einsum("nki,nkj->nij", R, R) - np.eye(3)).max(axis=(1, 2))
    det = np.linalg.det(R)
    bad = np.flatnonzero((err > 1e-6) | (det < 0))
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"{name}[{k}] is not a rotation matrix (|R^T R - I| = {err[k]:.3g}, "
                         f"det = {det[k]:.6g})")
    return R


def _quaternions_of(R):
    """Unit quaternions (w, x, y, z) of rotation matrices (n, 3, 3) (global = R local),
    by Shepperd's method: from the largest of w^2, x^2, y^2, z^2, so no division by a
    small number."""
    tr = np.trace(R, axis1=1, axis2=2)
    d = np.stack([tr, R[:, 0, 0], R[:, 1, 1], R[:, 2, 2]], axis=1)
    big = np.argmax(d, axis=1)
    q = np.empty((R.shape[0], 4))
    for k in range(4):
        m = big == k
        Rm = R[m]
        s = {0: 1 + tr[m], 1: 1 + 2 * Rm[:, 0, 0] - tr[m], 2: 1 + 2 * Rm[:, 1, 1] - tr[m],
             3: 1 + 2 * Rm[:, 2, 2] - tr[m]}[k]
        r = np.sqrt(s)  # = 2 |q_k|
        w = Rm[:, 2, 1] - Rm[:, 1, 2], Rm[:, 0, 2] - Rm[:, 2, 0], Rm[:, 1, 0] - Rm[:, 0, 1]
        p = Rm[:, 0, 1] + Rm[:, 1, 0], Rm[:, 0, 2] + Rm[:, 2, 0], Rm[:, 1, 2] + Rm[:, 2, 1]
        # 4 q_k q_j for j != k from the skew (w) and symmetric (p) parts
        rows = {0: (s, w[0], w[1], w[2]), 1: (w[0], s, p[0], p[1]), 2: (w[1], p[0], s, p[2]),
                3: (w[2], p[1], p[2], s)}[k]
        q[m] = np.column_stack(rows) / (2 * r)[:, None]
    return q
