"""The span-table allocator places exactly as the graph matcher and the brute-force model, and the
two engines of the scheduler give the same schedules."""

from __future__ import annotations

import pytest
from disagg_oracle import OracleAllocator
from disagg_strategies import OPTIONS, allocator_ops, engine_schedules, workloads
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.errors import SimulationError
from fluxgraph.papers.disagg.alloc import MemoryAllocator, MemoryRequest
from fluxgraph.papers.disagg.arrays import ArrayAllocator
from fluxgraph.papers.disagg.machines import MemoryMachineSpec, build_memory_machine
from fluxgraph.papers.disagg.sim import DisaggSimulator
from fluxgraph.workload import Job

OPS = allocator_ops(16, resize=True)


def _outcome(p):
    return None if p is None else (p.nodes, p.local, p.lent, p.start, p.end)


def _valid(oracle: OracleAllocator) -> bool:
    """No node computes for two bookings at once, no node's memory over capacity."""
    books = oracle.books
    for r, cap in enumerate(oracle.capacity):
        for t in {b.start for b in books}:
            if sum(r in b.local for b in books if b.start <= t < b.end) > 1:
                return False
            if oracle._usage(r, t) > cap:
                return False
    return True


def _replay(nodes, large, kind, ops, **options):
    """Replay ``ops`` on the array allocator, the brute-force model and (up to the first
    resize: the graph allocator re-matches a resized placement, the scheduler resizes only
    running jobs) the graph allocator."""
    graph = MemoryAllocator(build_memory_machine(nodes, large), kind, **options)
    arrays = ArrayAllocator(graph.capacity, graph.cores, kind, **options)
    oracle = OracleAllocator(graph.capacity, kind, **options)
    placed = []  # (graph's placement or None, the array allocator's)
    for op in ops:
        if op[0] == "release":
            if placed:
                i = op[1] % len(placed)
                g, a = placed.pop(i)
                if graph is not None:
                    graph.release(g)
                arrays.release(a)
                oracle.release(i)
            continue
        if op[0] == "resize":
            graph = None
            if placed:
                i = op[1] % len(placed)
                a = placed[i][1]
                end = max(a.start + 1, a.end + op[2])
                oracle.books[i].end = end
                if _valid(oracle):
                    placed[i] = (None, arrays.resize(a, end))
                    assert (placed[i][1].start, placed[i][1].end) == (a.start, end)
                else:
                    with pytest.raises(SimulationError, match="cannot hold"):
                        arrays.resize(a, end)
                    oracle.books[i].end = a.end
            continue
        _, n, m, start, duration = op
        req = MemoryRequest(n, m)
        hint = arrays.could_fit(req, start, duration)
        a = arrays.allocate(req, at=start, duration=duration, now=0)
        want = oracle.allocate(n, m, start, start + duration)
        assert (None if a is None else (a.nodes, a.local, a.lent)) == want, op
        assert hint == (a is not None)
        g = None
        if graph is not None:
            g = graph.allocate(req, at=start, duration=duration, now=0)
            assert _outcome(a) == _outcome(g), op
        if a is not None:
            placed.append((g, a))
            window = (start, start + duration)
            lending = {lender for b in oracle._overlapping(*window) for lender, _, _ in b.lent}
            assert arrays.lending_nodes(*window) == lending
            if graph is not None:
                assert sorted(arrays.held(a)) == sorted(
                    (graph.memory_owner[v], t, m) for v, t, m in graph.held(g)
                )
    arrays._check()
    if graph is not None:
        graph._check()
        _same_protocol(graph, arrays, nodes, placed)


def _same_protocol(graph, arrays, nodes, placed):
    """The engines' scheduler protocol answers alike at ``now`` 0 (the graph matcher selects
    at ``now`` itself among spans ending then otherwise, a state the scheduler never holds):
    spans starting in a range, earliest starts and placements, with a placement parked and
    shown again."""
    ranks = list(range(nodes))
    for lo in range(0, 70, 9):
        assert graph.starts_within(ranks, lo, lo + 9) == arrays.starts_within(ranks, lo, lo + 9)
    shown = None
    if placed:
        g, a = placed[-1]
        graph.park(g)
        arrays.park(a)
        shown = (g, a)
    for n, m, first, duration in [(1, 1024, 0, 50), (2, 40000, 5, 20), (3, 65536, 20, 10)]:
        req = MemoryRequest(n, m)
        assert graph.place(req, first, duration, 0) == arrays.place(req, first, duration, 0)
        times = sorted({0, *range(first, 80, 7)})
        g, a = graph.earliest(req, duration, times), arrays.earliest(req, duration, times)
        assert _outcome(g) == _outcome(a), (n, m, first)
        if a is not None:
            graph.release(g)
            arrays.release(a)
    if shown is not None:
        g, a = graph.unpark(shown[0], now=0), arrays.unpark(shown[1], now=0)
        assert _outcome(g) == _outcome(a)
    graph._check()
    arrays._check()


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 7), st.data(), st.sampled_from(["base", "dis"]), OPS)
def test_array_allocator_matches_the_graph_and_the_model(nodes, data, kind, ops):
    _replay(nodes, data.draw(st.integers(0, nodes)), kind, ops)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 7), st.data(), OPTIONS, OPS)
def test_array_allocator_model_options(nodes, data, options, ops):
    _replay(nodes, data.draw(st.integers(0, nodes)), "dis", ops, **options)


def test_resize_into_a_full_lender_is_refused_and_leaves_the_placement():
    alloc = ArrayAllocator([32768, 32768, 65536], cores=32, kind="dis")
    first = alloc.allocate(MemoryRequest(1, 65536 + 16384), at=0, duration=10)  # borrows 16 GiB
    assert first.lent == ((0, 2, 16384),)
    later = alloc.allocate(MemoryRequest(1, 65536 + 32768), at=10, duration=10)
    assert later.lent == ((0, 2, 32768),)  # the whole of node 0 from t = 10
    with pytest.raises(SimulationError, match="cannot hold"):
        alloc.resize(first, 15)
    assert alloc.resize(first, 10) == first  # the spans are where they were
    assert alloc.lending_nodes(0, 10) == {0}


@settings(max_examples=60, deadline=None)
@given(
    workloads(),
    st.sampled_from(["base", "dis"]),
    st.sampled_from([100, 2]),
    st.one_of(st.just({}), OPTIONS),
    st.booleans(),
)
def test_both_engines_give_the_same_schedule(work, kind, depth, model, self_interference):
    spec, jobs = work
    if kind == "base":
        model = {}
    options = {"backfill_depth": depth, **model, "self_interference": self_interference}
    graph, arrays = engine_schedules(spec, jobs, kind, **options)
    assert graph == arrays


def test_unknown_engine_is_refused():
    with pytest.raises(SimulationError, match="engine 'walk'"):
        DisaggSimulator(MemoryMachineSpec(2, 0), [], engine="walk")


def test_engines_agree_where_a_lender_holds_spans_that_never_overlap():
    # node 2 holds two back-to-back spans that sum past its capacity: the arrays engine once
    # stopped its lender search short of it and started job 2 at 4 (on node 0), not at 3
    spec = MemoryMachineSpec(nodes=5, large=2, cores=32, normal_mib=32768, large_mib=65536)
    rows = [(1, 1, 1, 1, 2, 40000), (2, 1, 1, 2, 1, 40000), (3, 0, 1, 1, 1, 1024)]
    rows += [(4, 0, 1, 1, 1, 1024), (5, 0, 1, 1, 1, 1024), (6, 0, 2, 2, 3, 40000)]
    rows += [(k, 0, 1, 1, 1, 1024) for k in range(7, 11)]
    jobs = [
        Job(i, s, r, w, nodes=n, extra={"mem_mib": m, "app_id": 1}) for i, s, r, w, n, m in rows
    ]
    runs = [
        DisaggSimulator(spec, jobs, "dis", engine=engine).run() for engine in ("graph", "arrays")
    ]
    graph, arrays = ([(r.job.id, r.start, r.nodes) for r in run.records] for run in runs)
    assert graph == arrays
    assert (2, 3, (2,)) in arrays
