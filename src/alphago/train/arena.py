"""The in-process arena: matches between two searching players, games in lock-step.

The self-play loop uses it for gating (candidate net against the current best) and for
its baseline test (a net against plain UCT with more simulations). Nothing leaves the
process: no GTP, no engine subprocesses.

How a match runs: the games of a *wave* (``parallel_games`` of them, default all) are
played together. Each contestant has one *engine* (``search.PUCT`` over its net, or
``search.UCT`` over random playouts) holding one tree per game of the wave. At each
turn an engine searches, in one batched call, every game where its contestant is to
move; the chosen moves are played on the referee boards and on both engines' trees
(``advance``), so each engine reuses the subtree below the move actually played.

Rules and scoring are those of :mod:`alphago.match.game`: Chinese rules (situational
superko, no suicide), Tromp-Taylor area score with komi. A game ends on two passes or
at the move cap of ``2 * N * N`` moves (passes included), where it is scored as it
stands. No one resigns, and no one passes while the game is open (the rule of
:mod:`alphago.player`: a pass is played only after the opponent's pass or when every
other legal move would fill one of the mover's own true eyes).

Glossary:

- *A*, *B*: the two contestants; results are A's. A plays Black in the even games
  (0, 2, ...) and White in the odd ones.
- *random moves*: a contestant's first ``random_moves`` moves of a game are drawn in
  proportion to the root visit counts; later moves take the most visited child.
  Together with a different seed per game this makes the games of a match differ.
- *stream*: the random numbers of game ``i`` come from ``SeedSequence([seed, i])``,
  one child per colour (the search's own choices, the playouts, the move draws), so a
  game does not depend on which other games share its wave or on which contestant is
  called A.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

import goboard
import search
from search import Positions

from ..match.stats import EloEstimate, elo_estimate
from ..nets import NetEvaluator, PolicyValueNet
from ..player import pass_rules
from ..sgf import GameRecord

__all__ = ["ArenaResult", "Contestant", "play_arena"]

RULES = "chinese"
Progress = Callable[[int, int], None]
_COLOUR_NAME = {goboard.BLACK: "B", goboard.WHITE: "W"}


@dataclass(frozen=True)
class Contestant:
    """One side of a match: a net searched with PUCT, or plain UCT.

    Build one with :meth:`net` or :meth:`uct`.

    Attributes:
        name: shown in the game records (``PB``/``PW``).
        config: a ``search.SearchConfig`` (with ``model``) or ``search.UCTConfig``
            (without); its ``temperature`` applies after the random moves.
        model: the network of a PUCT contestant, None for UCT.
        random_moves: this contestant's first moves of each game drawn in proportion
            to the visit counts (>= 0).
        device: torch device for the net; None keeps the model where it is.
        symmetries: ``NetEvaluator``'s symmetry mode; ``"none"`` (the default) keeps
            a game's moves independent of its wave (``"random"`` draws transforms
            per batch).
        precision: ``NetEvaluator``'s arithmetic (``fp32``, ``bf16``, ``fp16``);
            None: the device's default.
    """

    name: str
    config: search.SearchConfig | search.UCTConfig
    model: PolicyValueNet | None = None
    random_moves: int = 4
    device: str | None = None
    symmetries: str | int = "none"
    precision: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError("a contestant needs a non-empty name")
        if isinstance(self.config, search.UCTConfig):
            if self.model is not None:
                raise ValueError("a UCT contestant takes no model")
        elif type(self.config) is search.SearchConfig:
            if not isinstance(self.model, PolicyValueNet):
                raise TypeError("a PUCT contestant needs a PolicyValueNet model")
        else:
            raise TypeError("config must be a search.SearchConfig or search.UCTConfig")
        _count("random_moves", self.random_moves, 0)

    @classmethod
    def net(
        cls,
        name: str,
        model: PolicyValueNet,
        simulations: int,
        *,
        random_moves: int = 4,
        config: search.SearchConfig | None = None,
        device: str | None = None,
        symmetries: str | int = "none",
        precision: str | None = None,
    ) -> Contestant:
        """PUCT over ``model`` with ``simulations`` per move, no Dirichlet noise,
        the most visited move after the random ones (``config`` supplies the rest)."""
        base = search.SearchConfig() if config is None else config
        cfg = dataclasses.replace(
            base,
            num_simulations=simulations,
            dirichlet_fraction=0.0,
            temperature=0.0,
        )
        return cls(name, cfg, model, random_moves, device, symmetries, precision)

    @classmethod
    def uct(
        cls,
        name: str,
        simulations: int,
        *,
        random_moves: int = 4,
        config: search.UCTConfig | None = None,
    ) -> Contestant:
        """Plain UCT over random playouts with ``simulations`` per move."""
        base = search.UCTConfig() if config is None else config
        cfg = dataclasses.replace(base, num_simulations=simulations, temperature=0.0)
        return cls(name, cfg, None, random_moves)

    @property
    def simulations(self) -> int:
        """Simulations per move."""
        return self.config.num_simulations


@dataclass(frozen=True)
class ArenaResult:
    """A match's outcome from A's side.

    Attributes:
        a, b: the contestants' names.
        wins, losses, ties: A's game counts.
        records: one per game, in game order (A is Black in the even ones); each
            has the players' names, the moves, the rules and the result.
        seconds_per_move: (A, B): each contestant's search time divided by the moves
            it chose (a batched search serves several games at once, so this is the
            throughput cost of a move, not one search's latency).
        moves: (A, B): moves each contestant chose.
        seconds: the match's wall time.
    """

    a: str
    b: str
    wins: int
    losses: int
    ties: int
    records: list[GameRecord]
    seconds_per_move: tuple[float, float]
    moves: tuple[int, int]
    seconds: float

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.ties

    @property
    def win_rate(self) -> float:
        """A's score fraction, ties counting one half."""
        return (self.wins + 0.5 * self.ties) / max(self.games, 1)

    def elo(self) -> EloEstimate:
        """A's Elo advantage over B with its 95% interval."""
        return elo_estimate(self.wins, self.ties, self.losses)

    def describe(self) -> str:
        """One line: ``a vs b: +5 -3 =0 (62.5%), Elo +88.7 (95% CI ...)``."""
        return (
            f"{self.a} vs {self.b}: +{self.wins} -{self.losses} ={self.ties} "
            f"({100 * self.win_rate:.1f}%), {self.elo().describe()}"
        )


def play_arena(
    a: Contestant,
    b: Contestant,
    games: int,
    size: int = 9,
    komi: float = 7.5,
    seed: int = 0,
    parallel_games: int | None = None,
    progress: Progress | None = None,
) -> ArenaResult:
    """Play ``games`` games between ``a`` and ``b``, A taking Black in even games.

    Args:
        a, b: the contestants (they may be the same object).
        games: number of games (>= 1).
        size, komi: the board.
        seed: the match seed (>= 0); game ``i`` draws from ``SeedSequence([seed, i])``.
        parallel_games: games searched together (default all); the games come out the
            same for any value, up to the floating-point batch effects of the net's
            device.
        progress: called as ``progress(finished, games)`` after each game ends.

    Returns:
        The counts, records and timings (see :class:`ArenaResult`).

    Raises:
        TypeError, ValueError: bad arguments, or a net for another board size.
    """
    _count("games", games, 1)
    _count("seed", seed, 0)
    if parallel_games is not None:
        _count("parallel_games", parallel_games, 1)
    if not isinstance(komi, (int, float)) or isinstance(komi, bool):
        raise TypeError(f"komi must be a number, not {type(komi).__name__}")
    goboard.Board(size, float(komi), RULES)  # validates the size
    contestants = (a, b)
    for c in contestants:
        if not isinstance(c, Contestant):
            raise TypeError(f"contestants must be Contestant, not {type(c).__name__}")
        if c.model is not None and c.model.config.board_size != size:
            n = c.model.config.board_size
            raise ValueError(f"{c.name}'s net is for {n}x{n} boards, not {size}x{size}")
    start = time.perf_counter()
    modes = [c.model.training if c.model is not None else False for c in contestants]
    evaluators = [_evaluator(c, seed, side) for side, c in enumerate(contestants)]
    clock = _Clock()
    records: list[GameRecord | None] = [None] * games
    finished = 0
    wave = games if parallel_games is None else parallel_games
    try:
        for first in range(0, games, wave):
            indices = range(first, min(first + wave, games))
            for i, record in _play_wave(
                contestants, evaluators, indices, size, float(komi), seed, clock
            ):
                records[i] = record
                finished += 1
                if progress is not None:
                    progress(finished, games)
    finally:
        for c, mode in zip(contestants, modes, strict=True):
            if c.model is not None:
                c.model.train(mode)
    done = [r for r in records if r is not None]
    wins = losses = ties = 0
    for i, record in enumerate(done):
        score = _a_score(record, a_black=i % 2 == 0)
        wins += score == 1.0
        losses += score == 0.0
        ties += score == 0.5
    return ArenaResult(
        a=a.name,
        b=b.name,
        wins=wins,
        losses=losses,
        ties=ties,
        records=done,
        seconds_per_move=(clock.per_move(0), clock.per_move(1)),
        moves=(clock.moves[0], clock.moves[1]),
        seconds=time.perf_counter() - start,
    )


# -- internals -------------------------------------------------------------------


def _count(name: str, value: object, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, not {value}")


class _Clock:
    """Search seconds and moves chosen, per contestant (0 = A, 1 = B)."""

    def __init__(self) -> None:
        self.seconds = [0.0, 0.0]
        self.moves = [0, 0]

    def per_move(self, side: int) -> float:
        return self.seconds[side] / self.moves[side] if self.moves[side] else math.nan


def _evaluator(c: Contestant, seed: int, side: int) -> NetEvaluator | None:
    if c.model is None:
        return None
    device = c.device
    if device is None:
        param = next(c.model.parameters(), None)
        device = "cpu" if param is None else str(param.device)
    # Entropy [seed, 2**32, side] cannot collide with a game's [seed, i].
    rng = np.random.default_rng([seed, 2**32, side])
    return NetEvaluator(
        c.model, device, symmetries=c.symmetries, seed=rng, precision=c.precision
    )


class _GameRollouts:
    """Random playouts with one seed stream per game of an engine.

    ``search.RolloutEvaluator`` draws one seed per batch, which ties a game's
    playouts to the other games in the batch; here game ``g``'s playouts (pool slots
    ``g * capacity ..``) draw only from ``rngs[g]``.
    """

    def __init__(
        self, capacity: int, rngs: Sequence[np.random.Generator], playouts: int
    ) -> None:
        self.capacity = capacity
        self.rngs = list(rngs)
        self.playouts = playouts

    def evaluate(
        self, positions: Positions
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        legal = positions.legal_masks()
        priors = legal.astype(np.float32)
        priors /= np.maximum(priors.sum(axis=1, keepdims=True), 1.0)
        slots = positions.slots
        pool = positions.pool
        values = np.zeros(slots.shape[0], dtype=np.float32)
        owners = slots // self.capacity
        for g in np.unique(owners).tolist():
            rows = np.flatnonzero(owners == g)
            seed = int(self.rngs[g].integers(0, 2**63))
            scores = pool.playouts(slots[rows], self.playouts, seed)
            wins = np.sign(scores).mean(axis=1) * pool.to_play(slots[rows])
            values[rows] = wins
        return priors, values


@dataclass
class _Game:
    """One game in flight: the referee board, the record and the random streams."""

    index: int
    board: goboard.Board
    a_black: bool
    record: GameRecord
    #: colour -> (search, playouts, move draws), children of SeedSequence([seed, i]).
    rngs: dict[int, list[np.random.Generator]]
    played: dict[int, int]  # colour -> moves made

    @classmethod
    def new(
        cls, i: int, names: tuple[str, str], size: int, komi: float, seed: int
    ) -> _Game:
        a_black = i % 2 == 0
        black, white = names if a_black else names[::-1]
        record = GameRecord(
            size=size,
            komi=komi,
            players={goboard.BLACK: black, goboard.WHITE: white},
            rules=RULES,
        )
        black_ss, white_ss = np.random.SeedSequence([seed, i]).spawn(2)
        rngs = {
            goboard.BLACK: [np.random.default_rng(s) for s in black_ss.spawn(3)],
            goboard.WHITE: [np.random.default_rng(s) for s in white_ss.spawn(3)],
        }
        board = goboard.Board(size, komi, RULES)
        played = {goboard.BLACK: 0, goboard.WHITE: 0}
        return cls(i, board, a_black, record, rngs, played)

    def colour_of(self, side: int) -> int:
        """The colour contestant ``side`` (0 = A, 1 = B) plays."""
        return goboard.BLACK if self.a_black == (side == 0) else goboard.WHITE

    def side_to_move(self) -> int:
        """0 if A is to move, 1 if B."""
        return 0 if self.colour_of(0) == self.board.to_play else 1


def _play_wave(
    contestants: tuple[Contestant, Contestant],
    evaluators: list[NetEvaluator | None],
    indices: range,
    size: int,
    komi: float,
    seed: int,
    clock: _Clock,
) -> Iterator[tuple[int, GameRecord]]:
    """Play the games ``indices`` together; yield (index, record) as they end."""
    names = (contestants[0].name, contestants[1].name)
    games = [_Game.new(i, names, size, komi, seed) for i in indices]
    engines: list[search.MCTS] = []
    for side, c in enumerate(contestants):
        streams = [g.rngs[g.colour_of(side)] for g in games]
        roots = [g.board for g in games]
        engines.append(_engine(c, evaluators[side], roots, streams))
    cap = 2 * size * size
    live = list(range(len(games)))
    while live:
        for side, c in enumerate(contestants):
            todo = [j for j in live if games[j].side_to_move() == side]
            if not todo:
                continue
            start = time.perf_counter()
            results = engines[side].run(todo)
            clock.seconds[side] += time.perf_counter() - start
            clock.moves[side] += len(todo)
            for j, result in zip(todo, results, strict=True):
                game = games[j]
                move = _choose(game, c, result)
                colour = game.board.to_play
                game.board.play(move)
                game.record.moves.append((colour, move))
                game.played[colour] += 1
                if game.board.is_over or len(game.record.moves) >= cap:
                    game.record.result = game.board.result()
                    live.remove(j)
                    yield game.index, game.record
                    continue
                for engine in engines:
                    engine.advance(move, j)


def _engine(
    c: Contestant,
    evaluator: NetEvaluator | None,
    roots: list[goboard.Board],
    streams: list[list[np.random.Generator]],
) -> search.MCTS:
    """``c``'s engine over ``roots``; game g's search draws from ``streams[g][0]``,
    its playouts from ``streams[g][1]``."""
    search_rngs = [s[0] for s in streams]
    rollout_rngs = [s[1] for s in streams]
    if isinstance(c.config, search.UCTConfig):
        cfg = c.config
        rollouts = _GameRollouts(cfg.capacity(), rollout_rngs, cfg.rollouts_per_leaf)
        return search.MCTS(rollouts, roots, cfg, search_rngs, rule="ucb1")
    assert evaluator is not None
    return search.PUCT(evaluator, roots, c.config, search_rngs)


def _choose(game: _Game, c: Contestant, result: search.SearchResult) -> int:
    """The move to play: drawn by visits early on, never an early pass."""
    colour = game.board.to_play
    total = int(result.visits.sum())
    if game.played[colour] < c.random_moves and total > 0:
        p = result.visits / total
        move = int(game.rngs[colour][2].choice(p.size, p=p))
        result = dataclasses.replace(result, move=move)
    return pass_rules(game.board, result).move


def _a_score(record: GameRecord, *, a_black: bool) -> float:
    """A's points for a finished record: 1, 1/2 or 0."""
    result = record.result or "0"
    if result == "0":
        return 0.5
    black_won = result.startswith("B+")
    return 1.0 if black_won == a_black else 0.0
