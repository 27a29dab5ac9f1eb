"""Spec §8 smoke (a): rack[4] > node[16] > socket[1] > core[2], seed-1 classes, 40 jobs.

The oracle replays every decision; the histograms are pinned golden values computed by this
engine (spec §8: "pin the exact histograms once computed").
"""

from __future__ import annotations

import pytest
from variation_oracle import check_run

from fluxgraph.matcher import Matcher
from fluxgraph.papers.variation.quartz import build_quartz
from fluxgraph.papers.variation.static_queue import fom_histogram, run_static_queue
from fluxgraph.papers.variation.workload import SIZE_WEIGHTS, perf_classes, variation_queue

CLASSES = perf_classes(1, 64, nodes_per_rack=16)
QUEUE = variation_queue(1, 40, SIZE_WEIGHTS[:5])
GOLDEN = {
    "high": [14, 2, 4, 4, 16],
    "low": [14, 5, 1, 5, 15],
    "variation": [29, 2, 2, 4, 3],
    "classpack": [31, 2, 2, 4, 1],
    "classpack-strict": [40, 0, 0, 0, 0],
}


@pytest.fixture(scope="module")
def runs():
    out = {}
    for policy in GOLDEN:
        graph = build_quartz(4, 16, 1, 2, classes=CLASSES)
        matcher = Matcher(graph, "CA", policy, prune="ALL:core,ALL:node")
        out[policy] = run_static_queue(matcher, QUEUE, sockets=1, cores=2)
    return out


@pytest.mark.parametrize("policy", list(GOLDEN))
def test_smoke_runs_follow_the_oracle_and_pinned_histograms(runs, policy):
    records = runs[policy]
    assert check_run(policy, CLASSES, QUEUE, records) == 40
    assert all(r.start >= 0 and len(r.node_ids) == r.nodes for r in records)
    row = fom_histogram(records, CLASSES)
    assert sum(row) == 40
    assert row == GOLDEN[policy]


def test_smoke_orderings(runs):
    fom0 = {p: fom_histogram(r, CLASSES)[0] for p, r in runs.items()}
    assert fom0["variation"] >= max(fom0["high"], fom0["low"])
    assert fom0["classpack"] >= fom0["variation"]
    # strict: every job whose size fits one class of the machine gets fom 0
    sizes = [CLASSES.count(p) for p in range(1, 6)]
    for job, rec in zip(QUEUE, runs["classpack-strict"], strict=True):
        if job.nodes <= max(sizes):
            assert len({CLASSES[v] for v in rec.node_ids}) == 1
