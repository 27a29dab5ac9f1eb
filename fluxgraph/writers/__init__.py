"""Writers: whole-graph formats (GraphML, DOT, JGF) and the match writers (:mod:`.match`)."""

from __future__ import annotations

from fluxgraph.writers.dot import to_dot, write_dot
from fluxgraph.writers.graphml import to_graphml, write_graphml
from fluxgraph.writers.jgf import dumps, to_jgf, write_jgf
from fluxgraph.writers.match import MATCH_FORMATS
from fluxgraph.writers.match import create as create_match_writer

__all__ = [
    "MATCH_FORMATS",
    "create_match_writer",
    "dumps",
    "to_dot",
    "to_graphml",
    "to_jgf",
    "write_dot",
    "write_graphml",
    "write_jgf",
]
