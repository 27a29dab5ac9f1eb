"""The locality-aware policy (matching-semantics §8.3) through its hooks and the Matcher."""

from __future__ import annotations

import pytest
from _policy_graphs import JOB_1N, JOB_1N_DICT, RESOURCE, small, small_from_graphml

from fluxgraph.graph import STATUS_DOWN
from fluxgraph.matcher import Matcher
from fluxgraph.policies import POLICIES, LocalityAware, create_policy
from fluxgraph.policies.locality import run_starts
from fluxgraph.policies.scoring import EGroup, ScoringObject
from fluxgraph.traverser.request import Request


def _groups(dfu: ScoringObject, rtype: str, scores: list[int]) -> None:
    for i, s in enumerate(scores):
        dfu.add("containment", rtype, EGroup(s, 1, False, False, [(1, 1, False, i)]))


def _chosen(dfu: ScoringObject, rtype: str) -> list[int]:
    ev = dfu.evals[("containment", rtype)]
    return [g.score for g in ev.groups[: ev.best_i]]


def _req(rtype: str, count: int) -> Request:
    return Request(rtype, count, count, "+", 1, None, "", ())


def _nodes(graph, policy: str, jobs: int, jobspec=JOB_1N_DICT) -> list[list[str]]:
    m = Matcher(graph, "CA", policy)
    out = []
    for _ in range(jobs):
        r = m.match(jobspec)
        out.append([v.name for v in r.resources if v.type == "node"])
    return out


def _job(nodes: int) -> dict:
    spec = dict(JOB_1N_DICT)
    spec["resources"] = [dict(JOB_1N_DICT["resources"][0], count=nodes)]
    return spec


def test_run_starts_joins_consecutive_scores():
    assert run_starts({4, 2, 3, 9, 7, 10}) == {2: 2, 3: 2, 4: 2, 7: 7, 9: 9, 10: 9}
    assert run_starts(set()) == {}
    assert run_starts({5}) == {5: 5}


def test_locality_is_a_named_policy():
    assert POLICIES["locality"]() == LocalityAware()
    assert repr(create_policy("locality")) == "LocalityAware()"
    assert LocalityAware.stop_on_k == 0
    assert LocalityAware.exclusive_types == ()


def test_locality_finish_graph_orders_by_highest_run():
    dfu = ScoringObject()
    _groups(dfu, "node", [2, 3, 4, 9, 10, 6])
    assert LocalityAware().dom_finish_graph(None, "containment", [_req("node", 3)], dfu) == 0
    # runs [2,4], [6,6], [9,10]: the highest run first, ties in graph order (≤ 16 groups)
    assert _chosen(dfu, "node") == [9, 10, 6]


def test_locality_interval_set_is_shared_across_top_level_requests():
    dfu = ScoringObject()
    _groups(dfu, "a", [6])
    _groups(dfu, "b", [5, 7])
    reqs = [_req("a", 1), _req("b", 1)]
    assert LocalityAware().dom_finish_graph(None, "containment", reqs, dfu) == 0
    # alone, b's runs [5] and [7] would put 7 first; a's 6 joins them into one tied run [5, 7]
    assert _chosen(dfu, "b") == [5]
    alone = ScoringObject()
    _groups(alone, "b", [5, 7])
    LocalityAware().dom_finish_graph(None, "containment", [_req("b", 1)], alone)
    assert _chosen(alone, "b") == [7]


def test_locality_finish_graph_fails_when_short():
    dfu = ScoringObject()
    _groups(dfu, "node", [2, 3])
    assert LocalityAware().dom_finish_graph(None, "containment", [_req("node", 3)], dfu) == -1


def test_locality_ties_in_one_run_follow_introsort():
    dfu = ScoringObject()
    _groups(dfu, "node", list(range(2, 22)))  # 20 consecutive scores: one run, all tie
    LocalityAware().dom_finish_graph(None, "containment", [_req("node", 1)], dfu)
    assert _chosen(dfu, "node") == [12]  # index 10 of 20 equal keys (§9.1), not the first


def test_locality_finish_slot_orders_members_highest_first():
    dfu = ScoringObject()
    _groups(dfu, "core", [3, 5, 4])
    assert LocalityAware().dom_finish_slot(None, "containment", dfu) == 0
    assert _chosen(dfu, "core") == [5, 4, 3]


def test_locality_spec_vectors_on_store_graph():
    assert _nodes(small(20), "locality", 3) == [["node10"], ["node19"], ["node18"]]


def test_locality_spec_vectors_on_graphml():
    if not RESOURCE.is_dir():
        pytest.skip("../shared is absent")
    g = small_from_graphml(20)
    assert _nodes(g, "locality", 3, JOB_1N) == [["node10"], ["node19"], ["node18"]]
    assert _nodes(small_from_graphml(20), "high", 3, JOB_1N) == [
        ["node19"],
        ["node18"],
        ["node17"],
    ]


def test_locality_keeps_a_job_in_the_highest_free_run():
    g = small(20)
    for n in (5, 14):
        g.status[g.by_name[f"node{n}"][0]] = STATUS_DOWN
    # free runs: node0-4, node6-13, node15-19
    (job1,) = _nodes(g, "locality", 1, _job(3))
    assert {int(n[4:]) for n in job1} <= set(range(15, 20))


def test_locality_spills_into_the_next_run():
    g = small(20)
    for n in (5, 14):
        g.status[g.by_name[f"node{n}"][0]] = STATUS_DOWN
    (job,) = _nodes(g, "locality", 1, _job(7))
    ids = {int(n[4:]) for n in job}
    assert set(range(15, 20)) <= ids
    assert len(ids - set(range(15, 20))) == 2
    assert ids - set(range(15, 20)) <= set(range(6, 14))


def test_small_store_graph_equals_graphml():
    if not RESOURCE.is_dir():
        pytest.skip("../shared is absent")
    a, b = small_from_graphml(20), small(20)
    for field in ("types", "names", "ids", "uniq_ids", "ranks", "sizes", "units", "paths"):
        assert getattr(a, field) == getattr(b, field), field
    for field in ("edge_src", "edge_dst", "out_edges", "roots"):
        assert getattr(a, field) == getattr(b, field), field
