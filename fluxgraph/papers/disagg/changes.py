"""What changes to the bookings held do to an earliest-start search found before.

Disaggregated-memory spec §4.3-§4.5. :class:`~fluxgraph.papers.disagg.booking.MemoryBookings`
books a reservation found by an earliest-start search again, without searching, when the
bookings held since differ from those the search met only in ways :func:`retries` proves it
cannot tell apart, or tells apart at a few candidate times that it returns to be tried again.
Bookings are compared by content (:class:`Contents`). The arguments, one per kind of change,
are in :func:`retries`, :func:`_beside` and :func:`_adds_dis`;
``tests/disagg/test_disagg_shortcuts.py`` checks each reservation found again against the
earliest start, and the rule for spans added under A-dis on its own.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fluxgraph.papers.disagg.alloc import MemoryAllocator, MemoryPlacement, MemoryRequest
from fluxgraph.papers.disagg.arrays import ArrayAllocator

__all__ = ["Contents", "Ranks", "retries"]

_NEVER = 1 << 62  # above every memory size
_RETRIES = 3  # candidates a search found again may try; more: search anew
_CHANGES, _KEEPS, _VERIFY = range(3)  # what spans added do to a search (:func:`_adds_dis`)


@dataclass(frozen=True, slots=True)
class Ranks:
    """The nodes a booking holds (compute nodes, then lenders): ``all`` in that order, as a
    ``set``, the ``low``-est rank, and the ``slack``: the most memory one of them keeps free
    (capacity less the booking's share or loan there)."""

    all: tuple[int, ...]
    set: frozenset[int]
    low: int
    slack: int


class Contents:
    """Booking contents ``(start, end, nodes, local, lent)``, each numbered once, with the
    number of the content but its end (``span``: a booking moved keeps it) and the nodes each
    holds (:meth:`ranks`) on a machine of the given memory ``capacity`` per node.

    >>> contents = Contents([32768, 65536])
    >>> a = contents.number(MemoryPlacement((1,), (40000,), (), 0, 10, (1,), 40000))
    >>> b = contents.number(MemoryPlacement((1,), (40000,), (), 0, 20, (1,), 40000))
    >>> a, b, contents.span[a] == contents.span[b], contents.ranks(a).slack
    (0, 1, True, 25536)
    """

    def __init__(self, capacity: Sequence[int]) -> None:
        self.capacity = list(capacity)
        self.smallest = min(self.capacity)
        self.span: list[int] = []
        self._items: list[tuple] = []
        self._numbers: dict[tuple, int] = {}
        self._spans: dict[tuple, int] = {}
        self._ranks: dict[int, Ranks] = {}

    def number(self, p: MemoryPlacement) -> int:
        """The number of ``p``'s content (new if never seen)."""
        key = (p.start, p.end, p.nodes, p.local, p.lent)
        cid = self._numbers.setdefault(key, len(self._numbers))
        if cid == len(self._items):
            self._items.append(key)
            span = (p.start, p.nodes, p.local, p.lent)
            self.span.append(self._spans.setdefault(span, len(self._spans)))
        return cid

    def __getitem__(self, cid: int) -> tuple:
        return self._items[cid]

    def ranks(self, cid: int) -> Ranks:
        """The nodes booking content ``cid`` holds (computed once)."""
        ranks = self._ranks.get(cid)
        if ranks is None:
            _, _, nodes, local, lent = self._items[cid]
            held = dict(zip(nodes, local, strict=True))
            for lender, _, mib in lent:
                held[lender] = held.get(lender, 0) + mib
            every = (*nodes, *(r for r in held if r not in nodes))
            cap = self.capacity
            slack = max(cap[r] - mib for r, mib in held.items())
            ranks = Ranks(every, frozenset(every), min(every), slack)
            self._ranks[cid] = ranks
        return ranks


def retries(
    alloc: MemoryAllocator | ArrayAllocator,
    contents: Contents,
    new: set[int],
    gone: set[int],
    before: MemoryPlacement,
    req: MemoryRequest,
    duration: int,
    now: int,
    ends: Callable[[int, int], set[int]],
) -> list[int] | None:
    """What a search that found ``before`` (at ``T = before.start``) must try again to find
    it now that the bookings ``gone`` are held as ``new`` (content numbers): the candidate
    times (ascending; ``T`` last where ``before`` must be placed there again to know), or None
    if it may find something else where it is not tried, or there are over 3 times to try
    (``ends(now, T)``: the ends of the bookings held in ``(now, T]``).
    The changes that qualify:

    * a running booking now ending elsewhere (the same nodes, start and amounts) in a way no
      window the search tried can tell apart: both ends after ``before.start`` (the
      candidates up to it are unchanged, the spans meet every window tried), and no other
      span on its nodes starts between the two ends before ``before.end`` (a window's peak
      is at its start or at a span's start, where both versions hold the same amounts);
    * under A-base, a booking added: every window the search tried (and one starting at
      the new end, which holds no more than the candidate before it) still fails, as its
      one pass (``N`` free nodes of capacity >= ``M``) only fails more with more spans; and
      at ``before.start`` it meets no window or none of ``before``'s nodes, so the first
      free nodes in the pass's order are the ones found;
    * under A-dis (default options), spans added (a booking, or a running booking's later
      end) that :func:`_adds_dis` allows;
    * spans removed (a booking, or a running booking's earlier end), where the candidate
      found stays one.

    The candidates whose windows meet spans removed, or spans added where A-dis is not
    monotone, and the ends added before ``before.start`` are tried again; ``before`` is
    placed again at its start where spans removed meet its window or spans added may
    change its lenders.
    """
    span = contents.span
    was = {span[cid]: cid for cid in gone}  # the content numbers of spans gone
    # the lemma of :func:`_adds_dis` is for the default options (greedy shared lending, lenders
    # never compute): under the others, spans added send the search back to the allocator
    dis = alloc.kind == "dis" and (alloc.lending, alloc.lender_compute) == ("shared", "never")
    # spans keeping more memory free than this on a node may let windows before
    # ``before.start`` fit (:func:`_adds_dis`); requests within every node: never
    floor = req.mib if req.mib > contents.smallest else _NEVER
    regions: list[tuple[int, int]] = []  # spans the windows meeting them are tried again
    times: set[int] = set()  # candidates to try again
    verify = False  # whether ``before`` must be placed again at its start
    found = False  # whether an end removed was at ``before.start`` (must still be one)
    for cid in new:
        start, end = contents[cid][:2]
        old = was.pop(span[cid], None)
        if old is None and (end <= now or start >= before.end):
            continue  # (meets no window the search tries, nor adds a candidate to them)
        ranks = contents.ranks(cid)
        if old is None:
            if alloc.kind == "base":
                if not _beside(before, start, end, ranks.set):
                    return None
            elif not dis:
                return None
            else:
                kept = _adds_dis(before, start, end, ranks, floor, duration, now, regions)
                if kept == _CHANGES:
                    return None
                verify |= kept == _VERIFY
            if now < end < before.start:
                times.add(end)
            continue
        old_end = contents[old][1]  # (the same booking, ending elsewhere)
        if start > now:
            return None
        if min(end, old_end) > before.start:
            lo, hi = min(end, old_end), min(max(end, old_end), before.end)
            if lo < hi and alloc.starts_within(ranks.all, lo, hi):
                return None
            continue
        if not dis:
            return None
        found |= old_end == before.start
        if end > old_end:
            kept = _adds_dis(before, old_end, end, ranks, floor, duration, now, regions)
            if kept == _CHANGES:
                return None
            verify |= kept == _VERIFY
        else:  # spans removed over [end, old_end)
            regions.append((end, old_end))
            verify |= old_end > before.start
        if now < end < before.start:
            times.add(end)
    for start, end in (contents[cid][:2] for cid in was.values()):  # spans removed
        if start < before.end:
            regions.append((start, end))
            verify |= end > before.start
            found |= end == before.start
    if regions or found:
        candidates = ends(now, before.start)
        if found and before.start != now and before.start not in candidates:
            return None  # (the candidate it found is gone)
        # the candidates whose windows meet a region: t in [lo - duration + 1, hi)
        reach = _merged([(lo - duration + 1, hi) for lo, hi in regions])
        starts = [lo for lo, _ in reach]
        for t in (now, *candidates):
            i = bisect_right(starts, t) - 1
            if t < before.start and i >= 0 and t < reach[i][1]:
                times.add(t)
                if len(times) > _RETRIES:
                    return None
    tries = sorted(times)
    if verify:
        tries.append(before.start)
    return None if len(tries) > _RETRIES else tries


def _beside(placement: MemoryPlacement, start: int, end: int, ranks: frozenset[int]) -> bool:
    """Whether spans on ``ranks`` over ``[start, end)`` leave an A-base ``placement`` as the
    allocator chose it: they miss its window or its nodes."""
    if start >= placement.end or end <= placement.start:
        return True
    return ranks.isdisjoint(placement.nodes)


def _adds_dis(
    placement: MemoryPlacement,
    start: int,
    end: int,
    ranks: Ranks,
    floor: int,
    duration: int,
    now: int,
    regions: list[tuple[int, int]],
) -> int:
    """Whether spans on ``ranks`` over ``[start, end)``, added, leave an A-dis search (greedy
    lenders) from ``now`` that found ``placement`` finding it at its start (:data:`_KEEPS`),
    maybe (:data:`_VERIFY`: place it there again to know) or not (:data:`_CHANGES`); the spans
    are added to ``regions`` where windows they meet before it must be tried again.

    * Windows before ``placement.start`` fail as before if the spans miss them, or if they
      keep at most ``floor`` MiB free on any node (``floor``: the request's MiB if above the
      smallest capacity; else its local pass decides, which fails more with more spans). A
      compute node ``n`` of a failed window that they take is replaced by the next free node
      ``n'`` (capacity at most ``n``'s), which leaves the lenders with its whole memory and
      adds ``min(M, c_n) - min(M, c_n')`` to the deficits, while ``n`` lends at most its free
      ``c_n - held``: the lenders' surplus changes by at most ``c_n - held - min(M, c_n)``,
      not above 0 when ``held >= c_n - M``. Otherwise the windows are tried again.
    * The window at ``placement.start`` finds the same nodes if the spans miss it, or miss its
      nodes and come after its last lender in rank order (the lenders' cover is unchanged);
      before it, the cover may differ.
    """
    if end <= now or start >= placement.end:
        return _KEEPS
    if ranks.slack > floor and start < placement.start - 1 + duration:
        regions.append((start, end))
    if end <= placement.start:
        return _KEEPS
    if not ranks.set.isdisjoint(placement.nodes):
        return _CHANGES
    if placement.lent and ranks.low <= max(lender for lender, _, _ in placement.lent):
        return _VERIFY
    return _KEEPS


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``[lo, hi)`` spans merged where they meet, ascending.

    >>> _merged([(5, 9), (0, 2), (8, 12), (2, 3)])
    [(0, 3), (5, 12)]
    """
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out
