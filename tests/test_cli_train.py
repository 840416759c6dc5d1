"""The training commands of ``alphago``: gendata, shards, train sl|rl, report.

Run through ``alphago.cli.main`` in this process, on 5x5 boards with a 1-block 8-filter
net and a handful of seeded random games. ``gendata`` needs GNU Go (skipped without).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from records_helpers import random_record

pytest.importorskip("torch")

from alphago.cli import main  # noqa: E402
from alphago.data.examples import load_shards  # noqa: E402
from alphago.nets.weights import load_weights  # noqa: E402
from alphago.rollout_weights import save_rollout_weights  # noqa: E402
from alphago.sgf import read_sgf, save_sgf  # noqa: E402
from alphago.train.checkpoint import load_checkpoint  # noqa: E402
from alphago.train.metrics import read_metrics  # noqa: E402
from goboard import pattern_features  # noqa: E402

SIZE = 5
NET_ARGS = ["--size", "5", "--blocks", "1", "--filters", "8"]
SL_ARGS = NET_ARGS + ["--steps", "4", "--log-every", "2", "--checkpoint-every", "2"]
SL_ARGS += ["--val-every", "2", "--batch", "16", "--threads", "1", "--no-progress"]


@pytest.fixture(scope="module")
def sgf_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sgf")
    for seed in range(6):
        save_sgf(random_record(seed), out / f"game-{seed}.sgf")
    return out


@pytest.fixture(scope="module")
def shard_dir(tmp_path_factory: pytest.TempPathFactory, sgf_dir: Path) -> Path:
    out = tmp_path_factory.mktemp("shards")
    assert main(["shards", str(sgf_dir), "--out", str(out), "--size", "5"]) == 0
    return out


def test_training_help_does_not_import_torch() -> None:
    code = (
        "import sys\n"
        "from alphago.cli import main\n"
        "for argv in (['gendata', '--help'], ['shards', '--help'],\n"
        "             ['train', 'sl', '--help'], ['train', 'rl', '--help'],\n"
        "             ['report', '--help']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code == 0, exc.code\n"
        "print('TORCH' if 'torch' in sys.modules else 'NO-TORCH')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().endswith("NO-TORCH")
    words = ("--shard-size", "--checkpoint-every", "--kl-target", "--top-k")
    for word in (*words, "--full-search-fraction", "--cheap-simulations"):
        assert word in out


def test_shards_command(
    tmp_path: Path, sgf_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "shards"
    args = ["shards", str(sgf_dir), "--out", str(out), "--size", "5"]
    assert main(args + ["--shard-size", "20", "--planes", "lz18"]) == 0
    examples = load_shards([out])
    assert examples.kind == "lz18" and examples.size == SIZE
    assert len(examples) == 6 * 12
    assert len(list(out.glob("shard-*.npz"))) == 4  # 20 + 20 + 20 + 12
    assert f"6 games, {6 * 12} examples" in capsys.readouterr().out
    # No usable game: exit status 1, and one line on stderr for each skipped file.
    assert main(["shards", str(sgf_dir), "--out", str(tmp_path / "none")]) == 1
    err = capsys.readouterr().err
    skipped = [line for line in err.splitlines() if "skipped: 5x5, not 9x9" in line]
    assert len(skipped) == 6 and all(s.startswith("alphago shards: ") for s in skipped)
    assert "shards: 100%" in err  # the progress bar
    # Without the bar (logs of long runs), the skipped files are still reported.
    none = str(tmp_path / "none2")
    assert main(["shards", str(sgf_dir), "--out", none, "--no-progress"]) == 1
    no_games = "build_shards: no usable games in 6 files"
    assert capsys.readouterr().err.splitlines() == [*skipped, no_games]


def test_train_sl_then_resume_then_report(
    tmp_path: Path, shard_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert main(["train", "sl", str(run), "--data", str(shard_dir)] + SL_ARGS) == 0
    assert "step 4" in capsys.readouterr().out
    weights = load_weights(run / "weights.pt")
    assert weights.config.board_size == SIZE and weights.config.filters == 8
    state = load_checkpoint(run / "checkpoint.pt")
    assert state["learner"]["step"] == 4
    assert state["train_config"]["schedule"] == "cosine"  # the command's default
    assert state["train_config"]["total_steps"] == 4
    lines = read_metrics(run / "metrics.jsonl")

    # Again: the run is finished, nothing more happens.
    assert main(["train", "sl", str(run)] + SL_ARGS) == 0
    assert "step 4" in capsys.readouterr().out
    assert load_checkpoint(run / "checkpoint.pt")["learner"]["step"] == 4
    assert len(read_metrics(run / "metrics.jsonl")) == len(lines)

    assert main(["report", str(run)]) == 0
    png = run / "report.png"
    assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(png) in capsys.readouterr().out


def test_train_sl_errors(
    tmp_path: Path, shard_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", "sl", str(tmp_path / "new")] + SL_ARGS) == 2
    assert "needs --data" in capsys.readouterr().err
    assert not (tmp_path / "new" / "checkpoint.pt").exists()
    seven = ["--size", "7"] + SL_ARGS[2:]
    data = ["--data", str(shard_dir)]
    assert main(["train", "sl", str(tmp_path / "seven")] + data + seven) == 1
    assert "7x7" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "nothing")]) == 2
    for flag in ("--steps", "--val-every", "--checkpoint-every", "--log-every"):
        with pytest.raises(SystemExit) as stop:
            main(["train", "sl", str(tmp_path / "zero"), *data, flag, "0"])
        assert stop.value.code == 2
        assert f"argument {flag}: must be >= 1, not 0" in capsys.readouterr().err
    assert not (tmp_path / "zero").exists()


def test_train_sl_step_schedule_divides_the_rate_at_its_milestones(
    tmp_path: Path, shard_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data", str(shard_dir)]
    step = ["--schedule", "step", "--lr", "0.01"]
    run = tmp_path / "step"
    milestones = ["--milestones", "2"]
    assert main(["train", "sl", str(run), *data, *SL_ARGS, *step, *milestones]) == 0
    state = load_checkpoint(run / "checkpoint.pt")
    assert state["train_config"]["milestones"] == [2]
    rates = [
        r["lr"] for r in read_metrics(run / "metrics.jsonl") if r["kind"] == "train"
    ]
    assert rates == pytest.approx([0.01, 0.001])  # steps 0-1, then 2-3
    # Without milestones the step schedule would be the constant one: refused.
    assert main(["train", "sl", str(tmp_path / "none"), *data, *SL_ARGS, *step]) == 1
    assert "milestones" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "sl", str(tmp_path / "bad"), *data, "--milestones", "x"])
    assert "argument --milestones" in capsys.readouterr().err


def test_train_rl_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "rl"
    args = ["train", "rl", str(run)] + NET_ARGS
    args += ["--iterations", "1", "--games", "2", "--simulations", "4"]
    args += ["--parallel-games", "2", "--updates", "2", "--epochs", "1"]
    args += ["--batch", "8", "--gate-games", "2", "--eval-simulations", "2"]
    args += ["--baseline-every", "0", "--workers", "1", "--threads", "1"]
    args += ["--no-progress", "--seed", "4", "--search", "gumbel"]
    args += ["--full-search-fraction", "0.5", "--cheap-simulations", "2"]
    rollouts = tmp_path / "rollout.npz"  # uniform: every weight 0
    save_rollout_weights(np.zeros(pattern_features.NUM_FEATURES, np.float32), rollouts)
    args += ["--mix-lambda", "0.5", "--rollout-weights", str(rollouts)]
    assert main(args) == 0
    assert "step 2" in capsys.readouterr().out
    state = load_checkpoint(run / "checkpoint.pt")
    assert (state["iteration"], state["phase"]) == (1, "selfplay")
    assert state["games"] == 2 and state["learner"]["step"] == 2
    assert state["rl_config"]["selfplay"]["simulations"] == 4
    assert state["rl_config"]["selfplay"]["search"] == "gumbel"
    assert state["rl_config"]["selfplay"]["full_search_fraction"] == 0.5
    assert state["rl_config"]["selfplay"]["cheap_simulations"] == 2
    assert state["rl_config"]["selfplay"]["mix_lambda"] == 0.5
    assert state["rl_config"]["selfplay"]["rollout_weights"] == str(rollouts)
    # Half the moves, drawn by the seed, became examples.
    assert 0 < state["examples"] < state["moves"]
    assert state["rl_config"]["seed"] == 4
    config = load_weights(run / "best.pt").config
    assert config.board_size == SIZE
    assert config.ownership_head  # the ownership target is on by default in rl
    lines = read_metrics(run / "metrics.jsonl")
    assert [r["kind"] for r in lines] == ["selfplay", "train", "train", "gate"]
    assert all("ownership_loss" in r for r in lines if r["kind"] == "train")
    assert (lines[0]["moves"], lines[0]["examples"]) == (
        state["moves"],
        state["examples"],
    )
    # Again: finished, so it only reports where the best network is.
    assert main(args) == 0
    assert "best network" in capsys.readouterr().out
    assert len(read_metrics(run / "metrics.jsonl")) == 4


def test_ownership_target_defaults() -> None:
    """On in self-play (it won at equal CPU time, README), off in supervised runs."""
    from alphago.cli import build_parser

    parse = build_parser().parse_args
    assert parse(["train", "rl", "run"]).ownership_weight == 1.5
    off = parse(["train", "rl", "run", "--ownership-weight", "0"])
    assert off.ownership_weight == 0
    assert parse(["train", "sl", "run", "--data", "shards"]).ownership_weight == 0


def test_train_rl_on_alphago49_planes(tmp_path: Path) -> None:
    # Self-play writes the planes its net reads, and training takes them.
    run = tmp_path / "rl49"
    args = ["train", "rl", str(run)] + NET_ARGS + ["--planes", "alphago49"]
    args += ["--iterations", "1", "--games", "2", "--simulations", "4"]
    args += ["--parallel-games", "2", "--updates", "2", "--epochs", "1"]
    args += ["--batch", "8", "--gate-games", "2", "--eval-simulations", "2"]
    args += ["--baseline-every", "0", "--workers", "1", "--threads", "1"]
    args += ["--no-progress", "--seed", "4"]
    assert main(args) == 0
    state = load_checkpoint(run / "checkpoint.pt")
    assert state["examples"] > 0 and state["learner"]["step"] == 2
    assert load_weights(run / "best.pt").config.input_planes == "alphago49"


def test_train_rl_with_anchor_shards(
    tmp_path: Path, shard_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "rl"
    args = ["train", "rl", str(run)] + NET_ARGS
    args += ["--iterations", "1", "--games", "2", "--simulations", "4"]
    args += ["--parallel-games", "2", "--updates", "2", "--epochs", "1"]
    args += ["--batch", "8", "--gate-games", "0", "--baseline-every", "0"]
    args += ["--workers", "1", "--threads", "1", "--no-progress"]
    bad = args + ["--anchor-data", str(tmp_path / "missing")]
    assert main(bad) == 1
    assert "missing" in capsys.readouterr().err
    assert main(bad[:-1] + [str(shard_dir), "--anchor-fraction", "1"]) == 1
    assert "anchor_fraction must be in (0, 1), not 1" in capsys.readouterr().err
    args += ["--anchor-data", str(shard_dir), "--anchor-fraction", "0.5"]
    assert main(args) == 0
    stored = load_checkpoint(run / "checkpoint.pt")["rl_config"]
    assert (list(stored["anchor_data"]), stored["anchor_fraction"]) == (
        [str(shard_dir)],
        0.5,
    )


def test_train_rl_refuses_a_cheap_budget_not_below_the_full_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["train", "rl", str(tmp_path / "rl")] + NET_ARGS + ["--simulations", "4"]
    args += ["--full-search-fraction", "0.25", "--cheap-simulations", "4"]
    assert main(args) == 1
    assert "cheap_simulations must be < simulations" in capsys.readouterr().err
    assert not (tmp_path / "rl").exists()


def test_train_rl_refuses_rollouts_it_has_not_got(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["train", "rl", str(tmp_path / "rl")] + NET_ARGS + ["--mix-lambda", "0.5"]
    assert main(args) == 1  # no rollout policy ships for 5x5
    assert "no rollout policy ships for 5x5" in capsys.readouterr().err
    assert main(args + ["--rollout-weights", str(tmp_path / "missing.npz")]) == 1
    assert "missing.npz" in capsys.readouterr().err
    assert main(args[:-1] + ["1.5"]) == 1
    assert "mix_lambda must be in [0.0, 1.0], not 1.5" in capsys.readouterr().err


GNUGO = shutil.which("gnugo") or shutil.which("/usr/games/gnugo")


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed")
def test_gendata_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["gendata", str(tmp_path), "--games", "1", "--level", "0", "--size", "5"]
    args += ["--komi", "0.5", "--workers", "1", "--opening-plies", "2"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "1 games written" in captured.out
    assert "gendata: 100%" in captured.err  # the progress bar
    record = read_sgf((tmp_path / "game-000000.sgf").read_bytes())
    assert record.size == SIZE and record.komi == 0.5 and record.result
    assert main([*args, "--no-progress"]) == 0  # nothing missing: nothing played
    captured = capsys.readouterr()
    assert "0 games written" in captured.out
    assert captured.err == ""


@pytest.mark.parametrize("gnugo", ["/nonexistent/gnugo", "/bin/false"])
def test_gendata_without_a_working_gnugo_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], gnugo: str
) -> None:
    out = tmp_path / "games"
    args = ["gendata", str(out), "--games", "3", "--size", "5", "--workers", "1"]
    assert main([*args, "--gnugo", gnugo, "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "alphago gendata: error:" in err and "Traceback" not in err
    assert not out.exists()  # the refused command leaves no folder


def test_train_sl_on_alphago49_planes_then_play(
    tmp_path: Path, sgf_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The Zero net on the 2016 value net's planes: shards, training and a GTP game.
    shards = tmp_path / "shards49"
    args = ["shards", str(sgf_dir), "--out", str(shards), "--size", "5"]
    assert main(args + ["--planes", "alphago49"]) == 0
    assert load_shards([shards]).kind == "alphago49"
    run = tmp_path / "run49"
    train = ["train", "sl", str(run), "--data", str(shards), "--planes", "alphago49"]
    assert main(train + SL_ARGS) == 0
    assert load_weights(run / "weights.pt").config.input_planes == "alphago49"
    # The other kind's net refuses these shards, naming both kinds.
    capsys.readouterr()
    other = ["train", "sl", str(tmp_path / "run17"), "--data", str(shards)]
    assert main(other + SL_ARGS) == 1
    err = capsys.readouterr().err
    assert "alphago49" in err and "agz17" in err
    assert not (tmp_path / "run17" / "checkpoint.pt").exists()
    gtp = [sys.executable, "-m", "alphago.cli", "gtp", "--size", "5"]
    gtp += ["--weights", str(run / "weights.pt"), "--simulations", "16"]
    out = subprocess.run(
        gtp,
        input="genmove b\ngenmove w\nquit\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    replies = [line for line in out.splitlines() if line.startswith("=")]
    assert len(replies) == 3 and all(len(r) > 2 for r in replies[:2]), out


@pytest.mark.parametrize(
    "argv",
    [
        ["train", "rl", "{out}", "--init", "{junk}", "--size", "5"],
        ["train", "sl", "{out}", "--data", "{junk}", "--size", "5"],
        ["train", "rollout", "{out}", "--data", "{junk}", "--size", "5"],
        ["shards", "{junk}", "--out", "{out}", "--size", "5", "--no-progress"],
    ],
)
def test_a_refused_command_leaves_no_folder_behind(
    tmp_path: Path, argv: list[str]
) -> None:
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"garbage")
    out = tmp_path / "new" / "run"
    args = [a.format(out=out, junk=junk) for a in argv]
    assert main(args) != 0
    assert not out.exists()
    # A folder that was there before stays, empty or not.
    out.mkdir(parents=True)
    assert main(args) != 0
    assert out.is_dir()
