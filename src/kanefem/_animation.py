"""Mechanisms in motion: an animation over a motion with the elastic links' deformation
magnified (GIF through Pillow, MP4 through ffmpeg).

Used as :meth:`kanefem.WindPump.animate`, :meth:`kanefem.Mechanism.animate` and by
``python -m kanefem windpump --animate`` / ``mechanism FILE --animate``.  A link is drawn
in its frame (origin at the elements' x = 0, x along them) from its nodal displacements
((u, v, theta) of a beam, u of a bar), with v interpolated inside each element by the
beam's own cubic Hermite shape functions, then carried to the plane by the rigid motion.
matplotlib is imported only here, and only when a frame is drawn.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np

from . import _checks
from ._io import atomic_write

#: at most this many frames by default (a turn at 360 instants: one every 10 degrees)
DEFAULT_FRAMES = 36


def beam_shape(d, length, origin, angle, magnify, dofs_per_node=3, n_sub=8):
    """Global (x, y) points of a straight line body with nodal displacements d (ndof,)
    in its frame (origin, angle), magnified by ``magnify``: shape
    (n_elements * n_sub + 1, 2) [m].  ``dofs_per_node`` 3: a beam (u, v, theta); 1: a
    bar (u)."""
    n_el = d.shape[0] // dofs_per_node - 1
    h = length / n_el
    s = np.linspace(0.0, 1.0, n_sub + 1)[:-1]
    # cubic Hermite shape functions of a beam element on [0, h]
    H = np.column_stack([1 - 3 * s**2 + 2 * s**3, h * (s - 2 * s**2 + s**3), 3 * s**2 - 2 * s**3, h * (-s**2 + s**3)])
    nd = dofs_per_node
    xs, us, vs = [], [], []
    for e in range(n_el):
        ui, uj = d[nd * e], d[nd * (e + 1)]
        xs.append(h * (e + s))
        us.append(ui + (uj - ui) * s)
        vs.append(H @ d[[nd * e + 1, nd * e + 2, nd * e + 4, nd * e + 5]] if nd == 3 else np.zeros(n_sub))
    xs.append([length])
    us.append([d[-nd]])
    vs.append([d[-2] if nd == 3 else 0.0])
    x = np.concatenate(xs) + magnify * np.concatenate(us)
    y = magnify * np.concatenate(vs)
    c, sn = math.cos(angle), math.sin(angle)
    return np.column_stack([origin[0] + c * x - sn * y, origin[1] + sn * x + c * y])


def lever_shape(motion, d, k, magnify, n_sub=8):
    """Global (x, y) points of the wind pump's lever at instant k with displacements d
    (ndof,) magnified by ``magnify``: shape (n_elements * n_sub + 1, 2) [m]."""
    return beam_shape(d, motion.params.l2, motion.points["B"][k], motion.theta2[k], magnify, n_sub=n_sub)


def _default_magnify(motion, d):
    """Show the largest deflection as a tenth of the lever's length."""
    vmax = np.abs(d[:, 1::3]).max()
    return 0.1 * motion.params.l2 / vmax if vmax > 0 else 1.0


class _Frames:
    """The artists of one axes, updated instant by instant."""

    def __init__(self, ax, motion, d, magnify):
        self.motion, self.d, self.magnify = motion, d, magnify
        P = motion.points
        self.ax = ax
        ax.plot(P["B"][:, 0], P["B"][:, 1], ":", color="0.6", lw=0.8)
        ax.plot(P["C"][:, 0], P["C"][:, 1], ":", color="C0", lw=0.6, alpha=0.6)
        x0, x1 = P["D"][:, 0].min(), P["D"][:, 0].max()
        p = motion.params
        ax.plot([x0 - 0.1, x1 + 0.1], [p.e, p.e], color="k", lw=0.8)
        ax.plot(0.0, 0.0, "k^", ms=7)
        (self.crank,) = ax.plot([], [], color="0.3", lw=2.5)
        (self.lever,) = ax.plot([], [], color="C0", lw=2.0)
        (self.rigid,) = ax.plot([], [], color="C0", lw=0.6, ls="--", alpha=0.6)
        (self.rocker,) = ax.plot([], [], color="C1", lw=1.6)
        (self.weight,) = ax.plot([], [], "o", color="C3", ms=9)
        (self.slider,) = ax.plot([], [], "s", color="0.2", ms=9)
        self.text = ax.text(0.02, 0.96, "", transform=ax.transAxes, va="top", fontsize=8)
        reach = np.vstack([P[n] for n in "ABCD"])
        G = P["D"] + p.L * np.column_stack([np.cos(motion.theta3), np.sin(motion.theta3)])
        reach = np.vstack([reach, G])
        pad = 0.08
        ax.set_xlim(reach[:, 0].min() - pad, reach[:, 0].max() + pad)
        ax.set_ylim(reach[:, 1].min() - pad, reach[:, 1].max() + pad)
        ax.set_aspect("equal")
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m]")

    def draw(self, k):
        m, p = self.motion, self.motion.params
        A, B, C, D = (m.points[n][k] for n in "ABCD")
        G = D + p.L * np.array([math.cos(m.theta3[k]), math.sin(m.theta3[k])])
        shape = lever_shape(m, self.d[k], k, self.magnify)
        self.crank.set_data([A[0], B[0]], [A[1], B[1]])
        self.lever.set_data(shape[:, 0], shape[:, 1])
        self.rigid.set_data([B[0], C[0]], [B[1], C[1]])
        self.rocker.set_data([C[0], D[0], G[0]], [C[1], D[1], G[1]])
        self.weight.set_data([G[0]], [G[1]])
        self.slider.set_data([D[0]], [D[1]])
        vmid = self.d[k, 1::3][self.d.shape[1] // 6]
        self.text.set_text(f"t = {m.t[k]:.4f} s, crank {math.degrees(m.alpha[k] - m.alpha[0]):5.1f} deg\n"
                           f"lever deflection x{self.magnify:.3g} (midspan v = {1e6 * vmid:+.1f} um)")
        return self.crank, self.lever, self.rigid, self.rocker, self.weight, self.slider, self.text


def _prepare(pump, motion, response, magnify):
    pump._check_motion(motion)
    if response is None:
        response = pump.lever_response(motion)
    d = _checks.array("response.d", getattr(response, "d", None), ndim=2)
    if d.shape[0] != motion.t.shape[0] or d.shape[1] % 3 or d.shape[1] < 6:
        raise ValueError(f"response.d has shape {d.shape}: expected (nt, 3 (n_elements + 1)) over the "
                         f"{motion.t.shape[0]} instants of the motion (from WindPump.lever_response)")
    magnify = _default_magnify(motion, d) if magnify is None else _checks.real("magnify", magnify, nonnegative=True)
    return d, magnify


def draw_frame(pump, motion, k=0, response=None, magnify=None, ax=None):
    """Draw the pump at instant k with the lever's deformation magnified; returns the axes.

    The arguments are those of :func:`animate`; ``k`` indexes ``motion.t``.
    """
    d, magnify = _prepare(pump, motion, response, magnify)
    k = _checks.integer("k", k, minimum=-motion.t.shape[0], maximum=motion.t.shape[0] - 1)
    if ax is None:
        from ._results import require_pyplot

        ax = require_pyplot().subplots(figsize=(7, 5), layout="constrained")[1]
    _Frames(ax, motion, d, magnify).draw(k % motion.t.shape[0])
    return ax


def animate(pump, motion, response=None, path=None, magnify=None, frames=None, fps=12):
    """Animate the wind pump over a motion, the lever's elastic deformation magnified.

    Parameters
    ----------
    motion : WindPumpMotion
        From :meth:`solve` on this pump (e.g. one turn on the steady state).
    response : SimulationResult, optional
        The lever's response on that motion (:meth:`lever_response`); default: computed
        here with its defaults (Newmark from the quasi-static deflection).
    path : str or path-like, optional
        Write the animation there (atomically): ``.gif`` (Pillow, always available
        with matplotlib) or ``.mp4`` (needs ffmpeg on PATH).  None: return the
        matplotlib animation (in a notebook: ``IPython.display.HTML(anim.to_jshtml())``).
    magnify : float, optional
        Scale factor of the displacements (default: the largest deflection drawn as a
        tenth of the lever's length).
    frames : int, optional
        Number of frames, instants evenly spread over the motion (default all, at most
        36: one frame per 10 degrees of a turn at 360 instants).
    fps : float
        Frames per second of the file.

    Returns
    -------
    pathlib.Path or matplotlib.animation.FuncAnimation

    Raises
    ------
    ImportError
        matplotlib (or Pillow) is missing.
    RuntimeError
        ``.mp4`` asked for without ffmpeg.
    ValueError
        Another file type, or a response that does not belong to the motion.
    """
    d, magnify = _prepare(pump, motion, response, magnify)
    return _render(lambda ax: _Frames(ax, motion, d, magnify), motion.t.shape[0], path, frames, fps)


def _render(make_frames, nt, path, frames, fps, projection=None):
    """The animation of ``make_frames(ax).draw(k)`` over ``frames`` of nt instants:
    written to path (.gif or .mp4, atomically), or returned (path None); ``projection``
    "3d" draws on 3-D axes."""
    from ._results import require_pyplot

    require_pyplot()
    from matplotlib import animation
    from matplotlib.figure import Figure

    n = min(nt, DEFAULT_FRAMES) if frames is None else _checks.integer("frames", frames, minimum=1, maximum=nt)
    idx = np.unique(np.linspace(0, nt - 1, n).round().astype(int))
    fps = _checks.real("fps", fps, positive=True)
    writer = None
    if path is not None:
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".gif":
            writer = animation.PillowWriter(fps=fps)
        elif suffix == ".mp4":
            if not animation.writers.is_available("ffmpeg"):
                raise RuntimeError(f"path = {str(path)!r}: writing MP4 needs ffmpeg, which is not on PATH "
                                   "(install it, or write a .gif)")
            writer = animation.FFMpegWriter(fps=fps)
        else:
            raise ValueError(f"path = {str(path)!r}: the animation is written as .gif or .mp4")
    fig = Figure(figsize=(7, 5))  # fixed margins: a layout engine would run at every frame
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.1, top=0.97)
    drawer = make_frames(fig.add_subplot(projection=projection))
    anim = animation.FuncAnimation(fig, drawer.draw, frames=idx, interval=1000.0 / fps, blit=False)
    if path is None:
        return anim
    with tempfile.TemporaryDirectory() as tmp:
        tmp_file = Path(tmp) / ("animation" + path.suffix.lower())
        anim.save(tmp_file, writer=writer, dpi=80)  # _io: a private temporary folder, then atomic_write
        return atomic_write(path, lambda f: f.write(tmp_file.read_bytes()), mode="wb")


# ---------------------------------------------------------------- any planar mechanism


def link_nodes(link, d):
    """A reduced or meshed link's full body's nodes in its frame and their displacements
    over time: (x0 (n, 2), ux (nt, n), uy (nt, n)) from ``d`` (nt, ndof) over its body's DOFs
    (a ReducedBody's coordinates expanded, d = V q; a MeshBody's own DOFs)."""
    model = link.model
    if model is not link.body:  # a MeshBody link: d is over the mesh's DOFs
        x0 = np.asarray(link.body.nodes, float)[:, :2]
        return x0, d[:, 0::2], d[:, 1::2]
    rows, x0 = model._translation_rows(), model.full_nodes()
    if rows is None or not x0.size:
        raise ValueError(f"link {link.name!r}: its reduced body's full nodes are not known (a version 1 file "
                         "loaded without its full body): load it with full=...")
    V = model.basis_matrix
    uy = d @ V[rows[1]].T if rows[1] is not None else np.zeros((d.shape[0], rows[2]))
    return x0[:, :2], d @ V[rows[0]].T, uy


class _MechanismFrames:
    """A general mechanism: every body a polyline through its joints (and its mass
    centre), the elastic links deformed (a line link as its deflected axis, a reduced or
    meshed one as its full body's displaced nodes), ground pivots and prismatic guides
    fixed."""

    def __init__(self, ax, motion, deflections, magnify):
        from .mechanism import GROUND, ElasticLink, Prismatic, Revolute

        mech = self.mech = motion.mechanism
        self.motion, self.d, self.magnify = motion, deflections, magnify
        self.ax = ax
        q = motion.q
        # per body: its joints' points tracked over the motion (nt, 2), in the file's order
        self.paths, self.links = {}, {}
        for B in mech.bodies:
            pts = [motion.point(B.name, J.at) for J in mech.joints if B.name in J.bodies]
            if isinstance(B, ElasticLink):
                b = mech._body_index(B.name)
                self.links[B.name] = (B, motion.point(B.name, B.start), q[:, b, 2])
            elif len(pts) < 2:  # one joint: to the mass centre
                pts.append(q[:, mech._body_index(B.name), :2])
            self.paths[B.name] = np.stack(pts, axis=1) if pts else np.zeros((q.shape[0], 0, 2))
        reach = [p.reshape(-1, 2) for p in self.paths.values() if p.size]
        for J in mech.joints:
            if GROUND in J.bodies and isinstance(J, Revolute):  # a ground pivot
                ax.plot(*J.at, "k^", ms=7)
            if isinstance(J, Prismatic) and GROUND in J.bodies:
                other = J.bodies[1] if J.bodies[0] == GROUND else J.bodies[0]
                P = motion.point(other, J.at)
                axis = np.asarray(J.axis, float) / math.hypot(*J.axis)
                s = (P - np.asarray(J.at)) @ axis
                ends = np.asarray(J.at) + np.outer([s.min() - 0.05, s.max() + 0.05], axis)
                ax.plot(ends[:, 0], ends[:, 1], color="k", lw=0.8)
        self.lines, self.nodes = {}, {}
        for k, B in enumerate(mech.bodies):
            colour = f"C{k % 10}"
            if B.name in self.links and not B._is_line():  # its full body's nodes, displaced
                self.nodes[B.name] = link_nodes(B, deflections[B.name])
                (self.lines[B.name],) = ax.plot([], [], ".", color=colour, ms=2, label=f"{B.name} (elastic)")
                (self.lines[B.name + "/rigid"],) = ax.plot([], [], color=colour, lw=0.6, ls="--", alpha=0.6)
            elif B.name in self.links:
                (self.lines[B.name],) = ax.plot([], [], color=colour, lw=2.0, label=f"{B.name} (elastic)")
                (self.lines[B.name + "/rigid"],) = ax.plot([], [], color=colour, lw=0.6, ls="--", alpha=0.6)
            else:
                (self.lines[B.name],) = ax.plot([], [], "-o", color=colour, lw=1.8, ms=3, label=B.name)
        for name, (L, origin, angle) in self.links.items():
            if name in self.nodes:
                x0 = self.nodes[name][0]
                c, s_ = np.cos(angle), np.sin(angle)
                for corner in (x0.min(axis=0), x0.max(axis=0)):
                    reach.append(origin + np.column_stack([c * corner[0] - s_ * corner[1],
                                                           s_ * corner[0] + c * corner[1]]))
                continue
            end = origin + L.body.length * np.column_stack([np.cos(angle), np.sin(angle)])
            reach += [origin, end]
        reach = np.vstack(reach)
        pad = 0.08 * max(np.ptp(reach[:, 0]), np.ptp(reach[:, 1]), 1e-9)
        ax.set_xlim(reach[:, 0].min() - pad, reach[:, 0].max() + pad)
        ax.set_ylim(reach[:, 1].min() - pad, reach[:, 1].max() + pad)
        ax.set_aspect("equal")
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m]")
        ax.legend(loc="upper right", fontsize=7)
        self.text = ax.text(0.02, 0.96, "", transform=ax.transAxes, va="top", fontsize=8)

    def draw(self, k):
        m = self.motion
        for name, p in self.paths.items():
            if name not in self.links:
                self.lines[name].set_data(p[k, :, 0], p[k, :, 1])
        for name, (L, origin, angle) in self.links.items():
            if name in self.nodes:
                x0, ux, uy = self.nodes[name]
                c, s_ = math.cos(angle[k]), math.sin(angle[k])
                x, y = x0[:, 0] + self.magnify * ux[k], x0[:, 1] + self.magnify * uy[k]
                self.lines[name].set_data(origin[k, 0] + c * x - s_ * y, origin[k, 1] + s_ * x + c * y)
                ports = L.ports()[0]
                self.lines[name + "/rigid"].set_data(origin[k, 0] + c * ports[:, 0] - s_ * ports[:, 1],
                                                     origin[k, 1] + s_ * ports[:, 0] + c * ports[:, 1])
                continue
            shape = beam_shape(self.d[name][k], L.body.length, origin[k], angle[k], self.magnify,
                               dofs_per_node=L.body.dofs_per_node)
            self.lines[name].set_data(shape[:, 0], shape[:, 1])
            self.lines[name + "/rigid"].set_data(shape[[0, -1], 0], shape[[0, -1], 1])
        self.text.set_text(f"t = {m.t[k]:.4f} s\nelastic deflections x{self.magnify:.3g}")
        return (*self.lines.values(), self.text)


class _SpatialFrames:
    """A spatial mechanism on 3-D axes: every body a polyline through its joints' points
    (and its mass centre), the elastic links deformed (their nodes' translations
    magnified, in their frames)."""

    def __init__(self, ax, motion, deflections, magnify):
        from .mechanism.spatial import SpatialLink, quaternions_matrices

        mech = self.mech = motion.mechanism
        self.motion, self.d, self.magnify = motion, deflections, magnify
        q = motion.q
        self.paths, self.links, self.lines = {}, {}, {}
        reach = []
        for k, B in enumerate(mech.bodies):
            b = mech._body_index(B.name)
            colour = f"C{k % 10}"
            if isinstance(B, SpatialLink):
                nodes = np.zeros((B.body.n_nodes, 3))
                nodes[:, :B.body.dim] = B.body.nodes
                self.links[B.name] = (B, motion.point(B.name, B.start), quaternions_matrices(q[:, b, 3:]), nodes)
                reach += [self.links[B.name][1], self.links[B.name][1] + np.einsum(
                    "tij,j->ti", self.links[B.name][2], nodes[-1])]
                (self.lines[B.name],) = ax.plot([], [], [], color=colour, lw=2.0, label=f"{B.name} (elastic)")
                continue
            pts = [motion.point(B.name, J.at) for J in mech.joints if B.name in J.bodies]
            if len(pts) < 2:
                pts.append(q[:, b, :3])
            self.paths[B.name] = np.stack(pts, axis=1)
            reach.append(self.paths[B.name].reshape(-1, 3))
            (self.lines[B.name],) = ax.plot([], [], [], "-o", color=colour, lw=1.8, ms=3, label=B.name)
        reach = np.vstack(reach)
        lo, hi = reach.min(axis=0), reach.max(axis=0)
        half = 0.55 * max(float(np.max(hi - lo)), 1e-9)
        mid = (lo + hi) / 2
        ax.set_xlim(mid[0] - half, mid[0] + half)
        ax.set_ylim(mid[1] - half, mid[1] + half)
        ax.set_zlim(mid[2] - half, mid[2] + half)
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m]")
        ax.set_zlabel("z [m]")
        ax.legend(loc="upper right", fontsize=7)
        self.text = ax.text2D(0.02, 0.96, "", transform=ax.transAxes, va="top", fontsize=8)

    def draw(self, k):
        for name, p in self.paths.items():
            self.lines[name].set_data_3d(p[k, :, 0], p[k, :, 1], p[k, :, 2])
        for name, (L, origin, R, nodes) in self.links.items():
            nd, dim = L.body.dofs_per_node, L.body.dim
            u = np.zeros_like(nodes)
            dk = self.d[name][k].reshape(-1, nd)
            u[:, :min(nd, dim)] = dk[:, :min(nd, dim)]
            shape = origin[k] + (nodes + self.magnify * u) @ R[k].T
            self.lines[name].set_data_3d(shape[:, 0], shape[:, 1], shape[:, 2])
        self.text.set_text(f"t = {self.motion.t[k]:.4f} s\nelastic deflections x{self.magnify:.3g}")
        return (*self.lines.values(), self.text)


def mechanism_deflections(mech, motion, deflections):
    """The links' displacements over the motion, {link: (nt, ndof)}: as given, or the
    one-way response of each link on the motion (:meth:`Mechanism.link_response`)."""
    mech._check_motion(motion)
    nt = motion.t.shape[0]
    if deflections is None:
        deflections = {L.name: mech.link_response(motion, L.name, progress=False).d for L in mech.links}
    if not isinstance(deflections, dict):
        raise TypeError(f"deflections must be a dict link name -> (nt, ndof) array, got {_checks._short(deflections)}")
    out = {}
    for L in mech.links:
        if L.name not in deflections:
            raise ValueError(f"deflections has no entry for link {L.name!r} (it has {', '.join(map(repr, deflections))})")
        d = _checks.array(f"deflections[{L.name!r}]", deflections[L.name], shape=(nt, L.body.ndof))
        out[L.name] = d
    return out


def animate_mechanism(mech, motion, deflections=None, path=None, magnify=None, frames=None, fps=12):
    """Animate a mechanism over a motion, its elastic links' deformation magnified.

    Parameters
    ----------
    motion : MechanismMotion
        From :meth:`solve` (or ``FlexibleMotion.motion`` of :meth:`simulate_flexible`).
    deflections : dict, optional
        ``{link: (nt, ndof) array}``, each link's displacements in its frame over the
        motion (``FlexibleMotion.d``); default: the one-way response of every link
        (:meth:`link_response`, Newmark from the quasi-static deflection).
    path, magnify, frames, fps
        As in :meth:`kanefem.WindPump.animate`; ``magnify`` default: the largest
        lateral deflection drawn as a tenth of its link's length (1 without links).

    Returns
    -------
    pathlib.Path or matplotlib.animation.FuncAnimation
    """
    d = mechanism_deflections(mech, motion, deflections)
    if magnify is None:
        scales = []
        for L in mech.links:
            if mech.space == 3:  # the nodes' lateral translations (y, z of the frame)
                nd = L.body.dofs_per_node
                lateral = d[L.name].reshape(d[L.name].shape[0], -1, nd)[:, :, 1:min(nd, 3)]
                v, size = float(np.abs(lateral).max()) if lateral.size else 0.0, L.body.length
            elif not L._is_line():  # its nodes' largest displacement against its extent
                x0, ux, uy = link_nodes(L, d[L.name])
                v, size = float(np.hypot(ux, uy).max(initial=0.0)), float(np.ptp(x0, axis=0).max())
            else:
                nd = L.body.dofs_per_node
                v, size = float(np.abs(d[L.name][:, 1::nd] if nd == 3 else d[L.name]).max()), L.body.length
            if v > 0:
                scales.append(0.1 * size / v)
        magnify = min(scales) if scales else 1.0
    else:
        magnify = _checks.real("magnify", magnify, nonnegative=True)
    if mech.space == 3:
        return _render(lambda ax: _SpatialFrames(ax, motion, d, magnify), motion.t.shape[0], path, frames, fps,
                       projection="3d")
    return _render(lambda ax: _MechanismFrames(ax, motion, d, magnify), motion.t.shape[0], path, frames, fps)
