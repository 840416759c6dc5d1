"""Slow, plain Python definitions of the AlphaGo 2016 input planes: the test oracle.

:func:`alphago_planes` rebuilds the ``alphago48`` / ``alphago49`` planes of planes.h
from a list of stone arrays, the side to move and a legal mask, by simulating every
move on a Python list with flood fills. Nothing here is fast or shared with the C
writer, so differential tests compare the C planes against the definitions.

Terms: the *mover* is the side to move. A *read* is one ladder question, answered by
playing moves on copies: inside a read, moves obey simple ko and forbid suicide.

- Ladder capture at ``p``: an opponent string touching ``p`` has exactly 2 liberties;
  after the mover plays ``p`` it has 1, and no defence works. The defender's
  candidates, tried in ascending point order, are its last liberty and the liberty of
  every attacker string in atari that touches it. A candidate saves the string if it
  then has 3 or more liberties, or exactly 2 and every attacker atari (on either
  liberty, ascending) is answered by a saving candidate again.
- Ladder escape at ``p``: an own string touching ``p`` has 1 liberty (``p``); after the
  move it has 3 or more liberties, or exactly 2 and no ladder captures it.
- A read that plays more than :data:`LADDER_NODES` moves or goes :data:`LADDER_DEPTH`
  plies deep stops: the ladder counts as failing for the attacker (no capture, an
  escape). Moves whose outcome is clear without the position after them are not
  played, so they do not count: an atari after which the other liberty surely gives
  3 liberties (:func:`surely_escapes`), and defender moves leaving other than 2.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .constants import BLACK, EMPTY

LADDER_NODES = 2000
LADDER_DEPTH = 160
HISTORY = 8


class _Stop(Exception):
    """A read hit one of its caps."""


class _Geometry:
    def __init__(self, size: int) -> None:
        self.size = size
        self.nbrs: list[list[int]] = []
        self.diagonals: list[list[int]] = []
        for p in range(size * size):
            row, col = divmod(p, size)
            self.nbrs.append(
                [
                    r * size + c
                    for r, c in (
                        (row - 1, col),
                        (row + 1, col),
                        (row, col - 1),
                        (row, col + 1),
                    )
                    if 0 <= r < size and 0 <= c < size
                ]
            )
            self.diagonals.append(
                [
                    r * size + c
                    for r, c in (
                        (row - 1, col - 1),
                        (row - 1, col + 1),
                        (row + 1, col - 1),
                        (row + 1, col + 1),
                    )
                    if 0 <= r < size and 0 <= c < size
                ]
            )

    def string(self, stones: list[int], p: int) -> set[int]:
        colour, seen, todo = stones[p], {p}, [p]
        while todo:
            for q in self.nbrs[todo.pop()]:
                if stones[q] == colour and q not in seen:
                    seen.add(q)
                    todo.append(q)
        return seen

    def liberties(self, stones: list[int], p: int) -> set[int]:
        return {
            q
            for s in self.string(stones, p)
            for q in self.nbrs[s]
            if stones[q] == EMPTY
        }

    def play(
        self, stones: list[int], p: int, colour: int
    ) -> tuple[list[int], int, int | None]:
        """Stones after ``colour`` plays the empty ``p`` (captures, then suicide), the
        number of opponent stones captured and the new simple-ko point."""
        new = list(stones)
        new[p] = colour
        captured: set[int] = set()
        for q in self.nbrs[p]:
            if new[q] == -colour and not self.liberties(new, q):
                captured |= self.string(new, q)
        for q in captured:
            new[q] = EMPTY
        mine = self.string(new, p)
        libs = self.liberties(new, p)
        if not libs:
            for q in mine:
                new[q] = EMPTY
        ko = None
        if len(captured) == 1 and len(mine) == 1 and len(libs) == 1:
            ko = next(iter(captured))
        return new, len(captured), ko

    def is_true_eye(self, stones: list[int], p: int, colour: int) -> bool:
        """The playout rule: all neighbours ``colour``; opposing diagonals at most one
        in the middle, none on the edge."""
        if stones[p] != EMPTY or any(stones[q] != colour for q in self.nbrs[p]):
            return False
        enemy = sum(stones[q] == -colour for q in self.diagonals[p])
        edge = len(self.diagonals[p]) < 4
        return enemy + edge < 2


class _Reader:
    """One ladder read: positions are (stones, ko point, colour to move)."""

    def __init__(self, geo: _Geometry) -> None:
        self.geo = geo
        self.nodes = 0

    def play(
        self, pos: tuple[list[int], int | None, int], p: int, depth: int
    ) -> tuple[list[int], int | None, int] | None:
        stones, ko, colour = pos
        if stones[p] != EMPTY or p == ko:
            return None
        new, _, new_ko = self.geo.play(stones, p, colour)
        if new[p] == EMPTY:  # suicide
            return None
        if self.nodes >= LADDER_NODES or depth >= LADDER_DEPTH:
            raise _Stop
        self.nodes += 1
        return new, new_ko, -colour

    def attack(
        self, pos: tuple[list[int], int | None, int], depth: int, target: int
    ) -> bool:
        libs = self.geo.liberties(pos[0], target)
        for lib in sorted(libs):
            # An atari the defender surely escapes is judged without being played,
            # so it costs no node (module docstring).
            if len(libs) == 2 and surely_escapes(self.geo, pos[0], target, lib):
                continue
            nxt = self.play(pos, lib, depth)
            if nxt is None or len(self.geo.liberties(nxt[0], target)) != 1:
                continue
            if not self.defend(nxt, depth + 1, target):
                return True
        return False

    def defend(
        self, pos: tuple[list[int], int | None, int], depth: int, target: int
    ) -> bool:
        stones = pos[0]
        candidates = self.geo.liberties(stones, target)
        for s in self.geo.string(stones, target):
            for q in self.geo.nbrs[s]:
                if stones[q] == -stones[target]:
                    libs = self.geo.liberties(stones, q)
                    if len(libs) == 1:
                        candidates |= libs
        for move in sorted(candidates):
            # Only a move leaving exactly 2 liberties is played (and counted).
            if move == pos[1]:
                continue
            after, _, _ = self.geo.play(stones, move, pos[2])
            if after[move] == EMPTY:  # suicide
                continue
            libs = len(self.geo.liberties(after, target))
            if libs >= 3:
                return True
            if libs < 2:
                continue
            nxt = self.play(pos, move, depth)
            if nxt is not None and not self.attack(nxt, depth + 1, target):
                return True
        return False


def surely_escapes(geo: _Geometry, stones: list[int], target: int, atari: int) -> bool:
    """True if, after the attacker plays ``atari`` (one of the two liberties of the
    string at ``target``), extending at the other liberty surely gives 3 or more: its
    empty neighbours and the liberties of the other defender strings touching it,
    both liberties excluded, make 3 already. Such ataris are not played in a read."""
    string = geo.string(stones, target)
    (other,) = geo.liberties(stones, target) - {atari}
    libs = {q for q in geo.nbrs[other] if stones[q] == EMPTY}
    for q in geo.nbrs[other]:
        if stones[q] == stones[target] and q not in string:
            libs |= geo.liberties(stones, q)
    return len(libs - {atari, other}) >= 3


def _start(stones: list[int], colour: int) -> tuple[list[int], int | None, int]:
    # The first move's legality (ko included) is the caller's legal mask.
    return stones, None, colour


def ladder_captures(
    geo: _Geometry, stones: list[int], move: int, target: int, colour: int
) -> bool:
    """True if ``colour`` playing ``move`` captures the string at ``target`` (on 2
    liberties before the move) in a ladder."""
    if surely_escapes(geo, stones, target, move):
        return False
    reader = _Reader(geo)
    try:
        nxt = reader.play(_start(stones, colour), move, 0)
        if nxt is None or len(geo.liberties(nxt[0], target)) != 1:
            return False
        return not reader.defend(nxt, 1, target)
    except _Stop:
        return False


def ladder_escapes(
    geo: _Geometry, stones: list[int], move: int, target: int, colour: int
) -> bool:
    """True if ``colour`` playing ``move`` (the last liberty of its string at
    ``target``) saves that string from a ladder."""
    reader = _Reader(geo)
    try:
        nxt = reader.play(_start(stones, colour), move, 0)
        if nxt is None:
            return False
        libs = len(geo.liberties(nxt[0], target))
        if libs != 2:
            return libs >= 3
        return not reader.attack(nxt, 1, target)
    except _Stop:
        return True


def alphago_planes(
    record: Sequence[npt.ArrayLike],
    to_play: int,
    legal: npt.ArrayLike,
    kind: str = "alphago48",
) -> npt.NDArray[np.uint8]:
    """The ``alphago48`` or ``alphago49`` planes [C, N, N] as uint8.

    Args:
        record: stone arrays N x N of the game, oldest first; the last is the position.
            Positions before it that are missing count as "before the record".
        to_play: the mover, BLACK (1) or WHITE (-1).
        legal: bool [N*N + 1], the mover's legal moves under the game's rules.
        kind: "alphago48" or "alphago49".
    """
    if kind not in ("alphago48", "alphago49"):
        raise ValueError(f"unknown kind {kind!r}")
    arrays = [np.asarray(s) for s in record]
    size = arrays[-1].shape[0]
    points = size * size
    stones = [int(v) for v in arrays[-1].ravel()]
    back = [[int(v) for v in s.ravel()] for s in arrays[::-1][:HISTORY]]
    allowed = np.asarray(legal, dtype=bool)
    geo = _Geometry(size)
    own, opp = to_play, -to_play
    planes = np.zeros((48 if kind == "alphago48" else 49, points), dtype=np.uint8)
    planes[3] = 1
    if kind == "alphago49":
        planes[48] = to_play == BLACK
    for p in range(points):
        colour = stones[p]
        if colour != EMPTY:
            planes[0 if colour == own else 1, p] = 1
            age = 8
            for k in range(1, HISTORY):
                if k >= len(back):
                    break
                if back[k][p] != colour:
                    age = k
                    break
            planes[4 + age - 1, p] = 1
            planes[12 + min(len(geo.liberties(stones, p)), 8) - 1, p] = 1
            continue
        planes[2, p] = 1
        if not allowed[p]:
            continue
        after, captured, _ = geo.play(stones, p, own)
        libs = len(geo.liberties(after, p)) if after[p] == own else 0
        size_after = len(geo.string(after, p)) if after[p] == own else 0
        planes[20 + min(captured, 7), p] = 1
        if libs == 1:
            planes[28 + min(size_after, 8) - 1, p] = 1
        if libs >= 1:
            planes[36 + min(libs, 8) - 1, p] = 1
        nearby = {q for q in geo.nbrs[p] if stones[q] != EMPTY}
        planes[44, p] = any(
            stones[q] == opp
            and len(geo.liberties(stones, q)) == 2
            and ladder_captures(geo, stones, p, q, own)
            for q in nearby
        )
        planes[45, p] = any(
            stones[q] == own
            and len(geo.liberties(stones, q)) == 1
            and ladder_escapes(geo, stones, p, q, own)
            for q in nearby
        )
        planes[46, p] = not geo.is_true_eye(stones, p, own)
    return planes.reshape(-1, size, size)
