"""scripts/playout_games.py and scripts/fit_heads.py: games played out by a net's
policy, and a head fitted to them with the tower frozen."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scripts_helpers import load_script

pytest.importorskip("torch")

import torch  # noqa: E402
from nets_helpers import tiny_net  # noqa: E402

import goboard  # noqa: E402
from alphago.nets import load_weights  # noqa: E402
from alphago.nets.evaluator import NetEvaluator  # noqa: E402
from alphago.nets.own_games import positions_of  # noqa: E402
from alphago.nets.weights import save_weights  # noqa: E402
from alphago.sgf import read_sgf  # noqa: E402
from goboard.symmetries import transform_planes  # noqa: E402

playout = load_script("playout_games")
fit_heads = load_script("fit_heads")
SIZE = 5
AREA = SIZE * SIZE


def batch(seed: int = 3, games: int = 6, u_max: int = 6):
    evaluator = NetEvaluator(tiny_net(SIZE, "alphago49"), symmetries="none")
    return playout.play_batch(evaluator, games, seed, u_max)


def test_games_are_played_out_without_filling_own_eyes_and_counted() -> None:
    shard, boards, moves = batch()
    for g, line in enumerate(moves):
        board = goboard.Board(SIZE, 7.5, "chinese")
        for ply, move in enumerate(line):
            me = board.to_play
            sensible = [
                m
                for m in board.legal_moves()
                if m != AREA and not board.is_true_eye(m, me)
            ]
            if move == AREA:
                assert not sensible, f"game {g} passed at {ply} with moves left"
            else:
                assert not board.is_true_eye(move, me)
            board.play(move)
            for k, after in enumerate(playout.KEPT_AFTER):
                if ply + 1 == shard["u"][g] + after:
                    assert np.array_equal(
                        shard["planes"][g, k], board.features("alphago49")
                    )
        assert board.is_over and board == boards[g]
        assert line[-2:] == [AREA, AREA]
        assert np.array_equal(shard["ownership"][g], board.ownership())
        assert shard["plies"][g] == len(line)
        black = np.sign(board.score())
        for k, after in enumerate(playout.KEPT_AFTER):
            reached = shard["u"][g] + after <= len(line)
            value = shard["value"][g, k]
            assert (value != 0) == reached
            if reached:
                # The result from the side to move there: replay to find who.
                replay = goboard.Board(SIZE, 7.5, "chinese")
                for m in line[: shard["u"][g] + after]:
                    replay.play(m)
                assert value == black * replay.to_play


def test_a_batch_is_fixed_by_its_seed() -> None:
    a, _, moves_a = batch(seed=5)
    b, _, moves_b = batch(seed=5)
    c, _, moves_c = batch(seed=6)
    assert moves_a == moves_b and moves_a != moves_c
    for key in a:
        assert np.array_equal(a[key], b[key])


def test_the_command_writes_shards_and_counted_games_and_skips_done_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    net = tmp_path / "tiny.pt"
    save_weights(tiny_net(SIZE, "alphago49"), net)
    out = tmp_path / "games"
    argv = [str(out), "--net", str(net), "--games", "3", "--batches", "2"]
    argv += ["--seed", "10", "--u-max", "5", "--precision", "fp32", "--sgf"]
    playout.main(argv)
    assert sorted(p.name for p in out.glob("*.npz")) == ["s10.npz", "s11.npz"]
    records = [read_sgf(p.read_bytes()) for p in sorted((out / "sgf/s10").iterdir())]
    assert len(records) == 3
    with np.load(out / "s10.npz") as shard:
        for record, own in zip(records, shard["ownership"], strict=True):
            margin = own.sum() - 7.5
            assert record.result == ("B+" if margin > 0 else "W+") + f"{abs(margin):g}"
    assert capsys.readouterr().out.count(" games, ") == 2
    playout.main(argv)  # both there: nothing played
    assert capsys.readouterr().out == ""
    alone = tmp_path / "alone"  # batch 11 on its own: the same games
    playout.main([str(alone)] + argv[1:6] + ["1", "--seed", "11"] + argv[9:])
    with np.load(out / "s11.npz") as a, np.load(alone / "s11.npz") as b:
        for key in a.files:
            assert np.array_equal(a[key], b[key])


def test_shards_read_from_the_side_to_move(tmp_path: Path) -> None:
    """Black wins by 2.5 on a 5x5 board (13 points to 3, less komi 7.5); the first
    kept position has Black to move, the second White, the others were not reached."""
    own = np.zeros((1, SIZE, SIZE), np.int8)
    own.reshape(-1)[:13] = 1
    own.reshape(-1)[13:16] = -1
    value = np.array([[1.0, -1.0, 0.0, 0.0]], np.float32)
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, (1, 4, 49, SIZE, SIZE)).astype(np.uint8)
    np.savez(tmp_path / "s0.npz", planes=planes, value=value, ownership=own)
    got = fit_heads.load_shards([tmp_path / "s0.npz"])
    assert got.value.tolist() == [1.0, -1.0]
    assert got.mover.tolist() == [1.0, -1.0]
    assert got.margin.tolist() == [2.5, -2.5]
    assert np.array_equal(got.owner[0], own[0])
    assert np.array_equal(got.owner[1], -own[0])
    assert np.array_equal(got.planes, planes[0, :2])


def test_positions_and_their_ownership_turn_together() -> None:
    board = np.arange(AREA, dtype=np.float32).reshape(SIZE, SIZE)
    turned = {transform_planes(board, k).tobytes() for k in range(8)}
    assert len(turned) == 8  # the eight symmetries of the square
    rng = np.random.default_rng(1)
    planes = rng.integers(0, 2, (16, 3, SIZE, SIZE)).astype(np.uint8)
    owner = planes[:, 0].astype(np.float32) * 2 - 1
    data = fit_heads.Shards(planes, np.ones(16), owner, np.zeros(16), np.ones(16))
    out = fit_heads.randomly_turned(data, rng)
    assert np.array_equal(out.owner, out.planes[:, 0].astype(np.float32) * 2 - 1)
    assert not np.array_equal(out.planes, planes)


@pytest.mark.parametrize("head", ["ownership", "value"])
def test_fitting_a_head_leaves_the_rest_of_the_net_as_it_was(
    tmp_path: Path, head: str, capsys: pytest.CaptureFixture[str]
) -> None:
    net = tmp_path / "tiny.pt"
    save_weights(tiny_net(SIZE, "alphago49"), net)
    games = tmp_path / "games"
    playout.main(
        [
            str(games),
            "--net",
            str(net),
            "--games",
            "8",
            "--batches",
            "2",
            "--u-max",
            "6",
        ]
        + ["--precision", "fp32"]
    )
    out = tmp_path / "fitted.pt"
    fit_heads.main(
        [str(games), "--net", str(net), "--out", str(out), "--head", head]
        + ["--steps", "200", "--batch", "16"]
    )
    printed = capsys.readouterr().out
    assert "held out" in printed and f"wrote {out}" in printed
    before, after = load_weights(net).state_dict(), load_weights(out).state_dict()
    head_keys = {"ownership_conv.weight", "ownership_conv.bias"}
    if head == "ownership":
        assert load_weights(out).config.ownership_head
        assert set(after) - set(before) == head_keys
        changed = head_keys
    else:
        assert set(after) == set(before)
        changed = {k for k in before if k.startswith("value_")}
        assert any(not torch.equal(before[k], after[k]) for k in changed)
    for key in before:
        if key not in changed and "num_batches" not in key:
            assert torch.equal(before[key], after[key]), key


def test_bad_requests_stop_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    net5, net7 = tmp_path / "net5.pt", tmp_path / "net7.pt"
    save_weights(tiny_net(SIZE, "alphago49"), net5)
    save_weights(tiny_net(7, "alphago49"), net7)
    games = tmp_path / "games"
    with pytest.raises(SystemExit):
        playout.main([str(games), "--net", str(net5), "--games", "0"])
    assert "--games must be at least 1" in capsys.readouterr().err
    assert not games.exists()
    playout.main(
        [str(games), "--net", str(net5), "--games", "2", "--batches", "2"]
        + ["--u-max", "4", "--precision", "fp32"]
    )
    out = tmp_path / "fitted.pt"
    with pytest.raises(SystemExit):
        fit_heads.main([str(games), "--net", str(net7), "--out", str(out)])
    assert "another net's games" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        fit_heads.main(
            [str(games), "--net", str(net5), "--out", str(out)] + ["--val-shards", "2"]
        )
    assert "too few to hold 2 out" in capsys.readouterr().err
    assert not out.exists()


def test_a_low_temperature_plays_the_policys_favourite() -> None:
    net = tiny_net(SIZE, "alphago49")
    evaluator = NetEvaluator(net, symmetries="none")
    shard, _, moves = playout.play_batch(evaluator, 2, 4, 3, temperature=0.02)
    for g, line in enumerate(moves):
        board = goboard.Board(SIZE, 7.5, "chinese")
        for ply, move in enumerate(line[:12]):
            if ply != shard["u"][g] - 1 and move != AREA:
                priors, _ = evaluator.evaluate(positions_of([board]))
                p = priors[0, :AREA].copy()
                p[[m for m in range(AREA) if board.is_true_eye(m, board.to_play)]] = 0
                assert move == int(np.argmax(p))
            board.play(move)


def test_temperature_must_be_positive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        playout.main([str(tmp_path / "g"), "--temperature", "0"])
    assert "--temperature must be above 0" in capsys.readouterr().err
