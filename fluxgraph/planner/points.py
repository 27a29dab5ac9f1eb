"""Scheduled points of one planner (simple list-based version)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import pairwise

__all__: list[str] = []

_NEG_INF = float("-inf")
_POS_INF = float("inf")


class _Points:
    """Time-ordered scheduled points with live ``remaining`` and MT keys."""

    __slots__ = ("at", "key", "ref", "rem", "sched", "stale", "trk_c", "trk_t")

    def __init__(self, base: int, total: int) -> None:
        self.at = [base]
        self.sched = [0]
        self.rem = [total]
        self.key = [total]
        self.ref = [1]
        self.stale: set[int] = set()
        self.trk_c: int | None = None
        self.trk_t: float = _NEG_INF

    def copy(self) -> _Points:
        new = _Points.__new__(_Points)
        new.at = self.at[:]
        new.sched = self.sched[:]
        new.rem = self.rem[:]
        new.key = self.key[:]
        new.ref = self.ref[:]
        new.stale = set(self.stale)
        new.trk_c = self.trk_c
        new.trk_t = self.trk_t
        return new

    def state_rem(self, t: int) -> int | None:
        i = bisect_right(self.at, t) - 1
        return None if i < 0 else self.rem[i]

    def window_min(self, t0: int, t1: int) -> int | None:
        at = self.at
        i = bisect_right(at, t0) - 1
        if i < 0:
            return None
        j = bisect_left(at, t1)
        return min(self.rem[i:j])

    def ref_point(self, t: int) -> None:
        at = self.at
        i = bisect_left(at, t)
        if i < len(at) and at[i] == t:
            self.ref[i] += 1
            return
        at.insert(i, t)
        self.sched.insert(i, self.sched[i - 1])
        r = self.rem[i - 1]
        self.rem.insert(i, r)
        self.key.insert(i, r)
        self.ref.insert(i, 1)

    def unref(self, t: int) -> None:
        i = bisect_left(self.at, t)
        self.ref[i] -= 1
        if self.ref[i] == 0:
            for lst in (self.at, self.sched, self.rem, self.key, self.ref):
                del lst[i]
            self.stale.discard(t)

    def apply(self, t0: int, t1: int, dsched: int, drem: int, limit: int | None) -> None:
        at, sched, rem, key = self.at, self.sched, self.rem, self.key
        i = bisect_left(at, t0)
        j = bisect_left(at, t1)
        for k in range(i, j):
            sched[k] += dsched
            rem[k] += drem
            if limit is not None and (sched[k] < 0 or rem[k] > limit):
                break
        for k in range(i, j):
            key[k] = rem[k]
            self.stale.discard(at[k])

    def update_total(self, delta: int) -> None:
        self.rem = [max(0, r + delta) for r in self.rem]
        self.stale = {a for a, r, k in zip(self.at, self.rem, self.key, strict=True) if r != k}

    def restore(self) -> None:
        c = self.trk_c
        if c is not None and self.stale:
            at, rem, key = self.at, self.rem, self.key
            tau = self.trk_t
            for t in sorted(self.stale):
                if t > tau:
                    break
                k = bisect_left(at, t)
                if key[k] >= c:
                    key[k] = rem[k]
                    self.stale.discard(t)
        self.trk_c = None
        self.trk_t = _NEG_INF

    def search(self, on_or_after: int, d: int, c: int) -> int | None:
        at, rem, key = self.at, self.rem, self.key
        lo = on_or_after if self.trk_c is None else max(on_or_after, self.trk_t + 1)
        self.trk_c = c
        i = bisect_left(at, lo)
        n = len(at)
        while i < n:
            if key[i] >= c:
                end = at[i] + d
                j = i
                while j < n and at[j] < end and rem[j] >= c:
                    j += 1
                if j == n or at[j] >= end:
                    self.trk_t = at[i]
                    return at[i]
            i += 1
        self.trk_t = _POS_INF
        return None

    def rows(self) -> list[tuple[int, int, int, int]]:
        return list(zip(self.at, self.sched, self.rem, self.ref, strict=True))

    def mt_rows(self) -> list[tuple[int, int | None]]:
        """``(at, key)`` per point; key ``None`` for points tracked out of the MT tree."""
        c, tau = self.trk_c, self.trk_t
        return [
            (a, None if c is not None and a <= tau and k >= c else k)
            for a, k in zip(self.at, self.key, strict=True)
        ]

    def check(self) -> None:
        at = self.at
        assert all(a < b for a, b in pairwise(at))
        assert all(r >= 1 for r in self.ref)
        assert self.stale == {a for a, r, k in zip(at, self.rem, self.key, strict=True) if r != k}
