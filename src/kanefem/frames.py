"""The frame state: the rigid motion of a body frame at a set of instants.

Every computation on a body (motion terms, eigenvalues, integration) sees its frame's
rigid motion at an instant as one record of :data:`~kanefem.FRAME_DTYPE`, a NumPy structured
dtype laid out exactly as the C core's ``struct kf_frame`` (the extension builds it from
the struct's offsets). All vectors are in body axes (docs/theory.md section 1):

========  =====================================================================
field     meaning
========  =====================================================================
omega     angular velocity [rad/s], (3,)
eps       angular acceleration [rad/s^2], (3,)
v         velocity of the frame origin [m/s], (3,)
a         acceleration of the origin minus gravity, a_O - g [m/s^2], (3,)
vdot      time derivative of v's body-axes components [m/s^2], (3,) (enters only
          Hamilton's momentum; a_O - omega x v_O for a true origin velocity)
========  =====================================================================

A planar body (in its frame's x-y plane) turns about z only: omega = (0, 0, w); a
spatial body (:class:`kanefem.Beam3D`, :class:`kanefem.Bar3D`) takes any rotation.
The functions here are the one place such arrays are built: :func:`planar` for rates
about z, :func:`spatial` for 3-vectors, :func:`from_rates` for either.

>>> f = planar([0.0, 2.0], eps=[1.0, 1.0], a_O=[[0.0, -9.81], [1.0, 0.0]])
>>> f.dtype == FRAME_DTYPE, f.shape, float(f["omega"][1, 2]), float(f["a"][0, 1])
(True, (2,), 2.0, -9.81)
>>> g = spatial([[1.0, 0.0, 2.0]], a_O=[0.0, 0.0, -9.81])
>>> g.shape, g["omega"][0].tolist(), g["a"][0].tolist()
((1,), [1.0, 0.0, 2.0], [0.0, 0.0, -9.81])
"""

from __future__ import annotations

import numpy as np

from . import _checks, _core

#: The structured dtype of one frame state (struct kf_frame).
FRAME_DTYPE = _core.frame_dtype


def empty(n) -> np.ndarray:
    """n frame states at rest (all fields zero)."""
    return np.zeros(_checks.integer("n", n, minimum=0, maximum=_checks.MAX_OUTPUT_VALUES // 15),
                    dtype=FRAME_DTYPE)  # 15 doubles a state


def _instants(name, value, nt):
    """A scalar or (nt,) array as (nt,) floats; nt None means 'take it from value'."""
    a = _checks.array(name, value)
    if a.ndim == 0:
        return np.full(1 if nt is None else nt, float(a))
    if a.ndim != 1 or (nt is not None and a.shape[0] != nt):
        want = "a number or a 1-D array" if nt is None else f"a number or shape ({nt},)"
        raise ValueError(f"{name} must be {want}, got shape {a.shape}")
    return a


def _vectors(name, value, nt, width):
    """A (k,) or (nt, k) array with k <= width components, as (nt, 3), zero-padded."""
    a = _checks.array(name, value)
    if a.ndim == 1:
        a = np.broadcast_to(a, (nt, a.shape[0]))
    if a.ndim != 2 or a.shape[0] != nt or not 1 <= a.shape[1] <= width:
        raise ValueError(f"{name} must have shape ({width},) or ({nt}, {width}), got {np.shape(value)}")
    out = np.zeros((nt, 3))
    out[:, : a.shape[1]] = a
    return out


def planar(omega, eps=0.0, a_O=None, *, v_O=None, vdot_O=None, dim=2) -> np.ndarray:
    """Frame states of a frame turning about its z axis, at nt instants.

    Parameters
    ----------
    omega, eps : float or array_like, shape (nt,)
        Angular velocity [rad/s] and acceleration [rad/s^2] about z.
    a_O : array_like, shape (dim,) or (nt, dim), optional
        Acceleration of the origin minus gravity, body axes [m/s^2].
    v_O, vdot_O : array_like, shape (dim,) or (nt, dim), optional
        Origin velocity [m/s] and the rate of its body-axes components [m/s^2].
    dim : int
        Number of components a_O, v_O, vdot_O have (2 for a planar body).

    Returns
    -------
    ndarray of FRAME_DTYPE, shape (nt,)
    """
    om = _instants("omega", omega, None)
    nt = om.shape[0]
    if np.ndim(omega) == 0 and np.ndim(eps) == 1:
        nt = np.shape(eps)[0]
        om = np.full(nt, om[0])
    f = np.zeros(nt, dtype=FRAME_DTYPE)
    f["omega"][:, 2] = om
    f["eps"][:, 2] = _instants("eps", eps, nt)
    for field, name, value in (("a", "a_O", a_O), ("v", "v_O", v_O), ("vdot", "vdot_O", vdot_O)):
        if value is not None:
            f[field] = _vectors(name, value, nt, dim)
    return f


def _rates3(name, a, nt):
    """A rate as (nt, 3): one instant (nt None): a number (about z) or a (3,) vector; a
    time grid: (nt,) numbers (about z), (nt, 3) vectors, or one number for all."""
    if a.ndim == 0 or (nt is not None and a.ndim == 1 and a.shape[0] == nt):
        out = np.zeros((1 if nt is None else nt, 3))
        out[:, 2] = a
        return out
    if (nt is None and a.shape == (3,)) or (nt is not None and a.shape == (nt, 3)):
        return np.array(a, ndmin=2)
    want = "a number or (3,)" if nt is None else f"({nt},) or ({nt}, 3)"
    raise ValueError(f"{name} must have shape {want}, got {a.shape}")


def spatial(omega, eps=None, a_O=None, v_O=None, vdot_O=None) -> np.ndarray:
    """Frame states of a frame turning in space, at nt instants.

    Parameters
    ----------
    omega : array_like, shape (3,) or (nt, 3)
        Angular velocity in body axes [rad/s].
    eps : array_like, shape (3,) or (nt, 3), optional
        Angular acceleration in body axes [rad/s^2] (the rate of omega's body
        components, which is also the rate of its global ones); default zero.
    a_O : array_like, shape (3,) or (nt, 3), optional
        Acceleration of the origin minus gravity, body axes [m/s^2].
    v_O, vdot_O : array_like, shape (3,) or (nt, 3), optional
        Origin velocity [m/s] and the rate of its body-axes components [m/s^2]
        (Hamilton's momentum only).

    Returns
    -------
    ndarray of FRAME_DTYPE, shape (nt,)
    """
    om = _checks.array("omega", omega)
    if om.ndim not in (1, 2) or om.shape[-1] != 3:
        raise ValueError(f"omega must have shape (3,) or (nt, 3), got {om.shape}")
    nt = 1 if om.ndim == 1 else om.shape[0]
    if eps is not None and om.ndim == 1:  # one omega for the instants of eps
        e = _checks.array("eps", eps)
        nt = e.shape[0] if e.ndim == 2 else nt
    f = np.zeros(nt, dtype=FRAME_DTYPE)
    f["omega"] = _vectors("omega", om, nt, 3)
    for field, name, value in (("eps", "eps", eps), ("a", "a_O", a_O), ("v", "v_O", v_O),
                               ("vdot", "vdot_O", vdot_O)):
        if value is not None:
            f[field] = _vectors(name, value, nt, 3)
    return f


def from_rates(omega, eps=0.0, a_O=None, *, instants=False, dim=2) -> np.ndarray:
    """Frame states from rates given either way: planar numbers about z or spatial
    3-vectors (the form the body methods take).

    Parameters
    ----------
    omega, eps : float, array_like
        One instant (``instants=False``): a number (about z) or a (3,) vector each.
        A time grid (``instants=True``): (nt,) numbers or (nt, 3) vectors each.
    a_O : array_like, optional
        Origin acceleration minus gravity in body axes: (k,) or, on a grid, (nt, k),
        with k = dim components (or 2 or 3 for a spatial body).
    instants : bool
        Whether the rates are a time grid.
    dim : int
        The body's dimension (2: planar, 3: spatial).

    Returns
    -------
    ndarray of FRAME_DTYPE, shape (nt,) (nt = 1 for one instant)

    Examples
    --------
    >>> f = from_rates([0.0, 0.0, 3.0], 1.0, dim=3)
    >>> f["omega"][0].tolist(), f["eps"][0].tolist()
    ([0.0, 0.0, 3.0], [0.0, 0.0, 1.0])
    """
    om = _checks.array("omega", omega)
    ep = _checks.array("eps", eps)
    nt = None
    if _checks.flag("instants", instants):
        if om.ndim not in (1, 2):
            raise ValueError(f"omega must have shape (nt,) or (nt, 3), got {om.shape}")
        nt = om.shape[0]
        if ep.ndim >= 1 and ep.shape[0] != nt:
            raise ValueError(f"omega and eps must have the same length, got {om.shape} and {ep.shape}")
    if a_O is not None:
        a = _checks.array("a_O", a_O)
        widths = (2, 3) if dim == 3 else (dim,)
        if a.shape[:-1] != ((nt,) if instants else ()) or a.shape[-1:] not in [(w,) for w in widths]:
            want = " or ".join(f"({nt}, {w})" if instants else f"({w},)" for w in widths)
            raise ValueError(f"a_O must have shape {want}, got {a.shape}")
    if om.ndim == ep.ndim == (1 if instants else 0) and om.shape == ep.shape:
        # planar rates (about z), as frames.planar makes them
        return planar(om if instants else float(om), ep if instants else float(ep), a_O, dim=3)
    return spatial(_rates3("omega", om, nt), _rates3("eps", ep, nt), a_O)


def given(value, name="frames", *, one=False) -> np.ndarray:
    """A frame array passed in by the caller, checked for its dtype (and, with one,
    for holding a single instant), as a 1-D array."""
    if not isinstance(value, np.ndarray) or value.dtype != FRAME_DTYPE:
        raise TypeError(f"{name} must be an array of kanefem.FRAME_DTYPE (see kanefem.frames), "
                        f"got {type(value).__name__}")
    f = np.atleast_1d(value)
    if f.ndim != 1 or (_checks.flag("one", one) and f.shape[0] != 1):
        raise ValueError(f"{name} must be {'one instant' if one else 'a 1-D array of instants'}, "
                         f"got shape {value.shape}")
    return f
