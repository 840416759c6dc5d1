"""Exceptions of goboard (pure Python, so stubs and other packages can import them)."""

from __future__ import annotations

#: Every reason an otherwise well-formed move can be refused.
REASONS = ("occupied", "suicide", "ko", "superko", "off-board", "game over")


class IllegalMoveError(ValueError):
    """A move the rules forbid; ``reason`` is one of :data:`REASONS`."""

    def __init__(self, reason: str, move: object = None) -> None:
        if reason not in REASONS:
            raise ValueError(f"unknown illegal-move reason {reason!r}")
        self.reason = reason
        self.move = move
        where = "" if move is None else f" at {move!r}"
        super().__init__(f"illegal move{where}: {reason}")
