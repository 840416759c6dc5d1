"""Pattern rollouts (goboard.PatternPolicy) against uniform random playouts.

Speed: stones placed per second on one core, from the empty board to the end of the
game, both policies in the same run (best of 3 repeats each), 9x9 and 19x19.

Quality (with --records): for positions of game records (move --from of each game), the
mean outcome of --rollouts rollouts of each policy is compared with the game's result:
how often its sign names the winner, and the mean squared error against +-1. With
--net, the network's value head is judged the same way, and so is the leaf value a
search mixes from it and ONE pattern rollout, (1 - L) v + L z, for L in --mix: what
``--mix-lambda`` chooses between; so are the margins of its score head and of its
ownership head (the sum of ownership less komi), where it has them.

    python scripts/rollout_speed.py --weights runs/rollout/best.npz \
        --records /work/runs/data2016/l10 --last 100
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import goboard
from alphago.data.dataset import result_winner, sgf_files
from alphago.rollout_weights import load_rollout_policy
from alphago.sgf import play_as, read_sgf, start_board


def speed(policy: goboard.PatternPolicy, size: int, playouts: int) -> None:
    board = goboard.Board(size)
    rates: dict[str, tuple[float, float]] = {}
    runs = {
        "uniform": lambda seed: goboard.playouts(board, playouts, seed),
        "pattern": lambda seed: policy.playouts(board, max(1, playouts // 10), seed),
    }
    for name, run in runs.items():
        best = 0.0
        for seed in range(3):
            start = time.perf_counter()
            _, stones = run(seed)
            best = max(best, float(stones.sum()) / (time.perf_counter() - start))
        rates[name] = (best, float(stones.mean()))
    print(
        f"{size}x{size}: uniform {rates['uniform'][0] / 1e6:.2f}M stones/s "
        f"({rates['uniform'][1]:.0f} per playout), pattern "
        f"{rates['pattern'][0] / 1e3:.0f}k stones/s ({rates['pattern'][1]:.0f} per "
        "rollout)"
    )


#: Points of predicted margin that make a value of tanh(1) = 0.76.
MARGIN_SCALE = 10.0


def _judge(name: str, values: np.ndarray, truth: np.ndarray, what: str) -> None:
    agree = float(np.mean(np.sign(values) == truth))
    mse = float(np.mean((values - truth) ** 2))
    print(f"{name}: winner named {agree:.3f}, MSE {mse:.3f} ({what})")


def quality(
    policy: goboard.PatternPolicy,
    files: list[Path],
    move: int,
    rollouts: int,
    net_path: str | None = None,
    mixes: tuple[float, ...] = (),
) -> None:
    boards, winners = [], []
    for path in files:
        record = read_sgf(path.read_bytes())
        winner = result_winner(record.result)
        if not winner or len(record.moves) <= move:
            continue
        board = start_board(record, "chinese")
        for colour, point in record.moves[:move]:
            board = play_as(board, colour, point)
        boards.append(board)
        winners.append(winner)
    if not boards:
        print("no usable positions")
        return
    truth = np.array(winners, dtype=np.float64)
    uniform = np.array(
        [goboard.playouts(b, rollouts, i)[0] for i, b in enumerate(boards)]
    )
    pattern = policy.playouts_batch(boards, rollouts, 1)
    what = f"{len(boards)} positions after move {move}"
    for name, scores in (("uniform", uniform), ("pattern", pattern)):
        mean = np.sign(scores).mean(axis=1)
        _judge(name, mean, truth, f"{what}, {rollouts} rollouts each")
    if net_path is None:
        return
    import torch

    from alphago.nets import load_weights

    net = load_weights(net_path)
    planes = np.stack([b.features(net.config.input_planes) for b in boards])
    with torch.inference_mode():
        heads = net.heads(torch.from_numpy(planes))
    movers = np.array([b.to_play for b in boards], dtype=np.float64)
    v = heads.value.double().numpy().reshape(-1) * movers  # Black's view, as the truth
    _judge("value head", v, truth, what)
    # The margins the auxiliary heads predict, read as values: their sign names the
    # winner; tanh(margin / MARGIN_SCALE) gives the MSE a scale.
    komi = np.array([b.komi for b in boards])
    if heads.score is not None:
        margin = heads.score.double().numpy() * movers
        _judge("score head", np.tanh(margin / MARGIN_SCALE), truth, what)
    if heads.ownership_logit is not None:
        area = torch.tanh(heads.ownership_logit).double().sum(dim=(1, 2)).numpy()
        margin = area * movers - komi
        _judge("ownership sum - komi", np.tanh(margin / MARGIN_SCALE), truth, what)
    single = np.sign(pattern)  # each rollout alone: what one leaf gets
    for mix in mixes:
        leaf = (1.0 - mix) * v[:, None] + mix * single
        agree = float(np.mean(np.sign(leaf) == truth[:, None]))
        mse = float(np.mean((leaf - truth[:, None]) ** 2))
        print(
            f"leaf value, lambda {mix:g}: winner named {agree:.3f}, MSE {mse:.3f} "
            f"({what}, one rollout per leaf)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", help="rollout weights (default: all zero)")
    parser.add_argument("--records", help="SGF directory for the quality check")
    parser.add_argument("--last", type=int, default=100, help="use the last N games")
    parser.add_argument("--from", dest="move", type=int, default=30, help="move")
    parser.add_argument("--rollouts", type=int, default=64, help="per position")
    parser.add_argument("--net", help="also judge this network's value head")
    parser.add_argument(
        "--mix",
        type=float,
        nargs="*",
        default=[0.0, 0.25, 0.5, 0.75, 1.0],
        help="lambdas for the mixed leaf value (with --net)",
    )
    parser.add_argument("--no-speed", action="store_true", help="skip the speed part")
    args = parser.parse_args()
    policy = (
        load_rollout_policy(args.weights) if args.weights else goboard.PatternPolicy()
    )
    if not args.no_speed:
        speed(policy, 9, 4000)
        speed(policy, 19, 500)
    if args.records:
        files = sgf_files([args.records])[-args.last :]
        quality(policy, files, args.move, args.rollouts, args.net, tuple(args.mix))


if __name__ == "__main__":
    main()
