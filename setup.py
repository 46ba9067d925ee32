"""Build rankproof's compiled modules (every ``.pyx`` under ``src/rankproof``).

Metadata lives in pyproject.toml; this file only declares the extensions, so
that ``pip install .``, ``pip install -e .`` and ``python -m build`` all
compile them. Cython is a build dependency only: an installed rankproof
imports the compiled modules and never Cython.
"""

import os
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

SOURCE = Path("src")
# Modules whose loops are split between threads (OpenMP, cython.parallel.prange):
# each query or row writes only its own outputs, so the results do not depend on
# the number of threads.
OPENMP = {"rankproof._libs.ranked", "rankproof._libs.dense", "rankproof._libs.lists"}
# gcc's flag. Apple's clang has no OpenMP (without libomp) and MSVC spells it
# /openmp: elsewhere than Linux the same loops run on one thread (same results).
OPENMP_FLAGS = ["-fopenmp"] if sys.platform.startswith("linux") else []
# Eight modules of ~1.4 MB of C each: cythonizing (~8 s) and compiling (~30 s at -O3) are
# most of a fresh `pip install`, and they run one module at a time unless told otherwise.
# One job per core (RANKPROOF_BUILD_JOBS overrides) halves the build on two cores.
JOBS = int(os.environ.get("RANKPROOF_BUILD_JOBS") or os.cpu_count() or 1)


def _extensions() -> list[Extension]:
    modules = []
    for pyx in sorted(SOURCE.glob("rankproof/**/*.pyx")):
        name = ".".join(pyx.relative_to(SOURCE).with_suffix("").parts)
        # -O3 for the loops; no -march=native: a wheel must run on any x86-64.
        openmp = OPENMP_FLAGS if name in OPENMP else []
        # The .pxd files beside it (common.pxd: what the kernels share; its own
        # declarations): a change to one rebuilds it, and an sdist carries them.
        depends = [str(pxd) for pxd in sorted(pyx.parent.glob("*.pxd"))]
        modules.append(Extension(name, [str(pyx)], depends=depends, extra_compile_args=["-O3", *openmp],
                                 extra_link_args=openmp))
    return modules


setup(
    ext_modules=cythonize(
        _extensions(),
        language_level=3,
        # The Python layer validates; compiled loops trust their inputs.
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True,
                             "initializedcheck": False, "embedsignature": True},
        quiet=True,
        nthreads=JOBS if JOBS > 1 else 0,
    ),
    options={"build_ext": {"parallel": JOBS}},
)
