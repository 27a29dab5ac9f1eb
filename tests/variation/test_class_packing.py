"""Class packing (spec §4.3): worked examples with exact nodes, and the brute-force oracle."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from variation_oracle import check_run

from fluxgraph.errors import MatchError
from fluxgraph.matcher import Matcher
from fluxgraph.papers.variation.quartz import build_quartz
from fluxgraph.papers.variation.static_queue import fom_histogram, run_static_queue
from fluxgraph.policies import ClassPacking, create_policy
from fluxgraph.policies.class_packing import narrowest_windows
from fluxgraph.workload import Job

POLICIES = ("high", "low", "variation", "classpack", "classpack-strict")


def _run(classes, jobs, policy, racks=1):
    graph = build_quartz(racks, len(classes) // racks, 1, 1, classes=classes)
    matcher = Matcher(graph, "CA", policy, prune="ALL:core,ALL:node")
    return run_static_queue(matcher, jobs, sockets=1, cores=1)


def _jobs(*shapes):
    return [Job(i, 0, d, d, nodes=n) for i, (n, d) in enumerate(shapes, start=1)]


def test_classpack_takes_one_class_where_variation_spreads():
    classes = [1, 1, 2, 2, 2, 3]
    jobs = _jobs((3, 60))
    (var,) = _run(classes, jobs, "variation")
    (cp,) = _run(classes, jobs, "classpack")
    assert sorted(classes[v] for v in var.node_ids) == [1, 1, 2]
    assert (cp.start, cp.node_ids) == (0, (2, 3, 4))


def test_classpack_bestfit_takes_the_fullest_class_and_fastest_the_best():
    classes = [1, 1, 1, 1, 2, 2, 2, 3, 3]
    jobs = _jobs((3, 60))
    (best,) = _run(classes, jobs, "classpack")
    (fast,) = _run(classes, jobs, ClassPacking(tie="fastest"))
    assert best.node_ids == (4, 5, 6)
    assert {classes[v] for v in fast.node_ids} == {1}


def test_classpack_slack_decides_between_now_and_one_class_later():
    # job 1 (5 nodes, 100 s) needs classes {1, 2}; job 2 (2 nodes) then fits now only over the
    # two classes left, or in one class when job 1 has ended
    classes = [1, 1, 1, 2, 2, 2, 3]
    jobs = _jobs((5, 100), (2, 50))
    now = _run(classes, jobs, "classpack")
    strict = _run(classes, jobs, "classpack-strict")
    assert now[0].node_ids == strict[0].node_ids == (0, 1, 2, 3, 4)
    assert (now[1].start, now[1].node_ids) == (0, (5, 6))
    assert (strict[1].start, strict[1].node_ids) == (100, (0, 1))
    assert fom_histogram(now, classes) == [0, 2, 0, 0, 0]
    assert fom_histogram(strict, classes) == [1, 1, 0, 0, 0]


def test_classpack_strict_spreads_only_when_no_class_can_hold_the_job():
    classes = [1, 1, 2, 2, 3, 3]
    (rec,) = _run(classes, _jobs((3, 60)), "classpack-strict")
    assert rec.start == 0 and sorted(classes[v] for v in rec.node_ids) == [1, 1, 2]


def test_narrowest_windows_examples():
    assert narrowest_windows({1: 2, 3: 2, 5: 9}, 9) == (0, [(5, 9)])
    assert narrowest_windows({1: 2, 3: 2}, 3) == (2, [(1, 4)])
    assert narrowest_windows({}, 1) == (-1, [])


@pytest.mark.parametrize(
    "bad", [{"slack": "60"}, {"slack": -1}, {"slack": math.nan}, {"tie": "worst"}]
)
def test_classpack_rejects_unsupported_options(bad):
    with pytest.raises(MatchError):
        ClassPacking(**bad)


def test_classpack_names():
    assert repr(create_policy("classpack")) == "ClassPacking(slack=0, tie='bestfit')"
    assert create_policy("classpack-strict").slack == math.inf
    assert create_policy("classpack:slack=1800") == ClassPacking(slack=1800)
    assert create_policy("classpack:slack=inf,tie=fastest") == ClassPacking(math.inf, "fastest")
    assert create_policy("classpack:tie=fastest,slack=2.5") == ClassPacking(2.5, "fastest")


@pytest.mark.parametrize(
    "bad", ["classpack:", "classpack:slack=-1", "classpack:slack=soon", "classpack:slack=nan",
            "classpack:slack=1,slack=2", "classpack:budget=60", "classpack:tie=worst"],
)  # fmt: skip
def test_classpack_names_reject_bad_options(bad):
    with pytest.raises(MatchError, match=r"slack|option|tie"):
        create_policy(bad)


_shapes = st.tuples(st.integers(1, 6), st.sampled_from([10, 25, 60, 100]))


@settings(max_examples=40, deadline=None)
@given(
    racks=st.integers(1, 2),
    classes=st.lists(st.integers(1, 5), min_size=3, max_size=7),
    shapes=st.lists(_shapes, min_size=1, max_size=10),
    policy=st.sampled_from(POLICIES),
)
def test_static_queue_follows_the_brute_force_oracle(racks, classes, shapes, policy):
    classes = classes * racks
    jobs = _jobs(*[(min(n, len(classes)), d) for n, d in shapes])
    records = _run(classes, jobs, policy, racks)
    assert check_run(policy, classes, jobs, records) == len(jobs)
    again = _run(classes, jobs, policy, racks)
    assert [(r.start, r.node_ids) for r in again] == [(r.start, r.node_ids) for r in records]


@settings(max_examples=200, deadline=None)
@given(
    counts=st.dictionaries(st.integers(0, 12), st.integers(1, 9), max_size=6),
    n=st.integers(1, 30),
)
def test_narrowest_windows_equal_brute_force(counts, n):
    fits = [
        (hi - a, a, sum(u for c, u in counts.items() if a <= c <= hi))
        for a in counts
        for hi in range(a, 13)
    ]
    fits = [f for f in fits if f[2] >= n]
    width, windows = narrowest_windows(counts, n)
    if not fits:
        assert (width, windows) == (-1, [])
        return
    best = min(w for w, _, _ in fits)
    assert width == best
    assert windows == sorted((a, u) for w, a, u in fits if w == best)


def test_classpack_with_a_budget_waits_for_one_class_only_within_it():
    # the example above: job 2 spreads now, or takes one class at 100 s (job 1's end)
    classes = [1, 1, 1, 2, 2, 2, 3]
    jobs = _jobs((5, 100), (2, 50))
    short = _run(classes, jobs, "classpack:slack=99")
    enough = _run(classes, jobs, "classpack:slack=100")
    assert (short[1].start, short[1].node_ids) == (0, (5, 6))
    assert (enough[1].start, enough[1].node_ids) == (100, (0, 1))


@settings(max_examples=40, deadline=None)
@given(
    racks=st.integers(1, 2),
    classes=st.lists(st.integers(1, 5), min_size=3, max_size=7),
    shapes=st.lists(_shapes, min_size=1, max_size=10),
    slack=st.sampled_from([10, 25, 60, 1000]),
)
def test_classpack_budget_follows_the_brute_force_oracle(racks, classes, shapes, slack):
    classes = classes * racks
    jobs = _jobs(*[(min(n, len(classes)), d) for n, d in shapes])
    records = _run(classes, jobs, f"classpack:slack={slack}", racks)
    assert check_run("classpack", classes, jobs, records, slack) == len(jobs)
