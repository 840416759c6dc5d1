"""Two builds of goboard's plane writers timed against each other in one process.

    python scripts/features_ab.py BUILD_A BUILD_B [--kind alphago48] [--rounds 40]

BUILD_A and BUILD_B are folders that hold a built ``goboard`` package: for example the
``src`` folder of a copy of the repository after ``python setup.py build_ext
--inplace``. Each package is copied under a name of its own (``goboard_a``,
``goboard_b``) and imported, so both builds run in one process on the same positions:
middle games of the professional 19x19 records (Debian's goban-original-games, the
set ``benchmarks/bench_features.py`` uses, replayed by each build). Every round calls
each build twice and times the second call (warm, as in a loop), in CPU seconds, the
build that goes first alternating. It prints each build's median microseconds a board,
the median of the per-round ratios B/A with their quartiles (a change of 1-2% shows
there, where separate runs on a shared machine differ by 10%), and whether the two
builds wrote the same planes.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np

from alphago import sgf

PRO_GAMES = Path("/usr/share/goban")
#: After these moves a position is kept: the middle game (as in benchmarks/conftest.py).
PRO_MOVES = range(61, 170, 12)
#: The names the two builds' packages are imported under.
BUILD_NAMES = ("goboard_a", "goboard_b")


def load_build(folder: Path, name: str, into: Path) -> ModuleType:
    """The goboard package under ``folder`` imported as ``name`` (copied into
    ``into``, which must be on sys.path)."""
    package = folder / "goboard"
    if not (package / "__init__.py").is_file():
        raise ValueError(f"{folder} holds no goboard package")
    if not any(package.glob("_board*.so")) and not any(package.glob("_board*.pyd")):
        raise ValueError(f"{package} is not built (no _board extension module)")
    shutil.copytree(package, into / name)
    return importlib.import_module(name)


def pro_positions(gb: ModuleType, count: int, games: Path = PRO_GAMES) -> list:
    """``count`` middle-game positions spread over the professional games, played
    by the build ``gb``: games that start with set-up stones or move out of turn are
    left out, so each build replays exactly the same moves."""
    boards = []
    for path in sorted(
        p for p in games.glob("*") if p.suffix.lower() in (".sgf", ".mgt")
    ):
        try:
            record = sgf.read_sgf(path.read_bytes())
        except ValueError:
            continue
        if record.size != 19 or record.setup or record.to_play not in (None, gb.BLACK):
            continue
        board, kept = gb.Board(19, record.komi, "chinese"), []
        try:
            for number, (colour, point) in enumerate(record.moves[: PRO_MOVES[-1]], 1):
                if colour != board.to_play:
                    break
                board.play(point)
                if number in PRO_MOVES:
                    kept.append(board.copy())
        except ValueError:  # an illegal move: the game is left out whole
            continue
        boards.extend(kept)
    if len(boards) < count:
        raise ValueError(f"{len(boards)} positions in {games}, not {count}")
    step = len(boards) / count
    return [boards[int(i * step)] for i in range(count)]


def compare(
    builds: dict[str, ModuleType], kind: str, rounds: int, count: int, dtype: type
) -> dict[str, object]:
    """Medians (us a board) of each build, the paired ratios B/A, and whether the
    planes agree."""
    boards = {name: pro_positions(gb, count) for name, gb in builds.items()}
    outs = {
        name: np.empty((count, len(gb.feature_planes(kind)), 19, 19), dtype)
        for name, gb in builds.items()
    }
    seconds: dict[str, list[float]] = {name: [] for name in builds}
    names = list(builds)
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            builds[name].features_batch(boards[name], kind, outs[name])
            start = time.process_time()
            builds[name].features_batch(boards[name], kind, outs[name])
            seconds[name].append(time.process_time() - start)
    a, b = (np.array(seconds[name]) for name in names)
    ratios = b / a
    return {
        "us_a": float(np.median(a)) / count * 1e6,
        "us_b": float(np.median(b)) / count * 1e6,
        "ratio": float(np.median(ratios)),
        "q25": float(np.quantile(ratios, 0.25)),
        "q75": float(np.quantile(ratios, 0.75)),
        "same": bool(np.array_equal(outs[names[0]], outs[names[1]])),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_a", type=Path, help="folder holding a built goboard")
    parser.add_argument("build_b", type=Path, help="the other build's folder")
    parser.add_argument(
        "--kind", default="alphago48", help="plane set (default alphago48)"
    )
    parser.add_argument("--rounds", type=int, default=40, help="timed calls per build")
    parser.add_argument("--boards", type=int, default=256, help="positions a call")
    parser.add_argument("--dtype", choices=("float32", "uint8"), default="float32")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.boards < 1:
        print("features_ab: --rounds and --boards must be >= 1", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        try:
            builds = {
                name: load_build(folder, name, Path(tmp))
                for name, folder in zip(
                    BUILD_NAMES, (args.build_a, args.build_b), strict=True
                )
            }
            r = compare(
                builds, args.kind, args.rounds, args.boards, np.dtype(args.dtype).type
            )
        except ValueError as exc:
            print(f"features_ab: {exc}", file=sys.stderr)
            return 2
        finally:
            sys.path.remove(tmp)
            for name in [m for m in sys.modules if m.split(".")[0] in BUILD_NAMES]:
                del sys.modules[name]  # a later call imports its own builds afresh
    print(f"{args.kind} {args.dtype}, {args.boards} boards, {args.rounds} rounds")
    print(f"A {args.build_a}: {r['us_a']:.2f} us a board")
    print(f"B {args.build_b}: {r['us_b']:.2f} us a board")
    quartiles = f"{r['q25']:.3f} .. {r['q75']:.3f}"
    print(f"B/A time, paired: {r['ratio']:.3f} (quartiles {quartiles})")
    print("planes: " + ("the same" if r["same"] else "DIFFERENT"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
