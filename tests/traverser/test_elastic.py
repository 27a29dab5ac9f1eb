"""Tests for elasticity: reader-driven update, partial cancel, attach, subgraph and rank removal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fluxgraph import jobspec as js
from fluxgraph.errors import MatchError, ReaderError
from fluxgraph.matcher import Matcher
from fluxgraph.readers import load
from fluxgraph.readers.jgf import from_jgf
from fluxgraph.readers.rv1exec import from_rv1exec
from fluxgraph.traverser.elastic import RankRemovalError
from fluxgraph.traverser.state import X_CHECKER_NJOBS
from fluxgraph.writers.jgf import to_jgf
from fluxgraph.writers.match import create

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "grug_recipes" / "tiny.graphml"
TIMES = (0, 1, 1800, 3599, 3600, 7200)


def spec(*resources: dict, duration: int = 3600) -> object:
    return js.load(
        {
            "version": 9999,
            "resources": list(resources),
            "tasks": [{"command": ["app"], "slot": "default", "count": {"per_slot": 1}}],
            "attributes": {"system": {"duration": duration}},
        }
    )


def slot(*with_: dict, count: int = 1) -> dict:
    return {"type": "slot", "count": count, "label": "default", "with": list(with_)}


def res(rtype: str, count: int, *with_: dict, exclusive: bool | None = None) -> dict:
    out = {"type": rtype, "count": count}
    if with_:
        out["with"] = list(with_)
    if exclusive is not None:
        out["exclusive"] = exclusive
    return out


CORE_JOB = spec(res("node", 1, slot(res("socket", 1, res("core", 2)))))
NODE_JOB = spec(slot(res("node", 1, res("socket", 2, res("core", 4)))))
RV1 = {
    "version": 1,
    "execution": {
        "R_lite": [{"rank": "0-2", "children": {"core": "0-3", "gpu": "0"}}],
        "nodelist": ["node[0-2]"],
    },
}
RV1_NODE_JOB = spec(slot(res("node", 1, res("core", 4), res("gpu", 1))))
NODE4 = spec(slot(res("node", 1, res("core", 4))))


def match(m: Matcher, job, job_id: int, fmt: str = "jgf", op: str = "allocate") -> str:
    w = create(fmt)
    out = m.run(job, op, job_id, w)
    assert out.rc == 0, out
    return w.emit()


def state(m: Matcher) -> list:
    """Every vertex's job maps and planner availability (comparable between matchers)."""
    g = m.graph
    sched = g.schedule
    rows = []
    for v in range(g.num_vertices):
        row = [g.paths[v], g.ranks[v]]
        for name in ("allocations", "reservations", "tags", "x_spans", "job2span"):
            row.append(sorted((getattr(sched, name)[v] or {}).keys()))
        plan = sched.plans[v]
        row.append([plan.avail_resources_at(t) if plan else g.sizes[v] for t in TIMES])
        xc = sched.x_checkers[v]
        row.append([xc.avail_resources_at(t) if xc else X_CHECKER_NJOBS for t in TIMES])
        agg = (sched.subplans[v] or {}).get("containment")
        if agg is not None:
            row.append(agg.resource_types)
            row.append([agg.avail_resources_array_at(t) for t in TIMES])
            row.append([agg.resource_total_at(i) for i in range(len(agg.resource_types))])
        rows.append(row)
    return rows


@pytest.fixture
def tiny() -> Matcher:
    return Matcher(load(TINY), "CA", "high")


def fresh() -> Matcher:
    return Matcher(load(TINY), "CA", "high")


# -- update ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("job", [CORE_JOB, NODE_JOB], ids=["cores", "node"])
def test_update_jgf_recreates_the_matched_state(tiny, job):
    text = match(tiny, job, 1)
    other = fresh()
    w = create("jgf")
    out = other.update("jgf", text, 1, 0, 3600, w)
    assert (out.rc, out.errno, out.message) == (0, 0, "")
    assert w.emit() == text
    assert state(other) == state(tiny)
    # both graphs go on to choose the same resources
    assert match(other, job, 2, "simple") == match(tiny, job, 2, "simple")


def test_update_at_a_later_time_reserves_the_window(tiny):
    text = match(tiny, CORE_JOB, 1, op="allocate_orelse_reserve")
    other = fresh()
    out = other.update("jgf", text, 7, 100, 50, create("simple"))
    assert out.rc == 0 and (out.at, out.duration) == (100, 50)
    g = other.graph
    busy = [v for v in range(g.num_vertices) if g.schedule.allocations[v]]
    assert busy and all(g.schedule.plans[v].avail_resources_at(99) == 1 for v in busy)
    assert all(g.schedule.plans[v].avail_resources_at(100) == 0 for v in busy)
    assert all(g.schedule.plans[v].avail_resources_at(150) == 1 for v in busy)


def test_update_of_taken_resources_fails_and_changes_nothing(tiny):
    text = match(tiny, CORE_JOB, 1)
    before = state(tiny)
    w = create("simple")
    out = tiny.update("jgf", text, 2, 0, 3600, w)
    assert out.rc == -1
    assert out.message.startswith("update_vtx_plan: can't add span into core")
    assert state(tiny) == before
    assert w.emit() == ""


def _single(g, path: str, exclusive: bool = True) -> str:
    """A JGF selection of the one vertex at ``path`` (no edges)."""
    v = g.find_path(path)
    meta = {"type": g.types[v], "basename": g.basenames[v], "id": g.ids[v], "rank": g.ranks[v]}
    meta.update(exclusive=exclusive, paths={"containment": path})
    return json.dumps({"graph": {"nodes": [{"id": str(v), "metadata": meta}], "edges": []}})


def test_update_shared_vertex_must_be_free(tiny):
    assert (
        tiny.update("jgf", _single(tiny.graph, "/tiny0/node1"), 1, 0, 10, create("simple")).rc == 0
    )
    text = match(fresh(), CORE_JOB, 1)  # two cores of node1, node1 shared
    out = tiny.update("jgf", text, 2, 0, 3600, create("simple"))
    assert out.rc == -1 and out.message == "update_vtx_plan: node1 is unavailable.\n"
    assert tiny.update("jgf", text, 2, 10, 3600, create("simple")).rc == 0  # free from 10 on


def test_update_reports_an_inconsistent_vertex(tiny):
    doc = json.loads(match(fresh(), CORE_JOB, 1))
    node = next(n for n in doc["graph"]["nodes"] if n["metadata"]["type"] == "core")
    node["metadata"]["id"] = 99
    out = tiny.update("jgf", json.dumps(doc), 1, 0, 3600, create("simple"))
    key, old = node["id"], tiny.graph.ids[int(node["id"])]
    assert out.message == (
        f"find_vtx: inconsistent input vertex for {key}.\n"
        f" id=({old}, 99) name=(core{old}, core99).\n"
    )


def test_update_without_a_root_mark_adds_spans_but_walks_nothing(tiny):
    core = tiny.graph.find_path("/tiny0/node0/socket0/core0")
    w = create("simple")
    out = tiny.update("jgf", _single(tiny.graph, "/tiny0/node0/socket0/core0"), 4, 0, 10, w)
    assert out.rc == 0 and w.emit() == ""
    sched = tiny.graph.schedule
    assert list(sched.allocations[core]) == [4]
    assert not sched.tags[core]


def test_update_rejects_unknown_reader(tiny):
    out = tiny.update("grug", "{}", 1, 0, 10, create("simple"))
    assert out.rc == -1 and "unsupported reader grug" in out.message


def test_update_rv1exec_recreates_the_matched_state():
    a, b = (Matcher(from_rv1exec(RV1), "CA", "high") for _ in range(2))
    text = match(a, RV1_NODE_JOB, 1, "rv1_nosched")
    w = create("rv1_nosched")
    out = b.update("rv1exec", text, 1, 0, 3600, w)
    assert out.rc == 0
    assert w.emit() == text
    assert state(b) == state(a)


def test_update_rv1exec_with_an_unknown_child_changes_nothing():
    m = Matcher(from_rv1exec(RV1), "CA", "high")
    before = state(m)
    r = json.loads(json.dumps(RV1))
    r["execution"]["R_lite"] = [{"rank": "1", "children": {"core": "0-3", "asic": "0"}}]
    r["execution"]["nodelist"] = ["node1"]
    out = m.update("rv1exec", json.dumps(r), 1, 0, 3600, create("simple"))
    assert out.rc == -1
    assert out.message.startswith("add_or_update: couldn't find vertex in graph for asic0.\n")
    assert state(m) == before


# -- partial cancel -------------------------------------------------------------------------------


def test_partial_cancel_of_every_rank_equals_a_full_cancel():
    a, b = (Matcher(from_rv1exec(RV1), "CA", "low") for _ in range(2))
    for m in (a, b):
        match(m, RV1_NODE_JOB, 1)
        match(m, spec(slot(res("node", 1, res("core", 4)), count=2)), 2)
    a.cancel(2)
    r = {"version": 1, "execution": {"R_lite": [{"rank": "1-2", "children": {}}], "nodelist": []}}
    assert b.partial_cancel(2, "rv1exec", json.dumps(r)) is True
    assert state(b) == state(a)
    assert b.traverser.preorder == b.traverser.postorder == 0


def test_partial_cancel_of_one_rank_keeps_the_rest_of_the_job():
    m = Matcher(from_rv1exec(RV1), "CA", "low")
    match(m, spec(slot(res("node", 1, res("core", 4)), count=2)), 1)
    r = {"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {}}], "nodelist": []}}
    assert m.partial_cancel(1, "rv1exec", json.dumps(r)) is False
    g = m.graph
    sched = g.schedule
    assert not any(sched.tags[v] for v in g.by_rank[0])
    assert all(sched.tags[v] for v in g.by_rank[1] if g.types[v] != "gpu")
    root_agg = sched.subplans[g.roots["containment"]]["containment"]
    assert (
        root_agg.span_planned_at(sched.job2span[0][1], root_agg.resource_types.index("core")) == 4
    )  # cores of rank 1 only
    # the released rank can be allocated again, and the rest cancels cleanly
    assert "node0" in match(m, NODE4, 2, "simple")
    m.cancel(1)
    m.cancel(2)
    assert state(m) == state(Matcher(from_rv1exec(RV1), "CA", "low"))


def test_partial_cancel_jgf_releases_listed_vertices():
    m = Matcher(from_rv1exec(RV1), "CA", "low")
    doc = json.loads(match(m, spec(slot(res("node", 1, res("core", 4)), count=2)), 1))
    doc["graph"]["nodes"] = [n for n in doc["graph"]["nodes"] if n["metadata"]["rank"] == 1]
    assert m.partial_cancel(1, "jgf", json.dumps(doc)) is False  # rank 0 is still held
    g = m.graph
    sched = g.schedule
    assert not any(sched.allocations[v] or sched.tags[v] for v in g.by_rank[1])
    root_agg = sched.subplans[g.roots["containment"]]["containment"]
    assert (
        root_agg.span_planned_at(sched.job2span[0][1], root_agg.resource_types.index("core")) == 4
    )
    rank0 = json.loads(match(Matcher(from_rv1exec(RV1), "CA", "low"), NODE4, 1))
    doc["graph"]["nodes"] = [n for n in rank0["graph"]["nodes"] if n["metadata"]["rank"] == 0]
    assert m.partial_cancel(1, "jgf", json.dumps(doc)) is True
    assert state(m) == state(Matcher(from_rv1exec(RV1), "CA", "low"))


def test_partial_cancel_rejects_a_vertex_the_job_does_not_hold(tiny):
    match(tiny, CORE_JOB, 1)
    other = json.loads(match(fresh(), spec(slot(res("node", 1, exclusive=True))), 1))
    before = state(tiny)
    with pytest.raises(MatchError) as info:
        tiny.partial_cancel(1, "jgf", json.dumps(other))
    assert "can't find x_checker span for job 1" in str(info.value)
    assert state(tiny) == before


def test_partial_cancel_rejects_bad_job_and_reader(tiny):
    with pytest.raises(MatchError, match="invalid jobid"):
        tiny.partial_cancel(0, "jgf", "{}")
    with pytest.raises(MatchError, match="unsupported reader"):
        tiny.partial_cancel(1, "hwloc", "{}")
    with pytest.raises(MatchError, match="partial_cancel returned error"):
        tiny.partial_cancel(5, "jgf", "{}")  # not a job of this graph


# -- attach ---------------------------------------------------------------------------------------


def _half_and_whole() -> tuple[dict, dict]:
    whole = to_jgf(load(TINY))
    keep = {n["id"] for n in whole["graph"]["nodes"]}
    keep -= {
        n["id"]
        for n in whole["graph"]["nodes"]
        if n["metadata"]["paths"]["containment"].startswith("/tiny0/node1")
    }
    half = {
        "graph": {
            "nodes": [n for n in whole["graph"]["nodes"] if n["id"] in keep],
            "edges": [
                e for e in whole["graph"]["edges"] if e["source"] in keep and e["target"] in keep
            ],
        }
    }
    return half, whole


def test_attach_grows_the_graph_and_its_aggregates():
    half, whole = _half_and_whole()
    m = Matcher(from_jgf(half), "CA", "high")
    match(m, NODE_JOB, 1)
    before = m.graph.num_vertices
    m.attach(json.dumps(whole))
    g = m.graph
    g._check()
    assert g.num_vertices == load(TINY).num_vertices > before
    root_agg = g.schedule.subplans[g.roots["containment"]]["containment"]
    assert root_agg.resource_total_by_type("core") == 16
    assert root_agg.avail_resources_at(0, root_agg.resource_types.index("core")) == 8
    assert "node1" in match(m, NODE_JOB, 2, "simple")  # the new node is usable


def test_attach_with_a_second_root_changes_nothing(tiny):
    before = (tiny.graph.num_vertices, state(tiny))
    other = to_jgf(from_rv1exec(RV1))
    with pytest.raises(ReaderError) as info:
        tiny.attach(json.dumps(other))
    assert "Possible duplicate root" in info.value.reference_message
    assert (tiny.graph.num_vertices, state(tiny)) == before


# -- removal --------------------------------------------------------------------------------------


def test_remove_subgraph_cuts_the_subtree_and_reprimes(tiny):
    g = tiny.graph
    uniq = {g.paths[v]["containment"]: g.uniq_ids[v] for v in range(g.num_vertices)}
    tiny.remove_subgraph("/tiny0/node1/socket1")
    g._check()
    assert g.find_path("/tiny0/node1/socket1") is None
    assert g.find_path("/tiny0/node1/socket1/core15") is None
    assert all(uniq[g.paths[v]["containment"]] == g.uniq_ids[v] for v in range(g.num_vertices))
    root_agg = g.schedule.subplans[g.roots["containment"]]["containment"]
    assert root_agg.resource_total_by_type("core") == 12
    two_sockets = spec(res("node", 1, slot(res("socket", 2, res("core", 4)))))
    assert "node0" in match(tiny, two_sockets, 1, "simple")  # node1 has one socket left
    assert tiny.run(two_sockets, "allocate", 2, create("simple")).rc == -1


def test_remove_subgraph_of_an_unknown_path_changes_nothing(tiny):
    before = state(tiny)
    with pytest.raises(MatchError, match="/no/such"):
        tiny.remove_subgraph("/no/such")
    assert state(tiny) == before


def _ranked() -> Matcher:
    return Matcher(from_rv1exec(RV1), "CA", "low", prune="ALL:core,ALL:node")


def test_remove_ranks_releases_the_jobs_and_removes_the_ranks():
    m = _ranked()
    match(m, RV1_NODE_JOB, 1)  # node0
    match(m, RV1_NODE_JOB, 2)  # node1
    m.remove_ranks([1])
    g = m.graph
    g._check()
    assert 1 not in g.by_rank and g.num_vertices == 1 + 2 * 6
    sched = g.schedule
    root = g.roots["containment"]
    assert sorted(sched.tags[root]) == [1] and sorted(sched.job2span[root]) == [1]
    agg = sched.subplans[root]["containment"]
    assert agg.resource_total_by_type("core") == 8
    assert m.traverser.nodes_up == 2
    match(m, RV1_NODE_JOB, 3)  # node2 is still free
    assert m.run(RV1_NODE_JOB, "allocate", 4, create("simple")).rc == -1


def test_remove_ranks_errors_name_their_stage():
    m = _ranked()
    before = state(m)
    with pytest.raises(RankRemovalError) as info:
        m.remove_ranks([5])
    assert (info.value.stage, str(info.value)) == (
        "partial_cancel",
        "remove: 5 not found in by_rank map.",
    )
    assert state(m) == before


def test_remove_ranks_over_reduces_with_two_jobs_on_a_rank():
    m = _ranked()
    for job_id in (1, 2):  # both land on node0 (policy low), two cores each
        assert "node0" in match(m, spec(res("node", 1, slot(res("core", 2)))), job_id, "simple")
    before = state(m)
    with pytest.raises(RankRemovalError) as info:
        m.remove_ranks([0])  # each job would lose the rank's 4 cores (quirk 21)
    assert info.value.stage == "partial_cancel"
    assert state(m) == before


def test_removals_keep_subsystem_roots(tiny):
    before = state(tiny)
    with pytest.raises(MatchError, match="containment root tiny0"):
        tiny.remove_subgraph("/tiny0")
    assert state(tiny) == before
    m = _ranked()
    m.graph.ranks[0] = 0  # the cluster joins rank 0: its subtree would take the root
    m.graph.by_rank[0].insert(0, 0)
    with pytest.raises(RankRemovalError) as info:
        m.remove_ranks([0])
    assert info.value.stage == "remove"
    assert m.graph.num_vertices == 19
