"""The frame state: the rigid motion of a body frame at a set of instants.

Every computation on a body (motion terms, eigenvalues, integration) sees its frame's
rigid motion at an instant as one record of :data:`FRAME_DTYPE`, a NumPy structured
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

A planar body (in its frame's x-y plane) turns about z only: omega = (0, 0, w).
The functions here are the one place such arrays are built.

>>> f = planar([0.0, 2.0], eps=[1.0, 1.0], a_O=[[0.0, -9.81], [1.0, 0.0]])
>>> f.dtype == FRAME_DTYPE, f.shape, float(f["omega"][1, 2]), float(f["a"][0, 1])
(True, (2,), 2.0, -9.81)
"""

from __future__ import annotations

import numpy as np

from . import _checks, _core

#: The structured dtype of one frame state (struct kf_frame).
FRAME_DTYPE = _core.frame_dtype


def empty(n) -> np.ndarray:
    """n frame states at rest (all fields zero)."""
    return np.zeros(_checks.integer("n", n, minimum=0), dtype=FRAME_DTYPE)


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
