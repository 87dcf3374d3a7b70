"""Build of kanefem's one extension module, kanefem._core, from csrc/.

LAPACK is found in this order:

1. ``KANEFEM_LAPACK`` names link flags, e.g. ``"-L/opt/openblas/lib -lopenblas"`` (conda,
   MKL, OpenBLAS); ``KANEFEM_LAPACK=none`` builds without a linked LAPACK;
2. ``pkg-config`` finds ``lapack`` (and ``blas``), e.g. Debian's ``liblapack-dev``;
3. otherwise the module is built without one and fills its LAPACK table at import
   from SciPy's ``scipy.linalg.cython_lapack`` capsules; SciPy then becomes a
   run-time dependency of the built package.

Run-time dependencies: NumPy, matplotlib (the main job's figures), SciPy as above.

``KANEFEM_CFLAGS`` adds compiler flags (CI uses it for the sanitizer build).
"""

import glob
import os
import shlex
import subprocess
import sys

import numpy
from setuptools import Extension, setup

# the core (csrc/kf_*.c) and its binding (csrc/kf_python.c)
SOURCES = sorted(glob.glob("csrc/kf_*.c"))


def pkg_config(*packages):
    """Link flags from pkg-config, or None if it or the packages are missing."""
    try:
        out = subprocess.run(
            ["pkg-config", "--libs", *packages], check=True, capture_output=True, text=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return shlex.split(out)


def find_lapack():
    env = os.environ.get("KANEFEM_LAPACK")
    if env is not None:
        if env.strip().lower() in ("", "none", "scipy"):
            return None, "none (KANEFEM_LAPACK=%s): SciPy's LAPACK at import" % env
        return shlex.split(env), "KANEFEM_LAPACK=%s" % env
    flags = pkg_config("lapack", "blas") or pkg_config("lapack")
    if flags:
        return flags, "pkg-config: " + " ".join(flags)
    return None, "none found: SciPy's LAPACK at import"


lapack_flags, lapack_note = find_lapack()
print("kanefem: LAPACK:", lapack_note, file=sys.stderr)

define_macros = [("NPY_TARGET_VERSION", "NPY_1_22_API_VERSION")]
libraries, library_dirs, extra_link = [], [], []
if lapack_flags:
    define_macros.append(("KF_HAVE_LAPACK", "1"))
    for f in lapack_flags:
        if f.startswith("-l"):
            libraries.append(f[2:])
        elif f.startswith("-L"):
            library_dirs.append(f[2:])
        else:
            extra_link.append(f)

extra_compile = ["-std=c11", "-O3", "-Wall", "-Wextra", "-Wno-unused-parameter",
                 "-Wno-missing-field-initializers"]  # {"name"} zero-fills the rest
extra_compile += shlex.split(os.environ.get("KANEFEM_CFLAGS", ""))
extra_link += shlex.split(os.environ.get("KANEFEM_LDFLAGS", ""))

# matplotlib: the main job (python -m kanefem windpump) draws its PNG figures by default;
# tomli: --config reads TOML, in the standard library (tomllib) from Python 3.11; tomli-w writes it
install_requires = ["numpy>=1.22", "matplotlib>=3.5", "tomli-w>=1.0", 'tomli>=1.1; python_version < "3.11"']
if not lapack_flags:
    install_requires.append("scipy>=1.9")

setup(
    ext_modules=[
        Extension(
            "kanefem._core",
            sources=SOURCES,
            include_dirs=[numpy.get_include(), "csrc"],
            define_macros=define_macros,
            libraries=libraries,
            library_dirs=library_dirs,
            extra_compile_args=extra_compile,
            extra_link_args=extra_link,
        )
    ],
    install_requires=install_requires,
)
