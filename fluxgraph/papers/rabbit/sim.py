"""Rabbit storage jobs on the shared simulator: FCFS + EASY through a :class:`RabbitPlacer`.

Rabbit spec §4.4 and §7.2 (E-R11). :class:`RabbitBookings` puts a
:class:`~fluxgraph.papers.rabbit.placer.RabbitPlacer` behind the simulator's
:class:`~fluxgraph.sched.allocator.Allocator` protocol: a job's compute, node-local, OST and MGT
phases are one booking, placed now or (reserving) at the first start time where every phase
fits; a job no start time can satisfy is rejected at submission with its reason (one of
:data:`~fluxgraph.papers.rabbit.placer.REASONS`). :func:`simulate` replays
:class:`~fluxgraph.papers.rabbit.workload.StorageJob` s with the simulator's ``easy`` queue and FCFS
priority: the first queued job that cannot start now gets the one reservation (re-made at every
pass, as qmanager does), later jobs start now only where they fit beside it. Storage set-up
costs nothing (§5); a job runs for its runtime.

Re-making a reservation is skipped where its outcome is known (identical schedules; the tests
compare with ``reuse=False``): the simulator's release of a reservation is held back until the
next booking or release, and if that books the same job again, the held placement stands when

* it starts after ``now`` at a start or end of another placement (a time the search tries),
* no earlier time the search would try passes the node and chunk counts without it
  (:meth:`~fluxgraph.papers.rabbit.placer.RabbitPlacer.may_start_before`), and
* the placements overlapping its window are the ones it was placed among: the planners'
  availability over a window depends only on the set of spans overlapping it (the most held at
  once is a maximum over sets of pairwise-overlapping spans, which share a point of the window),
  so the matcher makes the same choice there.

>>> from fluxgraph.papers.rabbit import StorageRequest, elcap
>>> placer = RabbitPlacer(elcap(chassis=1, nodes=2, chunks=2, cores=(1, 1), gpus=0))
>>> jobs = [StorageJob(i, 0, 10, StorageRequest(2, 10, (400,))) for i in (1, 2)]
>>> [(o.id, o.start) for o in simulate(placer, jobs)]
[(1, 0), (2, 10)]
"""

from __future__ import annotations

from fluxgraph.papers.rabbit.placer import RabbitPlacer, StoragePlacement, StorageRejected
from fluxgraph.papers.rabbit.simulate import Outcome
from fluxgraph.papers.rabbit.workload import StorageJob
from fluxgraph.sched.allocator import Allocation
from fluxgraph.sched.simulator import Simulator
from fluxgraph.workload import Job

__all__ = ["RabbitBookings", "simulate"]


class RabbitBookings:
    """A :class:`RabbitPlacer` as the simulator's allocator (see the module docstring).

    Jobs carry their :class:`~fluxgraph.papers.rabbit.directives.StorageRequest` as
    ``extra["storage"]`` (:func:`simulate` builds them). ``started`` keeps the placement of
    every job that started, by job id; ``reused`` counts reservations kept instead of re-made
    (``reuse=False`` re-makes every one).
    """

    def __init__(self, placer: RabbitPlacer, reuse: bool = True) -> None:
        self.placer = placer
        self.total_nodes = placer.total_nodes
        self.total_cores = placer.total_nodes
        self.started: dict[int, StoragePlacement] = {}
        self.reuse = reuse
        self.reused = 0
        self._key: dict[int, int] = {}  # booking id -> placer job id
        self._among: dict[int, tuple[int, frozenset[int]]] = {}  # reservation -> job id and
        # the placements overlapping it when it was placed
        self._held: dict[int, int] = {}  # job id -> released reservation still in the placer

    def check(self, job: Job) -> str:
        try:
            self.placer.check(job.id, job.extra["storage"], job.submit)
        except StorageRejected as err:
            return err.reason
        return ""

    def allocate(self, job: Job, jobid: int, now: int, reserve: bool) -> Allocation | None:
        held = self._held.pop(job.id, None) if reserve else None
        self._drop_held()
        if held is not None:
            if self._stands(held, now):
                self.reused += 1
                self._key[jobid] = held
                return self._allocation(self.placer.jobs[held])
            self._forget(held)
        try:
            p = self.placer.place(jobid, job.extra["storage"], now, reserve)
        except StorageRejected:
            return None
        self._key[jobid] = jobid
        if p.reserved:
            self._among[jobid] = (job.id, self._overlapping(p))
        else:
            self.started[job.id] = p
        return self._allocation(p)

    def release(self, jobid: int) -> None:
        key = self._key.pop(jobid)
        self._drop_held()
        if self.reuse and key in self._among:
            self._held[self._among[key][0]] = key
        else:
            self._forget(key)

    def _forget(self, key: int) -> None:
        self._among.pop(key, None)
        self.placer.release(key)

    def _drop_held(self) -> None:
        """Release the held reservations for good (before any other booking or release)."""
        for key in self._held.values():
            self._forget(key)
        self._held.clear()

    def _stands(self, key: int, now: int) -> bool:
        """Whether placing held reservation ``key`` again at ``now`` gives it back unchanged."""
        p = self.placer.jobs[key]
        return (
            p.start > now
            and any(q.start == p.start or q.end == p.start for q in self._others(p))
            and not self.placer.may_start_before(key, now)
            and self._overlapping(p) == self._among[key][1]
        )

    def _others(self, p: StoragePlacement):
        return (q for q in self.placer.jobs.values() if q is not p)

    def _overlapping(self, p: StoragePlacement) -> frozenset[int]:
        """The placer keys (unique booking ids) of the placements overlapping ``p``'s window."""
        return frozenset(
            k
            for k, q in self.placer.jobs.items()
            if q is not p and q.start < p.end and q.end > p.start
        )

    @staticmethod
    def _allocation(p: StoragePlacement) -> Allocation:
        return Allocation(p.start, p.nodes, len(p.nodes))

    def family(self, job: Job) -> tuple[object, int] | None:
        """Requests without Lustre phases: more nodes with the same per-node storage is
        harder (the §4.4 arithmetic). With Lustre, more nodes can spread the OSTs: no order."""
        request = job.extra["storage"]
        if self.placer.lustre_phases(request) or not request.nodes:
            return None
        return (self.placer.per_node_gib(request), len(request.node_local_gib)), request.nodes


def simulate(placer: RabbitPlacer, jobs: list[StorageJob], reuse: bool = True) -> list[Outcome]:
    """Run ``jobs`` (in submission order) on ``placer``'s machine; one outcome per job
    (``reuse``: keep reservations whose re-making is known to give them back)."""
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
    bookings = RabbitBookings(placer, reuse)
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
