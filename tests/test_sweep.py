"""kanefem.sweep: grids, executors (threads, Dask), the store (atomic, resumable,
SIGKILL-proof), progress and logging, and the ready-made studies."""

import concurrent.futures as cf
import functools
import json
import logging
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import numpy as np
import pytest

import kanefem
from kanefem import studies
from kanefem.sweep import _Store, expand_grid, point_key, study_name

# ---------------------------------------------------------------- helpers (module level: picklable)

CALLS = []


def counting_study(x, y=0.0):
    """A cheap study that records its calls (threads share this module's list)."""
    CALLS.append((x, y))
    return {"z": np.array([x + y, x * y]), "s": x - y, "label": f"{x}-{y}"}


def failing_study(x):
    if x == 2:
        raise ValueError(f"x = {x} is bad")
    return {"x2": x * x}


def assert_records_equal(a, b):
    """Two lists of records are bit-identical (same names, dtypes, values)."""
    assert len(a) == len(b)
    for ra, rb in zip(a, b):
        assert sorted(ra) == sorted(rb)
        for k in ra:
            assert ra[k].dtype == rb[k].dtype, k
            np.testing.assert_array_equal(ra[k], rb[k], err_msg=k)


# ---------------------------------------------------------------- grids, keys, names


def test_expand_grid_is_the_full_factorial_in_order():
    pts = expand_grid({"a": [1, 2], "b": [0.5, 1.5, 2.5], "c": "x"})
    assert len(pts) == 6  # 2 x 3 x 1
    assert pts[0] == {"a": 1, "b": 0.5, "c": "x"} and pts[1] == {"a": 1, "b": 1.5, "c": "x"}
    assert pts[-1] == {"a": 2, "b": 2.5, "c": "x"}  # the last name varies fastest
    # numpy values become plain Python ones (their JSON, and so their key, is stable)
    pts = expand_grid({"rpm": np.linspace(100, 200, 3), "n": np.arange(2)})
    assert type(pts[0]["rpm"]) is float and type(pts[0]["n"]) is int
    assert expand_grid([{"a": 1}, {"a": 2, "b": True}]) == [{"a": 1}, {"a": 2, "b": True}]


@pytest.mark.parametrize("grid, exc, words", [
    ({}, ValueError, "no parameters"),
    ([], ValueError, "no points"),
    ({"a": []}, ValueError, "'a' has no values"),
    ({"a": [1.0, float("nan")]}, ValueError, "a must be finite"),
    ({"a": [None]}, TypeError, "a = None"),
    ({"a": [[1, 2]]}, TypeError, "a = [1, 2]"),
    ({"not a name": [1]}, ValueError, "'not a name'"),
    ([{"a": 1}, {"a": 1}], ValueError, "given twice"),
    ([{"a": 1}, 3], TypeError, "grid[1] = 3"),
    ("a=1", TypeError, "grid must be"),
])
def test_bad_grids_raise_naming_the_problem(grid, exc, words):
    with pytest.raises(exc, match=None) as info:
        expand_grid(grid)
    assert words in str(info.value)


def test_point_key_is_stable_and_canonical():
    # the same point in any name order has one key; int and float are different points
    assert point_key({"a": 1, "b": 0.1}) == point_key({"b": 0.1, "a": 1})
    assert point_key({"a": 1}) != point_key({"a": 1.0})
    # pinned: a key must not change between kanefem versions, or stores would not resume
    assert point_key({"rpm": 140.0}) == "5107011b3931de94136d"


def test_study_names():
    assert study_name(studies.beam_eigenvalues) == "kanefem.studies.beam_eigenvalues"
    name = study_name(functools.partial(studies.beam_eigenvalues, n_modes=2))
    assert name == "kanefem.studies.beam_eigenvalues(n_modes=2)"
    # an array fixed by a partial enters by a digest of its values
    a = study_name(functools.partial(counting_study, y=np.arange(3.0)))
    b = study_name(functools.partial(counting_study, y=np.arange(3.0) + 1))
    assert a != b and "array(3,)" in a
    with pytest.raises(ValueError, match="lambda"):
        study_name(lambda x: {"x": x})
    with pytest.raises(ValueError, match="positional"):
        study_name(functools.partial(counting_study, 1.0))


# ---------------------------------------------------------------- results


def test_beam_sweep_obeys_the_spin_softening_identity():
    # planar beam, K_eps and K_G off: lambda_k(omega) = lambda_k(0) - omega^2 exactly
    # (docs/theory.md section 3); the sweep must hand every point its own omega
    omegas = [0.0, 5.0, 10.0, 20.0, 40.0]
    res = kanefem.sweep(studies.beam_eigenvalues, {"omega": omegas, "n_modes": 3}, progress=False)
    lam = res.stack("eigenvalues")
    assert lam.shape == (5, 3)
    shift = lam[0] - lam
    np.testing.assert_allclose(shift, np.square(omegas)[:, None] * np.ones(3), rtol=1e-9, atol=1e-7)
    np.testing.assert_array_equal(res.param("omega"), omegas)
    assert res.names == ["omega", "n_modes"] and len(res) == 5


def test_threads_give_bit_identical_results_to_serial():
    grid = {"rpm": [110.0, 130.0, 150.0], "M3": [4.0, 6.0]}
    study = functools.partial(studies.windpump_lever, points_per_revolution=72)
    with cf.ThreadPoolExecutor(1) as one:
        serial = kanefem.sweep(study, grid, executor=one, progress=False)
    threaded = kanefem.sweep(study, grid, workers=2, progress=False)
    assert_records_equal(serial.results, threaded.results)
    assert serial.params == threaded.params


def test_ready_made_studies_equal_the_direct_calls():
    # windpump_lever is the pump's own calls, bit for bit
    pump = kanefem.WindPump(M3=6.0)
    m = pump.solve(rpm=120.0, revolutions=1, steady_state=True, points_per_revolution=90)
    eig = pump.lever_eigenvalues(m, n_modes=2)
    r = studies.windpump_lever(rpm=120.0, M3=6.0, points_per_revolution=90)
    np.testing.assert_array_equal(r["eigenvalues"], eig.eigenvalues)
    np.testing.assert_array_equal(r["x_D"], m.x_D)
    assert r["f1_min_Hz"] == eig.frequencies_hz[:, 0].min()
    # rotating_bar_sweep (now through sweep) returns what rotating_bar gives directly
    t = np.linspace(0, 0.004, 41)
    swept = studies.rotating_bar_sweep("area", [0.2e-4, 0.3e-4], t_end=0.004, t_eval=t)
    direct = studies.rotating_bar(t_end=0.004, t_eval=t, area=0.3e-4)
    assert list(swept) == [0.2e-4, 0.3e-4]
    assert isinstance(swept[0.3e-4], kanefem.SimulationResult)
    np.testing.assert_array_equal(swept[0.3e-4].d, direct.d)
    assert swept[0.3e-4].dof_names == ("u",) and swept[0.3e-4].method == "newmark"
    with pytest.raises(ValueError, match="parameter = 'colour'"):
        studies.rotating_bar_sweep("colour", [1])


def test_rotating_bar_response_scales_with_the_stiffness():
    # the mean tip stretch (centrifugal + force) is static: proportional to 1 / EA at
    # fixed mass; the second half of a 0.05 s run averages out the first axial mode
    # (period 0.8 ms) to about 1 %
    res = kanefem.sweep(studies.rotating_bar_response, {"area": [0.2e-4, 0.4e-4], "t_end": 0.05,
                                                        "damping_ratio": 0.2}, progress=False)
    mean = res.to_dataframe()["tip_mean_m"].to_numpy()
    assert mean[0] / mean[1] == pytest.approx(2.0, rel=0.02)


def test_sweep_result_views(tmp_path):
    res = kanefem.sweep(counting_study, {"x": [1.0, 2.0, 3.0], "y": [0.0, 1.0]}, progress=False)
    assert res[1][0] == {"x": 1.0, "y": 1.0} and float(res[1][1]["s"]) == 0.0
    np.testing.assert_array_equal(res.stack("z")[:, 0], res.param("x") + res.param("y"))
    df = res.to_dataframe()
    assert list(df.columns) == ["x", "y", "s", "label"] and len(df) == 6
    assert df["label"][5] == "3.0-1.0"
    long = res.to_dataframe("z")
    assert len(long) == 12 and list(long.columns) == ["x", "y", "i0", "z"]
    np.testing.assert_array_equal(long["z"][long["i0"] == 1], res.param("x") * res.param("y"))
    d = res.to_dict()
    np.testing.assert_array_equal(d["param.x"], res.param("x"))
    assert d["z"].shape == (6, 2)
    with pytest.raises(KeyError, match="'nope'"):
        res.stack("nope")
    with pytest.raises(KeyError, match="no parameter 'w'"):
        res.param("w")
    sub = res.where(y=1.0)
    assert sub.params == [{"x": 1.0, "y": 1.0}, {"x": 2.0, "y": 1.0}, {"x": 3.0, "y": 1.0}]
    np.testing.assert_array_equal(sub.stack("z")[:, 1], [1.0, 2.0, 3.0])
    assert len(res.where(x=2.0, y=0.0)) == 1 and len(res.where(x=9.0)) == 0
    with pytest.raises(KeyError, match=r"\['w'\]"):
        res.where(w=1)


def test_sweep_result_plots_and_campbell():
    import matplotlib

    matplotlib.use("Agg")
    res = kanefem.sweep(studies.beam_eigenvalues, {"omega": [0.0, 100.0, 200.0, 300.0], "n_modes": 2},
                        progress=False)
    ax = res.campbell()
    modes = [ln for ln in ax.get_lines() if ln.get_label().startswith("mode")]
    assert len(modes) == 2
    np.testing.assert_array_equal(modes[1].get_ydata(), res.stack("frequencies_hz")[:, 1])
    # engine orders f = k omega / 2 pi for "omega"
    orders = [ln for ln in ax.get_lines() if ln.get_linestyle() == ":"]
    assert orders and np.allclose(orders[0].get_ydata(), orders[0].get_xdata() / (2 * np.pi))
    # over a crank turn: mean line and range band per mode
    turn = kanefem.sweep(functools.partial(studies.windpump_lever, points_per_revolution=36),
                         {"rpm": [120.0, 160.0]}, progress=False)
    ax = turn.campbell("rpm")
    line = [ln for ln in ax.get_lines() if ln.get_label().startswith("mode 1")][0]
    np.testing.assert_allclose(line.get_ydata(), turn.stack("frequencies_hz")[:, :, 0].mean(axis=1))
    assert len(ax.collections) == 2  # the bands
    ax = turn.plot("motor_torque_max_Nm")
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), turn.stack("motor_torque_max_Nm"))
    ax = turn.plot("x_D")  # one line per point
    assert len(ax.get_lines()) == 2


# ---------------------------------------------------------------- executors


def test_executor_arguments():
    with pytest.raises(TypeError, match="executor must be"):
        kanefem.sweep(counting_study, {"x": [1.0]}, executor="threads")
    with cf.ThreadPoolExecutor(1) as ex, pytest.raises(ValueError, match="workers"):
        kanefem.sweep(counting_study, {"x": [1.0]}, executor=ex, workers=2)
    with pytest.raises(ValueError, match="workers = 0"):
        kanefem.sweep(counting_study, {"x": [1.0]}, workers=0)
    with pytest.raises(TypeError, match="study must be callable"):
        kanefem.sweep(3, {"x": [1.0]})
    with pytest.raises(ValueError, match="errors = 'ignore'"):
        kanefem.sweep(counting_study, {"x": [1.0]}, errors="ignore")
    # a user's executor is left open
    with cf.ThreadPoolExecutor(2) as ex:
        kanefem.sweep(counting_study, {"x": [1.0, 2.0]}, executor=ex, progress=False)
        assert ex.submit(lambda: 7).result() == 7


def test_dask_local_cluster_gives_the_same_points(tmp_path):
    distributed = pytest.importorskip("distributed")
    grid = {"rpm": [120.0, 140.0, 160.0], "M3": [4.0, 5.0]}
    study = functools.partial(studies.windpump_lever, points_per_revolution=72)
    ref = kanefem.sweep(study, grid, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        res = kanefem.sweep(study, grid, executor=client, store=tmp_path / "s", progress=False)
        # the workers are other processes: the points came back and were stored here
        assert len(list((tmp_path / "s").glob("*.npz"))) == 6
        again = kanefem.sweep(study, grid, executor=client, store=tmp_path / "s", progress=False)
    assert_records_equal(ref.results, res.results)
    assert all(i["stored"] for i in again.info)
    assert_records_equal(ref.results, again.results)


# ---------------------------------------------------------------- the store


def test_store_resumes_computing_only_missing_points(tmp_path):
    store = tmp_path / "store"
    grid = {"x": [1.0, 2.0, 3.0], "y": [0.0, 1.0]}
    CALLS.clear()
    first = kanefem.sweep(counting_study, grid, store=store, progress=False)
    assert len(CALLS) == 6
    files = sorted(store.glob("*.npz"))
    assert len(files) == 6
    # a point file is self-describing and readable without kanefem
    with np.load(store / f"{point_key({'x': 2.0, 'y': 1.0})}.npz") as z:
        assert json.loads(str(z["__params__"])) == {"x": 2.0, "y": 1.0}
        assert str(z["__study__"]) == "test_sweep.counting_study"
        assert str(z["__version__"]) == kanefem.__version__
        np.testing.assert_array_equal(z["z"], [3.0, 2.0])
    CALLS.clear()
    files[0].unlink()
    again = kanefem.sweep(counting_study, grid, store=store, progress=False)
    assert len(CALLS) == 1  # only the deleted point
    assert sum(not i["stored"] for i in again.info) == 1
    assert_records_equal(first.results, again.results)
    # a bigger grid over the same store computes only the new points
    CALLS.clear()
    kanefem.sweep(counting_study, {"x": [1.0, 2.0, 3.0, 4.0], "y": [0.0, 1.0]}, store=store, progress=False)
    assert sorted(CALLS) == [(4.0, 0.0), (4.0, 1.0)]


def test_store_refuses_to_mix_in_other_studies_or_points(tmp_path):
    store = tmp_path / "store"
    kanefem.sweep(counting_study, {"x": [1.0, 2.0]}, store=store, progress=False)
    with pytest.raises(kanefem.StoreError, match="holds the study 'test_sweep.counting_study'"):
        kanefem.sweep(failing_study, {"x": [1.0]}, store=store, progress=False)
    holder = _Store(store, "test_sweep.counting_study", ["x"])  # the refused sweep let go of the lock
    holder.close()
    # another point's file under this point's key (a copied or renamed file)
    a, b = (store / f"{point_key({'x': v})}.npz" for v in (1.0, 2.0))
    b.write_bytes(a.read_bytes())
    with pytest.raises(kanefem.StoreError, match=r"at \{'x': 1.0\}, not .* at \{'x': 2.0\}"):
        kanefem.sweep(counting_study, {"x": [1.0, 2.0]}, store=store, progress=False)
    b.write_bytes(b"not a zip file")
    with pytest.raises(kanefem.StoreError, match="not a readable sweep point"):
        kanefem.sweep(counting_study, {"x": [1.0, 2.0]}, store=store, progress=False)
    # a StoreError is a KanefemError and a ValueError
    assert issubclass(kanefem.StoreError, kanefem.KanefemError) and issubclass(kanefem.StoreError, ValueError)
    (tmp_path / "file").write_text("x")
    with pytest.raises(kanefem.StoreError, match="not a folder"):
        kanefem.sweep(counting_study, {"x": [1.0]}, store=tmp_path / "file")


def test_store_is_locked_while_a_sweep_writes_it(tmp_path):
    pytest.importorskip("fcntl")
    holder = _Store(tmp_path / "s", "test_sweep.counting_study", ["x"])
    try:
        with pytest.raises(kanefem.StoreError, match="in use by another sweep"):
            kanefem.sweep(counting_study, {"x": [1.0]}, store=tmp_path / "s")
    finally:
        holder.close()
    kanefem.sweep(counting_study, {"x": [1.0]}, store=tmp_path / "s", progress=False)


def test_leftover_temporary_files_are_removed(tmp_path):
    store = tmp_path / "s"
    kanefem.sweep(counting_study, {"x": [1.0]}, store=store, progress=False)
    tmp = store / ".0123.npz.abcd.tmp"  # what atomic_write leaves when killed mid-write
    tmp.write_bytes(b"PK\x03\x04 half a point")
    kanefem.sweep(counting_study, {"x": [1.0, 2.0]}, store=store, progress=False)
    assert not tmp.exists() and len(list(store.glob("*.npz"))) == 2


def test_a_failing_point_stops_or_is_skipped(tmp_path, caplog):
    store = tmp_path / "s"
    with cf.ThreadPoolExecutor(1) as one, pytest.raises(ValueError, match="x = 2 is bad") as info:
        kanefem.sweep(failing_study, {"x": [1, 2, 3]}, executor=one, store=store, progress=False)
    if sys.version_info >= (3, 11):
        assert "at the point {'x': 2}" in "".join(info.value.__notes__)
    assert (store / f"{point_key({'x': 1})}.npz").exists()  # finished before: kept
    with caplog.at_level(logging.WARNING, logger="kanefem"):
        res = kanefem.sweep(failing_study, {"x": [1, 2, 3]}, store=store, progress=False, errors="skip")
    assert res.params == [{"x": 1}, {"x": 3}] and float(res.results[1]["x2"]) == 9.0
    assert "1 point(s) failed and were skipped" in caplog.text and "x = 2 is bad" in caplog.text
    assert not (store / f"{point_key({'x': 2})}.npz").exists()  # tried again next time


def bad_output(kind):
    return {"list": {"a": [object()]}, "reserved": {"__params__": 1.0}, "none": None}[kind]


@pytest.mark.parametrize("kind, exc, words", [
    ("list", TypeError, "is not an array of numbers"),
    ("reserved", ValueError, "'__params__'"),
    ("none", TypeError, "returned NoneType"),
])
def test_bad_study_outputs_raise(kind, exc, words):
    with pytest.raises(exc) as info:
        kanefem.sweep(bad_output, {"kind": [kind]}, progress=False)
    assert words in str(info.value)


# ---------------------------------------------------------------- progress and logging


def test_progress_is_off_when_not_interactive_and_on_when_asked(capsys, caplog, monkeypatch):
    tqdm_auto = pytest.importorskip("tqdm.auto")
    bars = []

    class Recorded(tqdm_auto.tqdm):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            bars.append(self)

    monkeypatch.setattr(tqdm_auto, "tqdm", Recorded)
    # under pytest stderr is not a terminal: no bar by default, even where ipykernel was
    # imported (as the notebook tests do) without a notebook running
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    with caplog.at_level(logging.INFO, logger="kanefem"):
        kanefem.sweep(counting_study, {"x": [1.0, 2.0, 3.0]})
    assert bars == [] and capsys.readouterr().err == ""
    assert "sweep test_sweep.counting_study over 3 point(s): 0 stored, 3 to run" in caplog.text
    assert "3 of 3 point(s) done" in caplog.text
    kanefem.sweep(counting_study, {"x": [1.0, 2.0, 3.0]}, progress=True)
    assert len(bars) == 1 and bars[0].total == 3 and bars[0].n == 3
    assert "sweep" in capsys.readouterr().err
    kanefem.sweep(counting_study, {"x": [1.0, 2.0, 3.0]}, progress=False)
    assert len(bars) == 1 and capsys.readouterr().err == ""


# ---------------------------------------------------------------- killed and interrupted sweeps

CHILD = textwrap.dedent("""
    import sys, kanefem
    from kanefem import studies
    grid = {"omega": [float(w) for w in range(0, 120, 2)], "t_end": 0.01}
    print("started", flush=True)
    kanefem.sweep(studies.rotating_bar_response, grid, store=sys.argv[1], workers=2, progress=False)
    print("finished", flush=True)
""")


def _child(tmp_path, store):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    return subprocess.Popen([sys.executable, str(script), str(store)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _stored(store):
    return {p.name: p.read_bytes() for p in Path(store).glob("*.npz")}


@pytest.mark.slow
def test_sweep_killed_at_random_moments_resumes_to_the_clean_result(tmp_path):
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    p = _child(tmp_path, clean)
    assert p.stdout.readline().strip() == "started"
    t0 = time.perf_counter()
    assert p.communicate(timeout=300)[0].split() == ["finished"]
    per_point = 2 * (time.perf_counter() - t0) / 60  # 2 threads
    n_points = len(_stored(clean))
    assert n_points == 60
    killed.mkdir()
    rng = random.Random(12)
    kills, counts, before = 0, [], {}
    while kills < 20:
        p = _child(tmp_path, killed)
        assert p.stdout.readline().strip() == "started"
        # a random moment of the run, tied to its progress rather than to the clock (the
        # machine's load varies): a fifth of the runs die at once (while starting or
        # reading the store), the others a random fraction of a point's time after
        # their first new point (in a study, or while a point is being written)
        if rng.random() < 0.2:
            time.sleep(rng.uniform(0.0, 0.02))
        else:
            deadline = time.perf_counter() + 60
            while len(list(killed.glob("*.npz"))) <= len(before) and p.poll() is None \
                    and time.perf_counter() < deadline:
                time.sleep(0.001)
            time.sleep(rng.uniform(0.0, 2 * per_point))
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            kills += 1
        p.wait(timeout=60)
        now = _stored(killed)
        # no finished point is ever lost or changed by a later run
        assert all(now.get(name) == data for name, data in before.items())
        before = now
        counts.append(len(now))
        if len(now) == n_points:
            break
    p = _child(tmp_path, killed)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    print(f"{per_point:.3f} s per point; points stored after each of {kills} kills: {counts}")
    assert kills == 20
    # the kills landed at different moments (not all before the first point)
    assert len(set(counts)) >= 3, counts
    # point by point, the resumed store equals the clean run's: same files, same arrays
    a, b = _stored(clean), _stored(killed)
    assert sorted(a) == sorted(b)
    for name in a:
        with np.load(clean / name) as za, np.load(killed / name) as zb:
            assert sorted(za.files) == sorted(zb.files)
            for k in za.files:
                if k != "__seconds__":  # the wall time differs
                    np.testing.assert_array_equal(za[k], zb[k], err_msg=f"{name}: {k}")
    # and no partial file remains
    assert sorted(f.name for f in killed.iterdir() if f.suffix != ".npz") == [".lock", "sweep.json"]


def test_ctrl_c_stops_cleanly_keeping_what_is_stored(tmp_path):
    store = tmp_path / "s"
    p = _child(tmp_path, store)
    assert p.stdout.readline().strip() == "started"
    deadline = time.time() + 60
    while len(_stored(store)) < 3 and time.time() < deadline and p.poll() is None:
        time.sleep(0.01)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    stored = _stored(store)
    if len(stored) == 60:
        pytest.skip("the sweep finished before the signal arrived (machine too fast)")
    assert p.returncode != 0 and "KeyboardInterrupt" in err and "finished" not in out
    assert "interrupted" in err  # the log says how many points are stored
    assert not list(store.glob(".*.tmp"))
    res = kanefem.sweep(studies.rotating_bar_response,
                        {"omega": [float(w) for w in range(0, 120, 2)], "t_end": 0.01},
                        store=store, progress=False)
    assert sum(i["stored"] for i in res.info) == len(stored)


# ---------------------------------------------------------------- the command line


def test_command_line_sweep_writes_its_tables_and_resumes(tmp_path, capsys):
    import csv

    from kanefem.__main__ import main

    out, store = tmp_path / "out", tmp_path / "points"
    argv = ["windpump", "--sweep", "rpm=120:160:3", "--sweep", "M3=4,6", "--points", "36",
            "--out", str(out), "--store", str(store), "--no-plots"]
    assert main(argv) == 0
    assert "6 point(s): 0 read from the store, 6 computed" in capsys.readouterr().out
    assert len(list(store.glob("*.npz"))) == 6
    with open(out / "sweep.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(float(r["rpm"]), float(r["M3"])) for r in rows] == [(120, 4), (120, 6), (140, 4), (140, 6), (160, 4), (160, 6)]
    # the values are the study's at that point (to the 17 digits the CSV keeps)
    direct = studies.windpump_lever(rpm=140.0, M3=6.0, points_per_revolution=36)
    assert float(rows[3]["f1_min_Hz"]) == direct["f1_min_Hz"]
    assert float(rows[3]["mean_power_W"]) == direct["mean_power_W"]
    with open(out / "sweep_lever_frequencies.csv") as f:
        freq = list(csv.DictReader(f))
    assert len(freq) == 12 and float(freq[7]["f_max_Hz"]) == direct["frequencies_hz"][:, 1].max()
    # windpump.toml holds the grid: --config runs the same sweep, all from the store
    assert main(["windpump", "--config", str(out / "windpump.toml"), "--out", str(tmp_path / "again"),
                 "--store", str(store), "--no-plots"]) == 0
    assert "6 point(s): 6 read from the store, 0 computed" in capsys.readouterr().out
    assert (tmp_path / "again" / "sweep.csv").read_bytes() == (out / "sweep.csv").read_bytes()


@pytest.mark.parametrize("extra, words", [
    (["--sweep", "rpm=100:200"], "--sweep rpm=100:200: expected START:STOP:COUNT"),
    (["--sweep", "colour=1,2"], "'colour' is not rpm or a wind-pump parameter"),
    (["--sweep", "rpm"], "expected NAME=START:STOP:COUNT"),
    (["--sweep", "rpm=100,120", "--response"], "without --revolutions, --response"),
])
def test_command_line_sweep_errors(tmp_path, capsys, extra, words):
    from kanefem.__main__ import main

    with pytest.raises(SystemExit) as info:
        main(["windpump", "--out", str(tmp_path / "o"), "--store", str(tmp_path / "s"), *extra])
    assert info.value.code == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_command_line_sweep_refuses_a_store_of_other_options(tmp_path, capsys):
    from kanefem.__main__ import main

    common = ["windpump", "--sweep", "rpm=140", "--points", "36", "--no-plots", "--store", str(tmp_path / "s")]
    assert main(common + ["--out", str(tmp_path / "a")]) == 0
    with pytest.raises(SystemExit) as info:
        main(common + ["--elements", "6", "--out", str(tmp_path / "b")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "error: --store" in err and "n_elements=6" in err and "use another folder" in err


def test_command_line_animate_writes_a_gif(tmp_path, capsys):
    PIL = pytest.importorskip("PIL.Image")
    from kanefem.__main__ import main

    assert main(["windpump", "--animate", "--points", "24", "--no-plots", "--out", str(tmp_path / "o")]) == 0
    with PIL.open(tmp_path / "o" / "windpump.gif") as im:
        assert im.n_frames == 24  # every instant (fewer than 36)
    assert "windpump.gif" in capsys.readouterr().out
