"""Fill the C core's LAPACK table at import.

The core calls LAPACK through a table of function pointers.  If the extension was
linked against a LAPACK at build time (Debian's liblapack-dev through pkg-config, or
the library named by ``KANEFEM_LAPACK``), the table points there.  Otherwise it is
filled from SciPy's ``scipy.linalg.cython_lapack`` / ``cython_blas`` capsules, the
route numba uses, so that ``pip install .`` works with PyPI alone.

Setting the environment variable ``KANEFEM_LAPACK_SOURCE=scipy`` before import
uses SciPy's LAPACK even in a linked build (to compare the two).
"""

import os

from . import _core


def _from_scipy():
    try:
        import scipy
        import scipy.linalg.cython_blas as cython_blas
        import scipy.linalg.cython_lapack as cython_lapack
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError(
            "kanefem was built without a system LAPACK, so it uses SciPy's, but SciPy "
            "cannot be imported. Install it (pip install scipy), or rebuild kanefem with "
            "a LAPACK: apt-get install liblapack-dev, or KANEFEM_LAPACK='-L<dir> -l<lib>'."
        ) from exc
    _core.set_lapack_capsules(
        cython_lapack.__pyx_capi__, cython_blas.__pyx_capi__, "scipy " + scipy.__version__
    )


def init():
    """Install a LAPACK in the core, once; return where it came from."""
    if _core.lapack_source() is None:
        want = os.environ.get("KANEFEM_LAPACK_SOURCE", "").strip().lower()
        if _core.lapack_linked() and want != "scipy":
            _core.use_linked_lapack()
        else:
            _from_scipy()
    return _core.lapack_source()
