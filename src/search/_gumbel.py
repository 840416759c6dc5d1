"""The Gumbel search on the lock-step engine (formulas in :mod:`search.gumbel`).

Per game and search call, the root draws Gumbel noise ``g``, keeps the ``m`` best
legal moves by ``g + logits`` and runs sequential halving over them: the walks of a
phase go round the moves still in play (fewest new visits first, ties to the better
score at the phase's start), and once every one has its visits for the phase, all of
them backed up, the better half by ``g + logits + sigma(completed Q)`` goes on. Below
the root a walk takes ``argmax pi'(a) - N(a) / (1 + sum_b N(b))``, ``pi'`` the node's
improved policy; pending walks' virtual visits count in ``N`` there, which spreads the
walks of one step.

A phase ends only on backed-up values, so a game whose phase has no visit left to hand
out sits out the rest of a step (its evaluator slots go unused). A walk that collides
with an earlier one of the same step gives its root visit back to the phase.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

import goboard

from . import _step
from ._engine import MCTS, Callback
from ._roots import Seeds
from ._step import Idx
from .config import GumbelConfig, _Common
from .evaluator import Evaluator, RolloutPolicy
from .gumbel import completed_q, halving_phases, improved_policy, log_prior, sigma_q
from .result import SearchResult

__all__ = ["Gumbel"]

I64 = NDArray[np.int64]
#: The last phase's target: it runs until the budget is spent.
_UNBOUNDED = np.iinfo(np.int64).max


class Gumbel(MCTS):
    """Gumbel search (see :class:`search.GumbelConfig` and this module).

    Its results' ``pi`` and ``improved_policy`` are both the improved policy (the
    training target) and ``move`` is the sequential-halving winner: the best by ``g +
    logits + sigma(completed Q)`` among the moves still in play, only those visited in
    the current phase if the budget ran out before the others' turn (so one
    simulation plays the best by ``g + logits``). Arguments as for
    :class:`search.PUCT`; game g's noise comes from game g's stream alone, so G games
    searched together give the same results as G single-game searches seeded alike.
    With ``config.mix_lambda`` > 0, ``rollout`` (a :class:`search.RolloutPolicy`, such
    as :class:`search.PatternRollouts`) plays each leaf out and its outcome is mixed
    into the leaf's value, which is then also completed Q's ``v_hat``.
    """

    _rules: ClassVar[dict[str, type[_Common]]] = {"gumbel": GumbelConfig}

    def __init__(
        self,
        evaluator: Evaluator,
        roots: goboard.Board | Sequence[goboard.Board],
        config: GumbelConfig | None = None,
        rng: Seeds = None,
        rollout: RolloutPolicy | None = None,
        *,
        scores: bool = False,
    ) -> None:
        config = GumbelConfig() if config is None else config
        if not isinstance(config, GumbelConfig):
            raise TypeError("Gumbel needs a GumbelConfig")
        if config.mix_lambda > 0.0 and rollout is None:
            raise ValueError("mix_lambda > 0 needs a rollout policy to mix in")
        super().__init__(
            evaluator,
            roots,
            config,
            rng,
            rule="gumbel",
            rollout=rollout,
            mix_lambda=config.mix_lambda,
            scores=scores,
        )
        self._gumbel = config
        g, a = self.tree.games, self.tree.num_actions
        # Per game, for the current search: g + logits at the root (-inf: illegal),
        # the score that orders the moves within a phase (-inf: out of play), the
        # moves in play, walks sent to each this search, the phase's target of new
        # visits per move and the one it started from, and the phase's index.
        self._base = np.full((g, a), -np.inf)
        self._rank = np.full((g, a), -np.inf)
        self._alive = np.zeros((g, a), dtype=np.bool_)
        self._sent = np.zeros((g, a), dtype=np.int64)
        self._target = np.zeros(g, dtype=np.int64)
        self._floor = np.zeros(g, dtype=np.int64)
        self._phase = np.zeros(g, dtype=np.int64)
        self._targets: list[list[int]] = [[] for _ in range(g)]
        self._pick = np.zeros(g, dtype=np.int64)  # the root move of each game's walk
        self._scores = self._gumbel_scores

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
        """As :meth:`search.MCTS.run` (the halving phases follow each game's
        budget; ``root_noise`` has no Dirichlet noise to turn off here); a positive
        ``temperature`` is refused (the Gumbel noise samples the move)."""
        if temperature:
            raise ValueError("Gumbel takes no temperature; see gumbel_scale")
        return super().run(
            games,
            simulations=simulations,
            root_noise=root_noise,
            callback=callback,
            every=every,
            every_seconds=every_seconds,
            stop_event=stop_event,
        )

    # -- selection -------------------------------------------------------------

    def _gumbel_scores(self, rows: Idx, bases: Idx) -> NDArray[np.float64]:
        """Scores [K, A] of the children of flat ``rows``: at the roots, the move
        sequential halving hands each walk; below, the improved policy's rule."""
        t = self.tree
        k = rows.shape[0]
        if rows[0] == bases[0]:  # walks move down together: all at their roots
            out = np.full((k, t.num_actions), -np.inf)
            out[np.arange(k), self._pick[bases // t.stride]] = 0.0
            return out
        prior = t.prior_rows.take(rows, axis=0)
        visits = t.edge_n_rows.take(rows, axis=0)
        cfg = self._gumbel
        policy = improved_policy(
            prior,
            visits,
            t.edge_q_rows.take(rows, axis=0),
            t.net_value_flat.take(rows),
            cfg.c_visit,
            cfg.c_scale,
        )
        policy -= visits / (1.0 + visits.sum(axis=1, keepdims=True))
        return np.where(np.isfinite(prior), policy, -np.inf)

    def _root_scores(self, g: int) -> NDArray[np.float64]:
        """``g + logits + sigma(completed Q)`` [A] at game g's root."""
        t, cfg = self.tree, self._gumbel
        row = np.array([t.flat(g, 0)])
        prior = t.prior_rows[row]
        visits = t.edge_n_rows[row]
        cq = completed_q(prior, visits, t.edge_q_rows[row], t.net_value_flat[row])
        sigma = sigma_q(cq, visits, cfg.c_visit, cfg.c_scale)[0]
        return np.asarray(self._base[g] + sigma, dtype=np.float64)

    def _next_moves(self, games: I64) -> tuple[I64, NDArray[np.bool_]]:
        """Each game's next root move and whether its phase has one left."""
        alive, sent = self._alive[games], self._sent[games]
        open_ = alive & (sent < self._target[games][:, None])
        least = np.where(open_, sent, _UNBOUNDED).min(axis=1)
        ready = open_ & (sent == least[:, None])
        pick = np.where(ready, self._rank[games], -np.inf).argmax(axis=1)
        return pick.astype(np.int64), np.asarray(open_.any(axis=1))

    def _halve(self, games: I64) -> None:
        """Move the games whose phase is complete on to their next phase."""
        short = self._alive[games] & (self._sent[games] < self._target[games][:, None])
        for g in games[~short.any(axis=1)].tolist():
            score = np.where(self._alive[g], self._root_scores(g), -np.inf)
            keep = -(-int(self._alive[g].sum()) // 2)
            best = np.argsort(-score, kind="stable")[:keep]
            self._alive[g] = False
            self._alive[g, best] = True
            self._rank[g] = np.where(self._alive[g], score, -np.inf)
            self._phase[g] += 1
            self._floor[g] = self._target[g]
            self._target[g] = self._targets[g][int(self._phase[g])]

    # -- the engine's hooks ----------------------------------------------------

    def _prepare_roots(
        self, games: I64, budgets: I64, noise: NDArray[np.bool_]
    ) -> None:
        """Evaluate the roots, draw the noise, choose the moves and plan the phases
        (each game's by its own budget)."""
        super()._prepare_roots(games, budgets, noise)
        t, cfg = self.tree, self._gumbel
        prior = t.prior[games, 0]
        noise = np.stack([self._rngs[g].gumbel(size=t.num_actions) for g in games])
        base = log_prior(prior) + cfg.gumbel_scale * noise  # -inf stays -inf
        considered = np.minimum(cfg.considered_actions, np.isfinite(prior).sum(axis=1))
        order = np.argsort(-base, axis=1, kind="stable")
        place = np.empty_like(order)
        np.put_along_axis(place, order, np.arange(t.num_actions)[None], axis=1)
        alive = place < considered[:, None]
        self._base[games] = base
        self._alive[games] = alive
        self._rank[games] = np.where(alive, base, -np.inf)
        self._sent[games] = 0
        self._phase[games] = 0
        self._floor[games] = 0
        for g, n, m in zip(
            games.tolist(), budgets.tolist(), considered.tolist(), strict=True
        ):
            visits = np.cumsum([k for _, k in halving_phases(n, m)])
            self._targets[g] = [*visits[:-1].tolist(), int(_UNBOUNDED)]
            self._target[g] = self._targets[g][0]

    def _leaf_values(
        self, pos: I64, slots: I64, expand: NDArray[np.bool_], all_expand: bool
    ) -> NDArray[np.float64]:
        values = super()._leaf_values(pos, slots, expand, all_expand)
        self.tree.net_value_flat[pos] = values  # v_hat of completed Q
        return values

    def _step(self, active: I64, remaining: I64) -> I64:
        """One step for ``active`` games (as ``MCTS._step``, with the root's moves
        handed out by sequential halving)."""
        t = self.tree
        self._halve(active)
        rounds = self.config.leaves_per_batch
        vl = self.config.virtual_loss if rounds > 1 else 0
        pending = self._pending
        walks: list[_step.Walks] = []
        for r in range(rounds):
            pick, has_move = self._next_moves(active)
            go = has_move & (remaining > r) & self._has_room(active)
            games = active[go]
            if games.size == 0:
                break
            pick = pick[go]
            self._pick[games] = pick
            self._sent[games, pick] += 1
            w = _step.select(t, games, self._scores, pending, 1)
            lost = w.games[w.kind == _step.COLLISION]
            self._sent[lost, self._pick[lost]] -= 1
            if vl:
                _step.add_virtual_loss(t, w, vl)
            walks.append(w)
        batch = _step.merge(walks)
        self._create_nodes(batch)
        values, margins = self._evaluate(batch)
        _step.backup(t, batch, values, vl, margins)
        pending[batch.leaf] = False
        real = batch.kind != _step.COLLISION
        return np.bincount(batch.games[real], minlength=t.games)[active]

    def _result(
        self, g: int, sims: int, elapsed: float, final: bool, tau: float
    ) -> SearchResult:
        # The base result without its move choice (which would draw from the rng).
        result = super()._result(g, sims, elapsed, False, 0.0)
        t, cfg = self.tree, self._gumbel
        row = np.array([t.flat(g, 0)])
        policy = improved_policy(
            t.prior_rows[row],
            t.edge_n_rows[row],
            t.edge_q_rows[row],
            t.net_value_flat[row],
            cfg.c_visit,
            cfg.c_scale,
        )[0]
        alive = self._alive[g]
        furthest = alive & (self._sent[g] > self._floor[g])
        finalists = furthest if furthest.any() else alive
        move = int(np.where(finalists, self._root_scores(g), -np.inf).argmax())
        return replace(result, pi=policy, move=move, improved_policy=policy)
