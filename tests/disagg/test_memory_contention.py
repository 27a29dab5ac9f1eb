"""The contention model (spec §5): the §5.6 unit checks and the progress of Eq. 1."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from fluxgraph.errors import SimulationError
from fluxgraph.papers.disagg.contention import APPS, MemoryContention, job_speed, load_apps
from fluxgraph.sched.runtime import RunningJob
from fluxgraph.workload import Job

#: The app ids of the spec's §3.2 catalogue.
CATALOGUE_IDS = set(range(1, 45)) - {5, 8, 13, 14, 21, 30, 32, 39, 42}


def test_table_covers_the_catalogue_and_keeps_the_spec_values():
    assert set(APPS) == CATALOGUE_IDS
    hpccg = APPS[19]
    assert (hpccg.n, hpccg.rho1, hpccg.rhon, hpccg.bw_rem, hpccg.bw_loc, hpccg.read) == (
        31,
        0.671,
        0.482,
        14.5,
        32.6,
        95,
    )
    assert hpccg.l100 == ((0.995, -0.0078), (0.980, -0.0086))
    assert APPS[44].name == "xspecfem3D" and APPS[44].rho1 == 0.99


def test_bad_table_row_names_the_row():
    header = "id,app,n,rho1\n"
    with pytest.raises(SimulationError, match="row 2"):
        load_apps(header + "1,amg,x,0.5\n")


def test_single_node_remote_quarter_without_interferers():
    # spec §5.6 (2): 0.75 + 0.25 * 0.671
    assert job_speed(APPS[19], 1, 0.25, []) == pytest.approx(0.9178, abs=5e-5)


def test_no_remote_memory_and_no_interferers_is_full_speed():
    assert all(job_speed(app, n, 0.0, []) == 1.0 for app in APPS.values() for n in (1, 8))


@pytest.mark.parametrize("nodes", [1, 2, 16, 64])
def test_speed_is_non_increasing_in_interfering_bandwidth(nodes):
    # spec §5.6 (3), over every (target, interferer) pair of the table, bandwidths scaled up
    for target, other in itertools.product(APPS.values(), APPS.values()):
        last = None
        for factor in (0.5, 1.0, 1.5, 2.0, 4.0):
            louder = dataclasses.replace(
                other, bw_rem=other.bw_rem * factor, bw_loc=other.bw_loc * factor
            )
            speeds = [job_speed(target, nodes, r, [(louder, 2)]) for r in (0, 0.1, 0.3, 0.6, 1)]
            assert all(0.05 - 1e-12 <= s <= 1 for s in speeds)
            if last is not None:
                assert all(s <= t + 1e-12 for s, t in zip(speeds, last, strict=True))
            last = speeds


@pytest.mark.parametrize("nodes", [1, 2, 16, 64])
def test_speed_is_non_increasing_in_remote_share_for_the_real_apps(nodes):
    # spec §5.6 (3) in r: exact where S_R <= S_L; the table's bt-mz (rho_1 = 1.000 against L
    # intercepts below 1) gains at most 5e-5 from remote memory under a weak interferer
    for target, other in itertools.product(APPS.values(), APPS.values()):
        for k in (1, 2, 8):
            speeds = [job_speed(target, nodes, r, [(other, k)]) for r in (0, 0.1, 0.3, 0.6, 1)]
            assert all(b <= a + 5e-5 for a, b in itertools.pairwise(speeds)), (target, other)


def _run(key, app, nodes, held, runtime=1000):
    job = Job(key + 1, 0, runtime, runtime, extra={"app_id": app})
    return RunningJob(key, job, 0, tuple(nodes), 32 * len(nodes), held=tuple(held))


def test_local_only_jobs_on_their_own_nodes_run_at_full_speed():
    # spec §5.6 (4): A-base holds whole nodes, nothing is shared
    owner = {100 + r: r for r in range(6)}
    model = MemoryContention(owner)
    ends = [
        model.start(
            _run(
                k,
                app,
                [2 * k, 2 * k + 1],
                [(100 + 2 * k, "memory", 32768), (101 + 2 * k, "memory", 32768)],
            ),
            0,
        )
        for k, app in enumerate((19, 36, 28))
    ]
    assert ends == [1000, 1000, 1000]
    assert [model.speed(k) for k in range(3)] == [1.0, 1.0, 1.0]
    assert list(model.retime(0)) == []


def test_progress_follows_equation_1_across_a_start_and_an_end():
    owner = {100: 0, 101: 1, 102: 2}
    model = MemoryContention(owner)
    # job 0: hpccg on node 0, a quarter of its memory lent by node 1
    a = _run(0, 19, [0], [(100, "memory", 3), (101, "memory", 1)], runtime=1000)
    end_a = model.start(a, 0)
    alone = 0.75 + 0.25 * 0.671
    assert end_a == 1090 and model.speed(0) == pytest.approx(alone)
    # at 100 job 1 (streammpi) starts on node 1, the lender: both slow down
    b = _run(1, 36, [1], [(101, "memory", 5)], runtime=500)
    end_b = model.start(b, 100)
    assert model.interferers(0) == [1] and model.interferers(1) == [0]
    s_a, s_b = model.speed(0), model.speed(1)
    assert s_a < alone and s_b < 1
    moved = dict(model.retime(100))
    left = 1000 - 100 * alone
    assert moved == {0: 100 + int(-(-left // s_a))}
    assert end_b == 100 + int(-(-500 // s_b))
    # job 1 ends early (as if cut): job 0 is alone again from then on
    model.finish(b, 300)
    left -= 200 * s_a
    assert dict(model.retime(300)) == {0: 300 + int(-(-round(left / alone, 9) // 1))}
    assert model.speed(0) == pytest.approx(alone)


def test_self_interference_reproduces_the_code_rule():
    app = APPS[36]
    plain = job_speed(app, 4, 0.2, [])
    code = job_speed(app, 4, 0.2, [], self_interference=True)
    assert plain == pytest.approx(0.8 + 0.2 * app.rhon)
    assert code < plain


def test_unknown_app_is_an_error():
    model = MemoryContention({})
    with pytest.raises(SimulationError, match="unknown app_id 99"):
        model.start(_run(0, 99, [0], []), 0)
