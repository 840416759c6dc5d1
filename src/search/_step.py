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
from dataclasses import dataclass
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
#: scores(rows, bases) -> (children [K, A], scores [K, A]) for flat node rows, where
#: ``bases`` are the flat indices of the rows' roots.
ScoreFn = Callable[[Idx, Idx], tuple[NDArray[np.int32], NDArray[np.float64]]]


@dataclass(slots=True)
class Walks:
    """Walks of one step (one per game per round).

    ``path[k, :depth[k] + 1]`` are the flat node indices from the root to the leaf
    (the rest of the row is padding); ``kind[k]`` says how the walk ended;
    ``expand[k]`` whether its leaf gets priors. The nodes created: ``new_parent``,
    ``new_action``, ``new_child`` (pool slots).
    """

    games: Idx  # [K]
    path: I64  # [K, D]
    depth: I64  # [K]
    leaf: I64  # [K]
    kind: NDArray[np.int8]  # [K]
    expand: NDArray[np.bool_]  # [K]
    new_parent: Idx  # [n]
    new_action: Idx  # [n]
    new_child: Idx  # [n]
    #: Every walk ends on a leaf to evaluate (no terminal leaf, no collision).
    all_eval: bool = True
    #: Every walk's leaf gets priors.
    all_expand: bool = True
    #: Every walk has the same depth (``path`` has no padding).
    same_depth: bool = False

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
    # int32 flat indices (the pool has < 2**31 slots): cheaper adds and gathers.
    base = (games * tree.stride).astype(np.int32)
    kind = np.zeros(k, dtype=np.int8)  # NEW unless set otherwise
    expand = (np.ones if expansion_threshold <= 1 else np.zeros)(k, dtype=np.bool_)
    depth = np.empty(k, dtype=np.int64)
    leaf = np.empty(k, dtype=np.int64)
    steps: list[tuple[Idx | slice, Idx]] = []
    new: list[tuple[Idx, Idx, Idx]] = []
    all_eval = True
    all_expand = expansion_threshold <= 1
    uniform = True  # no walk has stopped early
    idx: Idx | slice = slice(None)  # the walks still going: all of them at first
    cur = base
    bases = base
    d = 0
    while True:
        steps.append((idx, cur))
        children, score = scores(cur, bases)
        best = score.argmax(axis=1)
        child = children[np.arange(best.shape[0]), best]
        pos = bases + child  # child -1 lands on a zero column: state UNEXPANDED
        d += 1
        stop = state.take(pos) != EXPANDED
        if not stop.any():
            cur = pos
            continue
        everyone = bool(stop.all())
        if everyone:
            w, p, c, par, act, b = idx, pos, child, cur, best, bases
        else:
            w, p, c = _pick(idx, stop), pos[stop], child[stop]
            par, act, b = cur[stop], best[stop], bases[stop]
        depth[w] = d
        fresh = c < 0
        if fresh.all():
            _create(tree, games[w], par, act, b, pending, leaf, w, new)
        else:
            if fresh.any():
                wf = _pick(w, fresh)
                _create(
                    tree,
                    games[wf],
                    par[fresh],
                    act[fresh],
                    b[fresh],
                    pending,
                    leaf,
                    wf,
                    new,
                )
            old = ~fresh
            wo, po = _pick(w, old), p[old]
            term = state.take(po) == TERMINAL
            clash = pending.take(po) & ~term
            kind[wo] = np.where(term, TERMINAL_LEAF, np.where(clash, COLLISION, OLD))
            leaf[wo] = po
            evaluate = ~(term | clash)
            pending[po[evaluate]] = True
            grow = evaluate & (tree.visits_flat.take(po) + 1 >= expansion_threshold)
            expand[wo] = grow
            all_eval = all_eval and bool(evaluate.all())
            all_expand = all_expand and bool(grow.all())
        if everyone:
            break
        uniform = False
        go = ~stop
        idx, cur, bases = _pick(idx, go), pos[go], bases[go]
    path = np.empty((k, d + 1), dtype=np.int64)
    for j, (w, p) in enumerate(steps):
        path[w, j] = p
    if uniform:
        path[:, d] = leaf
    else:
        path[np.arange(k), depth] = leaf
    if not new:
        parents = actions = childs = _empty()
    elif len(new) == 1:
        parents, actions, childs = new[0]
    else:
        parents, actions, childs = (np.concatenate(x) for x in zip(*new, strict=True))
    return Walks(
        games,
        path,
        depth,
        leaf,
        kind,
        expand,
        parents,
        actions,
        childs,
        all_eval,
        all_expand,
        uniform,
    )


def _pick(idx: Idx | slice, mask: NDArray[np.bool_]) -> Idx:
    """Walk indices ``idx`` (a slice means all) where ``mask``."""
    return np.flatnonzero(mask) if isinstance(idx, slice) else idx[mask]


def _create(
    tree: Tree,
    games: Idx,
    parents: Idx,
    actions: Idx,
    bases: Idx,
    pending: NDArray[np.bool_],
    leaf: I64,
    walks: Idx | slice,
    new: list[tuple[Idx, Idx, Idx]],
) -> None:
    """New nodes below flat ``parents`` by ``actions`` (one per game)."""
    node = tree.num_nodes[games]
    tree.num_nodes[games] = node + 1
    tree.children_rows[parents, actions] = node
    made = bases + node
    tree.parent_flat[made] = parents - bases
    tree.action_flat[made] = actions
    pending[made] = True
    leaf[walks] = made
    # Flat index g * (M + 1) + i is pool slot g * M + i.
    new.append((parents - games, actions, made - games))


def merge(rounds: list[Walks]) -> Walks:
    """The walks of several rounds as one batch (paths padded to one width)."""
    if len(rounds) == 1:
        return rounds[0]
    width = max(w.path.shape[1] for w in rounds)
    path = np.zeros((sum(w.path.shape[0] for w in rounds), width), dtype=np.int64)
    row = 0
    for w in rounds:
        path[row : row + w.path.shape[0], : w.path.shape[1]] = w.path
        row += w.path.shape[0]

    def cat(name: str) -> Any:
        return np.concatenate([getattr(w, name) for w in rounds])

    return Walks(
        cat("games"),
        path,
        cat("depth"),
        cat("leaf"),
        cat("kind"),
        cat("expand"),
        cat("new_parent"),
        cat("new_action"),
        cat("new_child"),
        all(w.all_eval for w in rounds),
        all(w.all_expand for w in rounds),
    )  # same_depth: rounds differ in general


_SIGN = np.array([-1.0, 1.0])
#: Signs along a path of up to 4096 nodes, ending with the leaf's -1.
_SIGNS = np.resize(np.array([1.0, -1.0]), 4096)


def _on_path(walks: Walks) -> tuple[I64, NDArray[np.bool_]]:
    """(depth minus column [K, D], mask [K, D] of the entries on each walk)."""
    rel = walks.depth[:, None] - np.arange(walks.path.shape[1])
    return rel, rel >= 0


def add_virtual_loss(tree: Tree, walks: Walks, amount: int) -> None:
    """Each node on each walk: ``amount`` visits lost by whoever chose it."""
    _, on = _on_path(walks)
    pos = walks.path[on]  # distinct: one walk per game in a round
    tree.visits_flat[pos] += amount
    tree.value_sums_flat[pos] -= amount
    tree.virtual_flat[pos] += 1


def backup(
    tree: Tree,
    walks: Walks,
    values: NDArray[np.float64],
    virtual_loss: int,
    unique: bool,
) -> None:
    """Add each walk's leaf value along its path and take back its virtual loss.

    ``values[k]`` is walk k's leaf value from the leaf's side to move (ignored for
    collisions, which only give back their virtual loss). A node stores values from its
    chooser's view, so the leaf gets ``-v``, its parent ``+v``, and so on up.
    ``unique``: no node is on two walks (one walk per game), so plain indexed adds do.
    """
    dn: int | NDArray[np.int64] = 1
    width = walks.path.shape[1]
    if walks.same_depth and walks.all_eval and not virtual_loss and width <= 4096:
        # No padding, no collisions: the whole path matrix, signs by column.
        pos = walks.path.reshape(-1)
        dv = np.multiply.outer(values, _SIGNS[-width:]).reshape(-1)
        _add(tree, pos, dn, dv, unique)
        return
    rel, on = _on_path(walks)
    pos = walks.path[on]
    # -1 at the leaf and at every second node above it.
    dv = (_SIGN[rel & 1] * values[:, None])[on]
    if virtual_loss or not walks.all_eval:
        real = (walks.kind != COLLISION).astype(np.int64)
        dn = np.broadcast_to(real[:, None] - virtual_loss, on.shape)[on]
        dv += virtual_loss
    _add(tree, pos, dn, dv, unique)
    if virtual_loss:
        np.add.at(tree.virtual_flat, pos, -1)


def _add(
    tree: Tree,
    pos: I64,
    dn: int | NDArray[np.int64],
    dv: NDArray[np.float64],
    unique: bool,
) -> None:
    if unique:
        tree.visits_flat[pos] += dn
        tree.value_sums_flat[pos] += dv
    else:
        np.add.at(tree.visits_flat, pos, dn)
        np.add.at(tree.value_sums_flat, pos, dv)
