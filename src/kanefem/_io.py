"""Files written atomically: a temporary file in the target folder, then os.replace,
so an interrupted run never leaves a half-written table behind."""

from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path, write, mode="w", **open_kw):
    """Call ``write(fileobj)`` on a temporary file, then move it to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".", suffix=".tmp")
    try:
        # mkstemp makes the file private (0600); give it the mode open() would
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, mode, **open_kw) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def write_csv(folder, name, header, rows):
    """Write a CSV table (header + rows) into folder/name atomically; return its path."""

    def write(f):
        w = csv.writer(f)
        w.writerow(header)
        for row in rows:
            w.writerow([f"{v:.17g}" if isinstance(v, float) else v for v in row])

    return atomic_write(Path(folder) / name, write, newline="")


def _toml_value(key, v):
    """One TOML value: bool, int, finite float or str."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise ValueError(f"{key} = {v!r} cannot be written to TOML (not finite)")
        return repr(v)  # shortest round-trip form, valid TOML (e.g. 0.08, 1e-06, 210000000000.0)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    raise TypeError(f"{key} = {v!r}: only bool, int, float and str are written to TOML")


def write_toml(path, tables, comment=""):
    """Write ``{table: {key: value}}`` as TOML, atomically; return the path.

    A small writer for configuration files (one level of tables, scalar values);
    reading is ``tomllib``'s job.  ``comment`` lines go at the top, prefixed by ``#``.
    """
    lines = [f"# {c}".rstrip() for c in comment.splitlines()] if comment else []
    for name, table in tables.items():
        if lines:
            lines.append("")
        lines.append(f"[{name}]")
        lines.extend(f"{key} = {_toml_value(key, v)}" for key, v in table.items())
    text = "\n".join(lines) + "\n"
    return atomic_write(path, lambda f: f.write(text))
