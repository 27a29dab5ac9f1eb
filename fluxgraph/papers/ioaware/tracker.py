"""Resource-usage step functions over time (several resources on shared breakpoints) with the
planner operations the I/O-aware schedulers need: add a span, find the earliest window where
every usage stays under its threshold, count how many equal spans fit at a time.

The schedulers of spec §4 rebuild their trackers every cycle: the node tracker ``NT``, the
bandwidth plan ``LT`` and the adjusted tracker ``AT`` (one column each). ``AT`` can go
negative and its threshold changes every cycle, so it cannot be a graph planner; one small
class serves all three. Alg. 4 and Alg. 7 alternate between trackers until one time fits them
all, which is the earliest time where all columns fit together: :meth:`Tracker.fit` finds it
in one sweep, with how many equal spans fit there. A fit is inclusive
(``usage <= threshold + 1e-9``).

>>> t = Tracker(2)
>>> t.add(0, 10, (3.0, 0.0)); t.add(5, 20, (2.0, 1.0))
>>> t.usage_at(6), t.fit(0, 4, (1.0, 0.0), (3.0, None)), t.fit(0, 4, (1.0, 0.0), (2.0, None))
((5.0, 1.0), (0, 1), (10, 1))
>>> t.fit(0, 6, (1.0, 0.0), (3.0, 0.0)), t.fit(10, 5, (1.0, 0.0), (4.0, None))
((20, 4), (10, 3))
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Hashable, Iterable, Sequence
from itertools import pairwise
from math import inf, nextafter

__all__ = ["FIT_EPS", "Tracker"]

#: Tolerance of the inclusive fit test on float usage.
FIT_EPS = 1e-9


class Tracker:
    """``columns`` usage step functions on shared breakpoints; usage is 0 before the first
    breakpoint and after the last (every span is finite).

    Runtime complexity: :meth:`add` and :meth:`fit` are O(breakpoints) each.
    """

    __slots__ = ("_horizon", "_last", "_pending", "times", "usage")

    def __init__(self, columns: int = 1) -> None:
        self.times: list[float] = []
        self.usage: list[list[float]] = [[] for _ in range(columns)]
        self._pending: list[_Booking] = []  # deferred bookings with spans left, call order
        self._horizon = inf  # no deferred span starts before it
        self._last: dict[Hashable, _Booking] = {}  # key -> its latest deferred booking

    @classmethod
    def of(cls, columns: int, spans: Iterable[tuple[float, float, Sequence[float]]]) -> Tracker:
        """A tracker holding ``spans`` of ``(start, end, amounts)``, built in one sort (the
        same usage as adding them one by one, up to float rounding).

        >>> Tracker.of(1, [(0, 10, (2.0,)), (5, 10, (1.0,))]).usage_at(7)
        (3.0,)
        """
        deltas: dict[float, list[float]] = {}
        for start, end, amounts in spans:
            if end > start:
                at_start = deltas.setdefault(start, [0.0] * columns)
                at_end = deltas.setdefault(end, [0.0] * columns)
                for c, amount in enumerate(amounts):
                    at_start[c] += amount
                    at_end[c] -= amount
        tracker = cls(columns)
        level = [0.0] * columns
        for t in sorted(deltas):
            new = [u + d for u, d in zip(level, deltas[t], strict=True)]
            if new != level:  # a breakpoint where nothing changes is left out
                tracker.times.append(t)
                for col, u in zip(tracker.usage, new, strict=True):
                    col.append(u)
                level = new
        return tracker

    def _split(self, t: float) -> int:
        """The index of a breakpoint at ``t`` (inserted if absent)."""
        times = self.times
        i = bisect_right(times, t)
        if i and times[i - 1] == t:
            return i - 1
        times.insert(i, t)
        for col in self.usage:
            col.insert(i, col[i - 1] if i else 0.0)
        return i

    def add(self, start: float, end: float, amounts: Sequence[float]) -> None:
        """Add ``amounts[c]`` (may be negative) to column ``c`` on ``[start, end)``."""
        if end <= start:
            return
        if self._pending:
            if min(amounts) < 0:  # a negative amount could open room a deferred span saw shut
                self._settle(inf)
            elif end > self._horizon:
                self._settle(end)
        self._add(start, end, amounts)

    def _add(self, start: float, end: float, amounts: Sequence[float]) -> None:
        i = self._split(start)
        j = self._split(end)
        for col, amount in zip(self.usage, amounts, strict=True):
            if amount:
                col[i:j] = [u + amount for u in col[i:j]]
        # a span that starts where another ends leaves equal neighbours: merge them (in a
        # backfill walk most breakpoints would be such, and every operation is O(breakpoints))
        self._merge(j)
        self._merge(i)

    def _merge(self, i: int) -> None:
        """Drop breakpoint ``i`` if every column has the same usage on both sides of it
        (before the first breakpoint, usage is 0)."""
        for col in self.usage:
            if col[i] != (col[i - 1] if i else 0.0):
                return
        del self.times[i]
        for col in self.usage:
            del col[i]

    def peak(self, start: float, duration: float, column: int) -> float:
        """The highest usage of ``column`` over ``[start, start + duration)``."""
        if start + duration > self._horizon:
            self._settle(start + duration)
        times = self.times
        i = max(bisect_right(times, start) - 1, 0)
        j = bisect_left(times, start + duration)
        return max(0.0, *self.usage[column][i:j]) if j > i else 0.0

    def usage_at(self, t: float) -> tuple[float, ...]:
        """Every column's usage at time ``t``."""
        if t >= self._horizon:
            self._settle(nextafter(t, inf))
        i = bisect_right(self.times, t) - 1
        return tuple(col[i] if i >= 0 else 0.0 for col in self.usage)

    def fit(
        self,
        start: float,
        duration: float,
        amounts: Sequence[float],
        thresholds: Sequence[float | None],
        exact: bool = True,
    ) -> tuple[float, int]:
        """The earliest ``t >= start`` where every column ``c`` with a threshold stays at most
        ``max(thresholds[c], 0)`` all over ``[t, t + duration)`` (``None``: unconstrained),
        and how many equal spans of ``amounts`` fit there one after another, each while the
        usage before it is within the thresholds (a constrained column with amount 0 limits
        nothing more than the first span; ``1 << 30`` when no column limits the count).

        Always finite: after the last breakpoint every usage is 0. A block of segments over a
        threshold is skipped whole (the next candidate is where the block ends).

        ``exact=False`` leaves deferred bookings (:meth:`book_later`) out: ``t`` is then a
        lower bound of the exact one, the exact one where ``t + duration`` is at most where
        they may start, and a fit from it gives the exact answer.
        """
        while True:
            t, count = self._fit(start, duration, amounts, thresholds)
            if not exact or t + duration <= self._horizon:
                return t, count
            self._settle(t + duration)  # the window reaches deferred spans: place them

    def _fit(
        self,
        start: float,
        duration: float,
        amounts: Sequence[float],
        thresholds: Sequence[float | None],
    ) -> tuple[float, int]:
        times = self.times
        checks = [
            (col, (limit if limit > 0 else 0.0) + FIT_EPS, amount)
            for col, limit, amount in zip(self.usage, thresholds, amounts, strict=True)
            if limit is not None
        ]
        first = max(bisect_right(times, start) - 1, 0)  # the first segment that can matter
        bad = _violations(checks, first)  # bad[x]: segment first + x is over a threshold
        last = len(bad)
        bad.append(True)  # a sentinel: no segment over past the last one
        t, end = start, start + duration
        k = 0
        while True:
            # the next segment over a threshold; t fits if it starts at or after the window
            b = bad.index(True, k)
            if b == last or times[first + b] >= end:
                break
            # skip the whole block of segments over: the candidate is where the block ends
            # (the last segment has usage 0, so the block ends before it)
            k = bad.index(False, b + 1)
            t = times[first + k]
            end = t + duration
        i = first + k  # the window's segments are i .. j - 1
        j = bisect_left(times, end, i)
        best = 1 << 30
        for col, limit, amount in checks:
            if amount > 0:
                peak = max(0.0, *col[i:j]) if j > i else 0.0
                best = min(best, int((limit - peak) // amount) + 1)
        return t, best

    def book_later(
        self,
        start: float | None,
        duration: float,
        amounts: Sequence[float],
        thresholds: Sequence[float | None],
        count: int,
        key: Hashable = None,
    ) -> None:
        """Book ``count`` equal spans (non-negative ``amounts``) one after another, each at its
        earliest fit from the last one's start on, deferred: the spans are placed only when
        an operation could see them (a fit whose window, or an add, peak or usage that
        reaches past where they may start), and then only those that start before it ends.
        Every answer is the one booking at once gives: a booking reads and changes usage
        from its next start on only, operations that end before that neither see it nor
        change what it books (they only add non-negative amounts; a negative add places every
        deferred span first), and deferred bookings are placed in call order. ``start=None``
        books from the last start of ``key``'s previous deferred booking.

        >>> t = Tracker(1); t.add(0, 10, (1.0,))
        >>> t.book_later(10, 10, (1.0,), (1.0,), 3)
        >>> t.fit(0, 10, (1.0,), (1.0,)), t.times
        ((0, 1), [0, 10])
        >>> t.fit(0, 11, (1.0,), (1.0,)), t.times, t.usage
        ((20, 1), [0, 10, 20, 30], [[1.0, 2.0, 1.0, 0.0]])
        """
        if min(amounts) < 0:
            raise ValueError(f"deferred bookings add non-negative amounts, not {amounts}")
        after = None
        if start is None:
            after = self._last[key]
            if not after.count:
                start, after = after.last, None
        booking = _Booking(start, duration, amounts, thresholds, count, after)
        self._last[key] = booking
        if count:
            self._pending.append(booking)
            if start is not None:
                self._horizon = min(self._horizon, start)

    def _check(self) -> None:
        """Raise ``AssertionError`` unless the step functions and the deferred bookings are
        well formed: breakpoints strictly increasing, one usage per breakpoint and column,
        usage back at 0 after the last (up to float rounding, which may also leave a
        breakpoint where no column changes); every deferred booking has spans left and none
        may start before the horizon.

        >>> t = Tracker(1); t.add(0, 5, (1.0,)); t.book_later(5, 5, (1.0,), (1.0,), 2); t._check()
        """
        times, usage = self.times, self.usage
        assert all(a < b for a, b in pairwise(times)), f"breakpoints not increasing: {times}"
        assert all(len(col) == len(times) for col in usage), "a column misses breakpoints"
        if times:
            scale = max(1.0, *(abs(u) for col in usage for u in col))
            last = [col[-1] for col in usage]
            assert all(abs(u) <= FIT_EPS * scale for u in last), f"usage {last} after the end"
        for b in self._pending:
            assert b.count > 0, "a deferred booking without spans left is pending"
            assert b.next is not None or b.after is not None, "a deferred booking has no start"
            assert b.next is None or b.next >= self._horizon, (
                f"a deferred span may start at {b.next}, before the horizon {self._horizon}"
            )

    @property
    def deferred(self) -> bool:
        """Whether spans of :meth:`book_later` calls remain to be placed."""
        return bool(self._pending)

    def settle(self) -> None:
        """Place every deferred span (see :meth:`book_later`)."""
        self._settle(inf)

    def _settle(self, end: float) -> None:
        """Place every deferred span that starts before ``end``."""
        self._advance(end, len(self._pending))
        self._pending = pending = [b for b in self._pending if b.count]
        self._horizon = min((b.next for b in pending if b.next is not None), default=inf)

    def _advance(self, end: float, upto: int) -> None:
        """Place the spans of the first ``upto`` deferred bookings that start before ``end``;
        each span only after the bookings before it are placed through its window."""
        pending = self._pending
        for i in range(upto):
            b = pending[i]
            if b.next is None:  # books from its predecessor's last start, not yet known
                if b.after.count:
                    continue  # the predecessor's next start is past end (placed before it)
                b.next = b.last = b.after.last
            while b.count and b.next < end:
                t, fits = self._fit(b.next, b.duration, b.amounts, b.thresholds)
                b.next = t
                if t >= end:
                    break
                if i and t + b.duration > _next_start(pending, i):
                    self._advance(t + b.duration, i)
                    continue  # fit again with what the earlier bookings placed
                fits = min(fits, b.count)
                self._add(t, t + b.duration, [fits * a for a in b.amounts])
                b.count -= fits
                b.last = t


class _Booking:
    """One deferred :meth:`Tracker.book_later`: its next candidate start (``None`` until its
    predecessor ``after`` has placed its last span), the spans left and its last start."""

    __slots__ = ("after", "amounts", "count", "duration", "last", "next", "thresholds")

    def __init__(self, start, duration, amounts, thresholds, count, after) -> None:
        self.next = self.last = start
        self.duration = duration
        self.amounts = amounts
        self.thresholds = thresholds
        self.count = count
        self.after = after


def _next_start(pending: list[_Booking], upto: int) -> float:
    """The earliest next start among the first ``upto`` deferred bookings with spans left."""
    return min((b.next for b in pending[:upto] if b.count and b.next is not None), default=inf)


def _violations(checks: list[tuple[list[float], float, float]], first: int) -> list[bool]:
    """Whether each segment from ``first`` on has a column over its limit."""
    if not checks:
        return []
    if len(checks) == 1:
        ((a, la, _),) = checks
        return [x > la for x in a[first:]]
    if len(checks) == 2:
        (a, la, _), (b, lb, _) = checks
        return [x > la or y > lb for x, y in zip(a[first:], b[first:], strict=True)]
    (a, la, _), (b, lb, _), (c, lc, _) = checks
    return [
        x > la or y > lb or z > lc for x, y, z in zip(a[first:], b[first:], c[first:], strict=True)
    ]
