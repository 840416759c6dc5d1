"""Time management: how many seconds the next move may take.

Time systems (GTP ``time_settings`` and KGS ``kgs-time_settings``):

- *none*: no limit; the player's own simulation count decides (budget None).
- *absolute*: ``main`` seconds for the whole game.
- *canadian*: after ``main``, each period of ``byo_time`` seconds must cover
  ``byo_stones`` moves.
- *japanese*: after ``main``, ``byo_periods`` periods of ``byo_time`` seconds; a move
  finished within a period keeps it, an overrun uses it up.

The clock of each colour is tracked from the controller's ``time_left`` reports and,
between reports, from the time our own moves took. A move's budget is the main time
spread over the moves still expected (plus one move's byo-yomi share when there is
byo-yomi after it), or in byo-yomi the period's time divided by the stones left; then a
safety margin (network lag, process start-up) is taken off so that a move never
overruns the clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Clock", "TimeManager"]

#: Seconds kept back from every budget (transmission and controller lag).
LAG = 0.3
#: Fraction of every budget kept back.
SAFETY = 0.1
#: The smallest budget we ever return (the search stops after its first step anyway).
MIN_BUDGET = 0.05
#: Moves assumed left at least, whatever the board size and move number.
MIN_MOVES_LEFT = 10


@dataclass
class Clock:
    """One colour's clock."""

    main: float = 0.0  # seconds of main time left
    byo_left: float = 0.0  # seconds left in the current byo-yomi period
    stones: int = 0  # canadian: moves left in the period; japanese: periods left
    in_byo: bool = False


class TimeManager:
    """Time settings, both colours' clocks, and the per-move budget."""

    def __init__(self) -> None:
        self.system = "none"
        self.main = 0.0
        self.byo_time = 0.0
        self.byo_stones = 0  # canadian stones per period
        self.byo_periods = 0  # japanese periods
        self.clocks: dict[int, Clock] = {}

    def set_none(self) -> None:
        """No time limit."""
        self.system = "none"
        self.clocks = {}

    def set_absolute(self, main: float) -> None:
        self._set("absolute", main, 0.0, 0, 0)

    def set_canadian(self, main: float, byo_time: float, stones: int) -> None:
        self._set("canadian", main, byo_time, stones, 0)

    def set_japanese(self, main: float, byo_time: float, periods: int) -> None:
        self._set("japanese", main, byo_time, 0, periods)

    def set_gtp(self, main: float, byo_time: float, stones: int) -> None:
        """GTP ``time_settings``: byo_time > 0 with 0 stones means no limit."""
        if byo_time > 0 and stones == 0:
            self.set_none()
        elif byo_time == 0 or stones == 0:
            self.set_absolute(main)
        else:
            self.set_canadian(main, byo_time, stones)

    def _set(
        self, system: str, main: float, byo: float, stones: int, periods: int
    ) -> None:
        self.system = system
        self.main, self.byo_time = main, byo
        self.byo_stones, self.byo_periods = stones, periods
        self.clocks = {}

    def new_game(self) -> None:
        """Both clocks back to the full settings (a new game): the time the last
        game's moves took is not this game's."""
        self.clocks = {}

    def clock(self, colour: int) -> Clock:
        if colour not in self.clocks:
            self.clocks[colour] = Clock(main=self.main, stones=0, in_byo=False)
        return self.clocks[colour]

    def time_left(self, colour: int, seconds: float, stones: int) -> None:
        """A ``time_left`` report: ``stones`` 0 means main time, else byo-yomi with
        that many stones (canadian) or periods (japanese) left."""
        c = self.clock(colour)
        if stones == 0:
            c.main, c.in_byo, c.byo_left, c.stones = seconds, False, 0.0, 0
        else:
            c.main, c.in_byo, c.byo_left, c.stones = 0.0, True, seconds, stones

    def _has_byo(self) -> bool:
        return self.system in ("canadian", "japanese") and self.byo_time > 0

    def _byo_share(self) -> float:
        """Seconds one move may take in byo-yomi."""
        if self.system == "canadian":
            return self.byo_time / max(self.byo_stones, 1)
        if self.system == "japanese":
            return self.byo_time
        return 0.0

    def budget(self, colour: int, board_size: int, move_number: int) -> float | None:
        """Seconds for ``colour``'s next move, or None without a time limit."""
        if self.system == "none":
            return None
        c = self.clock(colour)
        if c.in_byo or (c.main <= 0 and self._has_byo()):
            if self.system == "canadian":
                left = c.byo_left if c.in_byo else self.byo_time
                stones = c.stones if c.in_byo and c.stones > 0 else self.byo_stones
                raw = left / max(stones, 1)
            else:  # japanese: a period is free as long as the move fits in it
                raw = c.byo_left if c.in_byo and c.byo_left > 0 else self.byo_time
            cap = raw
        else:
            moves_left = max(
                MIN_MOVES_LEFT, board_size * board_size // 3 - move_number // 2
            )
            raw = c.main / moves_left
            cap = c.main
            if self._has_byo():
                raw += self._byo_share()
                cap += self._byo_share()
        budget = min(raw, cap) * (1.0 - SAFETY) - LAG
        return max(MIN_BUDGET, budget) if math.isfinite(budget) else MIN_BUDGET

    def spent(self, colour: int, seconds: float) -> None:
        """Account a move of ``colour`` that took ``seconds``."""
        if self.system == "none":
            return
        c = self.clock(colour)
        if not c.in_byo:
            c.main -= seconds
            if c.main >= 0 or not self._has_byo():
                c.main = max(c.main, 0.0)
                return
            # Main time ran out during this move: the rest comes out of byo-yomi.
            seconds = -c.main
            c.main, c.in_byo = 0.0, True
            c.byo_left = self.byo_time
            c.stones = (
                self.byo_stones if self.system == "canadian" else self.byo_periods
            )
        if self.system == "canadian":
            c.byo_left -= seconds
            c.stones -= 1
            if c.stones <= 0:
                c.byo_left, c.stones = self.byo_time, self.byo_stones
        else:
            if seconds > self.byo_time:
                c.stones = max(c.stones - 1, 0)
            c.byo_left = self.byo_time
