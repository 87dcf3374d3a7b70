"""The command line (python -m kanefem) as a user runs it: in subprocesses.

One run's outputs are one set: an output folder holds either the set it held before a run
or the run's complete new set (checked against the SHA-256 of every file in manifest.json),
whatever moment the run is killed at; errors are one line on stderr with exit status 2.
"""

import hashlib
import json
import math
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from kanefem import WindPump

# no display: the command line must draw its figures with matplotlib's Agg backend
ENV = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "MPLBACKEND")}
SMALL = ["--points", "24", "--revolutions", "0.25"]  # 6 instants: a run takes about a second
PNGS = {"motion.png", "joint_forces.png", "lever_eigenvalues.png"}
CSVS = {"motion.csv", "joint_forces.csv", "lever_eigenvalues.csv"}
# two runs whose sets differ: A writes lever_response.csv, B does not (a stale file if left)
RUN_A = ["windpump", *SMALL, "--response"]
RUN_B = ["windpump", *SMALL, "--rpm", "120"]
FILES_A = CSVS | PNGS | {"windpump.toml", "lever_response.csv"}
FILES_B = CSVS | PNGS | {"windpump.toml"}


def kanefem(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "kanefem", *map(str, args)], capture_output=True,
                          text=True, env=ENV, cwd=cwd, timeout=300)


def start(*args):
    return subprocess.Popen([sys.executable, "-m", "kanefem", *map(str, args)], env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def complete_set(folder):
    """folder's manifest, after checking that folder holds exactly the files it lists with
    the SHA-256 it lists (hashed here with hashlib, not with kanefem's code)."""
    manifest = json.loads((folder / "manifest.json").read_text())
    assert sorted(os.listdir(folder)) == sorted([*manifest["files"], "manifest.json"])
    for name, entry in manifest["files"].items():
        data = (folder / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"] and len(data) == entry["bytes"], name
    return manifest


def leftovers(out):
    """The hidden partial/aside folders of runs on out (siblings .NAME.partial-*, .NAME.old-*)."""
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def one_error_line(r, *names):
    """r ended with status 2 and one line on stderr naming each of names, no traceback."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    for name in names:
        assert str(name) in lines[0], (name, lines[0])
    return lines[0]


def dead_pid():
    """The id of a process that has ended and been reaped (kill(pid, 0) fails for it)."""
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


# ---------------------------------------------------------------- one consistent set


@pytest.mark.slow
def test_killed_at_any_moment_the_folder_holds_one_complete_set(tmp_path):
    out = tmp_path / "out"
    r = kanefem(*RUN_A, "--out", out)
    assert r.returncode == 0, r.stderr
    assert set(complete_set(out)["files"]) == FILES_A  # the figures by default, on no display
    # Each run replaces the set it finds by the other one (A -> B -> A ...), so that a mix,
    # or a stale lever_response.csv, would show.  SIGKILL at moments polled for (the partial
    # folder has appeared: computing; it holds a figure: writing; it holds the manifest: about
    # to swap) and at random delays over a run.  Whatever the moment, the folder is the set it
    # was or the run's complete new one: the run writes only into its hidden partial folder,
    # which replaces the folder in one rename (renameat2 exchange).
    runs = {140.0: (RUN_A, FILES_A), 120.0: (RUN_B, FILES_B)}
    t0 = time.monotonic()
    assert kanefem(*RUN_B, "--out", out).returncode == 0
    full = time.monotonic() - t0  # one run's duration, to spread the random delays over
    now = 120.0
    rng = random.Random(8)
    moments = ["partial", "motion.png", "manifest.json"] + [rng.uniform(0.0, 1.3 * full) for _ in range(3)]
    seen_leftover = False
    for moment in moments:
        new = 140.0 if now == 120.0 else 120.0
        proc = start(*runs[new][0], "--out", out)
        hit = False
        if isinstance(moment, float):
            time.sleep(moment)
        else:
            while not hit and proc.poll() is None:  # poll for the moment (the run may finish first)
                partial = list(tmp_path.glob(f".out.partial-{proc.pid}-*"))
                try:
                    hit = bool(partial) and (moment == "partial" or moment in os.listdir(partial[0]))
                except FileNotFoundError:  # swapped in between
                    pass
                time.sleep(0.001)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        found = complete_set(out)["options"]["rpm"]
        assert found in (now, new), (moment, found)
        assert set(complete_set(out)["files"]) == runs[found][1], moment  # no stale file
        if moment == "partial" and hit:  # killed while computing: its partial folder stays behind
            assert leftovers(out) and found == now
        seen_leftover |= bool(leftovers(out))
        now = found
    assert seen_leftover
    # the next run removes what the killed ones left (their processes are gone)
    r = kanefem(*RUN_B, "--out", out)
    assert r.returncode == 0, r.stderr
    assert leftovers(out) == [] and complete_set(out)["options"]["rpm"] == 120.0


def test_ctrl_c_leaves_the_folder_unchanged(tmp_path):
    out = tmp_path / "out"
    assert kanefem(*RUN_A, "--out", out).returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    proc = start(*RUN_B, "--out", out)
    while not list(tmp_path.glob(".out.partial-*")):  # the run has started its set
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.001)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=120)[1]
    # Ctrl-C raises KeyboardInterrupt in the computation, before the swap: the run removes
    # its partial folder and reports the folder unchanged, exit status 130 as a shell's
    assert proc.returncode == 130, err
    assert err.splitlines() == [f"kanefem windpump: interrupted; --out {out} unchanged"]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert leftovers(out) == []


def test_ctrl_c_is_held_during_the_swap():
    from kanefem._io import _sigint_deferred

    # SIGINT inside the block runs no KeyboardInterrupt there (the renames finish), and is
    # delivered when the block ends
    done = False
    with pytest.raises(KeyboardInterrupt):
        with _sigint_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)  # the handler runs here if it is not held
            done = True
    assert done


def test_a_new_run_removes_the_files_of_an_earlier_one(tmp_path):
    out = tmp_path / "out"
    assert kanefem(*RUN_A, "--out", out).returncode == 0
    r = kanefem("windpump", *SMALL, "--no-plots", "--out", out)
    assert r.returncode == 0, r.stderr
    # the set is the new run's alone: no PNG, no lever_response.csv of the first run
    assert set(complete_set(out)["files"]) == CSVS | {"windpump.toml"}
    assert sorted(os.listdir(tmp_path)) == ["out"]  # nothing hidden next to it either


def test_a_crash_between_the_two_renames_is_recovered(tmp_path):
    # Without renameat2 the swap is two renames; a run killed between them leaves no folder,
    # its old set aside (.out.old-PID-*) and the new one in its partial folder.  The next run
    # puts the old set back (the killed run did not finish) and removes the partial folder;
    # a folder of a live process (here the test's own) is left alone.
    a, b = tmp_path / "a", tmp_path / "b"
    assert kanefem("eigen", "--modes", "2", "--out", a).returncode == 0
    assert kanefem("eigen", "--modes", "3", "--out", b).returncode == 0
    out = tmp_path / "out"
    pid = dead_pid()
    a.rename(tmp_path / f".out.old-{pid}-1a2b")
    b.rename(tmp_path / f".out.partial-{pid}-3c4d")
    live = tmp_path / f".out.partial-{os.getpid()}-5e6f"
    live.mkdir()
    # a run that then fails (bad --points, after it has set up its output) leaves the recovered set
    r = kanefem("windpump", "--points", "0", "--out", out)
    one_error_line(r, "--points")
    assert complete_set(out)["options"]["modes"] == 2
    assert leftovers(out) == [live.name]


def test_two_renames_where_the_system_cannot_exchange(tmp_path, monkeypatch, capsys):
    import kanefem._io
    from kanefem.__main__ import main

    # the fallback swap: old folder aside, new one in place, old removed
    monkeypatch.setattr(kanefem._io, "_exchange", lambda a, b: False)
    out = tmp_path / "out"
    assert main(["eigen", "--modes", "2", "--out", str(out)]) == 0
    assert main(["eigen", "--modes", "3", "--body", "bar", "--out", str(out)]) == 0
    m = complete_set(out)
    assert (m["options"]["modes"], m["options"]["body"]) == (3, "bar")
    assert sorted(os.listdir(tmp_path)) == ["out"]
    # the CSV holds 3 modes: the new table, not the old one
    assert len((out / "eigenvalues.csv").read_text().splitlines()) == 4


def test_output_folders_of_the_user_are_never_replaced(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("draft")
    # not empty and no manifest: not kanefem's folder
    one_error_line(kanefem("eigen", "--out", mine), f"--out {mine}", "manifest.json")
    assert os.listdir(mine) == ["thesis.tex"] and (mine / "thesis.tex").read_text() == "draft"
    # kanefem's folder with a file of the user's in it: the file is named, nothing replaced
    out = tmp_path / "out"
    assert kanefem("eigen", "--out", out).returncode == 0
    (out / "notes.txt").write_text("mine")
    one_error_line(kanefem("eigen", "--out", out), "'notes.txt'")
    assert (out / "notes.txt").read_text() == "mine"
    # an empty folder holds nothing to lose: it becomes the set
    empty = tmp_path / "empty"
    empty.mkdir()
    assert kanefem("eigen", "--out", empty).returncode == 0
    assert set(complete_set(empty)["files"]) == {"eigenvalues.csv"}
    # a folder that does not exist yet, under folders that do not either
    deep = tmp_path / "x" / "y" / "z"
    assert kanefem("eigen", "--out", deep).returncode == 0
    complete_set(deep)


def test_a_failed_run_creates_no_folders(tmp_path):
    # the parent folders a run made for its set are removed when it fails
    r = kanefem("windpump", "--modes", "100", "--out", tmp_path / "x" / "y")
    one_error_line(r, "--modes")
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------- windpump.toml re-runs the run


def test_a_run_from_its_windpump_toml_reproduces_its_tables(tmp_path):
    cfg = WindPump(M3=4.5).to_toml(tmp_path / "cfg.toml")
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    r = kanefem("windpump", "--config", cfg, "--rpm", "120", "--revolutions", "0.25", "--points", "48",
                "--modes", "3", "--elements", "6", "--no-eps", "--geometric-stiffness", "--response",
                "--no-plots", "--out", a)
    assert r.returncode == 0, r.stderr
    # windpump.toml holds the parameters and every option; the same computation from it gives
    # the same bytes (same inputs, deterministic code)
    r = kanefem("windpump", "--config", a / "windpump.toml", "--out", b)
    assert r.returncode == 0, r.stderr
    for name in CSVS | {"lever_response.csv", "windpump.toml"}:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    ma, mb = complete_set(a), complete_set(b)
    assert set(mb["files"]) == set(ma["files"])
    drop = ("config", "out")
    assert {k: v for k, v in ma["options"].items() if k not in drop} == \
        {k: v for k, v in mb["options"].items() if k not in drop}
    assert ma["kanefem"] == mb["kanefem"] and ma["options"]["eps"] is False
    assert WindPump.from_toml(b / "windpump.toml").params.M3 == 4.5
    # options given with --config override its [run] table (numbers and flags both ways)
    r = kanefem("windpump", "--config", a / "windpump.toml", "--rpm", "100", "--eps", "--no-response",
                "--out", c)
    assert r.returncode == 0, r.stderr
    run = _toml(c / "windpump.toml")["run"]
    assert (run["rpm"], run["eps"], run["response"], run["plots"]) == (100.0, True, False, False)
    assert (run["points"], run["modes"], run["elements"], run["geometric-stiffness"]) == (48, 3, 6, True)
    assert set(complete_set(c)["files"]) == CSVS | {"windpump.toml"}
    assert (c / "motion.csv").read_bytes() != (a / "motion.csv").read_bytes()  # 100 rpm, not 120


def _toml(path):
    try:
        import tomllib
    except ImportError:
        import tomli as tomllib
    with open(path, "rb") as f:
        return tomllib.load(f)


# ---------------------------------------------------------------- errors: one line, exit 2


@pytest.mark.parametrize("case", ["out-is-a-file", "out-under-a-file", "out-in-proc", "eigen-out-is-a-file",
                                  "config-missing", "config-is-a-folder"])
def test_os_errors_are_one_line(tmp_path, case):
    afile = tmp_path / "afile"
    afile.write_text("x")
    # the OS refuses these, to root too: a path under a regular file (ENOTDIR), /proc
    args, names = {
        "out-is-a-file": (["windpump", "--out", afile], ["--out", afile, "not a folder"]),
        "out-under-a-file": (["windpump", "--out", afile / "sub"], ["--out", afile / "sub", "is a file, not a folder"]),
        "out-in-proc": (["windpump", "--out", "/proc/kanefem-test"], ["--out", "/proc/kanefem-test"]),
        "eigen-out-is-a-file": (["eigen", "--out", afile], ["--out", afile]),
        "config-missing": (["windpump", "--config", tmp_path / "no.toml"], ["--config", "no.toml", "No such file"]),
        "config-is-a-folder": (["windpump", "--config", tmp_path], ["--config", tmp_path]),
    }[case]
    one_error_line(kanefem(*args, cwd=tmp_path), *names)
    assert os.listdir(tmp_path) == ["afile"] and afile.read_text() == "x"  # nothing written or left


@pytest.mark.parametrize("text, names", [
    ("l1 = \n", ["not valid TOML"]),
    ('[rocker]\nM3 = "heavy"\n', ["M3"]),
    ("zeta = 1\n", ["'zeta'"]),
    ("[wheel]\nr = 1\n", ["[wheel]"]),
    ("[run]\nrpms = 3\n", ["'rpms'"]),
    ("[run]\ngeometric_stiffness = true\n", ["'geometric_stiffness'"]),  # the option's spelling
    ("[run]\npoints = 3.5\n", ["points = 3.5", "integer"]),
    ("[run]\nrpm = true\n", ["rpm = True", "number"]),
    ("[run]\neps = 1\n", ["eps = 1", "true or false"]),
    ("[run]\nkanefem = 1\n", ["kanefem = 1"]),
])
def test_bad_config_files_are_one_line_naming_the_key(tmp_path, text, names):
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    one_error_line(kanefem("windpump", "--config", cfg, cwd=tmp_path), "--config", cfg, *names)
    assert os.listdir(tmp_path) == ["c.toml"]


@pytest.mark.parametrize("args, option", [
    (["windpump", "--points", "0"], "--points"),
    (["windpump", "--modes", "100"], "--modes"),
    (["windpump", "--elements", "0"], "--elements"),
    (["windpump", "--rpm", "-5"], "--rpm"),
    (["windpump", "--revolutions", "0"], "--revolutions"),
    (["eigen", "--length", "-1"], "--length"),
    (["eigen", "--supports", "glued"], "--supports"),
    (["eigen", "--modes", "0"], "--modes"),
])
def test_bad_option_values_name_the_option(tmp_path, args, option):
    # kanefem's ValueError names its argument (points_per_revolution, n_modes, ...); the
    # command line names the option that set it
    line = one_error_line(kanefem(*args, "--out", tmp_path / "o"), option)
    assert line.startswith(f"kanefem {args[0]}: error: {option}: ")
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------- pictures by default


def test_matplotlib_is_a_dependency_of_the_default_install():
    from importlib.metadata import requires

    # the README's first command (pip install . && python -m kanefem windpump) draws the
    # figures on a fresh machine only if a plain install brings matplotlib
    plain = [r for r in requires("kanefem") if "extra ==" not in r]
    assert any(r.startswith("matplotlib") for r in plain), plain
    assert any(r.startswith("matplotlib") and 'extra == "plot"' in r for r in requires("kanefem"))


def test_agg_backend_without_a_display(tmp_path):
    code = ("from kanefem.__main__ import _headless_matplotlib; _headless_matplotlib(); "
            "import matplotlib; print(matplotlib.get_backend())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV)
    assert r.stdout.strip().lower() == "agg", r.stderr


# ---------------------------------------------------------------- shipped examples (issue 16)


def _csv(path):
    import csv

    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    def number(text):
        try:
            return float(text)
        except ValueError:  # a name column (the link of sweep_frequencies.csv)
            return text

    return {name: [number(r[k]) for r in rows[1:]] for k, name in enumerate(rows[0])}


def test_examples_are_listed_and_copied_never_over_a_file(tmp_path):
    from kanefem.mechanism import EXAMPLES

    r = kanefem("examples")
    assert r.returncode == 0, r.stderr
    for name in EXAMPLES:  # one line each: the file and its description
        line = next(ln for ln in r.stdout.splitlines() if ln.startswith(f"{name}.toml"))
        assert len(line.split(None, 1)[1]) > 20, line
    dest = tmp_path / "mine"
    r = kanefem("examples", "--copy", dest)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in dest.iterdir()) == sorted(f"{n}.toml" for n in EXAMPLES)
    (dest / "four_bar.toml").write_text("# my edits\n")
    r = kanefem("examples", "--copy", dest)  # refused as a whole: nothing overwritten
    assert r.returncode == 2 and "would overwrite" in r.stderr and "four_bar.toml" in r.stderr
    assert (dest / "four_bar.toml").read_text() == "# my edits\n"
    r = kanefem("examples", "--copy", dest / "four_bar.toml")
    assert r.returncode == 2 and "not a folder" in r.stderr and len(r.stderr.splitlines()) == 1


def test_shipped_windpump_toml_reproduces_the_windpump_job(tmp_path):
    """python -m kanefem mechanism on the shipped windpump.toml gives the numbers of python -m
    kanefem windpump: the same equations (the wind pump is one general mechanism) from the
    same periodic state, so equal to round-off at the common instants (the windpump job's
    360 per turn, end excluded, are the mechanism job's first 360 of 361)."""
    from kanefem.mechanism import example

    a, b = tmp_path / "windpump", tmp_path / "mechanism"
    for args in (["windpump", "--out", a], ["mechanism", example("windpump"), "--out", b]):
        r = kanefem(*args, "--no-plots")
        assert r.returncode == 0, r.stderr
    # the windpump job's columns and the mechanism job's for the same quantity
    same = {"motion.csv": {"t_s": "t_s", "alpha_rad": "alpha_rad", "x_D_m": "x_D_m",
                           "omega1_rad_s": "alpha_rate_rad_s", "xdot_D_m_s": "x_D_rate_m_s",
                           "eps1_rad_s2": "alpha_acc_rad_s2", "xddot_D_m_s2": "x_D_acc_m_s2",
                           "motor_torque_Nm": "alpha_drive_Nm", "theta2_rad": "lever_angle_rad",
                           "theta3_rad": "rocker_angle_rad"},
            "joint_forces.csv": {**{f"F_{j}_{c}_N": f"F_{j}_{c}_N" for j in "ABCD" for c in "xy"},
                                 "N_guide_N": "F_guide_y_N", "lever_N0_N": "lever_N0_N"}}
    files = {name: (name, name) for name in same}
    files["eigenvalues"] = ("lever_eigenvalues.csv", "eigenvalues_lever.csv")
    same["eigenvalues"] = {k: k for k in _csv(a / files["eigenvalues"][0])}  # the same header
    for name, columns in same.items():
        first, second = _csv(a / files[name][0]), _csv(b / files[name][1])
        for ca, cb in columns.items():
            x, y = np.array(first[ca]), np.array(second[cb])
            assert x.size == 360 and y.size == 361, (name, ca)
            # round-off of the two routes' formulas (rtol 1e-12 of the column's size); an
            # other start (from rest at x_D0, the file before issue 16) differs by 7e-2 m in x_D
            np.testing.assert_allclose(y[:360], x, rtol=0, atol=1e-12 * max(np.abs(x).max(), 1e-300),
                                       err_msg=f"{name}: {ca} vs {cb}")


def test_four_bar_example_runs_two_way_with_its_elastic_coupler(tmp_path):
    """The coupler is a 20 x 8 mm steel flat bar, 0.3 m, pinned-pinned: its first bending
    frequency pi / (2 L^2) sqrt(E I / (rho A)) = 208.5 Hz; the two-way run converges and
    deflects it by a tenth of a millimetre at 300 rpm."""
    from kanefem.mechanism import example

    # one way without K_G (its axial force moves f1 by up to 6e-4 over the turn): the
    # frequency at rest plus the motion's softening only; the two-way run keeps the link's K_G
    r = kanefem("mechanism", example("four_bar"), "--two-way", "--no-geometric-stiffness", "--no-plots",
                "--out", tmp_path / "fb")
    assert r.returncode == 0, r.stderr
    E, rho, w, h, L = 210e9, 7850.0, 0.020, 0.008, 0.3
    f1 = math.pi / (2 * L * L) * math.sqrt(E * w * h**3 / 12 / (rho * w * h))
    eig = _csv(tmp_path / "fb" / "eigenvalues_coupler.csv")
    f = np.array(eig[next(k for k in eig if k.startswith("f") and "1" in k)])
    # 8 cubic elements: the discretisation error of the first mode is ~1e-6; the motion
    # (centrifugal softening at 31 rad/s) lowers it by < 1e-4
    assert np.all(np.abs(f / f1 - 1) < 2e-4), (f.min(), f.max(), f1)
    flex = _csv(tmp_path / "fb" / "flexible_motion.csv")
    v = np.array(flex["coupler_v_mid_m"])
    assert np.all(np.isfinite(v)) and 2e-5 < np.abs(v).max() < 1e-3  # 0.1 mm: elastic, small


def test_a_spatial_file_runs_two_way(tmp_path):
    """--two-way on a spatial file (the offset slider-crank, its rod of 4 Beam3D elements
    pinned-pinned, written by to_toml): flexible_motion.csv holds the rod's midspan
    deflection in and out of its plane, the two-way run's of the same model and instants
    in this process to round-off (the same computation: 1e-12 of the peak)."""
    from kanefem.mechanism import ConstantSpeed, Mechanism, file_run, spatial_slider_crank

    path = spatial_slider_crank(elements=4, rod_supports="pinned-pinned").to_toml(
        tmp_path / "ssc.toml", drives={"crank": {"drive": ConstantSpeed(150.0)}})
    r = kanefem("mechanism", path, "--two-way", "--no-plots", "--duration", 0.02, "--points", 21,
                "--out", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert "link rod: midspan deflection" in r.stdout
    flex = _csv(tmp_path / "out" / "flexible_motion.csv")
    m = Mechanism.from_toml(path)
    t, drives, z0, zd0 = file_run(m, 0.02, None, 21)
    fm = m.simulate_flexible(t, drives=drives, z0=z0, zd0=zd0, rho_inf=0.9)
    vw = fm.displacement("rod", 2)[:, 1:]
    np.testing.assert_allclose(np.column_stack([flex["rod_v_mid_m"], flex["rod_w_mid_m"]]), vw, rtol=0,
                               atol=1e-12 * np.abs(vw).max())
    assert np.abs(vw[:, 1]).max() > 1e-5  # the offset guide bends it out of the crank's plane


def test_mechanism_sweep_over_numbers_of_the_file_resumes_and_runs_again(tmp_path):
    """--sweep TABLE.ENTRY.KEY on the slider-crank example: the rod's first frequency goes
    as sqrt(E) (at rest pi / (2 L^2) sqrt(E d^2 / (16 rho)) for a round rod, pinned-pinned),
    the crank torque of the rigid motion at constant speed as speed^2 (the same crank
    angles at every speed: a turn in the same number of instants); a second run reads
    every point from the store, and the mechanism.toml it writes runs the sweep again."""
    from kanefem.mechanism import example

    out, store = tmp_path / "out", tmp_path / "store"
    args = ["mechanism", example("slider_crank"), "--sweep", "coordinate.crank.speed=100,200",
            "--sweep", "link.rod.E=1.9e11,2.1e11", "--points", "37", "--no-plots", "--store", store,
            "--no-geometric-stiffness"]  # the frequency at rest: K_G's axial force moves it by 5 %
    r = kanefem(*args, "--out", out)
    assert r.returncode == 0, r.stderr
    assert "4 computed" in r.stdout
    t = _csv(out / "sweep.csv")
    assert t["coordinate.crank.speed"] == [100, 100, 200, 200] and t["link.rod.E"] == [1.9e11, 2.1e11] * 2
    L, d, rho = 0.3, 0.006, 7870.0
    for E, f in zip(t["link.rod.E"], t["rod_f1_max_Hz"]):
        rest = math.pi / (2 * L * L) * math.sqrt(E * d * d / (16 * rho))
        assert abs(f / rest - 1) < 1e-3, (E, f, rest)  # the motion moves it by < 1e-3
    torque = t["crank_drive_max_N_m"]
    assert torque[2] / torque[0] == pytest.approx(4.0, rel=1e-9) and torque[0] == torque[1]
    freqs = _csv(out / "sweep_frequencies.csv")
    assert len(freqs["mode"]) == 4 * 2  # points x modes
    again = kanefem(*args, "--out", tmp_path / "again")
    assert again.returncode == 0 and "4 read from the store, 0 computed" in again.stdout, again.stderr
    rerun = kanefem("mechanism", out / "mechanism.toml", "--out", tmp_path / "rerun", "--store", store)
    assert rerun.returncode == 0 and "4 read from the store" in rerun.stdout, rerun.stderr
    assert (tmp_path / "rerun" / "sweep.csv").read_bytes() == (out / "sweep.csv").read_bytes()


@pytest.mark.parametrize("spec, text", [
    ("link.nope.E=1,2", "no [[link]] named 'nope' (it has 'rod')"),
    ("link.rod.colour=1,2", "expected TABLE.ENTRY.KEY"),
    ("link.rod.E", "expected NAME=START:STOP:COUNT"),
    ("link.rod.elements=2.5,3", "integers"),
])
def test_mechanism_sweep_errors_name_the_option(tmp_path, spec, text):
    from kanefem.mechanism import example

    r = kanefem("mechanism", example("slider_crank"), "--sweep", spec, "--out", tmp_path / "x")
    assert r.returncode == 2 and text in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    assert not (tmp_path / "x").exists()


def test_mechanism_animation_is_written(tmp_path):
    from kanefem.mechanism import example

    r = kanefem("mechanism", example("four_bar"), "--animate", "--no-plots", "--points", "13",
                "--out", tmp_path / "fb")
    assert r.returncode == 0, r.stderr
    gif = (tmp_path / "fb" / "mechanism.gif").read_bytes()
    assert gif[:6] in (b"GIF87a", b"GIF89a") and len(gif) > 10_000


def test_the_manifest_records_where_the_results_come_from(tmp_path):
    import datetime
    import platform
    from importlib.metadata import version

    import numpy

    import kanefem as kf

    out = tmp_path / "eig"
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    r = kanefem("eigen", "--out", out)
    assert r.returncode == 0, r.stderr
    after = datetime.datetime.now(datetime.timezone.utc)
    manifest = complete_set(out)
    # the run's date: ISO 8601 with its UTC offset, within the run
    date = datetime.datetime.fromisoformat(manifest["date"])
    assert date.utcoffset() == datetime.timedelta(0), manifest["date"]
    assert before <= date <= after, (before, manifest["date"], after)
    # the versions and the LAPACK route of the child process: the same installation as here
    # (LAPACK route: the child inherits KANEFEM_LAPACK_SOURCE, so it takes this process's)
    assert manifest["kanefem"] == kf.__version__
    assert manifest["python"] == platform.python_version()
    assert manifest["numpy"] == numpy.__version__
    assert manifest["scipy"] == version("scipy")
    assert manifest["lapack"] == kf.lapack_source()
    assert manifest["platform"] == platform.platform()
    assert manifest["job"] == "eigen"
