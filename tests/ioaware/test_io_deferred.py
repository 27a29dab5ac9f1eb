"""Deferred bookings give the answers of eager ones: a random mix of tracker operations
against a tracker that books at once (hypothesis), and whole runs of every scheduler against
the same walk on such a tracker."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.papers.ioaware import schedulers
from fluxgraph.papers.ioaware.run import run_io
from fluxgraph.papers.ioaware.tracker import Tracker
from fluxgraph.papers.ioaware.workload import w2


class EagerTracker(Tracker):
    """:meth:`Tracker.book_later` done at once (the reference): each span at its earliest
    fit from the last one's start on, as many at a time as fit there."""

    __slots__ = ("last_start",)

    def __init__(self, columns: int = 1) -> None:
        super().__init__(columns)
        self.last_start: dict = {}

    def book_later(self, start, duration, amounts, thresholds, count, key=None) -> None:
        t = self.last_start[key] if start is None else start
        while count > 0:
            t, fits = self.fit(t, duration, amounts, thresholds)
            fits = min(fits, count)
            self.add(t, t + duration, [fits * a for a in amounts])
            count -= fits
        self.last_start[key] = t


class CheckedTracker(Tracker):
    """A tracker that checks its invariants (``_check``) after every change and fit."""

    __slots__ = ()

    def add(self, start, end, amounts) -> None:
        super().add(start, end, amounts)
        self._check()

    def book_later(self, *args, **kwargs) -> None:
        super().book_later(*args, **kwargs)
        self._check()

    def fit(self, *args, **kwargs):
        out = super().fit(*args, **kwargs)
        self._check()
        return out


amounts_st = st.tuples(st.integers(0, 2), st.sampled_from([0.0, 0.5, 1.0]))
limits_st = st.tuples(st.sampled_from([None, 1, 3]), st.sampled_from([None, 0.5, 2.0]))
operation = st.one_of(
    st.tuples(st.just("add"), st.integers(0, 80), st.integers(1, 25), amounts_st),
    st.tuples(st.just("fit"), st.integers(0, 80), st.integers(1, 25), amounts_st, limits_st),
    st.tuples(st.just("low"), st.integers(0, 80), st.integers(1, 25), amounts_st, limits_st),
    st.tuples(
        st.just("book"),
        st.integers(0, 80),
        st.integers(1, 25),
        st.tuples(st.integers(1, 2), st.sampled_from([0.0, 1.0])),
        limits_st,
        st.integers(0, 6),
        st.sampled_from(["a", "b", "c"]),
        st.booleans(),
    ),
    st.tuples(st.just("peak"), st.integers(0, 80), st.integers(1, 40), st.integers(0, 1)),
    st.tuples(st.just("usage"), st.integers(0, 150)),
)


def _apply(tracker: Tracker, op, keys: set) -> object:
    kind, *args = op
    if kind == "add":
        start, length, amounts = args
        return tracker.add(start, start + length, amounts)
    if kind == "fit":
        start, length, amounts, limits = args
        return tracker.fit(start, length, amounts, limits)
    if kind == "low":  # a lower bound, exact where it ends before any deferred span
        start, length, amounts, limits = args
        low, _ = tracker.fit(start, length, amounts, limits, exact=False)
        return tracker.fit(low, length, amounts, limits)
    if kind == "book":
        start, length, amounts, limits, count, key, after = args
        if after and key in keys:
            start = None
        keys.add(key)
        return tracker.book_later(start, length, amounts, limits, count, key)
    if kind == "peak":
        start, length, column = args
        return tracker.peak(start, length, column)
    return tracker.usage_at(args[0])


@settings(max_examples=300, deadline=None)
@given(
    initial=st.lists(
        st.tuples(
            st.integers(0, 60), st.integers(1, 30), st.tuples(st.integers(0, 3), st.just(-0.5))
        )
    ),
    ops=st.lists(operation, max_size=25),
)
def test_deferred_answers_equal_eager_ones(initial, ops):
    spans = [(s, s + n, a) for s, n, a in initial]
    lazy, eager = Tracker.of(2, spans), EagerTracker.of(2, spans)
    lazy_keys: set = set()
    eager_keys: set = set()
    for op in ops:
        assert _apply(lazy, op, lazy_keys) == _apply(eager, op, eager_keys), op
        lazy._check()
        eager._check()
    lazy.settle()
    lazy._check()
    assert (lazy.times, lazy.usage) == (eager.times, eager.usage)


def test_negative_deferred_amounts_are_refused():
    with pytest.raises(ValueError, match="non-negative"):
        Tracker(1).book_later(0, 5, (-1.0,), (2.0,), 3)


def test_negative_add_places_deferred_spans_first():
    tracker = Tracker(1)
    tracker.book_later(10, 10, (1.0,), (1.0,), 2)
    tracker.add(0, 5, (-1.0,))
    assert not tracker.deferred
    assert tracker.usage_at(15) == (2.0,)


@pytest.mark.parametrize("scheduler", ["S0", "S1", "S2", "S2n"])
@pytest.mark.parametrize("options", [{}, {"backfill_max": 4}, {"cycles": "timer"}])
def test_runs_equal_those_on_an_eager_tracker(monkeypatch, scheduler, options):
    jobs = w2(waves=2)
    with monkeypatch.context() as patched:
        patched.setattr(schedulers, "Tracker", CheckedTracker)
        lazy = run_io(jobs, scheduler, 15.0, **options)
    monkeypatch.setattr(schedulers, "Tracker", EagerTracker)
    eager = run_io(jobs, scheduler, 15.0, **options)
    assert [(r.job.id, r.start, r.end, r.nodes) for r in lazy.result.jobs] == [
        (r.job.id, r.start, r.end, r.nodes) for r in eager.result.jobs
    ]
    assert (lazy.log.starts, lazy.log.pool_peak) == (eager.log.starts, eager.log.pool_peak)
