"""search: Monte Carlo tree search over goboard (pure Python + numpy, no torch).

PUCT (AlphaGo Zero), AlphaGo 2016 (lazy expansion, value mixed with rollouts), plain
UCT and Gumbel (sequential halving at the root, the improved policy as target), one
engine stepping many trees in lock-step; networks reach it only through the
:class:`Evaluator` protocol.
"""

from .config import AlphaGo2016Config, GumbelConfig, SearchConfig, UCTConfig
from .evaluator import (
    CachedEvaluator,
    ConcurrentRollouts,
    Evaluator,
    Positions,
    RolloutEvaluator,
    RolloutPolicy,
    ScoredEvaluator,
    UniformEvaluator,
)
from .filters import MoveFilter
from .gumbel import completed_q, halving_phases, improved_policy, sigma_q
from .mcts import MCTS, PUCT, UCT, AlphaGo2016, Callback, Gumbel, run_search
from .pattern_rollouts import PatternRollouts
from .puct import choose_move, dirichlet_mix, puct_scores, ucb1_scores
from .result import ScoreStats, SearchResult
from .tree import Tree

__all__ = [
    "MCTS",
    "PUCT",
    "UCT",
    "AlphaGo2016",
    "AlphaGo2016Config",
    "CachedEvaluator",
    "Callback",
    "ConcurrentRollouts",
    "Evaluator",
    "Gumbel",
    "GumbelConfig",
    "MoveFilter",
    "PatternRollouts",
    "Positions",
    "RolloutEvaluator",
    "RolloutPolicy",
    "ScoreStats",
    "ScoredEvaluator",
    "SearchConfig",
    "SearchResult",
    "Tree",
    "UCTConfig",
    "UniformEvaluator",
    "choose_move",
    "completed_q",
    "dirichlet_mix",
    "halving_phases",
    "improved_policy",
    "puct_scores",
    "run_search",
    "sigma_q",
    "ucb1_scores",
]
