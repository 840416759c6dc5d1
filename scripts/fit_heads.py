"""Fit a network's ownership or value head to its own played-out games, tower frozen.

The shards of ``scripts/playout_games.py`` hold positions of games played to the end,
the result for the side to move at each, and each game's final ownership. The
network's tower stays as it is, so its policy (and with ``--head ownership`` its value)
comes out bit for bit as it went in; only the chosen head learns:

- ``ownership`` (default): a new ownership head, the 1x1 convolution a
  ``PolicyValueNet`` has with ``ownership_head``, from scratch, with the learner's
  ownership loss (binary cross-entropy of ``sigmoid(2 y)`` against ``(1 + o) / 2`` at
  every point, ``o`` the final owner from the side to move's view);
- ``value``: the value head as it is, further trained by mean squared error against
  the results (AdamW, weight decay ``--weight-decay``).

Each position is seen under one random symmetry of the board. The last
``--val-shards`` shards (whole games) are held out; the head's weights at its best
held-out loss (checked every 100 steps) are the ones kept. On the held-out positions
the script prints, before and after, how often the value head and the ownership
summed less komi name the winner (and the value's squared error, the margin's mean
absolute error), then writes the network to ``--out``.

    python scripts/fit_heads.py runs/playout19 --out own19.pt
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from alphago.nets import load_weights
from alphago.nets.model import PolicyValueNet
from alphago.nets.shipped import shipped_weights
from alphago.nets.weights import save_weights
from goboard.symmetries import transform_planes

KOMI = 7.5  # scripts/playout_games.py's
CHECK_EVERY = 100


@dataclass(frozen=True)
class Shards:
    """The kept positions of some games. ``value``, ``owner`` and ``margin`` (the
    final area difference less komi) are from the side to move's view; ``mover`` is
    +1 for Black to move, -1 for White."""

    planes: np.ndarray
    value: np.ndarray
    owner: np.ndarray
    margin: np.ndarray
    mover: np.ndarray


def load_shards(paths: list[Path]) -> Shards:
    parts: list[tuple[np.ndarray, ...]] = []
    for path in paths:
        with np.load(path) as shard:
            own = shard["ownership"].astype(np.float32)
            black_margin = own.sum(axis=(1, 2)) - KOMI
            for k in range(shard["planes"].shape[1]):
                value = shard["value"][:, k]
                keep = value != 0  # 0: the game ended before this position
                # value = sign(black_margin) * mover, so mover = value * that sign.
                mover = value[keep] * np.sign(black_margin[keep])
                parts.append(
                    (
                        shard["planes"][keep, k],
                        value[keep],
                        own[keep] * mover[:, None, None],
                        black_margin[keep] * mover,
                        mover,
                    )
                )
    return Shards(*(np.concatenate(column) for column in zip(*parts, strict=True)))


def randomly_turned(data: Shards, rng: np.random.Generator) -> Shards:
    """Each position (and its ownership) under a random symmetry."""
    ks = rng.integers(0, 8, len(data.value))
    planes = np.stack(
        [transform_planes(p, int(k)) for p, k in zip(data.planes, ks, strict=True)]
    )
    owner = np.stack(
        [transform_planes(o, int(k)) for o, k in zip(data.owner, ks, strict=True)]
    )
    return dataclasses.replace(data, planes=planes, owner=owner)


def tower(net: PolicyValueNet, planes: np.ndarray) -> Tensor:
    """The tower's output [B, F, N, N] in float32."""
    hidden = []
    with torch.inference_mode():
        for start in range(0, len(planes), 256):
            x = torch.from_numpy(np.ascontiguousarray(planes[start : start + 256]))
            hidden.append(net.trunk(x.float()))
    return torch.cat(hidden).clone()  # out of inference mode: heads train on it


def summed_ownership(net: PolicyValueNet, h: Tensor) -> Tensor:
    assert net.ownership_conv is not None
    return torch.tanh(net.ownership_conv(h).squeeze(1)).sum(dim=(1, 2))


def fit(
    modules: list[torch.nn.Module],
    loss_of: Callable[[Tensor], Tensor],
    held_loss: Callable[[], float],
    size: int,
    args: argparse.Namespace,
    rng: np.random.Generator,
) -> None:
    """Train ``modules`` on ``loss_of(batch indices)``; keep their best held-out
    state."""
    params = [p for m in modules for p in m.parameters()]
    for p in params:
        p.requires_grad_(True)
    optimiser = torch.optim.AdamW(params, lr=args.lr, weight_decay=args.weight_decay)
    best, best_step = held_loss(), 0
    best_state = [copy.deepcopy(m.state_dict()) for m in modules]
    print(f"step 0: held out {best:.4f}")
    for step in range(1, args.steps + 1):
        loss = loss_of(torch.from_numpy(rng.integers(0, size, args.batch)))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if step % CHECK_EVERY == 0:
            held = held_loss()
            if held < best:
                best, best_step = held, step
                best_state = [copy.deepcopy(m.state_dict()) for m in modules]
            if step % (5 * CHECK_EVERY) == 0:
                print(f"step {step}: loss {loss.item():.4f}, held out {held:.4f}")
    for m, state in zip(modules, best_state, strict=True):
        m.load_state_dict(state)
    print(f"kept step {best_step}: held out {best:.4f}")


def report(label: str, net: PolicyValueNet, h: Tensor, held: Shards) -> None:
    with torch.no_grad():
        value = net.heads_on_trunk(h, score=False).value.numpy()
        right = np.mean(np.sign(value) == held.value)
        line = (
            f"{label}: value head names the winner {right:.3f}"
            f" (squared error {np.mean((value - held.value) ** 2):.3f})"
        )
        if net.ownership_conv is not None:
            margin = summed_ownership(net, h).numpy() - KOMI * held.mover
            line += (
                f", ownership {np.mean(np.sign(margin) == held.value):.3f} (margin off"
                f" by {np.mean(np.abs(margin - held.margin)):.1f} points on average)"
            )
    print(line)


Loss = Callable[[Tensor, Tensor], Tensor]


def chosen_head(
    net: PolicyValueNet, head: str, train: Shards, held: Shards
) -> tuple[list[torch.nn.Module], Loss, Tensor, Tensor]:
    """The modules that learn, their loss on (tower output, targets), and the
    training and held-out targets."""
    if head == "ownership":
        conv = net.ownership_conv
        assert conv is not None

        def ownership_loss(h: Tensor, owner: Tensor) -> Tensor:
            logits = conv(h).squeeze(1)
            return F.binary_cross_entropy_with_logits(2 * logits, (1 + owner) / 2)

        owners = torch.from_numpy(train.owner), torch.from_numpy(held.owner)
        return [conv], ownership_loss, *owners

    def value_loss(h: Tensor, value: Tensor) -> Tensor:
        return F.mse_loss(net.heads_on_trunk(h, score=False).value, value)

    modules = [net.value_conv, net.value_bn, net.value_fc1, net.value_fc2]
    values = torch.from_numpy(train.value), torch.from_numpy(held.value)
    return modules, value_loss, *values


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="scripts/playout_games.py's folder")
    parser.add_argument("--net", help="weights (default: the shipped 19x19 net)")
    parser.add_argument("--out", type=Path, required=True, help="the new weights")
    parser.add_argument("--head", choices=("ownership", "value"), default="ownership")
    parser.add_argument("--val-shards", type=int, default=1)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, help="default: 3e-3 ownership, 3e-4 value")
    parser.add_argument("--weight-decay", type=float, default=0.1)
    args = parser.parse_args(argv)
    if args.steps < 1 or args.batch < 1 or args.val_shards < 1:
        parser.error("--steps, --batch and --val-shards must be at least 1")
    if args.lr is None:
        args.lr = 3e-3 if args.head == "ownership" else 3e-4
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    paths = sorted(args.data.glob("s*.npz"))
    if len(paths) <= args.val_shards:
        parser.error(f"{len(paths)} shards: too few to hold {args.val_shards} out")
    weights = args.net or shipped_weights(19)
    if weights is None:
        parser.error("no shipped 19x19 net: give --net")
    net = load_weights(weights).eval()
    if args.head == "ownership":
        old = net
        config = dataclasses.replace(old.config, ownership_head=True)
        net = PolicyValueNet(config).eval()
        net.load_state_dict(old.state_dict(), strict=False)
    for p in net.parameters():
        p.requires_grad_(False)

    train = randomly_turned(load_shards(paths[: -args.val_shards]), rng)
    held = load_shards(paths[-args.val_shards :])
    n = net.config.board_size
    want = (net.config.planes, n, n)
    if train.planes.shape[1:] != want or held.planes.shape[1:] != want:
        parser.error(
            f"the shards' positions are not {want} planes: another net's games"
        )
    h_train, h_held = tower(net, train.planes), tower(net, held.planes)
    print(f"{len(train.value)} positions to learn from, {len(held.value)} held out")
    if args.head == "value":
        report("before", net, h_held, held)
    modules, loss_of, targets, held_targets = chosen_head(net, args.head, train, held)

    def held_loss() -> float:
        with torch.no_grad():
            return float(loss_of(h_held, held_targets))

    fit(
        modules,
        lambda idx: loss_of(h_train[idx], targets[idx]),
        held_loss,
        len(train.value),
        args,
        rng,
    )
    report("after", net, h_held, held)
    save_weights(net, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
