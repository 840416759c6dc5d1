"""Root move filters: the ``avoid`` / ``allow`` of analysis GUIs, inside the search.

Leela Zero's ``lz-analyze`` and KataGo's ``kata-analyze`` take ``avoid COLOUR
VERTICES UNTIL_DEPTH`` and ``allow COLOUR VERTICES UNTIL_DEPTH``: for the first
``until_depth`` moves of every line the search reads (depth 1 is the root's move, 2
the reply, ...), moves by ``colour`` may not be the listed ones (avoid) or must be
among them (allow). Deeper in the tree every legal move is searched as usual.

A filtered move is treated like an illegal one when the node gets its priors: it gets
no prior and no visit. If the filters leave a node without any move, pass stays
allowed there (a node must have a move), so an ``allow`` list that names only occupied
points makes the search pass.

Glossary: *depth* of a node is the number of moves from the root to it (the root is
0); the node chooses the move at depth + 1, so a filter applies to nodes of depth
< ``until_depth``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["MoveFilter", "filter_legal"]


@dataclass(frozen=True, slots=True)
class MoveFilter:
    """One ``avoid`` or ``allow`` clause.

    Attributes:
        colour: 1 (black) or -1 (white): whose moves it restricts.
        moves: points (``row * N + col``; ``N * N`` is pass).
        until_depth: the first this many moves of each line (>= 1).
        allow: True: only ``moves`` may be played; False: ``moves`` may not.
    """

    colour: int
    moves: tuple[int, ...]
    until_depth: int
    allow: bool = False

    def __post_init__(self) -> None:
        if self.colour not in (1, -1) or isinstance(self.colour, bool):
            raise ValueError(f"colour must be 1 or -1, not {self.colour!r}")
        if isinstance(self.until_depth, bool) or not isinstance(self.until_depth, int):
            raise TypeError("until_depth must be an int")
        if self.until_depth < 1:
            raise ValueError(f"until_depth must be >= 1, not {self.until_depth}")
        for m in self.moves:
            if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 0:
                raise ValueError(f"moves must be points >= 0, not {m!r}")


def filter_legal(
    legal: NDArray[np.bool_],
    depth: NDArray[np.int64],
    to_play: NDArray[np.int8],
    filters: Sequence[MoveFilter],
) -> NDArray[np.bool_]:
    """The legal masks [B, A] with the filters applied (a new array).

    Args:
        legal: bool [B, A], A = N*N + 1, pass last.
        depth: int [B]: each node's depth below the root.
        to_play: int8 [B]: the colour to move at each node.
        filters: the clauses; each applies where its colour is to move and depth <
            its ``until_depth``.
    """
    out = legal.copy()
    actions = legal.shape[1]
    for f in filters:
        rows = np.flatnonzero((to_play == f.colour) & (depth < f.until_depth))
        if rows.size == 0:
            continue
        listed = np.zeros(actions, dtype=np.bool_)
        points = [m for m in f.moves if m < actions]
        listed[points] = True
        out[rows] &= listed if f.allow else ~listed
    empty = ~out.any(axis=1)
    if empty.any():  # nothing left: pass, where the rules allow it
        out[empty, actions - 1] = legal[empty, actions - 1]
    return out
