"""Read-only queries over the scheduled points: free amounts and the earliest-time search.

A mixin of :class:`fluxgraph.planner.points._Points` (storage and updates live there), split
out to keep each module to one idea. See ``points`` for the layout and ``_stairs`` for the
staircases that let the search skip blocks.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING

from fluxgraph.planner._stairs import _OWN, INF

if TYPE_CHECKING:
    from fluxgraph.planner._blocks import _Leaf

__all__: list[str] = []


class _Queries:
    """Queries of :class:`~fluxgraph.planner.points._Points` (no state of its own)."""

    __slots__ = ()

    # -- queries --------------------------------------------------------------------------------

    def state_rem(self, t: int) -> int | None:
        """Remaining amount of the state point of ``t`` (None if ``t`` precedes every point)."""
        leaf = self._leaf_for(t)
        j = bisect_right(leaf.at, t) - 1
        return None if j < 0 else leaf.rem[j]

    def window_min(self, t0: int, t1: int) -> int | None:
        """Minimum remaining of the state point of ``t0`` and the points before ``t1 > t0``."""
        leaf = self._leaf_for(t0)
        at = leaf.at
        j = bisect_right(at, t0) - 1
        if j < 0:
            return None
        k = j + 1
        n = len(at)
        if k < n and at[k] < t1:  # more than the state point: the general case
            k = bisect_left(at, t1, k)
            low = min(leaf.rem[j:k])
        else:
            low = leaf.rem[j]
        if k < n or leaf.next is None or leaf.next.at[0] >= t1:
            return low
        rest = self._min_after(leaf, t1)
        return rest if rest < low else low

    def _min_after(self, leaf: _Leaf, t1: int) -> float:
        """Minimum remaining over the points after ``leaf`` that come before ``t1``."""
        low = INF
        child = leaf
        node = leaf.parent
        pending = None  # last child of a node: fully inside the window iff something follows
        while node is not None:
            first = node.first
            n = len(first)
            x = child.pos + 1
            if x < n:
                if first[x] >= t1:
                    break
                if pending is not None:
                    low = min(low, pending[1])
                    pending = None
                e = bisect_left(first, t1, x)
                if e - 1 > x:
                    low = min(low, min(node.kmin[x : e - 1]))
                if e < n:
                    return min(low, self._prefix_min(node.kids[e - 1], t1))
                pending = (node.kids[-1], node.kmin[-1])
            child = node
            node = node.parent
        if pending is not None:
            low = min(low, self._prefix_min(pending[0], t1))
        return low

    @staticmethod
    def _prefix_min(sub, t1: int) -> float:
        """Minimum remaining over the points of subtree ``sub`` before ``t1``."""
        low = INF
        while not sub.is_leaf:
            e = bisect_left(sub.first, t1)
            if e > 1:
                low = min(low, min(sub.kmin[: e - 1]))
            sub = sub.kids[e - 1]
        return min(low, min(sub.rem[: bisect_left(sub.at, t1)]))

    def _first_below(self, leaf: _Leaf, j: int, c: int, end: int) -> tuple[_Leaf, int] | None:
        """First point at or after ``leaf[j]`` with remaining ``< c``, if it is before ``end``."""
        at = leaf.at
        rem = leaf.rem
        k = bisect_left(at, end, j)
        for i in range(j, k):
            if rem[i] < c:
                return leaf, i
        if k < len(at):
            return None
        child = leaf
        node = leaf.parent
        while node is not None:
            first = node.first
            kmin = node.kmin
            for y in range(child.pos + 1, len(first)):
                if first[y] >= end:
                    return None
                if kmin[y] < c:  # the subtree holds the first such point: find it
                    sub = node.kids[y]
                    while not sub.is_leaf:
                        kmin = sub.kmin
                        z = 0
                        while kmin[z] >= c:
                            z += 1
                        if sub.first[z] >= end:
                            return None
                        sub = sub.kids[z]
                    rem = sub.rem
                    i = 0
                    while rem[i] >= c:
                        i += 1
                    return (sub, i) if sub.at[i] < end else None
            child = node
            node = node.parent
        return None

    def _scan(self, leaf: _Leaf, j: int, c: int, d: int) -> tuple[int | None, _Leaf | None, int]:
        """Scan ``leaf`` from ``j`` for the first candidate whose window of ``d`` is clear.

        Returns ``(time, None, 0)`` for a fit, ``(None, leaf2, i)`` when the last window tried
        was blocked by point ``leaf2[i]`` of a later leaf (every candidate up to it fails), or
        ``(None, None, 0)`` when no candidate of the leaf fits.
        """
        at = leaf.at
        rem = leaf.rem
        key = leaf.key
        n = len(at)
        i = j
        if d == 1:  # times are distinct integers: a one-tick window holds its own point only
            while i < n:
                if key[i] >= c and rem[i] >= c:
                    return at[i], None, 0
                i += 1
            return None, None, 0
        while i < n:
            if key[i] < c or rem[i] < c:
                i += 1
                continue
            end = at[i] + d
            k = i + 1
            while k < n:
                if at[k] >= end:
                    return at[i], None, 0
                if rem[k] < c:
                    break
                k += 1
            else:
                nxt = leaf.next
                if nxt is None or nxt.at[0] >= end:
                    return at[i], None, 0
                hit = self._first_below(nxt, 0, c, end)
                if hit is None:
                    return at[i], None, 0
                return None, hit[0], hit[1]
            i = k + 1  # every candidate up to the blocking point k fails too
        return None, None, 0

    def _scan_tail(
        self, leaf: _Leaf, j: int, c: int, d: int
    ) -> tuple[int | None, _Leaf | None, int]:
        """:meth:`_scan` restricted to the leaf's last stretch (the others are too short)."""
        at = leaf.at
        rem = leaf.rem
        key = leaf.key
        n = len(at)
        s = n - 1
        while s > j and rem[s - 1] >= c:
            s -= 1
        while s < n and (key[s] < c or rem[s] < c):
            s += 1
        if s == n:
            return None, None, 0
        end = at[s] + d
        nxt = leaf.next
        if nxt is None or nxt.at[0] >= end:
            return at[s], None, 0
        hit = self._first_below(nxt, 0, c, end)
        if hit is None:
            return at[s], None, 0
        return None, hit[0], hit[1]

    def _advance(self, stack: list[list], c: int, d: int) -> _Leaf | None:
        """Next leaf after the stack's position that may hold an answer for ``(c, d)``."""
        while stack:
            top = stack[-1]
            node = top[0]
            kids = node.kids
            kmax = node.kmax
            n = len(kids)
            y = top[1] + 1
            while y < n:
                if kmax[y] >= c:
                    if d == 1:
                        break
                    kid = kids[y]
                    k = bisect_right(kid.snr, -c)
                    if k and kid.sln[k - 1] >= d:
                        break
                y += 1
            if y < n:
                top[1] = y
                kid = kids[y]
                if kid.is_leaf:
                    return kid
                stack.append([kid, -1, True])
            else:
                stack.pop()
                if top[2] and node.st:
                    self._tighten(node)
        return None

    def search(self, on_or_after: int, d: int, c: int) -> int | None:
        """Next AVAILAT answer (§1.7) for ``(on_or_after, d, c)``, continuing the tracking.

        Returns the time of the first point after the tracked ones, at or after
        ``on_or_after``, with ``key >= c`` and at least ``c`` free over ``[at, at + d)``;
        every point with ``key >= c`` up to it becomes tracked. The plan-end check is the
        caller's. Runtime complexity: ``O(log n)`` per block visited; blocks without a
        candidate key or without a long enough free stretch are skipped by their node.
        """
        lo = on_or_after
        if self.trk_c is not None and self.trk_t >= lo:
            if self.trk_t == INF:
                return None
            lo = self.trk_t + 1
        self.trk_c = c
        leaf = self._leaf_for(lo)
        at = leaf.at
        j = bisect_left(at, lo)
        if d == 1 and j < len(at) and leaf.key[j] >= c and leaf.rem[j] >= c:
            t = self.trk_t = at[j]  # fast path: the first point fits a one-tick window
            return t
        stack = None  # built on the first move to another leaf
        while True:
            if j >= len(leaf.at) or leaf.parent.kmax[leaf.pos] < c:
                scan = None
            elif d == 1:  # a window of one tick holds one point: no staircase needed
                scan = self._scan
            else:
                k = bisect_right(leaf.snr, -c)
                if not k or leaf.sln[k - 1] < d:
                    scan = None
                elif leaf.st & _OWN:
                    scan = self._scan
                else:
                    k = bisect_right(leaf.isnr, -c)
                    # When no interior stretch is long enough, only the last one can hold it.
                    scan = self._scan if k and leaf.isln[k - 1] >= d else self._scan_tail
            if scan is not None:
                t, hit, i = scan(leaf, j, c, d)
                if t is not None:
                    self.trk_t = t
                    return t
                if leaf.st and d > 1:  # a loose staircase let a useless scan through
                    self._tighten(leaf)
                if hit is not None:
                    leaf = hit
                    j = i + 1
                    stack = None
                    continue
            if stack is None:
                stack = self._path(leaf)
            leaf = self._advance(stack, c, d)
            if leaf is None:
                self.trk_t = INF
                return None
            j = 0
