"""The ``rv1``, ``rv1_nosched`` and ``rv1_shorthand`` match writers: Flux R version 1 objects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fluxgraph.writers._json import dumps
from fluxgraph.writers.match.jgf import JgfShorthandWriter, JgfWriter
from fluxgraph.writers.match.rlite import RliteWriter
from fluxgraph.writers.sink import MatchWriter

if TYPE_CHECKING:
    from fluxgraph.graph import ResourceGraph

__all__ = ["Rv1NoschedWriter", "Rv1ShorthandWriter", "Rv1Writer"]


class Rv1NoschedWriter(MatchWriter):
    """``rv1_nosched``: ``{"version": 1, "execution": {...}}`` from an internal rlite writer.

    ``starttime``/``expiration`` come from the last :meth:`emit_tm` (initially 0, 0; never
    reset). When no node was gathered the emit prints nothing and keeps all state.

    Examples
    --------
    >>> from fluxgraph.graph import ResourceGraph
    >>> g = ResourceGraph()
    >>> c = g.add_vertex("core", "core", 0)
    >>> n = g.add_vertex("node", "node", 0, rank=0)
    >>> w = Rv1NoschedWriter()
    >>> w.emit_vtx(g, c, 3, 1, True, False)
    >>> w.emit_vtx(g, n, 2, 1, False, False)
    >>> w.emit_tm(0, 3600)
    >>> print(w.emit(), end="")
    {"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0"}}], \
"nodelist": ["node0"], "starttime": 0, "expiration": 3600}}
    """

    name = "rv1_nosched"

    def __init__(self) -> None:
        self._rlite = RliteWriter()
        #: The writers every vertex is fed to.
        self._parts: tuple[MatchWriter, ...] = (self._rlite,)
        self._start = 0
        self._end = 0

    def emit_vtx(self, graph, v, level, needs, exclusive, excl_parent, agfilter=None) -> None:
        """Feed ``v`` to each part (rlite; and JGF for :class:`Rv1Writer`)."""
        for part in self._parts:
            part.emit_vtx(graph, v, level, needs, exclusive, excl_parent, agfilter)

    def emit_tm(self, start: int, end: int) -> None:
        """Record the ``starttime``/``expiration`` of the next document."""
        self._start, self._end = start, end

    def _execution(self) -> dict[str, Any]:
        rlite, nodelist, props = self._rlite.build()
        execution: dict[str, Any] = {"R_lite": rlite, "nodelist": nodelist}
        if props is not None:
            execution["properties"] = props
        execution["starttime"] = self._start
        execution["expiration"] = self._end
        return execution

    def emit_json(self) -> dict[str, Any] | None:
        """The R object (``None``, state kept, when no node was gathered); clears the groups.

        Raises
        ------
        MatchError
            ``EINVAL`` when a gathered id or rank is negative.
        """
        if self._rlite.empty:
            return None
        obj = {"version": 1, "execution": self._execution()}
        self._rlite.clear()
        return obj

    def emit(self) -> str:
        """The R object as one JSON line, ``""`` when nothing was gathered."""
        obj = self.emit_json()
        return "" if obj is None else dumps(obj) + "\n"


class Rv1Writer(Rv1NoschedWriter):
    """``rv1``: R version 1 with a JGF ``scheduling`` part and the recorded attributes.

    Attributes from :meth:`emit_attrs` are never cleared, so once one was recorded every later
    document carries ``"attributes": {"system": {"scheduler": {...}}}``. When either part is
    empty nothing is printed and the other part keeps its pending elements.
    """

    name = "rv1"
    _jgf_class: type[JgfWriter] = JgfWriter

    def __init__(self) -> None:
        super().__init__()
        self._jgf = self._jgf_class()
        self._parts = (self._rlite, self._jgf)
        self._attrs: dict[str, str] = {}

    def emit_edg(self, graph: ResourceGraph, e: int, excl_parent: bool) -> None:
        """Feed ``e`` to the JGF part."""
        self._jgf.emit_edg(graph, e, excl_parent)

    def emit_attrs(self, key: str, value: str) -> None:
        """Record a scheduler attribute (kept for the life of the writer)."""
        self._attrs[key] = value

    def emit_json(self) -> dict[str, Any] | None:
        """The R object (``None``, state kept, when a part is empty); clears both parts.

        Raises
        ------
        MatchError
            ``EINVAL`` (negative id or rank) or ``ENOENT`` (JGF part with nodes but no edges or
            the reverse); nothing is cleared then.
        """
        if self._rlite.empty or self._jgf.empty:
            return None
        execution = self._execution()
        scheduling = self._jgf.emit_json()
        self._rlite.clear()
        obj: dict[str, Any] = {"version": 1, "execution": execution, "scheduling": scheduling}
        if self._attrs:
            obj["attributes"] = {"system": {"scheduler": dict(sorted(self._attrs.items()))}}
        return obj


class Rv1ShorthandWriter(Rv1Writer):
    """``rv1_shorthand``: :class:`Rv1Writer` whose scheduling part is ``jgf_shorthand``."""

    name = "rv1_shorthand"
    _jgf_class = JgfShorthandWriter
