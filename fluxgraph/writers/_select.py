"""Subsystem filtering shared by the whole-graph writers (the reference's filtered graph)."""

from __future__ import annotations

from collections.abc import Iterable

from fluxgraph.graph import ResourceGraph

__all__ = ["select"]


def select(graph: ResourceGraph, subsystems: Iterable[str] | None) -> tuple[list[int], list[int]]:
    """Vertex ids and edge ids (ascending) kept by a subsystem filter.

    With ``subsystems=None`` everything is kept. Otherwise a vertex is kept when it is a member
    of one of ``subsystems``, and an edge when it is a member of one of them and both its ends
    are kept.
    """
    if subsystems is None:
        return list(range(graph.num_vertices)), list(range(graph.num_edges))
    wanted = frozenset(subsystems)
    kept = [not wanted.isdisjoint(members) for members in graph.member_of]
    vertices = [v for v, keep in enumerate(kept) if keep]
    src, dst = graph.edge_src, graph.edge_dst
    edges = [
        e
        for e, members in enumerate(graph.edge_member_of)
        if kept[src[e]] and kept[dst[e]] and not wanted.isdisjoint(members)
    ]
    return vertices, edges
