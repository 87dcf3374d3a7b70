"""The typed boundary records: what a mechanism's joints, springs and independent
coordinates are when they cross into the C core.

Each record type is the NumPy image of one C struct of ``csrc/kf_mechanism.h``, its
fields, types and offsets taken from the struct by the extension itself (as
:data:`~kanefem.FRAME_DTYPE` is), so the Python and C sides cannot disagree on a
column's position or type; integers (kinds, body and joint indices) travel as C
``int``, not as doubles:

=================  =============  ======================================================
dtype              C struct       fields
=================  =============  ======================================================
``JOINT_DTYPE``    ``kf_joint``   kind (int: 0 revolute, 1 prismatic, 2 weld),
                                  body (2 int, -1 the ground), p0, p1 (2 each, each
                                  body's axes from its reference point [m]), axis (2,
                                  prismatic: the sliding direction in body[0]'s axes),
                                  angle [rad], and the force law's k, s0, c, F_r, v_F
``SPRING_DTYPE``   ``kf_spring``  body (2 int), p0, p1 (2 each [m]), k, L0, c
``COORD_DTYPE``    ``kf_coord``   kind (int: 0 x, 1 y, 2 angle, 3 joint), index (int: the
                                  body or joint), name (bytes, NUL-padded)
``DRIVE_DTYPE``    ``kf_mech_     mode (int: 0 free, 1 constant speed, 2 prescribed
                   drive``        path), speed [rad/s or m/s] (mode 1), force (mode 0:
                                  a constant generalized force [N m or N])
``LINK_DTYPE``     ``kf_mech_     body (int: the mechanism's body carrying the
                   link``         elements), rayleigh (2: alpha, beta of the elastic
                                  DOFs' damping), geometric (int: 1 adds K_G, 0 not)
``AXES_DTYPE``     ``kf_mech_     body (int, -1 the ground), o (2: origin in the body's
                   axes``         axes [m]), phi (angle from its x axis [rad]): axes
                                  whose frame the kinematics reports (elastic links')
=================  =============  ======================================================

The spatial mechanisms' records (``csrc/kf_spatial.h``), the same way:

=================  ===============  ====================================================
dtype              C struct         fields
=================  ===============  ====================================================
``SBODY_DTYPE``    ``kf_sbody``     mass, inertia (3 x 3 about the mass centre, body
                                    axes), r (3: the drawing's mass centre), quat (4: the
                                    drawing's orientation, w x y z)
``SJOINT_DTYPE``   ``kf_sjoint``    kind (int: 0 revolute, 1 prismatic, 2 cylindrical,
                                    3 spherical, 4 universal, 5 planar, 6 fixed), body
                                    (2 int), p0, p1 (3 each), f0, f1 (3 x 3: the joint
                                    frame's axes as columns, in each body's axes),
                                    offset (3), and per coordinate k, s0, c, F_r, v_F
                                    (3 each), name (bytes)
``SSPRING_DTYPE``  ``kf_sspring``   body (2 int), p0, p1 (3 each [m]), k, L0, c
``SCOORD_DTYPE``   ``kf_scoord``    kind (int: 0 a body's component, 1 a joint's),
                                    index (int), component (int: body 0..5 = x, y, z,
                                    a, b, c; a joint's in its kind's order), name
``SAXES_DTYPE``    ``kf_smech_      body (int), o (3: origin in the body's axes from its
                   axes``           mass centre), phi (3 x 3: the axes in the body's)
=================  ===============  ====================================================

A drive's or link's C struct also holds pointers (a drive's path or force law, a
link's elements and reference conditions): they are not fields of the record (its
bytes there are unnamed) and travel beside the records, a callable or None per
drive, a body and a mask per link, for the binding to set.

This module is the one place that makes them (the mechanism model resolves names
and drawing geometry; these functions only lay the values out); the core validates
every field (``kf_mech_create``, ``kf_mech_check_drives``, ``kf_flexmech_create``:
kinds, indices, finiteness, signs; a bad one named as ``drives[0].mode``) and the
binding accepts no other dtype.

>>> import numpy as np
>>> from kanefem import _records
>>> j = _records.joints([dict(kind="revolute", body=(-1, 0), p1=(-0.5, 0.0))])
>>> j.dtype == _records.JOINT_DTYPE, int(j["body"][0, 1]), float(j["p1"][0, 0])
(True, 0, -0.5)
>>> _records.coords([dict(kind="angle", index=0, name="alpha")])["name"][0]
np.bytes_(b'alpha')
>>> d = _records.drives([dict(mode="speed", speed=15.0), dict(mode="free", force=2.0)])
>>> d["mode"].tolist(), d["speed"].tolist(), d["force"].tolist()
([1, 0], [15.0, 0.0], [0.0, 2.0])
"""

import numpy as np

from . import _core

__all__ = ["JOINT_DTYPE", "SPRING_DTYPE", "COORD_DTYPE", "DRIVE_DTYPE", "LINK_DTYPE", "AXES_DTYPE",
           "SBODY_DTYPE", "SJOINT_DTYPE", "SSPRING_DTYPE", "SCOORD_DTYPE", "SAXES_DTYPE",
           "JOINT_KINDS", "COORD_KINDS", "DRIVE_MODES", "SJOINT_KINDS", "SCOORD_KINDS", "joints",
           "springs", "coords", "drives", "links", "axes", "sbodies", "sjoints", "ssprings",
           "scoords", "saxes"]

#: kf_joint's record (csrc/kf_mechanism.h)
JOINT_DTYPE = _core.joint_dtype
#: kf_spring's record
SPRING_DTYPE = _core.spring_dtype
#: kf_coord's record
COORD_DTYPE = _core.coord_dtype
#: kf_mech_drive's record (its plain fields)
DRIVE_DTYPE = _core.drive_dtype
#: kf_mech_link's record (its plain fields)
LINK_DTYPE = _core.link_dtype
#: kf_mech_axes' record
AXES_DTYPE = _core.axes_dtype
#: kf_sbody's record (csrc/kf_spatial.h)
SBODY_DTYPE = _core.sbody_dtype
#: kf_sjoint's record
SJOINT_DTYPE = _core.sjoint_dtype
#: kf_sspring's record
SSPRING_DTYPE = _core.sspring_dtype
#: kf_scoord's record
SCOORD_DTYPE = _core.scoord_dtype
#: kf_smech_axes' record
SAXES_DTYPE = _core.saxes_dtype
#: joint kinds by name (enum kf_joint_kind)
JOINT_KINDS = {"revolute": 0, "prismatic": 1, "weld": 2}
#: independent-coordinate kinds by name (enum kf_coord_kind)
COORD_KINDS = {"x": 0, "y": 1, "angle": 2, "joint": 3}
#: drive modes by name (enum kf_drive_mode)
DRIVE_MODES = {"free": 0, "speed": 1, "path": 2}
#: spatial joint kinds by name (enum kf_sjoint_kind)
SJOINT_KINDS = {"revolute": 0, "prismatic": 1, "cylindrical": 2, "spherical": 3, "universal": 4,
                "planar": 5, "fixed": 6}
#: spatial coordinate kinds by name (enum kf_scoord_kind)
SCOORD_KINDS = {"body": 0, "joint": 1}


def _records(dtype, items, kinds=None, kind="kind"):
    """A record array of dtype from dicts of field values (missing fields zero); the
    field ``kind`` given by name is translated through ``kinds``."""
    items = list(items)
    out = np.zeros(len(items), dtype)
    for i, item in enumerate(items):
        for field, value in item.items():
            if field not in dtype.names:
                raise KeyError(f"{field!r} is not a field of {dtype.names}")
            if field == kind and isinstance(value, str):
                value = kinds[value]
            out[field][i] = value
    return out


def joints(items) -> np.ndarray:
    """JOINT_DTYPE records from dicts with the fields' values (kind by name or number)."""
    return _records(JOINT_DTYPE, items, JOINT_KINDS)


def springs(items) -> np.ndarray:
    """SPRING_DTYPE records from dicts with the fields' values."""
    return _records(SPRING_DTYPE, items)


def _encoded(items):
    """The items with a str name encoded UTF-8 (the core refuses one that does not fit
    with its NUL)."""
    return [dict(it, name=it["name"].encode()) if isinstance(it.get("name"), str) else it
            for it in items]


def coords(items) -> np.ndarray:
    """COORD_DTYPE records from dicts (kind by name or number; name a str)."""
    return _records(COORD_DTYPE, _encoded(items), COORD_KINDS)


def drives(items) -> np.ndarray:
    """DRIVE_DTYPE records from dicts with the fields' values (mode by name or number)."""
    return _records(DRIVE_DTYPE, items, DRIVE_MODES, "mode")


def links(items) -> np.ndarray:
    """LINK_DTYPE records from dicts with the fields' values (geometric a bool or 0/1)."""
    return _records(LINK_DTYPE, items)


def axes(items) -> np.ndarray:
    """AXES_DTYPE records from dicts with the fields' values."""
    return _records(AXES_DTYPE, items)


def sbodies(items) -> np.ndarray:
    """SBODY_DTYPE records from dicts with the fields' values."""
    return _records(SBODY_DTYPE, items)


def sjoints(items) -> np.ndarray:
    """SJOINT_DTYPE records from dicts (kind by name or number; name a str)."""
    return _records(SJOINT_DTYPE, _encoded(items), SJOINT_KINDS)


def ssprings(items) -> np.ndarray:
    """SSPRING_DTYPE records from dicts with the fields' values."""
    return _records(SSPRING_DTYPE, items)


def scoords(items) -> np.ndarray:
    """SCOORD_DTYPE records from dicts (kind by name or number; name a str)."""
    return _records(SCOORD_DTYPE, _encoded(items), SCOORD_KINDS)


def saxes(items) -> np.ndarray:
    """SAXES_DTYPE records from dicts with the fields' values."""
    return _records(SAXES_DTYPE, items)
