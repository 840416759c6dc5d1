"""The kill -9 campaign (``scripts/kill_campaign.py``, issue 17): its checker flags
damaged files, a tiny campaign runs, and the bugs it found stay fixed.

The campaign itself (>= 100 kills over gendata, shards, train sl and train rl) is run
by hand; here one shards campaign of 2 kills on 5x5 games (a few seconds) and unit
tests of what the checker accepts and refuses.
"""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path
from typing import Any

import pytest
from records_helpers import random_record
from scripts_helpers import load_script

torch = pytest.importorskip("torch")

from alphago.data import dataset  # noqa: E402
from alphago.data.dataset import PROGRESS_FILE, build_shards, game_examples  # noqa: E402
from alphago.data.examples import Examples, load_shards  # noqa: E402
from alphago.nets.model import NetConfig, PolicyValueNet  # noqa: E402
from alphago.nets.weights import save_weights  # noqa: E402
from alphago.sgf import save_sgf  # noqa: E402
from alphago.train.checkpoint import save_checkpoint  # noqa: E402

kc = load_script("kill_campaign")


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.fixture
def sgf_dir(tmp_path: Path) -> Path:
    """Twelve 5x5 games of 6 to 17 moves."""
    out = tmp_path / "sgf"
    out.mkdir()
    for seed in range(12):
        save_sgf(random_record(seed, 6 + seed), out / f"g{seed:02d}.sgf")
    return out


# -- the checker --------------------------------------------------------------------


def test_games_truncated_changed_or_lost_are_flagged(tmp_path: Path) -> None:
    ref, out = tmp_path / "ref", tmp_path / "out"
    for directory in (ref, out):
        directory.mkdir()
        for i in range(3):
            save_sgf(random_record(i, 10), directory / f"game-{i:06d}.sgf")
    gendata = kc.Gendata()
    memory: dict[str, Any] = {}
    (out / ".game-000003.sgf.4242.0123abcd.tmp").write_bytes(b"(;GM[1]")  # a temporary
    assert gendata.check_killed(out, ref, memory) == []
    assert gendata.listing(out).temporaries == [".game-000003.sgf.4242.0123abcd.tmp"]

    _truncate(out / "game-000001.sgf")
    save_sgf(random_record(7, 10), out / "game-000002.sgf")
    (out / "game-000000.sgf").unlink()
    (out / "notes.txt").write_text("?")
    problems = gendata.check_killed(out, ref, memory)
    assert any(p.startswith("game-000001.sgf: not a readable SGF") for p in problems)
    assert "game-000002.sgf: differs from the reference game" in problems
    assert "game-000000.sgf: a finished game was lost" in problems
    assert "notes.txt: an unexpected entry" in problems
    # A temporary of a name the command never writes is no temporary of its own.
    (out / ".other.4242.0123abcd.tmp").write_bytes(b"")
    assert ".other.4242.0123abcd.tmp: an unexpected entry" in gendata.check_killed(
        out, ref, {}
    )


def test_shards_truncated_or_partial_without_progress_are_flagged(
    tmp_path: Path, sgf_dir: Path
) -> None:
    ref, out = tmp_path / "ref", tmp_path / "out"
    build_shards([sgf_dir], ref, 5, shard_size=8)
    shards = kc.Shards(inputs=sgf_dir, size=5, shard_size=8)
    out.mkdir()
    first = ref / "shard-00000.npz"
    (out / first.name).write_bytes(first.read_bytes())
    # One shard of several and no progress file: it passes for a finished run.
    (problem,) = shards.check_killed(out, ref, {})
    assert "no shards.progress" in problem
    assert not shards.finished(out, ref)

    _truncate(out / first.name)
    (out / PROGRESS_FILE).write_bytes(b"garbage")
    problems = shards.check_killed(out, ref, {})
    assert any("shard-00000.npz: not a readable shard" in p for p in problems)
    assert any("shards.progress: not a readable progress file" in p for p in problems)

    for path in ref.iterdir():
        (out / path.name).write_bytes(path.read_bytes())
    (out / PROGRESS_FILE).unlink()
    assert shards.check_final(out, ref) == []
    assert shards.finished(out, ref)


def test_checkpoints_weights_and_metrics_truncated_are_flagged(tmp_path: Path) -> None:
    net = PolicyValueNet(NetConfig(board_size=5, blocks=1, filters=8))
    save_weights(net, tmp_path / "weights.pt")
    save_checkpoint(tmp_path / "checkpoint.pt", {"kind": "sl"})
    assert kc.check_weights(tmp_path / "weights.pt") is None
    assert kc.check_checkpoint(tmp_path / "checkpoint.pt", "sl") is None
    assert "not rl" in str(kc.check_checkpoint(tmp_path / "checkpoint.pt", "rl"))
    _truncate(tmp_path / "weights.pt")
    _truncate(tmp_path / "checkpoint.pt")
    assert "not a readable weights file" in str(
        kc.check_weights(tmp_path / "weights.pt")
    )
    problem = kc.check_checkpoint(tmp_path / "checkpoint.pt", "sl")
    assert "not a readable checkpoint" in str(problem)

    metrics = tmp_path / "metrics.jsonl"
    lines = [json.dumps({"kind": "train", "step": s}) for s in (1, 2, 3)]
    metrics.write_text("\n".join(lines) + "\n" + lines[0][:7])  # a torn last line
    read = kc.read_metrics_strict(metrics)
    assert (len(read.records), read.torn, read.problem) == (3, True, None)
    metrics.write_text(lines[0] + "\n" + lines[1][:9] + "\n" + lines[2] + "\n")
    read = kc.read_metrics_strict(metrics)
    assert read.problem is not None and read.problem.startswith("metrics.jsonl:2:")


def test_metrics_are_compared_without_their_times() -> None:
    a = [{"time": 1.0, "kind": "train", "step": 1, "loss": 0.5}]
    b = [{"time": 2.0, "kind": "train", "step": 1, "loss": 0.5}]
    assert kc.first_difference(a, b, ("time",)) is None
    assert "differs" in str(kc.first_difference(a, [dict(b[0], loss=0.6)], ("time",)))
    assert "2 metrics records" in str(kc.first_difference(a + a, b, ("time",)))


# -- a tiny campaign ------------------------------------------------------------------


def test_a_small_shards_campaign(tmp_path: Path, sgf_dir: Path) -> None:
    shards = kc.Shards(inputs=sgf_dir, size=5, shard_size=8)
    ref = tmp_path / "reference"
    reference = kc.run_reference(shards, ref, tmp_path / "reference.log")
    assert reference[1] > 0  # its directory was seen changing
    said: list[str] = []
    result = kc.campaign(
        shards, ref, tmp_path / "campaign", 2, random.Random(3), reference, said.append
    )
    assert result.failures == []
    assert result.kills == 2 and result.runs >= 3
    assert result.resumes_verified == 2
    lines = (tmp_path / "campaign" / "kills.jsonl").read_text().splitlines()
    assert len(lines) == result.runs
    assert [json.loads(line)["killed"] for line in lines].count(True) == 2
    assert "finished after" in said[-1]
    table = kc.summary_table([result])
    assert table.splitlines()[1].split()[:4] == ["shards", str(result.cycles)] + [
        str(result.runs),
        "2",
    ]


def test_the_cli_refuses_unknown_commands_and_a_used_workdir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        kc.main(["--workdir", str(tmp_path / "new"), "--commands", "selfplay"])
    assert "unknown commands ['selfplay']" in capsys.readouterr().err
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "x").write_text("")
    with pytest.raises(SystemExit):
        kc.main(["--workdir", str(tmp_path / "used"), "--commands", "shards"])
    assert "is not empty" in capsys.readouterr().err


# -- what the campaign found ----------------------------------------------------------


class Crash(Exception):
    """Stands for kill -9 at that moment."""


def test_a_crash_right_after_the_first_shard_leaves_an_unfinished_run(
    tmp_path: Path, sgf_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first shard used to be written before any progress record: killed then,
    # the directory passed for a finished one (load_shards read a part of the data)
    # and the same command refused it ("already holds shards").
    ref, out = tmp_path / "ref", tmp_path / "out"
    build_shards([sgf_dir], ref, 5, shard_size=8)
    real_save = Examples.save

    def save_then_crash(self: Examples, path: str | Path) -> None:
        real_save(self, path)
        raise Crash

    monkeypatch.setattr(Examples, "save", save_then_crash)
    with pytest.raises(Crash):
        build_shards([sgf_dir], out, 5, shard_size=8)
    monkeypatch.undo()
    assert (out / "shard-00000.npz").exists()
    with pytest.raises(ValueError, match="unfinished"):
        load_shards([out])
    assert build_shards([sgf_dir], out, 5, shard_size=8) == (12, sum(range(6, 18)))
    assert sorted(p.name for p in out.iterdir()) == sorted(
        p.name for p in ref.iterdir()
    )
    for path in ref.iterdir():
        assert (out / path.name).read_bytes() == path.read_bytes()


def test_every_shard_is_written_beside_a_progress_record(
    tmp_path: Path, sgf_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    real_save = Examples.save
    seen: list[bool] = []

    def save(self: Examples, path: str | Path) -> None:
        seen.append((out / PROGRESS_FILE).exists())
        real_save(self, path)

    monkeypatch.setattr(Examples, "save", save)
    build_shards([sgf_dir], out, 5, shard_size=8)
    assert len(seen) > 1 and all(seen)
    assert not (out / PROGRESS_FILE).exists()


def test_no_usable_game_leaves_no_progress_file(tmp_path: Path) -> None:
    sgf = tmp_path / "sgf"
    sgf.mkdir()
    (sgf / "bad.sgf").write_text("(;GM[1]SZ[5];B[cc")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert build_shards([sgf], tmp_path / "out", 5) == (0, 0)
    assert list((tmp_path / "out").iterdir()) == []


def test_shards_examples_fixture_is_what_build_shards_counts(sgf_dir: Path) -> None:
    # (The counts the regression tests above rely on.)
    from alphago.sgf import read_sgf

    total = sum(
        len(game_examples(read_sgf(p.read_bytes()))) for p in sorted(sgf_dir.iterdir())
    )
    assert total == sum(range(6, 18))
    assert dataset.PROGRESS_FILE == PROGRESS_FILE


def test_a_crash_after_best_was_replaced_replays_the_same_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The evaluation phase replaced best.pt by the accepted candidate and then played
    # the baseline match before its checkpoint: killed in between, the rerun played
    # the gate again, with the candidate as "best" (itself against itself).
    import alphago.train.rl as rl_module
    from alphago.nets.weights import load_weights
    from alphago.train.metrics import read_metrics
    from alphago.train.rl import RLConfig, train_rl
    from alphago.train.selfplay import SelfPlayConfig

    torch.set_num_threads(1)
    size = 5
    config = RLConfig(
        iterations=1,
        games_per_iteration=2,
        updates_per_iteration=2,
        epochs=1,
        gate_games=2,
        gate_threshold=0.0,  # the candidate is accepted
        eval_simulations=2,
        baseline_every=1,
        baseline_games=2,
        workers=1,
        seed=3,
        selfplay=SelfPlayConfig(
            simulations=4, parallel_games=2, leaves_per_batch=2, size=size, komi=0.5
        ),
    )
    from alphago.train.learner import TrainConfig

    net = NetConfig(board_size=size, blocks=1, filters=8)
    train = TrainConfig(lr=1e-3, batch_size=8)
    real_arena = rl_module.play_arena
    gates: dict[str, list[bool]] = {"whole": [], "killed": []}
    calls: list[str] = []

    def arena(run: str, crash_at: int | None) -> Any:
        def play(a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
            calls.append(b.name)
            if b.name == "best":  # the gate: was "best" the network before training?
                initial = load_weights(tmp_path / "initial.pt").state_dict()
                best = b.model.state_dict()
                gates[run].append(all(torch.equal(initial[k], best[k]) for k in best))
            if crash_at is not None and len(calls) == crash_at:
                raise Crash
            return real_arena(a, b, *args, **kwargs)

        return play

    def strip(run: Path) -> list[dict[str, Any]]:
        drop = ("time", "games_per_hour", "cpu_hours")
        records = read_metrics(run / "metrics.jsonl")
        return [{k: v for k, v in r.items() if k not in drop} for r in records]

    start = PolicyValueNet(net)
    save_weights(start, tmp_path / "initial.pt")
    monkeypatch.setattr(rl_module, "play_arena", arena("whole", None))
    train_rl(
        tmp_path / "whole", config, net, train, tmp_path / "initial.pt", progress=False
    )
    calls.clear()
    monkeypatch.setattr(rl_module, "play_arena", arena("killed", 2))  # the baseline
    with pytest.raises(Crash):
        train_rl(
            tmp_path / "killed",
            config,
            net,
            train,
            tmp_path / "initial.pt",
            progress=False,
        )
    calls.clear()
    monkeypatch.setattr(rl_module, "play_arena", arena("killed", None))
    train_rl(tmp_path / "killed", progress=False)
    assert gates["whole"] == [True]
    assert all(gates["killed"]), "the rerun's gate played the candidate as best"
    assert strip(tmp_path / "killed") == strip(tmp_path / "whole")


def test_a_run_killed_before_its_first_checkpoint_logs_each_step_once(
    tmp_path: Path, sgf_dir: Path
) -> None:
    # Killed after its first metrics lines and before its first checkpoint, a
    # supervised run started again from step 0 and appended to those lines: steps
    # 10 and 20 were logged twice.
    from alphago.train.learner import TrainConfig
    from alphago.train.metrics import read_metrics
    from alphago.train.sl import SLConfig, train_sl

    torch.set_num_threads(1)
    build_shards([sgf_dir], tmp_path / "shards", 5, shard_size=50)
    net = NetConfig(board_size=5, blocks=1, filters=8)
    train = TrainConfig(lr=1e-3, batch_size=8)
    config = SLConfig(steps=6, val_every=3, checkpoint_every=4, log_every=2, seed=1)

    def run(name: str, stop_after: int | None = None) -> Path:
        out = tmp_path / name
        train_sl(
            out,
            [tmp_path / "shards"],
            net,
            train,
            config,
            progress=False,
            stop_after=stop_after,
        )
        return out

    def steps(out: Path) -> list[tuple[str, int, float]]:
        records = read_metrics(out / "metrics.jsonl")
        return [(r["kind"], r["step"], r.get("loss", 0.0)) for r in records]

    whole = run("whole")
    killed = run("killed", stop_after=3)  # lines for steps 2 and 3, no checkpoint
    assert not (killed / "checkpoint.pt").exists()
    assert [s[:2] for s in steps(killed)] == [("train", 2), ("validation", 3)]
    run("killed")
    assert steps(killed) == steps(whole)
