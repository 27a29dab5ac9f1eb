"""The variation-aware policy (matching-semantics §8.4) and the Fluxion paper's figure of merit."""

from __future__ import annotations

import pytest
from _policy_graphs import JOB_1N, JOB_1N_DICT, RESOURCE, small, small_from_graphml

from fluxgraph.matcher import Matcher
from fluxgraph.policies import POLICIES, VariationAware, create_policy
from fluxgraph.policies.scoring import EGroup, ScoringObject
from fluxgraph.policies.variation import PERF_CLASS_DEFAULT, perf_class


def _job(nodes: int) -> dict:
    spec = dict(JOB_1N_DICT)
    spec["resources"] = [dict(JOB_1N_DICT["resources"][0], count=nodes)]
    return spec


def _node_ids(result) -> list[int]:
    return [int(v.name[4:]) for v in result.resources if v.type == "node"]


def _set_classes(graph, classes: dict[int, str]) -> None:
    for n, c in classes.items():
        graph.properties[graph.by_name[f"node{n}"][0]]["perf_class"] = c


def _fom(classes: list[int], nodes: list[int]) -> int:
    """The paper's Eq. 2: max - min performance class of a job's nodes."""
    p = [classes[n] for n in nodes]
    return max(p) - min(p)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3", 3),
        ("0", 0),
        ("9999", 9999),
        ("00003", 3),
        ("3x", 3),
        ("3.7", 3),
        ("1e3", 1),
        ("0x1A", 0),
        (" 7", 7),
        ("\t\n+2", 2),
        ("-0", 0),
        ("10000", PERF_CLASS_DEFAULT),
        ("-1", PERF_CLASS_DEFAULT),
        ("-6666", PERF_CLASS_DEFAULT),
        ("8888888", PERF_CLASS_DEFAULT),
        ("99999999999999999999999", PERF_CLASS_DEFAULT),
        ("0000000000000000000000042", 42),
        ("random", PERF_CLASS_DEFAULT),
        ("wrong", PERF_CLASS_DEFAULT),
        ("", PERF_CLASS_DEFAULT),
        ("+", PERF_CLASS_DEFAULT),
        ("- 3", PERF_CLASS_DEFAULT),
        ("\u0663", PERF_CLASS_DEFAULT),  # a non-ASCII digit: not a digit to stoi
        ("\u00a03", PERF_CLASS_DEFAULT),  # a non-C-locale blank
    ],
)
def test_perf_class_parses_like_stoi(text, expected):
    assert perf_class({"perf_class": text}) == expected


def test_perf_class_missing_is_default():
    assert perf_class({}) == PERF_CLASS_DEFAULT
    assert perf_class({"other": "1"}) == PERF_CLASS_DEFAULT


def test_variation_is_a_named_policy():
    assert POLICIES["variation"]() == VariationAware()
    assert repr(create_policy("variation")) == "VariationAware()"
    assert VariationAware.stop_on_k == 0
    assert VariationAware.exclusive_types == ()


def test_variation_finish_slot_orders_members_highest_first():
    dfu = ScoringObject()
    for i, s in enumerate([3, 5, 4]):
        dfu.add("containment", "core", EGroup(s, 1, False, False, [(1, 1, False, i)]))
    assert VariationAware().dom_finish_slot(None, "containment", dfu) == 0
    ev = dfu.evals[("containment", "core")]
    assert [g.score for g in ev.groups] == [5, 4, 3]


def test_variation_spec_vectors_on_store_graph():
    m = Matcher(small(20), "CA", "variation")
    assert [_node_ids(m.match(JOB_1N_DICT)) for _ in range(3)] == [[10], [9], [11]]


def test_variation_spec_vectors_on_graphml():
    if not RESOURCE.is_dir():
        pytest.skip("../shared is absent")
    m = Matcher(small_from_graphml(20), "CA", "variation")
    assert [_node_ids(m.match(JOB_1N)) for _ in range(3)] == [[10], [9], [11]]


def test_variation_fills_best_class_first():
    g = small(8)
    _set_classes(g, {0: "3", 1: "1", 2: "2", 3: "1", 4: "2", 5: "2", 6: "3", 7: "2"})
    m = Matcher(g, "CA", "variation")
    jobs = [sorted(_node_ids(m.match(_job(n)))) for n in (2, 1, 4, 1)]
    # class 1 = {1, 3}; class 2 = {2, 4, 5, 7} (ties in graph order); class 3 = {0, 6}
    assert jobs == [[1, 3], [2], [0, 4, 5, 7], [6]]


def test_variation_puts_nodes_without_class_last():
    g = small(8)
    _set_classes(g, {0: "3", 1: "1", 3: "1", 4: "wrong", 5: "2", 6: "3", 7: "2"})
    m = Matcher(g, "CA", "variation")
    jobs = [sorted(_node_ids(m.match(_job(n)))) for n in (2, 1, 4, 1)]
    assert jobs == [[1, 3], [5], [0, 2, 6, 7], [4]]


# Five performance classes (1 = best) spread over 20 nodes so that id order mixes them.
FIVE_CLASSES = [(7 * n) % 5 + 1 for n in range(20)]
NODE_COUNTS = (3, 2, 4, 1, 3, 2, 4)


def _foms(policy: str) -> list[int]:
    g = small(20)
    _set_classes(g, {n: str(c) for n, c in enumerate(FIVE_CLASSES)})
    m = Matcher(g, "CA", policy)
    return [_fom(FIVE_CLASSES, _node_ids(m.match(_job(n)))) for n in NODE_COUNTS]


def test_variation_spans_fewer_classes_than_id_policies():
    var, high, low = _foms("variation"), _foms("high"), _foms("low")
    assert sum(var) < sum(high)
    assert sum(var) < sum(low)
    # four nodes per class: every job fits the best class left, except where a class runs out
    assert max(var) <= 1
    assert var.count(0) > high.count(0)
    assert var.count(0) > low.count(0)
