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


#: The model profiles of spec amendment A.4 that change placements or speeds (E9's rows);
#: ``catalogue`` only changes the workload.
PROFILES = {
    "default": {},
    "interference=none": {"interference": "none"},
    "lending=dedicated": {"lending": "dedicated"},
}
ALLOCATION = ("lending",)


def _toy10(engine: str, options: dict):
    placement = {k: v for k, v in options.items() if k in ALLOCATION}
    if engine == "graph":
        alloc = MemoryAllocator(build_memory_machine(10, 5), "dis", **placement)
    else:  # the span table the simulator uses by default
        caps = [32 * GIB] * 5 + [64 * GIB] * 5
        alloc = ArrayAllocator(caps, cores=32, kind="dis", **placement)
    placed = {
        name: alloc.allocate(MemoryRequest(n, gib * GIB), at=0, duration=100)
        for name, (_, n, gib) in JOBS.items()
    }
    return alloc, placed


@pytest.fixture(params=["graph", "arrays"])
def toy10(request):
    return _toy10(request.param, {})


@pytest.fixture(params=[(e, p) for e in ("graph", "arrays") for p in PROFILES])
def toy10_profile(request):
    engine, profile = request.param
    return profile, *_toy10(engine, PROFILES[profile])


def test_toy10_placements(toy10_profile):
    profile, _, p = toy10_profile
    assert (p["A"].nodes, p["B"].nodes) == ((0, 1), (5, 6))
    assert p["A"].lent == p["B"].lent == p["D"].lent == ()
    # C fails the local pass: P = {n7, n8} with 64 GiB each, each 16 GiB short
    assert p["C"].nodes == (7, 8) and p["C"].local == (64 * GIB, 64 * GIB)
    if profile == "lending=dedicated":  # the first idle nodes, n2 and n3, one deficit each
        assert p["C"].lent == ((2, 7, 16 * GIB), (3, 8, 16 * GIB))
        assert p["D"].nodes == (4,)
    else:  # lent by n0 and n1, which compute for A (shared lending)
        assert p["C"].lent == ((0, 7, 16 * GIB), (1, 8, 16 * GIB))
        assert p["D"].nodes == (2,)
    assert p["C"].remote_fraction == pytest.approx(0.2)


def test_toy10_a_dedicated_lender_is_an_idle_node():
    # a 1-node 80 GiB job computes on n9, 16 GiB short. Under shared lending n2 (computing for
    # D, 24 GiB free) lends them; under dedicated lending n2 and n3 lend to C, D computes on n4,
    # and n9 is the only idle node left: nobody can
    request = MemoryRequest(1, 80 * GIB)
    shared, _ = _toy10("arrays", {})
    got = shared.allocate(request, at=0, duration=100)
    assert (got.nodes, got.lent) == ((9,), ((2, 9, 16 * GIB),))
    for engine in ("graph", "arrays"):
        dedicated, _ = _toy10(engine, PROFILES["lending=dedicated"])
        assert dedicated.allocate(request, at=0, duration=100) is None


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


def test_toy10_speeds(toy10_profile):
    profile, alloc, p = toy10_profile
    model = MemoryContention(alloc.memory_owner, **{
        k: v for k, v in PROFILES[profile].items() if k == "interference"})  # fmt: skip
    runs = {}
    for key, name in enumerate(JOBS):
        app = JOBS[name][0]
        job = Job(key + 1, 0, 100, 100, extra={"app_id": app})
        placement = p[name]
        run = RunningJob(key, job, 0, placement.nodes, 32, held=alloc.held(placement))
        runs[name] = run
        model.start(run, 0)
    a, b, c, d = (runs[n].key for n in "ABCD")
    assert model.remote_fraction(c) == pytest.approx(0.2)
    if profile != "default":  # I = {} (dedicated: no shared node; none: switched off)
        assert all(model.interferers(k) == [] for k in (a, b, c, d))
        assert model.speed(a) == model.speed(b) == model.speed(d) == 1.0
        # (1 - r) + rho_n r with streammpi's rho_n = 0.522 (§5.4)
        assert model.speed(c) == pytest.approx(0.8 + 0.2 * 0.522, abs=1e-3)
        return
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
