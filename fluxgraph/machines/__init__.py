"""Machines: the one GRUG recipe emitter (:mod:`.grug`) and machines from specs such as
``nodes=100,cores=8,racks=4`` or files (:mod:`.spec`)."""

from fluxgraph.machines.grug import grug_document, grug_edge, grug_vertex
from fluxgraph.machines.spec import (
    MachineSpec,
    build_machine,
    load_machine,
    parse_machine_spec,
    recipe,
    recipe_parts,
)

__all__ = [
    "MachineSpec",
    "build_machine",
    "grug_document",
    "grug_edge",
    "grug_vertex",
    "load_machine",
    "parse_machine_spec",
    "recipe",
    "recipe_parts",
]
