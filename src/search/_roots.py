"""Root handling for :class:`search.MCTS`: preparing roots (evaluation, Dirichlet
noise), reading results, moving on after a move (tree reuse) and new games."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

import goboard

from .puct import choose_move, dirichlet_mix, prune_forced
from .result import ScoreStats, SearchResult
from .tree import EXPANDED

if TYPE_CHECKING:
    from .config import _Common
    from .evaluator import RolloutPolicy
    from .tree import Tree

__all__ = ["RootsMixin", "Seeds", "as_boards", "make_rngs"]

Seed = int | np.random.Generator
Seeds = Seed | Sequence[Seed] | None
I64 = NDArray[np.int64]


def as_boards(roots: goboard.Board | Sequence[goboard.Board]) -> list[goboard.Board]:
    """One board or a sequence of boards, as a non-empty list."""
    boards = [roots] if isinstance(roots, goboard.Board) else list(roots)
    if not boards or not all(isinstance(b, goboard.Board) for b in boards):
        raise TypeError("roots must be a goboard.Board or a non-empty sequence of them")
    return boards


def _one_rng(seed: object) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"rng must be an int seed or a Generator, not {seed!r}")
    return np.random.default_rng(int(seed))


def make_rngs(rng: Seeds, games: int) -> list[np.random.Generator]:
    """One Generator per game (see :class:`search.MCTS` for the rules).

    Several games from one seed get independent child streams (``SeedSequence.spawn``);
    from one Generator, streams seeded by draws from it.
    """
    if rng is None or (
        isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)
    ):
        if games == 1 and rng is not None:
            return [np.random.default_rng(int(rng))]
        children = np.random.SeedSequence(None if rng is None else int(rng)).spawn(
            games
        )
        return [np.random.default_rng(child) for child in children]
    if isinstance(rng, np.random.Generator):
        if games == 1:
            return [rng]
        seeds = rng.integers(0, 2**63, size=games)
        return [np.random.default_rng(int(seed)) for seed in seeds]
    if isinstance(rng, (str, bytes)) or not isinstance(rng, Sequence):
        raise TypeError("rng must be a seed, a Generator, a sequence of them, or None")
    if len(rng) != games:
        raise ValueError(f"rng has {len(rng)} entries for {games} games")
    return [_one_rng(r) for r in rng]


class RootsMixin:
    """Root-level operations; the engine state is set up by ``MCTS.__init__``."""

    config: _Common
    tree: Tree
    pool: goboard.Pool
    rollout: RolloutPolicy | None
    mix_lambda: float
    _rngs: list[np.random.Generator]
    _noise_saved: list[NDArray[np.float32] | None]
    _pending: NDArray[np.bool_]
    # Games whose tree a search step left half-updated (it raised: an evaluator's
    # error, a KeyboardInterrupt): virtual loss and pending leaves not taken back.
    _damaged: NDArray[np.bool_]
    _noise: float
    _alpha: float
    _forcing: bool = False
    _forced_games: NDArray[np.bool_]
    _forced_k: float
    keeps_scores: bool
    _komi: NDArray[np.float64]
    _leaf_margins: NDArray[np.float64] | None

    def _leaf_values(
        self,
        pos: I64,
        slots: I64,
        expand: NDArray[np.bool_],
        all_expand: bool,
    ) -> NDArray[np.float64]:  # pragma: no cover - provided by MCTS
        raise NotImplementedError

    def _check_games(self, games: Sequence[int] | None) -> I64:
        count = self.tree.games
        if games is None:
            chosen = np.arange(count, dtype=np.int64)
        else:
            chosen = np.asarray(games, dtype=np.int64).reshape(-1)
            if chosen.size and (chosen.min() < 0 or chosen.max() >= count):
                raise ValueError(f"game indices must be in 0..{count - 1}")
            if np.unique(chosen).size != chosen.size:
                raise ValueError("game indices must be distinct")
        over = self.pool.is_over(chosen * self.tree.capacity)
        if over.any():
            raise ValueError(f"game {int(chosen[over][0])} is over; nothing to search")
        return chosen

    def _check_intact(self, games: I64) -> None:
        """RuntimeError if a search step that raised left any of ``games`` with a
        half-updated tree."""
        damaged = games[self._damaged[games]]
        if damaged.size:
            raise RuntimeError(
                f"game {int(damaged[0])}'s tree was left half-updated by a search "
                "step that raised; set_root() starts it afresh"
            )

    def _prepare_roots(
        self, games: I64, budgets: I64, noise: NDArray[np.bool_]
    ) -> None:
        """Evaluate roots without priors; mix fresh Dirichlet noise into the root
        priors of the games flagged in ``noise`` ([K], as ``games``), the clean ones
        back into the others'. ``budgets`` [K] are the games' simulations this run
        (for searches that plan by them)."""
        t = self.tree
        roots = games * t.stride
        todo = roots[t.state_flat[roots] != EXPANDED]
        if todo.size:
            fresh = t.visits_flat[todo] == 0
            slots = todo - todo // t.stride
            everything = np.ones(todo.size, dtype=np.bool_)
            values = self._leaf_values(todo, slots, everything, True)
            # The root's evaluation counts as its first visit (in the chooser's view).
            t.visits_flat[todo[fresh]] = 1
            t.value_sums_flat[todo[fresh]] = -values[fresh]
            t.sync_edges(todo)
            if self.keeps_scores:
                assert self._leaf_margins is not None
                first = todo[fresh]
                t.margin_sums_flat[first] = -self._leaf_margins[fresh, 0]
                t.margin_squares_flat[first] = self._leaf_margins[fresh, 1]
                t.margin_visits_flat[first] = 1
        if self._noise <= 0.0:
            return
        for g, on in zip(games.tolist(), noise.tolist(), strict=True):
            saved = self._noise_saved[g]
            if not on:
                if saved is not None:
                    t.prior[g, 0] = saved
                    self._noise_saved[g] = None
                continue
            if saved is None:
                saved = t.prior[g, 0].copy()
                self._noise_saved[g] = saved
            rng = self._rngs[g]
            t.prior[g, 0] = dirichlet_mix(saved, self._alpha, self._noise, rng)

    def _results(
        self,
        games: I64,
        done: I64,
        elapsed: float,
        *,
        final: bool = True,
        tau: float = 0.0,
    ) -> list[SearchResult]:
        return [
            self._result(g, int(done[g]), elapsed, final, tau) for g in games.tolist()
        ]

    def _result(
        self, g: int, sims: int, elapsed: float, final: bool, tau: float
    ) -> SearchResult:
        t = self.tree
        visits_raw, sums = t.child_stats(g)
        visits = visits_raw.astype(np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            q = np.where(visits > 0, sums / visits, np.nan)
        total = int(visits.sum())
        prior = t.prior[g, 0]
        if total > 0:
            pi = visits / total
            rng = self._rngs[g] if final else None
            move = choose_move(visits, tau if final else 0.0, rng)
        else:
            legal = np.isfinite(prior)
            pi = np.where(legal, prior, 0.0).astype(np.float64)
            pi /= max(pi.sum(), 1e-12)
            move = int(np.argmax(np.where(legal, prior, -1.0)))
        pruned = None
        if total > 0 and self._forcing and self._forced_games[g]:
            explore = float(t.explore[g, 0])
            pruned = prune_forced(
                visits_raw, np.nan_to_num(q), prior, explore, self._forced_k
            )
            pi = pruned / pruned.sum()
        value = t.node_value(g)
        threshold = self.config.resign_threshold
        resign = False
        if threshold is not None and total > 0:
            best_q = float(q[int(np.argmax(visits))])
            resign = value < threshold and best_q < threshold
        return SearchResult(
            visits=visits,
            q=q,
            pi=pi,
            move=move,
            value=value,
            pv=t.principal_variation(g),
            num_simulations=sims,
            resign=resign,
            elapsed=elapsed,
            pruned_visits=pruned,
            scores=self._score_stats(g) if self.keeps_scores else None,
        )

    def _score_stats(self, g: int) -> ScoreStats:
        """Game g's tree margins as :class:`ScoreStats` (the root's side to move)."""
        t = self.tree
        kids = t.children[g, 0].astype(np.int64) + g * t.stride
        n = t.margin_visits_flat[kids]
        with np.errstate(invalid="ignore", divide="ignore"):
            leads = np.where(n > 0, t.margin_sums_flat[kids] / n, np.nan)
            second = t.margin_squares_flat[kids] / n
            stdevs = np.where(
                n > 0, np.sqrt(np.maximum(second - leads**2, 0.0)), np.nan
            )
        root = t.flat(g, 0)
        n_root = float(t.margin_visits_flat[root])
        if n_root <= 0:
            return ScoreStats(leads, stdevs, math.nan, math.nan)
        lead = -float(t.margin_sums_flat[root]) / n_root  # the chooser's view, negated
        spread = float(t.margin_squares_flat[root]) / n_root - lead * lead
        return ScoreStats(leads, stdevs, lead, math.sqrt(max(spread, 0.0)))

    # -- moving on -------------------------------------------------------------

    def _game(self, game: int) -> int:
        if isinstance(game, bool) or not isinstance(game, (int, np.integer)):
            raise TypeError(f"game must be an int, not {type(game).__name__}")
        if not 0 <= game < self.tree.games:
            raise ValueError(f"game must be in 0..{self.tree.games - 1}, not {game}")
        return int(game)

    def root_board(self, game: int = 0) -> goboard.Board:
        """A copy of game ``game``'s root position (with its history)."""
        return self.pool.board(self._game(game) * self.tree.capacity)

    def set_root(self, board: goboard.Board, game: int = 0) -> None:
        """Start game ``game`` afresh from ``board`` (its tree is discarded)."""
        g = self._game(game)
        if not isinstance(board, goboard.Board):
            raise TypeError("board must be a goboard.Board")
        self.pool.set_root(g, board)
        self.tree.reset(g)
        base = self.tree.flat(g, 0)
        self._pending[base : base + self.tree.stride] = False
        self._damaged[g] = False
        self._komi[g] = board.komi
        self._noise_saved[g] = None

    def advance(self, move: int, game: int = 0) -> None:
        """Play ``move`` at game ``game``'s root, keeping the subtree below it.

        The child's statistics, priors and descendants stay; everything else of that
        tree is dropped. An unexplored move starts a fresh tree.

        Raises:
            goboard.IllegalMoveError: the move is illegal at the root.
            ValueError: ``move`` outside 0..N*N.
            RuntimeError: a search step that raised left this tree half-updated
                (:meth:`set_root` starts afresh).
        """
        g = self._game(game)
        self._check_intact(np.array([g]))
        t = self.tree
        if isinstance(move, bool) or not isinstance(move, (int, np.integer)):
            raise TypeError(f"move must be an int, not {type(move).__name__}")
        if not 0 <= move < t.num_actions:
            raise ValueError(f"move must be in 0..{t.num_actions - 1}, not {move}")
        child = int(t.children[g, 0, move])
        self._noise_saved[g] = None
        if child <= 0:
            board = self.root_board(g)
            board.play(int(move))
            self.pool.set_root(g, board)
            t.reset(g)
            return
        mapping = self.pool.reroot(g, g * t.capacity + child)
        t.compact(g, mapping)

    def check(self, game: int = 0) -> None:
        """Raise AssertionError if a tree is inconsistent (see ``Tree.check``)."""
        strict = getattr(self, "expansion_threshold", 1) <= 1
        self.tree.check(self._game(game), strict=strict, scored=self.keeps_scores)
