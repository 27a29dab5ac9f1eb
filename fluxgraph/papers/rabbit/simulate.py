"""What a storage simulation produces: one :class:`Outcome` per job, and the spec §6 metrics.

The simulation itself runs on the shared simulator (:func:`fluxgraph.papers.rabbit.sim.simulate`,
FCFS + EASY through a :class:`~fluxgraph.papers.rabbit.placer.RabbitPlacer`); this module holds what
it returns and :func:`storage_metrics` (rabbit spec §6).

>>> from fluxgraph.papers.rabbit import StorageRequest
>>> job = StorageJob(1, 0, 10, StorageRequest(2, 10))
>>> Outcome(1, 0, -1, -1, job, reason="nodes").start
-1
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from fluxgraph.papers.rabbit.placer import RabbitPlacer, StoragePlacement
from fluxgraph.papers.rabbit.workload import StorageJob

__all__ = ["Outcome", "storage_metrics"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What happened to one job: start (-1 if rejected), end, placement or rejection reason."""

    id: int
    submit: int
    start: int
    end: int
    job: StorageJob
    placement: StoragePlacement | None = None
    reason: str = ""


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


def _nodes(graph, p: StoragePlacement):
    return [
        v
        for ph in p.phases
        if ph.kind == "compute"
        for v in ph.vertices
        if graph.types[v] == "node"
    ]
