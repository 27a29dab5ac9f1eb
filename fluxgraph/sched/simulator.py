"""The discrete-event simulator: a job trace replayed on a machine graph through the matcher.

Semantics (``docs/simulator.md`` works an example):

* integer seconds; at each distinct event time all finishes come first (their allocations are
  cancelled), then all submissions, then one scheduling pass;
* the queue is ordered by the priority key, ties by submit time, then job id;
* a pass first cancels the previous pass's reservations, then walks the queue as its
  :class:`~fluxgraph.sched.queueing.QueuePolicy` says: a job that can start now (``allocate``
  at ``now`` for its walltime) starts; else, while the pass may still reserve, it is reserved
  (``allocate_orelse_reserve``); else it is skipped (``fcfs`` stops instead);
* a running job holds its resources over ``[start, start + walltime)`` and is cancelled when
  its runtime model says it ends (at its walltime at the latest, unless ``kill_at_walltime`` is
  off); the model's re-timings are applied after the finishes (so the pass sees them) and after
  the pass, and an allocator with a ``retime`` hook is told of every start and re-timing;
* a job the machine can never run (``satisfiability`` fails) is rejected at submission.

Two shortcuts skip matcher calls whose outcome is already known; both give identical schedules
(the oracle tests compare them with a brute-force scheduler):

* within one pass the planners only fill up, so once a request of some family fails to start
  for walltime ``w``, any request of that family at least as large, for at least ``w``, fails too;
* a pass after a pass that started nothing, with no finish in between, meets exactly the
  planner state the previous pass met: the previous pass's outcomes stand for the longest prefix
  of the queue that is unchanged, and the walk resumes after it. Every reservation in that
  prefix lies after the new ``now`` (running spans end only after their finish events), so
  re-making it would give the same time; and the same resources where the allocator's
  ``stands`` says so (a policy that learns its candidate order, ``first``, may have re-keyed
  it since: the prefix then ends before the first reservation it would move).

A third (``incremental``, on by default) keeps the last pass's first reservation
instead of cancelling and re-making it, when the pass walks its job first and may still reserve:

* the start cannot move: every booking older than the reservation is still held or held nothing
  from ``now`` on (jobs that ended at their walltime), so the machine from ``now`` on is the one
  it was reserved on plus later bookings; the reserve search tries ``now`` and then the planners'
  span edges in time order, and an earlier fit would have been found then (at an edge of the old
  state at or before it). A match at ``now`` is as strict as one later only while no running job
  outlives its booking, hence only with ``kill_at_walltime`` and no ``retime`` hook;
* the resources cannot move: the allocator's ``keep`` re-runs the selection at the reserved
  window without the reservation (the learned ``first`` order may have changed) and re-keys that
  order as the booking would; only the matcher fast path's reservations are vouched for.

``tests/sched/test_incremental.py`` compares schedules with ``incremental=False``.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import filterfalse

from fluxgraph.errors import SimulationError
from fluxgraph.graph import ResourceGraph
from fluxgraph.planner import GRAPH_END
from fluxgraph.sched.allocator import Allocation, Allocator, MatcherAllocator
from fluxgraph.sched.dominance import FailedStarts
from fluxgraph.sched.passes import SchedulingPass
from fluxgraph.sched.priority import STATIC, Priority, fcfs, get_priority
from fluxgraph.sched.queueing import QueuePolicy, make_queue_policy
from fluxgraph.sched.records import JobRecord, SimulationResult
from fluxgraph.sched.runtime import RunningJob, RuntimeModel, TraceRuntime
from fluxgraph.sched.shapes import JobShape
from fluxgraph.sched.view import View
from fluxgraph.workload import Job, Workload

__all__ = ["Simulator", "simulate"]

_START, _RESERVE, _SKIP, _STOP = range(4)

#: Wake-ups in a row that may leave an idle machine idle once nothing is left to submit; then
#: the queued jobs are rejected (a scheduler waiting for nothing would never end the run).
IDLE_WAKEUPS = 10_000


@dataclass
class _Pass:
    """What one scheduling pass did, in walk order (for the resume shortcut)."""

    order: list[int] = field(default_factory=list)
    outcome: list[int] = field(default_factory=list)
    reservation: list[int] = field(default_factory=list)


class Simulator:
    """Replay ``jobs`` on ``graph`` (see the module docstring).

    Parameters
    ----------
    graph : the machine (its scheduling state is owned by this simulator); ``None`` with an
        ``allocator``.
    jobs : the workload (any iterable of :class:`~fluxgraph.workload.Job`).
    queue : a :class:`QueuePolicy` or its name (``fcfs``, ``easy``, ``hybrid``,
        ``conservative``).
    priority : a priority name or ``f(job, now) -> key`` (smaller runs first).
    shape : a :class:`JobShape` or its name (``node``, ``core``, ``node-core``).
    policy, prune : the matcher's match policy and pruning filters.
    allocator : an :class:`~fluxgraph.sched.allocator.Allocator` booking jobs instead of the
        default :class:`~fluxgraph.sched.allocator.MatcherAllocator` (``graph``, ``shape``,
        ``policy`` and ``prune`` are then unused).
    runtime : the runtime model (default: the trace runtime).
    scheduler : a :class:`~fluxgraph.sched.passes.SchedulingPass` replacing the built-in
        backfilling walk (``queue`` then only names the run in outputs).
    progress : called as ``progress(finished, total, now)`` after each event time.
    kill_at_walltime : end a job at its walltime if the runtime model runs it longer (Slurm's
        limit); off, the model's end stands (a model that treats the walltime as an estimate).
    incremental : keep a pass's first reservation where re-making it provably gives the same
        start and resources (see the module docstring); off re-makes it at every pass.

    Examples
    --------
    >>> from fluxgraph.machines import build_machine
    >>> from fluxgraph.workload import Job
    >>> jobs = [Job(1, 0, 100, 100, procs=2), Job(2, 0, 50, 50, procs=2), Job(3, 10, 30, 40)]
    >>> r = Simulator(build_machine("nodes=3"), jobs, queue="easy").run()
    >>> [(j.job.id, j.start, j.end, j.nodes) for j in r.jobs]
    [(1, 0, 100, (1, 2)), (2, 100, 150, (1, 2)), (3, 10, 40, (0,))]
    """

    def __init__(
        self,
        graph: ResourceGraph | None,
        jobs: Iterable[Job],
        queue: QueuePolicy | str = "easy",
        priority: Priority | str = "fcfs",
        shape: JobShape | str = "node",
        policy: str = "first",
        prune: str = "ALL:node,ALL:core",
        runtime: RuntimeModel | None = None,
        progress: Callable[[int, int, int], None] | None = None,
        scheduler: SchedulingPass | None = None,
        allocator: Allocator | None = None,
        kill_at_walltime: bool = True,
        incremental: bool = True,
    ) -> None:
        self.queue = make_queue_policy(queue) if isinstance(queue, str) else queue
        self.priority = get_priority(priority)
        if allocator is None:
            if graph is None:
                raise SimulationError("a simulation needs a machine graph or an allocator")
            nodes = graph.by_type.get("node", [])
            if not nodes:
                raise SimulationError("the machine has no node vertices")
            if isinstance(shape, str):
                cores_per_node = max(1, len(graph.by_type.get("core", [])) // len(nodes))
                shape = JobShape(shape, cores_per_node)
            allocator = MatcherAllocator(graph, shape, policy, prune)
        self.allocator = allocator
        self._retime_hook = getattr(allocator, "retime", None)
        # (a job outliving its booking would make a match now stricter than one later)
        keep = getattr(allocator, "keep", None)
        exact = incremental and kill_at_walltime and self._retime_hook is None
        self._keep = keep if exact else None
        self._stands = getattr(allocator, "stands", None)
        self.kill_at_walltime = kill_at_walltime
        self.runtime = runtime if runtime is not None else TraceRuntime()
        self.progress = progress
        self.scheduler = scheduler
        self.workload = jobs if isinstance(jobs, Workload) else Workload.of(jobs)
        order = [(job.submit, job.id) for job in self.workload.jobs]
        self._in_fcfs_order = self.priority is fcfs and order == sorted(order)
        self.total_nodes = allocator.total_nodes
        self.total_cores = allocator.total_cores

    # -- the event loop --------------------------------------------------------------------

    def run(self) -> SimulationResult:
        """Run the whole workload; returns the per-job records and run-level series."""
        jobs = self.workload.jobs
        records = [JobRecord(job) for job in jobs]
        self._records = records
        self._running: dict[int, RunningJob] = {}
        self._ends: list[tuple[int, int]] = []  # (end, key) heap; stale entries skipped
        self._queued: list[int] = []
        self._sort_keys: dict[int, tuple] = {}
        self._rejected = 0
        self._last = _Pass()
        self._dirty = True
        self._next_id = 1  # booking ids, one per allocate or reservation attempt
        self._booking: dict[int, int] = {}
        stats = self.stats = {
            "passes": 0,
            "resumed_passes": 0,
            "allocate": 0,
            "reserve": 0,
            "skipped": 0,
            "cancel": 0,
            "kept": 0,
        }
        self._watch = 0  # the last pass's first reservation (the one a pass may keep)
        self._horizon = -1  # latest end of a booking older than it, released since it was made
        self._idle_pass = False
        self._idle_wakeups = 0
        #: a custom pass's reservations (booking id -> job key, start), dropped at its next pass
        self._held: dict[int, tuple[int, int]] = {}
        self._started_now: list[int] = []  # for the allocator's retime hook
        queue_length: list[tuple[int, int]] = []
        n, i, finished = len(jobs), 0, 0
        wake: int | None = None
        while i < n or self._ends or wake is not None:
            now = self._next_time(jobs[i].submit if i < n else None, wake)
            if now is None:  # only stale end entries were left
                break
            ended = self._finish_due(now)
            finished += ended
            if ended:
                self._apply_retimes(now)
            submitted = i
            while i < n and jobs[i].submit == now:
                self._submit(i, now)
                i += 1
            if self._queued:
                if self.scheduler is None:
                    self._schedule(now)
                else:
                    self._schedule_custom(now, ended, i - submitted, now == wake)
            self._apply_retimes(now)
            wake = self._wakeup(now, i < n) if self._queued else None
            if self._queued and i >= n and not self._running and wake is None:
                self._reject_stranded()
            queue_length.append((now, len(self._queued)))
            if self.progress is not None:
                self.progress(finished + self._rejected, n, now)
        return SimulationResult(
            records,
            queue_length,
            self.total_nodes,
            self.total_cores,
            self.queue.name,
            info={"matcher_calls": stats},
        )

    def _next_time(self, submit: int | None, wake: int | None) -> int | None:
        ends = self._ends
        running = self._running
        while ends and (ends[0][1] not in running or running[ends[0][1]].end != ends[0][0]):
            heapq.heappop(ends)  # lazy deletion of re-timed or finished entries
        times = [t for t in (submit, wake) if t is not None]
        if ends:
            times.append(ends[0][0])
        return min(times, default=None)

    def _wakeup(self, now: int, pending: bool) -> int | None:
        """The custom pass's next wake-up (``None`` after :data:`IDLE_WAKEUPS` passes in a row
        that left an idle machine idle with nothing left to submit: the run would not end)."""
        if self.scheduler is None:
            return None
        wake = self.scheduler.next_wakeup(now)
        if wake is not None and wake <= now:
            raise SimulationError(f"the scheduler asked to wake up at {wake}, not after {now}")
        idle = self._idle_pass and not self._running and not pending
        self._idle_wakeups = self._idle_wakeups + 1 if idle else 0
        return None if self._idle_wakeups > IDLE_WAKEUPS else wake

    def _reject_stranded(self) -> None:
        for key in self._queued:
            self._records[key].reject(
                "left queued on an idle machine with nothing left to submit or end "
                "(the scheduling pass started nothing)"
            )
            self._rejected += 1
        self._queued = []
        self._sort_keys.clear()

    def _finish_due(self, now: int) -> int:
        ends, running, done = self._ends, self._running, set()
        while ends and ends[0][0] <= now:
            end, key = heapq.heappop(ends)
            run = running.get(key)
            if run is not None and run.end == end:
                done.add(key)  # once: a job re-timed away and back has two entries
        for key in sorted(done):
            run = running.pop(key)
            mid = self._booking.pop(key)
            self.allocator.release(mid)
            if mid < self._watch:
                self._horizon = max(self._horizon, run.start + run.job.walltime)
            self.stats["cancel"] += 1
            self.runtime.finish(run, now)
            self._records[key].end = now
            self._records[key].killed = run.killed
        if done:
            self._dirty = True
        return len(done)

    def _submit(self, key: int, now: int) -> None:
        job = self._records[key].job
        reason = self._check_satisfiable(job)
        if reason:
            self._records[key].reject(reason)
            self._rejected += 1
            return
        self._queued.append(key)
        if self.priority in STATIC:
            self._sort_keys[key] = (self.priority(job, now), job.submit, job.id)

    def _check_satisfiable(self, job: Job) -> str:
        """``""`` if the machine can ever run ``job``, else the reason (cached per request)."""
        if job.walltime < 1 or job.runtime < 1 or job.procs < 1 or job.submit < 0:
            return (
                f"invalid job: walltime, runtime and procs must be >= 1 and submit >= 0 "
                f"(walltime={job.walltime}, runtime={job.runtime}, procs={job.procs}, "
                f"submit={job.submit})"
            )
        if job.walltime > GRAPH_END - job.submit:
            return f"walltime {job.walltime} s runs past the planners' horizon ({GRAPH_END} s)"
        return self.allocator.check(job)

    def _apply_retimes(self, now: int) -> None:
        running = self._running
        moved = list(self.runtime.retime(now))
        for key, end in moved:
            run = running[key]
            limit = run.start + run.job.walltime
            run.killed = self.kill_at_walltime and end > limit
            end = max(end, now) if not run.killed else limit
            if end != run.end:
                run.end = end
                heapq.heappush(self._ends, (end, key))
        hook = self._retime_hook
        if hook is not None and (moved or self._started_now):
            self._drop_reservations()
            told = dict.fromkeys(self._started_now)
            told.update(dict.fromkeys(key for key, _ in moved))
            for key in told:
                hook(self._booking[key], running[key])
        self._started_now = []

    def _drop_reservations(self) -> None:
        """Cancel the reservations still held (the next pass would), before the allocator's
        ``retime`` hook moves running bookings into the time they hold."""
        for rid in (*self._held, *self._last.reservation):
            if rid:
                self.allocator.release(rid)
                self.stats["cancel"] += 1
        self._held = {}
        self._last = _Pass()
        self._dirty = True
        self._watch = 0

    # -- one scheduling pass ---------------------------------------------------------------

    def _sort_queue(self, now: int) -> list[int]:
        """The queue in priority order, ties by submit time then job id (sorted in place)."""
        if self._in_fcfs_order:  # keys are queued in (submit, id) order and stay so
            return self._queued
        keys = self._sort_keys
        if self.priority in STATIC:
            self._queued.sort(key=keys.__getitem__)
        else:
            records, prio = self._records, self.priority

            def order(k: int) -> tuple:
                job = records[k].job
                return (prio(job, now), job.submit, job.id)

            self._queued.sort(key=order)
        return self._queued

    def _schedule(self, now: int) -> None:
        order = self._sort_queue(now)
        last = self._last
        policy = self.queue
        allocator = self.allocator
        stats = self.stats
        stats["passes"] += 1
        resume = 0
        if not self._dirty:
            limit = min(len(order), len(last.order))
            while resume < limit and order[resume] == last.order[resume]:
                resume += 1
            resume = self._standing(last, resume, now)
            stats["resumed_passes"] += resume > 0
        walk = _Pass(last.order[:resume], last.outcome[:resume], last.reservation[:resume])
        failed = FailedStarts(allocator.family)
        reserved = 0
        for key, outcome in zip(walk.order, walk.outcome, strict=True):
            failed.add(self._records[key].job)  # (the last pass started nothing)
            reserved += outcome == _RESERVE
        stopped = bool(walk.outcome) and walk.outcome[-1] == _STOP
        depth = policy.queue_depth if policy.queue_depth is not None else len(order)
        held = 0
        if not stopped and resume < min(depth, len(order)) and policy.may_reserve(reserved):
            held = self._keepable(order[resume], last, resume, now)
        for rid in last.reservation[resume:]:
            if rid and rid != held:
                allocator.release(rid)
                stats["cancel"] += 1
        index = resume
        if held:
            if self._keep(held, now):  # type: ignore[misc]
                key = order[resume]
                failed.add(self._records[key].job)
                self._records[key].reservations += 1
                stats["kept"] += 1
                reserved += 1
                index += 1
                walk.order.append(key)
                walk.outcome.append(_RESERVE)
                walk.reservation.append(held)
            else:
                allocator.release(held)
                stats["cancel"] += 1
        started: list[int] = []
        while not stopped and index < len(order) and index < depth:
            key = order[index]
            index += 1
            outcome, rid = self._try(key, now, failed, policy.may_reserve(reserved))
            if outcome == _START:
                started.append(key)
            elif outcome == _RESERVE:
                reserved += 1
            elif outcome == _STOP:
                stopped = True
            walk.order.append(key)
            walk.outcome.append(outcome)
            walk.reservation.append(rid)
        if started:
            gone = set(started)
            self._queued = [k for k in self._queued if k not in gone]
            for k in started:
                self._sort_keys.pop(k, None)
        self._last = walk
        self._dirty = bool(started)
        try:
            first = walk.reservation[walk.outcome.index(_RESERVE)]
        except ValueError:
            first = 0
        if first != self._watch:
            self._watch, self._horizon = first, -1

    def _standing(self, last: _Pass, resume: int, now: int) -> int:
        """How much of the last pass's first ``resume`` outcomes stand: up to the first
        reservation the allocator's ``stands`` does not vouch for (re-making it, with the later
        ones cancelled, meets the state it was made on, but a learned match order may since
        have moved; see the module docstring). Without ``stands``, all of them."""
        stands = self._stands
        if stands is None:
            return resume
        later = {rid for rid in last.reservation if rid}
        for k in range(resume):
            rid = last.reservation[k]
            if rid:
                later.discard(rid)
                if not stands(rid, now, later):
                    return k
        return resume

    def _keepable(self, key: int, last: _Pass, resume: int, now: int) -> int:
        """The last pass's first reservation when it is queued job ``key``'s, the first job
        this pass walks, and no booking older than it has released time from ``now`` on since
        it was made; else 0. Its job's earliest start then cannot have moved (see the module
        docstring), and the allocator's ``keep`` decides whether the resources stand."""
        if self._keep is None or not self._watch or self._horizon > now:
            return 0
        try:
            k = last.reservation.index(self._watch, resume)
        except ValueError:
            return 0
        return self._watch if last.order[k] == key else 0

    def _schedule_custom(self, now: int, finished: int, submitted: int, woken: bool) -> None:
        """One pass of the custom scheduler, after dropping its previous reservations (the
        first may stand for reserving its job again, see :class:`~fluxgraph.sched.view.View`)."""
        held, self._held = self._held, {}
        stale = self._watch if self._keep is not None and self._horizon <= now else 0
        if stale not in held:
            stale = 0
        for rid in held:
            if rid != stale:
                self.allocator.release(rid)
                self.stats["cancel"] += 1
        self.stats["passes"] += 1
        view = View(self, now, finished, submitted, woken, (stale, *held[stale]) if stale else None)
        self.scheduler.schedule(view, now)  # type: ignore[union-attr]
        view.claim(None)  # (a previous reservation no booking claimed is dropped)
        first = next(iter(self._held), 0)
        if first != self._watch:
            self._watch, self._horizon = first, -1
        started = view.started
        self._idle_pass = not started
        if started:
            self._queued = list(filterfalse(started.__contains__, self._queued))
            for k in started:
                self._sort_keys.pop(k, None)

    def _book(self, key: int, now: int, reserve: bool) -> tuple[Allocation | None, int]:
        """Book queued job ``key`` now (or, with ``reserve``, at its earliest start)."""
        mid = self._next_id
        self._next_id += 1
        return self.allocator.allocate(self._records[key].job, mid, now, reserve), mid

    def _try(self, key: int, now: int, failed: FailedStarts, may_reserve: bool) -> tuple[int, int]:
        """Start, reserve or skip queued job ``key``; returns ``(outcome, reservation id)``.

        Where the pass may still reserve, one booking both tries to start the job now and,
        failing that, reserves it (one matcher call instead of two).
        """
        record = self._records[key]
        job = record.job
        if may_reserve and not self.queue.stop_at_blocked:
            self.stats["reserve"] += 1
            alloc, mid = self._book(key, now, True)
            if alloc is not None and alloc.at == now:
                self._start(key, now, alloc, mid)
                return _START, 0
            failed.add(job)
            if alloc is None:
                return _SKIP, 0
            record.reservations += 1
            return _RESERVE, mid
        if failed.rule_out(job):
            self.stats["skipped"] += 1  # a no easier request of its family failed this pass
        else:
            self.stats["allocate"] += 1
            alloc, mid = self._book(key, now, False)
            if alloc is not None:
                self._start(key, now, alloc, mid)
                return _START, 0
            failed.add(job)
        return (_STOP if self.queue.stop_at_blocked else _SKIP), 0

    def _start(self, key: int, now: int, alloc: Allocation, mid: int) -> None:
        record = self._records[key]
        self._booking[key] = mid
        job = record.job
        nodes = tuple(sorted(alloc.nodes))
        run = RunningJob(key, job, now, nodes, alloc.cores, held=alloc.held)
        end = self.runtime.start(run, now)
        run.killed = self.kill_at_walltime and end > now + job.walltime
        run.end = now + job.walltime if run.killed else max(end, now + 1)
        self._running[key] = run
        heapq.heappush(self._ends, (run.end, key))
        record.start = now
        record.nodes = nodes
        record.cores = alloc.cores
        if self._retime_hook is not None:
            self._started_now.append(key)


def simulate(
    graph: ResourceGraph,
    jobs: Iterable[Job],
    queue: QueuePolicy | str = "easy",
    priority: Priority | str = "fcfs",
    **options,
) -> SimulationResult:
    """Run :class:`Simulator` once (same parameters) and return its result."""
    return Simulator(graph, jobs, queue=queue, priority=priority, **options).run()
