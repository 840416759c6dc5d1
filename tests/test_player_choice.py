"""Which player plays which size: ``boardsize`` in GTP and ``alphago gtp``/``play``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gtp_helpers import fails, ok

import goboard
from alphago.gtp import Engine
from alphago.player import SearchPlayer, UCTPlayer
from alphago.player_choice import (
    PlayerChoice,
    PlayerSpec,
    UnacceptableSize,
    tree_nodes,
)

pytest.importorskip("torch")


@pytest.fixture
def tiny_net_5x5(tmp_path: Path) -> Path:
    from alphago.nets import NetConfig, PolicyValueNet, save_weights

    path = tmp_path / "tiny5.pt"
    save_weights(PolicyValueNet(NetConfig(board_size=5, blocks=1, filters=8)), path)
    return path


def choice_engine(spec: PlayerSpec, log: list[str]) -> Engine:
    choice = PlayerChoice(spec, log.append)
    size = choice.default_size()
    return Engine(choice.player_for(size), size, players=choice.player_for)


def test_boardsize_picks_the_shipped_network_and_uct_where_none_ships() -> None:
    log: list[str] = []
    e = choice_engine(PlayerSpec(simulations=8), log)
    assert e.size == 19 and isinstance(e.player, SearchPlayer)  # the shipped 19x19
    ok(e, "boardsize 9")
    assert isinstance(e.player, SearchPlayer)  # the shipped 9x9 network
    nine = e.player
    ok(e, "boardsize 13")
    assert isinstance(e.player, UCTPlayer)
    ok(e, "boardsize 9")
    assert e.player is nine  # cached: loaded once
    assert ok(e, "genmove b")
    assert len(log) == 3
    assert "19x19: PUCT over the shipped network alphago-19x19.pt" in log[0]
    assert "mixed with the shipped pattern rollouts rollout-19x19.npz" in log[0]
    assert "9x9: PUCT over the shipped network alphago-9x9.pt" in log[1]
    assert "13x13: plain UCT" in log[2]


def test_weights_of_one_size_refuse_the_others(tiny_net_5x5: Path) -> None:
    log: list[str] = []
    e = choice_engine(PlayerSpec(simulations=8, weights=str(tiny_net_5x5)), log)
    assert e.size == 5 and isinstance(e.player, SearchPlayer)
    ok(e, "play b C3")
    assert fails(e, "boardsize 9") == "unacceptable size"
    assert e.size == 5 and e.moves  # nothing changed
    assert ok(e, "genmove w")
    ok(e, "boardsize 5")
    assert not e.moves
    with pytest.raises(UnacceptableSize):
        PlayerChoice(PlayerSpec(weights=str(tiny_net_5x5)), log.append).player_for(9)


def test_uct_everywhere_with_uct() -> None:
    e = choice_engine(PlayerSpec(simulations=8, uct=True), [])
    ok(e, "boardsize 9")
    assert isinstance(e.player, UCTPlayer)


def test_gumbel_search_over_a_network(tiny_net_5x5: Path) -> None:
    import search

    log: list[str] = []
    spec = PlayerSpec(simulations=8, weights=str(tiny_net_5x5), search="gumbel")
    e = choice_engine(spec, log)
    assert isinstance(e.player, SearchPlayer)
    config = e.player.config
    assert isinstance(config, search.GumbelConfig)
    # Match play: no noise, the default number of moves, the same limits as PUCT.
    assert (config.gumbel_scale, config.considered_actions) == (0.0, 16)
    assert config.num_simulations == 8 and config.max_nodes == tree_nodes(5, 1024, 24)
    assert "5x5: Gumbel search over" in log[0]
    assert ok(e, "genmove b")
    asked = PlayerSpec(
        weights=str(tiny_net_5x5), search="gumbel", considered_actions=4, gumbel_scale=1
    )
    player = PlayerChoice(asked, log.append).player_for(5)
    assert isinstance(player, SearchPlayer)
    config = player.config
    assert isinstance(config, search.GumbelConfig)
    assert (config.gumbel_scale, config.considered_actions) == (1.0, 4)


def test_gumbel_where_no_network_ships_says_it_plays_uct() -> None:
    log: list[str] = []
    player = PlayerChoice(PlayerSpec(simulations=8, search="gumbel"), log.append)
    assert isinstance(player.player_for(13), UCTPlayer)
    assert "13x13: plain UCT" in log[0] and "no Gumbel search" in log[0]


def test_mix_lambda_where_no_network_ships_says_it_plays_uct() -> None:
    log: list[str] = []
    player = PlayerChoice(PlayerSpec(simulations=8, mix_lambda=0.5), log.append)
    assert isinstance(player.player_for(13), UCTPlayer)
    assert "13x13: plain UCT" in log[0]
    assert "no network for --mix-lambda to mix rollouts into" in log[0]
    log.clear()
    PlayerChoice(PlayerSpec(simulations=8), log.append).player_for(13)  # not asked
    assert "13x13: plain UCT" in log[0] and "mix" not in log[0]


def test_gumbel_mixes_the_rollouts_it_announces(
    tiny_net_5x5: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import search

    played = {"pattern": 0, "uniform": 0}
    # The search asks pattern rollouts for their values through values_later (they
    # play while the network evaluates) and the uniform ones through values.
    pattern = search.PatternRollouts.values_later
    uniform = search.RolloutEvaluator.values

    def counted(kind: str, values: Any) -> Any:
        def wrapper(self: Any, positions: search.Positions) -> Any:
            played[kind] += len(positions)
            return values(self, positions)

        return wrapper

    monkeypatch.setattr(
        search.PatternRollouts, "values_later", counted("pattern", pattern)
    )
    monkeypatch.setattr(search.RolloutEvaluator, "values", counted("uniform", uniform))
    log: list[str] = []
    spec = PlayerSpec(simulations=8, search="gumbel", mix_lambda=0.5)
    nine = PlayerChoice(spec, log.append).player_for(9)
    assert isinstance(nine, SearchPlayer)
    assert (
        isinstance(nine.config, search.GumbelConfig) and nine.config.mix_lambda == 0.5
    )
    assert "mixed with the shipped pattern rollouts rollout-9x9.npz" in log[0]
    nine.genmove(goboard.Board(9, 7.5, "chinese"))
    assert played == {"pattern": 9, "uniform": 0}  # the root and 8 leaves played out
    # No rollout policy ships for 5x5: uniform random playouts, as PUCT mixes them.
    five = PlayerChoice(
        PlayerSpec(
            simulations=8, search="gumbel", mix_lambda=0.5, weights=str(tiny_net_5x5)
        ),
        log.append,
    ).player_for(5)
    five.genmove(goboard.Board(5, 0.5, "chinese"))
    assert played == {"pattern": 9, "uniform": 9}
    # Not asked for: the network alone.
    plain = PlayerChoice(PlayerSpec(simulations=8, search="gumbel"), log.append)
    alone = plain.player_for(9)
    assert isinstance(alone, SearchPlayer) and alone.rollout is None
    assert (
        isinstance(alone.config, search.GumbelConfig) and alone.config.mix_lambda == 0
    )


def test_spec_checks() -> None:
    with pytest.raises(ValueError, match="exclude"):
        PlayerSpec(uct=True, weights="x.pt")
    with pytest.raises(ValueError, match="--search gumbel and --uct exclude"):
        PlayerSpec(uct=True, search="gumbel")
    with pytest.raises(ValueError, match="need --search gumbel"):
        PlayerSpec(considered_actions=8)
    with pytest.raises(ValueError, match="need --search gumbel"):
        PlayerSpec(gumbel_scale=1.0)
    with pytest.raises(ValueError, match="--search must be"):
        PlayerSpec(search="uct")
    with pytest.raises(ValueError, match="--considered-actions must be"):
        PlayerSpec(search="gumbel", considered_actions=0)
    for scale in (-1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="--gumbel-scale must be"):
            PlayerSpec(search="gumbel", gumbel_scale=scale)
    with pytest.raises(ValueError):
        PlayerSpec(simulations=0)
    with pytest.raises(ValueError):
        PlayerSpec(analysis_memory_mb=0)
    with pytest.raises(ValueError, match="--rollout-threads must be"):
        PlayerSpec(rollout_threads=0)


@pytest.mark.parametrize("engine", ["zero", "alphago2016"])
def test_rollout_threads_reach_the_rollouts_and_leave_the_moves_alone(
    engine: str,
) -> None:
    import search

    board = goboard.Board(9, 7.5, "chinese")
    for point in (40, 30, 50):
        board.play(point)
    searched = []
    for threads in (1, 3):
        spec = PlayerSpec(
            simulations=48, seed=4, rollout_threads=threads, engine=engine
        )
        player = PlayerChoice(spec, lambda _: None).player_for(9)
        assert isinstance(player, SearchPlayer)
        assert isinstance(player.rollout, search.PatternRollouts)
        assert player.rollout.threads == threads
        result = player.genmove(board.copy())
        searched.append((result.move, result.visits.tolist(), result.value))
    assert searched[0] == searched[1]


def test_rollout_threads_on_the_command_line() -> None:
    from alphago.cli import build_parser, player_choice

    for command in ("gtp", "play", "analysis"):
        args = build_parser().parse_args([command, "--rollout-threads", "2"])
        assert player_choice(args).spec.rollout_threads == 2
    assert player_choice(build_parser().parse_args(["gtp"])).spec.rollout_threads == 1
    with pytest.raises(SystemExit):
        build_parser().parse_args(["gtp", "--rollout-threads", "0"])


def test_tree_bytes_match_the_tree() -> None:
    """The per-node figures tree_nodes budgets with are what search.Tree allocates."""
    import numpy as np

    from alphago import player_choice
    from search.tree import Tree

    for actions in (26, 82, 362):
        tree = Tree(2, 500, actions)
        arrays = [v for v in vars(tree).values() if isinstance(v, np.ndarray)]
        owned = [a for a in arrays if a.base is None and a.ndim >= 2]  # not views
        per_node = sum(a.nbytes for a in owned) / (2 * 501)
        budget = (
            player_choice._TREE_BYTES_FIXED
            + player_choice._TREE_BYTES_PER_ACTION * actions
        )
        assert per_node <= budget <= per_node + 8


def test_tree_nodes_follow_memory_and_never_undercut_a_search() -> None:
    assert tree_nodes(9, 1024, 10) > tree_nodes(19, 1024, 10) > 50_000
    assert tree_nodes(19, 1, 5000) == 5000
    assert tree_nodes(9, 2048, 1) == pytest.approx(2 * tree_nodes(9, 1024, 1), abs=1)
