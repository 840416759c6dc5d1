"""A slow, independent definition of the pattern rollout features (the test oracle).

Everything here is written from the definitions in ``goboard.pattern_features`` and
``patterns.h`` with plain Python and numpy: the states of the points around a move, the
classes of 3x3 patterns as orbits under the 8 symmetries of the square, the liberties
after a move by actually playing it on a board with suicide allowed.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
from numpy.typing import NDArray

import goboard
from goboard import pattern_features as pf

ORTH = [(-1, 0), (0, -1), (0, 1), (1, 0)]
DIAG = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
DIAMOND = [
    (-2, 0), (-1, -1), (-1, 0), (-1, 1), (0, -2), (0, -1),
    (0, 1), (0, 2), (1, -1), (1, 0), (1, 1), (2, 0),
]  # fmt: skip
SYMMETRIES: list[Callable[[int, int], tuple[int, int]]] = [
    lambda r, c: (r, c),
    lambda r, c: (-r, c),
    lambda r, c: (r, -c),
    lambda r, c: (-r, -c),
    lambda r, c: (c, r),
    lambda r, c: (-c, r),
    lambda r, c: (c, -r),
    lambda r, c: (-c, -r),
]
SIMPLE = goboard.Rules(ko="simple", suicide=True)


@cache
def pat3_classes() -> NDArray[np.int64]:
    """Class of every raw 3x3 code: rank of the least code of its orbit."""
    codes = np.arange(6**4 * 4**4)
    orth = [(codes // 256) // 6 ** (3 - i) % 6 for i in range(4)]
    diag = [(codes % 256) // 4 ** (3 - i) % 4 for i in range(4)]
    least = codes.copy()
    for sym in SYMMETRIES:
        o = [orth[ORTH.index(sym(*pos))] for pos in ORTH]
        d = [diag[DIAG.index(sym(*pos))] for pos in DIAG]
        code = (((o[0] * 6 + o[1]) * 6 + o[2]) * 6 + o[3]) * 256
        code = code + d[0] * 64 + d[1] * 16 + d[2] * 4 + d[3]
        least = np.minimum(least, code)
    _, ranks = np.unique(least, return_inverse=True)
    return ranks


def _at(stones: NDArray[np.int8], r: int, c: int) -> int | None:
    n = stones.shape[0]
    return int(stones[r, c]) if 0 <= r < n and 0 <= c < n else None


def pat3_raw(board: goboard.Board, point: int) -> int:
    stones = board.stones()
    n, me = board.size, board.to_play
    r0, c0 = divmod(point, n)
    code = 0
    for dr, dc in ORTH:
        x = _at(stones, r0 + dr, c0 + dc)
        if x is None:
            s = 1
        elif x == 0:
            s = 0
        else:
            atari = board.liberties((r0 + dr) * n + c0 + dc) == 1
            s = (2 if x == me else 4) + int(atari)
        code = code * 6 + s
    low = 0
    for dr, dc in DIAG:
        x = _at(stones, r0 + dr, c0 + dc)
        s = 1 if x is None else (0 if x == 0 else (2 if x == me else 3))
        low = low * 4 + s
    return code * 256 + low


def response_bucket(board: goboard.Board, prev: int, point: int) -> int:
    stones = board.stones()
    n, me = board.size, board.to_play
    pr, pc = divmod(prev, n)
    r, c = divmod(point, n)
    states = []
    for dr, dc in DIAMOND:
        x = _at(stones, pr + dr, pc + dc)
        states.append(3 if x is None else (0 if x == 0 else (1 if x == me else 2)))
    centre = min(board.liberties(prev), 3)
    where = DIAMOND.index((r - pr, c - pc))
    keys = []
    for sym in SYMMETRIES:
        key = centre << 24
        for i, pos in enumerate(DIAMOND):
            key |= states[i] << (2 * DIAMOND.index(sym(*pos)))
        key |= DIAMOND.index(sym(*DIAMOND[where])) << 26
        keys.append(key)
    best = min(keys)
    return ((best * 0x9E3779B97F4A7C15) % 2**64) >> 48


def true_eye(stones: NDArray[np.int8], r: int, c: int, me: int) -> bool:
    for dr, dc in ORTH:
        x = _at(stones, r + dr, c + dc)
        if x is not None and x != me:
            return False
    enemy = off = 0
    for dr, dc in DIAG:
        x = _at(stones, r + dr, c + dc)
        off |= x is None
        enemy += x == -me
    return enemy + off < 2


def after_move(board: goboard.Board, point: int) -> tuple[int, int]:
    """(liberties of the move's string, stones captured) if the side to move plays
    ``point`` under simple ko with suicide allowed (liberties 0: suicide)."""
    trial = goboard.Board.from_stones(board.stones(), board.to_play, rules=SIMPLE)
    before = int((trial.stones() == -board.to_play).sum())
    try:
        trial.play(point)
    except goboard.IllegalMoveError:
        return 0, 0
    captured = before - int((trial.stones() == -board.to_play).sum())
    return trial.liberties(point), captured


def features(board: goboard.Board) -> set[tuple[int, int]]:
    """{(point, feature index)} of every candidate move of the side to move (none
    once the game is over)."""
    if board.is_over:
        return set()
    stones = board.stones()
    n, me = board.size, board.to_play
    prev = board.last_move
    if prev == n * n:
        prev = None
    classes = pat3_classes()
    out: set[tuple[int, int]] = set()
    for point in range(n * n):
        r, c = divmod(point, n)
        if stones[r, c] != 0 or point == board.ko_point or true_eye(stones, r, c, me):
            continue
        libs, captured = after_move(board, point)
        if libs == 0:
            continue
        feats = [pf.PAT3 + int(classes[pat3_raw(board, point)])]
        if captured:
            feats.append(pf.CAPTURE)
        if libs == 1:
            feats.append(pf.SELF_ATARI)
        in_atari = any(
            _at(stones, r + dr, c + dc) == me
            and board.liberties((r + dr) * n + c + dc) == 1
            for dr, dc in ORTH
        )
        if in_atari and libs >= 2:
            feats.append(pf.SAVE_ATARI)
        if prev is not None:
            pr, pc = divmod(prev, n)
            if (r - pr, c - pc) in DIAMOND:
                feats.append(pf.RESPONSE + response_bucket(board, prev, point))
                if max(abs(r - pr), abs(c - pc)) == 1:
                    feats.append(pf.NEAR_PREVIOUS)
        out.update((point, f) for f in feats)
    return out
