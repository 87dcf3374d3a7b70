"""A mechanism as TOML tables and back (from_toml / from_dict / to_dict / to_toml),
and the run a file describes (file_run)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path as _Path
from typing import TYPE_CHECKING

import numpy as np

from .. import _checks
from .._io import read_toml, write_toml
from ..bodies import AxialBar, PlanarBeam
from .drives import ConstantSpeed, Torque
from .parts import Coordinate, ElasticLink, Prismatic, Revolute, RigidBody, Spring, Weld, _point

if TYPE_CHECKING:
    from .model import Mechanism


class MechanismFiles:
    """The TOML description of a :class:`~kanefem.mechanism.Mechanism` (its tables; the
    command line adds its own ``[run]`` table)."""

    @classmethod
    def from_toml(cls, path) -> "Mechanism":
        """Read a mechanism from a TOML file (see :meth:`to_toml`); the files its
        ``[[link]]`` tables name (a reduced body's NPZ, a mesh) are read from the file's
        folder (relative paths inside it)."""
        path = _checks.path("path", path)
        data = read_toml(path)
        try:
            return cls.from_dict(data, base=path.parent)
        except (ValueError, TypeError, KeyError) as exc:
            raise type(exc)(f"{path}: {exc}") from None

    @classmethod
    def from_dict(cls, data, *, base=None) -> "Mechanism":
        """A mechanism from the tables of a TOML file (:meth:`to_toml`).

        ``base``: the folder the files of reduced links are named from (relative paths
        that must stay inside it, ``kanefem._io.referenced``); default the current
        folder, where absolute paths are taken as they are (a definition made in code)."""
        known = {"mechanism", "body", "link", "joint", "spring", "coordinate", "run", "sweep"}
        if not isinstance(data, Mapping):
            raise TypeError(f"data must be a dict of tables, got {_checks._short(data)}")
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown table(s) {', '.join(map(repr, unknown))} (known: {', '.join(sorted(known))})")
        for key in known - {"mechanism", "run", "sweep"}:
            if not isinstance(data.get(key, []), list):
                raise TypeError(f"[[{key}]] must be an array of tables, got {_checks._short(data[key])}")
        if not isinstance(data.get("mechanism", {}), Mapping):
            raise TypeError(f"[mechanism] must be a table, got {_checks._short(data['mechanism'])}")
        head = dict(data.get("mechanism", {}))
        name = head.pop("name", "mechanism")
        space = head.pop("space", "2d")
        _checks.choice("[mechanism] space", space, ("2d", "3d"))
        gravity = head.pop("gravity", (0.0, -9.81) if space == "2d" else (0.0, 0.0, -9.81))
        redundant = head.pop("redundant", "error")
        if head:
            raise ValueError(f"[mechanism] has no key(s) {', '.join(map(repr, head))} (it has name, space, "
                             "gravity, redundant)")
        take = _take
        if space == "3d":
            bodies, joints, springs = _spatial_parts(data)
            coords = [Coordinate(**{k: t[k] for k in ("name", "body", "component", "joint") if k in t})
                      for t in (take(t, None, _COORDINATE_KEYS, "coordinate") for t in data.get("coordinate", []))]
            mech = cls(bodies, joints, coords, springs, gravity=gravity, name=name, redundant=redundant)
            mech.coordinate_drives = cls._drives_of(data.get("coordinate", []))
            return mech

        bodies = []
        for t in data.get("body", []):
            t = take(t, RigidBody, ("name", "mass", "inertia", "centre", "angle"), "body")
            bodies.append(RigidBody(**t))
        for t in data.get("link", []):
            t = take(t, ElasticLink, ("name", "kind", "length", "elements", "E", "A", "I", "rho", "start",
                                      "angle", "end", "supports", "damping", "geometric_stiffness", "body",
                                      "mesh", "nu", "thickness", "plane_strain", "interface", "modes",
                                      "cutoff_hz"), "link")
            if "body" in t or "mesh" in t:
                bodies.append(_reduced_link(t, base))
                continue
            kind = t.pop("kind", "beam")
            _checks.choice(f"link {t.get('name')!r}: kind", kind, ("beam", "bar"))
            start = t.pop("start", (0.0, 0.0))
            if "end" in t:
                end = _point("end", t.pop("end"))
                if "angle" in t or "length" in t:
                    raise ValueError(f"link {t.get('name')!r}: give end, or angle and length, not both")
                t["angle"] = math.atan2(end[1] - start[1], end[0] - start[0])
                t["length"] = math.hypot(end[0] - start[0], end[1] - start[1])
            need = ("length", "E", "A", "rho") + (("I",) if kind == "beam" else ())
            missing = [k for k in need if k not in t]
            if missing:
                raise ValueError(f"[[link]] {t.get('name', '?')!r}: missing key(s) {', '.join(map(repr, missing))} "
                                 f"(a {kind} link needs {', '.join(need)})")
            sec = dict(E=t.pop("E"), A=t.pop("A"), rho=t.pop("rho"))
            length = t.pop("length")
            n = _checks.integer(f"link {t.get('name')!r}: elements", t.pop("elements", 10), minimum=1,
                                maximum=PlanarBeam.MAX_ELEMENTS)
            body = PlanarBeam(length, n, I=t.pop("I"), **sec) if kind == "beam" else AxialBar(length, n, **sec)
            t.pop("I", None)
            bodies.append(ElasticLink(body=body, start=start, **t))
        kinds = {"revolute": Revolute, "prismatic": Prismatic, "weld": Weld}
        joints = []
        for t in data.get("joint", []):
            t = take(t, None, ("name", "kind", "bodies", "at", "axis", "k", "s0", "damping", "friction", "v_F"), "joint")
            kind = t.pop("kind", "revolute")
            _checks.choice(f"joint {t.get('name')!r}: kind", kind, tuple(kinds))
            joints.append(kinds[kind](**t))
        springs = [Spring(**take(t, Spring, ("name", "bodies", "at", "k", "length", "damping"), "spring"))
                   for t in data.get("spring", [])]
        coords = []
        for t in data.get("coordinate", []):
            t = take(t, Coordinate, _COORDINATE_KEYS, "coordinate")
            coords.append(Coordinate(**{k: t[k] for k in ("name", "body", "component", "joint") if k in t}))
        mech = cls(bodies, joints, coords, springs, gravity=gravity, name=name, redundant=redundant)
        mech.coordinate_drives = cls._drives_of(data.get("coordinate", []))
        return mech

    @staticmethod
    def _drives_of(tables):
        """The drives and initial values a TOML file gives its coordinates."""
        out = {}
        for t in tables:
            drive = t.get("drive", "free")
            _checks.choice(f"coordinate {t['name']!r}: drive", drive, ("free", "constant-speed", "torque"))
            entry = {k: None if t.get(k) is None else _checks.real(f"coordinate {t['name']!r}: {k}", t[k])
                     for k in ("initial", "rate")}
            if drive == "constant-speed":
                if "speed" not in t:
                    raise ValueError(f"coordinate {t['name']!r}: a constant-speed drive needs its speed")
                entry["drive"] = ConstantSpeed(t["speed"])
            elif drive == "torque":
                entry["drive"] = Torque(_checks.real("torque", t.get("torque", 0.0)))
            out[t["name"]] = entry
        return out

    def _to_record(self):
        """The definition as a JSON string (how a result's to_dict() stores its
        mechanism), with the bodies' order (results index bodies by it); None if it
        cannot be written (:meth:`to_dict` refuses it)."""
        import json

        try:
            return json.dumps({"definition": self.to_dict(), "bodies": [b.name for b in self.bodies]},
                              default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o))
        except (ValueError, TypeError):
            return None

    @classmethod
    def _from_record(cls, text):
        """The mechanism of :meth:`_to_record`'s string (its bodies in their order)."""
        import json

        try:
            rec = json.loads(text)
        except ValueError as exc:  # JSONDecodeError: a damaged or foreign record
            raise ValueError(f"mechanism = {text[:80]!r}: not a stored mechanism (not JSON: {exc})") from None
        if not (isinstance(rec, dict) and isinstance(rec.get("definition"), dict)):
            raise ValueError(f"mechanism = {text[:80]!r}: not a stored mechanism (a JSON object with its "
                             "'definition' table)")
        mech = cls.from_dict(rec["definition"])
        order = rec.get("bodies")
        if order and [b.name for b in mech.bodies] != order:
            drives = mech.coordinate_drives
            mech = cls([mech.bodies[mech._body_index(n)] for n in order], mech.joints, mech.coordinates,
                       mech.springs, gravity=mech.gravity, name=mech.name, redundant=mech.redundant)
            mech.coordinate_drives = drives
        return mech

    def to_dict(self, drives=None, *, folder=None, stem="mechanism") -> dict:
        """The tables of :meth:`to_toml`.

        A reduced link's body is a file: with ``folder`` it is saved there as
        ``<stem>_<link>.npz`` (:meth:`~kanefem.ReducedBody.save`) and named relatively;
        without, the file it was read from is named (absolutely), and a reduced body never
        saved is refused."""
        if self.space == 3:
            out = {"mechanism": {"name": self.name, "space": "3d", "gravity": list(self.gravity),
                                 "redundant": self.redundant}}
            out.update(_spatial_tables(self))
            out["coordinate"] = self._coordinate_tables(drives)
            return out
        out = {"mechanism": {"name": self.name, "gravity": list(self.gravity)}}
        rigid = [b for b in self.bodies if isinstance(b, RigidBody)]
        if rigid:
            out["body"] = [{"name": b.name, "mass": b.mass, "inertia": b.inertia, "centre": list(b.centre),
                            "angle": b.angle} for b in rigid]
        if self.links:
            out["link"] = []
            used = set()
            for L in self.links:
                b = L.body
                if not L._is_line():
                    out["link"].append(_reduced_link_table(L, folder, stem, used))
                    continue
                if b.origin != 0.0:
                    raise ValueError(f"link {L.name!r}: elements from origin {b.origin} cannot be written (0 only)")
                t = {"name": L.name, "kind": "beam" if isinstance(b, PlanarBeam) else "bar", "length": b.length,
                     "elements": b.n_elements, "E": b.E, "A": b.A}
                if isinstance(b, PlanarBeam):
                    t["I"] = b.I
                t.update(rho=b.rho, start=list(L.start), angle=L.angle)
                if not isinstance(L.supports, str):
                    raise ValueError(f"link {L.name!r}: only preset supports can be written")
                t.update(supports=L.supports, damping=list(L.damping), geometric_stiffness=L.geometric_stiffness)
                out["link"].append(t)
        out["joint"] = []
        for J in self.joints:
            t = {"name": J.name, "kind": type(J).__name__.lower(), "bodies": list(J.bodies), "at": list(J.at)}
            if isinstance(J, Prismatic):
                t["axis"] = list(J.axis)
            if not isinstance(J, Weld):
                for f in ("k", "damping", "friction"):
                    if getattr(J, f):
                        t[f] = getattr(J, f)
                if J.s0 is not None:
                    t["s0"] = J.s0
                if J.friction:
                    t["v_F"] = J.v_F
            out["joint"].append(t)
        if self.springs:
            out["spring"] = [{"name": S.name, "bodies": list(S.bodies), "at": [list(S.at[0]), list(S.at[1])],
                              "k": S.k, **({} if S.length is None else {"length": S.length}),
                              "damping": S.damping} for S in self.springs]
        out["coordinate"] = self._coordinate_tables(drives)
        return out

    def _coordinate_tables(self, drives):
        """The [[coordinate]] tables: each coordinate with its drive and initial values."""
        drives = self.coordinate_drives if drives is None else drives
        if not isinstance(drives, Mapping) or not all(isinstance(e, Mapping) for e in drives.values()):
            raise TypeError(f"drives must map coordinate names to dicts ({{'drive': ..., 'initial': ..., "
                            f"'rate': ...}}), got {_checks._short(drives)}")
        tables = []
        for C in self.coordinates:
            t = {"name": C.name}
            t.update({"joint": C.joint} if C.joint else {"body": C.body, "component": C.component})
            if C.joint and C.component is not None:
                t["component"] = C.component
            entry = drives.get(C.name, {})
            d = entry.get("drive")
            if isinstance(d, ConstantSpeed):
                t.update(drive="constant-speed", speed=d.speed)
            elif isinstance(d, Torque) and not callable(d.law):
                t.update(drive="torque", torque=float(d.law))
            elif d is not None:
                raise ValueError(f"coordinate {C.name!r}: only constant-speed and constant torque drives "
                                 "can be written to TOML")
            for key in ("initial", "rate"):
                if entry.get(key) is not None:
                    t[key] = float(entry[key])
            tables.append(t)
        return tables

    def to_toml(self, path, drives=None, comment=None):
        """Write the mechanism as TOML (atomically); return the path.

        ``drives``: coordinate name -> {"drive": ConstantSpeed or constant Torque,
        "initial": z0, "rate": z0'} (default :attr:`coordinate_drives`, what
        :meth:`from_toml` read).  The tables are :meth:`to_dict`'s; a file may hold other
        programs' tables too (``python -m kanefem mechanism`` adds its ``[run]`` and
        ``[sweep]``), which :meth:`from_toml` skips.
        """
        path = _checks.path("path", path)
        return write_toml(path, self.to_dict(drives, folder=path.parent, stem=path.stem),
                          comment=comment or self.toml_comment())

    def toml_comment(self) -> str:
        """The comment heading the mechanism's TOML file."""
        return f"kanefem mechanism {self.name!r} (SI units, angles in radians; points are those of the drawing)"

    @property
    def run_drives(self):
        """The former name of :attr:`coordinate_drives` (kept for old scripts)."""
        return self.coordinate_drives

    @run_drives.setter
    def run_drives(self, value):
        self.coordinate_drives = value


#: the [[link]] keys of a reduced link: the body (an NPZ file) or a mesh reduced at load
_REDUCED_KEYS = ("name", "body", "mesh", "E", "nu", "rho", "thickness", "plane_strain", "interface", "modes",
                 "cutoff_hz", "start", "angle", "supports", "damping", "geometric_stiffness")


def _reduced_link(t, base):
    """An ElasticLink of a [[link]] table naming a reduced body: ``body`` (a ReducedBody's
    NPZ file) or ``mesh`` (a mesh file with E, nu, rho, thickness [, plane_strain], its
    ``interface`` items and ``modes`` or ``cutoff_hz``, reduced at load by Craig-Bampton
    with the K_G load cases of a link when ``geometric_stiffness``).  An interface item is
    a node index, a list of nodes, a node-set name or an inline table ``{nodes = ...,
    kind = "rigid" | "distributing", weights = "tributary" | "equal" | [...]}``."""
    from .._io import referenced
    from ..meshes import Mesh, MeshBody
    from ..reduced import ReducedBody

    name = t.get("name", "?")
    extra = sorted(set(t) - set(_REDUCED_KEYS))
    if extra:
        raise ValueError(f"[[link]] {name!r}: a reduced link takes no key(s) {', '.join(map(repr, extra))} "
                         f"(it has: {', '.join(_REDUCED_KEYS)})")
    if ("body" in t) == ("mesh" in t):
        raise ValueError(f"[[link]] {name!r}: give body (a reduced body's NPZ file) or mesh (reduced at load), "
                         "not both")

    def where(key):
        value = t.pop(key)
        if base is None and isinstance(value, str) and value and "\x00" not in value:
            path = _Path(value).absolute()
        else:
            path = referenced(_Path(".") if base is None else base, value, f"link {name!r}: {key}")
        if not path.exists():
            raise ValueError(f"link {name!r}: {key} = {value!r}: no such file ({path})")
        return path

    geometric = _checks.flag(f"link {name!r}: geometric_stiffness", t.get("geometric_stiffness", True))
    if "body" in t:
        path = where("body")
        for key in ("E", "nu", "rho", "thickness", "plane_strain", "interface", "modes", "cutoff_hz"):
            if key in t:
                raise ValueError(f"[[link]] {name!r}: {key} is for a mesh reduced at load, not a body file")
        body = ReducedBody.load(path)
        body._source = path
    else:
        path = where("mesh")
        missing = [k for k in ("E", "nu", "rho", "thickness", "interface") if k not in t]
        if missing or ("modes" in t) == ("cutoff_hz" in t):
            raise ValueError(f"[[link]] {name!r}: a mesh link needs E, nu, rho, thickness, interface and modes or "
                             f"cutoff_hz (missing: {', '.join(missing) or 'modes or cutoff_hz, one of them'})")
        mesh = MeshBody(Mesh.read(path), E=t.pop("E"), nu=t.pop("nu"), rho=t.pop("rho"),
                        thickness=t.pop("thickness"),
                        plane_strain=_checks.flag(f"link {name!r}: plane_strain", t.pop("plane_strain", False)))
        interface = t.pop("interface")
        if not isinstance(interface, list):
            raise TypeError(f"link {name!r}: interface must be a list of items (a node index, a list of nodes, "
                            f"a node-set name or a table {{nodes = ..., kind = ...}}), got {_checks._short(interface)}")
        modes = {"n_modes": t.pop("modes")} if "modes" in t else {"cutoff_hz": t.pop("cutoff_hz")}
        body = ReducedBody(mesh, interface, **modes, geometric_stiffness=geometric,
                           prestress_supports="free" if geometric else None)
    supports = t.pop("supports", None)
    if isinstance(supports, Mapping):  # {"0" = "pinned", ...}: the interface items by index
        try:
            supports = {int(k): (tuple(v) if isinstance(v, list) else v) for k, v in supports.items()}
        except ValueError:
            raise ValueError(f"link {name!r}: supports keys must be interface item indices, got "
                             f"{list(supports)}") from None
    return ElasticLink(body=body, supports=supports, **t)


def absolute_files(tables, base):
    """The tables with each [[link]]'s ``body`` or ``mesh`` file named by its absolute path,
    resolved from ``base`` (the TOML file's folder) as ``from_toml`` does (inside it): for a
    description read again elsewhere (a sweep's points)."""
    from .._io import referenced

    out = dict(tables)
    links = []
    for t in tables.get("link", []):
        t = dict(t) if isinstance(t, Mapping) else t
        for key in ("body", "mesh"):
            if isinstance(t, dict) and key in t:
                t[key] = str(referenced(base, t[key], f"link {t.get('name', '?')!r}: {key}"))
        links.append(t)
    if "link" in tables:
        out["link"] = links
    return out


def _reduced_link_table(L, folder, stem, used):
    """The [[link]] table of a reduced link: its body saved as ``<stem>_<link>.npz`` in
    ``folder`` (named relatively), or the file it was read from."""
    from .._io import inside, safe_name
    from ..meshes import MeshBody

    if isinstance(L.body, MeshBody):
        raise ValueError(f"link {L.name!r}: a MeshBody link cannot be written to TOML; reduce it (a ReducedBody "
                         "link, saved as an NPZ file) or name its mesh in a [[link]] table (mesh = ...)")
    if folder is not None:
        name = safe_name(f"{stem}_{L.name}", used) + ".npz"
        L.body.save(inside(folder, name))
        ref = name
    elif getattr(L.body, "_source", None) is not None:
        ref = str(L.body._source)
    else:
        raise ValueError(f"link {L.name!r}: its ReducedBody was never saved: write the mechanism with "
                         "to_toml(path), which saves it beside the file")
    supports = L.supports
    if isinstance(supports, dict):
        supports = {str(k): (list(v) if isinstance(v, tuple) else v) for k, v in supports.items()}
    elif not isinstance(supports, str):
        raise ValueError(f"link {L.name!r}: supports {supports!r} cannot be written (a string or "
                         "{item: kind})")
    return {"name": L.name, "body": ref, "start": list(L.start), "angle": L.angle, "supports": supports,
            "damping": list(L.damping), "geometric_stiffness": L.geometric_stiffness}


def file_run(mech, duration=0.0, revolutions=1.0, points=361):
    """The run a mechanism's file describes: (t, drives, z0, zd0) for :meth:`~kanefem.mechanism.Mechanism.solve`.

    Drives and initial values from the file's coordinates (``coordinate_drives``; the drawing's
    coordinates and rest otherwise); ``points`` instants over ``duration`` [s], or
    (duration 0) over ``revolutions`` turns of the first angle driven at a constant
    speed, or ``revolutions`` seconds without one.  As ``python -m kanefem mechanism``
    runs a file.
    """
    drives = {n: e["drive"] for n, e in mech.coordinate_drives.items() if e.get("drive") is not None}
    z0 = mech.drawing_coordinates()
    zd0 = np.zeros(len(z0))
    turn = None
    for k, c in enumerate(mech.coordinates):
        entry = mech.coordinate_drives.get(c.name, {})
        if entry.get("initial") is not None:
            z0[k] = entry["initial"]
        if entry.get("rate") is not None:
            zd0[k] = entry["rate"]
        d = entry.get("drive")
        if isinstance(d, ConstantSpeed) and mech.coordinate_unit(k) == "rad" and d.speed and turn is None:
            turn = 2 * math.pi / abs(d.speed)
    if not (duration >= 0 and points >= 2):
        raise ValueError(f"duration = {duration!r} must be >= 0 and points = {points!r} >= 2 "
                         "(--duration, --points)")
    duration = duration or revolutions * (turn or 1.0)
    if not duration > 0:
        raise ValueError(f"revolutions must be positive, got {revolutions}")
    return _checks.time_grid(duration, points, "--duration, --points"), drives, z0, zd0


_COORDINATE_KEYS = ("name", "body", "component", "joint", "drive", "speed", "torque", "initial", "rate")


def _take(table, kind, allowed, where):
    """A [[where]] table as a dict, its keys among allowed (others refused by name)."""
    if not isinstance(table, Mapping):
        raise TypeError(f"[[{where}]] must hold tables, got {table!r}")
    t = dict(table)
    extra = sorted(set(t) - set(allowed))
    if extra:
        raise ValueError(f"[[{where}]] {t.get('name', '?')!r}: unknown key(s) {', '.join(map(repr, extra))} "
                         f"(allowed: {', '.join(allowed)})")
    return t


# ---------------------------------------------------------------- spatial tables ([mechanism] space = "3d")

#: the elements a spatial [[link]] may carry, and the section keys each needs (optional ones after)
_SPATIAL_LINK_KINDS = {"beam3d": (("E", "A", "Izz", "Iyy", "J", "rho"), ("nu", "ref")),
                       "bar3d": (("E", "A", "rho"), ()),
                       "beam": (("E", "A", "I", "rho"), ()), "bar": (("E", "A", "rho"), ())}
_SPATIAL_JOINT_KEYS = {"revolute": ("axis", "offset"), "prismatic": ("axis", "offset"),
                       "cylindrical": ("axis", "offset"), "spherical": ("frame_axes", "offset"),
                       "universal": ("axes", "offset"), "planar": ("normal", "frame_axes", "offset"),
                       "fixed": ()}
_LAW_KEYS = ("k", "s0", "damping", "friction", "v_F")


def _spatial_parts(data):
    """Bodies, joints and springs of a spatial mechanism's tables."""
    from ..bodies import Bar3D, Beam3D
    from .spatial import SPATIAL_JOINTS, SpatialBody, SpatialLink, axis_frame

    bodies = []
    for t in data.get("body", []):
        t = _take(t, None, ("name", "mass", "inertia", "centre", "orientation"), "body")
        bodies.append(SpatialBody(**t))
    for t in data.get("link", []):
        t = _take(t, None, ("name", "kind", "length", "elements", "E", "A", "I", "Izz", "Iyy", "J", "rho", "nu",
                            "ref", "start", "orientation", "end", "supports", "damping", "geometric_stiffness",
                            "mass", "inertia", "centre"), "link")
        name = t.get("name", "?")
        kind = t.pop("kind", "beam3d")
        _checks.choice(f"link {name!r}: kind", kind, tuple(_SPATIAL_LINK_KINDS))
        need, optional = _SPATIAL_LINK_KINDS[kind]
        start = t.pop("start", (0.0, 0.0, 0.0))
        if "end" in t:
            if "orientation" in t or "length" in t:
                raise ValueError(f"link {name!r}: give end, or orientation and length, not both")
            d = np.asarray(_checks.array(f"link {name!r}: end", t.pop("end"), shape=(3,))) - np.asarray(
                _checks.array(f"link {name!r}: start", start, shape=(3,)))
            t["length"] = float(np.linalg.norm(d))
            if not t["length"] > 0:
                raise ValueError(f"link {name!r}: end is start")
            ax = axis_frame(d / t["length"])
            t["orientation"] = np.column_stack([ax[:, 2], ax[:, 0], ax[:, 1]])  # x along start -> end
        missing = [k for k in ("length",) + need if k not in t]
        if missing:
            raise ValueError(f"[[link]] {name!r}: missing key(s) {', '.join(map(repr, missing))} (a {kind} link "
                             f"needs length, {', '.join(need)})")
        stray = [k for k in ("E", "A", "I", "Izz", "Iyy", "J", "rho", "nu", "ref") if k in t and k not in
                 need + optional]
        if stray:
            raise ValueError(f"[[link]] {name!r}: a {kind} link takes no {', '.join(map(repr, stray))}")
        section = {k: t.pop(k) for k in need + optional if k in t}
        length = t.pop("length")
        n = _checks.integer(f"link {name!r}: elements", t.pop("elements", 10), minimum=1,
                            maximum=PlanarBeam.MAX_ELEMENTS)
        cls = {"beam3d": Beam3D, "bar3d": Bar3D, "beam": PlanarBeam, "bar": AxialBar}[kind]
        bodies.append(SpatialLink(body=cls(length, n, **section), start=start, **t))
    joints = []
    for t in data.get("joint", []):
        kind = t.get("kind", "revolute") if isinstance(t, Mapping) else None
        _checks.choice(f"joint {t.get('name') if isinstance(t, Mapping) else t!r}: kind", kind,
                       tuple(SPATIAL_JOINTS))
        t = _take(t, None, ("name", "kind", "bodies", "at") + _SPATIAL_JOINT_KEYS[kind] +
                  (_LAW_KEYS if kind != "fixed" else ()), "joint")
        t.pop("kind", None)
        joints.append(SPATIAL_JOINTS[kind](**t))
    springs = [Spring(**_take(t, Spring, ("name", "bodies", "at", "k", "length", "damping"), "spring"))
               for t in data.get("spring", [])]
    return bodies, joints, springs


def _plain(v):
    """A TOML-writable value: arrays and tuples as lists of floats."""
    a = np.asarray(v, float)
    return a.tolist()


def _spatial_tables(mech) -> dict:
    """The [[body]], [[link]], [[joint]] and [[spring]] tables of a spatial mechanism."""
    from ..bodies import Bar3D, Beam3D
    from .spatial import SpatialBody, joint_kind

    out = {}
    rigid = [b for b in mech.bodies if isinstance(b, SpatialBody)]
    if rigid:
        out["body"] = [{"name": b.name, "mass": b.mass, "inertia": _plain(b.inertia), "centre": list(b.centre),
                        "orientation": list(b.orientation)} for b in rigid]
    if mech.links:
        out["link"] = []
        for L in mech.links:
            b = L.body
            if b.origin != 0.0:
                raise ValueError(f"link {L.name!r}: elements from origin {b.origin} cannot be written (0 only)")
            if not isinstance(L.supports, str):
                raise ValueError(f"link {L.name!r}: only preset supports can be written")
            kind = {Beam3D: "beam3d", Bar3D: "bar3d", PlanarBeam: "beam", AxialBar: "bar"}[type(b)]
            t = {"name": L.name, "kind": kind, "length": b.length, "elements": b.n_elements, "E": b.E, "A": b.A}
            if kind == "beam3d":
                if getattr(b, "model", {}).get("theory", "euler-bernoulli") != "euler-bernoulli":
                    raise ValueError(f"link {L.name!r}: only Euler-Bernoulli Beam3D links can be written")
                t.update(Izz=b.Izz, Iyy=b.Iyy, J=b.J, nu=b.nu, ref=_plain(b.ref))
            elif kind == "beam":
                t["I"] = b.I
            t.update(rho=b.rho, start=list(L.start), orientation=list(L.orientation), supports=L.supports,
                     damping=list(L.damping), geometric_stiffness=L.geometric_stiffness)
            if L._rigid is None:
                t.update(mass=L.mass, inertia=_plain(L.inertia), centre=list(L.centre))
            out["link"].append(t)
    out["joint"] = []
    for J in mech.joints:
        kind = joint_kind(J)
        t = {"name": J.name, "kind": kind, "bodies": list(J.bodies), "at": list(J.at)}
        for key in _SPATIAL_JOINT_KEYS[kind]:
            v = getattr(J, key)
            if v is not None:
                t[key] = _plain(v)
        if kind != "fixed":
            for key in ("k", "damping", "friction"):
                if np.any(np.asarray(getattr(J, key)) != 0.0):
                    t[key] = _plain(getattr(J, key))
            if J.s0 is not None:
                t["s0"] = _plain(J.s0)
            if "friction" in t:
                t["v_F"] = _plain(J.v_F)
        out["joint"].append(t)
    if mech.springs:
        out["spring"] = [{"name": S.name, "bodies": list(S.bodies), "at": [list(S.at[0]), list(S.at[1])],
                          "k": S.k, **({} if S.length is None else {"length": S.length}), "damping": S.damping}
                         for S in mech.springs]
    return out
