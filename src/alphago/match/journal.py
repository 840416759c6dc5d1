"""A match's journal: its settings and every finished game, so that it can go on.

A 19x19 match against GNU Go takes hours on two cores, longer than a session or the
patience of a machine that may be taken back. With a journal directory (``alphago eval
--sgf-dir D``) each finished game is written to ``D/game-N.json`` (atomically, beside
its SGF) with everything the report needs: the moves, result, how it ended and was
counted, and each engine's thinking time. ``D/match.json`` names the match: the two
command lines, board, komi, move cap and scoring.

Resuming (``--resume``) reads the games back and plays only the missing numbers. Game
``i`` keeps its colours and its ``{game}`` seed, so a resumed match is the match an
uninterrupted run plays. A journal of another match (other engines, board, komi, cap or
scoring) is refused rather than mixed in, and so is starting afresh over a journal
without ``--resume``: its games would be overwritten one by one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from alphago.atomic import atomic_write_bytes

from .game import GameOutcome

__all__ = ["MatchJournal"]

_SETTINGS = "match.json"
_GAME = re.compile(r"^game-(\d+)\.json$")
#: Bumped when the layout of the files changes; older journals are then refused.
_FORMAT = 1


def _outcome_dict(outcome: GameOutcome) -> dict[str, Any]:
    return {
        "size": outcome.size,
        "komi": outcome.komi,
        "winner": outcome.winner,
        "result": outcome.result,
        "reason": outcome.reason,
        "moves": [list(move) for move in outcome.moves],
        "score": outcome.score,
        "names": {str(c): n for c, n in outcome.names.items()},
        "think_time": {str(c): t for c, t in outcome.think_time.items()},
        "genmoves": {str(c): n for c, n in outcome.genmoves.items()},
        "stderr": {str(c): s for c, s in outcome.stderr.items()},
        "dead": list(outcome.dead),
        "settled": outcome.settled,
    }


def _outcome(data: dict[str, Any]) -> GameOutcome:
    return GameOutcome(
        size=int(data["size"]),
        komi=float(data["komi"]),
        winner=int(data["winner"]),
        result=str(data["result"]),
        reason=str(data["reason"]),
        moves=[(int(c), int(p)) for c, p in data["moves"]],
        score=None if data["score"] is None else float(data["score"]),
        names={int(c): str(n) for c, n in data["names"].items()},
        think_time={int(c): float(t) for c, t in data["think_time"].items()},
        genmoves={int(c): int(n) for c, n in data["genmoves"].items()},
        stderr={int(c): str(s) for c, s in data["stderr"].items()},
        dead=tuple(int(p) for p in data["dead"]),
        settled=str(data["settled"]),
    )


class MatchJournal:
    """The journal of one match in ``folder`` (created when missing).

    Args:
        folder: The directory (the match's SGF directory).
        settings: What makes two runs the same match (JSON-serialisable).
        resume: Go on from the games found there; without it a directory that holds
            a journal already is refused.

    Raises:
        ValueError: a journal without ``resume``, a journal of another match, or a
            damaged journal file; each message names the file.
    """

    def __init__(self, folder: Path, settings: dict[str, Any], *, resume: bool):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / _SETTINGS
        wanted = {"format": _FORMAT, **settings}
        self.created = not path.exists()
        if path.exists():
            if not resume:
                raise ValueError(
                    f"{folder} holds a match already ({_SETTINGS}): resume it, or "
                    "give another directory"
                )
            found = self._read(path)
            differ = sorted(
                k for k in wanted.keys() | found.keys() if wanted.get(k) != found.get(k)
            )
            if differ:
                raise ValueError(
                    f"{path}: another match ({', '.join(differ)} differ): resuming "
                    "would mix its games with these"
                )
        else:
            atomic_write_bytes(path, json.dumps(wanted, indent=1).encode())

    @staticmethod
    def _read(path: Path) -> dict[str, Any]:
        try:
            data = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path}: unreadable match journal: {exc}") from exc
        if not isinstance(data, dict):
            raise ValueError(f"{path}: unreadable match journal: not an object")
        return data

    def discard_if_new_and_empty(self) -> None:
        """Remove the settings this run wrote if no game was recorded: a match
        stopped before its first result (a broken engine command) leaves nothing,
        so the corrected command can use the folder."""
        if self.created and not self.finished():
            (self.folder / _SETTINGS).unlink(missing_ok=True)

    def finished(self) -> dict[int, GameOutcome]:
        """The games written so far, by number."""
        games: dict[int, GameOutcome] = {}
        for path in sorted(self.folder.iterdir()):
            match = _GAME.match(path.name)
            if match is None:
                continue
            data = self._read(path)
            try:
                index = int(data["index"])
                outcome = _outcome(data["outcome"])
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise ValueError(f"{path}: damaged game record: {exc!r}") from exc
            if index != int(match.group(1)):
                raise ValueError(f"{path}: holds game {index}")
            games[index] = outcome
        return games

    def save(self, index: int, outcome: GameOutcome) -> None:
        """Record game ``index`` (atomically: whole or not at all)."""
        data = {"index": index, "outcome": _outcome_dict(outcome)}
        atomic_write_bytes(
            self.folder / f"game-{index}.json", json.dumps(data).encode()
        )
