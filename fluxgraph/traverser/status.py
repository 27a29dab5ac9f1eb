"""Up/down status of resources (matching-semantics §6.15).

:func:`mark` sets the status of the vertices at a path, or of the subtree roots of some ranks,
and keeps the traverser's up-node count (``nodes_up``, read by the node pre-check) in step.
Only the marked vertices' own status changes: their descendants keep theirs, yet matching skips
them (a vertex whose own status is not up is pruned with its whole subtree) and ``find`` reports
them as down by inheritance.

The bookkeeping is the reference's, quirks included: marking a path adds or subtracts the size
of every ``node`` vertex in the marked subtrees, so marking a rack down and then a node under it
counts that node twice until both are up again; marking ranks adds or subtracts one per rank
whose root changed.

Examples
--------
>>> from fluxgraph.graph import ResourceGraph
>>> from fluxgraph.matcher import Matcher
>>> g = ResourceGraph()
>>> c = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
>>> g.set_root("containment", c)
>>> for i in range(2):
...     n = g.add_vertex("node", "node", i, rank=i, paths={"containment": f"/c0/node{i}"})
...     _ = g.add_edge(c, n, "containment")
>>> tr = Matcher(g, "CA", "low", prune="").traverser
>>> mark(tr, "/c0/node1", "down"), tr.nodes_up, get_status(g, "/c0/node1")
(1, 1, ['down'])
>>> mark(tr, [1], "up"), tr.nodes_up
(1, 2)
"""

from __future__ import annotations

from collections.abc import Iterable
from errno import EINVAL
from typing import TYPE_CHECKING

from fluxgraph.errors import GraphError, MatchError
from fluxgraph.graph import STATUS_DOWN, STATUS_UP

if TYPE_CHECKING:
    from fluxgraph.graph import ResourceGraph
    from fluxgraph.traverser.core import Traverser

__all__ = ["STATUS_NAMES", "get_status", "mark", "status_code"]

#: Status code -> the word ``resource-query`` prints.
STATUS_NAMES = ("up", "down")


def status_code(status: str | int) -> int:
    """``STATUS_UP``/``STATUS_DOWN`` for ``"up"``/``"down"`` (exact) or for the code itself.

    Raises
    ------
    MatchError
        (errno EINVAL) for anything else.

    Examples
    --------
    >>> status_code("down"), status_code(0)
    (1, 0)
    """
    if status in (STATUS_UP, STATUS_DOWN) and not isinstance(status, bool):
        return int(status)
    if isinstance(status, str) and status in STATUS_NAMES:
        return STATUS_NAMES.index(status)
    raise MatchError(f"unrecognized status {status!r} (valid: up, down)", errno=EINVAL)


def mark(traverser: Traverser, target: str | Iterable[int], status: str | int) -> int:
    """Set the status of the vertices at path ``target``, or of the ranks ``target``.

    With a path, every vertex registered under it (in any subsystem) whose status differs is
    set, and ``nodes_up`` moves by the size of each ``node`` vertex in those vertices'
    dominant-subsystem subtrees. With ranks, each known rank's subtree root (its first vertex
    with the shortest dominant path) is set if it differs, and ``nodes_up`` moves by one per
    root changed; unknown ranks are ignored.

    Returns
    -------
    int
        How many vertices changed status.

    Raises
    ------
    MatchError
        (errno EINVAL) for an unknown path or status; nothing is changed then.
    """
    code = status_code(status)
    sign = 1 if code == STATUS_UP else -1
    g = traverser.graph
    traverser.probe_memo.clear()  # a probe's outcome depends on the statuses below
    traverser.status_epoch = getattr(traverser, "status_epoch", 0) + 1  # (the fast path's)
    if traverser.replay is not None:
        traverser.replay.clear()  # and so does a recorded visit
    if isinstance(target, str):
        vertices = g.by_path.get(target)
        if not vertices:
            raise MatchError(f"no vertex at path {target!r} in the resource graph", errno=EINVAL)
        changed = [v for v in vertices if g.status[v] != code]
        delta = 0
        for v in changed:
            g.status[v] = code
            delta += _node_units(g, traverser.dom, v)
        traverser.nodes_up += sign * delta
        return len(changed)
    count = 0
    for rank in dict.fromkeys(target):
        root = _rank_root(g, traverser.dom, rank)
        if root is not None and g.status[root] != code:
            g.status[root] = code
            count += 1
    traverser.nodes_up += sign * count
    return count


def get_status(graph: ResourceGraph, path: str) -> list[str]:
    """``"up"``/``"down"`` for each vertex registered under ``path`` (its own status).

    Raises
    ------
    GraphError
        If no vertex is registered under ``path``.
    """
    vertices = graph.by_path.get(path)
    if not vertices:
        raise GraphError(f"no vertex at path {path!r} in the resource graph")
    return [STATUS_NAMES[graph.status[v] != STATUS_UP] for v in vertices]


def _node_units(g: ResourceGraph, dom: str, root: int) -> int:
    """Total size of the ``node`` vertices in ``root``'s subtree on subsystem ``dom``."""
    children = g.children(dom)
    types, sizes = g.types, g.sizes
    seen = {root}
    stack = [root]
    units = 0
    while stack:
        v = stack.pop()
        if types[v] == "node":
            units += sizes[v]
        for t in children[v]:
            if t not in seen:
                seen.add(t)
                stack.append(t)
    return units


def _rank_root(g: ResourceGraph, dom: str, rank: int) -> int | None:
    """The first vertex of ``rank`` with the strictly shortest ``dom`` path (None if none)."""
    best = None
    best_len = 0
    for v in g.by_rank.get(rank, ()):
        path = g.paths[v].get(dom)
        if path is not None and (best is None or len(path) < best_len):
            best, best_len = v, len(path)
    return best
