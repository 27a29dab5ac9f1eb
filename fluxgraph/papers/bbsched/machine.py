"""BBSched machines (spec §2.2): whole nodes, one shared burst-buffer pool, optional local SSDs.

* **CPU = whole nodes** (one ``core`` each), held exclusively, matched with ``lonodex``.
* **Burst buffer**: one shared pool of ``B`` GB directly under the cluster, held from start to
  end. The matcher books units on a vertex only for exclusive requests, and an exclusive vertex
  takes no second job (Fluxion's semantics), so the pool is ``floor(B / chunk)`` ``type=bb``,
  ``unit=GB`` vertices of ``chunk`` GB (default 1,000 GB = 1 TB) and a job asks for ``bb[b]``
  exclusively beside its nodes: the matcher takes ``ceil(b / chunk)`` whole chunks. Requests and
  the pool are therefore in whole TB (:meth:`BBMachine.bb_units`); spec §2.2 has one vertex.
* **Local SSD (paper §5)**: one ``type=ssd`` vertex under each node, 128 GB on the low half of
  the node ids and 256 GB on the high half, so ``lonodex`` puts small SSD requests on the
  128-GB nodes first.

The cluster-to-bb edge comes after the node edges, so node ids do not move. Recipes (GRUG text,
spec §2.2): ``bbsched-kth`` (100 nodes, 188,513 GB), ``bbsched-lublin`` (256 nodes,
375,051 GB), their ``-ssd`` variants, and the scale-test machines ``bbsched-cori`` and
``bbsched-theta``.

>>> m = RECIPES["bbsched-kth-ssd"]
>>> m.nodes, m.bb, m.pool, m.ssd_total, m.ssd_of(49), m.ssd_of(50)
(100, 188513, 188000, 19200, 128, 256)
>>> len(m.graph().types)  # cluster, 100 nodes, 100 cores, 100 ssds, 188 bb chunks
489
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from fluxgraph.errors import SimulationError
from fluxgraph.graph import ResourceGraph
from fluxgraph.machines import grug_document, grug_edge, grug_vertex
from fluxgraph.readers import reader

__all__ = ["RECIPES", "SSD_LARGE", "SSD_SMALL", "BBMachine", "recipe_text"]

#: Local SSD sizes (GB) of the low and high half of the nodes (paper §5).
SSD_SMALL = 128
SSD_LARGE = 256


@dataclass(frozen=True)
class BBMachine:
    """A BBSched machine: ``groups`` of ``(count, cores per node)`` nodes, a ``bb`` GB pool.

    With ``ssd``, the first ``nodes // 2`` nodes get a 128-GB ``ssd`` vertex and the rest a
    256-GB one (the aggregates ``F_128``/``F_256`` of spec §4.2 are counts of those nodes).
    """

    name: str
    groups: tuple[tuple[int, int], ...]
    bb: int
    ssd: bool = False
    bb_chunk: int = 1000

    def __post_init__(self) -> None:
        if not self.groups or any(n < 1 or c < 1 for n, c in self.groups):
            raise SimulationError(f"machine {self.name}: node groups must be positive")
        if self.bb < 0 or self.bb >= 1 << 32:
            raise SimulationError(f"machine {self.name}: bb={self.bb} GB outside [0, 2^32)")
        if self.bb_chunk < 1:
            raise SimulationError(f"machine {self.name}: bb_chunk must be >= 1 GB")
        if self.ssd and (len(self.groups) != 1 or self.nodes % 2):
            raise SimulationError(f"machine {self.name}: SSDs need one even group of nodes")

    @property
    def nodes(self) -> int:
        """Total nodes ``N``."""
        return sum(n for n, _ in self.groups)

    @property
    def pool(self) -> int:
        """The BB capacity the graph holds: ``floor(B / chunk) * chunk`` GB."""
        return self.bb // self.bb_chunk * self.bb_chunk

    def bb_units(self, gb: float) -> int:
        """A request of ``gb`` GB as the graph grants it: whole chunks, in GB.

        >>> RECIPES["bbsched-kth"].bb_units(1), RECIPES["bbsched-kth"].bb_units(5000)
        (1000, 5000)
        """
        return math.ceil(gb / self.bb_chunk) * self.bb_chunk if gb > 0 else 0

    @property
    def small_nodes(self) -> int:
        """Nodes with a 128-GB SSD (``N/2``; 0 without SSDs)."""
        return self.nodes // 2 if self.ssd else 0

    @property
    def ssd_total(self) -> int:
        """``S_tot = 128 N/2 + 256 N/2`` (0 without SSDs)."""
        half = self.small_nodes
        return SSD_SMALL * half + SSD_LARGE * (self.nodes - half) if self.ssd else 0

    def ssd_of(self, rank: int) -> int:
        """The SSD size (GB) of node ``rank`` (0 without SSDs)."""
        if not self.ssd:
            return 0
        return SSD_SMALL if rank < self.small_nodes else SSD_LARGE

    def graph(self) -> ResourceGraph:
        """A fresh resource graph of this machine (its own scheduling state)."""
        graph = ResourceGraph()
        reader("grug")(graph, recipe_text(self), source=f"<bbsched machine {self.name}>")
        return graph


def _vertex(vid: str, kind: str, size: int = 1, unit: str = "", root: bool = False) -> str:
    return grug_vertex(vid, kind, size=size, unit=unit, root=root)


def _edge(src: str, dst: str, scale: int, scope: int, start: int = 0) -> str:
    data = [("multi_scale", scale), ("id_scope", scope)] + ([("id_start", start)] if start else [])
    return grug_edge(src, dst, data)


def recipe_text(machine: BBMachine) -> str:
    """The GRUG recipe of ``machine`` (spec §2.2).

    >>> text = recipe_text(RECIPES["bbsched-kth"])
    >>> '<data key="type">bb</data>' in text and '<data key="size">1000</data>' in text
    True
    """
    vertices = [_vertex("cluster", "cluster", root=True)]
    edges = []
    first = 0
    for index, (count, cores) in enumerate(machine.groups):
        if machine.ssd:
            halves = [("A", machine.small_nodes, SSD_SMALL), ("B", count // 2, SSD_LARGE)]
        else:
            halves = [(str(index), count, 0)]
        for tag, n, ssd in halves:
            node, core = f"node{tag}", f"core{tag}"
            vertices += [_vertex(node, "node"), _vertex(core, "core")]
            edges += [_edge("cluster", node, n, 1, first), _edge(node, core, cores, 0)]
            if ssd:
                vertices.append(_vertex(f"ssd{ssd}", "ssd", ssd, "GB"))
                edges.append(_edge(node, f"ssd{ssd}", 1, 0))
            first += n
    if machine.pool:
        vertices.append(_vertex("bb", "bb", machine.bb_chunk, "GB"))
        edges.append(_edge("cluster", "bb", machine.bb // machine.bb_chunk, 0))
    return grug_document(vertices, edges, comment=f"fluxgraph bbsched machine: {machine.name}")


#: Pool sizes of spec §3.4 (calibrated, see
#: :func:`fluxgraph.papers.bbsched.workloads.calibrate_pool`).
B_KTH = 188_513
B_LUBLIN = 375_051

#: The machines of spec §2.2 by recipe name.
RECIPES: Mapping[str, BBMachine] = MappingProxyType(
    {
        "bbsched-kth": BBMachine("bbsched-kth", ((100, 1),), B_KTH),
        "bbsched-lublin": BBMachine("bbsched-lublin", ((256, 1),), B_LUBLIN),
        "bbsched-kth-ssd": BBMachine("bbsched-kth-ssd", ((100, 1),), B_KTH, ssd=True),
        "bbsched-lublin-ssd": BBMachine("bbsched-lublin-ssd", ((256, 1),), B_LUBLIN, ssd=True),
        "bbsched-cori": BBMachine("bbsched-cori", ((2388, 32), (9688, 68)), 1_800_000),
        "bbsched-theta": BBMachine("bbsched-theta", ((4392, 64),), 1_260_000),
    }
)
