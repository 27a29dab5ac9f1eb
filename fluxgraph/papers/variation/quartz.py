"""The quartz machine of the variation-aware case study (Fluxion paper §6.3, spec §2.1).

``cluster quartz0 > rack[39] > node[62] > socket[2] > core[18]``: 2418 nodes, 94,342 vertices.
Node ids are global (``id_scope=1`` on rack -> node: rack ``r`` holds nodes ``62r .. 62r+61``),
since ``high``/``low`` score ``id + 2`` and per-rack ids would tie across racks. The bundled
recipe ``grug_recipes/quartz-2418.graphml`` is :func:`quartz_recipe` with the defaults.
``pooled=True`` is a coarser level of detail (paper §3.3): ``node > core[1]`` of size
``sockets * cores``, 4,876 vertices; whole-node jobs ``node[n] -> slot -> core[36]`` select
the same nodes there, since no policy's node score depends on the node's children.

:func:`set_classes` puts the performance classes on the nodes: property ``perf_class=<p>``
(what the ``variation`` and ``classpack`` policies read) and key ``pc<p>=1`` (jobspec property
constraints test keys, spec §9.8).
"""

from __future__ import annotations

from collections.abc import Sequence

from fluxgraph.errors import SimulationError
from fluxgraph.graph import ResourceGraph
from fluxgraph.machines import grug_document, grug_edge, grug_vertex
from fluxgraph.readers import reader

__all__ = ["build_quartz", "node_classes", "quartz_recipe", "set_classes"]


def quartz_recipe(
    racks: int = 39,
    nodes_per_rack: int = 62,
    sockets: int = 2,
    cores_per_socket: int = 18,
    pooled: bool = False,
) -> str:
    """The GRUG recipe ``cluster > rack[R] > node[N] > socket[S] > core[C]`` (global node ids);
    ``pooled``: ``node > core`` of size ``S * C`` instead.

    >>> 'multi_scale">62<' in quartz_recipe(), '<data key="size">36<' in quartz_recipe(pooled=True)
    (True, True)
    """
    for name, value in (("racks", racks), ("nodes_per_rack", nodes_per_rack)):
        if value < 1:
            raise SimulationError(f"quartz machine: {name} must be >= 1, got {value}")
    if sockets < 1 or cores_per_socket < 1:
        raise SimulationError(f"quartz machine: sockets={sockets}, cores={cores_per_socket}")
    nodes = racks * nodes_per_rack

    def edge(src: str, dst: str, scale: int, scope: int) -> str:
        data = [("id_scope", scope)] if scope else []
        return grug_edge(src, dst, [*data, ("multi_scale", scale)], edge_id=f"{src}2{dst}")

    def vertex(name: str, basename: str, root: bool = False, size: int = 1) -> str:
        return grug_vertex(name, name, basename=basename, root=root, size=size)

    if pooled:
        leaves = [vertex("core", "core", size=sockets * cores_per_socket)]
        leaf_edges = [edge("node", "core", 1, 0)]
        shape = f"core[1] of size {sockets * cores_per_socket}"
    else:
        leaves = [vertex("socket", "socket"), vertex("core", "core")]
        leaf_edges = [
            edge("node", "socket", sockets, 0),
            edge("socket", "core", cores_per_socket, 1),
        ]
        shape = f"socket[{sockets}] -> core[{cores_per_socket}]"

    comment = (
        f"quartz-like cluster for the variation-aware case study (Fluxion §6.3): "
        f"cluster[1] -> rack[{racks}] -> node[{nodes_per_rack}] -> {shape}; "
        f"node ids are global: node0 .. node{nodes - 1}"
    )
    vertices = [
        vertex("cluster", "quartz", root=True),
        vertex("rack", "rack"),
        vertex("node", "node"),
        *leaves,
    ]
    edges = [
        edge("cluster", "rack", racks, 0),
        edge("rack", "node", nodes_per_rack, 1),
        *leaf_edges,
    ]
    return grug_document(vertices, edges, graph_id="quartz", comment=comment)


def build_quartz(
    racks: int = 39,
    nodes_per_rack: int = 62,
    sockets: int = 2,
    cores_per_socket: int = 18,
    classes: Sequence[int] | None = None,
    pooled: bool = False,
) -> ResourceGraph:
    """The quartz graph (see :func:`quartz_recipe`), with ``classes`` set when given.

    >>> g = build_quartz(racks=2, nodes_per_rack=3, sockets=1, cores_per_socket=2,
    ...                  classes=[1, 2, 3, 4, 5, 1])
    >>> len(g.by_type["node"]), node_classes(g)
    (6, [1, 2, 3, 4, 5, 1])
    """
    graph = ResourceGraph()
    text = quartz_recipe(racks, nodes_per_rack, sockets, cores_per_socket, pooled)
    reader("grug")(graph, text, source="<quartz machine>")
    if classes is not None:
        set_classes(graph, classes)
    return graph


def set_classes(graph: ResourceGraph, classes: Sequence[int]) -> None:
    """Set ``perf_class=<p>`` and ``pc<p>=1`` on every node, ``p = classes[node id]``.

    Raises
    ------
    SimulationError
        When the node ids are not exactly ``0 .. len(classes) - 1``.
    """
    nodes = graph.by_type.get("node", [])
    ids = sorted(graph.ids[v] for v in nodes)
    if ids != list(range(len(classes))):
        raise SimulationError(
            f"performance classes: {len(classes)} classes for {len(nodes)} nodes "
            f"(node ids must be 0 .. {len(classes) - 1})"
        )
    for v in nodes:
        props = dict(graph.properties[v])
        p = classes[graph.ids[v]]
        props["perf_class"] = str(p)
        props[f"pc{p}"] = "1"
        graph.properties[v] = dict(sorted(props.items()))


def node_classes(graph: ResourceGraph) -> list[int]:
    """The ``perf_class`` of every node, indexed by node id (0 where unset).

    >>> node_classes(build_quartz(racks=1, nodes_per_rack=2, sockets=1, cores_per_socket=1))
    [0, 0]
    """
    nodes = graph.by_type.get("node", [])
    out = [0] * (max((graph.ids[v] for v in nodes), default=-1) + 1)
    for v in nodes:
        text = graph.properties[v].get("perf_class", "0")
        out[graph.ids[v]] = int(text) if text.isdigit() else 0
    return out
