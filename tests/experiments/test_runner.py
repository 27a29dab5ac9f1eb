"""The sweep runner: backends give identical rows, resume after a kill, failing cells."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from experiments_helpers import kth_doc, result_rows, statuses, write_yaml

from fluxgraph.__main__ import main
from fluxgraph.errors import ExperimentError
from fluxgraph.experiments import Experiment, ResultStore, run_sweep


def _exp(**kw) -> Experiment:
    return Experiment.from_dict(kth_doc(**kw))


def test_serial_sweep_resumes_and_skips_done_cells(tmp_path):
    exp = _exp(limit=20)
    first = run_sweep(exp, tmp_path, workers=1, progress=False)
    assert (first.total, first.ran, first.done, first.failed) == (6, 6, 6, 0)
    rows = result_rows(tmp_path)
    assert len(rows) == 6 * 4
    again = run_sweep(exp, tmp_path, workers=1, progress=False)
    assert (again.ran, again.done) == (0, 6)
    assert result_rows(tmp_path) == rows
    assert (tmp_path / "experiment.yaml").is_file()


def test_pool_and_local_dask_cluster_give_identical_rows(tmp_path):
    pytest.importorskip("distributed")
    exp = _exp(limit=25)
    serial, pool, dask = tmp_path / "serial", tmp_path / "pool", tmp_path / "dask"
    run_sweep(exp, serial, workers=1, progress=False)
    r_pool = run_sweep(exp, pool, workers=2, progress=False)
    r_dask = run_sweep(exp, dask, workers=2, dask="local", progress=False)
    assert r_pool.backend == "pool" and r_dask.backend.startswith("dask LocalCluster")
    assert r_pool.done == r_dask.done == 6
    assert result_rows(serial) == result_rows(pool) == result_rows(dask)
    workers = {r.worker for r in ResultStore(dask, readonly=True).rows()}
    assert all(w and str(os.getpid()) not in w for w in workers)


def test_failing_cell_is_recorded_and_the_sweep_goes_on(tmp_path):
    doc = kth_doc(limit=10)
    doc["axes"]["trace"] = [
        "kth-sample.swf",
        {"generator": "poisson", "n_jobs": 5, "rate": -1},  # fails when the cell runs
    ]
    del doc["fixed"]["trace"]
    exp = Experiment.from_dict(doc)
    result = run_sweep(exp, tmp_path, workers=2, progress=False)
    assert (result.total, result.done, result.failed, result.failed_now) == (12, 6, 6, 6)
    with ResultStore(tmp_path, readonly=True) as store:
        failed = list(store.rows(status=("failed",)))
        assert len(failed) == 6
        assert all("rate must be > 0" in r.error for r in failed)
        assert all("Traceback" in r.traceback and "poisson" in r.traceback for r in failed)
        assert all(not r.metrics for r in failed)
    # A plain re-run skips failed cells; --retry-failed runs them again (and they fail again).
    assert run_sweep(exp, tmp_path, workers=1, progress=False).ran == 0
    again = run_sweep(exp, tmp_path, workers=1, retry_failed=True, progress=False)
    assert (again.ran, again.failed_now) == (6, 6)
    db = sqlite3.connect(tmp_path / "results.sqlite")
    attempts = {a for (a,) in db.execute("SELECT attempts FROM cells WHERE status='failed'")}
    db.close()
    assert attempts == {2}


def _wait_for_done(out: Path, count: int, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the sweep ended before it could be interrupted"
        if (out / "results.sqlite").exists():
            try:
                done = sum(s == "done" for s in statuses(out).values())
            except sqlite3.OperationalError:
                done = 0
            if done >= count:
                return
        time.sleep(0.05)
    raise AssertionError("the sweep made no progress")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_sweep_resumes_without_lost_or_duplicated_rows(tmp_path, sig):
    # 24 short cells, so that the interruption lands mid-sweep even on a loaded machine.
    doc = kth_doc(limit=30)
    doc["axes"]["seed"] = [0, 1, 2, 3]  # 24 cells
    path = write_yaml(tmp_path / "exp.yaml", doc)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "fluxgraph", "sweep", str(path), "--out", str(out)]
    proc = subprocess.Popen(
        [*cmd, "--workers", "2", "--quiet"],
        start_new_session=True,
        # A test run started in the background inherits SIGINT ignored; Ctrl-C must reach it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for_done(out, 3, proc)
        # SIGKILL the whole session (sweep and workers); SIGINT as a terminal's Ctrl-C does.
        os.killpg(proc.pid, sig)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if sig == signal.SIGINT:
        assert proc.returncode == 130
    before = statuses(out)
    done_before = {c for c, s in before.items() if s == "done"}
    assert 3 <= len(done_before) < 24
    rows_before = result_rows(out)
    # No half-recorded cell: exactly the done cells have rows, four each.
    assert {r[0] for r in rows_before} == done_before
    assert len(rows_before) == 4 * len(done_before)
    # Resume with the same command: only the missing cells run.
    assert main([*cmd[3:], "--workers", "2", "--quiet"]) == 0
    rows = result_rows(out)
    assert len(rows) == len(set(rows)) == 24 * 4
    assert set(rows_before) <= set(rows)
    assert set(statuses(out).values()) == {"done"}
    # And the rows equal those of an uninterrupted run.
    clean = tmp_path / "clean"
    run_sweep(Experiment.from_dict(doc), clean, workers=1, progress=False)
    assert result_rows(clean) == rows


def test_changed_grid_keeps_old_cells_out_of_the_current_results(tmp_path):
    exp = _exp(limit=10)
    run_sweep(exp, tmp_path, workers=1, progress=False)
    doc = kth_doc(limit=10)
    doc["axes"]["queue"] = ["easy", "hybrid"]  # easy cells kept, two hybrid cells new
    result = run_sweep(Experiment.from_dict(doc), tmp_path, workers=1, progress=False)
    assert (result.total, result.ran, result.done) == (4, 2, 4)
    with ResultStore(tmp_path, readonly=True) as store:
        assert {r.params["queue"] for r in store.rows()} == {"easy", "hybrid"}
        assert len(list(store.rows(current_only=False))) == 8


def test_new_metric_reruns_done_cells(tmp_path):
    run_sweep(_exp(limit=10), tmp_path, workers=1, progress=False)
    more = _exp(limit=10, metrics=["mean_wait", "p95_wait"])
    assert run_sweep(more, tmp_path, workers=1, progress=False).ran == 6
    assert {m for _, m, _ in result_rows(tmp_path)} == {"mean_wait", "p95_wait"}


def test_jobs_csv_output_and_verbose_log(tmp_path, capsys):
    exp = _exp(limit=10, outputs={"jobs_csv": True})
    run_sweep(exp, tmp_path, workers=1, progress=False, verbose=True, stream=sys.stderr)
    cells = exp.cells()
    text = (tmp_path / "cells" / cells[0].id / "jobs.csv").read_text().splitlines()
    assert text[0].startswith("job_id,workload_name,profile,submission_time")
    assert len(text) == 11
    err = capsys.readouterr().err
    assert f"cell 1/6 {cells[0].id} queue=fcfs priority=fcfs: done in" in err


def test_a_second_sweep_on_the_same_directory_is_refused(tmp_path):
    with ResultStore(tmp_path), pytest.raises(ExperimentError, match="another sweep"):
        run_sweep(_exp(limit=5), tmp_path, workers=1, progress=False)


def test_unreachable_dask_scheduler_is_a_clear_error(tmp_path):
    pytest.importorskip("distributed")
    import dask

    with (
        dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        pytest.raises(ExperimentError, match="cannot reach the Dask scheduler"),
    ):
        run_sweep(_exp(limit=5), tmp_path, dask="tcp://127.0.0.1:9", progress=False)
    assert statuses(tmp_path) and set(statuses(tmp_path).values()) == {"pending"}


def test_jobqueue_cluster_from_the_experiment(tmp_path):
    pytest.importorskip("dask_jobqueue")
    from fluxgraph.experiments.backends import jobqueue_cluster, load_cluster_file

    config = {
        "jobqueue": "slurm",
        "cores": 2,
        "memory": "4GiB",
        "queue": "debug",
        "walltime": "00:30:00",
        "scale": 3,
    }
    doc = kth_doc(cluster=config)
    exp = Experiment.from_dict(doc)
    assert exp.cluster == config
    path = write_yaml(tmp_path / "cluster.yaml", {"cluster": config})
    assert load_cluster_file(path) == config
    cluster = jobqueue_cluster(config, start=False)
    try:
        script = cluster.job_script()
    finally:
        cluster.close()
    assert "#SBATCH -p debug" in script and "#SBATCH -t 00:30:00" in script
    write_yaml(path, {"cluster": {"jobqueue": "slurm", "scale": 0}})
    with pytest.raises(ExperimentError, match=r"cluster\.scale: 0 is less than the minimum"):
        load_cluster_file(path)


def test_a_file_that_is_not_a_store_is_a_clear_error(tmp_path):
    (tmp_path / "results.sqlite").write_text("not sqlite at all" * 100)
    with pytest.raises(ExperimentError, match="not a result store"):
        ResultStore(tmp_path, readonly=True)
    with pytest.raises(ExperimentError, match="not a result store"):
        run_sweep(_exp(limit=5), tmp_path, workers=1, progress=False)
    assert main(["report", str(tmp_path)]) == 2


def test_a_killed_sweep_leaves_no_lock_behind_while_its_workers_wind_down(tmp_path):
    # the lock must die with the sweep, not with the last forked worker (which inherits the
    # sweep's open files and may outlive it by a moment under load): a forked child that
    # outlives its killed parent must not keep the directory locked
    script = (
        "import os, sys, time\n"
        "from fluxgraph.experiments.store import ResultStore\n"
        "store = ResultStore(sys.argv[1])\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "print(child, flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    child = int(proc.stdout.readline())
    try:
        with pytest.raises(ExperimentError, match="another sweep"):
            ResultStore(tmp_path)  # the sweep runs: locked
        proc.kill()
        proc.wait(timeout=30)
        os.kill(child, 0)  # the child still lives and holds the lock file open
        with ResultStore(tmp_path) as store:  # resumable at once
            assert store.dir == tmp_path
    finally:
        if proc.poll() is None:
            proc.kill()
        os.kill(child, signal.SIGKILL)
        proc.stdout.close()


def test_a_store_closed_in_this_process_can_be_opened_again(tmp_path):
    with ResultStore(tmp_path), pytest.raises(ExperimentError, match="another sweep"):
        ResultStore(tmp_path / ".")
    with ResultStore(tmp_path):
        pass
