"""The memory-pool match policy: phases, shared pools, lender order and pool scope (exact cases)."""

from __future__ import annotations

import pytest

from fluxgraph.errors import MatchError
from fluxgraph.jobspec.model import Attributes, Jobspec, Resource, SystemAttributes, Task
from fluxgraph.matcher import Matcher
from fluxgraph.papers.disagg.machines import build_memory_machine
from fluxgraph.policies import POLICIES, MemoryPool, create_policy
from fluxgraph.writers.sink import SelectionCollector

TASK = (Task(("app",), "task", None),)


def _spec(top, duration=100):
    return Jobspec(1, top, TASK, Attributes(SystemAttributes(duration=float(duration))))


def _nodes(n, mib, exclusive=None):
    children = (Resource("core", 32, exclusive=True), Resource("memory", mib, exclusive=True))
    return _spec((Resource("node", n, exclusive=exclusive, with_=children),))


def _run(matcher, js, job_id):
    out = SelectionCollector()
    rc = matcher.run(js, "allocate", job_id, out, 0).rc
    return None if rc else [(v.name, v.needs) for v in out.vertices if v.type in ("node", "memory")]


def _free(g, index):
    v = g.by_type["memory"][index]
    plan = g.schedule.plans[v]
    return g.sizes[v] if plan is None else plan.avail_resources_during(0, 100)


def test_named_and_opt_in():
    assert isinstance(POLICIES["memory-pool"](), MemoryPool)
    assert repr(create_policy("memory-pool")) == "MemoryPool(phase=local, scope=node)"
    with pytest.raises(MatchError, match="scope 'cluster'"):
        MemoryPool("lend", "cluster")


def test_local_phase_takes_normal_nodes_first_and_books_only_the_request():
    g = build_memory_machine(6, 3)
    m = Matcher(g, "CA", MemoryPool("local"), prune="")
    assert _run(m, _nodes(2, 16384), 1) == [
        ("memory0", 16384),
        ("node0", 1),
        ("memory1", 16384),
        ("node1", 1),
    ]
    # a 40 GiB request skips every normal node: the large nodes, lowest index first
    assert _run(m, _nodes(2, 40960), 2) == [
        ("memory3", 40960),
        ("node3", 1),
        ("memory4", 40960),
        ("node4", 1),
    ]
    assert [_free(g, i) for i in range(6)] == [16384, 16384, 32768, 24576, 24576, 65536]
    # node2 is the only normal node with free cores; excluded, the job goes to node5
    m.policy.excluded = {g.by_type["node"][2]}
    assert _run(m, _nodes(1, 1024), 3) == [("memory5", 1024), ("node5", 1)]


def test_spread_phase_wants_whole_free_nodes_most_memory_first():
    g = build_memory_machine(6, 2)
    local = Matcher(g, "CA", MemoryPool("local"), prune="")
    assert _run(local, _nodes(1, 100), 1) == [("memory0", 100), ("node0", 1)]
    policy = MemoryPool("spread")
    policy.want = 40960
    spread = Matcher(g, "CA", policy, prune="")
    # node5, node4 (64 GiB, idle), then node1 (node0's memory is partly used): loc = min(M, cap)
    assert _run(spread, _nodes(3, 1), 2) == [
        ("memory1", 32768),
        ("node1", 1),
        ("memory4", 40960),
        ("node4", 1),
        ("memory5", 40960),
        ("node5", 1),
    ]


def test_lend_phase_takes_pools_in_node_order_greedily_through_memnet():
    g = build_memory_machine(5, 1)
    local = Matcher(g, "CA", MemoryPool("local"), prune="")
    assert _run(local, _nodes(1, 30000), 1) == [("memory0", 30000), ("node0", 1)]
    lend = Matcher(g, ("memnet",), MemoryPool("lend"), prune="")
    lend.policy.excluded = {g.by_type["memory"][1]}
    got = _run(lend, _spec((Resource("memory", 40000, exclusive=True),)), 2)
    assert got == [("memory0", 2768), ("memory2", 32768), ("memory3", 4464)]
    assert [_free(g, i) for i in range(5)] == [0, 32768, 0, 28304, 65536]


def test_rack_scope_reaches_no_node_memory():
    g = build_memory_machine(3, 0)
    lend = Matcher(g, ("memnet",), MemoryPool("lend", "rack"), prune="")
    assert _run(lend, _spec((Resource("memory", 10, exclusive=True),)), 1) is None
