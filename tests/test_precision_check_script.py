"""alphago.nets.agreement and scripts/precision_check.py: bf16 against fp32 on a
network's own games."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripts_helpers import load_script

pytest.importorskip("torch")

from nets_helpers import tiny_net  # noqa: E402

from alphago.nets.agreement import precision_agreement  # noqa: E402
from alphago.nets.weights import save_weights  # noqa: E402

precision_check = load_script("precision_check")


def test_agreement_counts_every_position_and_finds_bf16_close() -> None:
    got = precision_agreement(tiny_net(5, blocks=2), 5, games=3, moves=6, batch=4)
    assert got["positions"] == 18  # the three seeded games all last 6 moves
    assert 0.9 <= got["agreement"] <= 1.0
    assert 0 < got["value_max"] < 0.1  # bf16 really ran, and stayed close
    assert got["value_mean"] <= got["value_max"]
    assert 0 <= got["tv_mean"] <= got["tv_max"] < 0.1


def test_command_line_reads_a_weights_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tiny.pt"
    save_weights(tiny_net(5), path)
    precision_check.main(
        ["--size", "5", "--games", "2", "--moves", "3", "--weights", str(path)]
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{path}: 6 positions of 2 games"
    assert lines[1].startswith("top-1 agreement ")
    assert lines[3].startswith("value |fp32 - bf16|: mean ")


def test_every_call_is_large_enough_to_run_in_bf16(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Below CPU_BF16_MIN_ROWS rows the CPU evaluator runs fp32 whatever it was asked
    # for: such a call would compare fp32 with itself.
    from alphago.nets import NetEvaluator
    from alphago.nets.evaluator import CPU_BF16_MIN_ROWS

    sizes: list[int] = []
    evaluate = NetEvaluator.evaluate

    def spy(self, positions):  # type: ignore[no-untyped-def]
        if self.precision == "bf16":
            sizes.append(len(positions))
        return evaluate(self, positions)

    monkeypatch.setattr(NetEvaluator, "evaluate", spy)
    got = precision_agreement(tiny_net(5), 5, games=3, moves=3, batch=4)
    assert got["positions"] == 9 and sum(sizes) == 9  # 9 = 4 + 5, not 4 + 4 + 1
    assert min(sizes) >= CPU_BF16_MIN_ROWS
    with pytest.raises(ValueError, match=f"batch must be at least {CPU_BF16_MIN_ROWS}"):
        precision_agreement(tiny_net(5), 5, games=3, moves=3, batch=3)
    with pytest.raises(ValueError, match=f"2 positions: at least {CPU_BF16_MIN_ROWS}"):
        precision_agreement(tiny_net(5), 5, games=1, moves=2)
