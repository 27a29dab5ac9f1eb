"""Jobspec parsing, validation and the immutable request model (matching-semantics §4).

>>> from fluxgraph import jobspec
>>> js = jobspec.load({"version": 1, "resources": [{"type": "node", "count": 1}],
...                    "tasks": [], "attributes": {}})
>>> js.resources[0].type, js.totals
('node', (('node', 1),))
"""

from __future__ import annotations

from fluxgraph.errors import JobspecError
from fluxgraph.jobspec.cache import JobspecCache
from fluxgraph.jobspec.constraints import Constraint, VertexView
from fluxgraph.jobspec.counts import UINT_MAX, calc_count, calc_effective_max
from fluxgraph.jobspec.loader import check_known_types, dump, load
from fluxgraph.jobspec.model import Attributes, Jobspec, Resource, SystemAttributes, Task

__all__ = [
    "UINT_MAX",
    "Attributes",
    "Constraint",
    "Jobspec",
    "JobspecCache",
    "JobspecError",
    "Resource",
    "SystemAttributes",
    "Task",
    "VertexView",
    "calc_count",
    "calc_effective_max",
    "check_known_types",
    "dump",
    "load",
]
