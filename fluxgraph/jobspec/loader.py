"""Entry points: :func:`load` a jobspec, :func:`dump` it back, :func:`check_known_types`."""

from __future__ import annotations

import os
from collections.abc import Container, Mapping
from errno import EFBIG, EINVAL
from typing import Any

import yaml

from fluxgraph.errors import JobspecError
from fluxgraph.jobspec._source import from_data, from_text, make_error
from fluxgraph.jobspec.model import Jobspec, build_jobspec
from fluxgraph.jobspec.validate import validate
from fluxgraph.limits import MAX_JOBSPEC_BYTES, read_bytes

__all__ = ["UNKNOWN_TYPE_MESSAGE", "check_known_types", "dump", "load", "read_text"]

#: The reference's message for a resource type the graph does not know.
UNKNOWN_TYPE_MESSAGE = 'Value of "type" must be a resource type known to fluxion'


def read_text(path: str | os.PathLike[str]) -> str:
    """Read a jobspec file (at most :data:`~fluxgraph.limits.MAX_JOBSPEC_BYTES`).

    Raises
    ------
    JobspecError
        When the file cannot be read: ``errno`` is the OS error number and ``reason`` is
        ``can't open <path>`` (what ``resource-query`` prints), or ``<path>: File too large
        (more than <limit> bytes)`` (``errno`` EFBIG) when it is larger than the limit.
    """
    try:
        return read_bytes(path, MAX_JOBSPEC_BYTES).decode("utf-8")
    except (OSError, ValueError) as exc:  # ValueError: undecodable text, NUL in the name
        errno = exc.errno if isinstance(exc, OSError) and exc.errno else EINVAL
        err = JobspecError(f"can't open {os.fspath(path)}: {exc}", errno=errno)
        err.path = ""
        err.reason = f"can't open {os.fspath(path)}"
        if errno == EFBIG:
            err.reason = f"{os.fspath(path)}: {exc.strerror}"  # type: ignore[union-attr]
        raise err from exc


def load(source: str | bytes | os.PathLike[str] | Mapping[str, Any]) -> Jobspec:
    """Parse and validate a jobspec into an immutable :class:`Jobspec`.

    Parameters
    ----------
    source
        A path (``os.PathLike``, or a non-empty ``str`` without a newline that does not start
        with ``{`` or ``[``), YAML or JSON text (``str`` or ``bytes``), or already-parsed data (a
        mapping).
        Text is read with a safe, non-recursive YAML reader; only the first document is used.

    Returns
    -------
    Jobspec

    Raises
    ------
    JobspecError
        For anything invalid, with ``errno`` EINVAL (or the OS errno when a file cannot be
        read). ``str(err)`` names the offending path, e.g. ``resources[0].with[1].count.min:
        "min" must be greater than zero``; ``err.reason`` is the reference's message alone and
        ``err.path`` the path. Resource types are not checked against a graph here: see
        :func:`check_known_types`.

    Examples
    --------
    >>> js = load('''
    ... version: 9999
    ... resources:
    ...   - type: node
    ...     count: 2
    ...     with:
    ...       - type: slot
    ...         count: 1
    ...         label: default
    ...         with: [{type: core, count: 4}]
    ... tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
    ... attributes: {system: {duration: 3600}}
    ... ''')
    >>> js.totals, js.duration
    ((('node', 2), ('slot', 2), ('core', 8)), 3600.0)
    >>> load({"version": 1})
    Traceback (most recent call last):
    ...
    fluxgraph.errors.JobspecError: resources: Missing key "resource" in top level mapping
    """
    if isinstance(source, Mapping):
        src = from_data(source)
    elif isinstance(source, bytes):
        src = from_text(source.decode("utf-8", errors="replace"))
    elif isinstance(source, os.PathLike) or (
        isinstance(source, str)
        and source
        and "\n" not in source
        and source.lstrip()[:1] not in "{["
    ):
        src = from_text(read_text(source))
    elif isinstance(source, str):
        src = from_text(source)
    else:
        raise make_error((), f"cannot load a jobspec from {type(source).__name__}")
    validate(src)
    return build_jobspec(src.data)


class _QuotingDumper(yaml.SafeDumper):
    """Writes every string double-quoted, so property constraints stay quoted strings."""


_QuotingDumper.add_representer(
    str, lambda dumper, s: dumper.represent_scalar("tag:yaml.org,2002:str", s, style='"')
)


def dump(jobspec: Jobspec) -> str:
    """The jobspec as YAML text that :func:`load` reads back to an equal model.

    >>> js = load({"version": 1, "resources": [{"type": "core", "count": 1}], "tasks": [],
    ...            "attributes": {}})
    >>> print(dump(js), end="")
    "version": 1
    "resources":
    - "type": "core"
      "count": 1
    "tasks": []
    "attributes": {}
    >>> load(dump(js)) == js
    True
    """
    return yaml.dump(
        jobspec.to_dict(), Dumper=_QuotingDumper, sort_keys=False, default_flow_style=False
    )


def check_known_types(jobspec: Jobspec, known_types: Container[str]) -> None:
    """Reject a jobspec whose resource types are not all in ``known_types``.

    The reference interns jobspec types while parsing and, once the graph is loaded, fails
    any type it has not seen (graph types, prune-filter types and its pre-interned
    ``cluster, core, socket, gpu, node, rack, slot, xor_slot, ssd, storage_node``). The
    matcher calls this with its interner. The first unknown type in preorder is reported.

    Raises
    ------
    JobspecError
        ``reason`` is ``Value of "type" must be a resource type known to fluxion``.

    Examples
    --------
    >>> js = load({"version": 1, "resources": [{"type": "gizmo", "count": 1}], "tasks": [],
    ...            "attributes": {}})
    >>> check_known_types(js, {"node", "core"})
    Traceback (most recent call last):
    ...
    fluxgraph.errors.JobspecError: resources[0].type: Value of "type" must be a resource type \
known to fluxion (unknown type 'gizmo')
    """
    stack = [(r, ("resources", i)) for i, r in reversed(list(enumerate(jobspec.resources)))]
    while stack:
        r, path = stack.pop()
        if r.type not in known_types:
            raise make_error((*path, "type"), UNKNOWN_TYPE_MESSAGE, f"unknown type {r.type!r}")
        for i in range(len(r.with_) - 1, -1, -1):
            stack.append((r.with_[i], (*path, "with", i)))
