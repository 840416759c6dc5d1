"""int8 inference (alphago.nets.int8): the batch-norm folding, the quantized copy
against fp32, calibration, and where int8 is refused."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nets_helpers import pooling_net, positions_of, random_board, tiny_net  # noqa: E402

from alphago.cli import build_parser, check_device_options  # noqa: E402
from alphago.nets import NetConfig, NetEvaluator, PolicyValueNet  # noqa: E402
from alphago.nets import int8 as int8_module  # noqa: E402
from alphago.nets import precision as prec  # noqa: E402
from alphago.nets.agreement import precision_agreement  # noqa: E402
from alphago.nets.int8 import Int8Network, calibration_planes  # noqa: E402
from alphago.nets.shipped import shipped_weights  # noqa: E402
from alphago.nets.weights import load_weights  # noqa: E402

CPU = torch.device("cpu")
INT8 = prec.int8_supported()
needs_int8 = pytest.mark.skipif(not INT8, reason="no AVX512-VNNI or oneDNN int8 here")


def _planes(net: PolicyValueNet, count: int, seed: int) -> torch.Tensor:
    cfg = net.config
    boards = [random_board(cfg.board_size, 5 + 3 * i, seed + i) for i in range(count)]
    pos = positions_of(boards)
    planes = pos.pool.features(pos.slots, cfg.input_planes)
    return torch.from_numpy(np.ascontiguousarray(planes)).float()


def test_folding_batch_norm_changes_nothing() -> None:
    # The folded tower in float32 (before quantization) with the net's own fully
    # connected heads is the network: each conv + batch norm pair became one conv,
    # and the pooling block's first batch norm moved into its fully connected rows.
    net = pooling_net()
    tower = int8_module._Tower(net).eval()
    x = _planes(net, 6, 0)
    with torch.no_grad():
        logits, value, owner = net(x)
        p, v, h = tower(x)
        folded_logits = net.policy_fc(torch.flatten(p, 1))
        hidden = torch.relu(net.value_fc1(torch.flatten(v, 1)))
        folded_value = torch.tanh(net.value_fc2(hidden)).squeeze(1)
    torch.testing.assert_close(folded_logits, logits, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(folded_value, value, atol=1e-5, rtol=1e-5)
    assert owner is not None
    assert net.ownership_conv is not None
    folded_owner = torch.tanh(net.ownership_conv(h)).squeeze(1)
    torch.testing.assert_close(folded_owner, owner, atol=1e-5, rtol=1e-5)


def test_calibration_positions_come_from_the_nets_games() -> None:
    net = tiny_net(7, blocks=1)
    planes = calibration_planes(net, positions=20, seed=4)
    assert planes.shape == (20, 17, 7, 7)
    assert planes.dtype == torch.float32
    assert set(torch.unique(planes).tolist()) <= {0.0, 1.0}
    torch.testing.assert_close(planes, calibration_planes(net, positions=20, seed=4))
    assert not torch.equal(planes, calibration_planes(net, positions=20, seed=5))
    # Sampled evenly from the games' moves: the empty board first, stones later
    # (agz17's first eight planes are the side to move's last stones, the next
    # eight the opponent's).
    stones = planes[:, :16].sum(dim=(1, 2, 3))
    assert stones[0] == 0
    assert stones[-1] > stones[len(stones) // 2] > 0


@needs_int8
def test_int8_network_stays_close_to_fp32() -> None:
    net = pooling_net()
    q = Int8Network(net)
    x = _planes(net, 32, 100)
    with torch.inference_mode():
        logits, value, owner = net(x)
        q_logits, q_value, q_owner = q(x)
    assert q_logits.shape == logits.shape and q_logits.dtype == torch.float32
    assert q_value.shape == value.shape
    assert owner is not None and q_owner is not None
    assert q_owner.shape == owner.shape
    assert not torch.equal(q_logits, logits)  # int8 really ran
    p = torch.softmax(logits, 1)
    q_p = torch.softmax(q_logits, 1)
    assert 0.5 * (p - q_p).abs().sum(1).mean() < 0.05
    assert (q_value - value).abs().max() < 0.1
    assert (q_owner - owner).abs().mean() < 0.01
    # The ownership head runs in float32 on the tower's output: a map of nearly as
    # many shades as points, not the 256 steps of a quantized output.
    assert torch.unique(q_owner).numel() > q_owner.numel() // 2


@needs_int8
def test_int8_network_is_a_snapshot() -> None:
    net = tiny_net(9, blocks=2, filters=16)
    net.train()
    q = Int8Network(net)
    assert net.training  # the caller's mode is left as it was
    x = _planes(net, 4, 7)
    with torch.inference_mode():
        before = q(x)
        for param in net.parameters():
            param.zero_()
        after = q(x)
    torch.testing.assert_close(after[0], before[0])
    torch.testing.assert_close(after[1], before[1])
    assert after[2] is None


@needs_int8
def test_evaluator_runs_int8_for_every_batch_size() -> None:
    net = tiny_net(9, blocks=2, filters=16, ownership=True)
    fp32 = NetEvaluator(net, symmetries="none", precision="fp32")
    q = NetEvaluator(net, symmetries="none", precision="int8")
    assert q.precision == "int8" and "precision=int8" in repr(q)
    boards = [random_board(9, 10 + i, i) for i in range(8)]
    for rows in (1, 8):  # unlike bf16, single rows run in int8 too
        pos = positions_of(boards[:rows])
        p8, v8 = q.evaluate(pos)
        p32, v32 = fp32.evaluate(pos)
        legal = pos.legal_masks()
        assert np.all(p8[~legal] == 0)
        np.testing.assert_allclose(p8.sum(1), 1.0, rtol=1e-5)
        assert np.all(np.abs(v8) <= 1.0)
        assert not np.array_equal(p8, p32)
        assert 0.5 * np.abs(p8 - p32).sum(1).mean() < 0.05
        np.testing.assert_allclose(v8, v32, atol=0.1)
    owner = q.ownership(positions_of(boards[:3]))
    assert owner.shape == (3, 9, 9) and np.all(np.abs(owner) <= 1.0)


@needs_int8
def test_int8_agrees_with_fp32_on_the_shipped_net() -> None:
    # README ("Devices and precision") quotes scripts/precision_check.py's
    # --precision int8 over 64 games; a smaller sample of the same here.
    path = shipped_weights(9)
    assert path is not None
    got = precision_agreement(load_weights(path), 9, 16, 40, precision="int8")
    assert got["positions"] > 500
    assert got["agreement"] >= 0.95
    assert got["tv_mean"] < 0.04
    assert got["value_mean"] < 0.03
    assert got["value_max"] > 0


# -- where int8 is refused ---------------------------------------------------------


def test_int8_is_for_inference_on_cpus_only() -> None:
    with pytest.raises(ValueError, match="int8 is for the search's network calls"):
        prec.resolve_precision("int8", CPU)
    meta = torch.device("meta")
    with pytest.raises(ValueError, match="int8 runs on CPUs only; use fp32"):
        prec.resolve_precision("int8", meta, inference=True)
    assert prec.supported_precisions(CPU) == ("fp32", "bf16")
    assert ("int8" in prec.supported_precisions(CPU, inference=True)) == INT8
    # Never the default: it strays further from fp32 than bf16 does.
    assert prec.resolve_precision(None, CPU, inference=True) in ("fp32", "bf16")


def test_cpus_without_vnni_refuse_int8(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prec, "int8_supported", lambda: False)
    with pytest.raises(ValueError, match="int8 needs a CPU with AVX512-VNNI"):
        prec.resolve_precision("int8", CPU, inference=True)
    with pytest.raises(ValueError, match="int8 needs a CPU with AVX512-VNNI"):
        NetEvaluator(tiny_net(9), precision="int8")
    with pytest.raises(ValueError, match="int8 needs a CPU with AVX512-VNNI"):
        Int8Network(tiny_net(9))


def test_int8_refuses_other_networks() -> None:
    class Pair(torch.nn.Module):
        config = NetConfig(9)

    with pytest.raises(ValueError, match="int8 runs PolicyValueNet networks only"):
        Int8Network(Pair())  # type: ignore[arg-type]


def test_command_line_offers_int8_for_play_not_training(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = build_parser()
    args = parser.parse_args(["gtp", "--precision", "int8"])
    assert args.precision == "int8"
    if INT8:
        check_device_options(args)
    else:
        with pytest.raises(ValueError, match="VNNI"):
            check_device_options(args)
    assert parser.parse_args(["bench", "--precision", "int8"]).precision == "int8"
    with pytest.raises(SystemExit):
        parser.parse_args(["train", "sl", "run", "--precision", "int8"])
    assert "invalid choice: 'int8'" in capsys.readouterr().err
