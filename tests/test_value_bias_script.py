"""scripts/value_bias.py: a value head's view of its own engine's side, per move."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch
from scripts_helpers import load_script

import goboard
from alphago.sgf import GameRecord

vb = load_script("value_bias")
B, W = goboard.BLACK, goboard.WHITE
MOVES = [(B, 12), (W, 6), (B, 18), (W, 8)]  # 5x5: C3, B4, D2, D4


def record(black: str, white: str, result: str | None, moves=MOVES) -> GameRecord:
    r = GameRecord(size=5, komi=0.5, moves=list(moves), result=result)
    r.players = {B: black, W: white}
    return r


def test_the_player_is_found_by_name_on_either_colour() -> None:
    assert vb.player_colour(record("alphago 0.17", "GNU Go", "B+R"), "alphago") == B
    assert vb.player_colour(record("GNU Go", "alphago 0.17", "B+R"), "alphago") == W
    assert vb.player_colour(record("GNU Go", "Pachi", "B+R"), "alphago") is None
    assert vb.player_colour(record("alphago a", "alphago b", "B+R"), "alphago") is None


def test_positions_keep_decided_games_long_enough_from_the_players_side() -> None:
    records = [
        record("alphago", "GNU Go", "B+3.5"),  # ours Black, won
        record("GNU Go", "alphago", "B+R"),  # ours White, lost
        record("alphago", "GNU Go", None),  # no result: left out
        record("alphago", "GNU Go", "W+R", MOVES[:2]),  # too short: left out
        record("GNU Go", "Pachi", "W+R"),  # not ours: left out
    ]
    boards, colours, outcomes = vb.positions(records, "alphago", 3)
    assert [b.move_number for b in boards] == [3, 3]
    assert boards[0].stones().reshape(-1)[18] == B and boards[0].to_play == W
    assert colours.tolist() == [B, W]
    assert outcomes.tolist() == [1.0, -1.0]


def test_bias_reads_black_view_values_from_the_players_side() -> None:
    black_view = np.array([0.5, 0.5, -0.2, 0.9])
    colours = np.array([B, W, W, B], np.float64)
    outcomes = np.array([1.0, -1.0, -1.0, -1.0])
    b = vb.bias(100, black_view, colours, outcomes)
    assert b.positions == 4
    assert b.mean_value == pytest.approx((0.5 - 0.5 + 0.2 + 0.9) / 4)
    assert b.says_ahead == pytest.approx(0.75)  # all but the second
    assert b.won == pytest.approx(0.25)
    assert b.right == pytest.approx(0.5)  # the first two


def test_ownership_margins_are_blacks_less_komi() -> None:
    """A head that gives every point to the side to move: Black to move reads
    25 - komi for Black, White to move -25 - komi."""

    class Net:
        config = SimpleNamespace(input_planes="agz17")

        def heads(self, x: torch.Tensor, score: bool = True) -> SimpleNamespace:
            return SimpleNamespace(ownership_logit=torch.full((x.shape[0], 5, 5), 20.0))

    black_to_move = goboard.Board(5, 7.5)
    white_to_move = goboard.Board(5, 7.5)
    white_to_move.play(12)
    margins = vb.ownership_margins(Net(), [black_to_move, white_to_move])
    assert margins.tolist() == pytest.approx([25 - 7.5, -25 - 7.5])


def test_net_values_turn_the_side_to_move_view_into_blacks() -> None:
    """A head that always says "the side to move is ahead by 0.5" reads +0.5 for
    Black with Black to move and -0.5 with White to move."""

    class Net:
        config = SimpleNamespace(input_planes="agz17")

        def heads(self, x: torch.Tensor, score: bool = True) -> SimpleNamespace:
            return SimpleNamespace(value=torch.full((x.shape[0], 1), 0.5))

    black_to_move = goboard.Board(5)
    white_to_move = goboard.Board(5)
    white_to_move.play(12)
    values = vb.net_values(Net(), [black_to_move, white_to_move])
    assert values.tolist() == [0.5, -0.5]
