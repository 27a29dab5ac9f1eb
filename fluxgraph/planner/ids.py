"""Span ids taken ahead of their spans.

A booking recorded now and written into the planners later (the matcher's deferred
reservations, :mod:`fluxgraph.traverser.fastpath`) takes its span ids when it is recorded, so
that every later span gets the id it would have got had the booking been written at once, and
the booking, once written, holds the ids it would have held. A taken id never written is a gap,
as the id of a span added and removed again is.

>>> from fluxgraph.planner import Planner
>>> p = Planner(0, 100, 4, "core")
>>> late = take_id(p)              # a booking recorded now, written later
>>> p.add_span(0, 10, 1)           # a span written meanwhile gets the next id
2
>>> add_span_id(p, late, 20, 5, 3); list(p.span_ids()), p.span_resource_count(late)
([1, 2], 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from fluxgraph.planner.errors import PlannerExistsError, PlannerInvalidError
from fluxgraph.planner.multi import PlannerMulti

__all__ = ["add_multi_span_id", "add_span_id", "take_id", "take_multi_id"]


class _Counted(Protocol):
    """A planner whose span ids are a counter (:class:`Planner`, the traverser's small ones)."""

    _counter: int
    _spans: dict

    def add_span(self, start: int, duration: int, request: int) -> int: ...


def take_id(p: _Counted, count: int = 1) -> int:
    """The ``count`` ids :meth:`Planner.add_span` would give next, taken; the first of them."""
    first = p._counter + 1
    p._counter += count
    return first


def add_span_id(p: _Counted, sid: int, start: int, duration: int, request: int) -> None:
    """:meth:`Planner.add_span` under the taken id ``sid`` (same checks and errors); the span
    ids stay in ascending order.

    Raises
    ------
    PlannerInvalidError
        ``sid`` was never taken; else as :meth:`Planner.add_span`.
    """
    counter = p._counter
    if not 0 < sid <= counter:
        raise PlannerInvalidError(f"span id {sid!r} was not taken")
    p._counter = sid - 1
    try:
        p.add_span(start, duration, request)
    finally:
        p._counter = counter
    _ascending(p._spans, sid)


def take_multi_id(m: PlannerMulti, count: int = 1) -> tuple[int, list[int]]:
    """The ids of the ``count`` multi-spans :meth:`PlannerMulti.add_span` would add next (its
    own and each sub-planner's), taken; those of the first of them."""
    mid = m._counter
    m._counter = mid + count
    return mid, [take_id(p, count) for p in m._planners]


def add_multi_span_id(
    m: PlannerMulti, ids: tuple[int, list[int]], start: int, duration: int, counts: Sequence[int]
) -> None:
    """:meth:`PlannerMulti.add_span` under the ids ``ids`` from :func:`take_multi_id`.

    Raises
    ------
    PlannerExistsError
        The multi-span id is in use.
    PlannerInvalidError
        A count vector of the wrong length, or an id never taken; else as
        :meth:`Planner.add_span` (sub-spans already added stay, as the reference's do).
    """
    mid, subs = ids
    if mid in m._spans:
        raise PlannerExistsError(f"multi-span id {mid} already exists")
    if not 0 <= mid < m._counter or len(counts) != len(m._planners) or len(subs) != len(counts):
        raise PlannerInvalidError(f"multi-span ids {ids!r} do not fit the counts {counts!r}")
    for p, sid, c in zip(m._planners, subs, counts, strict=True):
        add_span_id(p, sid, start, duration, c)
    m._spans[mid] = list(subs)
    _ascending(m._spans, mid)


def _ascending(spans: dict, sid: int) -> None:
    """Re-order ``spans`` (ascending ids but the last, ``sid``, just added) by id when ``sid``
    is not the highest."""
    ids = reversed(spans)
    next(ids)
    if next(ids, sid) > sid:
        ordered = sorted(spans.items())
        spans.clear()
        spans.update(ordered)
