"""Removing vertices from a :class:`~fluxgraph.graph.ResourceGraph` (subgraph and rank removal).

The reference stores its graph in a Boost ``adjacency_list<vecS, vecS>``, where removing a vertex
renumbers every later vertex and edge while keeping their relative order. This module does the
same: the surviving vertices and edges are compacted to dense ids in their old order, every
per-vertex and per-edge list (scheduling slots included) is compacted alongside, and the
metadata indexes (``by_type``, ``by_name``, ``by_rank``, ``by_path``, ``roots``) are rebuilt in
insertion order. Stored fields such as ``uniq_id``, ``paths`` and names are untouched, so writers
print the same ids as before. Callers holding vertex or edge ids use the returned maps.
"""

from __future__ import annotations

from collections.abc import Iterable

from fluxgraph.errors import GraphError
from fluxgraph.graph.store import ResourceGraph

__all__ = ["remove_vertices", "subtree"]

_VERTEX_FIELDS = (
    "types",
    "basenames",
    "names",
    "ids",
    "uniq_ids",
    "ranks",
    "sizes",
    "units",
    "properties",
    "paths",
    "status",
    "member_of",
)
_EDGE_FIELDS = ("edge_src", "edge_dst", "edge_subsystem", "edge_member_of")


def subtree(graph: ResourceGraph, root: int, subsystem: str) -> list[int]:
    """``root`` and every vertex reachable from it over ``subsystem`` edges, in pre-order.

    Runtime complexity: O(size of the subtree).

    Raises
    ------
    GraphError
        If ``root`` is not a vertex id.

    Examples
    --------
    >>> g = ResourceGraph()
    >>> c = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    >>> n = g.add_vertex("node", "n", 0, paths={"containment": "/c0/n0"})
    >>> k = g.add_vertex("core", "core", 0, paths={"containment": "/c0/n0/core0"})
    >>> _ = g.add_edge(c, n, "containment"); _ = g.add_edge(n, k, "containment")
    >>> subtree(g, n, "containment")
    [1, 2]
    """
    if not 0 <= root < graph.num_vertices:
        raise GraphError(f"no vertex with id {root!r}")
    children = graph.children(subsystem)
    seen = {root}
    order = []
    stack = [root]
    while stack:
        u = stack.pop()
        order.append(u)
        for v in reversed(children[u]):
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return order


def remove_vertices(graph: ResourceGraph, doomed: Iterable[int]) -> tuple[list[int], list[int]]:
    """Remove the vertices ``doomed`` and every edge touching them; compact the ids.

    Returns ``(vmap, emap)``: for every old vertex (edge) id its new id, or -1 if it was removed.
    A removed subsystem root is dropped from ``roots``; empty metadata keys are dropped.

    Runtime complexity: O(V + E).

    Raises
    ------
    GraphError
        If some id in ``doomed`` is not a vertex (nothing is changed then).

    Examples
    --------
    >>> g = ResourceGraph()
    >>> c = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    >>> a = g.add_vertex("node", "node", 0, rank=0, paths={"containment": "/c0/node0"})
    >>> b = g.add_vertex("node", "node", 1, rank=1, paths={"containment": "/c0/node1"})
    >>> _ = g.add_edge(c, a, "containment"); _ = g.add_edge(c, b, "containment")
    >>> remove_vertices(g, [a])
    ([0, -1, 1], [-1, 0])
    >>> g.names, g.uniq_ids, g.by_rank, g.children("containment")
    (['c0', 'node1'], [0, 2], {-1: [0], 1: [1]}, [[1], []])
    """
    n = graph.num_vertices
    gone = set(doomed)
    for v in gone:
        if not isinstance(v, int) or not 0 <= v < n:
            raise GraphError(f"no vertex with id {v!r}")
    vmap = [-1] * n
    k = 0
    for v in range(n):
        if v not in gone:
            vmap[v] = k
            k += 1
    src, dst = graph.edge_src, graph.edge_dst
    m = graph.num_edges
    emap = [-1] * m
    j = 0
    for e in range(m):
        if src[e] not in gone and dst[e] not in gone:
            emap[e] = j
            j += 1
    keep_v = [v for v in range(n) if vmap[v] >= 0]
    keep_e = [e for e in range(m) if emap[e] >= 0]
    for name in _VERTEX_FIELDS:
        lst = getattr(graph, name)
        lst[:] = [lst[v] for v in keep_v]
    sched = graph.schedule
    for name in sched.__slots__:
        lst = getattr(sched, name)
        if len(lst) == n:
            lst[:] = [lst[v] for v in keep_v]
        else:  # slots not grown to the graph size yet: keep what exists
            lst[:] = [lst[v] for v in keep_v if v < len(lst)]
    for name in _EDGE_FIELDS:
        lst = getattr(graph, name)
        lst[:] = [lst[e] for e in keep_e]
    graph.edge_src[:] = [vmap[u] for u in graph.edge_src]
    graph.edge_dst[:] = [vmap[u] for u in graph.edge_dst]
    graph.out_edges[:] = [[emap[e] for e in graph.out_edges[v] if emap[e] >= 0] for v in keep_v]
    graph.in_edges[:] = [[emap[e] for e in graph.in_edges[v] if emap[e] >= 0] for v in keep_v]
    graph.reindex_edges()
    for index in (graph.by_type, graph.by_name, graph.by_rank, graph.by_path):
        for key in list(index):
            vs = [vmap[v] for v in index[key] if vmap[v] >= 0]
            if vs:
                index[key] = vs
            else:
                del index[key]
    for sub in list(graph.roots):
        root = vmap[graph.roots[sub]]
        if root < 0:
            del graph.roots[sub]
        else:
            graph.roots[sub] = root
    return vmap, emap
