"""The custom pass's view knows a queued key from its record (submitted by now, neither started
nor rejected) and reads the simulator's queue in place: keys it may not act on are refused with
the same errors, and ``queue()`` drops the keys started in the pass, in order."""

from __future__ import annotations

import pytest

from fluxgraph.errors import SimulationError
from fluxgraph.machines import build_machine
from fluxgraph.sched import Simulator
from fluxgraph.workload import Job

# keys index the workload by (submit, id): 0 = job 1 (t=0), 1 = job 2 (t=0), 2 = job 3 (t=50,
# 5 nodes: never fits 2 nodes, rejected), 3 = job 4 (t=100)
JOBS = [Job(1, 0, 10, 10), Job(2, 0, 10, 10), Job(3, 50, 10, 10, procs=5), Job(4, 100, 10, 10)]


class Probe:
    """Starts the queue's head at each pass, after trying ``bad`` (key, at time) once."""

    def __init__(self, bad: int, at: int) -> None:
        self.bad, self.at, self.queues = bad, at, []

    def schedule(self, view, now):
        if now == self.at:
            view.start(self.bad)
        before = view.queue()
        view.start(before[0])
        self.queues.append((now, before, view.queue()))

    def next_wakeup(self, now):
        return None


def _run(bad: int, at: int) -> Probe:
    probe = Probe(bad, at)
    Simulator(build_machine("nodes=2"), JOBS, scheduler=probe).run()
    return probe


@pytest.mark.parametrize(
    ("bad", "at"),
    [
        (3, 0),  # submitted later
        (0, 100),  # started in an earlier pass (and ended)
        (2, 100),  # rejected at submission
        (4, 0),  # no such job
        (-1, 0),
    ],
)
def test_a_key_that_is_not_queued_is_refused(bad, at):
    with pytest.raises(SimulationError, match=f"job key {bad} is not queued"):
        _run(bad, at)


def test_the_queue_drops_the_keys_started_in_the_pass():
    probe = _run(1, 0)  # key 1 starts first, then the head key 0
    assert probe.queues == [(0, [0], []), (100, [3], [])]
