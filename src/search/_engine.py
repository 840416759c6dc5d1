"""The search engine: G trees stepped in lock-step over one ``goboard.Pool``.

Each *step* walks ``leaves_per_batch`` paths down every active tree (virtual loss keeps
the walks of one tree apart), creates the new nodes' positions with one ``pool.expand``
call, evaluates all leaves with one evaluator call, and backs the values up. A
single-tree search is the G = 1 case of the same code. See :mod:`search.mcts` for the
three searches built on it, :mod:`search._step` for the walks, :mod:`search._roots` for
root handling and results.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

import goboard

from . import _step
from ._roots import RootsMixin, Seeds, as_boards, make_rngs
from ._step import Idx, ScoreFn, Walks
from .config import SearchConfig, UCTConfig, _Common
from .evaluator import (
    TRUSTED,
    ConcurrentRollouts,
    Evaluator,
    Positions,
    RolloutPolicy,
    ScoredEvaluator,
    ScoredOutput,
    check_output,
)
from .filters import MoveFilter, filter_legal
from .puct import forced_visits, ucb1_scores
from .result import SearchResult
from .tree import EXPANDED, TERMINAL, Tree

__all__ = ["MCTS", "Callback"]

Callback = Callable[[list[SearchResult]], None]
I64 = NDArray[np.int64]
_JITTER_ROWS = 64


def _per_game(name: str, values: object, games: int, kinds: str) -> NDArray[Any]:
    """``values`` checked as a 1-d array of one entry per game, of a numpy dtype kind
    in ``kinds`` ("iu": ints, "b": bools); int64 for ints."""
    array = np.asarray(values)
    if array.dtype.kind not in kinds or array.ndim != 1:
        what = "bools" if kinds == "b" else "ints"
        raise TypeError(f"{name} must be a sequence of {what}")
    if array.size != games:
        raise ValueError(f"{name} has {array.size} entries for {games} games")
    return array if kinds == "b" else array.astype(np.int64)


def _puct_scorer(t: Tree) -> ScoreFn:
    """PUCT scores [K, A] of the children of the nodes at flat ``rows``: exactly
    ``puct_scores``, operation for operation (so bit for bit), on the arrays the tree
    keeps for it (search.tree): ``prior * c_puct * sqrt(N_parent) / (1 + N) + Q``, the
    Q of an unvisited child (``N + 1 == 1``) the parent's first-play urgency."""
    n_rows, q_rows, prior_rows = t.edge_n_rows, t.edge_q_rows, t.prior_rows
    explore, fpu = t.explore_flat, t.fpu_flat

    def scores(rows: Idx, bases: Idx) -> NDArray[np.float64]:
        n1 = n_rows.take(rows, axis=0)
        n1 += 1.0  # visit counts are whole numbers: exact
        q = q_rows.take(rows, axis=0)
        u = prior_rows.take(rows, axis=0) * explore.take(rows)[:, None]
        u /= n1
        np.copyto(q, fpu.take(rows)[:, None], where=n1 == 1.0)
        u += q
        return u

    return scores


class MCTS(RootsMixin):
    """The search engine behind ``PUCT``, ``AlphaGo2016``, ``UCT`` (search.mcts) and
    ``Gumbel``.

    Args:
        evaluator: priors and values for leaves.
        roots: one board (a single tree) or a sequence of boards (one tree per game);
            all of one size. The boards are copied.
        config: limits and hyper-parameters.
        rng: randomness per game: a seed or Generator (spawned into one stream per game
            when there are several games; used as is for one game), or a sequence with
            one seed or Generator per game. Game g's stream drives only game g's noise
            and move choice, so G games searched together give the same results as G
            single-tree searches seeded alike.
        rule: ``"puct"`` or ``"ucb1"`` (``search.Gumbel`` adds ``"gumbel"``).
        rollout: rollout policy whose values are mixed into leaf values by
            ``mix_lambda``.
        mix_lambda: weight of the rollout value.
        expansion_threshold: a leaf gets its priors on this visit.
        scores: keep final-score estimates in the tree (``SearchResult.scores``):
            the evaluator must be a :class:`search.ScoredEvaluator` (TypeError here
            if it has no ``evaluate_scored``; one that cannot score, such as a
            network without an ownership head, raises at the first search). The
            search's moves do not change.
    """

    #: The config type each selection rule needs (a subclass supplying its own
    #: selection adds its rule).
    _rules: ClassVar[dict[str, type[_Common]]] = {
        "puct": SearchConfig,
        "ucb1": UCTConfig,
    }

    def __init__(
        self,
        evaluator: Evaluator,
        roots: goboard.Board | Sequence[goboard.Board],
        config: _Common,
        rng: Seeds = None,
        *,
        rule: str = "puct",
        rollout: RolloutPolicy | None = None,
        mix_lambda: float = 0.0,
        expansion_threshold: int = 1,
        scores: bool = False,
    ) -> None:
        if not isinstance(config, _Common):
            raise TypeError(
                "config must be a SearchConfig, AlphaGo2016Config, UCTConfig or "
                "GumbelConfig"
            )
        wanted = self._rules.get(rule)
        if wanted is None:
            raise ValueError(f"rule must be one of {sorted(self._rules)}, not {rule!r}")
        if not isinstance(config, wanted):
            raise TypeError(f"rule {rule!r} needs a {wanted.__name__}")
        if not hasattr(evaluator, "evaluate"):
            raise TypeError("evaluator must have an evaluate(positions) method")
        self._evaluate_scored: Callable[[Positions], ScoredOutput] | None = None
        if scores:
            if not isinstance(evaluator, ScoredEvaluator):
                raise TypeError(
                    "scores=True needs an evaluator with evaluate_scored(positions) "
                    "(search.ScoredEvaluator)"
                )
            self._evaluate_scored = evaluator.evaluate_scored
        boards = as_boards(roots)
        self.config = config
        self.evaluator = evaluator
        self.rule = rule
        self.rollout = rollout
        self.mix_lambda = float(mix_lambda)
        self.expansion_threshold = int(expansion_threshold)
        self.keeps_scores = bool(scores)
        # Per game, the komi the evaluators' area differences are counted less.
        self._komi = np.array([b.komi for b in boards], dtype=np.float64)
        self._leaf_margins: NDArray[np.float64] | None = None  # of the last leaves
        capacity = config.capacity()
        self.pool = goboard.Pool(boards, capacity)
        size = int(self.pool.size)
        puct = config if isinstance(config, SearchConfig) else None
        self._c_puct = puct.c_puct if puct else 0.0
        self._fpu = puct.fpu_reduction if puct else 0.0
        self.tree = Tree(
            len(boards),
            capacity,
            size * size + 1,
            c_puct=self._c_puct,
            fpu_reduction=self._fpu,
        )
        self._rngs = make_rngs(rng, len(boards))
        self._noise_saved: list[NDArray[np.float32] | None] = [None] * len(boards)
        self._stop = threading.Event()
        self._pending = np.zeros(self.tree.visits_flat.shape[0], dtype=np.bool_)
        self._damaged = np.zeros(len(boards), dtype=np.bool_)
        # This package's evaluators answer valid numbers by construction.
        self._trusted = type(evaluator) in TRUSTED
        self._scores: ScoreFn = _puct_scorer(self.tree)
        self._jitter: NDArray[np.float64] | None = None
        if rule == "ucb1":
            self._scores = self._ucb1_scores
            self._jitter = np.stack(
                [r.random((_JITTER_ROWS, self.tree.num_actions)) for r in self._rngs]
            ).reshape(-1, self.tree.num_actions)
        self._noise = puct.dirichlet_fraction if puct else 0.0
        self._alpha = puct.dirichlet_alpha if puct else 0.0
        # Forced playouts (KataGo): only at roots searched with noise, so only when
        # the config has noise; games flagged in _forced_games for the current run.
        self._forcing = bool(puct and puct.forced_playouts and rule == "puct")
        self._forcing = self._forcing and self._noise > 0.0
        self._forced_k = puct.forced_k if puct else 0.0
        self._forced_games = np.zeros(len(boards), dtype=np.bool_)
        if self._forcing:
            self._scores = self._forced_scorer(self._scores)
        self._exploration = config.exploration if isinstance(config, UCTConfig) else 0.0
        self._filters: list[tuple[MoveFilter, ...]] = [()] * len(boards)
        self._filtered = False

    @property
    def games(self) -> int:
        """G, the number of trees."""
        return self.tree.games

    def set_move_filters(self, filters: Sequence[MoveFilter], game: int = 0) -> None:
        """Restrict the moves of game ``game``'s searches (``avoid``/``allow``, see
        :mod:`search.filters`); an empty sequence lifts them.

        A change of filters starts that game's tree afresh from its root, since nodes
        searched under other filters would carry visits to moves now excluded.
        """
        g = self._game(game)
        new = tuple(filters)
        for f in new:
            if not isinstance(f, MoveFilter):
                raise TypeError("filters must be search.MoveFilter values")
            if any(m >= self.tree.num_actions for m in f.moves):
                raise ValueError(f"filter moves must be < {self.tree.num_actions}")
        if new == self._filters[g]:
            return
        self._filters[g] = new
        self._filtered = any(self._filters)
        self.set_root(self.root_board(g), g)

    def move_filters(self, game: int = 0) -> tuple[MoveFilter, ...]:
        """The filters game ``game``'s searches use."""
        return self._filters[self._game(game)]

    def _without_own_eyes(
        self, pos: I64, legal: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        """``legal`` without the moves that fill the mover's own true eyes (pass is
        kept, so a node whose only moves were eye fills passes)."""
        slots = pos - pos // self.tree.stride  # flat g*(M+1)+i is slot g*M+i
        eyes = self.pool.eye_masks(slots)
        if not eyes.any():
            return legal
        return legal & ~eyes

    def _apply_filters(self, pos: I64, legal: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """``legal`` restricted by each node's game filters (see search.filters)."""
        t = self.tree
        games = pos // t.stride
        node = pos - games * t.stride
        out = legal
        for g in np.unique(games).tolist():
            filters = self._filters[g]
            if not filters:
                continue
            rows = np.flatnonzero(games == g)
            depth = np.zeros(rows.size, dtype=np.int64)
            cur = node[rows].copy()
            for _ in range(max(f.until_depth for f in filters)):
                up = t.parent[g, cur]
                moved = up >= 0
                if not moved.any():
                    break
                depth += moved
                cur = np.where(moved, up, cur)
            to_play = self.pool.to_play(pos[rows] - g)  # flat g*(M+1)+i is slot g*M+i
            if out is legal:
                out = legal.copy()
            out[rows] = filter_legal(legal[rows], depth, to_play, filters)
        return out

    def stop(self) -> None:
        """Ask the running search to stop after its current step (thread-safe)."""
        self._stop.set()

    # -- the search loop -------------------------------------------------------

    def run(
        self,
        games: Sequence[int] | None = None,
        *,
        simulations: Sequence[int] | NDArray[np.integer[Any]] | None = None,
        root_noise: Sequence[bool] | NDArray[np.bool_] | None = None,
        callback: Callback | None = None,
        every: int | None = None,
        every_seconds: float | None = None,
        stop_event: threading.Event | None = None,
        temperature: float | None = None,
    ) -> list[SearchResult]:
        """Search the roots of ``games`` (default: all) and return one result each.

        The search of a game ends after its simulations (``num_simulations``, or its
        entry of ``simulations``), when its tree is full, or (``early_stop``, final
        temperature 0) once no simulation left could change its move; all end at
        ``time_limit``, on :meth:`stop` (which also clears at the start of a run) or
        when ``stop_event`` is set.

        Args:
            games: which trees to search (distinct indices; their games must not be
                over).
            simulations: one budget (>= 1) per game of ``games``, in their order, in
                place of ``num_simulations``: games searched in lock-step with
                different budgets (self-play's playout cap randomisation). A budget
                above ``num_simulations`` may fill the tree first.
            root_noise: one flag per game of ``games``: False searches that root
                without Dirichlet noise this run (default: the config's noise for
                all; searches without root noise ignore it).
            callback: called between steps with the current results of ``games`` (the
                moves in them are the most visited, not sampled).
            every: call back after at least this many simulations (all games together).
            every_seconds: call back after at least this many seconds.
            stop_event: another way to stop the search from another thread.
            temperature: overrides ``config.temperature`` for the final move choice.

        Raises:
            ValueError: a bad game index, a game that is over, or a budget < 1.
            TypeError, ValueError: ``simulations`` or ``root_noise`` not one int
                (bool) per game.
            RuntimeError: an earlier run raised in the middle of a step (the
                evaluator's error, say) and left a game's tree half-updated, its
                virtual loss not taken back; :meth:`set_root` starts it afresh.
        """
        start = time.monotonic()
        chosen = self._check_games(games)
        self._check_intact(chosen)
        self._stop.clear()
        cfg = self.config
        deadline = None if cfg.time_limit is None else start + cfg.time_limit
        budgets = np.full(chosen.size, cfg.num_simulations, dtype=np.int64)
        if simulations is not None:
            budgets = _per_game("simulations", simulations, chosen.size, "iu")
            if budgets.size and budgets.min() < 1:
                raise ValueError(f"simulations must be >= 1, not {budgets.min()}")
        noise = np.ones(chosen.size, dtype=np.bool_)
        if root_noise is not None:
            noise = _per_game("root_noise", root_noise, chosen.size, "b")
        self._prepare_roots(chosen, budgets, noise)
        if self._forcing:
            self._forced_games[:] = False
            self._forced_games[chosen[noise]] = True
        budget = np.zeros(self.games, dtype=np.int64)
        budget[chosen] = budgets
        remaining = budget.copy()
        since_sims, since_time = 0, start
        active = chosen[self._has_room(chosen)]
        left = remaining[active]  # remaining simulations of the active games
        capacity = self.tree.capacity
        stop_flag = self._stop
        tau = cfg.temperature if temperature is None else float(temperature)
        early = cfg.early_stop and tau <= 1e-3  # choose_move's argmax
        while active.size:
            if stop_flag.is_set() or (stop_event is not None and stop_event.is_set()):
                break
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                break
            if callback is not None and (
                (every is not None and since_sims >= every)
                or (every_seconds is not None and now - since_time >= every_seconds)
            ):
                remaining[active] = left
                done = budget - remaining
                callback(self._results(chosen, done, now - start, final=False))
                since_sims, since_time = 0, now
            try:
                sims = self._step(active, left)
            except BaseException:
                self._damaged[active] = True  # refuse these trees until set_root
                raise
            left -= sims
            if callback is not None:
                since_sims += int(sims.sum())
            decided = None
            if early:
                done_now = budget[active] - left
                decided = self._decided(active, left, done_now, start, deadline)
            if (
                left.min() <= 0
                or self.tree.num_nodes[active].max() >= capacity
                or (decided is not None and decided.any())
            ):
                remaining[active] = left
                keep = (left > 0) & self._has_room(active)
                if decided is not None:
                    keep &= ~decided
                active, left = active[keep], left[keep]
        remaining[active] = left
        done = budget - remaining
        return self._results(chosen, done, time.monotonic() - start, tau=tau)

    def search(
        self,
        *,
        callback: Callback | None = None,
        every: int | None = None,
        every_seconds: float | None = None,
        stop_event: threading.Event | None = None,
        temperature: float | None = None,
    ) -> SearchResult:
        """Search a single-game tree; arguments as for :meth:`run`."""
        if self.games != 1:
            raise ValueError("search() is for one game; use run() for several")
        return self.run(
            callback=callback,
            every=every,
            every_seconds=every_seconds,
            stop_event=stop_event,
            temperature=temperature,
        )[0]

    def _forced_scorer(self, plain: ScoreFn) -> ScoreFn:
        """``plain`` with forced playouts at the roots of the games flagged in
        ``_forced_games``: a child with visits but fewer than
        :func:`search.puct.forced_visits` scores above every unforced child (by
        1e9, so the forced ones keep their PUCT order among themselves)."""
        t = self.tree
        flags, k = self._forced_games, self._forced_k

        def scores(rows: Idx, bases: Idx) -> NDArray[np.float64]:
            u = plain(rows, bases)
            at_root = rows == bases
            if not at_root.any():
                return u
            at_root &= flags[bases // t.stride]
            picked = np.flatnonzero(at_root)
            if picked.size == 0:
                return u
            r = rows[picked]
            n = t.edge_n_rows.take(r, axis=0)
            need = forced_visits(t.prior_rows.take(r, axis=0), n.sum(axis=1), k)
            force = (n > 0.0) & (n < need)
            u[picked] += np.where(force, 1e9, 0.0)
            return u

        return scores

    def _decided(
        self, games: I64, left: I64, done: I64, start: float, deadline: float | None
    ) -> NDArray[np.bool_]:
        """Which of ``games`` (the config's ``early_stop``) cannot change their move:
        the most visited root child leads every other by more than the simulations
        the game may still get, ``left`` or, under a deadline, what the time left
        allows at the game's pace so far (at least one more step while time is
        left). The leader then stays the only argmax.

        A leading pass never decides: a player may replace a pass by the most
        visited other move (alphago.player.pass_rules does before the opponent has
        passed), so the visits of the runners-up still count."""
        t = self.tree
        bases = games * t.stride
        kids = t.children[games, 0].astype(np.int64) + bases[:, None]
        visits = t.visits_flat[kids]  # a missing child reads a zeroed sentinel
        top2 = np.partition(visits, -2, axis=1)[:, -2:]
        lead = top2[:, 1] - top2[:, 0]
        may_get = left.astype(np.float64)
        if deadline is not None:
            now = time.monotonic()
            pace = done / max(now - start, 1e-9)
            in_time = pace * max(deadline - now, 0.0)
            if now < deadline:  # the loop runs one more step before it checks
                in_time = np.maximum(in_time, self.config.leaves_per_batch)
            may_get = np.minimum(may_get, in_time)
        pass_leads = visits[:, -1] >= top2[:, 1]
        return np.asarray((lead > may_get) & ~pass_leads)

    def _has_room(self, games: I64) -> NDArray[np.bool_]:
        return np.asarray(self.tree.num_nodes[games] < self.tree.capacity)

    def _ucb1_scores(self, rows: Idx, bases: Idx) -> NDArray[np.float64]:
        """UCB1 scores [K, A] of the children of the nodes at flat ``rows`` (their
        roots at ``bases``)."""
        t = self.tree
        assert self._jitter is not None
        pos = t.children_rows.take(rows, axis=0) + bases[:, None]
        visits = t.visits_flat.take(pos)
        sums = t.value_sums_flat.take(pos)
        parent_visits = t.visits_flat.take(rows)
        node = rows - bases
        games = bases // t.stride
        jitter = self._jitter[games * _JITTER_ROWS + node % _JITTER_ROWS]
        c = self._exploration
        return ucb1_scores(
            t.prior_rows.take(rows, axis=0), visits, sums, parent_visits, c, jitter
        )

    def _step(self, active: I64, remaining: I64) -> I64:
        """One step for ``active`` games; returns simulations done per active game."""
        t = self.tree
        rounds = self.config.leaves_per_batch
        vl = self.config.virtual_loss if rounds > 1 else 0
        pending = self._pending
        walks: list[Walks] = []
        # Every game takes part in every round when each has simulations and room
        # left for all of them (one node per round at most); else check each round.
        everyone = (
            remaining.min() >= rounds
            and t.num_nodes[active].max() + rounds <= t.capacity
        )
        for r in range(rounds):
            games = active
            if r > 0 and not everyone:
                games = active[(remaining > r) & self._has_room(active)]
                if games.size == 0:
                    break
            w = _step.select(t, games, self._scores, pending, self.expansion_threshold)
            if vl:
                _step.add_virtual_loss(t, w, vl)
            walks.append(w)
        batch = _step.merge(walks)
        self._create_nodes(batch)
        values, margins = self._evaluate(batch)
        _step.backup(t, batch, values, vl, margins)
        pending[batch.leaf] = False
        if len(walks) == 1 and batch.all_eval:
            return np.ones(active.size, dtype=np.int64)
        real = batch.kind != _step.COLLISION
        return np.bincount(batch.games[real], minlength=t.games)[active]

    def _create_nodes(self, w: Walks) -> None:
        """Positions for the new nodes (one pool call); mark finished games."""
        if w.new_child.size == 0:
            return
        children = w.new_child
        self.pool.expand(w.new_parent, w.new_action, children)
        # Only a pass can end a game (the second of two in a row).
        passed = w.new_action == self.tree.num_actions - 1
        if not passed.any():
            return
        candidates = children[passed]
        over = self.pool.is_over(candidates)
        if not over.any():
            return
        t = self.tree
        m = t.capacity
        ended = candidates[over]
        outcome = np.sign(self.pool.scores(ended)) * self.pool.to_play(ended)
        pos = (ended // m) * t.stride + ended % m
        t.state_flat[pos] = TERMINAL
        t.terminal_value_flat[pos] = outcome
        hit = (w.kind == _step.NEW) & (t.state_flat[w.leaf] == TERMINAL)
        w.kind[hit] = _step.TERMINAL_LEAF
        w.expand[hit] = False
        w.all_eval = w.all_expand = False

    def _evaluate(
        self, w: Walks
    ) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
        """Leaf values (leaf's side to move) per walk, and with ``keeps_scores`` their
        margins [K, 2] (:func:`_step.backup`); priors stored where expanding."""
        if w.all_eval:
            values = self._leaf_values(w.leaf, w.slots, w.expand, w.all_expand)
            return values, self._leaf_margins
        kind = w.kind
        evaluate = kind <= _step.OLD
        values = np.zeros(kind.shape[0], dtype=np.float64)
        term = kind == _step.TERMINAL_LEAF
        values[term] = self.tree.terminal_value_flat[w.leaf[term]]
        margins = np.zeros((kind.shape[0], 2)) if self.keeps_scores else None
        if margins is not None and term.any():
            counted = self.pool.scores(w.slots[term]) * self.pool.to_play(w.slots[term])
            margins[term] = np.stack([counted, counted * counted], axis=1)
        if evaluate.any():
            values[evaluate] = self._leaf_values(
                w.leaf[evaluate], w.slots[evaluate], w.expand[evaluate], False
            )
            if margins is not None:
                margins[evaluate] = self._leaf_margins
        return values, margins

    def _leaf_values(
        self, pos: I64, slots: I64, expand: NDArray[np.bool_], all_expand: bool
    ) -> NDArray[np.float64]:
        """Evaluate nodes at flat ``pos`` (pool ``slots``); give priors to those flagged
        ``expand`` (all of them if ``all_expand``)."""
        t = self.tree
        positions = Positions._unchecked(self.pool, slots)
        rollout = self.rollout if self.mix_lambda > 0.0 else None
        later = None  # rollouts playing while the network evaluates
        if isinstance(rollout, ConcurrentRollouts):
            later = rollout.values_later(positions)
        try:
            if self.keeps_scores:
                priors, values = self._scored(positions, slots)
            else:
                priors, values = check_output(
                    self.evaluator.evaluate(positions),
                    pos.shape[0],
                    t.num_actions,
                    trusted=self._trusted,
                )
        except BaseException:
            if later is not None:
                later()  # no rollout may still read the pool once the search goes on
            raise
        v = values.astype(np.float64)
        if rollout is not None:
            z = later() if later is not None else rollout.values(positions)
            v = (1.0 - self.mix_lambda) * v + self.mix_lambda * z.astype(np.float64)
        if all_expand:
            self._store_priors(pos, priors, positions.legal_masks())
        elif expand.any():
            legal = positions.legal_masks()[expand]
            self._store_priors(pos[expand], priors[expand], legal)
        return v

    def _scored(
        self, positions: Positions, slots: I64
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """``evaluate_scored``'s priors and values; its margins (komi counted, the
        leaves' side to move) and second moments go to ``_leaf_margins``."""
        assert self._evaluate_scored is not None
        answer = self._evaluate_scored(positions)
        if not isinstance(answer, tuple) or len(answer) != 4:
            raise TypeError(
                "evaluate_scored must return (priors, values, areas, variances)"
            )
        priors, values = check_output(
            answer[:2], len(positions), self.tree.num_actions, trusted=self._trusted
        )
        areas = np.asarray(answer[2], dtype=np.float64)
        variances = np.asarray(answer[3], dtype=np.float64)
        if areas.shape != values.shape or variances.shape != values.shape:
            raise ValueError("evaluate_scored's areas and variances must be [B]")
        if not (np.isfinite(areas).all() and np.isfinite(variances).all()):
            raise ValueError("evaluate_scored gave a non-finite area or variance")
        if (variances < 0).any():
            raise ValueError("evaluate_scored gave a variance < 0")
        komi = self._komi[slots // self.tree.capacity]
        margins = areas - komi * self.pool.to_play(slots)
        self._leaf_margins = np.stack([margins, variances + margins * margins], axis=1)
        return priors, values

    def _store_priors(
        self, pos: I64, priors: NDArray[np.float32], legal: NDArray[np.bool_]
    ) -> None:
        if not self.config.fill_own_eyes:
            legal = self._without_own_eyes(pos, legal)
        if self._filtered:
            legal = self._apply_filters(pos, legal)
        p = priors * legal
        total = p.sum(axis=1, keepdims=True)
        if total.min() <= 0:  # no weight on any legal move: uniform over the legal ones
            flat = total[:, 0] <= 0
            p[flat] = legal[flat]
            total[flat] = np.maximum(legal[flat].sum(axis=1, keepdims=True), 1)
        p /= total
        self.tree.prior_rows[pos] = np.where(legal, p, -np.inf)
        self.tree.state_flat[pos] = EXPANDED
