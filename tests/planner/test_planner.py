"""Planner behaviour: the Fluxion paper's worked example and the reference quirks of §1."""

from __future__ import annotations

import pytest

from fluxgraph.errors import PlannerError
from fluxgraph.planner import Planner, PlannerInvalidError, PlannerRangeError

# Fluxion paper §4.1, Fig. 3/4: jobs written <amount, duration, start> on a pool of 8 units.
PAPER_JOBS = [(8, 1, 0), (3, 3, 1), (7, 1, 6)]
# Fig. 4 as drawn: the second job's end point sits at t5 (the paper's answers t5/t7 need it).
DRAWN_JOBS = [(8, 1, 0), (3, 4, 1), (7, 1, 6)]


def _paper_planner(jobs):
    p = Planner(0, 10, 8, "memory")
    for amount, duration, start in jobs:
        p.add_span(start, duration, amount)
    return p


def test_worked_example_spans_and_points():
    p = _paper_planner(PAPER_JOBS)
    assert list(p.span_ids()) == [1, 2, 3]
    assert [
        (p.span_start_time(s), p.span_duration(s), p.span_resource_count(s)) for s in (1, 2, 3)
    ] == [
        (0, 1, 8),
        (1, 3, 3),
        (6, 1, 7),
    ]
    assert [(at, rem) for at, _, rem, _ in p._points_view()] == [
        (0, 0),
        (1, 5),
        (4, 8),
        (6, 1),
        (7, 8),
    ]
    p._check()


@pytest.mark.parametrize("jobs", [PAPER_JOBS, DRAWN_JOBS])
def test_worked_example_five_units_fit_at_t1_not_t6(jobs):
    p = _paper_planner(jobs)
    assert p.avail_during(1, 2, 5) is True
    assert p.avail_during(6, 2, 5) is False


def test_worked_example_earliest_fit_as_printed():
    p = _paper_planner(PAPER_JOBS)
    # Taken literally the free run starting at t4 holds 8 units for 2 ticks.
    assert p.avail_time_first(0, 1, 6) == 4
    assert p.avail_time_first(0, 2, 6) == 4


def test_worked_example_earliest_fit_as_drawn_gives_paper_answers():
    p = _paper_planner(DRAWN_JOBS)
    assert p.avail_time_first(0, 1, 6) == 5
    assert p.avail_time_first(0, 2, 6) == 7


def test_avail_time_first_returns_only_existing_points():
    p = Planner(0, 200000, 10, "core")
    assert p.avail_time_first(100000, 1, 1) is None
    assert p.avail_time_first(0, 1, 1) == 0


def test_avail_time_next_is_strictly_increasing_and_ends_with_none():
    p = Planner(0, 100, 4, "core")
    for t in range(0, 40, 4):
        p.add_span(t, 2, 1 + (t // 4) % 4)
    seen = [p.avail_time_first(0, 1, 2)]
    while seen[-1] is not None:
        seen.append(p.avail_time_next())
    times = seen[:-1]
    assert times == sorted(set(times))
    assert all(p.avail_during(t, 1, 2) for t in times)


def test_add_and_rem_span_end_the_iteration():
    p = Planner(0, 100, 4, "core")
    sid = p.add_span(0, 10, 2)
    assert p.avail_time_first(0, 5, 1) == 0
    p.add_span(20, 10, 2)
    with pytest.raises(PlannerInvalidError):
        p.avail_time_next()
    assert p.avail_time_first(0, 5, 1) == 0
    p.rem_span(sid)
    with pytest.raises(PlannerInvalidError):
        p.avail_time_next()


def test_partial_reduce_keeps_iteration_but_restarts_it():
    p = Planner(0, 100, 4, "core")
    sid = p.add_span(0, 10, 2)
    p.add_span(20, 10, 2)
    assert [p.avail_time_first(0, 5, 1), p.avail_time_next(), p.avail_time_next()] == [0, 10, 20]
    assert p.reduce_span(sid, 1) is False
    # Tracked points were restored, the iterator flag was not cleared: next starts over.
    assert p.avail_time_next() == 0


def test_avail_during_before_plan_start_is_vacuously_true():
    p = Planner(10, 100, 4, "core")
    p.add_span(10, 50, 4)
    assert p.avail_during(0, 20, 4) is True
    with pytest.raises(PlannerInvalidError):
        p.add_span(0, 20, 4)


def test_add_span_request_over_total_is_einval():
    p = Planner(0, 100, 4, "core")
    with pytest.raises(PlannerInvalidError) as exc:
        p.add_span(0, 10, 5)
    assert exc.value.errno == PlannerInvalidError.errno
    with pytest.raises(PlannerRangeError):
        p.add_span(0, 10, -1)


def test_add_span_request_over_total_after_shrink_is_erange():
    p = Planner(0, 100, 10, "core")
    sid = p.add_span(0, 10, 8)
    p.update_total(5)  # remaining at t0 clamps to 0, scheduled stays 8
    p.rem_span(sid)  # remaining at t0 becomes 8 > total 5
    with pytest.raises(PlannerRangeError):
        p.add_span(0, 10, 7)


def test_update_total_leaves_earliest_time_keys_stale():
    p = Planner(0, 100, 10, "core")
    p.add_span(0, 5, 6)  # t0: 4 free, t5: 10 free
    p.update_total(20)  # t0: 14 free, t5: 20 free, but the index still holds 4 and 10
    assert p.avail_resources_at(0) == 14
    assert p.avail_time_first(0, 1, 12) is None
    p.add_span(8, 1, 1)  # new points t8 and t9 carry fresh keys (19 and 20)
    assert p.avail_time_first(0, 1, 12) == 8
    # A search that visits t0 tracks it; restoring it refreshes its key to 14.
    assert p.avail_time_first(0, 1, 3) == 0
    assert p.avail_time_first(0, 1, 12) == 0


def test_update_total_refreshes_only_tracked_points():
    p = Planner(0, 100, 10, "core")
    p.add_span(0, 5, 6)
    p.add_span(10, 5, 6)  # points t0, t5, t10, t15: free 4, 10, 4, 10
    p.update_total(20)
    # c=10 visits t5 (key 10 >= 10) and accepts it; t0/t10 (key 4) stay stale.
    assert p.avail_time_first(0, 1, 10) == 5
    assert p.avail_time_first(0, 1, 12) == 5
    assert p._mt_view()[0] == (0, 4)


def test_reduce_span_semantics():
    p = Planner(0, 100, 10, "core")
    sid = p.add_span(0, 10, 6)
    assert p.reduce_span(sid, 0) is False
    assert p.reduce_span(sid, 2) is False
    assert p.span_resource_count(sid) == 4 and p.avail_resources_at(0) == 6
    assert p.reduce_span(sid, -1) is False  # negative amounts add usage
    assert p.avail_resources_at(0) == 5
    with pytest.raises(PlannerInvalidError):
        p.reduce_span(sid, 6)
    assert p.reduce_span(sid, 5) is True
    assert p.span_size() == 0 and len(p._points_view()) == 1


def test_zero_amount_span_is_removed_by_reduce_zero():
    p = Planner(0, 100, 10, "core")
    sid = p.add_span(0, 10, 0)
    assert p.reduce_span(sid, 0) is True
    assert p.span_size() == 0


def test_span_ids_are_never_reused_until_reset():
    p = Planner(0, 100, 10, "core")
    a = p.add_span(0, 10, 1)
    p.rem_span(a)
    assert p.add_span(0, 10, 1) == 2
    p.reset(0, 50)
    assert p.add_span(0, 10, 1) == 1
    assert p.duration == 50 and p.resource_total == 10 and p.resource_type == "core"


def test_copy_is_deep_and_equal():
    p = Planner(0, 100, 10, "core")
    p.add_span(0, 10, 4)
    p.avail_time_first(0, 1, 1)
    q = p.copy()
    assert q == p
    assert q.avail_time_next() == p.avail_time_next()
    q.add_span(20, 5, 1)
    assert q != p
    assert p.span_size() == 1


def test_errors_are_planner_errors_with_errno():
    p = Planner(0, 100, 10, "core")
    with pytest.raises(PlannerError) as exc:
        p.rem_span(99)
    assert exc.value.errno == 22
    assert "99" in str(exc.value)


def test_repr_names_the_planner():
    assert repr(Planner(0, 5, 3, "gpu")) == (
        "Planner(base_time=0, duration=5, total=3, resource_type='gpu', spans=0)"
    )
