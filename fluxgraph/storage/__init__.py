"""Rabbit (near-node flash) storage on El Capitan-like machines (Fluxion paper §5.1).

:mod:`~fluxgraph.storage.elcap` builds the machines, :mod:`~fluxgraph.storage.directives`
reads ``#DW`` directives, :mod:`~fluxgraph.storage.placer` places node-local, global (Lustre)
and storage-only requests with the ``rabbit`` match policy.
"""

from fluxgraph.storage.directives import (
    Directive,
    StorageRequest,
    parse_capacity,
    parse_directives,
    storage_request,
)
from fluxgraph.storage.elcap import ELCAP, ELCAP_TINY, RabbitMachine, elcap, elcap_recipe
from fluxgraph.storage.placer import (
    LUSTRE_MODES,
    REASONS,
    Placement,
    RabbitPlacer,
    StorageRejected,
)

__all__ = [
    "ELCAP",
    "ELCAP_TINY",
    "LUSTRE_MODES",
    "REASONS",
    "Directive",
    "Placement",
    "RabbitMachine",
    "RabbitPlacer",
    "StorageRejected",
    "StorageRequest",
    "elcap",
    "elcap_recipe",
    "parse_capacity",
    "parse_directives",
    "storage_request",
]
