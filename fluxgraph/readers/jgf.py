"""JGF reader: a JSON Graph Format document -> resource graph (formats ``jgf``, ``jgf_shorthand``).

Loading follows the reference reader: nodes in document order become vertices (index = node
order, ``uniq_id`` from the file), edges in document order become parent -> child edges with one
subsystem each. A node whose path (any subsystem) already names a vertex of the same rank reuses
that vertex instead of creating one, which is how ``attach`` grafts a subgraph onto a loaded graph
(and why two entries with the same path and rank in one file collapse into the first). Edges are
added only when one of their endpoints was created by this load. ``unit`` is read but never stored,
``status`` is restored from its integer. ``jgf_shorthand`` loads exactly like ``jgf``.

The whole document is validated before the graph is touched. Every
:class:`~fluxgraph.errors.ReaderError` carries the reference reader's message as
``reference_message``; ``str(err)`` names the source, the node or edge and the problem.

Deviations (stricter than the reference, which crashes or silently accepts): a non-object
``graph``, non-array ``nodes``/``edges``, non-object ``paths``, non-string path or property
values, a negative or over-32-bit ``size`` and a ``status`` other than 0/1 are errors.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from fluxgraph.errors import ReaderError
from fluxgraph.graph import CONTAINMENT, ResourceGraph
from fluxgraph.graph.depth import MAX_GRAPH_DEPTH, walk_depth
from fluxgraph.limits import parse_digits
from fluxgraph.readers._jansson import INT64_MAX, int64_or_none, loads

__all__ = ["JgfNode", "from_jgf", "graph_body", "load_document", "loads", "parse_node", "unpack"]

_UINT32_MAX = (1 << 32) - 1
_STOLL_PREFIX = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)")
_TRAILING_DIGITS = re.compile(r"[0-9]+\Z")
_INT_KEYS = ("id", "uniq_id", "rank", "status", "size")
_STR_KEYS = ("basename", "name", "unit")
_META_TYPES = {
    **dict.fromkeys(_INT_KEYS, int),
    **dict.fromkeys(_STR_KEYS, str),
    "type": str,
    "paths": dict,
    "properties": dict,
    "exclusive": bool,
}


class JgfNode(NamedTuple):
    """One JGF node with the reference reader's defaults applied.

    ``key`` is the node's outer ``"id"`` string (what edges refer to); ``paths`` keeps the
    document order of the ``paths`` object; ``properties`` is ``None`` when absent.
    """

    key: str
    type: str
    basename: str
    name: str
    id: int
    uniq_id: int
    rank: int
    status: int
    exclusive: bool
    unit: str
    size: int
    properties: dict[str, str] | None
    paths: tuple[tuple[str, str], ...]


def _error(source: str, where: str, problem: str, reference: str) -> ReaderError:
    return ReaderError(f"{source}: {where}: {problem}", reference_message=reference)


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _well_formed(raw: Any) -> bool:
    """Fast check that ``raw`` passes :func:`_check_node` (the common case)."""
    if type(raw) is not dict:
        return False
    meta = raw.get("metadata")
    if type(raw.get("id")) is not str or type(meta) is not dict:
        return False
    if "type" not in meta or "paths" not in meta:
        return False
    types = _META_TYPES
    for key, value in meta.items():
        expected = types.get(key)
        if expected is not None and type(value) is not expected:
            return False
    for path in meta["paths"].values():
        if type(path) is not str:
            return False
    for value in meta.get("properties", {}).values():
        if type(value) is not str:
            return False
    return 0 <= meta.get("size", 1) <= _UINT32_MAX and meta.get("status", 0) in (0, 1)


def _check_node(raw: Any, index: int, source: str) -> None:
    """Raise the reference's error for the first problem of node ``raw``."""
    where = f"node #{index}"
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        raise _error(
            source,
            where,
            "no string 'id'",
            "fill_fetcher: JGF vertex id key is not found in a node.\n",
        )
    key = raw["id"]
    where = f"node #{index} (id {key!r})"
    if "metadata" not in raw:
        raise _error(
            source,
            where,
            "no 'metadata'",
            f"fill_fetcher: key (metadata) is not found in an JGF node for {key}.\n",
        )
    meta = raw["metadata"]
    malformed = f"fill_fetcher: malformed metadata in an JGF node for {key}\n"

    def bad(problem: str) -> ReaderError:
        return _error(source, where, problem, malformed)

    if not isinstance(meta, dict):
        raise bad(f"'metadata' must be an object, not {_type_name(meta)}")
    for name in ("type", "paths"):
        if name not in meta:
            raise bad(f"metadata has no {name!r}")
    if not isinstance(meta["type"], str):
        raise bad(f"metadata 'type' must be a string, not {_type_name(meta['type'])}")
    for name in _STR_KEYS:
        if name in meta and not isinstance(meta[name], str):
            raise bad(f"metadata {name!r} must be a string, not {_type_name(meta[name])}")
    for name in _INT_KEYS:
        value = meta.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad(f"metadata {name!r} must be an integer, not {_type_name(value)}")
    if "exclusive" in meta and not isinstance(meta["exclusive"], bool):
        raise bad(f"metadata 'exclusive' must be a boolean, not {_type_name(meta['exclusive'])}")
    raw_paths = meta["paths"]
    if not isinstance(raw_paths, dict):
        raise bad(f"metadata 'paths' must be an object, not {_type_name(raw_paths)}")
    for sub, path in raw_paths.items():
        if not isinstance(path, str):
            raise bad(f"path of subsystem {sub!r} must be a string, not {_type_name(path)}")
    size = meta.get("size", 1)
    if not 0 <= size <= _UINT32_MAX:
        raise bad(f"metadata 'size' {size} is not an unsigned 32-bit integer")
    status = meta.get("status", 0)
    if status not in (0, 1):
        raise bad(f"metadata 'status' must be 0 (up) or 1 (down), not {status}")
    if "properties" in meta:
        properties = meta["properties"]
        if not isinstance(properties, dict):
            raise _error(
                source,
                where,
                f"'properties' must be an object, not {_type_name(properties)}",
                f"fill_fetcher: key (properties) must be an object or null for {key}.\n",
            )
        for pkey, pvalue in properties.items():
            if not isinstance(pvalue, str):
                raise bad(f"property {pkey!r} must be a string, not {_type_name(pvalue)}")


def parse_node(raw: Any, index: int = 0, source: str = "<string>") -> JgfNode:
    """Validate the JGF node object ``raw`` (the ``index``-th node) and apply the defaults.

    Defaults: ``basename`` = type; ``uniq_id`` = the leading integer of the outer id (as C++
    ``std::stoll``); ``id`` = ``uniq_id``, except that a ``node`` with an explicit ``name`` takes
    the name's trailing digits when it has some; ``name`` = basename + id; ``rank`` -1,
    ``status`` 0, ``size`` 1, ``unit`` "".

    Raises
    ------
    ReaderError
        With the reference's ``fill_fetcher``/``apply_defaults`` message.

    Examples
    --------
    >>> n = parse_node({"id": "7", "metadata": {"type": "core", "paths": {"containment": "/c"}}})
    >>> n.basename, n.name, n.id, n.uniq_id, n.rank
    ('core', 'core7', 7, 7, -1)
    >>> parse_node({"id": "3", "metadata": {"type": "node", "name": "fluke12", "paths": {}}}).id
    12
    """
    if not _well_formed(raw):
        _check_node(raw, index, source)
    key = raw["id"]
    meta = raw["metadata"]
    vtype = meta["type"]
    basename = meta.get("basename", vtype)
    if "uniq_id" in meta:
        uniq_id = meta["uniq_id"]
    else:
        m = _STOLL_PREFIX.match(key)
        uniq_id = int64_or_none(m.group(1)) if m else None
        if uniq_id is None:
            raise _error(
                source,
                f"node #{index} (id {key!r})",
                "no 'uniq_id' and the outer id is not an integer",
                "apply_defaults: value for key (uniq_id) could not be inferred from outer "
                f"'id' field {key}.\n",
            )
    if "id" in meta:
        vid = meta["id"]
    else:
        vid = uniq_id
        if vtype == "node" and "name" in meta:
            m = _TRAILING_DIGITS.search(meta["name"])
            if m:
                vid = parse_digits(m.group(), INT64_MAX)
                if vid is None:
                    raise _error(
                        source,
                        f"node #{index} (id {key!r})",
                        f"trailing digits of name {meta['name']!r} overflow int64",
                        f"fill_fetcher: malformed metadata in an JGF node for {key}\n",
                    )
    return JgfNode(
        key,
        vtype,
        basename,
        meta.get("name", f"{basename}{vid}"),
        vid,
        uniq_id,
        meta.get("rank", -1),
        meta.get("status", 0),
        meta.get("exclusive", False),
        meta.get("unit", ""),
        meta.get("size", 1),
        meta.get("properties"),
        tuple(meta["paths"].items()),
    )


def graph_body(doc: Any, source: str = "<dict>") -> tuple[list[Any], list[Any]]:
    """The ``graph.nodes`` and ``graph.edges`` arrays of the JGF document ``doc``.

    Raises
    ------
    ReaderError
        If a required key is missing or not an array (``fetch_jgf`` messages).

    Examples
    --------
    >>> graph_body({"graph": {"nodes": [], "edges": []}})
    ([], [])
    """
    if not isinstance(doc, dict) or "graph" not in doc:
        raise _error(
            source,
            "document",
            "no 'graph' key",
            "fetch_jgf: JGF does not contain a required key (graph).\n",
        )
    body = doc["graph"]
    for key in ("nodes", "edges"):
        if not isinstance(body, dict) or key not in body:
            raise _error(
                source,
                "'graph'",
                f"no {key!r} key",
                f"fetch_jgf: JGF does not contain a required key ({key}).\n",
            )
        if not isinstance(body[key], list):
            raise _error(
                source,
                f"'graph.{key}'",
                f"must be an array, not {_type_name(body[key])}",
                f"fetch_jgf: JGF does not contain a required key ({key}).\n",
            )
    return body["nodes"], body["edges"]


# -- loading --------------------------------------------------------------------------------------


def load_document(graph: ResourceGraph, doc: Any, source: str = "<dict>") -> None:
    """Add the vertices and edges of the parsed JGF document ``doc`` to ``graph``.

    Runtime complexity: O(N + E) for N nodes and E edges (plus the existing out-edges of reused
    edge sources).

    Raises
    ------
    ReaderError
        If the document is malformed; ``graph`` is then unchanged.
    """
    plan = _Plan(graph, source)
    plan.read(doc)
    plan.check_depth()
    plan.apply()


def unpack(
    graph: ResourceGraph,
    text: str,
    *,
    source: str = "<string>",
    rank: int = -1,
    allowlist: frozenset[str] | None = None,
) -> None:
    """Add the resources of the JGF text ``text`` to ``graph`` (``rank`` and ``allowlist`` are
    ignored, as by the reference).

    Raises
    ------
    ReaderError
        If ``text`` is not JSON or not a valid JGF document; ``graph`` is then unchanged.

    Examples
    --------
    >>> g = ResourceGraph()
    >>> unpack(g, '{"graph": {"nodes": [{"id": "0", "metadata": {"type": "cluster", '
    ...   '"basename": "tiny", "id": 0, "paths": {"containment": "/tiny0"}}}], "edges": []}}')
    >>> g.names, g.roots
    (['tiny0'], {'containment': 0})
    """
    load_document(graph, loads(text, source), source)


def from_jgf(data: Mapping[str, Any], *, source: str = "<dict>") -> ResourceGraph:
    """A new graph built from the parsed JGF document ``data`` (the pair of ``to_jgf``).

    Raises
    ------
    ReaderError
        If ``data`` is not a valid JGF document.

    Examples
    --------
    >>> doc = {"graph": {"nodes": [
    ...     {"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/c"}}},
    ...     {"id": "1", "metadata": {"type": "node", "id": 0, "paths": {"containment": "/c/n"}}}],
    ...     "edges": [{"source": "0", "target": "1"}]}}
    >>> g = from_jgf(doc)
    >>> g.names, g.children("containment")[0]
    (['cluster0', 'node0'], [1])
    """
    graph = ResourceGraph()
    load_document(graph, data, source)
    return graph


class _Plan:
    """Everything one load will add, computed without touching the graph."""

    def __init__(self, graph: ResourceGraph, source: str) -> None:
        self.graph = graph
        self.source = source
        self.nodes: list[JgfNode] = []
        self.new_nodes: list[JgfNode] = []  # one per vertex to create, in creation order
        self.edges: list[tuple[int, int, str]] = []
        self.roots: dict[str, int] = {}
        self.edge_subsystems: list[str] = []
        self.vmap: dict[str, int] = {}  # node key -> existing or planned vertex
        self.created: set[int] = set()

    def read(self, doc: Any) -> None:
        nodes, edges = graph_body(doc, self.source)
        self._read_nodes(nodes)
        self._read_edges(edges)

    def _read_nodes(self, raw_nodes: list[Any]) -> None:
        graph, source = self.graph, self.source
        base = graph.num_vertices
        g_by_path, g_ranks, g_roots = graph.by_path, graph.ranks, graph.roots
        by_path: dict[str, list[int]] = {}
        ranks: list[int] = []
        for index, raw in enumerate(raw_nodes):
            node = parse_node(raw, index, source)
            self.nodes.append(node)
            found = None
            for _sub, path in node.paths:
                for v in g_by_path.get(path, ()):
                    if g_ranks[v] == node.rank:
                        found = v
                        break
                if found is None:
                    for v in by_path.get(path, ()):
                        if ranks[v - base] == node.rank:
                            found = v
                            break
                if found is not None:
                    break
            if found is not None:
                self.vmap[node.key] = found
                continue
            if node.key in self.vmap:
                raise _error(
                    source,
                    f"node #{index}",
                    f"duplicate node id {node.key!r}",
                    f"add_vtx: found duplicate JGF node id for {node.key}.\n",
                )
            v = base + len(self.new_nodes)
            self.new_nodes.append(node)
            ranks.append(node.rank)
            self.vmap[node.key] = v
            self.created.add(v)
            for sub, path in node.paths:
                by_path.setdefault(path, []).append(v)
                if path.count("/") == 1:
                    if sub in g_roots or sub in self.roots:
                        raise _error(
                            source,
                            f"node #{index} (id {node.key!r})",
                            f"second root {path!r} for subsystem {sub!r}",
                            f"add_graph_metadata: failed to add root metadata for {sub} "
                            "subsystem. Possible duplicate root.\n",
                        )
                    self.roots[sub] = v

    def _read_edges(self, raw_edges: list[Any]) -> None:
        graph, source, vmap = self.graph, self.source, self.vmap
        base = graph.num_vertices
        out_targets: dict[int, set[int]] = {}
        for index, raw in enumerate(raw_edges):
            where = f"edge #{index}"
            if not (
                isinstance(raw, dict)
                and isinstance(raw.get("source"), str)
                and isinstance(raw.get("target"), str)
            ):
                raise _error(
                    source,
                    where,
                    "needs string 'source' and 'target'",
                    "unpack_edge: encountered a malformed edge.\n",
                )
            src_key, dst_key = raw["source"], raw["target"]
            if src_key not in vmap or dst_key not in vmap:
                missing = src_key if src_key not in vmap else dst_key
                raise _error(
                    source,
                    where,
                    f"unknown node id {missing!r}",
                    f"unpack_edge: source and/or target vertex not found{src_key} -> {dst_key}.\n",
                )
            subsystem = CONTAINMENT
            if "metadata" in raw:
                meta = raw["metadata"]
                if not isinstance(meta, dict) or not isinstance(
                    meta.get("subsystem", CONTAINMENT), str
                ):
                    raise _error(
                        source,
                        where,
                        "'metadata' must be an object with a string 'subsystem'",
                        "unpack_edge: could not unpack edge metadata.\n",
                    )
                subsystem = meta.get("subsystem", CONTAINMENT)
            self.edge_subsystems.append(subsystem)
            src, dst = vmap[src_key], vmap[dst_key]
            if src not in self.created and dst not in self.created:
                continue
            targets = out_targets.get(src)
            if targets is None:
                targets = out_targets[src] = (
                    {graph.uniq_ids[graph.edge_dst[e]] for e in graph.out_edges[src]}
                    if src < base
                    else set()
                )
            dst_uniq = self._uniq(dst)
            if dst_uniq in targets:
                raise _error(
                    source,
                    where,
                    f"second edge from {src_key!r} to a target with uniq_id {dst_uniq}",
                    "error inserting an edge to outedge metadata map: "
                    f"{self._name(src)} -> {self._name(dst)}; ",
                )
            targets.add(dst_uniq)
            self.edges.append((src, dst, subsystem))

    def _uniq(self, v: int) -> int:
        base = self.graph.num_vertices
        return self.graph.uniq_ids[v] if v < base else self.new_nodes[v - base].uniq_id

    def _name(self, v: int) -> str:
        base = self.graph.num_vertices
        return self.graph.names[v] if v < base else self.new_nodes[v - base].name

    def check_depth(self) -> None:
        """Refuse a load after which some subsystem would be deeper than
        :data:`~fluxgraph.graph.depth.MAX_GRAPH_DEPTH` (existing edges plus planned ones)."""
        graph = self.graph
        base = graph.num_vertices
        planned: dict[str, dict[int, list[int]]] = {}
        for src, dst, sub in self.edges:
            planned.setdefault(sub, {}).setdefault(src, []).append(dst)
        for sub, extra in planned.items():
            existing = graph.children(sub) if base else []
            roots = [r for r in (graph.roots.get(sub), self.roots.get(sub)) if r is not None]
            targets = {d for dsts in extra.values() for d in dsts}
            roots.extend(v for v in extra if v not in targets)  # tops of detached pieces

            def kids(v: int, existing=existing, extra=extra) -> list[int]:
                old = existing[v] if v < base else []
                new = extra.get(v)
                return old + new if new else old

            if walk_depth(roots, kids) > MAX_GRAPH_DEPTH:
                raise _error(
                    self.source,
                    f"subsystem {sub!r}",
                    f"the graph would be deeper than {MAX_GRAPH_DEPTH} levels",
                    f"unpack_edge: graph deeper than {MAX_GRAPH_DEPTH} levels.\n",
                )

    def apply(self) -> None:
        graph = self.graph
        intern_type = graph.type_names.intern
        intern_sub = graph.subsystem_names.intern
        for node in self.nodes:  # the reference interns while parsing, created or not
            intern_type(node.type)
            for sub, _path in node.paths:
                intern_sub(sub)
        for sub in self.edge_subsystems:
            intern_sub(sub)
        add_vertex = graph.add_vertex
        for node in self.new_nodes:
            add_vertex(
                node.type,
                node.basename,
                node.id,
                name=node.name,
                uniq_id=node.uniq_id,
                rank=node.rank,
                size=node.size,
                properties=node.properties,
                paths=dict(node.paths),
                status=node.status,
            )
        for sub, v in self.roots.items():
            graph.set_root(sub, v)
        add_edge = graph.add_edge
        for src, dst, sub in self.edges:
            add_edge(src, dst, sub)
