"""One analysis query (a JSON object) checked and turned into jobs, one per turn.

Fields follow KataGo's docs/Analysis_Engine.md; see :mod:`alphago.analysis` for what
we support. Every problem raises :class:`QueryError` naming the field, which the
server sends back as ``{"error": ..., "field": ..., "id": ...}``; settings we accept
but cannot honour become warnings, sent before the results.
"""

from __future__ import annotations

import contextlib
import math
import threading
from dataclasses import dataclass, field

import goboard
from goboard import coords
from search import MoveFilter

from ..sgf import play_as, rebuilt
from .rules import handicap_bonus, handicap_stones, parse_rules

__all__ = ["PERSPECTIVES", "Job", "ParsedQuery", "QueryError", "parse_query"]

#: ``reportAnalysisWinratesAs``: whose view winrates, scores and ownership take.
PERSPECTIVES = ("BLACK", "WHITE", "SIDETOMOVE")

#: ``overrideSettings`` keys that change what we do; every other key is ignored with a
#: warning (KataGo's search parameters such as ``wideRootNoise`` have no counterpart).
APPLIED_SETTINGS = ("reportAnalysisWinratesAs", "maxVisits", "maxTime")

#: KataGo query fields with no counterpart here: ignored with a warning (the flags only
#: when true), so that a client missing e.g. ``ownershipStdev`` is told why.
UNSUPPORTED_FLAGS = (
    "includeOwnershipStdev",
    "includeMovesOwnershipStdev",
    "includeNoResultValue",
)
UNSUPPORTED_FIELDS = (
    "rootPolicyTemperature",
    "rootFpuReductionMax",
    "analysisPVLen",
    "firstReportDuringSearchAfter",
)

#: Bounds of the numbers a query may carry (KataGo's, where it has them: clients ask
#: for 2**31 or more visits to search until they terminate; a search stops when its
#: tree is full anyway).
MAX_VISITS = 2**50
MAX_REPORT_EVERY = 1e6
MAX_KOMI = 150.0
MAX_DEPTH = 1000


class QueryError(ValueError):
    """A query we cannot analyse: ``field`` names the culprit (or None)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


@dataclass(eq=False)
class Job:
    """One position of one query to search (a query asks for one per turn)."""

    query_id: str
    turn: int
    board: goboard.Board
    max_visits: int | None  # None: the command line's --simulations
    max_time: float | None
    report_every: float | None
    ownership: bool
    moves_ownership: bool
    policy: bool
    filters: tuple[MoveFilter, ...]
    perspective: str
    priority: int
    pv_visits: bool = False  # includePVVisits
    stop: threading.Event = field(default_factory=threading.Event)


@dataclass
class ParsedQuery:
    """The jobs of a query and the warnings to send before their results."""

    query_id: str
    jobs: list[Job]
    warnings: list[tuple[str, str]]  # (field, message)


def _get(q: dict[str, object], key: str, kinds: type | tuple[type, ...]) -> object:
    value = q.get(key)
    if value is None:
        return None
    if isinstance(value, bool) and bool not in (
        kinds if isinstance(kinds, tuple) else (kinds,)
    ):
        raise QueryError(f"{key} must be {_kind(kinds)}, not a boolean", key)
    if not isinstance(value, kinds):
        raise QueryError(f"{key} must be {_kind(kinds)}", key)
    return value


def _kind(kinds: type | tuple[type, ...]) -> str:
    names = {bool: "true or false", int: "an integer", float: "a number"}
    names |= {str: "a string", list: "a list", dict: "an object"}
    seq = kinds if isinstance(kinds, tuple) else (kinds,)
    return " or ".join(names.get(k, k.__name__) for k in seq)


def _flag(q: dict[str, object], key: str) -> bool:
    return bool(_get(q, key, bool))


def _colour(value: object, key: str) -> int:
    if isinstance(value, str) and value.upper() in ("B", "BLACK"):
        return goboard.BLACK
    if isinstance(value, str) and value.upper() in ("W", "WHITE"):
        return goboard.WHITE
    raise QueryError(f"{key}: player must be 'B' or 'W', not {value!r}", key)


def _point(value: object, size: int, key: str, what: str) -> int:
    """A GTP vertex, "pass", or KataGo's "(x,y)": column from the left and row from
    the top, counted from 0."""
    if not isinstance(value, str):
        raise QueryError(f"{key}: {what}: a move must be a string such as 'D4'", key)
    try:
        xy = value.strip()
        if xy.startswith("(") and xy.endswith(")"):
            x, y = (int(part) for part in xy[1:-1].split(","))
            return coords.from_rowcol(y, x, size)
        return coords.from_gtp(value, size)
    except ValueError:
        raise QueryError(
            f"{key}: {what}: could not parse move {value!r} on a {size}x{size} board",
            key,
        ) from None


def _pairs(q: dict[str, object], key: str, size: int) -> list[tuple[int, int]]:
    raw = _get(q, key, list)
    out: list[tuple[int, int]] = []
    for i, item in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(item, list) or len(item) != 2:
            raise QueryError(f"{key}[{i}] must be [player, move]", key)
        out.append((_colour(item[0], key), _point(item[1], size, key, f"item {i}")))
    return out


def _size(q: dict[str, object]) -> int:
    x, y = _get(q, "boardXSize", int), _get(q, "boardYSize", int)
    if x is None or y is None:
        missing = "boardXSize" if x is None else "boardYSize"
        raise QueryError(f"{missing} was not specified", missing)
    if x != y:
        raise QueryError(f"only square boards are supported, not {x}x{y}", "boardXSize")
    assert isinstance(x, int)
    if not goboard.MIN_SIZE <= x <= goboard.MAX_SIZE:
        raise QueryError(
            f"board size must be in {goboard.MIN_SIZE}..{goboard.MAX_SIZE}, not {x}",
            "boardXSize",
        )
    return x


def _komi(q: dict[str, object], default: float) -> float:
    komi = _get(q, "komi", (int, float))
    if komi is None:
        return default
    assert isinstance(komi, (int, float))
    value = float(komi)
    if not (math.isfinite(value) and abs(value) <= MAX_KOMI) or value * 2 % 1:
        raise QueryError(
            f"komi must be an integer or half-integer in [-150, 150], not {komi}",
            "komi",
        )
    return value


def _positive(value: object, key: str, top: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise QueryError(f"{key} must be a number", key)
    if not (math.isfinite(value) and 0 < value <= top):
        raise QueryError(f"{key} must be in (0, {top:g}], not {value}", key)
    return float(value)


def _filters(q: dict[str, object], size: int) -> tuple[MoveFilter, ...]:
    out: list[MoveFilter] = []
    for key, allow in (("avoidMoves", False), ("allowMoves", True)):
        raw = _get(q, key, list)
        items = raw if isinstance(raw, list) else []
        if allow and len(items) > 1:
            raise QueryError("allowMoves may hold one entry only", key)
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise QueryError(f"{key}[{i}] must be an object", key)
            colour = _colour(item.get("player"), key)
            moves = item.get("moves")
            if not isinstance(moves, list):
                raise QueryError(f"{key}[{i}].moves must be a list of moves", key)
            points = sorted({_point(m, size, key, f"item {i}") for m in moves})
            depth = item.get("untilDepth")
            if (
                isinstance(depth, bool)
                or not isinstance(depth, int)
                or not 1 <= depth <= MAX_DEPTH
            ):
                raise QueryError(
                    f"{key}[{i}].untilDepth must be an integer in 1..{MAX_DEPTH}", key
                )
            if points or allow:
                out.append(MoveFilter(colour, tuple(points), depth, allow))
    return tuple(out)


def _settings(
    q: dict[str, object], warnings: list[tuple[str, str]]
) -> tuple[str | None, int | None, float | None]:
    raw = _get(q, "overrideSettings", dict)
    settings = raw if isinstance(raw, dict) else {}
    ignored = sorted(k for k in settings if k not in APPLIED_SETTINGS)
    if ignored:
        warnings.append(
            (
                "overrideSettings",
                "ignored (no such setting in alphago): " + ", ".join(ignored),
            )
        )
    perspective = settings.get("reportAnalysisWinratesAs")
    if perspective is not None:
        if not isinstance(perspective, str) or perspective.upper() not in PERSPECTIVES:
            raise QueryError(
                "reportAnalysisWinratesAs must be BLACK, WHITE or SIDETOMOVE",
                "overrideSettings",
            )
        perspective = perspective.upper()
    visits = _setting(settings, "maxVisits", MAX_VISITS)
    max_time = _setting(settings, "maxTime", 86400.0)
    return perspective, None if visits is None else int(visits), max_time


def _setting(settings: dict[str, object], key: str, top: float) -> float | None:
    """A number of ``overrideSettings``, which KataGo also takes as a string (it reads
    them as config lines): ``"maxVisits": "100"``."""
    value = settings.get(key)
    if isinstance(value, str):
        with contextlib.suppress(ValueError):  # else _positive says what is wrong
            value = float(value)
    return None if value is None else _positive(value, f"overrideSettings.{key}", top)


def _turns(q: dict[str, object], moves: int) -> tuple[list[int], list[int]]:
    raw = _get(q, "analyzeTurns", list)
    turns = [moves] if raw is None else raw
    assert isinstance(turns, list)
    if not turns:  # no job, so no reply at all: the client would wait forever
        raise QueryError("analyzeTurns must name at least one turn", "analyzeTurns")
    for t in turns:
        if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= moves:
            raise QueryError(
                f"analyzeTurns: turn {t!r} is not in 0..{moves}", "analyzeTurns"
            )
    raw_pri = _get(q, "priorities", list)
    if raw_pri is not None:
        assert isinstance(raw_pri, list)
        if len(raw_pri) != len(turns) or any(
            isinstance(p, bool) or not isinstance(p, int) for p in raw_pri
        ):
            raise QueryError(
                "priorities must be integers, one per analyzeTurns entry", "priorities"
            )
        priorities = list(raw_pri)
    else:
        base = _get(q, "priority", int)
        priorities = [int(base) if isinstance(base, int) else 0] * len(turns)
    return list(turns), priorities


def _positions(
    q: dict[str, object],
    size: int,
    komi: float,
    rules: goboard.Rules,
    turns: set[int],
    bonus: str,
) -> dict[int, goboard.Board]:
    """The board of each of ``turns`` (and of the last one), komi with White's
    handicap ``bonus`` ("0", "N" or "N-1") as it stands at that turn."""
    initial = _pairs(q, "initialStones", size)
    moves = _pairs(q, "moves", size)
    first = q.get("initialPlayer")
    if first is not None:
        to_play = _colour(first, "initialPlayer")
    elif moves:
        to_play = moves[0][0]
    else:  # KataGo: White moves first after handicap stones (two or more, no White)
        to_play = goboard.WHITE if handicap_stones(initial) else goboard.BLACK
    stones = [[0] * size for _ in range(size)]
    for colour, point in initial:
        if point == size * size:
            raise QueryError("initialStones cannot hold a pass", "initialStones")
        row, col = divmod(point, size)
        if stones[row][col]:
            where = coords.to_gtp(point, size)
            raise QueryError(f"initialStones: two stones on {where}", "initialStones")
        stones[row][col] = colour
    try:
        board = goboard.Board.from_stones(stones, to_play, komi, rules)
    except ValueError as e:
        raise QueryError(f"initialStones: {e}", "initialStones") from None
    out: dict[int, goboard.Board] = {}
    black_moves = 0  # Black's moves before White's first: handicap stones too
    white_moved = False
    for turn, (colour, point) in enumerate(moves):
        board.komi = komi + handicap_bonus(bonus, initial, black_moves)
        if turn in turns:
            out[turn] = board.copy()
        white_moved = white_moved or colour == goboard.WHITE
        if not white_moved and point != size * size:
            black_moves += 1
        try:
            board = _play_tolerant(board, colour, point)
        except ValueError as e:
            vertex = coords.to_gtp(point, size)
            side = "B" if colour == goboard.BLACK else "W"
            why = e.reason if isinstance(e, goboard.IllegalMoveError) else str(e)
            raise QueryError(
                f"Illegal move {turn}: {side} {vertex} ({why})", "moves"
            ) from None
    board.komi = komi + handicap_bonus(bonus, initial, black_moves)
    out[len(moves)] = board
    return out


def _play_tolerant(board: goboard.Board, colour: int, point: int) -> goboard.Board:
    """:func:`play_as`, but a move the rules forbid only by superko or multi-stone
    suicide is played anyway, as KataGo plays a query's moves (a game record may come
    from other rules): the position after it is rebuilt from its stones, forgetting
    the superko history. Occupied points, a simple ko (play_as's reason ``ko``) and
    single-stone suicide still raise."""
    try:
        return play_as(board, colour, point)
    except goboard.IllegalMoveError as e:
        if e.reason not in ("superko", "suicide"):
            raise
    loose = goboard.Rules("simple", suicide=True)
    played = goboard.Board.from_stones(board.stones(), colour, board.komi, loose)
    played.play(point)  # raises for a single-stone suicide (no ko state is left)
    return goboard.Board.from_stones(
        played.stones(), played.to_play, board.komi, board.rules
    )


def _play_on(boards: dict[int, goboard.Board]) -> list[int]:
    """Replace the boards of turns where the game is over (two passes) by the same
    stones with the side to move playing on, as GTP's genmove does, so that a review
    of a whole game gets its last turn analysed; those turns, in order."""
    over = sorted(t for t, b in boards.items() if b.is_over)
    for t in over:
        boards[t] = rebuilt(boards[t], boards[t].to_play)
    return over


def parse_query(
    q: dict[str, object], default_perspective: str = "BLACK"
) -> ParsedQuery:
    """Check an analysis query and build its jobs, in ``analyzeTurns`` order.

    Raises:
        QueryError: anything KataGo would refuse, and boards we cannot play.
    """
    query_id = q.get("id")
    if not isinstance(query_id, str):
        raise QueryError("id must be a string", "id")
    warnings: list[tuple[str, str]] = []
    size = _size(q)
    if "rules" not in q:
        raise QueryError("rules was not specified", "rules")
    try:
        ruleset = parse_rules(q["rules"])
    except ValueError as e:
        raise QueryError(str(e), "rules") from None
    warnings.extend(("rules", w) for w in ruleset.warnings)
    komi = _komi(q, ruleset.komi)
    bonus_kind = _get(q, "whiteHandicapBonus", str)
    if bonus_kind is not None and bonus_kind not in ("0", "N", "N-1"):
        raise QueryError("whiteHandicapBonus must be 0, N or N-1", "whiteHandicapBonus")
    bonus = str(bonus_kind or ruleset.handicap_bonus)
    moves = _get(q, "moves", list)
    if moves is None:
        raise QueryError("moves was not specified", "moves")
    assert isinstance(moves, list)
    turns, priorities = _turns(q, len(moves))
    perspective, override_visits, max_time = _settings(q, warnings)
    visits = _get(q, "maxVisits", int)
    if visits is not None:
        visits = int(_positive(visits, "maxVisits", MAX_VISITS))
    if override_visits is not None:
        visits = override_visits
    every = _get(q, "reportDuringSearchEvery", (int, float))
    report_every = (
        None
        if every is None
        else _positive(every, "reportDuringSearchEvery", MAX_REPORT_EVERY)
    )
    filters = _filters(q, size)
    own, moves_own, policy = (
        _flag(q, "includeOwnership"),
        _flag(q, "includeMovesOwnership"),
        _flag(q, "includePolicy"),
    )
    pv_visits = _flag(q, "includePVVisits")
    for key in UNSUPPORTED_FLAGS:
        if _flag(q, key):
            warnings.append((key, "not supported by alphago: ignored"))
    for key in UNSUPPORTED_FIELDS:
        if q.get(key) is not None:
            warnings.append((key, "not supported by alphago: ignored"))
    boards = _positions(q, size, komi, ruleset.rules, set(turns), bonus)
    over = _play_on(boards)
    if over:
        listed = ("turn " if len(over) == 1 else "turns ") + ", ".join(map(str, over))
        warnings.append(
            (
                "moves",
                f"the game is over (two passes) at {listed}; analysed as if the side "
                "to move played on",
            )
        )
    jobs = []
    seen: set[int] = set()
    for turn, priority in zip(turns, priorities, strict=True):
        if turn in seen:
            continue
        seen.add(turn)
        jobs.append(
            Job(
                query_id,
                turn,
                boards[turn],
                visits,
                max_time,
                report_every,
                own,
                moves_own,
                policy,
                filters,
                perspective or default_perspective,
                priority,
                pv_visits,
            )
        )
    return ParsedQuery(query_id, jobs, warnings)
