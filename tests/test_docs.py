"""The repository explains itself: the theory is in docs/theory.md, and every citation of
it names a section that exists there.  The mathematics once lived in a file outside the
repository; a citation of that file (or of a section this one lacks) is a dead link for
every reader of the code."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
THEORY = ROOT / "docs" / "theory.md"
CITING = ("csrc", "src", "tests", "bench", "notebooks")
# the outside file's name, spelled so that this file does not cite it itself
OUTSIDE = "SPEC" + ".md"
# "docs/theory.md section 5", "... section 1.3", "... sections 1 and 4", "... sections 2, 3"
CITATION = re.compile(r"docs/theory\.md,?\s+sections?\s+(\d+(?:\.\d+)*(?:(?:\s*,\s*|\s+and\s+)\d+(?:\.\d+)*)*)")
HEADING = re.compile(r"^#{2,6}\s+(\d+(?:\.\d+)*)\.?\s+\S", re.MULTILINE)


def repository_files():
    files = [ROOT / "README.md"]
    for top in CITING:
        files += [p for p in sorted((ROOT / top).rglob("*"))
                  if p.is_file() and "__pycache__" not in p.parts and ".egg-info" not in str(p)
                  and p.suffix not in (".so", ".pyc", ".o", ".png", ".npz")]
    return files


def sections():
    return set(HEADING.findall(THEORY.read_text(encoding="utf-8")))


def cited(text):
    """The section numbers cited in text, in order."""
    return [n for m in CITATION.finditer(text) for n in re.split(r"\s*,\s*|\s+and\s+", m.group(1))]


def test_theory_has_the_numbered_sections():
    # numbered as the code has always cited them: 1 one element in a moving frame,
    # 2 elements, 3 assembly/constraints/eigenvalues, 4 integration, 5 wind pump,
    # 6 formalisms, 7 verification
    assert {str(k) for k in range(1, 8)} <= sections()


def test_the_citation_pattern_reads_every_form():
    text = ("(docs/theory.md section 5) docs/theory.md sections 1 and 4; "
            "docs/theory.md section 1.3 (x); docs/theory.md sections 2, 3.10 and 6")
    assert cited(text) == ["5", "1", "4", "1.3", "2", "3.10", "6"]


@pytest.mark.parametrize("path", repository_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_citation_of_a_file_outside_the_repository(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = [k + 1 for k, line in enumerate(text.splitlines()) if OUTSIDE in line]
    assert not lines, f"{path.relative_to(ROOT)} cites {OUTSIDE} (lines {lines}); cite docs/theory.md"


def test_every_cited_section_exists():
    have = sections()
    missing = []
    count = 0
    for path in repository_files():
        if path == Path(__file__).resolve():  # this file's examples are not citations
            continue
        for n in cited(path.read_text(encoding="utf-8", errors="replace")):
            count += 1
            if n not in have:
                missing.append(f"{path.relative_to(ROOT)}: section {n}")
    assert not missing, f"cited sections missing from docs/theory.md: {missing}"
    assert count >= 30  # the code does cite the theory (39 section numbers when this test was written)


# The documentation site (docs/, built by .ci/docs with Sphinx): its API reference is
# written as one autodoc directive per public name, so that no generated file lands in
# the source tree; this checks that no public name is left out of it.
API = ROOT / "docs" / "api"
DOCUMENTED_MODULES = ("kanefem", "kanefem.mechanism", "kanefem.studies", "kanefem.frames", "kanefem.symbolic")
DIRECTIVE = re.compile(r"^\.\.\s+(?:auto)?(module|currentmodule|class|exception|function|data|method|attribute)::\s+(\S+)",
                       re.MULTILINE)


def documented_names():
    """The qualified names the API pages describe (directive by directive, in page order)."""
    names = set()
    for page in sorted(API.glob("*.rst")):
        module = None
        for kind, name in DIRECTIVE.findall(page.read_text(encoding="utf-8")):
            if kind in ("module", "currentmodule"):
                module = name
                names.add(name)
            else:
                names.add(name if name.startswith("kanefem.") or module is None else f"{module}.{name}")
    return names


def resolve(qualified):
    """The object a qualified name stands for: the longest importable module prefix, then
    attributes (``kanefem.sweep.expand_grid``: ``kanefem.sweep`` is also a function's name)."""
    import importlib

    parts = qualified.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attr in parts[k:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(qualified)


def public_names(module):
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [n for n, v in vars(module).items()
            if not n.startswith("_") and getattr(v, "__module__", None) == module.__name__]


def test_the_api_pattern_reads_every_form():
    text = (".. module:: kanefem\n.. autoclass:: PlanarBeam\n.. data:: FRAME_DTYPE\n"
            ".. autofunction:: kanefem.sweep.expand_grid\n.. automodule:: kanefem.frames\n")
    assert DIRECTIVE.findall(text) == [("module", "kanefem"), ("class", "PlanarBeam"), ("data", "FRAME_DTYPE"),
                                       ("function", "kanefem.sweep.expand_grid"), ("module", "kanefem.frames")]


@pytest.mark.parametrize("module_name", DOCUMENTED_MODULES)
def test_every_public_name_is_in_the_api_reference(module_name):
    import importlib

    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:  # kanefem.symbolic needs SymPy (an extra)
        pytest.skip(f"{module_name}: {exc}")
    names = documented_names()
    # a name counts when the pages describe it under this module, or describe the same
    # object elsewhere (kanefem.Mechanism is documented as kanefem.mechanism.Mechanism)
    objects = {}
    for q in names:
        try:
            objects.setdefault(id(resolve(q)), q)
        except (ImportError, AttributeError):
            pass
    missing = []
    for name in public_names(module):
        obj = getattr(module, name)
        here = f"{module_name}.{name}"
        by_identity = not isinstance(obj, (str, int, float, tuple, dict, frozenset)) and id(obj) in objects
        if here not in names and not by_identity:
            missing.append(here)
    assert not missing, f"public names missing from docs/api/*.rst: {missing}"


def test_every_api_directive_names_an_object():
    broken = []
    for q in sorted(documented_names()):
        try:
            resolve(q)
        except (ImportError, AttributeError):
            if not q.startswith("kanefem.symbolic"):  # needs SymPy; the docs build has it
                broken.append(q)
    assert not broken, f"docs/api/*.rst describes names that do not exist: {broken}"


GUIDE = [p for p in sorted((ROOT / "docs" / "guide").glob("*.md")) if "```python" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("page", GUIDE, ids=lambda p: p.stem)
def test_guide_code_blocks_run(page, tmp_path, monkeypatch):
    """The user guide's own Python blocks run (the README's, which it includes, are
    run by tests/test_readme.py)."""
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    namespace = {}
    try:
        for k, block in enumerate(blocks):
            exec(compile(block, f"{page.name} python block {k + 1}", "exec"), namespace)
    finally:
        plt.close("all")
