#!/usr/bin/env python3
"""Two matches against the same opponent on the same seeds, compared game by game.

``alphago eval`` gives game i of a match the ``{game}`` seed i and the same colours in
every match, so two engines A and A' each played against one opponent B can be
compared pair by pair: a game in which A scored more than A' (a win against a loss or a
tie, a tie against a loss) counts for A, the reverse for A', and games with the same
result say nothing about which is stronger. The sign test
over the pairs that differ is the paired comparison (sharper than the two scores).
Reads the journals ``alphago eval --sgf-dir DIR`` writes, finished or not; only game
numbers present in both count:

    python scripts/paired_matches.py runs/m19/shipped runs/m19/cand

Refuses journals whose opponent, board, komi or scoring differ.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from pathlib import Path

import goboard
from alphago.match import MatchGame
from alphago.match.journal import MatchJournal

#: Settings two matches must share to be paired (engine_a is what differs).
SHARED = ("engine_b", "size", "komi", "max_moves", "scoring")


@dataclass(frozen=True)
class Pairing:
    games: int  # game numbers finished in both matches
    wins_first: float  # A's points in the first match (a tie is half)
    wins_second: float
    only_first: int  # pairs in which A of the first match scored more
    only_second: int

    @property
    def sign_test_p(self) -> float:
        """Two-sided exact sign test over the differing pairs (1.0 when none differ)."""
        n, k = (
            self.only_first + self.only_second,
            min(self.only_first, self.only_second),
        )
        if n == 0:
            return 1.0
        tail = sum(math.comb(n, i) for i in range(k + 1)) / (1 << n)
        return min(1.0, 2 * tail)


def a_points(folder: Path) -> tuple[dict[str, object], dict[int, float]]:
    """(the match's settings, engine A's points in each finished game, by number:
    1 win, 0.5 tie, 0 loss)."""
    path = folder / "match.json"
    try:
        settings = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a match journal: {exc}") from exc
    stored = {k: v for k, v in settings.items() if k != "format"}
    games = MatchJournal(folder, stored, resume=True).finished()
    # A is Black in even games (alphago eval alternates colours that way).
    return settings, {
        i: MatchGame(i, goboard.BLACK if i % 2 == 0 else goboard.WHITE, g).a_points
        for i, g in games.items()
    }


def pair(first: Path, second: Path) -> Pairing:
    s1, w1 = a_points(first)
    s2, w2 = a_points(second)
    differ = [k for k in SHARED if s1.get(k) != s2.get(k)]
    if differ:
        raise ValueError(f"{first} and {second} differ in {', '.join(differ)}")
    both = sorted(w1.keys() & w2.keys())
    return Pairing(
        games=len(both),
        wins_first=sum(w1[i] for i in both),
        wins_second=sum(w2[i] for i in both),
        only_first=sum(w1[i] > w2[i] for i in both),
        only_second=sum(w2[i] > w1[i] for i in both),
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("first", type=Path, help="journal directory of the first match")
    p.add_argument("second", type=Path, help="journal directory of the second match")
    args = p.parse_args()
    try:
        r = pair(args.first, args.second)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    print(f"{r.games} games in both: first {r.wins_first:g}, second {r.wins_second:g}")
    print(
        f"better for the first: {r.only_first}, for the second: {r.only_second}"
        f" (two-sided sign test p = {r.sign_test_p:.3f})"
    )


if __name__ == "__main__":
    main()
