"""The match-writer contract: a sink the traverser feeds vertex by vertex.

The traverser calls, in emission order (post-order of the selected subgraph):
``emit_vtx(graph, v, level, needs, exclusive, excl_parent, agfilter)`` once per selected vertex,
``emit_edg(graph, e, excl_parent)`` right after the subtree below edge ``e``,
then ``emit_tm(start, end)`` and optionally ``emit_attrs(key, value)``. A writer never walks the
graph itself. ``level`` is 1 for the dominant root, 2 for its children, and so on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from fluxgraph.graph import ResourceGraph

__all__ = ["MatchWriter", "SelectedVertex", "SelectionCollector"]

_new_tuple = tuple.__new__


class MatchWriter:
    """What the traverser calls while it emits a selection.

    Subclasses implement :meth:`emit_vtx`; edges, times and attributes are ignored unless a
    format overrides :meth:`emit_edg`, :meth:`emit_tm` or :meth:`emit_attrs` (as the
    reference's writer base does).
    """

    __slots__ = ()

    def emit_vtx(
        self,
        graph: ResourceGraph,
        v: int,
        level: int,
        needs: int,
        exclusive: bool,
        excl_parent: bool,
        agfilter: list[tuple[str, int, int]] | None = None,
    ) -> None:
        """Record selected vertex ``v`` taking ``needs`` units."""
        raise NotImplementedError

    def emit_edg(self, graph: ResourceGraph, e: int, excl_parent: bool) -> None:
        """Record selected edge ``e`` (ignored by default)."""

    def emit_tm(self, start: int, end: int) -> None:
        """Record the selection's time window (ignored by default)."""

    def emit_attrs(self, key: str, value: str) -> None:
        """Record a job attribute such as ``queue`` (ignored by default)."""


class SelectedVertex(NamedTuple):
    """One vertex of a selection: its id, name, type, units taken and exclusivity.

    (A named tuple: one is made for every vertex of every match, and building a tuple is
    several times cheaper than a frozen dataclass.)
    """

    vid: int
    name: str
    type: str
    needs: int
    exclusive: bool
    level: int


@dataclass(slots=True)
class SelectionCollector:
    """A writer that keeps the selection as Python objects (the default of the Python API)."""

    vertices: list[SelectedVertex] = field(default_factory=list)
    edges: list[int] = field(default_factory=list)
    start: int | None = None
    end: int | None = None
    attrs: dict[str, str] = field(default_factory=dict)

    def emit_vtx(self, graph, v, level, needs, exclusive, excl_parent, agfilter=None) -> None:
        # (the tuple built directly: the named tuple's own ``__new__`` is a Python call)
        self.vertices.append(
            _new_tuple(
                SelectedVertex,
                (v, graph.names[v], graph.types[v], needs, bool(exclusive), level),
            )
        )

    def emit_edg(self, graph, e, excl_parent) -> None:
        self.edges.append(e)

    def emit_tm(self, start: int, end: int) -> None:
        self.start, self.end = start, end

    def emit_attrs(self, key: str, value: str) -> None:
        self.attrs[key] = value
