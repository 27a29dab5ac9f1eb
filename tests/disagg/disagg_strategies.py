"""Hypothesis strategies shared by the disaggregated-memory tests: allocator operation
streams and small random workloads on small machines."""

from __future__ import annotations

from hypothesis import strategies as st

from fluxgraph.papers.disagg.contention import APPS
from fluxgraph.papers.disagg.machines import MemoryMachineSpec
from fluxgraph.workload import Job

#: Request sizes (MiB per node) around the normal and large nodes' capacities.
ALLOC_MIB = st.sampled_from([1000, 8192, 20000, 32768, 40000, 49152, 65536, 80000, 120000])

#: The model options other than the defaults (``lending``, ``lender_compute``; spec D17, D1).
OPTIONS = st.sampled_from(
    [
        {"lending": "dedicated"},
        {"lender_compute": "if-memory-fits"},
    ]
)

#: Job memory (MiB per node) of the random workloads.
JOB_MIB = st.sampled_from([1024, 16384, 30000, 40000, 49152, 60000, 90000])


def allocator_ops(max_size: int, resize: bool = False):
    """Lists of ``("alloc", nodes, MiB, start, duration)``, ``("release", i)`` and, with
    ``resize``, ``("resize", i, delta)``."""
    kinds = [
        st.tuples(
            st.just("alloc"), st.integers(1, 4), ALLOC_MIB, st.integers(0, 40), st.integers(1, 30)
        ),
        st.tuples(st.just("release"), st.integers(0, 50)),
    ]
    if resize:
        kinds.append(st.tuples(st.just("resize"), st.integers(0, 50), st.integers(-10, 20)))
    return st.lists(st.one_of(*kinds), min_size=1, max_size=max_size)


@st.composite
def workloads(draw):
    """``(machine spec, jobs)``: 2-6 nodes (some large), 1-12 jobs of 1-3 nodes."""
    n = draw(st.integers(2, 6))
    large = draw(st.integers(0, n))
    jobs = []
    for i in range(draw(st.integers(1, 12))):
        runtime = draw(st.integers(1, 60))
        extra = {"mem_mib": draw(JOB_MIB), "app_id": draw(st.sampled_from(sorted(APPS)))}
        jobs.append(
            Job(
                i + 1,
                draw(st.integers(0, 80)),
                runtime,
                runtime + draw(st.integers(0, 30)),
                nodes=draw(st.integers(1, 3)),
                extra=extra,
            )
        )
    return MemoryMachineSpec(n, large), jobs


def engine_schedules(spec, jobs, kind: str, **options) -> list[list[tuple]]:
    """Every job's (id, start, end, nodes, local, lent, rejected) under the graph engine and
    under the span-table engine, in that order (the two must be equal)."""
    from fluxgraph.papers.disagg.sim import DisaggSimulator

    return [
        [
            (r.job.id, r.start, r.end, r.nodes, r.local, r.lent, r.rejected)
            for r in DisaggSimulator(spec, jobs, kind, engine=engine, **options).run().records
        ]
        for engine in ("graph", "arrays")
    ]
