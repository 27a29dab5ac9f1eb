"""The disaggregated-memory scheduler against a brute-force scheduler, and its invariants."""

from __future__ import annotations

from disagg_oracle import oracle_schedule
from disagg_strategies import OPTIONS, workloads
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.papers.disagg.machines import MemoryMachineSpec
from fluxgraph.papers.disagg.sim import DisaggSimulator


def _check_invariants(spec, result):
    cap = spec.capacities()
    for rec in result.records:
        assert rec.completed != bool(rec.rejected), rec
        if not rec.completed:
            continue
        assert rec.job.submit <= rec.start < rec.end
        assert rec.end - rec.start >= rec.job.runtime  # speeds never exceed 1
    ran = [r for r in result.records if r.completed]
    for t in sorted({r.start for r in ran} | {r.end for r in ran}):
        live = [r for r in ran if r.start <= t < r.end]
        compute = [n for r in live for n in r.nodes]
        assert len(compute) == len(set(compute)), t  # one compute job per node
        used = [0] * len(cap)
        for r in live:
            for n, m in zip(r.nodes, r.local, strict=True):
                used[n] += cap[n] if result.allocator == "base" else m
            for lender, _, m in r.lent:
                used[lender] += m
            assert sum(r.local) + sum(m for _, _, m in r.lent) == len(r.nodes) * r.job.extra[
                "mem_mib"
            ] or (result.allocator == "base")
        assert all(u <= c for u, c in zip(used, cap, strict=True)), t
        # a job starting at t never computes on a node lending to a job started earlier
        lending = {lender for r in live if r.start < t for lender, _, _ in r.lent}
        assert not any(set(r.nodes) & lending for r in live if r.start == t), t


@settings(max_examples=50, deadline=None)
@given(workloads(), st.sampled_from(["base", "dis"]), st.sampled_from([1, 2, 100]))
def test_simulator_matches_the_brute_force_scheduler(workload, kind, depth):
    spec, jobs = workload
    result = DisaggSimulator(spec, jobs, kind, backfill_depth=depth).run()
    _check_invariants(spec, result)
    want, rejected = oracle_schedule(spec.capacities(), kind, jobs, depth)
    got = {r.job.id: (r.start, r.end, r.nodes, r.lent) for r in result.records if r.completed}
    assert got == want
    assert sorted(r.job.id for r in result.records if r.rejected) == sorted(rejected)


@settings(max_examples=40, deadline=None)
@given(
    workloads(),
    st.sampled_from([1, 100]),
    st.one_of(OPTIONS, st.just({})),
    st.sampled_from(["model", "none"]),
)
def test_model_options_match_the_brute_force_scheduler(workload, depth, options, interference):
    spec, jobs = workload
    run = DisaggSimulator(spec, jobs, "dis", backfill_depth=depth, interference=interference,
                          **options).run()  # fmt: skip
    _check_invariants(spec, run)
    want, rejected = oracle_schedule(
        spec.capacities(), "dis", jobs, depth, interference=interference, **options
    )
    got = {r.job.id: (r.start, r.end, r.nodes, r.lent) for r in run.records if r.completed}
    assert got == want
    assert sorted(r.job.id for r in run.records if r.rejected) == sorted(rejected)


@settings(max_examples=20, deadline=None)
@given(workloads())
def test_dedicated_lenders_leave_the_contention_model_nothing_to_do(workload):
    # spec amendment A.2: no two running jobs share a node, so I(j) is empty for every job and
    # switching the interference sets off changes nothing
    spec, jobs = workload
    runs = [
        [(r.start, r.end, r.nodes, r.lent) for r in DisaggSimulator(
            spec, jobs, "dis", lending="dedicated", interference=i).run().records]
        for i in ("model", "none")
    ]  # fmt: skip
    assert runs[0] == runs[1]


@settings(max_examples=20, deadline=None)
@given(workloads())
def test_identical_inputs_give_identical_schedules(workload):
    spec, jobs = workload
    runs = [DisaggSimulator(spec, jobs, "dis").run().records for _ in range(2)]
    assert [(r.start, r.end, r.nodes, r.lent) for r in runs[0]] == [
        (r.start, r.end, r.nodes, r.lent) for r in runs[1]
    ]


@settings(max_examples=30, deadline=None)
@given(workloads())
def test_small_memory_or_all_large_nodes_schedule_alike(workload):
    # R0: without large jobs, or with only large nodes, A-dis never borrows
    spec, jobs = workload
    for spec_, jobs_ in (
        (spec, [j for j in jobs if j.extra["mem_mib"] <= 32768]),
        (
            MemoryMachineSpec(spec.nodes, spec.nodes),
            [j for j in jobs if j.extra["mem_mib"] <= 65536],
        ),
    ):
        base = DisaggSimulator(spec_, jobs_, "base").run().records
        dis = DisaggSimulator(spec_, jobs_, "dis").run().records
        assert [(r.start, r.end, r.nodes) for r in base] == [(r.start, r.end, r.nodes) for r in dis]
        assert all(not r.lent for r in dis)


@settings(max_examples=30, deadline=None)
@given(workloads())
def test_under_dedicated_lenders_no_two_running_jobs_share_a_node(workload):
    # spec amendment A.2: lenders are idle nodes serving one job, compute nodes are whole
    spec, jobs = workload
    result = DisaggSimulator(spec, jobs, "dis", lending="dedicated").run()
    _check_invariants(spec, result)
    done = [r for r in result.records if r.completed]
    for a in done:
        for b in done:
            if a is not b and a.start < b.end and b.start < a.end:
                assert not ({*a.nodes, *a.lenders} & {*b.nodes, *b.lenders}), (a, b)


@settings(max_examples=30, deadline=None)
@given(workloads(), st.sampled_from(["base", "dis"]))
def test_without_contention_every_job_runs_for_its_runtime(workload, kind):
    spec, jobs = workload
    result = DisaggSimulator(spec, jobs, kind, contention=False).run()
    _check_invariants(spec, result)
    assert all(r.end - r.start == r.job.runtime for r in result.records if r.completed)
