"""Does a network's value head rate its own engine's games honestly?

For the SGF records of a match (``alphago eval --sgf-dir``), the position after each
move in --moves is given to the network, and its value is read from the side of the
player whose name (PB/PW) contains --player. Printed per move number: how many
positions, the mean of that value, how often it says that player is ahead, how
often that player really won, and how often the value named the winner. A value
head that a search can trust says "ahead" about as often as the player wins; one
that the search has learned to please says it far more often: the search steers to
positions the head overrates, and the head's error grows as the game goes on. The
same is shown for pattern rollouts with --rollouts, and for a net with an ownership
head, its summed ownership less komi (the "mean value" is then a margin in points).

    python scripts/value_bias.py docs/match-19x19-2026-12-01/cand \\
        --net src/alphago/nets/shipped/alphago-19x19.pt --moves 60 100 150 200
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass

import numpy as np
import torch

import goboard
from alphago.data.dataset import result_winner, sgf_files
from alphago.nets import load_weights
from alphago.nets.model import PolicyValueNet
from alphago.nets.nets2016 import shipped_rollout
from alphago.rollout_weights import load_rollout_policy
from alphago.sgf import GameRecord, read_sgf, replay


@dataclass(frozen=True)
class Bias:
    """What the value said about the player's side, against what came of it."""

    move: int
    positions: int
    mean_value: float  # the value for the player, in [-1, 1]
    says_ahead: float  # fraction of positions where it was above 0
    won: float  # fraction of those games the player won
    right: float  # fraction of positions where it named the winner


def player_colour(record: GameRecord, name: str) -> int | None:
    """The colour of the player whose name contains ``name``; None if neither or
    both do."""
    black = name in record.players.get(goboard.BLACK, "")
    white = name in record.players.get(goboard.WHITE, "")
    if black == white:
        return None
    return goboard.BLACK if black else goboard.WHITE


def positions(
    records: list[GameRecord], name: str, move: int
) -> tuple[list[goboard.Board], np.ndarray, np.ndarray]:
    """The boards after ``move`` moves of the decided games long enough, the player's
    colour in each and whether the player won (+1 / -1)."""
    boards, colours, outcomes = [], [], []
    for record in records:
        colour = player_colour(record, name)
        winner = result_winner(record.result)
        if colour is None or not winner or len(record.moves) <= move:
            continue
        boards.append(replay(dataclasses.replace(record, moves=record.moves[:move])))
        colours.append(colour)
        outcomes.append(1.0 if winner == colour else -1.0)
    return boards, np.array(colours, np.float64), np.array(outcomes, np.float64)


def net_values(net: PolicyValueNet, boards: list[goboard.Board]) -> np.ndarray:
    """The value head's output, Black's view."""
    planes = np.stack([b.features(net.config.input_planes) for b in boards])
    with torch.inference_mode():
        value = net.heads(torch.from_numpy(planes), score=False).value
    movers = np.array([b.to_play for b in boards], np.float64)
    return value.double().numpy().reshape(-1) * movers


def ownership_margins(net: PolicyValueNet, boards: list[goboard.Board]) -> np.ndarray:
    """The ownership head summed over the board less komi (Black's view, in points):
    the final margin it expects (nets with an ownership head)."""
    planes = np.stack([b.features(net.config.input_planes) for b in boards])
    with torch.inference_mode():
        logit = net.heads(torch.from_numpy(planes), score=False).ownership_logit
    assert logit is not None
    owned = torch.tanh(logit).double().numpy().sum(axis=(1, 2))
    movers = np.array([b.to_play for b in boards], np.float64)
    komi = np.array([b.komi for b in boards], np.float64)
    return owned * movers - komi


def rollout_values(
    policy: goboard.PatternPolicy, boards: list[goboard.Board], rollouts: int
) -> np.ndarray:
    """The mean result (+1 / -1, Black's view) of ``rollouts`` pattern rollouts."""
    return np.sign(policy.playouts_batch(boards, rollouts, 1)).mean(axis=1)


def bias(
    move: int, black_view: np.ndarray, colours: np.ndarray, outcomes: np.ndarray
) -> Bias:
    own = black_view * colours
    return Bias(
        move=move,
        positions=len(own),
        mean_value=float(own.mean()),
        says_ahead=float(np.mean(own > 0)),
        won=float(np.mean(outcomes > 0)),
        right=float(np.mean(np.sign(own) == outcomes)),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", nargs="+", help="folders of SGF game records")
    parser.add_argument(
        "--net", required=True, help="the network whose value is judged"
    )
    parser.add_argument("--player", default="alphago", help="name in PB/PW (alphago)")
    parser.add_argument("--moves", type=int, nargs="+", default=[60, 100, 150, 200])
    parser.add_argument("--rollouts", type=int, default=0, help="pattern rollouts too")
    parser.add_argument("--rollout-weights", help="their weights (the shipped ones)")
    args = parser.parse_args()
    net = load_weights(args.net)
    records = [read_sgf(p.read_bytes()) for p in sgf_files(args.records)]
    policy = None
    if args.rollouts:
        weights = args.rollout_weights or shipped_rollout(net.config.board_size)
        if weights is None:
            parser.error("no rollout weights ship for this size: --rollout-weights")
        policy = load_rollout_policy(weights)
    print("move  positions  source     mean value  says ahead  won   right")
    for move in args.moves:
        boards, colours, outcomes = positions(records, args.player, move)
        if not boards:
            print(f"{move:4d}  no decided game that long")
            continue
        sources = [("value", net_values(net, boards))]
        if net.config.ownership_head:
            sources.append(("ownership", ownership_margins(net, boards)))
        if policy is not None:
            sources.append(("rollouts", rollout_values(policy, boards, args.rollouts)))
        for label, values in sources:
            b = bias(move, values, colours, outcomes)
            print(
                f"{b.move:4d}  {b.positions:9d}  {label:9s}  {b.mean_value:+10.3f}  "
                f"{b.says_ahead:10.2f}  {b.won:.2f}  {b.right:.2f}"
            )


if __name__ == "__main__":
    main()
