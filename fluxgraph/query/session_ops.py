"""Bridges from REPL commands to the matcher's graph-changing operations.

Each function calls the :class:`~fluxgraph.matcher.Matcher` method of the same name and turns
its result or error into what the command prints. Operations the matcher does not offer yet
report the reference's failure output for that command.
"""

from __future__ import annotations

from dataclasses import dataclass
from errno import EINVAL, ENOTSUP
from typing import Any

from fluxgraph.errors import FluxgraphError, MatchError

__all__ = [
    "OpOutcome",
    "attach",
    "cancel",
    "find",
    "partial_cancel",
    "remove_ranks",
    "remove_subgraph",
    "set_status",
    "update",
]


@dataclass(frozen=True, slots=True)
class OpOutcome:
    """Result of a traverser operation as the front end reports it."""

    rc: int
    errno: int = 0
    message: str = ""
    preorder: int = 0
    postorder: int = 0
    full: bool = False


def _counts(matcher: Any) -> tuple[int, int]:
    tr = getattr(matcher, "traverser", None)
    return getattr(tr, "preorder", 0), getattr(tr, "postorder", 0)


def _message(err: FluxgraphError) -> str:
    text = getattr(err, "reference_message", "") or str(err)
    return text if not text or text.endswith("\n") else text + "\n"


def update(
    matcher: Any, reader: str, text: str, job_id: int, at: int, duration: int, writer: Any
) -> Any:
    """``Matcher.update``: apply a selection read from ``text`` and emit it to ``writer``."""
    method = getattr(matcher, "update", None)
    if method is None:
        return OpOutcome(-1, ENOTSUP)
    return method(reader, text, job_id, at, duration, writer)


def attach(matcher: Any, text: str) -> tuple[int, str] | None:
    """``Matcher.attach``: ``None`` on success, else ``(errno, reader message)``."""
    method = getattr(matcher, "attach", None)
    if method is None:
        return ENOTSUP, "attach is not supported by this matcher\n"
    try:
        method(text)
    except FluxgraphError as err:
        return err.errno or EINVAL, _message(err)
    return None


def remove_subgraph(matcher: Any, path: str) -> str | None:
    """``Matcher.remove_subgraph``: ``None`` on success, else the traverser message."""
    method = getattr(matcher, "remove_subgraph", None)
    if method is None:
        return "remove_subgraph is not supported by this matcher\n"
    try:
        method(path)
    except FluxgraphError as err:
        return _message(err)
    return None


def remove_ranks(matcher: Any, ranks: str) -> list[str] | None:
    """``Matcher.remove_ranks``: ``None`` on success, else the stderr lines to print."""
    from fluxgraph.idset import decode

    try:
        decoded = decode(ranks)
    except (ValueError, FluxgraphError):
        return ["ERROR: failed to decode ranks."]
    method = getattr(matcher, "remove_ranks", None)
    if method is None:
        return ["ERROR: can't remove subgraph ", "ERROR: remove_ranks is not supported"]
    try:
        method(decoded)
    except MatchError as err:
        heading = {
            "partial_cancel": "ERROR: can't partial cancel subgraph ",
            "update_counts": "ERROR: failed to update counts after partial cancel and remove ",
        }.get(getattr(err, "stage", ""), "ERROR: can't remove subgraph ")
        return [heading, "ERROR: " + _message(err).rstrip("\n")]
    return None


def find(matcher: Any, expression: str, writer: Any) -> str | None:
    """``Matcher.find``: ``None`` on success, else the message printed after ``find``."""
    method = getattr(matcher, "find", None)
    if method is None:
        return f"find: invalid criteria: {expression}.\n"
    try:
        method(expression, writer)
    except FluxgraphError as err:
        return _message(err)
    return None


def cancel(matcher: Any, job_id: int) -> tuple[int, int, int]:
    """``Matcher.cancel``: ``(rc, preorder, postorder)`` of the cancel walk."""
    try:
        matcher.cancel(job_id)
    except MatchError:
        return (-1, *_counts(matcher))
    return (0, *_counts(matcher))


def partial_cancel(matcher: Any, job_id: int, reader: str, text: str) -> OpOutcome:
    """``Matcher.partial_cancel``: release part of a job; ``full`` when nothing is left."""
    method = getattr(matcher, "partial_cancel", None)
    if method is None:
        return OpOutcome(-1, ENOTSUP, "remove: partial_cancel returned error.\n")
    try:
        full = method(job_id, reader, text)
    except FluxgraphError as err:
        return OpOutcome(-1, err.errno or EINVAL, _message(err), *_counts(matcher))
    return OpOutcome(0, 0, "", *_counts(matcher), full=bool(full))


def set_status(matcher: Any, path: str, status: str) -> int:
    """``Matcher.set_status``: mark the vertices at ``path`` up or down; 0 or -1."""
    method = getattr(matcher, "set_status", None)
    if method is None:
        return -1
    try:
        method(path, status)
    except FluxgraphError:
        return -1
    return 0
