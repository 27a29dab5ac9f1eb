"""The FM simulation (allocator, planners, pass, shared simulator) against brute force."""

from __future__ import annotations

import itertools

from fm_oracle import simulate
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.papers.fm.machine import FmMachineSpec
from fluxgraph.papers.fm.placement import rack_balance, system_local_first
from fluxgraph.papers.fm.priority import FM_PRIORITIES
from fluxgraph.papers.fm.run import run_fm
from fluxgraph.papers.fm.slowdown import SlowdownModel
from fluxgraph.papers.fm.workload import TraceRow, fm_jobs, map_trace

_ROW = st.tuples(
    st.integers(0, 30),  # submit
    st.integers(1, 4),  # nodes
    st.integers(1, 15),  # duration
    st.sampled_from((30, 64, 100, 300, 400, 600, 1000, 1088)),  # GB per node
)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(_ROW, min_size=1, max_size=9),
    priority=st.sampled_from(FM_PRIORITIES),
    pools=st.integers(1, 2),
    warmup=st.integers(0, 4),
    seed=st.integers(1, 3),
    switch=st.sampled_from(("arrival", "started", "none")),
)
def test_simulation_matches_brute_force(rows, priority, pools, warmup, seed, switch):
    """rules=easy (spec §4.3) after each warm-up switch."""
    jobs = map_trace([TraceRow(i, s, n, d, m) for i, (s, n, d, m) in enumerate(rows)], seed=seed)
    spec = FmMachineSpec(2, 3, pool_tb=pools)
    run = run_fm(jobs, spec, "rack", priority, warmup=warmup, rules="easy", warmup_switch=switch)
    got = {r.job.id: (r.start, r.end) for r in run.result.jobs if not r.rejected}
    rejected = {r.job.id for r in run.result.jobs if r.rejected}
    sized = fm_jobs(jobs, 64, SlowdownModel("paper"), "rack")
    want, want_rejected = simulate(sized, 2, 3, pools, 64, priority, warmup, switch)
    assert rejected == want_rejected
    assert got == want


def _valid(free, caps, n, k, placed, same_rack):
    per_pool = len(caps[0])
    nodes = [g for g, _, _ in placed]
    assert len(set(nodes)) == n and all(any(g in f for f in free) for g in nodes)
    left = [c for rack in caps for c in rack]
    for g, m, gb in placed:
        assert gb == k
        if k:
            left[m] -= k
            rack_of_g = next(r for r, f in enumerate(free) if g in f)
            if same_rack:
                assert m // per_pool == rack_of_g
    assert min(left) >= 0


def _exists(free, caps, n, k):
    """Exhaustive: can n free nodes each get a k GB chunk from a pool of their own rack?"""
    if k == 0:
        return sum(map(len, free)) >= n
    slots = [min(len(f), sum(c // k for c in cs)) for f, cs in zip(free, caps, strict=True)]
    for take in itertools.product(*(range(len(f) + 1) for f in free)):
        if sum(take) != n:
            continue
        # a rack can host t chunks iff its pools can: try every split of t over its pools
        ok = True
        for t, cs in zip(take, caps, strict=True):
            if not any(
                sum(split) == t and all(s * k <= c for s, c in zip(split, cs, strict=True))
                for split in itertools.product(range(t + 1), repeat=len(cs))
            ):
                ok = False
                break
        if ok:
            assert sum(slots) >= n
            return True
    return False


@settings(max_examples=300, deadline=None)
@given(
    busy=st.lists(st.booleans(), min_size=6, max_size=6),
    caps=st.lists(st.integers(0, 1024), min_size=4, max_size=4),
    n=st.integers(1, 6),
    k=st.sampled_from((0, 1, 100, 336, 441, 512, 1024)),
)
def test_rack_balance_against_exhaustive_search(busy, caps, n, k):
    free = [[g for g in range(r * 3, r * 3 + 3) if not busy[g]] for r in range(2)]
    pools = [caps[:2], caps[2:]]
    placed = rack_balance(free, pools, n, k)
    assert (placed is not None) == _exists(free, pools, n, k)
    if placed is not None:
        _valid(free, pools, n, k, placed, same_rack=True)
    system = system_local_first(free, pools, n, k)
    if placed is not None:
        assert system == placed
    elif system is not None:
        _valid(free, pools, n, k, system, same_rack=False)


def test_compat_one_candidate_and_drift():
    # 1 rack x 4 nodes, one 1,024 GB memnode. A holds 536 GB until 100; B (the head from t=1)
    # needs the whole memnode. At t=2 the simulator's rules try one candidate only, C (10 s,
    # fits the 98 s shadow, 536 GB > 488 free), which drifts with B; D (no pool) waits until
    # t=3, when the drifted B and C sort behind it. From t=91 C (10 s) no longer fits the
    # shadow, so only B drifts: at 100 C is ahead of B. Spec §4.3 EASY starts D at once and
    # runs B (reserved from 100) before C.
    rows = [
        TraceRow(1, 0, 1, 100, 600),
        TraceRow(2, 1, 1, 50, 1088),
        TraceRow(3, 2, 1, 10, 600),
        TraceRow(4, 2, 1, 10, 60),
    ]
    jobs = map_trace(rows)
    spec = FmMachineSpec(1, 4, pool_tb=1)
    compat = run_fm(jobs, spec, "rack", "fcfs", "none", warmup=0, rules="code")
    ours = run_fm(jobs, spec, "rack", "fcfs", "none", warmup=0, rules="easy")
    got = [(r.start, r.end) for r in compat.result.jobs]
    assert got == [(0, 100), (110, 160), (100, 110), (3, 13)]
    assert [(r.start, r.end) for r in ours.result.jobs] == [
        (0, 100),
        (100, 150),
        (150, 160),
        (2, 12),
    ]
