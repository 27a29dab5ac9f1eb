"""El Capitan-like rabbit machines: chassis of compute nodes, each with one rabbit (§5.1).

Layout (spec §2.2, a containment tree; the chassis is the rabbit's storage scope)::

    cluster -> chassis[M] -> { node[n] -> {core[c], gpu[g]},   (node ids machine-wide)
                               ssd[S] (size s GiB),             (ids per chassis)
                               nvme_ns[K], mgt_ip[1] }

``ssd`` vertices are capacity chunks (always taken whole), ``nvme_ns`` the rabbit's namespace
tokens, ``mgt_ip`` its single Lustre management address. :func:`elcap` builds the graph (the
recipe is also text, :func:`elcap_recipe`); ``grug_recipes/elcap-tiny.graphml`` is
``elcap_recipe(ELCAP_TINY)``.

>>> g = elcap(chassis=2, nodes=2, chunks=3, chunk_gib=10, namespaces=2, cores=(1, 2), gpus=0)
>>> [len(g.by_type[t]) for t in ("chassis", "node", "core", "ssd", "nvme_ns", "mgt_ip")]
[2, 4, 4, 6, 4, 2]
"""

from __future__ import annotations

from dataclasses import dataclass

from fluxgraph.errors import SimulationError
from fluxgraph.graph import ResourceGraph
from fluxgraph.machines import grug_document, grug_edge, grug_vertex
from fluxgraph.readers import reader

__all__ = ["ELCAP", "ELCAP_TINY", "RabbitMachine", "elcap", "elcap_recipe"]


@dataclass(frozen=True, slots=True)
class RabbitMachine:
    """The shape of a rabbit machine (spec §2.2 defaults: El Capitan).

    ``cores`` is ``(pools, cores per pool)``: ``(4, 24)`` is four 24-core ``core`` vertices per
    node (LOD "low"); ``(2, 1)`` is two single cores.
    """

    chassis: int = 720
    nodes: int = 16
    chunks: int = 36
    chunk_gib: int = 453
    namespaces: int = 32
    cores: tuple[int, int] = (4, 24)
    gpus: int = 4

    def __post_init__(self) -> None:
        for name in ("chassis", "nodes", "chunks", "chunk_gib", "namespaces"):
            if getattr(self, name) < 1:
                raise SimulationError(f"rabbit machine: {name} must be >= 1, got {self}")
        if self.cores[0] < 1 or self.cores[1] < 1 or self.gpus < 0:
            raise SimulationError(f"rabbit machine: bad cores/gpus in {self}")

    @property
    def vertices(self) -> int:
        """Number of vertices of the machine's graph."""
        per_node = 1 + self.cores[0] + self.gpus
        per_chassis = 1 + self.nodes * per_node + self.chunks + self.namespaces + 1
        return 1 + self.chassis * per_chassis


#: El Capitan: 720 chassis x 16 nodes, 36 chunks of 453 GiB, 32 namespaces per rabbit.
ELCAP = RabbitMachine()
#: The spec's test machine (§2.2, §7.2): 3 chassis x 4 nodes, 4 x 100 GiB, 3 namespaces.
ELCAP_TINY = RabbitMachine(
    chassis=3, nodes=4, chunks=4, chunk_gib=100, namespaces=3, cores=(2, 1), gpus=0
)


def _vertex(rtype: str, size: int = 1, unit: str = "", root: bool = False) -> str:
    basename = "elcap" if root else rtype
    return grug_vertex(rtype, rtype, basename=basename, size=size, unit=unit, root=root)


def _edge(src: str, dst: str, scale: int, scope: int) -> str:
    return grug_edge(src, dst, [("multi_scale", scale), ("id_scope", scope)])


def elcap_recipe(machine: RabbitMachine = ELCAP) -> str:
    """The GRUG recipe text of ``machine``.

    >>> 'size">100<' in elcap_recipe(ELCAP_TINY)
    True
    """
    m = machine
    pools, per_pool = m.cores
    vertices = [
        _vertex("cluster", root=True),
        _vertex("chassis"),
        _vertex("node"),
        _vertex("core", size=per_pool),
        _vertex("ssd", size=m.chunk_gib, unit="GiB"),
        _vertex("nvme_ns"),
        _vertex("mgt_ip"),
    ]
    edges = [
        _edge("cluster", "chassis", m.chassis, 0),
        _edge("chassis", "node", m.nodes, 1),
        _edge("node", "core", pools, 0),
        _edge("chassis", "ssd", m.chunks, 0),
        _edge("chassis", "nvme_ns", m.namespaces, 0),
        _edge("chassis", "mgt_ip", 1, 0),
    ]
    if m.gpus:
        vertices.append(_vertex("gpu"))
        edges.insert(3, _edge("node", "gpu", m.gpus, 0))
    comment = (
        f"fluxgraph rabbit machine: chassis={m.chassis} nodes={m.nodes} chunks={m.chunks} "
        f"chunk_gib={m.chunk_gib} namespaces={m.namespaces} cores={pools}x{per_pool} "
        f"gpus={m.gpus}; {m.vertices} vertices"
    )
    return grug_document(vertices, edges, graph_id="elcap", comment=comment)


def elcap(
    chassis: int = ELCAP.chassis,
    nodes: int = ELCAP.nodes,
    chunks: int = ELCAP.chunks,
    chunk_gib: int = ELCAP.chunk_gib,
    namespaces: int = ELCAP.namespaces,
    cores: tuple[int, int] = ELCAP.cores,
    gpus: int = ELCAP.gpus,
) -> ResourceGraph:
    """The graph of a rabbit machine (defaults: El Capitan, ~154 K vertices; spec §2.2)."""
    m = RabbitMachine(chassis, nodes, chunks, chunk_gib, namespaces, tuple(cores), gpus)
    graph = ResourceGraph()
    reader("grug")(graph, elcap_recipe(m), source=f"<elcap {m}>")
    return graph
