"""FM machines: racks of exclusive nodes with small local memory and rack memory pools.

Li et al. §III-B, Table I (FM spec §2): ``cluster -> rack[R] -> {node[N] -> memory(L GB),
memnode[P] -> memory(1,024 GB)}``. A memnode is one 1,024 GB memory node of the rack's pool;
the remote chunk of one compute node comes from one memnode (§9 D5). ``flat`` replaces the
memnodes by one ``memory`` pool of ``P x 1,024`` GB under the rack (ablation). The spec's GRUG
recipe becomes the graph, and :class:`FmLayout` reads back from the graph which vertex is which
node and pool, so feasibility is what the graph's vertices and their planners say.

>>> layout = FmLayout.of(build_fm_machine(FmMachineSpec(racks=2, nodes_per_rack=4, pool_tb=1)))
>>> layout.racks, layout.nodes_per_rack, layout.pools_per_rack, layout.pool_capacity
(2, 4, 1, 1024)
"""

from __future__ import annotations

from dataclasses import dataclass

from fluxgraph.errors import SimulationError
from fluxgraph.graph import ResourceGraph
from fluxgraph.machines import grug_document, grug_edge, grug_vertex
from fluxgraph.readers import reader

__all__ = [
    "GB_PER_TB",
    "MEMNODE_GB",
    "FmLayout",
    "FmMachineSpec",
    "build_fm_machine",
    "fm_recipe",
    "juwels_like",
    "perlmutter_like",
]

#: TB = 1,024 GB throughout (spec §9 D28); one memnode holds 1 TB (§9 D5).
GB_PER_TB = 1024
MEMNODE_GB = 1024


@dataclass(frozen=True, slots=True)
class FmMachineSpec:
    """``racks`` x ``nodes_per_rack`` exclusive nodes of ``local_gb``, ``pool_tb`` TB per rack.

    ``granularity`` is ``memnode`` (``pool_tb`` memnodes of 1,024 GB per rack) or ``flat``
    (one pool of ``pool_tb x 1,024`` GB per rack).
    """

    racks: int
    nodes_per_rack: int
    local_gb: int = 64
    pool_tb: int = 0
    granularity: str = "memnode"

    def __post_init__(self) -> None:
        if self.racks < 1 or self.nodes_per_rack < 1 or self.local_gb < 1 or self.pool_tb < 0:
            raise SimulationError(
                f"FM machine: need racks, nodes_per_rack, local_gb >= 1 and pool_tb >= 0 "
                f"(got {self.racks}, {self.nodes_per_rack}, {self.local_gb}, {self.pool_tb})"
            )
        if self.granularity not in ("memnode", "flat"):
            raise SimulationError(
                f"FM machine: granularity must be 'memnode' or 'flat', got {self.granularity!r}"
            )

    @property
    def nodes(self) -> int:
        """All compute nodes."""
        return self.racks * self.nodes_per_rack

    @property
    def total_gb(self) -> int:
        """Local plus pool memory (GB), the cost basis of spec §6.2.

        >>> perlmutter_like(28).total_gb // GB_PER_TB
        264
        """
        return self.nodes * self.local_gb + self.racks * self.pool_tb * GB_PER_TB


def perlmutter_like(pool_tb: int, granularity: str = "memnode") -> FmMachineSpec:
    """Perlmutter CPU (Table I): 6 racks x 256 nodes, 64 GB local, ``pool_tb`` TB per rack.

    >>> perlmutter_like(4).nodes
    1536
    """
    return FmMachineSpec(6, 256, 64, pool_tb, granularity)


def juwels_like(pool_tb: int, granularity: str = "memnode") -> FmMachineSpec:
    """The JUWELS Booster stand-in (spec §2.1, W2): 20 racks x 48 nodes, 64 GB local.

    >>> juwels_like(6).total_gb // GB_PER_TB
    180
    """
    return FmMachineSpec(20, 48, 64, pool_tb, granularity)


def _vertex(vid: int, vtype: str, size: int = 1, root: bool = False, unit: str = "") -> str:
    return grug_vertex(f"v{vid}", vtype, size=size, unit=unit, root=root)


def _edge(src: int, dst: int, scale: int) -> str:
    return grug_edge(f"v{src}", f"v{dst}", [("multi_scale", scale)])


def fm_recipe(spec: FmMachineSpec) -> str:
    """The GRUG recipe of spec §2.2 (recipe vertices 0-5; 4-5 omitted without a pool).

    >>> 'multi_scale">256<' in fm_recipe(perlmutter_like(4))
    True
    """
    vertices = [
        _vertex(0, "cluster", root=True),
        _vertex(1, "rack"),
        _vertex(2, "node"),
        _vertex(3, "memory", spec.local_gb, unit="GB"),
    ]
    edges = [_edge(0, 1, spec.racks), _edge(1, 2, spec.nodes_per_rack), _edge(2, 3, 1)]
    if spec.pool_tb and spec.granularity == "memnode":
        vertices += [_vertex(4, "memnode"), _vertex(5, "memory", MEMNODE_GB, unit="GB")]
        edges += [_edge(1, 4, spec.pool_tb), _edge(4, 5, 1)]
    elif spec.pool_tb:
        vertices.append(_vertex(5, "memory", spec.pool_tb * MEMNODE_GB, unit="GB"))
        edges.append(_edge(1, 5, 1))
    return grug_document(vertices, edges, graph_id="fm")


def build_fm_machine(spec: FmMachineSpec) -> ResourceGraph:
    """The resource graph of ``spec``.

    >>> g = build_fm_machine(FmMachineSpec(2, 4, pool_tb=3))
    >>> len(g.by_type["node"]), len(g.by_type["memnode"]), len(g.by_type["memory"])
    (8, 6, 14)
    """
    graph = ResourceGraph()
    reader("grug")(graph, fm_recipe(spec), source=f"<fm machine {spec}>")
    return graph


@dataclass(frozen=True, slots=True)
class FmLayout:
    """Which graph vertex is which node and pool, in the allocator's index order.

    Nodes are numbered rack by rack (``g = r * nodes_per_rack + j``, by vertex id inside a
    rack); pools likewise (``m = r * pools_per_rack + q``). ``node_vertex[g]`` and
    ``pool_vertex[m]`` are the graph vertices (the pool's ``memory`` vertex).
    """

    racks: int
    nodes_per_rack: int
    pools_per_rack: int
    pool_capacity: int
    local_gb: int
    node_vertex: tuple[int, ...]
    pool_vertex: tuple[int, ...]

    @classmethod
    def of(cls, graph: ResourceGraph) -> FmLayout:
        """Read the layout from an FM graph (one built by :func:`build_fm_machine`)."""
        racks = sorted(graph.by_type.get("rack", []), key=lambda v: (graph.ids[v], v))
        if not racks:
            raise SimulationError("FM machine: the graph has no rack vertices")
        children = graph.children("containment")
        types, sizes = graph.types, graph.sizes
        nodes: list[list[int]] = [[] for _ in racks]
        pools: list[list[int]] = [[] for _ in racks]
        local_gb = 0
        for r, rack in enumerate(racks):
            for c in children[rack]:
                if types[c] == "node":
                    nodes[r].append(c)
                    local_gb = max(
                        [local_gb] + [sizes[m] for m in children[c] if types[m] == "memory"]
                    )
                elif types[c] == "memnode":
                    pools[r] += [m for m in children[c] if types[m] == "memory"]
                elif types[c] == "memory":
                    pools[r].append(c)
        per_rack = {len(x) for x in nodes}
        per_pool = {len(x) for x in pools}
        caps = {graph.sizes[v] for x in pools for v in x}
        if len(per_rack) != 1 or len(per_pool) != 1 or len(caps) > 1:
            raise SimulationError(
                "FM machine: every rack needs the same number of nodes and of equal pools"
            )

        def flat(groups: list[list[int]]) -> tuple[int, ...]:
            key = graph.ids.__getitem__
            return tuple(v for g in groups for v in sorted(g, key=lambda u: (key(u), u)))

        return cls(
            len(racks),
            per_rack.pop(),
            per_pool.pop(),
            caps.pop() if caps else 0,
            local_gb,
            flat(nodes),
            flat(pools),
        )

    @property
    def nodes(self) -> int:
        """All compute nodes."""
        return self.racks * self.nodes_per_rack

    @property
    def pools(self) -> int:
        """All pools (memnodes, or one per rack when flat)."""
        return self.racks * self.pools_per_rack
