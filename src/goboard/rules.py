"""Rule sets: which ko rule and whether multi-stone suicide is allowed.

Both presets score by Tromp-Taylor area (stones plus empty regions that reach only one
colour) minus komi; they differ only in ko and suicide:

=============  ================================  ============================
preset         ko                                suicide
=============  ================================  ============================
tromp-taylor   positional superko                multi-stone suicide allowed
chinese        situational superko               forbidden
=============  ================================  ============================

Ko rules:

- ``simple``: a move may not retake a ko immediately (one stone captured by a single
  stone that is left with one liberty).
- ``positional``: a move may not recreate any earlier arrangement of stones.
- ``situational``: a move may not recreate an earlier arrangement of stones with the
  same player to move.

A suicide that would remove only the stone just played is illegal under every rule set:
it changes nothing on the board (it would repeat the position, and under ``simple`` it
would be a pass in disguise). Only multi-stone suicide is governed by ``suicide``.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

KO_RULES = ("simple", "positional", "situational")


@dataclass(frozen=True, slots=True)
class Rules:
    """A rule set: a ``ko`` rule and whether multi-stone ``suicide`` is allowed."""

    ko: str = "positional"
    suicide: bool = True

    def __post_init__(self) -> None:
        if self.ko not in KO_RULES:
            raise ValueError(f"ko must be one of {KO_RULES}, not {self.ko!r}")
        if not isinstance(self.suicide, bool):
            kind = type(self.suicide).__name__
            raise TypeError(f"suicide must be a bool, not {kind}")

    @property
    def name(self) -> str:
        """The preset name when these rules match one, else a descriptive string."""
        for name, rules in PRESETS.items():
            if rules == self:
                return name
        return f"ko={self.ko},suicide={'allowed' if self.suicide else 'forbidden'}"

    @classmethod
    def coerce(cls, rules: str | Rules) -> Rules:
        """Accept a preset name or a Rules value (what Board(rules=...) takes)."""
        if isinstance(rules, Rules):
            return rules
        if isinstance(rules, str):
            try:
                return PRESETS[rules.lower()]
            except KeyError:
                raise ValueError(
                    f"unknown rules {rules!r}; presets are {sorted(PRESETS)}"
                ) from None
        kind = type(rules).__name__
        raise TypeError(f"rules must be a preset name or Rules, not {kind}")


TROMP_TAYLOR = Rules(ko="positional", suicide=True)
CHINESE = Rules(ko="situational", suicide=False)
PRESETS = {"tromp-taylor": TROMP_TAYLOR, "chinese": CHINESE}


#: The largest komi (either sign) that the engine's commands and options take (GTP
#: ``komi``, ``--komi``): beyond it there is no game of Go left to play, as no board
#: has more than 361 points. Boards themselves take any finite komi.
MAX_KOMI = 1000.0


def check_komi(komi: object) -> float:
    """Return ``komi`` as a float if it is a finite real number, else raise."""
    if isinstance(komi, bool) or not isinstance(komi, numbers.Real):
        raise TypeError(f"komi must be a real number, not {type(komi).__name__}")
    try:
        value = float(komi)
    except OverflowError:  # an int beyond float range, e.g. 10**400
        raise ValueError("komi must be finite, not beyond float range") from None
    if not math.isfinite(value):
        raise ValueError(f"komi must be finite, not {value}")
    return value
