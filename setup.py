"""Build the one extension module, goboard._board (metadata lives in pyproject.toml).

Switches (environment variables read at build time):
  GOBOARD_DEBUG=1     -O0 -g, asserts on, Cython bounds checks, invariant checker after
                      every mutation (GB_PARANOID)
  GOBOARD_SANITIZE=1  AddressSanitizer + UndefinedBehaviorSanitizer
  GOBOARD_FUZZ=1      libFuzzer coverage counters for atheris (needs CC=clang; fuzz/README.md)
  GOBOARD_NATIVE=1    -march=native (never the default: wheels must run on other CPUs)
  GOBOARD_ANNOTATE=1  Cython's HTML annotation of _board.pyx
"""

import os
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup


def flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


debug, sanitize = flag("GOBOARD_DEBUG"), flag("GOBOARD_SANITIZE")
msvc = sys.platform == "win32"
compile_args = ["/std:c11"] if msvc else ["-std=c11"]
link_args: list[str] = []
macros: list[tuple[str, str | None]] = []
if debug and not msvc:
    compile_args += ["-O0", "-g", "-UNDEBUG", "-Wall", "-Wextra"]
    macros.append(("GB_PARANOID", "1"))
elif not msvc:
    compile_args += ["-O3", "-g0"]
if sanitize and not msvc:
    sanitizers = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"]
    compile_args += sanitizers + ["-fno-sanitize-recover=undefined"]
    link_args += sanitizers
if flag("GOBOARD_FUZZ") and not msvc:
    compile_args.append("-fsanitize=fuzzer-no-link")
    link_args.append("-fsanitize=fuzzer-no-link")
if flag("GOBOARD_NATIVE") and not msvc:
    compile_args.append("-march=native")

core = [
    "alphago_planes.c",
    "board.c",
    "check.c",
    "keyset.c",
    "ladder.c",
    "patterns.c",
    "planes.c",
    "playout.c",
    "pool.c",
    "rollout.c",
    "zobrist.c",
]
headers = [
    "alphago_planes.h",
    "gb_config.h",
    "board.h",
    "keyset.h",
    "ladder.h",
    "patterns.h",
    "planes.h",
    "playout.h",
    "pool.h",
    "rollout.h",
    "zobrist.h",
]
extension = Extension(
    "goboard._board",
    sources=["src/goboard/_board.pyx"] + [f"src/goboard/{name}" for name in core],
    depends=[f"src/goboard/{name}" for name in headers + ["cboard.pxd"]],
    include_dirs=["src/goboard"],
    define_macros=macros,
    extra_compile_args=compile_args,
    extra_link_args=link_args,
)

setup(
    ext_modules=cythonize(
        [extension],
        annotate=flag("GOBOARD_ANNOTATE"),
        compiler_directives={
            "language_level": 3,
            "boundscheck": debug,
            "wraparound": debug,
            "initializedcheck": debug,
            "cdivision": True,
            "embedsignature": True,
        },
    )
)
