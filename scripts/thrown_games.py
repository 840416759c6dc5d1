#!/usr/bin/env python3
"""Find games an engine threw away after its opponent passed (run by hand, not in CI).

For every SGF of a match directory (``alphago eval --sgf-dir``), GNU Go scores the
position at the first pass of the game (``final_score``: dead stones removed) and at
the end. A game counts as *thrown* by a player when it was winning at that first pass
and lost at the end: what happened in between (filling its own eyes, self-atari in its
own area) gave the game away. Prints one line per such game and a summary.

    python scripts/thrown_games.py games/ --player alphago

``--player`` is matched against the SGF player names (``PB``/``PW``), which
``alphago eval`` fills with each engine's GTP name and version.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from alphago.match.gtp_client import GTPClient
from alphago.match.settle import default_arbiter
from alphago.sgf import GameRecord, read_sgf
from goboard.coords import to_gtp


def gnugo_score(command: str, record: GameRecord, upto: int) -> float:
    """GNU Go's final_score (Black's view) after the first ``upto`` moves."""
    with GTPClient(command, timeout=120) as gnugo:
        for line in (
            f"boardsize {record.size}",
            "clear_board",
            f"komi {record.komi:g}",
        ):
            gnugo.send(line)
        for colour, point in record.moves[:upto]:
            gnugo.send(
                f"play {'b' if colour == 1 else 'w'} {to_gtp(point, record.size)}"
            )
        answer = gnugo.send("final_score").strip()
    if answer in ("0", ""):
        return 0.0
    sign = 1.0 if answer.startswith("B") else -1.0
    return sign * float(answer[2:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sgf_dir", type=Path)
    parser.add_argument("--player", default="alphago", help="name to look for")
    parser.add_argument("--gnugo", default=default_arbiter(), help="GNU Go command")
    args = parser.parse_args()
    if not args.gnugo:
        print("GNU Go is not installed", file=sys.stderr)
        return 1
    games = thrown = 0
    for path in sorted(args.sgf_dir.glob("*.sgf")):
        record = read_sgf(path.read_bytes())
        names = {c: record.players.get(c, "") for c in (1, -1)}
        mine = [c for c, name in names.items() if args.player in name]
        if len(mine) != 1 or not record.result or record.result[2:] in ("R", "F"):
            continue
        games += 1
        me = mine[0]
        area = record.size * record.size
        first_pass = next(
            (i for i, (c, p) in enumerate(record.moves) if p == area and c == -me), None
        )
        if first_pass is None:
            continue
        at_pass = gnugo_score(args.gnugo, record, first_pass + 1) * me
        final = gnugo_score(args.gnugo, record, len(record.moves)) * me
        if at_pass > 0 and final < 0:
            thrown += 1
            print(
                f"{path.name}: winning by {at_pass:g} at the opponent's pass "
                f"(move {first_pass + 1}), lost by {-final:g} at the end "
                f"({len(record.moves)} moves)"
            )
    print(f"{thrown} of {games} counted games thrown away after the opponent's pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
