"""The flat-machine fast path (``fluxgraph.traverser.fastpath``) against the plain walk.

Three checks: hypothesis sessions of random operations on random flat machines through a
``Matcher(fastpath="verify")`` (every outcome, emitted selection and the whole scheduling state
compared with a walk-only twin after each operation, and the engine's ``_check``); simulations of
random traces on random machines with the fast path on and off (every job's start, end and
resources compared); and the engine's choices on hand-made cases.
"""

from __future__ import annotations

import contextlib
import itertools
import random

import pytest
from _flat_machines import POLICIES, flat_machine, jobspec, random_jobs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fluxgraph.errors import MatchError
from fluxgraph.graph import ResourceGraph
from fluxgraph.machines import build_machine
from fluxgraph.matcher import OPS, Matcher
from fluxgraph.sched import Simulator, make_queue_policy
from fluxgraph.sched.allocator import MatcherAllocator
from fluxgraph.sched.shapes import JobShape


def run_session(seed: int, steps: int) -> int:
    """Random operations through a verifying matcher; the matches the fast path answered."""
    rng = random.Random(seed)
    g = flat_machine(rng)
    nodes = g.by_type["node"]
    prune = rng.choice(["ALL:core,ALL:node", "ALL:core", "", "ALL:node,ALL:core,ALL:memory"])
    defer = rng.random() < 0.5  # (verify mode writes deferred reservations at each compare)
    m = Matcher(
        g, policy=rng.choice(POLICIES), prune=prune, fastpath="verify", defer_reservations=defer
    )
    live: list[int] = []
    down: list[int] = []
    now = 0
    for _ in range(steps):
        now += rng.choice([0, 0, 1, 5])
        x = rng.random()
        if x < 0.25 and live:
            m.cancel(live.pop(rng.randrange(len(live))))
        elif x < 0.3:  # a node down for a while (the walk answers meanwhile), then up
            if down:
                m.set_status([g.ranks[down.pop()]], "up")
            elif rng.random() < 0.3:
                down.append(rng.choice(nodes))
                m.set_status([g.ranks[down[-1]]], "down")
        else:
            spec = jobspec(rng, len(nodes), rng.randint(1, 20))
            op = rng.choice([*OPS, "allocate", "allocate_orelse_reserve"])
            at = None
            if op in ("allocate", "without_allocating") and rng.random() < 0.2:
                at = now + rng.randint(0, 10)
            try:
                r = m.match(spec, op=op, now=now, at=at)
            except MatchError:
                continue
            if op.startswith("allocate"):
                live.append(r.job_id)
    return m.traverser.fastpath.used


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
def test_verified_sessions(seed):
    """Every operation agrees with the walk (the verify mode asserts it)."""
    run_session(seed, 40)


def test_sessions_use_the_fast_path():
    """The random sessions do exercise the fast path (not only the fallback)."""
    assert sum(run_session(seed, 40) for seed in range(12)) > 30


class _Recording(MatcherAllocator):
    """Keeps every booking made (start, nodes, cores and every other vertex held). It vouches
    for a resumed reservation only where the policy learns no order (the walk cannot vouch
    under ``first``, the fast path can: the bookings made would differ, not the schedule)."""

    def stands(self, jobid, now, ignore) -> bool:
        return not self.matcher.policy.stop_on_k

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.made: list = []

    def allocate(self, job, jobid, now, reserve):
        got = super().allocate(job, jobid, now, reserve)
        self.made.append((job.id, jobid, now, reserve, got))
        return got


@pytest.mark.parametrize("seed", range(16))
def test_simulations_agree(seed):
    """Random traces on random machines: fast path on and off give the same schedule."""
    rng = random.Random(seed)
    spec = rng.choice(
        [
            f"nodes={rng.randint(4, 12)},cores={rng.randint(1, 4)}",
            f"nodes={rng.randint(4, 12)},cores=2,memory=8",
            f"nodes=8,cores={rng.randint(1, 3)},racks=2",
            f"nodes={rng.randint(4, 10)},cores=2,gpus=1",
        ]
    )
    policy = rng.choice(POLICIES)
    queue = rng.choice(["fcfs", "easy", "hybrid", "conservative"])
    kind = rng.choice(["node", "node", "node-core"])
    jobs = random_jobs(rng, 120, 2)
    out = []
    for mode in ("auto", "off"):
        g = build_machine(spec)
        cpn = max(1, len(g.by_type.get("core", [])) // len(g.by_type["node"]))
        alloc = _Recording(g, JobShape(kind, cpn), policy, fastpath=mode)
        # (kept reservations off: they need the fast path, and the bookings are compared)
        queue_policy = make_queue_policy(queue, 8)
        sim = Simulator(g, jobs, queue=queue_policy, allocator=alloc, incremental=False)
        r = sim.run()
        out.append(
            ([(j.job.id, j.start, j.end, j.nodes, j.cores, j.reason) for j in r.jobs], alloc.made)
        )
        if mode == "auto":
            alloc.matcher.traverser.fastpath._check()
    assert out[0] == out[1], (spec, policy, queue, kind)


def test_first_takes_learned_order_and_rekeys():
    """``first`` books the highest free nodes, then the re-keyed order puts booked ones last."""
    m = Matcher(build_machine("nodes=4,cores=2"), policy="first", fastpath="verify")
    spec = jobspec(random.Random(0), 4, 10)
    spec["resources"] = [
        {"type": "node", "count": 2, "exclusive": True, "with": [spec["resources"][0]["with"][0]]}
    ]
    spec["resources"][0]["with"][0]["with"] = [{"type": "core", "count": 1}]
    a = m.match(spec)
    b = m.match(spec)
    names = [[v.name for v in r.resources if v.type == "node"] for r in (a, b)]
    assert names == [["node2", "node3"], ["node0", "node1"]]
    with pytest.raises(MatchError):
        m.match(spec)
    r = m.match(spec, op="allocate_orelse_reserve")
    assert r.reserved and r.at == 10
    m.cancel(a.job_id)
    assert m.traverser.fastpath.used == 3


def test_non_flat_machine_walks():
    """Sockets below the nodes: the engine declines and the walk answers."""
    g = ResourceGraph()
    root = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    g.set_root("containment", root)
    n = g.add_vertex("node", "node", 0, rank=0, paths={"containment": "/c0/node0"})
    g.add_edge(root, n, "containment")
    s = g.add_vertex("socket", "socket", 0, paths={"containment": "/c0/node0/socket0"})
    g.add_edge(n, s, "containment")
    c = g.add_vertex("core", "core", 0, paths={"containment": "/c0/node0/socket0/core0"})
    g.add_edge(s, c, "containment")
    m = Matcher(g, policy="first", fastpath="verify")
    spec = jobspec(random.Random(1), 1, 5)
    spec["resources"] = [
        {
            "type": "node",
            "count": 1,
            "exclusive": True,
            "with": [
                {"type": "slot", "count": 1, "label": "t", "with": [{"type": "core", "count": 1}]}
            ],
        }
    ]
    m.match(spec)
    assert m.traverser.fastpath.used == 0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from(POLICIES))
def test_engine_invariants(seed, policy):
    """Whole-node jobs only: the mirror equals the planners after every operation (``_check``),
    and no two bookings of a node overlap in time."""
    rng = random.Random(seed)
    g = build_machine(f"nodes={rng.randint(2, 8)},cores={rng.randint(1, 3)}")
    m = Matcher(g, policy=policy)
    fast = m.traverser.fastpath
    live: list[int] = []
    now = 0
    for _ in range(30):
        now += rng.choice([0, 2, 7])
        if live and rng.random() < 0.3:
            m.cancel(live.pop(rng.randrange(len(live))))
        else:
            spec = jobspec(rng, len(g.by_type["node"]), rng.randint(1, 30))
            core = {"type": "core", "count": rng.randint(1, 3)}
            spec["resources"][0] = {
                "type": "node",
                "count": rng.randint(1, len(g.by_type["node"])),
                "exclusive": True,
                "with": [{"type": "slot", "count": 1, "label": "t", "with": [core]}],
            }
            op = rng.choice(["allocate", "allocate_orelse_reserve"])
            with contextlib.suppress(MatchError):
                live.append(m.match(spec, op=op, now=now).job_id)
        fast._check()
        for lst in fast.busy:
            spans = sorted((s, e) for s, e, _, _ in lst)
            assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
    assert fast.used > 0 or not live
