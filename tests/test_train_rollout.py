"""alphago train rollout: the pattern rollout policy learnt from game records."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import goboard
from alphago.cli import main
from alphago.rollout_weights import (
    load_rollout_policy,
    load_rollout_weights,
    save_rollout_weights,
)
from alphago.sgf import GameRecord, save_sgf
from alphago.train.metrics import read_metrics
from alphago.train.rollout import RolloutTrainConfig, train_rollout
from goboard import pattern_features as pf

ZERO = goboard.PatternPolicy()


def planted_game(seed: int, size: int = 7) -> GameRecord:
    """A game whose every move is a capture when one is available, else a random
    candidate: the preference training must find."""
    rng = np.random.default_rng(seed)
    board = goboard.Board(size, komi=0.5, rules="chinese")
    moves: list[tuple[int, int]] = []
    for _ in range(2 * size * size):
        points, index = ZERO.features(board)
        if len(points) == 0:
            break
        legal = board.legal_mask()
        captures = [p for p, f in zip(points, index, strict=True) if f == pf.CAPTURE]
        captures = [int(p) for p in captures if legal[p]]
        options = captures or [int(p) for p in np.unique(points) if legal[p]]
        if not options:
            break
        move = options[0] if captures else int(rng.choice(options))
        moves.append((board.to_play, move))
        board.play(move)
    return GameRecord(size=size, komi=0.5, moves=moves, result="0")


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("planted")
    for i in range(24):
        save_sgf(planted_game(i), folder / f"game-{i:03d}.sgf")
    return folder


def small(**changes: object) -> RolloutTrainConfig:
    settings: dict[str, object] = dict(
        size=7,
        steps=60,
        batch_size=64,
        lr=0.05,
        val_fraction=0.25,
        val_every=30,
        checkpoint_every=20,
        log_every=10,
    )
    settings.update(changes)
    return RolloutTrainConfig(**settings)  # type: ignore[arg-type]


def test_training_learns_a_planted_preference(games: Path, tmp_path: Path) -> None:
    weights, summary = train_rollout(tmp_path / "run", [games], small(), progress=False)
    assert summary["examples"] > 500 and summary["val_examples"] > 0
    # Captures were always taken: their weight is large and the largest of the four.
    binary = weights[: pf.PAT3]
    assert weights[pf.CAPTURE] > 1.0
    assert int(np.argmax(binary)) == pf.CAPTURE
    # On held-out games the policy now prefers captures far above chance.
    board = goboard.Board.from_stones(
        np.array(
            [[0, 1, 0, 0, 0], [1, -1, 0, 0, 0], [0, 1, 0, 0, 0]] + [[0] * 5] * 2,
            dtype=np.int8,
        ),
        to_play=1,
    )
    probs = goboard.PatternPolicy(weights).probabilities(board)
    assert int(np.argmax(probs)) == 7  # (1, 2) captures the white stone
    # Files and metrics.
    run = tmp_path / "run"
    np.testing.assert_array_equal(load_rollout_weights(run / "rollout.npz"), weights)
    assert (run / "best.npz").exists()
    records = read_metrics(run / "metrics.jsonl")
    kinds = [r["kind"] for r in records]
    assert kinds.count("train") == 6 and kinds.count("validation") == 2
    last = [r for r in records if r["kind"] == "validation"][-1]
    assert 0.0 <= last["val_accuracy"] <= 1.0
    assert last["val_accuracy"] == summary["val_accuracy"]


def test_a_resumed_run_ends_where_an_uninterrupted_one_does(
    games: Path, tmp_path: Path
) -> None:
    whole, _ = train_rollout(tmp_path / "a", [games], small(steps=40), progress=False)
    train_rollout(tmp_path / "b", [games], small(steps=40), False, stop_after=30)
    # Steps 21..30 are lost with the "crash"; the checkpoint of step 20 resumes.
    resumed, summary = train_rollout(tmp_path / "b", None, None, progress=False)
    assert summary["step"] == 40
    np.testing.assert_array_equal(whole, resumed)
    a = [r for r in read_metrics(tmp_path / "a" / "metrics.jsonl")]
    b = [r for r in read_metrics(tmp_path / "b" / "metrics.jsonl")]
    assert [(r["kind"], r["step"]) for r in a] == [(r["kind"], r["step"]) for r in b]


def test_weights_files(tmp_path: Path) -> None:
    w = np.random.default_rng(0).normal(size=pf.NUM_FEATURES).astype(np.float32)
    path = tmp_path / "w.npz"
    save_rollout_weights(w, path)
    np.testing.assert_array_equal(load_rollout_policy(path).weights, w)
    save_rollout_weights(goboard.PatternPolicy(w), path)
    np.testing.assert_array_equal(load_rollout_weights(path), w)
    with pytest.raises(ValueError, match="finite"):
        save_rollout_weights(np.full(pf.NUM_FEATURES, np.nan, np.float32), path)
    np.testing.assert_array_equal(load_rollout_weights(path), w)  # untouched
    other = tmp_path / "other.npz"
    np.savez(other, kind=np.array("something else"), layout=1, weights=w)
    with pytest.raises(ValueError, match="something else"):
        load_rollout_weights(other)
    np.savez(other, kind=np.array("alphago.rollout-patterns"), layout=99, weights=w)
    with pytest.raises(ValueError, match="layout"):
        load_rollout_weights(other)
    other.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a rollout weights file"):
        load_rollout_weights(other)


def test_cli(games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "cli"
    assert main(["train", "rollout", str(run), "--no-progress"]) == 2
    argv = ["train", "rollout", str(run), "--data", str(games), "--size", "7"]
    argv += ["--steps", "20", "--batch", "32", "--log-every", "10"]
    argv += ["--checkpoint-every", "10", "--val-every", "10", "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "held-out top-1" in out and "rollout.npz" in out
    # Games of another size are skipped (one line each): nothing is left.
    assert main(["train", "rollout", str(tmp_path / "x"), "--data", str(games)]) == 2
    assert "7x7, not 9x9" in capsys.readouterr().err
