"""Case studies: the seeds' examples and the literature's benchmarks as functions.

* :class:`RotatingBar` / :func:`rotating_bar` / :func:`rotating_bar_sweep` -- the bar
  of seed 002 (Vlase, Nicolescu, Marin 2020), sections 4a and 4c: a bar spinning at
  15 rad/s about an axis through one end, driven by a sinusoidal axial force at the
  other end.
* :class:`SpinUp` / :func:`spin_up` -- the cantilever spun up from rest (Simo and
  Vu-Quoc 1986/87; Kane, Ryan and Banerjee 1987), with and without geometric stiffness.

Each returns :class:`kanefem.SimulationResult` objects; the notebooks in
``notebooks/`` plot them.

Ready-made studies for :func:`kanefem.sweep` (keyword parameters in, a mapping of
arrays and scalars out; module-level, so they also run on processes and Dask):

* :func:`windpump_lever` -- the lever's eigenvalues over a crank turn of the wind
  pump, against rpm and any :class:`~kanefem.WindPumpParams` field;
* :func:`beam_eigenvalues` -- a beam's or bar's eigenvalues against the frame's
  speed, acceleration, section, ... (a Campbell diagram over omega);
* :func:`rotating_bar_response` -- seed 002's rotating bar against section, forcing
  period, mass, ... (:func:`rotating_bar_sweep` is the same with full results);
* :func:`mechanism_links` -- any mechanism described in TOML: its motion, drive forces
  and elastic links' eigenvalues against any number in its file (``link__rod__E``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from . import _checks
from .bodies import AxialBar, PlanarBeam
from .motion import Motion
from .simulate import HarmonicLoad, Rayleigh, simulate

# ---------------------------------------------------------------- the rotating bar


@dataclass(frozen=True)
class RotatingBar:
    """The rotating bar of seed 002, section 4a (all values SI).

    A bar of length L, mass m and section A spins at omega about an axis
    perpendicular to it through its first node (fixed axially there); an axial force
    F sin(2 pi t / T) acts at the free end.  Nodes are numbered 0..n from the axis
    (the paper's node k is index k - 1).

    The paper gives L = 1 m, m = 1 kg, A = 0.2 cm^2, E = 210 GPa, 15 rad/s and
    T = pi/100 s, but neither the force amplitude nor the damping.  Chosen here:

    * ``force = 100 N``: the static stretch it causes at the tip, F L / EA = 24 um,
      is of the order of the centrifugal stretch rho omega^2 L^3 / 3 E = 18 um, so
      both show in the plots;
    * ``damping_ratio``: stiffness-proportional Rayleigh damping C_d = beta K with
      the ratio zeta on the first axial mode at rest (beta = 2 zeta / omega_1); the
      higher modes get zeta omega_k / omega_1, so the start-up transient dies within
      a few periods of the first mode with zeta = 0.05 (the "with damping" cases).

    In the sweeps over the section the mass is kept (the density follows, rho =
    m / (A L)): only the stiffness EA changes; in the sweep over the mass the section
    is kept.  The bar starts undeformed and at rest in its rotating frame, so the
    centrifugal load acts suddenly, as in the paper's figures.

    Examples
    --------
    >>> bar = RotatingBar()
    >>> round(bar.rho), round(bar.force_omega, 6)
    (50000, 200.0)
    """

    length: float = 1.0
    mass: float = 1.0
    area: float = 0.2e-4
    E: float = 210e9
    omega: float = 15.0
    n_elements: int = 10
    force: float = 100.0
    force_period: float = math.pi / 100
    damping_ratio: float = 0.0

    def __post_init__(self):
        for name in ("length", "mass", "area", "E", "force_period"):
            _checks.real(name, getattr(self, name), positive=True)
        _checks.real("omega", self.omega)
        _checks.real("force", self.force)
        _checks.real("damping_ratio", self.damping_ratio, nonnegative=True)
        _checks.integer("n_elements", self.n_elements, minimum=1, maximum=PlanarBeam.MAX_ELEMENTS)
        with np.errstate(all="ignore"):
            rho = float(np.float64(self.mass) / (np.float64(self.area) * self.length))
        if not np.finfo(float).tiny <= rho <= np.finfo(float).max:
            raise ValueError(f"the density mass / (area * length) = {rho!r} of mass = {self.mass!r}, "
                             f"area = {self.area!r}, length = {self.length!r} is not a normal double")

    @property
    def rho(self) -> float:
        """Density m / (A L) [kg/m^3]."""
        return self.mass / (self.area * self.length)

    @property
    def force_omega(self) -> float:
        """Angular frequency of the end force 2 pi / T [rad/s]."""
        return 2 * math.pi / self.force_period

    def body(self) -> AxialBar:
        return AxialBar(self.length, self.n_elements, E=self.E, A=self.area, rho=self.rho)

    def motion(self) -> Motion:
        return Motion.constant_speed(self.omega)

    def loads(self, body) -> HarmonicLoad:
        return HarmonicLoad.nodal(body, -1, "u", self.force, self.force_omega)

    def first_frequency(self) -> float:
        """First axial natural frequency at rest, fixed-free [rad/s] (finite elements)."""
        return math.sqrt(self.body().eigenvalues(1, mode_shapes=False).eigenvalues[0])

    def damping(self):
        """Rayleigh beta K with zeta on the first mode, or None."""
        if self.damping_ratio == 0.0:
            return None
        return Rayleigh(beta=2 * self.damping_ratio / self.first_frequency())

    def simulate(self, t_end=0.1, method="newmark", dt=1e-5, t_eval=None, progress=False, **kw):
        """Simulate the bar; see :func:`kanefem.simulate` for the arguments."""
        body = self.body()
        return simulate(body, self.motion(), t_end, dt=dt, method=method, supports="fixed-free",
                        loads=self.loads(body), damping=self.damping(), t_eval=t_eval,
                        progress=progress, **kw)


def rotating_bar(t_end=0.1, method="newmark", dt=1e-5, t_eval=None, progress=False, **params):
    """The rotating bar of seed 002 over [0, t_end].

    Parameters
    ----------
    t_end : float
        End time [s].
    method, dt, t_eval, progress
        As in :func:`kanefem.simulate` (dt = 1e-5 s: 195 steps per period of the first
        axial mode of the 10-element bar; ignored as a fixed step by the RK methods).
    **params
        Fields of :class:`RotatingBar` (length, mass, area, E, omega, n_elements, force,
        force_period, damping_ratio); other keywords go to :func:`kanefem.simulate`
        (e.g. rtol, atol).

    Returns
    -------
    SimulationResult
        ``d`` (nt, n_elements + 1): axial displacements u [m] of the nodes.

    Examples
    --------
    >>> r = rotating_bar(t_end=0.01, damping_ratio=0.05)
    >>> r.d.shape
    (1001, 11)
    """
    if isinstance(method, str) and method.startswith("rk"):  # simulate checks the name
        dt = None
    fields = {k: params.pop(k) for k in list(params) if k in RotatingBar.__dataclass_fields__}
    return RotatingBar(**fields).simulate(t_end, method=method, dt=dt, t_eval=t_eval,
                                          progress=progress, **params)


def rotating_bar_sweep(parameter, values, t_end=0.1, method="newmark", dt=1e-5, t_eval=None,
                       **params):
    """The rotating bar for several values of one parameter (seed 002, section 4c).

    Parameters
    ----------
    parameter : str
        A field of :class:`RotatingBar`, e.g. ``"area"``, ``"force_period"``, ``"mass"``.
    values : sequence
        Its values.
    t_end, method, dt, t_eval, **params
        As in :func:`rotating_bar` (params: the other fields, held fixed).

    Returns
    -------
    dict
        value -> SimulationResult, in the order given.
    """
    from .simulate import SimulationResult
    from .sweep import sweep

    _checks.choice("parameter", parameter, tuple(RotatingBar.__dataclass_fields__))
    values = _checks.sequence("values", values)
    fixed = {k: v for k, v in RotatingBar(**params).__dict__.items() if k != parameter}
    study = functools.partial(rotating_bar, t_end=t_end, method=method, dt=dt, t_eval=t_eval, **fixed)
    res = sweep(study, [{parameter: v} for v in values], progress=False)
    return {v: res.result(k, SimulationResult) for k, v in enumerate(values)}


def rotating_bar_response(t_end=0.1, n_out=201, method="newmark", dt=1e-5, **params):
    """A study for :func:`kanefem.sweep`: the rotating bar's axial response (seed 002,
    section 4c, Figs. 9-14) for one set of :class:`RotatingBar` fields.

    Parameters
    ----------
    t_end : float
        End time [s].
    n_out : int
        Output instants, equally spaced over [0, t_end].
    method, dt
        As in :func:`rotating_bar`.
    **params
        Fields of :class:`RotatingBar` (area, force_period, mass, omega, force,
        damping_ratio, n_elements, length, E).

    Returns
    -------
    dict
        ``t`` (n_out,) [s]; ``u`` (n_out, n_elements + 1) nodal axial displacements
        [m]; ``tip`` (n_out,) [m]; scalars ``tip_mean_m`` and ``tip_range_m`` over the
        second half of the run; ``steps``.

    Examples
    --------
    >>> import kanefem
    >>> res = kanefem.sweep(rotating_bar_response, {"area": [0.2e-4, 0.4e-4], "t_end": 0.01},
    ...                     progress=False)
    >>> mean = res.to_dataframe()["tip_mean_m"]
    >>> bool(1.8 < mean[0] / mean[1] < 2.2)   # the stretch scales with 1 / EA
    True
    """
    n_out = _checks.integer("n_out", n_out, minimum=2, maximum=_checks.MAX_OUTPUT_VALUES)
    t = np.linspace(0.0, _checks.real("t_end", t_end, positive=True), n_out)
    r = rotating_bar(t_end, method=method, dt=dt, t_eval=t, **params)
    tip = r.d[:, -1]
    late = tip[n_out // 2:]
    return {"t": r.t, "u": r.d, "tip": tip, "tip_mean_m": late.mean(), "tip_range_m": np.ptp(late),
            "steps": r.stats.get("steps", 0)}


# ---------------------------------------------------------------- eigenvalue studies


def beam_eigenvalues(omega=0.0, eps=0.0, n_modes=4, body="beam", length=0.6, n_elements=10, E=210e9,
                     A=2.0e-4, I=1.67e-9, rho=7850.0, supports=None, include_eps=True,  # noqa: E741
                     geometric_stiffness=False):
    """A study for :func:`kanefem.sweep`: frozen-time eigenvalues of a straight beam or
    bar in a frame turning at omega [rad/s] with angular acceleration eps [rad/s^2].

    The defaults are the command line's ``eigen`` job (the steel lever, pinned at
    both ends).  Over ``omega`` it gives a Campbell diagram
    (:meth:`kanefem.SweepResult.campbell`).

    Parameters
    ----------
    omega, eps : float
        The frame's angular velocity and acceleration.
    n_modes : int
    body : {"beam", "bar"}
        :class:`~kanefem.PlanarBeam` or :class:`~kanefem.AxialBar` (no ``I``).
    length, n_elements, E, A, I, rho
        Geometry and material (SI).
    supports : str, optional
        A support preset (default: the body's, pinned-pinned for the beam here).
    include_eps, geometric_stiffness : bool
        As in :meth:`kanefem.FlexibleBody.eigenvalues`.

    Returns
    -------
    dict
        ``eigenvalues``, ``eigenvalues_imag`` [rad^2/s^2], ``frequencies_hz`` (n_modes,);
        ``solver``.

    Examples
    --------
    >>> r = beam_eigenvalues(omega=0.0, n_modes=1)
    >>> round(float(r["frequencies_hz"][0]), 2)
    65.21
    """
    _checks.choice("body", body, ("beam", "bar"))
    if body == "beam":
        b = PlanarBeam(length, n_elements, E=E, A=A, I=I, rho=rho)
        supports = "pinned-pinned" if supports is None else supports
    else:
        b = AxialBar(length, n_elements, E=E, A=A, rho=rho)
    r = b.eigenvalues(n_modes, omega=omega, eps=eps, supports=supports, include_eps=include_eps,
                      mode_shapes=False, geometric_stiffness=geometric_stiffness)
    return {"eigenvalues": r.eigenvalues, "eigenvalues_imag": r.eigenvalues_imag,
            "frequencies_hz": r.frequencies_hz, "solver": r.solver}


#: the numbers of a mechanism file that ``mechanism_links`` varies, by table
MECHANISM_KEYS = {"body": ("mass", "inertia", "angle"),
                  "link": ("length", "elements", "E", "A", "I", "rho", "angle"),
                  "joint": ("k", "s0", "damping", "friction", "v_F"),
                  "spring": ("k", "length", "damping"),
                  "coordinate": ("speed", "torque", "initial", "rate")}


def mechanism_parameter(name):
    """(table, entry, key) of a parameter ``table__entry__key`` of :func:`mechanism_links`
    (``python -m kanefem mechanism --sweep table.entry.key=...``)."""
    parts = name.split("__")
    if len(parts) != 3 or parts[0] not in MECHANISM_KEYS or parts[2] not in MECHANISM_KEYS[parts[0]]:
        raise ValueError(f"{name!r} is not a mechanism parameter TABLE__ENTRY__KEY (tables and keys: "
                         + "; ".join(f"{t}: {', '.join(k)}" for t, k in MECHANISM_KEYS.items()) + ")")
    return tuple(parts)


def mechanism_tables(tables, changes):
    """A mechanism file's tables (as tomllib reads them) with numbers changed:
    ``{"link__rod__E": 2e11, ...}``; a copy, the tables are not modified."""
    import copy

    out = copy.deepcopy(tables)
    for name, value in changes.items():
        table, entry, key = mechanism_parameter(name)
        rows = [row for row in out.get(table, []) if isinstance(row, dict) and row.get("name") == entry]
        if not rows:
            have = [str(row.get("name")) for row in out.get(table, []) if isinstance(row, dict)]
            raise ValueError(f"{name}: the file has no [[{table}]] named {entry!r} (it has "
                             f"{', '.join(map(repr, have)) or 'none'})")
        rows[0][key] = value
    return out


def mechanism_links(description, duration=0.0, revolutions=1.0, points=361, n_modes=2, include_eps=True,
                    geometric_stiffness=False, **changes):
    """A study for :func:`kanefem.sweep`: a mechanism's motion as its file describes it
    (drives, initial values), its drive forces and its elastic links' frozen-time
    eigenvalues over the motion (one way), with numbers of the file changed.

    Parameters
    ----------
    description : str
        The mechanism's tables as JSON (``json.dumps`` of what ``tomllib`` reads from its
        file; ``[run]`` and ``[sweep]`` are skipped); a string, so that it enters the
        study's name and a store never mixes points of two descriptions.
    duration, revolutions, points
        The time grid (:func:`kanefem.mechanism.file_run`).
    n_modes, include_eps, geometric_stiffness
        As in :meth:`kanefem.mechanism.Mechanism.link_eigenvalues`.
    **changes
        ``TABLE__ENTRY__KEY=value``: a number of the file, e.g. ``link__rod__E``,
        ``coordinate__crank__speed``, ``body__slider__mass`` (``MECHANISM_KEYS``).

    Returns
    -------
    dict
        ``t`` [s] (nt,); per coordinate ``<name>_drive_max`` (the largest ``|drive force|``,
        N m or N); per link ``<link>_frequencies_Hz`` (nt, n_modes) and scalars
        ``<link>_f1_min_Hz``, ``<link>_f1_max_Hz``.
    """
    import json

    from .mechanism import Mechanism, file_run

    tables = mechanism_tables(json.loads(description), changes)
    mech = Mechanism.from_dict(tables)
    t, drives, z0, zd0 = file_run(mech, duration, revolutions, points)
    motion = mech.solve(t, drives=drives, z0=z0, zd0=zd0)
    forces = mech.joint_forces(motion)
    out = {"t": motion.t}
    for k, c in enumerate(mech.coordinates):
        out[f"{c.name}_drive_max"] = float(np.abs(forces.drive[:, k]).max())
    if mech.links:
        eig = mech.link_eigenvalues(motion, n_modes=n_modes, include_eps=include_eps,
                                    geometric_stiffness=geometric_stiffness)
        for name, r in eig.items():
            out[f"{name}_frequencies_Hz"] = r.frequencies_hz
            out[f"{name}_f1_min_Hz"] = float(r.frequencies_hz[:, 0].min())
            out[f"{name}_f1_max_Hz"] = float(r.frequencies_hz[:, 0].max())
    return out


def windpump_lever(rpm=140.0, n_modes=2, n_elements=10, include_eps=True, geometric_stiffness=False,
                   points_per_revolution=360, steady_state=True, **params):
    """A study for :func:`kanefem.sweep`: the wind pump's periodic motion at ``rpm`` and
    the frozen-time eigenvalues of its lever BC' over one crank turn (seed 000, Fig. 6).

    Parameters
    ----------
    rpm : float
        Crank speed [rev/min].
    n_modes, n_elements, include_eps, geometric_stiffness
        As in :meth:`kanefem.WindPump.lever_eigenvalues`.
    points_per_revolution : int
        Instants over the turn.
    steady_state : bool
        On the periodic motion (default), or the first turn from rest at x_D0.
    **params
        Any :class:`~kanefem.WindPumpParams` field (M3, L, k, l2, I2, ...).

    Returns
    -------
    dict
        Over the turn (nt,): ``t`` [s], ``alpha`` [rad], ``x_D`` [m], ``omega2``
        [rad/s], ``motor_torque`` [N m]; (nt, n_modes): ``eigenvalues``
        [rad^2/s^2], ``frequencies_hz``; scalars ``f1_min_Hz``, ``f1_max_Hz``,
        ``motor_torque_max_Nm``, ``mean_power_W``, ``F_B_max_N`` (joint force at B).

    Examples
    --------
    >>> r = windpump_lever(rpm=140, points_per_revolution=36)
    >>> r["frequencies_hz"].shape, bool(60 < r["f1_min_Hz"] < r["f1_max_Hz"] < 70)
    ((36, 2), True)
    """
    from .windpump import WindPump

    pump = WindPump(**params)
    motion = pump.solve(rpm=rpm, revolutions=1, steady_state=steady_state,
                        points_per_revolution=points_per_revolution)
    forces = pump.joint_forces(motion)
    eig = pump.lever_eigenvalues(motion, n_modes=n_modes, n_elements=n_elements, include_eps=include_eps,
                                 geometric_stiffness=geometric_stiffness)
    f1 = eig.frequencies_hz[:, 0]
    return {
        "t": motion.t, "alpha": motion.alpha, "x_D": motion.x_D, "omega2": motion.omega2,
        "motor_torque": forces.motor_torque, "eigenvalues": eig.eigenvalues,
        "frequencies_hz": eig.frequencies_hz, "f1_min_Hz": f1.min(), "f1_max_Hz": f1.max(),
        "motor_torque_max_Nm": forces.motor_torque.max(),
        "mean_power_W": float(np.mean(forces.motor_torque * motion.omega1)),
        "F_B_max_N": float(np.hypot(*forces.F_B.T).max()),
    }


# ---------------------------------------------------------------- spin-up


@dataclass(frozen=True)
class SpinUp:
    """A cantilever on a hub spun up from rest (Simo and Vu-Quoc 1986; Kane, Ryan and
    Banerjee 1987).

    L = 10 m, EA = 2.8e7 N, EI = 1.4e4 N m^2, rho A = 1.2 kg/m (as E = 7e10 Pa,
    A = 4e-4 m^2, I = 2e-7 m^4, rho = 3000 kg/m^3), clamped to the hub at x = 0 (hub
    radius 0).  The hub turns by

        Omega(t) = (Omega_s / T_s) (t - T_s / (2 pi) sin(2 pi t / T_s))   for t < T_s,
        Omega(t) = Omega_s                                                 after,

    so the angular acceleration (Omega_s / T_s)(1 - cos(2 pi t / T_s)) rises and falls
    smoothly.  The first bending frequency at rest is 1.8751^2 sqrt(EI / rho A L^4) =
    3.80 rad/s: without geometric stiffness the linear model's lateral stiffness
    K - Omega^2 M loses definiteness once Omega exceeds it, and the deflection grows
    without bound.

    Examples
    --------
    >>> s = SpinUp(omega_s=4.0)
    >>> float(s.omega(15.0)), float(s.omega(30.0))
    (4.0, 4.0)
    """

    omega_s: float = 4.0
    T_s: float = 15.0
    length: float = 10.0
    EA: float = 2.8e7
    EI: float = 1.4e4
    rhoA: float = 1.2
    n_elements: int = 10

    def __post_init__(self):
        for name in ("T_s", "length", "EA", "EI", "rhoA"):
            _checks.real(name, getattr(self, name), positive=True)
        _checks.real("omega_s", self.omega_s)
        _checks.integer("n_elements", self.n_elements, minimum=1, maximum=PlanarBeam.MAX_ELEMENTS)
        with np.errstate(all="ignore"):  # the hub's acceleration and frequency scales
            scales = (np.float64(self.omega_s) / self.T_s, 2 * math.pi / np.float64(self.T_s))
        if not all(np.isfinite(scales)):
            raise ValueError(f"omega_s = {self.omega_s!r} and T_s = {self.T_s!r}: the hub's angular "
                             f"acceleration omega_s / T_s or 2 pi / T_s is not finite")

    def omega(self, t):
        """Hub angular velocity [rad/s] at t (array-like): the motion's, evaluated in C."""
        t = _checks.array("t", t)
        return self.motion().evaluate(t.ravel()).omega.reshape(t.shape)

    def eps(self, t):
        """Hub angular acceleration [rad/s^2] at t."""
        t = _checks.array("t", t)
        return self.motion().evaluate(t.ravel()).eps.reshape(t.shape)

    def body(self) -> PlanarBeam:
        # any (E, A, I, rho) with these products gives the same beam (no rotary inertia)
        A, I = 4e-4, 2e-7
        return PlanarBeam(self.length, self.n_elements, E=self.EA / A, A=A, I=self.EI / (self.EA / A),
                          rho=self.rhoA / A)

    def motion(self) -> Motion:
        """The hub's motion, :meth:`kanefem.Motion.spin_up` (in C: a simulation calls no Python)."""
        return Motion.spin_up(self.omega_s, self.T_s)

    def first_frequency(self) -> float:
        """First bending frequency at rest, clamped-free [rad/s] (finite elements)."""
        r = self.body().eigenvalues(1, supports="clamped-free", mode_shapes=False)
        lam = float(r.eigenvalues[0])
        if not lam > 0.0:  # round-off of a bending stiffness negligible against the rest
            raise ValueError(f"the first bending eigenvalue is {lam:g} rad^2/s^2, not positive: EI = {self.EI!r} "
                             f"is lost in round-off against EA = {self.EA!r}, rhoA = {self.rhoA!r} and "
                             f"length = {self.length!r}")
        return math.sqrt(lam)

    def simulate(self, t_end=30.0, geometric_stiffness=True, method="newmark", dt=0.005,
                 t_eval=None, progress=False, **kw):
        """Simulate the spin-up; see :func:`kanefem.simulate` for the arguments."""
        return simulate(self.body(), self.motion(), t_end, dt=dt, method=method,
                        supports="clamped-free", t_eval=t_eval, progress=progress,
                        geometric_stiffness=geometric_stiffness, **kw)


def spin_up(omega_s=4.0, geometric_stiffness=True, t_end=30.0, dt=0.005, method="newmark",
            t_eval=None, **params):
    """The spin-up of a cantilever on a hub; the tip deflection in the rotating frame is
    ``result.node(-1, "v")``.

    Parameters
    ----------
    omega_s : float
        Final hub speed [rad/s].
    geometric_stiffness : bool
        With K_G from the centrifugal tension (bounded response) or without (the seeds'
        linear model, divergent above the first bending frequency).
    t_end, dt, method, t_eval
        As in :func:`kanefem.simulate` (dt = 5 ms: 330 steps per period of the first
        bending mode; Newmark's period error is then below 1e-4).
    **params
        Other fields of :class:`SpinUp` (T_s, length, EA, EI, rhoA, n_elements).

    Returns
    -------
    SimulationResult

    Examples
    --------
    >>> r = spin_up(4.0, t_end=1.0)
    >>> float(r.t[-1])
    1.0
    """
    return SpinUp(omega_s=omega_s, **params).simulate(t_end, geometric_stiffness, method, dt, t_eval)
