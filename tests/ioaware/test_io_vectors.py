"""Spec §7.3's unit vectors: Eq. 1-5 and the starts of the first cycle (t = 0, pre-trained,
empty cluster) for W1 and W2, from one pass of each scheduler on a recording view."""

from __future__ import annotations

from collections import Counter

import pytest

from fluxgraph.papers.ioaware.estimator import Estimator
from fluxgraph.papers.ioaware.run import make_scheduler, pretrain
from fluxgraph.papers.ioaware.workload import THREADS, w1, w2


class FirstCycle:
    """A view of an empty 15-node cluster at t = 0 with ``jobs`` queued; records starts."""

    def __init__(self, jobs):
        self.jobs = list(jobs)
        self.now, self.finished, self.submitted, self.woken = 0, 0, len(self.jobs), False
        self.started: list[int] = []

    def queue(self):
        return [k for k in range(len(self.jobs)) if k not in self.started]

    def job(self, key):
        return self.jobs[key]

    def running(self):
        return {}

    def start(self, key):
        self.started.append(key)
        return True


def first_cycle(jobs, name, r_limit):
    estimator = Estimator()
    pretrain(estimator, THREADS)
    sched = make_scheduler(name, 15, estimator, None, r_limit)
    view = FirstCycle(jobs)
    sched.schedule(view, 0)
    return sched, Counter(jobs[k].extra["kind"] for k in view.started)


def test_w1_targets_at_t0():
    sched, _ = first_cycle(w1(), "S2", 20.0)
    eq = sched.groups
    assert eq.target == pytest.approx(8.523, abs=5e-4)
    assert (eq.r_star, eq.r_bar) == (0.0, 0.0)
    assert eq.adjusted == pytest.approx(8.523, abs=5e-4)
    s8 = sched.demand(("write8", 1, 600))[0][2]
    assert sched.threshold(s8) == pytest.approx(6.60, abs=5e-3)


def test_w2_targets_at_t0():
    sched, _ = first_cycle(w2(), "S2", 20.0)
    eq = sched.groups
    assert eq.volume == pytest.approx(40000)
    assert eq.area == pytest.approx(35739.2, abs=0.5)
    assert eq.target == pytest.approx(16.788, abs=5e-4)
    assert eq.r_star == pytest.approx(0.541, abs=5e-4)
    assert eq.r_bar == pytest.approx(0.2985, abs=5e-4)
    assert eq.adjusted == pytest.approx(12.310, abs=5e-3)
    adjusted = [sched.demand((k, 1, 600))[0][2] for k in ("write8", "write6", "write4", "write2")]
    assert adjusted == pytest.approx([3.548, 2.683, 1.757, 0.764], abs=5e-4)
    assert sched.demand(("write1", 1, 600))[1][2] is None  # write1 is in the zero group


@pytest.mark.parametrize(
    ("jobs", "name", "r_limit", "expected"),
    [
        (w1, "S0", 20.0, {"write8": 15}),
        (w1, "S1", 20.0, {"write8": 5, "sleep": 10}),
        (w1, "S1", 15.0, {"write8": 3, "sleep": 12}),
        (w1, "S2", 20.0, {"write8": 2, "sleep": 13}),
        (w2, "S1", 20.0, {"write8": 5, "write1": 1, "sleep": 9}),
        (w2, "S1", 15.0, {"write8": 3, "write6": 1, "sleep": 11}),
        (w2, "S2", 20.0, {"write8": 3, "write6": 1, "write1": 10, "sleep": 1}),
    ],
)
def test_starts_of_the_first_cycle(jobs, name, r_limit, expected):
    _, counts = first_cycle(jobs(), name, r_limit)
    assert dict(counts) == expected
