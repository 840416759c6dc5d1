"""Every fuzz harness (fuzz/fuzz_*.py) replays its committed seed corpus and random
bytes without failing: the harnesses' own checks hold on the code as it is, and a
harness that breaks on import or on an empty input is caught here, not in a long run."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FUZZ = Path(__file__).resolve().parent.parent / "fuzz"
HARNESSES = sorted(p.stem for p in FUZZ.glob("fuzz_*.py"))


def load(name: str) -> ModuleType:
    if str(FUZZ) not in sys.path:
        sys.path.insert(0, str(FUZZ))
    return importlib.import_module(name)


def test_every_harness_has_a_seed_corpus() -> None:
    assert HARNESSES, "no harnesses found"
    for name in HARNESSES:
        surface = name.removeprefix("fuzz_")
        seeds = list((FUZZ / "corpus" / surface).glob("*"))
        assert len(seeds) >= 3, (
            f"{name}: seed corpus fuzz/corpus/{surface} has {len(seeds)}"
        )


@pytest.mark.parametrize("name", HARNESSES)
def test_harness_replays_its_seed_corpus(name: str) -> None:
    module = load(name)
    harness = load("harness")
    for path in harness.corpus_files(name.removeprefix("fuzz_")):
        module.one_input(path.read_bytes())


@pytest.mark.parametrize("name", HARNESSES)
def test_harness_survives_random_bytes(name: str) -> None:
    module = load(name)

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.binary(max_size=512))
    def run(data: bytes) -> None:
        module.one_input(data)

    run()


def test_goboard_harness_catches_a_disagreement(monkeypatch) -> None:
    # A planted bug in one implementation must fail the harness on its seed corpus.
    from goboard import reference

    module, harness = load("fuzz_goboard"), load("harness")
    real = reference.Board.liberties
    monkeypatch.setattr(reference.Board, "liberties", lambda b, p: real(b, p) + 1)
    with pytest.raises(AssertionError):
        for path in harness.corpus_files("goboard"):
            module.one_input(path.read_bytes())
