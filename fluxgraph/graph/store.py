"""The resource graph store: resource-pool vertices and subsystem-typed edges.

Data layout follows the reference's Boost ``adjacency_list<vecS, vecS>`` and is chosen for the
traverser's inner loop: vertices and edges are dense integer ids (creation order), every vertex
field lives in its own list indexed by vertex id, and each vertex keeps its out-edges as a list of
edge ids in insertion order. Per-subsystem child lists are derived lazily and cached.

Readers fill a store through :meth:`ResourceGraph.add_vertex` and :meth:`ResourceGraph.add_edge`;
the traverser owns the per-vertex scheduling slots (:class:`ScheduleState`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from fluxgraph.errors import GraphError
from fluxgraph.graph.interner import Interner, new_subsystem_interner, new_type_interner

__all__ = [
    "CONTAINMENT",
    "STATUS_DOWN",
    "STATUS_UP",
    "ResourceGraph",
    "ScheduleState",
    "VertexView",
]

CONTAINMENT = "containment"
STATUS_UP = 0
STATUS_DOWN = 1

VertexId = int
EdgeId = int


class ScheduleState:
    """Per-vertex scheduling slots, filled and used by the traverser.

    Every attribute is a list indexed by vertex id (``None`` until the traverser initialises it):
    ``plans`` (the vertex's own planner over ``size`` units), ``allocations`` and ``reservations``
    (job id -> span id), ``x_checkers`` and ``x_spans`` (exclusivity checker planner and job id ->
    span id), ``tags`` (job ids whose allocation path crosses the vertex), ``subplans``
    (subsystem -> pruning-filter aggregate planner), ``job2span`` (job id -> aggregate span id),
    ``ephemeral`` (a string map, ``{"label": <jobspec label>}``: set by the selection walk on
    every vertex it visits for a labelled request, emitted by the JGF writers, cleared by ``find``).
    """

    __slots__ = (
        "allocations",
        "ephemeral",
        "job2span",
        "plans",
        "reservations",
        "subplans",
        "tags",
        "x_checkers",
        "x_spans",
    )

    def __init__(self) -> None:
        for name in self.__slots__:
            setattr(self, name, [])

    def grow(self, n: int) -> None:
        """Extend every slot list with ``None`` up to ``n`` vertices."""
        for name in self.__slots__:
            lst = getattr(self, name)
            if len(lst) < n:
                lst.extend([None] * (n - len(lst)))


@dataclass(frozen=True, slots=True)
class VertexView:
    """A read-only snapshot of one vertex, for users, writers and constraint checks."""

    vid: int
    type: str
    basename: str
    name: str
    id: int
    uniq_id: int
    rank: int
    size: int
    unit: str
    properties: Mapping[str, str]
    paths: Mapping[str, str]
    status: int


class ResourceGraph:
    """A directed multi-subsystem resource graph with dense integer vertex and edge ids.

    Vertex fields are parallel lists indexed by vertex id: ``types``, ``basenames``, ``names``,
    ``ids``, ``uniq_ids``, ``ranks``, ``sizes``, ``units``, ``properties`` (dict sorted by key),
    ``paths`` (dict subsystem -> path in subsystem intern order), ``status`` and ``member_of``
    (list of subsystems in intern order). Edge fields: ``edge_src``, ``edge_dst``,
    ``edge_subsystem`` (the single subsystem the traversal uses) and ``edge_member_of``.
    ``out_edges[v]`` lists ``v``'s out-edge ids in insertion order.

    Metadata: ``roots`` (subsystem -> root vertex), ``by_type``, ``by_name``, ``by_rank`` and
    ``by_path`` (key -> vertex ids in insertion order).

    Examples
    --------
    >>> g = ResourceGraph()
    >>> c = g.add_vertex("cluster", "tiny", 0, paths={"containment": "/tiny0"})
    >>> n = g.add_vertex("node", "node", 0, rank=0, paths={"containment": "/tiny0/node0"})
    >>> g.set_root("containment", c)
    >>> _ = g.add_edge(c, n, "containment")
    >>> g.children("containment")[c]
    [1]
    >>> g.names
    ['tiny0', 'node0']
    """

    def __init__(self) -> None:
        self.type_names: Interner = new_type_interner()
        self.subsystem_names: Interner = new_subsystem_interner()
        self.types: list[str] = []
        self.basenames: list[str] = []
        self.names: list[str] = []
        self.ids: list[int] = []
        self.uniq_ids: list[int] = []
        self.ranks: list[int] = []
        self.sizes: list[int] = []
        self.units: list[str] = []
        self.properties: list[dict[str, str]] = []
        self.paths: list[dict[str, str]] = []
        self.status: list[int] = []
        self.member_of: list[list[str]] = []
        self.out_edges: list[list[EdgeId]] = []
        self.in_edges: list[list[EdgeId]] = []
        self.edge_src: list[VertexId] = []
        self.edge_dst: list[VertexId] = []
        self.edge_subsystem: list[str] = []
        self.edge_member_of: list[list[str]] = []
        self.roots: dict[str, VertexId] = {}
        self.by_type: dict[str, list[VertexId]] = {}
        self.by_name: dict[str, list[VertexId]] = {}
        self.by_rank: dict[int, list[VertexId]] = {}
        self.by_path: dict[str, list[VertexId]] = {}
        self.schedule = ScheduleState()
        self._edge_of_pair: dict[tuple[VertexId, VertexId], EdgeId] = {}
        self._children_cache: dict[str, list[list[VertexId]]] = {}
        self._child_edges_cache: dict[str, list[list[EdgeId]]] = {}

    # -- construction --------------------------------------------------------------------------

    def add_vertex(
        self,
        type: str,
        basename: str,
        id: int = -1,
        *,
        name: str | None = None,
        uniq_id: int | None = None,
        rank: int = -1,
        size: int = 1,
        unit: str = "",
        properties: Mapping[str, str] | None = None,
        paths: Mapping[str, str] | None = None,
        status: int = STATUS_UP,
    ) -> VertexId:
        """Append a vertex and index it by type, name, rank and paths; return its id.

        ``name`` defaults to ``basename + str(id)`` (``basename`` alone when ``id == -1``) and
        ``uniq_id`` to the new vertex id. Subsystems of ``paths`` are interned in the given
        order.

        Runtime complexity: O(len(paths)).
        """
        v = len(self.types)
        type = self.type_names.intern(type)
        if name is None:
            name = basename if id == -1 else f"{basename}{id}"
        self.types.append(type)
        self.basenames.append(basename)
        self.names.append(name)
        self.ids.append(id)
        self.uniq_ids.append(v if uniq_id is None else uniq_id)
        self.ranks.append(rank)
        self.sizes.append(size)
        self.units.append(unit)
        self.properties.append(dict(sorted(properties.items())) if properties else {})
        self.paths.append({})
        self.status.append(status)
        self.member_of.append([])
        self.out_edges.append([])
        self.in_edges.append([])
        self.by_type.setdefault(type, []).append(v)
        self.by_name.setdefault(name, []).append(v)
        self.by_rank.setdefault(rank, []).append(v)
        if paths:
            for subsystem, path in paths.items():
                self.set_path(v, subsystem, path)
        return v

    def set_path(self, v: VertexId, subsystem: str, path: str) -> None:
        """Set ``v``'s path in ``subsystem``, index it in ``by_path`` and record membership.

        Paths stay ordered by subsystem intern order, as the reference's ``std::map`` is.
        """
        subsystem = self.subsystem_names.intern(subsystem)
        paths = self.paths[v]
        paths[subsystem] = path
        if len(paths) > 1:
            order = self.subsystem_names.order
            self.paths[v] = dict(sorted(paths.items(), key=lambda kv: order(kv[0])))
        self.by_path.setdefault(path, []).append(v)
        self._add_membership(self.member_of[v], subsystem)

    def add_edge(self, src: VertexId, dst: VertexId, subsystem: str) -> EdgeId:
        """Add (or reuse) the edge ``src -> dst`` and give it ``subsystem``; return its id.

        An existing ``src -> dst`` edge is reused: ``subsystem`` joins its ``member_of`` and
        overwrites its single traversal subsystem (the GRUG reader's behaviour). Use
        :meth:`has_edge` first where a duplicate must be an error (the JGF reader).

        Runtime complexity: O(1).
        """
        subsystem = self.subsystem_names.intern(subsystem)
        key = (src, dst)
        e = self._edge_of_pair.get(key)
        if e is None:
            e = len(self.edge_src)
            self._edge_of_pair[key] = e
            self.edge_src.append(src)
            self.edge_dst.append(dst)
            self.edge_subsystem.append(subsystem)
            self.edge_member_of.append([])
            self.out_edges[src].append(e)
            self.in_edges[dst].append(e)
        self.edge_subsystem[e] = subsystem
        self._add_membership(self.edge_member_of[e], subsystem)
        self._children_cache.clear()
        self._child_edges_cache.clear()
        return e

    def has_edge(self, src: VertexId, dst: VertexId) -> bool:
        """Whether an edge ``src -> dst`` exists (any subsystem)."""
        return (src, dst) in self._edge_of_pair

    def edge_id(self, src: VertexId, dst: VertexId) -> EdgeId | None:
        """The id of the edge ``src -> dst``, or ``None``.

        Runtime complexity: O(1).
        """
        return self._edge_of_pair.get((src, dst))

    def reindex_edges(self) -> None:
        """Rebuild the edge index and drop derived caches after edges were renumbered.

        Runtime complexity: O(E).
        """
        src, dst = self.edge_src, self.edge_dst
        self._edge_of_pair = {(src[e], dst[e]): e for e in range(len(src))}
        self._children_cache.clear()
        self._child_edges_cache.clear()

    def set_root(self, subsystem: str, v: VertexId) -> None:
        """Make ``v`` the root of ``subsystem``."""
        self.roots[self.subsystem_names.intern(subsystem)] = v

    def _add_membership(self, members: list[str], subsystem: str) -> None:
        if subsystem not in members:
            members.append(subsystem)
            if len(members) > 1:
                members.sort(key=self.subsystem_names.order)

    # -- queries -------------------------------------------------------------------------------

    @property
    def num_vertices(self) -> int:
        """Number of vertices."""
        return len(self.types)

    @property
    def num_edges(self) -> int:
        """Number of edges."""
        return len(self.edge_src)

    def subsystems(self) -> list[str]:
        """Subsystems that have at least one edge or path, in intern order."""
        seen = set(self.edge_subsystem)
        for members in self.member_of:
            seen.update(members)
        return sorted(seen, key=self.subsystem_names.order)

    def child_edges(self, subsystem: str) -> list[list[EdgeId]]:
        """Per vertex, the out-edge ids whose subsystem is ``subsystem``, in insertion order.

        The lists are cached until the next edge insertion; callers must not mutate them.

        Runtime complexity: O(V + E) on first call, O(1) afterwards.
        """
        cached = self._child_edges_cache.get(subsystem)
        if cached is None:
            esub = self.edge_subsystem
            cached = [[e for e in out if esub[e] == subsystem] for out in self.out_edges]
            self._child_edges_cache[subsystem] = cached
        return cached

    def children(self, subsystem: str) -> list[list[VertexId]]:
        """Per vertex, the targets of its ``subsystem`` out-edges, in insertion order.

        Runtime complexity: O(V + E) on first call, O(1) afterwards.
        """
        cached = self._children_cache.get(subsystem)
        if cached is None:
            dst = self.edge_dst
            cached = [[dst[e] for e in out] for out in self.child_edges(subsystem)]
            self._children_cache[subsystem] = cached
        return cached

    def vertex(self, v: VertexId) -> VertexView:
        """A read-only snapshot of vertex ``v``.

        Raises
        ------
        GraphError
            If ``v`` is not a vertex id.
        """
        if not 0 <= v < len(self.types):
            raise GraphError(f"no vertex with id {v!r}")
        return VertexView(
            v,
            self.types[v],
            self.basenames[v],
            self.names[v],
            self.ids[v],
            self.uniq_ids[v],
            self.ranks[v],
            self.sizes[v],
            self.units[v],
            dict(self.properties[v]),
            dict(self.paths[v]),
            self.status[v],
        )

    def vertices(self) -> Iterator[VertexView]:
        """Snapshots of every vertex in id order."""
        return (self.vertex(v) for v in range(len(self.types)))

    def find_path(self, path: str, subsystem: str = CONTAINMENT) -> VertexId | None:
        """The first vertex whose ``subsystem`` path is ``path``, or ``None``."""
        for v in self.by_path.get(path, ()):
            if self.paths[v].get(subsystem) == path:
                return v
        return None

    def _check(self) -> None:
        """Assert every structural invariant (O(V + E)); for tests."""
        n = len(self.types)
        for name in (
            "basenames", "names", "ids", "uniq_ids", "ranks", "sizes", "units",
            "properties", "paths", "status", "member_of", "out_edges", "in_edges",
        ):  # fmt: skip
            assert len(getattr(self, name)) == n, name
        m = len(self.edge_src)
        assert len(self.edge_dst) == len(self.edge_subsystem) == len(self.edge_member_of) == m
        for e in range(m):
            assert e in self.out_edges[self.edge_src[e]]
            assert e in self.in_edges[self.edge_dst[e]]
            assert self.edge_subsystem[e] in self.edge_member_of[e]
            assert self._edge_of_pair[(self.edge_src[e], self.edge_dst[e])] == e
        assert sum(map(len, self.out_edges)) == m
        for key, index in (("types", self.by_type), ("names", self.by_name)):
            values = getattr(self, key)
            for k, vs in index.items():
                assert all(values[v] == k for v in vs), (key, k)
        # by_path may keep superseded entries (a GRUG association that re-paths a vertex keeps
        # the old path indexed, as the reference does); every current non-empty path is indexed
        # (GRUG inserts unindexed empty placeholder paths).
        for v, paths in enumerate(self.paths):
            for path in paths.values():
                assert not path or v in self.by_path.get(path, ()), (v, path)
        for sub, root in self.roots.items():
            assert 0 <= root < n, sub

    # -- interchange ---------------------------------------------------------------------------

    def to_networkx(self) -> Any:
        """A ``networkx.MultiDiGraph`` copy: vertex attributes by field name, edge ``subsystem``.

        Examples
        --------
        >>> g = ResourceGraph()
        >>> _ = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
        >>> sorted(g.to_networkx().nodes[0])[:3]
        ['basename', 'id', 'member_of']
        """
        import networkx as nx

        out = nx.MultiDiGraph(roots=dict(self.roots))
        for view in self.vertices():
            attrs = {f: getattr(view, f) for f in VertexView.__slots__ if f != "vid"}
            attrs["member_of"] = list(self.member_of[view.vid])
            out.add_node(view.vid, **attrs)
        for e in range(len(self.edge_src)):
            out.add_edge(
                self.edge_src[e],
                self.edge_dst[e],
                subsystem=self.edge_subsystem[e],
                member_of=list(self.edge_member_of[e]),
            )
        return out

    @classmethod
    def from_networkx(cls, nxg: Any) -> ResourceGraph:
        """Build a store from a graph made by :meth:`to_networkx` (or shaped like one).

        Nodes are taken in iteration order; each needs ``type`` and ``basename``; edges need
        ``subsystem`` (default ``containment``).

        Raises
        ------
        GraphError
            If a node lacks a required attribute.
        """
        g = cls()
        index: dict[Any, VertexId] = {}
        for node, data in nxg.nodes(data=True):
            try:
                vtype, basename = data["type"], data["basename"]
            except KeyError as err:
                raise GraphError(f"networkx node {node!r} has no attribute {err}") from err
            index[node] = g.add_vertex(
                vtype,
                basename,
                data.get("id", -1),
                name=data.get("name"),
                uniq_id=data.get("uniq_id"),
                rank=data.get("rank", -1),
                size=data.get("size", 1),
                unit=data.get("unit", ""),
                properties=data.get("properties"),
                paths=data.get("paths"),
                status=data.get("status", STATUS_UP),
            )
        for u, v, data in nxg.edges(data=True):
            for sub in data.get("member_of") or [data.get("subsystem", CONTAINMENT)]:
                g.add_edge(index[u], index[v], sub)
            g.add_edge(index[u], index[v], data.get("subsystem", CONTAINMENT))
        for sub, root in nxg.graph.get("roots", {}).items():
            g.set_root(sub, index[root])
        return g
