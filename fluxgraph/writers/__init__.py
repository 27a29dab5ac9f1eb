"""Writers: whole-graph formats (GraphML, DOT, JGF) and the match writers (:mod:`.match`)."""

from __future__ import annotations

from fluxgraph.writers.dot import to_dot, write_dot
from fluxgraph.writers.graphml import to_graphml, write_graphml

__all__ = [
    "to_dot",
    "to_graphml",
    "write_dot",
    "write_graphml",
]
