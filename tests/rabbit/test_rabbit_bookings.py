"""The rabbit placer behind the shared simulator's Allocator protocol (RabbitBookings)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from test_storage_simulation import check_run

from fluxgraph.machines import load_machine
from fluxgraph.papers.rabbit import StorageRequest
from fluxgraph.papers.rabbit.placer import RabbitPlacer
from fluxgraph.papers.rabbit.sim import RabbitBookings, simulate
from fluxgraph.papers.rabbit.workload import StorageJob
from fluxgraph.workload import Job

TINY = Path(__file__).resolve().parents[2] / "grug_recipes" / "elcap-tiny.graphml"


def _job(jid, request, submit=0):
    return Job(jid, submit, 10, request.walltime, nodes=request.nodes, extra={"storage": request})


def test_bookings_place_reserve_release_and_name_reasons():
    placer = RabbitPlacer(load_machine(TINY))
    book = RabbitBookings(placer)
    assert book.check(_job(1, StorageRequest(13, 10))) == "nodes"
    assert book.check(_job(2, StorageRequest(12, 10, (101,)))) == "ssd capacity"
    whole = _job(3, StorageRequest(12, 100))
    assert book.allocate(whole, 1, now=0, reserve=False).nodes == tuple(range(12))
    assert book.allocate(_job(4, StorageRequest(1, 10)), 2, now=0, reserve=False) is None
    later = book.allocate(_job(4, StorageRequest(1, 10)), 3, now=0, reserve=True)
    assert later.at == 100 and book.started.keys() == {3}  # a reservation is not a start
    book.release(3)
    book.release(1)
    assert not placer.jobs


def test_families_order_only_requests_without_lustre():
    book = RabbitBookings(RabbitPlacer(load_machine(TINY)))
    assert book.family(_job(1, StorageRequest(3, 10, (100,)))) == ((100, 1), 3)
    assert book.family(_job(2, StorageRequest(3, 10))) == ((0, 0), 3)
    assert book.family(_job(3, StorageRequest(3, 10, (), (400,)))) is None
    assert book.family(_job(4, StorageRequest(0, 10, (), (400,)))) is None


@st.composite
def requests(draw):
    nodes = draw(st.integers(0, 6))
    local = draw(st.sampled_from([(), (100,), (300,)])) if nodes else ()
    lustre = draw(st.sampled_from([(200,), (500,)] if not nodes else [(), (200,), (500,)]))
    return StorageRequest(nodes, draw(st.integers(5, 60)), local, lustre)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), requests()), min_size=1, max_size=10))
def test_random_storage_runs_keep_the_invariants_and_repeat(drawn):
    jobs = [
        StorageJob(i + 1, submit, max(1, r.walltime - i % 3), r)
        for i, (submit, r) in enumerate(drawn)
    ]
    jobs.sort(key=lambda j: (j.submit, j.id))
    first = check_run(RabbitPlacer(load_machine(TINY)), jobs)  # no vertex held twice at once
    again = simulate(RabbitPlacer(load_machine(TINY)), jobs)
    assert [(o.id, o.start, o.end, o.reason) for o in first] == [
        (o.id, o.start, o.end, o.reason) for o in again
    ]
