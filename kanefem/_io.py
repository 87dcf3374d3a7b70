"""Files written atomically: a temporary file in the target folder, then os.replace,
so an interrupted run never leaves a half-written table behind."""

from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path


def atomic_write(path, write, mode="w", **open_kw):
    """Call ``write(fileobj)`` on a temporary file, then move it to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".", suffix=".tmp")
    try:
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
