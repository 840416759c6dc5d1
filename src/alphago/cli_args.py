"""Argparse types for the ``alphago`` command's numbers.

A value refused here is refused while the command line is read, naming the flag,
before anything is loaded, printed or started: a match's progress bar, a benchmark's
first lines or an engine's banner never appear for a command that cannot run.
Limits that depend on other options (a Gumbel count that needs ``--search gumbel``)
stay with the configs those options fill.
"""

from __future__ import annotations

import argparse
import math
import os
import threading
from collections.abc import Callable

from goboard import MAX_SIZE, MIN_SIZE
from goboard.rules import MAX_KOMI

__all__ = [
    "MAX_BATCH",
    "MAX_BLOCKS",
    "MAX_FILTERS",
    "MAX_SIMULATIONS",
    "MAX_THREADS",
    "at_least",
    "board_size",
    "finite",
    "in_range",
    "komi",
    "memory_mb",
    "positive",
    "seed",
    "threads",
]

#: More threads than this cannot help, and torch crashes on some huge counts.
MAX_THREADS = 1024
#: Simulations a move: beyond this a tree would not fit in any machine's memory.
MAX_SIMULATIONS = 10_000_000
#: A network's residual blocks and filters: the limits ``alphago.nets.NetConfig``
#: checks (repeated here so that a command refuses them before it starts).
MAX_BLOCKS = 1000
MAX_FILTERS = 4096
#: Positions per network call: a batch beyond this would not fit in memory.
MAX_BATCH = 4096


def at_least(low: int) -> Callable[[str], int]:
    """An int >= ``low`` (a 0 or negative count would loop or mean nothing; upper
    limits are checked by the configs the options fill)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, not {value}")
        return value

    return parse


def in_range(low: int, high: int) -> Callable[[str], int]:
    """An int in ``low .. high``."""

    def parse(text: str) -> int:
        value = at_least(low)(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"must be in {low}..{high}, not {value}")
        return value

    return parse


#: A board size the rules core plays (``goboard.MIN_SIZE`` .. ``MAX_SIZE``).
board_size = in_range(MIN_SIZE, MAX_SIZE)
#: A random seed (numpy's generators take any int >= 0).
seed = at_least(0)
#: Threads for torch or for rollouts.
threads = in_range(1, MAX_THREADS)


def memory_mb(text: str) -> int:
    """Megabytes, at least 1 and at most this machine's memory (a tree sized beyond
    it would be killed for memory at the first search, not refused)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):  # no such figure on this system
        total = 2**40
    return in_range(1, int(total))(text)


def finite(text: str) -> float:
    """A finite float (komi, a learning rate: nan and inf would poison every sum)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite, not {text}")
    return value


def komi(text: str) -> float:
    """A komi within ``goboard.rules.MAX_KOMI`` either way, as GTP ``komi`` takes."""
    value = finite(text)
    if abs(value) > MAX_KOMI:
        raise argparse.ArgumentTypeError(
            f"must be in -{MAX_KOMI:g}..{MAX_KOMI:g}, not {text}"
        )
    return value


def positive(text: str) -> float:
    """Seconds: a finite float > 0, no longer than a thread can wait
    (``threading.TIMEOUT_MAX``)."""
    value = finite(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, not {text}")
    if value > threading.TIMEOUT_MAX:
        raise argparse.ArgumentTypeError(
            f"must be at most {threading.TIMEOUT_MAX:g} seconds, not {text}"
        )
    return value
