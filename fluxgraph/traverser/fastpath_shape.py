"""The flat machines and the requests the fast path answers (:mod:`.fastpath`).

:func:`flat_shape` reads a traverser's graph as a root holding alike nodes that hold only
leaves, and maybe leaves of its own (a pool: burst-buffer chunks, say); :func:`node_request`
tells whether a request is a whole-node one that every free node of such a machine serves,
maybe beside whole leaves of such a pool.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fluxgraph.traverser.core import Traverser
    from fluxgraph.traverser.request import Request

__all__ = ["Shape", "Want", "flat_shape", "node_request"]

#: What the engine answers: ``(p, pool type, q, serving)``: ``p`` whole nodes, and ``q`` whole
#: leaves of the root's pool type (``("", 0)`` when the request asks for none); ``serving`` says
#: per node kind whether a free node of that kind serves the request (``None``: every kind).
Want = tuple[int, str, int, "list[bool] | None"]


class Shape:
    """The flat machine as the engine reads it (built once per graph version)."""

    __slots__ = (
        "by_id_high",
        "by_id_low",
        "edges",
        "extra",
        "key",
        "kind_of",
        "kinds",
        "node_edges",
        "nodes",
        "pool",
        "pool_at",
        "pos",
        "root",
    )

    def __init__(
        self, key, root, nodes, node_edges, kinds, kind_of, pos, low, extra=(), pool=None, at=()
    ):
        self.key = key
        self.root = root
        #: node vertex per position (positions follow the root's child edges)
        self.nodes: list[int] = nodes
        #: each node's child edges (all to leaves)
        self.node_edges: list[list[int]] = node_edges
        #: the distinct node kinds: leaf type -> (count, size) below a node
        self.kinds: list[dict[str, tuple[int, int]]] = kinds
        #: each node's kind (an index into :attr:`kinds`)
        self.kind_of: list[int] = kind_of
        #: root child edge id -> position (node edges only)
        self.pos: dict[int, int] = pos
        #: the root's child edge per node position
        self.edges: list[int] = sorted(pos, key=pos.__getitem__)
        #: the root's own leaves (edge, vertex), in child-edge order (the engine takes those of
        #: a :attr:`pool` type whole; a job the walk booked may hold any)
        self.extra: tuple[tuple[int, int], ...] = tuple(extra)
        self.by_id_low: list[int] = low
        self.by_id_high: list[int] = low[::-1]
        #: pool leaf type -> (size, positions by ascending id): the root's own leaves of one
        #: size and distinct ids, the ``k``-th of :attr:`extra` at position ``len(nodes) + k``
        self.pool: dict[str, tuple[int, list[int]]] = pool or {}
        #: per root leaf: how many node edges precede it among the root's child edges
        self.pool_at: tuple[int, ...] = tuple(at)

    def emission(self, positions: list[int]) -> list[int]:
        """``positions`` (ascending) in the root's child-edge order (the update walk's).

        >>> kinds, kind_of, pos = [{}], [0, 0], {5: 0, 6: 1}
        >>> s = Shape((0, 0), 0, [1, 2], [[], []], kinds, kind_of, pos, [0, 1], [(7, 3)], at=[1])
        >>> s.emission([0, 1, 2])
        [0, 2, 1]
        """
        n = len(self.nodes)
        if not positions or positions[-1] < n:
            return positions
        nodes = [i for i in positions if i < n]
        out: list[int] = []
        k = 0
        at = self.pool_at
        for j in (i for i in positions if i >= n):
            before = at[j - n]
            while k < len(nodes) and nodes[k] < before:
                out.append(nodes[k])
                k += 1
            out.append(j)
        out.extend(nodes[k:])
        return out

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
    parent and only leaf children, a node's leaves of one type of one size (nodes fall in
    kinds by their leaf types, counts and sizes); the root's other children, if any, are
    leaves of types no node holds (a pool)."""
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
    nodes, node_edges, pos, extra, at = [], [], {}, [], []
    kinds: list[dict[str, tuple[int, int]]] = []
    kind_of: list[int] = []
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
            at.append(len(nodes))
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
        if here not in kinds:
            kinds.append(here)
        kind_of.append(kinds.index(here))
        pos[e] = len(nodes)
        nodes.append(v)
        node_edges.append(children[v])
    held = {t for kind in kinds for t in kind}
    if not nodes or any(types[v] in held for _, v in extra):
        return None
    ids = g.ids
    if len({ids[v] for v in nodes}) != len(nodes):
        return None
    low = sorted(range(len(nodes)), key=lambda i: ids[nodes[i]])
    key = (g.num_vertices, g.num_edges)
    pool = _pool(g, nodes, extra)
    return Shape(key, root, nodes, node_edges, kinds, kind_of, pos, low, extra, pool, at)


def _pool(g, nodes: list[int], extra: list[tuple[int, int]]) -> dict[str, tuple[int, list[int]]]:
    """The root's leaf types whose leaves share one size and have distinct ids, each with its
    size and its leaves' positions by ascending id."""
    by_type: dict[str, list[int]] = {}
    for k, (_, v) in enumerate(extra):
        by_type.setdefault(g.types[v], []).append(k)
    pool = {}
    n = len(nodes)
    for t, ks in by_type.items():
        vs = [extra[k][1] for k in ks]
        if len({g.sizes[v] for v in vs}) == 1 and len({g.ids[v] for v in vs}) == len(vs):
            order = sorted(ks, key=lambda k: g.ids[extra[k][1]])
            pool[t] = (g.sizes[vs[0]], [n + k for k in order])
    return pool


def _fixed(r: Request) -> bool:
    return r.count_min == r.count_max and r.count_min >= 1


def node_request(
    requests: list[Request],
    kinds: list[dict[str, tuple[int, int]]],
    pool: dict[str, tuple[int, list[int]]] | None = None,
) -> Want | None:
    """``(p, t, q, serving)`` when ``requests`` is ``node[p] (exclusive) > slot[1] > leaves``
    (fixed counts, no labels below the slot, distinct leaf types) that a free node of some of
    the ``kinds`` serves (holds each leaf type in enough units), maybe beside ``t[q * size]``
    (exclusive, fixed) of a ``pool`` type with at least ``q`` leaves; else ``None``.

    >>> from types import SimpleNamespace as R
    >>> core = R(type="core", count_min=2, count_max=2, exclusive=None, label="", with_=())
    >>> slot = R(type="slot", count_min=1, count_max=1, exclusive=None, label="t", with_=(core,))
    >>> node = R(type="node", count_min=3, count_max=3, exclusive=True, label="", with_=(slot,))
    >>> bb = R(type="bb", count_min=8, count_max=8, exclusive=True, label="", with_=())
    >>> node_request([node], [{"core": (4, 1)}]), node_request([node], [{"core": (1, 1)}])
    ((3, '', 0, None), None)
    >>> node_request([node, bb], [{"core": (4, 1)}, {"core": (1, 1)}], {"bb": (4, [5, 6, 7])})
    (3, 'bb', 2, [True, False])
    """
    if not 1 <= len(requests) <= 2:
        return None
    r = requests[0]
    want: tuple[str, int] | None = ("", 0)
    if len(requests) == 2:
        want = _pool_request(requests[1], pool or {})
        if want is None:
            r, want = requests[1], _pool_request(requests[0], pool or {})
            if want is None:
                return None
    if r.type != "node" or r.exclusive is not True or r.label or not _fixed(r):
        return None
    if len(r.with_) != 1:
        return None
    slot = r.with_[0]
    if slot.type != "slot" or slot.count_min != 1 or slot.count_max != 1 or not slot.with_:
        return None
    seen = set()
    for c in slot.with_:
        if c.type in seen or c.with_ or c.label or c.exclusive is not None or not _fixed(c):
            return None
        seen.add(c.type)
    serving = [_serves(kind, slot.with_) for kind in kinds]
    if not any(serving):
        return None
    return r.count_min, *want, None if all(serving) else serving


def _serves(kind: dict[str, tuple[int, int]], leaves) -> bool:
    """Whether a free node of ``kind`` holds every leaf request in enough units."""
    for c in leaves:
        got = kind.get(c.type)
        if got is None:
            return False
        count, size = got
        if count * size < c.count_min or count < -(-c.count_min // size):
            return False
    return True


def _pool_request(r: Request, pool: dict[str, tuple[int, list[int]]]) -> tuple[str, int] | None:
    """``(t, q)`` when ``r`` asks for ``q`` whole leaves of pool type ``t`` (exclusive, fixed
    count a multiple of the leaf size, no label, nothing below); else ``None``."""
    got = pool.get(r.type)
    if got is None or r.exclusive is not True or r.label or r.with_ or not _fixed(r):
        return None
    size, leaves = got
    q, rest = divmod(r.count_min, size)
    if rest or q > len(leaves):
        return None
    return r.type, q
