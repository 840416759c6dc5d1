"""The AlphaGo 2016 networks (``alphago.nets.alphago2016``): layer shapes, masking,
weights files and the refusal of files of another kind, the evaluator."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nets_helpers import positions_of, random_board, tiny_net  # noqa: E402

import goboard  # noqa: E402
from alphago.nets import WeightsError, load_weights, save_weights  # noqa: E402
from alphago.nets.alphago2016 import (  # noqa: E402
    PLANES,
    POLICY_KIND,
    VALUE_KIND,
    AlphaGo2016Evaluator,
    Net2016Config,
    PolicyNet2016,
    ValueNet2016,
    default_shape,
    load_net2016,
    save_net2016,
)
from alphago.nets.shipped import shipped_weights  # noqa: E402

torch.set_num_threads(1)

#: The planes the tests build nets on: the paper's.
POLICY_PLANES = "alphago48"
VALUE_PLANES = "alphago49"
P = PLANES[POLICY_PLANES]
V = PLANES[VALUE_PLANES]


def policy_net(size: int = 7, layers: int = 3, seed: int = 0) -> PolicyNet2016:
    torch.manual_seed(seed)
    return PolicyNet2016(Net2016Config(size, layers, 8, POLICY_PLANES)).eval()


def value_net(size: int = 7, layers: int = 3, seed: int = 0) -> ValueNet2016:
    torch.manual_seed(seed)
    return ValueNet2016(Net2016Config(size, layers, 8, VALUE_PLANES)).eval()


def test_policy_layers_follow_the_paper() -> None:
    net = PolicyNet2016(Net2016Config(19, 13, 192, "agz17"))
    convs = [m for m in net.trunk.convs]
    assert len(convs) == 12  # a 5x5 and 11 3x3 convs, then the 1x1 output layer
    assert convs[0].kernel_size == (5, 5) and convs[0].out_channels == 192
    assert all(c.kernel_size == (3, 3) for c in convs[1:])
    assert net.head.kernel_size == (1, 1) and net.head.out_channels == 1
    assert net.position_bias.shape == (361,)  # one bias per point
    out = net(torch.zeros(2, 17, 19, 19))
    assert out.shape == (2, 362)


def test_value_layers_follow_the_paper() -> None:
    net = ValueNet2016(Net2016Config(9, 6, 16, "agz17"))
    assert len(net.trunk.convs) == 5
    assert net.head.kernel_size == (1, 1) and net.fc1.out_features == 256
    with torch.no_grad():
        v = net(torch.randn(4, 17, 9, 9) * 10)
    assert v.shape == (4,) and bool((v.abs() <= 1).all())


def test_value_head_cannot_go_dead() -> None:
    # Every point of the 1x1 conv's plane negative: a ReLU there would make the
    # output the same for every input.
    net = value_net()
    with torch.no_grad():
        net.head.bias.fill_(-5.0)
        a, b = net(torch.zeros(1, V, 7, 7)), net(torch.ones(1, V, 7, 7))
    assert float(a[0]) != float(b[0])


def test_default_shapes() -> None:
    assert default_shape(19) == (13, 192)
    assert default_shape(9) == (6, 64)
    cfg = Net2016Config.for_board(9, VALUE_KIND)
    assert (cfg.layers, cfg.filters, cfg.input_planes) == (6, 64, "alphago49")
    assert Net2016Config.for_board(9).input_planes == "alphago48"


def test_wrong_input_shape_is_refused() -> None:
    with pytest.raises(ValueError, match=rf"expected input \[B, {P}, 7, 7\]"):
        policy_net()(torch.zeros(1, P + 1, 7, 7))


def test_bad_configs_are_refused() -> None:
    with pytest.raises(ValueError, match="input_planes"):
        Net2016Config(9, 6, 64, "nope")
    with pytest.raises(ValueError, match="layers"):
        Net2016Config(9, 1, 64, "agz17")


def test_pass_logit_moves_with_the_board() -> None:
    net = policy_net()
    with torch.no_grad():
        a = net(torch.zeros(1, P, 7, 7))
        b = net(torch.ones(1, P, 7, 7))
    assert a.shape == (1, 50)
    assert float(a[0, 49]) != float(b[0, 49])


def test_evaluator_masks_illegal_moves_and_gives_values() -> None:
    board = random_board(7, 12, seed=3)
    positions = positions_of([board, goboard.Board(7)])
    ev = AlphaGo2016Evaluator(policy_net(), value_net(), symmetries="none")
    priors, values = ev.evaluate(positions)
    legal = positions.legal_masks()
    assert priors.shape == (2, 50) and values.shape == (2,)
    assert np.all(priors[~legal] == 0)
    np.testing.assert_allclose(priors.sum(axis=1), 1.0, rtol=1e-5)
    # Values are the value net's own, from the side to move's planes.
    x = torch.from_numpy(goboard.features_batch([board], VALUE_PLANES))
    with torch.no_grad():
        expected = float(value_net()(x)[0])
    assert values[0] == pytest.approx(expected, abs=1e-6)
    # The priors are the policy's softmax over the legal moves, on its own planes.
    x = torch.from_numpy(goboard.features_batch([board], POLICY_PLANES))
    with torch.no_grad():
        logits = policy_net()(x)[0].numpy()
    logits[~legal[0]] = -np.inf
    soft = np.exp(logits - logits.max())
    np.testing.assert_allclose(priors[0], soft / soft.sum(), rtol=1e-5, atol=1e-7)


def test_evaluator_without_a_value_net_gives_zero_values() -> None:
    ev = AlphaGo2016Evaluator(policy_net(), None, symmetries="average")
    _, values = ev.evaluate(positions_of([random_board(7, 5, seed=1)]))
    assert values.tolist() == [0.0]


def test_alphago2016_search_runs_over_the_evaluator() -> None:
    import search

    board = random_board(7, 6, seed=2)
    ev = AlphaGo2016Evaluator(policy_net(), value_net(), symmetries="none")
    config = search.AlphaGo2016Config(num_simulations=24, mix_lambda=0.5)
    result = search.run_search(board, ev, config, rng=0)
    assert int(result.visits.sum()) >= 23
    assert board.is_legal(int(result.move))


def test_evaluator_refuses_mismatched_nets() -> None:
    with pytest.raises(ValueError, match="7x7.*9x9"):
        AlphaGo2016Evaluator(policy_net(7), value_net(9))


# --- weights files -----------------------------------------------------------------


@pytest.mark.parametrize("kind", [POLICY_KIND, VALUE_KIND])
def test_round_trip(tmp_path: Path, kind: str) -> None:
    model = policy_net(seed=4) if kind == POLICY_KIND else value_net(seed=4)
    path = tmp_path / "net.pt"
    save_net2016(model, path)
    loaded = load_net2016(path, kind)
    assert type(loaded) is type(model) and loaded.config == model.config
    x = torch.rand(3, P if kind == POLICY_KIND else V, 7, 7)
    with torch.no_grad():
        assert torch.equal(model(x), loaded(x))


def test_a_zero_net_is_refused_as_a_2016_net(tmp_path: Path) -> None:
    path = tmp_path / "zero.pt"
    save_weights(tiny_net(7), path)
    with pytest.raises(
        WeightsError,
        match="expected alphago2016-policy weights, not an AlphaGo Zero policy-value",
    ):
        load_net2016(path, POLICY_KIND)
    with pytest.raises(WeightsError, match="expected alphago2016-value weights"):
        load_net2016(path, VALUE_KIND)


def test_a_policy_is_refused_as_a_value_net_and_back(tmp_path: Path) -> None:
    save_net2016(policy_net(), tmp_path / "p.pt")
    save_net2016(value_net(), tmp_path / "v.pt")
    with pytest.raises(
        WeightsError,
        match="p.pt: expected alphago2016-value weights, not alphago2016-policy",
    ):
        load_net2016(tmp_path / "p.pt", VALUE_KIND)
    with pytest.raises(
        WeightsError,
        match="v.pt: expected alphago2016-policy weights, not alphago2016-value",
    ):
        load_net2016(tmp_path / "v.pt", POLICY_KIND)


def test_a_2016_net_is_refused_as_a_zero_net(tmp_path: Path) -> None:
    save_net2016(policy_net(), tmp_path / "p.pt")
    with pytest.raises(
        WeightsError,
        match="expected an AlphaGo Zero policy-value net, not alphago2016-policy",
    ):
        load_weights(tmp_path / "p.pt")


def test_wrong_size_or_planes_are_refused(tmp_path: Path) -> None:
    save_net2016(policy_net(7), tmp_path / "p.pt")
    with pytest.raises(WeightsError, match="expected a 9x9 alphago2016-policy net"):
        load_net2016(tmp_path / "p.pt", POLICY_KIND, board_size=9)
    with pytest.raises(WeightsError, match=f"on lz18 planes, not {POLICY_PLANES}"):
        load_net2016(tmp_path / "p.pt", POLICY_KIND, input_planes="lz18")


def test_damaged_or_tampered_files_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.pt"
    save_net2016(policy_net(), path)
    data = path.read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(WeightsError, match="not a weights file"):
        load_net2016(tmp_path / "cut.pt")
    payload = torch.load(path, weights_only=True)
    payload["state_dict"]["position_bias"] += 1.0
    torch.save(payload, tmp_path / "edited.pt")
    with pytest.raises(WeightsError, match="checksum mismatch"):
        load_net2016(tmp_path / "edited.pt")
    payload = torch.load(path, weights_only=True)
    payload["kind"] = VALUE_KIND  # a policy's tensors under a value tag
    torch.save(payload, tmp_path / "retagged.pt")
    with pytest.raises(WeightsError, match="do not fit the network"):
        load_net2016(tmp_path / "retagged.pt", VALUE_KIND)


def test_old_zero_weights_still_load(tmp_path: Path) -> None:
    shipped = shipped_weights(9)
    assert shipped is not None
    net = load_weights(shipped)
    assert net.config.board_size == 9
    path = tmp_path / "zero.pt"
    save_weights(tiny_net(7, "lz18"), path)
    assert load_weights(path).config == tiny_net(7, "lz18").config
