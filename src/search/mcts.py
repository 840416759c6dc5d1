"""Monte Carlo tree search over goboard: one engine, four searches.

:class:`MCTS` runs G independent trees in lock-step (G = 1 is the single-tree search:
the same code). Each *step* walks ``leaves_per_batch`` paths down every active tree
(virtual loss keeps the walks of one tree apart), creates the new nodes' positions with
one ``pool.expand`` call, evaluates all leaves with one evaluator call, and backs the
values up. The trees live in :class:`search.tree.Tree` arrays and the positions in a
``goboard.Pool`` (node i of game g is slot ``g * M + i``); no Python object exists per
node.

The searches differ in the selection rule and the leaf value:

- :class:`PUCT` (AlphaGo Zero): PUCT scores, the evaluator's value, Dirichlet noise at
  the root.
- :class:`AlphaGo2016`: PUCT scores; a node gets its priors after
  ``expansion_threshold`` visits; leaf value ``(1 - lambda) * v + lambda * z``, ``z``
  from a rollout evaluator (random C playouts by default).
- :class:`UCT`: UCB1 over random rollouts, unvisited moves first.
- :class:`Gumbel` (Danihelka et al. 2022): sequential halving over Gumbel-sampled root
  moves, the improved policy's deterministic rule below (search._gumbel).

Finished games inside the tree are scored by the rules (the sign of the Tromp-Taylor
score from the side to move), never by the evaluator.
"""

from __future__ import annotations

from collections.abc import Sequence

import goboard

from ._engine import MCTS, Callback
from ._gumbel import Gumbel
from ._roots import Seeds, as_boards, make_rngs
from .config import AlphaGo2016Config, GumbelConfig, SearchConfig, UCTConfig, _Common
from .evaluator import Evaluator, RolloutEvaluator, RolloutPolicy, UniformEvaluator
from .result import SearchResult

__all__ = ["MCTS", "PUCT", "UCT", "AlphaGo2016", "Callback", "Gumbel", "run_search"]


class PUCT(MCTS):
    """AlphaGo Zero search: PUCT selection, the evaluator's values, root noise.

    ``scores=True`` keeps final-score estimates in the tree (``SearchResult.scores``;
    the evaluator must be a :class:`search.ScoredEvaluator`); so do AlphaGo2016's and
    Gumbel's.
    """

    def __init__(
        self,
        evaluator: Evaluator,
        roots: goboard.Board | Sequence[goboard.Board],
        config: SearchConfig | None = None,
        rng: Seeds = None,
        *,
        scores: bool = False,
    ) -> None:
        config = SearchConfig() if config is None else config
        if type(config) is not SearchConfig:
            raise TypeError("PUCT needs a SearchConfig")
        super().__init__(evaluator, roots, config, rng, scores=scores)


class AlphaGo2016(MCTS):
    """AlphaGo (2016): lazy expansion and value/rollout mixing (see the config).

    ``rollout`` is the rollout policy (:class:`search.RolloutPolicy`); by default
    uniform random C playouts, ``rollouts_per_leaf`` per leaf, seeded from ``rng``.
    """

    def __init__(
        self,
        evaluator: Evaluator,
        roots: goboard.Board | Sequence[goboard.Board],
        config: AlphaGo2016Config | None = None,
        rng: Seeds = None,
        rollout: RolloutPolicy | None = None,
        *,
        scores: bool = False,
    ) -> None:
        config = AlphaGo2016Config() if config is None else config
        if not isinstance(config, AlphaGo2016Config):
            raise TypeError("AlphaGo2016 needs an AlphaGo2016Config")
        boards = as_boards(roots)
        rngs = make_rngs(rng, len(boards))
        if rollout is None:
            seed = int(rngs[0].integers(2**63))
            rollout = RolloutEvaluator(config.rollouts_per_leaf, seed)
        super().__init__(
            evaluator,
            boards,
            config,
            rngs,
            rollout=rollout,
            mix_lambda=config.mix_lambda,
            expansion_threshold=config.expansion_threshold,
            scores=scores,
        )


class UCT(MCTS):
    """Plain UCT: UCB1 selection over random-rollout values (the baseline)."""

    def __init__(
        self,
        roots: goboard.Board | Sequence[goboard.Board],
        config: UCTConfig | None = None,
        rng: Seeds = None,
    ) -> None:
        config = UCTConfig() if config is None else config
        if not isinstance(config, UCTConfig):
            raise TypeError("UCT needs a UCTConfig")
        boards = as_boards(roots)
        rngs = make_rngs(rng, len(boards))
        seed = int(rngs[0].integers(2**63))
        evaluator = RolloutEvaluator(config.rollouts_per_leaf, seed)
        super().__init__(evaluator, boards, config, rngs, rule="ucb1")


def run_search(
    board: goboard.Board,
    evaluator: Evaluator | None = None,
    config: _Common | None = None,
    rng: Seeds = None,
) -> SearchResult:
    """Search one position once: PUCT, AlphaGo2016, UCT or Gumbel according to
    ``config``'s type (default: PUCT with the uniform evaluator)."""
    evaluator = UniformEvaluator() if evaluator is None else evaluator
    if isinstance(config, UCTConfig):
        return UCT(board, config, rng).search()
    if isinstance(config, AlphaGo2016Config):
        return AlphaGo2016(evaluator, board, config, rng).search()
    if isinstance(config, GumbelConfig):
        return Gumbel(evaluator, board, config, rng).search()
    if config is not None and not isinstance(config, SearchConfig):
        raise TypeError(
            "config must be a SearchConfig, AlphaGo2016Config, UCTConfig or "
            "GumbelConfig"
        )
    return PUCT(evaluator, board, config, rng).search()
