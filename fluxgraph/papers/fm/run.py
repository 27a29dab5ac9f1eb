"""One FM simulation: a machine, a scope, a priority, a slowdown model, on the shared simulator.

The options of the specification's amendment of 2026-11-28 are keywords, the paper's code the
default: ``rules`` (``code``: the public simulator's pass, :mod:`.compat`; ``easy``: the former
§4.3), ``warmup_switch`` (``arrival``, ``started``, ``none``: :mod:`.passes`), ``system_alloc``
(``local_first``, ``balance``: :mod:`.placement`) and ``admit_on`` (``admission=common``: only
the jobs A6 admits on that machine run, the others count as rejected).

>>> from fluxgraph.papers.fm.machine import FmMachineSpec
>>> from fluxgraph.papers.fm.workload import map_trace, synthetic_trace
>>> jobs = map_trace(synthetic_trace(40, seed=3))
>>> run = run_fm(jobs, FmMachineSpec(2, 32, pool_tb=2), priority="fm", warmup=10)
>>> len(run.result.jobs), run.t_switch == jobs[10].submit, sorted(run.warmup) == list(range(10))
(40, True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fluxgraph.errors import SimulationError
from fluxgraph.papers.fm.allocator import FmAllocator
from fluxgraph.papers.fm.compat import CompatTicks
from fluxgraph.papers.fm.machine import FmMachineSpec, build_fm_machine
from fluxgraph.papers.fm.passes import FmPass
from fluxgraph.papers.fm.priority import QueueOrder
from fluxgraph.papers.fm.slowdown import FmRuntime, SlowdownModel
from fluxgraph.papers.fm.workload import fm_jobs
from fluxgraph.sched.priority import get_priority
from fluxgraph.sched.records import SimulationResult
from fluxgraph.sched.simulator import Simulator
from fluxgraph.workload import Job

__all__ = ["RULES", "FmRun", "admitted", "run_fm"]

#: Scheduling rules (spec amendment of 2026-11-28): the public simulator's, or the former §4.3.
RULES = ("code", "easy")


@dataclass
class FmRun:
    """A finished run: the simulator's records, each started job's ``(d', f_cross, chunks)``, the
    warm-up switch time (``None`` for a reference run), the configuration, the warm-up jobs'
    ids and the jobs left out before the run (``admission=common``; they count as rejected)."""

    result: SimulationResult
    stretched: dict[int, tuple]
    t_switch: int | None
    machine: FmMachineSpec
    scope: str
    priority: str
    model: str
    allocator: FmAllocator
    warmup: frozenset[int] = frozenset()
    excluded: tuple[Job, ...] = ()


def admitted(jobs: Sequence[Job], machine: FmMachineSpec, scope: str = "rack") -> list[Job]:
    """The jobs A6 (spec §4.6) admits on ``machine`` (``admission=common`` runs these at every
    pool: those of the sweep's smallest pool).

    >>> from fluxgraph.papers.fm.machine import perlmutter_like
    >>> from fluxgraph.workload import Job
    >>> wide = Job(0, 0, 10, 10, procs=512, memory=400)   # 336 GB remote on each node
    >>> [len(admitted([wide], perlmutter_like(p))) for p in (4, 48)]
    [0, 1]
    """
    allocator = FmAllocator(build_fm_machine(machine), scope)
    return [j for j in jobs if not allocator.check(j)]


def run_fm(
    jobs: Sequence[Job],
    machine: FmMachineSpec,
    scope: str = "rack",
    priority: str = "fm",
    model: str = "paper",
    warmup: int | Iterable[int] = 3000,
    reference: bool = False,
    rules: str = "code",
    latency_scope: str = "job",
    warmup_switch: str = "arrival",
    system_alloc: str = "local_first",
    admit_on: FmMachineSpec | None = None,
) -> FmRun:
    """Simulate ``jobs`` (from :func:`~fluxgraph.papers.fm.workload.map_trace`) once.

    ``warmup``: the warm-up jobs' ids, or ``n`` for ids ``0..n-1`` (the trace's first ``n``
    jobs, spec §3.2 step 7); they are never evaluated. ``reference`` runs strict FCFS without
    backfilling for the whole trace (spec §6.4); the baseline machine (``local_gb = 512``, no
    pool) takes ``scope = "nodes"``; ``latency_scope`` is spec §9 D8's latency class
    (:class:`~fluxgraph.papers.fm.slowdown.SlowdownModel`). ``admit_on``: run only the jobs A6
    admits on that machine (rack scope), the others are ``excluded``. Under ``rules="easy"`` the
    simulator keeps the queue by arrival (a cheap static sort) and the pass orders it by
    ``priority`` itself (:class:`.priority.QueueOrder`).
    """
    if rules not in RULES:
        raise SimulationError(f"unknown rules {rules!r} (valid: {', '.join(RULES)})")
    ids = frozenset(range(warmup) if isinstance(warmup, int) else warmup)
    excluded: tuple[Job, ...] = ()
    if admit_on is not None:
        kept = admitted(jobs, admit_on)
        ids_kept = {j.id for j in kept}
        excluded = tuple(j for j in jobs if j.id not in ids_kept)
        jobs = kept
    slowdown = SlowdownModel(model, latency_scope)
    allocator = FmAllocator(build_fm_machine(machine), scope, slowdown, system_alloc)
    sized = fm_jobs(jobs, machine.local_gb, slowdown, scope)
    runtime = FmRuntime(allocator.durations)
    ticks = None
    if rules == "code" and not reference:
        ticks = CompatTicks(sized, allocator, priority, machine.local_gb)
    order = None if reference or ticks else QueueOrder(priority, machine.local_gb, len(sized))
    scheduler = FmPass(
        sized, allocator, ids, warmup_switch, reference=reference, compat=ticks, order=order
    )
    sim = Simulator(
        None,
        sized,
        queue="fcfs" if reference else "easy",
        priority=get_priority("fcfs"),
        runtime=runtime,
        scheduler=scheduler,
        allocator=allocator,
    )
    result = sim.run()
    return FmRun(
        result,
        runtime.done,
        scheduler.t_switch,
        machine,
        scope,
        "reference" if reference else priority,
        model,
        allocator,
        ids,
        excluded,
    )
