"""GRUG reader: generate a resource graph from a GraphML recipe.

The recipe (see :mod:`fluxgraph.readers.grug_recipe`) is walked depth-first: DFS trees start at
recipe vertices in index order, out-edges are followed in document order, and only *tree* edges
generate anything. A tree edge ``S -> T`` fills ``gen[T]`` (the graph vertices made for ``T``):

* ``MULTIPLY``: ``multi_scale`` new ``T`` vertices under every vertex of ``gen[S]``;
* ``ASSOCIATE_IN``: every existing vertex of ``T``'s type is linked under every vertex of
  ``gen[S]`` and given a path in the edge's subsystem;
* ``ASSOCIATE_BY_PATH_IN``: the same, restricted to pairs whose ``as_tgt_subsystem`` paths agree
  once ``as_tgt_uplvl`` / ``as_src_uplvl`` trailing levels are cut;
* any other method generates nothing (the reference loses that error).

Ids come from ``id_scope`` / ``id_start`` / ``id_stride`` and a deque of the ``multi_scale``
values of the MULTIPLY edges above (which *every* finished recipe vertex pops, as in the
reference). Only vertices of type ``node`` get ranks, 0, 1, ... in creation order; roots are
made lazily on their first tree edge with id 0, and reused when the subsystem already has one.
"""

from __future__ import annotations

import gc
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from math import prod

from fluxgraph import limits
from fluxgraph.errors import ReaderError
from fluxgraph.graph import ResourceGraph
from fluxgraph.graph.depth import MAX_GRAPH_DEPTH
from fluxgraph.readers.grug_recipe import (
    GRUG_ERROR,
    Recipe,
    RecipeEdge,
    RecipeVertex,
    parse_recipe,
)

__all__ = ["MAX_ASSOCIATE_PAIRS", "MAX_GENERATED_VERTICES", "generate", "path_prefix", "unpack"]

_MASK32 = 0xFFFFFFFF

#: Most vertices one recipe may generate (:data:`fluxgraph.limits.MAX_GENERATED_VERTICES`): a
#: few lines of GraphML can ask for 10^12 (each level multiplies).
MAX_GENERATED_VERTICES = limits.MAX_GENERATED_VERTICES
#: Most (source, candidate) pairs the ASSOCIATE edges of one recipe may examine (each may add
#: an edge).
MAX_ASSOCIATE_PAIRS = 2_000_000


def path_prefix(path: str, uplvl: int) -> str:
    """``path`` without its last ``uplvl`` levels, ending in ``/``; ``""`` when too short.

    Examples
    --------
    >>> [path_prefix("/tiny0/rack0/node1/socket0", k) for k in range(5)]
    ['/tiny0/rack0/node1/socket0/', '/tiny0/rack0/node1/', '/tiny0/rack0/', '/tiny0/', '']
    """
    n = path.count("/")
    if uplvl >= n:
        return ""
    pos = -1
    for _ in range(n - uplvl + 1):
        pos = path.find("/", pos + 1)
        if pos == -1:
            break
    cut = path if pos == -1 else path[: pos + 1]
    return cut if cut.endswith("/") else cut + "/"


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector, restoring its previous state afterwards.

    Generation allocates a few containers per vertex and creates no reference cycles, so the
    collector's repeated scans of the growing heap are pure overhead: they took more than half
    of the load time (LOD High 0.49 s -> 0.20 s, disaggr 355K vertices 2.6 s -> 1.1 s).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class _Emitter:
    """State of one generation walk (the reference's ``dfs_emitter_t``)."""

    def __init__(self, graph: ResourceGraph, recipe: Recipe, source: str = "<string>") -> None:
        self.graph = graph
        self.recipe = recipe
        self.source = source
        self.gen: list[list[int]] = [[] for _ in recipe.vertices]
        self.scales: deque[int] = deque()
        self.node_rank = -1
        self.vertex_budget = MAX_GENERATED_VERTICES
        self.pair_budget = MAX_ASSOCIATE_PAIRS

    def fail(self, edge: RecipeEdge, problem: str) -> ReaderError:
        vertices = self.recipe.vertices
        where = f"edge {vertices[edge.source].key!r} -> {vertices[edge.target].key!r}"
        return ReaderError(
            f"{self.source}: {where}: {problem}", reference_message=f"{GRUG_ERROR}{problem}"
        )

    def run(self) -> None:
        out_edges = self.recipe.out_edges
        edges = self.recipe.edges
        scales = self.scales
        visited = [False] * len(self.recipe.vertices)
        for start in range(len(visited)):
            if visited[start]:
                continue
            visited[start] = True
            stack = [iter(out_edges[start])]
            while stack:
                for e in stack[-1]:
                    t = edges[e].target
                    if not visited[t]:
                        visited[t] = True
                        if len(stack) >= MAX_GRAPH_DEPTH:
                            raise self.fail(
                                edges[e], f"the recipe is deeper than {MAX_GRAPH_DEPTH} levels"
                            )
                        self.tree_edge(edges[e])
                        stack.append(iter(out_edges[t]))
                        break
                else:
                    stack.pop()
                    if scales:
                        scales.popleft()

    # -- events --------------------------------------------------------------------------------

    def tree_edge(self, edge: RecipeEdge) -> None:
        vertices = self.recipe.vertices
        src_recipe = vertices[edge.source]
        gen = self.gen
        if src_recipe.root and not gen[edge.source]:
            gen[edge.source] = [self.emit_root(src_recipe)]
        targets: list[int] = []
        gen[edge.target] = targets
        method = edge.gen_method
        if method == "MULTIPLY":
            self.multiply(edge, gen[edge.source], vertices[edge.target], targets)
            self.scales.appendleft(edge.multi_scale)
        elif method == "ASSOCIATE_IN":
            self.associate(edge, gen[edge.source], vertices[edge.target], targets, by_path=False)
        elif method == "ASSOCIATE_BY_PATH_IN":
            self.associate(edge, gen[edge.source], vertices[edge.target], targets, by_path=True)

    def emit_root(self, rv: RecipeVertex) -> int:
        graph = self.graph
        existing = graph.roots.get(rv.subsystem)
        if existing is not None:
            return existing
        name = f"{rv.basename}0"
        v = graph.add_vertex(
            rv.type,
            rv.basename,
            0,
            name=name,
            rank=self.next_rank(rv.type),
            size=rv.size & _MASK32,
            unit=rv.unit,
            paths={rv.subsystem: "/" + name},
        )
        graph.set_root(rv.subsystem, v)
        return v

    def next_rank(self, vtype: str) -> int:
        if vtype != "node":
            return -1
        self.node_rank += 1
        return self.node_rank

    def multiply(
        self, edge: RecipeEdge, sources: list[int], rv: RecipeVertex, targets: list[int]
    ) -> None:
        scale = edge.multi_scale
        if scale <= 0 or not sources:
            return
        graph = self.graph
        add_vertex, add_edge = graph.add_vertex, graph.add_edge
        vtype, basename, unit = rv.type, rv.basename, rv.unit
        size = rv.size & _MASK32
        sub, esub = rv.subsystem, edge.e_subsystem
        is_node = vtype == "node"
        self.vertex_budget -= scale * len(sources)
        if self.vertex_budget < 0:
            raise self.fail(
                edge, f"the recipe generates more than {MAX_GENERATED_VERTICES} vertices"
            )
        start, stride, scope = edge.id_start, edge.id_stride, edge.id_scope
        if scope > 0:
            # C++ ``j % wrap`` with j >= 0 is j mod |wrap|; a zero multi_scale above makes the
            # reference divide by zero (SIGFPE), so the recipe is refused instead.
            wrap = abs(prod(list(self.scales)[: min(scope, len(self.scales))]))
            if wrap == 0:
                raise self.fail(edge, "id_scope spans a multi_scale of 0 (division by zero)")
            block = scale * stride
        for j, src in enumerate(sources):
            prefix = self.path_of(src, sub)
            for i in range(scale):
                if scope < 0:
                    vid = -1
                elif scope == 0:
                    vid = start + i
                else:
                    vid = start + (j % wrap) * block + i * stride
                name = basename if vid == -1 else f"{basename}{vid}"
                if is_node:
                    self.node_rank += 1
                v = add_vertex(
                    vtype,
                    basename,
                    vid,
                    name=name,
                    rank=self.node_rank if is_node else -1,
                    size=size,
                    unit=unit,
                    paths={sub: f"{prefix}/{name}"},
                )
                add_edge(src, v, esub)
                targets.append(v)

    def associate(
        self,
        edge: RecipeEdge,
        sources: list[int],
        rv: RecipeVertex,
        targets: list[int],
        *,
        by_path: bool,
    ) -> None:
        graph = self.graph
        esub, key = edge.e_subsystem, edge.as_tgt_subsystem
        tgt_up, src_up = edge.as_tgt_uplvl, edge.as_src_uplvl
        names = graph.names
        path_of = self.path_of
        if not sources:
            return
        # (the reference's by_type[type] creates the key only when some source looks it up)
        candidates = graph.by_type.setdefault(rv.type, [])  # associating adds no vertex
        self.pair_budget -= len(sources) * len(candidates)
        if self.pair_budget < 0:
            raise self.fail(
                edge, f"ASSOCIATE edges examine more than {MAX_ASSOCIATE_PAIRS} vertex pairs"
            )
        for src in sources:
            for v in candidates:
                if by_path and path_prefix(path_of(v, key), tgt_up) != path_prefix(
                    path_of(src, key), src_up
                ):
                    continue
                graph.set_path(v, esub, f"{path_of(src, esub)}/{names[v]}")
                graph.add_edge(src, v, esub)
                targets.append(v)

    def path_of(self, v: int, subsystem: str) -> str:
        """``v``'s path in ``subsystem``, recording an empty one when absent (as the reference's
        ``std::map::operator[]`` does)."""
        paths = self.graph.paths[v]
        path = paths.get(subsystem)
        if path is None:
            path = paths[subsystem] = ""
            if len(paths) > 1:
                order = self.graph.subsystem_names.order
                self.graph.paths[v] = dict(sorted(paths.items(), key=lambda kv: order(kv[0])))
        return path


def generate(graph: ResourceGraph, recipe: Recipe, source: str = "<string>") -> None:
    """Add the resources that ``recipe`` describes to ``graph``.

    The recipe's types and subsystems are interned first, in the order the parser met them.
    Non-tree recipe edges and unknown generation methods make nothing.

    Runtime complexity: O(generated vertices + edges), plus O(sources x vertices of the target
    type) per ASSOCIATE edge; both are bounded (:data:`MAX_GENERATED_VERTICES`,
    :data:`MAX_ASSOCIATE_PAIRS`).

    Raises
    ------
    ReaderError
        When the recipe would exceed a bound, or an ``id_scope`` spans a ``multi_scale`` of 0
        (the reference divides by zero there). A graph that was empty is then empty again; one
        that was not keeps what was generated before the failing edge.
    """
    was_empty = graph.num_vertices == 0 and graph.num_edges == 0 and not graph.roots
    for name in recipe.types:
        graph.type_names.intern(name)
    for name in recipe.subsystems:
        graph.subsystem_names.intern(name)
    try:
        with _gc_paused():
            _Emitter(graph, recipe, source).run()
    except ReaderError:
        if was_empty:
            graph.__init__()  # type: ignore[misc]  # back to the empty graph the caller gave
        raise


def unpack(
    graph: ResourceGraph,
    text: str | bytes,
    *,
    source: str = "<string>",
    rank: int = -1,
    allowlist: Iterable[str] | None = None,
) -> None:
    """Parse the GRUG recipe ``text`` and generate its resources into ``graph``.

    ``rank`` and ``allowlist`` are accepted for the common reader signature and ignored, as
    the reference ignores them: only ``node`` vertices get ranks, numbered from 0.

    Raises
    ------
    ReaderError
        If the recipe is malformed (the graph is then unchanged) or too large (see
        :func:`generate`); ``reference_message`` starts with ``"error in reading grug string; "``.

    Examples
    --------
    >>> doc = '''<graphml>
    ...   <key id="root" for="node" attr.name="root" attr.type="int"/>
    ...   <key id="type" for="node" attr.name="type" attr.type="string"/>
    ...   <key id="basename" for="node" attr.name="basename" attr.type="string"/>
    ...   <key id="size" for="node" attr.name="size" attr.type="long"><default>1</default></key>
    ...   <key id="sub" for="node" attr.name="subsystem" attr.type="string">
    ...     <default>containment</default></key>
    ...   <key id="esub" for="edge" attr.name="e_subsystem" attr.type="string">
    ...     <default>containment</default></key>
    ...   <key id="gm" for="edge" attr.name="gen_method" attr.type="string">
    ...     <default>MULTIPLY</default></key>
    ...   <key id="ms" for="edge" attr.name="multi_scale" attr.type="int"/>
    ...   <graph edgedefault="directed">
    ...     <node id="c"><data key="root">1</data><data key="type">cluster</data>
    ...       <data key="basename">c</data></node>
    ...     <node id="n"><data key="type">node</data><data key="basename">n</data></node>
    ...     <edge source="c" target="n"><data key="ms">2</data></edge>
    ...   </graph>
    ... </graphml>'''
    >>> g = ResourceGraph()
    >>> unpack(g, doc)
    >>> g.names, g.ranks, [p["containment"] for p in g.paths]
    (['c0', 'n0', 'n1'], [-1, 0, 1], ['/c0', '/c0/n0', '/c0/n1'])
    """
    generate(graph, parse_recipe(text, source=source), source)
