"""One run of the I/O study: a workload, a scheduler and the file-system model on the machine.

:func:`run_io` wires the parts of spec §4: the fluid file system as the simulator's runtime
model, a per-type estimator fed at every completion (``x_d`` = runtime, ``x_r`` = bytes /
runtime), optional pre-training (two isolated observations per type, spec §3 rule 4), and the
scheduler wrapped in a 30 s :class:`~fluxgraph.sched.passes.Periodic` trigger (cycles also run
at every completion, spec §4.0).

>>> from fluxgraph.papers.ioaware.workload import w1
>>> out = run_io(w1(waves=1), "S2", r_limit=20.0)
>>> out.makespan > 0, out.rejected
(True, 0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from fluxgraph.errors import SimulationError
from fluxgraph.papers.ioaware.estimator import Estimator
from fluxgraph.papers.ioaware.fluid import FluidFileSystem, io_demand, saturating
from fluxgraph.papers.ioaware.machine import build_pfs_machine
from fluxgraph.papers.ioaware.schedulers import (
    AdaptiveBackfill,
    CycleLog,
    DefaultBackfill,
    IOAwareBackfill,
)
from fluxgraph.papers.ioaware.workload import STREAM_GIB, THREADS
from fluxgraph.sched.passes import Periodic
from fluxgraph.sched.records import SimulationResult
from fluxgraph.sched.runtime import RunningJob
from fluxgraph.sched.simulator import Simulator
from fluxgraph.workload import Workload

__all__ = [
    "CYCLES",
    "SCHEDULERS",
    "IORun",
    "in_ticks",
    "isolated",
    "make_scheduler",
    "pretrain",
    "run_io",
]

#: When cycles run (decision D5): at completions and on the timer, or on the timer only.
CYCLES = ("both", "timer")

#: Scheduler name -> description.
SCHEDULERS: Mapping[str, str] = MappingProxyType(
    {
        "S0": "default Slurm backfill: conservative, nodes only (Alg. 1)",
        "S1": "I/O-aware backfill with R_limit (Alg. 2-4)",
        "S2": "workload-adaptive backfill, two-group approximation (Eq. 1-5, Alg. 5-7)",
        "S2n": "naive workload-adaptive backfill (no two-group step)",
    }
)


def make_scheduler(
    name: str,
    nodes: int,
    estimator: Estimator,
    filesystem: FluidFileSystem,
    r_limit: float,
    admit: str = "half",
    backfill_max: int | None = None,
    timer_only: int = 0,
) -> DefaultBackfill:
    """The pass called ``name`` (see :data:`SCHEDULERS`; the options are
    :class:`~fluxgraph.papers.ioaware.schedulers.DefaultBackfill`'s)."""
    common = (nodes, estimator, filesystem, r_limit, backfill_max, timer_only)
    if name == "S0":
        return DefaultBackfill(*common)
    if name == "S1":
        return IOAwareBackfill(*common)
    if name in ("S2", "S2n"):
        return AdaptiveBackfill(*common, naive=name == "S2n", admit=admit)
    raise SimulationError(f"unknown scheduler {name!r} (valid: {', '.join(SCHEDULERS)})")


def isolated(kind: str, curve=None, sleep_s: float = 60.0) -> tuple[float, float]:
    """``(r, d)`` of a job of type ``kind`` alone on the file system (spec §3 table).

    >>> tuple(round(x, 2) for x in isolated("write8"))
    (3.85, 20.8)
    """
    threads = THREADS[kind]
    if not threads:
        return 0.0, sleep_s
    x = (curve or saturating())(threads)
    d = STREAM_GIB * threads / x
    return x, d


def pretrain(
    estimator: Estimator,
    kinds,
    curve=None,
    sleep_s: float = 60.0,
    times: int = 2,
    ticks_per_s: int = 1,
):
    """Give each type in ``kinds`` ``times`` isolated observations (spec §3 rule 4), runtimes
    in ticks of ``1/ticks_per_s`` s (see :func:`run_io`)."""
    for kind in kinds:
        r, d = isolated(kind, curve, sleep_s)
        for _ in range(times):
            estimator.observe(kind, r, d * ticks_per_s)


def in_ticks(workload: Workload, ticks_per_s: int) -> Workload:
    """``workload`` on a clock of ``ticks_per_s`` ticks a second: every time and every stream's
    volume multiplied by ``ticks_per_s`` (the model's GiB/s then reads as GiB per tick, so
    rates, estimates and pool units stay as they are and times come out in ticks).

    >>> from fluxgraph.papers.ioaware.workload import w1
    >>> j = in_ticks(w1(waves=1), 10)[0]
    >>> j.walltime, j.extra["stream_gib"], in_ticks(w1(waves=1), 10)[-1].extra["compute_s"]
    (6000, 100.0, 600.0)
    """
    if ticks_per_s == 1:
        return workload
    k = ticks_per_s
    jobs = []
    for job in workload:
        extra = dict(job.extra)
        for key in ("stream_gib", "compute_s"):
            if key in extra:
                extra[key] = float(extra[key] or 0.0) * k
        jobs.append(
            replace(
                job,
                submit=job.submit * k,
                runtime=job.runtime * k,
                walltime=job.walltime * k,
                extra=MappingProxyType(extra),
            )
        )
    return Workload.of(jobs, name=workload.name, metadata=workload.metadata)


@dataclass
class IORun:
    """The outcome of :func:`run_io`: the simulation, the model (its throughput steps), the
    scheduler's cycle log and the estimator after the run."""

    result: SimulationResult
    filesystem: FluidFileSystem
    log: CycleLog
    estimator: Estimator
    ticks_per_s: int = 1

    @property
    def makespan(self) -> int:
        """``max c_j - min s_j`` over completed jobs, in ticks."""
        done = [r for r in self.result.jobs if r.completed]
        if not done:
            return 0
        return max(r.end for r in done) - min(r.job.submit for r in self.result.jobs)

    @property
    def makespan_s(self) -> float:
        """The makespan in seconds."""
        return self.makespan / self.ticks_per_s

    @property
    def rejected(self) -> int:
        return sum(r.rejected for r in self.result.jobs)


def run_io(
    workload: Workload,
    scheduler: str,
    r_limit: float = 20.0,
    pretrained: bool = True,
    sigma: float = 0.0,
    seed: int = 0,
    nodes: int = 15,
    period: int = 30,
    admit: str = "half",
    sleep_s: float = 60.0,
    curve=None,
    backfill_max: int | None = None,
    cycles: str = "both",
    ticks_per_s: int = 1,
) -> IORun:
    """Simulate ``workload`` under ``scheduler`` (``S0``/``S1``/``S2``/``S2n``).

    ``backfill_max``: Alg. 1's BackfillMax (``None``: reserve every delayed job, D6);
    ``cycles``: ``both`` (at completions and every ``period`` s, D5) or ``timer`` (only every
    ``period`` s, D5's periodic-only option). ``ticks_per_s``: the simulator's clock counts
    whole ticks, so a job's end is rounded up to the next tick; 10 (0.1 s) follows the
    spec's continuous-time model within 1% (:func:`in_ticks`; the result's times are in ticks,
    :attr:`IORun.makespan_s` in seconds).
    """
    if cycles not in CYCLES:
        raise SimulationError(f"unknown cycles {cycles!r} (valid: {', '.join(CYCLES)})")
    if cycles == "timer" and not period:
        raise SimulationError("cycles='timer' needs a period > 0")
    if ticks_per_s < 1:
        raise SimulationError(f"ticks_per_s must be >= 1, got {ticks_per_s}")
    k = ticks_per_s
    workload = in_ticks(workload, k)
    estimator = Estimator()
    if pretrained:
        kinds = dict.fromkeys(str(j.extra.get("kind", "")) for j in workload)
        pretrain(estimator, [kd for kd in kinds if kd in THREADS], curve, sleep_s, ticks_per_s=k)

    def observe(run: RunningJob, now: int) -> None:
        runtime = now - run.start
        extra = run.job.extra
        if runtime > 0 and "kind" in extra:
            estimator.observe(extra["kind"], io_demand(extra).gib / runtime, runtime)

    fs = FluidFileSystem(
        curve=curve, sigma=sigma, seed=seed, noise_period=10.0 * k, listeners=[observe]
    )
    timer = period * k if cycles == "timer" else 0
    policy = make_scheduler(scheduler, nodes, estimator, fs, r_limit, admit, backfill_max, timer)
    if isinstance(policy, IOAwareBackfill):
        policy.window *= k  # R_now's 10 s
    sim = Simulator(
        build_pfs_machine(nodes, r_limit),
        workload,
        queue="conservative",
        runtime=fs,
        scheduler=Periodic(policy, period * k) if period else policy,
    )
    result = sim.run()
    fs.advance(max((r.end for r in result.jobs), default=0))
    return IORun(result, fs, policy.log, estimator, k)
