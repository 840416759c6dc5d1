"""The in-process arena (alphago.train.arena): tiny 5x5 matches with 2x8 nets."""

from __future__ import annotations

import math

import pytest
from nets_helpers import tiny_net

import goboard
import search
from alphago.nets import PolicyValueNet
from alphago.nets.precision import default_precision
from alphago.sgf import GameRecord, replay
from alphago.train.arena import ArenaResult, Contestant, play_arena

SIZE = 5
PASS = SIZE * SIZE


def net(seed: int = 0) -> PolicyValueNet:
    return tiny_net(SIZE, blocks=2, filters=8, seed=seed)


@pytest.fixture(scope="module")
def match() -> ArenaResult:
    """Net (2 sims) against UCT (20 sims), 6 games."""
    a = Contestant.net("net", net(), 2)
    b = Contestant.uct("uct", 20)
    return play_arena(a, b, 6, size=SIZE, seed=3)


def moves(result: ArenaResult) -> list[list[tuple[int, int]]]:
    return [r.moves for r in result.records]


def test_colours_alternate(match: ArenaResult) -> None:
    for i, record in enumerate(match.records):
        a_colour = goboard.BLACK if i % 2 == 0 else goboard.WHITE
        assert record.players == {a_colour: "net", -a_colour: "uct"}
        assert record.moves[0][0] == goboard.BLACK


def test_counts_add_up(match: ArenaResult) -> None:
    assert len(match.records) == match.games == 6
    assert match.wins + match.losses + match.ties == 6
    assert match.win_rate == pytest.approx((match.wins + 0.5 * match.ties) / 6)
    assert match.elo().games == 6
    assert match.elo().score == pytest.approx(match.win_rate)
    assert (match.a, match.b) == ("net", "uct")
    assert sum(match.moves) == sum(len(r.moves) for r in match.records)
    assert all(s > 0 and math.isfinite(s) for s in match.seconds_per_move)
    assert "net vs uct" in match.describe()


def _a_points(record: GameRecord, a_colour: int) -> float:
    score = replay(record, "chinese").score()
    if score == 0:
        return 0.5
    return 1.0 if (score > 0) == (a_colour == goboard.BLACK) else 0.0


def test_results_are_tromp_taylor_of_the_replayed_records(match: ArenaResult) -> None:
    points = 0.0
    for i, record in enumerate(match.records):
        board = replay(record, "chinese")  # raises on an illegal move
        assert record.result == board.result()
        assert record.size == SIZE and record.komi == 7.5 and record.rules == "chinese"
        assert board.is_over or len(record.moves) == 2 * SIZE * SIZE
        points += _a_points(record, goboard.BLACK if i % 2 == 0 else goboard.WHITE)
    assert points == match.wins + 0.5 * match.ties


def test_records_alternate_colours_and_never_pass_while_open(
    match: ArenaResult,
) -> None:
    for record in match.records:
        board = goboard.Board(SIZE, record.komi, "chinese")
        for colour, point in record.moves:
            assert colour == board.to_play
            if point == PASS and board.last_move != PASS:
                others = [
                    m
                    for m in board.legal_moves()
                    if m != PASS and not board.is_true_eye(m, colour)
                ]
                assert not others, f"passed with {others} open"
            board.play(point)


def test_games_differ(match: ArenaResult) -> None:
    openings = {tuple(r.moves[:4]) for r in match.records}
    assert len(openings) > 1


def test_deterministic_per_seed() -> None:
    a = Contestant.net("a", net(0), 3)
    b = Contestant.net("b", net(1), 3)
    first = play_arena(a, b, 4, size=SIZE, seed=7)
    again = play_arena(a, b, 4, size=SIZE, seed=7)
    other = play_arena(a, b, 4, size=SIZE, seed=8)
    assert moves(first) == moves(again)
    assert [r.result for r in first.records] == [r.result for r in again.records]
    assert moves(first) != moves(other)


@pytest.mark.parametrize("kind", ["net", "uct"])
def test_lock_step_equals_one_game_at_a_time(kind: str) -> None:
    # In fp32: under bf16 (the default on CPUs with AMX or AVX512-BF16) the numbers
    # depend on the batch's size, since calls below 4 rows run in fp32, so moves can
    # differ.
    a = (
        Contestant.net("a", net(0), 4, precision="fp32")
        if kind == "net"
        else Contestant.uct("a", 12)
    )
    b = Contestant.net("b", net(1), 2, precision="fp32")
    together = play_arena(a, b, 5, size=SIZE, seed=11)
    single = play_arena(a, b, 5, size=SIZE, seed=11, parallel_games=1)
    pairs = play_arena(a, b, 5, size=SIZE, seed=11, parallel_games=2)
    assert moves(together) == moves(single) == moves(pairs)
    assert (together.wins, together.losses) == (single.wins, single.losses)


def test_net_against_itself_is_the_same_code_path_for_a_and_b() -> None:
    # Same net and settings under two names: a game depends on colours, not on
    # which contestant is called A, so swapping A and B replays the same moves.
    model = net(2)
    x = Contestant.net("x", model, 3)
    y = Contestant.net("y", model, 3)
    xy = play_arena(x, y, 4, size=SIZE, seed=5)
    yx = play_arena(y, x, 4, size=SIZE, seed=5)
    assert moves(xy) == moves(yx)
    assert (xy.wins, xy.losses, xy.ties) == (yx.wins, yx.losses, yx.ties)
    assert [r.players[goboard.BLACK] for r in xy.records] == ["x", "y", "x", "y"]
    assert [r.players[goboard.BLACK] for r in yx.records] == ["y", "x", "y", "x"]
    same = play_arena(x, x, 2, size=SIZE, seed=5)
    assert moves(same) == moves(xy)[:2]


def test_uct_with_many_simulations_beats_a_random_net() -> None:
    strong = Contestant.uct("uct", 200)
    weak = Contestant.net("net", net(), 1)
    result = play_arena(strong, weak, 8, size=SIZE, seed=1)
    assert result.wins >= 6, result.describe()


def test_progress_and_model_mode() -> None:
    model = net()
    model.train()
    seen: list[tuple[int, int]] = []
    a = Contestant.net("a", model, 1, random_moves=0)
    play_arena(
        a,
        Contestant.uct("u", 2),
        3,
        size=SIZE,
        parallel_games=2,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert model.training  # restored after the match


def test_contestant_configs() -> None:
    c = Contestant.net(
        "n", net(), 7, config=search.SearchConfig(dirichlet_fraction=0.25)
    )
    assert isinstance(c.config, search.SearchConfig)
    assert c.simulations == 7 and c.config.dirichlet_fraction == 0.0
    assert c.config.temperature == 0.0 and c.random_moves == 4
    u = Contestant.uct("u", 9, random_moves=0)
    assert isinstance(u.config, search.UCTConfig) and u.simulations == 9
    with pytest.raises(TypeError):
        Contestant("n", search.SearchConfig())
    with pytest.raises(ValueError):
        Contestant("u", search.UCTConfig(), net())
    with pytest.raises(ValueError):
        Contestant.uct("u", 9, random_moves=-1)


def test_bad_arguments() -> None:
    a = Contestant.uct("a", 2)
    with pytest.raises(ValueError):
        play_arena(a, a, 0, size=SIZE)
    with pytest.raises(ValueError):
        play_arena(a, a, 2, size=SIZE, parallel_games=0)
    with pytest.raises(ValueError):
        play_arena(a, a, 2, size=SIZE, seed=-1)
    with pytest.raises(ValueError, match="5x5"):
        play_arena(Contestant.net("n", net(), 2), a, 2, size=7)


def test_contestants_carry_their_precision_to_the_evaluator() -> None:
    from alphago.train.arena import _evaluator

    bf16 = Contestant.net("a", net(), 4, device="cpu", precision="bf16")
    default = Contestant.net("b", net(), 4, device="cpu")
    made = _evaluator(bf16, 0, 1)
    assert made is not None and made.precision == "bf16"
    plain = _evaluator(default, 0, 1)
    # The CPU's default for games: bf16 where it has AMX or AVX512-BF16, else fp32.
    import torch

    default = default_precision(torch.device("cpu"), inference=True)
    assert plain is not None and plain.precision == default
    with pytest.raises(ValueError):
        _evaluator(Contestant.net("c", net(), 4, device="cpu", precision="fp16"), 0, 1)
