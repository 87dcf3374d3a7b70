"""Files written atomically: a temporary file in the target folder, then os.replace,
so an interrupted run never leaves a half-written table behind; and a run's output
folder replaced as one set (OutputSet)."""

from __future__ import annotations

import contextlib
import csv
import ctypes
import errno
import functools
import hashlib
import json
import math
import os
import secrets
import shutil
import signal
import stat
import sys
import tempfile
from pathlib import Path

import numpy as np


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path):
    """A temporary file name beside ``path`` to write to (for writers that take a file
    name, such as meshio); on leaving the block it is synced and moved onto ``path``,
    on an exception removed.

    The file is created inside the ``try``: a KeyboardInterrupt at any moment after
    its creation (tempfile.mkstemp has a few bytecodes between creating the file and
    returning its name) still removes it."""
    path = Path(path)
    make_folder(path.parent)
    tmp = None
    try:
        for _ in range(100):
            tmp = path.parent / f".{path.name}.{secrets.token_hex(8)}.tmp"
            try:
                # O_EXCL: never another writer's file; mode 0666 less the umask, as open() gives
                os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
                break
            except FileExistsError:
                tmp = None
        else:
            raise FileExistsError(f"no free temporary name beside {str(path)!r}")
        yield tmp
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        raise


def atomic_write(path, write, mode="w", **open_kw):
    """Call ``write(fileobj)`` on a temporary file, then move it to ``path``."""
    with atomic_path(path) as tmp:
        with open(tmp, mode, **open_kw) as f:
            write(f)
    return Path(path)


def write_csv(folder, name, header, rows):
    """Write a CSV table (header + rows) into folder/name atomically; return its path."""

    def write(f):
        w = csv.writer(f)
        w.writerow(header)
        for row in rows:
            w.writerow([f"{v:.17g}" if isinstance(v, float) else v for v in row])

    return atomic_write(inside(folder, name), write, newline="")


def _toml_ready(key, v):
    """v as tomli_w writes it: bool, int, finite float, str, and lists and tables of them
    (NumPy scalars become Python's); anything else is refused, naming the key."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, str) and "\x00" in v:  # read_toml refuses it: the file could not be read back
        raise ValueError(f"{key} = {v!r} holds a NUL character: not written to TOML")
    if isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{key} = {v!r} cannot be written to TOML (not finite)")
        return v
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_toml_ready(key, x) for x in v]
    if isinstance(v, dict):
        return {str(k): _toml_ready(k, x) for k, x in v.items()}
    raise TypeError(f"{key} = {v!r}: only bool, int, float, str and lists of them are written to TOML")


def toml_text(tables, comment=""):
    """``{table: {key: value}}`` (a list of tables for ``[[table]]``) as TOML text, by
    tomli_w; ``comment`` lines go at the top, prefixed by ``#``.  Reading is ``tomllib``'s job."""
    import tomli_w

    head = "".join(f"# {c}".rstrip() + "\n" for c in comment.splitlines()) if comment else ""
    body = tomli_w.dumps({name: _toml_ready(name, t) for name, t in tables.items()})
    return head + ("\n" if head else "") + body


def write_toml(path, tables, comment=""):
    """Write :func:`toml_text` atomically; return the path."""
    text = toml_text(tables, comment)
    return atomic_write(path, lambda f: f.write(text))


# ---------------------------------------------------------------- one run's output folder

MANIFEST = "manifest.json"


def sha256_file(path):
    """SHA-256 of a file's bytes, as hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _fsync_dir(path):
    """Make the entries of a folder (renames, new files) durable."""
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _pid_alive(pid):
    """Whether process pid may still be running (a run that may still own its folders)."""
    if pid == os.getpid() or os.name != "posix":  # on Windows os.kill(pid, 0) would end it
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, another user's
        return True
    return True


@functools.lru_cache(maxsize=None)
def _renameat2():
    if not sys.platform.startswith("linux"):
        return None
    try:
        f = ctypes.CDLL(None, use_errno=True).renameat2  # glibc >= 2.28
    except (OSError, AttributeError):
        return None
    f.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return f


def _exchange(a, b):
    """Swap two existing paths in one step (Linux renameat2 with RENAME_EXCHANGE).

    Returns False where the system or the file system cannot (then the caller renames twice).
    """
    f = _renameat2()
    if f is None:
        return False
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    if f(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


@contextlib.contextmanager
def _sigint_deferred():
    """Hold Ctrl-C (SIGINT) until the block ends, then deliver it: it cannot split the block."""
    caught = []
    try:
        old = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    except ValueError:  # not the main thread: Python runs signal handlers in the main thread only
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if old is None else old)
        if caught:
            signal.raise_signal(signal.SIGINT)


def _read_manifest(folder):
    """The file names a kanefem manifest in folder lists, or None if it has none (or not ours)."""
    try:  # a FIFO or a device planted there is refused, not read (read_bytes)
        data = json.loads(read_bytes(Path(folder) / MANIFEST, what="manifest"))
    except (OSError, ValueError):
        return None
    if not (isinstance(data, dict) and isinstance(data.get("kanefem"), str)
            and isinstance(data.get("files"), dict)):
        return None
    return set(data["files"])


def _check_replaceable(target):
    """Raise OSError unless target is missing, an empty folder, or a kanefem output folder
    holding only the files its manifest lists: a user's files are never deleted."""
    if not os.path.lexists(target):
        return
    if not target.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "exists and is not a folder", str(target))
    names = set(os.listdir(target))
    if not names:
        return
    listed = _read_manifest(target)
    if listed is None:
        raise FileExistsError(errno.EEXIST, f"is a folder that is not empty and has no kanefem {MANIFEST}; "
                              "kanefem replaces only its own output folders", str(target))
    foreign = sorted(names - listed - {MANIFEST})
    if foreign:
        raise FileExistsError(errno.EEXIST, f"holds {foreign[0]!r}, which its {MANIFEST} does not list; "
                              "kanefem replaces only its own files", str(target))


def provenance():
    """Where a run's results come from, for its manifest.json: ``date`` (now, UTC, ISO 8601),
    the versions of ``kanefem``, ``python``, ``numpy`` and ``scipy`` (None if not
    installed), ``lapack`` (:func:`kanefem.lapack_source`: ``'linked'`` or
    ``'scipy <version>'``) and ``platform`` (:func:`platform.platform`)."""
    import datetime
    import importlib.metadata
    import platform

    import numpy

    from . import __version__, lapack_source

    try:
        scipy_version = importlib.metadata.version("scipy")  # without importing it
    except importlib.metadata.PackageNotFoundError:
        scipy_version = None
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "kanefem": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy_version,
        "lapack": lapack_source(),
        "platform": platform.platform(),
    }


class OutputSet:
    """One run's output files, replacing the output folder as one set.

    ``with OutputSet(path, manifest) as folder:`` the run writes its files into ``folder``,
    a fresh hidden sibling of ``path`` (``.NAME.partial-PID-XXXX``).  When the block ends
    normally, ``manifest.json`` is added (``manifest`` plus every file's SHA-256 and size),
    the files are synced and the folder takes the place of ``path``: in one step where Linux
    offers ``renameat2(RENAME_EXCHANGE)``, else by two renames (old folder aside as
    ``.NAME.old-PID-XXXX``, new one in place); then the old set is removed.  Ctrl-C is held
    during these renames.  When the block raises (an error, Ctrl-C), the partial folder is
    removed and ``path`` is left as it was.

    A run killed with SIGKILL leaves ``path`` as it was or holding the new complete set, and
    its hidden partial or aside folder behind.  Each run first removes such leftovers whose
    process is gone; a run killed between the two renames (only without ``renameat2``)
    left no ``path`` and the old set aside: the next run puts the old set back, as a run
    that did not finish never happened.  ``path`` is refused (``OSError``) if it is a file,
    a folder that is not empty and has no kanefem manifest, or holds files its manifest does
    not list.

    Attributes
    ----------
    folder : Path or None
        Where to write, while the block runs.
    committed : bool
        Whether the new set has replaced ``path``.
    files : list of Path
        After the block: the set's files, as ``path / name``.
    """

    def __init__(self, path, manifest):
        self.path = Path(path)
        self.target = Path(os.path.realpath(path))  # a symbolic link: the folder it names
        self.manifest = dict(manifest)
        self.folder = None
        self.committed = False
        self.files = []
        self._made = []

    def _leftover_prefix(self, kind):
        return f".{self.target.name}.{kind}-"

    def __enter__(self):
        t = self.target
        try:
            if t.parent == t:
                raise IsADirectoryError(errno.EISDIR, "is a root folder", str(t))
            _no_file_among(t)
            self._recover()
            _check_replaceable(t)
            missing = []
            for p in [t.parent, *t.parent.parents]:
                if os.path.lexists(p):
                    break
                missing.append(p)
            for p in reversed(missing):
                os.mkdir(p)
                self._made.append(p)
            # Ctrl-C held while the folder is made and recorded: arriving between the
            # two, it would leave a partial folder that nothing removes
            with _sigint_deferred():
                self.folder = Path(tempfile.mkdtemp(
                    prefix=self._leftover_prefix("partial") + f"{os.getpid()}-", dir=t.parent))
            os.chmod(self.folder, 0o777 & ~_umask())  # mkdtemp's is private (0700)
        except BaseException:
            self._discard()
            raise
        return self.folder

    def __exit__(self, kind, exc, tb):
        if kind is not None:
            self._discard()
            return False
        try:
            self._commit()
        except BaseException:
            self._discard()
            raise
        return False

    def _recover(self):
        """Remove the folders runs killed on this path left behind (see the class)."""
        parent = self.target.parent
        try:
            names = os.listdir(parent)
        except OSError:
            return  # no parent (yet): nothing left behind; creating it reports real problems
        found = {"old": [], "partial": []}
        for kind, bucket in found.items():
            prefix = self._leftover_prefix(kind)
            for name in names:
                pid = name[len(prefix):].split("-", 1)[0]
                if name.startswith(prefix) and pid.isdigit() and not _pid_alive(int(pid)):
                    bucket.append(parent / name)
        for p in sorted(found["old"], key=lambda p: p.stat().st_mtime, reverse=True):
            if not os.path.lexists(self.target):
                os.rename(p, self.target)
                _fsync_dir(parent)
            else:
                shutil.rmtree(p, ignore_errors=True)
        for p in found["partial"]:
            shutil.rmtree(p, ignore_errors=True)

    def _commit(self):
        folder, t = self.folder, self.target
        names = sorted(os.listdir(folder))
        files = {n: {"sha256": sha256_file(folder / n), "bytes": (folder / n).stat().st_size} for n in names}
        text = json.dumps({**self.manifest, "files": files}, indent=1) + "\n"
        atomic_write(folder / MANIFEST, lambda f: f.write(text))
        _fsync_dir(folder)
        _check_replaceable(t)  # again: nothing of the user's may have appeared in it meanwhile
        aside = None
        with _sigint_deferred():
            if not os.path.lexists(t):
                os.rename(folder, t)
            elif _exchange(folder, t):
                aside = folder  # now holds the old set
            else:
                aside = t.parent / f"{self._leftover_prefix('old')}{os.getpid()}-{secrets.token_hex(4)}"
                os.rename(t, aside)
                os.rename(folder, t)
            self.committed, self.folder = True, None
            _fsync_dir(t.parent)
            if aside is not None:
                shutil.rmtree(aside, ignore_errors=True)  # what stays is a leftover of a gone run
        self.files = [self.path / n for n in sorted([*names, MANIFEST])]

    def _discard(self):
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
        for p in reversed(self._made):  # the parents this run created, if still empty
            try:
                os.rmdir(p)
            except OSError:
                break
        self._made = []


# ---------------------------------------------------------------- names, paths and untrusted files
#
# The rule (checked by tests/test_io.py, which scans the package): every file the package
# writes goes through a function of this module (atomic_path, atomic_write, write_csv,
# write_toml, append_text, OutputSet, open_lock); a file name built from user data (a link's
# name, a parameter) goes through safe_name and lands in its folder through inside(); and
# every configuration file is read through read_toml.  A line outside this module that
# writes a file carries the marker "# _io: <why>" (e.g. a writer into a private temporary
# folder), so that the scan can tell it from a forgotten one.

#: Windows' reserved device names (any extension): refused as file names on every system,
#: so that an output folder can be copied there
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{k}" for k in range(1, 10)), *(f"LPT{k}" for k in range(1, 10))}
#: the longest name safe_name returns, in characters (file systems allow 255 bytes)
NAME_MAX = 100


def safe_name(text, used=None, *, fallback="item"):
    """A file-name component made from ``text`` (a name from user data): characters other
    than ASCII letters, digits, ``-``, ``_`` and ``.`` become ``_`` (separators, ``..``,
    NUL and control characters, spaces, quotes: nothing of a path survives), no leading
    dot (no hidden file, no ``..``), not a reserved Windows name, at most NAME_MAX
    characters.  A name changed in any way, or shortened, gets 8 hex digits of its
    SHA-256, so two different names never meet by sanitising; ``used`` (a set, updated)
    makes names unique within one folder deterministically (``_2``, ``_3``, ... in call
    order, case-insensitively as on macOS and Windows)."""
    text = str(text)
    clean = "".join(c if (c.isascii() and (c.isalnum() or c in "-_.")) else "_" for c in text)
    clean = clean.lstrip(".").rstrip(". ") or fallback
    if clean.split(".")[0].upper() in _RESERVED:
        clean = "_" + clean
    if clean != text or len(clean) > NAME_MAX:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        clean = f"{clean[:NAME_MAX - 9]}-{digest}"
    if used is not None:
        base, k = clean, 1
        while clean.lower() in used:
            k += 1
            clean = f"{base}_{k}"
        used.add(clean.lower())
    return clean


def inside(folder, name):
    """``folder / name``, checked to stay inside ``folder`` once symbolic links are
    resolved (ValueError naming both otherwise): ``name`` must be one plain component."""
    if (not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\\" in name
            or "\x00" in name or os.sep in name or (os.altsep and os.altsep in name)):
        raise ValueError(f"file name {name!r} must be one plain name (no separators, no '..', no NUL)")
    folder = Path(folder)
    path = folder / name
    base = os.path.realpath(folder)
    real = os.path.realpath(path)
    if os.path.dirname(real) != base:
        raise ValueError(f"{str(path)!r} resolves to {real!r}, outside the output folder {base!r} "
                         "(a symbolic link?): refusing to write there")
    return path


def referenced(base, name, what="file"):
    """The file a configuration file refers to by ``name`` (a TOML table's path string),
    resolved against the configuration file's folder ``base``: a relative path (no
    absolute path, no NUL) that stays inside ``base`` once symbolic links are resolved
    (subfolders allowed; ``..`` out of it refused).  ValueError naming the value
    otherwise.  The file itself is read by a checked reader (an NPZ by ``read_npz``, a mesh
    by ``Mesh.read``)."""
    if not isinstance(name, str) or not name or "\x00" in name:
        raise ValueError(f"{what} = {name!r} must be a file name (a non-empty string)")
    if os.path.isabs(name) or (os.altsep and name.startswith(os.altsep)) or os.path.splitdrive(name)[0]:
        raise ValueError(f"{what} = {name!r} must be a path relative to the file's folder {str(base)!r}, "
                         "not an absolute one")
    root = os.path.realpath(base)
    real = os.path.realpath(os.path.join(root, name))
    if os.path.commonpath([root, real]) != root:
        raise ValueError(f"{what} = {name!r} resolves to {real!r}, outside the file's folder {root!r}: "
                         "refused")
    return Path(real)


def make_folder(path):
    """Create folder ``path`` and its parents (as ``mkdir -p``); a component that exists
    and is not a folder is named in a one-line NotADirectoryError (not the raw
    FileExistsError of ``Path.mkdir``)."""
    path = Path(path)
    _no_file_among(path, itself=True)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _no_file_among(path, itself=False):
    """Raise a one-line NotADirectoryError naming the first parent of ``path`` (or ``path``
    itself) that exists and is not a folder."""
    for p in [*reversed(path.parents), *([path] if itself else [])]:
        if os.path.lexists(p) and not os.path.isdir(p):
            raise NotADirectoryError(errno.ENOTDIR, f"{str(p)!r} is a file, not a folder (in the path "
                                     f"{str(path)!r})", str(p))


def move_aside(path, label):
    """Rename ``path`` to a free name beside it, ``NAME.label`` (then ``NAME.label-2``, ...),
    to keep a file the package will not use (a damaged one) without deleting it."""
    path = Path(path)
    for k in range(1, 1000):
        aside = path.with_name(f"{path.name}.{label}" + ("" if k == 1 else f"-{k}"))
        if not os.path.lexists(aside):
            os.rename(path, aside)
            return aside
    raise FileExistsError(errno.EEXIST, f"999 files named {path.name}.{label}* beside it: remove some", str(path))


def append_text(path, text):
    """Append ``text`` to a text file, atomically (the old content, then the new, in a new file)."""
    old = Path(path).read_text(encoding="utf-8")
    return atomic_write(path, lambda f: f.write(old + text), encoding="utf-8")


def open_lock(path):
    """Open (create) a lock file, never through a symbolic link: O_NOFOLLOW refuses a link
    planted at ``path`` (OSError naming it), and a path that is not a regular file (a FIFO,
    a folder) is refused too.  Returns a binary file object."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    if os.path.islink(path):  # also where O_NOFOLLOW is missing
        raise OSError(errno.ELOOP, "is a symbolic link: a lock file is never followed", str(path))
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "is a symbolic link: a lock file is never followed", str(path)) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "is not a regular file", str(path))
    return os.fdopen(fd, "r+b")


#: the largest file read_bytes reads by default: configurations are a few kB
TEXT_MAX = 16 << 20


def read_bytes(path, *, limit=TEXT_MAX, what="file"):
    """The bytes of a regular file of at most ``limit`` bytes, read without blocking on a
    FIFO or reading a device for ever: opened with O_NONBLOCK, refused (ValueError naming
    the file) unless fstat calls it a regular file and its size is within ``limit``; the
    read itself stops at ``limit + 1`` bytes (a file growing meanwhile)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                    else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "a socket")
            raise ValueError(f"{path}: is {kind}, not a regular {what}")
        if st.st_size > limit:
            raise ValueError(f"{path}: {st.st_size} bytes is more than a {what} may have ({limit} bytes)")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise ValueError(f"{path}: more than a {what} may have ({limit} bytes)")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _tomllib():
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            raise ImportError("reading TOML needs Python >= 3.11 (tomllib) or the tomli package") from None
    return tomllib


def _no_nul(path, data, where=""):
    """Refuse a NUL character in any key or string of parsed TOML (it cannot be a name, a
    file name or a C string)."""
    if isinstance(data, str):
        if "\x00" in data:
            raise ValueError(f"{path}: {where or 'a value'} = {data!r} holds a NUL character")
    elif isinstance(data, dict):
        for k, v in data.items():
            if "\x00" in k:
                raise ValueError(f"{path}: the key {k!r} holds a NUL character")
            _no_nul(path, v, f"{where}.{k}" if where else k)
    elif isinstance(data, list):
        for k, v in enumerate(data):
            _no_nul(path, v, f"{where}[{k}]")


def read_toml(path):
    """The tables of a TOML configuration file, read safely: a regular file of at most
    TEXT_MAX bytes (a FIFO, a device, a huge file refused by read_bytes), UTF-8 (else a
    ValueError naming the file and the byte), valid TOML, no NUL character in a key or a
    string.  The one reader of every TOML file of the package (WindPump.from_toml,
    Mechanism.from_toml, the command line's --config)."""
    raw = read_bytes(path, what="TOML file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not a text (UTF-8) file: byte {exc.start} is {raw[exc.start:exc.start + 1]!r}") \
            from None
    tomllib = _tomllib()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}") from None
    _no_nul(path, data)
    return data
