"""How far bf16 (or int8, or fp16) inference strays from fp32 on a network's own
positions.

The network plays games against itself, each move drawn from its fp32 policy, and
every position on the way is evaluated in both precisions: :func:`precision_agreement`.
README's "Devices and precision" gives what it measured for the shipped nets on the
CPUs where ``--precision auto`` picks bf16; ``scripts/precision_check.py`` runs it by
hand and ``tests/test_nets_precision.py`` on a few games of the shipped net.
"""

from __future__ import annotations

import numpy as np

from .evaluator import CPU_BF16_MIN_ROWS, NetEvaluator
from .model import PolicyValueNet
from .own_games import positions_of, self_play_positions

__all__ = ["precision_agreement"]


def precision_agreement(
    model: PolicyValueNet,
    size: int,
    games: int,
    moves: int,
    seed: int = 1,
    device: str = "cpu",
    batch: int = 64,
    precision: str = "bf16",
) -> dict[str, float]:
    """``precision`` against fp32 on ``model``'s own positions: ``positions``,
    ``agreement`` (top-1, over positions with a legal move), ``tv_mean``/``tv_max``
    (policies' total variation) and ``value_mean``/``value_max`` (absolute value
    difference).

    The positions go to the network ``batch`` or a few more at a time.

    Raises:
        ValueError: a precision the device cannot run; or bf16 on the CPU with
            ``batch`` or the number of positions below ``CPU_BF16_MIN_ROWS``: the
            evaluator runs such calls in fp32, so nothing would be compared.
    """

    def evaluator(name: str) -> NetEvaluator:
        return NetEvaluator(model, device=device, symmetries="none", precision=name)

    fp32, other = evaluator("fp32"), evaluator(precision)
    cpu_bf16 = other.device.type == "cpu" and other.precision == "bf16"
    least = CPU_BF16_MIN_ROWS if cpu_bf16 else 1
    if batch < least:
        raise ValueError(f"batch must be at least {least} here, not {batch}")
    boards = self_play_positions(fp32, size, games, moves, seed)
    if len(boards) < least:
        raise ValueError(f"{len(boards)} positions: at least {least} are needed")
    # Calls of ``batch`` to ``2 * batch - 1`` positions: a short last call could fall
    # below CPU_BF16_MIN_ROWS and run in fp32 in both evaluators.
    calls = np.array_split(np.arange(len(boards)), max(1, len(boards) // batch))
    p32: list[np.ndarray] = []
    v32: list[np.ndarray] = []
    p_other: list[np.ndarray] = []
    v_other: list[np.ndarray] = []
    for rows in calls:
        chunk = positions_of([boards[i] for i in rows])
        for ev, priors, values in ((fp32, p32, v32), (other, p_other, v_other)):
            pr, va = ev.evaluate(chunk)
            priors.append(pr)
            values.append(va)
    a32, b = np.concatenate(p32), np.concatenate(p_other)
    value_error = np.abs(np.concatenate(v32) - np.concatenate(v_other))
    legal = a32.sum(axis=1) > 0
    tv = 0.5 * np.abs(a32 - b).sum(axis=1)
    return {
        "positions": len(boards),
        "agreement": float(np.mean((a32.argmax(1) == b.argmax(1))[legal])),
        "tv_mean": float(tv.mean()),
        "tv_max": float(tv.max()),
        "value_mean": float(value_error.mean()),
        "value_max": float(value_error.max()),
    }
