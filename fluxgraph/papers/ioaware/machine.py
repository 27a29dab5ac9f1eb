"""The paper's machine (§IV; spec §2): ``N`` whole-node compute nodes and the parallel file
system's bandwidth as one ``pfs_bw`` pool vertex under the cluster.

Node-level LOD: each node holds one core (the simulator's ``node`` job shape asks for a slot
with a core; every job takes a whole node, so sockets and cores change nothing). The pool's
size is ``R_limit`` in units of 0.01 GiB/s (2000 for 20 GiB/s), unit ``0.01GiB/s``.

>>> g = build_pfs_machine(15, 20.0)
>>> len(g.by_type["node"]), [g.sizes[v] for v in g.by_type["pfs_bw"]]
(15, [2000])
"""

from __future__ import annotations

from fluxgraph.errors import SimulationError
from fluxgraph.graph import ResourceGraph
from fluxgraph.machines import MachineSpec, grug_document, grug_edge, grug_vertex, recipe_parts
from fluxgraph.readers import reader

__all__ = ["UNITS_PER_GIBS", "build_pfs_machine", "pfs_recipe", "units"]

#: ``pfs_bw`` units per GiB/s (one unit is 0.01 GiB/s, decision D12).
UNITS_PER_GIBS = 100


def units(rate: float, r_limit: float) -> int:
    """Pool units a job with estimate ``rate`` GiB/s asks for: 0 without I/O, else
    ``max(1, round(100 * min(rate, r_limit)))`` (spec §2).

    >>> units(3.847, 20.0), units(0.0, 20.0), units(0.001, 20.0), units(25.0, 15.0)
    (385, 0, 1, 1500)
    """
    if rate <= 0:
        return 0
    return max(1, round(UNITS_PER_GIBS * min(rate, r_limit)))


def pfs_recipe(nodes: int, r_limit: float) -> str:
    """The GRUG recipe: ``cluster > {pfs_bw[R_limit/0.01], node[nodes] > core[1]}``."""
    if nodes < 1 or r_limit <= 0:
        raise SimulationError(f"pfs machine needs nodes >= 1 and R_limit > 0 ({nodes}, {r_limit})")
    spec = MachineSpec(nodes=nodes, cores=1)
    vertices, edges = recipe_parts(spec)
    pool = [
        grug_vertex("pfs_bw", "pfs_bw", size=units(r_limit, r_limit), unit="0.01GiB/s"),
        grug_edge("cluster", "pfs_bw", [("multi_scale", 1), ("id_scope", 1)]),
    ]
    return grug_document(vertices, edges, comment=f"fluxgraph machine: {spec.name}", after=pool)


def build_pfs_machine(nodes: int = 15, r_limit: float = 20.0) -> ResourceGraph:
    """The resource graph of :func:`pfs_recipe`."""
    graph = ResourceGraph()
    reader("grug")(graph, pfs_recipe(nodes, r_limit), source=f"<pfs machine {nodes} nodes>")
    return graph
