"""Per-vertex time calendars: :class:`Planner` and :class:`PlannerMulti` (semantics §1-§2)."""

from __future__ import annotations

from fluxgraph.planner.errors import (
    PlannerBusyError,
    PlannerExistsError,
    PlannerInvalidError,
    PlannerNotFoundError,
    PlannerRangeError,
)
from fluxgraph.planner.multi import PlannerMulti
from fluxgraph.planner.planner import GRAPH_END, INT64_MAX, Planner

__all__ = [
    "GRAPH_END",
    "INT64_MAX",
    "Planner",
    "PlannerBusyError",
    "PlannerExistsError",
    "PlannerInvalidError",
    "PlannerMulti",
    "PlannerNotFoundError",
    "PlannerRangeError",
]
