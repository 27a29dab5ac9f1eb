"""Replayed visits (``traverser/replay.py``): sessions of matches, cancels and status changes
give exactly what the same sessions give with every visit walked: return codes, errnos, start
times, selections, visit counts and every planner's contents."""

from __future__ import annotations

import copy

from _random_machines import describe, jobspecs, machines, quartz_machines, snapshot
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from fluxgraph import jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.papers.variation.quartz import build_quartz
from fluxgraph.papers.variation.static_queue import node_jobspec
from fluxgraph.writers.match.simple import SimpleWriter

OPS = st.sampled_from(["allocate", "allocate_orelse_reserve", "satisfiability"])


def _pair(machine, policy: str, prune: str) -> tuple[Matcher, Matcher]:
    """A matcher on ``machine`` and one on a copy of it with replay off (every visit walked)."""
    walked = Matcher(copy.deepcopy(machine), "CA", policy, prune=prune)
    walked.traverser.replay = None
    return Matcher(machine, "CA", policy, prune=prune), walked


def _match(m: Matcher, spec, op: str, job_id: int) -> tuple:
    w = SimpleWriter()
    r = m.run(spec, op, job_id, w)
    return r.rc, r.errno, r.at, r.preorder, r.postorder, w.emit()


def _session(fast: Matcher, slow: Matcher, data, specs) -> None:
    assert fast.traverser.replay is not None and slow.traverser.replay is None
    live: list[int] = []
    for job_id in range(1, data.draw(st.integers(3, 14))):
        action = data.draw(st.integers(0, 9))
        if live and action == 0:
            victim = live.pop(data.draw(st.integers(0, len(live) - 1)))
            note(f"cancel {victim}")
            fast.cancel(victim)
            slow.cancel(victim)
            continue
        if action == 1:
            v = data.draw(st.integers(0, fast.graph.num_vertices - 1))
            status = data.draw(st.sampled_from(["up", "down"]))
            note(f"status {v} {status}")
            assert fast.set_status([v], status) == slow.set_status([v], status)
            continue
        spec = data.draw(specs)
        op = data.draw(OPS)
        note(f"job {job_id}: {op} {spec.resources[0]} d={spec.duration}")
        out = _match(fast, spec, op, job_id)
        assert out == _match(slow, spec, op, job_id)
        if out[0] == 0 and op != "satisfiability":
            live.append(job_id)
    assert snapshot(fast.graph) == snapshot(slow.graph)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    machine=machines(),
    policy=st.sampled_from(["low", "high", "variation", "classpack"]),
    data=st.data(),
)
def test_sessions_on_random_machines_replay_what_a_walk_does(machine, policy, data):
    note(describe(machine))
    prune = data.draw(st.sampled_from(["", "ALL:core"]))
    _session(*_pair(machine, policy, prune), data, jobspecs().map(jobspec.load))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    quartz=quartz_machines((2, 8)),
    policy=st.sampled_from(["high", "variation", "classpack", "classpack-strict"]),
    data=st.data(),
)
def test_whole_node_sessions_replay_what_a_walk_does(quartz, policy, data):
    machine, pooled = quartz
    nodes = len(machine.by_type["node"])
    specs = st.builds(
        node_jobspec,
        st.integers(1, nodes),
        st.sampled_from([60, 600, 3600]),
        st.just(0 if pooled else 2),
        st.integers(1, 4) if pooled else st.integers(1, 2),
        st.lists(st.integers(1, 3), unique=True, max_size=2).map(sorted),
    )
    _session(*_pair(machine, policy, "ALL:core,ALL:node"), data, specs)


def test_replay_is_used_and_off_where_visits_keep_state():
    machine = build_quartz(1, 4, 2, 2, [1, 2, 3, 1], False)
    for policy, used in (("high", True), ("variation", True), ("first", False), ("lonode", False)):
        m = Matcher(copy.deepcopy(machine), "CA", policy, prune="ALL:core,ALL:node")
        assert (m.traverser.replay is not None) is used, policy
        if used:
            for job_id in (1, 2):
                assert m.run(node_jobspec(1, 60, 2, 2), "allocate", job_id, SimpleWriter()).rc == 0
            assert m.traverser.replay.memo


def test_a_property_edit_drops_the_records():
    machine = build_quartz(1, 4, 1, 2, [1, 2, 2, 3], False)
    fast, slow = _pair(machine, "variation", "ALL:core,ALL:node")
    spec = node_jobspec(2, 60, 1, 2)
    assert _match(fast, spec, "allocate", 1) == _match(slow, spec, "allocate", 1)
    assert fast.traverser.replay.memo
    for m in (fast, slow):
        m.cancel(1)
        node = m.graph.by_type["node"][3]
        m.graph.properties[node] = {**m.graph.properties[node], "perf_class": "1"}
        m.properties_changed()
    assert not fast.traverser.replay.memo
    assert _match(fast, spec, "allocate", 2) == _match(slow, spec, "allocate", 2)


def test_nodes_alike_share_one_record():
    machine = build_quartz(1, 8, 2, 2, [1, 2, 3, 1, 2, 3, 1, 2], False)
    node5 = next(v for v in machine.by_type["node"] if machine.ids[v] == 5)
    children, dst = machine.child_edges("containment"), machine.edge_dst
    socket = dst[children[node5][0]]
    core = dst[children[socket][1]]
    machine.properties[core] = {"perf_class": "2"}  # node 5's subtree scores differently
    m = Matcher(machine, "CA", "variation", prune="ALL:core,ALL:node")
    visited = []
    visit_below = m.traverser.visit_below
    m.traverser.visit_below = lambda *below: visited.append(below[1]) or visit_below(*below)
    assert m.run(node_jobspec(1, 60, 2, 2), "allocate", 1, SimpleWriter()).rc == 0
    g = m.graph
    # every node was probed; only the first of the seven alike and node 5 were walked below
    assert [g.ids[v] for v in visited if g.types[v] == "node"] == [0, 5]
    assert {g.ids[v] for v in m.traverser.replay.memo if g.types[v] == "node"} == set(range(8))


def test_a_property_edit_reorders_the_candidates():
    machine = build_quartz(1, 4, 1, 2, [1, 2, 2, 3], False)
    m = Matcher(machine, "CA", "variation", prune="ALL:core,ALL:node")
    spec = node_jobspec(2, 60, 1, 2)
    first = SimpleWriter()
    assert m.run(spec, "allocate", 1, first).rc == 0
    text = first.emit()
    assert "node0" in text and "node3" not in text  # classes 1 and 2
    m.cancel(1)
    node = m.graph.by_type["node"][3]
    m.graph.properties[node] = {**m.graph.properties[node], "perf_class": "1"}
    m.properties_changed()
    again = SimpleWriter()
    assert m.run(spec, "allocate", 2, again).rc == 0
    text = again.emit()
    assert "node0" in text and "node3" in text  # both of class 1 now
