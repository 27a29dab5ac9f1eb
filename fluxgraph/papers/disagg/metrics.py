"""Metrics of a disaggregated-memory run (spec §6): makespan, throughput, responses, utilisation.

>>> from fluxgraph.papers.disagg.machines import MemoryMachineSpec
>>> from fluxgraph.papers.disagg.sim import DisaggRecord, DisaggResult
>>> from fluxgraph.workload import Job
>>> jobs = [Job(1, 0, 10, 10, nodes=2, extra={"mem_mib": 16384}),
...         Job(2, 0, 10, 10, nodes=2, extra={"mem_mib": 8192})]
>>> recs = [DisaggRecord(jobs[0], 0, 10, (0, 1)), DisaggRecord(jobs[1], 10, 20, (0, 1))]
>>> m = run_metrics(DisaggResult(recs, MemoryMachineSpec(4, 0), "base"))
>>> m["makespan"], m["throughput"], m["util_cpu"], m["util_mem"], m["mean_response"]
(20, 0.1, 0.5, 0.1875, 15.0)
"""

from __future__ import annotations

import statistics

from fluxgraph.papers.disagg.sim import DisaggResult

__all__ = ["run_metrics", "timeline"]


def run_metrics(result: DisaggResult) -> dict[str, float]:
    """Makespan ``T = max end - min submit``, throughput ``completed / T``, response and wait
    statistics, CPU and (requested) memory utilisation over ``T``, remote-memory diagnostics."""
    done = [r for r in result.records if r.completed]
    spec = result.spec
    out: dict[str, float] = {"completed": len(done), "rejected": len(result.records) - len(done)}
    if not done:
        return out
    first = min(r.job.submit for r in done)
    makespan = max(r.end for r in done) - first
    responses = sorted(r.end - r.job.submit for r in done)
    node_seconds = sum(len(r.nodes) * (r.end - r.start) for r in done)
    mem = sum(len(r.nodes) * r.job.extra["mem_mib"] * (r.end - r.start) for r in done)
    remote = [r for r in done if r.lent]
    out.update(
        makespan=makespan,
        throughput=len(done) / makespan if makespan else 0.0,
        mean_response=statistics.fmean(responses),
        median_response=statistics.median(responses),
        p90_response=responses[min(len(responses) - 1, int(0.9 * len(responses)))],
        mean_wait=statistics.fmean(r.start - r.job.submit for r in done),
        util_cpu=node_seconds / (spec.nodes * makespan) if makespan else 0.0,
        util_mem=mem / (spec.total_mib * makespan) if makespan else 0.0,
        remote_jobs=len(remote),
        mean_remote=statistics.fmean(r.remote for r in remote) if remote else 0.0,
        node_hours_lost=sum(len(r.nodes) * (r.end - r.start - r.job.runtime) for r in done) / 3600,
    )
    return out


def timeline(result: DisaggResult, step: int = 600) -> list[tuple[int, float, float]]:
    """``(time, CPU utilisation, memory utilisation)`` sampled every ``step`` seconds (Fig. 1)."""
    done = [r for r in result.records if r.completed]
    if not done:
        return []
    spec = result.spec
    start = min(r.job.submit for r in done)
    end = max(r.end for r in done)
    out = []
    for t in range(start, end + 1, step):
        live = [r for r in done if r.start <= t < r.end]
        cpu = sum(len(r.nodes) for r in live) / spec.nodes
        mem = sum(len(r.nodes) * r.job.extra["mem_mib"] for r in live) / spec.total_mib
        out.append((t, cpu, mem))
    return out
