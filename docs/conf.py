"""Sphinx configuration of kanefem's documentation site.

Build (from the repository root; the output goes outside the source tree)::

    pip install ".[docs]"
    sphinx-build -W --keep-going -n -b html docs /tmp/kanefem-docs

``.ci/docs`` runs exactly this in CI.  The notebooks in ``notebooks/`` (reached through the
``docs/notebooks`` symlink) are executed by the build, in their own folder, so that they
read ``notebooks/data``; they write only into temporary folders.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the installed kanefem is documented; an in-place build (python setup.py build_ext
# --inplace) in src/ serves when kanefem is not installed
try:
    import kanefem  # noqa: F401
except ImportError:
    sys.path.insert(0, str(ROOT / "src"))
    import kanefem  # noqa: F401

project = "kanefem"
author = "kanefem developers"
release = kanefem.__version__
version = release
copyright = "kanefem developers"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",  # Markdown pages (myst-parser) and executed notebooks
]

root_doc = "index"
exclude_patterns = ["_build", "notebooks/data", "**/.ipynb_checkpoints"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# Markdown: $...$ and $$...$$ math (docs/theory.md), amsmath environments, ::: fences
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True

# Notebooks are stored as they are run by the tests; the site shows them as this build runs
# them, figures included.  A notebook that fails fails the build.
nb_execution_mode = os.environ.get("KANEFEM_DOCS_EXECUTE", "force")
# the kernels inherit this environment: MPLBACKEND=Agg (set by CI for the tests) would
# replace the notebooks' inline backend and leave the pages without their figures
os.environ.pop("MPLBACKEND", None)
# and write no bytecode into the tree (the mechanisms notebook imports bench/_exudyn_models)
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
nb_execution_timeout = 900
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

# API reference: the pages in docs/api/ list every public name (tests/test_docs.py checks it);
# autosummary only draws tables there and generates no files into the source tree.
autosummary_generate = False
# inherited members: a body's page lists FlexibleBody's methods, a result's the result
# contract (to_dict, to_dataframe, plot); the builtin exceptions' methods are left out
autodoc_default_options = {
    "members": True,
    "member-order": "bysource",
    "inherited-members": "object,BaseException,Exception,ValueError,TypeError,KeyError,LookupError,"
                         "ArithmeticError,OverflowError,FloatingPointError,RuntimeError,LinAlgError",
}
autodoc_member_order = "bysource"
# the numpydoc "Parameters" sections carry the types; signature annotations such as
# np.ndarray would be cross-references to NumPy, which this offline build cannot resolve
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

nitpicky = True
# third-party names the docstrings link: this build is offline (no intersphinx), so they
# cannot resolve; each one is listed, so that any other unresolved name fails the build
nitpick_ignore = [
    ("py:class", "pandas.DataFrame"),
    ("py:func", "sympy.diff"),
    ("py:func", "functools.partial"),
]

html_theme = "pydata_sphinx_theme"
html_title = f"kanefem {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
}
html_show_sourcelink = False
