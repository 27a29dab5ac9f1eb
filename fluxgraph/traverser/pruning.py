"""Pruning-filter configuration: which vertex types track aggregates of which types (§5.2, §7.1)."""

from __future__ import annotations

from collections.abc import Callable

from fluxgraph.errors import MatchError

__all__ = ["ANY_TYPE", "PruningConfig"]

#: The anchor written ``ALL`` in a prune spec.
ANY_TYPE = "*"


class PruningConfig:
    """Per-subsystem map ``anchor type -> pruning types`` and the set of all pruning types.

    ``order`` ranks type names (the graph's first-seen interning).

    Examples
    --------
    >>> cfg = PruningConfig(order=["cluster", "core", "node"].index)
    >>> cfg.set_spec("containment", "ALL:core,cluster:node")
    >>> cfg.my_pruning_types("containment", "cluster")
    ['node', 'core']
    >>> cfg.my_pruning_types("containment", "core")
    []
    """

    __slots__ = ("_anchors", "_order", "_total", "version")

    def __init__(self, order: Callable[[str], int]) -> None:
        self._anchors: dict[str, dict[str, set[str]]] = {}
        self._total: dict[str, set[str]] = {}
        self._order = order
        #: Bumped by every registration (callers cache what they derived from the config).
        self.version = 0

    def set_pruning_type(self, subsystem: str, anchor: str, rtype: str) -> None:
        """Register ``rtype`` as tracked by vertices of type ``anchor`` (``*``: all)."""
        self.version += 1
        anchors = self._anchors.setdefault(subsystem, {})
        if anchor == ANY_TYPE:
            for types in anchors.values():
                types.discard(rtype)
            anchors.setdefault(ANY_TYPE, set()).add(rtype)
        elif rtype not in anchors.get(ANY_TYPE, ()):
            anchors.setdefault(anchor, set()).add(rtype)
        self._total.setdefault(subsystem, set()).add(rtype)

    def set_spec(self, subsystem: str, spec: str) -> None:
        """Register every ``HL:LL`` pair of a comma-separated spec (``ALL`` = any type).

        Raises
        ------
        MatchError
            On a piece without ``:`` or with an empty side; earlier pairs stay registered.
        """
        for piece in spec.split(","):
            if ":" not in piece:
                raise MatchError(f"prune filter {piece!r} has no ':'")
            high, low = piece.split(":", 1)
            high, low = "".join(high.split()), "".join(low.split())
            if not high or not low:
                raise MatchError(f"prune filter {piece!r} has an empty side")
            self.set_pruning_type(subsystem, ANY_TYPE if high == "ALL" else high, low)

    def is_pruning_type(self, subsystem: str, rtype: str) -> bool:
        """Whether ``rtype`` is tracked anywhere in ``subsystem``."""
        return rtype in self._total.get(subsystem, ())

    def pruning_types(self, subsystem: str) -> set[str]:
        """Every type tracked in ``subsystem``."""
        return self._total.get(subsystem, set())

    def my_pruning_types(self, subsystem: str, anchor: str) -> list[str]:
        """Types tracked at ``anchor`` vertices: specific ones, then ``ALL`` ones, minus itself."""
        anchors = self._anchors.get(subsystem)
        if anchors is None:
            return []
        order = self._order
        own = sorted(anchors.get(anchor, ()), key=order) if anchor != ANY_TYPE else []
        every = sorted(anchors.get(ANY_TYPE, ()), key=order)
        return [t for t in own + every if t != anchor]
