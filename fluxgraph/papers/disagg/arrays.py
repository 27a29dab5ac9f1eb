"""A-base and A-dis over a table of spans: the same placements as the graph walk, without it.

Disaggregated-memory spec §2.3, §4.3-§4.5 (Zacarias et al. §IV-C, §IV-D). On a memory machine
a node's memory is used only by the compute job on it (its local share) and by the pieces it
lends, and both hold the node for the compute phases (cores busy, or lending, §IV-D; unless
``lender_compute="if-memory-fits"``, whose local pass reads the lenders' free memory). So over a
window ``W`` a node is compute-eligible exactly when none of its spans meets ``W``, and then its
memory is entirely free: the local pass is "the first ``N`` eligible nodes of capacity >= ``M``
by (capacity, rank)", the disaggregated pass "the first ``N`` eligible nodes by (-capacity,
rank)", and only the lenders' free memory (capacity less the peak of the spans over ``W``) needs
the spans themselves. :class:`ArrayAllocator` keeps every span in numpy arrays and answers each
of those questions with a few array operations instead of a walk of every node.

It is a drop-in for :class:`~fluxgraph.papers.disagg.alloc.MemoryAllocator` (the
``memory-pool`` policy on the graph matcher, the reference): the same :class:`MemoryPlacement` for
every request, under every model option. Memory "vertices" are the node ranks themselves
(``memory_owner`` is the identity). ``tests/disagg/test_array_alloc.py`` checks it against the
graph allocator and the brute-force oracle.

The example of :mod:`~fluxgraph.papers.disagg.alloc`, on both engines:

>>> from fluxgraph.papers.disagg.alloc import MemoryAllocator
>>> from fluxgraph.papers.disagg.machines import build_memory_machine
>>> graph = MemoryAllocator(build_memory_machine(4, 1), "dis")
>>> table = ArrayAllocator(graph.capacity, cores=graph.cores, kind="dis")
>>> for req in (MemoryRequest(2, 40000), MemoryRequest(1, 1000)):  # the 2nd avoids lender 1
...     a, b = (engine.allocate(req, at=0, duration=10) for engine in (graph, table))
...     print(b.nodes, b.local, b.lent, (a.nodes, a.local, a.lent) == (b.nodes, b.local, b.lent))
(0, 3) (32768, 40000) ((1, 0, 7232),) True
(2,) (1000,) () True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from fluxgraph.errors import SimulationError
from fluxgraph.papers.disagg.placement import (
    MemoryPlacement,
    MemoryRequest,
    check_options,
    never_fits,
    split_deficits,
)

__all__ = ["ArrayAllocator"]

#: Above every time: ``node * _BIG + t`` orders by node, then time.
_BIG = np.int64(1) << 40


class ArrayAllocator:
    """Book placements of :class:`MemoryRequest` on nodes of the given memory capacities.

    Parameters
    ----------
    capacity : memory (MiB) of each node rank.
    cores : cores per node (a compute node is always held whole: 32 cores of 32).
    kind : ``base`` (A-base) or ``dis`` (A-dis).
    lending, lender_compute : the model options of
        :class:`~fluxgraph.papers.disagg.alloc.MemoryAllocator` (D17, D1).
    """

    def __init__(
        self,
        capacity: Sequence[int],
        cores: int,
        kind: str = "dis",
        lending: str = "shared",
        lender_compute: str = "never",
    ) -> None:
        check_options(kind, lending, lender_compute)
        if not capacity:
            raise SimulationError("a memory machine needs at least one node")
        self.kind = kind
        self.lending = lending
        self.lender_compute = lender_compute
        self.cores = cores
        self.capacity = list(capacity)
        cap = self._cap = np.asarray(self.capacity, dtype=np.int64)
        ranks = np.arange(len(cap))
        self._local_order = np.lexsort((ranks, cap))  # capacity ascending, then rank
        self._spread_order = np.lexsort((ranks, -cap))  # most free memory first, then rank
        # the span table: one row per (placement, node) with the MiB held there
        size = 64
        self._node = np.zeros(size, dtype=np.int64)
        self._start = np.zeros(size, dtype=np.int64)
        self._end = np.zeros(size, dtype=np.int64)  # 0 for a free row: meets no window
        self._mib = np.zeros(size, dtype=np.int64)
        self._lends = np.zeros(size, dtype=bool)  # a lent piece (else a local share)
        self._used = 0  # rows below this may be live
        self._free_rows: list[int] = []
        self._rows: dict[int, list[int]] = {}  # placement id -> its rows
        self._live = 0  # rows holding a span (parked or not)
        self._parked: set[int] = set()  # placement ids hidden by :meth:`park`
        # rows in (node, start) order with their key ``node * _BIG + start`` when inserted; a
        # row released (or reused since) no longer matches its key and is skipped where read
        self._by_node = np.zeros(0, dtype=np.int64)
        self._by_key = np.zeros(0, dtype=np.int64)
        self._unindexed: list[int] = []  # rows added since
        self._next_id = 1

    # -- the public operations (as MemoryAllocator's) -----------------------------------------

    def allocate(
        self, req: MemoryRequest, at: int, duration: int, now: int | None = None
    ) -> MemoryPlacement | None:
        """Book ``req`` over ``[at, at + duration)``, or None if it does not fit there."""
        placed = self._place(req, at, at + duration)
        return None if placed is None else self._book(req, at, at + duration, placed)

    def earliest(
        self, req: MemoryRequest, duration: int, times: Sequence[int]
    ) -> MemoryPlacement | None:
        """Book ``req`` at the first of ``times`` (ascending) where it fits, or None (the
        earliest start of spec §4.5 over the candidate times).

        The nodes free over ``[t, t + duration)`` are counted for every candidate at once;
        only a candidate with enough of them is placed exactly (the local pass needs ``N``
        free nodes of capacity >= ``M``, the disaggregated pass ``N`` free nodes and lenders).
        """
        if not times:
            return None
        local, spread = self._free_counts(np.asarray(times, dtype=np.int64), duration, req.mib)
        fits = local >= req.nodes
        if self.kind == "dis":
            fits |= spread >= req.nodes
        if self.lender_compute != "never":  # (a lender may compute: the counts do not bound)
            fits[:] = True
        for i in np.flatnonzero(fits).tolist():
            start = times[i]
            placed = self._place(req, start, start + duration)
            if placed is not None:
                return self._book(req, start, start + duration, placed)
        return None

    def rebook(
        self, placement: MemoryPlacement, *, check: bool = True, now: int | None = None
    ) -> MemoryPlacement:
        """Book ``placement``'s nodes, shares and lent pieces again over its window (the caller
        knows :meth:`allocate` would choose them: the spans meeting the window are the same).
        ``check=False`` skips verifying that the machine still holds it, for a caller that
        has proved it (the scheduler's recall): the check costs as much as a placement.
        (``now``, the graph allocator's current time, changes nothing here.)

        Raises
        ------
        SimulationError
            If the machine no longer holds it (another booking took part of the window since);
            nothing is booked.
        """
        req = MemoryRequest(len(placement.nodes), placement.mib)
        placed = (placement.nodes, placement.local, placement.lent)
        booked = self._book(req, placement.start, placement.end, placed)
        rows = [row for pid in booked.ids for row in self._rows[pid]]
        if check and not self._holds(booked, rows, booked.start, booked.end):
            self.release(booked)
            raise SimulationError(f"cannot book {placement} again: its window is taken")
        return booked

    def place(
        self, req: MemoryRequest, at: int, duration: int, now: int | None = None
    ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, int, int], ...]] | None:
        """``(nodes, local, lent)`` :meth:`allocate` would book over the window (nothing
        booked), or None (``now``, the graph allocator's current time, changes nothing here)."""
        return self._place(req, at, at + duration)

    def could_fit(self, req: MemoryRequest, at: int, duration: int) -> bool:
        """Whether :meth:`allocate` places ``req`` over the window (exact; nothing booked)."""
        return self._place(req, at, at + duration) is not None

    def release(self, placement: MemoryPlacement) -> None:
        """Cancel every span of ``placement`` (parked or not)."""
        for pid in placement.ids:
            rows = self._rows.pop(pid)
            self._start[rows] = self._end[rows] = 0
            self._free_rows += rows
            self._parked.discard(pid)
            self._live -= len(rows)

    def park(self, placement: MemoryPlacement) -> None:
        """Hide ``placement``'s spans (as released) until :meth:`unpark` or :meth:`release`.

        A scheduler that cancels a reservation and may make the same one again shows it
        again (:meth:`unpark`) instead of booking it anew.
        """
        for pid in placement.ids:
            self._end[self._rows[pid]] = 0
            self._parked.add(pid)

    def unpark(
        self, placement: MemoryPlacement, *, check: bool = True, now: int | None = None
    ) -> MemoryPlacement:
        """Show a parked ``placement``'s spans again, as they were (``check=False``: see
        :meth:`rebook`); ``placement`` itself.

        Raises
        ------
        SimulationError
            If the machine no longer holds it (a booking made while it was parked took part
            of its window); it stays parked.
        """
        rows = [row for pid in placement.ids for row in self._rows[pid]]
        self._end[rows] = placement.end
        if check and not self._holds(placement, rows, placement.start, placement.end):
            self._end[rows] = 0
            raise SimulationError(f"cannot show {placement} again: its window is taken")
        self._parked.difference_update(placement.ids)
        return placement

    def resize(self, placement: MemoryPlacement, end: int) -> MemoryPlacement:
        """The same resources and amounts over ``[placement.start, end)``.

        Raises
        ------
        SimulationError
            If a node cannot hold the new window (the caller extended into booked time).
        """
        rows = [row for pid in placement.ids for row in self._rows[pid]]
        old, self._end[rows] = placement.end, end
        if end > old and not self._holds(placement, rows, old, end):
            self._end[rows] = old
            raise SimulationError(f"cannot hold {placement} until {end}")
        return replace(placement, end=end)

    @property
    def memory_owner(self) -> dict[int, int]:
        """Node rank of each memory "vertex": the ranks themselves."""
        return {r: r for r in range(len(self.capacity))}

    def held(self, placement: MemoryPlacement) -> tuple[tuple[int, str, int], ...]:
        """``(rank, "memory", MiB)`` of every local share and lent piece."""
        local = [(r, "memory", m) for r, m in zip(placement.nodes, placement.local, strict=True)]
        return (*local, *((lender, "memory", m) for lender, _, m in placement.lent))

    def lending_nodes(self, start: int, end: int) -> set[int]:
        """Ranks lending memory at some time in ``[start, end)``."""
        rows = self._overlapping(start, end)
        return set(self._node[rows[self._lends[rows]]].tolist())

    def never_fits(self, req: MemoryRequest) -> str:
        """Why ``req`` can never run on the empty machine (spec §4.6), or ``""``."""
        return never_fits(self.capacity, self.kind, req, self.lending)

    def _check(self) -> None:
        """Assert the table's invariants: every placement's rows are live, parked rows meet no
        window, and at no time does a node hold more memory than its capacity or two local
        shares (brute force over the held spans; for tests)."""
        live = [row for rows in self._rows.values() for row in rows]
        assert len(live) == len(set(live)) == self._live, "a row held twice or lost"
        assert set(self._parked) <= set(self._rows), "a parked placement that is gone"
        for pid in self._parked:
            assert not self._end[self._rows[pid]].any(), f"parked placement {pid} is visible"
        assert not self._end[self._free_rows].any(), "a free row holds a span"
        held = [row for pid, rows in self._rows.items() if pid not in self._parked for row in rows]
        for row in held:
            node, start = int(self._node[row]), int(self._start[row])
            assert start < self._end[row], f"row {row} has an empty window"
            here = [r for r in held if self._node[r] == node]
            at = [r for r in here if self._start[r] <= start < self._end[r]]
            used = sum(int(self._mib[r]) for r in at)
            assert used <= self.capacity[node], f"node {node} holds {used} MiB at {start}"
            shares = sum(1 for r in at if not self._lends[r])
            assert shares <= 1, f"node {node} computes for {shares} placements at {start}"

    # -- the span table ----------------------------------------------------------------------

    def _add(
        self, ranks: list[int], start: int, end: int, mibs: list[int], shares: int
    ) -> list[int]:
        """Rows of new spans on ``ranks`` over ``[start, end)`` holding ``mibs``: the first
        ``shares`` local shares, the rest lent pieces."""
        free, k = self._free_rows, len(ranks)
        if k <= len(free):
            rows = free[len(free) - k :]
            del free[len(free) - k :]
        else:
            rows = free + list(range(self._used, self._used + k - len(free)))
            free.clear()
            self._used = rows[-1] + 1
            if self._used > len(self._node):
                size = max(2 * len(self._node), self._used)
                for name in ("_node", "_start", "_end", "_mib", "_lends"):
                    old = getattr(self, name)
                    grown = np.zeros(size, dtype=old.dtype)
                    grown[: len(old)] = old
                    setattr(self, name, grown)
        self._node[rows] = ranks
        self._start[rows] = start
        self._end[rows] = end
        self._mib[rows] = mibs
        self._lends[rows] = False
        self._lends[rows[shares:]] = True
        self._live += k
        self._unindexed += rows
        if len(self._unindexed) > self._live + 256:
            self._rows_by_node()
        return rows

    def starts_within(self, ranks: Sequence[int], lo: int, hi: int) -> bool:
        """Whether a span held (not parked) on one of ``ranks`` starts in ``[lo, hi)``."""
        by_node = self._rows_by_node()
        keys, base = self._by_key, np.asarray(ranks, dtype=np.int64) * _BIG
        first, last = np.searchsorted(keys, base + lo), np.searchsorted(keys, base + hi)
        size = last - first
        if not size.any():
            return False
        # the indices of every range [first, last), concatenated
        ends = np.cumsum(size)
        at = np.arange(int(ends[-1])) + np.repeat(first - ends + size, size)
        rows = by_node[at]
        held = (self._end[rows] > 0) & (self._node[rows] * _BIG + self._start[rows] == keys[at])
        return bool(held.any())

    def _rows_by_node(self) -> np.ndarray:
        """Rows in (node, start) order (``_by_key``: ``node * _BIG + start`` when indexed),
        released and reused rows among them (a released row's end is 0, a reused row's key is
        no longer its own): the new rows are merged in, and the order is rebuilt from the rows
        in use when the others outnumber them."""
        new = self._unindexed
        if len(self._by_node) + len(new) > 2 * self._live + 256:
            rows = np.flatnonzero(self._end[: self._used] > 0)
            parked = [row for pid in self._parked for row in self._rows[pid]]
            rows = np.concatenate((rows, np.asarray(parked, dtype=np.int64)))
            keys = self._node[rows] * _BIG + self._start[rows]
            order = np.argsort(keys)
            self._by_node, self._by_key = rows[order], keys[order]
        elif new:
            rows = np.asarray(new, dtype=np.int64)
            keys = self._node[rows] * _BIG + self._start[rows]
            order = np.argsort(keys)
            rows, keys = rows[order], keys[order]
            at = np.searchsorted(self._by_key, keys) + np.arange(len(keys))
            size = len(self._by_key) + len(keys)
            old = np.ones(size, dtype=bool)
            old[at] = False
            by_node, by_key = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
            by_node[at], by_key[at] = rows, keys
            by_node[old], by_key[old] = self._by_node, self._by_key
            self._by_node, self._by_key = by_node, by_key
        self._unindexed = []
        return self._by_node

    def _holds(self, placement: MemoryPlacement, rows: list[int], old_end: int, end: int) -> bool:
        """Whether the machine holds ``placement`` (its spans, ``rows``, already moved from
        ``old_end`` to ``end``): no other compute span on its nodes, no pool over capacity."""
        mine = set(rows)
        compute = set(placement.nodes)
        for row in self._overlapping(old_end, end).tolist():
            if row not in mine and not self._lends[row] and int(self._node[row]) in compute:
                return False
        spare = self._spare(self._overlapping(placement.start, end), placement.start)
        return bool((spare[self._node[rows]] >= 0).all())

    def _overlapping(self, start: int, end: int) -> np.ndarray:
        """Rows of the spans meeting ``[start, end)``."""
        n = self._used
        return np.flatnonzero((self._start[:n] < end) & (self._end[:n] > start))

    def _book(self, req: MemoryRequest, start: int, end: int, placed) -> MemoryPlacement:
        nodes, local, lent = placed
        pid = self._next_id
        self._next_id += 1
        given: dict[int, int] = {}
        for lender, _, mib in lent:
            given[lender] = given.get(lender, 0) + mib
        lenders = sorted(given)
        rows = self._add(
            [*nodes, *lenders], start, end, [*local, *(given[r] for r in lenders)], len(nodes)
        )
        self._rows[pid] = rows
        return MemoryPlacement(nodes, local, lent, start, end, (pid,), req.mib)

    def _free_counts(
        self, times: np.ndarray, duration: int, mib: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """For each of ``times`` (ascending): how many nodes of capacity >= ``mib``, and how many
        nodes in all (A-dis; A-base: the first again), no span meets over ``[t, t + duration)``.

        A span ``[s, e)`` meets the window of every ``t`` in ``[s - duration + 1, e - 1]``; those
        ranges are merged per node, so each node counts once where its ranges hold ``t``.
        """
        cap = self._cap
        rows = self._rows_by_node()  # by node, then start, so by node, then ``lo`` below
        base = self._node[rows] * _BIG
        held = self._end[rows] > times[0]
        held &= base + self._start[rows] == self._by_key  # (not a reused row's old place)
        rows, keys, base = rows[held], self._by_key[held], base[held]
        if not len(rows):
            full = np.full(len(times), len(cap), dtype=np.int64)
            return full - len(cap) + int((cap >= mib).sum()), full
        nodes = self._node[rows]
        lo = np.maximum(keys - (duration - 1), base)  # node * _BIG + max(s - duration + 1, 0)
        reach = np.maximum.accumulate(base + self._end[rows] - 1)  # furthest range end so far
        first = np.empty(len(rows), dtype=bool)
        first[0] = True
        first[1:] = lo[1:] > reach[:-1]  # a range that starts a new group
        starts = np.flatnonzero(first)
        ends = np.append(starts[1:], len(rows)) - 1
        group_node, group_base = nodes[starts], base[starts]
        # each group blocks the candidates from the first >= its start to the first > its end
        into = np.searchsorted(times, lo[starts] - group_base, "left")
        out = np.searchsorted(times, reach[ends] - group_base, "right")
        k = len(times) + 1
        local = cap[group_node] >= mib
        counts = []
        kinds = [(local, int((cap >= mib).sum()))]
        if self.kind == "dis":
            kinds.append((slice(None), len(cap)))
        for keep, total in kinds:
            step = np.bincount(into[keep], minlength=k) - np.bincount(out[keep], minlength=k)
            counts.append(total - np.cumsum(step[:-1]))
        return counts[0], counts[-1]

    # -- the two passes ----------------------------------------------------------------------

    def _place(
        self, req: MemoryRequest, start: int, end: int
    ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, int, int], ...]] | None:
        """``(nodes, local, lent)`` for ``req`` over ``[start, end)``, or None (no booking)."""
        need, mib = req.nodes, req.mib
        rows = self._overlapping(start, end)
        busy = np.zeros(len(self.capacity), dtype=bool)
        busy[self._node[rows]] = True  # computing or lending over the window (or both)
        order = self._local_order
        if self.lender_compute == "never":
            chosen = order[~busy[order] & (self._cap[order] >= mib)][:need]
        else:  # a node not computing whose free memory covers M (a lender's too, D1)
            computing = np.zeros(len(self.capacity), dtype=bool)
            computing[self._node[rows[~self._lends[rows]]]] = True
            fits = ~computing & (self._spare(rows, start) >= mib)
            chosen = order[fits[order]][:need]
        if len(chosen) == need:
            nodes = tuple(sorted(chosen.tolist()))
            return nodes, (mib,) * need, ()
        if self.kind == "base":
            return None
        order = self._spread_order
        chosen = order[~busy[order]][:need]
        if len(chosen) < need:
            return None
        compute = chosen.tolist()  # P's order (spec §4.4 step 2)
        cap = self.capacity
        local = {r: min(mib, cap[r]) for r in compute}
        deficits = [(r, mib - local[r]) for r in compute if local[r] < mib]
        lent: list[tuple[int, int, int]] = []
        if deficits and self.lending == "dedicated":
            idle = np.flatnonzero(~busy)
            lenders = iter(idle[~np.isin(idle, chosen)].tolist())
            for borrower, short in deficits:  # whole idle nodes, one deficit each (D17)
                while short > 0:
                    lender = next(lenders, None)
                    if lender is None:
                        return None
                    take = min(cap[lender], short)
                    lent.append((lender, borrower, take))
                    short -= take
        elif deficits:
            spare = self._spare(rows, start, chosen, sum(d for _, d in deficits))
            given = _cover(spare, sum(d for _, d in deficits))
            if given is None:
                return None
            lent += split_deficits(deficits, given)
        nodes = tuple(sorted(compute))
        return nodes, tuple(local[r] for r in nodes), tuple(lent)

    def _spare(
        self,
        rows: np.ndarray,
        start: int,
        exclude: np.ndarray | None = None,
        total: int | None = None,
    ) -> np.ndarray:
        """Free memory of every node (0 for ``exclude``) over the window starting at ``start``
        whose spans are ``rows``: capacity less the peak of the spans.

        Capacity less the *sum* of a node's spans (at least 0) is exact for a node with one
        span and a lower bound otherwise; the peak (one sweep over the span ends) is computed
        for the nodes with several spans, and with ``total`` only for those the greedy cover of
        ``total`` MiB in rank order can reach (lower bounds only move the cover point later;
        unclipped, spans that never overlap could make the running sum fall).
        """
        nodes = self._node[rows]
        n = len(self.capacity)
        spare = self._cap - np.bincount(nodes, self._mib[rows], n).astype(np.int64)
        np.maximum(spare, 0, out=spare)  # (spans that never overlap may sum past capacity)
        several = np.bincount(nodes, minlength=n) > 1
        if exclude is not None:
            spare[exclude] = several[exclude] = 0
        if total is not None:
            several[int(np.searchsorted(np.cumsum(spare), total)) + 1 :] = False
        rows = rows[several[nodes]]
        if len(rows):
            nodes, mib = self._node[rows], self._mib[rows]
            at = np.concatenate((np.maximum(self._start[rows], start), self._end[rows]))
            step = np.concatenate((mib, -mib))
            owner = np.concatenate((nodes, nodes))
            # by node, then time, an end before a start (times are below _BIG)
            order = np.argsort(owner * (2 * _BIG) + 2 * at + (step > 0))
            step, owner = step[order], owner[order]
            level = np.cumsum(step)
            new_owner = np.empty(len(owner), dtype=bool)
            new_owner[0] = True
            np.not_equal(owner[1:], owner[:-1], out=new_owner[1:])
            first = np.flatnonzero(new_owner)
            peak = np.maximum.reduceat(level, first) - (level[first] - step[first])
            spare[owner[first]] = self._cap[owner[first]] - peak
        return spare


def _cover(spare: np.ndarray, total: int) -> list[tuple[int, int]] | None:
    """``(lender, MiB)`` meeting ``total`` greedily in rank order (D2), or None; a node with
    no spare memory (or less than none) lends nothing.

    >>> _cover(np.array([0, 5, -3, 4]), 7)
    [(1, 5), (3, 2)]
    """
    if total == 0:
        return []
    spare = np.maximum(spare, 0)
    cum = np.cumsum(spare)
    if cum[-1] < total:
        return None
    last = int(np.searchsorted(cum, total))  # the first lender reaching ``total`` (spare > 0)
    lenders = np.flatnonzero(spare[: last + 1] > 0)
    amounts = spare[lenders]
    amounts[-1] = total - (int(cum[last - 1]) if last else 0)
    return list(zip(lenders.tolist(), amounts.tolist(), strict=True))
