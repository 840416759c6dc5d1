"""Training data: the Examples container and its shards, symmetry augmentation at
sampling, SGF records to examples and shards, and GNU Go teacher games.

The GNU Go tests run only where GNU Go is installed (``gnugo`` on PATH or Debian's
``/usr/games/gnugo``); they play two tiny 5x5 games at level 0.
"""

from __future__ import annotations

import re
import shutil
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from records_helpers import random_record

pytest.importorskip("torch")

import goboard  # noqa: E402
from alphago.data.dataset import (  # noqa: E402
    build_shards,
    game_examples,
    result_winner,
    sgf_files,
)
from alphago.data.examples import (  # noqa: E402
    Examples,
    augment,
    load_shards,
    sample_batch,
)
from alphago.data.gendata import GenConfig, generate  # noqa: E402
from alphago.sgf import GameRecord, read_sgf, replay, save_sgf  # noqa: E402
from goboard import symmetries  # noqa: E402

SIZE = 5
PASS = SIZE * SIZE
C17 = 17


def sgf_point(xy: str) -> int:
    """Our flat point of an SGF coordinate pair (column letter, row letter from top)."""
    return (ord(xy[1]) - ord("a")) * SIZE + ord(xy[0]) - ord("a")


def random_examples(n: int, seed: int, kind: str = "agz17") -> Examples:
    rng = np.random.default_rng(seed)
    c = 17 if kind == "agz17" else 18
    planes = rng.integers(0, 2, (n, c, SIZE, SIZE), dtype=np.uint8)
    policy = rng.random((n, PASS + 1), dtype=np.float32)
    policy /= policy.sum(1, keepdims=True)
    value = rng.choice(np.array([-1.0, 0.0, 1.0], np.float32), n)
    return Examples(planes, policy, value, kind)


# -- Examples ---------------------------------------------------------------------


def test_examples_shapes_are_checked() -> None:
    good = random_examples(3, 0)
    planes, policy, value = good.planes, good.policy, good.value
    bad: list[tuple[Any, Any, Any, str]] = [
        (planes.astype(np.float32), policy, value, "agz17"),  # planes dtype
        (planes[0], policy, value, "agz17"),  # planes rank
        (planes[:, :16], policy, value, "agz17"),  # plane count vs kind
        (planes, policy, value, "lz18"),  # plane count vs kind
        (planes[..., :4], policy, value, "agz17"),  # not square
        (planes, policy.astype(np.float64), value, "agz17"),
        (planes, policy[:, :-1], value, "agz17"),  # no pass entry
        (planes, policy[:2], value, "agz17"),  # n mismatch
        (planes, policy, value.astype(np.float64), "agz17"),
        (planes, policy, value[:2], "agz17"),
        (planes, policy, value[:, None], "agz17"),
        (planes, policy, value, "nope"),
    ]
    for args in bad:
        with pytest.raises(ValueError):
            Examples(*args)
    assert len(good) == 3 and good.size == SIZE
    empty = Examples.empty(SIZE, "lz18")
    assert len(empty) == 0 and empty.planes.shape == (0, 18, SIZE, SIZE)
    assert empty.policy.shape == (0, PASS + 1)


def test_take_and_concat() -> None:
    a, b = random_examples(3, 1), random_examples(2, 2)
    both = Examples.concat([a, b])
    assert len(both) == 5
    np.testing.assert_array_equal(both.planes[3:], b.planes)
    np.testing.assert_array_equal(both.take(slice(0, 3)).policy, a.policy)
    picked = both.take(np.array([4, 0]))
    np.testing.assert_array_equal(picked.value, [b.value[1], a.value[0]])


def test_concat_refuses_mixed_kinds_and_sizes() -> None:
    with pytest.raises(ValueError, match="kinds or sizes"):
        Examples.concat([random_examples(2, 0), random_examples(2, 0, "lz18")])
    with pytest.raises(ValueError, match="kinds or sizes"):
        Examples.concat([random_examples(1, 0), Examples.empty(7)])
    with pytest.raises(ValueError, match="nothing"):
        Examples.concat([])


@pytest.mark.parametrize("kind", ["agz17", "lz18"])
def test_shard_round_trip(tmp_path: Path, kind: str) -> None:
    examples = random_examples(6, 3, kind)
    examples.save(tmp_path / "s.npz")
    back = Examples.load(tmp_path / "s.npz")
    assert back.kind == kind
    for name in ("planes", "policy", "value"):
        want, got = getattr(examples, name), getattr(back, name)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    assert [p.name for p in tmp_path.iterdir()] == ["s.npz"]  # no temp file left


def test_load_refuses_what_is_not_a_shard(tmp_path: Path) -> None:
    text = tmp_path / "text.npz"
    text.write_text("not a shard")
    other = tmp_path / "other.npz"
    np.savez(other, planes=np.zeros(3))  # an npz, but without our arrays
    good = tmp_path / "good.npz"
    random_examples(4, 0).save(good)
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[:100])
    array = tmp_path / "array.npz"
    with array.open("wb") as f:
        np.save(f, np.zeros(3))  # an .npy inside, whatever the name says
    wrong = tmp_path / "wrong.npz"
    np.savez(
        wrong,
        planes=np.zeros((2, 17, 5, 5), np.uint8),
        policy=np.zeros((2, 26), np.float32),
        value=np.zeros(3, np.float32),  # one value too many
        kind=np.array("agz17"),
    )
    # A damaged zip (zipfile.BadZipFile), a pickle refused, an .npy, missing arrays,
    # shapes that do not fit, no file: all ValueError naming the file.
    for path in (text, other, truncated, array, wrong, tmp_path / "missing.npz"):
        with pytest.raises(ValueError, match=f"{path.name}: not an examples shard"):
            Examples.load(path)
    # Files that are no zip at all are named as such, not as numpy's "pickled data".
    for path in (text, truncated, array):
        with pytest.raises(ValueError, match=r"not an \.npz archive\)$"):
            Examples.load(path)


def test_load_shards_reads_a_directory_in_name_order(tmp_path: Path) -> None:
    parts = [random_examples(2, seed) for seed in range(3)]
    for i, part in enumerate(parts):
        part.save(tmp_path / f"shard-{2 - i:05d}.npz")  # written in reverse order
    merged = load_shards([tmp_path])
    want = Examples.concat(parts[::-1])
    np.testing.assert_array_equal(merged.planes, want.planes)
    np.testing.assert_array_equal(merged.value, want.value)
    single = load_shards([tmp_path / "shard-00001.npz"])
    np.testing.assert_array_equal(single.policy, parts[1].policy)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no shards"):
        load_shards([tmp_path / "empty"])


# -- augmentation ---------------------------------------------------------------


def one_stone_examples() -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Examples with one stone (plane 0) each and a one-hot policy on that stone;
    the last example's target is pass (and it has no stone)."""
    points = [0, 3, 7, 12, 19, 24, 9, 15]
    n = len(points) + 1
    planes = np.zeros((n, C17, SIZE, SIZE), np.uint8)
    planes[:, 16] = 1  # the colour plane: the same under every transform
    policy = np.zeros((n, PASS + 1), np.float32)
    for i, p in enumerate(points):
        planes[i, 0].flat[p] = 1
        policy[i, p] = 1.0
    policy[-1, PASS] = 1.0
    return planes, policy, points


@pytest.mark.parametrize("k", range(8))
def test_augment_moves_the_target_with_the_stone(k: int) -> None:
    planes, policy, points = one_stone_examples()
    transforms = np.full(len(planes), k)
    out_planes, out_policy = augment(planes, policy, transforms)
    assert out_planes.dtype == np.float32 and out_policy.dtype == np.float32
    for i, p in enumerate(points):
        moved = symmetries.transform_point(p, SIZE, k)
        assert np.flatnonzero(out_planes[i, 0]).tolist() == [moved]
        assert np.flatnonzero(out_policy[i]).tolist() == [moved]
    assert np.flatnonzero(out_policy[-1]).tolist() == [PASS]  # pass stays pass
    assert (out_planes[:, 16] == 1).all()
    if k:  # some stone really moved (not all points are fixed by a symmetry)
        assert not np.array_equal(out_policy, policy)


def test_augment_applies_each_rows_own_transform() -> None:
    planes, policy, points = one_stone_examples()
    transforms = np.array([5, 0, 7, 1, 3, 2, 6, 4, 3])
    out_planes, out_policy = augment(planes, policy, transforms)
    for i, k in enumerate(transforms):
        np.testing.assert_array_equal(
            out_planes[i], symmetries.transform_planes(planes[i], int(k))
        )
        np.testing.assert_array_equal(
            out_policy[i], symmetries.transform_policy(policy[i], int(k))
        )
    for i, p in enumerate(points):
        want = symmetries.transform_point(p, SIZE, int(transforms[i]))
        assert int(out_policy[i].argmax()) == want
        assert int(out_planes[i, 0].argmax()) == want


def test_sample_batch_shapes_and_reproducibility() -> None:
    planes, policy, _ = one_stone_examples()
    examples = Examples(
        planes, policy, np.linspace(-1, 1, len(planes), dtype=np.float32)
    )
    x, pi, z = sample_batch(examples, np.random.default_rng(5), 32)
    assert x.dtype == pi.dtype == z.dtype == np.float32
    assert x.shape == (32, C17, SIZE, SIZE)
    assert pi.shape == (32, PASS + 1) and z.shape == (32,)
    x2, pi2, z2 = sample_batch(examples, np.random.default_rng(5), 32)
    np.testing.assert_array_equal(x, x2)
    np.testing.assert_array_equal(pi, pi2)
    np.testing.assert_array_equal(z, z2)
    x3, _, _ = sample_batch(examples, np.random.default_rng(6), 32)
    assert not np.array_equal(x, x3)
    # Every sampled row is one stored example under one transform, applied to its
    # planes and its policy alike, with that example's value.
    for i in range(32):
        assert any(
            np.array_equal(x[i], symmetries.transform_planes(examples.planes[j], k))
            and np.array_equal(
                pi[i], symmetries.transform_policy(examples.policy[j], k)
            )
            and z[i] == examples.value[j]
            for j in range(len(examples))
            for k in range(8)
        )
        target = int(pi[i].argmax())
        assert target == PASS or int(x[i, 0].argmax()) == target
    assert len({int(p.argmax()) for p in pi}) > 4  # the rows are not all the same


def test_sample_batch_without_symmetries_returns_stored_rows() -> None:
    planes, policy, _ = one_stone_examples()
    examples = Examples(planes, policy, np.zeros(len(planes), np.float32))
    x, pi, _ = sample_batch(examples, np.random.default_rng(1), 40, False)
    rows = {pl.tobytes() for pl in examples.policy}
    assert all(p.tobytes() in rows for p in pi)
    _, pi_sym, _ = sample_batch(examples, np.random.default_rng(1), 40, True)
    assert not all(p.tobytes() in rows for p in pi_sym)
    with pytest.raises(ValueError):
        sample_batch(Examples.empty(SIZE), np.random.default_rng(0), 4)


# -- SGF records to examples ------------------------------------------------------

# Black captures White's corner stone, then both pass around a move; White's move after
# the two final passes must give no example.
GAME = "(;GM[1]FF[4]SZ[5]KM[0.5]RE[{result}];B[ab];W[aa];B[ba];W[];B[cc];W[];B[];W[dd])"
GAME_MOVES = [sgf_point("ab"), sgf_point("aa"), sgf_point("ba"), PASS] + [
    sgf_point("cc"),
    PASS,
    PASS,
]


@pytest.mark.parametrize("kind", ["agz17", "lz18"])
@pytest.mark.parametrize(
    ("result", "black_value"),
    [("B+2.5", 1.0), ("W+R", -1.0), ("0", 0.0), ("Draw", 0.0)],
)
def test_game_examples_of_a_hand_written_game(
    kind: str, result: str, black_value: float
) -> None:
    record = read_sgf(GAME.format(result=result))
    examples = game_examples(record, kind)
    assert examples.kind == kind and len(examples) == len(GAME_MOVES) == 7
    board = goboard.Board(SIZE, 0.5, "chinese")
    for i, point in enumerate(GAME_MOVES):
        np.testing.assert_array_equal(
            examples.planes[i], board.features(kind, dtype=np.uint8)
        )
        assert np.flatnonzero(examples.policy[i]).tolist() == [point]
        assert examples.policy[i, point] == 1.0
        mover_is_black = board.to_play == goboard.BLACK
        assert examples.value[i] == (black_value if mover_is_black else -black_value)
        board.play(point)
        if i == 2:
            assert board.stones().flat[0] == 0  # White's stone was captured
    assert board.is_over


def test_game_examples_refuses_what_it_cannot_learn_from() -> None:
    for result in ("?", "Void", ""):
        with pytest.raises(ValueError, match="no usable result"):
            game_examples(read_sgf(GAME.format(result=result)))
    with pytest.raises(ValueError, match="no usable result"):
        game_examples(read_sgf("(;GM[1]FF[4]SZ[5];B[cc])"))
    with pytest.raises(ValueError, match="plane kind"):
        game_examples(read_sgf(GAME.format(result="B+1")), "x")
    illegal = read_sgf("(;GM[1]FF[4]SZ[5]RE[B+1];B[cc];W[cc])")
    with pytest.raises(goboard.IllegalMoveError):
        game_examples(illegal)
    none = game_examples(read_sgf("(;GM[1]FF[4]SZ[5]RE[W+T])"))
    assert len(none) == 0 and none.size == SIZE


@pytest.mark.parametrize(
    "data",
    [
        "(;GM[1]FF[4]SZ[5]KM[0.5]RE[W+R];W[cc];B[bb];W[dd])",  # White opens
        "(;GM[1]FF[4]SZ[5]KM[0.5]AB[aa][ee]RE[W+R];B[cc];W[bb];B[dd])",  # no HA
        "(;GM[1]FF[4]SZ[5]KM[0.5]AB[aa]AW[ee]RE[W+R];W[cc];B[bb];W[dd])",
    ],
)
def test_without_pl_the_first_move_says_who_starts(data: str) -> None:
    """Without PL, the start board guessed the side to move from the setup: the
    first move came out of turn, gave no example and was put after a pass."""
    record = read_sgf(data)
    examples = game_examples(record)
    assert len(examples) == 3
    stones = np.zeros(SIZE * SIZE, np.int8)
    for colour, points in record.setup.items():
        stones[points] = colour
    first = record.moves[0][0]
    board = goboard.Board.from_stones(stones.reshape(SIZE, SIZE), first, 0.5, "chinese")
    for i, (colour, point) in enumerate(record.moves):
        np.testing.assert_array_equal(examples.planes[i], board.features("agz17"))
        assert np.flatnonzero(examples.policy[i]).tolist() == [point]
        assert examples.value[i] == (1.0 if colour == goboard.WHITE else -1.0)
        board.play(point)


@pytest.mark.parametrize(
    ("result", "winner"),
    [
        ("B+3.5", goboard.BLACK),
        ("B+R", goboard.BLACK),
        ("b+t", goboard.BLACK),
        ("W+0.5", goboard.WHITE),
        ("W+Resign", goboard.WHITE),
        (" W+F ", goboard.WHITE),
        ("0", 0),
        ("Draw", 0),
        ("jigo", 0),
        (None, None),
        ("", None),
        ("?", None),
        ("Void", None),
        ("B", None),
        ("X+3", None),
        ("White wins by resignation", goboard.WHITE),
        ("Black wins by 2.5", goboard.BLACK),
        ("Black won", None),
    ],
)
def test_result_winner(result: str | None, winner: int | None) -> None:
    assert result_winner(result) == winner


def test_sgf_files(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("a/b/x.sgf", "a/y.SGF", "a/v.mgt", "a/z.txt", "w.sgf"):
        (tmp_path / name).write_text("")
    found = sgf_files([tmp_path / "a", tmp_path / "w.sgf"])
    assert found == [
        tmp_path / "a/b/x.sgf",
        tmp_path / "a/v.mgt",
        tmp_path / "a/y.SGF",
        tmp_path / "w.sgf",
    ]
    with pytest.raises(FileNotFoundError):
        sgf_files([tmp_path / "missing"])


def test_build_shards_skips_bad_games_and_splits(tmp_path: Path) -> None:
    sgf = tmp_path / "sgf"
    sgf.mkdir()
    good = [random_record(1, 5), random_record(2, 6)]
    save_sgf(good[0], sgf / "a-good.sgf")
    save_sgf(good[1], sgf / "b-good.sgf")
    (sgf / "c-malformed.sgf").write_text("(;GM[1]SZ[5];B[cc")
    (sgf / "d-noresult.sgf").write_text("(;GM[1]FF[4]SZ[5];B[cc];W[dd])")
    duplicate = GameRecord(size=SIZE, komi=3.0, moves=good[0].moves, result="W+R")
    save_sgf(duplicate, sgf / "e-duplicate.sgf")
    (sgf / "f-illegal.sgf").write_text("(;GM[1]FF[4]SZ[5]RE[B+1];B[cc];W[cc])")
    (sgf / "g-size7.sgf").write_text("(;GM[1]FF[4]SZ[7]RE[B+1];B[cc];W[dd])")
    done: list[int] = []
    with pytest.warns(UserWarning) as caught:
        games, total = build_shards(
            [sgf], tmp_path / "out", size=SIZE, shard_size=4, progress=done.append
        )
    messages = [str(w.message) for w in caught]
    for name, why in [
        ("c-malformed", "malformed"),
        ("d-noresult", "no usable result"),
        ("e-duplicate", "duplicate"),
        ("f-illegal", ""),
        ("g-size7", "7x7"),
    ]:
        assert any(name in m and "skipped" in m and why in m for m in messages), name
    assert len(messages) == 5
    assert done == list(range(1, 8))  # after each of the 7 files
    want = Examples.concat([game_examples(r) for r in good])
    assert (games, total) == (2, 11) == (2, len(want))
    shards = sorted((tmp_path / "out").glob("*.npz"))
    assert [p.name for p in shards] == [f"shard-{i:05d}.npz" for i in range(3)]
    assert [len(Examples.load(p)) for p in shards] == [4, 4, 3]
    merged = load_shards([tmp_path / "out"])
    np.testing.assert_array_equal(merged.planes, want.planes)
    np.testing.assert_array_equal(merged.policy, want.policy)
    np.testing.assert_array_equal(merged.value, want.value)


def test_build_shards_exact_multiple_and_no_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save_sgf(random_record(3, 4), tmp_path / "g.sgf")
    assert build_shards([tmp_path / "g.sgf"], tmp_path / "o", SIZE, shard_size=2) == (
        1,
        4,
    )
    shards = sorted((tmp_path / "o").glob("shard-*.npz"))
    assert [len(Examples.load(p)) for p in shards] == [2, 2]
    with pytest.warns(UserWarning, match="7x7"):
        result = build_shards([tmp_path / "g.sgf"], tmp_path / "none", size=7)
    assert result == (0, 0)
    assert list((tmp_path / "none").iterdir()) == []
    assert "no usable games" in capsys.readouterr().err


# -- GNU Go teacher games -----------------------------------------------------------


def test_gen_config_validation() -> None:
    for bad in (
        {"games": -1},
        {"level": -1},
        {"level": 11},
        {"size": 1},
        {"size": 20},
        {"opening_plies": -1},
        {"top_k": 0},
        {"workers": 0},
    ):
        with pytest.raises(ValueError):
            GenConfig(**bad)  # type: ignore[arg-type]
    GenConfig(games=0, level=0, opening_plies=0)


GNUGO = shutil.which("gnugo") or shutil.which("/usr/games/gnugo")
needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed")
RESULT = re.compile(r"^[BW]\+(\d+(\.\d+)?|R)$|^0$")


@needs_gnugo
def test_generate_gnugo_games_and_resume(tmp_path: Path) -> None:
    config = GenConfig(
        games=2, level=0, size=SIZE, komi=0.5, opening_plies=2, top_k=3, workers=2
    )
    seen: list[int] = []
    assert generate(tmp_path, config, lambda i, r: seen.append(i)) == 2
    assert sorted(seen) == [0, 1]
    files = sorted(tmp_path.glob("*.sgf"))
    assert [p.name for p in files] == ["game-000000.sgf", "game-000001.sgf"]
    before = [p.read_bytes() for p in files]
    for path in files:
        record = read_sgf(path.read_bytes())
        assert record.size == SIZE and record.komi == 0.5
        assert record.result is not None and RESULT.match(record.result)
        assert record.rules == "Chinese"
        assert record.comment is not None and "GNU Go level 0" in record.comment
        assert record.moves and record.moves[0][0] == goboard.BLACK
        colours = [c for c, _ in record.moves]
        assert all(a != b for a, b in zip(colours, colours[1:], strict=False))
        board = replay(record)  # raises on a move our rules refuse
        if not record.result.endswith("+R"):
            assert board.is_over  # the game ran to two passes
        assert len(game_examples(record)) > 0

    # A second call plays only the missing game and leaves the others alone.
    seen.clear()
    more = GenConfig(
        games=3, level=0, size=SIZE, komi=0.5, opening_plies=2, top_k=3, workers=2
    )
    assert generate(tmp_path, more, lambda i, r: seen.append(i)) == 1
    assert seen == [2]
    assert [p.read_bytes() for p in files] == before
    assert (tmp_path / "game-000002.sgf").exists()
    assert generate(tmp_path, more) == 0


@needs_gnugo
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_an_interrupted_generate_ends_its_games_at_once(tmp_path: Path) -> None:
    # Ctrl-C reaches only the main thread, which waits for the workers: generate must
    # stop them rather than wait for all 200 games (about a minute at level 0).
    config = GenConfig(
        games=200, level=0, size=SIZE, komi=0.5, opening_plies=2, top_k=3, workers=2
    )
    main = threading.main_thread().ident
    assert main is not None
    interrupted: list[int] = []

    def interrupt(index: int, record: GameRecord | None) -> None:
        if not interrupted:
            interrupted.append(index)
            signal.pthread_kill(main, signal.SIGINT)

    # A shell without job control starts background jobs with SIGINT ignored, and
    # Python then keeps it ignored: give Ctrl-C its usual meaning for this test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            generate(tmp_path, config, interrupt)
    finally:
        signal.signal(signal.SIGINT, previous)
    played = sorted(tmp_path.glob("*"))
    assert 1 <= len(played) < 200
    # No worker plays on: a 5x5 level-0 game takes a fraction of a second.
    time.sleep(2)
    assert sorted(tmp_path.glob("*")) == played
    for path in played:  # whole games only, no temporaries
        assert path.suffix == ".sgf"
        assert read_sgf(path.read_bytes()).result is not None


def test_build_shards_refuses_a_directory_with_shards(tmp_path: Path) -> None:
    out = tmp_path / "shards"
    out.mkdir()
    (out / "shard-00000.npz").write_bytes(b"old")
    with pytest.raises(FileExistsError, match="already holds shards"):
        build_shards([], out)
    assert (out / "shard-00000.npz").read_bytes() == b"old"


def test_build_shards_names_games_that_give_no_examples(tmp_path: Path) -> None:
    # Found by fuzz/fuzz_sgf.py: a game with a result whose moves give no example
    # (none at all, or only moves out of turn) was dropped without a word.
    (tmp_path / "a-timewin.sgf").write_text("(;GM[1]SZ[5]RE[W+T])")
    (tmp_path / "b-outofturn.sgf").write_text("(;GM[1]SZ[5]PL[W]RE[W+R];B[cc])")
    with pytest.warns(UserWarning) as caught:
        result = build_shards([tmp_path], tmp_path / "out", size=SIZE)
    assert result == (0, 0)
    messages = [str(w.message) for w in caught]
    for name in ("a-timewin.sgf", "b-outofturn.sgf"):
        assert any(f"{name}: skipped: no moves" in m for m in messages), messages
