"""Rigid motions of a body frame over time, for :func:`kanefem.simulate`.

A planar frame turns about its z axis by the angle theta(t) and its origin O moves
in the plane.  The body's equations need, at every instant, the angular velocity
omega, the angular acceleration eps and the origin's acceleration a_O in the body
frame (SPEC.md section 1); Hamilton's momentum also needs the origin's velocity.
Three ways to give them:

* :meth:`Motion.constant_speed` -- omega constant, origin at rest (evaluated in C);
* :meth:`Motion.from_samples` -- theta(t) and r_O(t) sampled in time, interpolated
  by not-a-knot cubic splines and differentiated exactly (fitted and evaluated in
  C, so a simulation calls no Python);
* :meth:`Motion.from_function` -- any Python callable ``f(t) -> (omega, eps, a_O)``,
  called from C at every evaluation.
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
    omega, eps : ndarray, shape (nt,)
        Angular velocity [rad/s] and acceleration [rad/s^2] about z.
    v_O : ndarray, shape (nt, 2)
        Velocity of the origin in the body frame [m/s] (zero for a function motion,
        which does not give it).
    a_O : ndarray, shape (nt, 2)
        Acceleration of the origin minus gravity, in the body frame [m/s^2].
    """

    t: np.ndarray
    omega: np.ndarray
    eps: np.ndarray
    v_O: np.ndarray
    a_O: np.ndarray


class Motion:
    """The rigid motion of a body frame in the plane, over time.

    Make one with :meth:`constant_speed`, :meth:`from_samples` or
    :meth:`from_function`; pass it to :func:`kanefem.simulate`.

    Attributes
    ----------
    kind : str
        ``"constant"``, ``"samples"`` or ``"function"``.
    t_range : (float, float)
        The times at which the motion is defined [s].
    has_angle : bool
        Whether the frame's angle is known, which gravity given in the global
        frame needs (constant speed and samples: yes; a function: no).
    """

    def __init__(self, kind, spec, t_range, has_angle, text):
        self.kind = kind
        self._spec = spec
        self.t_range = t_range
        self.has_angle = has_angle
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
        theta0 = _checks.real("theta0", theta0)
        return cls("constant", ("constant", omega, theta0), (-math.inf, math.inf), True,
                   f"constant_speed({omega!r}, theta0={theta0!r})")

    @classmethod
    def from_function(cls, f) -> "Motion":
        """A motion given by a Python function of time.

        Parameters
        ----------
        f : callable
            ``f(t) -> (omega, eps, a_O)``: angular velocity [rad/s], angular
            acceleration [rad/s^2] and the acceleration of the frame origin in the body
            frame [m/s^2] (2 components; subtract gravity, also in the body frame, to
            include it).  Called from the C core at every evaluation; an exception
            it raises stops the simulation and propagates.

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
        return cls("function", ("function", f), (-math.inf, math.inf), False,
                   f"from_function({name})")

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
        t = _checks.array("t", t, ndim=1)
        n = t.shape[0]
        if n < 4:
            raise ValueError(f"t must hold at least 4 samples for a cubic spline, got {n}")
        if not np.all(np.diff(t) > 0):
            k = int(np.flatnonzero(np.diff(t) <= 0)[0])
            raise ValueError(f"t must be strictly increasing, got t[{k}] = {t[k]!r} and "
                             f"t[{k + 1}] = {t[k + 1]!r}")
        theta = _checks.array("theta", theta, shape=(n,))
        r = np.zeros((n, 2)) if r_O is None else _checks.array("r_O", r_O, shape=(n, 2))
        y = np.column_stack([theta, r])
        coef = _core.spline_fit(t, y)
        return cls("samples", ("spline", t, coef), (float(t[0]), float(t[-1])), True,
                   f"from_samples(<{n} samples on [{t[0]:g}, {t[-1]:g}] s>)")

    # ------------------------------------------------------------ use

    def _core_spec(self, gravity=None):
        """The core's description of this motion, with gravity (global frame)."""
        if self.kind == "function":
            if gravity is not None:
                raise ValueError(
                    "gravity needs the frame's angle, which a function motion does not give: "
                    "subtract it from a_O (in the body frame) inside the function instead"
                )
            return self._spec
        g = (0.0, 0.0) if gravity is None else tuple(_checks.array("gravity", gravity, shape=(2,)))
        return self._spec + g

    def evaluate(self, t, gravity=None) -> MotionState:
        """The motion at times t, as the simulation sees it.

        Parameters
        ----------
        t : array_like, shape (nt,)
            Times [s], inside :attr:`t_range`.
        gravity : array_like, shape (2,), optional
            Gravity in the global frame [m/s^2], subtracted from ``a_O``.

        Returns
        -------
        MotionState
        """
        t = np.array(np.atleast_1d(_checks.array("t", t)))  # a copy: the state owns its times
        if t.ndim != 1:
            raise ValueError(f"t must be a 1-D array of times, got shape {t.shape}")
        rows = _core.motion_eval(self._core_spec(gravity), t, 2)
        return MotionState(t=t, omega=rows[:, 2], eps=rows[:, 5], v_O=rows[:, 6:8], a_O=rows[:, 9:11])
