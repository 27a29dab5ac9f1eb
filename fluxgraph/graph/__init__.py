"""The resource graph store."""

from __future__ import annotations

from fluxgraph.graph.interner import Interner
from fluxgraph.graph.store import (
    CONTAINMENT,
    STATUS_DOWN,
    STATUS_UP,
    ResourceGraph,
    ScheduleState,
    VertexView,
)

__all__ = [
    "CONTAINMENT",
    "STATUS_DOWN",
    "STATUS_UP",
    "Interner",
    "ResourceGraph",
    "ScheduleState",
    "VertexView",
]
