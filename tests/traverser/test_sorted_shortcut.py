"""The sorted-candidate shortcut (``variation`` and ``classpack``: candidate scores known
before the walk, many ties): sessions on random class layouts select exactly what the full
walk selects, with enough candidates that the root's sort is the ``std::sort`` port, not a
stable sort."""

from __future__ import annotations

import copy

from _random_machines import match_on_each, quartz_machines
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from fluxgraph import jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.papers.variation.static_queue import node_jobspec


def _partial(nodes: int, cores: int, duration: int):
    """``nodes`` x node{slot{``cores`` x core}}, nodes shared."""
    slot = {
        "type": "slot",
        "count": 1,
        "label": "default",
        "with": [{"type": "core", "count": cores}],
    }
    return jobspec.load(
        {
            "version": 9999,
            "resources": [{"type": "node", "count": nodes, "with": [slot]}],
            "tasks": [{"command": ["app"], "slot": "default", "count": {"per_slot": 1}}],
            "attributes": {"system": {"duration": duration}},
        }
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    quartz=quartz_machines((6, 14)),
    policy=st.sampled_from(["variation", "classpack", "classpack-strict"]),
    data=st.data(),
)
def test_class_policy_sessions_select_what_the_full_walk_selects(quartz, policy, data):
    machine, pooled = quartz
    fast = Matcher(machine, "CA", policy, prune="ALL:core,ALL:node")
    exact = Matcher(
        copy.deepcopy(machine),
        "CA",
        policy,
        prune="ALL:core,ALL:node",
        exact_visit_counts=True,
    )
    nodes = len(machine.by_type["node"])
    live: list[int] = []
    for job_id in range(1, data.draw(st.integers(4, 16))):
        if live and data.draw(st.integers(0, 4)) == 0:
            victim = live.pop(data.draw(st.integers(0, len(live) - 1)))
            assert fast.traverser.cancel(victim) == exact.traverser.cancel(victim)
            continue
        n = data.draw(st.integers(1, nodes))
        duration = data.draw(st.sampled_from([60, 600, 3600]))
        if data.draw(st.booleans()):
            spec = node_jobspec(n, duration, 0 if pooled else 2, 4 if pooled else 2)
        else:
            spec = _partial(n, data.draw(st.integers(1, 4)), duration)
        op = data.draw(st.sampled_from(["allocate", "allocate_orelse_reserve"]))
        note(f"job {job_id}: {op} n={n} d={duration} {spec.resources[0]}")
        outputs = match_on_each((fast, exact), spec, op, job_id)
        assert outputs[0] == outputs[1]
        if outputs[0][0] == 0:
            live.append(job_id)
