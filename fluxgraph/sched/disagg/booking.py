"""A-base and A-dis behind the simulator's :class:`~fluxgraph.sched.allocator.Allocator`.

Disaggregated-memory spec §4.2-§4.6 (Zacarias et al. §IV-C, §IV-D). :class:`MemoryBookings`
books a job as a :class:`~fluxgraph.sched.disagg.alloc.MemoryAllocator` placement (compute nodes
and memory lent through ``memnet``, several matcher bookings), so the disaggregated-memory
scheduler runs on the shared :class:`~fluxgraph.sched.simulator.Simulator`:

* ``allocate(..., reserve=False)`` places the job now; ``reserve=True`` computes its earliest
  start (§4.5) over the candidate times ``now`` and the ends of every booking held (running
  jobs' planned ends, reservations made earlier in the pass) and books it there;
* ``retime`` (the simulator's optional hook) moves a running job's spans to its planned end
  ``max(planned_end(key), end)`` (§4.2 step 4), so a job slowed past its requested time keeps
  its resources;
* ``check`` is §4.6 (and rejects a requested time below the runtime).

Three shortcuts leave every placement unchanged (the oracle tests compare with a plain scheduler):

* under A-base, while bookings are only added (no release, no re-timing) the planners only
  fill up, so a request that failed at time ``t`` makes every request at least as large
  (nodes, memory and duration) fail at ``t``. A-dis is not monotone in added bookings (one on a
  free large node can turn it from a compute node into a lender and let a request fit:
  ``test_a_dis_can_fit_after_a_span_is_added``), so it never takes this shortcut;
* a reservation is remembered with the state it was made in (running bookings and the
  reservations held before it); met again in that state, the job is booked at the same time
  without a search. The state is the same only if nothing started, ended or moved, so every
  running booking still ends after the new ``now`` and no earlier candidate can fit;
* failing that, a job whose last search met the same bookings among those held past the new
  ``now`` (by content: nodes, window, amounts) is booked at that search's start ``T`` (if
  ``T >= now``) unless it fits at ``now`` itself: every other candidate before ``T`` is the end
  of one of those bookings, tried by that search against the same spans, and failed. Running
  bookings whose end moved since count as the same where no window the search tried can tell
  the two ends apart (both after ``T``, and no span on their nodes starts between them before
  ``T + duration``: a window's peak is at its start or at a span's start); under A-base, so do
  bookings only added since that miss the window ``[T, T + duration)`` or its nodes.

A job found again at the time it was reserved before is booked with that very placement; on
the span table (:class:`~fluxgraph.sched.disagg.arrays.ArrayAllocator`) a reservation the
simulator cancels is only hidden (``park``) and shown again (``unpark``) in that case.

>>> from fluxgraph.memory_machines import build_memory_machine
>>> from fluxgraph.workload import Job
>>> bookings = MemoryBookings(MemoryAllocator(build_memory_machine(2, 0), "dis"))
>>> job = Job(1, 0, 50, 100, nodes=1, extra={"mem_mib": 40000})
>>> bookings.allocate(job, 1, now=0, reserve=False).nodes   # 7232 MiB lent by node 1
(0,)
>>> bookings.allocate(Job(2, 0, 10, 10, nodes=1, extra={"mem_mib": 1}), 2, 0, True).at
100
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from fluxgraph.errors import SimulationError
from fluxgraph.sched.allocator import Allocation
from fluxgraph.sched.disagg.alloc import MemoryAllocator, MemoryRequest, Placement
from fluxgraph.sched.disagg.arrays import ArrayAllocator
from fluxgraph.sched.runtime import RunningJob
from fluxgraph.workload import Job

__all__ = ["MemoryBookings", "request_of"]

_NEVER = 1 << 62  # after every time
_RETRIES = 3  # candidates a search found again may try; more: search anew
_CHANGES, _KEEPS, _VERIFY = range(3)  # what spans added do to a search (:func:`_adds_dis`)


@dataclass(frozen=True, slots=True)
class _Ranks:
    """The nodes a booking holds (compute nodes, then lenders): ``all`` in that order, as a
    ``set``, the ``low``-est rank, and the ``slack``: the most memory one of them keeps free
    (capacity less the booking's share or loan there)."""

    all: tuple[int, ...]
    set: frozenset[int]
    low: int
    slack: int


@dataclass(slots=True)
class _Entry:
    """A reservation of a pass, as the next pass may carry it (:meth:`MemoryBookings._carry`):
    found at ``index`` among the pass's reservations by a search at ``then`` among the bookings
    held when the running bookings' log was ``logpos`` long."""

    index: int
    placement: Placement
    cid: int
    then: int
    logpos: int


def request_of(job: Job) -> MemoryRequest:
    """The allocator's request of ``job`` (``nodes`` and ``extra["mem_mib"]``).

    >>> request_of(Job(1, 0, 5, 5, nodes=2, extra={"mem_mib": 1024}))
    MemoryRequest(nodes=2, mib=1024)
    """
    extra = job.extra or {}
    if "mem_mib" not in extra or job.nodes < 1:
        raise SimulationError(f"job {job.id}: needs nodes >= 1 and extra['mem_mib']")
    return MemoryRequest(job.nodes, int(extra["mem_mib"]))


class MemoryBookings:
    """:class:`MemoryAllocator` placements as simulator bookings (see the module docstring).

    Parameters
    ----------
    alloc : the A-base or A-dis allocator (owns the machine graph's scheduling state).
    planned_end : ``planned_end(key)`` of a running job (the simulator's key), the end its
        spans must reach; ``None``: spans stay ``[start, start + requested)``.

    Attributes
    ----------
    placements : the placement of every job started, by the simulator's key.
    stats : ``allocate_calls`` (matcher placements tried) and ``resizes`` (spans moved).
    """

    def __init__(
        self,
        alloc: MemoryAllocator | ArrayAllocator,
        planned_end: Callable[[int], int] | None = None,
    ) -> None:
        self.alloc = alloc
        self.planned_end = planned_end
        self.total_nodes = len(alloc.capacity)
        self.total_cores = self.total_nodes * alloc.cores
        self.placements: dict[int, Placement] = {}
        self.stats = {"allocate_calls": 0, "resizes": 0}
        self._booked: dict[int, Placement] = {}  # booking id -> placement (runs, reservations)
        self._reserved: dict[int, int] = {}  # booking id -> job id, reservations in order
        self._version = 0  # bumped when a job starts, ends or moves
        self._failed: dict[int, list[tuple[int, int, int]]] = {}  # t -> (nodes, mib, duration)
        self._memo: dict[int, tuple[Placement, int]] = {}  # job id -> (reservation, its state)
        # job id -> its reservation released by the simulator but kept (hidden) on the span
        # table, to be shown again if the job is reserved there again
        self._parked: dict[int, Placement] = {}
        self._parks = isinstance(alloc, ArrayAllocator)
        self._monotone = alloc.kind == "base"
        self._smallest = min(alloc.capacity)
        self._rank_cache: dict[int, _Ranks] = {}  # content number -> the nodes it holds
        self._cids: dict[tuple, int] = {}  # a booking's content -> its number
        self._cid: dict[int, int] = {}  # booking id -> the number of its content
        self._contents: list[tuple] = []  # content number -> (start, end, nodes, local, lent)
        # content number -> the number of its content but the end (a moved booking keeps it)
        self._span: list[int] = []
        self._spans: dict[tuple, int] = {}
        # job id -> (placement, the search's now, content numbers of the bookings it met)
        self._later: dict[int, tuple[Placement, int, frozenset[int]]] = {}
        self._held: set[int] = set()  # content numbers of the bookings held
        self._first_end: int | None = None  # the earliest end among them (None: not known)
        # the state a reservation is made in, as a number (see :meth:`_state`)
        self._states: dict[tuple, int] = {}  # (parent state or version, job id) -> number
        self._next_state = 0  # numbers below this were given out before the last version
        self._state_id: int | None = None
        # the running bookings' changes, in order: (content number, +1 added / -1 removed)
        self._log: list[tuple[int, int]] = []
        # this pass's reservations and the previous pass's, by job id (see :meth:`_carry`)
        self._plan: dict[int, _Entry] = {}
        self._prev: dict[int, _Entry] = {}
        self._pass_now: int | None = None
        self._added: list[int] = []  # this pass's reservations unlike the previous pass's
        self._gone: list[tuple[int, int]] = []  # (index, content) of those it did not keep
        self._done: set[int] = set()  # indices of previous reservations dealt with this pass
        self._prefix = 0  # indices below this are all dealt with

    # -- the Allocator protocol ------------------------------------------------------------

    def check(self, job: Job) -> str:
        if job.walltime < job.runtime:
            return f"invalid job: runtime {job.runtime}, requested {job.walltime}"
        return self.alloc.never_fits(request_of(job))

    def allocate(self, job: Job, jobid: int, now: int, reserve: bool) -> Allocation | None:
        req = request_of(job)
        duration = job.walltime
        if now != self._pass_now:
            self._next_pass(now)
        placement = None
        then = now  # a search at ``then`` among the bookings held now finds ``placement``
        if reserve:
            state = self._state()
            memo = self._memo.get(job.id)
            if memo is not None and memo[1] == state and memo[0].start > now:
                placement = self._again(job.id, memo[0], req, duration, now)
                # the same search as the previous pass's (nothing started, ended or moved);
                # -1: not known, the next pass does not carry it
                known = self._prev.get(job.id)
                then = known.then if known is not None and known.placement is memo[0] else -1
            if placement is None:  # (False: carried over, but it may have moved)
                placement = self._carry(job.id, req, duration, now)
            if placement is None:
                placement = self._recall(job.id, req, duration, now)
            if not placement:
                placement = self._earliest(req, duration, now)
                if placement is not None and placement.start > now:  # (not in _booked yet)
                    self._later[job.id] = (placement, now, frozenset(self._held))
            if placement is not None and placement.start > now:
                self._memo[job.id] = (placement, state)
                self._reserved[jobid] = job.id
                self._state_id = self._intern((state, job.id))
        else:
            placement = self._attempt(req, now, duration, now)
        self._unpark(job.id)  # (unless shown again above)
        if placement is None:
            if reserve:
                self._settle(job.id, None)
            return None
        self._booked[jobid] = placement
        cid = self._hold(jobid, placement)
        cores = len(placement.nodes) * self.alloc.cores
        if placement.start == now:
            self._bump()
            self._log.append((cid, 1))
            self._settle(job.id, None)
            held = self.alloc.held(placement)
            return Allocation(placement.start, placement.nodes, cores, held)
        entry = _Entry(len(self._plan), placement, cid, then, len(self._log))
        self._settle(job.id, entry)
        if then >= 0:
            self._plan[job.id] = entry
        return Allocation(placement.start, placement.nodes, cores)

    def release(self, jobid: int) -> None:
        placement = self._booked.pop(jobid)
        cid = self._cid.pop(jobid)
        self._held.discard(cid)
        self._first_end = None
        self._failed.clear()
        job_id = self._reserved.pop(jobid, None)
        self._state_id = None
        if job_id is None:
            self.alloc.release(placement)
            self._log.append((cid, -1))
            self._bump()
        elif self._parks:
            self._unpark(job_id)
            self.alloc.park(placement)
            self._parked[job_id] = placement
        else:
            self.alloc.release(placement)

    def family(self, job: Job) -> None:
        return None  # the failure shortcut above is per time, not per walltime

    def retime(self, jobid: int, run: RunningJob) -> None:
        """Record a started job's placement; move its spans to its planned end (§4.2 step 4)."""
        placement = self._booked[jobid]
        self.placements.setdefault(run.key, placement)
        self._bump()
        if self.planned_end is None:
            return
        end = max(self.planned_end(run.key), run.end)
        if end != placement.end:
            self._booked[jobid] = placement = self.alloc.resize(placement, end)
            old = self._cid[jobid]
            self._held.discard(old)
            self._log += ((old, -1), (self._hold(jobid, placement), 1))
            self._first_end = None
            self.stats["resizes"] += 1
            self._failed.clear()

    # -- placement searches ------------------------------------------------------------------

    def _hold(self, jobid: int, p: Placement) -> int:
        """Number booking ``jobid``'s content, count it among the bookings held; the number."""
        key = (p.start, p.end, p.nodes, p.local, p.lent)
        cid = self._cids.setdefault(key, len(self._cids))
        if cid == len(self._contents):
            self._contents.append(key)
            span = (p.start, p.nodes, p.local, p.lent)
            self._span.append(self._spans.setdefault(span, len(self._spans)))
        self._cid[jobid] = cid
        self._held.add(cid)
        if self._first_end is not None:
            self._first_end = min(self._first_end, p.end)
        return cid

    def _ranks(self, cid: int) -> _Ranks:
        """The nodes booking content ``cid`` holds (computed once)."""
        ranks = self._rank_cache.get(cid)
        if ranks is None:
            _, _, nodes, local, lent = self._contents[cid]
            held = dict(zip(nodes, local, strict=True))
            for lender, _, mib in lent:
                held[lender] = held.get(lender, 0) + mib
            every = (*nodes, *(r for r in held if r not in nodes))
            cap = self.alloc.capacity
            slack = max(cap[r] - mib for r, mib in held.items())
            ranks = _Ranks(every, frozenset(every), min(every), slack)
            self._rank_cache[cid] = ranks
        return ranks

    def _next_pass(self, now: int) -> None:
        """Start a new pass: this pass's reservations become the previous pass's."""
        self._prev, self._plan = self._plan, {}
        self._pass_now = now
        self._added, self._gone = [], []
        self._done = set()
        self._prefix = 0

    def _settle(self, job_id: int, entry: _Entry | None) -> None:
        """Record what the pass did with ``job_id`` (``entry``: reserved; None: started or
        not placed) against its reservation in the previous pass."""
        known = self._prev.get(job_id)
        if known is not None:
            self._done.add(known.index)
            while self._prefix in self._done:
                self._prefix += 1
            if entry is not None and entry.cid == known.cid:
                return
            self._gone.append((known.index, known.cid))
        if entry is not None:
            self._added.append(entry.cid)

    def _carry(
        self, job_id: int, req: MemoryRequest, duration: int, now: int
    ) -> Placement | Literal[False] | None:
        """The job's reservation of the previous pass, shown again (or the job booked now) if
        a search now would find it again; False if it may not; None if it was not carried over.

        That reservation was found (or confirmed) by a search at ``then`` among the bookings
        held then: the running ones and the reservations made before it in that pass. Those
        held now differ from them by the running bookings' changes since (:attr:`_log`), the
        reservations this pass made unlike the previous pass's (:attr:`_added`) and the
        previous pass's reservations before it not kept (:attr:`_gone`); it is found again as
        in :meth:`_recall`. The previous reservations before it must all be dealt with, so
        those made this pass are theirs.
        """
        known = self._prev.get(job_id)
        if (
            known is None
            or known.index != self._prefix
            or known.placement.start < now
            or self._parked.get(job_id) is not known.placement
        ):
            return None
        net: dict[int, int] = {}
        for cid, step in self._log[known.logpos :]:
            net[cid] = net.get(cid, 0) + step
        for cid in self._added:
            net[cid] = net.get(cid, 0) + 1
        for index, cid in self._gone:
            if index < known.index:
                net[cid] = net.get(cid, 0) - 1
        new = {cid for cid, n in net.items() if n > 0}
        extra = {cid for cid, n in net.items() if n < 0}
        placement = self._confirm(
            job_id, known.placement, known.then, new, extra, req, duration, now
        )
        return False if placement is None else placement

    def _recall(self, job_id: int, req: MemoryRequest, duration: int, now: int) -> Placement | None:
        """The job's earliest start from its last search, if that search met the bookings that
        are still held past ``now`` (see the module docstring), booked; else None."""
        memo = self._later.get(job_id)
        if memo is None or memo[0].start < now:
            return None
        before, then, held = memo
        if self._first_end is None:
            self._first_end = min((p.end for p in self._booked.values()), default=_NEVER)
        current = self._held
        if self._first_end <= now:
            current = {self._cid[b] for b, p in self._booked.items() if p.end > now}
        new, extra = current - held, held - current
        return self._confirm(job_id, before, then, new, extra, req, duration, now)

    def _confirm(
        self,
        job_id: int,
        before: Placement,
        then: int,
        new: set[int],
        extra: set[int],
        req: MemoryRequest,
        duration: int,
        now: int,
    ) -> Placement | None:
        """``before`` (found by a search at ``then``) booked again, or the job booked now, if
        the bookings held now differ from those the search met by ``new`` (added) and
        ``extra`` (removed) in a way it cannot tell (see the module docstring); else None."""
        contents = self._contents
        gone = {cid for cid in extra if contents[cid][1] > now}
        checks = self._checks(new, gone, before, req, duration, now) if new or gone else ()
        if checks is None:
            return None
        # A-base is monotone: failing at the search's last candidate before now, it fails now
        tried = now == then or self._monotone or any(contents[cid][1] == now for cid in extra)
        if not tried:  # the search did not try now (not its now, nor the end of a booking)
            placement = self.alloc.allocate(req, at=now, duration=duration, now=now)
            if placement is not None:
                return placement
        for t in checks:
            if t == before.start:  # (the last: is it placed as before?)
                if self.alloc.place(req, t, duration) != (before.nodes, before.local, before.lent):
                    return None
            elif self.alloc.could_fit(req, t, duration):
                return None
        # the spans meeting its window are those the search met
        return self._again(job_id, before, req, duration, now)

    def _checks(
        self,
        new: set[int],
        gone: set[int],
        before: Placement,
        req: MemoryRequest,
        duration: int,
        now: int,
    ) -> list[int] | None:
        """The candidate times a search that found ``before`` must try again to find it again
        (ascending; ``before.start`` last where it must be placed there again to know)
        though the bookings ``gone`` since are held as ``new`` (on the span table only), or None
        if it may find something else (or too many to try). The changes that qualify:

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
        * under A-dis (greedy lenders), spans added (a booking, or a running booking's later
          end) that :func:`_adds_dis` allows;
        * spans removed (a booking, or a running booking's earlier end), where the candidate
          found stays one.

        The candidates whose windows meet spans removed, or spans added where A-dis is not
        monotone, and the ends added before ``before.start`` are tried again; ``before`` is
        placed again at its start where spans removed meet its window or spans added may
        change its lenders.
        """
        alloc = self.alloc
        if not isinstance(alloc, ArrayAllocator):
            return None
        contents = self._contents
        span = self._span
        was = {span[cid]: cid for cid in gone}  # the content numbers of spans gone
        dis = alloc.kind == "dis" and alloc.lender_mode == "greedy"
        # spans keeping more memory free than this on a node may let windows before
        # ``before.start`` fit (:func:`_adds_dis`); requests within every node: never
        floor = req.mib if req.mib > self._smallest else _NEVER
        regions: list[tuple[int, int]] = []  # spans the windows meeting them are tried again
        times: set[int] = set()  # candidates to try again
        verify = False  # whether ``before`` must be placed again at its start
        found = False  # whether an end removed was at ``before.start`` (must still be one)
        for cid in new:
            start, end = contents[cid][:2]
            old = was.pop(span[cid], None)
            if old is None and (end <= now or start >= before.end):
                continue  # (meets no window the search tries, nor adds a candidate to them)
            ranks = self._ranks(cid)
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
            ends = {p.end for p in self._booked.values() if now < p.end <= before.start}
            if found and before.start != now and before.start not in ends:
                return None  # (the candidate it found is gone)
            # the candidates whose windows meet a region: t in [lo - duration + 1, hi)
            reach = _merged([(lo - duration + 1, hi) for lo, hi in regions])
            starts = [lo for lo, _ in reach]
            for t in (now, *ends):
                i = bisect_right(starts, t) - 1
                if t < before.start and i >= 0 and t < reach[i][1]:
                    times.add(t)
                    if len(times) > _RETRIES:
                        return None
        tries = sorted(times)
        if verify:
            tries.append(before.start)
        return None if len(tries) > _RETRIES else tries

    def _again(
        self, job_id: int, before: Placement, req: MemoryRequest, duration: int, now: int
    ) -> Placement | None:
        """``before`` booked again (the caller knows the allocator would place ``req`` there:
        the spans meeting its window are the same); shown again if it is the job's parked
        reservation."""
        if self._parked.get(job_id) is before:
            del self._parked[job_id]
            self.alloc.unpark(before)
            return before
        if isinstance(self.alloc, ArrayAllocator):
            return self.alloc.rebook(before)
        return self.alloc.allocate(req, at=before.start, duration=duration, now=now)

    def _unpark(self, job_id: int) -> None:
        """Release the job's parked reservation, if any (it will not be shown again)."""
        parked = self._parked.pop(job_id, None)
        if parked is not None:
            self.alloc.release(parked)

    def _state(self) -> int:
        """The number of the state a reservation is made in: the version (bumped when a job
        starts, ends or moves) and the reservations held, in order."""
        if self._state_id is None:
            state = self._intern(("version", self._version))
            for job_id in self._reserved.values():
                state = self._intern((state, job_id))
            self._state_id = state
        return self._state_id

    def _intern(self, key: tuple) -> int:
        return self._states.setdefault(key, self._next_state + len(self._states))

    def _bump(self) -> None:
        """A job started, ended or moved: a new version (earlier states never recur)."""
        self._version += 1
        self._next_state += len(self._states)
        self._states.clear()
        self._state_id = None

    def _earliest(self, req: MemoryRequest, duration: int, now: int) -> Placement | None:
        """Book ``req`` at its earliest candidate start (§4.5), or None if none fits."""
        times = sorted({now, *(p.end for p in self._booked.values() if p.end > now)})
        if isinstance(self.alloc, ArrayAllocator):
            self.stats["allocate_calls"] += 1
            return self.alloc.earliest(req, duration, times)
        for t in times:
            placement = self._attempt(req, t, duration, now)
            if placement is not None:
                return placement
        return None

    def _attempt(self, req: MemoryRequest, t: int, duration: int, now: int) -> Placement | None:
        known = self._failed.get(t, ())
        if self._monotone and any(
            n <= req.nodes and m <= req.mib and d <= duration for n, m, d in known
        ):
            return None
        placement = None
        if self.alloc.could_fit(req, t, duration):
            self.stats["allocate_calls"] += 1
            placement = self.alloc.allocate(req, at=t, duration=duration, now=now)
        if placement is None:
            self._failed.setdefault(t, []).append((req.nodes, req.mib, duration))
        return placement


def _beside(placement: Placement, start: int, end: int, ranks: frozenset[int]) -> bool:
    """Whether spans on ``ranks`` over ``[start, end)`` leave an A-base ``placement`` as the
    allocator chose it: they miss its window or its nodes."""
    if start >= placement.end or end <= placement.start:
        return True
    return ranks.isdisjoint(placement.nodes)


def _adds_dis(
    placement: Placement,
    start: int,
    end: int,
    ranks: _Ranks,
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
