"""Output files: written atomically, with the permissions open() would give them."""

import os
import stat

import pytest

from kanefem._io import atomic_write, write_csv


def test_written_file_has_the_usual_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        path = write_csv(tmp_path, "t.csv", ["a", "b"], [(1, 2.5)])
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644  # not mkstemp's private 0600
    assert path.read_text().splitlines() == ["a,b", "1,2.5"]


def test_interrupted_write_leaves_the_old_file_and_no_debris(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("old")

    def fail(f):
        f.write("half")
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        atomic_write(path, fail)
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.txt"]
