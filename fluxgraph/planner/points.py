"""Scheduled points of one planner: blocks of parallel arrays under an augmented B+-tree.

The layout follows sortedcontainers' ``_lists``/``_maxes``: points live in leaf blocks of
parallel columns ``at`` (time, ascending), ``rem`` (live remaining) and ``key`` (``array("q")``)
plus ``sched`` and ``ref`` (lists). ``key`` is the remaining amount recorded when the point last
entered the reference's MT tree; it differs from ``rem`` only after ``update_total`` (the
stale-key quirk, §1.6). Locating a time is one bisect over ``lfirst``, the first time of every
leaf in one flat array, then one inside the leaf. Leaves are chained (``prev``/``next``) under
internal nodes that keep, per child, its first time (``first``), maximum key (``kmax``), minimum
remaining (``kmin``) and, in the child itself, a staircase bounding its longest free stretch per
threshold (:mod:`._stairs`); the searches use them to skip whole subtrees.

The reference's MT tree and tracked points are kept implicitly: after an earliest-time search
with request ``c`` that stopped at time ``tau``, the tracked points are exactly the points with
``key >= c`` and ``at <= tau`` (the search visits candidates in time order). Restoring them only
has a visible effect on *stale* points (``key != rem``), which are kept in a ``SortedList``.

One tuning constant, :data:`LOAD`: blocks hold ``LOAD // 2`` to ``2 * LOAD`` points; nodes use a
quarter of it as fan-out.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from itertools import pairwise

from sortedcontainers import SortedList

from fluxgraph.planner._blocks import _agg, _Leaf, _new_leaf, _new_node, _Node, _set_stairs
from fluxgraph.planner._flat import _Flat
from fluxgraph.planner._queries import _Queries
from fluxgraph.planner._stairs import _NEXT, _OWN, INF, leaf_stairs, merge, shift

__all__ = ["LOAD", "new_points"]

#: Target block size (split above ``2 * LOAD`` points, merge below ``LOAD // 2``). Blocks are
#: scanned point by point in Python, so they stay small (a scan takes a few microseconds). On the
#: §6.2 benchmark 32-96 perform alike; node fan-out ``LOAD // 4`` builds 15% faster than ``LOAD``
#: (a search tests a node's children one by one, and locating a point does not walk the nodes).
LOAD = 64


def new_points(base: int, total: int) -> _Flat:
    """The points of a new planner: its base point, in the flat layout of small planners."""
    return _Flat([base], [0], [total], [total], [1], 2 * LOAD, _grow)


def _grow(flat: _Flat) -> _Points:
    """The tree holding a flat layout's points (and tracking state): what a flat layout grown
    past its ``cap`` becomes (:meth:`~fluxgraph.planner._flat._Flat.add`)."""
    pts = _Points(flat.at, flat.sched, flat.rem, flat.key, flat.ref)
    pts.trk_c = flat.trk_c
    pts.trk_t = flat.trk_t
    return pts


def _fanout() -> int:
    """Target number of children per node: a quarter of :data:`LOAD`."""
    return max(2, LOAD // 4)


class _Points(_Queries):
    """Time-ordered scheduled points with live remaining amounts and MT keys.

    Storage and updates live here; the read-only queries and the earliest-time search in
    :class:`~fluxgraph.planner._queries._Queries`.
    """

    __slots__ = (
        "head",
        "height",
        "lfirst",
        "lleaves",
        "root",
        "stale",
        "touched",
        "trk_c",
        "trk_t",
    )

    def __init__(self, at, sched, rem, key, ref) -> None:
        """Tree of sorted parallel columns (a flat layout that outgrew itself, or a copy)."""
        self._build(at, sched, rem, key, ref)
        self.stale = SortedList(a for a, r, k in zip(at, rem, key, strict=True) if r != k)
        self.trk_c: int | None = None
        self.trk_t: float = -INF

    def _build(self, at, sched, rem, key, ref) -> None:
        """Bulk-load sorted parallel lists into fresh leaves and nodes."""
        leaves = []
        for lo in range(0, len(at), LOAD):
            hi = lo + LOAD
            leaf = _new_leaf(at[lo:hi], sched[lo:hi], rem[lo:hi], key[lo:hi], ref[lo:hi])
            if leaves:
                leaf.prev = leaves[-1]
                leaves[-1].next = leaf
            leaves.append(leaf)
        for leaf in leaves:
            _set_stairs(leaf)
        level: list = leaves
        height = 0
        while True:
            fan = _fanout()
            level = [_new_node(level[lo : lo + fan]) for lo in range(0, len(level), fan)]
            height += 1
            if len(level) == 1:
                break
        self.root = level[0]
        self.height = height
        self.head = leaves[0]
        # Point location is one bisect over the first times of all leaves, in one flat array
        # (sortedcontainers' ``_maxes``): its upper probes stay in cache, unlike a walk down
        # the nodes. The nodes serve the aggregates of the searches.
        self.lfirst = array("q", [leaf.at[0] for leaf in leaves])
        self.lleaves = leaves
        self.touched: set[_Leaf] = set()

    def copy(self) -> _Points:
        cols: list[list[int]] = [[], [], [], [], []]
        leaf = self.head
        while leaf is not None:
            for col, lst in zip(
                cols, (leaf.at, leaf.sched, leaf.rem, leaf.key, leaf.ref), strict=True
            ):
                col.extend(lst)
            leaf = leaf.next
        new = _Points(*cols)
        new.trk_c = self.trk_c
        new.trk_t = self.trk_t
        return new

    # -- navigation -----------------------------------------------------------------------------

    def _leaf_for(self, t: int) -> _Leaf:
        """The leaf holding the state point of ``t`` (the first leaf if ``t`` precedes all)."""
        i = bisect_right(self.lfirst, t) - 1
        return self.lleaves[i if i > 0 else 0]

    def _leaf_index(self, leaf: _Leaf) -> int:
        """Position of a non-empty ``leaf`` in :attr:`lleaves`."""
        return bisect_left(self.lfirst, leaf.at[0])

    def _path(self, leaf: _Leaf) -> list[list]:
        """Search stack ``[node, index of the child on the path, entered fresh]``, root first."""
        stack = []
        child = leaf
        node = leaf.parent
        while node is not None:
            stack.append([node, child.pos, False])
            child = node
            node = node.parent
        stack.reverse()
        return stack

    # -- aggregates and staircases --------------------------------------------------------------

    def _fix_up(self, child) -> None:
        """Rewrite ``child``'s entry in its parent (and upwards) after its points changed."""
        node = child.parent
        while node is not None:
            x = child.pos
            f, mx, mn = _agg(child)
            if node.first[x] == f and node.kmax[x] == mx and node.kmin[x] == mn:
                return
            node.first[x] = f
            node.kmax[x] = mx
            node.kmin[x] = mn
            child = node
            node = node.parent

    def _merge_up(self, node, kids) -> None:
        """Make ``node`` and its ancestors bound the staircases of ``kids`` again."""
        while node is not None:
            snr, sln = merge([(node.snr, node.sln), *((k.snr, k.sln) for k in kids)])
            if snr == node.snr and sln == node.sln:
                return
            node.snr, node.sln, node.st = snr, sln, 1
            kids = (node,)
            node = node.parent

    def _refresh(self) -> None:
        """Recompute the exact staircases of leaves whose free amounts grew."""
        for leaf in self.touched:
            if leaf.parent is not None:
                self._tighten(leaf)
                self._merge_up(leaf.parent, (leaf,))
        self.touched.clear()

    def _touch(self, leaf: _Leaf) -> None:
        """Free amounts of ``leaf`` grew: refresh it and the leaf looking into it, later."""
        self.touched.add(leaf)
        if leaf.prev is not None:
            self.touched.add(leaf.prev)

    @staticmethod
    def _loosen(leaf: _Leaf) -> None:
        """Free amounts of ``leaf`` shrank: its staircases (and its predecessor's) only bound."""
        leaf.st |= _OWN
        if leaf.prev is not None:
            leaf.prev.st |= _NEXT

    def _tighten(self, obj) -> None:
        """Recompute a loose staircase from its data (leaf) or its children (node)."""
        if obj.is_leaf:
            _set_stairs(obj)
        else:
            obj.snr, obj.sln = merge((k.snr, k.sln) for k in obj.kids)
        obj.st = 0
        if obj.parent is not None:
            obj.parent.st = 1

    # -- structure ------------------------------------------------------------------------------

    def _insert_kid(self, node: _Node, x: int, kid) -> None:
        f, mx, mn = _agg(kid)
        node.kids.insert(x, kid)
        node.first.insert(x, f)
        node.kmax.insert(x, mx)
        node.kmin.insert(x, mn)
        kid.parent = node
        kids = node.kids
        for k in range(x, len(kids)):
            kids[k].pos = k

    def _remove_kid(self, node: _Node, x: int) -> None:
        kids = node.kids
        kids[x].parent = None
        for lst in (kids, node.first, node.kmax, node.kmin):
            del lst[x]
        for k in range(x, len(kids)):
            kids[k].pos = k
        node.st = 1
        if kids:
            self._fix_up(node)

    def _split(self, obj) -> None:
        """Split an over-full leaf or node in two halves."""
        h = len(obj.at if obj.is_leaf else obj.kids) >> 1
        if obj.is_leaf:
            new = _new_leaf(obj.at[h:], obj.sched[h:], obj.rem[h:], obj.key[h:], obj.ref[h:])
            for lst in (obj.at, obj.sched, obj.rem, obj.key, obj.ref):
                del lst[h:]
            new.prev = obj
            new.next = obj.next
            if obj.next is not None:
                obj.next.prev = new
            obj.next = new
            x = self._leaf_index(obj) + 1
            self.lleaves.insert(x, new)
            self.lfirst.insert(x, new.at[0])
            _set_stairs(new)
            if obj.prev is not None:  # it looked into obj's second half, now a new leaf
                self._tighten(obj.prev)
                self._merge_up(obj.prev.parent, (obj.prev,))
        else:
            new = _new_node(obj.kids[h:])
            for lst in (obj.kids, obj.first, obj.kmax, obj.kmin):
                del lst[h:]
        self._tighten(obj)
        parent = obj.parent
        if parent is None:
            root = _new_node([obj, new])
            self.root = root
            self.height += 1
            return
        self._insert_kid(parent, obj.pos + 1, new)
        self._fix_up(obj)
        self._merge_up(parent, (obj, new))
        if len(parent.kids) > 2 * _fanout():
            self._split(parent)

    def _shrink(self, obj) -> None:
        """Handle a leaf or node that lost entries: drop it if empty, merge it if tiny."""
        parent = obj.parent
        if parent is None:  # the root: drop levels with a single child
            while self.height > 1 and len(self.root.kids) == 1:
                self.root = self.root.kids[0]
                self.root.parent = None
                self.root.pos = 0
                self.height -= 1
            return
        size = len(obj.at if obj.is_leaf else obj.kids)
        if size == 0:
            if obj.is_leaf:
                obj.prev.next = obj.next  # the head leaf holds the base point: never empty
                if obj.next is not None:
                    obj.next.prev = obj.prev
                x = self._leaf_index(obj.prev) + 1
                del self.lleaves[x]
                del self.lfirst[x]
            self._remove_kid(parent, obj.pos)
            self._shrink(parent)
            return
        if size >= (LOAD if obj.is_leaf else _fanout()) // 2 or len(parent.kids) < 2:
            return
        x = obj.pos
        left, right = (parent.kids[x - 1], obj) if x > 0 else (obj, parent.kids[1])
        if left.is_leaf:
            for a, b in zip(
                (left.at, left.sched, left.rem, left.key, left.ref),
                (right.at, right.sched, right.rem, right.key, right.ref),
                strict=True,
            ):
                a.extend(b)
            x = self._leaf_index(left) + 1
            del self.lleaves[x]
            del self.lfirst[x]
            left.next = right.next
            if right.next is not None:
                right.next.prev = left
            if left.prev is not None:  # left grew at its end: left.prev's bound may loosen
                left.prev.st |= _NEXT
        else:
            for kid in right.kids:
                self._insert_kid(left, len(left.kids), kid)
        self._remove_kid(parent, right.pos)
        self._tighten(left)
        self._fix_up(left)
        self._merge_up(parent, (left,))
        if len(left.at) > 2 * LOAD if left.is_leaf else len(left.kids) > 2 * _fanout():
            self._split(left)
        self._shrink(left.parent)

    # -- point updates --------------------------------------------------------------------------

    def ref_point(self, t: int) -> None:
        """Reference the point at ``t``, creating it from its state point if needed."""
        leaf = self._leaf_for(t)
        at = leaf.at
        j = bisect_left(at, t)
        if j < len(at) and at[j] == t:
            leaf.ref[j] += 1
            return
        # j >= 1: the leaf's first point precedes t, so the state point is at[j - 1].
        r = leaf.rem[j - 1]
        at.insert(j, t)
        leaf.sched.insert(j, leaf.sched[j - 1])
        leaf.rem.insert(j, r)
        leaf.key.insert(j, r)
        leaf.ref.insert(j, 1)
        # A copy of the previous point's remaining leaves every stretch length unchanged; only
        # the max key can grow (the previous point's own key may be stale).
        if r > leaf.parent.kmax[leaf.pos]:
            self._fix_up(leaf)
        if len(at) > 2 * LOAD:
            self._split(leaf)

    def _unref(self, t: int) -> None:
        leaf = self._leaf_for(t)
        j = bisect_left(leaf.at, t)
        leaf.ref[j] -= 1
        if leaf.ref[j]:
            return
        if j == 0 and len(leaf.at) > 1:  # the leaf's first time moves on
            self.lfirst[self._leaf_index(leaf)] = leaf.at[1]
        for lst in (leaf.at, leaf.sched, leaf.rem, leaf.key, leaf.ref):
            del lst[j]
        if self.stale:
            self.stale.discard(t)
        self._touch(leaf)
        if leaf.at:
            self._fix_up(leaf)
        self._shrink(leaf)

    def _apply(self, t0: int, t1: int, dsched: int, drem: int, limit: int | None) -> None:
        leaf = self._leaf_for(t0)
        i = bisect_left(leaf.at, t0)
        aborted = False
        while True:
            at = leaf.at
            k = bisect_left(at, t1, i)
            if k > i:
                rem = leaf.rem
                if aborted:
                    pass
                elif limit is None:
                    leaf.sched[i:k] = [s + dsched for s in leaf.sched[i:k]]
                    rem[i:k] = array("q", [r + drem for r in rem[i:k]])
                else:  # partial reduce: stop after the first point out of range (§1.5)
                    sched = leaf.sched
                    for q in range(i, k):
                        sched[q] += dsched
                        rem[q] += drem
                        if sched[q] < 0 or rem[q] > limit:
                            aborted = True
                            break
                leaf.key[i:k] = rem[i:k]
                self._fix_up(leaf)
                if drem > 0:
                    self._touch(leaf)
                elif drem < 0:
                    self._loosen(leaf)
            if k < len(at) or leaf.next is None or leaf.next.at[0] >= t1:
                break
            leaf = leaf.next
            i = 0
        if self.stale:
            for t in list(self.stale.irange(t0, t1, inclusive=(True, False))):
                self.stale.remove(t)

    def apply(self, t0: int, t1: int, dsched: int, drem: int, limit: int | None) -> None:
        """Add ``dsched``/``drem`` to the points in ``[t0, t1)`` and resync their keys.

        With ``limit`` (partial reduce), stop changing amounts after the first point whose
        scheduled amount drops below 0 or whose remaining exceeds ``limit``; keys of the whole
        range are resynced anyway, as in the reference.
        """
        self._apply(t0, t1, dsched, drem, limit)
        self._refresh()

    def add(self, start: int, end: int, request: int) -> _Points:
        """Reference the points ``start < end``, use ``request`` over ``[start, end)``.

        Ends the tracking of a search first. Returns the points object that replaces this one
        (itself: a tree stays a tree).
        """
        self.restore()
        self.ref_point(start)
        self.ref_point(end)
        self._apply(start, end, request, -request, None)
        self._refresh()
        return self

    def release(self, start: int, last: int, planned: int) -> _Points | _Flat:
        """Remove a span's usage over ``[start, last)`` and unreference its two points.

        Ends the tracking of a search first. Returns the points object that replaces this one:
        the flat layout once a single leaf of at most ``LOAD`` points is left (half the size at
        which a flat one grows a tree).
        """
        self.restore()
        self._apply(start, last, -planned, planned, None)
        self._unref(start)
        self._unref(last)
        self._refresh()
        if len(self.lleaves) == 1 and len(self.head.at) <= LOAD:
            leaf = self.head
            flat = _Flat(
                list(leaf.at),
                leaf.sched[:],
                list(leaf.rem),
                list(leaf.key),
                leaf.ref[:],
                2 * LOAD,
                _grow,
            )
            flat.trk_c = self.trk_c
            flat.trk_t = self.trk_t
            return flat
        return self

    def update_total(self, delta: int) -> None:
        """Move every remaining amount by ``delta`` (clamped at 0); keys stay as they are."""
        stale = []
        leaf = self.head
        while leaf is not None:
            rem = leaf.rem = array("q", [r + delta if r + delta > 0 else 0 for r in leaf.rem])
            leaf.snr, leaf.sln = shift(leaf.snr, leaf.sln, delta)
            leaf.isnr, leaf.isln = shift(leaf.isnr, leaf.isln, delta, full=False)
            stale.extend(a for a, r, k in zip(leaf.at, rem, leaf.key, strict=True) if r != k)
            leaf = leaf.next
        level = [self.root]
        while level and not level[0].is_leaf:
            for node in level:
                node.kmin = array("q", [m + delta if m + delta > 0 else 0 for m in node.kmin])
                node.snr, node.sln = shift(node.snr, node.sln, delta)
            level = [kid for node in level for kid in node.kids if not kid.is_leaf]
        self.stale = SortedList(stale)

    def max_rem(self) -> int:
        """Largest remaining amount of any point, ``O(n)``."""
        return max(max(leaf.rem) for leaf in self._leaves())

    def restore(self) -> None:
        """Put the tracked points back into the MT index with fresh keys; end the tracking."""
        c = self.trk_c
        if c is not None and self.stale:
            tau = self.trk_t
            hits = list(self.stale) if tau == INF else list(self.stale.irange(maximum=tau))
            for t in hits:
                leaf = self._leaf_for(t)
                j = bisect_left(leaf.at, t)
                if leaf.key[j] >= c:
                    leaf.key[j] = leaf.rem[j]
                    self.stale.remove(t)
                    self._fix_up(leaf)
        self.trk_c = None
        self.trk_t = -INF

    # -- views and checks -----------------------------------------------------------------------

    def _leaves(self):
        leaf = self.head
        while leaf is not None:
            yield leaf
            leaf = leaf.next

    def rows(self) -> list[tuple[int, int, int, int]]:
        """``(at, scheduled, remaining, ref_count)`` of every point, in time order."""
        out: list[tuple[int, int, int, int]] = []
        for leaf in self._leaves():
            out.extend(zip(leaf.at, leaf.sched, leaf.rem, leaf.ref, strict=True))
        return out

    def mt_rows(self) -> list[tuple[int, int | None]]:
        """``(at, key)`` of every point; key None for points tracked out of the MT index."""
        c, tau = self.trk_c, self.trk_t
        out: list[tuple[int, int | None]] = []
        for leaf in self._leaves():
            out.extend(
                (a, None if c is not None and a <= tau and k >= c else k)
                for a, k in zip(leaf.at, leaf.key, strict=True)
            )
        return out

    def check(self) -> None:
        """Assert every structural invariant of the tree, ``O(n)``."""
        leaves = list(self._leaves())
        assert leaves[0].prev is None and self.head is leaves[0]
        flat = [a for leaf in leaves for a in leaf.at]
        assert all(a < b for a, b in pairwise(flat)), "times not increasing"
        for a, b in pairwise(leaves):
            assert b.prev is a, "broken leaf chain"
        found: list[_Leaf] = []
        self._check_node(self.root, self.height, found)
        assert found == leaves, "leaf chain differs from the tree order"
        assert self.lleaves == leaves, "leaf index differs from the chain"
        assert list(self.lfirst) == [leaf.at[0] for leaf in leaves], "leaf first times"
        assert self.root.parent is None
        assert list(self.stale) == [
            a
            for leaf in leaves
            for a, r, k in zip(leaf.at, leaf.rem, leaf.key, strict=True)
            if r != k
        ], "stale set differs from the points with key != remaining"
        assert not self.touched

    def _check_node(self, node: _Node, depth: int, found: list[_Leaf]) -> None:
        kids = node.kids
        assert kids and len(kids) <= 2 * _fanout(), "node size"
        assert [k.pos for k in kids] == list(range(len(kids))), "child positions"
        assert all(k.parent is node for k in kids), "parent pointers"
        assert [_agg(k) for k in kids] == list(
            zip(node.first, node.kmax, node.kmin, strict=True)
        ), "child aggregates"
        for kid in kids:
            if depth == 1:
                assert kid.is_leaf and 0 < len(kid.at) <= 2 * LOAD, "leaf size"
                nxt = kid.next
                snr, sln, isnr, isln = leaf_stairs(kid.at, kid.rem, nxt and nxt.at, nxt and nxt.rem)
                exact = snr, sln
                if not kid.st & _OWN:
                    _assert_bounds(kid.isnr, kid.isln, (isnr, isln), 1)
                found.append(kid)
            else:
                assert not kid.is_leaf
                self._check_node(kid, depth - 1, found)
                exact = merge((k.snr, k.sln) for k in kid.kids)
            _assert_bounds(kid.snr, kid.sln, exact, kid.st)
            _assert_bounds(node.snr, node.sln, (kid.snr, kid.sln), 1)


def _assert_bounds(snr, sln, exact, st) -> None:
    """Staircase ``(snr, sln)`` bounds ``exact`` from above (equals it when ``st == 0``)."""
    for nv, ln in zip(*exact, strict=True):
        k = bisect_right(snr, nv)
        assert k and sln[k - 1] >= ln, "staircase is not an upper bound"
    if st == 0:
        assert (snr, sln) == tuple(exact), "exact staircase flag on a loose staircase"
