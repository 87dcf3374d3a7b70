"""What every kanefem result object can do: flat records, tables and plots.

:class:`ResultMixin` is a base class of the package's result dataclasses
(:class:`~kanefem.EigenResult`, :class:`~kanefem.GyroscopicResult`,
:class:`~kanefem.SimulationResult`, :class:`~kanefem.WindPumpMotion`,
:class:`~kanefem.JointForces`, :class:`~kanefem.LeverEigenvalues`,
:class:`~kanefem.SweepResult`).  It adds

* ``to_dict()``: a flat mapping name -> NumPy array (nested dicts and dataclasses
  become ``"stats.steps"``, ``"params.l1"``), which is what a sweep stores, and
  ``from_dict()`` which rebuilds the object from it;
* ``to_dataframe()``: a :class:`pandas.DataFrame` (pandas is optional: ``pip install
  pandas``);
* ``plot()``: a matplotlib figure of the result's main quantity (``pip install
  "kanefem[plot]"``).

The class-specific layouts live here, keyed by class name, so that the result
classes themselves only name the mixin.  pandas and matplotlib are imported only
when asked for.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Mapping

import numpy as np

__all__ = ["ResultMixin", "require_pandas", "require_pyplot", "campbell"]


def require_pandas():
    """pandas, or an ImportError that says how to install it."""
    try:
        import pandas
    except ImportError:
        raise ImportError(
            "to_dataframe() needs pandas, which is not installed: pip install pandas "
            "(or pip install 'kanefem[dataframe]')"
        ) from None
    return pandas


def require_pyplot():
    """matplotlib.pyplot, or an ImportError that says how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            "plot() needs matplotlib, which is not installed: pip install 'kanefem[plot]'"
        ) from None
    return plt


def _axes(ax, figsize=(6.4, 4.0)):
    if ax is not None:
        return ax
    return require_pyplot().subplots(figsize=figsize, layout="constrained")[1]


# ---------------------------------------------------------------- flat records


def flatten(out, name, value):
    """Put ``value`` into ``out`` under ``name`` as arrays; mappings and dataclasses
    become dotted names; None is left out."""
    if value is None:
        return
    if isinstance(value, Mapping):
        for k, v in value.items():
            flatten(out, f"{name}.{k}", v)
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            flatten(out, f"{name}.{f.name}", getattr(value, f.name))
        return
    a = np.asarray(value)
    if a.dtype == object:
        raise TypeError(f"{name} = {value!r} is not an array of numbers or strings")
    out[name] = a


def _restore(value, hint):
    """A stored array back to the field's type: a tuple, a Python scalar or an array."""
    a = np.asarray(value)
    if (typing.get_origin(hint) or hint) is tuple:
        return tuple(a.tolist())
    if a.ndim == 0 and hint is not np.ndarray:
        return a.item()
    return a


def _nest(flat):
    """{"a.b": x, "a.c": y} -> {"a": {"b": x, "c": y}} (one dotted level at a time)."""
    out = {}
    for key, v in flat.items():
        head, _, rest = key.partition(".")
        if rest:
            out.setdefault(head, {})[rest] = v
        else:
            out[head] = v
    return {k: _nest(v) if isinstance(v, dict) else v for k, v in out.items()}


def _from_nested(cls, nested):
    hints = typing.get_type_hints(cls)
    kw = {}
    for f in dataclasses.fields(cls):
        if f.name not in nested:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                kw[f.name] = None  # to_dict() leaves None fields out
            continue
        v, hint = nested[f.name], hints.get(f.name)
        real = [h for h in typing.get_args(hint) if h is not type(None)] or [hint]
        if isinstance(v, dict):
            sub = next((h for h in real if dataclasses.is_dataclass(h)), None)
            kw[f.name] = _from_nested(sub, v) if sub else {k: _plain(x) for k, x in v.items()}
        else:
            kw[f.name] = _restore(v, real[0])
    return cls(**kw)


def _plain(v):
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    a = np.asarray(v)
    return a.item() if a.ndim == 0 else a


# ---------------------------------------------------------------- tables


def _eigen_frame(pd, f_hz, **values):
    """One row per (instant, mode): the given per-mode arrays and f_Hz."""
    f_hz = np.atleast_2d(f_hz)
    nt, m = f_hz.shape
    cols = {"instant": np.repeat(np.arange(nt), m), "mode": np.tile(np.arange(1, m + 1), nt)}
    cols.update({name: np.atleast_2d(v).ravel() for name, v in values.items()})
    cols["f_Hz"] = f_hz.ravel()
    return pd.DataFrame(cols)


def _simulation_frame(pd, r):
    names = r.dof_names or ("dof",)
    n = len(names)
    cols = {"t_s": r.t}
    for what in ("d", "v", "p"):
        arr = getattr(r, what)
        if arr is None:
            continue
        for j in range(arr.shape[1]):
            cols[f"{what}_{j // n}_{names[j % n]}"] = arr[:, j]
    return pd.DataFrame(cols)


def _dataframe(obj):
    pd = require_pandas()
    name = type(obj).__name__
    if hasattr(obj, "table"):  # the CSV layout of the command line, units in the names
        header, rows = obj.table()
        return pd.DataFrame(rows, columns=header)
    if name == "EigenResult":
        return _eigen_frame(pd, obj.frequencies_hz, lambda_rad2_s2=obj.eigenvalues,
                            lambda_imag_rad2_s2=obj.eigenvalues_imag)
    if name == "GyroscopicResult":
        return _eigen_frame(pd, obj.frequencies_hz, s_re_rad_s=obj.s.real, s_im_rad_s=obj.s.imag)
    if name == "SimulationResult":
        return _simulation_frame(pd, obj)
    raise TypeError(f"no table layout for {name}")  # a new result class: add one here


# ---------------------------------------------------------------- plots


def _plot_eigen(obj, ax, **kw):
    f = np.atleast_2d(obj.frequencies_hz)
    if f.shape[0] == 1:
        ax.plot(np.arange(1, f.shape[1] + 1), f[0], "o", **kw)
        ax.set_xlabel("mode")
    else:
        for k in range(f.shape[1]):
            ax.plot(f[:, k], label=f"mode {k + 1}", **kw)
        ax.set_xlabel("instant")
        ax.legend(fontsize=8)
    ax.set_ylabel("frequency [Hz]")
    return ax


def _plot_simulation(obj, ax, node=-1, dof=None, what="d", **kw):
    y = obj.node(node, dof, what)
    dof = dof or obj.dof_names[0]
    ax.plot(obj.t, y, **kw)
    ax.set_xlabel("t [s]")
    ax.set_ylabel(f"{what} at node {node}, {dof}")
    return ax


def _crank_deg(obj):
    return np.degrees(obj.alpha - obj.alpha[0])


def _plot_motion(obj, ax, **kw):
    deg = _crank_deg(obj)
    ax.plot(deg, 1e3 * (obj.x_D - obj.params.x_D0), label="x_D - x_D0 [mm]", **kw)
    ax.plot(deg, np.degrees(obj.theta2), label="theta2 [deg]", **kw)
    ax.plot(deg, np.degrees(obj.theta3 + math.pi / 2), label="theta3 + 90 [deg]", **kw)
    ax.set_xlabel("crank angle from start [deg]")
    ax.legend(fontsize=8)
    return ax


def _plot_forces(obj, ax, **kw):
    for name in ("F_A", "F_B", "F_C", "F_D"):
        F = getattr(obj, name)
        ax.plot(obj.t, np.hypot(F[:, 0], F[:, 1]), label=f"|{name}|", **kw)
    ax.plot(obj.t, obj.N_guide, "--", label="N guide", **kw)
    ax.set_xlabel("t [s]")
    ax.set_ylabel("force [N]")
    ax.legend(fontsize=8)
    return ax


def _plot_lever(obj, ax, **kw):
    for k in range(obj.eigenvalues.shape[1]):
        ax.plot(obj.t, obj.frequencies_hz[:, k], label=f"mode {k + 1}", **kw)
    ax.set_xlabel("t [s]")
    ax.set_ylabel("lever frequency [Hz]")
    ax.set_title(f"lever BC' ({obj.solver})")
    ax.legend(fontsize=8)
    return ax


_PLOTS = {
    "EigenResult": _plot_eigen,
    "GyroscopicResult": _plot_eigen,
    "SimulationResult": _plot_simulation,
    "WindPumpMotion": _plot_motion,
    "JointForces": _plot_forces,
    "LeverEigenvalues": _plot_lever,
}


def campbell(x, frequencies, ax=None, orders=(1, 2, 3), x_label="speed", x_to_hz=None, **kw):
    """A Campbell diagram: natural frequencies against speed, with engine orders.

    Parameters
    ----------
    x : array_like, shape (n,)
        The speeds (the sweep's parameter), in any unit.
    frequencies : array_like, shape (n, n_modes) or (n, nt, n_modes)
        Natural frequencies [Hz] at each speed; with an instant axis (e.g. over a crank
        turn) each mode is drawn as its mean with the band of its range over the turn.
    ax : matplotlib Axes, optional
    orders : sequence of int
        Engine orders k to draw as the lines f = k x_to_hz(x) (where a mode crosses
        one, the speed excites it), where they fall in the modes' frequency range;
        none without ``x_to_hz``.
    x_label : str
    x_to_hz : callable, optional
        The speed in Hz of rotation, e.g. ``lambda rpm: rpm / 60``.

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    x = np.asarray(x, dtype=float)
    f = np.asarray(frequencies, dtype=float)
    order = np.argsort(x)
    x, f = x[order], f[order]
    if f.ndim == 3:
        lo, mean, hi = f.min(axis=1), f.mean(axis=1), f.max(axis=1)
    else:
        lo = mean = hi = f.reshape(x.size, -1)
    for k in range(mean.shape[1]):
        line = ax.plot(x, mean[:, k], "o-", ms=3, label=f"mode {k + 1}", **kw)[0]
        if f.ndim == 3:
            ax.fill_between(x, lo[:, k], hi[:, k], color=line.get_color(), alpha=0.25, lw=0)
    if x_to_hz is not None:
        bottom, top = ax.get_ylim()
        for k in orders:  # only where they can cross a mode (in the frequency range drawn)
            fx = k * np.asarray([x_to_hz(v) for v in x])
            keep = (fx >= bottom) & (fx <= top)
            if keep.any():
                ax.plot(x[keep], fx[keep], ":", color="0.5", lw=0.8)
                ax.annotate(f"{k}x", (x[keep][-1], fx[keep][-1]), fontsize=7, color="0.4")
    ax.set_xlabel(x_label)
    ax.set_ylabel("frequency [Hz]")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return ax


# ---------------------------------------------------------------- the mixin


class ResultMixin:
    """Records, tables and plots for a result dataclass (see the module docstring)."""

    __slots__ = ()

    def to_dict(self) -> dict:
        """The result as a flat mapping name -> ndarray.

        Nested mappings and dataclasses (``stats``, ``options``, ``params``) become
        dotted names (``"stats.steps"``); None fields are left out.  This is what
        :func:`kanefem.sweep` stores, and :meth:`from_dict` reads it back.

        Examples
        --------
        >>> import kanefem
        >>> r = kanefem.PlanarBeam(0.6, 4, E=210e9, A=2e-4, I=1.7e-9, rho=7850).eigenvalues(2)
        >>> sorted(r.to_dict())[:3]
        ['eigenvalues', 'eigenvalues_imag', 'mode_shapes']
        """
        out = {}
        for f in dataclasses.fields(self):
            flatten(out, f.name, getattr(self, f.name))
        return out

    @classmethod
    def from_dict(cls, record):
        """Rebuild a result from :meth:`to_dict`'s mapping (e.g. a stored sweep point).

        Examples
        --------
        >>> import kanefem
        >>> r = kanefem.PlanarBeam(0.6, 4, E=210e9, A=2e-4, I=1.7e-9, rho=7850).eigenvalues(2)
        >>> back = kanefem.EigenResult.from_dict(r.to_dict())
        >>> bool((back.eigenvalues == r.eigenvalues).all()), back.solver
        (True, 'symmetric')
        """
        if not isinstance(record, Mapping):
            raise TypeError(f"record must be a mapping (from to_dict()), got {type(record).__name__}")
        return _from_nested(cls, _nest(dict(record)))

    def to_dataframe(self):
        """The result as a :class:`pandas.DataFrame`.

        Time series (motions, joint forces, lever eigenvalues, responses): one row per
        instant, columns with units in their names (as the command line's CSV files).
        Eigenvalues: one row per (instant, mode).

        Raises
        ------
        ImportError
            pandas is not installed (the message says how to install it).

        Examples
        --------
        >>> import kanefem
        >>> r = kanefem.PlanarBeam(0.6, 4, E=210e9, A=2e-4, I=1.7e-9, rho=7850).eigenvalues(2)
        >>> list(r.to_dataframe().columns)  # doctest: +SKIP
        ['instant', 'mode', 'lambda_rad2_s2', 'lambda_imag_rad2_s2', 'f_Hz']
        """
        return _dataframe(self)

    def plot(self, ax=None, **kwargs):
        """Plot the result's main quantity on ``ax`` (a new figure if None); return the axes.

        Keyword arguments go to the plot (``SimulationResult``: also ``node``, ``dof``,
        ``what`` as in :meth:`~kanefem.SimulationResult.node`).

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        return _PLOTS[type(self).__name__](self, _axes(ax), **kwargs)
