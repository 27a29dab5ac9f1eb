"""Whole-graph GraphML writer (what the reference's ``-g graphml`` describes).

The document has the shape Boost ``write_graphml`` produces: eleven keys sorted by attribute
name (``basename``, ``id``, ``member_of`` of vertices, ``member_of`` of edges, ``name``,
``paths``, ``props``, ``size``, ``type``, ``uniq_id``, ``unit``), one ``<node id="n<vid>">`` per
vertex and one ``<edge id="e<k>">`` per edge. Set- and map-valued fields are written as
``{a,b}`` and ``{k=v,k2=v2}`` strings (subsystems in intern order, properties by key). The
result is not a GRUG recipe; ``networkx.read_graphml`` reads it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from xml.sax.saxutils import escape

from fluxgraph.graph import ResourceGraph
from fluxgraph.writers._select import select

__all__ = ["to_graphml", "write_graphml"]

_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
    'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n'
)
#: (for, attr.name, attr.type), in Boost's key order (sorted by attribute name); the ``i``-th
#: is declared as ``key<i>``.
_KEYS = (
    ("node", "basename", "string"),
    ("node", "id", "long"),
    ("node", "member_of", "string"),
    ("edge", "member_of", "string"),
    ("node", "name", "string"),
    ("node", "paths", "string"),
    ("node", "props", "string"),
    ("node", "size", "long"),
    ("node", "type", "string"),
    ("node", "uniq_id", "long"),
    ("node", "unit", "string"),
)
_ENTITIES = {'"': "&quot;", "'": "&apos;"}


def _text(value: object) -> str:
    return escape(str(value), _ENTITIES)


def _braces(items: Iterable[str]) -> str:
    return "{" + ",".join(items) + "}"


def to_graphml(graph: ResourceGraph, *, subsystems: Iterable[str] | None = None) -> str:
    """The GraphML text of ``graph``, optionally filtered to ``subsystems``.

    Examples
    --------
    >>> g = ResourceGraph()
    >>> _ = g.add_vertex("cluster", "tiny", 0, paths={"containment": "/tiny0"})
    >>> text = to_graphml(g)
    >>> print(text[text.index("<node") : text.index("</node>")].rstrip())
    <node id="n0">
          <data key="key0">tiny</data>
          <data key="key1">0</data>
          <data key="key2">{containment}</data>
          <data key="key4">tiny0</data>
          <data key="key5">{containment=/tiny0}</data>
          <data key="key6">{}</data>
          <data key="key7">1</data>
          <data key="key8">cluster</data>
          <data key="key9">0</data>
          <data key="key10"></data>
    """
    vertices, edges = select(graph, subsystems)
    out = [_HEAD]
    out.extend(
        f'  <key id="key{i}" for="{kind}" attr.name="{name}" attr.type="{atype}" />\n'
        for i, (kind, name, atype) in enumerate(_KEYS)
    )
    out.append(
        '  <graph id="G" edgedefault="directed" parse.nodeids="canonical" '
        'parse.edgeids="canonical" parse.order="nodesfirst">\n'
    )
    g = graph
    for v in vertices:
        values = (
            ("key0", g.basenames[v]),
            ("key1", g.ids[v]),
            ("key2", _braces(g.member_of[v])),
            ("key4", g.names[v]),
            ("key5", _braces(f"{s}={p}" for s, p in g.paths[v].items())),
            ("key6", _braces(f"{k}={p}" for k, p in g.properties[v].items())),
            ("key7", g.sizes[v]),
            ("key8", g.types[v]),
            ("key9", g.uniq_ids[v]),
            ("key10", g.units[v]),
        )
        out.append(f'    <node id="n{v}">\n')
        out.extend(f'      <data key="{k}">{_text(x)}</data>\n' for k, x in values)
        out.append("    </node>\n")
    for k, e in enumerate(edges):
        out.append(f'    <edge id="e{k}" source="n{g.edge_src[e]}" target="n{g.edge_dst[e]}">\n')
        out.append(f'      <data key="key3">{_text(_braces(g.edge_member_of[e]))}</data>\n')
        out.append("    </edge>\n")
    out.append("  </graph>\n</graphml>\n")
    return "".join(out)


def write_graphml(
    graph: ResourceGraph, path: str | Path, *, subsystems: Iterable[str] | None = None
) -> None:
    """Write :func:`to_graphml` of ``graph`` to ``path``."""
    Path(path).write_text(to_graphml(graph, subsystems=subsystems))
