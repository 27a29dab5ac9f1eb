"""The lenders' cover and its split over the borrowers terminate on any input and never hand
over more memory than the deficits (a cover over a node with negative spare once gave
``[(1, 8232)]`` for a deficit of 7232 MiB and the split looped forever)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.errors import SimulationError
from fluxgraph.papers.disagg.alloc import MemoryRequest, split_deficits
from fluxgraph.papers.disagg.arrays import ArrayAllocator, _cover

_pairs = st.lists(st.tuples(st.integers(0, 9), st.integers(-3, 40)), max_size=6)


@settings(max_examples=300, deadline=None)
@given(_pairs, _pairs)
def test_split_deficits_splits_an_exact_cover_or_refuses(deficits, given_):
    exact = (
        sum(d for _, d in deficits) == sum(m for _, m in given_)
        and all(d > 0 for _, d in deficits)
        and all(m > 0 for _, m in given_)
    )
    if not exact:
        with pytest.raises(SimulationError, match="internal error"):
            split_deficits(deficits, given_)
        return
    assert split_deficits(deficits, given_) == _split_by_units(deficits, given_)


def _split_by_units(deficits, given_):
    """The oracle: lay the lenders' MiB and the borrowers' MiB side by side, one by one, and
    count each run of the same (lender entry, borrower entry)."""
    lenders = [i for i, (_, m) in enumerate(given_) for _ in range(m)]
    borrowers = [j for j, (_, d) in enumerate(deficits) for _ in range(d)]
    runs: list[list[int]] = []
    for i, j in zip(lenders, borrowers, strict=True):
        if runs and runs[-1][:2] == [i, j]:
            runs[-1][2] += 1
        else:
            runs.append([i, j, 1])
    return [(given_[i][0], deficits[j][0], m) for i, j, m in runs]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-50, 60), min_size=1, max_size=8), st.integers(0, 200))
def test_cover_never_gives_more_than_asked_or_more_than_spare(spare, total):
    given_ = _cover(np.asarray(spare, dtype=np.int64), total)
    available = sum(max(s, 0) for s in spare)
    if available < total:
        assert given_ is None
        return
    assert sum(m for _, m in given_) == total
    lenders = [lender for lender, _ in given_]
    assert lenders == sorted(set(lenders))
    for lender, m in given_:
        assert 0 < m <= spare[lender]
    # greedy in rank order: every lender but the last gives all it has, none is skipped
    assert all(m == spare[lender] for lender, m in given_[:-1])
    skipped = [r for r in range(lenders[-1] if lenders else 0) if spare[r] > 0 and r not in lenders]
    assert not skipped


def test_a_window_taken_while_parked_is_refused_and_the_cover_stays_exact():
    # the workload that looped: a placement parked (or released), its window taken by
    # another, then shown again (or booked anew) over it
    capacity = [32768] * 4 + [65536] * 3
    for again in ("unpark", "rebook"):
        alloc = ArrayAllocator(capacity, 32, "dis")
        first = alloc.allocate(MemoryRequest(3, 1000), at=0, duration=1)
        alloc.allocate(MemoryRequest(1, 1000), at=0, duration=21)
        if again == "unpark":
            alloc.park(first)
        else:
            alloc.release(first)
        taker = alloc.allocate(MemoryRequest(1, 1000), at=0, duration=1)
        assert set(taker.nodes) & set(first.nodes)
        with pytest.raises(SimulationError, match="window is taken"):
            getattr(alloc, again)(first)
        alloc._check()
        placed = alloc.earliest(MemoryRequest(3, 65536), 50, [0, 7, 14, 21])
        assert placed is not None
        lent = sum(m for _, _, m in placed.lent)
        assert lent == sum(65536 - m for m in placed.local)
        alloc._check()


def test_check_finds_an_overcommitted_node():
    alloc = ArrayAllocator([32768, 32768], 32, "dis")
    alloc.allocate(MemoryRequest(1, 1000), at=0, duration=10)
    alloc._check()
    # a second local share on node 0, booked past the checks (allocate never does this)
    alloc._book(MemoryRequest(1, 1000), 5, 15, ((0,), (1000,), ()))
    with pytest.raises(AssertionError, match="computes for 2"):
        alloc._check()
