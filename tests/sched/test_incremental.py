"""Kept reservations (``Simulator(incremental=True)``, issue 35 item 3) against re-making them.

A pass keeps the last pass's first reservation instead of cancelling and re-making it where
that provably gives the same start and nodes. Random traces on random machines, under every
queue policy, match policy, shape and priority, must give every job the same start, end,
resources, reason and reservation count with the shortcut on and off.
"""

from __future__ import annotations

import random

import pytest

from fluxgraph.machines import build_machine
from fluxgraph.sched import Simulator, make_queue_policy
from fluxgraph.workload import Job

QUEUES = ("fcfs", "easy", "hybrid", "conservative")
MATCH_POLICIES = ("first", "first", "low", "high", "lonode", "hinodex")


def _jobs(rng: random.Random, n: int, max_procs: int) -> list[Job]:
    """Bursty submissions; runtimes at, under and over the walltime."""
    jobs, t = [], 0
    for i in range(n):
        t += rng.choice([0, 0, 1, 5, 30, 120])
        wall = rng.randint(1, 300)
        run = rng.choice([wall, rng.randint(1, wall), wall + rng.randint(1, 50)])
        jobs.append(Job(i + 1, t, run, wall, procs=rng.randint(1, max_procs)))
    return jobs


def _schedule(spec, jobs, queue, policy, shape, priority, kill, incremental, cls=Simulator):
    sim = cls(
        build_machine(spec),
        jobs,
        queue=queue,
        priority=priority,
        shape=shape,
        policy=policy,
        kill_at_walltime=kill,
        incremental=incremental,
    )
    r = sim.run()
    rows = [(j.job.id, j.start, j.end, j.nodes, j.cores, j.reason, j.reservations) for j in r.jobs]
    return rows, sim.stats


def _case(seed: int) -> tuple:
    """Odd seeds: any machine, shape and priority. Even seeds: flat machines, whole nodes and
    FCFS, where reservations are kept most (and a wrong keep would show)."""
    rng = random.Random(seed)
    nodes, cores = rng.randint(2, 12), rng.randint(1, 4)
    specs = [f"nodes={nodes},cores={cores}"]
    shapes, priorities = ["node"], ["fcfs"]
    if seed % 2:
        specs += [f"nodes={nodes},cores={cores},memory=8", f"nodes={2 * nodes},cores=2,racks=2"]
        shapes += ["core", "node-core"]
        priorities += ["sjf", "wfp3"]
    name = QUEUES[seed // 2 % len(QUEUES)]
    queue = make_queue_policy(name, rng.randint(1, 4), rng.choice([None, None, rng.randint(1, 6)]))
    options = (
        rng.choice(specs),
        queue,
        rng.choice(MATCH_POLICIES),
        rng.choice(shapes),
        rng.choice(priorities),
        rng.random() < 0.8,
    )
    return _jobs(rng, rng.randint(20, 150), nodes * cores), options


@pytest.mark.parametrize("seed", range(64))
def test_kept_reservations_change_no_schedule(seed):
    jobs, options = _case(seed)
    on, stats = _schedule(*options[:1], jobs, *options[1:], True)
    off, base = _schedule(*options[:1], jobs, *options[1:], False)
    assert on == off, options
    assert base["kept"] == 0
    # every kept reservation replaces one re-booking and its cancel
    assert stats["reserve"] + stats["kept"] == base["reserve"]
    assert stats["cancel"] + stats["kept"] == base["cancel"]


def test_easy_keeps_the_head_reservation():
    """A busy flat machine under EASY: the head's reservation is kept pass after pass while
    backfilled jobs start around it, and the schedule is the re-making one."""
    rng = random.Random(7)
    jobs = _jobs(rng, 300, 8)
    on, stats = _schedule("nodes=8", jobs, "easy", "first", "node", "fcfs", True, True)
    off, _ = _schedule("nodes=8", jobs, "easy", "first", "node", "fcfs", True, False)
    assert on == off
    assert stats["kept"] > 50


def test_verify_twin_keeps_nothing():
    """With the matcher's verify twin the allocator vouches for no reservation (the twin would
    not see the learned order move)."""
    from fluxgraph.sched.allocator import MatcherAllocator
    from fluxgraph.sched.shapes import JobShape

    jobs = _jobs(random.Random(3), 80, 4)
    alloc = MatcherAllocator(build_machine("nodes=4"), JobShape("node", 1), fastpath="verify")
    sim = Simulator(None, jobs, queue="easy", allocator=alloc)
    sim.run()
    assert sim.stats["kept"] == 0


class _RandomPass:
    """A custom pass whose choices depend only on what it sees (so both runs make the same
    ones while their schedules agree): sometimes a start out of order first, then
    reservations for the first jobs and starts for the rest, sometimes a trial fit."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def schedule(self, view, now):
        order = view.queue()
        rng = random.Random(f"{self.seed}/{now}/{order}")
        acted = set()
        if order and rng.random() < 0.2:
            key = rng.choice(order)
            if view.start(key):
                acted.add(key)
        reserved, depth = 0, rng.randint(1, 2)
        for key in order:
            if key in acted:
                continue
            if rng.random() < 0.1:
                view.fits([key])
            if reserved < depth:
                at = view.reserve(key)
                reserved += at is not None and at > now
            else:
                view.start(key)

    def next_wakeup(self, now):
        return None


@pytest.mark.parametrize("seed", range(24))
def test_custom_passes_keep_no_different_reservation(seed):
    """The view's kept reservation (:mod:`fluxgraph.sched.view`) changes no schedule."""
    rng = random.Random(seed)
    nodes = rng.randint(2, 10)
    spec = f"nodes={nodes},cores={rng.randint(1, 3)}"
    jobs = _jobs(rng, rng.randint(20, 120), nodes)
    policy = rng.choice(MATCH_POLICIES)
    runs = []
    for incremental in (True, False):
        sim = Simulator(
            build_machine(spec),
            jobs,
            shape="node",
            policy=policy,
            scheduler=_RandomPass(seed),
            incremental=incremental,
        )
        r = sim.run()
        runs.append([(j.job.id, j.start, j.end, j.nodes, j.reason, j.reservations) for j in r.jobs])
        runs.append(sim.stats["kept"])
    assert runs[0] == runs[2]
    assert runs[3] == 0
