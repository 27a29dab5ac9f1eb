"""Matcher invariants on random machines, against simple oracles.

* whatever is allocated really is free: an exclusively held vertex never serves two jobs whose
  windows overlap, and no vertex gives out more than its size at any time;
* requested counts are honoured;
* cancel restores every planner exactly; a failed match changes nothing;
* the early-termination shortcut selects exactly what the full walk selects.
"""

from __future__ import annotations

import copy
import os

from _random_machines import describe, jobspecs, machines, match_on_each, snapshot
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from fluxgraph import jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.writers.sink import SelectionCollector

EXAMPLES = int(os.environ.get("FLUXGRAPH_ORACLE_EXAMPLES", "60"))
OPS = st.sampled_from(["allocate", "allocate_orelse_reserve", "allocate_with_satisfiability"])
POLICIES = st.sampled_from(["low", "high", "lonode", "hinode", "first", "lonodex", "hinodex"])
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _check_no_oversubscription(graph, jobs: dict) -> None:
    """Per vertex, at every span boundary, exclusive use fits and exclusivity is respected."""
    sizes = graph.sizes
    uses: dict[int, list] = {}
    for job_id, (at, end, vertices) in jobs.items():
        for sv in vertices:
            uses.setdefault(sv.vid, []).append((at, end, sv.needs, sv.exclusive, job_id))
    for v, rows in uses.items():
        for t in {at for at, *_ in rows}:
            live = [r for r in rows if r[0] <= t < r[1]]
            held = sum(r[2] for r in live if r[3])
            assert held <= sizes[v], (graph.names[v], t, live)
            owners = {r[4] for r in live if r[3] and graph.types[v] != "memory"}
            if owners:
                others = {r[4] for r in live} - owners
                assert len(owners) == 1 and not others, (graph.names[v], t, live)


@SETTINGS
@given(machine=machines(), data=st.data(), policy=POLICIES)
def test_matcher_allocations_are_free_and_cancel_restores(machine, data, policy):
    m = Matcher(machine, "CA", policy)
    jobs: dict[int, tuple] = {}
    job_id = 1
    for _ in range(data.draw(st.integers(1, 6))):
        spec = jobspec.load(data.draw(jobspecs()))
        op = data.draw(OPS)
        before = snapshot(machine)
        out = SelectionCollector()
        result = m.run(spec, op, job_id, out)
        if result.rc != 0:
            assert snapshot(machine) == before
            continue
        assert out.start == result.at and out.end == result.at + result.duration
        exclusive_cores = [v for v in out.vertices if v.type == "core" and v.exclusive]
        assert exclusive_cores, "every shape holds cores exclusively"
        jobs[job_id] = (result.at, result.at + result.duration, out.vertices)
        _check_no_oversubscription(machine, jobs)
        if data.draw(st.booleans()):
            assert m.traverser.cancel(job_id) == 0
            assert snapshot(machine) == before
            del jobs[job_id]
        job_id += 1


@SETTINGS
@given(machine=machines(), data=st.data())
def test_matcher_counts_of_node_slot_socket_requests(machine, data):
    nodes = data.draw(st.integers(1, 2))
    slots = data.draw(st.integers(1, 2))
    cores = data.draw(st.integers(1, 3))
    socket = {"type": "socket", "count": 1, "with": [{"type": "core", "count": cores}]}
    slot = {"type": "slot", "count": slots, "label": "task", "with": [socket]}
    spec = {
        "version": 9999,
        "resources": [{"type": "node", "count": nodes, "with": [slot]}],
        "attributes": {"system": {"duration": 60}},
        "tasks": [{"command": ["app"], "slot": "task", "count": {"per_slot": 1}}],
    }
    policy = data.draw(POLICIES)
    m = Matcher(machine, "CA", policy)
    out = SelectionCollector()
    result = m.run(jobspec.load(spec), "allocate", 1, out)
    n_nodes = len(machine.by_type["node"])
    sockets_per_node = len(machine.by_type["socket"]) // n_nodes
    cores_per_socket = len(machine.by_type["core"]) // len(machine.by_type["socket"])
    fits = nodes <= n_nodes and slots <= sockets_per_node and cores <= cores_per_socket
    assert (result.rc == 0) == fits
    if fits:
        picked_nodes = {v.vid for v in out.vertices if v.type == "node"}
        picked_sockets = [v for v in out.vertices if v.type == "socket"]
        picked_cores = [v for v in out.vertices if v.type == "core"]
        assert len(picked_nodes) == nodes
        assert all(v.exclusive and v.needs == 1 for v in picked_cores)
        if policy.endswith("nodex"):  # whole nodes: every socket and core below them
            assert len(picked_sockets) == nodes * sockets_per_node
            assert len(picked_cores) == nodes * sockets_per_node * cores_per_socket
        else:
            assert len(picked_sockets) == nodes * slots
            assert len(picked_cores) == nodes * slots * cores


@SETTINGS
@given(machine=machines(), data=st.data(), policy=st.sampled_from(["low", "high", "lonode"]))
def test_shortcut_selects_what_the_full_walk_selects(machine, data, policy):
    note(describe(machine))
    fast = Matcher(machine, "CA", policy)
    twin = copy.deepcopy(machine)
    exact = Matcher(twin, "CA", policy, exact_visit_counts=True)
    for job_id in range(1, data.draw(st.integers(2, 8))):
        spec = jobspec.load(data.draw(jobspecs()))
        op = data.draw(OPS)
        outputs = match_on_each((fast, exact), spec, op, job_id)
        assert outputs[0] == outputs[1]
        if outputs[0][0] == 0 and data.draw(st.booleans()):
            assert fast.traverser.cancel(job_id) == exact.traverser.cancel(job_id) == 0
