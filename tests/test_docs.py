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
