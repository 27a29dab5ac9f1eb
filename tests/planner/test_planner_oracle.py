"""Property tests: Planner and PlannerMulti against the brute-force oracle of §1-§2.

Random operation sequences over small windows must give the same answers and the same errors
as the oracle, and the same scheduled points, MT keys and tracked points. ``_check()`` runs
after every operation. The number of sequences per test comes from the environment variable
``FLUXGRAPH_ORACLE_EXAMPLES`` (default 300; the multi test runs a third of it).
"""

from __future__ import annotations

import os
import random
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from planner_oracle import OracleError, OracleMulti, OraclePlanner

from fluxgraph.errors import PlannerError
from fluxgraph.planner import Planner, PlannerMulti, points

EXAMPLES = int(os.environ.get("FLUXGRAPH_ORACLE_EXAMPLES", "300"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
MULTI_SETTINGS = settings(SETTINGS, max_examples=max(1, EXAMPLES // 3))


#: Block sizes to run under: tiny blocks give deep trees with splits and merges on small windows.
LOADS = [2, 4, points.LOAD]


@contextmanager
def _load(load):
    saved = points.LOAD
    points.LOAD = load
    try:
        yield
    finally:
        points.LOAD = saved


def _run(fn, *args):
    """``("ok", value)`` or ``("err", errno)``; also checks error classes carry their errno."""
    try:
        value = fn(*args)
    except OracleError as err:
        return ("err", err.errno)
    except PlannerError as err:
        assert type(err).errno == err.errno, f"{type(err).__name__} with errno {err.errno}"
        return ("err", err.errno)
    if hasattr(value, "__next__"):
        value = list(value)
    return ("ok", value)


def _oracle_mt(o):
    return [(a, p.key if p.in_mt else None) for a, p in sorted(o.points.items())]


def _same_state(p, o):
    p._check()
    assert p._points_view() == o.points_view()
    assert p._mt_view() == _oracle_mt(o)
    assert list(p.span_ids()) == o.span_ids()
    assert p.resource_total == o.total


OPS = [
    *["add"] * 4,
    "rem",
    *["reduce"] * 2,
    *["first"] * 4,
    *["next"] * 3,
    "during",
    "at",
    "res_at",
    "res_during",
    *["update_total"] * 2,
    "getters",
    "copy",
    "reset",
]


@pytest.mark.parametrize("load", LOADS)
def test_planner_matches_oracle(load):
    with _load(load):
        _planner_matches_oracle()


@SETTINGS
@given(st.data())
def _planner_matches_oracle(data):
    base = data.draw(st.sampled_from([0, 3]))
    duration = data.draw(st.sampled_from([st.integers(1, 24), st.integers(25, 60)]))
    duration = data.draw(duration)
    total = data.draw(st.integers(0, 6))
    p = Planner(base, duration, total, "core")
    o = OraclePlanner(base, duration, total, "core")
    end = base + duration
    times = st.integers(base - 2, end + 2)
    durations = st.integers(-1, max(12, duration // 3))
    for _ in range(data.draw(st.integers(1, 60))):
        op = data.draw(st.sampled_from(OPS))
        amounts = st.integers(-1, o.total + 2)
        ids = st.sampled_from([*o.span_ids(), 0, o.counter + 1])
        if op == "add":
            args = (data.draw(times), data.draw(durations), data.draw(amounts))
            r = _run(p.add_span, *args), _run(o.add_span, *args)
        elif op == "rem":
            sid = data.draw(ids)
            r = _run(p.rem_span, sid), _run(o.rem_span, sid)
        elif op == "reduce":
            args = (data.draw(ids), data.draw(st.integers(-2, 7)))
            r = _run(p.reduce_span, *args), _run(o.reduce_span, *args)
        elif op == "first":
            args = (data.draw(times), data.draw(durations), data.draw(amounts))
            r = _run(p.avail_time_first, *args), _run(o.avail_time_first, *args)
        elif op == "next":
            r = _run(p.avail_time_next), _run(o.avail_time_next)
        elif op == "during":
            args = (data.draw(times), data.draw(durations), data.draw(amounts))
            r = _run(p.avail_during, *args), _run(o.avail_during, *args)
        elif op == "at":
            args = (data.draw(times), data.draw(amounts))
            r = _run(p.avail_at, *args), _run(o.avail_at, *args)
        elif op == "res_at":
            t = data.draw(times)
            r = _run(p.avail_resources_at, t), _run(o.avail_resources_at, t)
        elif op == "res_during":
            args = (data.draw(times), data.draw(durations))
            r = _run(p.avail_resources_during, *args), _run(o.avail_resources_during, *args)
        elif op == "update_total":
            t = data.draw(st.integers(-1, 9))
            r = _run(p.update_total, t), _run(o.update_total, t)
        elif op == "getters":
            sid = data.draw(ids)
            names = ("is_active_span", "span_start_time", "span_duration", "span_resource_count")
            r = tuple([_run(getattr(x, name), sid) for name in names] for x in (p, o))
        elif op == "copy":
            q = p.copy()
            q._check()
            assert q == p
            r = (p.span_size(), o.span_size())
        else:
            args = (data.draw(st.sampled_from([0, 3])), data.draw(st.integers(0, 24)))
            r = _run(p.reset, *args), _run(o.reset, *args)
            end = o.end
            times = st.integers(o.start - 2, end + 2)
        assert r[0] == r[1], (op, r)
        _same_state(p, o)


MULTI_OPS = [
    "add",
    "add",
    "add",
    "rem",
    "reduce",
    "first",
    "first",
    "next",
    "next",
    "during",
    "res_at",
    "array_at",
    "array_during",
    "planned_at",
    "update",
    "reset",
]


def _same_multi(m, o):
    m._check()
    assert list(m.resource_types) == o.types()
    for i, (_, op) in enumerate(o.entries):
        _same_state(m.planner_at(i), op)
    assert dict(m._spans) == o.spans
    assert list(m.span_ids()) == o.span_ids()


@pytest.mark.parametrize("load", LOADS[:2])
def test_planner_multi_matches_oracle(load):
    with _load(load):
        _multi_matches_oracle()


@MULTI_SETTINGS
@given(st.data())
def _multi_matches_oracle(data):
    n = data.draw(st.integers(0, 3))
    types = data.draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n))
    totals = data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    duration = data.draw(st.integers(1, 20))
    m = PlannerMulti(0, duration, totals, types)
    o = OracleMulti(0, duration, totals, types)
    times = st.integers(-1, duration + 1)
    durations = st.integers(0, 8)
    for _ in range(data.draw(st.integers(1, 30))):
        op = data.draw(st.sampled_from(MULTI_OPS))
        k = len(o.entries)
        size = data.draw(st.sampled_from([k, k, k, k + 1]))
        counts = data.draw(st.lists(st.integers(0, 5), min_size=size, max_size=size))
        mids = st.sampled_from([*o.span_ids(), -1, o.counter])
        if op == "add":
            args = (data.draw(times), data.draw(durations), counts)
            r = _run(m.add_span, *args), _run(o.add_span, *args)
        elif op == "rem":
            mid = data.draw(mids)
            r = _run(m.rem_span, mid), _run(o.rem_span, mid)
        elif op == "reduce":
            j = data.draw(st.integers(0, 3))
            rtypes = data.draw(st.lists(st.sampled_from("abz"), min_size=j, max_size=j))
            amounts = data.draw(st.lists(st.integers(-1, 4), min_size=j, max_size=j))
            args = (data.draw(mids), amounts, rtypes)
            r = _run(m.reduce_span, *args), _run(o.reduce_span, *args)
        elif op == "first":
            args = (data.draw(times), data.draw(durations), counts)
            r = _run(m.avail_time_first, *args), _run(o.avail_time_first, *args)
        elif op == "next":
            r = _run(m.avail_time_next), _run(o.avail_time_next)
        elif op == "during":
            args = (data.draw(times), data.draw(durations), counts)
            r = _run(m.avail_during, *args), _run(o.avail_during, *args)
        elif op == "res_at":
            args = (data.draw(times), data.draw(st.integers(-1, 3)))
            r = _run(m.avail_resources_at, *args), _run(o.avail_resources_at, *args)
        elif op == "array_at":
            t = data.draw(times)
            r = _run(m.avail_resources_array_at, t), _run(o.avail_resources_array_at, t)
        elif op == "array_during":
            args = (data.draw(times), data.draw(durations))
            r = (
                _run(m.avail_resources_array_during, *args),
                _run(o.avail_resources_array_during, *args),
            )
        elif op == "planned_at":
            args = (data.draw(mids), data.draw(st.integers(-1, 3)))
            r = _run(m.span_planned_at, *args), _run(o.span_planned_at, *args)
        elif op == "update":
            j = data.draw(st.integers(0, 3))
            utypes = data.draw(st.lists(st.sampled_from("abcd"), min_size=j, max_size=j))
            utotals = data.draw(st.lists(st.integers(-1, 5), min_size=j, max_size=j))
            r = _run(m.update, utotals, utypes), _run(o.update, utotals, utypes)
        else:
            args = (0, data.draw(st.integers(0, 20)))
            r = _run(m.reset, *args), _run(o.reset, *args)
        assert r[0] == r[1], (op, r)
        _same_multi(m, o)


STRESS_SEEDS = max(1, EXAMPLES // 20)


@pytest.mark.parametrize("load", LOADS[:2])
def test_planner_stress_matches_oracle(load):
    """Long seeded random walks (300 operations, windows up to 400 ticks) on deep trees."""
    with _load(load):
        for seed in range(STRESS_SEEDS):
            _random_walk(random.Random(seed), 300)


def _random_walk(rng, steps):
    total = rng.randint(1, 8)
    end = rng.randint(50, 400)
    p = Planner(0, end, total, "core")
    o = OraclePlanner(0, end, total, "core")
    for _ in range(steps):
        x = rng.random()
        sid = rng.choice([*o.spans, 0]) if x < 0.62 else None
        if x < 0.4:
            args = (rng.randint(0, end), rng.randint(1, 30), rng.randint(0, o.total))
            r = _run(p.add_span, *args), _run(o.add_span, *args)
        elif x < 0.55:
            r = _run(p.rem_span, sid), _run(o.rem_span, sid)
        elif x < 0.62:
            amount = rng.randint(-1, 4)
            r = _run(p.reduce_span, sid, amount), _run(o.reduce_span, sid, amount)
        elif x < 0.8:
            args = (rng.randint(0, end - 1), rng.randint(1, 40), rng.randint(0, o.total))
            r = _run(p.avail_time_first, *args), _run(o.avail_time_first, *args)
        elif x < 0.9:
            r = _run(p.avail_time_next), _run(o.avail_time_next)
        elif x < 0.94:
            args = (rng.randint(0, end), rng.randint(1, 60))
            r = _run(p.avail_resources_during, *args), _run(o.avail_resources_during, *args)
        elif x < 0.97:
            args = (rng.randint(0, end), rng.randint(1, 60), rng.randint(0, o.total))
            r = _run(p.avail_during, *args), _run(o.avail_during, *args)
        else:
            t = rng.randint(0, 12)
            r = _run(p.update_total, t), _run(o.update_total, t)
        assert r[0] == r[1], r
        _same_state(p, o)


SMALL_OPS = [
    *["cycle"] * 4,
    *["add"] * 3,
    *["rem"] * 3,
    "reduce",
    *["first"] * 3,
    *["next"] * 2,
    "during",
    "res_during",
    "res_at",
    "update_total",
    "copy",
]


@pytest.mark.parametrize("load", LOADS)
def test_small_planner_matches_oracle(load):
    """A simulator's planners: a long window, a few live spans, many add/remove cycles.

    Start and end times come from a few slots, so spans share points (reference counts above
    1); searches are interleaved with the updates. Under small ``LOAD`` the planner switches
    between its flat and tree layouts as spans come and go.
    """
    with _load(load):
        _small_planner_matches_oracle()


@SETTINGS
@given(st.data())
def _small_planner_matches_oracle(data):
    total = data.draw(st.integers(1, 4))
    end = 10**9
    p = Planner(0, end, total, "core")
    o = OraclePlanner(0, end, total, "core")
    slots = st.sampled_from([0, 5, 10, 15, 20, 30, 45, 60, 100, 10**8])
    lengths = st.sampled_from([1, 5, 10, 15, 25, 40, 10**6])
    for _ in range(data.draw(st.integers(1, 80))):
        op = data.draw(st.sampled_from(SMALL_OPS))
        amounts = st.integers(0, o.total)
        live = o.span_ids()
        if op in ("add", "cycle") or (op == "rem" and not live):
            args = (data.draw(slots), data.draw(lengths), data.draw(amounts))
            r = _run(p.add_span, *args), _run(o.add_span, *args)
            if op == "cycle" and r[1][0] == "ok":
                assert r[0] == r[1], (op, r)
                _same_state(p, o)
                r = _run(p.rem_span, r[0][1]), _run(o.rem_span, r[1][1])
        elif op == "rem":
            sid = data.draw(st.sampled_from(live))
            r = _run(p.rem_span, sid), _run(o.rem_span, sid)
        elif op == "reduce":
            args = (data.draw(st.sampled_from([*live, 0])), data.draw(st.integers(-1, 3)))
            r = _run(p.reduce_span, *args), _run(o.reduce_span, *args)
        elif op == "first":
            args = (data.draw(slots), data.draw(lengths), data.draw(amounts))
            r = _run(p.avail_time_first, *args), _run(o.avail_time_first, *args)
        elif op == "next":
            r = _run(p.avail_time_next), _run(o.avail_time_next)
        elif op == "during":
            args = (data.draw(slots), data.draw(lengths), data.draw(amounts))
            r = _run(p.avail_during, *args), _run(o.avail_during, *args)
        elif op == "res_during":
            args = (data.draw(slots), data.draw(lengths))
            r = _run(p.avail_resources_during, *args), _run(o.avail_resources_during, *args)
        elif op == "res_at":
            t = data.draw(slots)
            r = _run(p.avail_resources_at, t), _run(o.avail_resources_at, t)
        elif op == "update_total":
            t = data.draw(st.integers(0, 5))
            r = _run(p.update_total, t), _run(o.update_total, t)
        else:
            q = p.copy()
            q._check()
            assert q == p
            r = (p.span_size(), o.span_size())
        assert r[0] == r[1], (op, r)
        _same_state(p, o)


def test_layout_switches_keep_answers():
    """Flat to tree and back (LOAD 2: a tree above 4 points, flat again at 2 or fewer)."""
    with _load(2):
        p = Planner(0, 1000, 3, "core")
        o = OraclePlanner(0, 1000, 3, "core")
        kinds = []
        sids = []
        for k in range(8):
            args = (10 * k, 15, 1)
            sids.append(p.add_span(*args))
            o.add_span(*args)
            kinds.append(type(p._pts).__name__)
            _same_state(p, o)
        for total in (6, 2):  # keys left stale by update_total, then searches
            p.update_total(total)
            o.update_total(total)
            for args in ((0, 20, 4), (0, 1, 2)):
                assert _run(p.avail_time_first, *args) == _run(o.avail_time_first, *args)
                assert _run(p.avail_time_next) == _run(o.avail_time_next)
                _same_state(p, o)
        for sid in sids:
            p.rem_span(sid)
            o.rem_span(sid)
            kinds.append(type(p._pts).__name__)
            _same_state(p, o)
            assert _run(p.avail_time_first, 0, 5, 2) == _run(o.avail_time_first, 0, 5, 2)
            assert _run(p.avail_time_next) == _run(o.avail_time_next)
            _same_state(p, o)
        assert kinds[0] == "_Flat" and "_Points" in kinds and kinds[-1] == "_Flat", kinds
