"""Output files: written atomically, with the permissions open() would give them."""

import os
import random
import re
import signal
import stat

import pytest

import kanefem
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


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX interval timers")
def test_keyboard_interrupt_at_any_moment_leaves_no_temporary_file(tmp_path):
    """A Ctrl-C lands between any two bytecodes of the main thread (a sweep's store writes
    there). With tempfile.mkstemp outside the try, 65 % of such interrupts left a .tmp
    file (its name is made after the file); the file is now created inside the try."""
    def interrupt(*_):
        raise KeyboardInterrupt

    rng = random.Random(20261123)
    old = signal.signal(signal.SIGALRM, interrupt)
    path, written, left = tmp_path / "x.npz", 0, []
    try:
        for _ in range(300):
            try:
                signal.setitimer(signal.ITIMER_REAL, rng.uniform(1e-5, 3e-3))
                while True:
                    atomic_write(path, lambda f: f.write(b"abc"), mode="wb")
                    written += 1
            except KeyboardInterrupt:
                pass
            left += [p.name for p in tmp_path.glob(".*.tmp")]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert written > 0  # the interrupts landed among writes, not before the first
    assert left == []
    assert path.read_bytes() == b"abc"  # and the file is whole


def test_no_file_written_outside_io():
    """The rule of kanefem._io: every write of a file in the package goes through _io
    (atomic_path/atomic_write/write_csv/write_toml/append_text/open_lock/OutputSet); a line
    elsewhere that writes a file carries '# _io: <why>'.  This scan fails on a new one."""
    src = os.path.join(os.path.dirname(kanefem.__file__))
    writes = re.compile(r"""open\([^)]*["'][wax+]b?["']|\.write_text\(|\.write_bytes\(|\.savefig\(|np\.save"""
                        r"""|\.tofile\(|meshio\.write\(|anim\w*\.save\(|os\.open\(.*O_(WRONLY|RDWR|CREAT)"""
                        r"""|shutil\.(copy|move)|os\.(rename|replace|symlink|link)\(|\.mkdir\(|os\.makedirs""")
    found = []
    for name in sorted(os.listdir(src)):
        if not name.endswith(".py") or name == "_io.py":
            continue
        for k, line in enumerate(open(os.path.join(src, name), encoding="utf-8"), 1):
            if (writes.search(line) and "# _io:" not in line and "atomic_write(" not in line
                    and "os.devnull" not in line):
                found.append(f"{name}:{k}: {line.strip()}")
    assert found == []
