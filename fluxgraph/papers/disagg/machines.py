"""Machines with lendable node memory (disaggregated-memory spec §2, Zacarias et al. §V-C).

``N`` nodes of ``C`` cores, the first ``N - L`` *normal* (``normal_mib`` of memory) and the last
``L`` *large* (``large_mib``): large nodes sit at the end of the node list, as in the authors'
scripts (spec §2.1). The graph (spec §2.2):

* ``containment``: ``cluster0 -> node{i} -> {core0, memory{i}}``; ``core0`` is one pooled vertex of
  size ``C`` (jobs are node-exclusive in compute) and ``memory0`` one capacity pool in MiB that
  holds the local job's share and spans lent to other jobs at the same time;
* ``memnet`` (the conduit): root ``memfabric0`` with a ``conduit-of`` edge to every ``memory``
  vertex, all-to-all and single hop; a job's remote memory is a span on another node's memory
  planner reached through it. There is no bandwidth pool: contention becomes slowdown
  (:mod:`fluxgraph.papers.disagg.contention`), not capacity.

Like :mod:`fluxgraph.machines`, a spec becomes a GRUG recipe (the same recipe a user can edit)
and the recipe a :class:`~fluxgraph.graph.ResourceGraph`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fluxgraph.errors import SimulationError
from fluxgraph.graph import ResourceGraph
from fluxgraph.machines import grug_document, grug_edge, grug_vertex
from fluxgraph.readers import reader

__all__ = [
    "LARGE_MIB",
    "NORMAL_MIB",
    "MemoryMachineSpec",
    "build_memory_machine",
    "large_count",
    "memory_recipe",
]

#: Memory of a normal and of a large node in MiB (``RealMemory`` 32768 / 65536, spec §2.1).
NORMAL_MIB = 32768
LARGE_MIB = 65536


@dataclass(frozen=True, slots=True)
class MemoryMachineSpec:
    """``nodes`` nodes, the last ``large`` of them large.

    >>> MemoryMachineSpec(1024, large_count(1024, 15)).capacities()[863:865]
    [32768, 65536]
    """

    nodes: int
    large: int = 0
    cores: int = 32
    normal_mib: int = NORMAL_MIB
    large_mib: int = LARGE_MIB

    def __post_init__(self) -> None:
        if self.nodes < 1 or not 0 <= self.large <= self.nodes:
            raise SimulationError(
                f"memory machine: need nodes >= 1 and 0 <= large <= nodes "
                f"(nodes={self.nodes}, large={self.large})"
            )
        if self.cores < 1 or self.normal_mib < 1 or self.large_mib < self.normal_mib:
            raise SimulationError(
                f"memory machine: need cores >= 1 and large_mib >= normal_mib >= 1 "
                f"(cores={self.cores}, normal_mib={self.normal_mib}, large_mib={self.large_mib})"
            )

    @property
    def normal(self) -> int:
        """How many normal nodes (ranks ``0 .. normal - 1``)."""
        return self.nodes - self.large

    def capacities(self) -> list[int]:
        """Memory capacity (MiB) of each node rank."""
        return [self.normal_mib] * self.normal + [self.large_mib] * self.large

    @property
    def total_mib(self) -> int:
        """The machine's total memory (MiB)."""
        return self.normal * self.normal_mib + self.large * self.large_mib


def large_count(nodes: int, percent: float) -> int:
    """Large nodes of a machine with ``percent``% large nodes, as the authors' scripts count.

    The share is rounded up to a multiple of ``nodes / 64`` (when that divides), which gives
    the spec's table: 15% of 1024 is 160 nodes (15.6%), of 128 is 20, of 64 is 10.

    >>> [large_count(1024, s) for s in (0, 15, 25, 50, 75, 100)]
    [0, 160, 256, 512, 768, 1024]
    >>> large_count(128, 15), large_count(64, 25)
    (20, 16)
    """
    if not 0 <= percent <= 100:
        raise SimulationError(f"large-node share must be in [0, 100] %, got {percent}")
    grain = nodes // 64 if nodes % 64 == 0 and nodes >= 64 else 1
    exact = nodes * percent / 100
    return min(nodes, math.ceil(round(exact / grain, 9)) * grain)


def _vertex(name: str, vtype: str, size: int = 1, root: bool = False, sub: str = "") -> str:
    unit = "MiB" if vtype == "memory" else ""
    return grug_vertex(name, vtype, size=size, unit=unit, root=root, subsystem=sub)


def _edge(src: str, dst: str, scale: int = 1, scope: int = 0, start: int = 0) -> str:
    return grug_edge(src, dst, [("multi_scale", scale), ("id_scope", scope), ("id_start", start)])


def memory_recipe(spec: MemoryMachineSpec) -> str:
    """The GRUG recipe of ``spec`` (spec §2.2's four steps; empty node groups omitted).

    >>> text = memory_recipe(MemoryMachineSpec(4, 1))
    >>> "ASSOCIATE_IN" in text and "memfabric" in text
    True
    """
    vertices = [_vertex("cluster", "cluster", root=True)]
    edges = []
    groups = (
        ("n", spec.normal, spec.normal_mib, 0),
        ("l", spec.large, spec.large_mib, spec.normal),
    )
    for tag, count, mib, first in groups:
        if count == 0:
            continue
        vertices += [
            _vertex(f"{tag}node", "node"),
            _vertex(f"{tag}core", "core", spec.cores),
            _vertex(f"{tag}memory", "memory", mib),
        ]
        edges += [
            _edge("cluster", f"{tag}node", count, 1, first),
            _edge(f"{tag}node", f"{tag}core"),
            # memory ids machine-wide (memory{i} on node{i}): unique memnet paths
            _edge(f"{tag}node", f"{tag}memory", 1, 1, first),
        ]
    # the conduit: a memnet root linked to every memory vertex generated above
    vertices += [
        _vertex("memfabric", "memfabric", root=True, sub="memnet"),
        _vertex("netmemory", "memory", sub="memnet"),
    ]
    conduit = [
        ("gen_method", "ASSOCIATE_IN"),
        ("e_subsystem", "memnet"),
        ("relation", "conduit-of"),
        ("rrelation", "conduit-from"),
    ]
    edges.append(grug_edge("memfabric", "netmemory", conduit))
    return grug_document(
        vertices, edges, graph_id="memory-machine", comment=f"fluxgraph memory machine: {spec}"
    )


def build_memory_machine(spec: MemoryMachineSpec | int, large: int = 0) -> ResourceGraph:
    """The resource graph of ``spec`` (or of ``MemoryMachineSpec(spec, large)``).

    >>> g = build_memory_machine(4, 1)
    >>> [g.sizes[v] for v in g.by_type["memory"]], g.roots["memnet"] == g.by_type["memfabric"][0]
    ([32768, 32768, 32768, 65536], True)
    """
    if isinstance(spec, int):
        spec = MemoryMachineSpec(spec, large)
    graph = ResourceGraph()
    reader("grug")(graph, memory_recipe(spec), source=f"<memory machine {spec}>")
    return graph
