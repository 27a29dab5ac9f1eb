"""Pluggable scheduling passes: how a paper's scheduler decides what starts, on the shared loop.

The simulator owns time, the queue, the matcher and the runtime model. At each event time it
first ends and submits jobs, then, when jobs are queued, runs one scheduling pass. By default
that pass is the built-in backfilling walk of its :class:`~fluxgraph.sched.QueuePolicy`. A
:class:`SchedulingPass` given as ``Simulator(..., scheduler=...)`` replaces it: its
:meth:`~SchedulingPass.schedule` sees the state through a :class:`SchedulingView` and acts
only through the view's primitives, each one matcher call on the machine graph:

* :meth:`SchedulingView.start` -- ``allocate`` the job now for its walltime; it starts if it fits;
* :meth:`SchedulingView.reserve` -- ``allocate_orelse_reserve``: start now, or hold the earliest
  slot where the job fits (dropped at the start of the next pass, as qmanager does);
* :meth:`SchedulingView.fits` -- whether a set of jobs could all start now together (tried,
  then undone: the state is unchanged);
* :meth:`SchedulingPass.next_wakeup` -- an extra event time (periodic triggers).

A pass never starts a job the graph cannot hold, so no pass can over-allocate; jobs still queued
when nothing is running, nothing is left to submit and no wake-up is due are rejected with a
reason. :class:`BackfillPass` is the built-in walk written on the view (the tests check both give
identical schedules); :class:`SlurmBackfill` is Slurm's main pass plus conservative backfill;
:class:`Periodic` adds a fixed trigger period to any pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from fluxgraph.errors import SimulationError
from fluxgraph.sched.queueing import QueuePolicy, make_queue_policy
from fluxgraph.sched.runtime import RunningJob
from fluxgraph.workload import Job

__all__ = ["BackfillPass", "Periodic", "SchedulingPass", "SchedulingView", "SlurmBackfill"]


class SchedulingView(Protocol):
    """What a pass sees of the simulator during one pass (see the module docstring).

    Attributes
    ----------
    now : the event time of this pass.
    finished, submitted : jobs that ended / were queued at this event time.
    woken : whether this time is a wake-up a pass asked for.
    """

    now: int
    finished: int
    submitted: int
    woken: bool

    def queue(self) -> list[int]:
        """Queued job keys in priority order (ties: submit time, then job id)."""
        ...

    def job(self, key: int) -> Job:
        """The trace record of job ``key``."""
        ...

    def running(self) -> Mapping[int, RunningJob]:
        """The running jobs by key (read-only)."""
        ...

    def start(self, key: int) -> bool:
        """Start queued job ``key`` now if the machine holds it for its walltime."""
        ...

    def reserve(self, key: int) -> int | None:
        """Start ``key`` now, else reserve its earliest slot: the start time (``None``: neither)."""
        ...

    def fits(self, keys: Iterable[int]) -> bool:
        """Whether all of ``keys`` could start now together (nothing changes)."""
        ...


class SchedulingPass(Protocol):
    """One scheduler: called once per event time while jobs are queued."""

    def schedule(self, view: SchedulingView, now: int) -> None:
        """Start (and reserve) queued jobs through ``view``."""
        ...

    def next_wakeup(self, now: int) -> int | None:
        """The next time (> ``now``) this pass wants to run without another event, or ``None``."""
        ...


@dataclass
class BackfillPass:
    """The queue policies' backfilling walk, written on the view (no matcher-call shortcuts).

    Jobs in priority order: one that fits now starts; otherwise, while the pass has reserved
    fewer than the policy's depth, it is reserved; otherwise skipped (``fcfs`` stops).

    >>> from fluxgraph.machines import build_machine
    >>> from fluxgraph.sched import Simulator
    >>> from fluxgraph.workload import Job
    >>> jobs = [Job(1, 0, 100, 100, procs=2), Job(2, 0, 50, 50, procs=2), Job(3, 10, 30, 40)]
    >>> sim = Simulator(build_machine("nodes=3"), jobs, scheduler=BackfillPass("easy"))
    >>> [(j.job.id, j.start, j.end) for j in sim.run().jobs]
    [(1, 0, 100), (2, 100, 150), (3, 10, 40)]
    """

    queue_policy: QueuePolicy | str = "easy"

    def __post_init__(self) -> None:
        if isinstance(self.queue_policy, str):
            self.queue_policy = make_queue_policy(self.queue_policy)

    def schedule(self, view: SchedulingView, now: int) -> None:
        policy = self.queue_policy
        assert isinstance(policy, QueuePolicy)
        reserved = 0
        order = view.queue()
        if policy.queue_depth is not None:
            order = order[: policy.queue_depth]
        for key in order:
            if policy.stop_at_blocked:
                if not view.start(key):
                    return
            elif policy.may_reserve(reserved):
                at = view.reserve(key)
                reserved += at is not None and at > now
            else:
                view.start(key)

    def next_wakeup(self, now: int) -> int | None:
        return None


@dataclass
class SlurmBackfill:
    """Slurm's two passes: the main pass starts jobs in priority order until one cannot start;
    the backfill pass then walks the first ``depth`` jobs still queued (``bf_queue_limit``),
    starting or reserving each at its earliest start (conservative: every one is reserved).

    It differs from ``BackfillPass("conservative")`` with a queue depth: jobs the main pass
    starts do not count towards ``depth``.

    >>> from fluxgraph.machines import build_machine
    >>> from fluxgraph.sched import Simulator
    >>> from fluxgraph.workload import Job
    >>> jobs = [Job(1, 0, 100, 100, procs=2), Job(2, 0, 50, 50, procs=3), Job(3, 0, 30, 40)]
    >>> sim = Simulator(build_machine("nodes=3"), jobs, scheduler=SlurmBackfill(depth=1))
    >>> [(j.job.id, j.start, j.end) for j in sim.run().jobs]   # job 3 is past the depth
    [(1, 0, 100), (2, 100, 150), (3, 150, 180)]
    """

    depth: int = 100

    def schedule(self, view: SchedulingView, now: int) -> None:
        for key in view.queue():
            if not view.start(key):
                break
        for key in view.queue()[: self.depth]:
            view.reserve(key)

    def next_wakeup(self, now: int) -> int | None:
        return None


@dataclass
class Periodic:
    """``inner`` run at every event and also every ``period`` seconds while jobs wait.

    >>> Periodic(BackfillPass("fcfs"), period=30).next_wakeup(45)
    60
    """

    inner: SchedulingPass
    period: int

    def __post_init__(self) -> None:
        if self.period < 1:
            raise SimulationError(f"wake-up period must be >= 1 s, got {self.period}")

    def schedule(self, view: SchedulingView, now: int) -> None:
        self.inner.schedule(view, now)

    def next_wakeup(self, now: int) -> int | None:
        own = (now // self.period + 1) * self.period
        other = self.inner.next_wakeup(now)
        return own if other is None else min(own, other)
