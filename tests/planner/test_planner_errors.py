"""Errno tables of the planner operations (matching-semantics §1.5, §2.2)."""

from __future__ import annotations

from errno import EEXIST, EINVAL, ENOENT, ERANGE

import pytest

from fluxgraph.errors import PlannerError
from fluxgraph.planner import (
    INT64_MAX,
    Planner,
    PlannerBusyError,
    PlannerExistsError,
    PlannerInvalidError,
    PlannerMulti,
    PlannerNotFoundError,
    PlannerRangeError,
)


def _planner():
    """Window [5, 25), 4 units, span 1 = 3 units over [10, 15)."""
    p = Planner(5, 20, 4, "core")
    p.add_span(10, 5, 3)
    return p


def _shrunk():
    p = _planner()
    p.avail_time_first(5, 1, 4)
    p.update_total(2)
    return p


PLANNER_CASES = [
    ("new duration 0", lambda: Planner(0, 0, 1, "a"), EINVAL),
    ("new type None", lambda: Planner(0, 10, 1, None), EINVAL),
    ("new total < 0", lambda: Planner(0, 10, -1, "a"), ERANGE),
    ("new total > INT64_MAX", lambda: Planner(0, 10, INT64_MAX + 1, "a"), ERANGE),
    ("add past plan end", lambda: _planner().add_span(20, 6, 1), EINVAL),
    ("add duration 0", lambda: _planner().add_span(5, 0, 1), EINVAL),
    ("add before base time", lambda: _planner().add_span(4, 2, 1), EINVAL),
    ("add busy", lambda: _planner().add_span(12, 1, 2), EINVAL),
    ("add request > total", lambda: _planner().add_span(5, 1, 5), EINVAL),
    ("add request < 0", lambda: _planner().add_span(5, 1, -1), ERANGE),
    ("rem unknown", lambda: _planner().rem_span(7), EINVAL),
    ("reduce unknown", lambda: _planner().reduce_span(7, 1), EINVAL),
    ("reduce too much", lambda: _planner().reduce_span(1, 4), EINVAL),
    ("during duration 0", lambda: _planner().avail_during(5, 0, 1), EINVAL),
    ("during request > total", lambda: _planner().avail_during(5, 1, 5), ERANGE),
    ("during past plan end", lambda: _planner().avail_during(20, 6, 1), ERANGE),
    ("at past plan end", lambda: _planner().avail_at(25, 1), ERANGE),
    ("resources_during at > end", lambda: _planner().avail_resources_during(26, 1), EINVAL),
    ("resources_during duration 0", lambda: _planner().avail_resources_during(5, 0), EINVAL),
    ("resources_during past end", lambda: _planner().avail_resources_during(20, 6), ERANGE),
    ("resources_during before base", lambda: _planner().avail_resources_during(4, 2), EINVAL),
    (
        "resources_during before base, past end",
        lambda: _planner().avail_resources_during(4, 30),
        ERANGE,
    ),
    ("resources_at past end", lambda: _planner().avail_resources_at(26), ERANGE),
    ("resources_at before base", lambda: _planner().avail_resources_at(4), ERANGE),
    ("first before base", lambda: _planner().avail_time_first(4, 1, 1), EINVAL),
    ("first at plan end", lambda: _planner().avail_time_first(25, 1, 1), EINVAL),
    ("first duration 0", lambda: _planner().avail_time_first(5, 0, 1), EINVAL),
    ("first request > total", lambda: _planner().avail_time_first(5, 1, 5), ERANGE),
    ("next without first", lambda: _planner().avail_time_next(), EINVAL),
    ("next after shrink", lambda: _shrunk().avail_time_next(), ERANGE),
    ("update_total < 0", lambda: _planner().update_total(-1), ERANGE),
    ("reset duration 0", lambda: _planner().reset(0, 0), EINVAL),
    ("is_active unknown", lambda: _planner().is_active_span(9), EINVAL),
    ("start_time unknown", lambda: _planner().span_start_time(9), EINVAL),
    ("duration unknown", lambda: _planner().span_duration(9), EINVAL),
    ("resource_count unknown", lambda: _planner().span_resource_count(9), EINVAL),
]

CLASSES = {EINVAL: PlannerInvalidError, ERANGE: PlannerRangeError, ENOENT: PlannerNotFoundError}


@pytest.mark.parametrize(
    ("name", "call", "errno"), PLANNER_CASES, ids=[c[0] for c in PLANNER_CASES]
)
def test_planner_errors_raise_errno_class(name, call, errno):
    with pytest.raises(CLASSES[errno]) as exc:
        call()
    assert exc.value.errno == errno


FAILING_MUTATIONS = [
    ("add_span", (20, 6, 1)),
    ("add_span", (12, 1, 2)),
    ("add_span", (5, 1, -1)),
    ("rem_span", (7,)),
    ("reduce_span", (1, 4)),
    ("reduce_span", (7, 1)),
    ("update_total", (-1,)),
    ("reset", (0, 0)),
]


@pytest.mark.parametrize(("method", "args"), FAILING_MUTATIONS)
def test_planner_errors_leave_state_unchanged(method, args):
    p = _planner()
    p.avail_time_first(5, 1, 1)
    before = p.copy()
    with pytest.raises(PlannerError):
        getattr(p, method)(*args)
    assert p == before
    assert p.avail_time_next() == before.avail_time_next()


def test_planner_expected_no_answers_are_values():
    p = _planner()
    assert p.avail_during(10, 1, 2) is False
    assert p.avail_at(12, 2) is False
    assert p.avail_time_first(10, 11, 2) is None  # t15 is free but t15 + 11 > plan end
    assert p.avail_time_next() is None


def test_add_span_eexist_consumes_the_id():
    p = _planner()
    p._counter = 0  # white-box: make the next id collide with span 1
    with pytest.raises(PlannerExistsError) as exc:
        p.add_span(5, 1, 1)
    assert exc.value.errno == EEXIST
    assert p._counter == 1
    assert p.add_span(5, 1, 1) == 2


def test_busy_error_class_maps_ebusy():
    assert PlannerBusyError.errno == 16
    assert issubclass(PlannerBusyError, PlannerError)


def _multi():
    m = PlannerMulti(0, 100, [4, 16], ["core", "memory"])
    m.add_span(10, 10, [3, 8])
    return m


MULTI_CASES = [
    ("new duration 0", lambda: PlannerMulti(0, 0, [1], ["a"]), EINVAL),
    ("new totals None", lambda: PlannerMulti(0, 1, None, ["a"]), EINVAL),
    ("new length mismatch", lambda: PlannerMulti(0, 1, [1, 2], ["a"]), EINVAL),
    ("new type None", lambda: PlannerMulti(0, 1, [1], [None]), EINVAL),
    ("new total < 0", lambda: PlannerMulti(0, 1, [-1], ["a"]), ERANGE),
    ("type_at out of range", lambda: _multi().resource_type_at(2), EINVAL),
    ("total_at negative", lambda: _multi().resource_total_at(-1), EINVAL),
    ("total_by_type unknown", lambda: _multi().resource_total_by_type("gpu"), EINVAL),
    ("planner_at out of range", lambda: _multi().planner_at(2), EINVAL),
    ("first length mismatch", lambda: _multi().avail_time_first(0, 1, [1]), EINVAL),
    ("first empty", lambda: PlannerMulti(0, 10, [], []).avail_time_first(0, 1, []), EINVAL),
    ("first before base", lambda: _multi().avail_time_first(-1, 1, [1, 1]), EINVAL),
    ("first count0 > total", lambda: _multi().avail_time_first(0, 1, [5, 1]), ERANGE),
    ("next empty", lambda: PlannerMulti(0, 10, [], []).avail_time_next(), EINVAL),
    ("next without first", lambda: _multi().avail_time_next(), EINVAL),
    ("during length mismatch", lambda: _multi().avail_during(0, 1, [1]), EINVAL),
    ("during count > total", lambda: _multi().avail_during(0, 1, [1, 17]), ERANGE),
    ("during duration 0", lambda: _multi().avail_during(0, 0, [1, 1]), EINVAL),
    ("resources_at index", lambda: _multi().avail_resources_at(0, 2), EINVAL),
    ("resources_at time", lambda: _multi().avail_resources_at(101, 0), ERANGE),
    ("array_at time", lambda: _multi().avail_resources_array_at(-1), ERANGE),
    (
        "array_during empty",
        lambda: PlannerMulti(0, 10, [], []).avail_resources_array_during(0, 1),
        EINVAL,
    ),
    ("array_during past end", lambda: _multi().avail_resources_array_during(50, 51), ERANGE),
    ("add busy", lambda: _multi().add_span(10, 1, [2, 0]), EINVAL),
    ("rem negative", lambda: _multi().rem_span(-1), EINVAL),
    ("rem unknown", lambda: _multi().rem_span(5), ENOENT),
    ("reduce negative id", lambda: _multi().reduce_span(-1, [1], ["core"]), EINVAL),
    ("reduce unknown", lambda: _multi().reduce_span(5, [1], ["core"]), ENOENT),
    ("reduce length mismatch", lambda: _multi().reduce_span(0, [1, 1], ["core"]), EINVAL),
    ("reduce amount < 0", lambda: _multi().reduce_span(0, [-1], ["core"]), ERANGE),
    ("reduce too much", lambda: _multi().reduce_span(0, [4], ["core"]), EINVAL),
    ("planned_at negative id", lambda: _multi().span_planned_at(-1, 0), EINVAL),
    ("planned_at index", lambda: _multi().span_planned_at(0, 2), EINVAL),
    ("planned_at unknown", lambda: _multi().span_planned_at(3, 0), ENOENT),
    ("update mismatch", lambda: _multi().update([1], ["a", "b"]), EINVAL),
    ("update total < 0", lambda: _multi().update([-1], ["core"]), ERANGE),
    ("reset duration 0", lambda: _multi().reset(0, 0), EINVAL),
]


@pytest.mark.parametrize(("name", "call", "errno"), MULTI_CASES, ids=[c[0] for c in MULTI_CASES])
def test_multi_errors_raise_errno_class(name, call, errno):
    with pytest.raises(CLASSES[errno]) as exc:
        call()
    assert exc.value.errno == errno


def test_multi_add_span_length_mismatch_sets_no_errno():
    m = _multi()
    with pytest.raises(PlannerError) as exc:
        m.add_span(0, 1, [1])
    assert exc.value.errno is None
    assert m.span_size() == 1


def test_multi_failed_reduce_changes_nothing():
    m = _multi()
    before = m.copy()
    with pytest.raises(PlannerInvalidError):
        m.reduce_span(0, [1, 9], ["core", "memory"])
    assert m == before
