"""The match-policy interface: visit hooks the traverser calls (matching-semantics §5.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from fluxgraph.graph import ResourceGraph
    from fluxgraph.policies.scoring import ScoringObject

__all__ = ["MatchPolicy"]


class MatchPolicy(Protocol):
    """Visit hooks and knobs of a match policy.

    ``requests`` are the traverser's request entries: objects with ``type``, ``with_`` (child
    entries) and ``calc_count(qualified) -> int``. Hooks return 0 to continue, -1 to reject.
    """

    #: Stop exploring a level once this many matches are found (0: explore everything).
    stop_on_k: int
    #: Resource types taken whole with their subtree (e.g. ``("node",)`` for ``*nodex``).
    exclusive_types: tuple[str, ...]

    def dom_discover_vtx(self, graph: ResourceGraph, u: int) -> int:
        """Pre-order visit of ``u`` on the dominant subsystem."""

    def dom_finish_vtx(
        self, graph: ResourceGraph, dom: str, u: int, requests: Any, dfu: ScoringObject
    ) -> int:
        """Post-order visit: choose children and set ``dfu.overall_score``."""

    def dom_finish_slot(self, graph: ResourceGraph, dom: str, dfu: ScoringObject) -> int:
        """Order the member candidates of a slot."""

    def dom_finish_graph(
        self, graph: ResourceGraph, dom: str, requests: Any, dfu: ScoringObject
    ) -> int:
        """Choose the top-level candidates at the root."""
