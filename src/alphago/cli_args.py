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
from collections.abc import Callable

from goboard import MAX_SIZE, MIN_SIZE

__all__ = ["at_least", "board_size", "finite", "positive"]


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


def board_size(text: str) -> int:
    """A board size the rules core plays (``goboard.MIN_SIZE`` .. ``MAX_SIZE``)."""
    value = at_least(MIN_SIZE)(text)
    if value > MAX_SIZE:
        raise argparse.ArgumentTypeError(
            f"must be in {MIN_SIZE}..{MAX_SIZE}, not {value}"
        )
    return value


def finite(text: str) -> float:
    """A finite float (komi, a learning rate: nan and inf would poison every sum)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite, not {text}")
    return value


def positive(text: str) -> float:
    """A finite float > 0 (seconds)."""
    value = finite(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, not {text}")
    return value
