"""Resumed passes against re-made ones.

A pass after a pass that started nothing, with no finish in between, lets the last pass's
outcomes stand for the unchanged head of the queue instead of cancelling and re-making its
reservations. Re-making one meets the state it was made on, but under a policy that learns its
candidate order (``first``) the order may have moved since, so the allocator vouches for each
(``MatcherAllocator.stands``). Random traces on random machines, under every queue, match
policy, shape and priority, must give every job the same start, end, resources and reason as a
simulator that re-makes every pass.
"""

from __future__ import annotations

import random

import pytest
from test_incremental import _case, _jobs, _schedule

from fluxgraph.sched import Simulator


class _Remaking(Simulator):
    """Never resumes: every pass walks the whole queue from its head."""

    _dirty = property(lambda self: True, lambda self, value: None)


def _rows(cls, *case):
    """Every job's start, end, resources and reason (not its reservation count: a resumed
    reservation is not counted again), and the run's statistics."""
    rows, stats = _schedule(*case, True, cls=cls)
    return [row[:-1] for row in rows], stats


@pytest.mark.parametrize("seed", range(32))
def test_resumed_passes_change_no_schedule(seed):
    jobs, (spec, *options) = _case(seed)
    resumed, _ = _rows(Simulator, spec, jobs, *options)
    remade, base = _rows(_Remaking, spec, jobs, *options)
    assert resumed == remade, (spec, *options)
    assert base["resumed_passes"] == 0


@pytest.mark.parametrize("seed", [6, 12, 22])
def test_first_policy_resumes_and_stops_where_the_order_moved(seed):
    """Conservative backfilling with ``first``: passes resume, and these traces (found by
    search) each reach a resumed reservation whose nodes the learned order moved, so letting
    every resumed outcome stand would give another schedule."""
    rng = random.Random(seed)
    nodes = rng.randint(4, 16)
    jobs = _jobs(rng, 200, nodes)
    args = (f"nodes={nodes}", jobs, "conservative", "first", "node", "fcfs", True)
    resumed, stats = _rows(Simulator, *args)
    remade, _ = _rows(_Remaking, *args)
    assert resumed == remade
    assert stats["resumed_passes"] > 50
