"""Match writers: sinks that render a selection in one of the reference's eight formats.

The traverser feeds a writer with ``emit_vtx``/``emit_edg``/``emit_tm``/``emit_attrs`` (see
:mod:`fluxgraph.writers.sink`); ``emit()`` then returns the text of everything accumulated since
the last successful emit and clears it (each format has its own rules for what survives), and
``emit_json()`` returns the same as a JSON value (used by ``find``; :func:`dumps` renders it
as the reference prints JSON). A failing emit raises :class:`~fluxgraph.errors.MatchError`
with the reference's ``errno``.

Examples
--------
>>> from fluxgraph.graph import ResourceGraph
>>> g = ResourceGraph()
>>> v = g.add_vertex("core", "core", 3)
>>> w = create("simple")
>>> w.emit_vtx(g, v, 2, 1, True, False)
>>> w.emit()
'      ------core3[1:x]\\n'
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from fluxgraph.errors import QueryError
from fluxgraph.writers._json import dumps
from fluxgraph.writers.match.jgf import JgfShorthandWriter, JgfWriter
from fluxgraph.writers.match.rlite import RliteWriter
from fluxgraph.writers.match.rv1 import Rv1NoschedWriter, Rv1ShorthandWriter, Rv1Writer
from fluxgraph.writers.match.simple import PrettySimpleWriter, SimpleWriter

__all__ = [
    "MATCH_FORMATS",
    "JgfShorthandWriter",
    "JgfWriter",
    "PrettySimpleWriter",
    "RliteWriter",
    "Rv1NoschedWriter",
    "Rv1ShorthandWriter",
    "Rv1Writer",
    "SimpleWriter",
    "create",
    "dumps",
]

#: Format name (the ``-F`` option) -> writer class, in the reference's order.
MATCH_FORMATS = MappingProxyType(
    {
        "simple": SimpleWriter,
        "pretty_simple": PrettySimpleWriter,
        "jgf": JgfWriter,
        "jgf_shorthand": JgfShorthandWriter,
        "rlite": RliteWriter,
        "rv1": Rv1Writer,
        "rv1_nosched": Rv1NoschedWriter,
        "rv1_shorthand": Rv1ShorthandWriter,
    }
)


def create(name: str) -> Any:
    """A new writer for the format ``name`` (exact, case-sensitive).

    Raises
    ------
    QueryError
        If ``name`` is not a known format; the message lists the valid names.

    Examples
    --------
    >>> type(create("rv1")).__name__
    'Rv1Writer'
    >>> create("xml")
    Traceback (most recent call last):
    ...
    fluxgraph.errors.QueryError: unknown match format 'xml' (valid: simple, pretty_simple, \
jgf, jgf_shorthand, rlite, rv1, rv1_nosched, rv1_shorthand)
    """
    try:
        cls = MATCH_FORMATS[name]
    except KeyError:
        valid = ", ".join(MATCH_FORMATS)
        raise QueryError(f"unknown match format {name!r} (valid: {valid})") from None
    return cls()
