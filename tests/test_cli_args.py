"""The command line's number types: bad values are refused while argv is read, naming
the flag, before a command prints, loads or starts anything."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from alphago.cli import main
from alphago.cli_args import (
    MAX_BLOCKS,
    MAX_FILTERS,
    at_least,
    board_size,
    finite,
    komi,
    memory_mb,
    positive,
    seed,
    threads,
)


def test_at_least() -> None:
    assert at_least(1)("3") == 3 and at_least(0)("0") == 0
    with pytest.raises(argparse.ArgumentTypeError, match="must be >= 1, not 0"):
        at_least(1)("0")
    with pytest.raises(argparse.ArgumentTypeError, match="not an integer: '2.5'"):
        at_least(1)("2.5")


def test_board_size() -> None:
    assert board_size("2") == 2 and board_size("19") == 19
    for text, message in (("1", ">= 2, not 1"), ("20", "in 2..19, not 20")):
        with pytest.raises(argparse.ArgumentTypeError, match=message):
            board_size(text)


def test_komi_seed_threads_and_memory() -> None:
    assert komi("-6.5") == -6.5 and komi("1000") == 1000.0
    assert seed("0") == 0 and threads("1") == 1 and threads("1024") == 1024
    assert memory_mb("1") == 1
    for parse, text in ((komi, "1000.5"), (seed, "-1"), (threads, "0")):
        with pytest.raises(argparse.ArgumentTypeError, match="must be"):
            parse(text)
    with pytest.raises(argparse.ArgumentTypeError, match="in 1..1024"):
        threads("1025")
    with pytest.raises(argparse.ArgumentTypeError, match="at most"):
        positive("1e12")


def test_finite_and_positive() -> None:
    assert finite("-6.5") == -6.5 and positive("0.25") == 0.25
    for text in ("nan", "inf", "-inf"):
        with pytest.raises(argparse.ArgumentTypeError, match="must be finite"):
            finite(text)
        with pytest.raises(argparse.ArgumentTypeError, match="must be finite"):
            positive(text)
    for text in ("0", "-1"):
        with pytest.raises(
            argparse.ArgumentTypeError, match=f"must be > 0, not {text}"
        ):
            positive(text)
    with pytest.raises(argparse.ArgumentTypeError, match="not a number: 'x'"):
        finite("x")


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["gtp", "--size", "30"], "--size"),
        (["gtp", "--komi", "nan"], "--komi"),
        (["gtp", "--simulations", "0"], "--simulations"),
        (["gtp", "--threads", "0"], "--threads"),
        (["gtp", "--analysis-visits", "0"], "--analysis-visits"),
        (["analysis", "--analysis-memory", "0"], "--analysis-memory"),
        (["play", "--time", "-1"], "--time"),
        (["play", "--size", "1"], "--size"),
        (["bench", "--batch", "0"], "--batch"),
        (["bench", "--playouts", "-1"], "--playouts"),
        (["bench", "--simulations", "0"], "--simulations"),
        (["bench", "--filters", "0"], "--filters"),
        (["bench", "--blocks", "-1"], "--blocks"),
        (["bench", "--size", "20"], "--size"),
        (["eval", "a", "b", "--games", "0"], "--games"),
        (["eval", "a", "b", "--parallel", "0"], "--parallel"),
        (["eval", "a", "b", "--max-moves", "0"], "--max-moves"),
        (["eval", "a", "b", "--move-timeout", "0"], "--move-timeout"),
        (["eval", "a", "b", "--komi", "inf"], "--komi"),
        (["train", "policy-rl", "run", "--komi", "nan"], "--komi"),
        (["train", "value", "run", "--size", "40"], "--size"),
        (["gendata", "out", "--size", "30"], "--size"),
        (["gtp", "--seed", "-1"], "--seed"),
        (["train", "value", "run", "--seed", "-1"], "--seed"),
        (["train", "rollout", "run", "--seed", "-2"], "--seed"),
        (["bench", "--threads", "100000"], "--threads"),
        (["play", "--threads", "100000"], "--threads"),
        (["train", "sl", "run", "--threads", "-1"], "--threads"),
        (["validate", "net.pt", "--data", "d", "--threads", "0"], "--threads"),
        (["gtp", "--rollout-threads", "5000"], "--rollout-threads"),
        (["eval", "a", "b", "--move-timeout", "1e10"], "--move-timeout"),
        (["eval", "a", "b", "--komi", "2000"], "--komi"),
        (["gendata", "out", "--komi", "-1001"], "--komi"),
        (["gtp", "--komi", "1e300"], "--komi"),
        (["gtp", "--simulations", "2000000000"], "--simulations"),
        (["bench", "--simulations", "2000000000"], "--simulations"),
        (["bench", "--filters", "100000"], "--filters"),
        (["bench", "--blocks", "100000"], "--blocks"),
        (["bench", "--batch", "100000000"], "--batch"),
        (["analysis", "--analysis-memory", "100000000000"], "--analysis-memory"),
    ],
)
def test_bad_numbers_stop_the_command_before_it_starts(
    argv: list[str],
    flag: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # a run or output directory would appear here
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""  # no benchmark line, no banner, no board
    assert err.splitlines()[-1].startswith(f"alphago {argv[0]}")
    assert f"argument {flag}: must be" in err
    assert "game/s" not in err  # a match's progress bar never started
    assert list(tmp_path.iterdir()) == []


def test_the_network_limits_are_net_configs() -> None:
    pytest.importorskip("torch")
    from alphago.nets.model import NetConfig

    NetConfig(board_size=5, blocks=MAX_BLOCKS, filters=MAX_FILTERS)
    for too_many in ({"blocks": MAX_BLOCKS + 1}, {"filters": MAX_FILTERS + 1}):
        with pytest.raises(ValueError, match="must be in"):
            NetConfig(board_size=5, **too_many)  # type: ignore[arg-type]
