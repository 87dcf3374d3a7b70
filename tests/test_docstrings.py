"""The Examples in the docstrings run and print what they say."""

import doctest
import importlib
import pkgutil

import pytest

import kanefem

MODULES = ["kanefem"] + [
    f"kanefem.{m.name}" for m in pkgutil.iter_modules(kanefem.__path__) if not m.name.startswith("_")
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # an optional extra (e.g. sympy) is missing
        pytest.skip(f"{name}: {exc}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
