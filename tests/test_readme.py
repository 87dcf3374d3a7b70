"""The README's quickstart runs as written."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_quickstart_runs(capsys):
    if not README.exists():
        pytest.skip("README.md not next to the tests")
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 2, "README lacks its python quickstart blocks"
    namespace = {}
    for k, block in enumerate(blocks):  # one session, in order, as a reader would type them
        exec(compile(block, f"README python block {k + 1}", "exec"), namespace)
    out = capsys.readouterr().out
    assert "general" in out  # the quickstart's eps = 30 selects the general solver
    assert namespace["eig"].eigenvalues.shape == (namespace["motion"].t.shape[0], 2)
