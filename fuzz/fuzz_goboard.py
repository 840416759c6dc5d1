"""Fuzz the goboard API: byte strings become calls with arbitrary arguments.

Every call goes to the compiled board and, where the reference has it, to
`goboard.reference` too. Checks, after every call:
- both implementations agree: on success the observable state is equal; on refusal both
  refuse (IllegalMoveError with the same reason for moves);
- a refused call raises ValueError or TypeError (IllegalMoveError is a ValueError) and
  leaves every object exactly as it was;
- the C invariant checker passes;
- planes, legal masks, playouts, perft and Pool children agree with independent
  recomputations (planes from the recorded stone history, Pool children from replaying
  the move on a copy, perft from counting reference legal moves).

Run: `python fuzz/fuzz_goboard.py -max_total_time=60 fuzz/corpus/goboard` (libFuzzer
flags); on the sanitizer build see fuzz/README.md. A crash file replays with
`python fuzz/fuzz_goboard.py crash-<sha>`.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
from fuzzinput import FuzzInput
from harness import instrumented, main

with instrumented(
    exclude=("goboard.reference", "goboard.reference_planes")
):  # the oracles: C coverage is the point
    import goboard
    from goboard import reference
    from goboard.errors import IllegalMoveError
    from goboard.reference_planes import alphago_planes

REFUSALS = (ValueError, TypeError)
RULES: list[Any] = [
    "tromp-taylor",
    "chinese",
    *[
        goboard.Rules(ko=k, suicide=s)
        for k in ("simple", "positional", "situational")
        for s in (True, False)
    ],
    "japanese",
    None,
    3,
]
DTYPES: list[Any] = [
    None,
    np.float32,
    np.uint8,
    np.float64,
    np.int32,
    np.bool_,
    "float32",
    "f8",
    object,
]
HISTORY = 8
MAX_OPS = 64


def snapshot(board: Any) -> tuple[Any, ...]:
    """Everything observable about a position, comparable across implementations."""
    return (
        board.size,
        board.komi,
        board.rules,
        board.stones().tobytes(),
        board.to_play,
        board.zobrist,
        board.ko_point,
        board.captures,
        board.move_number,
        board.passes,
        board.is_over,
        board.last_move,
        board.resigned,
    )


def weird_int(inp: FuzzInput, lo: int, hi: int) -> Any:
    """Mostly an int in [lo, hi]; sometimes numpy, bool, float, huge or None."""
    kind = inp.int(0, 15)
    value = inp.int(lo, hi)
    if kind < 10:
        return value
    return [
        np.int64(value),
        np.int8(max(-128, min(127, value))),
        bool(value & 1),
        float(value),
        2**64 + value,
        None,
    ][kind - 10]


def outcome(call: Any) -> tuple[str, Any]:
    """("ok", result) or ("refused", exception); any other exception escapes."""
    try:
        return "ok", call()
    except IllegalMoveError as err:
        return "illegal", err.reason
    except REFUSALS as err:
        return "refused", type(err).__name__


class Case:
    """One compiled board and its reference twin, with the stone history for planes."""

    def __init__(self, fast: goboard.Board, ref: reference.Board) -> None:
        self.fast, self.ref = fast, ref
        self.record = [fast.stones()]

    def check(self) -> None:
        self.fast._check_invariants()
        assert snapshot(self.fast) == snapshot(self.ref), (
            snapshot(self.fast),
            snapshot(self.ref),
        )

    def both(self, name: str, *args: Any) -> Any:
        """Call a method on both boards: they must agree; a refusal changes nothing."""
        before = snapshot(self.fast)
        got = outcome(lambda: getattr(self.fast, name)(*args))
        want = outcome(lambda: getattr(self.ref, name)(*args))
        if got[0] != "ok" or want[0] != "ok":
            assert got[0] == want[0] and (got[0] != "illegal" or got[1] == want[1]), (
                name,
                args,
                got,
                want,
            )
            assert snapshot(self.fast) == before, (
                f"refused {name}{args} changed the board"
            )
            return None
        if isinstance(got[1], np.ndarray):
            np.testing.assert_array_equal(got[1], want[1])
        else:
            assert got[1] == want[1], (name, args, got[1], want[1])
        return got[1]


def new_case(inp: FuzzInput) -> Case | None:
    # Mostly small boards, where the Python reference is cheap; every size now and then.
    size = weird_int(inp, -1, 21) if inp.int(0, 3) == 0 else inp.int(2, 7)
    komi = inp.choice([7.5, 0.5, -3.0, inp.float(), "6.5", None])
    rules = inp.choice(RULES)
    made = []
    for cls in (goboard.Board, reference.Board):
        made.append(outcome(lambda cls=cls: cls(size, komi, rules)))
    assert made[0][0] == made[1][0], (size, komi, rules, made)
    if made[0][0] != "ok":
        return None
    if inp.bool():  # sometimes a set-up position instead of an empty board
        n = made[0][1].size
        shape = inp.choice([(n, n), (n, n), (n, n + 1), (n * n,), (1, n, n)])
        stones = np.array(
            [
                inp.int(-2, 2) if inp.int(0, 7) == 0 else inp.int(-1, 1)
                for _ in range(int(np.prod(shape)))
            ]
        )
        stones = stones.reshape(shape).astype(
            inp.choice([np.int8, np.int64, np.float64, np.uint8])
        )
        to_play = inp.choice([1, -1, 1, 0, 2, True])
        made = [
            outcome(lambda cls=cls: cls.from_stones(stones, to_play, 7.5, rules))
            for cls in (goboard.Board, reference.Board)
        ]
        assert made[0][0] == made[1][0], ("from_stones", stones, to_play, made)
        if made[0][0] != "ok":
            return None
    case = Case(made[0][1], made[1][1])
    case.check()
    return case


def point(inp: FuzzInput, case: Case) -> Any:
    n = case.fast.size
    return weird_int(inp, -2, n * n + 2)


def expected_planes(
    record: list[np.ndarray], to_play: int, kind: str, legal: np.ndarray
) -> np.ndarray:
    if kind.startswith("alphago"):
        return alphago_planes(record, to_play, legal, kind)
    size = record[-1].shape[0]
    planes = np.zeros(({"agz17": 17, "lz18": 18}[kind], size, size), dtype=np.uint8)
    for k in range(min(HISTORY, len(record))):
        planes[k] = record[-1 - k] == to_play
        planes[HISTORY + k] = record[-1 - k] == -to_play
    planes[16] = to_play == goboard.BLACK
    if kind == "lz18":
        planes[17] = to_play == goboard.WHITE
    return planes


def op_play(inp: FuzzInput, case: Case) -> None:
    legal = case.fast.legal_moves()
    move = int(inp.choice(legal)) if legal and inp.int(0, 3) else point(inp, case)
    before = case.fast.move_number
    case.both("play", move)
    if case.fast.move_number != before:
        case.record.append(case.fast.stones())


def op_play_gtp(inp: FuzzInput, case: Case) -> None:
    vertex = inp.choice(
        ["pass", "PASS", "A1", "J9", "T19", "Z1", "a0", "", "resign", inp.text(6)]
    )
    before = case.fast.move_number
    case.both("play_gtp", vertex)
    if case.fast.move_number != before:
        case.record.append(case.fast.stones())


def op_queries(inp: FuzzInput, case: Case) -> None:
    p = point(inp, case)
    case.both("is_legal", p)
    case.both("liberties", p)
    case.both("string", p)
    case.both("legal_moves")
    case.both("ownership")
    case.both("score", inp.choice([None, 0.0, 7.5, -1.5, inp.float(), "x"]))
    case.both("result")


def op_komi(inp: FuzzInput, case: Case) -> None:
    value = inp.choice([5.5, 0.0, -7.5, inp.float(), inp.float(), "7", None, 10**400])
    got = outcome(lambda: setattr(case.fast, "komi", value))
    want = outcome(lambda: setattr(case.ref, "komi", value))
    assert got[0] == want[0], ("komi", value, got, want)


def op_copy(inp: FuzzInput, case: Case) -> None:
    how = inp.int(0, 3)
    if how == 0:
        fast = case.fast.copy()
    elif how == 1:  # refused by design (the history is not picklable yet)
        assert outcome(lambda: pickle.dumps(case.fast))[0] == "refused"
        return
    elif how == 2:
        import copy

        fast = copy.deepcopy(case.fast)
    else:
        fast = type(case.fast).__new__(type(case.fast))
        fast.__init__(case.fast.size, case.fast.komi, case.fast.rules)
        assert fast.move_number == 0
        return
    assert fast == case.fast and snapshot(fast) == snapshot(case.fast)
    fast._check_invariants()
    case.fast = fast  # go on with the copy; the original must not be needed
    case.ref = case.ref.copy()


def op_resign(inp: FuzzInput, case: Case) -> None:
    case.both("resign")


def op_features(inp: FuzzInput, case: Case) -> None:
    board = case.fast
    kind = inp.choice(["agz17", "lz18", "agz17", "alphago48", "", 7])
    dtype = inp.choice(DTYPES)
    n = board.size
    out = None
    if inp.bool():
        channels = inp.choice([17, 18, 16, 19])
        shape = inp.choice(
            [
                (channels, n, n),
                (channels, n, n),
                (channels, n + 1, n),
                (1, channels, n, n),
            ]
        )
        out = np.full(
            shape, 7, dtype=inp.choice([np.float32, np.uint8, np.float64, np.int8])
        )
        if inp.int(0, 3) == 0:
            out = out[..., ::-1]  # not C-contiguous
    before, kept = snapshot(board), None if out is None else out.copy()
    result = outcome(lambda: board.features(kind, out=out, dtype=dtype))
    assert snapshot(board) == before
    if result[0] != "ok":
        if out is not None:
            np.testing.assert_array_equal(
                out, kept, err_msg="refused features() wrote into out"
            )
        return
    planes = result[1]
    assert out is None or planes is out
    np.testing.assert_array_equal(
        planes.astype(np.uint8),
        expected_planes(case.record, board.to_play, kind, case.ref.legal_mask()),
    )
    batch = goboard.features_batch([board, board.copy()], kind, dtype=dtype)
    np.testing.assert_array_equal(batch[0], planes)
    np.testing.assert_array_equal(batch[1], planes)
    masks = goboard.legal_mask_batch([board])
    np.testing.assert_array_equal(masks[0], case.ref.legal_mask())


def op_playouts(inp: FuzzInput, case: Case) -> None:
    board = case.fast
    before = snapshot(board)
    # A cap above the default 3 N^2, but not 10^6: playouts skip superko, so on tiny
    # boards they can cycle until the cap (its first "timeout" was 4 x 10^6 moves).
    n, seed, max_moves = (
        weird_int(inp, -1, 4),
        weird_int(inp, -1, 2**32),
        inp.choice([None, 0, 1, 5, -1, 5000]),
    )
    result = outcome(lambda: goboard.playouts(board, n, seed, max_moves))
    assert snapshot(board) == before
    if result[0] == "ok":
        scores, lengths = result[1]
        assert scores.shape == lengths.shape == (n,)
        again = goboard.playouts(board, n, seed, max_moves)
        np.testing.assert_array_equal(again[0], scores)  # same seed, same games
        if max_moves is not None:
            assert (lengths <= max_moves).all()
    single = outcome(
        lambda: board.random_playout(
            weird_int(inp, -1, 99), inp.choice([None, 3, 0, -2])
        )
    )
    assert snapshot(board) == before, single


def op_perft(inp: FuzzInput, case: Case) -> None:
    board = case.fast
    depth = weird_int(inp, -1, 2 if board.size <= 5 else 1)
    result = outcome(lambda: goboard.perft(board, depth))
    if result[0] != "ok":
        return

    def count(ref: reference.Board, d: int) -> int:
        if d == 0:
            return 1
        total = 0
        for move in ref.legal_moves():
            child = ref.copy()
            child.play(move)
            total += count(child, d - 1)
        return total

    assert result[1] == count(case.ref, depth), (depth, result)


def op_eye(inp: FuzzInput, case: Case) -> None:
    p, colour = point(inp, case), inp.choice([1, -1, 0, 2, True])
    outcome(lambda: case.fast.is_true_eye(p, colour))


def op_pool(inp: FuzzInput, case: Case) -> None:
    """A Pool rooted here, expanded with fuzzed arrays: children equal replays."""
    slots = weird_int(inp, -1, 24)
    made = outcome(lambda: goboard.Pool([case.fast] * inp.int(1, 2), slots))
    if made[0] != "ok":
        return
    pool: goboard.Pool = made[1]
    used = {0}
    if pool.games == 2:
        used.add(pool.slots_per_root)
    n = case.fast.size
    for _ in range(inp.int(0, 6)):
        count = inp.int(0, 3)
        parents = [
            inp.choice(sorted(used)) if inp.int(0, 4) else inp.int(-2, pool.size + 2)
            for _ in range(count)
        ]
        actions = [inp.int(-2, n * n + 2) for _ in range(count)]
        children = [inp.int(-1, pool.size) for _ in range(count)]
        dtype = inp.choice([np.int64, np.int32, np.int64, np.float64])
        args = [np.array(a, dtype=dtype) for a in (parents, actions, children)]
        if inp.int(0, 7) == 0:
            args[inp.int(0, 2)] = args[0][:-1]  # ragged
        before = {s: pool.board(s) for s in used}
        result = outcome(lambda args=args: pool.expand(*args))
        if result[0] != "ok":
            after = {s: snapshot(pool.board(s)) for s in used}
            assert after == {s: snapshot(b) for s, b in before.items()}, (
                "refused expand changed the pool"
            )
            continue
        for parent, action, child in zip(parents, actions, children, strict=True):
            replay = before[parent].copy()  # accepted, so the parent was a used slot
            replay.play(action)  # IllegalMoveError here: the pool took an illegal move
            got = pool.board(child)
            got._check_invariants()
            assert got.stones().tobytes() == replay.stones().tobytes()
            assert (got.to_play, got.zobrist, got.ko_point, got.passes) == (
                replay.to_play,
                replay.zobrist,
                replay.ko_point,
                replay.passes,
            )
            used.add(child)
    live = sorted(used)
    for name in (
        "legal_masks",
        "eye_masks",
        "to_play",
        "is_over",
        "scores",
        "eval_keys",
    ):
        outcome(lambda name=name: getattr(pool, name)(np.array(live)))
    kind = inp.choice(["agz17", "lz18", "x"])
    planes = outcome(lambda: pool.features(np.array(live), kind))
    if planes[0] == "ok":
        for i, s in enumerate(live):
            np.testing.assert_array_equal(planes[1][i], pool.board(s).features(kind))


OPS = [
    op_play,
    op_play,
    op_play,
    op_play_gtp,
    op_queries,
    op_komi,
    op_copy,
    op_resign,
    op_features,
    op_playouts,
    op_perft,
    op_eye,
    op_pool,
]


def one_input(data: bytes) -> None:
    inp = FuzzInput(data)
    case = new_case(inp)
    if case is None:
        return
    for _ in range(MAX_OPS):
        if inp.remaining == 0:
            break
        inp.choice(OPS)(inp, case)
        case.check()


if __name__ == "__main__":
    main(one_input, "goboard")
