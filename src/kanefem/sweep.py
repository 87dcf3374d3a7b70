"""Studies over parameter grids: run in parallel, store every finished point, resume.

A **study** is a callable ``study(**params)`` that returns either a mapping of names to
arrays or scalars (numbers, booleans or strings), or a kanefem result object (which
has ``to_dict()``).  It must be deterministic and, for a process pool or a Dask
cluster, picklable (a module-level function or a :func:`functools.partial` of one).
Ready-made studies for the usual questions are in :mod:`kanefem.studies`
(:func:`~kanefem.studies.windpump_lever`, :func:`~kanefem.studies.beam_eigenvalues`,
:func:`~kanefem.studies.rotating_bar_response`).

A **grid** is a dict ``{name: values}`` (the full factorial, in the dict's order, the
last name varying fastest) or a list of dicts (the points themselves).  Parameter
values are bools, ints, finite floats or strings: they name a point in its store.

:func:`sweep` runs the study at every point, on threads by default (the C core
releases the GIL), on any :class:`concurrent.futures.Executor`, or on a Dask cluster
through a ``dask.distributed.Client``; and returns a :class:`SweepResult`.

**The store** (``store=folder``): one NPZ file per point, ``<key>.npz``, with the
key a SHA-256 of the point's parameters (canonical JSON), holding the study's arrays
and, under reserved names, the parameters, the study's name and kanefem's version.
Each file is written as its point finishes, by the process that called
:func:`sweep`, atomically (a temporary file in the folder, fsync, then a rename), so:

* a sweep killed at any moment (SIGKILL, power cut of the process, Ctrl-C) loses no
  finished point and leaves no half-written point; run it again and it computes only
  the points missing (leftover temporary files are removed);
* a point is self-describing: ``numpy.load`` reads it without kanefem, and a point
  whose parameters or study differ from the sweep's is refused by name
  (:class:`StoreError`), never mixed in;
* workers (threads, processes, a Dask cluster on other machines) need no access to the
  folder, and points are independent files: no shared file to lock or corrupt, no
  database, easy to copy, merge or delete one by one.
* a point's file is checked before it is used (:func:`read_point`): a regular file, a zip
  whose NPY headers agree with their members' sizes before anything is allocated, CRCs,
  numbers/bools/strings only, metadata of the right kind.  A damaged point (truncated,
  bit-flipped, a header that lies) raises :class:`DamagedPointError` naming the file, or
  with ``damaged="recompute"`` is moved aside (``<key>.npz.damaged``, never deleted) and
  computed again.  ``store/.lock`` is never followed if it is a symbolic link.

Why not one Zarr or NetCDF store (through xarray)?  They shine for one big array
written in chunks, but here points finish in any order with outputs whose shapes may
differ between points; appending to one file from a sweep that may be killed at any
moment needs a transaction log that the one-file-per-point layout gets for free from
the file system's atomic rename.  :meth:`SweepResult.to_dataframe` and
:meth:`SweepResult.stack` give the tabular and array views afterwards.

``store/sweep.json`` records the study's name and the parameter names; a folder holds
one study.  While a sweep runs, it holds a lock on ``store/.lock`` (released by the
operating system if the process dies), so two sweeps never write one store at once.

Progress: a tqdm bar (``pip install "kanefem[progress]"``) when the session is
interactive, or ``progress=True``; none with ``progress=False``.  Logging goes to the
``"kanefem.sweep"`` logger (a child of ``"kanefem"``).  Ctrl-C stops the sweep: the
points not started are cancelled, what is stored stays, and KeyboardInterrupt is
raised again.

>>> import kanefem
>>> res = kanefem.sweep(kanefem.studies.beam_eigenvalues, {"omega": [0.0, 10.0]},
...                     progress=False)
>>> res.stack("eigenvalues").shape
(2, 4)
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import hashlib
import itertools
import json
import logging
import math
import numbers
import os
import stat
import time
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import _checks
from ._core import KanefemError
from ._io import atomic_write, make_folder, move_aside, open_lock, read_bytes
from ._results import ResultMixin, axis_label, campbell, finish_axes, flatten, require_pandas
from ._version import __version__

__all__ = ["sweep", "SweepResult", "StoreError", "DamagedPointError", "read_point", "UnknownNameError",
           "expand_grid", "point_key", "study_name"]

log = logging.getLogger("kanefem.sweep")

#: the most threads the default pool starts (each holds a stack and a study's memory)
MAX_WORKERS = 1024

#: names inside a point's NPZ file that are not the study's outputs
_META = ("__params__", "__study__", "__version__", "__seconds__")
_MANIFEST = "sweep.json"


class StoreError(KanefemError, ValueError):
    """A sweep's store holds something else than this sweep would write there (another
    study, other parameters under a point's key, a file that is not a point), or is
    in use by another sweep."""


class DamagedPointError(StoreError):
    """A point's file in a store is damaged (truncated, empty, bit-flipped, not a point,
    a header that lies about its size, metadata of the wrong kind): the message names the
    file and what is wrong.  ``sweep(..., damaged="recompute")`` moves such files aside
    (``<key>.npz.damaged``) and computes their points again."""


class UnknownNameError(KanefemError, KeyError):
    """A parameter or output that a sweep's result does not have: a KeyError (a lookup
    by name, as in a dict) that is also a KanefemError, whose message names the name."""

    def __str__(self):  # the message itself, not KeyError's repr of it
        return str(self.args[0]) if self.args else ""


# ---------------------------------------------------------------- grids and keys


def _param_value(name, value):
    """A parameter value as a plain JSON scalar (bool, int, finite float, str)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return _checks.real(name, value)
    raise TypeError(f"grid parameter {name} = {value!r}: values must be bools, ints, floats or strings")


def expand_grid(grid) -> list:
    """The points of a grid, as a list of dicts.

    Parameters
    ----------
    grid : dict or list of dict
        ``{name: values}``: the full factorial in the dict's order (the last name
        varies fastest); a scalar value is a fixed parameter.  A list of dicts: the
        points themselves.

    Returns
    -------
    list of dict

    Raises
    ------
    ValueError, TypeError
        An empty grid or value list, a name that is not an identifier, a value that
        is not a bool, int, finite float or string, a point given twice, or more than
        ``kanefem._checks.MAX_POINTS`` (100,000) points, counted from the factors'
        sizes before any point is built.

    Examples
    --------
    >>> expand_grid({"rpm": [100, 120], "M3": 5.0})
    [{'rpm': 100, 'M3': 5.0}, {'rpm': 120, 'M3': 5.0}]
    """
    if isinstance(grid, Mapping):
        if not grid:
            raise ValueError("grid = {} has no parameters")
        names, axes, sizes = [], [], []
        for name, values in grid.items():
            names.append(name)
            # a scalar, told from a sequence without converting it (np.ndim(range(10**9))
            # made the array)
            if isinstance(values, (str, bytes)) or not (
                    isinstance(values, Sequence) or (hasattr(values, "__array__") and np.ndim(values) > 0)):
                values = [values]
            sizes.append(len(values))
            _checks.grid_size(names, sizes)  # before the factor is listed and the product built
            values = list(values)
            if not values:
                raise ValueError(f"grid parameter {name!r} has no values")
            axes.append(values)
        points = [dict(zip(names, combo)) for combo in itertools.product(*axes)]
    elif isinstance(grid, Sequence) and not isinstance(grid, (str, bytes)):
        _checks.grid_size(["grid (a list of points)"], [len(grid)])
        points = list(grid)
        if not points:
            raise ValueError("grid = [] has no points")
        for k, p in enumerate(points):
            if not isinstance(p, Mapping):
                raise TypeError(f"grid[{k}] = {p!r} must be a dict of parameters")
    else:
        raise TypeError(f"grid must be a dict of value lists or a list of dicts, got {type(grid).__name__}")
    out, seen = [], {}
    for k, p in enumerate(points):
        clean = {}
        for name, v in p.items():
            if not (isinstance(name, str) and name.isidentifier()):
                raise ValueError(f"grid parameter name {name!r} must be a Python identifier")
            clean[name] = _param_value(name, v)
        key = point_key(clean)
        if key in seen:
            raise ValueError(f"grid point {clean} is given twice (points {seen[key]} and {k})")
        seen[key] = k
        out.append(clean)
    return out


def point_key(params) -> str:
    """The stable key of a point: 20 hex digits of the SHA-256 of its canonical JSON
    (sorted names; floats in their shortest round-trip form, so 0.1 is always "0.1").

    Note that ``100`` and ``100.0`` are different points (an int and a float).

    Examples
    --------
    >>> point_key({"rpm": 140.0})
    '5107011b3931de94136d'
    """
    text = json.dumps(params, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def study_name(study) -> str:
    """The name a study is stored under: ``module.qualname`` of the function, with the
    keywords of a :func:`functools.partial` (e.g. ``"kanefem.studies.beam_eigenvalues"
    "(n_modes=2)"``).  Lambdas and nested functions have no stable name: give one with
    ``sweep(..., name=...)``."""
    if isinstance(study, functools.partial):
        if study.args:
            raise ValueError("a functools.partial study must fix keyword arguments only, "
                             f"got positional {study.args!r}")
        kw = {k: _fixed_value(k, v) for k, v in study.keywords.items()}
        args = ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(kw.items()))
        return f"{study_name(study.func)}({args})" if kw else study_name(study.func)
    fn = study if hasattr(study, "__qualname__") else type(study)
    qual = getattr(fn, "__qualname__", repr(fn))
    if "<lambda>" in qual or "<locals>" in qual:
        raise ValueError(f"study {qual!r} has no stable name (a lambda or a nested function): "
                         "give one with sweep(..., name='...')")
    return f"{getattr(fn, '__module__', '?')}.{qual}"


def _fixed_value(name, v):
    """A keyword fixed by a partial, as it enters the study's name: a scalar, a
    callable's name, or (an array) a digest of its values."""
    if v is None or callable(v):
        return None if v is None else study_name(v)
    if isinstance(v, (bool, str, numbers.Number, np.generic)):
        return _param_value(name, v)
    a = np.ascontiguousarray(v)
    if a.dtype == object:
        raise TypeError(f"the study's fixed keyword {name} = {v!r} is not a scalar, array or callable")
    return f"array{a.shape}:{hashlib.sha256(a.tobytes()).hexdigest()[:16]}"


def _record(study_label, params, out) -> dict:
    """A study's return value as a flat dict of arrays (numbers, bools or strings)."""
    if hasattr(out, "to_dict"):
        out = out.to_dict()
    if not isinstance(out, Mapping):
        raise TypeError(f"study {study_label} returned {type(out).__name__} at {params}: it must "
                        "return a mapping of arrays/scalars or a result with to_dict()")
    rec = {}
    for name, value in out.items():
        if not isinstance(name, str) or name.startswith("__"):
            raise ValueError(f"study {study_label}: output name {name!r} must be a string not "
                             "starting with '__' (reserved for the store)")
        flatten(rec, name, value)
    for name, a in rec.items():
        if a.dtype.kind not in "biufcUS":
            raise TypeError(f"study {study_label}: output {name!r} has dtype {a.dtype} at {params}: "
                            "only numbers, bools and strings are stored")
    return rec


# ---------------------------------------------------------------- the store


class _Store:
    """One NPZ file per point in a folder (see the module docstring)."""

    def __init__(self, folder, study, names):
        self.folder = _checks.path("store", folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise StoreError(f"store = {str(self.folder)!r} exists and is not a folder")
        try:
            make_folder(self.folder)
        except NotADirectoryError as exc:
            raise StoreError(f"store = {str(self.folder)!r}: {exc.strerror}") from None
        self.study = study
        self._lock = None
        self._take_lock()
        try:
            self._remove_leftovers()
            self._check_manifest(names)
        except BaseException:
            self.close()  # another study's store: release it at once, not when collected
            raise

    def _take_lock(self):
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock (one sweep per store is then the user's care)
            return
        try:
            f = open_lock(self.folder / ".lock")  # a symbolic link planted there is refused, not followed
        except OSError as exc:
            raise StoreError(f"store = {str(self.folder)!r}: its lock file {exc.filename}: {exc.strerror}") from None
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise StoreError(f"store = {str(self.folder)!r} is in use by another sweep") from None
        self._lock = f

    def close(self):
        if self._lock is not None:
            self._lock.close()  # releases the lock
            self._lock = None

    def _remove_leftovers(self):
        """Temporary files of a writer that was killed (atomic_write's names)."""
        for tmp in self.folder.glob(".*.tmp"):
            log.info("removing %s, left by an interrupted sweep", tmp)
            tmp.unlink(missing_ok=True)

    def _check_manifest(self, names):
        path = self.folder / _MANIFEST
        if os.path.lexists(path):
            try:
                manifest = json.loads(read_bytes(path, limit=1 << 20, what="sweep manifest"))
            except (OSError, ValueError) as exc:  # UnicodeDecodeError and JSONDecodeError too
                raise StoreError(f"{path}: not a sweep manifest ({exc})") from None
            if not isinstance(manifest, dict):
                raise StoreError(f"{path}: not a sweep manifest (a JSON {type(manifest).__name__}, not an object)")
            if manifest.get("study") != self.study:
                raise StoreError(f"store = {str(self.folder)!r} holds the study {manifest.get('study')!r}, "
                                 f"not {self.study!r}: use another folder")
            return
        manifest = {"study": self.study, "parameters": sorted(names), "kanefem": __version__,
                    "format": "one NPZ per point, <key>.npz, key = point_key(params)"}
        atomic_write(path, lambda f: f.write(json.dumps(manifest, indent=1) + "\n"))

    def path(self, params):
        return self.folder / f"{point_key(params)}.npz"

    def load(self, params):
        """The stored record of a point, or None; DamagedPointError if its file is damaged,
        StoreError if it is another point's."""
        path = self.path(params)
        if not os.path.lexists(path):
            return None
        data = read_point(path)
        meta = {k: data.pop(k, None) for k in _META}
        stored = json.loads(str(meta["__params__"]))  # checked by read_point
        if stored != params or str(meta["__study__"]) != self.study:
            raise StoreError(f"{path} holds study {str(meta['__study__'])!r} at {stored}, not "
                             f"{self.study!r} at {params}: refusing to mix it in")
        version = str(meta["__version__"])
        if version != __version__:
            log.warning("%s was computed by kanefem %s (this is %s)", path.name, version, __version__)
        return data, {"version": version, "seconds": float(meta["__seconds__"])}

    def set_aside(self, params):
        """Move a damaged point's file aside (``<key>.npz.damaged``): kept, never deleted."""
        return move_aside(self.path(params), "damaged")

    def save(self, params, record, seconds):
        meta = {
            "__params__": np.array(json.dumps(params, sort_keys=True)),
            "__study__": np.array(self.study),
            "__version__": np.array(__version__),
            "__seconds__": np.array(seconds),
        }
        return atomic_write(self.path(params), lambda f: np.savez(f, **record, **meta), mode="wb")


class _Refused(Exception):
    """What read_npz found wrong (raised as its caller's error class, with this message)."""


def _npy_member(z, info, path, error, what):
    """One array of an NPZ file, its header checked before anything is allocated: shape x
    itemsize + header must be the member's size (a header declaring 2^30 doubles in a 1 KB
    file is refused), the dtype a number, bool or string (no objects); ``error`` (naming
    the file and member) otherwise."""
    fmt = np.lib.format
    where = f"{path}: member {info.filename!r}"
    if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
        raise error(f"{where} is compressed: kanefem writes {what}s uncompressed")
    with z.open(info) as f:
        version = fmt.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(f)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = fmt.read_array_header_2_0(f)
        else:
            raise error(f"{where}: NPY format version {version} is not one numpy writes for a {what}")
        if dtype.hasobject or dtype.kind not in "biufcUS" or dtype.names:
            raise error(f"{where} has dtype {dtype}: a {what} holds numbers, bools and strings only")
        count = math.prod(shape)
        need = count * dtype.itemsize + f.tell()
        if need != info.file_size:
            raise error(f"{where}: its header declares shape {shape} of {dtype} ({need} bytes with "
                        f"the header), but the member has {info.file_size} bytes")
        raw = bytearray(f.read(count * dtype.itemsize))
        f.read()  # to the end: the CRC is checked there (a bit flipped in the data)
    if len(raw) != count * dtype.itemsize:
        raise error(f"{where} is truncated")
    return np.frombuffer(raw, dtype=dtype).reshape(shape, order="F" if fortran else "C")


def read_npz(path, error=ValueError, what="file"):
    """The arrays of an NPZ file that kanefem wrote (a sweep point, a reduced body), every
    part checked before it is allocated: a regular file (not a link, folder or FIFO: lstat)
    within a zip whose members' declared sizes fit the file, one uncompressed .npy per
    name, NPY headers that agree with their members' sizes, no objects (never unpickled),
    CRCs.  Anything else raises ``error`` naming the file (a missing file: FileNotFoundError)."""
    path = Path(path)
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            raise _Refused(f"{path}: not a regular file (a symbolic link, a folder, a FIFO?): "
                           f"a {what} is a file kanefem wrote")
        data = {}
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            total = sum(i.file_size for i in infos)
            if total > st.st_size:
                raise _Refused(f"{path}: its members declare {total} bytes, more than the file's {st.st_size}")
            for info in infos:
                name = info.filename
                if not name.endswith(".npy") or name[:-4] in data:
                    raise _Refused(f"{path}: member {name!r} is not one array of a {what}")
                data[name[:-4]] = _npy_member(z, info, path, _Refused, what)
    except _Refused as exc:
        raise error(str(exc)) from None
    except FileNotFoundError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError, TypeError, OverflowError,
            SyntaxError, UnicodeError, NotImplementedError, RuntimeError) as exc:
        raise error(f"{path}: not a readable {what} ({type(exc).__name__}: {exc})") from None
    return data


def read_point(path):
    """A point's arrays (outputs and the reserved metadata) from its NPZ file, every part
    checked (see DamagedPointError and ``read_npz``) and the metadata (parameters as a
    JSON object, study and version as strings, seconds a finite number)."""
    data = read_npz(path, DamagedPointError, "sweep point")
    for name, kind in (("__params__", "U"), ("__study__", "U"), ("__version__", "U"), ("__seconds__", "f")):
        a = data.get(name)
        if a is None or a.shape != () or a.dtype.kind != kind:
            got = "missing" if a is None else f"of shape {a.shape} and dtype {a.dtype}"
            raise DamagedPointError(f"{path}: not a sweep point: {name} is {got} (a single "
                                    f"{'string' if kind == 'U' else 'number'} expected)")
    try:
        params = json.loads(str(data["__params__"]))
    except ValueError as exc:
        raise DamagedPointError(f"{path}: its parameters are not JSON ({exc})") from None
    if not isinstance(params, dict):
        raise DamagedPointError(f"{path}: its parameters are a JSON {type(params).__name__}, not an object")
    if not math.isfinite(float(data["__seconds__"])):
        raise DamagedPointError(f"{path}: __seconds__ = {float(data['__seconds__'])!r} is not finite")
    return data


# ---------------------------------------------------------------- executors


def _run_point(study, params):
    """What a worker runs: the study at one point, its record and its wall time."""
    t0 = time.perf_counter()
    out = study(**params)
    return out, time.perf_counter() - t0


def _is_dask_client(executor):
    return type(executor).__module__.startswith("distributed") and hasattr(executor, "gather")


class _Runner:
    """Submit points to an executor and yield (index, result, seconds) as they finish."""

    def __init__(self, executor, workers):
        self.owned = executor is None
        if executor is None:
            n = (os.cpu_count() or 1) if workers is None else _checks.integer("workers", workers, minimum=1, maximum=MAX_WORKERS)
            executor = cf.ThreadPoolExecutor(max_workers=n, thread_name_prefix="kanefem-sweep")
        elif not (isinstance(executor, cf.Executor) or _is_dask_client(executor)):
            raise TypeError("executor must be None (threads), a concurrent.futures.Executor or a "
                            f"dask.distributed.Client, got {type(executor).__name__}")
        elif workers is not None:
            raise ValueError("workers is the size of the default thread pool: not with an executor")
        self.executor = executor
        self.dask = _is_dask_client(executor)
        self.futures = {}

    def describe(self):
        if self.dask:
            return f"Dask {self.executor!r}"
        if self.owned:
            return f"{self.executor._max_workers} thread(s)"
        return type(self.executor).__name__

    def submit(self, study, todo):
        for k, params in todo:
            if self.dask:
                fut = self.executor.submit(_run_point, study, params, pure=False)
            else:
                fut = self.executor.submit(_run_point, study, params)
            self.futures[fut] = k

    def completed(self):
        if self.dask:
            from distributed import as_completed
        else:
            as_completed = cf.as_completed
        for fut in as_completed(list(self.futures)):
            k = self.futures.pop(fut)
            yield k, fut

    def cancel(self):
        for fut in self.futures:
            fut.cancel()
        self.futures.clear()

    def close(self):
        if self.owned:
            # running points finish in their threads (C code cannot be stopped from
            # here); nothing waits for them, and they are not stored
            self.executor.shutdown(wait=False, cancel_futures=True)


def _progress_bar(progress, total, initial):
    from .simulate import _interactive

    if progress is None:
        progress = _interactive()
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, initial=initial, unit="point", desc="sweep", leave=False)


# ---------------------------------------------------------------- sweep


def sweep(study, grid, executor=None, store=None, *, workers=None, progress=None, errors="raise",
          name=None, damaged="raise") -> "SweepResult":
    """Run a study at every point of a grid, in parallel, storing each point as it finishes.

    Parameters
    ----------
    study : callable
        ``study(**params)`` -> a mapping name -> array/scalar, or a kanefem result
        (with ``to_dict()``); see the module docstring.  E.g.
        :func:`kanefem.studies.windpump_lever`.
    grid : dict or list of dict
        ``{name: values}`` (full factorial) or a list of points; see
        :func:`~kanefem.sweep.expand_grid`.
    executor : None, concurrent.futures.Executor or dask.distributed.Client
        None: a thread pool of ``workers`` threads (default: the number of CPUs),
        shut down at the end.  An executor or a Dask client is used as given (and
        left open).  With processes or Dask the study must be picklable.
    store : str or path-like, optional
        Folder of the points (one NPZ file each, written atomically as they finish).
        Points already there are read, not recomputed; a point stored for another
        study or other parameters raises :class:`StoreError`.  None: keep the results
        in memory only.
    workers : int, optional
        Threads of the default pool (1 to 1024).
    progress : None or bool
        A tqdm bar over the points: None shows it when the session is interactive
        and tqdm is installed; False never; True whenever tqdm is installed.
    errors : {"raise", "skip"}
        A point whose study raises: stop the sweep (cancelling the points not
        started; what is stored stays) and raise the error with the point named, or
        log it and go on (the point is missing from the result and from the store,
        so the next run tries it again).
    name : str, optional
        The study's name in the store (default :func:`~kanefem.sweep.study_name`); needed for
        lambdas and nested functions.
    damaged : {"raise", "recompute"}
        A point's file in the store that is damaged (truncated, empty, bit-flipped, a
        lying header, metadata of the wrong kind: :class:`DamagedPointError`, naming
        the file): raise, or move it aside as ``<key>.npz.damaged`` (kept, never
        deleted) and compute the point again.

    Returns
    -------
    SweepResult
        The points in the grid's order (without the skipped failures).

    Raises
    ------
    StoreError
        The store holds another study or another point under a point's key, or is
        in use by another sweep; :class:`DamagedPointError` (a StoreError) for a
        damaged point's file with ``damaged="raise"``.
    KeyboardInterrupt
        After Ctrl-C: the points not started are cancelled, the stored ones stay.

    Examples
    --------
    >>> import kanefem
    >>> res = kanefem.sweep(kanefem.studies.beam_eigenvalues,
    ...                     {"omega": [0.0, 20.0], "n_modes": 2}, progress=False)
    >>> lam = res.stack("eigenvalues")
    >>> bool(abs((lam[0] - lam[1]) - 400.0).max() < 1e-6)   # lambda_k(0) - omega^2
    True
    """
    if not callable(study):
        raise TypeError(f"study must be callable (study(**params) -> results), got {study!r}")
    _checks.choice("errors", errors, ("raise", "skip"))
    _checks.choice("damaged", damaged, ("raise", "recompute"))
    label = study_name(study) if name is None else name
    if not isinstance(label, str) or not label:
        raise TypeError(f"name must be a non-empty string, got {name!r}")
    points = expand_grid(grid)
    names = list(dict.fromkeys(n for p in points for n in p))
    results = [None] * len(points)
    info = [None] * len(points)
    st = None if store is None else _Store(store, label, names)
    try:
        todo = []
        for k, p in enumerate(points):
            try:
                got = st.load(p) if st else None
            except DamagedPointError as exc:
                if damaged == "raise":
                    raise DamagedPointError(f"{exc}; sweep(..., damaged='recompute') (the command line's "
                                            "--recompute-damaged) moves it aside and computes the point "
                                            "again") from None
                log.warning("%s; moved aside as %s, computing the point again", exc, st.set_aside(p).name)
                got = None
            if got is None:
                todo.append((k, p))
            else:
                results[k], info[k] = got[0], {**got[1], "stored": True}
        done = len(points) - len(todo)
        runner = _Runner(executor, workers) if todo else None
        log.info("sweep %s over %d point(s): %d stored, %d to run%s", label, len(points), done,
                 len(todo), f" on {runner.describe()}" if runner else "")
        if runner:
            failures = _run(study, label, points, todo, runner, st, results, info, progress, done, errors)
            if failures:
                log.warning("%d point(s) failed and were skipped: %s", len(failures),
                            "; ".join(f"{points[k]}: {e}" for k, e in failures))
    finally:
        if st:
            st.close()
    keep = [k for k in range(len(points)) if results[k] is not None]
    return SweepResult(
        study=label,
        params=[points[k] for k in keep],
        results=[results[k] for k in keep],
        info=[info[k] for k in keep],
        store=None if st is None else str(st.folder),
    )


def _run(study, label, points, todo, runner, st, results, info, progress, done, errors):
    bar = _progress_bar(progress, len(points), done)
    failures = []
    stopped = None
    try:
        runner.submit(study, todo)
        for k, fut in runner.completed():
            try:
                out, seconds = fut.result()
                rec = _record(label, points[k], out)
            except Exception as exc:
                if errors == "raise":
                    runner.cancel()
                    log.error("sweep %s stopped: point %s failed: %s: %s", label, points[k],
                              type(exc).__name__, exc)
                    if hasattr(exc, "add_note"):  # Python >= 3.11
                        exc.add_note(f"in sweep {label} at the point {points[k]}")
                    raise
                failures.append((k, exc))
                log.warning("point %s failed: %s: %s", points[k], type(exc).__name__, exc)
                continue
            if st:
                st.save(points[k], rec, seconds)
            results[k], info[k] = rec, {"version": __version__, "seconds": seconds, "stored": False}
            done += 1
            log.debug("point %s done in %.3g s (%d/%d)", points[k], seconds, done, len(points))
            if bar is not None:
                bar.update(1)
    except KeyboardInterrupt:
        stopped = True
        runner.cancel()
        log.warning("sweep %s interrupted: %d of %d point(s) %s", label, done, len(points),
                    f"stored in {st.folder}" if st else "done (no store)")
        raise
    finally:
        if bar is not None:
            bar.close()
        runner.close()
        if not stopped:
            log.info("sweep %s: %d of %d point(s) done", label, done, len(points))
    return failures


# ---------------------------------------------------------------- results


@dataclass(frozen=True, eq=False)
class SweepResult(ResultMixin):
    """The points of a sweep and their results.

    Attributes
    ----------
    study : str
        The study's name.
    params : list of dict
        The points, in the grid's order.
    results : list of dict
        Each point's outputs, name -> ndarray (as stored).
    info : list of dict
        Per point: ``version`` (kanefem that computed it), ``seconds`` (its wall
        time in the worker), ``stored`` (read from the store rather than computed).
    store : str or None
        The store's folder.
    """

    study: str
    params: list
    results: list
    info: list = field(default_factory=list)
    store: str | None = None

    def __len__(self):
        return len(self.params)

    def _index(self, k, error=ValueError):
        """Point k (negative: from the end), checked by name."""
        try:
            return _checks.index("k", k, len(self), "points")
        except ValueError:
            raise error(f"k = {k} is out of range for {len(self)} point(s)") from None

    def __getitem__(self, k):
        """(params, results) of point k."""
        k = self._index(k, IndexError)  # the sequence protocol: iteration ends at an IndexError
        return self.params[k], self.results[k]

    @property
    def names(self) -> list:
        """The grid's parameter names."""
        return list(dict.fromkeys(n for p in self.params for n in p))

    def _output(self, name):
        """One output's arrays at every point, the name checked."""
        if not isinstance(name, str):
            raise TypeError(f"an output name must be a string, got {name!r}")
        arrays = [r[name] for r in self.results if name in r]
        if len(arrays) != len(self.results) or not arrays:
            have = sorted(self.results[0]) if self.results else []
            raise UnknownNameError(f"output {name!r} is not at every point (outputs: {have})")
        return arrays

    def param(self, name) -> np.ndarray:
        """One parameter's value at every point."""
        if not isinstance(name, str):
            raise TypeError(f"a parameter name must be a string, got {name!r}")
        if name not in self.names:
            raise UnknownNameError(f"no parameter {name!r} (the grid has {self.names})")
        return np.array([p.get(name) for p in self.params])

    def where(self, **params) -> "SweepResult":
        """The points whose parameters have the given values (e.g. ``where(M3=6.0)``)."""
        unknown = sorted(set(params) - set(self.names))
        if unknown:
            raise UnknownNameError(f"no parameter(s) {unknown} (the grid has {self.names})")
        keep = [k for k, p in enumerate(self.params) if all(p.get(n) == v for n, v in params.items())]
        return SweepResult(self.study, [self.params[k] for k in keep], [self.results[k] for k in keep],
                           [self.info[k] for k in keep] if self.info else [], self.store)

    def stack(self, name) -> np.ndarray:
        """One output at every point, stacked along a new first axis (same shapes needed).

        Raises
        ------
        KeyError
            No point has that output.
        ValueError
            The shapes differ between points.
        """
        arrays = self._output(name)
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            raise ValueError(f"output {name!r} has different shapes at different points: {sorted(shapes)}")
        return np.stack(arrays)

    def result(self, k, cls=None):
        """Point k's outputs: the dict, or rebuilt as ``cls`` (e.g.
        :class:`kanefem.SimulationResult`) through its ``from_dict``."""
        rec = self.results[self._index(k)]
        if cls is not None and not callable(getattr(cls, "from_dict", None)):
            raise TypeError(f"cls must be a class with from_dict (e.g. kanefem.SimulationResult), got {cls!r}")
        return rec if cls is None else cls.from_dict(rec)

    def to_dict(self) -> dict:
        """Every output stacked over the points, and the parameters (``param.<name>``)."""
        out = {f"param.{n}": self.param(n) for n in self.names}
        for name in (self.results[0] if self.results else {}):
            try:
                out[name] = self.stack(name)
            except (KeyError, ValueError):
                continue  # differs between points: use result(k)
        return out

    def _columns(self):
        """One row per point: the parameters and every scalar output found at every
        point (the table of :meth:`table` and of :meth:`to_mat`)."""
        cols = {n: self.param(n) for n in self.names}
        for name in (self.results[0] if self.results else {}):
            if name in cols or not all(name in r and np.ndim(r[name]) == 0 for r in self.results):
                continue
            cols[name] = np.array([np.asarray(r[name]).item() for r in self.results])
        return cols

    def to_xarray(self):
        """The sweep as an ``xarray.Dataset`` (``pip install "kanefem[xarray]"``).

        A full-factorial grid becomes one dimension per parameter (with the values as
        coordinates); other grids one dimension ``point`` with the parameters as
        coordinates along it.  Each output with the same shape at every point is a
        variable over those dimensions and its own axes, named ``<output>_dim0``,
        ``<output>_dim1``, ...; outputs whose shapes differ between points are left
        out (use :meth:`result`).

        Raises
        ------
        ImportError
            xarray is not installed (the message names the extra).

        Examples
        --------
        >>> import kanefem
        >>> res = kanefem.sweep(kanefem.studies.beam_eigenvalues,
        ...                     {"omega": [0.0, 10.0], "n_modes": [2]}, progress=False)
        >>> ds = res.to_xarray()                    # doctest: +SKIP
        >>> ds["frequencies_hz"].dims               # doctest: +SKIP
        ('omega', 'n_modes', 'frequencies_hz_dim0')
        """
        try:
            import xarray as xr
        except ImportError:
            raise ImportError('to_xarray() needs xarray, which is not installed: pip install "kanefem[xarray]" '
                              "(or pip install xarray)") from None
        names = self.names
        coords = {n: ("point", self.param(n)) for n in names}
        data = {}
        for name in (self.results[0] if self.results else {}):
            try:
                a = self.stack(name)
            except (KeyError, ValueError):
                continue  # differs between points
            data[name] = (("point",) + tuple(f"{name}_dim{d}" for d in range(a.ndim - 1)), a)
        ds = xr.Dataset(data, coords=coords, attrs={"study": self.study})
        combos = {tuple(p.get(n) for n in names) for p in self.params}
        sizes = [len({p.get(n) for p in self.params}) for n in names]
        if names and len(combos) == len(self) == math.prod(sizes) \
                and all(all(n in p for n in names) for p in self.params):
            if len(names) == 1:  # a full factorial: one axis per parameter
                ds = ds.swap_dims(point=names[0])
            else:
                ds = ds.set_index(point=names).unstack("point").transpose(*names, ...)
        return ds

    def to_dataframe(self, output=None):
        """The sweep as a :class:`pandas.DataFrame`.

        Parameters
        ----------
        output : str, optional
            None: one row per point, the parameters and every scalar output.  A name:
            one row per element of that output at every point (long format), the
            parameters, the element's index along each axis (``i0``, ``i1``, ...) and
            its value.
        """
        pd = require_pandas()
        if output is not None:
            self._output(output)  # a string, at every point (else named)
        if output is None:
            rows = []
            for p, r in zip(self.params, self.results):
                rows.append({**p, **{k: v.item() for k, v in r.items() if v.ndim == 0}})
            return pd.DataFrame(rows)
        frames = []
        for p, r in zip(self.params, self.results):
            if output not in r:
                raise UnknownNameError(f"output {output!r} is not at point {p}")
            a = np.asarray(r[output])
            idx = np.indices(a.shape).reshape(a.ndim, -1)
            cols = {**{n: np.repeat(v, a.size) for n, v in p.items()},
                    **{f"i{d}": idx[d] for d in range(a.ndim)}, output: a.ravel()}
            frames.append(pd.DataFrame(cols))
        return pd.concat(frames, ignore_index=True)

    def plot(self, y, x=None, ax=None, **kwargs):
        """Plot a scalar output (or a 1-d one, one line per point) against a parameter.

        Parameters
        ----------
        y : str
            An output name.
        x : str, optional
            A parameter (default: the first).  With a scalar output the other
            parameters label one line each.
        """
        from ._results import _axes

        ax = _axes(ax)
        x = self.names[0] if x is None else x
        xs = self.param(x)
        first = np.asarray(self._output(y)[0])
        if first.dtype.kind not in "biuf":
            raise TypeError(f"y = {y!r} is not a numeric output (its values are {first.dtype})")
        if first.ndim == 0:
            others = [n for n in self.names if n != x]
            groups = {}
            for k, p in enumerate(self.params):
                groups.setdefault(tuple(p.get(n) for n in others), []).append(k)
            for g, ks in groups.items():
                ks = sorted(ks, key=lambda k: xs[k])
                lab = ", ".join(f"{n}={v}" for n, v in zip(others, g)) or None
                ax.plot(xs[ks], [float(self.results[k][y]) for k in ks], "o-", label=lab, **kwargs)
            ax.set_xlabel(axis_label(x))
        else:
            for k, p in enumerate(self.params):
                ax.plot(np.asarray(self.results[k][y]), label=", ".join(f"{n}={v}" for n, v in p.items()), **kwargs)
            ax.set_xlabel("index")
        ax.set_ylabel(axis_label(y))
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        return finish_axes(ax)

    def campbell(self, x=None, frequencies="frequencies_hz", ax=None, orders=(1, 2, 3), x_to_hz=None,
                 damping="auto", **kw):
        """A Campbell diagram of the sweep: natural frequencies against a speed parameter.

        Parameters
        ----------
        x : str, optional
            The speed parameter (default: the first; ``"rpm"`` gets the engine-order
            lines f = k rpm/60, ``"omega"`` [rad/s] f = k omega / 2 pi).
        frequencies : str
            The output with the frequencies [Hz]: shape (n_modes,) per point, or
            (nt, n_modes) over a cycle (drawn as the mean and the band of its range).
        orders : sequence of int
            Engine orders k drawn as the lines f = k x_to_hz(x).
        x_to_hz : callable, optional
            Speed to Hz for the engine orders (default from the parameter's name, as above).
        damping : str or None
            The output with the damping ratios, drawn on a twin axis; "auto": the output
            ``damping_ratios``, else ``-Re s / |s|`` of an output ``s`` (GyroscopicResult
            points), else none; None: none.
        ax : matplotlib Axes, optional

        Returns
        -------
        matplotlib Axes
        """
        x = self.names[0] if x is None else x
        xs = self.param(x)
        if xs.dtype.kind not in "iuf":
            raise TypeError(f"x = {x!r} is not a numeric parameter (its values are {xs.dtype})")
        if x_to_hz is None:
            x_to_hz = {"rpm": lambda v: v / 60.0, "omega": lambda v: v / (2 * math.pi)}.get(x)
        zeta = None
        if damping == "auto":
            if all("damping_ratios" in r for r in self.results):
                zeta = self.stack("damping_ratios")
            elif all("s" in r for r in self.results):  # GyroscopicResult points: zeta = -Re s / |s|
                sv = self.stack("s")
                zeta = np.where(np.abs(sv) > 0, -sv.real / np.where(np.abs(sv) > 0, np.abs(sv), 1.0), 0.0)
        elif damping is not None:
            zeta = self.stack(damping)
        return campbell(xs, self.stack(frequencies), ax=ax, orders=orders,
                        x_label=axis_label(x), x_to_hz=x_to_hz, damping=zeta, **kw)
