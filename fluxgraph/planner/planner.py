"""Planner: the time calendar of one resource type (matching-semantics §1).

A :class:`Planner` tracks how many of ``total`` units are in use over a planning window
``[base_time, base_time + duration)``. Usage is recorded as *spans* ``(start, duration,
amount)``; every span start and end is a *scheduled point* where the free amount changes.
Queries answer "is this amount free at/over this time?" and "what is the earliest time at or
after ``t`` when this amount is free for ``d``?" exactly as the reference (flux-sched's planner)
answers them, including its quirks (see ``docs/planner.md``).
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import attrgetter
from operator import index as _index

from fluxgraph.planner.errors import (
    PlannerExistsError,
    PlannerInvalidError,
    PlannerRangeError,
)
from fluxgraph.planner.points import new_points

__all__ = ["INT64_MAX", "Planner"]

#: Largest total a planner accepts (the reference stores totals and times as ``int64``).
INT64_MAX = (1 << 63) - 1
#: End of a resource graph's time window (seconds from epoch 0), as in ``resource-query``.
GRAPH_END = 3153600000
_INT64_MIN = -(1 << 63)
#: The fields :meth:`Planner.__eq__` compares before the points.
_FIELDS = attrgetter("_total", "_type", "_start", "_end", "_iter_set", "_counter", "_spans")


class Planner:
    """Calendar of ``total`` units of one resource type over ``[base_time, base_time + duration)``.

    Span ids are ``1, 2, 3, ...`` in creation order and are never reused until :meth:`reset`.

    Parameters
    ----------
    base_time : int
        Start of the planning window (the time of the base point).
    duration : int
        Length of the planning window, at least 1.
    total : int
        Number of units, ``0 <= total <= INT64_MAX``.
    resource_type : str
        Name of the resource type (informational).

    Raises
    ------
    PlannerInvalidError
        ``duration < 1`` or ``resource_type`` is None (EINVAL).
    PlannerRangeError
        ``total`` outside ``[0, INT64_MAX]`` (ERANGE).

    Examples
    --------
    >>> p = Planner(0, 10, 8, "memory")
    >>> p.add_span(0, 1, 8), p.add_span(1, 3, 3)
    (1, 2)
    >>> p.avail_resources_at(2), p.avail_during(1, 2, 5), p.avail_time_first(0, 2, 6)
    (5, True, 4)
    """

    __slots__ = (
        "_counter",
        "_end",
        "_iter_set",
        "_pts",
        "_req",
        "_spans",
        "_start",
        "_total",
        "_type",
    )

    def __init__(self, base_time: int, duration: int, total: int, resource_type: str) -> None:
        if duration < 1 or resource_type is None:
            raise PlannerInvalidError(
                f"invalid planner: duration={duration!r}, resource_type={resource_type!r}"
            )
        if total < 0 or total > INT64_MAX:
            raise PlannerRangeError(f"planner total {total!r} outside [0, INT64_MAX]")
        _check_window(base_time, duration)
        self._type = resource_type
        self._total = _index(total)
        self._init(_index(base_time), _index(duration))

    def _init(self, base_time: int, duration: int) -> None:
        self._start = base_time
        self._end = base_time + duration
        self._pts = new_points(base_time, self._total)
        self._spans: dict[int, list[int]] = {}
        self._counter = 0
        self._iter_set = False
        self._req: tuple[int, int, int] = (0, 0, 0)

    # -- getters --------------------------------------------------------------------------------

    @property
    def base_time(self) -> int:
        """Start of the planning window."""
        return self._start

    @property
    def duration(self) -> int:
        """Length of the planning window (``plan_end - base_time``)."""
        return self._end - self._start

    @property
    def resource_total(self) -> int:
        """Number of units this planner tracks."""
        return self._total

    @property
    def resource_type(self) -> str:
        """Resource type name."""
        return self._type

    def __repr__(self) -> str:
        return (
            f"Planner(base_time={self._start}, duration={self._end - self._start}, "
            f"total={self._total}, resource_type={self._type!r}, spans={len(self._spans)})"
        )

    # -- spans ----------------------------------------------------------------------------------

    def add_span(self, start: int, duration: int, request: int) -> int:
        """Record ``request`` units in use over ``[start, start + duration)``; return the span id.

        Runtime complexity: ``O(log n + k)`` for ``k`` points inside the span.

        Parameters
        ----------
        start, duration, request : int
            Span start, length (at least 1) and amount.

        Returns
        -------
        int
            The new span id (1, 2, 3, ... in creation order).

        Raises
        ------
        PlannerInvalidError
            The amount is not free over the span (this includes ``request > total``, reported
            as EINVAL like the reference), the span leaves the planning window, or
            ``duration < 1``.
        PlannerRangeError
            ``request < 0``, or ``request > total`` where more than ``total`` is free (possible
            after :meth:`update_total` shrank the planner).

        Examples
        --------
        >>> p = Planner(0, 10, 4, "core")
        >>> p.add_span(2, 3, 4)
        1
        >>> p.add_span(3, 1, 1)
        Traceback (most recent call last):
        ...
        fluxgraph.planner.errors.PlannerInvalidError: 1 units not free over [3, 4)
        """
        start = _index(start)
        duration = _index(duration)
        request = _index(request)
        end = start + duration
        if end > self._end:
            raise PlannerInvalidError(f"span [{start}, {end}) ends after the plan end {self._end}")
        pts = self._pts
        if duration >= 1:
            low = pts.window_min(start, end)
            if low is not None and low < request:
                raise PlannerInvalidError(f"{request} units not free over [{start}, {end})")
        if start < self._start or duration < 1 or end - 1 > self._end:
            raise PlannerInvalidError(
                f"span start={start}, duration={duration} outside the planning window"
            )
        if request > self._total or request < 0:
            raise PlannerRangeError(f"span amount {request} outside [0, {self._total}]")
        self._counter += 1
        sid = self._counter
        if sid in self._spans:
            raise PlannerExistsError(f"span id {sid} already exists")
        self._pts = pts.add(start, end, request)
        self._spans[sid] = [start, end, request]
        self._iter_set = False
        return sid

    def rem_span(self, span_id: int) -> None:
        """Remove span ``span_id``, freeing its units.

        Runtime complexity: ``O(log n + k)`` for ``k`` points inside the span.

        Raises
        ------
        PlannerInvalidError
            Unknown span id (EINVAL).

        Examples
        --------
        >>> p = Planner(0, 10, 4, "core")
        >>> p.rem_span(p.add_span(0, 5, 3)); p.avail_resources_at(0)
        4
        """
        span = self._spans.get(span_id)
        if span is None:
            raise PlannerInvalidError(f"unknown span id {span_id!r}")
        start, last, planned = span
        self._pts = self._pts.release(start, last, planned)
        del self._spans[span_id]
        self._iter_set = False

    def reduce_span(self, span_id: int, to_remove: int) -> bool:
        """Release ``to_remove`` units of span ``span_id``; return True if the span was removed.

        Releasing exactly the planned amount removes the span (also for a 0-unit span),
        releasing 0 units does nothing, releasing fewer keeps the span with the rest. A
        negative ``to_remove`` is accepted and *adds* usage, as in the reference. A partial
        release keeps an :meth:`avail_time_first` iteration alive but restarts it (reference
        quirk: the next :meth:`avail_time_next` begins again from the earliest point).

        Runtime complexity: ``O(log n + k)`` for ``k`` points inside the span.

        Raises
        ------
        PlannerInvalidError
            Unknown span id, or ``to_remove`` larger than the planned amount (EINVAL).

        Examples
        --------
        >>> p = Planner(0, 10, 4, "core")
        >>> sid = p.add_span(0, 5, 3)
        >>> p.reduce_span(sid, 1), p.span_resource_count(sid), p.reduce_span(sid, 2)
        (False, 2, True)
        """
        span = self._spans.get(span_id)
        if span is None:
            raise PlannerInvalidError(f"unknown span id {span_id!r}")
        to_remove = _index(to_remove)
        planned = span[2]
        if to_remove == planned:
            self.rem_span(span_id)
            return True
        if to_remove == 0:
            return False
        if to_remove > planned:
            raise PlannerInvalidError(
                f"cannot release {to_remove} units of span {span_id} planned with {planned}"
            )
        pts = self._pts
        if to_remove < 0 and pts.window_min(span[0], span[1]) + to_remove < -INT64_MAX:
            raise PlannerRangeError(f"adding {-to_remove} units to span {span_id} overflows")
        pts.restore()
        span[2] = planned - to_remove
        pts.apply(span[0], span[1], -to_remove, to_remove, self._total)
        return False

    # -- availability queries -------------------------------------------------------------------

    def avail_during(self, at: int, duration: int, request: int) -> bool:
        """Whether ``request`` units are free over ``[at, at + duration)``.

        Answers False where the reference fails with EBUSY. A time before the planning window
        answers True (reference quirk: the scan finds no point and succeeds vacuously).

        Runtime complexity: ``O(log n)`` plus the points inside the window.

        Raises
        ------
        PlannerInvalidError
            ``duration < 1`` (EINVAL).
        PlannerRangeError
            ``request > total`` or the window ends after the plan end (ERANGE).

        Examples
        --------
        >>> p = Planner(0, 10, 8, "memory")
        >>> _ = p.add_span(0, 1, 8)
        >>> p.avail_during(0, 2, 1), p.avail_during(1, 2, 8)
        (False, True)
        """
        if duration < 1:
            raise PlannerInvalidError(f"duration {duration!r} < 1")
        if request > self._total:
            raise PlannerRangeError(f"request {request} > total {self._total}")
        end = at + duration
        if end > self._end:
            raise PlannerRangeError(f"window [{at}, {end}) ends after the plan end {self._end}")
        low = self._pts.window_min(at, end)
        return low is None or low >= request

    def avail_at(self, at: int, request: int) -> bool:
        """Whether ``request`` units are free at time ``at`` (:meth:`avail_during` over 1 tick).

        Runtime complexity: ``O(log n)``.

        Examples
        --------
        >>> p = Planner(0, 10, 8, "memory")
        >>> _ = p.add_span(6, 1, 7)
        >>> p.avail_at(6, 2), p.avail_at(7, 2)
        (False, True)
        """
        return self.avail_during(at, 1, request)

    def avail_resources_at(self, at: int) -> int:
        """Units free at time ``at`` (``at == plan end`` is allowed).

        Runtime complexity: ``O(log n)``.

        Raises
        ------
        PlannerRangeError
            ``at`` outside ``[base_time, plan end]`` (ERANGE).

        Examples
        --------
        >>> p = Planner(0, 10, 8, "memory")
        >>> _ = p.add_span(1, 3, 3)
        >>> [p.avail_resources_at(t) for t in (0, 1, 3, 4, 10)]
        [8, 5, 5, 8, 8]
        """
        if at > self._end or at < self._start:
            raise PlannerRangeError(f"time {at} outside [{self._start}, {self._end}]")
        return self._pts.state_rem(at)

    def avail_resources_during(self, at: int, duration: int) -> int:
        """Minimum number of units free over ``[at, at + duration)``.

        Runtime complexity: ``O(log n)`` plus the points inside the window.

        Raises
        ------
        PlannerInvalidError
            ``at`` after the plan end or before ``base_time``, or ``duration < 1`` (EINVAL).
        PlannerRangeError
            The window ends after the plan end (ERANGE; checked before ``at < base_time``).

        Examples
        --------
        >>> p = Planner(0, 10, 8, "memory")
        >>> _ = p.add_span(1, 3, 3)
        >>> p.avail_resources_during(0, 2), p.avail_resources_during(4, 6)
        (5, 8)
        """
        if at > self._end or duration < 1:
            raise PlannerInvalidError(f"invalid window at={at!r}, duration={duration!r}")
        end = at + duration
        if end > self._end:
            raise PlannerRangeError(f"window [{at}, {end}) ends after the plan end {self._end}")
        if at < self._start:
            raise PlannerInvalidError(f"time {at} before the base time {self._start}")
        return self._pts.window_min(at, end)

    # -- earliest-time search -------------------------------------------------------------------

    def avail_time_first(self, on_or_after: int, duration: int, request: int) -> int | None:
        """Earliest point at or after ``on_or_after`` with ``request`` units free for ``duration``.

        Only existing scheduled points are candidates (never ``on_or_after`` itself), as in
        the reference's AVAILAT/SPANOK search (§1.7). Starts an iteration continued by
        :meth:`avail_time_next`.

        Runtime complexity: ``O(log n)`` per free stretch examined; stretches that cannot hold
        the request are skipped block-wise.

        Returns
        -------
        int or None
            The start time, or None where the reference fails with ENOENT.

        Raises
        ------
        PlannerInvalidError
            ``on_or_after`` outside ``[base_time, plan end)`` or ``duration < 1`` (EINVAL).
        PlannerRangeError
            ``request > total`` (ERANGE).

        Examples
        --------
        >>> p = Planner(0, 10, 8, "memory")
        >>> _ = p.add_span(0, 1, 8), p.add_span(1, 3, 3), p.add_span(6, 1, 7)
        >>> p.avail_time_first(0, 1, 6), p.avail_time_next(), p.avail_time_next()
        (4, 7, None)
        """
        if on_or_after < self._start or on_or_after >= self._end or duration < 1:
            raise PlannerInvalidError(
                f"invalid search on_or_after={on_or_after!r}, duration={duration!r}"
            )
        if request > self._total:
            raise PlannerRangeError(f"request {request} > total {self._total}")
        self._pts.restore()
        self._iter_set = True
        self._req = (on_or_after, duration, request)
        t = self._pts.search(on_or_after, duration, request)
        return None if t is None or t + duration > self._end else t

    def avail_time_next(self) -> int | None:
        """Next answer of the search started by :meth:`avail_time_first` (strictly later).

        Runtime complexity: as :meth:`avail_time_first`.

        Raises
        ------
        PlannerInvalidError
            No search is active: none was started, or a span was added or removed since
            (EINVAL).
        PlannerRangeError
            The saved request exceeds the total (after :meth:`update_total`) (ERANGE).

        Examples
        --------
        >>> p = Planner(0, 10, 2, "gpu")
        >>> _ = p.add_span(2, 2, 1)
        >>> p.avail_time_first(0, 1, 1), p.avail_time_next(), p.avail_time_next()
        (0, 2, 4)
        """
        if not self._iter_set:
            raise PlannerInvalidError("avail_time_next without an active avail_time_first")
        on_or_after, duration, request = self._req
        if request > self._total:
            raise PlannerRangeError(f"saved request {request} > total {self._total}")
        t = self._pts.search(on_or_after, duration, request)
        return None if t is None or t + duration > self._end else t

    # -- elasticity, reset, copy ----------------------------------------------------------------

    def update_total(self, total: int) -> None:
        """Change the number of units: every point's free amount moves by the difference.

        Free amounts are clamped at 0. The earliest-time index keeps the old free amounts of
        points no span operation has touched since (reference quirk, §1.6), so
        :meth:`avail_time_first` can skip or revisit such points exactly as the reference does.

        Runtime complexity: ``O(n)``.

        Raises
        ------
        PlannerRangeError
            ``total`` outside ``[0, INT64_MAX]`` (the reference takes an unsigned value).

        Examples
        --------
        >>> p = Planner(0, 10, 4, "core")
        >>> _ = p.add_span(0, 5, 3)
        >>> p.update_total(6); p.resource_total, p.avail_resources_at(0)
        (6, 3)
        """
        total = _index(total)
        if total < 0 or total > INT64_MAX:
            raise PlannerRangeError(f"planner total {total} outside [0, INT64_MAX]")
        delta = total - self._total
        if delta == 0:
            return
        if delta > 0 and self._pts.max_rem() + delta > INT64_MAX:
            raise PlannerRangeError(f"planner total {total}: a free amount would overflow")
        self._total = total
        self._pts.update_total(delta)

    def reset(self, base_time: int, duration: int) -> None:
        """Drop every span and start over with a new planning window (total kept).

        Span ids restart at 1. Runtime complexity: ``O(1)`` (old points are released).

        Raises
        ------
        PlannerInvalidError
            ``duration < 1`` (EINVAL).

        Examples
        --------
        >>> p = Planner(0, 10, 4, "core")
        >>> _ = p.add_span(0, 5, 3)
        >>> p.reset(100, 50); p.span_size(), p.base_time, p.add_span(100, 1, 1)
        (0, 100, 1)
        """
        if duration < 1:
            raise PlannerInvalidError(f"duration {duration!r} < 1")
        _check_window(base_time, duration)
        self._init(_index(base_time), _index(duration))

    def copy(self) -> Planner:
        """Deep copy, including an active search and its tracked points.

        Runtime complexity: ``O(n + s)``.

        Examples
        --------
        >>> p = Planner(0, 10, 4, "core")
        >>> _ = p.add_span(0, 5, 3)
        >>> q = p.copy(); _ = q.add_span(5, 5, 4)
        >>> p == q, p.span_size(), q.span_size()
        (False, 1, 2)
        """
        new = Planner.__new__(Planner)
        new._type = self._type
        new._total = self._total
        new._start = self._start
        new._end = self._end
        new._pts = self._pts.copy()
        new._spans = {k: v[:] for k, v in self._spans.items()}
        new._counter = self._counter
        new._iter_set = self._iter_set
        new._req = self._req
        return new

    def __eq__(self, other: object) -> bool:
        """Structural equality (the reference's ``planners_equal``), ``O(n + s)``."""
        if not isinstance(other, Planner):
            return NotImplemented
        return (
            _FIELDS(self) == _FIELDS(other)
            and self._pts.rows() == other._pts.rows()
            and self._pts.mt_rows() == other._pts.mt_rows()
        )

    __hash__ = None  # type: ignore[assignment]

    # -- span lookups ---------------------------------------------------------------------------

    def span_ids(self) -> Iterator[int]:
        """Iterate over the span ids in ascending order (a snapshot: safe to modify meanwhile).

        Examples
        --------
        >>> p = Planner(0, 10, 4, "core")
        >>> _ = [p.add_span(t, 1, 1) for t in range(3)]; p.rem_span(2)
        >>> list(p.span_ids())
        [1, 3]
        """
        return iter(tuple(self._spans))

    def span_size(self) -> int:
        """Number of spans. Runtime complexity: ``O(1)``."""
        return len(self._spans)

    def _span(self, span_id: int) -> list[int]:
        span = self._spans.get(span_id)
        if span is None:
            raise PlannerInvalidError(f"unknown span id {span_id!r}")
        return span

    def is_active_span(self, span_id: int) -> bool:
        """Whether span ``span_id`` is in the planner (EINVAL error for an unknown id)."""
        self._span(span_id)
        return True

    def span_start_time(self, span_id: int) -> int:
        """Start time of span ``span_id``.

        Examples
        --------
        >>> p = Planner(0, 10, 4, "core")
        >>> sid = p.add_span(3, 4, 2)
        >>> p.span_start_time(sid), p.span_duration(sid), p.span_resource_count(sid)
        (3, 4, 2)
        """
        return self._span(span_id)[0]

    def span_duration(self, span_id: int) -> int:
        """Duration of span ``span_id``."""
        span = self._span(span_id)
        return span[1] - span[0]

    def span_resource_count(self, span_id: int) -> int:
        """Planned amount of span ``span_id``."""
        return self._span(span_id)[2]

    # -- testing --------------------------------------------------------------------------------

    def _points_view(self) -> list[tuple[int, int, int, int]]:
        """``(at, scheduled, remaining, ref_count)`` of every scheduled point, in time order."""
        return self._pts.rows()

    def _mt_view(self) -> list[tuple[int, int | None]]:
        """``(at, MT key)`` of every point; the key is None for points tracked by a search."""
        return self._pts.mt_rows()

    def _check(self) -> None:
        """Assert every structural invariant (``O(n + s)``); for tests."""
        pts = self._pts
        pts.check()
        rows = pts.rows()
        assert rows[0][0] == self._start, "base point missing"
        refs = {self._start: 1}
        for start, last, _ in self._spans.values():
            assert self._start <= start < last <= self._end, "span outside the window"
            refs[start] = refs.get(start, 0) + 1
            refs[last] = refs.get(last, 0) + 1
        assert {r[0]: r[3] for r in rows} == refs, "point ref counts disagree with spans"
        assert all(sid <= self._counter for sid in self._spans), "span id above the counter"


def _check_window(base_time: int, duration: int) -> None:
    """Times are ``int64`` in the reference: the window must fit (ERANGE otherwise)."""
    if base_time < _INT64_MIN or base_time + duration > INT64_MAX:
        raise PlannerRangeError(
            f"planning window [{base_time}, {base_time + duration}) outside the int64 range"
        )
