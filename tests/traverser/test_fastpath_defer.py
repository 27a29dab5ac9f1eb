"""Deferred reservations (``fluxgraph.traverser.fastpath_defer``) against eager writes.

Two matchers on copies of one random flat machine, one deferring its reservations and one
writing them at once, get the same random operations (whole-node matches the fast path answers,
others the walk answers, cancels, status changes); every outcome and emitted selection must be
equal, and whenever the state is compared (at random points, so that reservations are also
cancelled unwritten) the written state must be the eager one, span ids included. Simulations
with conservative and hybrid backfilling compare whole schedules.
"""

from __future__ import annotations

import copy
import random

import pytest
from _flat_machines import POLICIES, flat_machine, jobspec, random_jobs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fluxgraph.jobspec import load as load_jobspec
from fluxgraph.machines import build_machine
from fluxgraph.matcher import OPS, Matcher
from fluxgraph.sched import Simulator, make_queue_policy
from fluxgraph.sched.allocator import MatcherAllocator
from fluxgraph.sched.shapes import JobShape
from fluxgraph.traverser import fastpath_defer
from fluxgraph.traverser.fastpath_verify import Recorder, assert_same_state


def _outcome(m: Matcher, spec, op: str, job: int, now: int, at: int | None) -> tuple:
    """What one operation gives: its outcome and the emitted selection."""
    rec = Recorder(None)
    return m.run(spec, op, job, rec, now, at), rec.calls


def _request(rng: random.Random, nodes: int, duration: int) -> dict:
    """Mostly whole nodes (the fast path's), else any of the fast path tests' requests."""
    spec = jobspec(rng, nodes, duration)
    if rng.random() < 0.8:
        slot = {"type": "slot", "count": 1, "label": "t", "with": [{"type": "core", "count": 1}]}
        count = rng.randint(1, nodes)
        spec["resources"] = [{"type": "node", "count": count, "exclusive": True, "with": [slot]}]
    return spec


def run_twins(seed: int, steps: int) -> tuple[int, int]:
    """Random operations on a deferring and an eager matcher; (reservations deferred,
    deferred ones cancelled unwritten)."""
    rng = random.Random(seed)
    g = flat_machine(rng)
    nodes = g.by_type["node"]
    prune = rng.choice(["ALL:core,ALL:node", "ALL:core", "", "ALL:node,ALL:core,ALL:memory"])
    policy = rng.choice(POLICIES)
    lazy = Matcher(copy.deepcopy(g), policy=policy, prune=prune, defer_reservations=True)
    eager = Matcher(g, policy=policy, prune=prune)
    fast = lazy.traverser.fastpath
    live: list[int] = []
    down: list[int] = []
    now = deferred = unwritten = job = 0
    for _ in range(steps):
        now += rng.choice([0, 0, 1, 5])
        x = rng.random()
        if x < 0.25 and live:
            gone = live.pop(rng.randrange(len(live)))
            unwritten += gone in fast.pending
            lazy.cancel(gone)
            eager.cancel(gone)
        elif x < 0.3:
            if down:
                rank = g.ranks[down.pop()]
                assert lazy.set_status([rank], "up") == eager.set_status([rank], "up")
            elif rng.random() < 0.3:
                down.append(rng.choice(nodes))
                rank = g.ranks[down[-1]]
                assert lazy.set_status([rank], "down") == eager.set_status([rank], "down")
        else:
            spec = load_jobspec(_request(rng, len(nodes), rng.randint(1, 20)))
            op = "allocate_orelse_reserve" if rng.random() < 0.5 else rng.choice(OPS)
            at = now + rng.randint(1, 10) if op == "allocate" and rng.random() < 0.2 else None
            before = len(fast.pending)
            job += 1
            got = _outcome(lazy, spec, op, job, now, at)
            assert got == _outcome(eager, spec, op, job, now, at), (seed, op)
            deferred += len(fast.pending) > before
            if got[0].rc == 0 and op.startswith("allocate"):
                live.append(job)
        if rng.random() < 0.15:
            assert_same_state(lazy.traverser, eager.traverser)  # (writes the deferred ones)
    assert_same_state(lazy.traverser, eager.traverser)
    return deferred, unwritten


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
def test_deferred_sessions_equal_eager(seed):
    """Same outcomes and selections; the written state is the eager one."""
    run_twins(seed, 50)


def test_sessions_defer_and_cancel_unwritten():
    """The sessions do defer reservations and cancel some before they are written."""
    counts = [run_twins(seed, 50) for seed in range(12)]
    assert sum(d for d, _ in counts) > 60
    assert sum(u for _, u in counts) > 8


def test_flush_before_the_walk_reads():
    """A match the walk answers sees the deferred reservation (written first)."""
    m = Matcher(build_machine("nodes=2,cores=2"), defer_reservations=True)
    whole = {
        "version": 9999,
        "resources": [
            {
                "type": "node",
                "count": 2,
                "exclusive": True,
                "with": [
                    {
                        "type": "slot",
                        "count": 1,
                        "label": "t",
                        "with": [{"type": "core", "count": 2}],
                    }
                ],
            }
        ],
        "tasks": [{"command": ["x"], "slot": "t", "count": {"per_slot": 1}}],
        "attributes": {"system": {"duration": 10}},
    }
    assert m.match(whole).at == 0
    assert m.match(whole, op="allocate_orelse_reserve").at == 10
    assert list(m.traverser.fastpath.pending) == [2]
    cores = copy.deepcopy(whole)
    cores["resources"] = [
        {"type": "slot", "count": 1, "label": "t", "with": [{"type": "core", "count": 1}]}
    ]
    r = m.match(cores, op="allocate_orelse_reserve", now=0)
    assert (r.at, m.traverser.fastpath.pending) == (20, {})


@pytest.mark.parametrize("seed", range(8))
def test_simulations_agree(seed):
    """Conservative and hybrid backfilling (every reservation re-made at every pass): the same
    schedule and the same bookings with reservations deferred and written at once."""
    rng = random.Random(seed)
    spec = f"nodes={rng.randint(4, 12)},cores={rng.randint(1, 4)}"
    policy = rng.choice(POLICIES)
    queue = make_queue_policy(rng.choice(["conservative", "hybrid"]), rng.choice([64, 3]))
    jobs = random_jobs(rng, 150, 2)
    out = []
    for defer in (True, False):
        g = build_machine(spec)
        cpn = len(g.by_type["core"]) // len(g.by_type["node"])
        alloc = MatcherAllocator(g, JobShape("node", cpn), policy, defer_reservations=defer)
        r = Simulator(g, jobs, queue=queue, allocator=alloc).run()
        out.append([(j.job.id, j.start, j.end, j.nodes, j.reservations, j.reason) for j in r.jobs])
        alloc.matcher.traverser.fastpath._check()
    assert out[0] == out[1], (spec, policy, queue.name)
    assert sum(r[4] for r in out[0]) > 0  # (reservations were made, and deferred)


def test_syncing_a_node_early_changes_nothing(monkeypatch):
    """A node is synced once enough bookings wait for their span ids (bounding what cancelled
    reservations leave behind); syncing after every second one writes the same state."""
    monkeypatch.setattr(fastpath_defer, "_SYNC_EVERY", 2)
    for seed in range(8):
        run_twins(seed, 50)
