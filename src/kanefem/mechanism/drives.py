"""What moves a mechanism's coordinates: a constant speed, a torque law, a
prescribed path or a recorded motion (docs/theory.md section 5.6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import _checks
from .._smoothing import SmoothingSpline


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

    law: object = 0.0  # a constant runs in the core (a drive record's force), a callable is called


@dataclass(frozen=True)
class Path:
    """A prescribed coordinate: ``function(t) -> (z, z', z'')``."""

    function: Callable

    def __post_init__(self):
        if not callable(self.function):
            raise TypeError(f"Path.function must be callable, got {self.function!r}")

    @classmethod
    def through(cls, t, z, zd, zdd) -> "Path":
        """The path through samples of a coordinate and its rate and acceleration (a
        planned or recorded trajectory with its derivatives): quintic Hermite pieces
        between the instants, so z, z', z'' are the samples' at every instant and
        continuous between; the core evaluates it without calling back into Python.

        Parameters
        ----------
        t : array_like, shape (n,)
            Sample times [s], strictly increasing, n >= 2.
        z, zd, zdd : array_like, shape (n,)
            The coordinate [rad or m] and its first two derivatives there.
        """
        from scipy.interpolate import BPoly

        from .._smoothing import polynomial_pieces

        t = _checks.array("t", t, ndim=1)
        if t.shape[0] < 2 or not np.all(np.diff(t) > 0):
            raise ValueError(f"t must hold at least 2 strictly increasing times, got {t.shape[0]}")
        cols = [_checks.array(name, v, shape=t.shape) for name, v in (("z", z), ("zd", zd), ("zdd", zdd))]
        piece = BPoly.from_derivatives(t, np.column_stack(cols))
        path = cls(lambda s: (float(piece(s)), float(piece(s, 1)), float(piece(s, 2))))
        object.__setattr__(path, "_pieces", polynomial_pieces(piece))
        return path


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


def core_path(drive):
    """The core's path of a prescribed drive: its polynomial pieces where it has them (a
    Recorded drive's spline, :meth:`Path.through`'s pieces), evaluated in the core; else
    its Python function."""
    from .. import _core

    pieces = drive.spline().pieces() if isinstance(drive, Recorded) else getattr(drive, "_pieces", None)
    if pieces is None:
        return drive.function
    return _core.path_pieces(*pieces)
