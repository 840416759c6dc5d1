"""One search step over many trees: select leaves, create nodes, back up values.

The pieces :class:`search.mcts.MCTS` strings together; everything here works on all
active games at once (numpy over ``[K, A]`` rows per depth), never on one node object.

A *walk* starts at a root and descends by the selection rule while it is on expanded
nodes. It ends in one of four ways: on an edge with no child yet (a node is created:
:data:`NEW`); on an existing node without priors (AlphaGo 2016's lazy expansion:
:data:`OLD`, evaluated again); on a finished game (:data:`TERMINAL`, scored by the
rules); or on a leaf that an earlier walk of the same step is already evaluating
(:data:`COLLISION`: dropped, it counts as no simulation).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .tree import EXPANDED, TERMINAL, Tree

__all__ = [
    "COLLISION",
    "NEW",
    "OLD",
    "TERMINAL_LEAF",
    "Walks",
    "add_virtual_loss",
    "backup",
    "merge",
    "select",
]

NEW, OLD, TERMINAL_LEAF, COLLISION = 0, 1, 2, 3

I64 = NDArray[np.int64]
#: Index arrays: int32 (flat node indices in selection) or int64.
Idx = NDArray[np.integer[Any]]
#: scores(rows, bases) -> scores [K, A] of the children of flat node rows, where
#: ``bases`` are the flat indices of the rows' roots.
ScoreFn = Callable[[Idx, Idx], NDArray[np.float64]]


@dataclass(slots=True)
class Walks:
    """Walks of one step (one per game per round).

    ``depth[k]`` is walk k's length and ``leaf[k]`` the flat node it ends on;
    ``kind[k]`` says how it ended; ``expand[k]`` whether its leaf gets priors.

    The nodes on the walks, root to leaf, as flat lists: ``nodes`` (flat node
    indices), ``walk`` (the walk of each entry) and ``level`` (its depth on that walk).
    One round's walks are in distinct games, so its ``nodes`` are distinct; after a
    :func:`merge`, ``rounds`` holds where each round's entries end, in round order.

    The nodes created: ``new_parent``, ``new_action``, ``new_child`` (pool slots).
    """

    games: Idx  # [K]
    depth: I64  # [K]
    leaf: I64  # [K]
    kind: NDArray[np.int8]  # [K]
    expand: NDArray[np.bool_]  # [K]
    nodes: Idx  # [P]
    walk: Idx  # [P]
    level: Idx  # [P]
    new_parent: Idx  # [n]
    new_action: Idx  # [n]
    new_child: Idx  # [n]
    #: Every walk ends on a leaf to evaluate (no terminal leaf, no collision).
    all_eval: bool = True
    #: Every walk's leaf gets priors.
    all_expand: bool = True
    #: End of each round's entries in ``nodes`` (one round: ``[P]``).
    rounds: list[int] = field(default_factory=list)

    @property
    def slots(self) -> I64:
        """[K] pool slot of each leaf (``g * (M + 1) + i`` is slot ``g * M + i``)."""
        return np.asarray(self.leaf - self.games, dtype=np.int64)


def _empty() -> Idx:
    return np.zeros(0, dtype=np.int64)


def select(
    tree: Tree,
    games: Idx,
    scores: ScoreFn,
    pending: NDArray[np.bool_],
    expansion_threshold: int,
) -> Walks:
    """Walk down one path per game in ``games`` and create the nodes they reach.

    Args:
        tree: the trees (roots expanded, not terminal).
        games: int [K] distinct games, each with room for one more node.
        scores: the selection rule.
        pending: bool flat [G * (M + 1)]: leaves taken this step (updated here).
        expansion_threshold: a leaf gets priors on this visit (1 = the first).
    """
    k = int(games.shape[0])
    state = tree.state_flat
    children = tree.children_rows
    # int32 flat indices (the pool has < 2**31 slots): cheaper adds and gathers.
    base = (games * tree.stride).astype(np.int32)
    everyone = np.arange(k)
    # The walks still going at each depth and the nodes they are on.
    owners: list[Idx] = []
    levels: list[Idx] = []
    # At each depth where walks end: (walks, parent, action, position, ended?).
    ends: list[tuple[Idx, Idx, Idx, Idx, NDArray[np.bool_]]] = []
    idx: Idx = everyone
    cur = bases = base
    # The walks are in distinct games, so they never meet: the loop only descends,
    # and what happens where a walk ends is settled for all of them afterwards.
    while True:
        owners.append(idx)
        levels.append(cur)
        best = scores(cur, bases).argmax(axis=1)
        pos = bases + children[cur, best]  # no child (-1): a zero column, UNEXPANDED
        stop = state.take(pos) != EXPANDED
        n = int(np.count_nonzero(stop))
        if n == 0:
            cur = pos
            continue
        ends.append((idx, cur, best, pos, stop))
        if n == stop.shape[0]:
            break
        go = ~stop
        idx, cur, bases = idx[go], pos[go], bases[go]
    if len(ends) == 1:  # every walk ends at the same depth
        w, par, act, pos, _ = ends[0]
    else:
        stopped = np.concatenate([e[4] for e in ends])
        w, par, act, pos = (
            np.concatenate(x)[stopped] for x in zip(*(e[:4] for e in ends), strict=True)
        )
    above = np.concatenate(owners)  # the walk of each node above a leaf
    depth = np.bincount(above, minlength=k)
    b = base.take(w)
    fresh = pos < b  # no child yet: ``pos`` is ``b - 1``
    kind = np.zeros(k, dtype=np.int8)  # NEW unless set otherwise
    all_expand = expansion_threshold <= 1
    expand = np.full(k, all_expand)
    leaf = np.empty(k, dtype=np.int64)
    all_eval = True
    if np.count_nonzero(fresh) == k:
        made = _create(tree, games.take(w), par, act, b, pending, leaf, w)
    else:
        made = _create(
            tree,
            games.take(w[fresh]),
            par[fresh],
            act[fresh],
            b[fresh],
            pending,
            leaf,
            w[fresh],
        )
        old = ~fresh
        wo, po = w[old], pos[old]
        term = state.take(po) == TERMINAL
        clash = pending.take(po) & ~term
        kind[wo] = np.where(term, TERMINAL_LEAF, np.where(clash, COLLISION, OLD))
        leaf[wo] = po
        evaluate = ~(term | clash)
        pending[po[evaluate]] = True
        grow = evaluate & (tree.visits_flat.take(po) + 1 >= expansion_threshold)
        expand[wo] = grow
        all_eval = bool(evaluate.all())
        all_expand = all_expand and bool(grow.all())
    levels.append(leaf)
    nodes = np.concatenate(levels)
    counts = [x.shape[0] for x in owners]
    return Walks(
        games,
        depth,
        leaf,
        kind,
        expand,
        nodes,
        np.concatenate((above, everyone)),
        np.concatenate((np.repeat(np.arange(len(counts)), counts), depth)),
        *made,
        all_eval,
        all_expand,
        [int(nodes.shape[0])],
    )


def _create(
    tree: Tree,
    games: Idx,
    parents: Idx,
    actions: Idx,
    bases: Idx,
    pending: NDArray[np.bool_],
    leaf: I64,
    walks: Idx,
) -> tuple[Idx, Idx, Idx]:
    """New nodes below flat ``parents`` by ``actions`` (one per game) for ``walks``;
    returns their (parent slot, action, child slot) for ``pool.expand``."""
    if games.shape[0] == 0:
        return _empty(), _empty(), _empty()
    node = tree.num_nodes[games]
    tree.num_nodes[games] = node + 1
    tree.children_rows[parents, actions] = node
    made = bases + node
    tree.parent_flat[made] = parents - bases
    tree.action_flat[made] = actions
    tree.edge_flat[made] = parents.astype(np.int64) * tree.num_actions + actions
    pending[made] = True
    leaf[walks] = made
    # Flat index g * (M + 1) + i is pool slot g * M + i.
    return parents - games, actions, made - games


def merge(rounds: list[Walks]) -> Walks:
    """The walks of several rounds as one batch (round after round)."""
    if len(rounds) == 1:
        return rounds[0]

    def cat(name: str) -> Any:
        return np.concatenate([getattr(w, name) for w in rounds])

    offsets = np.cumsum([0] + [w.games.shape[0] for w in rounds[:-1]])
    walk = np.concatenate([w.walk + o for w, o in zip(rounds, offsets, strict=True)])
    return Walks(
        cat("games"),
        cat("depth"),
        cat("leaf"),
        cat("kind"),
        cat("expand"),
        cat("nodes"),
        walk,
        cat("level"),
        cat("new_parent"),
        cat("new_action"),
        cat("new_child"),
        all(w.all_eval for w in rounds),
        all(w.all_expand for w in rounds),
        np.cumsum([w.nodes.shape[0] for w in rounds]).tolist(),
    )


#: Sign of a leaf value at the nodes above the leaf by distance mod 2.
_SIGN = np.array([-1.0, 1.0])


def add_virtual_loss(tree: Tree, walks: Walks, amount: int) -> None:
    """Each node on each walk (of one round): ``amount`` visits lost by whoever chose
    it."""
    pos = walks.nodes  # distinct: one walk per game in a round
    tree.visits_flat[pos] += amount
    tree.value_sums_flat[pos] -= amount
    tree.virtual_flat[pos] += 1
    tree.sync_edges(pos)


def backup(
    tree: Tree,
    walks: Walks,
    values: NDArray[np.float64],
    virtual_loss: int,
    margins: NDArray[np.float64] | None = None,
) -> None:
    """Add each walk's leaf value along its path and take back its virtual loss.

    ``values[k]`` is walk k's leaf value from the leaf's side to move (ignored for
    collisions, which only give back their virtual loss). A node stores values from its
    chooser's view, so the leaf gets ``-v``, its parent ``+v``, and so on up.
    ``margins`` [K, 2] (searches that keep scores): walk k's expected final margin
    from the leaf's side to move and its second moment, added the same way to the
    tree's margin sums (collisions add nothing).

    A node on the walks of several rounds gets their updates round after round, one
    float addition each, as ``np.add.at`` over the walks in order would add them.
    """
    pos = walks.nodes
    walk = walks.walk
    # -1 at the leaf and at every second node above it.
    dv = _SIGN[(walks.depth.take(walk) - walks.level) & 1] * values.take(walk)
    dn: int | NDArray[np.int64] = 1
    if virtual_loss or not walks.all_eval:
        real = (walks.kind != COLLISION).astype(np.int64)
        dn = (real - virtual_loss).take(walk)
        dv += virtual_loss
    visits, sums = tree.visits_flat, tree.value_sums_flat
    start = 0
    for stop in walks.rounds:
        if start == 0 and stop == pos.shape[0]:
            p, n, v = pos, dn, dv
        else:
            p, v = pos[start:stop], dv[start:stop]
            n = dn if isinstance(dn, int) else dn[start:stop]
        visits[p] += n
        sums[p] += v
        if virtual_loss:
            tree.virtual_flat[p] -= 1
        start = stop
    tree.sync_edges(pos)
    if margins is not None:
        _backup_margins(tree, walks, margins)


def _backup_margins(tree: Tree, walks: Walks, margins: NDArray[np.float64]) -> None:
    """The margin half of :func:`backup` (signs as for values; nothing for
    collisions). Round by round, like the values, so that a node on several walks
    adds them in walk order."""
    walk = walks.walk
    real = (walks.kind != COLLISION).astype(np.float64).take(walk)
    sign = _SIGN[(walks.depth.take(walk) - walks.level) & 1]
    dm = sign * margins[:, 0].take(walk) * real
    dsq = margins[:, 1].take(walk) * real
    start = 0
    for stop in walks.rounds:
        p = walks.nodes[start:stop]
        tree.margin_sums_flat[p] += dm[start:stop]
        tree.margin_squares_flat[p] += dsq[start:stop]
        tree.margin_visits_flat[p] += real[start:stop]
        start = stop
