"""Tracker against per-second arrays (hypothesis): spans added one by one or built at once,
the earliest fit with its count of equal spans, and merged breakpoints."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.papers.ioaware.tracker import FIT_EPS, Tracker

HORIZON = 120

spans_strategy = st.lists(
    st.tuples(
        st.integers(0, 40),
        st.integers(1, 30),
        st.tuples(st.integers(0, 3), st.sampled_from([0.0, 0.5, -1.0, 2.25])),
    ),
    max_size=12,
)


def _arrays(spans):
    usage = [[0.0] * HORIZON for _ in range(2)]
    for start, length, amounts in spans:
        for x in range(start, start + length):
            for c, amount in enumerate(amounts):
                usage[c][x] += amount
    return usage


def _brute_fit(usage, start, duration, amounts, limits):
    def ok(t):
        return all(
            usage[c][x] <= max(limit, 0.0) + FIT_EPS
            for c, limit in enumerate(limits)
            if limit is not None
            for x in range(t, t + duration)
        )

    t = start
    while not ok(t):
        t += 1
    count, trial = 0, [col[:] for col in usage]
    while count < 50 and all(
        trial[c][x] <= max(limit, 0.0) + FIT_EPS
        for c, limit in enumerate(limits)
        if limit is not None
        for x in range(t, t + duration)
    ):
        count += 1
        for c, amount in enumerate(amounts):
            for x in range(t, t + duration):
                trial[c][x] += amount
    return t, count


@settings(max_examples=150, deadline=None)
@given(
    spans=spans_strategy,
    start=st.integers(0, 40),
    duration=st.integers(1, 20),
    amounts=st.tuples(st.integers(1, 2), st.sampled_from([0.0, 0.5, 1.0])),
    limits=st.tuples(st.sampled_from([None, 0, 2, 4]), st.sampled_from([None, 0.0, 1.5, 3.0])),
    at_once=st.booleans(),
)
def test_fit_matches_per_second_arrays(spans, start, duration, amounts, limits, at_once):
    if at_once:
        tracker = Tracker.of(2, [(s, s + n, a) for s, n, a in spans])
    else:
        tracker = Tracker(2)
        for s, n, a in spans:
            tracker.add(s, s + n, a)
    tracker._check()
    usage = _arrays(spans)
    for x in range(HORIZON):
        got = tracker.usage_at(x)
        assert all(abs(g - u) < 1e-9 for g, u in zip(got, (usage[0][x], usage[1][x]), strict=True))
    # no breakpoint where nothing changes
    for i in range(1, len(tracker.times)):
        assert any(col[i] != col[i - 1] for col in tracker.usage)
    t, count = tracker.fit(start, duration, amounts, limits)
    tracker._check()
    want_t, want_count = _brute_fit(usage, start, duration, amounts, limits)
    assert t == want_t
    # the tracker caps an unlimited count at 1 << 30 and counts negative usage as 0 (fewer
    # copies per batch, never more: the caller asks again at the same time)
    assert 1 <= min(count, 50) <= want_count
    if all(usage[c][x] >= 0 for c in range(2) for x in range(t, t + duration)):
        assert min(count, 50) == want_count


def test_check_finds_a_malformed_tracker():
    """``_check`` catches unordered breakpoints, a short column and usage left after the end."""
    tracker = Tracker(2)
    tracker.add(0, 10, (1.0, 0.5))
    tracker.add(5, 20, (2.0, 0.0))
    tracker._check()
    tracker.times[0], tracker.times[1] = tracker.times[1], tracker.times[0]
    with pytest.raises(AssertionError, match="not increasing"):
        tracker._check()
    tracker.times.sort()
    tracker.usage[1].pop()
    with pytest.raises(AssertionError, match="misses breakpoints"):
        tracker._check()
    tracker.usage[1].append(1.0)
    with pytest.raises(AssertionError, match="after the end"):
        tracker._check()
