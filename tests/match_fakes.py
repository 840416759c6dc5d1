"""Tiny fake GTP engines for the match tests, written as scripts into a tmp_path.

``fake_engine(tmp_path, mode)`` returns a command line running ``FAKE_ENGINE`` with one
behaviour on ``genmove``:

- ``pass``: always passes.
- ``random``: a random legal move that does not fill its own true eye (pass when none),
  tracking the game with goboard; ends games by two passes on small boards.
- ``corner``: always answers A1 (legal once, then occupied: an illegal move).
- ``garbage``: answers ``Z99`` (not a vertex).
- ``crash``: writes to stderr and exits with code 3.
- ``sigterm``: ends itself with SIGTERM, as ``kill`` from outside would (on
  ``final_status_list`` too: a stopped arbiter).
- ``stop2``: plays as ``random``, but as ``sigterm`` when its seed is 2 (a match's
  game 2, with ``{game}`` as the seed).
- ``exit143``: exits with status 143, as a program that turns SIGTERM into an exit does
  (``alphago`` itself).
- ``slow``: sleeps 30 s (a timeout); ``slow1`` does so when its seed is 1 (a match's
  game 1, with ``{game}`` as the seed) and passes otherwise.
- ``resign``: resigns.
- ``error``: answers ``? cannot``.
``refuse`` passes on genmove but rejects every ``play`` command, and ``nosize`` rejects
``boardsize`` (``nosize1`` only when its seed is 1, and passes otherwise). ``script``
plays a fixed comma-separated list of vertices, then passes, and answers
``final_status_list dead`` with another such list (:func:`scripted`); ``sleep`` in
its list sleeps 30 s instead of a move (a timeout late in a game), and ``sleep`` as
its dead stones does so before answering ``final_status_list``, after creating the
file ``counting`` beside the script (the count has begun).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

FAKE_ENGINE = r"""
import os, sys, time
mode = sys.argv[1]
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
script = [v for v in sys.argv[3].split(",") if v] if len(sys.argv) > 3 else []
dead = " ".join(v for v in sys.argv[4].split(",") if v) if len(sys.argv) > 4 else ""
board = None
size, komi = 19, 7.5
if mode in ("random", "stop2"):
    import numpy as np
    import goboard
    from goboard.coords import from_gtp, to_gtp
    rng = np.random.default_rng(seed)

def new_board():
    global board
    if mode in ("random", "stop2"):
        board = goboard.Board(size, komi, "chinese")

def answer(text="", ok=True):
    sys.stdout.write(("= " if ok else "? ") + text + "\n\n")
    sys.stdout.flush()

def genmove(colour):
    quiet = ("pass", "refuse", "nosize", "nosize1")
    if mode in quiet or (mode == "slow1" and seed != 1):
        return "pass"
    if mode == "corner":
        return "A1"
    if mode == "garbage":
        return "Z99"
    if mode == "crash":
        sys.stderr.write("boom: fake crash\n")
        sys.stderr.flush()
        sys.exit(3)
    if mode == "sigterm" or (mode == "stop2" and seed == 2):
        import os, signal
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)
    if mode == "exit143":
        sys.exit(143)
    if mode == "slow" or (mode == "slow1" and seed == 1):
        time.sleep(30)
    if mode == "resign":
        return "resign"
    if mode == "script":
        move = script.pop(0) if script else "pass"
        if move == "sleep":
            time.sleep(30)
        return move
    me = board.to_play
    moves = [m for m in board.legal_moves()[:-1] if not board.is_true_eye(m, me)]
    move = int(rng.choice(moves)) if moves else size * size
    board.play(move)
    return to_gtp(move, size)

new_board()
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    cmd, args = parts[0], parts[1:]
    if cmd == "quit":
        answer()
        break
    elif cmd == "name":
        answer("fake-" + mode)
    elif cmd == "version":
        answer("1.0")
    elif cmd == "protocol_version":
        answer("2")
    elif cmd == "boardsize":
        if mode == "nosize" or (mode == "nosize1" and seed == 1):
            answer("unacceptable size", ok=False)
            continue
        size = int(args[0])
        new_board()
        answer()
    elif cmd == "clear_board":
        new_board()
        answer()
    elif cmd == "komi":
        komi = float(args[0])
        answer()
    elif cmd == "play":
        if mode == "refuse":
            answer("illegal move", ok=False)
            continue
        if mode in ("random", "stop2"):
            board.play(from_gtp(args[1], size))
        answer()
    elif cmd == "genmove":
        if mode == "error":
            answer("cannot", ok=False)
        else:
            answer(genmove(args[0]))
    elif cmd == "final_status_list" and mode == "script":
        if dead == "sleep":
            open(os.path.join(os.path.dirname(sys.argv[0]), "counting"), "w").close()
            time.sleep(30)
        answer(dead)
    elif cmd == "final_status_list" and mode == "sigterm":
        genmove("b")  # stopped as an arbiter
    elif cmd == "multi":
        sys.stdout.write("=7 first\nsecond\n\n")
        sys.stdout.flush()
    elif cmd == "chatter":
        sys.stdout.write("hello from the engine\n=\n\n")
        sys.stdout.flush()
    else:
        answer("unknown command", ok=False)
"""


def fake_engine(tmp_path: Path, mode: str, seed: int = 0) -> str:
    """Command line of a fake engine (see the module docstring)."""
    script = tmp_path / "fake_gtp_engine.py"
    if not script.exists():
        script.write_text(FAKE_ENGINE)
    return shlex.join([sys.executable, str(script), mode, str(seed)])


def scripted(tmp_path: Path, moves: str, dead: str = "") -> str:
    """Command line of a fake engine that plays ``moves`` ("C1,C2"), then passes, and
    names ``dead`` ("A1,B2") as its dead stones."""
    return fake_engine(tmp_path, "script") + " " + shlex.join([moves, dead])
