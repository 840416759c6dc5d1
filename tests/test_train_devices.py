"""Devices and precisions through self-play, training and the command line: the
options reach the evaluators and learners, and bad requests are one clear line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nets_helpers import tiny_net  # noqa: E402

import alphago.train.rl as rl_module  # noqa: E402
import alphago.train.selfplay as selfplay_module  # noqa: E402
from alphago.cli import main  # noqa: E402
from alphago.nets import NetEvaluator  # noqa: E402
from alphago.nets.precision import default_precision  # noqa: E402
from alphago.nets.weights import weights_bytes  # noqa: E402
from alphago.train.learner import TrainConfig  # noqa: E402
from alphago.train.rl import RLConfig, train_rl  # noqa: E402
from alphago.train.selfplay import SelfPlayConfig, play_games  # noqa: E402
from alphago.train.workers import run_selfplay  # noqa: E402

CUDA = torch.cuda.is_available()
no_cuda = pytest.mark.skipif(CUDA, reason="CUDA is present")

SIZE = 5
CONFIG = SelfPlayConfig(
    simulations=8, parallel_games=4, leaves_per_batch=2, size=SIZE, komi=0.5
)


class _Spy:
    """Records the device and precision of every NetEvaluator made."""

    def __init__(self) -> None:
        self.made: list[tuple[str, str]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> NetEvaluator:
        ev = NetEvaluator(*args, **kwargs)
        self.made.append((str(ev.device), ev.precision))
        return ev


def test_play_games_builds_its_evaluator_on_the_device(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spy = _Spy()
    monkeypatch.setattr(selfplay_module, "NetEvaluator", spy)
    model = tiny_net(SIZE, blocks=1, filters=8)
    auto = play_games(model, CONFIG, 4, seed=3, device="cpu")
    bf16 = play_games(model, CONFIG, 4, seed=3, device="cpu", precision="bf16")
    default = default_precision(torch.device("cpu"), inference=True)
    assert spy.made == [("cpu", default), ("cpu", "bf16")]
    assert len(auto.records) == len(bf16.records) == 4
    assert len(bf16.examples) == bf16.moves > 0
    # Same seed, same device and precision: the same games.
    again = play_games(model, CONFIG, 4, seed=3, device="cpu", precision="bf16")
    np.testing.assert_array_equal(again.examples.policy, bf16.examples.policy)


def test_run_selfplay_passes_device_and_precision(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spy = _Spy()
    monkeypatch.setattr(selfplay_module, "NetEvaluator", spy)
    model = tiny_net(SIZE, blocks=1, filters=8)
    result = run_selfplay(
        weights_bytes(model),
        model.config.to_dict(),
        CONFIG,
        3,
        seed=1,
        workers=1,
        device="auto",
        precision="fp32",
    )
    assert len(result.records) == 3
    assert spy.made == [("cuda" if CUDA else "cpu", "fp32")]


@no_cuda
def test_run_selfplay_refuses_cuda_before_starting_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_workers(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("workers started")

    monkeypatch.setattr("alphago.train.workers._on_processes", no_workers)
    model = tiny_net(SIZE, blocks=1, filters=8)
    with pytest.raises(ValueError, match="CUDA is not available"):
        run_selfplay(
            weights_bytes(model),
            model.config.to_dict(),
            CONFIG,
            4,
            seed=1,
            workers=2,
            device="cuda",
        )
    with pytest.raises(ValueError, match="fp16 needs a CUDA device"):
        run_selfplay(
            weights_bytes(model),
            model.config.to_dict(),
            CONFIG,
            4,
            seed=1,
            workers=2,
            precision="fp16",
        )


class _Stop(Exception):
    pass


def test_train_rl_plumbs_devices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def fake_run_selfplay(*args: Any, **kwargs: Any) -> None:
        seen.update(kwargs)
        raise _Stop

    monkeypatch.setattr(rl_module, "run_selfplay", fake_run_selfplay)
    config = RLConfig(iterations=1, games_per_iteration=2, workers=1, selfplay=CONFIG)
    net = tiny_net(SIZE, blocks=1, filters=8).config
    with pytest.raises(_Stop):
        train_rl(
            tmp_path,
            config,
            net,
            TrainConfig(batch_size=8),
            progress=False,
            precision="bf16",
            selfplay_device="cpu",
        )
    assert seen["device"] == "cpu" and seen["precision"] == "bf16"
    assert seen["workers"] == 1
    # Resuming takes this call's devices (they are not in the checkpoint).
    with pytest.raises(_Stop):
        train_rl(tmp_path, progress=False, precision="fp32")
    assert seen["device"] == "cpu" and seen["precision"] == "fp32"


@no_cuda
def test_train_rl_refuses_cuda_self_play_up_front(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="CUDA is not available"):
        train_rl(tmp_path / "run", progress=False, selfplay_device="cuda")
    assert not (tmp_path / "run").exists()  # nothing was written


# -- the command line --------------------------------------------------------------


def _one_line_error(capsys: pytest.CaptureFixture[str], command: str) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith(f"alphago {command}: error: "), err
    return err


@no_cuda
@pytest.mark.parametrize(
    "argv",
    [
        ["gtp", "--size", "9", "--device", "cuda"],
        ["play", "--device", "cuda"],
        ["bench", "--size", "5", "--playouts", "1", "--simulations", "1"]
        + ["--device", "cuda"],
        ["train", "sl", "RUN", "--data", "x", "--device", "cuda"],
        ["train", "rl", "RUN", "--device", "cpu", "--selfplay-device", "cuda"],
    ],
    ids=["gtp", "play", "bench", "train-sl", "train-rl-selfplay"],
)
def test_cuda_absent_is_one_line(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(tmp_path / "run") if a == "RUN" else a for a in argv]
    assert main(argv) == 1
    err = _one_line_error(capsys, argv[0])
    assert "CUDA is not available here" in err and "--device cpu" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["gtp", "--size", "9", "--precision", "fp16"],
        ["play", "--precision", "fp16"],
        ["bench", "--size", "5", "--playouts", "1", "--simulations", "1"]
        + ["--device", "cpu", "--precision", "fp16"],
        ["train", "sl", "RUN", "--data", "x", "--device", "cpu"]
        + ["--precision", "fp16"],
        ["train", "rl", "RUN", "--device", "cpu", "--precision", "fp16"],
    ],
    ids=["gtp", "play", "bench", "train-sl", "train-rl"],
)
def test_fp16_on_cpu_is_one_line(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(tmp_path / "run") if a == "RUN" else a for a in argv]
    assert main(argv) == 1
    err = _one_line_error(capsys, argv[0])
    assert "precision fp16 does not run on cpu: fp16 needs a CUDA device" in err


def test_unknown_device_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = str(tmp_path / "run")
    assert main(["train", "rl", run, "--selfplay-device", "gpu"]) == 1
    assert "unknown device 'gpu'" in _one_line_error(capsys, "train")


def test_uct_needs_no_device_check(capsys: pytest.CaptureFixture[str]) -> None:
    # --uct runs no network, so a device it would not use is not refused.
    from alphago.cli import build_parser, make_player

    args = build_parser().parse_args(["play", "--uct", "--device", "cuda:7"])
    assert type(make_player(args)).__name__ == "UCTPlayer"


def test_bench_reports_the_precision(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "--size", "5", "--playouts", "10", "--simulations", "8"]
    argv += ["--blocks", "1", "--filters", "8", "--batch", "4", "--threads", "1"]
    assert main([*argv, "--precision", "bf16"]) == 0
    out = capsys.readouterr().out
    assert "network 1x8, 1 threads, cpu bf16:" in out
