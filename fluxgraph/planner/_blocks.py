"""The blocks of the points tree (:mod:`.points`): leaves of parallel columns and internal nodes,
with the aggregates and staircases a node keeps per child (:mod:`._stairs`)."""

from __future__ import annotations

from array import array

from fluxgraph.planner._stairs import leaf_stairs, merge

__all__: list[str] = []


class _Leaf:
    """A block of points (parallel lists) plus its staircase and state flag."""

    __slots__ = (
        "at",
        "isln",
        "isnr",
        "key",
        "next",
        "parent",
        "pos",
        "prev",
        "ref",
        "rem",
        "sched",
        "sln",
        "snr",
        "st",
    )
    is_leaf = True


class _Node:
    """An internal node: children with their first time, max key and min remaining."""

    __slots__ = ("first", "kids", "kmax", "kmin", "parent", "pos", "sln", "snr", "st")
    is_leaf = False


def _agg(kid: _Leaf | _Node) -> tuple[int, int, int]:
    """(first time, max key, min remaining) of a child."""
    if kid.is_leaf:
        return kid.at[0], max(kid.key), min(kid.rem)
    return kid.first[0], max(kid.kmax), min(kid.kmin)


def _new_node(kids: list) -> _Node:
    node = _Node()
    node.kids = kids
    node.first, node.kmax, node.kmin = array("q"), array("q"), array("q")
    for k, kid in enumerate(kids):
        f, mx, mn = _agg(kid)
        node.first.append(f)
        node.kmax.append(mx)
        node.kmin.append(mn)
        kid.parent = node
        kid.pos = k
    node.snr, node.sln = merge((kid.snr, kid.sln) for kid in kids)
    node.st = 0
    node.parent = None
    node.pos = 0
    return node


def _new_leaf(at, sched, rem, key, ref) -> _Leaf:
    """A leaf without staircases (set them with :func:`_set_stairs` once it is chained).

    ``at``, ``rem`` and ``key`` are ``array("q")`` (compact: a search touches a few cache
    lines per block instead of one int object per probe); ``sched`` and ``ref`` are lists.
    """
    leaf = _Leaf()
    leaf.at, leaf.rem, leaf.key = array("q", at), array("q", rem), array("q", key)
    leaf.sched, leaf.ref = sched, ref
    leaf.prev = leaf.next = leaf.parent = None
    leaf.pos = 0
    return leaf


def _set_stairs(leaf: _Leaf) -> None:
    """Exact staircases of a chained leaf (they look into the next leaf)."""
    nxt = leaf.next
    if nxt is None:
        leaf.snr, leaf.sln, leaf.isnr, leaf.isln = leaf_stairs(leaf.at, leaf.rem, None, None)
    else:
        leaf.snr, leaf.sln, leaf.isnr, leaf.isln = leaf_stairs(leaf.at, leaf.rem, nxt.at, nxt.rem)
    leaf.st = 0
