"""Shared fixtures: Hypothesis profiles, a seeded ``rng`` and the ``impl`` under test.

Hypothesis profiles (choose with ``HYPOTHESIS_PROFILE=ci`` or pytest's
``--hypothesis-profile ci``; the command-line option wins):

- ``dev`` (default): 20 examples per test, quick.
- ``ci``: 200 examples per test, no deadline (shared CI machines are slow), no
  example database (CI runs in a fresh clone; nothing is written there).
- ``debug``: verbose output, to watch what Hypothesis tries.

``rng`` is seeded from ``GOBOARD_TEST_SEED`` (default :data:`DEFAULT_SEED`); its repr
shows the seed, so a failing test's report says how to reproduce it.

``impl`` is the Board class under test. Every test that takes it runs twice: on the
compiled ``goboard.Board`` (id ``c``) and on the pure-Python oracle
``goboard.reference.Board`` (id ``ref``).
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import Verbosity, settings

# The helper module ``rulecase`` sits beside this file; make it importable whatever
# pytest import mode is in use.
_TESTS_DIR = str(Path(__file__).resolve().parent)
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)

settings.register_profile("dev", max_examples=20)
settings.register_profile("ci", max_examples=200, deadline=None, database=None)
settings.register_profile("debug", verbosity=Verbosity.verbose)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

DEFAULT_SEED = 20240611


def _seed_from_env() -> int:
    raw = os.environ.get("GOBOARD_TEST_SEED", "")
    if not raw.strip():
        return DEFAULT_SEED
    try:
        return int(raw, 0)
    except ValueError:
        raise pytest.UsageError(
            f"GOBOARD_TEST_SEED must be an integer, not {raw!r}"
        ) from None


class SeededGenerator(np.random.Generator):
    """A numpy Generator that remembers its seed and shows it in its repr."""

    def __init__(self, bit_generator: np.random.BitGenerator, seed: int | None = None):
        super().__init__(bit_generator)
        self.seed = seed

    def __repr__(self) -> str:
        return f"SeededGenerator(seed={self.seed}, env GOBOARD_TEST_SEED={self.seed})"

    __str__ = __repr__


def make_rng(seed: int) -> SeededGenerator:
    """A fresh generator for ``seed`` (the same stream every time)."""
    return SeededGenerator(np.random.PCG64(seed), seed)


@pytest.fixture
def rng() -> SeededGenerator:
    """A numpy Generator seeded from GOBOARD_TEST_SEED (fixed default)."""
    return make_rng(_seed_from_env())


def pytest_report_header(config: pytest.Config) -> list[str]:
    profile = getattr(settings, "get_current_profile_name", lambda: "?")()
    return [
        f"goboard tests: GOBOARD_TEST_SEED={_seed_from_env()}, hypothesis={profile}"
    ]


#: Board implementations under test: pytest id -> module whose ``Board`` it is.
IMPLEMENTATIONS = {"c": "goboard", "ref": "goboard.reference"}


@pytest.fixture(params=list(IMPLEMENTATIONS))
def impl(request: pytest.FixtureRequest) -> type:
    """The Board class under test: the C-backed one ("c") or the reference ("ref")."""
    module = importlib.import_module(IMPLEMENTATIONS[request.param])
    return module.Board
