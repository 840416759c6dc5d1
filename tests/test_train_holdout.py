"""``alphago validate`` (:mod:`alphago.train.holdout`): networks scored on the same
held-out positions, the split ``train sl --val-fraction`` holds out.

Tiny: 5x5 boards, 1-block 8-filter nets, 6 seeded random games in two shards.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from records_helpers import random_examples, two_shards

torch = pytest.importorskip("torch")

from alphago.cli import main  # noqa: E402
from alphago.data.examples import Examples  # noqa: E402
from alphago.nets.model import NetConfig, PolicyValueNet  # noqa: E402
from alphago.nets.weights import save_weights  # noqa: E402
from alphago.train.holdout import table, validate_networks  # noqa: E402
from alphago.train.learner import aux_losses  # noqa: E402

torch.set_num_threads(1)

SIZE = 5
PLAIN = NetConfig(board_size=SIZE, blocks=1, filters=8)
AUX = NetConfig(
    board_size=SIZE, blocks=1, filters=8, ownership_head=True, score_head=True
)


@pytest.fixture(scope="module")
def examples() -> Examples:
    return random_examples(6)


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory, examples: Examples) -> Path:
    return two_shards(examples, tmp_path_factory.mktemp("shards"), 40)


def net_file(tmp: Path, name: str, config: NetConfig, seed: int) -> Path:
    torch.manual_seed(seed)
    model = PolicyValueNet(config).eval()
    # Batch-norm statistics away from the defaults, so eval mode is what is scored.
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            assert module.running_mean is not None and module.running_var is not None
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    path = tmp / name
    save_weights(model, path)
    return path


def plain_metrics(path: Path, held: Examples) -> dict[str, float]:
    """The figures by their definitions, on the rows given."""
    from alphago.nets.weights import load_weights

    model = load_weights(path).eval()
    x = torch.from_numpy(held.planes.astype(np.float32))
    with torch.no_grad():
        logits, value, _ = model(x)
    pi = torch.from_numpy(held.policy)
    z = torch.from_numpy(held.value)
    logp = torch.log_softmax(logits, dim=1)
    return {
        "val_policy_loss": float(-(pi * logp).sum(1).mean()),
        "val_value_mse": float(((value.reshape(-1) - z) ** 2).mean()),
        "val_accuracy": float((logits.argmax(1) == pi.argmax(1)).float().mean()),
    }


def test_each_network_is_scored_on_the_last_fraction_by_the_plain_formulas(
    tmp_path: Path, shards: Path, examples: Examples
) -> None:
    a = net_file(tmp_path, "a.pt", PLAIN, 1)
    b = net_file(tmp_path, "b.pt", PLAIN, 2)
    positions, results = validate_networks([a, b], [shards], holdout=0.25)
    cut = len(examples) - round(len(examples) * 0.25)
    held = examples.take(slice(cut, None))
    assert positions == len(held) > 0
    for path, got in zip((a, b), results, strict=True):
        want = plain_metrics(path, held)
        assert got.keys() == want.keys()  # no auxiliary heads, no auxiliary losses
        for key, value in want.items():
            assert got[key] == pytest.approx(value, rel=1e-4, abs=1e-6), key
    assert results[0] != results[1]  # each network its own figures, in order
    everything, _ = validate_networks([a], [shards])
    assert everything == len(examples)


def test_auxiliary_losses_are_reported_only_for_networks_with_the_heads(
    tmp_path: Path, shards: Path, examples: Examples
) -> None:
    plain = net_file(tmp_path, "plain.pt", PLAIN, 3)
    aux = net_file(tmp_path, "aux.pt", AUX, 4)
    _, (p, a) = validate_networks([plain, aux], [shards], holdout=0.5)
    assert "val_ownership_loss" not in p
    held = examples.take(slice(len(examples) - round(len(examples) * 0.5), None))
    from alphago.nets.weights import load_weights

    model = load_weights(aux).eval()
    assert held.ownership is not None and held.score is not None
    with torch.no_grad():
        heads = model.heads(torch.from_numpy(held.planes.astype(np.float32)))
        own, score = aux_losses(
            heads, torch.from_numpy(held.ownership), torch.from_numpy(held.score)
        )
    assert a["val_ownership_loss"] == pytest.approx(float(own), rel=1e-4)
    assert a["val_score_loss"] == pytest.approx(float(score), rel=1e-4)
    text = table(["plain", "aux"], [p, a])
    lines = text.splitlines()
    assert lines[0] == (
        "| network | top-1 | policy loss | value MSE | ownership loss | score loss |"
    )
    assert lines[2].startswith("| plain | ") and lines[2].endswith("| - | - |")
    assert lines[3] == (
        f"| aux | {100 * a['val_accuracy']:.1f}% | {a['val_policy_loss']:.3f} | "
        f"{a['val_value_mse']:.3f} | {a['val_ownership_loss']:.3f} | "
        f"{a['val_score_loss']:.3f} |"
    )


def test_a_training_runs_own_validation_is_scored_again_the_same(
    tmp_path: Path, shards: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    args = ["train", "sl", str(run), "--data", str(shards), "--size", str(SIZE)]
    args += ["--blocks", "1", "--filters", "8", "--steps", "3", "--batch", "8"]
    args += ["--val-every", "3", "--val-fraction", "0.25", "--precision", "fp32"]
    assert main(args + ["--no-progress", "--threads", "1"]) == 0
    rows = [
        json.loads(line)
        for line in (run / "metrics.jsonl").read_text().split("\n")
        if line
    ]
    logged = [r for r in rows if r["kind"] == "validation"][-1]
    capsys.readouterr()
    assert (
        main(
            [
                "validate",
                str(run / "best.pt"),
                "--data",
                str(shards),
                "--holdout",
                "0.25",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("positions held out")
    cells = [c.strip() for c in out[3].split("|")[1:-1]]
    assert cells[0] == str(run / "best.pt")
    assert cells[1] == f"{100 * logged['val_accuracy']:.1f}%"
    assert cells[2] == f"{logged['val_policy_loss']:.3f}"
    assert cells[3] == f"{logged['val_value_mse']:.3f}"


def test_bad_requests_get_one_line_naming_what_is_wrong(
    tmp_path: Path, shards: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = net_file(tmp_path, "big.pt", NetConfig(board_size=7, blocks=1, filters=8), 5)
    with pytest.raises(ValueError, match=r"7x7 agz17 network; the data is 5x5 agz17"):
        validate_networks([big], [shards])
    small = net_file(tmp_path, "small.pt", PLAIN, 6)
    for fraction in (0.0, -0.5, 1.5):
        with pytest.raises(ValueError, match=r"--holdout must be in \(0, 1\]"):
            validate_networks([small], [shards], holdout=fraction)
    with pytest.raises(ValueError, match="no positions held out"):
        validate_networks([small], [shards], holdout=1e-6)
    not_a_net = tmp_path / "notes.pt"
    not_a_net.write_text("hello")
    capsys.readouterr()
    assert main(["validate", str(not_a_net), "--data", str(shards)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("alphago validate: error: ") and err.count("\n") == 1
