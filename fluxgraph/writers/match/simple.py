"""The ``simple`` and ``pretty_simple`` match writers: one indented text line per vertex."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fluxgraph.writers.sink import MatchWriter

if TYPE_CHECKING:
    pass

__all__ = ["PrettySimpleWriter", "SimpleWriter", "level_prefix"]


def level_prefix(level: int) -> str:
    """The reference's indentation: six spaces then ``---`` per level (root level 1).

    Examples
    --------
    >>> level_prefix(2)
    '      ------'
    """
    return "      " + "---" * level


class SimpleWriter(MatchWriter):
    """``simple``: ``<prefix><name>[<needs>:x|s]`` lines in emission (post-)order.

    Examples
    --------
    >>> from fluxgraph.graph import ResourceGraph
    >>> g = ResourceGraph()
    >>> c = g.add_vertex("cluster", "tiny", 0)
    >>> w = SimpleWriter()
    >>> w.emit_vtx(g, c, 1, 1, False, False)
    >>> w.emit()
    '      ---tiny0[1:s]\\n'
    >>> w.emit()
    ''
    """

    name = "simple"
    _exclusive = ("s", "x")

    def __init__(self) -> None:
        self._lines: list[str] = []

    def emit_vtx(self, graph, v, level, needs, exclusive, excl_parent, agfilter=None) -> None:
        """Append one line for vertex ``v``."""
        mark = self._exclusive[bool(exclusive)]
        self._lines.append(f"{level_prefix(level)}{graph.names[v]}[{needs}:{mark}]\n")

    def _text(self) -> str:
        return "".join(self._lines)

    def emit(self) -> str:
        """Return the accumulated text (``""`` when nothing was emitted) and clear it."""
        text = self._text()
        self._lines.clear()
        return text

    def emit_json(self) -> str | None:
        """The accumulated text as one JSON string value, ``None`` when empty; clears it."""
        text = self.emit()
        return text or None


class PrettySimpleWriter(SimpleWriter):
    """``pretty_simple``: ``exclusive``/``shared`` marks, lines in reverse emission order.

    Examples
    --------
    >>> from fluxgraph.graph import ResourceGraph
    >>> g = ResourceGraph()
    >>> c = g.add_vertex("cluster", "tiny", 0)
    >>> n = g.add_vertex("node", "node", 0)
    >>> w = PrettySimpleWriter()
    >>> w.emit_vtx(g, n, 2, 1, True, False)
    >>> w.emit_vtx(g, c, 1, 1, False, False)
    >>> print(w.emit(), end="")
          ---tiny0[1:shared]
          ------node0[1:exclusive]
    """

    name = "pretty_simple"
    _exclusive = ("shared", "exclusive")

    def _text(self) -> str:
        return "".join(reversed(self._lines))
