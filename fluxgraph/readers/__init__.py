"""Readers: text in one of the reference's formats -> :class:`~fluxgraph.graph.ResourceGraph`.

Every format module exposes one function with the same shape::

    unpack(graph, text, *, source="<string>", rank=-1, allowlist=None) -> None

which adds the resources described by ``text`` to ``graph``. It validates everything before it
touches the graph, so on :class:`~fluxgraph.errors.ReaderError` the graph is unchanged.
``ReaderError.reference_message`` (when set) is the exact text the reference reader reports,
which the ``resource-query`` front end prints.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from pathlib import Path
from types import MappingProxyType

from fluxgraph.errors import ReaderError
from fluxgraph.graph import ResourceGraph
from fluxgraph.limits import read_bytes

__all__ = ["READERS", "load", "reader"]

#: Reader name (the ``-f`` option) -> module defining ``unpack``.
READERS = MappingProxyType(
    {
        "grug": "fluxgraph.readers.grug",
        "jgf": "fluxgraph.readers.jgf",
        "jgf_shorthand": "fluxgraph.readers.jgf",
        "rv1exec": "fluxgraph.readers.rv1exec",
        "rv1exec_force": "fluxgraph.readers.rv1exec",
        "hwloc": "fluxgraph.readers.hwloc",
    }
)

Unpack = Callable[..., None]


def reader(name: str) -> Unpack:
    """The ``unpack`` function of the reader called ``name``.

    Raises
    ------
    ReaderError
        If ``name`` is not a known reader; the message lists the valid names.
    """
    try:
        module = READERS[name]
    except KeyError:
        valid = ", ".join(READERS)
        raise ReaderError(f"unknown graph format {name!r} (valid: {valid})") from None
    return importlib.import_module(module).unpack


def load(
    source: str | Path,
    fmt: str = "grug",
    *,
    allowlist: Iterable[str] | None = None,
) -> ResourceGraph:
    """Read the file ``source`` in format ``fmt`` into a new graph.

    Raises
    ------
    ReaderError
        If the file cannot be read (or is larger than
        :data:`~fluxgraph.limits.MAX_INPUT_BYTES`) or its content is malformed; the message
        names the file.
    """
    unpack = reader(fmt)
    path = Path(source)
    try:
        text = read_bytes(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ReaderError(f"{path}: cannot read: {err}") from err
    graph = ResourceGraph()
    allowed = frozenset(allowlist) if allowlist is not None else None
    unpack(graph, text, source=str(path), allowlist=allowed)
    return graph
