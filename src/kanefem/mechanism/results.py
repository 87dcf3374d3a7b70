"""The results of a mechanism: its rigid motion, joint forces, the links'
frozen-time eigenvalues and the two-way motion (the kanefem result contract)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .. import _checks
from .._results import ResultMixin, eigen_time_columns

if TYPE_CHECKING:
    from .model import Mechanism


# ---------------------------------------------------------------- results


@dataclass(frozen=True, eq=False)
class MechanismMotion(ResultMixin):
    """The rigid motion of a mechanism at nt instants.

    Attributes
    ----------
    t : ndarray (nt,)
        Time [s].
    z, zd, zdd : ndarray (nt, nz)
        Independent coordinates and their rates, in the order of
        ``mechanism.coordinates``.
    force : ndarray (nt, nz)
        The generalized force along each coordinate: a torque law's value, or what a
        prescribed coordinate needs (a motor torque) [N m or N].
    q, qd, qdd : ndarray
        Planar (nt, nbody, 3): every body's mass centre (x, y) and angle, and their
        rates.  Spatial: q (nt, nbody, 7), the mass centre (x, y, z) and the unit
        quaternion (w, x, y, z) of the body's orientation (global = R body); qd, qdd
        (nt, nbody, 6), the speeds (v, omega) -- the mass centre's velocity in global
        axes, the angular velocity in the body's axes -- and their rates.
    frames : dict
        Per elastic link, its frame's motion (``kanefem.FRAME_DTYPE``, (nt,)):
        origin at the elements' x = 0, x along them, a = a_O - g in the frame.
    stats : dict
    mechanism : Mechanism
    """

    t: np.ndarray
    z: np.ndarray
    zd: np.ndarray
    zdd: np.ndarray
    force: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    frames: dict
    stats: dict
    mechanism: "Mechanism"

    def coordinate(self, name):
        """(z, z', z'') of a coordinate by name."""
        k = self.mechanism._coord_index(name)
        return self.z[:, k], self.zd[:, k], self.zdd[:, k]

    def body(self, name):
        """(q, q', q'') of a body by name: planar each (nt, 3), x, y, angle; spatial
        (nt, 7), (nt, 6), (nt, 6), as ``q``, ``qd``, ``qdd``."""
        b = self.mechanism._body_index(name)
        return self.q[:, b], self.qd[:, b], self.qdd[:, b]

    def rotation(self, name):
        """A body's orientation over the motion, (nt, 3, 3) (global = R body; planar: the
        rotation about z)."""
        from .spatial import quaternions_matrices

        b = self.mechanism._body_index(name)
        if self.q.shape[2] == 7:
            return quaternions_matrices(self.q[:, b, 3:])
        c, s = np.cos(self.q[:, b, 2]), np.sin(self.q[:, b, 2])
        R = np.zeros((self.q.shape[0], 3, 3))
        R[:, 0, 0], R[:, 0, 1], R[:, 1, 0], R[:, 1, 1], R[:, 2, 2] = c, -s, s, c, 1.0
        return R

    def point(self, body, at):
        """Where a point of a body (given in the drawing) is over the motion, (nt, 2) [m]
        (spatial: (nt, 3))."""
        return self.mechanism._track(self.q, body, at)

    def joint_coordinates(self) -> dict:
        """Every joint's coordinates over the motion, independent or not: joint name ->
        (nt, ncoord) [m or rad] (planar: a revolute's relative angle, a prismatic's slide;
        spatial: in the order of the joint's kind, as :class:`~kanefem.mechanism.Coordinate`
        names them;
        angles continued from the drawing's values)."""
        return self.mechanism._joint_values(self.q)

    def _columns(self):
        """The table's columns (see :mod:`kanefem._results` for the naming scheme)."""
        mech = self.mechanism
        cols = {"t_s": self.t}
        for k, c in enumerate(mech.coordinates):
            cols.update(_coordinate_columns(mech, k, self.z[:, k], self.zd[:, k], self.zdd[:, k], self.force[:, k]))
        for b, body in enumerate(mech.bodies):
            cols[f"{body.name}_x_m"] = self.q[:, b, 0]
            cols[f"{body.name}_y_m"] = self.q[:, b, 1]
            if self.q.shape[2] == 7:  # spatial: the centre's z and the orientation's quaternion
                cols[f"{body.name}_z_m"] = self.q[:, b, 2]
                for i, c in enumerate("wxyz"):
                    cols[f"{body.name}_q{c}"] = self.q[:, b, 3 + i]
            else:
                cols[f"{body.name}_angle_rad"] = self.q[:, b, 2]
        return cols


@dataclass(frozen=True, eq=False)
class MechanismForces(ResultMixin):
    """Joint forces over a motion (the constraints' multipliers).

    Attributes
    ----------
    t : ndarray (nt,)
    joints : ndarray (nt, njoint, 3) or (nt, njoint, 6)
        Per joint the force [N] and moment [N m] its first body exerts on its second
        at the joint's point (its second body's), global axes: planar (F_x, F_y, M);
        spatial (F_x, F_y, F_z, M_x, M_y, M_z).
    drive : ndarray (nt, nz)
        The generalized force each coordinate needs beyond the mechanism's own forces
        (springs, dampers, friction, gravity): a motor torque; zero to round-off for a
        free coordinate of a motion of the model.
    link_axial : dict
        Per elastic link, its K_G coefficients: a line body's axial force N(x) = c0 +
        c1 x + c2 x^2 (tension > 0, x along the elements) from the joint forces at its
        ends and its axial inertia: (nt, 3) [N, N/m, N/m^2]; a reduced body's load-case
        coefficients (nt, nkg): its frame's a - g [m/s^2] and E + W W row by row [1/s^2],
        then the joint forces and moments on its interface DOFs in its axes [N, N m].
    mechanism : Mechanism
    """

    t: np.ndarray
    joints: np.ndarray
    drive: np.ndarray
    link_axial: dict
    mechanism: "Mechanism"

    def joint(self, name):
        """(F, M) of a joint by name: planar F (nt, 2), M (nt,); spatial F, M (nt, 3)."""
        j = self.mechanism._joint_index(name)
        if self.joints.shape[2] == 6:
            return self.joints[:, j, :3], self.joints[:, j, 3:]
        return self.joints[:, j, :2], self.joints[:, j, 2]

    def _columns(self):
        """The table's columns (see :mod:`kanefem._results` for the naming scheme)."""
        mech = self.mechanism
        cols = {"t_s": self.t}
        for j, J in enumerate(mech.joints):
            if self.joints.shape[2] == 6:
                for i, c in enumerate("xyz"):
                    cols[f"F_{J.name}_{c}_N"] = self.joints[:, j, i]
                for i, c in enumerate("xyz"):
                    cols[f"M_{J.name}_{c}_Nm"] = self.joints[:, j, 3 + i]
                continue
            cols[f"F_{J.name}_x_N"] = self.joints[:, j, 0]
            cols[f"F_{J.name}_y_N"] = self.joints[:, j, 1]
            cols[f"M_{J.name}_Nm"] = self.joints[:, j, 2]
        for k, c in enumerate(mech.coordinates):
            cols[f"{c.name}_drive_{_drive_unit(mech, k)}"] = self.drive[:, k]
        for name, c in self.link_axial.items():
            if mech.link(name)._is_line():
                cols[f"{name}_N0_N"], cols[f"{name}_N1_N_m"], cols[f"{name}_N2_N_m2"] = c.T
                continue
            from ..reduced import _case_names

            model = mech.link(name).model
            d = model.dim  # a spatial body's link: its 3 + 9 inertial cases
            units = ["m_s2"] * d + ["1_s2"] * d * d + ["N" if "_r" not in nm and "theta" not in nm else "Nm"
                                                       for nm in model.dof_names[:model._n_load]]
            names = _case_names(d) + [f"F_{nm}" for nm in model.dof_names[:model._n_load]]
            for k, (nm, u) in enumerate(zip(names, units)):
                cols[f"{name}_kg_{nm}_{u}"] = c[:, k]
        return cols


@dataclass(frozen=True, eq=False)
class LinkEigenvalues(ResultMixin):
    """Frozen-time eigenvalues of an elastic link over a motion.

    Attributes
    ----------
    t : ndarray (nt,)
    eigenvalues, eigenvalues_imag : ndarray (nt, n_modes)
        lambda_k [rad^2/s^2] of (K + K_om [+ K_eps] [+ K_G]) phi = lambda M phi.
    frequencies_hz : ndarray (nt, n_modes)
        sqrt(lambda_k) / 2 pi (negative where lambda_k < 0).
    solver : str
    axial_force : ndarray (nt, 3) or None
        N(x) = c0 + c1 x + c2 x^2 at each instant, where K_G was included.
    geometric_stiffness : bool
        Whether K_G was included.
    axial_force_source : str or None
        How N was obtained (None without K_G).
    s : ndarray of complex or None, shape (nt, n_modes)
        With a gyroscopic solve (the wind pump's lever): the eigenvalues of
        s^2 M + s C + K_eff with Im s >= 0, by ``|s|`` [rad/s]; ``eigenvalues`` then holds
        -s^2 and ``frequencies_hz`` Im(s) / 2 pi.
    options : dict
        The options of the call that made it (n_elements, include_eps, ...), where recorded.
    """

    t: np.ndarray
    eigenvalues: np.ndarray
    eigenvalues_imag: np.ndarray
    frequencies_hz: np.ndarray
    solver: str
    axial_force: np.ndarray | None = None
    stats: dict = field(default_factory=dict)
    geometric_stiffness: bool = False
    axial_force_source: str | None = None
    s: np.ndarray | None = None
    options: dict = field(default_factory=dict)

    def _columns(self):
        """The table's columns (see :mod:`kanefem._results` for the naming scheme)."""
        return eigen_time_columns(self.t, self.eigenvalues, self.frequencies_hz, self.eigenvalues_imag, self.s)


@dataclass(frozen=True, eq=False)
class FlexibleMotion(ResultMixin):
    """The motion of a mechanism with its elastic links coupled both ways.

    Attributes
    ----------
    motion : MechanismMotion
        The rigid coordinates (with the links' elastic inertia acting on them); its
        ``force`` holds what prescribed coordinates need, elastic links included.
    d, d_t : dict
        Per link, the elastic displacements and velocities over all its DOFs, in its
        frame (nt, ndof); zero at the reference conditions.
    joints : ndarray (nt, njoint, 3) or (nt, njoint, 6)
        Joint forces, as ``joints`` of :class:`MechanismForces` (spatial: the force and the
        moment).
    stats : dict
        The integrator's counts, the accuracy target and its ``error_estimate``
        (:meth:`Mechanism.simulate_flexible`).
    geometric_stiffness : dict
        Per link, whether K_G was included (its axial force from the coupled solution).
    """

    motion: MechanismMotion
    d: dict
    d_t: dict
    joints: np.ndarray
    stats: dict
    geometric_stiffness: dict = field(default_factory=dict)

    @property
    def t(self):
        return self.motion.t

    def deflection(self, link, x, component="v"):
        """Lateral displacement [m] of a line link at x along it (a node), over time: ``v``
        (along the frame's y axis) or, in space, ``w`` (along z); any link:
        :meth:`displacement`."""
        mech = self.motion.mechanism
        L = mech.link(link)
        if not L._is_line():
            raise ValueError(f"deflection: link {link!r} is a {type(L.body).__name__}, not a line body: "
                             "displacement(link, node) gives its nodes' displacements")
        _checks.choice("component", component, ("v", "w") if L.body.dim == 3 else ("v",))
        x = _checks.real("x", x)  # nan is no node (it found node 0, whose deflection is zero)
        nodes = L.body.nodes[:, 0]
        i = int(np.argmin(np.abs(nodes - x)))
        if abs(nodes[i] - x) > 1e-9 * L.body.length:
            raise ValueError(f"x = {x} is not a node of {link} (nodes at {nodes.tolist()})")
        return self.d[link][:, i * L.body.dofs_per_node + (1 if component == "v" else 2)]

    def displacement(self, link, node):
        """The displacement of a node of a link in its frame over time: (u, v) [m], (nt, 2),
        in the plane, (u, v, w), (nt, 3), in space: a line body's node, a MeshBody link's
        mesh node, a ReducedBody link's full body's node (expanded, d = V q)."""
        mech = self.motion.mechanism
        L = mech.link(link)
        d = self.d[L.name]
        dim = mech.space
        zero = np.zeros(d.shape[0])
        if L._is_line():
            b = L.body
            node = _checks.index("node", node, b.n_nodes, "nodes")
            nd = b.dofs_per_node
            return np.column_stack([d[:, node * nd + c] if c < min(nd, b.dim) else zero for c in range(dim)])
        red = L.model
        rows = red._translation_rows(dim)
        if rows is None:
            raise ValueError(f"displacement: the full body of link {link!r} is not known (a version 1 file "
                             "loaded without it): expand d with its basis")
        *rs, nn = rows
        node = _checks.index("node", node, nn, "nodes of its full body")
        if L.model is not L.body:  # a MeshBody link: d is over the mesh's DOFs already
            return np.column_stack([d[:, r[node]] if r is not None else zero for r in rs])
        V = red.basis_matrix
        return np.column_stack([d @ V[r[node]] if r is not None else zero for r in rs])

    def _columns(self):
        """t_s, the coordinates (two ways) and each link's lateral deflection at its
        middle node ``<link>_v_mid_m`` (in space also ``<link>_w_mid_m``; a reduced link:
        at its full body's node nearest its mass centre; see :mod:`kanefem._results` for
        the names)."""
        m = self.motion
        mech = m.mechanism
        cols = {"t_s": m.t}
        for k, c in enumerate(mech.coordinates):
            cols.update(_coordinate_columns(mech, k, m.z[:, k], m.zd[:, k], None, m.force[:, k]))
        for L in mech.links:
            body = L.body
            if L._is_line():
                node = (body.n_nodes - 1) // 2
                u = self.displacement(L.name, node)
            else:
                u = self.displacement(L.name, L._middle_node())
            cols[f"{L.name}_v_mid_m"] = u[:, 1]
            if mech.space == 3:
                cols[f"{L.name}_w_mid_m"] = u[:, 2]
        return cols


def _drive_unit(mech, k):
    """The unit of coordinate k's generalized force: Nm (an angle) or N (a length)."""
    return "Nm" if mech.coordinate_unit(k) == "rad" else "N"


def _coordinate_columns(mech, k, z, zd, zdd, force):
    """A coordinate's value, rate, acceleration (if given) and drive force columns."""
    c, u = mech.coordinates[k], mech.coordinate_unit(k)
    cols = {f"{c.name}_{u}": z, f"{c.name}_rate_{u}_s": zd}
    if zdd is not None:
        cols[f"{c.name}_acc_{u}_s2"] = zdd
    cols[f"{c.name}_drive_{_drive_unit(mech, k)}"] = force
    return cols
