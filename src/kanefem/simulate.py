"""Responses in time: the elastic body in its moving frame, integrated by the C core.

    M d'' + C(t) d' + K(t) d = f(t)                                  (docs/theory.md section 4)

with C = 2 sum W_ij S_ij + damping, K = K + K_eps + K_om [+ K_G], f = Q - q_a - q_eps -
q_om, every term a combination of the body's inertia invariants; supports eliminated.
Four methods: Newmark's average acceleration and generalized-alpha (fixed step, one
banded LU per step), and Dormand-Prince 5(4) on the Lagrange state (d, d') or on
Hamilton's canonical state (d, p), p = M d' + G d + h.
"""

from __future__ import annotations

import contextlib
import math
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from . import _checks, _core, _interrupt
from ._results import ResultMixin
from .motion import Motion

METHODS = {"newmark": 0, "generalized-alpha": 1, "rk45-lagrange": 2, "rk45-hamilton": 3}
_IMPLICIT = ("newmark", "generalized-alpha")


# ---------------------------------------------------------------- configuration


@dataclass(frozen=True)
class Rayleigh:
    """Rayleigh damping C_d = alpha M + beta K (K the elastic stiffness).

    Parameters
    ----------
    alpha : float
        Mass-proportional coefficient [1/s], >= 0.
    beta : float
        Stiffness-proportional coefficient [s], >= 0.

    Examples
    --------
    >>> r = Rayleigh.from_ratios(0.02, 100.0, 1000.0)   # 2 % at 100 and 1000 rad/s
    >>> round(r.alpha, 6), round(r.beta, 9)
    (3.636364, 3.6364e-05)
    """

    alpha: float = 0.0
    beta: float = 0.0

    def __post_init__(self):
        for name in ("alpha", "beta"):
            object.__setattr__(self, name, _checks.real(name, getattr(self, name), nonnegative=True))

    @classmethod
    def from_ratios(cls, zeta, omega_1, omega_2) -> "Rayleigh":
        """The Rayleigh damping with the damping ratio zeta at both omega_1 and omega_2.

        zeta(omega) = alpha / (2 omega) + beta omega / 2; between the two frequencies
        the ratio is a little lower, outside higher.

        Parameters
        ----------
        zeta : float
            Damping ratio (0.02 = 2 % of critical).
        omega_1, omega_2 : float
            Two distinct angular frequencies [rad/s].
        """
        zeta = _checks.real("zeta", zeta, nonnegative=True)
        w1 = _checks.real("omega_1", omega_1, positive=True)
        w2 = _checks.real("omega_2", omega_2, positive=True)
        with np.errstate(all="ignore"):
            alpha = float(2 * zeta * np.float64(w1) * w2 / (np.float64(w1) + w2))
            beta = float(2 * zeta / (np.float64(w1) + w2))
        if not (math.isfinite(alpha) and math.isfinite(beta)):
            raise ValueError(f"zeta = {zeta!r}, omega_1 = {w1!r}, omega_2 = {w2!r} give Rayleigh "
                             f"coefficients alpha = {alpha!r}, beta = {beta!r} that are not finite")
        return cls(alpha=alpha, beta=beta)


@dataclass(frozen=True)
class ModalDamping:
    """Modal damping: ratio zeta_k on mode k of the body at rest (with its supports).

    The damping matrix is C_d = M Phi diag(2 zeta_k omega_k) Phi^T M with the
    mass-normalized modes Phi of (K, M) on the free DOFs.  It is full, so the
    simulation then runs on dense matrices (cost O(n^3) per implicit step): use
    :class:`Rayleigh` for large models.

    Parameters
    ----------
    ratios : float or sequence of float
        One ratio for every mode, or the ratios of the lowest modes (the others are
        undamped).
    """

    ratios: object = 0.0

    def __post_init__(self):
        z = _checks.array("ratios", self.ratios)
        if z.ndim > 1 or np.any(z < 0):
            raise ValueError(f"ratios must be >= 0 (a number or a 1-D sequence), got {self.ratios!r}")

    def matrix(self, body, fixed) -> np.ndarray:
        """The damping matrix over the free DOFs (nfree x nfree) [N s/m].

        Parameters
        ----------
        body : FlexibleBody
        fixed : array_like of bool, shape (ndof,)
            The DOFs the supports fix (:meth:`FlexibleBody.support_mask`).
        """
        body = _body("body", body)
        fixed = np.asarray(fixed)
        if fixed.dtype != bool or fixed.shape != (body.ndof,):
            raise TypeError(f"fixed must be a bool array of shape ({body.ndof},) "
                            f"(FlexibleBody.support_mask), got {fixed.dtype} of shape {fixed.shape}")
        free = ~fixed
        # dense (a mesh body's matrices are scipy.sparse: ModalDamping's matrix is full anyway)
        M, K = (A.toarray() if hasattr(A, "toarray") else A for A in (body.mass_matrix(), body.stiffness_matrix()))
        M, K = M[np.ix_(free, free)], K[np.ix_(free, free)]
        n = M.shape[0]
        z = np.atleast_1d(_checks.array("ratios", self.ratios))
        if z.shape[0] == 1 and np.ndim(self.ratios) == 0:
            z = np.full(n, z[0])
        if z.shape[0] > n:
            raise ValueError(f"ratios gives {z.shape[0]} modes, the body has {n} free DOFs")
        # M = L L^T; modes of L^-1 K L^-T, phi = L^-T y
        L = np.linalg.cholesky(M)
        Li = np.linalg.inv(L)
        lam, Y = _interrupt.call(np.linalg.eigh, Li @ K @ Li.T, flops=10.0 * float(K.shape[0])**3)
        Phi = Li.T @ Y[:, : z.shape[0]]
        w = np.sqrt(np.clip(lam[: z.shape[0]], 0.0, None))
        MP = M @ Phi
        return (MP * (2.0 * z * w)) @ MP.T


@dataclass(frozen=True)
class HarmonicLoad:
    """An applied load Q(t) = amplitude sin(omega t + phase), evaluated in C.

    Parameters
    ----------
    amplitude : array_like, shape (ndof,)
        Nodal force amplitudes over all DOFs of the body [N, N m].
    omega : float
        Angular frequency [rad/s].
    phase : float
        Phase [rad].

    Examples
    --------
    >>> bar = __import__("kanefem").AxialBar(1.0, 10, E=210e9, A=2e-5, rho=5e4)
    >>> q = HarmonicLoad.nodal(bar, node=-1, dof="u", amplitude=100.0, omega=200.0)
    >>> float(q.amplitude[-1])
    100.0
    """

    amplitude: np.ndarray
    omega: float
    phase: float = 0.0

    def __post_init__(self):
        a = _checks.array("amplitude", self.amplitude, ndim=1).copy()
        a.setflags(write=False)
        object.__setattr__(self, "amplitude", a)
        for name in ("omega", "phase"):
            object.__setattr__(self, name, _checks.real(name, getattr(self, name)))

    @classmethod
    def nodal(cls, body, node, dof, amplitude, omega, phase=0.0) -> "HarmonicLoad":
        """A harmonic force on one DOF of one node (node may be negative: from the end)."""
        body = _body("body", body)
        vec = np.zeros(body.ndof)
        k = body._node_index(node, "node")
        _checks.choice("dof", dof, body.dof_names)
        vec[k * body.dofs_per_node + body.dof_names.index(dof)] = _checks.real("amplitude", amplitude)
        return cls(vec, omega, phase)

    @classmethod
    def constant(cls, vector) -> "HarmonicLoad":
        """A constant load (omega = 0, phase = pi/2).

        Parameters
        ----------
        vector : array_like, shape (ndof,)
            Nodal forces over all DOFs of the body [N, N m].
        """
        return cls(_checks.array("vector", vector, ndim=1), 0.0, math.pi / 2)


@dataclass(frozen=True)
class SimulationResult(ResultMixin):
    """The response of a body in time.

    Attributes
    ----------
    t : ndarray, shape (nt,)
        Output times [s].
    d, v : ndarray, shape (nt, ndof)
        Displacements [m, rad] and velocities [m/s, rad/s] over all DOFs of the
        body, zero at the supports.
    p : ndarray or None, shape (nt, ndof)
        Hamilton's momentum p = M d' + G d + h [kg m/s] (``rk45-hamilton`` only).
    method : str
    stats : dict
        ``steps``, ``rejected``, ``factorizations``, ``solves``, ``evaluations``
        (of C, K, f), and ``wall_time`` [s].
    dof_names : tuple
        The names of the DOFs of a node (column ``node * len(dof_names) + k``).
    """

    t: np.ndarray
    d: np.ndarray
    v: np.ndarray
    p: np.ndarray | None
    method: str
    stats: dict = field(default_factory=dict)
    dof_names: tuple = ()

    def stresses(self, body, at=None):
        """The response's stresses at every instant on ``body``, the body it was computed
        for: ``body.stresses(self)`` for a mesh (``at`` "gauss" or "nodes"),
        ``body.section_forces(self)`` for a line body (``at`` "ends" or "gauss").  A
        :class:`~kanefem.StressResult` with the times ``t``."""
        from .stresses import of_result

        return of_result(self, body, at)

    def node(self, node, dof=None, what="d") -> np.ndarray:
        """The history of one nodal DOF: ``what`` in ("d", "v", "p") at node ``node``.

        dof defaults to the first DOF name (``"u"``).
        """
        names = self.dof_names
        dof = names[0] if dof is None else _checks.choice("dof", dof, names)
        arr = {"d": self.d, "v": self.v, "p": self.p}[_checks.choice("what", what, ("d", "v", "p"))]
        if arr is None:
            raise ValueError(f"what = {what!r} is not available (d, v, or p for rk45-hamilton)")
        nn = arr.shape[1] // len(names)
        k = _checks.index("node", node, nn, "nodes")
        return arr[:, k * len(names) + names.index(dof)]


# ---------------------------------------------------------------- progress


def _interactive():
    """A notebook's kernel, or a terminal on stderr (not just ipykernel imported, as by a
    test runner that executes notebooks)."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    if type(shell).__name__ == "ZMQInteractiveShell":
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class _Progress:
    """Progress of a run: a tqdm bar (shown after 1 s) or a user callable."""

    def __init__(self, progress, t_end):
        self.bar = None
        self.fn = None
        if callable(progress):
            self.fn = progress
            return
        if progress is None:
            progress = _interactive()
        if not progress:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return
        self.bar = tqdm(total=t_end, unit="s", unit_scale=True, delay=1.0, leave=False,
                        desc="simulate", bar_format="{l_bar}{bar}| t = {n:.4g} / {total:.4g} s "
                        "[{elapsed}<{remaining}]")
        self.done = 0.0
        self.fn = self._update

    def _update(self, t):
        self.bar.update(t - self.done)
        self.done = t

    def close(self):
        if self.bar is not None:
            self.bar.close()


# ---------------------------------------------------------------- simulate


def _core_loads(loads, ndof):
    """The core's loads (a capsule evaluated in C, or calling a Python function)."""
    if loads is None:
        return None
    if callable(loads):
        return _core.loads_function(f=loads)
    items = [loads] if isinstance(loads, HarmonicLoad) else (list(loads) if isinstance(loads, (list, tuple)) else [])
    if not items or not all(isinstance(q, HarmonicLoad) for q in items):
        raise TypeError("loads must be None, a callable f(t) -> vector over all DOFs, "
                        f"or HarmonicLoad(s); got {loads!r}")
    A = np.array([_checks.array("loads amplitude", q.amplitude, shape=(ndof,)) for q in items])
    om = np.array([_checks.real("loads omega", q.omega) for q in items])
    ph = np.array([_checks.real("loads phase", q.phase) for q in items])
    return _core.loads_harmonic(amplitudes=A, omega=om, phase=ph)


def _damping_spec(damping, body, fixed):
    if damping is None:
        items = []
    elif isinstance(damping, (Rayleigh, ModalDamping)):
        items = [damping]
    elif isinstance(damping, (list, tuple)):
        items = list(damping)
    else:
        items = [damping]  # refused below, by name
    alpha = beta = 0.0
    dense = None
    for item in items:
        if isinstance(item, Rayleigh):
            alpha += item.alpha
            beta += item.beta
        elif isinstance(item, ModalDamping):
            m = item.matrix(body, fixed)
            dense = m if dense is None else dense + m
        else:
            raise TypeError(f"damping must be Rayleigh, ModalDamping or a list of them; got {item!r}")
    return (alpha, beta), dense


def _body(name, body):
    """A kanefem body, else a TypeError naming the argument."""
    from .bodies import FlexibleBody

    if not isinstance(body, FlexibleBody):
        raise TypeError(f"{name} must be a kanefem FlexibleBody (e.g. AxialBar, PlanarBeam), got {body!r}")
    return body


#: the default of simulate's max_steps
MAX_STEPS = 10**8
#: the largest max_steps (the core counts steps in a C long; 2^62 leaves room)
MAX_STEPS_LIMIT = 2**62


def _steps(t_end, dt, max_steps, names=("dt", "t_end"), what="fixed steps", hint=" (or raise max_steps)"):
    """The number of steps of size dt over t_end (dt rounded down to reach t_end: the
    fixed steps the core takes; for a largest step, the fewest steps), refused beyond
    max_steps (a StepLimitError naming ``names``) before any step is taken."""
    n = t_end / dt * (1.0 - 4.0 * np.finfo(float).eps)
    if not n <= max_steps:
        raise _core.StepLimitError(f"{names[0]} = {dt!r} and {names[1]} = {t_end!r} need {n:.4g} {what}, more "
                                   f"than max_steps = {max_steps}: use a larger {names[0]}{hint}")
    return max(1, math.ceil(n))


def simulate(
    body,
    motion,
    t_end,
    dt=None,
    method="newmark",
    supports=None,
    loads=None,
    damping=None,
    d0=None,
    v0=None,
    t_eval=None,
    rtol=1e-8,
    atol=1e-12,
    progress=None,
    *,
    rho_inf=0.8,
    max_step=None,
    max_steps=None,
    divergence_limit=None,
    gravity=None,
    geometric_stiffness=False,
    constraints=None,
) -> SimulationResult:
    """The response of a flexible body in a moving frame, from t = 0 to t_end.

    Parameters
    ----------
    body : FlexibleBody
        E.g. :class:`kanefem.AxialBar`, :class:`kanefem.PlanarBeam`, :class:`kanefem.Beam3D`
        (a planar body takes rotations about its frame's z axis only).
    motion : Motion
        The rigid motion of the body's frame (:class:`kanefem.Motion`).
    t_end : float
        End time [s] (> 0).
    dt : float, optional
        Implicit methods: the fixed step [s], rounded down so that whole steps reach
        t_end; default the smaller of t_end / 1000 and 1/40 of the first natural
        period at rest (for up to 2000 free DOFs; t_end / 1000 beyond).  RK methods: the first step (default: automatic).
    method : {"newmark", "generalized-alpha", "rk45-lagrange", "rk45-hamilton"}
        Newmark average acceleration (second order, no numerical damping, energy
        conserving); generalized-alpha (Chung-Hulbert, second order, high-frequency
        dissipation set by ``rho_inf``); adaptive Dormand-Prince 5(4) on (d, d') or
        on Hamilton's (d, p).
    supports : str or dict, optional
        As in :meth:`FlexibleBody.support_mask`; default the body's usual supports
        (``"fixed-free"`` for a bar, ``"pinned-pinned"`` for a beam).
    loads : callable, HarmonicLoad or list of HarmonicLoad, optional
        Applied nodal forces Q(t) over all DOFs [N, N m]: ``f(t) -> ndarray (ndof,)``
        (called from C at every evaluation; entries at supports are ignored), or
        harmonic loads evaluated in C.
    damping : Rayleigh, ModalDamping or list of them, optional
    d0, v0 : array_like, shape (ndof,), optional
        Initial displacements and velocities over all DOFs (zero at supports);
        default zero.
    t_eval : array_like, optional
        Output times in [0, t_end], non-decreasing.  Default: every step of an
        implicit method; 1001 equally spaced instants for RK.
    rtol, atol : float
        RK error tolerances (per component: ``atol + rtol |y|``).
    progress : None, bool or callable
        None: a tqdm bar when tqdm is installed and the session is interactive
        (shown once a run lasts more than 1 s); False: none; True: tqdm if
        installed; a callable ``progress(t)`` is called about every 0.1 s of wall
        time.  Ctrl-C stops a run in every case.
    rho_inf : float
        Generalized-alpha: spectral radius at infinite step, in [0, 1].
    max_step : float, optional
        RK: the largest step [s]; t_end / max_step steps beyond ``max_steps`` are
        refused before the run starts.
    max_steps : int, optional
        Steps allowed (default 10^8, at most 2^62); beyond them a KanefemError.  The
        fixed-step methods check t_end / dt against it before they start.
    divergence_limit : float, optional
        Stop with DivergenceError when some ``|d_i|`` exceeds this (default 1e100); the
        solution becoming non-finite always stops.
    gravity : array_like, shape (2,) or (3,), optional
        Gravity in the global frame [m/s^2], e.g. (0, -9.81) for a planar motion, (0,
        0, -9.81) for a spatial one (:meth:`Motion.constant_spin`,
        :meth:`Motion.from_rotations`); needs a motion whose orientation is known (all
        but a function motion).
    geometric_stiffness : bool
        Add K_G(t) from the quasi-static axial force of each instant (the frame's
        inertial loads, gravity, the axial end loads in ``loads`` and the axial
        supports), or for any other body (meshes in dense or sparse storage included)
        from the linear prestress of those loads (docs/theory.md section 2.11); see
        :meth:`FlexibleBody.axial_force`.  Off by default, as in the seeds' model.
    constraints : array_like or scipy.sparse matrix, shape (k, ndof), optional
        Linear constraints G d = 0 besides the supports (ties between DOFs, a roller on
        an inclined track), eliminated by Maggi's projection onto the sparse elimination
        basis d = T z (:func:`kanefem.elimination_basis`, docs/theory.md section 3.3):
        the body's equations projected, T^T (M T z'' + ...) = T^T f, the loads T^T Q, the
        response expanded to all DOFs (G d = 0 at every output).  ``d0`` and ``v0`` must
        satisfy them; the K_G of ``geometric_stiffness`` takes its axial end fixity from
        the supports and its prestress from the constrained motions.  Not with
        ``ModalDamping`` or ``rk45-hamilton`` (the constrained momentum has no value per
        DOF).

    Returns
    -------
    SimulationResult
        ``t`` (a copy of ``t_eval``), ``d``, ``v`` (nt x ndof, zero at supports), ``p``
        (Hamilton), ``stats``.

    Raises
    ------
    ValueError
        Bad arguments (named), a motion or load that is not finite at some time.  Sizes
        are checked before anything is allocated: a fixed step needing more than
        ``max_steps`` steps to reach t_end, outputs (len(t_eval) x ndof x 2, or 3 with
        Hamilton's momentum) beyond 2^28 doubles (2 GiB, ``kanefem._checks.
        MAX_OUTPUT_VALUES``), and an ``rtol`` below 100 machine epsilons (2.2e-14, which
        no step in double precision can meet) are refused by name.
    DivergenceError
        The solution became non-finite or exceeded ``divergence_limit`` (the message
        names the time).
    StepLimitError
        max_steps was reached, or an RK step size fell below what the time's precision
        resolves (tolerances that cannot be met); the message names the time.
    KeyboardInterrupt
        Ctrl-C (checked about every 0.1 s while the core runs).
    KanefemError
        The base of the above; also raised directly when a progress callable stops the run.

    Examples
    --------
    >>> import kanefem
    >>> bar = kanefem.AxialBar(1.0, 10, E=210e9, A=2e-5, rho=5e4)
    >>> r = kanefem.simulate(bar, kanefem.Motion.constant_speed(15.0), 0.01, dt=1e-5,
    ...                      progress=False)
    >>> r.d.shape, r.stats["steps"]
    ((1001, 11), 1000)
    """
    body = _body("body", body)
    if not isinstance(motion, Motion):
        raise TypeError(f"motion must be a kanefem.Motion, got {motion!r}")
    _checks.choice("method", method, tuple(METHODS))
    t_end = _checks.real("t_end", t_end, positive=True)
    lo, hi = motion.t_range
    if lo > 0.0 or hi < t_end:
        raise ValueError(f"t_end = {t_end!r}: the motion is defined on [{lo:g}, {hi:g}] s only, "
                         "which must contain [0, t_end]")
    supports = body._default_supports if supports is None else supports
    fixed = body.support_mask(supports)
    ndof = body.ndof
    proj = None
    if constraints is not None:  # d = T z (section 3.3): the body projected
        if method == "rk45-hamilton":
            raise ValueError("method = 'rk45-hamilton' does not take constraints: the momentum of the "
                             "constrained coordinates has no value per DOF (use 'rk45-lagrange')")
        if any(isinstance(x, ModalDamping) for x in (damping if isinstance(damping, (list, tuple)) else [damping])):
            raise TypeError("ModalDamping does not combine with constraints: use Rayleigh damping")
        proj = body._constrained(supports, constraints, _checks.flag("geometric_stiffness", geometric_stiffness))

    def initial(name, x):
        if x is None:
            return np.zeros(ndof)
        a = _checks.array(name, x, shape=(ndof,))
        if np.any(a[fixed] != 0.0):
            k = int(np.flatnonzero(fixed & (a != 0.0))[0])
            raise ValueError(f"{name}[{k}] = {a[k]!r} is at a support and must be 0")
        if proj is not None:  # G a = 0: a = T a[masters]
            miss = np.abs(proj.basis @ a[proj.masters] - a)
            if miss.max() > 1e-10 * max(np.abs(a).max(), 1e-300):
                k = int(np.argmax(miss))
                raise ValueError(f"{name} violates the constraints: {name}[{k}] = {a[k]!r}, while the other "
                                 f"DOFs make it {float((proj.basis @ a[proj.masters])[k])!r}")
        return a

    d0, v0 = initial("d0", d0), initial("v0", v0)
    max_steps = MAX_STEPS if max_steps is None else _checks.integer(
        "max_steps", max_steps, minimum=1, maximum=MAX_STEPS_LIMIT)
    if method in _IMPLICIT:
        if dt is None:
            dt = t_end / 1000
            if (~fixed).sum() <= 2000:  # the first mode is cheap to find
                lam = body.eigenvalues(1, supports=supports, mode_shapes=False,
                                       constraints=constraints).eigenvalues[0]
                if lam > 0:
                    dt = min(dt, 2 * math.pi / math.sqrt(lam) / 40)
        dt = _checks.real("dt", dt)
        if not dt > 0:
            raise ValueError(f"dt = {dt!r} must be > 0 (the fixed step of {method})")
        n_steps = _steps(t_end, dt, max_steps)
        first = 0.0
    else:
        first = 0.0 if dt is None else _checks.real("dt", dt)
        if first < 0 or (dt is not None and first == 0):
            raise ValueError(f"dt = {dt!r} must be > 0 (the first step of {method})")
    trim = False  # an end point added for the core, not asked for
    n_arrays = 3 if method == "rk45-hamilton" else 2  # d, v (and p)
    if t_eval is None:
        n_out = n_steps + 1 if method in _IMPLICIT else 1001
        _checks.output_size("dt and t_end (one output per step without t_eval)", n_out * ndof * n_arrays,
                            "outputs")
        t_eval = np.linspace(0.0, t_end, n_out)
    else:
        given = np.asarray(t_eval)
        t_eval = np.array(_checks.array("t_eval", t_eval, ndim=1))  # a copy: the result owns it
        _checks.output_size("t_eval", (t_eval.size + 1) * ndof * n_arrays, "outputs")
        if given.dtype.kind == "f" and given.dtype.itemsize < 8:
            # t_end in the array's own precision (float32(0.1) > 0.1) is t_end
            tol = 2.0 * float(np.finfo(given.dtype).eps) * t_end
            t_eval[(t_eval > t_end) & (t_eval <= t_end + tol)] = t_end
        if t_eval.size == 0 or t_eval[0] < 0 or t_eval[-1] > t_end or np.any(np.diff(t_eval) < 0):
            raise ValueError("t_eval must be non-empty, non-decreasing and inside [0, t_end] "
                             f"(got {t_eval.size} times from {t_eval.min(initial=0):g} to "
                             f"{t_eval.max(initial=0):g})")
        if t_eval[-1] < t_end:  # the core integrates to its last output time
            t_eval = np.append(t_eval, t_end)
            trim = True
    rtol = _checks.tolerance("rtol", rtol)
    atol = _checks.real("atol", atol, positive=True)
    rho_inf = _checks.real("rho_inf", rho_inf)
    if not 0.0 <= rho_inf <= 1.0:
        raise ValueError(f"rho_inf = {rho_inf!r} must lie in [0, 1]")
    max_step = 0.0 if max_step is None else _checks.real("max_step", max_step, positive=True)
    if max_step and method not in _IMPLICIT:  # an RK step never longer than max_step
        _steps(t_end, max_step, max_steps, ("max_step", "t_end"), "steps at least")
    limit = 0.0 if divergence_limit is None else _checks.real("divergence_limit", divergence_limit, positive=True)
    # the core's layout (a line body returned as CSR is held as a band, integrated in the core);
    # with constraints the projected body's
    sparse = getattr(proj if proj is not None else body, "_layout", getattr(body, "storage", None)) == "sparse"
    if sparse:  # a mesh body in CSR storage: the sparse path of the core's integrator (section 4.13)
        if method not in _IMPLICIT:
            what = "with these constraints is sparse" if proj is not None else "in sparse storage"
            raise ValueError(f"method = {method!r}: a body {what} and integrates with 'newmark' "
                             "or 'generalized-alpha' (RK would solve with M at every stage)")
        if any(isinstance(x, ModalDamping) for x in (damping if isinstance(damping, (list, tuple)) else [damping])):
            raise TypeError("ModalDamping makes a full damping matrix: use Rayleigh damping for mesh bodies")
    rayleigh, dense = _damping_spec(damping, body, fixed)
    geometric_stiffness = _checks.flag("geometric_stiffness", geometric_stiffness)
    if not (progress is None or isinstance(progress, (bool, np.bool_)) or callable(progress)):
        raise TypeError(f"progress must be None, True, False or a callable progress(t), got {progress!r}")
    prog = _Progress(progress, t_end)
    t0 = time.perf_counter()
    factor = None
    if sparse:  # the core's integrator, factoring with SciPy through a callback (section 4.13),
        # in the nested-dissection order of the free DOFs (section 3.15)
        from .sparse import IntegratorFactor, dof_points

        if proj is not None:  # the unknowns are the masters, at their nodes
            factor = IntegratorFactor(dof_points(proj))
        else:
            points = dof_points(body)
            factor = IntegratorFactor(None if points is None else points[~fixed])
    lock = body._kg_lock() if geometric_stiffness else contextlib.nullcontext()
    try:
        with lock:  # a prestress K_G basis made for these supports, taken by the integrator
            if geometric_stiffness and proj is not None and proj.prestress is not None:
                body._geometric_basis(supports, proj.prestress)  # of the constrained motions
            elif geometric_stiffness:
                body._geometric_basis(supports)
            basis = {}
            if proj is not None:  # the unknowns z = d[masters]; the core projects body and loads
                T = proj.basis
                basis = dict(basis_indptr=T.indptr.astype(np.int32), basis_indices=T.indices.astype(np.int32),
                             basis_values=T.data, basis_ncol=T.shape[1])
                d0, v0 = d0[proj.masters], v0[proj.masters]
            r = _core.simulate(
                body=body._body, fixed=fixed, motion=motion._core_motion(gravity), t_eval=t_eval,
                loads=_core_loads(loads, ndof), method=METHODS[method], d0=d0, v0=v0,
                dt=dt if method in _IMPLICIT else first, rho_inf=rho_inf, rtol=rtol, atol=atol,
                max_step=max_step, max_steps=max_steps, limit=limit, rayleigh_alpha=rayleigh[0],
                rayleigh_beta=rayleigh[1], damping=dense, geometric=bool(geometric_stiffness),
                momentum=method == "rk45-hamilton", progress=prog.fn, factor=factor, **basis,
            )
    finally:
        prog.close()
    d, v, p, stats = r["d"], r["v"], r["p"], r["stats"]
    if proj is not None:  # d = T z
        d, v = np.asarray(proj.basis @ d.T).T, np.asarray(proj.basis @ v.T).T
    stats["wall_time"] = time.perf_counter() - t0
    if trim:
        t_eval, d, v = t_eval[:-1], d[:-1], v[:-1]
        p = None if p is None else p[:-1]
    return SimulationResult(t=t_eval, d=d, v=v, p=p, method=method, stats=stats, dof_names=body.dof_names)
