"""A trace-driven EASY-backfilling run of storage jobs through a :class:`RabbitPlacer`.

FCFS queue; at every submission or job end, the first queued job that cannot start now gets
the one reservation (its earliest start, phases and all; re-planned when a job ends unless
no earlier time has the nodes and chunks it needs), later
jobs start now only where they fit beside it. Jobs that did not fit are tried again only after
a job ends (a submission frees nothing). A job no start time can satisfy is rejected at
submission with its reason (rabbit spec §4.4 step 3); storage set-up costs nothing (§5).
Metrics of spec §6 are in :func:`storage_metrics`.

>>> from fluxgraph.storage import StorageRequest, elcap
>>> from fluxgraph.storage.placer import RabbitPlacer
>>> placer = RabbitPlacer(elcap(chassis=1, nodes=2, chunks=2, cores=(1, 1), gpus=0))
>>> jobs = [StorageJob(i, 0, 10, StorageRequest(2, 10, (400,))) for i in (1, 2)]
>>> [(o.id, o.start) for o in simulate(placer, jobs)]
[(1, 0), (2, 10)]
"""

from __future__ import annotations

import heapq
import statistics
from collections import Counter
from dataclasses import dataclass
from errno import ENODEV

from fluxgraph.storage.placer import Placement, RabbitPlacer, StorageRejected
from fluxgraph.storage.workload import StorageJob

__all__ = ["Outcome", "simulate", "storage_metrics"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What happened to one job: start (-1 if rejected), end, placement or rejection reason."""

    id: int
    submit: int
    start: int
    end: int
    job: StorageJob
    placement: Placement | None = None
    reason: str = ""


def simulate(placer: RabbitPlacer, jobs: list[StorageJob]) -> list[Outcome]:
    """Run ``jobs`` (in submission order) on ``placer``'s machine; one outcome per job."""
    pending = sorted(jobs, key=lambda j: (j.submit, j.id))
    nodes_total = sum(len(r.nodes) for r in placer.rabbits.values())
    out: dict[int, Outcome] = {}
    queue: list[StorageJob] = []
    ends: list[tuple[int, int]] = []
    busy_nodes = 0
    head: int | None = None
    i = 0
    while i < len(pending) or queue or ends:
        times = [t for t in (pending[i].submit if i < len(pending) else None,) if t is not None]
        if ends:
            times.append(ends[0][0])
        if head is not None:  # the reserved start is an event even if no job ends there
            times.append(placer.jobs[head].start)
        if not times:  # only a queue left that nothing can change: impossible after check()
            raise AssertionError("storage simulation stalled with a queue and nothing running")
        now = min(times)
        freed = False
        while ends and ends[0][0] <= now:
            _, jobid = heapq.heappop(ends)
            busy_nodes -= len(placer.jobs[jobid].nodes)
            placer.release(jobid)
            freed = True
        tried = len(queue)  # jobs that did not fit at the last pass: only a release helps them
        while i < len(pending) and pending[i].submit <= now:
            job = pending[i]
            i += 1
            try:
                placer.check(job.id, job.request, now)
            except StorageRejected as err:
                out[job.id] = Outcome(job.id, job.submit, -1, -1, job, reason=err.reason)
                continue
            queue.append(job)
        replanned = None
        if head is not None and (
            placer.jobs[head].start <= now or (freed and placer.may_start_before(head, now))
        ):
            placer.release(head)
            replanned, head = head, None
        waiting = []
        for k, job in enumerate(queue):
            request = job.request
            if job.id == head or (k < tried and not freed and job.id != replanned):
                waiting.append(job)
                continue
            if head is None:
                try:
                    p = placer.place(job.id, request, now, reserve=True)
                except StorageRejected as err:  # (cannot happen after check(); kept honest)
                    assert err.errno == ENODEV
                    out[job.id] = Outcome(job.id, job.submit, -1, -1, job, reason=err.reason)
                    continue
                if p.start > now:
                    head = job.id
                    waiting.append(job)
                    continue
            elif request.nodes > nodes_total - busy_nodes:
                waiting.append(job)
                continue
            else:
                try:
                    p = placer.place(job.id, request, now, reserve=False)
                except StorageRejected:
                    waiting.append(job)
                    continue
            end = now + job.runtime
            busy_nodes += len(p.nodes)
            heapq.heappush(ends, (end, job.id))
            out[job.id] = Outcome(job.id, job.submit, now, end, job, p)
        queue = waiting
    return [out[j.id] for j in pending]


def storage_metrics(
    outcomes: list[Outcome], placer: RabbitPlacer, baseline: list[Outcome] | None = None
) -> dict[str, float]:
    """Spec §6 rabbit metrics of one run (``baseline``: the same jobs without storage).

    Wait and bounded slowdown (tau = 10 s) drop the first and last 5 % of compute jobs by
    submission; utilisation is allocated GiB-seconds over capacity x span; rounding waste is
    the unrequested share of the allocated GiB-seconds.
    """
    g = placer.graph
    chunk = placer.chunk_gib
    capacity = chunk * sum(len(r.ssds) for r in placer.rabbits.values())
    ran = [o for o in outcomes if o.start >= 0]
    compute = sorted((o for o in ran if o.job.request.nodes), key=lambda o: (o.submit, o.id))
    cut = len(compute) // 20
    core = compute[cut : len(compute) - cut] or compute
    waits = [o.start - o.submit for o in core]
    slowdowns = [max(1.0, (o.end - o.submit) / max(o.end - o.start, 10)) for o in core]
    allocated = requested = own_gib = ost_gib = 0
    rabbits_per_fs, chassis_per_local = [], []
    for o in ran:
        p, req, span = o.placement, o.job.request, o.end - o.start
        chunks = sum(1 for ph in p.phases for v in ph.vertices if g.types[v] == "ssd")
        allocated += chunks * chunk * span
        per_node = placer.per_node_gib(req)
        lustre = sum(req.lustre_gib) if placer.lustre_phases(req) else 0
        requested += (per_node * req.nodes + lustre) * span
        if p.node_local and req.node_local_gib:
            chassis_per_local.append(len(p.node_local))
        own = set(Counter(placer.chassis_of[v] for v in _nodes(g, p)))
        own_ids = {g.ids[ch] for ch in own}
        for fs in p.osts:
            rabbits_per_fs.append(len(fs))
            if req.nodes:
                ost_gib += sum(fs.values()) * chunk
                own_gib += sum(n for ch, n in fs.items() if ch in own_ids) * chunk
    first = min((o.submit for o in outcomes), default=0)
    last = max((o.end for o in ran), default=first)
    rejected = Counter(o.reason for o in outcomes if o.start < 0)
    metrics = {
        "jobs": len(outcomes),
        "rejected": sum(rejected.values()),
        **{f"rejected {reason}": n for reason, n in sorted(rejected.items())},
        "mean wait s": statistics.fmean(waits) if waits else 0.0,
        "mean bounded slowdown": statistics.fmean(slowdowns) if slowdowns else 0.0,
        "storage utilisation": allocated / (capacity * max(last - first, 1)),
        "rounding waste": (allocated - requested) / allocated if allocated else 0.0,
        "OST GiB on own chassis": own_gib / ost_gib if ost_gib else float("nan"),
        "rabbits per Lustre FS": statistics.fmean(rabbits_per_fs) if rabbits_per_fs else 0.0,
        "chassis per node-local job": (
            statistics.fmean(chassis_per_local) if chassis_per_local else 0.0
        ),
        "makespan s": last - first,
    }
    if baseline is not None:
        base = {o.id: o.start for o in baseline if o.start >= 0}
        metrics["delayed by storage"] = sum(1 for o in ran if o.id in base and o.start > base[o.id])
    return metrics


def _nodes(graph, p: Placement):
    return [
        v
        for ph in p.phases
        if ph.kind == "compute"
        for v in ph.vertices
        if graph.types[v] == "node"
    ]
