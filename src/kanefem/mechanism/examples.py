"""The mechanisms shipped with kanefem: the slider-crank, the four-bar, and the
TOML examples (kanefem/examples/NAME.toml)."""

from __future__ import annotations

import math
from pathlib import Path as _FilePath

import numpy as np

from .. import _checks
from ..bodies import AxialBar, PlanarBeam
from .model import Mechanism
from .parts import GROUND, Coordinate, ElasticLink, Prismatic, Revolute, RigidBody


# ---------------------------------------------------------------- examples

#: the example mechanisms shipped with the package (kanefem/examples/NAME.toml): planar
#: (the wind pump, a slider-crank, a four-bar) and spatial (Bennett's linkage, a 3-link arm
#: with an elastic upper arm)
EXAMPLES = ("windpump", "slider_crank", "four_bar", "bennett", "arm")



def example(name) -> _FilePath:
    """The path of a shipped example (``"windpump"``, ``"slider_crank"``, ``"four_bar"``,
    and the spatial ``"bennett"`` and ``"arm"``), for :meth:`Mechanism.from_toml` and
    ``python -m kanefem mechanism``."""
    from importlib import resources

    _checks.choice("name", name, EXAMPLES)
    return _FilePath(str(resources.files("kanefem") / "examples" / f"{name}.toml"))


def slider_crank(crank=0.15, rod=0.30, *, crank_mass=0.0, crank_inertia=0.0, slider_mass=None,
                 elements=10, E=200e9, diameter=0.006, rho=7870.0, gravity=(0.0, 0.0),
                 geometric_stiffness=True, rod_mass=None):
    """The slider-crank of the flexible-mechanism literature (docs/theory.md section 7.9).

    Crank OA (length ``crank``) turning about the origin, connecting rod AB
    (``rod``), slider B on the x axis; drawn at crank angle 0.  The rod is an
    elastic :class:`~kanefem.PlanarBeam` of ``elements`` elements with a round section
    (``diameter``, E, rho; default 6 mm steel, the benchmark's) pinned-pinned in its
    chord frame, or, with ``rod=None``, a rigid rod of the same length (0.30 m) and
    mass.  Slider mass default: half the rod's.  Coordinate ``"crank"`` (the crank
    angle); gravity off by default; the rod's ``geometric_stiffness`` (K_G in the
    two-way runs) on by default, as :class:`ElasticLink`'s.
    """
    length = 0.30 if rod is None else _checks.real("rod", rod, positive=True)
    r = _checks.real("crank", crank, positive=True)
    dia = _checks.real("diameter", diameter, positive=True)
    rho = _checks.real("rho", rho, positive=True)
    A = math.pi * dia * dia / 4
    I = A * dia * dia / 16  # noqa: E741 - pi d^4 / 64
    if not (0.0 < I and A < math.inf and I < math.inf):
        raise ValueError(f"diameter = {dia!r} m gives a section (A = {A:g} m^2, I = {I:g} m^4) "
                         "beyond the doubles")
    m_rod = rho * A * length if rod_mass is None else _checks.real("rod_mass", rod_mass, nonnegative=True)
    ms = 0.5 * m_rod if slider_mass is None else _checks.real("slider_mass", slider_mass, nonnegative=True)
    bodies = [RigidBody("crank", crank_mass, crank_inertia, centre=(r / 2, 0.0))]
    if rod is None:
        bodies.append(RigidBody("rod", m_rod, m_rod * length**2 / 12, centre=(r + length / 2, 0.0)))
    else:
        beam = PlanarBeam(length, _checks.integer("elements", elements, minimum=1, maximum=PlanarBeam.MAX_ELEMENTS), E=E, A=A, I=I, rho=rho)
        bodies.append(ElasticLink("rod", beam, start=(r, 0.0), geometric_stiffness=geometric_stiffness))
    bodies.append(RigidBody("slider", ms, 0.0, centre=(r + length, 0.0)))
    joints = [Revolute("O", (GROUND, "crank"), (0.0, 0.0)),
              Revolute("A", ("crank", "rod"), (r, 0.0)),
              Revolute("B", ("rod", "slider"), (r + length, 0.0)),
              Prismatic("guide", (GROUND, "slider"), (r + length, 0.0), axis=(1.0, 0.0))]
    return Mechanism(bodies, joints, [Coordinate("crank", joint="O")], gravity=gravity,
                     name="slider-crank")


def spatial_slider_crank(crank=0.15, rod=0.30, offset=0.05, *, slider_mass=None, elements=10, E=200e9,
                         diameter=0.006, rho=7870.0, gravity=(0.0, 0.0, 0.0), geometric_stiffness=True,
                         rod_body=None, rod_supports=None, damping=(0.0, 0.0)):
    """The slider-crank of :func:`slider_crank` with its slider guide lifted out of the
    crank's plane: a spatial mechanism with an elastic rod (docs/theory.md section 5.17).

    Crank OA (``crank``) turning about z at the origin in the x-y plane, drawn at angle 0;
    connecting rod AB (``rod``) to a slider B guided along x at height ``offset`` above the
    crank's plane; joints: revolute O (about z), spherical A, universal B (about the
    slider's y and the rod's z axis: the rod does not spin about its own axis), prismatic
    guide along x.  The rod is an elastic :class:`~kanefem.Beam3D` of ``elements``
    elements, round section (``diameter``, E, rho; default the 6 mm steel rod of
    :func:`slider_crank`), its frame along A -> B (x) with y the global y axis, held at A
    against translation and twist and at B against translation (the chord frame:
    ``rod_supports`` default ``{0: "pinned", -1: "spherical"}``, a Beam3D ``rod_body``'s too);
    or ``rod_body``, any spatial body of a :class:`~kanefem.mechanism.SpatialLink` laid in
    that frame from A (x = 0) to B (x = ``rod``): a ReducedBody with its interface items at
    A and B (its default supports), a MeshBody with ``rod_supports`` naming its two ports.  Slider mass default half the
    rod's.  Coordinate ``"crank"``; gravity off by default; K_G on by default (two ways).
    """
    from ..bodies import Beam3D
    from .spatial import SpatialBody, SpatialLink, Spherical, Universal

    if rod_supports is None and (rod_body is None or isinstance(rod_body, Beam3D)):
        rod_supports = {0: "pinned", -1: "spherical"}

    r = _checks.real("crank", crank, positive=True)
    length = _checks.real("rod", rod, positive=True)
    e = _checks.real("offset", offset, nonnegative=True)
    if not e < length - r:
        raise ValueError(f"offset = {e!r} m must be below rod - crank = {length - r!r} m (the rod must reach "
                         "the guide at every crank angle)")
    if rod_body is None:
        dia = _checks.real("diameter", diameter, positive=True)
        A = math.pi * dia * dia / 4
        I = A * dia * dia / 16  # noqa: E741 - pi d^4 / 64
        rod_body = Beam3D(length, _checks.integer("elements", elements, minimum=1, maximum=Beam3D.MAX_ELEMENTS),
                          E=E, A=A, Izz=I, Iyy=I, J=2 * I, rho=_checks.real("rho", rho, positive=True))
    L = math.sqrt(length * length - e * e)
    A_, B_ = np.array([r, 0.0, 0.0]), np.array([r + L, 0.0, e])
    x = (B_ - A_) / length
    y = np.array([0.0, 1.0, 0.0])
    frame = np.column_stack([x, y, np.cross(x, y)])
    link = SpatialLink("rod", rod_body, start=tuple(A_), orientation=frame, supports=rod_supports,
                       geometric_stiffness=geometric_stiffness, damping=damping)
    m_rod = link.rigid()[0]
    ms = 0.5 * m_rod if slider_mass is None else _checks.real("slider_mass", slider_mass, nonnegative=True)
    bodies = [SpatialBody("crank", 0.0, (0.0, 0.0, 0.0), centre=(r / 2, 0.0, 0.0)), link,
              SpatialBody("slider", ms, (0.0, 0.0, 0.0), centre=tuple(B_))]
    joints = [Revolute("O", (GROUND, "crank"), (0.0, 0.0, 0.0), axis=(0.0, 0.0, 1.0)),
              Spherical("A", ("crank", "rod"), tuple(A_)),
              Universal("B", ("slider", "rod"), tuple(B_), axes=((0.0, 1.0, 0.0), tuple(frame[:, 2]))),
              Prismatic("guide", (GROUND, "slider"), tuple(B_), axis=(1.0, 0.0, 0.0))]
    return Mechanism(bodies, joints, [Coordinate("crank", joint="O")], gravity=gravity,
                     name="spatial slider-crank")


def four_bar(a=0.1, b=0.3, c=0.25, d=0.3, *, masses=(1.0, 1.5, 1.2), gravity=(0.0, -9.81),
             branch=1, coupler=None):
    """A four-bar linkage: crank (a) from the ground pivot O = (0, 0), coupler (b),
    rocker (c) to the ground pivot (d, 0); uniform bars of the given masses; drawn at
    crank angle pi/2 on the branch with the coupler above the line from A to the
    rocker pivot (branch = +1) or below (-1).  Coordinate ``"crank"``.

    ``coupler``: a :class:`~kanefem.PlanarBeam` or :class:`~kanefem.AxialBar` of length ``b`` makes the
    coupler an elastic link (pinned-pinned from A to B; its mass is the elements',
    ``masses[1]`` is not used); None, a rigid bar."""
    a, b, c, d = (_checks.real(n, v, positive=True) for n, v in (("a", a), ("b", b), ("c", c), ("d", d)))
    if coupler is not None:
        if not isinstance(coupler, (PlanarBeam, AxialBar)):
            raise TypeError(f"coupler must be a PlanarBeam, an AxialBar or None, got {_checks._short(coupler)}")
        if not math.isclose(coupler.length, b, rel_tol=1e-12):
            raise ValueError(f"coupler has length {coupler.length!r} m: the coupler b = {b!r} m")
    m1, m2, m3 = _checks.array("masses", masses, shape=(3,))
    if _checks.integer("branch", branch, maximum=None) not in (1, -1):
        raise ValueError(f"branch must be 1 or -1, got {branch!r}")
    A = np.array([0.0, a])
    D = np.array([d, 0.0])
    e = D - A
    rho = math.hypot(*e)
    along = (b * b - c * c + rho * rho) / (2 * rho)
    perp = branch * math.sqrt(max(b * b - along * along, 0.0))
    u = e / rho
    B = A + along * u + perp * np.array([-u[1], u[0]])
    mid = lambda p, q: tuple((np.asarray(p) + np.asarray(q)) / 2)  # noqa: E731
    ang = lambda p, q: math.atan2(q[1] - p[1], q[0] - p[0])  # noqa: E731
    bodies = [RigidBody("crank", m1, m1 * a * a / 12, centre=mid((0, 0), A), angle=ang((0, 0), A)),
              RigidBody("coupler", m2, m2 * b * b / 12, centre=mid(A, B), angle=ang(A, B)) if coupler is None
              else ElasticLink("coupler", coupler, start=tuple(A), angle=ang(A, B)),
              RigidBody("rocker", m3, m3 * c * c / 12, centre=mid(B, D), angle=ang(D, B))]
    joints = [Revolute("O", (GROUND, "crank"), (0.0, 0.0)), Revolute("A", ("crank", "coupler"), tuple(A)),
              Revolute("B", ("coupler", "rocker"), tuple(B)), Revolute("D", (GROUND, "rocker"), tuple(D))]
    return Mechanism(bodies, joints, [Coordinate("crank", joint="O")], gravity=gravity, name="four-bar")
