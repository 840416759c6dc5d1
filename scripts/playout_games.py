"""Games a network plays against itself to the end, for its ownership and value heads.

Each batch plays ``--games`` games in lock-step, every move drawn from the network's
policy (at ``--temperature``, 1 by default) except one: move U, drawn uniformly from
1..--u-max per game, is uniformly random among the legal moves that fill no own eye
(AlphaGo 2016's value data, for variety). The games are played out as random
playouts are: a player never fills one of its own true eyes and passes only when
nothing else is left, so that the game ends with the dead stones captured and the
area count (Tromp-Taylor) is the real result. A network trained on professional games
would otherwise pass with dead stones on the board.

Kept from each game: the positions after moves U, U+60, U+120 and U+180 (those the
game reaches, as the network's input planes), the result for the side to move at each
(+1 / -1; 0 where the game ended before it), and the final ownership (Black's view,
+1 / -1 / 0). Batch ``i`` is seeded by ``--seed + i`` and written to
``OUT/sSEED.npz`` (atomically; a rerun skips the batches already there), with each
game's SGF under ``OUT/sgf/sSEED`` when ``--sgf`` is given (the result is the counted
margin, which ``scripts/score_check.py`` reads).

    python scripts/playout_games.py runs/playout19 --batches 4 --seed 300000
    python scripts/fit_heads.py runs/playout19 --out own19.pt
"""

from __future__ import annotations

import argparse
import io
import time
from pathlib import Path

import numpy as np
import torch

import goboard
from alphago.atomic import atomic_write_bytes
from alphago.nets import load_weights
from alphago.nets.evaluator import NetEvaluator
from alphago.nets.own_games import positions_of
from alphago.nets.precision import int8_supported
from alphago.nets.shipped import shipped_weights
from alphago.sgf import GameRecord, save_sgf

#: The kept positions follow moves U + these.
KEPT_AFTER = (0, 60, 120, 180)


def play_batch(
    evaluator: NetEvaluator,
    games: int,
    seed: int,
    u_max: int,
    temperature: float = 1.0,
) -> tuple[dict[str, np.ndarray], list[goboard.Board], list[list[int]]]:
    """One batch of games (module docstring): the arrays of its shard, the final
    boards and each game's moves."""
    n = evaluator.config.board_size
    area = n * n
    rng = np.random.default_rng(seed)
    u = rng.integers(1, u_max + 1, games)
    boards = [goboard.Board(n, 7.5, "chinese") for _ in range(games)]
    moves: list[list[int]] = [[] for _ in range(games)]
    kind = evaluator.config.input_planes  # the planes the net reads
    channels = len(goboard.feature_planes(kind))
    kept = np.zeros((games, len(KEPT_AFTER), channels, n, n), np.uint8)
    mover = np.zeros((games, len(KEPT_AFTER)), np.int64)
    cap = 3 * area  # scored as it stands after this many moves (never reached yet)
    while live := [
        i for i in range(games) if not boards[i].is_over and len(moves[i]) < cap
    ]:
        positions = positions_of([boards[i] for i in live])
        priors, _ = evaluator.evaluate(positions)
        legal = positions.legal_masks()
        eyes = positions.pool.eye_masks(positions.slots)
        for row, i in enumerate(live):
            allowed = legal[row, :area] & ~eyes[row, :area]
            ply = len(moves[i])
            p = priors[row].astype(np.float64) * legal[row]
            if temperature != 1.0:
                p **= 1.0 / temperature
            p[:area][~allowed] = 0.0
            if p[:area].sum() > 0:
                p[area] = 0.0
            if ply == u[i] - 1 or p.sum() <= 0:
                choices = np.flatnonzero(allowed)
                move = int(rng.choice(choices)) if len(choices) else area
            else:
                move = int(rng.choice(area + 1, p=p / p.sum()))
            boards[i].play(move)
            moves[i].append(move)
            for k, after in enumerate(KEPT_AFTER):
                if ply + 1 == u[i] + after:
                    kept[i, k] = boards[i].features(kind)
                    mover[i, k] = boards[i].to_play
    black_won = np.array([np.sign(b.score()) for b in boards])
    shard: dict[str, np.ndarray] = {
        "planes": kept,
        "value": (black_won[:, None] * mover).astype(np.float32),
        "ownership": np.stack([b.ownership() for b in boards]).astype(np.int8),
        "u": u,
        "plies": np.array([len(m) for m in moves]),
    }
    return shard, boards, moves


def save_games(
    folder: Path, boards: list[goboard.Board], moves: list[list[int]]
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for g, (board, line) in enumerate(zip(boards, moves, strict=True)):
        colours = [
            goboard.BLACK if k % 2 == 0 else goboard.WHITE for k in range(len(line))
        ]
        record = GameRecord(
            size=board.size,
            komi=board.komi,
            moves=list(zip(colours, line, strict=True)),
            result=board.result(),
            rules="Chinese",
        )
        save_sgf(record, folder / f"game-{g:04d}.sgf")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for the shards")
    parser.add_argument("--net", help="weights (default: the shipped 19x19 net)")
    parser.add_argument("--games", type=int, default=128, help="games per batch")
    parser.add_argument("--batches", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0, help="batch i's seed: SEED + i")
    parser.add_argument("--u-max", type=int, default=350)
    parser.add_argument(
        "--temperature", type=float, default=1.0, help="the policy's (below 1: sharper)"
    )
    parser.add_argument("--sgf", action="store_true", help="also write each game")
    parser.add_argument(
        "--precision", help="inference precision (default: int8 where the CPU has it)"
    )
    args = parser.parse_args(argv)
    for name in ("games", "batches", "u_max"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if not args.temperature > 0:
        parser.error("--temperature must be above 0")
    torch.set_num_threads(1)
    weights = args.net or shipped_weights(19)
    if weights is None:
        parser.error("no shipped 19x19 net: give --net")
    precision = args.precision or ("int8" if int8_supported() else None)
    args.out.mkdir(parents=True, exist_ok=True)
    # No random transforms, and int8's calibration is seeded: a batch's games depend
    # on its seed alone.
    evaluator = NetEvaluator(
        load_weights(weights), symmetries="none", precision=precision
    )
    for seed in range(args.seed, args.seed + args.batches):
        path = args.out / f"s{seed}.npz"
        if path.exists():
            continue
        start = time.perf_counter()
        shard, boards, moves = play_batch(
            evaluator, args.games, seed, args.u_max, args.temperature
        )
        if args.sgf:  # before the shard, whose presence marks the batch done
            save_games(args.out / "sgf" / f"s{seed}", boards, moves)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **shard)
        atomic_write_bytes(path, buffer.getvalue())
        print(
            f"{path}: {args.games} games, {shard['plies'].mean():.0f} moves on "
            f"average, Black won {np.mean([b.score() > 0 for b in boards]):.2f}, "
            f"{time.perf_counter() - start:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
