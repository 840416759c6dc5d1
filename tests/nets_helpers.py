"""Helpers for the network tests: tiny deterministic nets and seeded positions."""

from __future__ import annotations

import numpy as np
import torch

import goboard
from alphago.nets import NetConfig, PolicyValueNet
from alphago.nets.model import BatchNorm
from search import Positions

torch.set_num_threads(1)


def tiny_net(
    size: int = 9,
    input_planes: str = "agz17",
    *,
    blocks: int = 1,
    filters: int = 8,
    ownership: bool = False,
    seed: int = 0,
) -> PolicyValueNet:
    """A small net in eval mode with random weights and non-trivial batch-norm state.

    The policy layer is scaled up so that the priors are peaked: tests comparing
    policies then notice a wrong orientation.
    """
    torch.manual_seed(seed)
    config = NetConfig(size, blocks, filters, input_planes, ownership)
    model = PolicyValueNet(config)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, BatchNorm):
                assert module.running_mean is not None
                assert module.running_var is not None
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.bias.uniform_(-0.5, 0.5)
        # Keep the heads' ReLUs alive (a dead 2-channel policy head is uniform).
        model.policy_bn.bias.uniform_(1.0, 2.0)
        model.value_bn.bias.uniform_(1.0, 2.0)
        model.policy_fc.weight.mul_(20.0)
        model.value_fc2.weight.mul_(5.0)
    return model.eval()


def pooling_net() -> PolicyValueNet:
    """Three blocks, the middle one with global pooling, an ownership head, and
    batch norms whose statistics are far from the identity (eval mode)."""
    torch.manual_seed(3)
    config = NetConfig(9, 3, 16, "agz17", True, global_pooling=(1,))
    net = PolicyValueNet(config)
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, BatchNorm):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.3, 3.0)
                module.bias.uniform_(-0.5, 0.5)
    return net.eval()


def random_board(size: int, moves: int, seed: int) -> goboard.Board:
    """A board after ``moves`` random legal non-pass moves (seeded)."""
    rng = np.random.default_rng(seed)
    board = goboard.Board(size)
    for _ in range(moves):
        legal = [m for m in board.legal_moves() if m != size * size]
        if not legal:
            break
        board.play(int(rng.choice(legal)))
    return board


def positions_of(boards: list[goboard.Board]) -> Positions:
    """The boards as the roots of a fresh pool: one position each."""
    pool = goboard.Pool(boards, 2)
    return Positions(pool, np.arange(len(boards)) * 2)


def manual_average(
    model: PolicyValueNet, positions: Positions, kind: str
) -> tuple[np.ndarray, np.ndarray]:
    """The eight-symmetry average computed the slow, obvious way."""
    sym = goboard.symmetries
    planes = positions.pool.features(positions.slots, kind)
    legal = positions.legal_masks()
    priors = np.zeros(legal.shape, dtype=np.float64)
    values = np.zeros(len(positions), dtype=np.float64)
    for s in range(8):
        x = torch.from_numpy(np.ascontiguousarray(sym.transform_planes(planes, s)))
        with torch.no_grad():
            logits, value, _ = model(x.float())
        back = sym.transform_policy(logits.double().numpy(), sym.inverse(s))
        back[~legal] = -np.inf
        p = np.exp(back - back.max(axis=1, keepdims=True))
        priors += p / p.sum(axis=1, keepdims=True)
        values += value.double().numpy()
    return priors / 8, values / 8
