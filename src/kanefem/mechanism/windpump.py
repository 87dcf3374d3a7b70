"""The wind-pump mechanism of the papers (docs/theory.md section 5): rigid two-DOF dynamics by
Kane's method, joint forces, and the elastic lever BC' over the crank cycle.

An electric motor turns a disc (the crank AB, angle alpha); the elastic lever BC' drives
a rocker/pendulum pinned at D to a slider on a horizontal guide; the pendulum carries an
adjustable weight G; a spring centres the slider and the pumps load it.  Two degrees of
freedom, q = (alpha, x_D): "a kinematic chain closed by inertia".

    e(phi) = (cos phi, sin phi);  A = (0, 0);  B = l1 e(alpha);  D = (x_D, e)
    C' = B + l2 e(theta2) = D + h e(theta3 + psi)       (loop closure)
    crank mass centre a1 l1 e(alpha); lever mass centre B + l2/2 e(theta2);
    rocker mass centre D + hg e(theta3 + xi); weight G (point mass M3) at D + L e(theta3)
    slider: spring k (x_D - x_D0), friction F_r tanh(xdot_D / v_F), pump load c_D xdot_D

The wind pump is one general planar mechanism (kanefem.Mechanism, docs/theory.md section
5.13): the C core does its kinematics (Newton on the loop closure from the closed-form
assembly, A(q), B(q)), Kane's equations A^T Mrig A u' = A^T (Q - Mrig B w), their time
integration and the joint forces (the constraints' multipliers, which solve the bodies'
Newton-Euler equations); this module presents them in the wind pump's terms.

>>> import kanefem
>>> pump = kanefem.WindPump()
>>> motion = pump.solve(rpm=140, revolutions=1)
>>> motion.alpha.shape
(360,)
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from dataclasses import dataclass

import numpy as np

from .. import _animation, _checks, _core
from .._io import read_toml, write_toml
from ..bodies import PlanarBeam, _signed_hz
from .drives import ConstantSpeed, Recorded, Torque
from .model import Mechanism, quasi_static
from .results import LinkEigenvalues, MechanismForces, MechanismMotion

__all__ = ["WindPumpParams", "WindPump", "WindPumpMotion", "JointForces", "LeverEigenvalues"]

_DRIVES = {"constant-speed": 0, "torque": 1, "recorded": 2}
#: doubles a motion holds per instant: the core's kinematics (130) and the state (7);
#: with kanefem._checks.MAX_OUTPUT_VALUES it bounds the instants of one call (1.9e6)
_VALUES_PER_INSTANT = 137
#: the default step budget of WindPump.solve (about 30 s of integration)
MAX_STEPS = 10**6

#: the parameter groups of a TOML file (and of the reference-configuration table)
GROUPS = {
    "crank": ("l1", "a1", "m1", "J1"),
    "lever": ("l2", "E2", "A2", "I2", "rho2"),
    "rocker": ("h", "psi", "hg", "xi", "m3", "J3", "L", "M3"),
    "slider": ("e", "m_D", "k", "x_D0", "F_r", "v_F", "c_D"),
    "environment": ("g", "branch"),
}


def _extreme_text(p):
    """The parameters beyond 1e100 or below 1e-100 in magnitude, as text for messages
    about values leaving the double range (empty if none)."""
    bad = [f"{k} = {v!r}" for k, v in p.__dict__.items()
           if isinstance(v, float) and v != 0.0 and not 1e-100 <= abs(v) <= 1e100]
    return "; parameters " + ", ".join(bad) if bad else ""


@dataclass(frozen=True)
class WindPumpParams:
    """Dimensions, masses and loads of the wind pump (SI units, angles in radians).

    The defaults are kanefem's reference configuration.  The papers' dimension
    drawings are lost, so it is a documented choice at the scale of their laboratory
    bench (a motor-driven disc, a lever of a few hundred millimetres, a pendulum with a
    weight of a few kilograms): steel parts, a 20 x 10 mm flat-bar lever bending about
    its weak axis, a 240 mm disc.  It assembles over whole crank turns for
    0.42 m < x_D < 0.76 m; on the 140 rpm steady cycle x_D stays within 0.48..0.61 m
    and the transmission angle between 63 and 72 degrees (motor torque -0.5..7.3 N m,
    mean power 52 W, joint forces up to 210 N, first lever mode 65 Hz).

    Attributes
    ----------
    l1 : float
        Crank radius AB [m] (0.08).
    a1 : float
        Crank mass centre at a1 l1 along AB [-] (0.05: a 240 mm steel disc, 15 mm
        thick, with the crank pin and its boss at B).
    m1 : float
        Crank (disc) mass [kg] (5.6).
    J1 : float
        Crank moment of inertia about its mass centre [kg m^2] (0.04 = m r^2 / 2).
    l2 : float
        Lever length BC' [m] (0.6).
    E2, A2, I2, rho2 : float
        Lever section and material: Young's modulus [Pa] (210e9), area [m^2] (2e-4),
        second moment of area in the mechanism's plane [m^4] (1.6667e-9), density
        [kg/m^3] (7850): a 20 x 10 mm steel flat bar.  The rigid lever has
        m2 = rho2 A2 l2, mass centre at l2/2 and J2 = m2 l2^2 / 12, as its elements.
    h : float
        Rocker arm DC' [m] (0.25).
    psi : float
        Angle from the pendulum arm to the rocker arm DC' [rad] (pi: C' opposite the
        pendulum, above D when the pendulum hangs).
    hg, xi : float
        Rocker mass centre at D + hg e(theta3 + xi) [m], [rad] (0.10, 0: a 30 x 10 mm
        steel bar 0.70 m long from C' through D to just beyond the weight).
    m3 : float
        Rocker mass without the weight [kg] (1.65).
    J3 : float
        Rocker moment of inertia about its own mass centre [kg m^2] (0.0674 = m3 0.7^2 / 12).
    L : float
        Distance DG of the adjustable weight along the pendulum arm [m] (0.40).
    M3 : float
        The adjustable weight, a point mass [kg] (5.0).
    e : float
        Height of the slider's guide above the crank axis [m] (0.10).
    m_D : float
        Slider mass [kg] (2.0).
    k : float
        Slider spring stiffness [N/m] (2000: with the pendulum, a slider mode near
        8 rad/s, below the 14.7 rad/s of 140 rpm).
    x_D0 : float
        Slider position where the spring is relaxed [m] (0.55).
    F_r : float
        Coulomb friction force of the slider [N] (5.0: friction coefficient about 0.06
        on the 85 N the slider carries).
    v_F : float
        Friction regularization speed [m/s] (1e-3): the friction force is
        F_r tanh(xdot_D / v_F), within 1 % of F_r sgn(xdot_D) for ``|xdot_D| > 2.7 v_F``;
        it keeps the ODE smooth (no stick-slip events).
    c_D : float
        Viscous load of the pumps on the slider [N s/m] (100).  Not in the papers'
        model (set 0 for it); without it the free slider oscillation of the reference
        bench decays only by friction, over tens of turns.
    g : float
        Gravity along -y [m/s^2] (9.81).
    branch : int
        Assembly branch, +1 (C' to the left of the line B -> D, the reference) or -1.

    Raises
    ------
    ValueError
        A value out of its domain (lengths and lever section > 0; masses, inertias,
        spring, friction, load, gravity >= 0; branch +1 or -1), naming it.
    TypeError
        A value that is not a real number.
    """

    l1: float = 0.08
    a1: float = 0.05
    m1: float = 5.6
    J1: float = 0.04
    l2: float = 0.6
    E2: float = 210e9
    A2: float = 2.0e-4
    I2: float = 1.6667e-9
    rho2: float = 7850.0
    h: float = 0.25
    psi: float = math.pi
    hg: float = 0.10
    xi: float = 0.0
    m3: float = 1.65
    J3: float = 0.0674
    L: float = 0.40
    M3: float = 5.0
    e: float = 0.10
    m_D: float = 2.0
    k: float = 2000.0
    x_D0: float = 0.55
    F_r: float = 5.0
    v_F: float = 1e-3
    c_D: float = 100.0
    g: float = 9.81
    branch: int = 1

    def __post_init__(self):
        for f in dataclasses.fields(self):
            if f.name == "branch":
                b = _checks.integer("branch", self.branch, maximum=None)
                if b not in (1, -1):
                    raise ValueError(f"branch = {b} must be +1 or -1")
                object.__setattr__(self, "branch", b)
            else:
                object.__setattr__(self, f.name, _checks.real(f.name, getattr(self, f.name)))
        for name in ("E2", "I2"):  # the lever's elasticity (the rigid model does not use it)
            _checks.real(name, getattr(self, name), positive=True)
        try:
            _core.windpump_check(params=self._vector())
        except ValueError as exc:  # derived values (masses, inertias) out of range
            named = _extreme_text(self) or "; parameters " + ", ".join(
                f"{k} = {getattr(self, k)!r}" for k in ("l2", "A2", "rho2", "m1", "J1", "m3", "J3", "M3"))
            raise type(exc)(f"{exc} (from the wind-pump parameters{named[len('; parameters'):]})") from None

    def _vector(self):
        """The core's parameter vector (order of kanefem._core.windpump_names())."""
        return np.array([float(getattr(self, n)) for n in _CORE_NAMES])

    def as_dict(self):
        """All parameters as a plain dict."""
        return dataclasses.asdict(self)


_CORE_NAMES = _core.windpump_names()
#: the bodies, joints and coordinates of the core's wind pump (csrc/kf_windpump.c), in its order
_BODIES = ("crank", "lever", "rocker", "weight", "slider")
_JOINTS = ("A", "B", "C", "D", "G", "guide")
_COORDS = ("alpha", "x_D")
#: the twelve mass coordinates x1, y1, theta1, ..., xG, yG, x_D among the bodies' q
_ROWS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12]
_FIELDS = tuple(f.name for f in dataclasses.fields(WindPumpParams))
assert set(_CORE_NAMES) <= set(_FIELDS) and set(sum(GROUPS.values(), ())) == set(_FIELDS)

_ALL = slice(None)
_C, _B, _J = ({n: i for i, n in enumerate(names)} for names in (_COORDS, _BODIES, _JOINTS))
#: the wind pump's named quantities as views of the general results: name -> (the
#: general result's field, the index into it) -- coordinates, bodies, joints by name
VIEWS = {
    "motion": {
        "alpha": ("z", (_ALL, _C["alpha"])), "x_D": ("z", (_ALL, _C["x_D"])),
        "omega1": ("zd", (_ALL, _C["alpha"])), "xdot_D": ("zd", (_ALL, _C["x_D"])),
        "eps1": ("zdd", (_ALL, _C["alpha"])), "xddot_D": ("zdd", (_ALL, _C["x_D"])),
        "motor_torque": ("force", (_ALL, _C["alpha"])),
        "theta2": ("q", (_ALL, _B["lever"], 2)), "omega2": ("qd", (_ALL, _B["lever"], 2)),
        "eps2": ("qdd", (_ALL, _B["lever"], 2)),
        "theta3": ("q", (_ALL, _B["rocker"], 2)), "omega3": ("qd", (_ALL, _B["rocker"], 2)),
        "eps3": ("qdd", (_ALL, _B["rocker"], 2)),
        "lever_frame": ("frames", "lever"),
    },
    "forces": {
        **{f"F_{j}": ("joints", (_ALL, _J[j], slice(0, 2))) for j in "ABCD"},
        "N_guide": ("joints", (_ALL, _J["guide"], 1)),
        "motor_torque": ("drive", (_ALL, _C["alpha"])), "slider_residual": ("drive", (_ALL, _C["x_D"])),
        "lever_axial": ("link_axial", "lever"),
    },
}


def _view(name, field_name, index):
    def get(self):
        return getattr(self, field_name)[index]

    get.__name__ = name
    return property(get, doc=f"{field_name}[{index!r}] (a view)")


def _add_views(cls, table):
    """Give a result class its named views (properties reading the general fields); the
    names go into :meth:`to_dict` (``_views``) for readers of stored results."""
    for name, (field_name, index) in table.items():
        setattr(cls, name, _view(name, field_name, index))
    cls._views = tuple(table) + tuple(getattr(cls, "_computed", ()))
    return cls


def _points(mech, q):
    """A, B, C', D over q (nt, nbody, 3): dict of (nt, 2) [m]."""
    nt = q.shape[0]
    return {"A": np.zeros((nt, 2)), "B": mech._track(q, "crank", mech.joints[_J["B"]].at),
            "C": mech._track(q, "lever", mech.link("lever").end), "D": q[:, _B["slider"], :2].copy()}


def _pin_B(q, qd, qdd, B):
    """Velocity and acceleration of the pin B on the crank: v = v_c + omega J r,
    a = a_c + eps J r - omega^2 r (r from the crank's mass centre to B)."""
    c = _B["crank"]
    rB = B - q[:, c, 0:2]
    JrB = np.column_stack([-rB[:, 1], rB[:, 0]])
    vB = qd[:, c, 0:2] + qd[:, c, 2:3] * JrB
    aB = qdd[:, c, 0:2] + qdd[:, c, 2:3] * JrB - qd[:, c, 2:3] ** 2 * rB
    return vB, aB


def _transmission_angle(theta2, theta3, psi):
    """mu = theta3 + psi - theta2 in (-pi, pi]."""
    return np.angle(np.exp(1j * (theta3 + psi - theta2)))


@dataclass(frozen=True, eq=False)  # arrays: compare fields, not objects
class WindPumpMotion(MechanismMotion):
    """The rigid motion of the wind pump: a :class:`~kanefem.mechanism.MechanismMotion`
    of its mechanism (:meth:`WindPump.mechanism`: coordinates ``alpha``, ``x_D``; bodies
    crank, lever, rocker, weight, slider), whose named quantities below are views of
    the general fields (the table ``kanefem.windpump.VIEWS["motion"]``), plus the drive
    and the parameters.  Arrays of length nt unless noted.

    Attributes
    ----------
    t : ndarray
        Time [s].
    alpha, omega1, eps1 : ndarray
        Crank angle [rad], speed [rad/s], acceleration [rad/s^2] (``z``, ``zd``, ``zdd``
        of ``alpha``).
    x_D, xdot_D, xddot_D : ndarray
        Slider position [m], velocity [m/s], acceleration [m/s^2] (of ``x_D``).
    theta2, omega2, eps2 : ndarray
        Lever angle, angular velocity and acceleration (rad, rad/s, rad/s^2).
    theta3, omega3, eps3 : ndarray
        Pendulum-arm angle (the rocker's angle), and its rates.
    a_B, v_B : ndarray, shape (nt, 2)
        Acceleration [m/s^2] and velocity [m/s] of the pin B (global x, y).
    motor_torque : ndarray
        Motor torque on the crank [N m] (``force`` of ``alpha``): the torque that keeps a
        constant speed, the torque law's value, or (recorded drive) the torque the
        measured motion implies.
    transmission_angle : ndarray
        mu = theta3 + psi - theta2 [rad], between the lever and the rocker arm DC'
        (0 or pi at a dead point).
    points : dict of ndarray, shape (nt, 2)
        Global coordinates of "A", "B", "C" (C') and "D" [m].
    lever_frame : ndarray of kanefem.FRAME_DTYPE, shape (nt,)
        The lever frame's motion (origin B, x along B->C') as the core's rows
        (omega, eps, v, a - g in the lever frame), for the elastic lever (``frames["lever"]``).
    drive : str
        "constant-speed", "torque" or "recorded".
    stats : dict
        Integration statistics (steps, rejected, evaluations, ...), steady-state data
        (floquet_multipliers), or smoothing data (noise, lam) for recorded motions (lam of
        alpha and of x_D; None where the noise exceeds the samples' scatter about a
        straight line, which is then the fit).
    params : WindPumpParams
        The parameters the motion was solved with.
    """

    drive: str
    params: WindPumpParams

    _computed = ("points", "v_B", "a_B", "transmission_angle")

    @functools.cached_property
    def points(self):
        return _points(self.mechanism, self.q)

    @functools.cached_property
    def _pin(self):
        return _pin_B(self.q, self.qd, self.qdd, self.points["B"])

    @property
    def v_B(self):
        return self._pin[0]

    @property
    def a_B(self):
        return self._pin[1]

    @property
    def transmission_angle(self):
        return _transmission_angle(self.theta2, self.theta3, self.params.psi)

    def sketch(self, ax=None, n_positions=12):
        """Draw the mechanism at n_positions instants (needs matplotlib); returns the axes.

        The papers' motion sketches (seed 004, Figs. 3-4): crank, lever, rocker with its
        pendulum and weight, the paths of B and C' and the guide.
        """
        from .. import _plots

        n_positions = _checks.integer("n_positions", n_positions, minimum=1, maximum=1000)
        if ax is None:
            import matplotlib.pyplot as plt

            ax = plt.subplots(figsize=(6, 4.5))[1]
        elif not all(hasattr(ax, a) for a in ("plot", "set_aspect")):
            raise TypeError(f"ax must be matplotlib Axes, got {type(ax).__name__}")
        _plots.sketch(ax, self, n_positions=n_positions)
        return ax

    def _columns(self):
        """The table's columns (see :mod:`kanefem._results` for the naming scheme)."""
        return {
            "t_s": self.t, "crank_deg": np.degrees(self.alpha - self.alpha[0]), "alpha_rad": self.alpha,
            "x_D_m": self.x_D, "omega1_rad_s": self.omega1,
            "xdot_D_m_s": self.xdot_D, "eps1_rad_s2": self.eps1, "xddot_D_m_s2": self.xddot_D,
            "theta2_rad": self.theta2, "omega2_rad_s": self.omega2, "eps2_rad_s2": self.eps2,
            "theta3_rad": self.theta3, "omega3_rad_s": self.omega3, "eps3_rad_s2": self.eps3,
            "a_B_x_m_s2": self.a_B[:, 0], "a_B_y_m_s2": self.a_B[:, 1],
            "motor_torque_Nm": self.motor_torque, "transmission_angle_rad": self.transmission_angle,
        }


@dataclass(frozen=True, eq=False)  # arrays: compare fields, not objects
class JointForces(MechanismForces):
    """Joint (liaison) forces over a wind-pump motion: a
    :class:`~kanefem.mechanism.MechanismForces` of its mechanism whose named forces are
    views of the general fields (the table ``kanefem.windpump.VIEWS["forces"]``; global
    x, y components; arrays of length nt, or (nt, 2)).

    Each force is the one the body nearer the motor exerts on the next in the chain
    ground - crank - lever - rocker - slider (the other body feels its opposite).

    Attributes
    ----------
    t : ndarray
        Time [s].
    F_A : ndarray, shape (nt, 2)
        Ground on crank at A [N].
    F_B : ndarray, shape (nt, 2)
        Crank on lever at B [N].
    F_C : ndarray, shape (nt, 2)
        Lever on rocker at C' [N].
    F_D : ndarray, shape (nt, 2)
        Rocker on slider at D [N].
    N_guide : ndarray
        Guide on slider, vertical [N].
    motor_torque : ndarray
        Motor torque on the crank [N m] (``drive`` of ``alpha``).
    slider_residual : ndarray
        Horizontal force the slider lacks for this motion [N] (``drive`` of ``x_D``):
        zero to round-off for a motion of the model; for a recorded motion, the load
        the model does not describe (or the measurement's error).
    lever_axial : ndarray, shape (nt, 3)
        The lever's axial force N(x) = c0 + c1 x + c2 x^2 (tension > 0, x from B
        along BC' [m]) from the joint forces at B and C' and the lever's axial inertia
        and weight: coefficients [N, N/m, N/m^2] (``link_axial["lever"]``).
    """

    def _columns(self):
        """The table's columns (see :mod:`kanefem._results` for the naming scheme)."""
        return {
            "t_s": self.t,
            "F_A_x_N": self.F_A[:, 0], "F_A_y_N": self.F_A[:, 1],
            "F_B_x_N": self.F_B[:, 0], "F_B_y_N": self.F_B[:, 1],
            "F_C_x_N": self.F_C[:, 0], "F_C_y_N": self.F_C[:, 1],
            "F_D_x_N": self.F_D[:, 0], "F_D_y_N": self.F_D[:, 1],
            "N_guide_N": self.N_guide, "motor_torque_Nm": self.motor_torque,
            "slider_residual_N": self.slider_residual,
            "lever_N0_N": self.lever_axial[:, 0], "lever_N1_N_m": self.lever_axial[:, 1],
            "lever_N2_N_m2": self.lever_axial[:, 2],
        }


_add_views(WindPumpMotion, VIEWS["motion"])
_add_views(JointForces, VIEWS["forces"])


@dataclass(frozen=True, eq=False)  # arrays: compare fields, not objects
class LeverEigenvalues(LinkEigenvalues):
    """Frozen-time eigenvalues of the lever BC' over a wind-pump motion: the
    :class:`~kanefem.mechanism.LinkEigenvalues` of its elastic link (the seeds' method:
    K_G off by default; ``s`` with ``gyroscopic``; ``options`` records the choices)."""


#: the lever's PlanarBeam arguments and the pump's parameters they come from
_LEVER_NAMES = {"length": "l2", "E": "E2", "A": "A2", "I": "I2", "rho": "rho2"}


class WindPump:
    """The wind-pump mechanism: rigid motion, joint forces and the elastic lever.

    A preset of the general :class:`~kanefem.mechanism.Mechanism`: the parameters of
    :class:`WindPumpParams` make the core's wind pump (with its closed-form assembly as
    the branch rule) once, :meth:`mechanism`; every computation goes through that
    mechanism's methods, in the pump's terms (rpm and turns; results whose named
    quantities, x_D, alpha, F_A, ..., are views of the general results).  Not a
    subclass: its methods take the pump's arguments (``solve(rpm, revolutions)``,
    ``kinematics(alpha, x_D)``, a file of parameters), which a Mechanism's do not.

    Parameters
    ----------
    **overrides
        Any field of :class:`WindPumpParams` (SI units); the rest keep the reference
        configuration.

    Attributes
    ----------
    params : WindPumpParams

    Raises
    ------
    ValueError, TypeError
        An unknown parameter name, or a value out of its domain (named).

    Examples
    --------
    >>> pump = WindPump(M3=6.0)
    >>> p = pump.points(0.0, 0.55)
    >>> [round(float(v), 3) for v in p["B"]]
    [0.08, 0.0]
    >>> m = pump.solve(rpm=140, revolutions=1)
    >>> f = pump.joint_forces(m)
    >>> bool(abs(f.slider_residual).max() < 1e-9)
    True
    """

    def __init__(self, **overrides):
        unknown = sorted(set(overrides) - set(_FIELDS))
        if unknown:
            raise ValueError(
                f"unknown wind-pump parameter(s) {', '.join(map(repr, unknown))}; "
                f"known: {', '.join(_FIELDS)}"
            )
        self.params = WindPumpParams(**overrides)
        self._vec = self.params._vector()
        self._levers = {}
        self._mechanisms = {}
        try:
            self._mechanism = self.mechanism()
        except (ValueError, TypeError) as exc:  # derived values (the lever's mass, inertia) out of range
            p = self.params
            named = self._extreme_text() or "; parameters " + ", ".join(
                f"{k} = {getattr(p, k)!r}" for k in ("l2", "E2", "A2", "I2", "rho2", "m1", "J1", "m3", "J3", "M3"))
            raise type(exc)(f"{exc} (building the wind pump{named})") from None

    def mechanism(self, n_elements=10) -> Mechanism:
        """The wind pump as a general :class:`~kanefem.mechanism.Mechanism` (docs/theory.md section 5.13).

        Five bodies -- ``crank``, ``lever`` (an elastic link of ``n_elements``
        elements), ``rocker``, ``weight`` (G, welded to the rocker) and ``slider`` --
        and six joints -- ``A``, ``B``, ``C`` (C'), ``D``, the weld ``G`` and the
        ``guide`` (prismatic, carrying the slider's spring, friction and pump load);
        coordinates ``alpha`` and ``x_D``.  It is the core's wind pump, with the
        closed-form assembly as its branch rule, made once per ``n_elements``; every
        computation of this class goes through it.  Its
        :meth:`~kanefem.mechanism.Mechanism.to_toml` writes the general description
        (the drawing at alpha = 0, x_D = x_D0).
        """
        n = _checks.integer("n_elements", n_elements, minimum=1, maximum=PlanarBeam.MAX_ELEMENTS)
        if n not in self._mechanisms:
            self._mechanisms[n] = Mechanism._from_core(_core.windpump_mech(params=self._vec), "wind pump",
                                                       _BODIES, _JOINTS, links={"lever": self.lever(n)})
        return self._mechanisms[n]

    animate = _animation.animate  # the pump in motion, the lever's deformation magnified (GIF/MP4)
    draw_frame = _animation.draw_frame

    def __repr__(self):
        p, ref = self.params, WindPumpParams()
        changed = [f"{n}={getattr(p, n)!r}" for n in _FIELDS if getattr(p, n) != getattr(ref, n)]
        return f"WindPump({', '.join(changed)})"

    def replace(self, **changes) -> "WindPump":
        """A new wind pump with some parameters changed."""
        return WindPump(**{**self.params.as_dict(), **changes})

    # ------------------------------------------------------------ files

    @classmethod
    def from_toml(cls, path) -> "WindPump":
        """Read parameters from a TOML file (tables as in :meth:`to_toml`, or top-level
        keys); missing ones keep the reference configuration.  Other programs' tables
        (``[run]`` and ``[sweep]`` of ``python -m kanefem windpump``) are skipped.

        Raises
        ------
        ValueError
            An unknown table or key, or an invalid value (named, with the file).
        """
        path = _checks.path("path", path)
        data = read_toml(path)
        flat = {}
        for key, value in data.items():
            if key in ("run", "sweep") and isinstance(value, dict):
                continue  # the command line's options of the run that wrote the file (python -m kanefem)
            if isinstance(value, dict):
                if key not in GROUPS:
                    raise ValueError(f"{path}: unknown table [{key}] (known: {', '.join(GROUPS)})")
                for k, v in value.items():
                    if k not in GROUPS[key]:
                        raise ValueError(f"{path}: [{key}] has no parameter {k!r} (it has {', '.join(GROUPS[key])})")
                    flat[k] = v
            else:
                flat[key] = value
        try:
            return cls(**flat)
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"{path}: {exc}") from None

    def to_dict(self) -> dict:
        """The parameters as the tables of :meth:`to_toml` (``GROUPS``)."""
        p = self.params
        return {g: {k: getattr(p, k) for k in keys} for g, keys in GROUPS.items()}

    def toml_comment(self) -> str:
        """The comment heading the pump's TOML file."""
        return ("kanefem wind-pump configuration (SI units, angles in radians)\n"
                "see kanefem.WindPumpParams for the meaning of every value")

    def to_toml(self, path, comment=None):
        """Write all parameters to a TOML file (atomically); return its path."""
        path = _checks.path("path", path)
        return write_toml(path, self.to_dict(), comment=comment or self.toml_comment())

    # ------------------------------------------------------------ kinematics

    def _kinematics(self, alpha, x_D, omega1=0.0, xdot_D=0.0, eps1=0.0, xddot_D=0.0):
        names = ("alpha", "x_D", "omega1", "xdot_D", "eps1", "xddot_D")
        values = [_checks.array(n, v) for n, v in zip(names, (alpha, x_D, omega1, xdot_D, eps1, xddot_D))]
        try:
            cols = np.broadcast_arrays(*values)
        except ValueError:
            shapes = ", ".join(f"{n} {v.shape}" for n, v in zip(names, values))
            raise ValueError(f"the states do not broadcast together: {shapes}") from None
        shape = cols[0].shape
        if cols[0].size == 0:
            shapes = ", ".join(f"{n} {v.shape}" for n, v in zip(names, values))
            raise ValueError(f"the states are empty (broadcast shape {shape}): {shapes}")
        _checks.output_size(", ".join(names), cols[0].size * float(_VALUES_PER_INSTANT), "kinematics")
        s = np.column_stack([c.ravel() for c in cols]) if cols[0].size else np.zeros((0, 6))
        try:
            return shape, self._named_kinematics(s[:, 0:2], s[:, 2:4], s[:, 4:6])
        except _core.RangeError as exc:
            largest = ", ".join(f"|{n}| <= {np.abs(c).max(initial=0):g}" for n, c in zip(names, cols))
            raise _core.RangeError(f"{exc}: the states ({largest}){self._extreme_text()} make "
                                   "velocities or accelerations beyond the double range") from None

    def _named_kinematics(self, z, zd, zdd):
        """The general mechanism's kinematics in the wind pump's terms: the three bodies'
        angles and rates, the transmission angle, A, B, C', D, the twelve mass
        coordinates, A and B of r' = A u, r'' = A u' + B w, B's rates, the lever frame
        (the helpers the motion's views use)."""
        mech = self._mechanism
        k = mech.kinematics(z, zd, zdd)
        nt = z.shape[0]
        q, qd, qdd = (k[n].reshape(nt, -1) for n in ("q", "qd", "qdd"))
        # B of r'' = A u' + B w, w = (omega1^2, omega1 xdot_D, xdot_D^2): the velocity
        # term c at unit rates (it is quadratic in them)
        c = [mech.kinematics(z, np.broadcast_to(u, z.shape))["c"] for u in ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0))]
        B = np.stack([c[0], c[2] - c[0] - c[1], c[1]], axis=-1)[:, _ROWS]
        pts = _points(mech, k["q"])
        vB, aB = _pin_B(k["q"], k["qd"], k["qdd"], pts["B"])
        theta = q[:, [2, 5, 8]]
        return {"theta": theta, "omega": qd[:, [2, 5, 8]], "eps": qdd[:, [2, 5, 8]],
                "mu": _transmission_angle(theta[:, 1], theta[:, 2], self.params.psi),
                "points": np.stack([pts[n] for n in "ABCD"], axis=1),
                "r": q[:, _ROWS], "v": qd[:, _ROWS], "a": qdd[:, _ROWS],
                "A": k["A"][:, _ROWS], "B": B, "vB": vB, "aB": aB, "lever": k["frames"]["lever"]}

    def points(self, alpha, x_D) -> dict:
        """Global coordinates of A, B, C' and D at crank angles and slider positions.

        Parameters
        ----------
        alpha : float or array_like
            Crank angle [rad].
        x_D : float or array_like
            Slider position [m] (broadcast against alpha).

        Returns
        -------
        dict
            "A", "B", "C" (C'), "D": arrays of shape alpha.shape + (2,) [m].

        Raises
        ------
        GeometryError
            Where the loop cannot close or at a dead point, naming alpha and x_D.
        """
        shape, k = self._kinematics(alpha, x_D)
        pts = k["points"]
        return {name: pts[:, i, :].reshape(shape + (2,)) for i, name in enumerate("ABCD")}

    def kinematics(self, alpha, x_D, omega1=0.0, xdot_D=0.0, eps1=0.0, xddot_D=0.0) -> dict:
        """The mechanism's kinematics at given states (arrays broadcast together).

        Returns
        -------
        dict
            ``theta``, ``omega``, ``eps`` (..., 3) for crank, lever and rocker;
            ``mu`` (transmission angle); ``points`` (..., 4, 2); the mass coordinates
            ``r``, ``v``, ``a`` (..., 12) in the order x1, y1, theta1, x2, y2, theta2,
            x3, y3, theta3, xG, yG, x_D; ``A`` (..., 12, 2) and ``B`` (..., 12, 3)
            with r' = A u and r'' = A u' + B (omega1^2, omega1 xdot_D, xdot_D^2);
            ``vB``, ``aB`` (..., 2); ``lever`` (...,): the lever's frame states (kanefem.FRAME_DTYPE).
        """
        shape, k = self._kinematics(alpha, x_D, omega1, xdot_D, eps1, xddot_D)
        return {n: a.reshape(shape + a.shape[1:]) for n, a in k.items()}

    # ------------------------------------------------------------ motion
    def solve(
        self,
        rpm=140.0,
        revolutions=1.0,
        drive="constant-speed",
        *,
        torque=None,
        samples=None,
        t=None,
        alpha0=0.0,
        x_D=None,
        xdot_D=0.0,
        omega1=None,
        points_per_revolution=360,
        steady_state=False,
        noise=None,
        rtol=1e-9,
        atol=1e-12,
        max_steps=MAX_STEPS,
    ) -> WindPumpMotion:
        """The rigid motion, by Kane's equations A^T M A u' = A^T (Q - M B w).

        Parameters
        ----------
        rpm : float
            Crank speed [rev/min], > 0: the constant speed (``"constant-speed"``), or
            the initial speed and the time scale (``"torque"``).
        revolutions : float
            Duration in crank turns at ``rpm`` (ignored when ``t`` is given).
        drive : {"constant-speed", "torque", "recorded"}
            ``"constant-speed"``: omega1 = rpm 2 pi / 60 and the motor torque is an
            output.  ``"torque"``: the motor torque is ``torque(t, alpha, omega1)``
            [N m] (or a constant).  ``"recorded"``: alpha(t) and x_D(t) are given as
            ``samples``, smoothed and differentiated by a cubic smoothing spline; the
            torque and the joint forces follow from them.
        torque : callable or float, optional
            Motor torque law for ``drive="torque"``.
        samples : (t, alpha, x_D) arrays or array_like of shape (n, 3), optional
            Recorded motion for ``drive="recorded"``: times [s] (increasing), crank
            angles [rad] (unwrapped here), slider positions [m].
        t : array_like, optional
            Output times [s], increasing, the first one the initial instant; default:
            ``points_per_revolution`` equally spaced instants per turn from 0, end
            excluded (recorded: the sample times).
        alpha0 : float
            Initial crank angle [rad], within +-1e6 (beyond, a double cannot resolve the
            crank's turning).
        x_D, xdot_D : float, optional
            Initial slider position [m] (default x_D0) and velocity [m/s].
        omega1 : float, optional
            Initial crank speed for ``drive="torque"`` [rad/s] (default from rpm).
        points_per_revolution : int
            Output instants per crank turn (default 360).
        steady_state : bool
            Constant speed only: start on the periodic motion (found by shooting on
            one crank period: Newton on (x_D, xdot_D), :meth:`~kanefem.mechanism.Mechanism.solve`'s
            ``steady_state``), not from the initial state;
            ``x_D``, ``xdot_D`` are then only the first guess.  ``stats`` then holds
            the Floquet multipliers (``|mu| < 1``: the cycle attracts).
        noise : float or (float, float), optional
            Recorded only: the noise standard deviation of alpha [rad] and x_D [m];
            None estimates it from the samples; 0 interpolates.
        rtol, atol : float
            Error tolerances of the Dormand-Prince 5(4) integrator.
        max_steps : int
            Steps allowed per integration (default 10^6, about 30 s); beyond them a
            :class:`~kanefem.StepLimitError`.  A duration that needs more than
            ``max_steps`` / 10 periods of the slider's spring, 2 pi sqrt(m_D / k), is
            refused (the same error) before it starts (a Dormand-Prince step covers at most about a
            tenth of a period; measured: 13 steps per period at 0.1 rpm).

        Returns
        -------
        WindPumpMotion

        Raises
        ------
        GeometryError
            The motion reaches a position where the loop cannot close or a dead
            point (the message names t, alpha and x_D).
        ValueError, TypeError
            Bad arguments, named.
        """
        _checks.choice("drive", drive, tuple(_DRIVES))
        rtol, atol = _checks.tolerance("rtol", rtol), _checks.real("atol", atol, positive=True)
        steady_state = _checks.flag("steady_state", steady_state)
        if drive == "recorded":
            return self._recorded(samples, t, noise)
        for name, v in (("torque", torque), ("samples", samples), ("noise", noise)):
            needed = {"torque": "torque", "samples": "recorded", "noise": "recorded"}[name]
            if v is not None and drive != needed:
                raise ValueError(f"{name} is only used with drive={needed!r}, not drive={drive!r}")
        rpm = _checks.real("rpm", rpm, positive=True)
        omega = rpm * 2.0 * math.pi / 60.0
        if not omega > 0.0:
            raise ValueError(f"rpm = {rpm!r} is too small: the crank speed underflows to {omega!r} rad/s")
        period = 2.0 * math.pi / omega
        tt = self._time_grid(t, revolutions, period, points_per_revolution)
        x0 = self.params.x_D0 if x_D is None else _checks.real("x_D", x_D)
        y0 = np.array([_checks.angle("alpha0", alpha0), x0, omega, _checks.real("xdot_D", xdot_D)])
        max_steps = _checks.integer("max_steps", max_steps, minimum=1, maximum=2**62)
        self._check_duration(max(tt[-1] - tt[0], period if steady_state else 0.0), rpm, revolutions, t,
                             max_steps)
        if drive == "constant-speed":
            if omega1 is not None:
                raise ValueError("omega1 is only used with drive='torque' (the speed is rpm here)")
            drives = {"alpha": ConstantSpeed(omega)}
        else:
            if steady_state:
                raise ValueError("steady_state needs drive='constant-speed'")
            if torque is None:
                raise ValueError("drive='torque' needs torque=f(t, alpha, omega1) [N m] or a constant")
            drives = {"alpha": Torque(torque if callable(torque) else _checks.real("torque", torque))}
            if omega1 is not None:
                y0[2] = _checks.real("omega1", omega1)
        try:
            motion = self._mechanism.solve(tt, drives=drives, z0=y0[:2], zd0=y0[2:], steady_state=steady_state,
                                           rtol=rtol, atol=atol, max_steps=max_steps)
        except (_core.RangeError, _core.StepLimitError) as exc:
            raise type(exc)(f"{exc} (solving at rpm = {rpm!r} with drive = {drive!r}, from alpha0 = "
                            f"{y0[0]!r}, x_D = {y0[1]!r}{self._extreme_text()}; t from {tt[0]:g} to "
                            f"{tt[-1]:g} s)") from None
        return self._pump_motion(motion, drive)

    def _extreme_text(self):
        return _extreme_text(self.params)

    def _check_duration(self, t_end, rpm, revolutions, t, max_steps):
        """Refuse a duration the integrator cannot cover in max_steps steps: more than
        max_steps / 10 periods of the slider's spring 2 pi sqrt(m_D / k)."""
        p = self.params
        if not p.m_D > 0.0:  # (t_end / 0 raised ZeroDivisionError)
            raise ValueError(f"m_D = {p.m_D!r}: the slider's equation of motion m_D x_D'' = F needs a mass "
                             "(> 0) to integrate")
        if p.k <= 0.0:
            return
        periods = t_end / (2.0 * math.pi * math.sqrt(p.m_D / p.k))
        if not periods * 10.0 <= max_steps:
            given = "t" if t is not None else f"revolutions = {revolutions!r}"
            raise _core.StepLimitError(
                f"rpm = {rpm!r} with {given} lasts {t_end:.4g} s, {periods:.3g} periods of the slider's "
                f"spring (2 pi sqrt(m_D / k) with m_D = {p.m_D!r}, k = {p.k!r}): at about 10 steps a period "
                f"more than max_steps = {max_steps} steps (raise max_steps, or shorten the run)")

    @staticmethod
    def _time_grid(t, revolutions, period, points_per_revolution):
        if t is not None:
            tt = _checks.array("t", t, ndim=1)
            if tt.size < 1 or np.any(np.diff(tt) <= 0):
                raise ValueError("t must be a non-empty, strictly increasing array of times [s]")
            _checks.output_size("t", tt.size * float(_VALUES_PER_INSTANT), "a motion")
            return tt
        revolutions = _checks.real("revolutions", revolutions, positive=True)
        ppr = _checks.integer("points_per_revolution", points_per_revolution, minimum=1,
                              maximum=_checks.MAX_OUTPUT_VALUES)
        n = max(1.0, round(revolutions * ppr))
        _checks.output_size(f"revolutions = {revolutions!r} and points_per_revolution = {ppr}",
                            n * _VALUES_PER_INSTANT, "a motion")
        tt = np.arange(int(n)) * (period / ppr)
        if not np.all(np.isfinite(tt)) or (tt.size > 1 and not np.all(np.diff(tt) > 0)):
            raise ValueError(f"rpm and points_per_revolution = {ppr} give the time step {period / ppr!r} s, "
                             "which does not make increasing finite times")
        return tt

    def _recorded(self, samples, t, noise):
        if samples is None:
            raise ValueError("drive='recorded' needs samples=(t, alpha, x_D)")
        if isinstance(samples, tuple) and len(samples) == 3:
            ts, al, xd = (_checks.array(n, v, ndim=1) for n, v in zip(("samples t", "samples alpha", "samples x_D"), samples))
            if not ts.shape == al.shape == xd.shape:
                raise ValueError(f"samples t, alpha, x_D must have the same length, got {ts.size}, {al.size}, {xd.size}")
        else:
            s = _checks.array("samples", samples, ndim=2)
            if s.shape[1] != 3:
                raise ValueError(f"samples must be (t, alpha, x_D) or an array of shape (n, 3), got {s.shape}")
            ts, al, xd = s.T
        if noise is None:
            na = nx = None
        elif isinstance(noise, (tuple, list, np.ndarray)):
            na, nx = (_checks.real("noise", v, nonnegative=True) for v in _checks.array("noise", noise, shape=(2,)))
        else:
            na = nx = _checks.real("noise", noise, nonnegative=True)
        drives = {"alpha": Recorded(ts, np.unwrap(al), noise=na), "x_D": Recorded(ts, xd, noise=nx)}
        return self._pump_motion(self._mechanism.solve(t, drives=drives), "recorded")

    def _pump_motion(self, motion, drive):
        """The general motion of the pump's mechanism as a WindPumpMotion (the same arrays)."""
        fields = {f.name: getattr(motion, f.name) for f in dataclasses.fields(MechanismMotion)}
        return WindPumpMotion(**fields, drive=drive, params=self.params)

    def _check_motion(self, motion):
        if not isinstance(motion, WindPumpMotion):
            raise TypeError(f"motion must be a WindPumpMotion (from WindPump.solve), got {type(motion).__name__}")
        if motion.params != self.params:
            raise ValueError("motion was solved for other wind-pump parameters than this pump's")

    # ------------------------------------------------------------ forces

    def joint_forces(self, motion) -> JointForces:
        """Joint forces at A, B, C', D, the guide's normal force and the motor torque.

        From the Newton-Euler equations of the crank, the lever, the rocker with its
        weight and the slider (seed 001, A32-A41), linear in the unknown forces once
        the accelerations are known: the general mechanism's
        :meth:`~kanefem.mechanism.Mechanism.joint_forces` (the multipliers of its
        constraints, one LU of its constraint Jacobian per instant in the core).

        Parameters
        ----------
        motion : WindPumpMotion
            From :meth:`solve` on this pump.

        Returns
        -------
        JointForces
        """
        self._check_motion(motion)
        return self._mechanism._forces(motion, JointForces)

    # ------------------------------------------------------------ the elastic lever

    def lever(self, n_elements=10) -> PlanarBeam:
        """The lever BC' as a PlanarBeam of n_elements equal elements (cached)."""
        n = _checks.integer("n_elements", n_elements, minimum=1, maximum=PlanarBeam.MAX_ELEMENTS)
        if n not in self._levers:
            p = self.params
            try:
                self._levers[n] = PlanarBeam(p.l2, n, E=p.E2, A=p.A2, I=p.I2, rho=p.rho2)
            except (ValueError, TypeError, _core.KanefemError) as exc:  # name the pump's parameters
                text = re.sub(r"\b(length|E|A|I|rho)(?= (=|/|must))", lambda m: _LEVER_NAMES[m.group(1)], str(exc))
                raise type(exc)(text) from None
        return self._levers[n]

    def lever_eigenvalues(
        self,
        motion,
        n_modes=2,
        n_elements=10,
        include_eps=True,
        geometric_stiffness=False,
        gyroscopic=False,
        order="ascending",
    ) -> LeverEigenvalues:
        """Frozen-time eigenvalues of the lever BC' (pinned at B and C' in the frame that
        follows them) at every instant of a motion (seed 000, Fig. 6).

        Parameters
        ----------
        motion : WindPumpMotion
            From :meth:`solve` on this pump.
        n_modes : int
            Number of lowest modes (default 2).
        n_elements : int
            Beam elements of the lever (default 10).
        include_eps : bool
            Include the non-symmetric K_eps (general solver where eps2 != 0).
        geometric_stiffness : bool
            Add K_G from the lever's axial force (joint forces at B and C' plus axial
            inertia, see ``lever_axial`` of :class:`JointForces`).  Off by default: the seeds'
            method (its published eigenvalues are without K_G); it moves the lever's first
            frequency by 0.3 % at 60 rpm, 0.9 % at 140 rpm, 1.7 % at 300 rpm.  The result's
            ``options["geometric_stiffness"]`` records the choice.
        gyroscopic : bool
            Complex eigenvalues s of s^2 M + s C + K_eff (C the Coriolis matrix of the
            lever's rotation), by a dense solve of the first-order form per instant.
        order : {"ascending", "tracked"}
            Not with ``gyroscopic``: sort at every instant, or follow each mode.

        Returns
        -------
        LeverEigenvalues

        Notes
        -----
        With K_eps and K_G off, lambda_k(t) = lambda_k(at rest) - omega2(t)^2 exactly.
        """
        self._check_motion(motion)
        beam = self.lever(n_elements)
        n_modes = _checks.integer("n_modes", n_modes, minimum=1, maximum=beam.ndof)
        _checks.choice("order", order, ("ascending", "tracked"))
        include_eps, geometric_stiffness, gyroscopic = (
            _checks.flag(name, v) for name, v in (("include_eps", include_eps),
                                                  ("geometric_stiffness", geometric_stiffness),
                                                  ("gyroscopic", gyroscopic)))
        axial = self.joint_forces(motion).lever_axial if geometric_stiffness else None
        source = "quasi-static, from the rigid motion's joint forces and axial inertia" if axial is not None else None
        options = dict(n_elements=beam.n_elements, include_eps=bool(include_eps),
                       geometric_stiffness=bool(geometric_stiffness), gyroscopic=bool(gyroscopic))
        if gyroscopic:
            if order != "ascending":
                raise ValueError("order='tracked' is not available with gyroscopic=True")
            r = beam.gyroscopic_eigenvalues(
                motion.omega2, motion.eps2, n_modes, supports="pinned-pinned", include_eps=include_eps,
                geometric_stiffness=geometric_stiffness, axial_force=axial,
            )
            lam = -(r.s**2)
            return LeverEigenvalues(
                t=motion.t, eigenvalues=lam.real, eigenvalues_imag=lam.imag,
                frequencies_hz=r.s.imag / (2.0 * math.pi), s=r.s, solver="gyroscopic",
                options=options, axial_force=axial, geometric_stiffness=geometric_stiffness,
                axial_force_source=source,
            )
        r = beam.eigenvalues_vs_time(
            motion.omega2, motion.eps2, n_modes, supports="pinned-pinned",
            include_eps=include_eps, order=order, mode_shapes=False,
            geometric_stiffness=geometric_stiffness, axial_force=axial,
        )
        return LeverEigenvalues(
            t=motion.t, eigenvalues=r.eigenvalues, eigenvalues_imag=r.eigenvalues_imag,
            frequencies_hz=_signed_hz(r.eigenvalues), s=None, solver=r.solver,
            options=options, axial_force=axial, stats=r.stats, geometric_stiffness=geometric_stiffness,
            axial_force_source=source,
        )


    def lever_response(
        self,
        motion,
        n_elements=10,
        method="newmark",
        dt=None,
        damping=None,
        initial="quasi-static",
        **simulate_options,
    ):
        """The elastic response of the lever BC' on a solved motion, in time.

        The lever (pinned at B and C' in the frame that follows them) is driven by the
        rigid motion of its frame: origin B, x axis along B->C', from the motion's
        samples of theta2 and of B (interpolated by splines, so omega2, eps2 and the
        acceleration of B are their exact derivatives), with gravity.  Its axial force
        enters only through the seeds' linear model (no K_G here; for stress stiffening
        in frozen time see :meth:`lever_eigenvalues`).

        Parameters
        ----------
        motion : WindPumpMotion
            From :meth:`solve` on this pump (at least 4 instants).
        n_elements : int
            Beam elements of the lever (default 10).
        method : str
            An integrator of :func:`kanefem.simulate` (default ``"newmark"``).
        dt : float, optional
            Fixed step of the implicit methods [s]; default 1/40 of the lever's first
            period, at most the motion's sampling interval.
        damping : optional
            As in :func:`kanefem.simulate` (e.g. ``kanefem.Rayleigh.from_ratios``).
        initial : {"quasi-static", "rest"}
            Start from the quasi-static deflection under the first instant's inertial
            and gravity loads (no start-up transient), or undeformed and at rest.
        **simulate_options
            Passed on to :func:`kanefem.simulate` (rtol, atol, progress, ...).

        Returns
        -------
        SimulationResult
            ``t`` equal to ``motion.t``, ``d`` and ``v`` over the lever's DOFs
            (u, v, theta per node, in the lever frame).
        """
        from ..motion import Motion
        from ..simulate import simulate

        self._check_motion(motion)
        _checks.choice("initial", initial, ("quasi-static", "rest"))
        if motion.t.shape[0] < 4:
            raise ValueError(f"motion must have at least 4 instants, got {motion.t.shape[0]}")
        beam = self.lever(n_elements)
        t0 = float(motion.t[0])
        t = motion.t - t0
        frame = Motion.from_samples(t, np.unwrap(motion.theta2), motion.points["B"])
        d0 = None
        if initial == "quasi-static":
            d0 = self.lever_quasi_static(motion.lever_frame[0], n_elements)
        if dt is None and method in ("newmark", "generalized-alpha"):
            w1 = math.sqrt(max(beam.eigenvalues(1, supports="pinned-pinned").eigenvalues[0], 0.0))
            dt = min(2 * math.pi / w1 / 40, float(np.min(np.diff(t))))
        r = simulate(beam, frame, float(t[-1]), dt=dt, method=method, supports="pinned-pinned",
                     damping=damping, d0=d0, t_eval=t, gravity=(0.0, -self.params.g),
                     **simulate_options)
        return dataclasses.replace(r, t=motion.t.copy())

    def lever_quasi_static(self, frame, n_elements=10) -> np.ndarray:
        """The lever's quasi-static deflection at one instant: (K + K_eps + K_om) d =
        -q_a - q_eps - q_om, pinned-pinned (``quasi_static`` of ``kanefem.mechanism.model``).

        Parameters
        ----------
        frame : record of kanefem.FRAME_DTYPE
            The lever frame's state at the instant (a row of ``motion.lever_frame``).
        n_elements : int
            Beam elements of the lever (default 10).

        Returns
        -------
        ndarray (3 (n_elements + 1),)
            u, v, theta per node, in the lever frame [m, rad].
        """
        beam = self.lever(n_elements)
        return quasi_static(beam, frame, beam.support_mask("pinned-pinned"))
