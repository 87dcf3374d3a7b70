"""The wind pump in motion: an animation over a crank turn with the elastic lever's
deformation magnified (GIF through Pillow, MP4 through ffmpeg).

Used as :meth:`kanefem.WindPump.animate` and by ``python -m kanefem windpump
--animate``.  The lever is drawn in its frame (origin B, x along B->C') from the nodal
displacements (u, v, theta) of a response, with v interpolated inside each element by
the beam's own cubic Hermite shape functions, then carried to the plane by the rigid
motion.  matplotlib is imported only here, and only when a frame is drawn.
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


def lever_shape(motion, d, k, magnify, n_sub=8):
    """Global (x, y) points of the lever at instant k with displacements d (ndof,)
    magnified by ``magnify``: shape (n_elements * n_sub + 1, 2) [m]."""
    p = motion.params
    n_el = d.shape[0] // 3 - 1
    h = p.l2 / n_el
    s = np.linspace(0.0, 1.0, n_sub + 1)[:-1]
    # cubic Hermite shape functions of a beam element on [0, h]
    H = np.column_stack([1 - 3 * s**2 + 2 * s**3, h * (s - 2 * s**2 + s**3), 3 * s**2 - 2 * s**3, h * (-s**2 + s**3)])
    xs, us, vs = [], [], []
    for e in range(n_el):
        ui, vi, ti, uj, vj, tj = d[3 * e: 3 * e + 6]
        xs.append(h * (e + s))
        us.append(ui + (uj - ui) * s)
        vs.append(H @ np.array([vi, ti, vj, tj]))
    xs.append([p.l2])
    us.append([d[-3]])
    vs.append([d[-2]])
    x = np.concatenate(xs) + magnify * np.concatenate(us)
    y = magnify * np.concatenate(vs)
    c, sn = math.cos(motion.theta2[k]), math.sin(motion.theta2[k])
    B = motion.points["B"][k]
    return np.column_stack([B[0] + c * x - sn * y, B[1] + sn * x + c * y])


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
    from ._results import require_pyplot

    require_pyplot()
    from matplotlib import animation
    from matplotlib.figure import Figure

    d, magnify = _prepare(pump, motion, response, magnify)
    nt = motion.t.shape[0]
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
    frames_ = _Frames(fig.add_subplot(), motion, d, magnify)
    anim = animation.FuncAnimation(fig, frames_.draw, frames=idx, interval=1000.0 / fps, blit=False)
    if path is None:
        return anim
    with tempfile.TemporaryDirectory() as tmp:
        tmp_file = Path(tmp) / ("animation" + path.suffix.lower())
        anim.save(tmp_file, writer=writer, dpi=80)  # _io: a private temporary folder, then atomic_write
        return atomic_write(path, lambda f: f.write(tmp_file.read_bytes()), mode="wb")
