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
