"""First-seen string interning, as the reference orders resource types and subsystems.

The reference compares interned names by the order in which they were first interned, not by
spelling, so every map keyed by a type or subsystem iterates in first-seen order. An
:class:`Interner` belongs to one graph (no process-wide state).
"""

from __future__ import annotations

import sys

__all__ = [
    "PREINTERNED_SUBSYSTEMS",
    "PREINTERNED_TYPES",
    "Interner",
    "new_subsystem_interner",
    "new_type_interner",
]

#: Resource types interned before any graph is read (reference ``data_std.cpp`` order).
PREINTERNED_TYPES = (
    "cluster",
    "core",
    "socket",
    "gpu",
    "node",
    "rack",
    "slot",
    "xor_slot",
    "ssd",
    "storage_node",
    "*",
    "",
)

#: Subsystems interned before any graph is read.
PREINTERNED_SUBSYSTEMS = ("containment",)


class Interner:
    """Assign dense ranks to names in first-seen order.

    Examples
    --------
    >>> names = Interner(["containment"])
    >>> names.intern("power")
    'power'
    >>> names.order("power"), names.order("containment")
    (1, 0)
    >>> sorted(["power", "containment"], key=names.order)
    ['containment', 'power']
    """

    __slots__ = ("_finalized", "_rank", "names")

    def __init__(self, initial: tuple[str, ...] | list[str] = ()) -> None:
        self.names: list[str] = []
        self._rank: dict[str, int] = {}
        self._finalized = False
        for name in initial:
            self.intern(name)

    def intern(self, name: str) -> str:
        """Record ``name`` if new and return the canonical (``sys.intern``-ed) string."""
        rank = self._rank.get(name)
        if rank is not None:
            return self.names[rank]
        name = sys.intern(name)
        self._rank[name] = len(self.names)
        self.names.append(name)
        return name

    def order(self, name: str) -> int:
        """The first-seen rank of ``name``; unknown names sort last."""
        return self._rank.get(name, len(self._rank))

    def __contains__(self, name: object) -> bool:
        return name in self._rank

    def __len__(self) -> int:
        return len(self.names)

    def finalize(self) -> None:
        """Mark the set of names closed (jobspec types must then be known)."""
        self._finalized = True

    @property
    def finalized(self) -> bool:
        """Whether :meth:`finalize` was called."""
        return self._finalized


def new_type_interner() -> Interner:
    """An interner pre-loaded with the reference's start-up resource types."""
    return Interner(PREINTERNED_TYPES)


def new_subsystem_interner() -> Interner:
    """An interner pre-loaded with ``containment``."""
    return Interner(PREINTERNED_SUBSYSTEMS)
