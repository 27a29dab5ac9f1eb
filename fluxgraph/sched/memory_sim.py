"""The disaggregated-memory scheduler: Slurm FIFO + backfill over A-base or A-dis, with slowdown.

Disaggregated-memory spec §4.1-§4.2 (Zacarias et al. §IV, §V-C). Jobs carry ``walltime`` (the
requested time), ``runtime`` (contention-free seconds), ``nodes`` and, in ``extra``,
``mem_mib`` (per node) and ``app_id``. At each event time, ordered (time, ends before submits,
job id):

1. ends release their allocations; the contention model re-times the ended jobs' interferers,
   whose spans are stretched or shrunk to their new planned ends;
2. submits are checked against the empty machine (§4.6: a job that can never run is rejected)
   and queued;
3. one scheduling pass: the **main pass** starts jobs in priority order (submit time, then id)
   until one does not fit; the **backfill pass** then walks the first ``backfill_depth`` queued
   jobs and computes each one's earliest start (§4.5) over the candidate times ``now``, the
   planned ends of running jobs and the ends of reservations made earlier in the pass: a job
   whose earliest start is ``now`` starts, the others hold a reservation until the pass ends
   (conservative backfilling, D12);
4. the jobs started are handed to the contention model, which re-times them and their new
   interferers (§5.1).

Every allocation is a :class:`~fluxgraph.sched.memory_alloc.MemoryAllocator` booking on the
machine graph. The simulator of :mod:`fluxgraph.sched.simulator` books one jobspec per job
through one matcher; an A-dis job holds compute nodes and memory lent through ``memnet`` as
separate bookings, its lenders are withheld from compute, and its spans move with its speed,
so this loop drives the allocator itself. Time is integer seconds (ends rounded up).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from fluxgraph.errors import SimulationError
from fluxgraph.memory_machines import MemoryMachineSpec, build_memory_machine
from fluxgraph.sched.memory_alloc import MemoryAllocator, MemoryRequest, Placement
from fluxgraph.sched.memory_contention import MemoryContention
from fluxgraph.sched.runtime import RunningJob
from fluxgraph.workload import Job

__all__ = ["DisaggRecord", "DisaggResult", "DisaggSimulator", "request_of"]


def request_of(job: Job) -> MemoryRequest:
    """The allocator's request of ``job`` (``nodes`` and ``extra["mem_mib"]``)."""
    extra = job.extra or {}
    if "mem_mib" not in extra or job.nodes < 1:
        raise SimulationError(f"job {job.id}: needs nodes >= 1 and extra['mem_mib']")
    return MemoryRequest(job.nodes, int(extra["mem_mib"]))


@dataclass(slots=True)
class DisaggRecord:
    """What happened to one job (``start``/``end`` -1 when it never ran): its compute nodes,
    the MiB each held locally, the ``(lender, borrower, MiB)`` pieces of remote memory, ``r``."""

    job: Job
    start: int = -1
    end: int = -1
    nodes: tuple[int, ...] = ()
    local: tuple[int, ...] = ()
    lent: tuple[tuple[int, int, int], ...] = ()
    remote: float = 0.0
    rejected: str = ""

    @property
    def lenders(self) -> tuple[int, ...]:
        """The ranks that lent memory to the job, ascending."""
        return tuple(sorted({lender for lender, _, _ in self.lent}))

    @property
    def completed(self) -> bool:
        return self.end >= 0


@dataclass
class DisaggResult:
    """A run's per-job records and the machine it ran on."""

    records: list[DisaggRecord]
    spec: MemoryMachineSpec
    allocator: str
    stats: dict[str, int] = field(default_factory=dict)


class DisaggSimulator:
    """Replay ``jobs`` on a memory machine under A-base (``base``) or A-dis (``dis``).

    Parameters
    ----------
    spec : the machine (normal and large nodes).
    jobs : jobs with ``nodes``, ``walltime`` (requested), ``runtime`` and ``extra`` holding
        ``mem_mib`` and ``app_id``.
    allocator : ``base`` or ``dis``.
    backfill_depth : queued jobs the backfill pass considers (Slurm's ``bf_queue_limit``).
    contention : apply the slowdown model (off: every job runs at speed 1).
    lender_mode, self_interference : spec D2 and D3 switches.
    progress : called as ``progress(done, total, now)`` after each event time.

    Examples
    --------
    >>> from fluxgraph.workload import Job
    >>> big = {"mem_mib": 49152, "app_id": 19}
    >>> jobs = [Job(1, 0, 100, 100, nodes=2, extra=big), Job(2, 0, 50, 50, nodes=1, extra=big)]
    >>> r = DisaggSimulator(MemoryMachineSpec(4, 1), jobs, "dis").run()
    >>> [(x.job.id, x.start, x.end, x.nodes, x.lenders) for x in r.records]   # both borrow
    [(1, 0, 119, (0, 3), (1,)), (2, 0, 65, (2,), (1,))]
    """

    def __init__(
        self,
        spec: MemoryMachineSpec,
        jobs: Iterable[Job],
        allocator: str = "dis",
        backfill_depth: int = 100,
        contention: bool = True,
        lender_mode: str = "greedy",
        self_interference: bool = False,
        progress: Callable[[int, int, int], None] | None = None,
    ) -> None:
        self.spec = spec
        self.jobs = sorted(jobs, key=lambda j: (j.submit, j.id))
        self.alloc = MemoryAllocator(build_memory_machine(spec), allocator, lender_mode)
        self.kind = allocator
        self.backfill_depth = backfill_depth
        self.model = MemoryContention(self.alloc.memory_owner, self_interference=self_interference)
        self.contention = contention
        self.progress = progress

    def run(self) -> DisaggResult:
        """Run the whole workload."""
        jobs = self.jobs
        records = [DisaggRecord(j) for j in jobs]
        self._records = records
        self._queue: list[int] = []
        self._running: dict[int, Placement] = {}
        self._runs: dict[int, RunningJob] = {}
        self._ends: dict[int, int] = {}  # key -> actual end
        self._previous: dict[int, int] = {}  # the last pass's reservations: key -> start
        self._dirty = True  # something ended, started or moved since the last pass
        self.stats = {"passes": 0, "allocate_calls": 0, "resizes": 0, "rejected": 0}
        n, i, done = len(jobs), 0, 0
        while i < n or self._ends:
            now = min(self._ends.values(), default=jobs[i].submit if i < n else 0)
            if i < n:
                now = min(now, jobs[i].submit)
            done += self._finish(now)
            while i < n and jobs[i].submit == now:
                self._submit(i)
                i += 1
            if self._queue:
                started = self._schedule(now)
                self._begin(started, now)
            if self.progress is not None:
                self.progress(done + self.stats["rejected"], n, now)
        return DisaggResult(records, self.spec, self.kind, dict(self.stats))

    # -- events ----------------------------------------------------------------------------

    def _finish(self, now: int) -> int:
        ending = sorted(k for k, end in self._ends.items() if end == now)
        for key in ending:
            del self._ends[key]
            self.alloc.release(self._running.pop(key))
            self.model.finish(self._runs.pop(key), now)
            self._records[key].end = now
        if ending:
            self._dirty = True
            self._retime(now)
        return len(ending)

    def _submit(self, key: int) -> None:
        record = self._records[key]
        job = record.job
        if job.runtime < 1 or job.walltime < job.runtime:
            reason = f"invalid job: runtime {job.runtime}, requested {job.walltime}"
        else:
            reason = self.alloc.never_fits(request_of(job))
        if reason:
            record.rejected = reason
            self.stats["rejected"] += 1
        else:
            self._queue.append(key)

    def _begin(self, started: list[int], now: int) -> None:
        """Hand the jobs started by the pass to the contention model (§4.1 step 4)."""
        for key in started:
            placement = self._running[key]
            record = self._records[key]
            run = RunningJob(
                key, record.job, now, placement.nodes, 0, held=self.alloc.held(placement)
            )
            self._runs[key] = run
            if self.contention:
                end = self._ends[key] = self.model.start(run, now)
                record.remote = self.model.remote_fraction(key)
                planned = max(self.model.planned_end(key), end)
                if planned != placement.end:  # slowed from the start: hold until planned
                    self._running[key] = self.alloc.resize(placement, planned)
                    self.stats["resizes"] += 1
            else:
                self._ends[key] = now + record.job.runtime
                record.remote = placement.remote_fraction
        if started:
            self._retime(now)

    def _retime(self, now: int) -> None:
        """New ends from the model; spans follow the planned ends (§4.2 step 4)."""
        if not self.contention:
            return
        model, alloc, running = self.model, self.alloc, self._running
        for key, end in model.retime(now):
            self._dirty = True
            self._ends[key] = end
            placement = running[key]
            planned = max(model.planned_end(key), end)
            if planned != placement.end:
                running[key] = alloc.resize(placement, planned)
                self.stats["resizes"] += 1

    # -- one scheduling pass -----------------------------------------------------------------

    def _schedule(self, now: int) -> list[int]:
        """One pass: the main pass, then the backfill pass (module docstring, step 3).

        Two shortcuts leave the schedule unchanged (the oracle tests compare with a plain
        scheduler). Within a pass the planners only fill up, so a request that failed at time
        ``t`` makes every request at least as large (nodes, memory and duration) fail at ``t``
        (A-dis's passes are monotone in all three; kept to the default lender rule). A pass
        after one that started nothing, with no end and no re-timing in between, meets the
        same state: the previous pass's reservations are booked again at their times, and
        only the jobs queued since are searched.
        """
        self.stats["passes"] += 1
        alloc, records = self.alloc, self._records
        started: list[int] = []
        queue = self._queue
        failed: dict[int, list[tuple[int, int, int]]] = {}
        greedy = self.alloc.lender_mode == "greedy"

        def attempt(req: MemoryRequest, t: int, duration: int) -> Placement | None:
            known = failed.get(t, ())
            if greedy and any(
                n <= req.nodes and m <= req.mib and d <= duration for n, m, d in known
            ):
                return None
            if not alloc.could_fit(req, t, duration):
                placement = None
            else:
                self.stats["allocate_calls"] += 1
                placement = alloc.allocate(req, at=t, duration=duration, now=now)
            if placement is None:
                failed.setdefault(t, []).append((req.nodes, req.mib, duration))
            return placement

        previous = self._previous if not self._dirty else {}
        if not previous:
            # main pass: FIFO until the first job that does not fit (unchanged state: the
            # head failed last time and fails again)
            for key in list(queue):
                job = records[key].job
                placement = attempt(request_of(job), now, job.walltime)
                if placement is None:
                    break
                self._start(key, placement, now, started)
        # backfill pass: earliest starts in priority order, reservations held for the pass
        reservations: list[Placement] = []
        booked: dict[int, int] = {}
        running_ends = sorted({p.end for p in self._running.values()})
        for key in list(queue[: self.backfill_depth]):
            job = records[key].job
            req = request_of(job)
            placement = None
            if key in previous:
                placement = alloc.allocate(req, at=previous[key], duration=job.walltime, now=now)
            if placement is None:
                candidates = sorted({now, *running_ends, *(p.end for p in reservations)})
                for t in candidates:
                    placement = attempt(req, t, job.walltime)
                    if placement is not None:
                        break
                else:
                    continue
            if placement.start == now:
                self._start(key, placement, now, started)
                running_ends = sorted({*running_ends, placement.end})
            else:
                reservations.append(placement)
                booked[key] = placement.start
        for placement in reservations:
            alloc.release(placement)
        self._previous = booked
        self._dirty = bool(started)
        return started

    def _start(self, key: int, placement: Placement, now: int, started: list[int]) -> None:
        self._queue.remove(key)
        self._running[key] = placement
        record = self._records[key]
        record.start = now
        record.nodes = placement.nodes
        record.local = placement.local
        record.lent = placement.lent
        started.append(key)
