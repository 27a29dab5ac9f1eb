"""fluxgraph: graph-based HPC resource model, matcher and schedulers."""

from __future__ import annotations

from fluxgraph.errors import (
    FluxgraphError,
    GraphError,
    JobspecError,
    MatchError,
    PlannerError,
    QueryError,
    ReaderError,
)

__version__ = "0.1.0"

__all__ = [
    "FluxgraphError",
    "GraphError",
    "JobspecError",
    "MatchError",
    "PlannerError",
    "QueryError",
    "ReaderError",
    "__version__",
]
