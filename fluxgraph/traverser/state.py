"""Per-vertex scheduling state: lazily created planners, job maps and traversal colours.

Vertex planners (``size`` units over ``[0, INT64_MAX)``) and exclusivity checkers are created on
first use: a vertex without a planner has all of its units free, so a fresh 80K-vertex graph costs
no planner objects at all.
"""

from __future__ import annotations

from fluxgraph.graph import ResourceGraph
from fluxgraph.planner import INT64_MAX, Planner

__all__ = [
    "INT64_MAX",
    "X_CHECKER_NJOBS",
    "Colors",
    "avail_during",
    "own_planner",
    "x_checker",
]

#: Total of an exclusivity-checker planner: one unit per job touching the vertex.
X_CHECKER_NJOBS = 1 << 30


def own_planner(graph: ResourceGraph, v: int) -> Planner:
    """The vertex planner of ``v``, created on first use."""
    plans = graph.schedule.plans
    p = plans[v]
    if p is None:
        p = plans[v] = Planner(0, INT64_MAX, graph.sizes[v], graph.types[v])
    return p


def x_checker(graph: ResourceGraph, v: int) -> Planner:
    """The exclusivity-checker planner of ``v``, created on first use."""
    checkers = graph.schedule.x_checkers
    p = checkers[v]
    if p is None:
        p = checkers[v] = Planner(0, INT64_MAX, X_CHECKER_NJOBS, "jobs")
    return p


def avail_during(p: Planner | None, total: int, at: int, duration: int) -> int:
    """Units of ``p`` free over ``[at, at + duration)`` (``total`` when ``p`` is not created)."""
    if p is None:
        return total
    return p.avail_resources_during(at, duration)


class Colors:
    """White/gray/black traversal colours per subsystem, reset in O(1) by an epoch bump.

    A colour value ``c`` is white when ``c <= base``, gray at ``base + 1``, black at
    ``base + 2`` (matching-semantics §3.4).
    """

    __slots__ = ("base", "marks")

    def __init__(self, graph: ResourceGraph, subsystems: list[str]) -> None:
        n = graph.num_vertices
        self.marks = {s: [0] * n for s in subsystems}
        self.base = 0

    def reset(self) -> None:
        """Make every vertex white again."""
        self.base += 3
