"""jobs.csv (Batsim layout, read back by evalys), summary.json, and the CLI."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

from fluxgraph.__main__ import main
from fluxgraph.machines import build_machine
from fluxgraph.sched import simulate, summarize
from fluxgraph.sched.output import JOBS_COLUMNS, write_jobs_csv
from fluxgraph.workload import Job

JOBS = [
    Job(10, 0, 100, 100, procs=3),
    Job(11, 5, 40, 60, procs=2),
    Job(12, 7, 80, 50, procs=1),  # killed at its walltime
    Job(13, 9, 10, 10, procs=9),  # rejected: larger than the machine
    Job(14, 20, 30, 30, procs=4),
]


def _result():
    return simulate(build_machine("nodes=4"), JOBS, queue="easy", policy="low")


def test_jobs_csv_has_batsim_columns_and_one_row_per_job(tmp_path):
    write_jobs_csv(_result(), tmp_path / "jobs.csv", "w0")
    rows = list(csv.DictReader((tmp_path / "jobs.csv").read_text().splitlines()))
    assert tuple(rows[0]) == JOBS_COLUMNS
    by_id = {r["job_id"]: r for r in rows}
    assert list(by_id) == ["10", "11", "12", "13", "14"]
    assert by_id["13"]["final_state"] == "REJECTED" and by_id["13"]["success"] == "0"
    assert by_id["12"]["final_state"] == "COMPLETED_WALLTIME_REACHED"
    assert by_id["12"]["execution_time"] == "50"
    assert by_id["10"]["allocated_resources"] == "0-2"
    for r in rows:
        if r["final_state"] != "REJECTED":
            start, end = int(r["starting_time"]), int(r["finish_time"])
            assert int(r["waiting_time"]) == start - int(r["submission_time"])
            assert int(r["execution_time"]) == end - start


@pytest.mark.filterwarnings("ignore:The inplace keyword")
def test_evalys_reads_jobs_csv_and_agrees_on_utilisation(tmp_path):
    jobset = pytest.importorskip("evalys.jobset")
    jobs = [Job(i, (i * 37) % 500, 20 + (i * 13) % 90, 120, procs=1 + i % 4) for i in range(60)]
    result = simulate(build_machine("nodes=6"), jobs, queue="easy", policy="first")
    write_jobs_csv(result, tmp_path / "jobs.csv")
    js = jobset.JobSet.from_csv(str(tmp_path / "jobs.csv"))
    assert len(js.df) == 60
    load = js.utilisation["load"]
    times = list(load.index)
    busy = sum(int(load.iloc[k]) * (times[k + 1] - times[k]) for k in range(len(times) - 1))
    first = min(j.submit for j in jobs)
    last = max(r.end for r in result.jobs)
    ours = summarize(result)["node_utilisation"]
    assert busy / (6 * (last - first)) == pytest.approx(ours, rel=1e-9)


def test_cli_writes_outputs_and_identical_runs_are_byte_identical(tmp_path, capsys):
    trace = tmp_path / "t.swf"
    trace.write_text(
        "; MaxNodes: 8\n"
        + "".join(
            f"{i} {i * 7} -1 {30 + i % 9} {1 + i % 5} -1 -1 {1 + i % 5} {60 + i % 7} -1 1 1 1 -1 1"
            " -1 -1 -1\n"
            for i in range(1, 40)
        )
    )
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        rc = main(
            [
                "simulate",
                "--machine",
                "nodes=8",
                "--trace",
                str(trace),
                "--queue",
                "conservative",
                "--priority",
                "wfp3",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        assert rc == 0
        outs.append(out)
    for f in ("jobs.csv", "summary.json"):
        assert (outs[0] / f).read_bytes() == (outs[1] / f).read_bytes()
    summary = json.loads((outs[0] / "summary.json").read_text())
    assert summary["parameters"]["queue"] == "conservative"
    assert summary["metrics"]["completed"] == 39


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--machine", "nodes=zero"], "nodes='zero' is not an integer"),
        (["--machine", "cores=4"], "nodes=N is required"),
        (["--machine", "missing.graphml"], "missing.graphml"),
        (["--trace", "nosuch.swf"], "nosuch.swf"),
    ],
)
def test_cli_bad_input_is_a_clear_error_and_writes_nothing(tmp_path, capsys, argv, message):
    out = tmp_path / "out"
    assert main(["simulate", *argv, "--out", str(out), "--quiet"]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    "argv", [["--queue", "lifo"], ["--limit", "0"], ["--exclude", "0.7"], ["--priority", "x"]]
)
def test_cli_bad_option_values_are_usage_errors(tmp_path, argv):
    with pytest.raises(SystemExit) as exc:
        main(["simulate", *argv, "--out", str(tmp_path / "o")])
    assert exc.value.code == 2
    assert not (tmp_path / "o").exists()


def test_python_m_fluxgraph_runs_the_bundled_default_with_plots(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "o"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "fluxgraph",
            "simulate",
            "--limit",
            "40",
            "--out",
            str(out),
            "--plot",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "mean bounded slowdown" in proc.stdout
    for name in ("jobs.csv", "summary.json", "gantt.png", "utilisation.png", "queue.png"):
        assert (out / name).stat().st_size > 0
