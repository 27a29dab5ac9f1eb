"""Rabbit storage jobs on the shared simulator: FCFS + EASY through a :class:`RabbitPlacer`.

Rabbit spec §4.4 and §7.2 (E-R11). :class:`RabbitBookings` puts a
:class:`~fluxgraph.storage.placer.RabbitPlacer` behind the simulator's
:class:`~fluxgraph.sched.allocator.Allocator` protocol: a job's compute, node-local, OST and MGT
phases are one booking, placed now or (reserving) at the first start time where every phase
fits; a job no start time can satisfy is rejected at submission with its reason (one of
:data:`~fluxgraph.storage.placer.REASONS`). :func:`simulate` replays
:class:`~fluxgraph.storage.workload.StorageJob` s with the simulator's ``easy`` queue and FCFS
priority: the first queued job that cannot start now gets the one reservation (re-made at every
pass, as qmanager does), later jobs start now only where they fit beside it. Storage set-up
costs nothing (§5); a job runs for its runtime.

>>> from fluxgraph.storage import StorageRequest, elcap
>>> placer = RabbitPlacer(elcap(chassis=1, nodes=2, chunks=2, cores=(1, 1), gpus=0))
>>> jobs = [StorageJob(i, 0, 10, StorageRequest(2, 10, (400,))) for i in (1, 2)]
>>> [(o.id, o.start) for o in simulate(placer, jobs)]
[(1, 0), (2, 10)]
"""

from __future__ import annotations

from fluxgraph.sched.allocator import Allocation
from fluxgraph.sched.simulator import Simulator
from fluxgraph.storage.placer import Placement, RabbitPlacer, StorageRejected
from fluxgraph.storage.simulate import Outcome
from fluxgraph.storage.workload import StorageJob
from fluxgraph.workload import Job

__all__ = ["RabbitBookings", "simulate"]


class RabbitBookings:
    """A :class:`RabbitPlacer` as the simulator's allocator (see the module docstring).

    Jobs carry their :class:`~fluxgraph.storage.directives.StorageRequest` as
    ``extra["storage"]`` (:func:`simulate` builds them). ``started`` keeps the placement of
    every job that started, by job id.
    """

    def __init__(self, placer: RabbitPlacer) -> None:
        self.placer = placer
        self.total_nodes = placer.total_nodes
        self.total_cores = placer.total_nodes
        self.started: dict[int, Placement] = {}

    def check(self, job: Job) -> str:
        try:
            self.placer.check(job.id, job.extra["storage"], job.submit)
        except StorageRejected as err:
            return err.reason
        return ""

    def allocate(self, job: Job, jobid: int, now: int, reserve: bool) -> Allocation | None:
        try:
            p = self.placer.place(jobid, job.extra["storage"], now, reserve)
        except StorageRejected:
            return None
        if not p.reserved:
            self.started[job.id] = p
        return Allocation(p.start, p.nodes, len(p.nodes))

    def release(self, jobid: int) -> None:
        self.placer.release(jobid)

    def family(self, job: Job) -> tuple[object, int] | None:
        """Requests without Lustre phases: more nodes with the same per-node storage is
        harder (the §4.4 arithmetic). With Lustre, more nodes can spread the OSTs: no order."""
        request = job.extra["storage"]
        if self.placer.lustre_phases(request) or not request.nodes:
            return None
        return (self.placer.per_node_gib(request), len(request.node_local_gib)), request.nodes


def simulate(placer: RabbitPlacer, jobs: list[StorageJob]) -> list[Outcome]:
    """Run ``jobs`` (in submission order) on ``placer``'s machine; one outcome per job."""
    trace = [
        Job(
            j.id,
            j.submit,
            j.runtime,
            j.request.walltime,
            procs=max(1, j.request.nodes),
            nodes=j.request.nodes,
            extra={"storage": j.request},
        )
        for j in jobs
    ]
    bookings = RabbitBookings(placer)
    result = Simulator(None, trace, queue="easy", priority="fcfs", allocator=bookings).run()
    by_id = {j.id: j for j in jobs}
    out = []
    for rec in result.jobs:
        job = by_id[rec.job.id]
        if rec.rejected:
            out.append(Outcome(job.id, job.submit, -1, -1, job, reason=rec.reason))
        else:
            placement = bookings.started[job.id]
            out.append(Outcome(job.id, job.submit, rec.start, rec.end, job, placement))
    return out
