"""Resource-usage step functions over time (several resources on shared breakpoints) with the
planner operations the I/O-aware schedulers need: add a span, find the earliest window where
every usage stays under its threshold, count how many equal spans fit at a time.

The schedulers of spec §4 rebuild their trackers every cycle: the node tracker ``NT``, the
bandwidth plan ``LT`` and the adjusted tracker ``AT`` (one column each). ``AT`` can go
negative and its threshold changes every cycle, so it cannot be a graph planner; one small
class serves all three. Alg. 4 and Alg. 7 alternate between trackers until one time fits them
all, which is the earliest time where all columns fit together: :meth:`Tracker.earliest_fit`
finds it in one sweep. A fit is inclusive (``usage <= threshold + 1e-9``).

>>> t = Tracker(2)
>>> t.add(0, 10, (3.0, 0.0)); t.add(5, 20, (2.0, 1.0))
>>> t.usage_at(6), t.earliest_fit(0, 4, (3.0, None)), t.earliest_fit(0, 4, (2.0, None))
((5.0, 1.0), 0, 10)
>>> t.earliest_fit(0, 6, (3.0, 0.0)), t.copies(10, 5, (1.0, 0.0), (4.0, None))
(20, 3)
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

__all__ = ["FIT_EPS", "Tracker"]

#: Tolerance of the inclusive fit test on float usage.
FIT_EPS = 1e-9


class Tracker:
    """``columns`` usage step functions on shared breakpoints; usage is 0 before the first
    breakpoint and after the last (every span is finite).

    Runtime complexity: :meth:`add`, :meth:`earliest_fit` and :meth:`copies` are
    O(breakpoints) each.
    """

    __slots__ = ("times", "usage")

    def __init__(self, columns: int = 1) -> None:
        self.times: list[float] = []
        self.usage: list[list[float]] = [[] for _ in range(columns)]

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
        i = self._split(start)
        j = self._split(end)
        for col, amount in zip(self.usage, amounts, strict=True):
            if amount:
                col[i:j] = [u + amount for u in col[i:j]]

    def peak(self, start: float, duration: float, column: int) -> float:
        """The highest usage of ``column`` over ``[start, start + duration)``."""
        times = self.times
        i = max(bisect_right(times, start) - 1, 0)
        j = bisect_left(times, start + duration)
        return max(0.0, *self.usage[column][i:j]) if j > i else 0.0

    def usage_at(self, t: float) -> tuple[float, ...]:
        """Every column's usage at time ``t``."""
        i = bisect_right(self.times, t) - 1
        return tuple(col[i] if i >= 0 else 0.0 for col in self.usage)

    def earliest_fit(
        self, start: float, duration: float, thresholds: Sequence[float | None]
    ) -> float:
        """The earliest ``t >= start`` where every column ``c`` with a threshold stays at most
        ``max(thresholds[c], 0)`` all over ``[t, t + duration)`` (``None``: unconstrained).

        Always finite: after the last breakpoint every usage is 0.
        """
        times = self.times
        checks = [
            (col, max(limit, 0.0) + FIT_EPS)
            for col, limit in zip(self.usage, thresholds, strict=True)
            if limit is not None
        ]
        first = max(bisect_right(times, start) - 1, 0)  # the first segment that can matter
        bad = _violations(checks, first)  # bad[x]: segment first + x is over a threshold
        t, end = start, start + duration
        k = 0
        while True:
            # the next segment over a threshold; t fits if it starts at or after the window
            try:
                b = bad.index(True, k)
            except ValueError:
                return t
            if times[first + b] >= end:
                return t
            # skip the whole block of segments over: the candidate is where the block ends
            # (the last segment has usage 0, so the block ends before it)
            k = bad.index(False, b + 1)
            t = times[first + k]
            end = t + duration

    def copies(
        self,
        start: float,
        duration: float,
        amounts: Sequence[float],
        thresholds: Sequence[float | None],
    ) -> int:
        """How many equal spans of ``amounts`` fit on ``[start, start + duration)`` one after
        another, each while every constrained column's usage before it is at most its
        threshold (0 if none does; a column with amount 0 and a threshold limits nothing more
        than the first span)."""
        times = self.times
        i = max(bisect_right(times, start) - 1, 0)
        j = bisect_left(times, start + duration)
        best: float | None = None
        for col, amount, limit in zip(self.usage, amounts, thresholds, strict=True):
            if limit is None:
                continue
            peak = max(0.0, *col[i:j]) if j > i and i < len(times) else 0.0
            room = max(limit, 0.0) + FIT_EPS - peak
            if room < 0:
                return 0
            if amount > 0:
                fit = room // amount + 1
                best = fit if best is None else min(best, fit)
        return int(best) if best is not None else 1 << 30


def _violations(checks: list[tuple[list[float], float]], first: int) -> list[bool]:
    """Whether each segment from ``first`` on has a column over its limit."""
    if not checks:
        return []
    if len(checks) == 1:
        ((a, la),) = checks
        return [x > la for x in a[first:]]
    if len(checks) == 2:
        (a, la), (b, lb) = checks
        return [x > la or y > lb for x, y in zip(a[first:], b[first:], strict=True)]
    (a, la), (b, lb), (c, lc) = checks
    return [
        x > la or y > lb or z > lc for x, y, z in zip(a[first:], b[first:], c[first:], strict=True)
    ]
