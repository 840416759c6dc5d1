"""Global pooling blocks and the score head (``alphago.nets.model``): the block
against a slow formula, the config switch and its JSON, weights files, and the Leela
Zero export's refusal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from alphago.nets.leelazero import export_leela_zero  # noqa: E402
from alphago.nets.model import (  # noqa: E402
    GlobalPoolingBlock,
    NetConfig,
    PolicyValueNet,
    ResidualBlock,
)
from alphago.nets.weights import load_weights, save_weights  # noqa: E402

torch.set_num_threads(1)


def slow_block(block: GlobalPoolingBlock, x: np.ndarray) -> np.ndarray:
    """The block on one position [F, N, N], in float64 loops (eval mode)."""

    def conv3(w: np.ndarray, a: np.ndarray) -> np.ndarray:
        cout, cin = w.shape[:2]
        n = a.shape[-1]
        pad = np.zeros((cin, n + 2, n + 2))
        pad[:, 1:-1, 1:-1] = a
        out = np.zeros((cout, n, n))
        for o in range(cout):
            for i in range(n):
                for j in range(n):
                    out[o, i, j] = (w[o] * pad[:, i : i + 3, j : j + 3]).sum()
        return out

    def bn(layer: Any, a: np.ndarray) -> np.ndarray:
        mean = layer.running_mean.double().numpy()[:, None, None]
        var = layer.running_var.double().numpy()[:, None, None]
        beta = layer.bias.detach().double().numpy()[:, None, None]
        return np.asarray((a - mean) / np.sqrt(var + 1e-5) + beta)

    def w(layer: Any) -> np.ndarray:
        return np.asarray(layer.weight.detach().double().numpy())

    g = np.maximum(bn(block.pool_bn, conv3(w(block.pool_conv), x)), 0.0)
    pooled = np.concatenate([g.mean(axis=(1, 2)), g.max(axis=(1, 2))])
    bias = w(block.pool_fc) @ pooled + block.pool_fc.bias.detach().double().numpy()
    y = conv3(w(block.conv1), x) + bias[:, None, None]
    y = np.maximum(bn(block.bn1, y), 0.0)
    return np.asarray(np.maximum(bn(block.bn2, conv3(w(block.conv2), y)) + x, 0.0))


def test_the_pooling_block_matches_a_slow_formula() -> None:
    torch.manual_seed(0)
    block = GlobalPoolingBlock(8, 2)
    with torch.no_grad():
        for bn in (block.bn1, block.bn2, block.pool_bn):
            bn.running_mean.uniform_(-0.3, 0.3)
            bn.running_var.uniform_(0.5, 2.0)
            bn.bias.uniform_(-0.3, 0.3)
    block.eval()
    x = torch.randn(3, 8, 5, 5)
    with torch.no_grad():
        got = block(x).double().numpy()
    for b in range(3):
        np.testing.assert_allclose(
            got[b], slow_block(block, x[b].double().numpy()), atol=1e-5
        )
    # The pooled bias is what moves the board as a whole: a stone far away changes
    # every point's output through it, even on a board wider than the convs reach.
    wide = torch.zeros(1, 8, 9, 9)
    moved = wide.clone()
    moved[0, :, 0, 0] = 3.0
    with torch.no_grad():
        far = (block(moved) - block(wide))[0, :, 8, 8].abs().sum()
    assert float(far) > 0


def test_config_switch_json_and_weights(tmp_path: Path) -> None:
    # A list (as JSON gives) becomes a tuple.
    config = NetConfig(board_size=5, blocks=3, filters=8, global_pooling=[1, 2])  # type: ignore[arg-type]
    assert config.global_pooling == (1, 2)
    assert NetConfig.from_json(config.to_json()) == config
    model = PolicyValueNet(config)
    kinds = [type(b) for b in model.tower]
    assert kinds == [ResidualBlock, GlobalPoolingBlock, GlobalPoolingBlock]
    save_weights(model, tmp_path / "p.pt")
    back = load_weights(tmp_path / "p.pt")
    assert back.config == config
    x = torch.rand(2, 17, 5, 5).round()
    model.eval()
    with torch.no_grad():
        (p1, v1, _), (p2, v2, _) = model(x), back(x)
    assert torch.equal(p1, p2) and torch.equal(v1, v2)
    for bad in ((3,), (1, 1), (2, 1), (-1,)):
        with pytest.raises(ValueError, match="global_pooling"):
            NetConfig(board_size=5, blocks=3, filters=8, global_pooling=bad)
    with pytest.raises(TypeError, match="global_pooling"):
        NetConfig(global_pooling="1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="filters >= 2"):
        NetConfig(blocks=1, filters=1, global_pooling=(0,))


def test_forward_without_the_new_parts_is_unchanged() -> None:
    """The score head does not touch the play outputs; the ownership output is
    the tanh of the head's logit."""
    torch.manual_seed(3)
    plain = PolicyValueNet(
        NetConfig(board_size=5, blocks=1, filters=8, ownership_head=True)
    )
    torch.manual_seed(3)
    scored = PolicyValueNet(
        NetConfig(
            board_size=5, blocks=1, filters=8, ownership_head=True, score_head=True
        )
    )
    scored.load_state_dict(plain.state_dict(), strict=False)
    x = torch.rand(2, 17, 5, 5).round()
    with torch.no_grad():
        for a, b in zip(plain(x), scored(x), strict=True):
            assert a is not None and b is not None and torch.equal(a, b)
        heads = scored.heads(x)
        assert heads.ownership_logit is not None and heads.score is not None
        assert heads.score.shape == (2,)
        assert torch.equal(torch.tanh(heads.ownership_logit), plain(x)[2])


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"global_pooling": (0,)}, "global pooling"),
        ({"score_head": True}, "a score head"),
    ],
)
def test_leela_zero_export_refuses_the_new_parts(
    tmp_path: Path, extra: dict[str, object], words: str
) -> None:
    config = NetConfig(board_size=19, blocks=1, filters=4, input_planes="lz18", **extra)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=f"cannot hold {words}"):
        export_leela_zero(PolicyValueNet(config), tmp_path / "lz.txt")
    assert not (tmp_path / "lz.txt").exists()
