"""SmallPlanner answers exactly as a Planner with the same history (ids, values, errors)."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.errors import PlannerError
from fluxgraph.planner import INT64_MAX, Planner
from fluxgraph.traverser.state import SMALL_SPANS, SmallPlanner

TIMES = st.one_of(st.integers(-2, 40), st.sampled_from([INT64_MAX - 5, INT64_MAX, INT64_MAX + 1]))
DURATIONS = st.one_of(st.integers(-1, 25), st.sampled_from([INT64_MAX]))
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("add_span"), TIMES, DURATIONS, st.integers(-1, 6)),
        st.tuples(st.just("rem_span"), st.integers(0, 14)),
        st.tuples(st.just("avail_resources_during"), TIMES, DURATIONS),
        st.tuples(st.just("avail_during"), TIMES, DURATIONS, st.integers(0, 7)),
        st.tuples(st.just("avail_resources_at"), TIMES),
        st.tuples(st.just("span_resource_count"), st.integers(0, 14)),
        st.tuples(st.just("span_start_time"), st.integers(0, 14)),
        st.tuples(st.just("span_duration"), st.integers(0, 14)),
        st.tuples(st.just("is_active_span"), st.integers(0, 14)),
        st.tuples(st.just("span_size")),
        st.tuples(st.just("span_ids")),
        st.tuples(st.just("resource_total")),
        # not kept small: the planner is built and takes over
        st.tuples(
            st.just("avail_time_first"), st.integers(0, 40), st.integers(1, 10), st.integers(0, 5)
        ),
        st.tuples(st.just("reduce_span"), st.integers(1, 14), st.integers(0, 3)),
        st.tuples(st.just("update_total"), st.integers(0, 8)),
    ),
    max_size=40,
)


def _call(p, op):
    name, *args = op
    try:
        attr = getattr(p, name)
        out = attr(*args) if callable(attr) else attr
        return ("ok", list(out) if name == "span_ids" else out)
    except PlannerError as err:
        return ("error", type(err).__name__)


@settings(max_examples=300, deadline=None)
@given(total=st.integers(0, 5), ops=OPS)
def test_small_planner_answers_as_the_planner(total, ops):
    small = SmallPlanner(total, "core")
    big = Planner(0, INT64_MAX, total, "core")
    for op in ops:
        assert _call(small, op) == _call(big, op), op
    assert small == big
    assert copy.deepcopy(small) == big


def test_small_planner_becomes_a_planner_beyond_its_span_limit():
    p = SmallPlanner(100, "memory")
    ids = [p.add_span(t, 10, 1) for t in range(SMALL_SPANS)]
    p.rem_span(ids[3])
    assert p._big is None
    p.add_span(50, 10, 1)
    p.add_span(60, 10, 1)
    assert p._big is not None
    assert list(p.span_ids()) == [1, 2, 3, 5, 6, 7, 8, 9, 10]
    assert p.avail_resources_during(0, 100) == 100 - 7  # seven spans overlap at 7-9
