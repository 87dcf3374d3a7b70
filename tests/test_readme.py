"""The README's code blocks run as written, each after the install line the README gives for it.

An install line is a fenced block holding one command ``pip install TARGET`` (``.`` or
``".[extra]"``); the python blocks after it, up to the next install line, are one session a
reader types after running that line.  The quick test runs every block in this process; the
CI check (``KANEFEM_README_VENVS=1``, run by ``.ci/readme-blocks``) installs kanefem in a fresh
venv with exactly each distinct install line and runs its sessions there, so that a block that
needs an extra the line does not install fails (ImportError).  ``KANEFEM_README_WHEEL=PATH``
installs from that wheel instead of the repository (``.`` replaced by the wheel's path).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
INSTALL = re.compile(r"pip install (\S+)")


def sessions(text):
    """[(install line, [python blocks])] in the README's order; a python block before any
    install line is an error."""
    out = []
    for k, m in enumerate(FENCE.finditer(text)):
        lang, body = m.group(1), m.group(2)
        if lang == "python":
            if not out:
                raise AssertionError(f"README python block at character {m.start()} has no install line before it")
            out[-1][1].append(body)
        elif INSTALL.fullmatch(body.strip()) and len(body.strip().splitlines()) == 1:
            out.append((body.strip(), []))
    return out


def _readme():
    if not README.exists():
        pytest.skip("README.md not next to the tests")
    return README.read_text()


def test_quickstart_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", _readme(), re.S)
    assert len(blocks) >= 2, "README lacks its python quickstart blocks"
    namespace = {}
    for k, block in enumerate(blocks):  # one session, in order, as a reader would type them
        exec(compile(block, f"README python block {k + 1}", "exec"), namespace)
    out = capsys.readouterr().out
    assert "general" in out  # the quickstart's eps = 30 selects the general solver
    assert namespace["eig"].eigenvalues.shape == (namespace["motion"].t.shape[0], 2)


def test_every_python_block_follows_an_install_line_of_a_declared_extra():
    from kanefem._io import _tomllib

    text = _readme()
    found = sessions(text)
    assert sum(len(b) for _, b in found) == text.count("```python"), "a python block outside every session"
    extras = set(_tomllib().loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    for line, blocks in found:
        target = shlex.split(line)[2]
        m = re.fullmatch(r"\.(?:\[([\w,-]+)\])?", target)
        assert m, f"{line!r}: install kanefem from the repository ('.' or '.[extra]')"
        assert set(filter(None, (m.group(1) or "").split(","))) <= extras, f"{line!r}: an undeclared extra"
    # the sections whose blocks import an extra's package give that extra (issue 16)
    by_line = {line: "".join(b) for line, b in found}
    assert "to_dataframe" in by_line['pip install ".[dataframe]"']
    assert "write_modes" in by_line['pip install ".[mesh]"']
    plain = by_line["pip install ."]
    assert not any(call in plain for call in ("to_dataframe", "Mesh.read", "write_modes", "symbolic")), \
        "a block after the plain install needs an extra"


def _install_command(line, wheel):
    """The install line as a command; with a wheel, its '.' replaced by the wheel's path."""
    args = shlex.split(line)
    if wheel:
        args[2] = str(Path(wheel).resolve()) + args[2][1:]
    return args


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("KANEFEM_README_VENVS"),
                    reason="CI only (KANEFEM_README_VENVS=1, .ci/readme-blocks): fresh venvs, installs from PyPI")
def test_blocks_run_in_a_fresh_venv_after_exactly_their_install_line(tmp_path):
    found = sessions(_readme())
    wheel = os.environ.get("KANEFEM_README_WHEEL")
    # a copy of the repository to install from: pip builds in the tree, the source stays clean
    src = tmp_path / "kanefem"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", "build", "*.egg-info", "*.so",
                                                             "__pycache__", ".pytest_cache", ".hypothesis"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(MPLBACKEND="Agg", PIP_DISABLE_PIP_VERSION_CHECK="1")
    report = []
    for n, line in enumerate(dict.fromkeys(line for line, _ in found)):
        venv = tmp_path / f"venv{n}"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        py = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
        cmd = [str(py), "-m", *_install_command(line, wheel)]
        r = subprocess.run(cmd, cwd=src, env=env, capture_output=True, text=True, timeout=1800)
        assert r.returncode == 0, f"{line!r} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        installed = time.perf_counter() - start
        for k, (other, blocks) in enumerate(found):
            if other != line:
                continue
            script = tmp_path / f"session{k}.py"
            script.write_text("\n".join(blocks))
            work = tmp_path / f"work{k}"
            work.mkdir()
            r = subprocess.run([str(py), str(script)], cwd=work, env=env, capture_output=True, text=True,
                               timeout=1800)
            assert r.returncode == 0, (f"the {len(blocks)} README block(s) after {line!r} (session {k + 1}) "
                                       f"failed in a venv holding only that install:\n{r.stderr[-3000:]}")
        report.append(f"{line}: installed in {installed:.0f} s, blocks run in "
                      f"{time.perf_counter() - start - installed:.0f} s")
    print("\n".join(report))
