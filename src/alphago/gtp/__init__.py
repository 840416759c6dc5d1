"""alphago.gtp: the Go Text Protocol engine for GUIs and matches.

``Engine(player, board_size, komi, rules)`` holds the game and runs commands
(``engine.handle(line)`` for one line); ``serve(engine, stdin, stdout)`` is the loop,
with analysis streams that stop on the next command. Modules: ``protocol`` (framing),
``engine`` (state, table), ``commands`` (GTP 2 core), ``commands_game`` (handicap,
clocks, scoring, SGF), ``commands_analysis`` and ``analysis`` (lz-/kata-analyze),
``timing`` (time budget), ``serve`` (the loop).
"""

from __future__ import annotations

from .engine import DEFAULT_VERSION, Context, Engine
from .protocol import GtpError
from .serve import serve
from .timing import TimeManager

__all__ = ["DEFAULT_VERSION", "Context", "Engine", "GtpError", "TimeManager", "serve"]
