"""fluxgraph: graph-based HPC resource model, matcher and schedulers.

The curated entry points::

    from fluxgraph import Matcher, bundled, load_graph, load_jobspec

    m = Matcher(load_graph(bundled("machines", "medium")), policy="high")
    r = m.match(load_jobspec(bundled("jobspecs", "slot-core-memory-gpu")))
"""

from __future__ import annotations

from fluxgraph.data import bundled
from fluxgraph.errors import (
    FluxgraphError,
    GraphError,
    JobspecError,
    MatchError,
    PlannerError,
    QueryError,
    ReaderError,
)
from fluxgraph.graph import ResourceGraph
from fluxgraph.jobspec import load as load_jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.planner import Planner, PlannerMulti
from fluxgraph.readers import load as load_graph

__version__ = "0.1.0"

__all__ = [
    "FluxgraphError",
    "GraphError",
    "JobspecError",
    "MatchError",
    "Matcher",
    "Planner",
    "PlannerError",
    "PlannerMulti",
    "QueryError",
    "ReaderError",
    "ResourceGraph",
    "__version__",
    "bundled",
    "load_graph",
    "load_jobspec",
]
