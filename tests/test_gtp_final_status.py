"""final_status_list dead|alive|seki and final_score on hand-made positions; the
network's ownership head behind SearchPlayer.ownership."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gtp_helpers import ok
from nets_helpers import tiny_net
from numpy.typing import NDArray

import goboard
import search
from alphago.gtp import Engine
from alphago.nets import NetEvaluator
from alphago.player import SearchPlayer, UCTPlayer
from goboard.coords import from_gtp, to_gtp
from goboard.text import parse

# A dead white stone (B5) in Black's area, a dead black one (G5) in White's; both walls
# have two eyes.
DEAD = """
    . X . X O . O . .
    X X X X O O O O O
    . . . X O . . . .
    . . . X O . . . .
    . O . X O . X . .
    . . . X O . . . .
    . . . X O . . . .
    X X X X O O O O O
    . X . X O . O . .
"""

# Seki, two eyeless strings sharing two liberties (E1, E2): white C-E, black F, each
# held by a living wall of the other colour (eyes A3, A7 and J3, J7).
SEKI_SHARED = """
    X X O O O X O O O
    X X O O O X O O O
    . X O O O X O O .
    X X O O O X O O O
    X X O O O X O O O
    X X O O O X O O O
    . X O O O X O O .
    X X O O . X O O O
    X X O O . X O O O
"""
# The same with an eye (D8) for White: White fills E1 or E2 and captures F.
NO_SEKI_SHARED = SEKI_SHARED.replace(
    "X X O O O X O O O\n    . X", "X X O . O X O O O\n    . X", 1
)

# Seki, one eye each (D5 and H5) sharing one liberty (F9): white C-E inside Black.
SEKI_EYES = """
    X X O O O . X X X
    X X O O O X X X X
    . X O O O X X X X
    X X O O O X X X X
    X X O . O X X . X
    X X O O O X X X X
    . X O O O X X X X
    X X O O O X X X X
    X X O O O X X X X
"""
# The same with a second eye (H1) for Black: Black fills F9 and captures C-E.
NO_SEKI_EYES = SEKI_EYES[: SEKI_EYES.rindex("X X X")] + "X . X\n"


def points(text: str, colour: int) -> set[str]:
    stones = parse(text)
    n = stones.shape[0]
    return {to_gtp(int(p), n) for p in np.flatnonzero(stones == colour)}


def engine(
    text: str, player: Any = None, *, white_to_play: bool = False, komi: float = 7.5
) -> Engine:
    stones = parse(text)
    n = stones.shape[0]
    if player is None:
        player = UCTPlayer(
            search.UCTConfig(num_simulations=8), seed=3, ownership_playouts=128
        )
    e = Engine(player, board_size=n, komi=komi)
    setup = {
        c: [int(p) for p in np.flatnonzero(stones == c)]
        for c in (goboard.BLACK, goboard.WHITE)
    }
    e.set_position(setup, [(goboard.BLACK, n * n)] if white_to_play else [])
    return e


def status(e: Engine, which: str) -> set[str]:
    return set(ok(e, f"final_status_list {which}").split())


def is_self_atari(text: str, vertex: str, colour: int) -> bool:
    """A move at ``vertex`` by ``colour`` is illegal or leaves its string in atari."""
    stones = parse(text)
    board = goboard.Board.from_stones(stones, colour, 7.5, "chinese")
    point = from_gtp(vertex, board.size)
    if not board.is_legal(point):
        return True
    board.play(point)
    return board.liberties(point) == 1


# -- dead and alive ------------------------------------------------------------------


@pytest.mark.parametrize("white_to_play", [False, True])
def test_dead_stones_inside_territory(white_to_play: bool) -> None:
    e = engine(DEAD, white_to_play=white_to_play)
    assert status(e, "dead") == {"B5", "G5"}
    stones = points(DEAD, goboard.BLACK) | points(DEAD, goboard.WHITE)
    assert status(e, "alive") == stones - {"B5", "G5"}
    assert status(e, "seki") == set()
    # Black A-D (36 points), White E-J (45): W+9 and komi.
    assert ok(e, "final_score") == "W+16.5"


# -- seki ----------------------------------------------------------------------------


def in_columns(text: str, columns: str) -> set[str]:
    stones = points(text, goboard.BLACK) | points(text, goboard.WHITE)
    return {v for v in stones if v[0] in columns}


SEKIS = [
    # position, shared liberties, columns of the seki, score (seki stones alive,
    # shared liberties neutral)
    (SEKI_SHARED, ["E1", "E2"], "CDEF", "W+32.5"),  # Black 18 + 9, White 52
    (SEKI_EYES, ["F9"], "CDEFGHJ", "B+18.5"),  # Black 18 + 35, White 27
]


@pytest.mark.parametrize("white_to_play", [False, True])
@pytest.mark.parametrize(("text", "shared", "columns", "score"), SEKIS)
def test_seki_is_listed_as_seki_not_dead(
    text: str, shared: list[str], columns: str, score: str, white_to_play: bool
) -> None:
    # It is a seki: whoever fills a shared liberty puts its own string in atari.
    for vertex in shared:
        assert is_self_atari(text, vertex, goboard.BLACK)
        assert is_self_atari(text, vertex, goboard.WHITE)
    e = engine(text, white_to_play=white_to_play)
    # The playouts from one side to move alone would call one of the sides dead.
    own = e.player.ownership(e.board_for(e.board.to_play)).reshape(-1)
    flat = e.board.stones().reshape(-1)
    assert (own * flat < -e.dead_threshold).any()

    seki = in_columns(text, columns)
    assert status(e, "seki") == seki
    assert status(e, "dead") == set()
    assert status(e, "alive") == in_columns(text, "ABCDEFGHJ") - seki
    assert ok(e, "final_score") == score


NOT_SEKIS = [
    # position, the colour that kills, score after the dead stones are removed
    (NO_SEKI_SHARED, goboard.BLACK, "W+52.5"),  # F dies: Black 18, White 63
    (NO_SEKI_EYES, goboard.WHITE, "B+73.5"),  # C-E die: Black 81
]


@pytest.mark.parametrize(("text", "victim", "score"), NOT_SEKIS)
def test_one_extra_liberty_is_not_seki(text: str, victim: int, score: str) -> None:
    e = engine(text)
    assert status(e, "seki") == set()
    dead = in_columns(text, "F" if victim == goboard.BLACK else "CDE")
    assert status(e, "dead") == dead
    assert status(e, "alive") == in_columns(text, "ABCDEFGHJ") - dead
    assert ok(e, "final_score") == score


# -- the network's ownership ---------------------------------------------------------


class FakeHead:
    """An evaluator with an ownership head that answers ``owner`` (Black's view)."""

    def __init__(self, owner: NDArray[np.float32], head: bool = True) -> None:
        self.owner = owner
        self.config = type("Config", (), {"ownership_head": head})()
        self.calls = 0

    def evaluate(self, positions: search.Positions) -> Any:
        return search.UniformEvaluator().evaluate(positions)

    def ownership(self, positions: search.Positions) -> NDArray[np.float32]:
        self.calls += 1
        assert len(positions) == 1
        return self.owner[None].copy()


def test_search_player_ownership_comes_from_the_net_head() -> None:
    board = goboard.Board.from_stones(parse(DEAD), goboard.BLACK, 7.5, "chinese")
    evaluator = NetEvaluator(tiny_net(9, ownership=True), symmetries="average")
    player = SearchPlayer(evaluator, ownership_playouts=16)
    want = evaluator.ownership(search.Positions(goboard.Pool([board], 1), [0]))[0]
    got = player.ownership(board)
    assert got.shape == (9, 9) and got.dtype == np.float64
    np.testing.assert_allclose(got, want, atol=1e-6)
    # Not the playouts' estimate (multiples of 1/16 that sum over whole strings).
    assert not np.allclose(got * 16, np.round(got * 16))

    plain = SearchPlayer(
        NetEvaluator(tiny_net(9), symmetries="average"), ownership_playouts=16
    )
    estimate = plain.ownership(board)
    assert np.allclose(estimate * 16, np.round(estimate * 16))


def test_dead_stones_follow_the_net_and_seki_overrides_it() -> None:
    # The net says every point is White's: every black stone is dead ...
    fake = FakeHead(np.full((9, 9), -0.9, dtype=np.float32))
    e = engine(DEAD, SearchPlayer(fake, ownership_playouts=16))  # type: ignore[arg-type]
    assert status(e, "dead") == points(DEAD, goboard.BLACK)
    assert fake.calls == 1
    # ... but not in a seki, which the structure and the playouts decide.
    e = engine(SEKI_SHARED, SearchPlayer(fake, ownership_playouts=16))  # type: ignore[arg-type]
    assert status(e, "seki") == in_columns(SEKI_SHARED, "CDEF")
    assert status(e, "dead") == in_columns(SEKI_SHARED, "AB")
    # A net without the head: the playouts, as before.
    none = FakeHead(np.full((9, 9), -0.9, dtype=np.float32), head=False)
    e = engine(DEAD, SearchPlayer(none, ownership_playouts=64))  # type: ignore[arg-type]
    assert status(e, "dead") == {"B5", "G5"}
    assert none.calls == 0
