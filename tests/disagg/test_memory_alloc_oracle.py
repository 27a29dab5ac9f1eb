"""A-base and A-dis through the matcher agree with a brute-force model of spec §4.3/§4.4."""

from __future__ import annotations

from disagg_oracle import OracleAllocator
from disagg_strategies import ALLOC_MIB, OPTIONS, allocator_ops
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.papers.disagg.alloc import MemoryAllocator, MemoryRequest
from fluxgraph.papers.disagg.machines import build_memory_machine

OPS = allocator_ops(14)


def _replay(nodes, large, kind, ops, **options):
    alloc = MemoryAllocator(build_memory_machine(nodes, large), kind, **options)
    oracle = OracleAllocator(alloc.capacity, kind, **options)
    placements = []
    for op in ops:
        if op[0] == "release":
            if placements:
                i = op[1] % len(placements)
                alloc.release(placements.pop(i))
                oracle.release(i)
            continue
        _, n, m, start, duration = op
        got = alloc.allocate(MemoryRequest(n, m), at=start, duration=duration, now=0)
        want = oracle.allocate(n, m, start, start + duration)
        assert (None if got is None else (got.nodes, got.local, got.lent)) == want, op
        if got is not None:
            placements.append(got)
            assert got.start == start and got.end == start + duration


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7), st.data(), st.sampled_from(["base", "dis"]), OPS)
def test_allocators_match_the_brute_force_model(nodes, data, kind, ops):
    large = data.draw(st.integers(0, nodes))
    _replay(nodes, large, kind, ops)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 7), st.data(), OPTIONS, OPS)
def test_model_options_match_the_model(nodes, data, options, ops):
    large = data.draw(st.integers(0, nodes))
    _replay(nodes, large, "dis", ops, **options)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.data(), st.sampled_from(["base", "dis"]), st.integers(1, 7), ALLOC_MIB)
def test_never_fits_is_the_allocator_on_the_empty_machine(nodes, data, kind, n, m):
    large = data.draw(st.integers(0, nodes))
    lending = data.draw(st.sampled_from(["shared", "dedicated"]))
    alloc = MemoryAllocator(build_memory_machine(nodes, large), kind, lending)
    reason = alloc.never_fits(MemoryRequest(n, m))
    placed = alloc.allocate(MemoryRequest(n, m), at=0, duration=10)
    assert (reason == "") == (placed is not None), reason


def test_resize_keeps_the_resources_and_moves_the_end():
    alloc = MemoryAllocator(build_memory_machine(4, 1), "dis")
    p = alloc.allocate(MemoryRequest(2, 40000), at=0, duration=10)
    q = alloc.resize(p, 50)
    assert (q.nodes, q.local, q.lent, q.start, q.end) == (p.nodes, p.local, p.lent, 0, 50)
    # the lender and the compute nodes stay held (and lending) until 50, then free
    assert alloc.lending_nodes(40, 45) == {1}
    assert alloc.allocate(MemoryRequest(1, 1000), at=20, duration=5, now=0).nodes == (2,)
    assert alloc.allocate(MemoryRequest(4, 1000), at=30, duration=5, now=0) is None
    assert alloc.allocate(MemoryRequest(4, 1000), at=50, duration=5, now=0) is not None
    alloc.release(q)
    assert alloc.lending_nodes(0, 100) == set()


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 7), st.data(), st.sampled_from(["base", "dis"]), OPS)
def test_could_fit_is_exact(nodes, data, kind, ops):
    large = data.draw(st.integers(0, nodes))
    lender_compute = data.draw(st.sampled_from(["never", "if-memory-fits"]))
    alloc = MemoryAllocator(build_memory_machine(nodes, large), kind, "shared", lender_compute)
    for op in ops:
        if op[0] != "alloc":
            continue
        _, n, m, start, duration = op
        hint = alloc.could_fit(MemoryRequest(n, m), start, duration)
        placed = alloc.allocate(MemoryRequest(n, m), at=start, duration=duration, now=0)
        assert hint == (placed is not None)
