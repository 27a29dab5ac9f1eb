"""Rabbit (near-node flash) storage on El Capitan-like machines (Fluxion paper §5.1).

:mod:`~fluxgraph.papers.rabbit.elcap` builds the machines,
:mod:`~fluxgraph.papers.rabbit.directives`
reads ``#DW`` directives, :mod:`~fluxgraph.papers.rabbit.placer` places node-local, global (Lustre)
and storage-only requests with the ``rabbit`` match policy.
"""

from fluxgraph.papers.rabbit.directives import (
    Directive,
    StorageRequest,
    parse_capacity,
    parse_directives,
    storage_request,
)
from fluxgraph.papers.rabbit.elcap import ELCAP, ELCAP_TINY, RabbitMachine, elcap, elcap_recipe
from fluxgraph.papers.rabbit.placer import (
    LUSTRE_MODES,
    REASONS,
    RabbitPlacer,
    StoragePlacement,
    StorageRejected,
)

__all__ = [
    "ELCAP",
    "ELCAP_TINY",
    "LUSTRE_MODES",
    "REASONS",
    "Directive",
    "RabbitMachine",
    "RabbitPlacer",
    "StoragePlacement",
    "StorageRejected",
    "StorageRequest",
    "elcap",
    "elcap_recipe",
    "parse_capacity",
    "parse_directives",
    "storage_request",
]
