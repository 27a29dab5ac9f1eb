"""The pooled quartz (node > core[36], paper §3.3) selects the same nodes as the socketed one."""

from __future__ import annotations

import pytest

from fluxgraph.matcher import Matcher
from fluxgraph.papers.variation.quartz import build_quartz
from fluxgraph.papers.variation.static_queue import run_static_queue
from fluxgraph.papers.variation.workload import SIZE_WEIGHTS, perf_classes, variation_queue


@pytest.mark.parametrize("policy", ["high", "low", "variation", "classpack", "classpack-strict"])
@pytest.mark.parametrize("seed", [2, 5])
def test_pooled_machine_selects_the_same_nodes(policy, seed):
    classes = perf_classes(seed, 64, nodes_per_rack=16)
    queue = variation_queue(seed, 30, SIZE_WEIGHTS[:5])
    runs = []
    for pooled, shape in ((False, {"sockets": 2, "cores": 3}), (True, {"sockets": 0, "cores": 6})):
        graph = build_quartz(4, 16, 2, 3, classes=classes, pooled=pooled)
        matcher = Matcher(graph, "CA", policy, prune="ALL:core,ALL:node")
        runs.append([(r.start, r.node_ids) for r in run_static_queue(matcher, queue, **shape)])
    assert runs[0] == runs[1]
