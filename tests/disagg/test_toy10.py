"""``toy10``: the worked example of spec §4.7 (paper Fig. 3), placements and speeds exactly."""

from __future__ import annotations

import pytest

from fluxgraph.papers.disagg.alloc import MemoryAllocator, MemoryRequest
from fluxgraph.papers.disagg.arrays import ArrayAllocator
from fluxgraph.papers.disagg.contention import APPS, MemoryContention, job_speed
from fluxgraph.papers.disagg.machines import build_memory_machine
from fluxgraph.sched.runtime import RunningJob
from fluxgraph.workload import Job

GIB = 1024
# A = hpccg 2 x 16 GiB, B = 2 x 48, C = streammpi 2 x 80, D = 1 x 8; all at t=0, requested 100 s
JOBS = {"A": (19, 2, 16), "B": (1, 2, 48), "C": (36, 2, 80), "D": (6, 1, 8)}


@pytest.fixture(params=["graph", "arrays"])
def toy10(request):
    if request.param == "graph":
        alloc = MemoryAllocator(build_memory_machine(10, 5), "dis")
    else:  # the span table the simulator uses by default
        alloc = ArrayAllocator([32 * GIB] * 5 + [64 * GIB] * 5, cores=32, kind="dis")
    placed = {
        name: alloc.allocate(MemoryRequest(n, gib * GIB), at=0, duration=100)
        for name, (_, n, gib) in JOBS.items()
    }
    return alloc, placed


def test_toy10_placements(toy10):
    _, p = toy10
    assert (p["A"].nodes, p["B"].nodes, p["D"].nodes) == ((0, 1), (5, 6), (2,))
    assert p["A"].lent == p["B"].lent == p["D"].lent == ()
    # C fails the local pass: P = {n7, n8} with 64 GiB each, 16 GiB each lent by n0 and n1
    assert p["C"].nodes == (7, 8) and p["C"].local == (64 * GIB, 64 * GIB)
    assert p["C"].lent == ((0, 7, 16 * GIB), (1, 8, 16 * GIB))
    assert p["C"].remote_fraction == pytest.approx(0.2)


def test_toy10_lenders_take_no_new_compute_work_even_when_idle(toy10):
    alloc, p = toy10
    alloc.release(p["A"])  # n0 and n1 now run nothing but still lend to C
    new = alloc.allocate(MemoryRequest(1, 8 * GIB), at=0, duration=100)
    assert new.nodes == (3,)
    more = alloc.allocate(MemoryRequest(1, 8 * GIB), at=0, duration=100)
    assert more.nodes == (4,)
    # n0, n1 lend and n5-n8 compute: only n9 is left for a third small job
    assert alloc.allocate(MemoryRequest(1, 8 * GIB), at=0, duration=100).nodes == (9,)
    assert alloc.allocate(MemoryRequest(1, 8 * GIB), at=0, duration=100) is None
    # once C ends the lenders are compute nodes again
    alloc.release(p["C"])
    assert alloc.allocate(MemoryRequest(2, 8 * GIB), at=0, duration=100).nodes == (0, 1)


def test_toy10_speeds(toy10):
    alloc, p = toy10
    model = MemoryContention(alloc.memory_owner)
    runs = {}
    for key, name in enumerate(JOBS):
        app = JOBS[name][0]
        job = Job(key + 1, 0, 100, 100, extra={"app_id": app})
        placement = p[name]
        run = RunningJob(key, job, 0, placement.nodes, 32, held=alloc.held(placement))
        runs[name] = run
        model.start(run, 0)
    a, b, c, d = (runs[n].key for n in "ABCD")
    assert model.interferers(a) == [c] and model.interferers(c) == [a]
    assert model.interferers(b) == [] and model.interferers(d) == []
    assert model.speed(b) == model.speed(d) == 1.0
    assert model.speed(a) == pytest.approx(0.8244, abs=2e-3)
    assert model.speed(c) == pytest.approx(0.7677, abs=2e-3)
    assert model.remote_fraction(c) == pytest.approx(0.2)


def test_toy10_curve_values():
    # r = 0 isolates S_L, r = 1 isolates S_R (spec §4.7: 0.8540 and 0.4222 for C under A)
    assert job_speed(APPS[36], 2, 0.0, [(APPS[19], 2)]) == pytest.approx(0.8540, abs=5e-4)
    assert job_speed(APPS[36], 2, 1.0, [(APPS[19], 2)]) == pytest.approx(0.4222, abs=5e-4)
