"""How close do the score estimates come to the margins games really ended with?

For SGF records whose result is a counted margin (``B+3.5``, not ``B+R``; games
played out with dead stones captured, as ``alphago gendata --capture-all-dead``
writes them), the position after each move in --moves is judged by the readings an
analysis could report as its score lead, each from the side to move's view:

- ``head``: the network's score head (nets trained with ``--score-weight``);
- ``ownership``: the ownership head summed over the board, less komi for Black;
- ``calibrated``: what analyses report for a net without an ownership head
  (:func:`alphago.score_estimate.score_lead`: 64 random playouts and a winrate), with
  the value head's winrate standing in for the search's; with ``--search N``, also
  ``calibrated by search``, the winrate of the default engine's N-simulation search,
  and ``search's average``, the margin that search's tree averaged (what analyses
  report for a net with an ownership head).

Printed per move number: positions, then for each reading the mean absolute error
against the final margin and how often it names the winner.

    python scripts/score_check.py games/ --moves 10 20 30 40 50 --search 200 \\
        --net src/alphago/nets/shipped/alphago-9x9.pt
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import re

import numpy as np
import torch

import goboard
from alphago.data.dataset import sgf_files
from alphago.nets import load_weights
from alphago.nets.model import PolicyValueNet
from alphago.score_estimate import MoveScores
from alphago.sgf import GameRecord, read_sgf, replay

_MARGIN = re.compile(r"^([BW])\+(\d+(?:\.\d+)?)$")


def black_margin(result: str) -> float | None:
    """Black's counted margin from an SGF RE value; None for resignations, time,
    forfeits and draws written otherwise."""
    match = _MARGIN.match(result.strip())
    if match is None:
        return None
    margin = float(match.group(2))
    return margin if match.group(1) == "B" else -margin


def searched(
    boards: list[goboard.Board], simulations: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """The default engine's search of each board: its winrate for the side to move,
    and the margin its tree averaged (None where the net has no ownership head)."""
    from alphago.cli import build_parser, make_player

    size = str(boards[0].size)
    argv = ["gtp", "--size", size, "--simulations", str(simulations), "--threads", "1"]
    player = make_player(build_parser().parse_args(argv))
    values, leads = [], []
    for board in boards:
        player.new_game()
        result = player.genmove(board)
        values.append(float(result.value))
        leads.append(math.nan if result.scores is None else result.scores.lead)
    averaged = np.array(leads)
    return (np.array(values) + 1.0) / 2.0, None if np.isnan(
        averaged
    ).any() else averaged


def readings(
    net: PolicyValueNet, boards: list[goboard.Board], simulations: int
) -> dict[str, np.ndarray]:
    """Each reading's score lead for the side to move of each board."""
    planes = np.stack([b.features(net.config.input_planes) for b in boards])
    with torch.inference_mode():
        heads = net.heads(torch.from_numpy(planes))
    out: dict[str, np.ndarray] = {}
    if heads.score is not None:
        out["head"] = heads.score.double().numpy().reshape(-1)
    if heads.ownership_logit is not None:
        owned = torch.tanh(heads.ownership_logit).double().numpy().sum(axis=(1, 2))
        komi = np.array([b.komi * (b.to_play == goboard.BLACK) for b in boards])
        komi -= np.array([b.komi * (b.to_play == goboard.WHITE) for b in boards])
        out["ownership"] = owned - komi
        if "head" in out:
            out["mean of both"] = (out["head"] + out["ownership"]) / 2.0
    winrates = (heads.value.double().numpy().reshape(-1) + 1.0) / 2.0
    out["calibrated"] = np.array(
        [
            MoveScores(b).lead(None, float(w))[0]
            for b, w in zip(boards, winrates, strict=True)
        ]
    )
    if simulations:
        winrates, averaged = searched(boards, simulations)
        out["calibrated by search"] = np.array(
            [
                MoveScores(b).lead(None, float(w))[0]
                for b, w in zip(boards, winrates, strict=True)
            ]
        )
        if averaged is not None:
            out["search's average"] = averaged
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", help="a folder of SGF game records")
    parser.add_argument("--net", required=True, help="the network whose heads are read")
    parser.add_argument("--moves", type=int, nargs="+", default=[10, 20, 30, 40, 50])
    parser.add_argument(
        "--search",
        type=int,
        default=0,
        metavar="N",
        help="also calibrate by the default engine's winrate at N simulations",
    )
    args = parser.parse_args()
    net = load_weights(args.net)
    net.eval()
    records: list[tuple[GameRecord, float]] = []
    for path in sgf_files([args.records]):
        record = read_sgf(path.read_bytes())
        margin = black_margin(record.result)
        if margin is not None and record.size == net.config.board_size:
            records.append((record, margin))
    print(f"{len(records)} games with a counted margin")
    print("move  positions  reading               mean abs error  names the winner")
    for move in args.moves:
        games = [(r, m) for r, m in records if len(r.moves) > move]
        if not games:
            print(f"{move:4d}  no counted game that long")
            continue
        boards = [
            replay(dataclasses.replace(r, moves=r.moves[:move])) for r, _ in games
        ]
        truth = np.array(
            [m * b.to_play for (_, m), b in zip(games, boards, strict=True)]
        )
        for label, lead in readings(net, boards, args.search).items():
            error = float(np.abs(lead - truth).mean())
            right = float(np.mean(np.sign(lead) == np.sign(truth)))
            print(
                f"{move:4d}  {len(boards):9d}  {label:20s}  {error:14.2f}  {right:.2f}"
            )


if __name__ == "__main__":
    main()
