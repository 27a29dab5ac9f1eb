"""Whole-graph JGF writer: every vertex and edge in the reference ``jgf`` match writer's format.

Node elements are ``{"id": "<uniq_id>", "metadata": {...}}`` with the metadata keys in the
reference order, each only when needed: ``type``; ``basename`` when it differs from the type;
``name`` when it differs from ``basename + str(id)``; ``id``; ``rank``; ``properties`` (sorted)
when non-empty; ``unit`` when non-empty; ``size`` (the pool size here) when not 1; ``paths``
(subsystem intern order) when non-empty. ``uniq_id``, ``status`` and ``exclusive`` are never
written. Edge elements are ``{"source": ..., "target": ...}`` plus
``"metadata": {"subsystem": ...}`` for non-containment edges. Nodes follow vertex id order and
edges global edge order, so :func:`~fluxgraph.readers.jgf.from_jgf` rebuilds the same graph
(except ``unit``, which the reference reader drops, and ``status``).

:func:`dumps` prints any JSON value the way the reference's jansson ``json_dumps(...,
JSON_INDENT(0))`` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from fluxgraph.graph import CONTAINMENT
from fluxgraph.writers._json import dumps

if TYPE_CHECKING:
    from fluxgraph.graph import ResourceGraph

__all__ = ["dumps", "edge_element", "node_element", "to_jgf", "write_jgf"]


def node_element(
    graph: ResourceGraph, v: int, needs: int | None = None, exclusive: bool = False
) -> dict[str, Any]:
    """The JGF node object of vertex ``v``.

    Parameters
    ----------
    graph, v
        The graph and the vertex.
    needs
        The ``size`` to write (only when not 1); the vertex's pool size when ``None``.
    exclusive
        Write ``"exclusive": true`` (before ``size``); never ``false``.

    Examples
    --------
    >>> from fluxgraph.graph import ResourceGraph
    >>> g = ResourceGraph()
    >>> m = g.add_vertex("memory", "memory", 6, size=2, unit="GB", paths={"containment": "/m6"})
    >>> node_element(g, m)
    {'id': '0', 'metadata': {'type': 'memory', 'id': 6, 'rank': -1, 'unit': 'GB', 'size': 2, \
'paths': {'containment': '/m6'}}}
    >>> node_element(g, m, 1, True)["metadata"]
    {'type': 'memory', 'id': 6, 'rank': -1, 'unit': 'GB', 'exclusive': True, \
'paths': {'containment': '/m6'}}
    """
    vtype = graph.types[v]
    basename = graph.basenames[v]
    vid = graph.ids[v]
    meta: dict[str, Any] = {"type": vtype}
    if basename != vtype:
        meta["basename"] = basename
    if graph.names[v] != f"{basename}{vid}":
        meta["name"] = graph.names[v]
    meta["id"] = vid
    meta["rank"] = graph.ranks[v]
    if graph.properties[v]:
        meta["properties"] = dict(sorted(graph.properties[v].items()))
    if graph.units[v]:
        meta["unit"] = graph.units[v]
    if exclusive:
        meta["exclusive"] = True
    size = graph.sizes[v] if needs is None else needs
    if size != 1:
        meta["size"] = size
    if graph.paths[v]:
        meta["paths"] = dict(graph.paths[v])  # the store keeps subsystem intern order
    return {"id": str(graph.uniq_ids[v]), "metadata": meta}


def edge_element(graph: ResourceGraph, e: int) -> dict[str, Any]:
    """The JGF edge object of edge ``e``.

    Examples
    --------
    >>> from fluxgraph.graph import ResourceGraph
    >>> g = ResourceGraph()
    >>> a, b = g.add_vertex("cluster", "c", 0), g.add_vertex("pdu", "pdu", 0)
    >>> edge_element(g, g.add_edge(a, b, "power"))
    {'source': '0', 'target': '1', 'metadata': {'subsystem': 'power'}}
    """
    uniq = graph.uniq_ids
    out: dict[str, Any] = {
        "source": str(uniq[graph.edge_src[e]]),
        "target": str(uniq[graph.edge_dst[e]]),
    }
    if graph.edge_subsystem[e] != CONTAINMENT:
        out["metadata"] = {"subsystem": graph.edge_subsystem[e]}
    return out


def to_jgf(graph: ResourceGraph) -> dict[str, Any]:
    """The whole graph as a JGF document ``{"graph": {"nodes": [...], "edges": [...]}}``.

    Runtime complexity: O(V + E).

    Examples
    --------
    >>> from fluxgraph.graph import ResourceGraph
    >>> g = ResourceGraph()
    >>> c = g.add_vertex("cluster", "tiny", 0, paths={"containment": "/tiny0"})
    >>> n = g.add_vertex("node", "node", 0, rank=0, paths={"containment": "/tiny0/node0"})
    >>> _ = g.add_edge(c, n, "containment")
    >>> dumps(to_jgf(g))  # doctest: +NORMALIZE_WHITESPACE
    '{"graph": {"nodes": [{"id": "0", "metadata": {"type": "cluster", "basename": "tiny",
    "id": 0, "rank": -1, "paths": {"containment": "/tiny0"}}}, {"id": "1", "metadata":
    {"type": "node", "id": 0, "rank": 0, "paths": {"containment": "/tiny0/node0"}}}],
    "edges": [{"source": "0", "target": "1"}]}}'
    """
    nodes = [node_element(graph, v) for v in range(graph.num_vertices)]
    edges = [edge_element(graph, e) for e in range(graph.num_edges)]
    return {"graph": {"nodes": nodes, "edges": edges}}


def write_jgf(graph: ResourceGraph, target: str | Path | IO[str]) -> None:
    """Write ``dumps(to_jgf(graph))`` plus a newline to a path or an open text file."""
    text = dumps(to_jgf(graph)) + "\n"
    if isinstance(target, (str, Path)):
        Path(target).write_text(text)
    else:
        target.write(text)
