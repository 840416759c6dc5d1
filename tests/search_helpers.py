"""Helpers for the search tests: a deterministic fake evaluator, a slow reference PUCT
search over ``goboard.Board`` copies, and a random player."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import goboard
import search

Output = tuple[NDArray[np.float32], NDArray[np.float32]]


def fake_output(planes: NDArray[np.float32]) -> Output:
    """Deterministic priors and values from agz17 planes ``[B, 17, N, N]``.

    ``code`` mixes the stones of both colours; priors are ``1 + (7a + code) % 11``
    normalised over all actions (illegal ones included: the search masks them), values
    ``tanh(0.3 * (own - opponent stones) + 0.1 * (code % 7 - 3))``.
    """
    batch = planes.shape[0]
    own = planes[:, 0].reshape(batch, -1).astype(np.int64)
    opp = planes[:, 8].reshape(batch, -1).astype(np.int64)
    area = own.shape[1]
    weights = np.arange(1, area + 1, dtype=np.int64)
    code = own @ weights * 3 + opp @ (weights * weights)
    actions = np.arange(area + 1, dtype=np.int64)
    raw = 1.0 + (actions[None, :] * 7 + code[:, None]) % 11
    priors = (raw / raw.sum(axis=1, keepdims=True)).astype(np.float32)
    stones = own.sum(axis=1) - opp.sum(axis=1)
    values = np.tanh(0.3 * stones + 0.1 * (code % 7 - 3)).astype(np.float32)
    return priors, values


class FakeEvaluator:
    """:func:`fake_output` on ``pool.features``; counts calls and positions."""

    def __init__(self) -> None:
        self.calls = 0
        self.positions = 0

    def evaluate(self, positions: search.Positions) -> Output:
        self.calls += 1
        self.positions += len(positions)
        planes = positions.pool.features(positions.slots, "agz17")
        return fake_output(planes)


def board_output(board: goboard.Board) -> tuple[NDArray[np.float32], float]:
    """:func:`fake_output` for one Board."""
    priors, values = fake_output(board.features("agz17")[None])
    return priors[0], float(values[0])


def masked_priors(board: goboard.Board) -> tuple[NDArray[np.float32], float]:
    """The fake priors as the search stores them (float32, renormalised over the legal
    moves) and the value."""
    priors, value = board_output(board)
    legal = board.legal_mask()
    p = priors[None] * legal[None]
    p /= p.sum(axis=1, keepdims=True)
    return p[0], value


@dataclass
class RefNode:
    """A node of the reference search: W is from the chooser's view."""

    board: goboard.Board
    n: float = 0.0
    w: float = 0.0
    prior: NDArray[np.float32] | None = None
    legal: list[int] = field(default_factory=list)
    children: dict[int, RefNode] = field(default_factory=dict)


def _rules_value(board: goboard.Board) -> float:
    return float(np.sign(board.score())) * board.to_play


def _evaluate(node: RefNode) -> float:
    if node.board.is_over:
        return _rules_value(node.board)
    node.prior, value = masked_priors(node.board)
    node.legal = node.board.legal_moves()
    return value


def reference_puct(
    board: goboard.Board, simulations: int, c_puct: float, fpu_reduction: float
) -> RefNode:
    """PUCT written the slow, obvious way (one Board copy per node)."""
    root = RefNode(board.copy())
    root.n, root.w = 1.0, -_evaluate(root)
    for _ in range(simulations):
        node, path = root, [root]
        while True:
            if node.board.is_over:
                value = _rules_value(node.board)
                break
            assert node.prior is not None
            best, best_score = -1, -math.inf
            for a in node.legal:
                child = node.children.get(a)
                n = child.n if child else 0.0
                if n > 0:
                    assert child is not None
                    q = child.w / n
                else:
                    q = node.w / -node.n - fpu_reduction
                u = float(node.prior[a]) * (c_puct * math.sqrt(node.n)) / (n + 1.0) + q
                if u > best_score:
                    best, best_score = a, u
            if best not in node.children:
                child_board = node.board.copy()
                child_board.play(best)
                child = RefNode(child_board)
                node.children[best] = child
                path.append(child)
                value = _evaluate(child)
                break
            node = node.children[best]
            path.append(node)
        # value is from the leaf's side to move: the leaf's chooser gets -value.
        sign = -1.0
        for visited in reversed(path):
            visited.n += 1
            visited.w += sign * value
            sign = -sign
    return root


def random_move(board: goboard.Board, rng: np.random.Generator) -> int:
    """A uniformly random legal point that does not fill one of the mover's true eyes;
    pass when there is none."""
    me = board.to_play
    moves = [
        m
        for m in board.legal_moves()
        if m != board.size**2 and not board.is_true_eye(m, me)
    ]
    if not moves:
        return board.size**2
    return int(moves[int(rng.integers(len(moves)))])


def recorded(path: Path, switch: str, make: Callable[[], dict[str, Any]]) -> Any:
    """The cases recorded in the JSON file ``path``. With ``switch=1`` in the
    environment, ``make()`` records them anew (one case per line) and the test skips."""
    if os.environ.get(switch) == "1":
        cases = make()
        lines = [f"  {json.dumps(name)}: {json.dumps(cases[name])}" for name in cases]
        path.write_text("{\n" + ",\n".join(lines) + "\n}\n")
        pytest.skip(f"regenerated {path.name}")
    return json.loads(path.read_text())
