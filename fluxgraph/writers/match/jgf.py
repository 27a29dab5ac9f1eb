"""The ``jgf`` and ``jgf_shorthand`` match writers: the selection as a JSON Graph Format text."""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING, Any

from fluxgraph.errors import MatchError
from fluxgraph.writers._json import dumps
from fluxgraph.writers.jgf import edge_element, node_element
from fluxgraph.writers.sink import MatchWriter

if TYPE_CHECKING:
    from fluxgraph.graph import ResourceGraph

__all__ = ["JgfShorthandWriter", "JgfWriter", "vertex_element"]


def vertex_element(
    graph: ResourceGraph,
    v: int,
    needs: int,
    exclusive: bool,
    agfilter: list[tuple[str, int, int]] | None = None,
) -> dict[str, Any]:
    """The JGF node object of vertex ``v`` taking ``needs`` units (reference key order).

    :func:`~fluxgraph.writers.jgf.node_element` with ``size`` = ``needs`` and ``exclusive``,
    followed by the match-only keys: ``ephemeral`` (sorted) when non-empty and ``agfilter``
    (``{type: "used:<n>, total:<m>"}``, sorted) when given.

    Examples
    --------
    >>> from fluxgraph.graph import ResourceGraph
    >>> g = ResourceGraph()
    >>> m = g.add_vertex("memory", "memory", 6, size=2, unit="GB", paths={"containment": "/m6"})
    >>> vertex_element(g, m, 2, True, [("core", 1, 4)])["metadata"]
    {'type': 'memory', 'id': 6, 'rank': -1, 'unit': 'GB', 'exclusive': True, 'size': 2, \
'paths': {'containment': '/m6'}, 'agfilter': {'core': 'used:1, total:4'}}
    """
    element = node_element(graph, v, needs, exclusive)
    meta = element["metadata"]
    ephemeral = graph.schedule.ephemeral
    if v < len(ephemeral) and ephemeral[v]:
        meta["ephemeral"] = dict(sorted(ephemeral[v].items()))
    if agfilter is not None:
        meta["agfilter"] = {t: f"used:{used}, total:{total}" for t, used, total in sorted(agfilter)}
    return element


class JgfWriter(MatchWriter):
    """``jgf``: ``{"graph": {"nodes": [...], "edges": [...]}}`` in emission order.

    ``emit()`` writes nothing when both lists are empty, fails with ``ENOENT`` (keeping the
    elements for the next document) when exactly one is empty, and otherwise clears them.

    Examples
    --------
    >>> from fluxgraph.graph import ResourceGraph
    >>> g = ResourceGraph()
    >>> c = g.add_vertex("cluster", "tiny", 0, paths={"containment": "/tiny0"})
    >>> n = g.add_vertex("node", "node", 1, rank=1, paths={"containment": "/tiny0/node1"})
    >>> e = g.add_edge(c, n, "containment")
    >>> w = JgfWriter()
    >>> w.emit_vtx(g, n, 2, 1, True, False)
    >>> w.emit_edg(g, e, False)
    >>> w.emit_vtx(g, c, 1, 1, False, False)
    >>> print(w.emit(), end="")
    {"graph": {"nodes": [{"id": "1", "metadata": {"type": "node", "id": 1, "rank": 1, \
"exclusive": true, "paths": {"containment": "/tiny0/node1"}}}, {"id": "0", "metadata": \
{"type": "cluster", "basename": "tiny", "id": 0, "rank": -1, "paths": \
{"containment": "/tiny0"}}}], "edges": [{"source": "0", "target": "1"}]}}
    """

    name = "jgf"
    #: Whether elements below an exclusive vertex are dropped (``jgf_shorthand``).
    _shorthand = False

    def __init__(self) -> None:
        self._nodes: list[dict[str, Any]] = []
        self._edges: list[dict[str, Any]] = []
        self._complete = True

    def _drops(self, excl_parent: bool) -> bool:
        """Whether an element below an exclusive vertex is dropped (shorthand only; sticky)."""
        if excl_parent and self._shorthand:
            self._complete = False
            return True
        return False

    def emit_vtx(self, graph, v, level, needs, exclusive, excl_parent, agfilter=None) -> None:
        """Append the node object of ``v`` (snapshot of its current fields)."""
        if not self._drops(excl_parent):
            self._nodes.append(vertex_element(graph, v, needs, exclusive, agfilter))

    def emit_edg(self, graph: ResourceGraph, e: int, excl_parent: bool) -> None:
        """Append the edge object of ``e``; non-containment edges carry their subsystem."""
        if not self._drops(excl_parent):
            self._edges.append(edge_element(graph, e))

    @property
    def empty(self) -> bool:
        """Whether nothing (no node, no edge) is pending."""
        return not self._nodes and not self._edges

    def emit_json(self) -> dict[str, Any] | None:
        """The pending document as a dict (``None`` when empty) and clear it.

        Raises
        ------
        MatchError
            ``ENOENT`` when exactly one of nodes/edges is empty; nothing is cleared then.
        """
        if self.empty:
            return None
        if not self._nodes or not self._edges:
            what = "edges" if self._nodes else "nodes"
            raise MatchError(
                f"{self.name} writer: {len(self._nodes)} nodes, "
                f"{len(self._edges)} edges: no {what} to write",
                errno.ENOENT,
            )
        doc: dict[str, Any] = {"graph": {"nodes": self._nodes, "edges": self._edges}}
        self._decorate(doc)
        self._nodes, self._edges = [], []
        return doc

    def _decorate(self, doc: dict[str, Any]) -> None:
        """Hook for variants adding top-level keys."""

    def emit(self) -> str:
        """The pending document as one JSON line (``""`` when empty); see :meth:`emit_json`."""
        doc = self.emit_json()
        return "" if doc is None else dumps(doc) + "\n"


class JgfShorthandWriter(JgfWriter):
    """``jgf_shorthand``: JGF without the children of exclusive vertices.

    A vertex or edge emitted with ``excl_parent`` true is dropped; from the first drop on, every
    document of this writer carries ``"writer": "fluxion:jgf_shorthand"`` (the flag is sticky).
    """

    name = "jgf_shorthand"
    _shorthand = True

    def _decorate(self, doc: dict[str, Any]) -> None:
        if not self._complete:
            doc["writer"] = "fluxion:jgf_shorthand"
