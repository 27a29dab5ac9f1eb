"""What a new user meets first on the command line: bundled names, outputs other tools read,
and a clear error (naming the value and the choices) for every bad input."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fluxgraph.__main__ import main
from fluxgraph.errors import ExperimentError, FluxgraphError
from fluxgraph.experiments import Experiment, run_sweep
from fluxgraph.machines import build_machine, load_machine
from fluxgraph.policies import POLICIES
from fluxgraph.sched import simulate, summarize
from fluxgraph.sched.output import jobs_frame
from fluxgraph.sched.plot import running_series, time_axis
from fluxgraph.workload import Job, Workload, bundled_trace, load_workload, read_swf


def kth_doc(limit: int) -> dict:
    """A six-cell sweep over a prefix of the bundled KTH sample."""
    return {
        "name": "kth",
        "fixed": {"machine": "nodes=100", "trace": "kth-sample.swf", "limit": limit},
        "axes": {"queue": ["fcfs", "easy", "conservative"], "priority": ["fcfs", "sjf"]},
        "metrics": ["mean_wait"],
    }


def _simulate(tmp_path, *extra, out="out"):
    return main(["simulate", "--out", str(tmp_path / out), "--quiet", *extra])


# -- bundled machines, from any directory -----------------------------------------------------


def test_bundled_machines_are_listed_and_found_by_name(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "--list-machines"]) == 0
    listed = capsys.readouterr().out.split()
    assert {"kth-sp2", "medium", "tiny"} <= set(listed)
    assert len(load_machine("kth-sp2").by_type["node"]) == 100
    assert _simulate(tmp_path, "--machine", "kth-sp2", "--limit", "20") == 0
    with pytest.raises(FluxgraphError, match=r"bundled machines: .*kth-sp2"):
        load_machine("kth-sp3")


def test_csv_column_mapping_on_the_command_line(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("JobID,Sub,Elapsed,Limit,Cpus\n1,0,50,60,2\n2,5,20,30,1\n")
    assert _simulate(tmp_path, "--trace", str(trace)) != 0  # no column recognised by name
    mapping = "id=JobID,submit=Sub,runtime=Elapsed,walltime=Limit,procs=Cpus"
    assert _simulate(tmp_path, "--trace", str(trace), "--columns", mapping) == 0
    rows = list(csv.DictReader((tmp_path / "out" / "jobs.csv").open()))
    assert [(r["job_id"], r["execution_time"]) for r in rows] == [("1", "50"), ("2", "20")]


# -- outputs other tools read -----------------------------------------------------------------


def test_schedule_swf_carries_the_simulated_waits(tmp_path):
    assert _simulate(tmp_path, "--machine", "nodes=16", "--limit", "60") == 0
    out = tmp_path / "out"
    rows = {r["job_id"]: r for r in csv.DictReader((out / "jobs.csv").open())}
    assert next(iter(rows.values()))["profile"] == ""
    completed = sum(r["final_state"] != "REJECTED" for r in rows.values())
    assert 0 < completed < len(rows) == 60
    with pytest.warns(UserWarning, match="negative runtime"):  # rejected: run time -1
        swf = read_swf(out / "schedule.swf")
    assert len(swf) == completed
    lines = [ln.split() for ln in (out / "schedule.swf").read_text().splitlines() if ln[0] != ";"]
    for fields in lines:
        row = rows[fields[0]]
        assert int(fields[2]) == int(row["waiting_time"])  # field 3: the simulated wait
        assert int(fields[3]) == int(row["execution_time"])
        status = {"COMPLETED_SUCCESSFULLY": "1", "COMPLETED_WALLTIME_REACHED": "0", "REJECTED": "5"}
        assert fields[10] == status[row["final_state"]]
    original = {j.id: j for j in load_workload(bundled_trace("kth-sample.swf"), limit=60)}
    assert all(original[j.id].submit == j.submit and original[j.id].procs == j.procs for j in swf)


def test_batsim_profile_names_reach_jobs_csv(tmp_path):
    assert _simulate(tmp_path, "--trace", "sample-batsim.json", "--machine", "nodes=8") == 0
    rows = list(csv.DictReader((tmp_path / "out" / "jobs.csv").open()))
    assert all(r["profile"] for r in rows)


def test_result_as_a_data_frame_and_summary_as_json():
    pd = pytest.importorskip("pandas")
    jobs = load_workload(bundled_trace("kth-sample.swf"), limit=30)
    result = simulate(build_machine("nodes=100"), jobs)
    frame = jobs_frame(result, "kth")
    assert isinstance(frame, pd.DataFrame) and len(frame) == 30
    assert list(frame.columns)[:3] == ["job_id", "workload_name", "profile"]
    assert frame["waiting_time"].tolist() == [r.wait for r in result.jobs]
    summary = summarize(result)
    assert type(summary) is dict
    assert json.loads(json.dumps(summary)) == summary


def test_figures_read_in_hours_from_the_start_with_both_series():
    jobs = Workload.of([Job(1, 7200, 1800, 1800), Job(2, 7200, 3600, 3600)])
    result = simulate(build_machine("nodes=1"), jobs)
    origin, unit, label = time_axis(result)
    assert (origin, unit) == (7200, 3600.0) and "hours" in label
    assert running_series(result) == [(7200, 1), (9000, 1), (12600, 0)]
    long = Workload.of([Job(1, 0, 4 * 86400, 4 * 86400)])
    assert "days" in time_axis(simulate(build_machine("nodes=1"), long))[2]


def test_every_figure_has_a_title_units_and_a_legend_for_two_series(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib.figure

    seen = []
    save = matplotlib.figure.Figure.savefig

    def record(fig, path, **kw):
        for ax in fig.axes:
            lines = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
            seen.append(
                (
                    Path(path).name,
                    ax.get_title(),
                    ax.get_xlabel(),
                    len(lines),
                    ax.get_legend() is not None,
                )
            )
        return save(fig, path, **kw)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", record)
    assert _simulate(tmp_path, "--limit", "40", "--plot") == 0
    assert [s[0] for s in seen] == ["gantt.png", "utilisation.png", "queue.png"]
    for name, title, xlabel, series, legend in seen:
        assert title and "since the first submission" in xlabel, name
        assert legend == (series > 1), name


# -- no silent bad input ----------------------------------------------------------------------


def test_an_unknown_policy_names_the_value_and_the_choices(tmp_path, capsys):
    with pytest.raises(SystemExit):
        _simulate(tmp_path, "--policy", "lowest")
    err = capsys.readouterr().err
    assert "'lowest'" in err and all(name in err for name in POLICIES)
    assert not (tmp_path / "out").exists()


def test_a_prune_typo_is_rejected_naming_the_token(tmp_path, capsys):
    assert _simulate(tmp_path, "--prune", "ALL:nodes") == 2
    err = capsys.readouterr().err
    assert "'nodes'" in err and "core" in err
    assert _simulate(tmp_path, "--prune", "ALLnode") == 2
    assert not (tmp_path / "out").exists()


def test_an_empty_trace_is_an_error_or_a_note_without_metrics(tmp_path, capsys):
    trace = tmp_path / "empty.swf"
    trace.write_text("; MaxProcs: 4\n")
    assert _simulate(tmp_path, "--trace", str(trace)) != 0
    assert "no jobs" in capsys.readouterr().err
    assert _simulate(tmp_path, "--trace", str(trace), "--lenient") == 0
    assert "no metrics" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_generated_traces_and_machines_are_bounded(tmp_path, capsys):
    assert _simulate(tmp_path, "--trace", "lublin:5000000") == 2
    assert "1,000,000" in capsys.readouterr().err
    assert _simulate(tmp_path, "--machine", "nodes=1000000") == 2
    assert "vertices" in capsys.readouterr().err


def test_a_sweep_whose_cells_all_fail_exits_non_zero_naming_the_first(tmp_path, capsys):
    doc = kth_doc(limit=5)
    doc["fixed"]["policy"] = "lowest"
    path = tmp_path / "exp.yaml"
    path.write_text(json.dumps(doc))
    assert (
        main(["sweep", str(path), "--out", str(tmp_path / "o"), "--workers", "1", "--quiet"]) == 1
    )
    err = capsys.readouterr().err
    assert "all 6 cells failed" in err and "can't create matcher" in err


def test_a_failed_dask_connection_touches_no_disk(tmp_path):
    pytest.importorskip("distributed")
    import dask

    out = tmp_path / "new"
    with (
        dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        pytest.raises(ExperimentError, match="cannot reach the Dask scheduler"),
    ):
        run_sweep(Experiment.from_dict(kth_doc(limit=5)), out, dask="tcp://127.0.0.1:9")
    assert not out.exists()


def test_version_demo_description_and_plain_help():
    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "fluxgraph", *args], capture_output=True, text=True, timeout=60
        )

    assert run("--version").stdout.startswith("fluxgraph ")
    assert "Planner" in run("demo", "--help").stdout
    for args in (["--help"], ["simulate", "--help"], ["sweep", "--help"], ["reproduce", "--help"]):
        assert "``" not in run(*args).stdout, args
    assert "..." not in run("simulate", "--help").stdout.split("--policy")[1].split("--shape")[0]


def test_default_output_folders_are_ignored_by_git():
    ignored = (Path(__file__).resolve().parents[2] / ".gitignore").read_text().split()
    assert "sim-out/" in ignored and "reproduce-*/" in ignored


def test_a_closed_pipe_ends_the_command_quietly():
    # `fluxgraph simulate --list-machines | head -1`: no traceback when the reader goes away
    proc = subprocess.Popen(
        [sys.executable, "-m", "fluxgraph", "simulate", "--list-machines"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before the first line
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipeError" not in err
    proc.stderr.close()
