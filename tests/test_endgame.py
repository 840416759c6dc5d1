"""Endgame play: when to pass, and never throwing a living group's eyes away."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest

import goboard
import search
from alphago.player import SearchPlayer, UCTPlayer, pass_rules
from goboard.text import parse

SIMULATIONS = [1, 8, 64, 512]
Maker = Callable[[int], UCTPlayer | SearchPlayer]


def uct(sims: int) -> UCTPlayer:
    return UCTPlayer(search.UCTConfig(num_simulations=sims), seed=3)


def puct(sims: int) -> SearchPlayer:
    config = search.SearchConfig(num_simulations=sims)
    return SearchPlayer(search.UniformEvaluator(), config, seed=3)


def after_white_pass(rows: str, komi: float) -> goboard.Board:
    """The position, Black to move, White having just passed."""
    stones = parse(rows)
    board = goboard.Board.from_stones(stones, goboard.WHITE, komi, "chinese")
    board.play(board.size * board.size)
    return board


# Black's wall and D2/D4 leave White's D3 in atari (liberty E3). As it stands White's
# stone makes C-E neutral: Black 13 - White 1 - komi 12.5 = W+0.5. Capturing wins.
CAPTURE = """
. X . . .
. X . X .
. X X O .
. X . X .
. X . . .
"""


@pytest.mark.parametrize("player", [uct, puct])
def test_a_won_position_after_the_opponents_pass_is_passed(player: Maker) -> None:
    board = after_white_pass(CAPTURE, komi=10.5)  # Black 13 - 1 - 10.5 = B+1.5
    assert board.score() > 0
    for sims in SIMULATIONS:
        assert player(sims).genmove(board).move == 25


@pytest.mark.parametrize("player", [uct, puct])
def test_a_lost_position_captures_the_dead_stone_instead_of_passing(
    player: Maker,
) -> None:
    board = after_white_pass(CAPTURE, komi=12.5)
    assert board.score() < 0  # passing now loses
    e3 = goboard.coords.from_gtp("E3", 5)
    for sims in SIMULATIONS:
        move = player(sims).genmove(board).move
        after = board.copy()
        after.play(move)
        assert after.score() > 0, sims  # a pass now would end it in Black's favour
        if sims >= 64:
            assert move == e3, sims


# Black's group has two single-point eyes (A1 and C1); the rest is open.
TWO_EYES = """
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
X X X X . . .
X X X X . . .
. X . X . . .
"""


@pytest.mark.parametrize("player", [uct, puct])
@pytest.mark.parametrize("to_pass", [False, True])
def test_own_eyes_are_never_searched(player: Maker, to_pass: bool) -> None:
    stones = parse(TWO_EYES)
    board = goboard.Board.from_stones(stones, goboard.BLACK, 7.5, "chinese")
    if to_pass:  # also after the opponent's pass, when the engine plays on
        board = goboard.Board.from_stones(stones, goboard.WHITE, 50.5, "chinese")
        board.play(49)
        assert board.score() < 0
    eyes = [goboard.coords.from_gtp(v, 7) for v in ("A1", "C1")]
    assert all(board.is_true_eye(e, goboard.BLACK) for e in eyes)
    for sims in SIMULATIONS:
        p = player(sims)
        result = p.genmove(board)
        assert result.move not in eyes
        assert result.visits[eyes].sum() == 0
        assert all(c.move not in eyes for c in p.candidates(result))


def test_filling_own_eyes_can_be_allowed() -> None:
    board = goboard.Board.from_stones(parse(TWO_EYES), 1, 7.5, "chinese")
    config = search.UCTConfig(num_simulations=400, fill_own_eyes=True)
    result = UCTPlayer(config, seed=3).genmove(board)
    eyes = [goboard.coords.from_gtp(v, 7) for v in ("A1", "C1")]
    assert result.visits[eyes].sum() > 0
    with pytest.raises(TypeError):
        search.UCTConfig(fill_own_eyes=1)  # type: ignore[arg-type]


def test_eye_masks_match_is_true_eye() -> None:
    rng = np.random.default_rng(5)
    board = goboard.Board(9)
    for _ in range(60):
        moves = board.legal_moves()[:-1]
        board.play(int(rng.choice(moves)))
    pool = goboard.Pool([board], 4)
    mask = pool.eye_masks([0])[0]
    expected = [
        board.stones().reshape(-1)[p] == 0 and board.is_true_eye(p, board.to_play)
        for p in range(81)
    ]
    assert mask[:81].tolist() == expected and not mask[81]


def test_pass_rules_after_the_opponents_pass() -> None:
    visits = np.zeros(26, dtype=np.int64)
    visits[[0, 14]] = [5, 2]
    result = search.SearchResult(
        visits=visits,
        q=np.zeros(26),
        pi=visits / 7,
        move=0,
        value=0.0,
        pv=[0],
        num_simulations=7,
    )
    won = after_white_pass(CAPTURE, komi=10.5)
    assert pass_rules(won, result).move == 25  # winning as it stands: pass
    lost = after_white_pass(CAPTURE, komi=12.5)
    chose_pass = dataclasses.replace(result, move=25)
    e3 = goboard.coords.from_gtp("E3", 5)
    # Losing as it stands: the move after which the board wins (the capture), even
    # though the search preferred A5; without such a move, the most visited one.
    assert pass_rules(lost, chose_pass).move == e3
    assert pass_rules(lost, result).move == e3
    hopeless = after_white_pass(CAPTURE, komi=30.5)
    assert pass_rules(hopeless, chose_pass).move == 0
    assert pass_rules(hopeless, result).move == 0
