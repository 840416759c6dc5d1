"""Search hyper-parameters as frozen, validated data.

Three configurations, one per search (they share the limits and the move choice):

- :class:`SearchConfig`: AlphaGo Zero's PUCT.
- :class:`AlphaGo2016Config`: PUCT plus AlphaGo 2016's expansion threshold and the mix
  of the value network with rollout outcomes.
- :class:`UCTConfig`: plain UCB1 over random rollouts (the pure-MCTS baseline).
- :class:`GumbelConfig`: Gumbel root sampling with sequential halving, completed-Q
  selection below the root (Danihelka et al., ICLR 2022).

Glossary:

- *simulation*: one walk from the root to a leaf, one leaf value, one backup. Every
  simulation adds one visit to exactly one child of the root.
- *leaf batch*: with ``leaves_per_batch`` > 1 each tree collects that many leaves per
  evaluator call, steering later walks away from earlier ones with *virtual loss*:
  every node on a pending walk counts ``virtual_loss`` extra visits that were all lost
  by the player who chose it, until the real value is backed up.
- *first-play urgency* (FPU): the value an unvisited child is assumed to have, the
  parent's mean value (from the parent's side to move) minus ``fpu_reduction``. A
  positive reduction makes the search try the prior's favourites first and widen only
  when they disappoint (Leela Zero's scheme); 0 treats an unvisited move as average.
- *node capacity*: each tree holds at most ``max_nodes`` nodes (one per simulation, plus
  whatever a reused subtree brings); a search stops early when its tree is full.

Validation happens on construction: wrong types raise ``TypeError``, values out of range
raise ``ValueError``, both naming the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["AlphaGo2016Config", "GumbelConfig", "SearchConfig", "UCTConfig"]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_real(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _int(name: str, value: object, low: int) -> None:
    if not _is_int(value):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    assert isinstance(value, int)
    if value < low:
        raise ValueError(f"{name} must be >= {low}, not {value}")


def _real(
    name: str,
    value: object,
    low: float,
    high: float = math.inf,
    *,
    low_open: bool = False,
) -> None:
    if not _is_real(value):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    assert isinstance(value, (int, float))
    ok = (value > low if low_open else value >= low) and value <= high
    if not ok or math.isnan(value):
        bracket = "(" if low_open else "["
        raise ValueError(f"{name} must be in {bracket}{low}, {high}], not {value}")


def _check_common(cfg: _Common) -> None:
    _int("num_simulations", cfg.num_simulations, 1)
    if cfg.time_limit is not None:
        _real("time_limit", cfg.time_limit, 0.0, low_open=True)
    _int("leaves_per_batch", cfg.leaves_per_batch, 1)
    _int("virtual_loss", cfg.virtual_loss, 1)
    _real("temperature", cfg.temperature, 0.0)
    if cfg.resign_threshold is not None:
        _real("resign_threshold", cfg.resign_threshold, -1.0, 1.0)
    if cfg.max_nodes is not None:
        _int("max_nodes", cfg.max_nodes, 2)
    if not isinstance(cfg.fill_own_eyes, bool):
        raise TypeError("fill_own_eyes must be a bool")
    if not isinstance(cfg.early_stop, bool):
        raise TypeError("early_stop must be a bool")


@dataclass(frozen=True, slots=True)
class _Common:
    """Limits and move choice shared by every search (see the subclasses)."""

    #: Simulations per search call (new ones; a reused subtree's visits come on top).
    num_simulations: int = 800
    #: Seconds per search call, or None for no time limit.
    time_limit: float | None = None
    #: Leaves collected per tree per evaluator call (virtual loss when > 1).
    leaves_per_batch: int = 1
    #: Virtual visits (all lost) that a pending walk adds to each node on it.
    virtual_loss: int = 1
    #: Move choice: visits ** (1 / temperature) sampled; 0 picks the most visited.
    temperature: float = 0.0
    #: Resign when the root value and the best move's value are both below this
    #: (values are in [-1, 1] from the side to move); None never resigns.
    resign_threshold: float | None = None
    #: Nodes per tree; None: 2 * num_simulations + leaves_per_batch (room for reuse).
    max_nodes: int | None = None
    #: False: no node searches a move that fills one of the mover's own true eyes
    #: (the playout rule's eyes): under area scoring such a move gains nothing and
    #: can kill its group. Pass stays when nothing else is left. True: search them.
    fill_own_eyes: bool = False
    #: True: a search choosing its move at temperature 0 ends once the most visited
    #: root move can no longer be overtaken by the simulations left (by the time
    #: left at the pace so far, under a time limit): the rest could not change the
    #: move, only the statistics (Leela Zero's "smart pruning" stop).
    early_stop: bool = False

    def capacity(self) -> int:
        """Nodes per tree (``max_nodes`` or its default)."""
        if self.max_nodes is not None:
            return self.max_nodes
        return 2 * self.num_simulations + self.leaves_per_batch


@dataclass(frozen=True, slots=True)
class SearchConfig(_Common):
    """AlphaGo Zero PUCT: ``Q + c_puct * P * sqrt(N_parent) / (1 + N)``.

    Fields beyond the shared limits: ``c_puct`` (> 0), ``fpu_reduction`` (first-play
    urgency, see the module docstring), ``dirichlet_alpha`` (> 0) and
    ``dirichlet_fraction`` (in [0, 1]; 0 disables root noise). AlphaGo Zero used
    alpha 0.03 on 19x19; about 10 / (number of legal moves) is the usual scaling.

    ``forced_playouts`` (default off) turns on KataGo's forced playouts and policy
    target pruning (Wu 2019, section 3.1) at every root searched with Dirichlet
    noise: a root child that has been visited gets at least
    ``sqrt(forced_k * P * total)`` visits (``P`` its noisy prior, ``total`` the root
    children's visits), and the result's ``pi`` then takes back the forced visits
    that PUCT alone would not have given (:func:`search.puct.prune_forced`). Off,
    or at a root without noise, the search is exactly the plain one.
    """

    c_puct: float = 1.5
    fpu_reduction: float = 0.25
    dirichlet_alpha: float = 0.03
    dirichlet_fraction: float = 0.0
    forced_playouts: bool = False
    forced_k: float = 2.0

    def __post_init__(self) -> None:
        _check_common(self)
        _check_puct(self)


def _check_puct(cfg: SearchConfig) -> None:
    _real("c_puct", cfg.c_puct, 0.0, low_open=True)
    _real("fpu_reduction", cfg.fpu_reduction, -2.0, 2.0)
    _real("dirichlet_alpha", cfg.dirichlet_alpha, 0.0, low_open=True)
    _real("dirichlet_fraction", cfg.dirichlet_fraction, 0.0, 1.0)
    if not isinstance(cfg.forced_playouts, bool):
        raise TypeError("forced_playouts must be a bool")
    _real("forced_k", cfg.forced_k, 0.0, low_open=True)


@dataclass(frozen=True, slots=True)
class AlphaGo2016Config(SearchConfig):
    """AlphaGo (2016): PUCT, lazy expansion and value/rollout mixing.

    - ``expansion_threshold``: a node gets its children (the evaluator's priors) on its
      ``expansion_threshold``-th visit; before that every visit ending at it is a leaf
      evaluation. 1 expands on the first visit (AlphaGo Zero).
    - ``mix_lambda``: leaf value ``(1 - lambda) * v_net + lambda * z_rollout``.
    - ``rollouts_per_leaf``: rollouts averaged into ``z_rollout`` per leaf evaluation.
    """

    expansion_threshold: int = 1
    mix_lambda: float = 0.5
    rollouts_per_leaf: int = 1

    def __post_init__(self) -> None:
        _check_common(self)
        _check_puct(self)
        _int("expansion_threshold", self.expansion_threshold, 1)
        _real("mix_lambda", self.mix_lambda, 0.0, 1.0)
        _int("rollouts_per_leaf", self.rollouts_per_leaf, 1)


@dataclass(frozen=True, slots=True)
class UCTConfig(_Common):
    """Plain UCT: ``Q + exploration * sqrt(ln N_parent / N)``, unvisited children first.

    Values are in [-1, 1] (twice the range of UCB1's [0, 1] rewards), so the textbook
    constant sqrt(2) on rewards corresponds to ``exploration`` = 2 * sqrt(2) here; the
    default is smaller because Go rollouts are noisy and greedier search plays better.
    """

    exploration: float = 1.0
    rollouts_per_leaf: int = 1

    def __post_init__(self) -> None:
        _check_common(self)
        _real("exploration", self.exploration, 0.0)
        _int("rollouts_per_leaf", self.rollouts_per_leaf, 1)


@dataclass(frozen=True, slots=True)
class GumbelConfig(_Common):
    """Gumbel search (Danihelka, Guez, Schrittwieser, Silver, ICLR 2022): at the root,
    sequential halving over the ``considered_actions`` best moves by Gumbel noise plus
    the prior's logits; below it, the improved policy's deterministic selection.

    - ``considered_actions``: moves drawn at the root (m; fewer if fewer are legal).
    - ``c_visit``, ``c_scale``: ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q``
      (the paper's 50 and 1.0), ``q`` rescaled to [0, 1].
    - ``gumbel_scale``: the Gumbel noise's weight; 0 plays the prior's and the search's
      best move without sampling (match play), 1 is the paper's self-play setting.
    - ``mix_lambda``: leaf value ``(1 - lambda) * v_net + lambda * z_rollout``, as
      :class:`AlphaGo2016Config` mixes it (``search.Gumbel``'s ``rollout`` plays the
      rollouts); 0, the default, is the network's value alone.

    The move is the sequential-halving winner, already a sample through the noise, so
    ``temperature`` must stay 0.
    """

    considered_actions: int = 16
    c_visit: float = 50.0
    c_scale: float = 1.0
    gumbel_scale: float = 1.0
    mix_lambda: float = 0.0

    def __post_init__(self) -> None:
        _check_common(self)
        if self.temperature != 0:
            raise ValueError(
                "temperature must be 0 for Gumbel (the Gumbel noise samples the move; "
                "see gumbel_scale)"
            )
        _int("considered_actions", self.considered_actions, 1)
        _real("c_visit", self.c_visit, 0.0)
        _real("c_scale", self.c_scale, 0.0)
        _real("gumbel_scale", self.gumbel_scale, 0.0)
        _real("mix_lambda", self.mix_lambda, 0.0, 1.0)
        if self.early_stop:
            raise ValueError(
                "early_stop does not apply to Gumbel (sequential halving spends its "
                "whole budget to pick the move)"
            )
