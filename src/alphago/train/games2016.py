"""Games played by the 2016 policy networks, many in lock-step, for their training.

Every ply the games still running are grouped by the network that moves next; each
group's planes are written in one goboard call and go through its network in one
batch, and each game's move is drawn from the softmax of the logits over its legal
moves (temperature 1). A game ends on two passes or at ``max_moves`` plies, where it
is scored as it stands; the outcome is the area score with the board's komi.

- :func:`play_reinforce_games`: the current policy against an opponent; what
  REINFORCE learns from (:class:`RLGames`: the current player's positions, legal
  masks, moves and each game's outcome for it). Colours alternate: game ``i`` has
  the current policy as Black when ``i`` is even.
- :func:`play_value_games`: the paper's value-network data: for each game draw
  ``U`` uniformly from ``1..u_max``, let P_sigma play moves 1..U-1, play move U
  uniformly at random among the legal moves (pass only when nothing else is legal),
  keep the position after it (position U+1 counting the empty board as position 1),
  and let P_rho play both sides to the end. Each game gives exactly one example: the
  kept position's planes and the final outcome from the side to move there. While
  P_sigma plays, pass is left out unless it is the only legal move (an early pass
  pair would end the game before it reaches U); a game that ends before it reaches
  its kept position anyway is played again with a new ``U`` (counted in
  ``restarts``).

:func:`reinforce_job` and :func:`value_job` are the same from weights files' bytes:
the picklable tasks that :func:`alphago.train.workers.run_jobs` runs in worker
processes or on Ray.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray

import goboard

from ..nets.alphago2016 import (
    PLANES,
    POLICY_KIND,
    PolicyNet2016,
    load_net2016,
)
from ..nets.evaluator import masked_softmax
from ..nets.precision import autocast, resolve_device, resolve_precision

__all__ = [
    "GameSettings",
    "PolicyRunner",
    "RLGames",
    "ValueGames",
    "default_u_max",
    "play_reinforce_games",
    "play_value_games",
    "reinforce_job",
    "sample_moves",
    "value_job",
]

RULES = "chinese"


def default_u_max(size: int) -> int:
    """The paper's 450 (on 19x19) scaled by the board's area: round(450 N^2 / 361)."""
    return max(1, round(450 * size * size / 361))


@dataclass(frozen=True, slots=True)
class GameSettings:
    """How the games are played (JSON-able through ``asdict``).

    Attributes:
        size: board size.
        komi: komi (area scoring).
        max_moves: plies after which a game is scored as it stands (0: 3 N^2).
        u_max: value games: U is drawn from 1..u_max (0: :func:`default_u_max`).
        value_planes: value games: the planes kept for the value net.
    """

    size: int = 9
    komi: float = 7.5
    max_moves: int = 0
    u_max: int = 0
    value_planes: str = "alphago49"

    def __post_init__(self) -> None:
        if self.max_moves < 0 or self.u_max < 0:
            raise ValueError("max_moves and u_max must be >= 0")
        if self.value_planes not in PLANES:
            raise ValueError(f"unknown value planes {self.value_planes!r}")

    @property
    def move_cap(self) -> int:
        return self.max_moves or 3 * self.size * self.size

    @property
    def u_limit(self) -> int:
        return self.u_max or default_u_max(self.size)


def sample_moves(
    logits: NDArray[np.float32], legal: NDArray[np.bool_], rng: np.random.Generator
) -> NDArray[np.int64]:
    """One move per row, drawn from the softmax of ``logits`` over ``legal``."""
    probs = masked_softmax(logits.astype(np.float32, copy=True), legal)
    u = rng.random(len(probs))
    moves = (np.cumsum(probs, axis=1) < u[:, None]).sum(axis=1)
    moves = np.minimum(moves, probs.shape[1] - 1)
    # Rounding can land past the last legal move: take the likeliest then.
    bad = ~legal[np.arange(len(moves)), moves]
    moves[bad] = probs[bad].argmax(axis=1)
    out: NDArray[np.int64] = moves.astype(np.int64)
    return out


class PolicyRunner:
    """A policy net on a device, run on batches of boards (no gradient)."""

    def __init__(
        self,
        model: PolicyNet2016,
        device: str | torch.device = "cpu",
        precision: str | None = None,
    ) -> None:
        self.device = resolve_device(device)
        self.precision = resolve_precision(precision, self.device)
        self.model = model.to(self.device).eval()
        self.kind = model.config.input_planes

    def planes(self, boards: list[goboard.Board]) -> NDArray[np.uint8]:
        """uint8 planes [B, C, N, N] of the net's kind."""
        out: NDArray[np.uint8] = goboard.features_batch(
            boards, self.kind, dtype=np.uint8
        )
        return out

    def logits(self, planes: NDArray[np.uint8]) -> NDArray[np.float32]:
        """Logits [B, N*N + 1] of uint8 planes."""
        with torch.inference_mode():
            x = torch.from_numpy(planes).to(self.device).float()
            with autocast(self.device, self.precision):
                out = self.model(x)
            result: NDArray[np.float32] = out.float().cpu().numpy()
        return result


def _outcome(board: goboard.Board) -> float:
    """+1 Black wins, -1 White wins, 0 a tie (area score with the board's komi)."""
    return float(np.sign(board.score()))


def _new_board(settings: GameSettings) -> goboard.Board:
    return goboard.Board(settings.size, settings.komi, RULES)


def _running(boards: list[goboard.Board], plies: list[int], cap: int) -> list[int]:
    return [i for i, b in enumerate(boards) if not b.is_over and plies[i] < cap]


# --- REINFORCE games -----------------------------------------------------------------


@dataclass(slots=True)
class RLGames:
    """The current policy's side of some games.

    Attributes:
        planes: uint8 [M, C, N, N], the positions where the current policy moved.
        legal: bool [M, N*N + 1], their legal moves (what the move was drawn from).
        actions: int64 [M], the moves it played.
        game: int64 [M], the game of each position.
        reward: float32 [G], each game's outcome for the current policy.
        current_black: bool [G], whether it played Black.
        plies: total plies played in the games.
    """

    planes: NDArray[np.uint8]
    legal: NDArray[np.bool_]
    actions: NDArray[np.int64]
    game: NDArray[np.int64]
    reward: NDArray[np.float32]
    current_black: NDArray[np.bool_]
    plies: int = 0

    @property
    def games(self) -> int:
        return int(self.reward.shape[0])

    @staticmethod
    def merge(parts: list[RLGames]) -> RLGames:
        """The parts' games, numbered in order."""
        offsets = np.cumsum([0] + [p.games for p in parts])
        return RLGames(
            np.concatenate([p.planes for p in parts]),
            np.concatenate([p.legal for p in parts]),
            np.concatenate([p.actions for p in parts]),
            np.concatenate([p.game + o for p, o in zip(parts, offsets, strict=False)]),
            np.concatenate([p.reward for p in parts]),
            np.concatenate([p.current_black for p in parts]),
            sum(p.plies for p in parts),
        )


def play_reinforce_games(
    current: PolicyRunner,
    opponent: PolicyRunner,
    games: int,
    rng: np.random.Generator,
    settings: GameSettings,
    progress: Callable[[int], None] | None = None,
) -> RLGames:
    """``games`` games of ``current`` against ``opponent`` (module docstring)."""
    n = settings.size
    boards = [_new_board(settings) for _ in range(games)]
    black = np.arange(games) % 2 == 0
    plies = [0] * games
    planes: list[NDArray[np.uint8]] = []
    legal: list[NDArray[np.bool_]] = []
    actions: list[NDArray[np.int64]] = []
    game: list[NDArray[np.int64]] = []
    done = 0
    while True:
        running = _running(boards, plies, settings.move_cap)
        if not running:
            break
        for runner, is_current in ((current, True), (opponent, False)):
            running = _running(boards, plies, settings.move_cap)
            group = [
                i
                for i in running
                if (boards[i].to_play == goboard.BLACK) == (black[i] == is_current)
            ]
            if not group:
                continue
            batch = [boards[i] for i in group]
            x = runner.planes(batch)
            mask = goboard.legal_mask_batch(batch)
            moves = sample_moves(runner.logits(x), mask, rng)
            if is_current:
                planes.append(x)
                legal.append(mask)
                actions.append(moves)
                game.append(np.array(group, np.int64))
            for i, move in zip(group, moves.tolist(), strict=True):
                boards[i].play(move)
                plies[i] += 1
        if progress is not None:
            now = games - len(_running(boards, plies, settings.move_cap))
            if now != done:
                done = now
                progress(done)
    outcome = np.array([_outcome(b) for b in boards], np.float32)
    reward = np.where(black, outcome, -outcome).astype(np.float32)
    c = PLANES[current.kind]
    a = n * n + 1
    return RLGames(
        np.concatenate(planes) if planes else np.zeros((0, c, n, n), np.uint8),
        np.concatenate(legal) if legal else np.zeros((0, a), bool),
        np.concatenate(actions) if actions else np.zeros(0, np.int64),
        np.concatenate(game) if game else np.zeros(0, np.int64),
        reward,
        black,
        sum(plies),
    )


# --- value-network games ---------------------------------------------------------


@dataclass(slots=True)
class ValueGames:
    """One position per game (module docstring).

    Attributes:
        planes: uint8 [G, C, N, N], the kept positions (value planes).
        value: float32 [G], the final outcome from the side to move there.
        u: int64 [G], each game's U (the kept position follows move U).
        random_move: int64 [G], the random move (move U).
        moves: the games' moves, when asked for (tests); else empty.
        restarts: games played again because they ended before move U.
    """

    planes: NDArray[np.uint8]
    value: NDArray[np.float32]
    u: NDArray[np.int64]
    random_move: NDArray[np.int64]
    moves: list[list[int]] = field(default_factory=list)
    restarts: int = 0

    def __len__(self) -> int:
        return int(self.value.shape[0])

    @staticmethod
    def merge(parts: list[ValueGames]) -> ValueGames:
        return ValueGames(
            np.concatenate([p.planes for p in parts]),
            np.concatenate([p.value for p in parts]),
            np.concatenate([p.u for p in parts]),
            np.concatenate([p.random_move for p in parts]),
            [m for p in parts for m in p.moves],
            sum(p.restarts for p in parts),
        )


def play_value_games(
    sl: PolicyRunner,
    rl: PolicyRunner,
    games: int,
    rng: np.random.Generator,
    settings: GameSettings,
    keep_moves: bool = False,
    progress: Callable[[int], None] | None = None,
) -> ValueGames:
    """``games`` games of the U scheme (module docstring), in lock-step."""
    n = settings.size
    area = n * n
    cap = settings.move_cap
    c = PLANES[settings.value_planes]
    boards = [_new_board(settings) for _ in range(games)]
    plies = [0] * games
    u = rng.integers(1, settings.u_limit + 1, games)
    history: list[list[int]] = [[] for _ in range(games)]
    kept = np.zeros((games, c, n, n), np.uint8)
    to_play = np.zeros(games, np.int64)
    have = np.zeros(games, bool)
    random_move = np.zeros(games, np.int64)
    restarts = 0
    finished = 0
    while True:
        # Games over before their kept position start again with a new U.
        for i in range(games):
            if not have[i] and (boards[i].is_over or plies[i] >= cap):
                boards[i] = _new_board(settings)
                plies[i] = 0
                history[i] = []
                u[i] = rng.integers(1, settings.u_limit + 1)
                restarts += 1
        running = _running(boards, plies, cap)
        if not running:
            break
        sl_group = [i for i in running if plies[i] < u[i] - 1]
        random_group = [i for i in running if plies[i] == u[i] - 1]
        rl_group = [i for i in running if plies[i] >= u[i]]
        chosen: dict[int, int] = {}
        if sl_group:
            batch = [boards[i] for i in sl_group]
            mask = goboard.legal_mask_batch(batch)
            others = mask[:, :area].any(axis=1)
            mask[others, area] = False
            moves = sample_moves(sl.logits(sl.planes(batch)), mask, rng)
            chosen.update(zip(sl_group, moves.tolist(), strict=True))
        for i in random_group:
            legal = np.flatnonzero(boards[i].legal_mask()[:area])
            move = int(rng.choice(legal)) if len(legal) else area
            chosen[i] = move
            random_move[i] = move
        if rl_group:
            batch = [boards[i] for i in rl_group]
            mask = goboard.legal_mask_batch(batch)
            moves = sample_moves(rl.logits(rl.planes(batch)), mask, rng)
            chosen.update(zip(rl_group, moves.tolist(), strict=True))
        for i in running:
            boards[i].play(chosen[i])
            plies[i] += 1
            history[i].append(chosen[i])
        keep = [i for i in running if plies[i] == u[i]]
        if keep:
            batch = [boards[i] for i in keep]
            kept[keep] = goboard.features_batch(
                batch, settings.value_planes, dtype=np.uint8
            )
            to_play[keep] = [b.to_play for b in batch]
            have[keep] = True
        if progress is not None:
            now = games - len(_running(boards, plies, cap))
            if now != finished:
                finished = now
                progress(finished)
    outcome = np.array([_outcome(b) for b in boards], np.float32)
    value = (outcome * to_play).astype(np.float32)
    return ValueGames(
        kept,
        value,
        u.astype(np.int64),
        random_move,
        history if keep_moves else [],
        restarts,
    )


# --- worker tasks ------------------------------------------------------------------


@contextlib.contextmanager
def _threads(threads: int) -> Iterator[None]:
    """Run with ``threads`` torch threads, restoring the setting afterwards."""
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _runner(data: bytes, device: str, precision: str | None) -> PolicyRunner:
    model = load_net2016(data, POLICY_KIND)
    assert isinstance(model, PolicyNet2016)
    return PolicyRunner(model, device, precision)


def reinforce_job(
    current: bytes,
    opponent: bytes,
    settings: dict[str, Any],
    games: int,
    seed: int,
    threads: int = 1,
    progress: Callable[[int], None] | None = None,
    device: str = "cpu",
    precision: str | None = None,
) -> RLGames:
    """:func:`play_reinforce_games` from weights files' bytes (a worker task;
    ``threads`` torch threads meanwhile)."""
    with _threads(threads):
        return play_reinforce_games(
            _runner(current, device, precision),
            _runner(opponent, device, precision),
            games,
            np.random.default_rng(seed),
            GameSettings(**settings),
            progress,
        )


def value_job(
    sl: bytes,
    rl: bytes,
    settings: dict[str, Any],
    games: int,
    seed: int,
    threads: int = 1,
    progress: Callable[[int], None] | None = None,
    device: str = "cpu",
    precision: str | None = None,
) -> ValueGames:
    """:func:`play_value_games` from weights files' bytes (a worker task;
    ``threads`` torch threads meanwhile)."""
    with _threads(threads):
        return play_value_games(
            _runner(sl, device, precision),
            _runner(rl, device, precision),
            games,
            np.random.default_rng(seed),
            GameSettings(**settings),
            progress=progress,
        )
