"""Scheduled points of a small planner: five flat parallel lists, no index.

A scheduler simulation gives every graph vertex a planner or two holding a handful of spans.
For them the block tree of :mod:`.points` (aggregates, staircases, a leaf index) is pure
overhead: every span update would maintain structures that only pay off when a search can skip
whole blocks. A :class:`_Flat` keeps the columns of one block (``at``, ``sched``, ``rem``,
``key``, ``ref``; plain lists, cheaper to index than ``array`` for a few points) and nothing
else: point updates bisect and splice, queries scan. It answers exactly as the tree does, with
the same implicit tracking (``trk_c``, ``trk_t``, see :mod:`.points`); stale keys are flagged by
one boolean instead of a sorted set, as a restore can afford to scan the few points.

A planner starts flat and becomes a tree when it holds more than ``cap`` points (``2 * LOAD``,
one full leaf: :meth:`_Flat.add` returns the tree that replaces it, made by the ``grow`` that
:mod:`.points` hands in); a tree shrunk back to a single leaf of at most ``LOAD`` points becomes
flat again (``_Points.release``). Both conversions live in :mod:`.points`, which imports this
module and not the other way round.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from itertools import pairwise
from typing import TYPE_CHECKING

from fluxgraph.planner._stairs import INF

if TYPE_CHECKING:
    from fluxgraph.planner._queries import _Queries

__all__: list[str] = []


class _Flat:
    """Time-ordered scheduled points of a small planner, in flat parallel lists.

    The interface is :class:`~fluxgraph.planner.points._Points`'s; the span updates
    :meth:`add` and :meth:`release` return the points object that replaces this one (itself,
    or ``grow(self)``, the tree holding the same points and tracking state, once it outgrows
    ``cap``).
    """

    __slots__ = ("at", "cap", "grow", "key", "ref", "rem", "sched", "stale", "trk_c", "trk_t")

    def __init__(
        self,
        at: list,
        sched: list,
        rem: list,
        key: list,
        ref: list,
        cap: int,
        grow: Callable[[_Flat], _Queries],
    ) -> None:
        self.at = at
        self.sched = sched
        self.rem = rem
        self.key = key
        self.ref = ref
        self.cap = cap
        self.grow = grow
        #: Some point may have ``key != rem`` (after ``update_total``); cleared by a restore
        #: that finds none left.
        self.stale = any(r != k for r, k in zip(rem, key, strict=True))
        self.trk_c: int | None = None
        self.trk_t: float = -INF

    def copy(self) -> _Flat:
        new = _Flat(
            self.at[:], self.sched[:], self.rem[:], self.key[:], self.ref[:], self.cap, self.grow
        )
        new.trk_c = self.trk_c
        new.trk_t = self.trk_t
        return new

    # -- queries --------------------------------------------------------------------------------

    def state_rem(self, t: int) -> int | None:
        """Remaining amount of the state point of ``t`` (None if ``t`` precedes every point)."""
        j = bisect_right(self.at, t) - 1
        return None if j < 0 else self.rem[j]

    def window_min(self, t0: int, t1: int) -> int | None:
        """Minimum remaining of the state point of ``t0`` and the points before ``t1 > t0``."""
        at = self.at
        j = bisect_right(at, t0)
        if not j:
            return None
        k = bisect_left(at, t1, j)
        if k == j:  # the state point alone (the common case on a quiet calendar)
            return self.rem[j - 1]
        return min(self.rem[j - 1 : k])

    def search(self, on_or_after: int, d: int, c: int) -> int | None:
        """Next AVAILAT answer for ``(on_or_after, d, c)`` (see ``_Points.search``)."""
        lo = on_or_after
        trk_t = self.trk_t
        if self.trk_c is not None and trk_t >= lo:
            if trk_t == INF:
                return None
            lo = trk_t + 1
        self.trk_c = c
        at = self.at
        rem = self.rem
        key = self.key
        n = len(at)
        i = bisect_left(at, lo)
        while i < n:
            if key[i] < c or rem[i] < c:
                i += 1
                continue
            end = at[i] + d
            k = i + 1
            while k < n and at[k] < end:
                if rem[k] < c:
                    break
                k += 1
            else:
                t = self.trk_t = at[i]
                return t
            i = k + 1  # every candidate up to the blocking point k fails too
        self.trk_t = INF
        return None

    # -- point updates --------------------------------------------------------------------------

    def add(self, start: int, end: int, request: int) -> _Flat | _Queries:
        """Reference the points ``start < end``, use ``request`` over ``[start, end)``.

        Ends the tracking of a search first. Returns the points object that replaces this one.
        """
        if self.trk_c is not None:
            self.restore()
        at = self.at
        sched = self.sched
        rem = self.rem
        key = self.key
        ref = self.ref
        # A new point copies its state point (at[i - 1]; start is never before the base point)
        # and gets key = remaining; the end point is placed before the amounts change.
        i = bisect_left(at, start)
        if i < len(at) and at[i] == start:
            ref[i] += 1
        else:
            at.insert(i, start)
            sched.insert(i, sched[i - 1])
            r = rem[i - 1]
            rem.insert(i, r)
            key.insert(i, r)
            ref.insert(i, 1)
        k = bisect_left(at, end, i + 1)
        if k < len(at) and at[k] == end:
            ref[k] += 1
        else:
            at.insert(k, end)
            sched.insert(k, sched[k - 1])
            r = rem[k - 1]
            rem.insert(k, r)
            key.insert(k, r)
            ref.insert(k, 1)
        if k == i + 1:  # the span holds no other point
            sched[i] += request
            key[i] = rem[i] = rem[i] - request
        else:  # a few points: a plain loop beats slices and comprehensions
            for q in range(i, k):
                sched[q] += request
                key[q] = rem[q] = rem[q] - request
        if len(at) > self.cap:
            return self.grow(self)
        return self

    def release(self, start: int, last: int, planned: int) -> _Flat:
        """Remove a span's usage over ``[start, last)`` and unreference its two points.

        Ends the tracking of a search first. Returns the points object that replaces this one
        (itself: a flat layout only shrinks here).
        """
        if self.trk_c is not None:
            self.restore()
        at = self.at
        sched = self.sched
        rem = self.rem
        key = self.key
        ref = self.ref
        i = bisect_left(at, start)
        k = bisect_left(at, last, i + 1)
        if k == i + 1:
            sched[i] -= planned
            key[i] = rem[i] = rem[i] + planned
        else:
            for q in range(i, k):
                sched[q] -= planned
                key[q] = rem[q] = rem[q] + planned
        ref[k] -= 1
        if not ref[k]:
            del at[k], sched[k], rem[k], key[k], ref[k]
        ref[i] -= 1
        if not ref[i]:
            del at[i], sched[i], rem[i], key[i], ref[i]
        return self

    def apply(self, t0: int, t1: int, dsched: int, drem: int, limit: int | None) -> None:
        """Add ``dsched``/``drem`` to the points in ``[t0, t1)`` and resync their keys.

        With ``limit`` (partial reduce), stop changing amounts after the first point whose
        scheduled amount drops below 0 or whose remaining exceeds ``limit`` (``_Points.apply``).
        """
        at = self.at
        sched = self.sched
        rem = self.rem
        i = bisect_left(at, t0)
        k = bisect_left(at, t1, i)
        if limit is None:
            sched[i:k] = [s + dsched for s in sched[i:k]]
            rem[i:k] = [r + drem for r in rem[i:k]]
        else:
            for q in range(i, k):
                sched[q] += dsched
                rem[q] += drem
                if sched[q] < 0 or rem[q] > limit:
                    break
        self.key[i:k] = rem[i:k]

    def update_total(self, delta: int) -> None:
        """Move every remaining amount by ``delta`` (clamped at 0); keys stay as they are."""
        rem = self.rem = [r + delta if r + delta > 0 else 0 for r in self.rem]
        self.stale = any(r != k for r, k in zip(rem, self.key, strict=True))

    def max_rem(self) -> int:
        """Largest remaining amount of any point."""
        return max(self.rem)

    def restore(self) -> None:
        """Put the tracked points back into the MT index with fresh keys; end the tracking."""
        c = self.trk_c
        if c is not None and self.stale:
            key = self.key
            rem = self.rem
            for j in range(bisect_right(self.at, self.trk_t)):
                if key[j] >= c:
                    key[j] = rem[j]
            self.stale = any(r != k for r, k in zip(rem, key, strict=True))
        self.trk_c = None
        self.trk_t = -INF

    # -- views and checks -----------------------------------------------------------------------

    def rows(self) -> list[tuple[int, int, int, int]]:
        """``(at, scheduled, remaining, ref_count)`` of every point, in time order."""
        return list(zip(self.at, self.sched, self.rem, self.ref, strict=True))

    def mt_rows(self) -> list[tuple[int, int | None]]:
        """``(at, key)`` of every point; key None for points tracked out of the MT index."""
        c, tau = self.trk_c, self.trk_t
        return [
            (a, None if c is not None and a <= tau and k >= c else k)
            for a, k in zip(self.at, self.key, strict=True)
        ]

    def check(self) -> None:
        """Assert the invariants: parallel columns, increasing times, size, stale flag."""
        n = len(self.at)
        assert 0 < n <= self.cap, "flat size"
        assert all(len(col) == n for col in (self.sched, self.rem, self.key, self.ref))
        assert all(type(col) is list for col in (self.at, self.sched, self.rem, self.key))
        assert all(a < b for a, b in pairwise(self.at)), "times not increasing"
        if not self.stale:
            assert self.rem == self.key, "stale keys without the stale flag"
        assert self.trk_c is not None or self.trk_t == -INF, "tracking time without a request"
