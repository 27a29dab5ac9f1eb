"""BBAllocator's satisfiability by dominance against the plain matcher's answer (the oracle)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.papers.bbsched.allocator import BBAllocator
from fluxgraph.papers.bbsched.machine import BBMachine
from fluxgraph.papers.bbsched.run import PRUNE
from fluxgraph.papers.bbsched.window import bb_shape
from fluxgraph.sched.allocator import MatcherAllocator
from fluxgraph.workload import Job

MACHINES = {ssd: BBMachine("t", ((8, 1),), 5000, ssd=ssd, bb_chunk=1000) for ssd in (False, True)}


@settings(max_examples=25, deadline=None)
@given(
    st.booleans(),
    st.lists(
        st.tuples(st.integers(1, 10), st.integers(0, 6500), st.integers(0, 300)),
        min_size=1,
        max_size=12,
    ),
)
def test_check_equals_the_matcher(ssd, requests):
    machine = MACHINES[ssd]
    fast = BBAllocator(machine, "lonodex", PRUNE)
    plain = MatcherAllocator(machine.graph(), bb_shape(machine), "lonodex", PRUNE)
    for i, (n, bb, s) in enumerate(requests):
        job = Job(i + 1, 0, 10, 10, n, n, extra={"bb": bb, "ssd": s if ssd else 0})
        assert fast.check(job) == plain.check(job), (n, bb, s)
