"""Runtime models: when a running job ends, possibly depending on its allocation and on the
other running jobs, and possibly moving while it runs.

The simulator calls :meth:`RuntimeModel.start` when a job starts (its planned end),
:meth:`RuntimeModel.finish` when it ends, and after each event time's starts and finishes
:meth:`RuntimeModel.retime`, which returns the running jobs whose end moved (the event queue
re-times them by lazy deletion). Ends are clamped to ``start + walltime``: a job still running
at its walltime is killed there, as Slurm does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from fluxgraph.workload import Job

__all__ = ["RunningJob", "RuntimeModel", "TraceRuntime"]


@dataclass(slots=True)
class RunningJob:
    """A started job as runtime models see it.

    ``key`` is the simulator's index of the job, ``nodes`` its node ranks (sorted), ``cores``
    the cores it holds, ``end`` its current planned end (``killed`` when that is its walltime
    limit, not the end the model asked for); ``held`` the ``(vertex, type, units)`` of every
    other selected vertex (memory, pools such as ``bb`` or ``pfs_bw``, and the cluster/racks
    on the path to them).
    """

    key: int
    job: Job
    start: int
    nodes: tuple[int, ...]
    cores: int
    end: int = 0
    killed: bool = False
    held: tuple[tuple[int, str, int], ...] = ()


class RuntimeModel(Protocol):
    """How long running jobs take (see the module docstring)."""

    def start(self, run: RunningJob, now: int) -> int:
        """The planned end of ``run``, which starts at ``now``."""
        ...

    def finish(self, run: RunningJob, now: int) -> None:
        """``run`` ended at ``now``."""
        ...

    def retime(self, now: int) -> Iterable[tuple[int, int]]:
        """``(key, new end)`` for running jobs whose end moved since the last call."""
        ...


class TraceRuntime:
    """The default model: a job runs for its trace runtime, whatever it was given.

    >>> from fluxgraph.workload import Job
    >>> TraceRuntime().start(RunningJob(0, Job(1, 0, runtime=30, walltime=60), 100, (0,), 1), 100)
    130
    """

    def start(self, run: RunningJob, now: int) -> int:
        return now + run.job.runtime

    def finish(self, run: RunningJob, now: int) -> None:
        return None

    def retime(self, now: int) -> Iterable[tuple[int, int]]:
        return ()
