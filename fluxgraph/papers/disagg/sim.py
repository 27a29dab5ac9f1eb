"""The disaggregated-memory scheduler: Slurm FIFO + backfill over A-base or A-dis, with slowdown.

Disaggregated-memory spec §4.1-§4.2 (Zacarias et al. §IV, §V-C). Jobs carry ``walltime`` (the
requested time), ``runtime`` (contention-free seconds), ``nodes`` and, in ``extra``,
``mem_mib`` (per node) and ``app_id``. :class:`DisaggSimulator` runs them on the shared
:class:`~fluxgraph.sched.simulator.Simulator` with

* the allocator :class:`~fluxgraph.papers.disagg.booking.MemoryBookings` (A-base or A-dis
  placements; earliest starts over the candidate times of §4.5; spans moved to a slowed job's
  planned end through the simulator's ``retime`` hook);
* the pass :class:`~fluxgraph.papers.disagg.booking.DisaggBackfill` (Slurm's, as
  :class:`~fluxgraph.sched.passes.SlurmBackfill`): the **main pass** starts jobs in priority
  order (submit time, then id) until one does not fit; the **backfill pass** walks the first
  ``backfill_depth`` queued jobs, each started at its earliest start if that is now, else
  reserved until the next pass (conservative backfilling, D12), which keeps the reservations
  when only submits came between;
* the runtime model :class:`~fluxgraph.papers.disagg.contention.MemoryContention` (§5), whose
  re-timings the simulator applies after the ends (before the pass) and after the starts, and
  ``kill_at_walltime=False`` (the spec never kills a job at its requested time, §5.1).

At each event time: ends release their allocations and re-time their interferers; submits are
checked against the empty machine (§4.6: a job that can never run is rejected) and queued; one
scheduling pass runs; the jobs it started are handed to the contention model. Time is integer
seconds (ends rounded up).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from fluxgraph.errors import SimulationError
from fluxgraph.papers.disagg.alloc import MemoryAllocator, check_options
from fluxgraph.papers.disagg.arrays import ArrayAllocator
from fluxgraph.papers.disagg.booking import DisaggBackfill, MemoryBookings, request_of
from fluxgraph.papers.disagg.contention import INTERFERENCE, MemoryContention
from fluxgraph.papers.disagg.machines import MemoryMachineSpec, build_memory_machine
from fluxgraph.sched.runtime import TraceRuntime
from fluxgraph.sched.simulator import Simulator
from fluxgraph.workload import Job

__all__ = ["ENGINES", "DisaggRecord", "DisaggResult", "DisaggSimulator", "request_of"]

#: How placements are computed: on a span table (default) or by the graph matcher.
ENGINES = ("arrays", "graph")


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
    lending : who lends (D17): ``shared`` (default, the paper's text: any node with free
        memory, greedily) or ``dedicated`` (the authors' code: idle nodes, one deficit each).
    interference : ``model`` (default: the §5.2 interference sets) or ``none`` (``I(j)``
        empty: a job's speed is ``(1 - r) + rho r``; ablation).
    lender_compute : ``never`` (default, D1) or ``if-memory-fits`` (the local pass may use a
        lender whose free memory covers the request; shared lending only; ablation).
    self_interference : spec D3 switch.
    progress : called as ``progress(done, total, now)`` after each event time.
    engine : ``arrays`` (default: :class:`~fluxgraph.papers.disagg.arrays.ArrayAllocator`, the
        placements computed on a span table) or ``graph`` (the ``memory-pool`` policy on the
        graph matcher, the reference); both give the same schedule.

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
        lending: str = "shared",
        interference: str = "model",
        lender_compute: str = "never",
        self_interference: bool = False,
        progress: Callable[[int, int, int], None] | None = None,
        engine: str = "arrays",
    ) -> None:
        if engine not in ENGINES:
            raise SimulationError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
        check_options(allocator, lending, lender_compute)
        if interference not in INTERFERENCE:
            raise SimulationError(
                f"interference {interference!r} is not one of {', '.join(INTERFERENCE)}"
            )
        self.spec = spec
        self.jobs = sorted(jobs, key=lambda j: (j.submit, j.id))
        self.kind = allocator
        self.lending = lending
        self.interference = interference
        self.lender_compute = lender_compute
        self.backfill_depth = backfill_depth
        self.contention = contention
        self.self_interference = self_interference
        self.progress = progress
        self.engine = engine

    def run(self) -> DisaggResult:
        """Run the whole workload on a fresh machine."""
        options = (self.kind, self.lending, self.lender_compute)
        if self.engine == "graph":
            alloc = MemoryAllocator(build_memory_machine(self.spec), *options)
        else:
            alloc = ArrayAllocator(self.spec.capacities(), self.spec.cores, *options)
        model = MemoryContention(
            alloc.memory_owner,
            self_interference=self.self_interference,
            interference=self.interference,
        )
        bookings = MemoryBookings(alloc, model.planned_end if self.contention else None)
        backfill = DisaggBackfill(self.backfill_depth, bookings)
        sim = Simulator(
            None,
            self.jobs,
            queue="conservative",
            runtime=model if self.contention else TraceRuntime(),
            progress=self.progress,
            scheduler=backfill,
            allocator=bookings,
            kill_at_walltime=False,
        )
        result = sim.run()
        records = []
        for key, rec in enumerate(result.jobs):
            out = DisaggRecord(rec.job, rec.start, rec.end, rec.nodes, rejected=rec.reason)
            placement = bookings.placements.get(key)
            if placement is not None:
                out.local, out.lent = placement.local, placement.lent
                out.remote = placement.remote_fraction
            records.append(out)
        stats = {
            "passes": sim.stats["passes"],
            **backfill.stats,
            **bookings.stats,
            "rejected": sum(r.rejected != "" for r in records),
        }
        return DisaggResult(records, self.spec, self.kind, stats)
