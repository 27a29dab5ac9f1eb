"""Class packing with a start-time budget (spec §4.3, amendment of 2026-11-28) on seeds 1-2.

The policy (``classpack:slack=1800``) run by the static-queue driver must give, job for job,
the schedule of spec §4.3 step 2 carried out literally with matcher calls: ``T_any`` from the
``variation`` policy's ``without_allocating_future``, ``T_W`` from the same under each class
window's ``pc<p>`` constraint, the narrowest width with ``min T_W <= T_any + S``, the window
minimising ``(T_W, free_W, a)``, and the job committed under that window's constraint. The
pooled quartz (4,876 vertices) selects the nodes the socketed one does (``test_quartz_lod``).
"""

from __future__ import annotations

import os

import pytest

from fluxgraph.matcher import Matcher
from fluxgraph.papers.variation.quartz import build_quartz
from fluxgraph.papers.variation.static_queue import node_jobspec, run_static_queue
from fluxgraph.papers.variation.workload import perf_classes, variation_queue
from fluxgraph.writers.sink import MatchWriter

SLACK = 1800
POOLED = {"sockets": 0, "cores": 36}


class _Nodes(MatchWriter):
    def __init__(self) -> None:
        self.ids: list[int] = []

    def emit_vtx(self, graph, v, level, needs, exclusive, excl_parent, agfilter=None) -> None:
        if graph.types[v] == "node":
            self.ids.append(graph.ids[v])


def _start(matcher, spec, job_id, op="without_allocating_future"):
    writer = _Nodes()
    out = matcher.run(spec, op, job_id, writer, 0)
    return (out.at if out.rc == 0 else None), tuple(sorted(writer.ids))


def _matcher(classes, policy):
    graph = build_quartz(racks=len(classes) // 62, classes=classes, pooled=True)
    return Matcher(graph, "CA", policy, prune="ALL:core,ALL:node")


def _literal_schedule(classes, queue, slack):
    """Spec §4.3 steps 1-3 with matcher calls only (the ``variation`` policy and constraints)."""
    matcher = _matcher(classes, "variation")
    sizes = {p: classes.count(p) for p in range(1, 6)}
    busy: dict[int, list[tuple[int, int]]] = {}
    out = []
    for job in queue:
        n, d = job.nodes, job.walltime
        t_any, _ = _start(matcher, node_jobspec(n, d, **POOLED), job.id)
        for w in range(5):  # step 3: the widest window (all classes) always has T_W = T_any
            found = []
            for a in range(1, 6 - w):
                window = list(range(a, a + w + 1))
                if sum(sizes[p] for p in window) < n:
                    continue
                t_w, _ = _start(matcher, node_jobspec(n, d, **POOLED, classes=window), job.id)
                if t_w is not None and t_w <= t_any + slack:
                    free = sum(
                        classes[v] in window
                        and all(e <= t_w or s >= t_w + d for s, e in busy.get(v, ()))
                        for v in range(len(classes))
                    )
                    found.append((t_w, free, a, window))
            if found:
                break
        window = min(found)[3]
        spec = node_jobspec(n, d, **POOLED, classes=window)
        start, ids = _start(matcher, spec, job.id, "allocate_orelse_reserve")
        out.append((start, ids))
        for v in ids:
            busy.setdefault(v, []).append((start, start + d))
    return out


def _check(seed: int, racks: int, jobs: int) -> None:
    classes = perf_classes(seed, racks * 62)
    queue = variation_queue(seed, jobs)
    records = run_static_queue(_matcher(classes, f"classpack:slack={SLACK}"), queue, **POOLED)
    now = run_static_queue(_matcher(classes, "classpack"), queue, **POOLED)
    assert any(r.start > r0.start for r, r0 in zip(records, now, strict=True))  # it waits
    got = [(r.start, r.node_ids) for r in records]
    assert got == _literal_schedule(classes, queue, SLACK)


@pytest.mark.parametrize("seed", [1, 2])
def test_budgeted_policy_gives_the_literal_schedule_small(seed):
    """Seeds 1-2 on 12 of quartz's 39 racks, the first 80 jobs (seconds)."""
    _check(seed, 12, 80)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("FLUXGRAPH_RUNSLOW"), reason="FLUXGRAPH_RUNSLOW")
@pytest.mark.parametrize("seed", [1, 2])
def test_budgeted_policy_gives_the_literal_schedule(seed):
    """The full case study: 2418 nodes, 200 jobs (about 35 CPU s per seed)."""
    _check(seed, 39, 200)
