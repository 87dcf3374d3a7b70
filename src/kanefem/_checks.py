"""Argument checks shared by the package: each raises ValueError (or TypeError for a
wrong type) naming the argument and the value it got.

Numbers are numbers: bools, strings and complex values are refused with a TypeError
rather than converted (``True`` is not a length, ``"210e9"`` is not a modulus, and
the imaginary part of ``1 + 2j`` would be lost), and arrays keep the same rule.
"""

import math
import numbers
import operator
import os
import sys
from collections.abc import Mapping
from pathlib import Path

import numpy as np

#: the array kinds accepted as real numbers: signed and unsigned integers, floats
_REAL_KINDS = "iuf"
#: what NumPy calls each refused kind, for the messages
_KIND_NAMES = {"b": "bool", "c": "complex", "U": "str", "S": "bytes", "O": "object",
               "M": "datetime", "m": "timedelta", "V": "void"}

#: the smallest relative tolerance double precision can meet (SciPy's rule for its
#: ODE solvers: rtol >= 100 machine epsilons)
MIN_RTOL = 100.0 * np.finfo(float).eps


def _short(value, limit=80):
    """repr(value), shortened for a message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 5] + " ...>"


def real(name, value, *, positive=False, nonnegative=False):
    """A finite float; optionally > 0 or >= 0.

    Accepted: Python ints and floats, NumPy integer and float scalars, 0-d integer or
    float arrays.  Refused with a TypeError naming ``name``: bools (Python's and
    NumPy's), strings and bytes, complex numbers, arrays of other shapes, None.
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number, got the bool {value!r}")
    if isinstance(value, np.ndarray):
        if value.ndim != 0 or value.dtype.kind not in _REAL_KINDS:
            raise TypeError(f"{name} must be a real number, got an array of shape {value.shape} "
                            f"and dtype {value.dtype}")
        value = value[()]
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number, got {_short(value)}")
    try:
        value = float(value)
    except OverflowError:  # an int beyond the doubles
        raise ValueError(f"{name} must be finite, got {_short(value)} (beyond the largest "
                         "double)") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if positive and not value > 0.0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    if nonnegative and not value >= 0.0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return value


#: the largest initial angle [rad]: a double resolves an angle a to |a| 2.2e-16, 2.2e-10
#: rad at the limit; at 1e300 a turn is below the resolution and the angle never advances
MAX_ANGLE = 1e6


def angle(name, value):
    """An angle [rad] that a double resolves well enough to turn: |value| <= MAX_ANGLE."""
    value = real(name, value)
    if not abs(value) <= MAX_ANGLE:
        raise ValueError(f"{name} = {value!r} rad: a double resolves that angle only to "
                         f"{abs(value) * np.finfo(float).eps:.3g} rad, so the motion could not advance; "
                         f"give it within +-{MAX_ANGLE:g} rad (e.g. modulo 2 pi)")
    return value


def integer(name, value, *, minimum=None, maximum=None):
    """An int within [minimum, maximum].

    Accepted: Python ints, NumPy integer scalars and 0-d integer arrays.  Refused with
    a TypeError naming ``name``: bools, floats (even integral ones), strings, None.
    """
    if isinstance(value, (bool, np.bool_)) or (
        isinstance(value, np.ndarray) and value.dtype.kind not in "iu"
    ):
        raise TypeError(f"{name} must be an integer, got {_short(value)}")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {_short(value)}") from None
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} = {value} must be >= {minimum}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} = {value} must be <= {maximum}")
    return value


def index(name, value, n, what):
    """An index into n ``what`` (negative: from the end), as 0 <= k < n."""
    k = integer(name, value, maximum=sys.maxsize)
    if not -n <= k < n:
        raise ValueError(f"{name} {k} is out of range for {n} {what}")
    return k % n


def array(name, value, *, ndim=None, shape=None, finite=True):
    """A float64 array, checked for kind, dimensions, shape and finiteness.

    Integer and float arrays (and array_likes of them) are converted to float64;
    bool, complex, string, object and other arrays are refused with a TypeError naming
    ``name`` (no silent cast, no ComplexWarning); ragged nested sequences with a
    ValueError.
    """
    if value is None:
        raise TypeError(f"{name} must be an array of real numbers, got None")
    try:
        a = np.asarray(value)
    except (TypeError, ValueError, OverflowError) as exc:  # ragged, or not array_like
        raise ValueError(f"{name} must be an array of real numbers, got {_short(value)} "
                         f"({exc})") from None
    kind = a.dtype.kind
    if kind not in _REAL_KINDS:
        what = _KIND_NAMES.get(kind, str(a.dtype))
        raise TypeError(f"{name} must be an array of real numbers, got {what} values "
                        f"{_short(value)}")
    a = a.astype(float, copy=False)
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


def tolerance(name, value):
    """A relative error tolerance that double precision can meet: >= 100 machine
    epsilons (SciPy's rule for its ODE solvers), finite."""
    value = real(name, value, positive=True)
    if value < MIN_RTOL:
        raise ValueError(f"{name} = {value!r} is below what double precision can meet (100 "
                         f"machine epsilons, {MIN_RTOL:.3g})")
    return value


def sequence(name, value):
    """A finite sequence of items (not a string) as a list, else a TypeError naming it."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a sequence, got {_short(value)}")
    return list(value)


def path(name, value):
    """A file path (str or os.PathLike, not empty) as a Path."""
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a file path (str or os.PathLike), got {_short(value)}")
    if str(value) == "":
        raise ValueError(f"{name} must not be empty")
    return Path(value)


def choice(name, value, options):
    """One of the options (strings): anything else is refused by name."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} = {_short(value)} is not one of {', '.join(map(repr, options))}")
    return value


def flag(name, value):
    """A bool (Python's or NumPy's); numbers, strings and None are refused: ``"no"`` is
    not False."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {_short(value)}")
    return bool(value)


def mapping(name, value, what="a dict"):
    """A mapping, as a new dict; anything else is refused by name, with what is expected
    (``dict("crank")`` would fail with "dictionary update sequence element #0 has
    length 1")."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be {what}, got {_short(value)}")
    return dict(value)


def callable_(name, value):
    """A callable, else a TypeError naming the argument."""
    if not callable(value):
        raise TypeError(f"{name} must be callable, got {_short(value)}")
    return value


#: the most points one sweep runs (each a study of milliseconds to minutes); a grid
#: is counted from its factors' sizes before any point is built
MAX_POINTS = 100_000


def time_grid(duration, points, names="duration"):
    """The output times linspace(0, duration, points), refused when a duration so short
    that it is subnormal makes neighbouring times coincide (they must increase)."""
    tt = np.linspace(0.0, duration, points)
    if np.any(np.diff(tt) <= 0):
        raise ValueError(f"{names}: duration = {duration!r} s is too short for points = {points} distinct "
                         "output times")
    return tt


def grid_size(names, sizes):
    """The number of points of a full-factorial grid of factors with these sizes,
    refused above :data:`MAX_POINTS` before the product is built."""
    n = math.prod(sizes)
    if n > MAX_POINTS:
        factors = " x ".join(f"{name} ({k})" for name, k in zip(names, sizes))
        raise ValueError(f"the grid {factors} has {n:.4g} points, more than the limit of "
                         f"{MAX_POINTS} (kanefem._checks.MAX_POINTS): sweep fewer values")
    return n


#: the largest result one call allocates, in doubles (2 GiB); a run asking for more
#: is refused before it starts (ask for fewer output instants)
MAX_OUTPUT_VALUES = 2**28


def output_size(names, n_values, what):
    """Refuse a result of ``n_values`` doubles (a float: it may be inf or nan, computed
    from the arguments ``names``) above :data:`MAX_OUTPUT_VALUES`, before allocating it."""
    if not n_values <= MAX_OUTPUT_VALUES:
        raise ValueError(f"{names} ask for {what} of {n_values:.4g} values, more than the "
                         f"limit of {MAX_OUTPUT_VALUES} doubles (2 GiB): ask for fewer instants")
    return int(n_values)
