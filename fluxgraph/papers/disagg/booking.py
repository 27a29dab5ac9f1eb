"""A-base and A-dis behind the simulator's :class:`~fluxgraph.sched.allocator.Allocator`.

Disaggregated-memory spec §4.2-§4.6 (Zacarias et al. §IV-C, §IV-D). :class:`MemoryBookings`
books a job as a :class:`~fluxgraph.papers.disagg.alloc.MemoryAllocator` placement (compute nodes
and memory lent through ``memnet``, several matcher bookings), so the disaggregated-memory
scheduler runs on the shared :class:`~fluxgraph.sched.simulator.Simulator`:

* ``allocate(..., reserve=False)`` places the job now; ``reserve=True`` computes its earliest
  start (§4.5) over the candidate times ``now`` and the ends of every booking held (running
  jobs' planned ends, reservations made earlier in the pass) and books it there;
* ``retime`` (the simulator's optional hook) moves a running job's spans to its planned end
  ``max(planned_end(key), end)`` (§4.2 step 4), so a job slowed past its requested time keeps
  its resources;
* ``check`` is §4.6 (and rejects a requested time below the runtime).

Four shortcuts leave every placement unchanged (the oracle tests compare with a plain scheduler,
and a test checks every reservation found again against the earliest start):

* under A-base, while bookings are only added (no release, no re-timing) the planners only
  fill up, so a request that failed at time ``t`` makes every request at least as large
  (nodes, memory and duration) fail at ``t``. A-dis is not monotone in added bookings (one on a
  free large node can turn it from a compute node into a lender and let a request fit:
  ``test_a_dis_can_fit_after_a_span_is_added``), so it never takes this shortcut;
* a reservation is remembered with the state it was made in (running bookings and the
  reservations held before it); met again in that state, the job is booked at the same time
  without a search. The state is the same only if nothing started, ended or moved, so every
  running booking still ends after the new ``now`` and no earlier candidate can fit;
* a reservation of the previous pass is carried over (:meth:`MemoryBookings._carry`): the
  bookings its search met differ from those held now by the running bookings' changes since
  (a log) and the reservations this pass made unlike the previous pass's, and the previous
  reservations before it are all dealt with in this pass;
* failing that, a job whose last search met the same bookings among those held past the new
  ``now`` (by content: nodes, window, amounts) is booked at that search's start ``T`` (if
  ``T >= now``) unless it fits at ``now`` itself: every other candidate before ``T`` is the end
  of one of those bookings, tried by that search against the same spans, and failed.

In the last two, the bookings may differ in ways
:func:`~fluxgraph.papers.disagg.changes.retries` shows the search cannot tell apart (a running
booking's end moved past ``T``; bookings added that A-base's one pass or, under A-dis, the
lemma of :func:`~fluxgraph.papers.disagg.changes._adds_dis` leave failing; spans removed where no
window meets them), or tells apart only at a few candidates, which are tried again.

A job found again at the time it was reserved before is booked with that very placement: a
reservation the pass cancels is parked (``park``) and shown again (``unpark``) in that case.
Both engines answer the same protocol (``earliest``, ``place``, ``could_fit``, ``park``,
``unpark``, ``rebook``, ``starts_within``, ``resize``, ``held``): the span table
(:class:`~fluxgraph.papers.disagg.arrays.ArrayAllocator`) hides a parked placement, the graph
(:class:`~fluxgraph.papers.disagg.alloc.MemoryAllocator`) cancels it and books the same pieces
again, pinned.

>>> from fluxgraph.papers.disagg.machines import build_memory_machine
>>> from fluxgraph.workload import Job
>>> bookings = MemoryBookings(MemoryAllocator(build_memory_machine(2, 0), "dis"))
>>> job = Job(1, 0, 50, 100, nodes=1, extra={"mem_mib": 40000})
>>> bookings.allocate(job, 1, now=0, reserve=False).nodes   # 7232 MiB lent by node 1
(0,)
>>> bookings.allocate(Job(2, 0, 10, 10, nodes=1, extra={"mem_mib": 1}), 2, 0, True).at
100
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from fluxgraph.errors import SimulationError
from fluxgraph.papers.disagg.alloc import MemoryAllocator, MemoryPlacement, MemoryRequest
from fluxgraph.papers.disagg.arrays import ArrayAllocator
from fluxgraph.papers.disagg.changes import Contents, retries
from fluxgraph.sched.allocator import Allocation
from fluxgraph.sched.passes import SchedulingView
from fluxgraph.sched.runtime import RunningJob
from fluxgraph.workload import Job

__all__ = ["DisaggBackfill", "MemoryBookings", "request_of"]

_NEVER = 1 << 62  # after every time


@dataclass(slots=True)
class _Entry:
    """A reservation of a pass, as the next pass may carry it (:meth:`MemoryBookings._carry`):
    found at ``index`` among the pass's reservations by a search at ``then`` among the bookings
    held when the running bookings' log was ``logpos`` long."""

    index: int
    placement: MemoryPlacement
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
        self.placements: dict[int, MemoryPlacement] = {}
        self.stats = {"allocate_calls": 0, "resizes": 0}
        self._booked: dict[
            int, MemoryPlacement
        ] = {}  # booking id -> placement (runs, reservations)
        self._reserved: dict[int, int] = {}  # booking id -> job id, reservations in order
        self._failed: dict[int, list[tuple[int, int, int]]] = {}  # t -> (nodes, mib, duration)
        self._memo: dict[
            int, tuple[MemoryPlacement, int]
        ] = {}  # job id -> (reservation, its state)
        # job id -> its reservation released by the pass but parked (hidden on the span table),
        # to be shown again if the job is reserved there again
        self._parked: dict[int, MemoryPlacement] = {}
        self._monotone = alloc.kind == "base"
        self._contents = Contents(alloc.capacity)  # the bookings' contents, numbered
        self._cid: dict[int, int] = {}  # booking id -> the number of its content
        # job id -> (placement, the search's now, content numbers of the bookings it met)
        self._later: dict[int, tuple[MemoryPlacement, int, frozenset[int]]] = {}
        self._held: set[int] = set()  # content numbers of the bookings held
        self._first_end: int | None = None  # the earliest end among them (None: not known)
        # the state a reservation is made in, as a number (see :meth:`_state`)
        self._states: dict[tuple, int] = {}  # () or (parent state, job id) -> number
        self._next_state = 0  # numbers below this were given out before the last bump
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
        # the pass's own reservations (:meth:`reserve`), (job id, booking id) in order, kept
        # in the table until :meth:`drop`; a job found at ``now`` waits for the simulator's
        # start under its booking id (job id -> booking id)
        self._kept: list[tuple[int, int]] = []
        self._starting: dict[int, int] = {}
        self._next_own = -1  # the pass's booking ids: negative, apart from the simulator's
        self.quiet = False  # nothing started, ended or moved since the last pass ended

    # -- the Allocator protocol ------------------------------------------------------------

    def check(self, job: Job) -> str:
        if job.walltime < job.runtime:
            return f"invalid job: runtime {job.runtime}, requested {job.walltime}"
        return self.alloc.never_fits(request_of(job))

    def allocate(self, job: Job, jobid: int, now: int, reserve: bool) -> Allocation | None:
        own = self._starting.pop(job.id, None)
        if own is not None and not reserve:  # the pass found it at ``now``: that booking
            placement = self._booked[jobid] = self._booked.pop(own)
            self._cid[jobid] = self._cid.pop(own)
            cores = len(placement.nodes) * self.alloc.cores
            return Allocation(now, placement.nodes, cores, self.alloc.held(placement))
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
                placement = self._again(job.id, memo[0], now)
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
        else:
            self._unpark(job_id)
            self.alloc.park(placement)
            self._parked[job_id] = placement

    def family(self, job: Job) -> None:
        return None  # the failure shortcut above is per time, not per walltime

    def retime(self, jobid: int, run: RunningJob) -> None:
        """Record a started job's placement; move its spans to its planned end (§4.2 step 4).
        The pass's reservations are dropped first (a moved span may reach into them)."""
        self.drop()
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

    # -- the pass's own reservations (:class:`DisaggBackfill`) --------------------------------

    def reserve(self, job: Job, now: int) -> Allocation | None:
        """Book ``job`` at its earliest start, as the simulator's ``reserve`` would; a
        reservation stays booked until :meth:`drop` (or a pass :meth:`keep` s it), a job
        found at ``now`` waits for the simulator's start (:meth:`allocate`) to take it."""
        own = self._next_own
        self._next_own -= 1
        booked = self.allocate(job, own, now, True)
        if booked is not None and booked.at == now:
            self._starting[job.id] = own
        elif booked is not None:
            self._kept.append((job.id, own))
        return booked

    def drop(self) -> None:
        """Cancel the pass's reservations, in the order they were made."""
        kept, self._kept = self._kept, []
        for _, own in kept:
            self.release(own)

    def kept(self) -> list[tuple[int, int]]:
        """``(job id, start)`` of the reservations held, in order."""
        return [(job_id, self._booked[own].start) for job_id, own in self._kept]

    def keep(self, now: int) -> None:
        """A pass at ``now`` keeps every reservation held: the bookkeeping of a pass that met
        each one again in the state it was made in (:meth:`allocate`'s first shortcut), with
        nothing booked, released or searched."""
        self._next_pass(now)
        for job_id, own in self._kept:
            placement, cid = self._booked[own], self._cid[own]
            known = self._prev.get(job_id)
            then = known.then if known is not None and known.placement is placement else -1
            entry = _Entry(len(self._plan), placement, cid, then, len(self._log))
            self._settle(job_id, entry)
            if then >= 0:
                self._plan[job_id] = entry

    # -- placement searches ------------------------------------------------------------------

    def _hold(self, jobid: int, p: MemoryPlacement) -> int:
        """Number booking ``jobid``'s content, count it among the bookings held; the number."""
        cid = self._contents.number(p)
        self._cid[jobid] = cid
        self._held.add(cid)
        if self._first_end is not None:
            self._first_end = min(self._first_end, p.end)
        return cid

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
    ) -> MemoryPlacement | Literal[False] | None:
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

    def _recall(
        self, job_id: int, req: MemoryRequest, duration: int, now: int
    ) -> MemoryPlacement | None:
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
        before: MemoryPlacement,
        then: int,
        new: set[int],
        extra: set[int],
        req: MemoryRequest,
        duration: int,
        now: int,
    ) -> MemoryPlacement | None:
        """``before`` (found by a search at ``then``) booked again, or the job booked now, if
        the bookings held now differ from those the search met by ``new`` (added) and
        ``extra`` (removed) in a way it cannot tell (see the module docstring); else None."""
        contents = self._contents
        gone = {cid for cid in extra if contents[cid][1] > now}
        checks = (
            retries(self.alloc, contents, new, gone, before, req, duration, now, self._ends)
            if new or gone
            else ()
        )
        if checks is None:
            return None
        # A-base, and A-dis for a request within every node (its local pass decides), are
        # monotone: failing at the search's last candidate before now, it fails now
        tried = (
            now == then
            or self._monotone
            or req.mib <= self._contents.smallest
            or any(contents[cid][1] == now for cid in extra)
        )
        if not tried:  # the search did not try now (not its now, nor the end of a booking)
            placement = self.alloc.allocate(req, at=now, duration=duration, now=now)
            if placement is not None:
                return placement
        for t in checks:
            if t == before.start:  # (the last: is it placed as before?)
                placed = self.alloc.place(req, t, duration, now)
                if placed != (before.nodes, before.local, before.lent):
                    return None
            elif self.alloc.could_fit(req, t, duration):
                return None
        # the spans meeting its window are those the search met
        return self._again(job_id, before, now)

    def _ends(self, now: int, last: int) -> set[int]:
        """The ends of the bookings held in ``(now, last]``."""
        return {p.end for p in self._booked.values() if now < p.end <= last}

    def _again(self, job_id: int, before: MemoryPlacement, now: int) -> MemoryPlacement | None:
        """``before`` booked again (the caller knows the allocator would place the job's
        request there: the spans meeting its window are the same); shown again if it is the
        job's parked reservation."""
        if self._parked.get(job_id) is before:
            del self._parked[job_id]
            # (the recall proved the window unchanged)
            return self.alloc.unpark(before, check=False, now=now)
        return self.alloc.rebook(before, check=False, now=now)

    def _unpark(self, job_id: int) -> None:
        """Release the job's parked reservation, if any (it will not be shown again)."""
        parked = self._parked.pop(job_id, None)
        if parked is not None:
            self.alloc.release(parked)

    def _state(self) -> int:
        """The number of the state a reservation is made in: the reservations held, in order,
        since a job last started, ended or moved (:meth:`_bump` numbers states afresh)."""
        if self._state_id is None:
            state = self._intern(())
            for job_id in self._reserved.values():
                state = self._intern((state, job_id))
            self._state_id = state
        return self._state_id

    def _intern(self, key: tuple) -> int:
        return self._states.setdefault(key, self._next_state + len(self._states))

    def _bump(self) -> None:
        """A job started, ended or moved: states are numbered afresh (earlier ones never recur)."""
        self.quiet = False
        self._next_state += len(self._states)
        self._states.clear()
        self._state_id = None

    def _earliest(self, req: MemoryRequest, duration: int, now: int) -> MemoryPlacement | None:
        """Book ``req`` at its earliest candidate start (§4.5), or None if none fits."""
        times = sorted({now, *(p.end for p in self._booked.values() if p.end > now)})
        self.stats["allocate_calls"] += 1
        return self.alloc.earliest(req, duration, times)

    def _attempt(
        self, req: MemoryRequest, t: int, duration: int, now: int
    ) -> MemoryPlacement | None:
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


class DisaggBackfill:
    """Slurm's two passes (:class:`~fluxgraph.sched.passes.SlurmBackfill`: the main pass starts
    jobs in priority order until one cannot start, the backfill pass starts or reserves each of
    the first ``depth`` jobs still queued at its earliest start), with the reservations held by
    ``bookings`` (:meth:`MemoryBookings.reserve`) instead of the simulator, so a pass can keep
    them.

    A pass after a pass that started nothing, with nothing ended or moved since
    (:attr:`MemoryBookings.quiet`), and only jobs submitted (queued after the others) keeps
    every reservation and reserves only the new jobs inside the depth: the main pass would fail
    again (the running spans all hold from before the last pass to after ``now``, so every
    window at ``now`` meets the same spans at the same peaks as one at the last pass's time),
    and each reservation would be met again in the state it was made in, which
    :meth:`MemoryBookings.allocate` books again unchanged.

    >>> from fluxgraph.papers.disagg.arrays import ArrayAllocator
    >>> from fluxgraph.sched.simulator import Simulator
    >>> big = {"mem_mib": 1024}
    >>> jobs = [Job(1, 0, 100, 100, nodes=2, extra=big), Job(2, 5, 50, 50, nodes=2, extra=big)]
    >>> bookings = MemoryBookings(ArrayAllocator([32768] * 2, 32, "base"))
    >>> pass_ = DisaggBackfill(100, bookings)
    >>> r = Simulator(None, jobs, scheduler=pass_, allocator=bookings).run()
    >>> [(j.job.id, j.start, j.end) for j in r.jobs]
    [(1, 0, 100), (2, 100, 150)]
    """

    def __init__(self, depth: int, bookings: MemoryBookings) -> None:
        self.depth = depth
        self.bookings = bookings
        self.stats = {"kept_passes": 0}

    def schedule(self, view: SchedulingView, now: int) -> None:
        bookings = self.bookings
        queue = view.queue()
        if bookings.quiet and not view.finished and self._keeps(view, queue, now):
            self.stats["kept_passes"] += 1
            bookings.keep(now)
            for key in queue[len(bookings.kept()) : self.depth]:
                self._reserve(view, key, now)
        else:
            bookings.drop()
            for key in queue:
                if not view.start(key):
                    break
            for key in view.queue()[: self.depth]:
                self._reserve(view, key, now)
        bookings.quiet = True

    def next_wakeup(self, now: int) -> int | None:
        return None

    def _keeps(self, view: SchedulingView, queue: list[int], now: int) -> bool:
        """Whether the reservations held are those of the first queued jobs, in order, all
        after ``now``."""
        kept = self.bookings.kept()
        if not kept or len(kept) > min(len(queue), self.depth):
            return False
        ids = [view.job(key).id for key in queue[: len(kept)]]
        return ids == [job_id for job_id, _ in kept] and min(t for _, t in kept) > now

    def _reserve(self, view: SchedulingView, key: int, now: int) -> None:
        booked = self.bookings.reserve(view.job(key), now)
        if booked is not None and booked.at == now:
            view.start(key)
