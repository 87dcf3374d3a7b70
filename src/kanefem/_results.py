"""What every kanefem result object can do: flat records, tables, MATLAB files and plots.

:class:`ResultMixin` is a base class of the package's result dataclasses
(:class:`~kanefem.EigenResult`, :class:`~kanefem.GyroscopicResult`,
:class:`~kanefem.SimulationResult`, :class:`~kanefem.WindPumpMotion`,
:class:`~kanefem.JointForces`, :class:`~kanefem.LeverEigenvalues`,
:class:`~kanefem.MechanismMotion`, :class:`~kanefem.MechanismForces`,
:class:`~kanefem.LinkEigenvalues`, :class:`~kanefem.FlexibleMotion`,
:class:`~kanefem.SweepResult`).  It adds

* ``to_dict()``: a flat mapping name -> NumPy array (nested dicts and dataclasses
  become ``"stats.steps"``, ``"params.l1"``; a None inside a tuple of numbers becomes
  NaN), which is what a sweep stores, and
  ``from_dict()`` which rebuilds the object from it;
* ``table()`` and ``to_dataframe()``: the result as columns (the command line's CSV
  files, or a :class:`pandas.DataFrame`; pandas is optional: ``pip install pandas``);
* ``to_mat(path)``: a MATLAB ``.mat`` file (``scipy.io.savemat``) with the record
  as structs and the table as the struct ``table``;
* ``plot()``: a matplotlib figure of the result's main quantity.

**Column names** (tables, CSV files, data frames, the studies' scalar outputs) follow
one scheme, ``<quantity>_<unit>``:

* the quantity in the symbols of the documentation, a mode's number attached
  (``f1``, ``lambda2``, ``s1_im``), a vector's component after an underscore
  (``F_A_x``, ``a_B_y``), a node's number as ``n<k>`` (``v_n5``), a joint's, body's,
  coordinate's or link's name first where it has one (``crank_rate``, ``rod_N0``);
* then the SI unit: a product written together (``Nm``), the denominator after an
  underscore (``rad_s`` is rad/s, ``N_m`` is N/m), a power as a digit (``m_s2``,
  ``rad2_s2``), and ``s``, ``m``, ``rad``, ``deg``, ``Hz``, ``N``, ``W``, ``Pa`` as such;
  a strain is ``m_m`` (m/m).

So ``t_s``, ``alpha_rad``, ``crank_deg``, ``f1_Hz``, ``lambda1_rad2_s2``,
``F_A_x_N``, ``M_A_Nm``, ``motor_torque_Nm``, ``lever_N1_N_m`` (the axial force's
slope, N/m).  Counters and indices carry no unit: ``instant``, ``mode``, ``steps``,
``i0``, nor do ratios: ``zeta`` (a damping ratio); a sweep's parameter columns keep the
grid's names.  :data:`UNITS` lists the
units and :data:`COLUMN` is the pattern every column with a unit matches.

The class-specific layouts live here, keyed by class name, or in a result class's
``_columns()``.  pandas and matplotlib are imported only when asked for.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import typing
from collections.abc import Mapping

import numpy as np

__all__ = ["ResultMixin", "require_pandas", "require_pyplot", "campbell", "finish_axes", "UNITS", "COLUMN",
           "dof_unit", "mat_name", "axis_label"]

#: the units a column name may end in (see the module docstring)
UNITS = ("s", "m", "mm", "rad", "deg", "Hz", "N", "Nm", "W", "J", "kg", "Pa", "rpm",
         "m_s", "m_s2", "rad_s", "rad_s2", "rad2_s2", "N_m", "N_m2", "kgm_s", "kgm2_s", "m_m")
#: the pattern of a column name with a unit
COLUMN = re.compile(r"^[A-Za-z][A-Za-z0-9_]*?_(" + "|".join(sorted(UNITS, key=len, reverse=True)) + r")$")

#: DOF names that are rotations (the others are translations [m])
_ROTATIONS = ("theta", "theta_x", "theta_y", "theta_z", "phi", "psi", "rx", "ry", "rz")


def dof_unit(name):
    """The unit of a nodal DOF by its name: "rad" for rotations, else "m"."""
    return "rad" if name in _ROTATIONS else "m"


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
    if hasattr(value, "_to_record"):  # e.g. a Mechanism: its definition as a JSON string
        record = value._to_record()
        if record is not None:
            out[name] = np.asarray(record)
        return
    a = np.asarray(value)
    if a.dtype == object and all(v is None or isinstance(v, (int, float)) for v in a.ravel()):
        a = np.array([np.nan if v is None else v for v in a.ravel()], dtype=float).reshape(a.shape)  # None: NaN
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
        elif hasattr(real[0], "_from_record"):
            kw[f.name] = real[0]._from_record(str(np.asarray(v)))
        else:
            kw[f.name] = _restore(v, real[0])
    return cls(**kw)


def _plain(v):
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    a = np.asarray(v)
    return a.item() if a.ndim == 0 else a


# ---------------------------------------------------------------- tables


def _eigen_columns(f_hz, **values):
    """One row per (instant, mode): the given per-mode arrays and f_Hz."""
    f_hz = np.atleast_2d(f_hz)
    nt, m = f_hz.shape
    cols = {"instant": np.repeat(np.arange(nt), m), "mode": np.tile(np.arange(1, m + 1), nt)}
    cols.update({name: np.atleast_2d(v).ravel() for name, v in values.items()})
    cols["f_Hz"] = f_hz.ravel()
    return cols


def _simulation_columns(r):
    """t_s, then per node n and DOF: the displacement ``<dof>_n<n>_<unit>``, its rate
    ``..._rate_<unit>_s`` and (rk45-hamilton) the momentum ``..._p_kgm_s``."""
    names = r.dof_names or ("dof",)
    n = len(names)
    cols = {"t_s": r.t}
    for what in ("d", "v", "p"):
        arr = getattr(r, what)
        if arr is None:
            continue
        for j in range(arr.shape[1]):
            dof = names[j % n]
            u = dof_unit(dof)
            suffix = {"d": u, "v": f"rate_{u}_s", "p": "p_kgm_s" if u == "m" else "p_kgm2_s"}[what]
            cols[f"{dof}_n{j // n}_{suffix}"] = arr[:, j]
    return cols


def columns(obj):
    """The result's table as an ordered dict column name -> 1-d array (the scheme of
    the module docstring)."""
    name = type(obj).__name__
    if hasattr(obj, "_columns"):
        return obj._columns()
    if name == "EigenResult":
        bounds = {} if obj.error_bounds is None else {"error_bound_rad2_s2": obj.error_bounds}
        return _eigen_columns(obj.frequencies_hz, lambda_rad2_s2=obj.eigenvalues,
                              lambda_imag_rad2_s2=obj.eigenvalues_imag, **bounds)
    if name == "GyroscopicResult":
        bounds = {} if obj.error_bounds is None else {"error_bound_rad_s": obj.error_bounds}
        return _eigen_columns(obj.frequencies_hz, s_re_rad_s=obj.s.real, s_im_rad_s=obj.s.imag,
                              zeta=obj.damping_ratios, **bounds)
    if name == "SimulationResult":
        return _simulation_columns(obj)
    raise TypeError(f"no table layout for {name}")  # a new result class: add one here


def eigen_time_columns(t, eigenvalues, frequencies_hz, imag=None, s=None):
    """t_s, lambda<k>_rad2_s2, f<k>_Hz (and the imaginary parts, or s) per mode: the
    layout of the wind pump's lever and the mechanism's links over a motion."""
    m = eigenvalues.shape[1]
    cols = {"t_s": t}
    cols.update({f"lambda{k + 1}_rad2_s2": eigenvalues[:, k] for k in range(m)})
    cols.update({f"f{k + 1}_Hz": frequencies_hz[:, k] for k in range(m)})
    if imag is not None and np.any(imag != 0.0):
        cols.update({f"lambda{k + 1}_imag_rad2_s2": imag[:, k] for k in range(m)})
    if s is not None:
        cols.update({f"s{k + 1}_re_rad_s": s[:, k].real for k in range(m)})
        cols.update({f"s{k + 1}_im_rad_s": s[:, k].imag for k in range(m)})
    return cols


def axis_label(name):
    """An axis label for a column or parameter name: ``f1_min_Hz`` -> ``f1_min [Hz]``,
    ``motor_torque_Nm`` -> ``motor_torque [N m]``, ``rpm`` -> ``rpm [rev/min]``; a name
    without a unit as it is."""
    known = {"rpm": "rpm [rev/min]", "omega": "omega [rad/s]", "eps": "eps [rad/s^2]"}
    if name in known:
        return known[name]
    m = COLUMN.match(name)
    if not m:
        return name
    unit = m.group(1)
    num, _, den = unit.partition("_")
    pretty = {"Nm": "N m", "kgm": "kg m", "kgm2": "kg m^2", "rad2": "rad^2"}.get(num, num)
    if den:
        pretty += "/" + (den[:-1] + "^" + den[-1] if den[-1].isdigit() else den)
    return f"{name[: m.start(1) - 1]} [{pretty}]"


# ---------------------------------------------------------------- MATLAB files


def mat_name(name, taken=()):
    """A valid MATLAB name for ``name`` (letters, digits, underscores; a letter first;
    at most 63 characters), made unique against ``taken``."""
    out = re.sub(r"[^A-Za-z0-9_]", "_", str(name)) or "x"
    if not out[0].isalpha():
        out = "x" + out
    out = out[:63]
    base, k = out, 2
    while out in taken:
        tail = f"_{k}"
        out, k = base[: 63 - len(tail)] + tail, k + 1
    return out


def _mat_value(v):
    if isinstance(v, Mapping):
        return _mat_struct(v)
    a = np.asarray(v)
    if a.dtype.names:  # a structured array (a frame's motion): a struct of stacked fields
        return _mat_struct({n: a[n] for n in a.dtype.names})
    return a


def _mat_struct(d):
    out = {}
    for k, v in d.items():
        out[mat_name(k, out)] = _mat_value(v)
    return out


# ---------------------------------------------------------------- plots


def _fmt_percent(p):
    """A relative variation in percent with 2 significant digits, never in e-notation."""
    if p == 0:
        return "0"
    return np.format_float_positional(p, precision=2, unique=False, fractional=False, trim="-")


#: gids of lines that are references, not data (finish_axes leaves them alone)
_REFERENCE = ("engine-order", "reference")


def finish_axes(ax, flat=0.05, note=0.01):
    """Make an axes honest about absolute values; used by every kanefem figure.

    * no offset on the y ticks (``+6.514e1``): the tick labels are the values;
    * if all data lines vary by less than ``flat`` (5 %) of their largest magnitude,
      the y axis starts at zero, so a 0.003 % change looks like one;
    * every line that varies by less than ``note`` (1 %) of its mean gets its mean and
      relative variation in the legend: ``mode 1: 65.14 Hz ± 0.0031 %``;
    * a line that coincides with an earlier one (within 0.5 % of the y range) is
      dashed and drawn on top of the earlier one, which is drawn wider, and its label
      says which one it lies on.

    Returns the axes.
    """
    try:
        ax.ticklabel_format(axis="y", useOffset=False)
    except AttributeError:  # not a ScalarFormatter (log axis, dates)
        pass
    data, ys = [], []
    for ln in ax.get_lines():
        try:  # numbers only: lines of dates or categories (a caller's axes) are left alone
            x, y = np.asarray(ln.get_xdata(), dtype=float), np.asarray(ln.get_ydata(), dtype=float)
        except (TypeError, ValueError):
            continue
        if ln.get_gid() not in _REFERENCE and y.size > 0 and x.shape == y.shape:
            data.append(ln)
            ys.append(y)
    finite = [y[np.isfinite(y)] for y in ys]
    allv = np.concatenate(finite) if finite else np.zeros(0)
    if allv.size == 0:
        return ax
    lo, hi = float(allv.min()), float(allv.max())
    scale = max(abs(lo), abs(hi))
    if scale > 0 and hi - lo < flat * scale and ax.get_yscale() == "linear":
        ax.set_ylim((0.0, 1.1 * hi) if lo >= 0 else (1.1 * lo, 0.0))
    y0, y1 = ax.get_ylim()
    tol = 0.005 * abs(y1 - y0)
    for i, a in enumerate(data):
        xa = np.asarray(a.get_xdata(), dtype=float)
        for j, b in enumerate(data[:i]):
            xb = np.asarray(b.get_xdata(), dtype=float)
            if xa.shape == xb.shape and np.allclose(xa, xb) and np.nanmax(np.abs(ys[i] - ys[j])) <= tol:
                a.set_linestyle((0, (5, 4)))  # dashed, on top of the earlier line drawn wider
                b.set_linewidth(max(b.get_linewidth(), a.get_linewidth() + 1.5))
                a.set_zorder(b.get_zorder() + 0.1)
                lab_b = b.get_label() if not b.get_label().startswith("_") else "the line before"
                if not a.get_label().startswith("_") and " (on " not in a.get_label():
                    a.set_label(f"{a.get_label()} (on {lab_b})")
                break
    m = re.search(r"\[([^\]]*)\]", ax.get_ylabel())
    unit = f" {m.group(1)}" if m else ""
    noted = False
    for ln, y in zip(data, finite):
        if y.size < 2:
            continue
        mean = float(y.mean())
        if mean == 0.0:
            continue
        rel = 100.0 * (y.max() - y.min()) / 2.0 / abs(mean)
        if rel < 100.0 * note and " ± " not in ln.get_label():  # (not twice on one axes)
            lab = ln.get_label()
            lab = "" if lab.startswith("_") else f"{lab}: "
            ln.set_label(f"{lab}{mean:.6g}{unit} ± {_fmt_percent(rel)} %")
            noted = True
    labelled = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    if noted or (labelled and ax.get_legend() is not None):
        ax.legend(fontsize=7)
    return ax


def _plot_eigen(obj, ax, **kw):
    f = np.atleast_2d(obj.frequencies_hz)
    if f.shape[0] == 1:
        ax.plot(np.arange(1, f.shape[1] + 1), f[0], "o", **kw)
        ax.set_xlabel("mode")
        ax.set_ylim(min(0.0, 1.1 * f.min()), 1.1 * max(f.max(), 0.0) or 1.0)
    else:
        for k in range(f.shape[1]):
            ax.plot(f[:, k], label=f"mode {k + 1}", **kw)
        ax.set_xlabel("instant")
        ax.legend(fontsize=8)
    ax.set_ylabel("frequency [Hz]")
    ax.grid(alpha=0.3)
    zeta = getattr(obj, "damping_ratios", None)
    if zeta is not None:
        damping_axes(ax, None if f.shape[0] == 1 else np.arange(f.shape[0]), np.atleast_2d(zeta))
    return finish_axes(ax) if f.shape[0] > 1 else ax


def damping_axes(ax, x, zeta):
    """The damping ratios zeta (n, n_modes) on a twin axis at the right of a Campbell
    diagram (dashed, the modes' colours); x None: one instant, against the mode number."""
    tw = ax.twinx()
    colors = [ln.get_color() for ln in ax.get_lines() if not ln.get_gid()]
    for k in range(zeta.shape[1]):
        c = colors[k % len(colors)] if colors else None
        if x is None:
            tw.plot([k + 1], zeta[:, k], "x", color=c)
        else:
            tw.plot(x, zeta[:, k], "--", lw=0.8, color=c)
    tw.set_ylabel("damping ratio zeta (dashed)")
    return tw


def moving_dof(obj, what="d"):
    """(node, dof name) of the DOF with the largest range of ``what`` (translations
    first: a rotation's range in rad is not comparable with metres)."""
    arr = {"d": obj.d, "v": obj.v, "p": obj.p}[what]
    names = obj.dof_names or ("dof",)
    ptp = np.ptp(arr, axis=0) if arr.shape[0] else np.zeros(arr.shape[1])
    trans = np.array([dof_unit(names[j % len(names)]) == "m" for j in range(arr.shape[1])])
    pick = np.where(trans, ptp, -1.0) if trans.any() and ptp[trans].max() > 0 else ptp
    j = int(np.argmax(pick))
    return j // len(names), names[j % len(names)]


def _plot_simulation(obj, ax, node=None, dof=None, what="d", **kw):
    if node is None and dof is None:
        node, dof = moving_dof(obj, what)
        how = " (largest range)"
    else:
        node = -1 if node is None else node
        dof = dof or obj.dof_names[0]
        how = ""
    y = obj.node(node, dof, what)
    u = dof_unit(dof)
    unit = {"d": u, "v": f"{u}/s", "p": "kg m/s" if u == "m" else "kg m^2/s"}[what]
    quantity = {"d": "displacement", "v": "velocity", "p": "momentum"}[what]
    ax.plot(obj.t, y, **kw)
    ax.set_xlabel("t [s]")
    ax.set_ylabel(f"{quantity} {dof}, node {node}{how} [{unit}]")
    ax.grid(alpha=0.3)
    return finish_axes(ax)


def _crank_deg(obj):
    return np.degrees(obj.alpha - obj.alpha[0])


def _plot_motion(obj, ax, **kw):
    deg = _crank_deg(obj)
    ax.plot(deg, 1e3 * (obj.x_D - obj.params.x_D0), label="x_D - x_D0 [mm]", **kw)
    ax.plot(deg, np.degrees(obj.theta2), "--", label="theta2 [deg]", **kw)
    ax.plot(deg, np.degrees(obj.theta3 + math.pi / 2), "-.", label="theta3 + 90 [deg]", **kw)
    ax.set_xlabel("crank angle from start [deg]")
    ax.set_ylabel("slider [mm], angles [deg]")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return finish_axes(ax)


_STYLES = ("-", "--", "-.", ":")


def _plot_forces(obj, ax, **kw):
    for k, name in enumerate(("F_A", "F_B", "F_C", "F_D")):
        F = getattr(obj, name)
        ax.plot(obj.t, np.hypot(F[:, 0], F[:, 1]), _STYLES[k % 4], label=f"|{name}|", **kw)
    ax.plot(obj.t, obj.N_guide, "--", lw=2.0, alpha=0.7, label="N guide", **kw)
    ax.set_xlabel("t [s]")
    ax.set_ylabel("force [N]")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return finish_axes(ax)


def plot_frequencies(ax, x, frequencies_hz, title=None, xlabel="t [s]", **kw):
    """Frozen-time frequencies over a motion, one line per mode, honest y axis."""
    for k in range(frequencies_hz.shape[1]):
        ax.plot(x, frequencies_hz[:, k], label=f"mode {k + 1}", **kw)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("frozen-time frequency [Hz]")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    lo, hi = float(np.nanmin(frequencies_hz)), float(np.nanmax(frequencies_hz))
    ax.set_ylim(min(0.0, 1.08 * lo), max(0.0, 1.08 * hi) or 1.0)  # frequencies from zero, as a Campbell diagram
    return finish_axes(ax)


def _plot_lever(obj, ax, **kw):
    return plot_frequencies(ax, obj.t, obj.frequencies_hz, f"lever BC' ({obj.solver})", **kw)


def _plot_link(obj, ax, **kw):
    return plot_frequencies(ax, obj.t, obj.frequencies_hz, f"elastic link ({obj.solver})", **kw)


def _plot_mech_motion(obj, ax, **kw):
    mech = obj.mechanism
    units = set()
    for k, c in enumerate(mech.coordinates):
        rad = mech.coordinate_unit(k) == "rad"
        units.add("deg" if rad else "mm")
        ax.plot(obj.t, np.degrees(obj.z[:, k]) if rad else 1e3 * obj.z[:, k], _STYLES[k % 4],
                label=f"{c.name} [{'deg' if rad else 'mm'}]", **kw)
    ax.set_xlabel("t [s]")
    ax.set_ylabel(f"coordinates [{', '.join(sorted(units))}]")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return finish_axes(ax)


def _plot_mech_forces(obj, ax, **kw):
    for j, J in enumerate(obj.mechanism.joints):
        ax.plot(obj.t, np.hypot(*obj.joints[:, j, :2].T), _STYLES[j % 4], label=f"|F_{J.name}|", **kw)
    ax.set_xlabel("t [s]")
    ax.set_ylabel("joint force [N]")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return finish_axes(ax)


def _plot_flexible(obj, ax, **kw):
    mech = obj.motion.mechanism
    for L in mech.links:
        body = L.body
        node = (body.n_nodes - 1) // 2
        if body.dofs_per_node > 1:
            ax.plot(obj.t, 1e3 * obj.d[L.name][:, node * body.dofs_per_node + 1],
                    label=f"{L.name}, node {node}", **kw)
    ax.set_xlabel("t [s]")
    ax.set_ylabel("lateral deflection v [mm]")
    if ax.get_lines():
        ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return finish_axes(ax)


_PLOTS = {
    "EigenResult": _plot_eigen,
    "GyroscopicResult": _plot_eigen,
    "SimulationResult": _plot_simulation,
    "WindPumpMotion": _plot_motion,
    "JointForces": _plot_forces,
    "LeverEigenvalues": _plot_lever,
    "MechanismMotion": _plot_mech_motion,
    "MechanismForces": _plot_mech_forces,
    "LinkEigenvalues": _plot_link,
    "FlexibleMotion": _plot_flexible,
}


def campbell(x, frequencies, ax=None, orders=(1, 2, 3), x_label="speed", x_to_hz=None, damping=None, **kw):
    """A Campbell diagram: natural frequencies against speed, with engine orders.

    The frequency axis starts at zero (a mode's small change with speed looks small;
    the legend gives each mode's relative variation when under 1 %).

    Parameters
    ----------
    x : array_like, shape (n,)
        The speeds (the sweep's parameter), in any unit.
    frequencies : array_like, shape (n, n_modes) or (n, nt, n_modes)
        Natural frequencies [Hz] at each speed; with an instant axis (e.g. over a crank
        turn) each mode is drawn as its mean with the band of its range over the turn.
    ax : matplotlib Axes, optional
    orders : sequence of int
        Engine orders k to draw as the labelled dotted lines f = k x_to_hz(x) (where a
        mode crosses one, the speed excites it); those entirely above the modes are
        left out; none without ``x_to_hz``.
    x_label : str
    x_to_hz : callable, optional
        The speed in Hz of rotation, e.g. ``lambda rpm: rpm / 60``.
    damping : array_like, shape of ``frequencies``, optional
        Damping ratios ``zeta = -Re s / |s|`` of the modes (e.g.
        ``GyroscopicResult.damping_ratios``), drawn dashed on a twin axis at the right
        (the mean over the instant axis if there is one).

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
    top = 1.08 * max(float(np.nanmax(hi)), 0.0) or 1.0
    ax.set_ylim(min(0.0, 1.08 * float(np.nanmin(lo))), top)
    if x_to_hz is not None:
        ends = []  # (k, x, f) where each drawn order leaves the axes or ends
        for k in orders:  # only where they can cross a mode (in the frequency range drawn)
            fx = k * np.asarray([x_to_hz(v) for v in x])
            keep = fx <= top
            if keep.any():
                ax.plot(x, fx, ":", color="0.35", lw=1.0, gid="engine-order",
                        label="_nolegend_" if ends else "engine orders k × speed")
                i = np.flatnonzero(keep)[-1]
                ends.append((k, x[i], fx[i]))
        groups = []  # labels closer than 4 % of the axis share one: "1×–3×"
        for e in sorted(ends, key=lambda e: (e[1], e[2])):
            if groups and e[1] == groups[-1][-1][1] and e[2] - groups[-1][-1][2] < 0.04 * top:
                groups[-1].append(e)
            else:
                groups.append([e])
        for g in groups:
            text = f"{g[0][0]}×" if len(g) == 1 else f"{g[0][0]}×–{g[-1][0]}×"
            ax.annotate(text, (g[-1][1], g[-1][2]), xytext=(3, 2), textcoords="offset points",
                        fontsize=8, color="0.25", va="bottom", gid="engine-order")
        ax.set_ylim(ax.get_ylim()[0], top)
    ax.set_xlabel(x_label)
    ax.set_ylabel("frequency [Hz]")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    if damping is not None:
        z = np.asarray(damping, dtype=float)[order]
        damping_axes(ax, x, z.mean(axis=1) if z.ndim == 3 else z.reshape(x.size, -1))
    finish_axes(ax)
    return ax


# ---------------------------------------------------------------- the mixin


class ResultMixin:
    """Records, tables, MATLAB files and plots for a result dataclass.

    Every result object has :meth:`to_dict` / :meth:`from_dict`, :meth:`table`,
    :meth:`to_dataframe`, :meth:`to_mat` and :meth:`plot`.

    **Column names** (tables, the command line's CSV files, data frames, MATLAB's
    ``table`` struct, the studies' scalar outputs) follow one scheme,
    ``<quantity>_<unit>``:

    * the quantity in the symbols of the documentation, a mode's number attached
      (``f1``, ``lambda2``, ``s1_im``), a vector's component after an underscore
      (``F_A_x``, ``a_B_y``), a node's number as ``n<k>`` (``v_n5``), a joint's,
      body's, coordinate's or link's name first where it has one (``crank_rate``,
      ``rod_N0``);
    * then the SI unit: a product written together (``Nm``), the denominator after an
      underscore (``rad_s`` is rad/s, ``N_m`` is N/m), a power as a digit (``m_s2``,
      ``rad2_s2``), and ``s``, ``m``, ``rad``, ``deg``, ``Hz``, ``N``, ``W`` as such.

    So ``t_s``, ``crank_deg``, ``alpha_rad``, ``f1_Hz``, ``lambda1_rad2_s2``,
    ``F_A_x_N``, ``M_A_Nm``, ``motor_torque_Nm``, ``lever_N1_N_m`` (N/m),
    ``v_n5_rate_m_s``.  Counters and indices carry no unit (``instant``, ``mode``,
    ``steps``); a sweep's parameter columns keep the grid's names.
    ``kanefem._results.COLUMN`` is the pattern every column with a unit matches.
    """

    __slots__ = ()

    def to_dict(self) -> dict:
        """The result as a flat mapping name -> ndarray.

        Nested mappings and dataclasses (``stats``, ``options``, ``params``) become
        dotted names (``"stats.steps"``); None fields are left out; a mechanism is
        stored as its definition (the JSON of :meth:`kanefem.mechanism.Mechanism.to_dict`).
        This is what :func:`kanefem.sweep` stores, and :meth:`from_dict` reads it back.

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
        for name in getattr(self, "_views", ()):  # named views of the fields (the wind pump's x_D, F_A, ...)
            flatten(out, name, getattr(self, name))
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

    def table(self):
        """(header, rows) of the result's columns, units in the names: the command
        line's CSV files.

        Examples
        --------
        >>> import kanefem
        >>> r = kanefem.PlanarBeam(0.6, 4, E=210e9, A=2e-4, I=1.7e-9, rho=7850).eigenvalues(2)
        >>> r.table()[0]
        ['instant', 'mode', 'lambda_rad2_s2', 'lambda_imag_rad2_s2', 'f_Hz']
        """
        cols = columns(self)
        rows = np.column_stack([np.asarray(v) for v in cols.values()]).tolist() if cols else []
        return list(cols), rows

    def to_dataframe(self):
        """The result as a :class:`pandas.DataFrame`: the columns of :meth:`table`.

        Time series (motions, joint forces, eigenvalues over a motion, responses): one
        row per instant.  Eigenvalues of a body: one row per (instant, mode).

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
        pd = require_pandas()
        return pd.DataFrame(columns(self))

    def to_mat(self, path):
        """Write the result to a MATLAB ``.mat`` file (``scipy.io.savemat``); return its path.

        The file holds :meth:`to_dict`'s record with its dotted names as structs
        (``stats.steps``, ``params.l1``) and the columns of :meth:`table` as the struct
        ``table`` (``table.t_s``, ``table.f1_Hz``); names are made valid MATLAB names
        (other characters become ``_``).  In MATLAB: ``r = load("motion.mat")``.

        Parameters
        ----------
        path : str or os.PathLike
            The file to write (atomically: a reader never sees half a file).

        Examples
        --------
        >>> import kanefem, scipy.io, tempfile, os
        >>> r = kanefem.PlanarBeam(0.6, 4, E=210e9, A=2e-4, I=1.7e-9, rho=7850).eigenvalues(2)
        >>> path = r.to_mat(os.path.join(tempfile.mkdtemp(), "eig.mat"))
        >>> m = scipy.io.loadmat(path, squeeze_me=True)
        >>> bool((m["eigenvalues"] == r.eigenvalues).all()), str(m["solver"])
        (True, 'symmetric')
        """
        from scipy.io import savemat

        from ._io import atomic_write

        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a file name (str or os.PathLike), got {type(path).__name__}")
        data = _mat_struct(_nest(self.to_dict()))
        try:
            cols = columns(self)
        except TypeError:
            cols = {}
        if cols:
            data[mat_name("table", data)] = _mat_struct(cols)
        return atomic_write(path, lambda f: savemat(f, data, long_field_names=True, do_compression=True),
                            mode="wb")

    def plot(self, ax=None, **kwargs):
        """Plot the result's main quantity on ``ax`` (a new figure if None); return the axes.

        Axes carry units; a nearly constant quantity is drawn from zero with its
        relative variation in the legend (see ``kanefem._results.finish_axes``).  Keyword arguments
        go to the plot (``SimulationResult``: also ``node``, ``dof``, ``what`` as in
        :meth:`~kanefem.SimulationResult.node`; by default the DOF with the largest
        range, named in the y label).

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        if hasattr(self, "_plot"):  # a class that draws itself, as one that lays out its own columns
            return self._plot(_axes(ax), **kwargs)
        return _PLOTS[type(self).__name__](self, _axes(ax), **kwargs)
