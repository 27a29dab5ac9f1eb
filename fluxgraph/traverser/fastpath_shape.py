"""The flat machines and the requests the fast path answers (:mod:`.fastpath`).

:func:`flat_shape` reads a traverser's graph as a root holding alike nodes that hold only
leaves, and maybe leaves of its own (a pool: burst-buffer chunks, say); :func:`node_request`
tells whether a request is a whole-node one that every free node of such a machine serves.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fluxgraph.traverser.core import Traverser
    from fluxgraph.traverser.request import Request

__all__ = ["Shape", "flat_shape", "node_request"]


class Shape:
    """The flat machine as the engine reads it (built once per graph version)."""

    __slots__ = (
        "by_id_high",
        "by_id_low",
        "edges",
        "extra",
        "key",
        "kind",
        "node_edges",
        "nodes",
        "pos",
        "root",
    )

    def __init__(self, key, root, nodes, node_edges, kind, pos, low, extra=()):
        self.key = key
        self.root = root
        #: node vertex per position (positions follow the root's child edges)
        self.nodes: list[int] = nodes
        #: each node's child edges (all to leaves)
        self.node_edges: list[list[int]] = node_edges
        #: leaf type -> (count, size) below every node
        self.kind: dict[str, tuple[int, int]] = kind
        #: root child edge id -> position (node edges only)
        self.pos: dict[int, int] = pos
        #: the root's child edge per node position
        self.edges: list[int] = sorted(pos, key=pos.__getitem__)
        #: the root's own leaves (edge, vertex), in child-edge order: no request the engine
        #: accepts asks for them, but a job the walk booked may hold some
        self.extra: tuple[tuple[int, int], ...] = tuple(extra)
        self.by_id_low: list[int] = low
        self.by_id_high: list[int] = low[::-1]

    def learned(self, edges: list[int]) -> Iterator[int]:
        """The node positions of the root's ``edges`` in their order, lazily (a select stops
        at its ``p``-th free node; the root's own leaves are skipped)."""
        pos = self.pos
        if not self.extra:
            return map(pos.__getitem__, edges)
        return (pos[e] for e in edges if e in pos)


def flat_shape(tr: Traverser) -> Shape | None:
    """The flat layout of ``tr``'s graph, or ``None`` when it is not one: a single subsystem,
    a root whose children are ``node`` vertices of size 1 with distinct ids, each with one
    parent and only leaf children, every node holding the same leaf types in the same counts
    and sizes; the root's other children, if any, are leaves of other types (a pool)."""
    g = tr.graph
    if len(tr.subsystems) != 1:
        return None
    dom = tr.dom
    root = g.roots.get(dom)
    if root is None or g.in_edges[root]:
        return None
    children = g.child_edges(dom)
    dst, types, sizes, out_edges = g.edge_dst, g.types, g.sizes, g.out_edges
    if len(out_edges[root]) != len(children[root]) or not children[root]:
        return None
    nodes, node_edges, pos, extra = [], [], {}, []
    kind: dict[str, tuple[int, int]] | None = None
    seen: set[int] = set()
    for e in children[root]:
        v = dst[e]
        if len(g.in_edges[v]) != 1 or v in seen:
            return None
        if types[v] != "node":
            if out_edges[v]:
                return None
            seen.add(v)
            extra.append((e, v))
            continue
        if sizes[v] != 1:
            return None
        seen.add(v)
        mine: dict[str, list[int]] = {}
        for c in children[v]:
            t = dst[c]
            if out_edges[t] or len(g.in_edges[t]) != 1 or types[t] == "node":
                return None
            mine.setdefault(types[t], []).append(sizes[t])
        if len(children[v]) != len(out_edges[v]):
            return None
        here = {}
        for t, lst in mine.items():
            if len(set(lst)) != 1:
                return None
            here[t] = (len(lst), lst[0])
        if kind is None:
            kind = here
        elif here != kind:
            return None
        pos[e] = len(nodes)
        nodes.append(v)
        node_edges.append(children[v])
    if not nodes or (kind and any(types[v] in kind for _, v in extra)):
        return None
    ids = g.ids
    if len({ids[v] for v in nodes}) != len(nodes):
        return None
    low = sorted(range(len(nodes)), key=lambda i: ids[nodes[i]])
    key = (g.num_vertices, g.num_edges)
    return Shape(key, root, nodes, node_edges, kind or {}, pos, low, extra)


def _fixed(r: Request) -> bool:
    return r.count_min == r.count_max and r.count_min >= 1


def node_request(requests: list[Request], kind: dict[str, tuple[int, int]]) -> int:
    """``p`` when ``requests`` is ``node[p] (exclusive) > slot[1] > leaves`` that a free node of
    ``kind`` always serves (fixed counts, no labels below the slot, distinct leaf types each
    found below every node in enough units); else 0.

    >>> from types import SimpleNamespace as R
    >>> core = R(type="core", count_min=2, count_max=2, exclusive=None, label="", with_=())
    >>> slot = R(type="slot", count_min=1, count_max=1, exclusive=None, label="t", with_=(core,))
    >>> node = R(type="node", count_min=3, count_max=3, exclusive=True, label="", with_=(slot,))
    >>> node_request([node], {"core": (4, 1)}), node_request([node], {"core": (1, 1)})
    (3, 0)
    """
    if len(requests) != 1:
        return 0
    r = requests[0]
    if r.type != "node" or r.exclusive is not True or r.label or not _fixed(r):
        return 0
    if len(r.with_) != 1:
        return 0
    slot = r.with_[0]
    if slot.type != "slot" or slot.count_min != 1 or slot.count_max != 1 or not slot.with_:
        return 0
    seen = set()
    for c in slot.with_:
        got = kind.get(c.type)
        if (
            got is None
            or c.type in seen
            or c.with_
            or c.label
            or c.exclusive is not None
            or not _fixed(c)
        ):
            return 0
        seen.add(c.type)
        count, size = got
        if count * size < c.count_min or count < -(-c.count_min // size):
            return 0
    return r.count_min
