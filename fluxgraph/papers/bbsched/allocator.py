"""The BBSched machine's allocator: the matcher's, with satisfiability answered by dominance.

The simulator asks, at every submission, whether the empty machine could ever hold the job
(:meth:`~fluxgraph.sched.allocator.MatcherAllocator.check`); the matcher answers per distinct
request, and a BBSched workload has thousands of distinct ``(nodes, BB chunks, SSD)`` requests,
each a walk over every node and chunk vertex (on the Theta analogue about a third of a run's
time). On a BBSched machine a request that asks for no more nodes, chunks and per-node SSD
than one the graph can hold is also held (take a subset of those nodes and chunks), so
:class:`BBAllocator` asks the matcher once for the largest requests of the machine (every node
with a 128-GB SSD request and the whole pool; on SSD machines also the 256-GB half) and answers
every request they dominate without a walk; any other request goes to the matcher as before.
Starts, reservations and releases are the matcher's, unchanged (``fastpath`` is the matcher's:
``"auto"`` answers whole-node requests on these flat machines from per-node bookings where that
is exact, ``"off"`` walks the graph every time).

>>> from fluxgraph.papers.bbsched.machine import BBMachine
>>> from fluxgraph.papers.bbsched.window import bb_shape
>>> from fluxgraph.workload import Job
>>> m = BBMachine("t", ((4, 1),), 3000, ssd=True, bb_chunk=1000)
>>> alloc = BBAllocator(m, "lonodex", "ALL:node,ALL:core,ALL:bb")
>>> alloc.check(Job(1, 0, 1, 1, 2, 2, extra={"bb": 2500, "ssd": 200}))
''
>>> alloc.check(Job(2, 0, 1, 1, 3, 3, extra={"bb": 10, "ssd": 200}))
'unsatisfiable: the machine can never hold this request'
"""

from __future__ import annotations

from fluxgraph.papers.bbsched.machine import SSD_LARGE, SSD_SMALL, BBMachine
from fluxgraph.papers.bbsched.window import bb_shape
from fluxgraph.sched.allocator import MatcherAllocator
from fluxgraph.workload import Job

__all__ = ["BBAllocator"]


class BBAllocator(MatcherAllocator):
    """:class:`MatcherAllocator` on ``machine``'s graph and job shape (module docstring)."""

    def __init__(self, machine: BBMachine, policy: str, prune: str, fastpath: str = "auto") -> None:
        super().__init__(machine.graph(), bb_shape(machine), policy, prune, fastpath=fastpath)
        n = machine.nodes
        largest = [(n, SSD_SMALL if machine.ssd else 0)]
        if machine.ssd:
            largest.append((n - machine.small_nodes, SSD_LARGE))
        self._held: list[tuple[int, int, int]] = []
        for nodes, ssd in largest:
            self._holds(Job(0, 0, 1, 1, nodes, nodes, extra={"bb": machine.pool, "ssd": ssd}))

    def _request(self, job: Job) -> tuple[int, int, int]:
        _, nodes, bb, ssd = self.shape.key(job)
        return nodes, bb, ssd

    def _holds(self, job: Job) -> str:
        reason = super().check(job)
        if not reason:
            self._held.append(self._request(job))
        return reason

    def check(self, job: Job) -> str:
        n, b, s = self._request(job)
        if any(n <= hn and b <= hb and s <= hs for hn, hb, hs in self._held):
            return ""
        return self._holds(job)
