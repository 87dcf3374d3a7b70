"""Argument checks shared by the package: each raises ValueError (or TypeError for a
wrong type) naming the argument and the value it got."""

import math
import numbers

import numpy as np


def real(name, value, *, positive=False, nonnegative=False):
    """A finite float; optionally > 0 or >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        try:
            value = float(value)  # 0-d arrays and the like
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a real number, got {value!r}") from None
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if positive and not value > 0.0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    if nonnegative and not value >= 0.0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return value


def integer(name, value, *, minimum=None, maximum=None):
    """An int (bools and non-integral floats rejected) within [minimum, maximum]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} = {value} must be >= {minimum}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} = {value} must be <= {maximum}")
    return value


def array(name, value, *, ndim=None, shape=None, finite=True):
    """A float64 array, checked for dimensions, shape and finiteness."""
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of real numbers, got {value!r}") from None
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {a.shape}")
    if shape is not None:
        for k, (want, got) in enumerate(zip(shape, a.shape)):
            if want is not None and want != got:
                raise ValueError(f"{name} must have shape {tuple(shape)}, got {a.shape}")
        if len(shape) != a.ndim:
            raise ValueError(f"{name} must have shape {tuple(shape)}, got {a.shape}")
    if finite and not np.all(np.isfinite(a)):
        bad = np.flatnonzero(~np.isfinite(a.ravel()))[0]
        raise ValueError(f"{name} must be finite, got {a.ravel()[bad]!r} at flat index {bad}")
    return a


def choice(name, value, options):
    if value not in options:
        raise ValueError(f"{name} = {value!r} is not one of {', '.join(map(repr, options))}")
    return value
