"""Output files: written atomically, with the permissions open() would give them."""

import os
import random
import signal
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
