"""``Matcher.match(..., at=t)``: one select at a single future time (rabbit spec §4.4)."""

from __future__ import annotations

from errno import EBUSY, EINVAL

import pytest

from fluxgraph.errors import MatchError
from fluxgraph.machines import build_machine
from fluxgraph.matcher import Matcher


def nodes(n: int, duration: int = 100) -> dict:
    return {
        "version": 9999,
        "resources": [{"type": "node", "count": n, "exclusive": True}],
        "tasks": [{"command": ["app"], "slot": "s", "count": {"per_slot": 1}}],
        "attributes": {"system": {"duration": duration}},
    }


def test_at_books_a_reservation_at_exactly_that_time():
    m = Matcher(build_machine("nodes=2"), policy="low")
    busy = m.match(nodes(2), now=0)  # [0, 100)
    r = m.match(nodes(1), now=0, at=100)
    assert (r.at, r.reserved, [v.name for v in r.resources if v.type == "node"]) == (
        100,
        True,
        ["node0"],
    )
    sched = m.graph.schedule
    node0 = m.graph.by_name["node0"][0]
    assert r.job_id in sched.reservations[node0] and busy.job_id in sched.allocations[node0]


def test_at_does_not_search_later_times():
    m = Matcher(build_machine("nodes=2"), policy="low")
    m.match(nodes(2), now=0)
    with pytest.raises(MatchError) as info:
        m.match(nodes(1), now=0, at=50)  # overlaps [0, 100); a reservation would take 100
    assert info.value.errno == EBUSY
    assert m.match(nodes(1), op="allocate_orelse_reserve", now=0).at == 100


def test_at_ignores_the_overrun_check_of_now():
    """At ``now`` an exclusive vertex holding any allocation is busy (the reference's overrun
    check); a select at a later time looks at the planners only."""
    m = Matcher(build_machine("nodes=1"), policy="low")
    m.match(nodes(1, duration=100), now=0)
    with pytest.raises(MatchError):
        m.match(nodes(1), now=100)  # the job still holds node0 (not cancelled)
    assert m.match(nodes(1), now=0, at=100).at == 100


def test_without_allocating_at_books_nothing():
    m = Matcher(build_machine("nodes=1"), policy="low")
    m.match(nodes(1), now=0)
    r = m.match(nodes(1), op="without_allocating", now=0, at=100)
    assert r.at == 100
    assert m.match(nodes(1), now=0, at=100).at == 100  # still free


@pytest.mark.parametrize(("op", "at"), [("allocate", -1), ("allocate_orelse_reserve", 5)])
def test_bad_at_is_einval(op, at):
    m = Matcher(build_machine("nodes=1"), policy="low")
    with pytest.raises(MatchError) as info:
        m.match(nodes(1), op=op, now=0, at=at)
    assert info.value.errno == EINVAL and "at=" in str(info.value)
