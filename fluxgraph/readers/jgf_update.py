"""JGF selections: a match written as JGF, read back against the graph it was matched on.

``resource-query``'s ``update`` re-creates an allocation from the JGF a match printed, and its
``partial-cancel`` releases the vertices a JGF lists. Both find every listed node in the graph
(§3.6 of the reference's I/O specification):

* each of the node's paths must name a vertex of the node's rank, and all of them the same one;
* that vertex must agree with the node in type, basename, size, id, name and paths;
* a node id may be used once.

For ``update`` the reader also checks, node by node, that the vertex's planner can take the
job (exclusive nodes: their whole size over ``[at, at + duration)``; shared nodes: the vertex
must be entirely free then), and reads each edge's ``needs``/``exclusive`` marks from its target
node. In ``jgf_shorthand`` mode an exclusive node stands for its whole containment subtree.

Nothing here changes the graph: the functions return a :class:`Selection` that the traverser
applies (:mod:`fluxgraph.traverser.elastic`). Every :class:`~fluxgraph.errors.ReaderError` carries
the reference's message as ``reference_message``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fluxgraph import idset
from fluxgraph.errors import PlannerError, ReaderError
from fluxgraph.graph import CONTAINMENT, ResourceGraph
from fluxgraph.readers.jgf import JgfNode, graph_body, loads, parse_node

__all__ = ["Selection", "read_selection", "read_update"]

#: Called with each found vertex and its node; raises ReaderError to reject it.
VertexCheck = Callable[[int, JgfNode], None]


class Selection:
    """Vertices and edge marks named by a JGF selection.

    ``vertices`` lists ``(vertex, node)`` in document order (``jgf_shorthand`` descendants right
    after their exclusive ancestor); ``spans`` the ``(vertex, units)`` an update plans;
    ``edges`` the ``(edge, needs, exclusive)`` marks; ``roots`` the subsystem -> ``(needs,
    exclusive)`` marks of the virtual edge into each subsystem root.
    """

    __slots__ = ("edges", "roots", "spans", "vertices")

    def __init__(self) -> None:
        self.vertices: list[tuple[int, JgfNode]] = []
        self.spans: list[tuple[int, int]] = []
        self.edges: list[tuple[int, int, bool]] = []
        self.roots: dict[str, tuple[int, bool]] = {}


def _fail(source: str, problem: str, reference: str) -> ReaderError:
    return ReaderError(f"{source}: {problem}", reference_message=reference)


def _pairs(items) -> str:
    return "".join(f"{k}={v} " for k, v in items)


def _diff(g: ResourceGraph, v: int, node: JgfNode) -> str:
    """The reference's field-by-field difference text ("" when the vertex matches).

    Properties do not decide a match; they are listed only next to another difference.
    """
    parts = [
        f"{label}=({have}, {want})"
        for label, have, want in (
            ("type", g.types[v], node.type),
            (" basename", g.basenames[v], node.basename),
            (" size", g.sizes[v], node.size),
            (" id", g.ids[v], node.id),
            (" name", g.names[v], node.name),
        )
        if have != want
    ]
    paths_differ = dict(node.paths) != g.paths[v]
    if not parts and not paths_differ:
        return ""
    props = node.properties or {}
    if props and props != g.properties[v]:
        graph_props, node_props = _pairs(g.properties[v].items()), _pairs(sorted(props.items()))
        parts.append(f" properties=({graph_props}, {node_props})")
    if paths_differ:
        parts.append(f" paths=({_pairs(g.paths[v].items())}, {_pairs(node.paths)})")
    return "".join(parts)


def _find(g: ResourceGraph, node: JgfNode, source: str) -> int:
    """The graph vertex ``node`` names (``find_vtx``)."""
    found = None
    ranks, by_path = g.ranks, g.by_path
    for _sub, path in node.paths:
        v = next((u for u in by_path.get(path, ()) if ranks[u] == node.rank), None)
        if v is None:
            raise _fail(
                source,
                f"node {node.key!r}: no vertex of rank {node.rank} at path {path!r}",
                f"exist: inconsistent input vertex: nonexistent path ({path}) {node.key}.\n",
            )
        if found is not None and v != found:
            raise _fail(
                source,
                f"node {node.key!r}: its paths name vertices {found} and {v}",
                f"find_vtx: inconsistent input vertex for {path} (id={node.key}).\n"
                f"{found} != {v}.\n",
            )
        found = v
    if found is None:
        raise _fail(
            source,
            f"node {node.key!r} has no paths",
            f"find_vtx: inconsistent input vertex for {node.key}.\n.\n",
        )
    diff = _diff(g, found, node)
    if diff:
        raise _fail(
            source,
            f"node {node.key!r} differs from vertex {found}: {diff}",
            f"find_vtx: inconsistent input vertex for {node.key}.\n{diff}.\n",
        )
    return found


def _free_ranks(doc: dict, source: str) -> set[int]:
    if "free_ranks" not in doc:
        return set()
    value = doc["free_ranks"]
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    try:
        return set(idset.decode(text.replace('"', "")))
    except ValueError as err:
        raise _fail(
            source,
            f"free_ranks: {err}",
            f"update: can't decode free_ranks {text}.\n",
        ) from err


class _Reader:
    """One pass over a selection document (see :func:`read_selection`)."""

    def __init__(self, g: ResourceGraph, source: str, check: VertexCheck | None) -> None:
        self.g = g
        self.source = source
        self.check = check
        self.sel = Selection()
        self.vmap: dict[str, tuple[int, JgfNode]] = {}

    def add(self, v: int, node: JgfNode) -> None:
        if node.key in self.vmap:
            raise _fail(
                self.source,
                f"duplicate node id {node.key!r}",
                f"find_vtx: found duplicate JGF node id for {node.key}.\n",
            )
        if self.check is not None:
            self.check(v, node)
        self.vmap[node.key] = (v, node)
        self.sel.vertices.append((v, node))

    def expand(self, v: int) -> None:
        """``jgf_shorthand``: add the containment subtree below ``v`` as exclusive nodes."""
        g = self.g
        children = g.child_edges(CONTAINMENT)
        stack = list(reversed(children[v]))
        while stack:
            e = stack.pop()
            u = g.edge_dst[e]
            node = JgfNode(
                str(g.uniq_ids[u]), g.types[u], g.basenames[u], g.names[u], g.ids[u],
                g.uniq_ids[u], g.ranks[u], g.status[u], True, g.units[u], g.sizes[u],
                dict(g.properties[u]), tuple(g.paths[u].items()),
            )  # fmt: skip
            self.add(u, node)
            self.sel.edges.append((e, g.sizes[u], True))
            stack.extend(reversed(children[u]))

    def edges(self, raw_edges: list[Any], skip_unknown: bool) -> None:
        g, source, vmap, sel = self.g, self.source, self.vmap, self.sel
        for index, raw in enumerate(raw_edges):
            if not (
                isinstance(raw, dict)
                and isinstance(raw.get("source"), str)
                and isinstance(raw.get("target"), str)
            ):
                raise _fail(
                    source,
                    f"edge #{index} is malformed",
                    "unpack_edge: encountered a malformed edge.\n",
                )
            s_key, t_key = raw["source"], raw["target"]
            if s_key not in vmap or t_key not in vmap:
                if skip_unknown:
                    continue
                raise _fail(
                    source,
                    f"edge #{index}: unknown node id",
                    f"unpack_edge: source and/or target vertex not found{s_key} -> {t_key}.\n",
                )
            meta = raw.get("metadata", {})
            if not isinstance(meta, dict) or not isinstance(meta.get("subsystem", ""), str):
                raise _fail(
                    source,
                    f"edge #{index}: bad metadata",
                    "unpack_edge: could not unpack edge metadata.\n",
                )
            sub = meta.get("subsystem", CONTAINMENT)
            (u, u_node), (v, v_node) = vmap[s_key], vmap[t_key]
            e = g.edge_id(u, v)
            if e is None:
                raise _fail(
                    source,
                    f"edge #{index}: no edge {s_key} -> {t_key} in the graph",
                    f"update_tgt_edge: JGF edge from {s_key} to {t_key} not found in resource "
                    "graph.\n",
                )
            sel.edges.append((e, v_node.size, v_node.exclusive))
            if g.roots.get(sub) == u and sub not in sel.roots:
                sel.roots[sub] = (u_node.size, u_node.exclusive)


def read_selection(
    graph: ResourceGraph,
    text: str | dict,
    *,
    source: str = "<string>",
    shorthand: bool = False,
    check: VertexCheck | None = None,
    edges: bool = True,
) -> Selection:
    """Find the vertices (and edges) the JGF ``text`` (or parsed document) names in ``graph``.

    ``check(vertex, node)`` runs right after each vertex is found, so its error comes in the
    reference's order. ``shorthand`` expands exclusive nodes into their containment subtrees.
    Nodes of a rank listed in the document's ``free_ranks`` are skipped, and so are edges
    touching them. With ``edges=False`` the edges are not read at all (partial cancel).

    Raises
    ------
    ReaderError
        For malformed JGF, a node that names no vertex or the wrong one, a duplicate node id,
        an edge the graph does not have, or whatever ``check`` rejects.

    Examples
    --------
    >>> from fluxgraph.readers.jgf import from_jgf
    >>> nodes = [{"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/c0"}}},
    ...          {"id": "1", "metadata": {"type": "core", "id": 0, "exclusive": True,
    ...                                   "paths": {"containment": "/c0/core0"}}}]
    >>> doc = {"graph": {"nodes": nodes, "edges": [{"source": "0", "target": "1"}]}}
    >>> sel = read_selection(from_jgf(doc), doc)
    >>> [v for v, _ in sel.vertices], sel.edges, sel.roots
    ([0, 1], [(0, 1, True)], {'containment': (1, False)})
    """
    doc = loads(text, source) if isinstance(text, str) else text
    raw_nodes, raw_edges = graph_body(doc, source)
    free = _free_ranks(doc, source) if isinstance(doc, dict) else set()
    reader = _Reader(graph, source, check)
    for index, raw in enumerate(raw_nodes):
        node = parse_node(raw, index, source)
        if node.rank in free:
            continue
        v = _find(graph, node, source)
        reader.add(v, node)
        if shorthand and node.exclusive:
            reader.expand(v)
    if edges:
        reader.edges(raw_edges, bool(free))
    return reader.sel


def read_update(
    graph: ResourceGraph,
    text: str | dict,
    at: int,
    duration: int,
    *,
    source: str = "<string>",
    shorthand: bool = False,
) -> Selection:
    """:func:`read_selection` plus the planner checks of an update over ``[at, at + duration)``.

    Exclusive nodes must fit their whole size into their vertex's planner (their
    ``(vertex, size)`` goes to ``spans``); shared nodes must find their vertex entirely free.

    Raises
    ------
    ReaderError
        As :func:`read_selection`; ``update: invalid time`` for ``at < 0`` or ``duration <= 0``;
        ``update_vtx_plan: ...`` when a vertex cannot take the job.
    """
    if at < 0 or duration <= 0:
        raise _fail(
            source,
            f"invalid time window ({at}, {duration})",
            f"update: invalid time ({at}, {duration}).\n",
        )
    plans, sizes, names = graph.schedule.plans, graph.sizes, graph.names
    planned: dict[int, int] = {}
    spans: list[tuple[int, int]] = []

    def check(v: int, node: JgfNode) -> None:
        plan = plans[v] if v < len(plans) else None
        try:
            free = sizes[v] if plan is None else plan.avail_resources_during(at, duration)
        except PlannerError:
            free = -1
        free -= planned.get(v, 0)
        if node.exclusive:
            if free < sizes[v]:
                raise _fail(
                    source,
                    f"vertex {names[v]!r} cannot take {sizes[v]} units",
                    f"update_vtx_plan: can't add span into {names[v]}.\n",
                )
            planned[v] = planned.get(v, 0) + sizes[v]
            spans.append((v, sizes[v]))
        elif free < sizes[v]:
            raise _fail(
                source,
                f"vertex {names[v]!r} is not free over the window",
                f"update_vtx_plan: {names[v]} is unavailable.\n",
            )

    sel = read_selection(graph, text, source=source, shorthand=shorthand, check=check)
    sel.spans = spans
    return sel
