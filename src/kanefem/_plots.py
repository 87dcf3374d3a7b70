"""Figures of the wind pump (matplotlib, imported only here and only when asked for).

Used by ``python -m kanefem windpump`` and by notebooks/windpump.ipynb.  Figures are
built on matplotlib's object API (no pyplot state, no display needed) and saved
atomically.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ._io import atomic_write
from ._results import finish_axes, plot_frequencies


def _matplotlib():
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("matplotlib is not installed") from None
    return Figure


def sketch(ax, motion, n_positions=12, color="C0"):
    """Draw the mechanism at n_positions instants of a motion (A, B, C', D, the
    pendulum and its weight), as the papers' motion sketches (seed 004, Figs. 3-4)."""
    p = motion.params
    idx = np.linspace(0, motion.t.size - 1, min(n_positions, motion.t.size)).round().astype(int)
    P = motion.points
    for k in idx:
        A, B, C, D = (P[name][k] for name in "ABCD")
        G = D + p.L * np.array([math.cos(motion.theta3[k]), math.sin(motion.theta3[k])])
        ax.plot([A[0], B[0]], [A[1], B[1]], color="0.4", lw=1.5)
        ax.plot([B[0], C[0]], [B[1], C[1]], color=color, lw=1.2)
        ax.plot([C[0], D[0], G[0]], [C[1], D[1], G[1]], color="C1", lw=1.0, alpha=0.8)
        ax.plot(*G, "o", color="C3", ms=4)
    ax.plot(P["B"][:, 0], P["B"][:, 1], ":", color="0.4", lw=0.8)
    ax.plot(P["C"][:, 0], P["C"][:, 1], "-", color=color, lw=0.6, alpha=0.6)
    x0, x1 = P["D"][:, 0].min(), P["D"][:, 0].max()
    ax.plot([x0 - 0.1, x1 + 0.1], [p.e, p.e], color="k", lw=0.8)
    ax.plot(0.0, 0.0, "k^", ms=6)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")


_STYLES = ("-", "--", "-.", ":")


def _save(fig, path):
    return atomic_write(path, lambda f: fig.savefig(f, format="png", dpi=120), mode="wb")


def windpump_figures(out, pump, motion, forces, eig):
    """The main job's PNG figures; returns their paths.  ImportError without matplotlib."""
    Figure = _matplotlib()
    out = Path(out)
    deg = np.degrees(motion.alpha - motion.alpha[0])
    written = []

    fig = Figure(figsize=(11, 4.2), layout="constrained")
    ax = fig.add_subplot(1, 2, 1)
    sketch(ax, motion)
    ax.set_title(f"wind pump at {60 * motion.omega1.mean() / (2 * math.pi):.0f} rpm")
    ax2 = fig.add_subplot(1, 2, 2)
    ax2.plot(deg, 1e3 * (motion.x_D - pump.params.x_D0), label="x_D - x_D0 [mm]")
    ax2.plot(deg, np.degrees(motion.theta3 + math.pi / 2), "--", label="theta3 + 90 [deg]")
    ax2.plot(deg, np.degrees(motion.transmission_angle), "-.", label="transmission angle [deg]")
    ax2.set_xlabel("crank angle from start [deg]")
    ax2.set_ylabel("slider [mm], angles [deg]")
    ax2.legend(fontsize=8)
    ax2.grid(alpha=0.3)
    finish_axes(ax2)
    written.append(_save(fig, out / "motion.png"))

    fig = Figure(figsize=(11, 4.2), layout="constrained")
    ax = fig.add_subplot(1, 2, 1)
    styles = ("-", "--", "-.", ":")
    for k, (name, F) in enumerate((("A", forces.F_A), ("B", forces.F_B), ("C'", forces.F_C), ("D", forces.F_D))):
        ax.plot(deg, np.hypot(F[:, 0], F[:, 1]), styles[k], label=f"|F_{name}|")
    ax.plot(deg, forces.N_guide, "--", lw=2.0, alpha=0.7, label="N guide")
    ax.set_xlabel("crank angle from start [deg]")
    ax.set_ylabel("force [N]")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    finish_axes(ax)
    ax = fig.add_subplot(1, 2, 2)
    ax.plot(deg, forces.motor_torque, color="C4")
    ax.set_xlabel("crank angle from start [deg]")
    ax.set_ylabel("motor torque [N m]")
    ax.grid(alpha=0.3)
    finish_axes(ax)
    written.append(_save(fig, out / "joint_forces.png"))

    # the eigenvalues on the crank angle too (all of the job's cycle figures share it)
    eig_deg = np.interp(eig.t, motion.t, deg)
    m = eig.eigenvalues.shape[1]
    fig = Figure(figsize=(5.5 * min(m, 3), 4.0), layout="constrained")
    for k in range(min(m, 3)):
        ax = fig.add_subplot(1, min(m, 3), k + 1)
        ax.plot(eig_deg, eig.eigenvalues[:, k], color=f"C{k}", label=f"lambda_{k + 1}")
        ax.set_xlabel("crank angle from start [deg]")
        ax.set_ylabel(f"lambda_{k + 1} [rad^2/s^2]")
        ax.set_title(f"lever BC', eigenvalue {k + 1} ({eig.solver})")
        ax.grid(alpha=0.3)
        finish_axes(ax)
    written.append(_save(fig, out / "lever_eigenvalues.png"))
    return written


def mechanism_sketch(ax, mech, motion, n_positions=8):
    """A general mechanism at n_positions instants: each body as the polygon through its
    joints' points, elastic links in colour, the paths of the joints."""
    idx = np.linspace(0, motion.t.size - 1, min(n_positions, motion.t.size)).round().astype(int)
    pts = {J.name: motion.point(J.bodies[1], J.at) for J in mech.joints}
    for b, body in enumerate(mech.bodies):
        names = [J.name for J in mech.joints if body.name in J.bodies]
        elastic = body in mech.links
        for k in idx:
            P = np.array([pts[n][k] for n in names] or [motion.q[k, b, :2]])
            ax.plot(P[:, 0], P[:, 1], "-o", color="C0" if elastic else "0.4", lw=1.2 if elastic else 1.5,
                    ms=2.5, alpha=0.8)
    for name, P in pts.items():
        ax.plot(P[:, 0], P[:, 1], ":", lw=0.7, color="0.5")
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    if mech.space == 3:
        ax.set_title("projected on the x-y plane", fontsize=8)


def joint_force_magnitude(forces, j):
    """|F| of joint j over the motion [N] (its 2 planar or 3 spatial force components)."""
    return np.linalg.norm(forces.joints[:, j, :3 if forces.joints.shape[2] == 6 else 2], axis=1)


def crank_coordinate(mech, motion):
    """The index of a crank: an angle coordinate that turns one way by at least half a
    turn over the motion (a cycle's x axis is its angle), or None (then time)."""
    for k in range(len(mech.coordinates)):
        if mech.coordinate_unit(k) != "rad":
            continue
        zd = motion.zd[:, k]
        if (np.all(zd > 0) or np.all(zd < 0)) and np.ptp(motion.z[:, k]) >= math.pi:
            return k
    return None


def mechanism_figures(out, mech, motion, forces, eig, flex=None):
    """The mechanism job's PNG figures; returns their paths.  ImportError without matplotlib.

    Every panel but the sketch shares one x axis: a crank's angle from the start (see
    :func:`crank_coordinate`), or time where no coordinate turns.
    """
    Figure = _matplotlib()
    out = Path(out)
    written = []
    k_crank = crank_coordinate(mech, motion)

    def x_of(m):
        """(x values, label) of a motion (rigid or two-way) on the figures' x axis."""
        if k_crank is None:
            return m.t, "t [s]"
        z = m.z[:, k_crank]
        return np.degrees(np.abs(z - z[0])), f"{mech.coordinates[k_crank].name} angle from start [deg]"

    x, xlabel = x_of(motion)
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    mechanism_sketch(fig.add_subplot(1, 2, 1), mech, motion)
    ax = fig.add_subplot(1, 2, 2)
    units = set()
    for k, c in enumerate(mech.coordinates):
        u = "N m" if mech.coordinate_unit(k) == "rad" else "N"
        units.add(u)
        ax.plot(x, motion.force[:, k], _STYLES[k % 4], label=f"{c.name} drive [{u}]")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"drive {'torque' if units == {'N m'} else 'force'} [{', '.join(sorted(units))}]")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    finish_axes(ax)
    written.append(_save(fig, out / "motion.png"))

    fig = Figure(figsize=(6.5, 4.2), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    for j, J in enumerate(mech.joints):
        ax.plot(x, joint_force_magnitude(forces, j), _STYLES[j % 4], label=f"|F_{J.name}|")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("joint force [N]")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    finish_axes(ax)
    written.append(_save(fig, out / "joint_forces.png"))

    if eig:
        fig = Figure(figsize=(5.5 * len(eig), 4.0), layout="constrained")
        for i, (name, r) in enumerate(eig.items()):
            plot_frequencies(fig.add_subplot(1, len(eig), i + 1), np.interp(r.t, motion.t, x), r.frequencies_hz,
                             f"link {name} ({r.solver})", xlabel=xlabel)
        written.append(_save(fig, out / "eigenvalues.png"))

    if flex is not None:
        xf, _ = x_of(flex.motion)
        fig = Figure(figsize=(11, 4.2), layout="constrained")
        ax = fig.add_subplot(1, 2, 1)
        for L in mech.links:
            node = (L.body.n_nodes - 1) // 2
            if L.body.dofs_per_node > 1:
                ax.plot(xf, 1e3 * flex.d[L.name][:, node * L.body.dofs_per_node + 1], label=f"{L.name}, node {node}")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("midspan deflection v, two ways [mm]")
        if ax.get_lines():
            ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        finish_axes(ax)
        ax = fig.add_subplot(1, 2, 2)
        units = set()
        for k, c in enumerate(mech.coordinates):
            units.add("N m" if mech.coordinate_unit(k) == "rad" else "N")
            ax.plot(x, motion.force[:, k], "--", lw=2.0, color=f"C{k}", label=f"{c.name}: rigid")
            ax.plot(xf, flex.motion.force[:, k], color=f"C{k}", lw=1.0, label=f"{c.name}: two ways")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"drive [{', '.join(sorted(units))}]")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        finish_axes(ax)
        written.append(_save(fig, out / "flexible_motion.png"))
    return written
