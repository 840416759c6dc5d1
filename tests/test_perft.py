"""Perft: leaf counts of the legal-move tree, pinned in tests/data/perft.json.

The C counter (goboard.perft) must match the pinned numbers, and for the cases marked
``reference`` a plain recursive count over goboard.reference must match them too, so the
pins are not just a record of what the C code once said. The benchmarks assert the
same file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import goboard
from goboard import reference

CASES = json.loads((Path(__file__).parent / "data" / "perft.json").read_text())["cases"]


def build(cls: type, case: dict) -> goboard.Board:
    rules = goboard.Rules(ko=case["ko"], suicide=case["suicide"])
    board = cls(case["size"], rules=rules)
    for vertex in case["moves"]:
        board.play_gtp(vertex)
    return board


def reference_perft(board: reference.Board, depth: int) -> int:
    """Count leaves by making every legal move: slow and obvious."""
    if depth == 0:
        return 1
    if depth == 1:
        return len(board.legal_moves())
    total = 0
    for move in board.legal_moves():
        child = board.copy()
        child.play(int(move))
        total += reference_perft(child, depth - 1)
    return total


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_c_perft_matches_pinned(case: dict) -> None:
    assert goboard.perft(build(goboard.Board, case), case["depth"]) == case["leaves"]


REFERENCE_CASES = [c for c in CASES if c["reference"]]


@pytest.mark.parametrize(
    "case", REFERENCE_CASES, ids=[c["name"] for c in REFERENCE_CASES]
)
def test_reference_perft_matches_pinned(case: dict) -> None:
    board = build(reference.Board, case)
    assert reference_perft(board, case["depth"]) == case["leaves"]


def test_ko_rules_change_the_count() -> None:
    """On 2x2 the repetition rules bite within a few moves: three different counts."""
    counts = {c["ko"]: c["leaves"] for c in CASES if c["name"].startswith("2x2-empty-")}
    assert len({counts["simple"], counts["positional"], counts["situational"]}) == 3


def test_perft_small_depths_and_state() -> None:
    board = goboard.Board(9)
    assert goboard.perft(board, 0) == 1
    assert goboard.perft(board, 1) == 82
    board.play(81)
    board.play(81)
    assert goboard.perft(board, 1) == 0  # the game is over
    before = goboard.Board(5)
    board = before.copy()
    goboard.perft(board, 3)
    assert board == before and board.move_number == 0
    board._check_invariants()


def test_perft_bad_arguments() -> None:
    with pytest.raises(TypeError):
        goboard.perft("board", 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        goboard.perft(goboard.Board(5), -1)
    with pytest.raises(TypeError):
        goboard.perft(goboard.Board(5), 1.5)  # type: ignore[arg-type]


@pytest.mark.parametrize("depth", [65, 1500, 2**29 + 5, 2**31 - 1])
def test_perft_depth_beyond_the_cap_is_refused_at_once(depth: int) -> None:
    # 1500 overflowed the C stack; 2**29..2**30 looped forever sizing the key set.
    board = goboard.Board(9, rules="chinese")
    with pytest.raises(ValueError, match="depth"):
        goboard.perft(board, depth)
    finished = goboard.Board(2)
    finished.play(4)
    finished.play(4)
    assert goboard.perft(finished, goboard.MAX_PERFT_DEPTH) == 0
    with pytest.raises(ValueError, match="depth"):
        goboard.perft(finished, goboard.MAX_PERFT_DEPTH + 1)
