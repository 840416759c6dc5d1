"""AlphaGo Zero self-play: batched game production for training.

:func:`play_games` plays whole games of a network against itself and returns training
examples (:class:`alphago.data.examples.Examples`) and game records. Up to
``parallel_games`` games are in flight in one ``search.PUCT`` engine (``search.Gumbel``
with ``search="gumbel"``), their trees stepped in lock-step, so the network sees
batches of about ``parallel_games * leaves_per_batch`` positions; when a game ends its
tree starts the next game until ``games`` games have started. :func:`selfplay_job` is
the same from a weights file's bytes: the picklable entry point of the worker
processes and Ray tasks of :mod:`alphago.train.workers`.

Glossary:

- *position*: one searched root; after a full search it becomes one example
  ``(planes, pi, z)``.
- *playout cap randomisation* (KataGo; Wu 2019, "Accelerating Self-Play Learning in
  Go"): with ``full_search_fraction`` < 1, each move of each game is drawn to be a
  *full search* (``simulations``, with probability ``full_search_fraction``) or a
  *cheap search* (``cheap_simulations``, without root noise). Only full searches
  become examples, since a cheap search's visits make a poor policy target; the
  cheap ones make games faster, so more games (value targets) come per CPU-hour.
  In lock-step the games' searches of a move end together, when the longest (most
  likely a full one) is done: the cheap ones save network evaluations, fewer
  evaluator calls.
- *pi*: the policy target: the root's visit counts normalised (reused subtree visits
  included), taken before the temperature is applied to choose the move; with the
  Gumbel search, its improved policy (``search.SearchResult.improved_policy``), which
  learns from every move's value rather than from the visits alone.
- *z*: the final outcome for the side to move at that position: +1 win, -1 loss,
  0 tie. Outcomes come from the Tromp-Taylor area score (``board.score()``, komi
  included) or from a resignation.
- *auxiliary targets* (KataGo): every example also carries the final Tromp-Taylor
  ownership of each point and the final area margin (komi included), both from its
  side to move's view, read from the position the game ended in (a game stopped at
  the move cap: as it stands, as its outcome is). A resigned game has none (its
  stones were never settled): its examples carry a NaN score, which masks them out
  of the auxiliary losses. They cost N*N + 4 bytes per example whether or not the
  learner uses them, so one replay window serves runs with and without the losses.
- *forced playouts and policy target pruning* (KataGo; ``forced_playouts``, PUCT
  only): a full search with root noise gives every root move it tried at least
  ``sqrt(2 * P * visits)`` visits, and pi is then the pruned visit distribution
  (``search.SearchConfig.forced_playouts``), so the net learns from the noise's
  discoveries without learning the forced visits themselves.
- *temperature moves*: the first ``temperature_moves`` moves of a game are sampled in
  proportion to the visit counts (temperature 1, for opening variety); later moves
  take the most visited move. PUCT only: the Gumbel search plays its sequential-halving
  winner, already a sample through the Gumbel noise.
- *rollouts* (AlphaGo 2016's leaf evaluation, ``mix_lambda`` > 0): every leaf is
  also played out by the pattern rollout policy and its value is ``(1 - lambda) *
  v_net + lambda * z_rollout``, as the play engine mixes it (``search.AlphaGo2016``
  for PUCT; ``search.Gumbel``'s ``rollout``, whose completed Q then uses the mixed
  value). The rollouts see what a weak value head misjudges (stones in atari, dead
  groups); the value target z stays the game's outcome.
- *root noise*: Dirichlet(alpha) noise mixed into every full search's root priors
  with weight ``dirichlet_epsilon`` (exploration of moves the network dislikes). PUCT
  only: the Gumbel search explores through its root sampling.
- *resignation check*: with a ``resign_threshold`` a player resigns when its root value
  and the best move's value both fall below ``-resign_threshold``. As in AlphaGo Zero
  a fraction ``resign_check_fraction`` of the games never resigns; in those the first
  player who would have resigned is noted, and a *false positive* is such a game that
  this player did not lose. Keep false positives / checked games under about 5%.

Moves: a pass is not played while the game is open (the player's rule,
``alphago.player.pass_rules``: pass only after the opponent passed, or when every
other legal move fills one of our own true eyes; after the opponent's pass, pass when
that wins as the board stands and play on when it would lose); the search may still
pick pass, and pi keeps its visits. A game ends on two passes, a resignation, or at
``max_moves`` moves, where it is scored as it stands (the record's comment says so).

Determinism: one seed fixes everything (root noise, symmetries, move sampling, which
games may resign, which moves get full searches), given the same device, precision
and torch thread count (the network's arithmetic, and so a close call between two
moves, may differ between them).

Device: the evaluator runs on ``device`` (default the CPU): ``"cuda"`` puts each
worker's network on the GPU, where the lock-step games of a worker make one batch of
about ``parallel_games * leaves_per_batch`` positions per call, and several worker
processes may share one GPU. ``precision`` is the evaluator's
(:mod:`alphago.nets.precision`; None: bf16 on CUDA and on CPUs with AMX or
AVX512-BF16, else fp32).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray

import goboard
import search

from ..data.examples import Examples
from ..nets import NetConfig, NetEvaluator, PolicyValueNet
from ..nets.nets2016 import shipped_rollout
from ..nets.weights import load_weights
from ..player import pass_rules
from ..rollout_weights import load_rollout_policy
from ..sgf import GameRecord

__all__ = [
    "SelfPlayConfig",
    "SelfPlayResult",
    "play_games",
    "selfplay_job",
]

_SEARCH_DEFAULTS = search.SearchConfig()
# SelfPlayConfig's field ``search`` hides the module inside the class's annotations.
_PUCTConfig = search.SearchConfig
_GumbelConfig = search.GumbelConfig
_PLAYER = "selfplay"
Progress = Callable[[int], None]


def _check_int(name: str, value: object, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, not {value}")


def _check_real(
    name: str, value: object, low: float, high: float, *, low_open: bool = False
) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    ok = (value > low if low_open else value >= low) and value <= high
    if not ok or math.isnan(value):
        bracket = "(" if low_open else "["
        raise ValueError(f"{name} must be in {bracket}{low}, {high}], not {value}")


@dataclass(frozen=True, slots=True)
class SelfPlayConfig:
    """How self-play games are searched and played (validated on creation).

    Attributes:
        simulations: new simulations per move (a reused subtree's visits come on top).
        parallel_games: games in flight in one engine (trees stepped in lock-step).
        leaves_per_batch: leaves per tree per network call (virtual loss).
        c_puct, fpu_reduction: PUCT constants (``search.SearchConfig``'s defaults).
        dirichlet_alpha: root noise concentration. The rule of thumb is about
            0.03 * 361 / N^2 (AlphaGo Zero's 0.03 on 19x19 scaled by the number of
            moves): 0.13 on 9x9, 0.06 on 13x13; 0.15 suits 9x9.
        dirichlet_epsilon: weight of the noise in the root priors (0 disables it).
        temperature_moves: moves sampled in proportion to visits at the start of a
            game; later moves are the most visited.
        max_moves: moves after which a game is scored as it stands; None: 2 * N * N.
        resign_threshold: resign when the root value and the best move's value are
            below ``-resign_threshold`` (in [0, 1]); None never resigns.
        resign_check_fraction: fraction of games that never resign (false positive
            measurement; module docstring).
        size, komi, rules: the game (``rules`` a goboard preset name or Rules).
        search: ``"puct"`` (AlphaGo Zero) or ``"gumbel"`` (``search.Gumbel``: fewer
            simulations go further, and the target is the improved policy).
        considered_actions: root moves the Gumbel search samples (its m).
        full_search_fraction: probability that a move gets a full search of
            ``simulations`` and becomes an example (playout cap randomisation,
            module docstring; KataGo 0.25); 1.0, the default, searches every move
            fully.
        cheap_simulations: the budget of the other moves' searches (cheap: no
            root noise, not examples); None: ``simulations // 5``, at least 1. Must
            be below ``simulations`` when ``full_search_fraction`` < 1.
        forced_playouts: force root visits and prune the policy target (module
            docstring; PUCT only). Off by default.
        mix_lambda: leaf value ``(1 - lambda) * v_net + lambda * z_rollout`` (module
            docstring, *rollouts*); 0, the default, is the network's value alone.
        rollout_weights: the pattern rollout policy file whose rollouts
            ``mix_lambda`` mixes in; None: the one shipped for the board size.
    """

    simulations: int = 200
    parallel_games: int = 32
    leaves_per_batch: int = 8
    c_puct: float = _SEARCH_DEFAULTS.c_puct
    fpu_reduction: float = _SEARCH_DEFAULTS.fpu_reduction
    dirichlet_alpha: float = 0.15
    dirichlet_epsilon: float = 0.25
    temperature_moves: int = 8
    max_moves: int | None = None
    resign_threshold: float | None = None
    resign_check_fraction: float = 0.1
    size: int = 9
    komi: float = 7.5
    rules: str | goboard.Rules = "chinese"
    search: str = "puct"
    considered_actions: int = 16
    full_search_fraction: float = 1.0
    cheap_simulations: int | None = None
    forced_playouts: bool = False
    mix_lambda: float = 0.0
    rollout_weights: str | None = None

    def __post_init__(self) -> None:
        _check_int("simulations", self.simulations, 1)
        _check_int("parallel_games", self.parallel_games, 1)
        _check_int("leaves_per_batch", self.leaves_per_batch, 1)
        _check_real("c_puct", self.c_puct, 0.0, math.inf, low_open=True)
        _check_real("dirichlet_alpha", self.dirichlet_alpha, 0, math.inf, low_open=True)
        _check_real("dirichlet_epsilon", self.dirichlet_epsilon, 0.0, 1.0)
        _check_int("temperature_moves", self.temperature_moves, 0)
        if self.max_moves is not None:
            _check_int("max_moves", self.max_moves, 1)
        if self.resign_threshold is not None:
            _check_real("resign_threshold", self.resign_threshold, 0.0, 1.0)
        _check_real("resign_check_fraction", self.resign_check_fraction, 0.0, 1.0)
        if self.search not in ("puct", "gumbel"):
            raise ValueError(f"search must be 'puct' or 'gumbel', not {self.search!r}")
        _check_int("considered_actions", self.considered_actions, 1)
        _check_real(
            "full_search_fraction", self.full_search_fraction, 0.0, 1.0, low_open=True
        )
        if self.cheap_simulations is not None:
            _check_int("cheap_simulations", self.cheap_simulations, 1)
        if self.full_search_fraction < 1 and self.cheap_budget >= self.simulations:
            raise ValueError(
                f"cheap_simulations must be < simulations ({self.simulations}) "
                f"when full_search_fraction < 1, not {self.cheap_budget}"
            )
        if not isinstance(self.forced_playouts, bool):
            raise TypeError("forced_playouts must be a bool")
        if self.forced_playouts and self.search != "puct":
            raise ValueError("forced playouts are for the PUCT search only")
        _check_real("mix_lambda", self.mix_lambda, 0.0, 1.0)
        weights = self.rollout_weights
        if weights is not None and not isinstance(weights, str):
            kind = type(weights).__name__
            raise TypeError(f"rollout_weights must be a path string, not {kind}")
        goboard.coords.check_size(self.size)
        goboard.Rules.coerce(self.rules)
        if self.mix_lambda > 0.0:
            self.rollout_path()  # a policy to mix in
        self.new_board()  # komi
        self.search_config()  # everything else the search checks
        self.gumbel_config()

    @property
    def move_cap(self) -> int:
        """``max_moves`` or its default, 2 * N * N."""
        return 2 * self.size * self.size if self.max_moves is None else self.max_moves

    @property
    def cheap_budget(self) -> int:
        """``cheap_simulations`` or its default, ``simulations // 5`` (at least 1)."""
        if self.cheap_simulations is None:
            return max(1, self.simulations // 5)
        return self.cheap_simulations

    def rollout_path(self) -> Path:
        """The rollout policy's file: ``rollout_weights``, else the shipped one for the
        size; ValueError if neither exists."""
        if self.rollout_weights is not None:
            return Path(self.rollout_weights)
        shipped = shipped_rollout(self.size)
        if shipped is None:
            raise ValueError(
                f"mix_lambda > 0 needs rollout_weights: no rollout policy ships for "
                f"{self.size}x{self.size}"
            )
        return shipped

    def new_board(self) -> goboard.Board:
        """The empty board a game starts from."""
        return goboard.Board(self.size, self.komi, self.rules)

    def search_config(self) -> _PUCTConfig:
        """The PUCT configuration of every move's search (moves are chosen here, so
        its temperature is 0): an ``AlphaGo2016Config`` when rollouts are mixed in."""
        threshold = self.resign_threshold
        puct = search.SearchConfig(
            num_simulations=self.simulations,
            leaves_per_batch=self.leaves_per_batch,
            c_puct=self.c_puct,
            fpu_reduction=self.fpu_reduction,
            dirichlet_alpha=self.dirichlet_alpha,
            dirichlet_fraction=self.dirichlet_epsilon,
            temperature=0.0,
            resign_threshold=None if threshold is None else -float(threshold),
            forced_playouts=self.forced_playouts,
        )
        if self.mix_lambda == 0.0:
            return puct
        fields = dataclasses.asdict(puct)
        return search.AlphaGo2016Config(**fields, mix_lambda=self.mix_lambda)

    def gumbel_config(self) -> _GumbelConfig:
        """The Gumbel configuration of every move's search (``search="gumbel"``)."""
        threshold = self.resign_threshold
        return search.GumbelConfig(
            num_simulations=self.simulations,
            leaves_per_batch=self.leaves_per_batch,
            considered_actions=self.considered_actions,
            resign_threshold=None if threshold is None else -float(threshold),
            mix_lambda=self.mix_lambda,
        )


@dataclass
class SelfPlayResult:
    """What :func:`play_games` produced.

    Attributes:
        examples: one example per move played after a full search, game by game in
            ``records`` order.
        records: the games (result set; comment None unless the game hit the move
            cap or was a resignation check where someone would have resigned).
        moves: moves played (every move of the records).
        seconds: wall-clock seconds (a merge adds them up: worker time).
        resign_false_positives: check games whose would-be resigner did not lose.
        resign_checked: check games in which someone would have resigned.
        cheap_moves: moves played after a cheap search (playout cap
            randomisation), which are not examples.
    """

    examples: Examples
    records: list[GameRecord] = field(default_factory=list)
    moves: int = 0
    seconds: float = 0.0
    resign_false_positives: int = 0
    resign_checked: int = 0
    cheap_moves: int = 0

    @property
    def full_moves(self) -> int:
        """Moves played after a full search: ``len(examples)``."""
        return self.moves - self.cheap_moves

    @staticmethod
    def merge(results: Sequence[SelfPlayResult]) -> SelfPlayResult:
        """All of ``results`` in order (at least one); seconds are summed."""
        if not results:
            raise ValueError("nothing to merge")
        return SelfPlayResult(
            Examples.concat([r.examples for r in results]),
            [rec for r in results for rec in r.records],
            sum(r.moves for r in results),
            sum(r.seconds for r in results),
            sum(r.resign_false_positives for r in results),
            sum(r.resign_checked for r in results),
            sum(r.cheap_moves for r in results),
        )


@dataclass(slots=True)
class _Game:
    """A game in flight: its board, its moves and the examples so far."""

    board: goboard.Board
    can_resign: bool
    planes: list[NDArray[np.uint8]] = field(default_factory=list)  # [C, N, N] each
    policy: list[NDArray[np.float32]] = field(default_factory=list)  # [A] each
    movers: list[int] = field(default_factory=list)  # side to move of each example
    moves: list[tuple[int, int]] = field(default_factory=list)
    would_resign: tuple[int, int] | None = None  # (colour, move number)


@dataclass(slots=True)
class _Finished:
    planes: list[NDArray[np.uint8]]
    policy: list[NDArray[np.float32]]
    value: NDArray[np.float32]  # [examples]
    ownership: NDArray[np.int8]  # [examples, N, N]
    score: NDArray[np.float32]  # [examples], NaN after a resignation
    record: GameRecord
    false_positive: bool
    checked: bool


def _colour(c: int) -> str:
    return "B" if c == goboard.BLACK else "W"


def _finish(game: _Game, config: SelfPlayConfig) -> _Finished:
    board = game.board
    if board.resigned is not None:
        winner = -board.resigned
    else:
        winner = int(np.sign(board.score()))
    movers = np.array(game.movers, dtype=np.float32)
    comment = None
    if not board.is_over:
        comment = f"stopped at the move cap ({config.move_cap}), scored as it stands"
    false_positive = False
    if game.would_resign is not None:
        colour, number = game.would_resign
        false_positive = winner != -colour
        note = f"resignation check: {_colour(colour)} would have resigned at move "
        note += f"{number + 1}"
        comment = note if comment is None else f"{comment}; {note}"
    n = config.size
    if board.resigned is None:
        owner = (movers[:, None, None] * board.ownership()).astype(np.int8)
        score = (movers * float(board.score())).astype(np.float32)
    else:
        owner = np.zeros((movers.size, n, n), np.int8)
        score = np.full(movers.size, np.nan, np.float32)
    record = GameRecord(
        size=config.size,
        komi=config.komi,
        moves=list(game.moves),
        result=board.result(),
        players={goboard.BLACK: _PLAYER, goboard.WHITE: _PLAYER},
        rules=board.rules.name,
        comment=comment,
    )
    return _Finished(
        game.planes,
        game.policy,
        (movers * winner).astype(np.float32),
        owner,
        score,
        record,
        false_positive,
        game.would_resign is not None,
    )


def _choose(
    game: _Game,
    result: search.SearchResult,
    config: SelfPlayConfig,
    rng: np.random.Generator,
) -> int:
    """The move to play: sampled early, most visited later (PUCT) or the search's
    (Gumbel), never an early pass.

    Cheap searches choose alike: their coarser visits still sample the opening, which
    keeps the games as varied as with full searches only, and later they play the
    most visited move as KataGo's fast searches do. The Gumbel noise is the Gumbel
    search's move sampling (its temperature), so cheap Gumbel searches keep it too.
    """
    move = result.move
    if config.search == "puct" and len(game.moves) < config.temperature_moves:
        move = search.choose_move(result.visits, 1.0, rng)
    return pass_rules(game.board, dataclasses.replace(result, move=move)).move


def play_games(
    model: PolicyValueNet,
    config: SelfPlayConfig,
    games: int,
    seed: int,
    progress: Progress | None = None,
    *,
    device: str = "cpu",
    precision: str | None = None,
) -> SelfPlayResult:
    """Play ``games`` self-play games of ``model`` (module docstring).

    Args:
        model: the network (its ``input_planes`` kind is the examples' kind); it is
            put in eval mode, in channels-last layout, by the evaluator.
        config: search and game settings; ``config.size`` must be the net's.
        games: games to play (>= 0).
        seed: fixes the whole run.
        progress: called with the number of finished games after each game ends.
        device: the evaluator's torch device ("cpu", "cuda", "cuda:N", "auto").
        precision: the evaluator's precision (None: the device's default).

    Returns:
        The examples and records, games in the order they started.

    Raises:
        ValueError: the net is for another board size, ``games`` < 0, or a device
            (or precision) this machine cannot run.
    """
    start = time.monotonic()
    _check_int("games", games, 0)
    _check_int("seed", seed, 0)
    if not isinstance(config, SelfPlayConfig):
        raise TypeError("config must be a SelfPlayConfig")
    net = model.config
    if net.board_size != config.size:
        raise ValueError(
            f"the network is for {net.board_size}x{net.board_size}, "
            f"the games for {config.size}x{config.size}"
        )
    kind = net.input_planes
    if games == 0:
        return SelfPlayResult(Examples.empty(config.size, kind))
    # A fifth stream for the playout cap and a sixth for rollouts: spawn(6)'s first
    # four are spawn(4)'s, so runs without them keep their games.
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(6)]
    eval_rng, search_rng, move_rng, resign_rng, cap_rng, rollout_rng = streams
    evaluator = NetEvaluator(
        model, device, symmetries="random", seed=eval_rng, precision=precision
    )
    check = config.resign_threshold is not None

    def new_game() -> _Game:
        free = check and resign_rng.random() >= config.resign_check_fraction
        return _Game(config.new_board(), can_resign=free)

    slots = min(config.parallel_games, games)
    live: list[_Game | None] = [new_game() for _ in range(slots)]
    order = list(range(slots))  # start index of each slot's game
    started = slots
    boards = [g.board for g in live if g is not None]
    rollout = None
    if config.mix_lambda > 0.0:
        policy = load_rollout_policy(config.rollout_path())
        rollout = search.PatternRollouts(policy, 1, rollout_rng)
    engine: search.MCTS
    puct = config.search_config()
    if config.search == "gumbel":
        gumbel = config.gumbel_config()
        engine = search.Gumbel(evaluator, boards, gumbel, search_rng, rollout)
    elif isinstance(puct, search.AlphaGo2016Config):
        engine = search.AlphaGo2016(evaluator, boards, puct, search_rng, rollout)
    else:
        engine = search.PUCT(evaluator, boards, puct, search_rng)
    capacity = engine.tree.capacity
    done: dict[int, _Finished] = {}
    while True:
        active = [g for g in range(slots) if live[g] is not None]
        if not active:
            break
        full = np.ones(len(active), dtype=np.bool_)
        if config.full_search_fraction < 1.0:
            full = cap_rng.random(len(active)) < config.full_search_fraction
        budgets = np.where(full, config.simulations, config.cheap_budget)
        results = engine.run(active, simulations=budgets, root_noise=full)
        roots = np.asarray(active, dtype=np.int64)[full] * capacity
        planes = engine.pool.features(roots, kind, dtype=np.uint8)  # full ones only
        rows = np.cumsum(full) - 1
        for j, (g, result) in enumerate(zip(active, results, strict=True)):
            game = live[g]
            assert game is not None
            board = game.board
            colour = board.to_play
            over = False
            if result.resign and game.can_resign:
                board.resign()
                over = True
            else:
                if result.resign and game.would_resign is None:
                    game.would_resign = (colour, len(game.moves))
                move = _choose(game, result, config, move_rng)
                if full[j]:
                    game.planes.append(planes[rows[j]])
                    game.policy.append(result.pi.astype(np.float32))
                    game.movers.append(colour)
                board.play(move)
                game.moves.append((colour, move))
                over = board.is_over or len(game.moves) >= config.move_cap
                if not over:
                    engine.advance(move, g)
            if not over:
                continue
            done[order[g]] = _finish(game, config)
            if progress is not None:
                progress(len(done))
            if started < games:
                live[g] = new_game()
                order[g] = started
                started += 1
                engine.set_root(config.new_board(), g)
            else:
                live[g] = None
    return _collect([done[i] for i in range(games)], config, kind, start)


def _collect(
    finished: list[_Finished], config: SelfPlayConfig, kind: str, start: float
) -> SelfPlayResult:
    planes = [p for f in finished for p in f.planes]
    if not planes:
        examples = Examples.empty(config.size, kind)
    else:
        examples = Examples(
            np.stack(planes),
            np.stack([p for f in finished for p in f.policy]),
            np.concatenate([f.value for f in finished]),
            kind,
            np.concatenate([f.ownership for f in finished]),
            np.concatenate([f.score for f in finished]),
        )
    moves = sum(len(f.record.moves) for f in finished)
    return SelfPlayResult(
        examples,
        [f.record for f in finished],
        moves,
        time.monotonic() - start,
        sum(f.false_positive for f in finished),
        sum(f.checked for f in finished),
        moves - len(examples),
    )


# -- workers -------------------------------------------------------------------


def selfplay_job(
    weights: bytes,
    net_config: dict[str, Any],
    config: SelfPlayConfig,
    games: int,
    seed: int,
    threads: int = 1,
    progress: Progress | None = None,
    device: str = "cpu",
    precision: str | None = None,
) -> SelfPlayResult:
    """:func:`play_games` with the net from a weights file's bytes (picklable: the
    entry point of worker processes and Ray tasks), on ``device`` at ``precision``.

    ``threads`` torch threads are used during the job (the process-wide setting is
    restored afterwards).
    """
    _check_int("threads", threads, 1)
    model = load_weights(weights)
    if model.config != NetConfig.from_dict(dict(net_config)):
        raise ValueError(f"the weights are for {model.config}, not {net_config}")
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return play_games(
            model, config, games, seed, progress, device=device, precision=precision
        )
    finally:
        torch.set_num_threads(before)
