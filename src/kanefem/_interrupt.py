"""Ctrl-C during long calls that cannot look at signals themselves (issue 17, item 5).

Python runs a signal handler only in the main thread, between bytecodes: while the
main thread sits in one long C call (SuperLU's factorization, a dense LAPACK
eigensolver in the core), Ctrl-C waits until the call returns, seconds or minutes.
:func:`call` runs such a call in a worker thread (the C core and SciPy release the GIL
in them) while the main thread waits in short joins, so a KeyboardInterrupt arrives
within :data:`POLL` seconds.  The abandoned worker runs to its end into its own result,
which is dropped: nothing the caller keeps (a cache, a result) is filled by an
interrupted call, because the caller stores a result only after :func:`call` returns it.
The interpreter waits for abandoned workers before it exits (a worker still inside
SuperLU while the interpreter shuts down breaks its exit: status 120); a second Ctrl-C
ends that wait.

The rule, checked by tests/test_bounds.py: every call of ``splu`` and of the core's
``eig_create``, ``eig_create_projected``, ``eig_solve``, ``eig_gyroscopic`` and
``null_basis`` in the package goes through :func:`call` (a dense eigen-decomposition of
one instant takes seconds: 18 s for the gyroscopic problem of 400 beam elements).

The calls run in one long-lived worker thread, not a thread each: SciPy's SuperLU frees
a factor's memory only in the thread that made it (SciPy 1.17: a factor made in one
thread and dropped in another stays allocated: 31 MB for each factor of a 1e4-DOF mesh,
1 GB at 1e5).  ``call(..., owned=True)`` returns such an object wrapped (:class:`Owned`)
so that it is dropped in its worker too.
"""

from __future__ import annotations

import atexit
import os
import queue
import sys
import threading
import time

from . import _checks

#: the longest wait [s] between two looks at a pending signal in the main thread
POLL = 0.05

#: calls estimated below this many floating-point operations (tens of milliseconds) run
#: directly: a worker thread costs 0.1-0.5 ms a call, 5 to 15 times a small body's
#: eigenvalues (27 us)
MIN_FLOPS = 1e8

#: the longest wait [s] at exit for the workers to drop what they hold and end
STOP_WAIT = 2.0

_abandoned = []  # the "finished" events of workers whose caller was interrupted


class _Worker:
    """A daemon thread running jobs one after another: calls, and the dropping of the
    objects they made (a list whose content the worker clears, so that the last
    reference ends in this thread).  A worker whose call was abandoned (Ctrl-C) is
    retired: it finishes that call, keeps dropping its objects, and takes no new call."""

    def __init__(self):
        self.jobs = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name="kanefem-worker", daemon=True)
        self.thread.start()
        _workers.append(self)

    def _loop(self):
        while True:
            job = self.jobs.get()
            if job is None:  # the interpreter is exiting
                return
            if isinstance(job, list):
                job.clear()  # an Owned object's end, in the thread that made it
            else:
                job()
            del job


_worker = None  # the worker that takes new calls (made at the first call)
_worker_lock = threading.Lock()
_workers = []  # every worker made, stopped at exit
_closing = False  # set at exit: objects are then dropped where they are


@atexit.register
def _stop_workers():
    """Stop the workers before the interpreter tears down (registered before
    _wait_for_abandoned, so it runs after it: atexit runs in reverse): a worker freeing a
    factor while the interpreter finalizes breaks its exit (status 120)."""
    global _closing
    _closing = True
    for w in _workers:
        w.jobs.put(None)
    # each worker drops what it still holds, then ends: waited for (a large factor's free
    # takes tens of milliseconds, more than one POLL), but not for more than STOP_WAIT
    # seconds in all (a worker still inside a call after a second Ctrl-C is left)
    deadline = time.monotonic() + STOP_WAIT
    for w in _workers:
        while w.thread.is_alive() and time.monotonic() < deadline:
            w.thread.join(POLL)


def _after_fork_in_child():
    """A forked child has only the thread that forked: the parent's workers are gone
    from it (a call handed to one would wait forever), so the child starts without."""
    global _worker, _closing
    _worker, _closing = None, False
    _workers.clear()
    _abandoned.clear()


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _current():
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = _Worker()
        return _worker


def _retire(worker):
    global _worker
    with _worker_lock:
        if _worker is worker:
            _worker = None


class Owned:
    """An object made by a call in a worker thread, dropped in that thread (SuperLU's
    factors: see the module).  Its attributes are the object's."""

    __slots__ = ("_box", "_worker")

    def __init__(self, obj, worker):
        self._box = [obj]
        self._worker = worker

    def __getattr__(self, name):
        return getattr(self._box[0], name)

    def __del__(self):
        if _closing or not self._worker.thread.is_alive():
            return  # at exit, or in a forked child: dropped here
        try:
            self._worker.jobs.put(self._box)
        except Exception:  # pragma: no cover - the interpreter is shutting down
            pass


@atexit.register
def _wait_for_abandoned():
    """Let abandoned workers end before the interpreter shuts down."""
    alive = [e for e in _abandoned if not e.is_set()]
    if alive:
        print(f"kanefem: waiting for {len(alive)} interrupted computation(s) to end before exiting "
              "(Ctrl-C again to quit now)", file=sys.stderr, flush=True)
        for finished in alive:
            while not finished.wait(POLL):
                pass


def call(fn, /, *args, polls=False, flops=None, owned=False, **kwargs):
    """``fn(*args, **kwargs)``, answering Ctrl-C within :data:`POLL` seconds when called
    from the main thread (in another thread: a plain call, signals go to the main
    thread only).  The result, or the exception ``fn`` raised, is the caller's; after a
    KeyboardInterrupt the worker's eventual result is discarded.

    ``flops``: an estimate of the call's work (of its longest step between two polls
    with ``polls``); below :data:`MIN_FLOPS` it is a plain call.

    ``polls=True``: fn is a core loop that calls its ``progress`` keyword between steps
    or instants (only the main thread sees signals there, so a worker would not stop):
    the progress function is wrapped so that an abandoned worker stops at its next poll
    (and the caller's own progress function, if any, is still called).

    ``owned=True``: the result is an object to be dropped in the thread that made it
    (SuperLU's factors): returned as :class:`Owned` when it was made in the worker.

    The wait is on an Event, not ``Thread.join``: a join interrupted by Ctrl-C marks the
    thread as stopped while it still runs (CPython 3.11), and the interpreter would then
    shut down under it.
    """
    polls = _checks.flag("polls", polls)
    owned = _checks.flag("owned", owned)
    if threading.current_thread() is not threading.main_thread() or (flops is not None and flops < MIN_FLOPS):
        return fn(*args, **kwargs)
    box = {}
    finished, abandoned = threading.Event(), threading.Event()
    if polls:
        user = kwargs.get("progress")

        def progress(t):
            if abandoned.is_set():
                raise KeyboardInterrupt  # ends the worker's loop; its result is dropped
            if user is not None:
                user(t)

        kwargs["progress"] = progress

    def work():
        try:
            box["result"] = fn(*args, **kwargs)
        except BaseException as exc:  # handed to the caller
            box["error"] = exc
        finally:
            finished.set()

    worker = _current()
    worker.jobs.put(work)
    try:
        while not finished.wait(POLL):  # a pending Ctrl-C raises KeyboardInterrupt here
            pass
    except BaseException:
        abandoned.set()
        _retire(worker)  # it finishes this call; the next one goes to a new worker
        _abandoned[:] = [e for e in _abandoned if not e.is_set()] + [finished]
        raise
    if "error" in box:
        raise box.pop("error")
    result = box.pop("result")
    return Owned(result, worker) if owned else result
