"""fluxgraph: graph-based HPC resource model, matcher and schedulers.

The curated entry points::

    from fluxgraph import Matcher, load_graph, load_jobspec

    m = Matcher(load_graph("grug_recipes/medium.graphml"), policy="high")
    r = m.match(load_jobspec("jobspecs/slot-core-memory-gpu.yaml"))
"""

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
    "load_graph",
    "load_jobspec",
]
