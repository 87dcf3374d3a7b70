"""Flexible bodies in a floating frame of reference, in space (docs/theory.md section 1.6).

A :class:`FloatingBody` is a spatial body (:class:`~kanefem.Beam3D`, :class:`~kanefem.Bar3D`,
a solid :class:`~kanefem.MeshBody`, a :class:`~kanefem.ReducedBody` of one) whose frame
is an unknown of its motion: a material point is at ``r_c + R (x - x_c + N d)``, with
``r_c`` the position of the undeformed body's mass centre ``x_c`` (held in the frame),
``R`` the frame's orientation and ``d`` the elastic coordinates that the *reference
conditions* leave free.  Its speeds are the mass centre's velocity in global axes, the
angular velocity in body axes and ``d'`` (the spatial mechanism's convention for a body's
speeds).  The mass matrix ``M(d)``, the velocity terms (Coriolis, centrifugal,
gyroscopic ``omega x J omega``) and the elastic, damping, gravity and K_G forces are
combinations of the body's inertia invariants, integrated once (the C core,
``csrc/kf_ffrf.c``).

The reference conditions generalize the planar links' rule (docs/theory.md section 5.12):
supports holding the rigid motion in the frame (``"clamped-free"`` for a beam: the
frame follows its first node), or ``"mean-axes"``: the elastic coordinates orthogonal to
the rigid motions in the linearized Tisserand sense (no first moment, no relative angular
momentum: the free-free elastic modes), which is the frame of a free body's modal
description (Exudyn's ``ObjectFFRFreducedOrder`` with free-free modes).

The body moves free in space (:meth:`FloatingBody.simulate`, generalized-alpha on the
rotation group or Dormand-Prince), or with its frame prescribed by a
:class:`~kanefem.Motion` (``simulate(..., motion=)``: the elastic rows are then the one-way
equations of docs/theory.md section 1, and the result holds the force and torque the
frame's drive applies).
"""

from __future__ import annotations

import contextlib
import math
import threading
from dataclasses import dataclass, field

import numpy as np

from . import _checks, _core
from ._results import ResultMixin, dof_unit, finish_axes
from .bodies import FlexibleBody, _not_supported
from .motion import Motion
from .simulate import MAX_STEPS, MAX_STEPS_LIMIT, Rayleigh, _Progress, _steps

__all__ = ["FloatingBody", "FloatingState", "FloatingMotion"]

#: simulate's methods: the core's kf_ffrf_method (Newmark: generalized-alpha at rho_inf = 1)
METHODS = {"generalized-alpha": 0, "newmark": 0, "dp5": 1}
#: the most DOFs a mean-axes projection takes (it works on dense n x n matrices)
MEAN_AXES_MAX_NDOF = 3000
#: free motion needs the rigid speeds' mass, the elastic coordinates eliminated, above
#: this (scaled to [0, 1], kf_ffrf_rigid_margin)
RIGID_MARGIN = 1e-10


def _rotation(name, R):
    """A rotation matrix (3, 3): orthonormal within 1e-9, determinant +1."""
    R = _checks.array(name, R, shape=(3, 3))
    err = np.abs(R.T @ R - np.eye(3)).max()
    if err > 1e-9 or np.linalg.det(R) < 0:
        raise ValueError(f"{name} is not a rotation matrix (|R^T R - I| = {err:.3g}, det {np.linalg.det(R):.6g})")
    return R


def _quaternion_of(R):
    """The unit quaternion (w, x, y, z) of a rotation matrix (Shepperd's method)."""
    t = np.trace(R)
    k = int(np.argmax([t, R[0, 0], R[1, 1], R[2, 2]]))
    if k == 0:
        w = math.sqrt(1.0 + t) / 2
        q = [w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w), (R[1, 0] - R[0, 1]) / (4 * w)]
    else:
        i, j, m = k - 1, k % 3, (k + 1) % 3
        s = math.sqrt(1.0 + R[i, i] - R[j, j] - R[m, m]) * 2
        q = [0.0] * 4
        q[0] = (R[m, j] - R[j, m]) / s
        q[1 + i] = s / 4
        q[1 + j] = (R[j, i] + R[i, j]) / s
        q[1 + m] = (R[m, i] + R[i, m]) / s
    q = np.array(q)
    return q / np.linalg.norm(q)


def _rotations_of(q):
    """Rotation matrices (nt, 3, 3) of quaternions (nt, 4) (w, x, y, z)."""
    q = q / np.linalg.norm(q, axis=1)[:, None]
    w, x, y, z = q.T
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
                     np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
                     np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], 1)


def _rotation_vectors(q):
    """Rotation vectors (nt, 3) [rad] of quaternions (nt, 4): the axis times the angle
    in [0, pi]."""
    q = q / np.linalg.norm(q, axis=1)[:, None]
    q = q * np.where(q[:, :1] < 0, -1.0, 1.0)
    s = np.linalg.norm(q[:, 1:], axis=1)
    angle = 2 * np.arctan2(s, q[:, 0])
    scale = np.where(s > 0, angle / np.where(s > 0, s, 1.0), 2.0)
    return q[:, 1:] * scale[:, None]


@dataclass(frozen=True)
class FloatingState:
    """One state of a floating body (:meth:`FloatingBody.state` makes and checks one).

    Attributes
    ----------
    position : ndarray, shape (3,)
        The reference point (the undeformed body's mass centre) in global axes [m].
    rotation : ndarray, shape (3, 3)
        The frame's orientation, global = R local.
    velocity : ndarray, shape (3,)
        The reference point's velocity in global axes [m/s].
    omega : ndarray, shape (3,)
        The frame's angular velocity in body axes [rad/s].
    d, d_t : ndarray, shape (ndof,)
        Elastic displacements and their rates over the body's DOFs [m, rad], in the frame:
        zero at the reference conditions' DOFs (mean axes: within the elastic modes).
    """

    position: np.ndarray
    rotation: np.ndarray
    velocity: np.ndarray
    omega: np.ndarray
    d: np.ndarray
    d_t: np.ndarray


@dataclass
class FloatingMotion(ResultMixin):
    """The motion of a floating body in time (:meth:`FloatingBody.simulate`).

    Attributes
    ----------
    t : ndarray, shape (nt,)
        Output times [s].
    position, velocity, acceleration : ndarray or None, shape (nt, 3)
        The reference point (the undeformed mass centre) in global axes [m, m/s, m/s^2]
        (None with a prescribed frame: its motion gives them).
    quaternion : ndarray or None, shape (nt, 4)
        The frame's orientation as unit quaternions (w, x, y, z) (``rotation``: the
        matrices); None with a prescribed frame.
    omega, eps : ndarray, shape (nt, 3)
        Angular velocity and acceleration in body axes [rad/s, rad/s^2].
    d, d_t, d_tt : ndarray, shape (nt, ndof)
        Elastic displacements, velocities and accelerations over the body's DOFs, in
        the frame.
    drive : ndarray or None, shape (nt, 6)
        With a prescribed frame: the force [N] and torque [N m] the frame's drive applies
        to the body at its mass centre, in body axes (the rigid rows' residual).
    method : str
    stats : dict
        The integrator's counts (``steps``, ``evaluations``, ``factorizations``, ...),
        ``dt``, and ``geometric_stiffness``, ``reference``.
    dof_names : tuple
        The names of the DOFs of a node (column ``node * len(dof_names) + k`` of d).
    """

    t: np.ndarray
    position: np.ndarray | None
    quaternion: np.ndarray | None
    velocity: np.ndarray | None
    omega: np.ndarray
    acceleration: np.ndarray | None
    eps: np.ndarray
    d: np.ndarray
    d_t: np.ndarray
    d_tt: np.ndarray
    drive: np.ndarray | None
    method: str
    stats: dict = field(default_factory=dict)
    dof_names: tuple = ()

    @property
    def rotation(self) -> np.ndarray | None:
        """The frame's orientations (nt, 3, 3), global = R local (None with a prescribed
        frame)."""
        return None if self.quaternion is None else _rotations_of(np.atleast_2d(self.quaternion))

    def state(self, k) -> FloatingState:
        """The state at output ``k`` (negative: from the end) of a free motion."""
        k = _checks.index("k", k, len(self.t), "output times")
        if self.quaternion is None:
            raise ValueError("a motion with a prescribed frame has no states of the frame (its Motion has them)")
        return FloatingState(self.position[k].copy(), self.rotation[k], self.velocity[k].copy(),
                             self.omega[k].copy(), self.d[k].copy(), self.d_t[k].copy())

    def _columns(self):
        """t_s; the reference point ``r_x_m``..., its velocity ``v_x_m_s``..., the
        orientation as a rotation vector ``rot_x_rad``..., ``omega_x_rad_s``...; the
        drive ``F_x_N``..., ``M_x_Nm``... (prescribed frames); each elastic DOF
        ``<dof>_n<node>_<unit>``."""
        cols = {"t_s": self.t}
        rot = None if self.quaternion is None else _rotation_vectors(np.atleast_2d(self.quaternion))
        for name, arr, unit in (("r", self.position, "m"), ("v", self.velocity, "m_s"), ("rot", rot, "rad"),
                                ("omega", self.omega, "rad_s")):
            for k, c in enumerate("xyz"):
                if arr is not None:
                    cols[f"{name}_{c}_{unit}"] = arr[:, k]
        if self.drive is not None:
            for k, c in enumerate("xyz"):
                cols[f"F_{c}_N"] = self.drive[:, k]
            for k, c in enumerate("xyz"):
                cols[f"M_{c}_Nm"] = self.drive[:, 3 + k]
        names = self.dof_names or ("dof",)
        for j in range(self.d.shape[1]):
            dof = names[j % len(names)]
            cols[f"{dof}_n{j // len(names)}_{dof_unit(dof)}"] = self.d[:, j]
        return cols

    def _plot(self, ax, **kw):
        """The angular velocity's components over time."""
        for k, c in enumerate("xyz"):
            ax.plot(self.t, self.omega[:, k], label=f"omega_{c}", **kw)
        ax.set_xlabel("t [s]")
        ax.set_ylabel("angular velocity, body axes [rad/s]")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        return finish_axes(ax)


class FloatingBody:
    """A flexible body whose frame floats in space (docs/theory.md section 1.6).

    Parameters
    ----------
    body : FlexibleBody
        A spatial body: :class:`~kanefem.Beam3D`, :class:`~kanefem.Bar3D`, a solid
        :class:`~kanefem.MeshBody` (dense or banded storage with supports as reference
        conditions; any storage with ``"mean-axes"``), or a :class:`~kanefem.ReducedBody`
        of one.  Not a beam whose sections turn to second order (``rotary_inertia=True``:
        :class:`~kanefem.NotSupportedError`).
    reference : str, dict or None
        The reference conditions: supports of the body (``body.support_mask`` takes them)
        that hold its rigid motion in the frame, e.g. ``"clamped-free"`` (a beam's frame
        follows its first node), or ``"mean-axes"``: the elastic coordinates are the
        body's free-free elastic modes (mass-normalized), which carry no first moment and
        no angular momentum to first order (the linearized Tisserand frame; at most
        ``MEAN_AXES_MAX_NDOF`` DOFs: reduce a larger mesh first).  Default: the body's
        default supports for a line body (``"clamped-free"`` for Beam3D), the first
        interface item clamped for a Craig-Bampton ReducedBody, ``"mean-axes"`` for a mesh
        and a free-interface ReducedBody.  More than six held DOFs constrain the
        deformation as joints would (a pinned-pinned beam cannot stretch between its
        ends): for a free body hold six, or take the mean axes.
    damping : Rayleigh, optional
        Rayleigh damping alpha M + beta K of the elastic coordinates.
    geometric_stiffness : bool, optional
        Add K_G of the inertial loads of the frame's motion (docs/theory.md section 2.11:
        a straight line body's axial force N(x), or the prestress of the unit load cases
        with the reference conditions as supports, or a ReducedBody's projected basis),
        at the accelerations of each instant.  Default: on where the body has it.  It
        enters the elastic rows only, so the energy is conserved without it, not with it.
    mass_properties : tuple, optional
        For a body without elements (a ReducedBody loaded without its full body):
        ``(mass, centre, inertia)``, the mass [kg], the mass centre (3,) in the body frame
        [m] and the inertia tensor about it (3, 3) [kg m^2] of the full body.  A body of
        elements (or a ReducedBody with its full body) has its own: giving them is a
        TypeError.

    Attributes
    ----------
    body, reference, damping, geometric_stiffness
    n_elastic : int
        The number of elastic coordinates.
    mass : float
    centre : ndarray, shape (3,)
        The undeformed mass centre x_c in the body frame (the reference point).
    inertia : ndarray, shape (3, 3)
        The inertia tensor about x_c at d = 0, body axes.
    rigid_margin : float
        The rigid speeds' mass with the elastic coordinates eliminated, scaled, in [0, 1]
        (its smallest eigenvalue): free motion needs it above 1e-10 (a rigid motion left
        to the elastic coordinates, or a body without inertia about an axis, make it 0).
    modes, frequencies_hz : ndarray or None
        ``"mean-axes"``: the elastic coordinates' shapes over the body's DOFs (ndof,
        n_elastic), mass-normalized, and their free-free frequencies [Hz].

    Examples
    --------
    >>> import numpy as np, kanefem
    >>> beam = kanefem.Beam3D(1.0, 8, E=7e10, A=4e-4, Izz=2e-8, Iyy=8e-9, J=1e-8, rho=2700)
    >>> fb = kanefem.FloatingBody(beam)                  # frame clamped at the first node
    >>> round(fb.mass, 6), np.round(fb.centre, 12).tolist()
    (1.08, [0.5, 0.0, 0.0])
    >>> s = fb.state(omega=[0.0, 0.0, 2.0])              # spinning about z, undeformed
    >>> a_c, eps, d_tt = fb.accelerations(s)
    >>> bool(np.allclose(eps, 0.0, atol=1e-12))          # a principal axis: no angular acceleration
    True
    """

    def __init__(self, body, reference=None, *, damping=None, geometric_stiffness=None, mass_properties=None):
        from .reduced import ReducedBody

        if not isinstance(body, FlexibleBody):
            raise TypeError(f"body must be a kanefem body (Beam3D, Bar3D, MeshBody, ReducedBody), got {body!r}")
        if body.dim != 3:
            raise _not_supported(body, "a floating frame in space", "make a spatial body (Beam3D, Bar3D, a solid "
                                 "MeshBody); a planar body floats with the planar mechanisms (ElasticLink)")
        if getattr(body, "rotary_inertia", False):
            raise _not_supported(body, "a floating frame with rotary_inertia=True", "the second-order rotation of "
                                 "its sections needs inertia invariants beyond S_ij in the kinetic energy; make "
                                 "the beam with rotary_inertia=False")
        self.body = body
        if damping is None:
            damping = Rayleigh()
        if not isinstance(damping, Rayleigh):
            raise TypeError(f"damping must be a kanefem.Rayleigh, got {damping!r}")
        self.damping = damping
        reduced = isinstance(body, ReducedBody)
        if reference is None:
            if reduced:
                reference = {0: "clamped"} if body.n_boundary else "mean-axes"
            else:
                reference = body.default_supports if body.default_supports is not None else "mean-axes"
        self.reference = reference
        mass = self._mass_properties(body, mass_properties, reduced)
        self.modes = self.frequencies_hz = None
        self._kg_reason = None
        mean = isinstance(reference, str) and reference == "mean-axes"
        if mean:
            if mass is None:  # the given body of the projection takes the elements' own
                p = _core.body_rigid(body=body._body)
                mass = np.concatenate([[p["mass"]], p["centre"], p["second_moments"].ravel()])
            core = self._mean_axes(body, mass)  # a body of the invariants projected on the modes
            fixed, mask, kg = None, np.zeros(self.modes.shape[1], dtype=bool), self._has_kg
        else:
            if body._layout == "sparse":
                raise _not_supported(body, "supports as reference conditions in sparse storage", "make it with "
                                     "storage='dense' or 'banded', take reference='mean-axes', or reduce it "
                                     "(ReducedBody)")
            try:
                fixed = mask = body.support_mask(reference)
            except (ValueError, TypeError) as exc:  # the body's message names its supports
                raise type(exc)(f"reference = {_checks._short(reference)}: {exc}") from None
            core, kg = body._body, None
        self._fixed = fixed
        asked = None if geometric_stiffness is None else _checks.flag("geometric_stiffness", geometric_stiffness)
        if kg is None and asked is not False:  # a prestress is made only when it may be used
            kg = self._kg_available(body, reduced)
        geometric = kg if asked is None else asked
        if geometric and not kg:
            raise _not_supported(body, "geometric_stiffness with these reference conditions",
                                 self._kg_reason or "it has no K_G basis")
        self.geometric_stiffness = geometric
        prestress = geometric and not mean and not reduced and not body._straight_kg()
        with body._kg_lock() if prestress else contextlib.nullcontext():
            if prestress:  # the prestress basis of these supports, which the core copies
                body._geometric_basis(reference)
            self._ffrf = _core.ffrf_create(body=core, fixed=mask, mass=mass,
                                           rayleigh=np.array([damping.alpha, damping.beta]), geometric=geometric)
        # the core's floating body keeps the last state in its workspace: one call at a time
        # (the core runs with the GIL released); other floating bodies run in parallel
        self._lock = threading.Lock()
        info = _core.ffrf_info(ffrf=self._ffrf)
        self.n_elastic = info["n"]
        self._map = info["map"]
        self.mass, self.centre, self.inertia = info["mass"], info["centre"], info["inertia"]
        self.rigid_margin = info["margin"]

    def _call(self, fn, **kw):
        """A call of the core on this floating body, one at a time."""
        with self._lock:
            return fn(ffrf=self._ffrf, **kw)

    def __repr__(self):
        ref = self.reference if isinstance(self.reference, str) else "supports"
        return (f"FloatingBody({type(self.body).__name__}, reference={ref!r}, {self.n_elastic} elastic "
                f"coordinates, geometric_stiffness={self.geometric_stiffness})")

    # ------------------------------------------------------------ set-up

    @staticmethod
    def _mass_properties(body, given, reduced):
        """The core's 13 mass properties (m, x_c, the second moments about x_c) of a body
        without elements, or None (the core integrates a body of elements)."""
        from .reduced import ImportedModel

        full = getattr(body, "full", None) if reduced else None
        if not reduced or full is not None:
            if given is not None:
                raise TypeError("mass_properties: a body of elements (or a ReducedBody with its full body) has its "
                                "own (integrated from its points); give none")
            if not reduced:
                return None
        if given is not None:
            if not isinstance(given, (tuple, list)) or len(given) != 3:
                raise TypeError(f"mass_properties must be (mass, centre (3,), inertia (3, 3)), got "
                                f"{_checks._short(given)}")
            m = _checks.real("mass_properties mass", given[0], positive=True)
            c = _checks.array("mass_properties centre", given[1], shape=(3,))
            J = _checks.array("mass_properties inertia", given[2], shape=(3, 3))
            if np.abs(J - J.T).max() > 1e-10 * np.abs(J).max():
                raise ValueError("mass_properties inertia must be symmetric")
            Ic = 0.5 * np.trace(J) * np.eye(3) - J  # the second moments int xbar xbar^T dm
            if np.any(np.diag(Ic) < -1e-12 * max(np.trace(J), 1e-300)):
                raise ValueError("mass_properties inertia is not an inertia tensor (a moment exceeds the sum of "
                                 "the other two)")
        elif isinstance(full, FlexibleBody):
            p = _core.body_rigid(body=full._body)
            m, c, Ic = p["mass"], p["centre"], p["second_moments"]
        elif isinstance(full, ImportedModel):
            m, c, Ic = full._mass_properties()
        else:
            raise TypeError("mass_properties: a ReducedBody without its full body needs (mass, centre, inertia) "
                            "of the full body")
        return np.concatenate([[m], np.asarray(c, float), np.asarray(Ic, float).ravel()])

    def _kg_available(self, body, reduced):
        """Whether the body has a K_G basis with the reference conditions as the prestress's
        supports (else why not, in _kg_reason)."""
        if reduced:
            if not body.kept.get("geometric_stiffness"):
                self._kg_reason = "the ReducedBody was made without a K_G basis (geometric_stiffness=False)"
            return self._kg_reason is None
        if body._straight_kg():
            return True
        try:
            with body._kg_lock():
                body._geometric_basis(self.reference)
        except ValueError as exc:
            self._kg_reason = f"its prestress needs supports that hold it ({exc})"
            return False
        return True

    def _mean_axes(self, body, mass):
        """The mean-axis coordinates: the free-free elastic modes of the body (the null
        space of the linearized Tisserand conditions Mo^T d = 0, h^T d = 0), and the
        invariants projected onto them, as a body of given invariants."""
        from .reduced import ReducedBody, _project, geometric_cases

        import scipy.linalg as la

        n = body.ndof
        if n > MEAN_AXES_MAX_NDOF:
            raise ValueError(f"reference='mean-axes' projects the body's {n} DOFs with dense matrices (at most "
                             f"{MEAN_AXES_MAX_NDOF}): reduce it first (ReducedBody(..., basis='free-interface'))")
        inv = body.inertia_invariants()
        S = [[np.asarray(inv["S"][i][j].toarray() if hasattr(inv["S"][i][j], "toarray") else inv["S"][i][j])
              for j in range(3)] for i in range(3)]
        s, Mo = inv["s"], inv["Mo"]
        K = body.stiffness_matrix()
        K = np.asarray(K.toarray() if hasattr(K, "toarray") else K)
        xc = mass[1:4]
        sb = s - xc[None, :, None] * Mo[:, None, :]  # sbar_ij = s_ij - x_cj Mo_i
        h = np.array([sb[2, 1] - sb[1, 2], sb[0, 2] - sb[2, 0], sb[1, 0] - sb[0, 1]])
        C = np.vstack([Mo, h])
        Nul = la.null_space(C, rcond=1e-10)
        M = S[0][0] + S[1][1] + S[2][2]
        lam, Phi = la.eigh(_project(Nul, K), _project(Nul, M))
        T = Nul @ Phi
        self.modes = T
        self.frequencies_hz = np.sqrt(np.maximum(lam, 0.0)) / (2 * math.pi)
        out = {"S": np.array([_project(T, S[i][j], symmetric=i == j) for i in range(3) for j in range(3)]),
               "K": _project(T, K), "s": np.einsum("ijk,kl->ijl", s, T).reshape(9, -1),
               "Mo": Mo @ T}
        for i in range(3):  # S_ji exactly S_ij^T (the core checks it to 1e-10)
            for j in range(i + 1, 3):
                out["S"][3 * j + i] = out["S"][3 * i + j].T
        cases = None
        if isinstance(body, ReducedBody):
            if "KG" in body._invariants:
                cases = body._invariants["KG"]
            else:
                self._kg_reason = "the ReducedBody was made without a K_G basis"
        elif body._straight_kg():  # N(x) from the inertial loads, first end free (no supports)
            cases = geometric_cases(body, np.zeros(n, dtype=bool))
        else:
            self._kg_reason = ("a free body has no static prestress to take K_G from with mean axes (use supports "
                               "that hold it as the reference conditions, or reduce it with prestress_supports)")
        if cases is not None:
            out["KG"] = np.array([_project(T, np.asarray(X.toarray() if hasattr(X, "toarray") else X))
                                  for X in cases])
        self._has_kg = cases is not None
        return _core.body_create_given(**out)

    # ------------------------------------------------------------ states

    def _elastic_of(self, name, d):
        """The core's elastic coordinates of d over the body's DOFs (checked by name)."""
        d = _checks.array(name, d, shape=(self.body.ndof,))
        if self.modes is None:
            if np.any(d[self._fixed] != 0.0):
                k = int(np.flatnonzero(self._fixed & (d != 0.0))[0])
                raise ValueError(f"{name}[{k}] = {d[k]!r} is held by the reference conditions and must be 0")
            return d[self._map]
        M = self.body.mass_matrix()
        q = self.modes.T @ np.asarray(M @ d)
        miss = np.abs(self.modes @ q - d).max()
        if miss > 1e-8 * max(np.abs(d).max(), 1e-300):
            raise ValueError(f"{name} is not within the mean-axis coordinates (it moves the mass centre or turns "
                             f"the body: {miss:.3g} of it is outside the elastic modes, FloatingBody.modes)")
        return q

    def _full_of(self, q):
        """Elastic coordinates (..., n_elastic) back over the body's DOFs (..., ndof)."""
        if self.modes is not None:
            return q @ self.modes.T
        out = np.zeros(q.shape[:-1] + (self.body.ndof,))
        out[..., self._map] = q
        return out

    def state(self, position=(0.0, 0.0, 0.0), rotation=None, velocity=(0.0, 0.0, 0.0), omega=(0.0, 0.0, 0.0),
              d=None, d_t=None) -> FloatingState:
        """A state of the body, checked (see :class:`FloatingState`).

        Parameters
        ----------
        position : array_like, shape (3,)
            The reference point (the undeformed mass centre) in global axes [m].
        rotation : array_like, shape (3, 3) or (4,), optional
            The orientation: a rotation matrix (global = R local) or a quaternion (w, x,
            y, z); default the identity.
        velocity : array_like, shape (3,)
            The reference point's velocity, global axes [m/s].
        omega : array_like, shape (3,)
            Angular velocity, body axes [rad/s].
        d, d_t : array_like, shape (ndof,), optional
            Elastic displacements and rates over the body's DOFs (default zero).
        """
        if rotation is None:
            R = np.eye(3)
        else:
            r = _checks.array("rotation", rotation)
            if r.shape == (4,):
                if not np.linalg.norm(r) > 0:
                    raise ValueError("rotation: the quaternion is zero")
                R = _rotations_of(r[None])[0]
            else:
                R = _rotation("rotation", r)
        n = self.body.ndof
        d = np.zeros(n) if d is None else _checks.array("d", d, shape=(n,))
        d_t = np.zeros(n) if d_t is None else _checks.array("d_t", d_t, shape=(n,))
        self._elastic_of("d", d)
        self._elastic_of("d_t", d_t)
        return FloatingState(_checks.array("position", position, shape=(3,)), R,
                             _checks.array("velocity", velocity, shape=(3,)),
                             _checks.array("omega", omega, shape=(3,)), d, d_t)

    def _state(self, state):
        if not isinstance(state, FloatingState):
            raise TypeError(f"state must be a FloatingState (FloatingBody.state), got {_checks._short(state)}")
        return dict(R=_rotation("state.rotation", state.rotation), v=state.velocity, omega=state.omega,
                    d=self._elastic_of("state.d", state.d), dd=self._elastic_of("state.d_t", state.d_t))

    @staticmethod
    def _gravity(gravity):
        return np.zeros(3) if gravity is None else _checks.array("gravity", gravity, shape=(3,))

    # ------------------------------------------------------------ equations

    def equations(self, state, gravity=None, accelerations=None, end_forces=(0.0, 0.0)):
        """The equations M(d) u' = f at a state, in the speeds u = (v, omega, q'): v the
        mass centre's velocity (global axes), omega body axes, q' the elastic coordinates'
        rates (the free DOFs of the reference conditions, or the mean-axis modal
        coordinates).

        Parameters
        ----------
        state : FloatingState
        gravity : array_like, shape (3,), optional
            Gravity in global axes [m/s^2].
        accelerations : array_like, shape (6,), optional
            (r_c'' global, omega' body axes) at which K_G's loads are taken (default zero).
        end_forces : (float, float)
            Axial end loads of a line body for K_G [N] (docs/theory.md section 2.11).

        Returns
        -------
        M : ndarray, shape (6 + n_elastic, 6 + n_elastic)
        f : ndarray, shape (6 + n_elastic,)
            The applied forces (gravity, elastic, damping, K_G) minus the velocity terms;
            translation rows in global axes, rotation rows in body axes about x_c.
        """
        s = self._state(state)
        acc = None if accelerations is None else _checks.array("accelerations", accelerations, shape=(6,))
        f1, f2 = _checks.array("end_forces", end_forces, shape=(2,))
        r = self._call(_core.ffrf_equations, gravity=self._gravity(gravity), acc=acc, f_first=float(f1),
                                 f_last=float(f2), **s)
        return r["M"], r["f"]

    def accelerations(self, state, gravity=None):
        """The free body's accelerations at a state (no joints; K_G at them, exactly).

        Returns
        -------
        acceleration : ndarray, shape (3,)
            The mass centre's, global axes [m/s^2].
        eps : ndarray, shape (3,)
            Angular acceleration, body axes [rad/s^2].
        d_tt : ndarray, shape (ndof,)
            Elastic accelerations over the body's DOFs.
        """
        r = self._call(_core.ffrf_accelerations, gravity=self._gravity(gravity), **self._state(state))
        return r["acc"][:3], r["acc"][3:], self._full_of(r["ddd"])

    def _states(self, x):
        if isinstance(x, FloatingMotion):
            return [x.state(k) for k in range(len(x.t))], True
        return [x], False

    def _momenta(self, state, gravity):
        s = self._state(state)
        r = self._call(_core.ffrf_equations, gravity=gravity, **s)
        u = np.concatenate([s["v"], s["omega"], s["dd"]])
        return s, r["M"], r["M"] @ u

    def energy(self, x, gravity=None):
        """Kinetic, strain and gravity energy [J] of a state (a number) or of a
        :class:`FloatingMotion` (one per instant): 1/2 u^T M(d) u + 1/2 q^T K q -
        g . (m r_c + R S_d) (the gravity potential of the deformed body's mass centre).
        Conserved in free motion without damping and K_G."""
        g = self._gravity(gravity)
        states, many = self._states(x)
        out = []
        for st in states:
            s, M, Mu = self._momenta(st, np.zeros(3))
            u = np.concatenate([s["v"], s["omega"], s["dd"]])
            out.append(0.5 * u @ Mu + self._strain(s["d"]) - g @ (self.mass * st.position +
                                                                   s["R"] @ self._first_moment(s["d"])))
        return np.array(out) if many else out[0]

    def _strain(self, q):
        """1/2 q^T K q: the elastic rows' forces at rest, without loads, are -K q (K_G's
        coefficients vanish there)."""
        r = self._call(_core.ffrf_equations, R=np.eye(3), v=np.zeros(3), omega=np.zeros(3), d=q,
                                 dd=np.zeros_like(q), gravity=np.zeros(3), acc=np.zeros(6))
        return -0.5 * q @ r["f"][6:]

    def _first_moment(self, q):
        """S_d = Mo^T d (body axes) from the mass matrix's coupling: its translation rows at
        R = I are Mo^T."""
        r = self._call(_core.ffrf_equations, R=np.eye(3), v=np.zeros(3), omega=np.zeros(3), d=q,
                                 dd=np.zeros_like(q), gravity=np.zeros(3))
        return r["M"][:3, 6:] @ q

    def momentum(self, x):
        """The linear momentum m v + R (omega x S_d + S_d') [kg m/s], global axes, of a
        state (3,) or a :class:`FloatingMotion` (nt, 3)."""
        states, many = self._states(x)
        out = np.array([self._momenta(st, np.zeros(3))[2][:3] for st in states])
        return out if many else out[0]

    def angular_momentum(self, x, about="mass centre"):
        """The angular momentum [kg m^2/s], global axes, of a state (3,) or a
        :class:`FloatingMotion` (nt, 3): about the deformed body's mass centre (``about=
        "mass centre"``, conserved in free motion with gravity) or about the global
        origin (``"origin"``)."""
        _checks.choice("about", about, ("mass centre", "origin"))
        states, many = self._states(x)
        out = []
        for st in states:
            s, M, Mu = self._momenta(st, np.zeros(3))
            p = Mu[:3]
            # the rotation rows are the body-axes angular momentum about the moving x_c
            H = np.cross(st.position, p) + s["R"] @ Mu[3:6]
            if about == "mass centre":
                rG = st.position + s["R"] @ self._first_moment(s["d"]) / self.mass
                H = H - np.cross(rG, p)
            out.append(H)
        out = np.array(out)
        return out if many else out[0]

    # ------------------------------------------------------------ motion

    def _default_dt(self, omega):
        """1/40 of the first elastic period, and of a turn at the initial spin."""
        if self.frequencies_hz is not None:
            f1 = self.frequencies_hz[0]
        else:
            lam = self.body.eigenvalues(1, supports=self.reference, mode_shapes=False).eigenvalues[0]
            f1 = math.sqrt(max(lam, 0.0)) / (2 * math.pi)
        dt = 1.0 / f1 / 40 if f1 > 0 else math.inf
        w = float(np.linalg.norm(omega))
        if w > 0:
            dt = min(dt, 2 * math.pi / w / 40)
        return dt

    def simulate(self, t, initial=None, *, motion=None, gravity=None, method="generalized-alpha", dt=None,
                 rho_inf=1.0, tol=1e-8, max_iter=25, rtol=1e-8, atol=1e-12, max_steps=None,
                 progress=None) -> FloatingMotion:
        """The body's motion, free in space or with its frame prescribed.

        Free (``motion`` None): the frame's motion is an unknown; no joints, gravity.
        Generalized-alpha on the rotation group (Lie-group generalized-alpha of Arnold,
        Bruls and Cardona: R_n+1 = R_n exp(h dq), the stepper the planar mechanisms use,
        Newton on the accelerations with the tangent of the bordered system) or
        Dormand-Prince 5(4) on (r_c, quaternion, d, v, omega, d').  With ``motion``: the
        frame follows it (gravity from its orientation), the elastic equations are the
        one-way ones (docs/theory.md section 1), and ``drive`` holds what the motion
        needs of its drive.

        Parameters
        ----------
        t : array_like, shape (nt,)
            Strictly increasing output times [s]; the motion starts at t[0].
        initial : FloatingState, optional
            The state at t[0] (:meth:`state`); default at rest, undeformed, at the origin.
            With ``motion`` only its d and d_t are used.
        motion : Motion, optional
            A spatial :class:`~kanefem.Motion` of the body's frame (origin x = 0).
        gravity : array_like, shape (3,), optional
            Gravity in global axes [m/s^2].
        method : {"generalized-alpha", "newmark", "dp5"}
            "newmark" is generalized-alpha with rho_inf = 1 (average acceleration: no
            numerical damping, the energy of the linear part conserved); "dp5" (free
            motion only) is adaptive with ``rtol``, ``atol``.
        dt : float, optional
            The largest step [s] (fixed-step methods; steps are equal within each output
            interval): default 1/40 of the first elastic period and of a turn at the
            initial spin.  DP5: the first step (default automatic).
        rho_inf : float
            Generalized-alpha's spectral radius at infinite step, in [0, 1] (default 1).
        tol : float
            Newton's tolerance on the correction of the accelerations, relative to their
            largest (free motion).
        max_iter : int
            Newton iterations per step.
        rtol, atol : float
            DP5's tolerances.
        max_steps : int, optional
            Steps allowed (default 10^8).
        progress : None, bool or callable
            As for :func:`kanefem.simulate`.

        Returns
        -------
        FloatingMotion
        """
        tt = _checks.array("t", t, ndim=1)
        if tt.size < 1 or np.any(np.diff(tt) <= 0):
            raise ValueError("t must hold strictly increasing output times")
        _checks.output_size("t", tt.size * (3 * self.body.ndof + 25), "outputs")
        _checks.choice("method", method, tuple(METHODS))
        if initial is None:
            initial = self.state()
        s = self._state(initial)
        e0 = np.concatenate([s["d"], s["dd"]])
        g = self._gravity(gravity)
        rho_inf = 1.0 if method == "newmark" else _checks.real("rho_inf", rho_inf)
        if not 0.0 <= rho_inf <= 1.0:
            raise ValueError(f"rho_inf = {rho_inf!r} must lie in [0, 1]")
        max_steps = MAX_STEPS if max_steps is None else _checks.integer("max_steps", max_steps, minimum=1,
                                                                        maximum=MAX_STEPS_LIMIT)
        if motion is not None and not isinstance(motion, Motion):
            raise TypeError(f"motion must be a kanefem.Motion, got {_checks._short(motion)}")
        if motion is not None:
            if not motion.spatial:
                raise ValueError("motion must be a spatial Motion (constant_spin, from_rotations, or from_function "
                                 "with spatial=True)")
            if method == "dp5":
                raise ValueError("method = 'dp5': a prescribed frame moves by generalized-alpha (the one-way "
                                 "kanefem.simulate has Dormand-Prince)")
            lo, hi = motion.t_range
            if lo > tt[0] or hi < tt[-1]:
                raise ValueError(f"t: the motion is defined on [{lo:g}, {hi:g}] s only, which must contain "
                                 f"[{tt[0]:g}, {tt[-1]:g}]")
        elif self.rigid_margin < RIGID_MARGIN:
            raise ValueError(f"free motion needs the mass matrix in (v, omega, d') to be regular (rigid margin "
                             f"{self.rigid_margin:.3g}): the reference conditions {self.reference!r} leave a rigid "
                             "motion to the elastic coordinates, or the body has no inertia about some axis (a "
                             "straight bar about its own); hold six DOFs or take reference='mean-axes'")
        if dt is None:
            dt = 0.0 if method == "dp5" else min(self._default_dt(s["omega"]), float(tt[-1] - tt[0]) or math.inf)
            if not math.isfinite(dt):
                dt = 1e-3
        dt = _checks.real("dt", dt, nonnegative=method == "dp5", positive=method != "dp5")
        if method != "dp5" and tt.size > 1:
            _steps(float(tt[-1] - tt[0]), dt, max_steps)
        prog = _Progress(progress, float(tt[-1] - tt[0]))
        try:
            if motion is None:
                x0 = np.concatenate([initial.position, _quaternion_of(s["R"]), s["v"], s["omega"]])
                r = self._call(_core.ffrf_run, gravity=g, x0=x0, e0=e0, t=tt, method=METHODS[method], dt=dt,
                                   rho_inf=rho_inf, tol=_checks.real("tol", tol, positive=True),
                                   max_iter=_checks.integer("max_iter", max_iter, minimum=1, maximum=1000),
                                   rtol=_checks.tolerance("rtol", rtol),
                                   atol=_checks.real("atol", atol, positive=True), max_steps=max_steps,
                                   progress=prog.fn)
            else:
                r = self._call(_core.ffrf_run_prescribed, motion=motion._core_motion(g), e0=e0, t=tt, dt=dt,
                                              rho_inf=rho_inf, max_steps=max_steps, progress=prog.fn)
        finally:
            prog.close()
        n = self.n_elastic
        el = r["elastic"]
        stats = dict(r["stats"], dt=dt, geometric_stiffness=self.geometric_stiffness,
                     reference=self.reference if isinstance(self.reference, str) else "supports")
        if motion is None:
            x = r["rigid"]
            rigid = dict(position=x[:, :3], quaternion=x[:, 3:7], velocity=x[:, 7:10], omega=x[:, 10:13],
                         acceleration=x[:, 13:16], eps=x[:, 16:19], drive=None)
        else:
            st = motion.evaluate(tt)
            rigid = dict(position=None, quaternion=None, velocity=None, omega=np.asarray(st.omega, float),
                         acceleration=None, eps=np.asarray(st.eps, float), drive=r["drive"])
        return FloatingMotion(t=tt.copy(), d=self._full_of(el[:, :n]), d_t=self._full_of(el[:, n:2 * n]),
                              d_tt=self._full_of(el[:, 2 * n:]), method=method, stats=stats,
                              dof_names=tuple(self.body.dof_names), **rigid)
