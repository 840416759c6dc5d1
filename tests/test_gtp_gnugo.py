"""Our engine (a subprocess running serve()) plays GNU Go over GTP pipes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import goboard

GNUGO = Path("/usr/games/gnugo")
ENGINE = """
import sys, search
from alphago.gtp import Engine, serve
from alphago.player import UCTPlayer
player = UCTPlayer(search.UCTConfig(num_simulations=24), seed=5, ownership_playouts=16)
serve(Engine(player, board_size=9, komi=7.5))
"""


class Client:
    """A minimal GTP controller over a subprocess's pipes."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def send(self, command: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            assert line, f"engine closed the pipe after {command!r}"
            if line == "\n":
                break
            lines.append(line.rstrip("\n"))
        response = "\n".join(lines)
        assert response.startswith("="), (command, response)
        return response[1:].strip()

    def close(self) -> None:
        try:
            self.send("quit")
        finally:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
            self.proc.stdout.close()


@pytest.mark.skipif(not GNUGO.exists(), reason="GNU Go is not installed")
def test_a_game_against_gnugo() -> None:
    ours = Client([sys.executable, "-c", ENGINE])
    gnugo = Client([str(GNUGO), "--mode", "gtp", "--level", "1", "--chinese-rules"])
    try:
        for c in (ours, gnugo):
            c.send("boardsize 9")
            c.send("clear_board")
            c.send("komi 7.5")
        players = {"b": ours, "w": gnugo}
        other = {"b": gnugo, "w": ours}
        passes, colour = 0, "b"
        for _ in range(250):  # to the end: two passes in a row
            move = players[colour].send(f"genmove {colour}")
            assert move.lower() != "resign"
            other[colour].send(f"play {colour} {move}")  # must be accepted
            passes = passes + 1 if move.lower() == "pass" else 0
            if passes == 2:
                break
            colour = "w" if colour == "b" else "b"
        assert passes == 2, "the game did not end"
        # Both engines see the same stones.
        for name, value in (("black", goboard.BLACK), ("white", goboard.WHITE)):
            theirs = set(gnugo.send(f"list_stones {name}").upper().split())
            board_text = ours.send("showboard")
            mine = set()
            mark = "X" if value == goboard.BLACK else "O"
            for line in board_text.split("\n"):
                parts = line.replace("(", " ").replace(")", " ").split()
                if parts and parts[0].isdigit():
                    for col, ch in zip("ABCDEFGHJ", parts[1:10], strict=True):
                        if ch == mark:
                            mine.add(f"{col}{parts[0]}")
            assert mine == theirs, name
        for engine in (ours, gnugo):
            score = engine.send("final_score")
            assert score == "0" or (score[:2] in ("B+", "W+") and float(score[2:]) > 0)
        assert ours.send("final_status_list dead") is not None
    finally:
        ours.close()
        gnugo.close()
