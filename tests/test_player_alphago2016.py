"""``--engine alphago2016``: the original AlphaGo as a player (policy priors, value net
mixed with pattern rollouts by lambda), its files checked together, over GTP."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gtp_helpers import fails, ok

import goboard
import search
from alphago.gtp import Engine
from alphago.player import SearchPlayer, UCTPlayer
from alphago.player_choice import PlayerChoice, PlayerSpec, UnacceptableSize

torch = pytest.importorskip("torch")

from alphago.nets import NetConfig, PolicyValueNet, save_weights  # noqa: E402
from alphago.nets.alphago2016 import (  # noqa: E402
    POLICY_KIND,
    VALUE_KIND,
    Net2016Config,
    PolicyNet2016,
    ValueNet2016,
    save_net2016,
)
from alphago.nets.nets2016 import load_nets_2016  # noqa: E402
from alphago.rollout_weights import save_rollout_weights  # noqa: E402
from goboard import pattern_features  # noqa: E402

SIZE = 5


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    torch.manual_seed(0)
    out = {
        "policy": tmp_path / "policy.pt",
        "value": tmp_path / "value.pt",
        "rollout": tmp_path / "rollout.npz",
        "zero": tmp_path / "zero.pt",
        "policy7": tmp_path / "policy7.pt",
    }
    small = {"layers": 3, "filters": 8}
    save_net2016(
        PolicyNet2016(Net2016Config.for_board(SIZE, POLICY_KIND, **small)),
        out["policy"],
    )
    save_net2016(
        ValueNet2016(Net2016Config.for_board(SIZE, VALUE_KIND, **small)), out["value"]
    )
    save_net2016(
        PolicyNet2016(Net2016Config.for_board(7, POLICY_KIND, **small)),
        out["policy7"],
    )
    weights = np.random.default_rng(0).normal(0, 0.3, pattern_features.NUM_FEATURES)
    save_rollout_weights(weights.astype(np.float32), out["rollout"])
    save_weights(
        PolicyValueNet(NetConfig(board_size=SIZE, blocks=1, filters=8)), out["zero"]
    )
    return out


def spec(files: dict[str, Path], **changes: object) -> PlayerSpec:
    fields: dict[str, object] = {
        "simulations": 16,
        "engine": "alphago2016",
        "policy_net": str(files["policy"]),
        "value_net": str(files["value"]),
        "rollout_weights": str(files["rollout"]),
    }
    fields.update(changes)
    return PlayerSpec(**fields)  # type: ignore[arg-type]


def test_the_player_searches_with_mixed_values_and_pattern_rollouts(
    files: dict[str, Path],
) -> None:
    log: list[str] = []
    choice = PlayerChoice(spec(files, mix_lambda=0.5), log.append)
    assert choice.default_size() == SIZE
    player = choice.player_for(SIZE)
    assert isinstance(player, SearchPlayer)
    assert isinstance(player.config, search.AlphaGo2016Config)
    assert player.config.mix_lambda == 0.5
    assert isinstance(player.rollout, search.PatternRollouts)
    assert "AlphaGo 2016 search, lambda 0.5" in log[0]
    assert "policy policy.pt" in log[0] and "rollouts rollout.npz" in log[0]
    board = goboard.Board(SIZE)
    result = player.genmove(board)
    assert board.is_legal(result.move)
    assert result.visits.sum() >= 16


def test_lambda_decides_which_parts_load(files: dict[str, Path]) -> None:
    only_rollouts = load_nets_2016(
        files["policy"], None, files["rollout"], mix_lambda=1
    )
    assert only_rollouts.value is None and only_rollouts.rollout is not None
    only_value = load_nets_2016(
        files["policy"], files["value"], files["rollout"], mix_lambda=0
    )
    assert only_value.value is not None and only_value.rollout is None
    uniform = load_nets_2016(files["policy"], files["value"], None, mix_lambda=0.5)
    assert uniform.rollout is None and "uniform random rollouts" in uniform.describe()
    with pytest.raises(ValueError, match="give --value-net"):
        load_nets_2016(files["policy"], None, files["rollout"], mix_lambda=0.5)
    # A value of 0 with lambda 0 plays no rollouts: the player gets none.
    player = PlayerChoice(spec(files, mix_lambda=0.0), [].append).player_for(SIZE)
    assert isinstance(player, SearchPlayer) and player.rollout is None


def test_files_of_the_wrong_kind_are_refused_by_name(files: dict[str, Path]) -> None:
    with pytest.raises(ValueError, match=f"expected {POLICY_KIND}"):
        load_nets_2016(files["zero"], files["value"], None)
    with pytest.raises(ValueError, match=f"expected {VALUE_KIND}"):
        load_nets_2016(files["policy"], files["policy"], None)
    with pytest.raises(ValueError, match=f"expected {POLICY_KIND}"):
        load_nets_2016(files["value"], files["value"], None)
    with pytest.raises(ValueError, match="5x5"):
        load_nets_2016(files["policy7"], files["value"], None)  # value net of 5x5
    with pytest.raises(ValueError):
        load_nets_2016(files["policy"], files["value"], files["zero"])


def test_other_sizes_are_refused_and_the_spec_is_checked(
    files: dict[str, Path],
) -> None:
    choice = PlayerChoice(spec(files), [].append)
    with pytest.raises(UnacceptableSize, match="5x5 network"):
        choice.player_for(9)
    assert choice.can_play(5) and not choice.can_play(9)
    for bad, message in (
        ({"engine": "zero"}, "need --engine alphago2016"),
        ({"uct": True}, "excludes --uct"),
        ({"mix_lambda": 1.5}, "must be in"),
        ({"engine": "leela"}, "--engine must be"),
    ):
        with pytest.raises(ValueError, match=message):
            spec(files, **bad)
    with pytest.raises(ValueError, match="excludes --uct, --weights"):
        PlayerSpec(engine="alphago2016", weights=str(files["zero"]))


def test_a_size_without_shipped_2016_nets_plays_uct() -> None:
    log: list[str] = []
    player = PlayerChoice(
        PlayerSpec(simulations=8, engine="alphago2016"), log.append
    ).player_for(13)
    assert isinstance(player, UCTPlayer)
    assert "no AlphaGo 2016 nets ship for this size" in log[0]


def test_files_given_beside_the_shipped_policy_are_checked_at_the_start(
    files: dict[str, Path],
) -> None:
    """Without --policy-net the engine starts on 9x9 (its shipped nets' size), so a
    --value-net of the wrong kind fails at startup, and on a size where no policy
    ships the given files are refused rather than silently dropped for UCT."""
    choice = PlayerChoice(PlayerSpec(simulations=8, engine="alphago2016"), [].append)
    assert choice.default_size() == 9
    wrong = PlayerSpec(
        simulations=8, engine="alphago2016", value_net=str(files["zero"])
    )
    with pytest.raises(ValueError, match=f"expected {VALUE_KIND}"):
        PlayerChoice(wrong, [].append).player_for(9)
    from alphago.nets.nets2016 import shipped_2016

    shipped = shipped_2016(9)
    assert shipped is not None and shipped.value is not None
    given = PlayerSpec(
        simulations=8, engine="alphago2016", value_net=str(shipped.value)
    )
    choice = PlayerChoice(given, [].append)
    assert choice.can_play(9) and not choice.can_play(19)
    with pytest.raises(
        UnacceptableSize, match="no AlphaGo 2016 policy ships for 19x19"
    ):
        choice.player_for(19)
    bad_rollout = files["value"].with_name("text.npz")
    bad_rollout.write_text("hello")
    spec_r = PlayerSpec(
        simulations=8, engine="alphago2016", rollout_weights=str(bad_rollout)
    )
    with pytest.raises(ValueError, match="not a rollout weights file"):
        PlayerChoice(spec_r, [].append).player_for(9)


def test_a_gtp_game_with_the_2016_engine(files: dict[str, Path]) -> None:
    choice = PlayerChoice(spec(files), [].append)
    e = Engine(choice.player_for(SIZE), SIZE, players=choice.player_for)
    ok(e, "play b C3")
    reply = ok(e, "genmove w")
    assert reply.lower() == "pass" or goboard.coords.from_gtp(reply, SIZE) >= 0
    assert fails(e, "boardsize 9") == "unacceptable size"
    ok(e, "clear_board")
    assert ok(e, "genmove b")


def test_the_shipped_9x9_nets_play_out_of_the_box() -> None:
    """``--engine alphago2016`` on 9x9 with no file named: the shipped policy, value
    net and rollout weights, checked together, play a legal move."""
    from alphago.nets.nets2016 import shipped_2016

    files = shipped_2016(9)
    assert files is not None and files.value is not None and files.rollout is not None
    nets = load_nets_2016(files.policy, files.value, files.rollout, mix_lambda=0.5)
    assert nets.size == 9 and nets.value is not None and nets.rollout is not None
    log: list[str] = []
    choice = PlayerChoice(PlayerSpec(simulations=16, engine="alphago2016"), log.append)
    player = choice.player_for(9)
    assert isinstance(player, SearchPlayer)
    assert "alphago2016-9x9-policy.pt" in log[0]
    e = Engine(player, 9, players=choice.player_for)
    move = goboard.coords.from_gtp(ok(e, "genmove b"), 9)
    assert 0 <= move < 81


# ---- the Zero net's search with rollouts mixed into its leaf values ----------------


def test_the_zero_net_mixes_pattern_rollouts_into_its_values(
    files: dict[str, Path],
) -> None:
    """``--weights ZERO --mix-lambda 0.5 --rollout-weights FILE``: the Zero net gives
    priors and values, the rollouts are mixed in as the 2016 search does."""
    log: list[str] = []
    zero = str(files["zero"])
    mixed = PlayerSpec(
        simulations=16,
        weights=zero,
        mix_lambda=0.5,
        rollout_weights=str(files["rollout"]),
    )
    player = PlayerChoice(mixed, log.append).player_for(SIZE)
    assert isinstance(player, SearchPlayer)
    assert type(player.config) is search.AlphaGo2016Config
    assert player.config.mix_lambda == 0.5 and player.config.num_simulations == 16
    assert isinstance(player.rollout, search.PatternRollouts)
    assert f"PUCT over {zero}" in log[0]
    assert f"leaf values mixed with pattern rollouts {files['rollout']}" in log[0]
    assert "(lambda 0.5)" in log[0]
    board = goboard.Board(SIZE)
    result = player.genmove(board)
    assert board.is_legal(result.move) and result.visits.sum() >= 16
    # No rollout policy ships for 5x5: the search's uniform playouts stand in.
    log.clear()
    uniform = PlayerSpec(simulations=16, weights=zero, mix_lambda=1.0)
    player = PlayerChoice(uniform, log.append).player_for(SIZE)
    assert isinstance(player, SearchPlayer) and player.rollout is None
    assert isinstance(player.config, search.AlphaGo2016Config)
    assert "uniform random playouts (no rollout policy ships" in log[0]
    # Lambda 0 is the plain Zero search, and so is a --weights net by default.
    for plain in (
        PlayerSpec(simulations=16, weights=zero, mix_lambda=0.0),
        PlayerSpec(simulations=16, weights=zero),
    ):
        player = PlayerChoice(plain, [].append).player_for(SIZE)
        assert isinstance(player, SearchPlayer) and player.rollout is None
        assert type(player.config) is search.SearchConfig


def test_the_shipped_zero_net_mixes_the_shipped_rollouts_by_default() -> None:
    """On 9x9 the shipped net's PUCT mixes in the shipped rollouts at lambda 0.5 (the
    measured winner) unless --mix-lambda says otherwise; Gumbel search never mixes."""
    from alphago.player_choice import SHIPPED_MIX

    assert SHIPPED_MIX == 0.5
    for mix in (None, 0.5):
        log: list[str] = []
        choice = PlayerChoice(PlayerSpec(simulations=16, mix_lambda=mix), log.append)
        player = choice.player_for(9)
        assert isinstance(player, SearchPlayer)
        assert isinstance(player.config, search.AlphaGo2016Config)
        assert player.config.mix_lambda == 0.5
        assert isinstance(player.rollout, search.PatternRollouts)
        assert "the shipped network alphago-9x9.pt" in log[0]
        assert "the shipped pattern rollouts rollout-9x9.npz (lambda 0.5)" in log[0]
    e = Engine(player, 9, players=choice.player_for)
    assert 0 <= goboard.coords.from_gtp(ok(e, "genmove b"), 9) < 81
    log.clear()
    plain = PlayerChoice(PlayerSpec(simulations=16, mix_lambda=0.0), log.append)
    player = plain.player_for(9)
    assert isinstance(player, SearchPlayer) and player.rollout is None
    assert type(player.config) is search.SearchConfig
    assert "mixed" not in log[0]
    gumbel = PlayerChoice(PlayerSpec(simulations=16, search="gumbel"), [].append)
    player = gumbel.player_for(9)
    assert isinstance(player, SearchPlayer) and player.rollout is None
    assert isinstance(player.config, search.GumbelConfig)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"rollout_weights": "r.npz"}, "needs --mix-lambda above 0"),
        ({"rollout_weights": "r.npz", "mix_lambda": 0.0}, "needs --mix-lambda"),
        ({"mix_lambda": 0.5, "uct": True}, "it excludes --uct"),
        ({"value_net": "v.pt"}, "need --engine alphago2016"),
        ({"mix_lambda": -0.5}, "must be in"),
    ],
)
def test_the_zero_engine_checks_its_mixing_options(
    changes: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        PlayerSpec(**changes)  # type: ignore[arg-type]
