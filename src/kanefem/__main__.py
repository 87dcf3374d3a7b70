"""Command line: ``python -m kanefem <job> [options]`` (also the ``kanefem`` script).

Jobs write their files into an output folder as one set (kanefem._io.OutputSet: a run
that fails, is interrupted or killed leaves the folder as it was; manifest.json lists
every file with its SHA-256 and the run's options) and print a summary.  Errors end
the command with one line on stderr: exit status 2 for bad options, files and folders
(OS errors), 1 for a computation that failed, 130 for Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import sys
from pathlib import Path

import numpy as np

from . import __version__
from ._io import (OutputSet, atomic_write, inside, make_folder, provenance, read_toml, safe_name, write_csv,
                  write_toml)


class _Stop(Exception):
    """End the command: exit status and the one line to print."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


# Namespace entries that are not options of a run (argparse bookkeeping, where the
# parameters come from, where the files go); every other entry is one, recorded in [run].
_NOT_RUN = ("job", "func", "config", "out", "pump", "file", "mech", "mech_tables",
            "sweep", "store", "workers", "recompute_damaged")  # the sweep's: its [sweep] table
# API arguments named in kanefem's messages whose option has another name
_API_NAMES = {"n_elements": "elements", "n_modes": "modes", "points_per_revolution": "points"}


def write_model(model, path, args, sweep=None):
    """Write a model's TOML tables (a WindPump's or a Mechanism's ``to_dict()``) with the
    command line's own: ``[run]``, the options of this run (and the kanefem version),
    and ``[sweep]``, the grid of ``--sweep``; the models' ``from_toml`` skip both, the
    command line reads them back (``--config FILE``, or the file given again).
    Atomically; returns the path."""
    from .mechanism import Mechanism

    path = Path(path)  # a mechanism's reduced links' bodies are saved beside its file
    tables = dict(model.to_dict(folder=path.parent, stem=path.stem) if isinstance(model, Mechanism)
                  else model.to_dict())
    run = {k.replace("_", "-"): v for k, v in vars(args).items() if k not in _NOT_RUN}
    tables["run"] = {**run, "kanefem": __version__}
    if sweep:
        tables["sweep"] = {k: list(v) for k, v in sweep.items()}
    again = "--config FILE runs it again" if args.job == "windpump" else f"python -m kanefem {args.job} FILE runs it again"
    comment = (f"{model.toml_comment()}\n[run]: the options of the run that wrote this file (python -m "
               f"kanefem {args.job} --help);\n{again}, options given with it override them")
    return write_toml(path, tables, comment=comment)


def _finite(text):
    """The type of every float option: finite (argparse's float takes "nan" and "inf",
    which then failed later under another option's name: --duration nan was blamed on
    --revolutions)."""
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def _one_line(text):
    return " ".join(str(text).split())


def _naming_option(job_parser, exc):
    """A ValueError/TypeError message of the API, prefixed by the option it comes from."""
    message = _one_line(exc)
    word = re.match(r"[A-Za-z_]\w*", message)
    if word:
        dest = _API_NAMES.get(word.group(), word.group())
        for action in job_parser._actions:
            if action.dest == dest and action.option_strings:
                return f"{action.option_strings[0]}: {message}"
    return message


@contextlib.contextmanager
def _output_set(args):
    """Yield the run's OutputSet (write into its .folder); OS errors and Ctrl-C become _Stop."""
    options = {k: v for k, v in vars(args).items() if k not in ("func", "pump", "mech", "mech_tables")}
    out = OutputSet(args.out, {**provenance(), "job": args.job, "options": options})
    try:
        with out:
            yield out
    except BrokenPipeError:  # stdout closed (| head): not the output folder's fault
        raise
    except OSError as exc:
        raise _Stop(2, f"error: --out {args.out}: {_one_line(exc.strerror or exc)}") from None
    except KeyboardInterrupt:
        state = "holds this run's complete set" if out.committed else "unchanged"
        raise _Stop(130, f"interrupted; --out {args.out} {state}") from None


def _run_defaults(path, run, args):
    """The options of a [run] table, checked against the job's (args), as parser defaults."""
    defaults = {}
    for key, value in run.items():
        dest = key.replace("-", "_")
        if key == "kanefem":  # the version that wrote the file
            if not isinstance(value, str):
                raise TypeError(f"{path}: [run] kanefem = {value!r} must be a version string")
            continue
        if "_" in key or dest in _NOT_RUN or not hasattr(args, dest):
            known = ", ".join(k.replace("_", "-") for k in vars(args) if k not in _NOT_RUN)
            raise ValueError(f"{path}: [run] has no option {key!r} (it has {known})")
        kind = type(getattr(args, dest))  # bool (a flag), int or float
        number = isinstance(value, (int, float) if kind is float else int) and not isinstance(value, bool)
        if not (isinstance(value, bool) if kind is bool else number):
            wanted = {bool: "true or false", int: "an integer", float: "a number"}[kind]
            raise TypeError(f"{path}: [run] {key} = {value!r} must be {wanted}")
        if kind is float and not math.isfinite(value):  # as the options' type, _finite
            raise ValueError(f"{path}: [run] {key} = {value!r} must be a finite number")
        defaults[dest] = kind(value)
    return defaults


def _read_config(path, job_parser, args):
    """Wind-pump parameters and the [run] options (as defaults of job_parser) from a TOML file."""
    from .windpump import WindPump

    try:
        pump = WindPump.from_toml(path)
        run = read_toml(path).get("run", {})  # a table: from_toml refuses any other "run"
        defaults = _run_defaults(path, run, args)
    except OSError as exc:
        raise _Stop(2, f"error: --config {path}: {_one_line(exc.strerror or exc)}") from None
    except (ValueError, TypeError) as exc:  # the messages name the file and the key
        raise _Stop(2, f"error: --config {_one_line(exc)}") from None
    job_parser.set_defaults(**defaults)
    return pump


def _cmd_eigen(args):
    from .bodies import AxialBar, PlanarBeam

    if args.body == "beam":
        body = PlanarBeam(args.length, args.elements, E=args.E, A=args.A, I=args.I, rho=args.rho)
    else:
        body = AxialBar(args.length, args.elements, E=args.E, A=args.A, rho=args.rho)
    supports = args.supports or body.default_supports
    r = body.eigenvalues(args.modes, omega=args.omega, eps=args.eps, supports=supports,
                         include_eps=not args.no_eps, mode_shapes=False)
    rows = [(k + 1, lam, w, f) for k, (lam, w, f) in
            enumerate(zip(r.eigenvalues, r.angular_frequencies, r.frequencies_hz))]
    print(f"{body!r}, supports={supports!r}, omega={args.omega} rad/s, eps={args.eps} rad/s^2")
    print(f"solver: {r.solver}")
    print(f"{'mode':>4} {'lambda [rad^2/s^2]':>20} {'omega [rad/s]':>16} {'f [Hz]':>14}")
    for k, lam, w, f in rows:
        print(f"{k:>4} {lam:>20.10g} {w:>16.10g} {f:>14.8g}")
    if args.out:
        with _output_set(args) as out:
            write_csv(out.folder, "eigenvalues.csv", ["mode", "lambda_rad2_s2", "omega_rad_s", "f_Hz"], rows)
        for path in out.files:
            print(f"wrote {path}")
    return 0


def _headless_matplotlib():
    """The command line only writes PNG files: without a display, matplotlib's Agg backend."""
    if not any(os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY", "MPLBACKEND")):
        import matplotlib

        matplotlib.use("Agg")


def _cmd_windpump(args):
    from .windpump import WindPump

    pump = getattr(args, "pump", None) or WindPump()  # args.pump: read from --config
    grid = _sweep_grid(args, args.config, _windpump_parameter)
    with _output_set(args) as out:
        if grid:
            _windpump_sweep(args, pump, grid, out.folder)
        else:
            _windpump_files(args, pump, out.folder)
    for path in out.files:
        print(f"wrote {path}")
    return 0


def _windpump_files(args, pump, folder):
    """Compute, write the files into folder, print the summary."""
    from ._core import KanefemError

    print(f"kanefem {__version__}: the wind pump at {args.rpm:g} rpm, {args.revolutions:g} turn(s), "
          f"{'periodic steady state' if not args.transient else 'from rest at x_D0'}")
    print(f"parameters: {'reference configuration' if not args.config else args.config} {pump!r}")
    try:
        motion = pump.solve(rpm=args.rpm, revolutions=args.revolutions,
                            steady_state=not args.transient, points_per_revolution=args.points)
    except KanefemError as exc:  # no periodic motion found
        raise ValueError(f"{exc}; try --transient") from None
    forces = pump.joint_forces(motion)
    eig = pump.lever_eigenvalues(motion, n_modes=args.modes, n_elements=args.elements,
                                 include_eps=args.eps,
                                 geometric_stiffness=args.geometric_stiffness,
                                 gyroscopic=args.gyroscopic)
    write_model(pump, folder / "windpump.toml", args)
    for name, result in (("motion.csv", motion), ("joint_forces.csv", forces),
                         ("lever_eigenvalues.csv", eig)):
        header, rows = result.table()
        write_csv(folder, name, header, rows)

    if args.response:
        resp = pump.lever_response(motion, n_elements=args.elements)
        n = args.elements // 2  # the middle node (or the one before it)
        qs = np.array([pump.lever_quasi_static(row, n_elements=args.elements) for row in motion.lever_frame])
        rows = zip(resp.t, resp.d[:, 3 * n + 1], qs[:, 3 * n + 1], resp.d[:, 3 * n + 2])
        write_csv(folder, "lever_response.csv", ["t_s", "v_mid_m", "v_mid_quasi_static_m", "theta_mid_rad"], rows)
        dev = np.max(np.abs(resp.d[:, 3 * n + 1] - qs[:, 3 * n + 1]))
        print(f"lever response (Newmark, node {n}): v = {resp.d[:, 3 * n + 1].min():.3e} .. "
              f"{resp.d[:, 3 * n + 1].max():.3e} m, {dev:.2e} m from quasi-static")

    mu = np.degrees(motion.transmission_angle)
    print(f"slider x_D: {motion.x_D.min():.4f} .. {motion.x_D.max():.4f} m; transmission angle "
          f"{mu.min():.1f} .. {mu.max():.1f} deg; motor torque {forces.motor_torque.min():.3g} .. "
          f"{forces.motor_torque.max():.3g} N m (mean power {np.mean(forces.motor_torque * motion.omega1):.3g} W)")
    for name, F in (("A", forces.F_A), ("B", forces.F_B), ("C'", forces.F_C), ("D", forces.F_D)):
        print(f"|F_{name}| max {np.hypot(*F.T).max():8.2f} N", end="; " if name != "D" else "\n")
    print(f"lever BC' ({args.elements} elements, pinned-pinned), solver {eig.solver}:")
    for k in range(args.modes):
        f = eig.frequencies_hz[:, k]
        print(f"  mode {k + 1}: f = {f.min():.6g} .. {f.max():.6g} Hz, lambda = "
              f"{eig.eigenvalues[:, k].min():.8g} .. {eig.eigenvalues[:, k].max():.8g} rad^2/s^2")
    if args.animate:
        _windpump_animation(pump, motion, args.elements, folder)
    if not args.plots:
        print("plots: not asked for (--no-plots)")
        return
    try:
        _headless_matplotlib()
        from . import _plots

        _plots.windpump_figures(folder, pump, motion, forces, eig)
    except ImportError as exc:
        print(f"plots skipped: {exc} (pip install matplotlib for the PNG figures)")


# ---------------------------------------------------------------- sweeps and animation (issue 12)


def _sweep_values(name, spec, kind=float):
    """``a:b:n`` (n values from a to b, n at most the sweep's limit of points) or
    ``v1,v2,...``, as numbers of ``kind``."""
    from ._checks import MAX_POINTS

    what = "integers" if kind is int else "numbers"
    try:
        if ":" in spec:
            a, b, n = spec.split(":")
            n, a, b = int(n), float(a), float(b)
            if n < 1:
                raise ValueError
        else:
            values = [kind(v) for v in spec.split(",")]
    except ValueError:
        raise ValueError(f"--sweep {name}={spec}: expected START:STOP:COUNT (e.g. 100:200:11) or a "
                         f"comma-separated list of {what}") from None
    if ":" in spec:
        if n > MAX_POINTS:  # before the values are made
            raise ValueError(f"--sweep {name}={spec}: COUNT = {n} is more than the limit of "
                             f"{MAX_POINTS} points of a sweep")
        try:
            values = [kind(v) for v in np.linspace(a, b, n).tolist()]
        except (ValueError, OverflowError):  # int(inf), int(nan)
            raise ValueError(f"--sweep {name}={spec}: START and STOP must be finite {what}") from None
        if kind is int and len(set(values)) < len(values):
            raise ValueError(f"--sweep {name}={spec}: COUNT = {n} integers do not fit between START and STOP")
    return values


def _windpump_parameter(name, spec):
    """The number kind of a wind-pump sweep parameter (rpm or a WindPumpParams field)."""
    from .windpump import WindPumpParams

    if name != "rpm" and name not in WindPumpParams.__dataclass_fields__:
        raise ValueError(f"--sweep {name}={spec}: {name!r} is not rpm or a wind-pump parameter "
                         f"({', '.join(WindPumpParams.__dataclass_fields__)})")
    return int if name == "branch" else float


def _sweep_grid(args, path, kind_of):
    """The grid of --sweep options, or of the [sweep] table of the file at path; {} for
    none.  ``kind_of(name, spec)`` checks a name and gives its number kind (int, float)."""
    specs = args.sweep
    if not specs and path:
        table = read_toml(path).get("sweep", {})
        if not isinstance(table, dict):
            raise TypeError(f"{path}: sweep must be a table [sweep]")
        specs = []
        for name, v in table.items():  # "100:200:11", or a list of numbers
            if isinstance(v, list) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
                v = ",".join(map(repr, v))
            if not isinstance(v, str):
                raise ValueError(f"{path}: [sweep] {name} = {v!r} must be a list of "
                                 "numbers or a string START:STOP:COUNT")
            specs.append(f"{name}={v}")
    grid = {}
    for spec in specs or ():
        name, eq, values = spec.partition("=")
        name, values = name.strip(), values.strip()
        if not eq:
            raise ValueError(f"--sweep {spec}: expected NAME=START:STOP:COUNT or NAME=V1,V2,...")
        if name in grid:
            raise ValueError(f"--sweep {spec}: {name} is swept twice")
        grid[name] = _sweep_values(name, values, kind_of(name, values))
    return grid


def _run_sweep(args, what, study, grid, points):
    """kanefem.sweep of a study over the points (the grid's, with fixed values), stored in
    --store (default OUT-store); prints what it does."""
    from .sweep import StoreError, sweep

    store = args.store or f"{os.path.normpath(args.out)}-store"
    n = math.prod(len(v) for v in grid.values())
    print(f"kanefem {__version__}: sweep of {what} over {n} point(s) "
          f"({', '.join(f'{k}: {len(v)}' for k, v in grid.items())}); points stored in {store}")
    try:
        res = sweep(study, points, store=store, workers=args.workers, progress=None,
                    damaged="recompute" if getattr(args, "recompute_damaged", False) else "raise")
    except KeyboardInterrupt:
        print(f"interrupted: the finished points are in {store}; the same command resumes there")
        raise
    except StoreError as exc:
        raise _Stop(2, f"error: --store {store}: {_one_line(exc)}") from None
    print(f"{len(res)} point(s): {sum(i['stored'] for i in res.info)} read from the store, "
          f"{sum(not i['stored'] for i in res.info)} computed")
    return res


def _windpump_sweep(args, pump, grid, folder):
    """The lever's eigenvalues over a grid of rpm and wind-pump parameters; every point
    stored in --store as it finishes (a run stopped in any way resumes there)."""
    import functools

    from . import studies
    from .windpump import WindPumpParams

    if args.revolutions != 1.0 or args.response or args.gyroscopic or args.animate:
        raise ValueError("--sweep computes one turn's lever eigenvalues per point: without "
                         "--revolutions, --response, --gyroscopic and --animate")
    ref = WindPumpParams()
    changed = {n: getattr(pump.params, n) for n in WindPumpParams.__dataclass_fields__
               if getattr(pump.params, n) != getattr(ref, n)}
    if "rpm" not in grid:
        changed["rpm"] = args.rpm
    study = functools.partial(studies.windpump_lever, n_modes=args.modes, n_elements=args.elements,
                              include_eps=args.eps, geometric_stiffness=args.geometric_stiffness,
                              points_per_revolution=args.points, steady_state=not args.transient)
    res = _run_sweep(args, "the wind pump's lever eigenvalues", study, grid, {**changed, **grid})
    names = list(grid)
    scalars = ["f1_min_Hz", "f1_max_Hz", "motor_torque_max_Nm", "mean_power_W", "F_B_max_N"]
    rows = [[p[k] for k in names] + [float(r[s]) for s in scalars] for p, r in zip(res.params, res.results)]
    write_csv(folder, "sweep.csv", names + scalars, rows)
    f = res.stack("frequencies_hz")  # (points, instants, modes)
    rows = [[p[k] for k in names] + [m + 1, f[i, :, m].min(), f[i, :, m].mean(), f[i, :, m].max()]
            for i, p in enumerate(res.params) for m in range(f.shape[2])]
    write_csv(folder, "sweep_lever_frequencies.csv", names + ["mode", "f_min_Hz", "f_mean_Hz", "f_max_Hz"], rows)
    write_model(pump, folder / "windpump.toml", args, sweep=grid)  # --config runs the sweep again
    for m in range(f.shape[2]):
        print(f"  mode {m + 1}: f = {f[:, :, m].min():.6g} .. {f[:, :, m].max():.6g} Hz over the grid")
    if args.plots:
        try:
            _headless_matplotlib()
            from matplotlib.figure import Figure

            fig = Figure(figsize=(6.4, 4.2), layout="constrained")
            ax = fig.add_subplot()
            x = "rpm" if "rpm" in grid else names[0]
            if len(names) == 1:
                res.campbell(x, ax=ax)
            else:
                res.plot("f1_min_Hz", x=x, ax=ax)
            ax.set_title("lever BC' over the sweep")
            atomic_write(folder / "sweep.png", lambda f: fig.savefig(f, format="png", dpi=120), mode="wb")
        except ImportError as exc:
            print(f"plots skipped: {exc} (pip install matplotlib for the PNG figures)")


def _windpump_animation(pump, motion, n_elements, folder):
    """windpump.gif: the pump over the motion, the lever's deflection magnified."""
    try:
        _headless_matplotlib()
        response = pump.lever_response(motion, n_elements=n_elements, progress=False)
        pump.animate(motion, response=response, path=folder / "windpump.gif")
    except ImportError as exc:
        print(f"animation skipped: {exc}")


def _read_mechanism(path, job_parser, args):
    """A mechanism and its [run] options (as defaults of job_parser) from a TOML file."""
    from .mechanism import Mechanism

    try:
        mech = Mechanism.from_toml(path)
        mech_tables = read_toml(path)
        run = mech_tables.get("run", {})
        if not isinstance(run, dict):
            raise TypeError(f"{path}: run must be a table [run]")
        defaults = _run_defaults(path, run, args)
    except OSError as exc:
        raise _Stop(2, f"error: {path}: {_one_line(exc.strerror or exc)}") from None
    except (ValueError, TypeError, KeyError) as exc:  # the messages name the file and the key
        raise _Stop(2, f"error: {_one_line(exc)}") from None
    job_parser.set_defaults(**defaults)
    return mech, mech_tables


def _cmd_mechanism(args):
    tables = args.mech_tables
    grid = _sweep_grid(args, args.file, lambda name, spec: _mechanism_parameter(tables, name, spec))
    with _output_set(args) as out:
        if grid:
            _mechanism_sweep(args, args.mech, tables, grid, out.folder)
        else:
            _mechanism_files(args, args.mech, out.folder)
    for path in out.files:
        print(f"wrote {path}")
    return 0


def _mechanism_parameter(tables, name, spec):
    """Check a mechanism sweep parameter TABLE.ENTRY.KEY against the file; its number kind."""
    from .studies import MECHANISM_KEYS

    parts = name.split(".")
    if len(parts) != 3 or parts[0] not in MECHANISM_KEYS or parts[2] not in MECHANISM_KEYS[parts[0]]:
        raise ValueError(f"--sweep {name}={spec}: expected TABLE.ENTRY.KEY, a number of the file, e.g. "
                         "link.rod.E or coordinate.crank.speed (tables and keys: "
                         + "; ".join(f"{t}: {', '.join(k)}" for t, k in MECHANISM_KEYS.items()) + ")")
    table, entry, key = parts
    have = [str(row.get("name")) for row in tables.get(table, []) if isinstance(row, dict)]
    if entry not in have:
        raise ValueError(f"--sweep {name}={spec}: the file has no [[{table}]] named {entry!r} (it has "
                         f"{', '.join(map(repr, have)) or 'none'})")
    if not (entry.isidentifier() and "__" not in entry):  # a store's parameter is an identifier
        raise ValueError(f"--sweep {name}={spec}: to sweep it, name the {table} with letters, digits and "
                         f"single underscores (a Python identifier), not {entry!r}")
    return int if key == "elements" else float


def _mechanism_sweep(args, mech, tables, grid, folder):
    """The motion, drive forces and links' eigenvalues over a grid of the file's numbers;
    every point stored in --store as it finishes (a run stopped in any way resumes there)."""
    import functools
    import json

    from . import studies

    if args.two_way or args.animate:
        raise ValueError("--sweep computes the one-way motion and eigenvalues per point: without "
                         "--two-way and --animate")
    from .mechanism.files import absolute_files

    # a reduced link's file named by its absolute path: every point reads the same file
    tables = absolute_files(tables, Path(args.file).parent)
    description = json.dumps({k: v for k, v in tables.items() if k not in ("run", "sweep")}, sort_keys=True)
    study = functools.partial(studies.mechanism_links, description=description, duration=args.duration,
                              revolutions=args.revolutions, points=args.points, n_modes=args.modes,
                              include_eps=args.eps, geometric_stiffness=args.geometric_stiffness)
    encoded = {name.replace(".", "__"): values for name, values in grid.items()}
    res = _run_sweep(args, repr(mech), study, grid, encoded)
    names, keys = list(grid), list(encoded)
    units = {"rad": "N_m", "m": "N"}
    scalars = [(f"{c.name}_drive_max", f"{c.name}_drive_max_{units.get(mech.coordinate_unit(k), 'N')}")
               for k, c in enumerate(mech.coordinates)]
    scalars += [(f"{L.name}_f1_{m}_Hz",) * 2 for L in mech.links for m in ("min", "max")]
    rows = [[p[k] for k in keys] + [float(r[s]) for s, _ in scalars] for p, r in zip(res.params, res.results)]
    write_csv(folder, "sweep.csv", names + [c for _, c in scalars], rows)
    if mech.links:
        rows = []
        for i, p in enumerate(res.params):
            for L in mech.links:
                f = res.results[i][f"{L.name}_frequencies_Hz"]
                rows += [[p[k] for k in keys] + [L.name, m + 1, f[:, m].min(), f[:, m].mean(), f[:, m].max()]
                         for m in range(f.shape[1])]
        write_csv(folder, "sweep_frequencies.csv", names + ["link", "mode", "f_min_Hz", "f_mean_Hz", "f_max_Hz"], rows)
        for L in mech.links:
            f = res.stack(f"{L.name}_frequencies_Hz")
            for m in range(f.shape[2]):
                print(f"  link {L.name} mode {m + 1}: f = {f[:, :, m].min():.6g} .. {f[:, :, m].max():.6g} Hz "
                      "over the grid")
    write_model(mech, folder / "mechanism.toml", args, sweep=grid)  # running it again runs the sweep again
    if args.plots and mech.links:
        try:
            _headless_matplotlib()
            from matplotlib.figure import Figure

            fig = Figure(figsize=(6.4, 4.2), layout="constrained")
            ax = fig.add_subplot()
            for L in mech.links:
                res.plot(f"{L.name}_f1_min_Hz", x=keys[0], ax=ax)
            for line in ax.get_lines():  # the grid's names as the command line gives them
                name, eq, value = line.get_label().partition("=")
                if eq and name in keys:
                    line.set_label(f"{names[keys.index(name)]} = {float(value):g}")
            if len(keys) > 1:
                ax.legend(fontsize=8)
            ax.set_title(f"lowest first frequency over the motion: link(s) {', '.join(L.name for L in mech.links)}")
            ax.set_xlabel(names[0])
            ax.set_ylabel("f1 [Hz]")
            atomic_write(folder / "sweep.png", lambda f: fig.savefig(f, format="png", dpi=120), mode="wb")
        except ImportError as exc:
            print(f"plots skipped: {exc} (pip install matplotlib for the PNG figures)")


def _mechanism_files(args, mech, folder):
    """Compute (one way, and two ways with --two-way), write the files, print the summary."""
    from .mechanism import file_run

    if args.two_way and not mech.links:
        raise ValueError("--two-way needs an elastic link ([[link]] in the file)")
    t, drives, z0, zd0 = file_run(mech, args.duration, args.revolutions, args.points)
    duration = t[-1]
    print(f"kanefem {__version__}: {mech!r}")
    print(f"drives: {', '.join(f'{n}: {d!r}' for n, d in drives.items()) or 'none'}; "
          f"{duration:g} s, {args.points} instants")
    motion = mech.solve(t, drives=drives, z0=z0, zd0=zd0)
    forces = mech.joint_forces(motion)
    eig = mech.link_eigenvalues(motion, n_modes=args.modes, include_eps=args.eps,
                                geometric_stiffness=args.geometric_stiffness) if mech.links else {}
    flex = None
    if args.two_way:
        flex = mech.simulate_flexible(t, drives=drives, z0=z0, zd0=zd0, dt=args.dt or None,
                                      rho_inf=args.rho_inf)
    write_model(mech, folder / "mechanism.toml", args)
    for name, result in (("motion.csv", motion), ("joint_forces.csv", forces)):
        write_csv(folder, name, *result.table())
    used = set()
    for name, r in eig.items():  # a link's name comes from the user's file: never a path
        write_csv(folder, f"eigenvalues_{safe_name(name, used)}.csv", *r.table())
    if flex is not None:
        write_csv(folder, "flexible_motion.csv", *flex.table())

    for k, c in enumerate(mech.coordinates):
        u = "N m" if mech.coordinate_unit(k) == "rad" else "N"
        print(f"{c.name}: {motion.z[:, k].min():.6g} .. {motion.z[:, k].max():.6g} {mech.coordinate_unit(k)}; "
              f"drive {motion.force[:, k].min():.4g} .. {motion.force[:, k].max():.4g} {u}")
    for j, J in enumerate(mech.joints):
        print(f"|F_{J.name}| max {_plots_force(forces, j).max():.4g} N", end="; " if j + 1 < len(mech.joints) else "\n")
    for name, r in eig.items():
        L = mech.link(name)
        size = f"{L.body.n_elements} elements" if L._is_line() else repr(L.model)
        print(f"link {name} ({size}), solver {r.solver}, "
              f"K_G {'on' if r.geometric_stiffness else 'off'}:")
        for k in range(r.eigenvalues.shape[1]):
            f = r.frequencies_hz[:, k]
            print(f"  mode {k + 1}: f = {f.min():.6g} .. {f.max():.6g} Hz")
    if flex is not None:
        st = flex.stats
        kg = ", ".join(f"{n} {'on' if v else 'off'}" for n, v in flex.geometric_stiffness.items())
        print(f"two-way: {st['steps']} steps (K_G: {kg}); estimated error {st['error_estimate']:.2g} "
              f"of the peaks (rtol {st['rtol']:g})")
        for L in mech.links:
            v = _midspan(L, flex.d[L.name])
            print(f"  link {L.name}: midspan deflection {v.min():.4g} .. {v.max():.4g} m")
        for k, c in enumerate(mech.coordinates):
            print(f"  {c.name}: drive {flex.motion.force[:, k].min():.4g} .. {flex.motion.force[:, k].max():.4g}")
    if args.animate:
        _mechanism_animation(mech, motion, flex, folder)
    if not args.plots:
        print("plots: not asked for (--no-plots)")
        return
    try:
        _headless_matplotlib()
        from . import _plots

        _plots.mechanism_figures(folder, mech, motion, forces, eig, flex)
    except ImportError as exc:
        print(f"plots skipped: {exc} (pip install matplotlib for the PNG figures)")


def _mechanism_animation(mech, motion, flex, folder):
    """mechanism.gif: the mechanism over the motion, the links' deflections magnified
    (two ways with --two-way, else each link's one-way response on the rigid motion)."""
    try:
        _headless_matplotlib()
        if flex is not None:
            mech.animate(flex.motion, flex.d, path=folder / "mechanism.gif")
        else:
            mech.animate(motion, path=folder / "mechanism.gif")
    except ImportError as exc:
        print(f"animation skipped: {exc}")


def _plots_force(forces, j):
    """|F| of joint j over the motion (the figures' own measure)."""
    from ._plots import joint_force_magnitude

    return joint_force_magnitude(forces, j)


def _midspan(link, d):
    """The lateral displacement v at a link's middle node (or the one before it; a reduced
    link's full body's node nearest its mass centre), (nt,)."""
    body = link.body
    if not link._is_line():
        return np.asarray(link.model.expand(d) if link.model is body else d)[:, _full_row(link)]
    node = (body.n_nodes - 1) // 2
    return d[:, node * body.dofs_per_node + 1] if body.dofs_per_node > 1 else np.zeros(len(d))


def _full_row(link):
    """The row of the y displacement at a reduced link's middle node in its full body's DOFs."""
    rows = link.model._translation_rows()
    return 0 if rows is None or rows[1] is None else int(rows[1][link._middle_node()])


def _example_description(path):
    """The first line of an example's leading comment."""
    with open(path, encoding="utf-8") as f:
        first = f.readline()
    return first.lstrip("#").strip() if first.startswith("#") else ""


def _cmd_examples(args):

    from .mechanism import EXAMPLES, example

    paths = {name: Path(example(name)) for name in EXAMPLES}
    if args.copy is None:
        for name, path in paths.items():
            print(f"{path.name:<18} {_example_description(path)}")
        print(f"in {next(iter(paths.values())).parent}; run one with: python -m kanefem mechanism FILE.toml "
              "(or copy them with: python -m kanefem examples --copy DIR)")
        return 0
    folder = Path(args.copy)
    if folder.exists() and not folder.is_dir():
        raise _Stop(2, f"error: --copy {args.copy}: exists and is not a folder")
    taken = [p.name for p in paths.values() if (folder / p.name).exists()]
    if taken:
        raise _Stop(2, f"error: --copy {args.copy}: would overwrite {', '.join(taken)} (nothing copied; "
                    "remove them or choose another folder)")
    try:
        make_folder(folder)
        for path in paths.values():
            data = path.read_bytes()
            atomic_write(inside(folder, path.name), lambda f: f.write(data), mode="wb")
            print(f"wrote {folder / path.name}")
    except OSError as exc:
        raise _Stop(2, f"error: --copy {args.copy}: {_one_line(exc.strerror or exc)}") from None
    return 0


def _sweep_store_options(parser):
    """--store, --workers and --recompute-damaged: where a job's sweep keeps its points."""
    parser.add_argument("--store", default=None, metavar="DIR",
                        help="with --sweep: folder of the finished points, one NPZ file each, kept "
                        "between runs: a stopped sweep resumes there (default: OUT-store)")
    parser.add_argument("--workers", type=int, default=None,
                        help="with --sweep: threads (default: the number of CPUs)")
    parser.add_argument("--recompute-damaged", action="store_true",
                        help="with --sweep: a damaged point in --store (truncated, bit-flipped) is moved "
                        "aside as KEY.npz.damaged and computed again (default: stop, naming the file)")


def build_parser():
    p = argparse.ArgumentParser(
        prog="kanefem",
        description="Elastic links in moving mechanisms: finite elements and Kane's method.",
    )
    p.add_argument("--version", action="version", version=f"kanefem {__version__}")
    sub = p.add_subparsers(dest="job", metavar="JOB", required=True)

    e = sub.add_parser(
        "eigen",
        help="natural frequencies of a beam or bar in a rotating frame",
        description="Frozen-time natural frequencies of a straight beam or bar whose frame "
        "rotates at omega [rad/s] with angular acceleration eps [rad/s^2]. Defaults: a steel "
        "lever 0.6 m long, 10 elements, pinned at both ends, at 140 rpm.",
    )
    e.add_argument("--body", choices=("beam", "bar"), default="beam", help="element kind (default beam)")
    e.add_argument("--length", type=_finite, default=0.6, help="length [m] (default 0.6)")
    e.add_argument("--elements", type=int, default=10, help="number of elements (default 10)")
    e.add_argument("--E", type=_finite, default=210e9, help="Young's modulus [Pa] (default 210e9)")
    e.add_argument("--A", type=_finite, default=2.0e-4, help="section area [m^2] (default 2e-4)")
    e.add_argument("--I", type=_finite, default=1.67e-9, help="second moment of area [m^4] (default 1.67e-9)")
    e.add_argument("--rho", type=_finite, default=7850.0, help="density [kg/m^3] (default 7850)")
    e.add_argument("--supports", default=None,
                   help="support preset, e.g. pinned-pinned, clamped-free, free-free; bar: fixed-free")
    e.add_argument("--modes", type=int, default=4, help="number of modes (default 4)")
    e.add_argument("--omega", type=_finite, default=140 * 2 * math.pi / 60,
                   help="frame angular velocity [rad/s] (default 140 rpm = 14.66)")
    e.add_argument("--eps", type=_finite, default=0.0, help="frame angular acceleration [rad/s^2] (default 0)")
    e.add_argument("--no-eps", action="store_true", help="leave out the non-symmetric K_eps")
    e.add_argument("--out", default=None, metavar="DIR",
                   help="folder to write eigenvalues.csv and manifest.json into (optional), "
                   "replaced as one set like the windpump job's")
    e.set_defaults(func=_cmd_eigen)

    w = sub.add_parser(
        "windpump",
        help="the wind-pump mechanism: rigid motion, joint forces, lever eigenvalues",
        description="The wind-pump mechanism of the papers (docs/theory.md section 5) at a constant "
        "crank speed: its rigid motion by Kane's method (on the periodic steady state unless "
        "--transient), the joint forces at A, B, C', D and the guide, and the frozen-time "
        "eigenvalues of the elastic lever BC' over the cycle (seed 000, Fig. 6). Writes "
        "windpump.toml (the parameters and, in [run], the options used: --config FILE "
        "runs it again), motion.csv, joint_forces.csv, lever_eigenvalues.csv, PNG plots "
        "and manifest.json (every file's SHA-256, the options, the date, the versions of "
        "kanefem, Python, NumPy and SciPy, the LAPACK used and the platform) into the "
        "output folder, which is replaced as one set: a failed, interrupted or killed run "
        "leaves it as it was. Units: SI, angles in radians.",
    )
    w.add_argument("--rpm", type=_finite, default=140.0, help="crank speed [rev/min] (default 140)")
    w.add_argument("--revolutions", type=_finite, default=1.0, help="crank turns to compute (default 1)")
    w.add_argument("--points", type=int, default=360, help="instants per crank turn (default 360)")
    w.add_argument("--elements", type=int, default=10, help="beam elements of the lever BC' (default 10)")
    w.add_argument("--modes", type=int, default=2, help="lever eigenvalues per instant (default 2)")
    flag = argparse.BooleanOptionalAction
    w.add_argument("--eps", action=flag, default=True,
                   help="include K_eps, the lever's stiffness from the angular acceleration (default); "
                   "--no-eps leaves it out (then lambda_k(t) = lambda_k(rest) - omega2(t)^2)")
    w.add_argument("--geometric-stiffness", action=flag, default=False,
                   help="add K_G from the lever's axial force (joint forces + axial inertia); default off")
    w.add_argument("--gyroscopic", action=flag, default=False,
                   help="complex eigenvalues of s^2 M + s C + K_eff (with the Coriolis matrix); default off")
    w.add_argument("--transient", action=flag, default=False,
                   help="start from rest at x_D0 instead of on the periodic steady state; default off")
    w.add_argument("--response", action=flag, default=False,
                   help="also integrate the elastic lever in time on the motion (Newmark) and "
                        "write lever_response.csv: midspan deflection against the quasi-static one; "
                        "default off")
    w.add_argument("--plots", action=flag, default=True,
                   help="write the PNG figures (default); --no-plots writes the CSV files only")
    w.add_argument("--config", default=None, metavar="FILE.toml",
                   help="wind-pump parameters and run options (TOML, as windpump.toml in the output: "
                   "its [run] table gives defaults for the options above, which the command line "
                   "overrides); default: the reference configuration")
    w.add_argument("--out", default="windpump-output", metavar="DIR",
                   help="output folder (default windpump-output), replaced as a whole by this run's "
                   "files; refused if it exists and is not a kanefem output folder")
    w.add_argument("--animate", action=flag, default=False,
                   help="also write windpump.gif: the pump over the motion with the lever's elastic "
                   "deflection (Newmark response) magnified; default off")
    w.add_argument("--sweep", action="append", default=None, metavar="NAME=SPEC",
                   help="sweep rpm or a wind-pump parameter: NAME=START:STOP:COUNT (e.g. "
                   "rpm=100:200:11) or NAME=V1,V2,...; repeat for a full-factorial grid (or give "
                   "the grid as a [sweep] table in --config). Writes sweep.csv (per point: the "
                   "lever's lowest frequency over the turn, motor torque, power, force at B), "
                   "sweep_lever_frequencies.csv, sweep.png and windpump.toml")
    _sweep_store_options(w)
    w.set_defaults(func=_cmd_windpump)

    mc = sub.add_parser(
        "mechanism",
        help="any planar or spatial mechanism described in a TOML file: motion, joint forces, elastic links",
        description="A planar or spatial mechanism described in a TOML file (bodies, elastic links, joints, "
        "springs, coordinates and their drives; docs/theory.md section 5; examples ship with "
        "kanefem: python -m kanefem examples lists and copies them): its rigid motion by Kane's method under the file's "
        "drives, the joint forces, the frozen-time eigenvalues of every elastic link over the "
        "motion (one way: the links' frames from the rigid motion) and, with --two-way, the "
        "motion with the links coupled both ways (planar and spatial). Writes mechanism.toml (the description and, "
        "in [run], the options used: it runs again as the FILE), motion.csv, joint_forces.csv, "
        "eigenvalues_LINK.csv, flexible_motion.csv (--two-way), mechanism.gif (--animate), PNG "
        "plots and manifest.json into the output folder, replaced as one set; with --sweep, "
        "the sweep's tables instead. Units: SI, angles in radians.",
    )
    mc.add_argument("file", metavar="FILE.toml", help="the mechanism (TOML; [run] gives option defaults)")
    mc.add_argument("--duration", type=_finite, default=0.0,
                    help="time to compute [s] (default 0: --revolutions turns of the first "
                    "coordinate driven at constant speed, or --revolutions seconds)")
    mc.add_argument("--revolutions", type=_finite, default=1.0, help="turns of the driven crank (default 1)")
    mc.add_argument("--points", type=int, default=361, help="output instants (default 361)")
    mc.add_argument("--modes", type=int, default=2, help="eigenvalues per elastic link and instant (default 2)")
    flag = argparse.BooleanOptionalAction
    mc.add_argument("--eps", action=flag, default=True,
                    help="include K_eps in the links' eigenvalues (default); --no-eps leaves it out")
    mc.add_argument("--geometric-stiffness", action=flag, default=True,
                    help="add K_G from each link's axial force (the rigid motion's joint forces) to its "
                    "eigenvalues (default; --no-geometric-stiffness leaves it out; two-way runs use "
                    "each link's own setting)")
    mc.add_argument("--two-way", action=flag, default=False,
                    help="also integrate the links coupled both ways (generalized-alpha) and write "
                    "flexible_motion.csv; default off")
    mc.add_argument("--dt", type=_finite, default=0.0,
                    help="two-way: largest step [s] (default 0: 1/20 of the links' shortest first period)")
    mc.add_argument("--rho-inf", type=_finite, default=0.9,
                    help="two-way: generalized-alpha spectral radius at infinity, in [0, 1] (default 0.9)")
    mc.add_argument("--plots", action=flag, default=True,
                    help="write the PNG figures (default); --no-plots writes the CSV files only")
    mc.add_argument("--sweep", action="append", default=None, metavar="TABLE.ENTRY.KEY=SPEC",
                    help="sweep a number of the file: TABLE.ENTRY.KEY=START:STOP:COUNT or =V1,V2,..., "
                    "with TABLE.ENTRY.KEY the entry's key as the file names it, e.g. "
                    "coordinate.crank.speed=100:200:11, link.rod.E=1.9e11,2.1e11, link.rod.I, "
                    "link.rod.elements, body.slider.mass, joint.guide.k; repeat for a full-factorial "
                    "grid (or give it as a [sweep] table in the file). Writes sweep.csv (per point: "
                    "each drive's largest force, each link's lowest and highest f1 over the motion), "
                    "sweep_frequencies.csv, sweep.png and mechanism.toml")
    _sweep_store_options(mc)
    mc.add_argument("--animate", action=flag, default=False,
                    help="also write mechanism.gif: the mechanism over the motion with the elastic links' "
                    "deflections magnified (two ways with --two-way, else each link's one-way Newmark "
                    "response on the rigid motion); default off")
    mc.add_argument("--out", default="mechanism-output", metavar="DIR",
                    help="output folder (default mechanism-output), replaced as a whole by this run's "
                    "files; refused if it exists and is not a kanefem output folder")
    mc.set_defaults(func=_cmd_mechanism)

    x = sub.add_parser(
        "examples",
        help="list the mechanisms shipped with kanefem, or copy them into a folder",
        description="The example mechanisms shipped with kanefem (TOML files for the mechanism job), "
        "one line each; --copy DIR copies them into DIR (created if needed; a file of the same name "
        "there is never overwritten: nothing is copied then).",
    )
    x.add_argument("--copy", default=None, metavar="DIR", help="copy the examples into DIR")
    x.set_defaults(func=_cmd_examples)
    p.jobs = {"eigen": e, "windpump": w, "mechanism": mc, "examples": x}
    return p


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    job_parser = parser.jobs[args.job]
    from ._core import KanefemError

    try:
        if getattr(args, "config", None) is not None:
            pump = _read_config(args.config, job_parser, args)
            args = parser.parse_args(argv)  # the [run] options are defaults now
            args.pump = pump
        if args.job == "mechanism":
            mech, tables = _read_mechanism(args.file, job_parser, args)
            args = parser.parse_args(argv)
            args.mech, args.mech_tables = mech, tables
        return args.func(args)
    except _Stop as stop:
        status, message = stop.status, str(stop)
    except (KanefemError, MemoryError) as exc:  # a computation that failed (before ValueError:
        status, message = 1, f"failed: {type(exc).__name__}: {_one_line(exc)}"  # some are both)
    except (ValueError, TypeError) as exc:
        status, message = 2, f"error: {_naming_option(job_parser, exc)}"
    except KeyboardInterrupt:
        status, message = 130, "interrupted"
    except BrokenPipeError:  # the reader of stdout has gone (| head): end quietly, as on SIGPIPE
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit's flush
        return 128 + 13
    except OSError as exc:
        status, message = 2, f"error: {_one_line(exc)}"
    parser.exit(status, f"kanefem {args.job}: {message}\n")


if __name__ == "__main__":
    sys.exit(main())
