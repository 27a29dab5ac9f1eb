"""Whole-graph GraphViz DOT writer (what the reference's ``-g dot`` describes).

One line per vertex, ``<vid>[label="<name>"];``, then one per edge,
``<src>-><dst> [label="<subsystem>"];``, in vertex-id and edge-insertion order, the layout
Boost ``write_graphviz`` produces. Quotes and backslashes in labels are escaped.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from fluxgraph.graph import ResourceGraph
from fluxgraph.writers._select import select

__all__ = ["to_dot", "write_dot"]


def _label(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def to_dot(graph: ResourceGraph, *, subsystems: Iterable[str] | None = None) -> str:
    """The DOT text of ``graph``, optionally filtered to ``subsystems``.

    Vertex labels are vertex names; edge labels are the edge's subsystem. Vertex ids in the
    text are graph vertex ids (a filtered graph keeps its ids, so they may have gaps).

    Examples
    --------
    >>> g = ResourceGraph()
    >>> c = g.add_vertex("cluster", "tiny", 0, paths={"containment": "/tiny0"})
    >>> n = g.add_vertex("node", "node", 0, paths={"containment": "/tiny0/node0"})
    >>> _ = g.add_edge(c, n, "containment")
    >>> print(to_dot(g), end="")
    digraph G {
    0[label="tiny0"];
    1[label="node0"];
    0->1 [label="containment"];
    }
    """
    vertices, edges = select(graph, subsystems)
    names, src, dst, sub = graph.names, graph.edge_src, graph.edge_dst, graph.edge_subsystem
    lines = ["digraph G {"]
    lines.extend(f'{v}[label="{_label(names[v])}"];' for v in vertices)
    lines.extend(f'{src[e]}->{dst[e]} [label="{_label(sub[e])}"];' for e in edges)
    lines.append("}\n")
    return "\n".join(lines)


def write_dot(
    graph: ResourceGraph, path: str | Path, *, subsystems: Iterable[str] | None = None
) -> None:
    """Write :func:`to_dot` of ``graph`` to ``path``."""
    Path(path).write_text(to_dot(graph, subsystems=subsystems))
