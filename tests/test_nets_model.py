"""NetConfig validation and PolicyValueNet shapes."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from nets_helpers import tiny_net  # noqa: E402

from alphago.nets import NetConfig, PolicyValueNet  # noqa: E402
from alphago.nets.model import INPUT_PLANES  # noqa: E402


def test_config_json_round_trip() -> None:
    cfg = NetConfig(9, 2, 16, "lz18", True)
    assert NetConfig.from_json(cfg.to_json()) == cfg
    assert NetConfig.from_dict(cfg.to_dict()) == cfg
    assert cfg.planes == 18 and cfg.actions == 82
    assert NetConfig(input_planes="agz17").planes == 17
    # The 2016 value net's planes (liberties, ladders, move trials) also feed it.
    assert NetConfig(input_planes="alphago49").planes == 49


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"board_size": 1}, ValueError),
        ({"board_size": 20}, ValueError),
        ({"board_size": 9.0}, TypeError),
        ({"blocks": -1}, ValueError),
        ({"filters": 0}, ValueError),
        ({"filters": True}, TypeError),
        ({"input_planes": "alphago48"}, ValueError),
        ({"ownership_head": 1}, TypeError),
    ],
)
def test_config_rejects_bad_values(kwargs: dict[str, object], error: type) -> None:
    with pytest.raises(error):
        NetConfig(**kwargs)  # type: ignore[arg-type]


def test_config_from_dict_rejects_unknown_keys() -> None:
    with pytest.raises(ValueError, match="colour"):
        NetConfig.from_dict({"board_size": 9, "colour": 1})
    with pytest.raises(ValueError):
        NetConfig.from_dict([9])


@pytest.mark.parametrize(
    ("size", "kind", "blocks", "filters"),
    [
        (9, "agz17", 1, 8),
        (19, "lz18", 2, 16),
        (9, "lz18", 0, 8),
        (9, "alphago49", 1, 8),
    ],
)
@pytest.mark.parametrize("ownership", [False, True])
def test_output_shapes(
    size: int, kind: str, blocks: int, filters: int, ownership: bool
) -> None:
    model = tiny_net(size, kind, blocks=blocks, filters=filters, ownership=ownership)
    x = torch.rand(3, INPUT_PLANES[kind], size, size)
    with torch.no_grad():
        logits, value, owner = model(x)
    assert logits.shape == (3, size * size + 1)
    assert value.shape == (3,)
    assert bool((value.abs() <= 1).all())
    if ownership:
        assert owner is not None and owner.shape == (3, size, size)
        assert bool((owner.abs() <= 1).all())
    else:
        assert owner is None


def test_wrong_input_shape_is_a_value_error() -> None:
    model = PolicyValueNet(NetConfig(9, 1, 8))
    with pytest.raises(ValueError, match="17, 9, 9"):
        model(torch.zeros(1, 18, 9, 9))


def test_trains_one_step() -> None:
    model = tiny_net(9).train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    logits, value, _ = model(torch.rand(4, 17, 9, 9))
    loss = logits.logsumexp(1).mean() + value.square().mean()
    loss.backward()
    opt.step()
    assert all(p.grad is not None for p in model.parameters())
