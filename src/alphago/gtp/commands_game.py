"""GTP commands about the game around the moves: handicap, clocks, scoring, SGF files.

Handicap placement follows GTP 2 (section 4.1.1): corner points on the fourth line
(third line below 13x13), then sides and centre on odd boards.

Stone status (``final_status_list``, ``final_score``), decided string by string:

- *seki*: a structural test confirmed by random playouts. An empty point is *mutual*
  when it touches both colours and a move there by either colour is illegal or
  self-atari (leaves the mover's string with one liberty): whoever fills it is
  captured. A string is structurally in seki when it has a mutual liberty, every
  liberty it has is mutual or an *eye point* of its colour (all neighbours its
  colour's stones), and it shares a mutual liberty with an opposite-colour string that
  passes the same test: two eyeless strings sharing two liberties, or one eye each
  sharing one. The pair is seki unless random playouts settle it: the
  :data:`SEKI_PLAYOUTS` playouts from each side to move (a settled seki falls to
  whoever must fill first, so one side alone would not do) leave either string with
  the same owner in more than 90% of them (mean ownership beyond
  :data:`SEKI_SETTLED`), as when the stones around an eye can be captured.
- *dead*: not seki, and the player's ownership estimate (the network's ownership head
  where it has one, else random playouts) gives the stone's point to the other colour
  by more than ``Engine.dead_threshold``.
- *alive*: the other stones (GTP 2: alive is neither dead nor seki).

``final_score`` removes the dead stones and counts area: seki stones stay, so the
mutual points between them are neutral and their eyes count for their owner.
Sekis spread over several strings of one colour are found only where each string
touches a mutual point; the others answer alive (also kept by ``final_score``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

import goboard
from goboard import coords

from .. import sgf
from .engine import Context, Engine, Handler
from .protocol import GtpError, parse_colour, parse_float, parse_int, parse_vertex

__all__ = [
    "COMMANDS",
    "SEKI_PLAYOUTS",
    "SEKI_SETTLED",
    "dead_stones",
    "handicap_points",
    "seki_stones",
]

#: Largest number of seconds accepted in time settings (about 30 years).
MAX_SECONDS = 1e9
MAX_STONES = 1_000_000
#: Random playouts from each side to move behind the seki test.
SEKI_PLAYOUTS = 128
#: A string whose mean playout ownership is beyond this is settled by the playouts
#: (the same owner in more than 90% of them): not seki.
SEKI_SETTLED = 0.8


def handicap_points(size: int, count: int) -> list[int]:
    """The GTP fixed handicap points, in GTP's order.

    Raises:
        GtpError: the board size has no fixed placement for ``count`` stones.
    """
    top = 0 if size < 7 else (4 if size % 2 == 0 or size == 7 else 9)
    if not 2 <= count <= top:
        raise GtpError("invalid handicap")
    edge = 3 if size >= 13 else 2
    lo, hi, mid = edge, size - 1 - edge, size // 2

    def p(row: int, col: int) -> int:
        return row * size + col

    corners = [p(hi, lo), p(lo, hi), p(lo, lo), p(hi, hi)]  # D4 Q16 D16 Q4
    sides = [p(mid, lo), p(mid, hi)]  # D10 Q10
    tops = [p(hi, mid), p(lo, mid)]  # K4 K16
    centre = p(mid, mid)
    layouts = {
        5: corners + [centre],
        6: corners + sides,
        7: corners + sides + [centre],
        8: corners + sides + tops,
        9: corners + sides + tops + [centre],
    }
    return corners[:count] if count <= 4 else layouts[count]


def _require_empty(e: Engine) -> None:
    if e.moves or e.setup or e.board.stones().any():
        raise GtpError("board not empty")


def _set_handicap(e: Engine, points: list[int]) -> None:
    e.set_position({goboard.BLACK: sorted(points)}, [])


def _vertices(points: list[int], size: int) -> str:
    return " ".join(coords.to_gtp(p, size) for p in points)


def fixed_handicap(e: Engine, args: list[str], ctx: Context) -> str:
    if len(args) != 1:
        raise GtpError("expected 1 argument")
    count = parse_int(args[0], "handicap", -(10**12), 10**12)
    points = handicap_points(e.size, count)
    _require_empty(e)
    _set_handicap(e, points)
    return _vertices(points, e.size)


def place_free_handicap(e: Engine, args: list[str], ctx: Context) -> str:
    if len(args) != 1:
        raise GtpError("expected 1 argument")
    count = parse_int(args[0], "handicap", -(10**12), 10**12)
    n = e.size
    if not 2 <= count < n * n:
        raise GtpError("invalid handicap")
    _require_empty(e)
    fixed: list[int] = []
    for k in range(min(count, 9), 1, -1):
        try:
            fixed = handicap_points(n, k)
            break
        except GtpError:
            continue
    chosen = list(fixed)
    # Beyond the fixed points: every other point of a checkerboard, then the rest.
    order = sorted(range(n * n), key=lambda q: ((q // n + q % n) % 2, q))
    for q in order:
        if len(chosen) >= count:
            break
        if q not in chosen:
            chosen.append(q)
    _set_handicap(e, chosen)
    return _vertices(chosen, n)


def set_free_handicap(e: Engine, args: list[str], ctx: Context) -> str:
    n = e.size
    if not 2 <= len(args) < n * n:
        raise GtpError("invalid handicap")
    points = [parse_vertex(a, n) for a in args]
    if n * n in points or len(set(points)) != len(points):
        raise GtpError("bad vertex list")
    _require_empty(e)
    _set_handicap(e, points)
    return ""


def time_settings(e: Engine, args: list[str], ctx: Context) -> str:
    if len(args) != 3:
        raise GtpError("expected 3 arguments: main_time byo_yomi_time byo_yomi_stones")
    main = parse_float(args[0], "main time", 0, MAX_SECONDS)
    byo = parse_float(args[1], "byo-yomi time", 0, MAX_SECONDS)
    stones = parse_int(args[2], "byo-yomi stones", 0, MAX_STONES)
    e.time.set_gtp(main, byo, stones)
    return ""


def kgs_time_settings(e: Engine, args: list[str], ctx: Context) -> str:
    if not args:
        raise GtpError("expected a time system")
    system, rest = args[0].lower(), args[1:]
    want = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
    if system not in want:
        raise GtpError(f"unknown time system {args[0]!r}")
    if len(rest) != want[system]:
        raise GtpError(f"{system} needs {want[system]} argument(s)")
    if system == "none":
        e.time.set_none()
        return ""
    main = parse_float(rest[0], "main time", 0, MAX_SECONDS)
    if system == "absolute":
        e.time.set_absolute(main)
        return ""
    byo = parse_float(rest[1], "byo-yomi time", 0, MAX_SECONDS)
    count = parse_int(rest[2], "byo-yomi count", 0, MAX_STONES)
    if system == "byoyomi":
        e.time.set_japanese(main, byo, count)
    else:
        e.time.set_canadian(main, byo, count)
    return ""


def time_left(e: Engine, args: list[str], ctx: Context) -> str:
    if len(args) != 3:
        raise GtpError("expected 3 arguments: color time stones")
    colour = parse_colour(args[0])
    seconds = parse_float(args[1], "time", -MAX_SECONDS, MAX_SECONDS)
    stones = parse_int(args[2], "stones", 0, MAX_STONES)
    e.time.time_left(colour, max(seconds, 0.0), stones)
    return ""


def _neighbours(p: int, n: int) -> list[int]:
    row, col = divmod(p, n)
    out = [p - n] if row else []
    if row < n - 1:
        out.append(p + n)
    if col:
        out.append(p - 1)
    if col < n - 1:
        out.append(p + 1)
    return out


def _structural_seki(board: goboard.Board) -> list[list[int]]:
    """The points of each pair of strings (Black's, then White's) that passes the
    structural seki test of the module docstring."""
    n = board.size
    flat = board.stones().reshape(-1)
    movers = {
        c: goboard.Board.from_stones(board.stones(), c, board.komi, board.rules)
        for c in (goboard.BLACK, goboard.WHITE)
    }
    mutual: dict[int, bool] = {}

    def is_mutual(p: int) -> bool:
        if p not in mutual:
            colours = {int(flat[q]) for q in _neighbours(p, n)}
            ok = goboard.BLACK in colours and goboard.WHITE in colours
            for board_c in movers.values():
                if ok and board_c.is_legal(p):
                    probe = board_c.copy()
                    probe.play(p)
                    ok = probe.liberties(p) <= 1
            mutual[p] = ok
        return mutual[p]

    string_of: dict[int, int] = {}
    strings: list[list[int]] = []
    candidate: list[bool] = []
    for p in flat.nonzero()[0].tolist():
        if p in string_of:
            continue
        points = [int(q) for q in board.string(p)]
        for q in points:
            string_of[q] = len(strings)
        colour = int(flat[p])
        libs = {q for s in points for q in _neighbours(s, n) if flat[q] == 0}
        eyes = {q for q in libs if all(flat[r] == colour for r in _neighbours(q, n))}
        others = libs - eyes
        candidate.append(bool(others) and all(is_mutual(q) for q in others))
        strings.append(points)
    pairs: set[tuple[int, int]] = set()
    for p, ok in mutual.items():
        if not ok:
            continue
        touching = {string_of[q] for q in _neighbours(p, n) if flat[q] != 0}
        good = [i for i in touching if candidate[i]]
        for i in good:
            for j in good:
                if flat[strings[i][0]] == goboard.BLACK != flat[strings[j][0]]:
                    pairs.add((i, j))
    return [strings[i] + strings[j] for i, j in sorted(pairs)]


def _playout_ownership_both(e: Engine) -> NDArray[np.float64]:
    """Mean ownership (Black's view, flat) of :data:`SEKI_PLAYOUTS` random playouts
    from each side to move, seeded by the position."""
    total = np.zeros(e.size * e.size)
    for colour in (goboard.BLACK, goboard.WHITE):
        board = e.board_for(colour)
        seed = int(board.zobrist) % 2**62
        _, _, owners = goboard.playouts(board, SEKI_PLAYOUTS, seed, ownership=True)
        total += owners.reshape(-1)
    return total / (2 * SEKI_PLAYOUTS)


def seki_stones(e: Engine) -> list[int]:
    """Points of stones in seki (module docstring), sorted."""
    pairs = _structural_seki(e.board)
    if not pairs:
        return []
    own = _playout_ownership_both(e)
    flat = e.board.stones().reshape(-1)
    seki: set[int] = set()
    for pair in pairs:
        colours = flat[pair]
        black = [p for p, c in zip(pair, colours, strict=True) if c == goboard.BLACK]
        white = [p for p, c in zip(pair, colours, strict=True) if c != goboard.BLACK]
        if max(abs(own[black].mean()), abs(own[white].mean())) <= SEKI_SETTLED:
            seki.update(pair)
    return sorted(seki)


def _status(e: Engine) -> tuple[list[int], list[int]]:
    """(dead, seki) points, each sorted."""
    seki = seki_stones(e)
    board = e.board_for(e.board.to_play)
    own = e.player.ownership(board).reshape(-1)
    stones = e.board.stones().reshape(-1).astype(float)
    dead = (stones != 0) & (own * stones < -e.dead_threshold)
    dead[seki] = False
    return [int(p) for p in dead.nonzero()[0]], seki


def dead_stones(e: Engine) -> list[int]:
    """Points of stones the ownership estimate gives to the other colour, seki stones
    excepted (module docstring), sorted."""
    return _status(e)[0]


def _score_text(score: float) -> str:
    if score > 0:
        return f"B+{score:g}"
    if score < 0:
        return f"W+{-score:g}"
    return "0"


def final_score(e: Engine, args: list[str], ctx: Context) -> str:
    stones = e.board.stones()
    flat = stones.reshape(-1)
    for p in dead_stones(e):
        flat[p] = 0
    board = goboard.Board.from_stones(stones, goboard.BLACK, e.komi, e.rules)
    return _score_text(board.score())


def final_status_list(e: Engine, args: list[str], ctx: Context) -> str:
    if len(args) != 1:
        raise GtpError("expected 1 argument: alive, dead or seki")
    status = args[0].lower()
    if status not in ("alive", "dead", "seki"):
        raise GtpError(f"unknown status {args[0]!r}")
    dead, seki = _status(e)
    if status == "dead":
        return _vertices(dead, e.size)
    if status == "seki":
        return _vertices(seki, e.size)
    settled = set(dead) | set(seki)
    occupied = e.board.stones().reshape(-1).nonzero()[0].tolist()
    return _vertices([p for p in occupied if p not in settled], e.size)


def loadsgf(e: Engine, args: list[str], ctx: Context) -> str:
    if not 1 <= len(args) <= 2:
        raise GtpError("expected a file name and an optional move number")
    try:
        with open(args[0], "rb") as f:
            data = f.read(10_000_000)
    except OSError as exc:
        raise GtpError(f"cannot load file: {exc.strerror or exc}") from None
    try:
        record = sgf.read_sgf(data)
    except ValueError as exc:
        raise GtpError(f"cannot load file: {exc}") from None
    moves = record.moves
    if len(args) == 2:
        number = parse_int(args[1], "move number", 1, 10**9)
        moves = moves[: number - 1]
    record.moves = moves
    try:
        board = sgf.replay(record, e.rules)
    except ValueError as exc:
        raise GtpError(f"cannot load file: {exc}") from None
    # The game's size may need another player (the shipped network plays 9x9 only).
    e.player = e.player_for(record.size)
    e.size, e.komi = record.size, record.komi
    e.setup, e.moves, e.board = record.setup, list(moves), board
    e.restart_resign_count()
    e.player.new_game()
    return ""


def printsgf(e: Engine, args: list[str], ctx: Context) -> str:
    if len(args) > 1:
        raise GtpError("expected at most a file name")
    record = e.record()
    if args:
        try:
            sgf.save_sgf(record, args[0])
        except OSError as exc:
            raise GtpError(f"cannot save file: {exc.strerror or exc}") from None
        return ""
    return sgf.write_sgf(record).decode("utf-8")


COMMANDS: dict[str, Handler] = {
    "fixed_handicap": fixed_handicap,
    "place_free_handicap": place_free_handicap,
    "set_free_handicap": set_free_handicap,
    "time_settings": time_settings,
    "kgs-time_settings": kgs_time_settings,
    "time_left": time_left,
    "final_score": final_score,
    "final_status_list": final_status_list,
    "loadsgf": loadsgf,
    "printsgf": printsgf,
}
