"""One FM simulation: a machine, a scope, a priority, a slowdown model, on the shared simulator.

>>> from fluxgraph.papers.fm.machine import FmMachineSpec
>>> from fluxgraph.papers.fm.workload import map_trace, synthetic_trace
>>> jobs = map_trace(synthetic_trace(40, seed=3))
>>> run = run_fm(jobs, FmMachineSpec(2, 32, pool_tb=2), priority="fm", warmup=10)
>>> len(run.result.jobs), run.t_switch is not None
(40, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fluxgraph.errors import SimulationError
from fluxgraph.papers.fm.allocator import FmAllocator
from fluxgraph.papers.fm.compat import COMPAT_MODES, CompatTicks
from fluxgraph.papers.fm.machine import FmMachineSpec, build_fm_machine
from fluxgraph.papers.fm.passes import FmPass
from fluxgraph.papers.fm.priority import QueueOrder
from fluxgraph.papers.fm.slowdown import FmRuntime, SlowdownModel
from fluxgraph.papers.fm.workload import fm_jobs
from fluxgraph.sched.priority import get_priority
from fluxgraph.sched.records import SimulationResult
from fluxgraph.sched.simulator import Simulator
from fluxgraph.workload import Job

__all__ = ["FmRun", "run_fm"]


@dataclass
class FmRun:
    """A finished run: the simulator's records, each started job's ``(d', f_cross, chunks)``, the
    warm-up switch time (``None`` for a reference run) and the configuration."""

    result: SimulationResult
    stretched: dict[int, tuple]
    t_switch: int | None
    machine: FmMachineSpec
    scope: str
    priority: str
    model: str
    allocator: FmAllocator


def run_fm(
    jobs: Sequence[Job],
    machine: FmMachineSpec,
    scope: str = "rack",
    priority: str = "fm",
    model: str = "paper",
    warmup: int = 3000,
    reference: bool = False,
    compat: str = "",
    latency_scope: str = "job",
) -> FmRun:
    """Simulate ``jobs`` (from :func:`~fluxgraph.papers.fm.workload.map_trace`) once.

    ``reference`` runs strict FCFS without backfilling for the whole trace (spec §6.4); the
    baseline machine (``local_gb = 512``, no pool) takes ``scope = "nodes"``; ``compat =
    "fm-simulator"`` follows the public simulator's rules instead of §4.3
    (:mod:`fluxgraph.papers.fm.compat`); ``latency_scope`` is spec §9 D8's choice of the latency
    class (``job``: by each job's cross-rack share; ``experiment``: by the pool scope,
    :class:`~fluxgraph.papers.fm.slowdown.SlowdownModel`). The simulator keeps the queue by
    arrival (a cheap static sort); the pass orders it by ``priority`` itself
    (:class:`.priority.QueueOrder`).
    """
    if compat not in COMPAT_MODES:
        raise SimulationError(f"unknown compat mode {compat!r} (valid: fm-simulator)")
    slowdown = SlowdownModel(model, latency_scope)
    allocator = FmAllocator(build_fm_machine(machine), scope, slowdown)
    sized = fm_jobs(jobs, machine.local_gb, slowdown, scope)
    runtime = FmRuntime(allocator.durations)
    ticks = None
    if compat and not reference:
        ticks = CompatTicks(sized, allocator, priority, machine.local_gb)
    order = None if reference or ticks else QueueOrder(priority, machine.local_gb, len(sized))
    scheduler = FmPass(sized, allocator, warmup, reference=reference, compat=ticks, order=order)
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
    )
