"""The README's quickstart runs as written."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_quickstart_runs(capsys):
    if not README.exists():
        pytest.skip("README.md not next to the tests")
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "README has no python quickstart"
    exec(compile(blocks[0], "README quickstart", "exec"), {})
    out = capsys.readouterr().out
    assert "general" in out  # the quickstart's eps = 30 selects the general solver
