"""Build of kanefem's one extension module, kanefem._core, from csrc/.

LAPACK is found in this order:

1. ``KANEFEM_LAPACK`` names link flags, e.g. ``"-L/opt/openblas/lib -lopenblas"`` (conda,
   MKL, OpenBLAS); ``KANEFEM_LAPACK=none`` builds without a linked LAPACK;
2. ``pkg-config`` finds ``lapack`` (and ``blas``), e.g. Debian's ``liblapack-dev``;
3. otherwise the module is built without one and fills its LAPACK table at import
   from SciPy's ``scipy.linalg.cython_lapack`` capsules (the wheels: cibuildwheel sets
   ``KANEFEM_LAPACK=none``, so that a wheel needs no system library).

The run-time dependencies are declared in pyproject.toml, the same on every machine
whatever route the build took: SciPy among them always (the sparse solvers and the
capsule route need it).

Compiler flags follow the compiler type (gcc/clang or MSVC, class ``BuildExt``);
``KANEFEM_CFLAGS`` / ``KANEFEM_LDFLAGS`` add flags (CI uses them for the sanitizer build).
"""

import glob
import os
import shlex
import subprocess
import sys

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# the core (csrc/kf_*.c) and its binding (csrc/kf_python.c, csrc/kf_py_*.c)
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

# compiler flags by compiler type (build_ext knows it only when it runs): gcc and clang
# (Linux, macOS, MinGW) or MSVC (Windows); KANEFEM_CFLAGS / KANEFEM_LDFLAGS are added to
# either (CI's sanitizer build uses them)
COMPILE_FLAGS = {
    "unix": ["-std=c11", "-O3", "-Wall", "-Wextra", "-Wno-unused-parameter",
             "-Wno-missing-field-initializers"],  # {"name"} zero-fills the rest
    # /std:c11 needs Visual Studio 2019 16.8 or later; the core uses no VLA and no _Complex
    "msvc": ["/std:c11", "/O2", "/W3", "/D_CRT_SECURE_NO_WARNINGS"],
}


class BuildExt(build_ext):
    def build_extensions(self):
        kind = "msvc" if self.compiler.compiler_type == "msvc" else "unix"
        print("kanefem: compiler flags for", self.compiler.compiler_type, file=sys.stderr)
        for ext in self.extensions:
            ext.extra_compile_args = (COMPILE_FLAGS[kind] + ext.extra_compile_args
                                      + shlex.split(os.environ.get("KANEFEM_CFLAGS", "")))
            ext.extra_link_args = ext.extra_link_args + shlex.split(os.environ.get("KANEFEM_LDFLAGS", ""))
        super().build_extensions()


setup(
    ext_modules=[
        Extension(
            "kanefem._core",
            sources=SOURCES,
            include_dirs=[numpy.get_include(), "csrc"],
            define_macros=define_macros,
            libraries=libraries,
            library_dirs=library_dirs,
            extra_link_args=extra_link,
        )
    ],
    cmdclass={"build_ext": BuildExt},
)
