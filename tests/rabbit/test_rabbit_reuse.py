"""RabbitBookings keeps a reservation it would place again unchanged (rabbit_sim docstring)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from test_rabbit_bookings import requests

from fluxgraph.machines import load_machine
from fluxgraph.papers.rabbit import StorageRequest
from fluxgraph.papers.rabbit.placer import RabbitPlacer
from fluxgraph.papers.rabbit.sim import RabbitBookings, simulate
from fluxgraph.papers.rabbit.workload import StorageJob
from fluxgraph.workload import Job

TINY = Path(__file__).resolve().parents[2] / "grug_recipes" / "elcap-tiny.graphml"


def _job(jid, request, submit=0):
    return Job(jid, submit, 10, request.walltime, nodes=request.nodes, extra={"storage": request})


def test_a_reservation_met_again_on_the_same_placements_is_kept():
    placer = RabbitPlacer(load_machine(TINY))
    book = RabbitBookings(placer)
    assert book.allocate(_job(1, StorageRequest(12, 100)), 1, now=0, reserve=False).at == 0
    wide = _job(2, StorageRequest(12, 50))
    first = book.allocate(wide, 2, now=0, reserve=True)
    book.release(2)  # the next pass cancels it ... and asks again at 10: nothing changed
    again = book.allocate(wide, 3, now=10, reserve=True)
    assert (again.at, again.nodes) == (first.at, first.nodes) == (100, tuple(range(12)))
    assert book.reused == 1 and len(placer.jobs) == 2  # no second placement was made
    book.release(3)
    book.release(1)  # job 1 ends early: the held reservation goes before the release
    assert len(placer.jobs) == 0
    assert book.allocate(wide, 4, now=20, reserve=True).at == 20 and book.reused == 1


def test_a_reservation_whose_window_changed_is_placed_again():
    placer = RabbitPlacer(load_machine(TINY))
    book = RabbitBookings(placer)
    book.allocate(_job(1, StorageRequest(12, 100)), 1, now=0, reserve=False)
    wide = _job(2, StorageRequest(12, 50))
    assert book.allocate(wide, 2, now=0, reserve=True).at == 100
    lustre = _job(3, StorageRequest(0, 500, (), (400,)))  # storage-only: overlaps the window
    assert book.allocate(lustre, 3, now=0, reserve=False).at == 0
    book.release(2)
    assert book.allocate(wide, 4, now=10, reserve=True).at == 100 and book.reused == 0
    assert len(placer.jobs) == 3


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), requests()), min_size=1, max_size=12))
def test_kept_reservations_give_the_schedule_of_re_made_ones(drawn):
    jobs = [
        StorageJob(i + 1, submit, max(1, r.walltime - i % 4), r)
        for i, (submit, r) in enumerate(drawn)
    ]
    jobs.sort(key=lambda j: (j.submit, j.id))

    def run(reuse):
        out = simulate(RabbitPlacer(load_machine(TINY)), jobs, reuse=reuse)
        return [
            (o.id, o.start, o.end, o.reason)
            + (
                (o.placement.nodes, o.placement.node_local, o.placement.osts, o.placement.mgts)
                if o.placement
                else ()
            )
            for o in out
        ]

    assert run(True) == run(False)
