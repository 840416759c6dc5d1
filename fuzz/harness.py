"""Run a harness's `one_input(data: bytes)` under atheris, or replay files without it.

`python fuzz/fuzz_X.py [libFuzzer flags] [corpus dirs or crash files]` passes all to
libFuzzer (atheris), with a per-input time cap of 20 s unless `-timeout=` is given, so a
hang is reported as a finding rather than stalling the run. Without atheris the same
command replays the named files and corpus folders once each (a reproducer).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

try:
    import atheris
except ImportError:  # replay mode only: the test suite and plain installs
    atheris = None

CORPUS = Path(__file__).resolve().parent / "corpus"


def fuzzing() -> bool:
    """True when a harness runs as a script under atheris (not imported by tests)."""
    return atheris is not None and Path(sys.argv[0]).name.startswith("fuzz_")


def instrumented(
    exclude: tuple[str, ...] = (),
) -> contextlib.AbstractContextManager[Any]:
    """Import our packages inside this to give libFuzzer Python-level coverage of them.

    `exclude` names modules whose coverage is not worth its cost (an oracle, say): the
    instrumentation slows every Python line it touches several times over.
    """
    if fuzzing():
        return atheris.instrument_imports(
            include=["goboard", "search", "alphago"], exclude=list(exclude)
        )
    return contextlib.nullcontext()


def corpus_files(surface: str) -> Iterator[Path]:
    folder = CORPUS / surface
    yield from sorted(p for p in folder.iterdir() if p.is_file())


def main(one_input: Callable[[bytes], None], surface: str) -> None:
    args = sys.argv[1:]
    if atheris is not None:
        if not any(a.startswith("-timeout=") for a in args):
            args.append("-timeout=20")
        atheris.Setup([sys.argv[0], *args], one_input)
        atheris.Fuzz()
        return
    paths = [Path(a) for a in args if not a.startswith("-")] or [CORPUS / surface]
    count = 0
    for path in paths:
        for file in sorted(path.iterdir()) if path.is_dir() else [path]:
            one_input(file.read_bytes())
            count += 1
    print(f"replayed {count} inputs without atheris (pip install atheris to fuzz)")
