"""load_workload, bundled_trace, every public trace, doctests and module hygiene."""

from __future__ import annotations

import doctest
import gzip
import importlib
import pickle
import shutil
import warnings
from pathlib import Path

import pytest
from workload_helpers import TRACES

import fluxgraph.workload as workload
from fluxgraph.errors import WorkloadError
from fluxgraph.workload import (
    FORMATS,
    Job,
    Workload,
    bundled_trace,
    load_workload,
    lublin,
    read_batsim,
    read_csv,
)

MODULES = [
    "fluxgraph.workload",
    "fluxgraph.workload._common",
    "fluxgraph.workload.batsim",
    "fluxgraph.workload.csvtrace",
    "fluxgraph.workload.generators",
    "fluxgraph.workload.job",
    "fluxgraph.workload.swf",
]
PUBLIC_TRACES = sorted(p for p in TRACES.glob("*") if p.suffix in {".swf", ".csv", ".json"})


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize("name", MODULES)
def test_modules_are_small_and_export_a_sorted_all(name):
    module = importlib.import_module(name)
    assert list(module.__all__) == sorted(module.__all__)
    assert all(hasattr(module, n) for n in module.__all__)
    assert len(Path(module.__file__).read_text().splitlines()) < 600


def test_the_extension_picks_the_reader(tmp_path):
    swf = shutil.copy(bundled_trace("kth-sample.swf"), tmp_path / "k.swf")
    assert len(load_workload(swf, limit=5)) == 5
    gz = tmp_path / "k.swf.gz"
    gz.write_bytes(gzip.compress(Path(swf).read_bytes()))
    assert load_workload(gz).jobs == load_workload(swf).jobs
    csv = tmp_path / "j.CSV"
    csv.write_text("jobid,submit,duration\n1,0,5\n")
    assert load_workload(csv)[0].runtime == 5
    batsim = load_workload(bundled_trace("sample-batsim.json"))
    assert batsim.metadata["nb_res"] == "16"


def test_fmt_overrides_the_extension_and_options_reach_the_reader(tmp_path):
    path = tmp_path / "trace.txt"
    path.write_text("1 0 0 10 4 -1 -1 4 20 1073741824 -1 -1 -1 -1 -1 -1 -1 -1\n")
    w = load_workload(path, "swf", memory_unit="bytes-per-job", name="mine")
    assert (w.name, w[0].extra["memory_job_gb"]) == ("mine", 1.0)
    csv = tmp_path / "data.log"
    csv.write_text("j;t;d\n4;1;9\n")
    w = load_workload(csv, "csv", mapping={"id": "j", "submit": "t", "runtime": "d"}, delimiter=";")
    assert (w[0].id, w[0].submit, w[0].runtime) == (4, 1, 9)


def test_unknown_formats_list_the_valid_ones(tmp_path):
    with pytest.raises(WorkloadError) as info:
        load_workload(tmp_path / "jobs.txt")
    assert "valid formats: swf (.swf), csv (.csv), batsim (.json)" in str(info.value)
    with pytest.raises(WorkloadError, match=r"unknown format 'gwf'; valid formats: swf"):
        load_workload(tmp_path / "jobs.swf", "gwf")
    with pytest.raises(WorkloadError, match="a column mapping only applies to csv, not swf"):
        load_workload(bundled_trace("kth-sample.swf"), mapping={"id": "x"})
    assert set(FORMATS) == {"swf", "csv", "batsim"}


def test_lenient_and_limit_pass_through(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text("1 0 0 10 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\nbad line\n")
    with pytest.raises(WorkloadError, match=r"t\.swf:2: expected 18 fields, found 2"):
        load_workload(path)
    with pytest.warns(workload.WorkloadWarning):
        assert len(load_workload(path, lenient=True).skipped_lines) == 1


def test_bundled_trace_finds_the_samples_and_names_them_when_missing():
    assert bundled_trace("sample-batsim.json").is_file()
    with pytest.raises(WorkloadError) as info:
        bundled_trace("nope.swf")
    assert "kth-sample.swf" in str(info.value) and "sample-batsim.json" in str(info.value)
    with pytest.raises(WorkloadError):
        bundled_trace("../__init__.py")


@pytest.mark.parametrize("path", PUBLIC_TRACES, ids=lambda p: p.name)
def test_every_public_trace_reads(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", workload.WorkloadWarning)
        w = load_workload(path)
    assert isinstance(w, Workload) and len(w) > 1000
    assert all(1 <= j.runtime <= j.walltime and j.procs >= 1 for j in w)


def test_the_public_traces_are_there_or_skipped():
    if not TRACES.is_dir():
        pytest.skip(f"{TRACES} not present")
    assert {p.name for p in PUBLIC_TRACES} >= {
        "KTH-SP2-1996-2.1-cln.swf",
        "lublin_256.swf",
        "perlmutter-fm-jobs.csv",
        "wagap-2013.swf",
    }


def test_workloads_survive_pickling_for_worker_processes(tmp_path):
    csv = tmp_path / "t.csv"
    csv.write_text("jobid,submit,duration,user\nx1,0,5,amy\n")
    workloads = [
        load_workload(bundled_trace("kth-sample.swf")),
        read_batsim(bundled_trace("sample-batsim.json")),
        read_csv(csv),
        lublin(50, seed=1),
    ]
    for w in workloads:
        again = pickle.loads(pickle.dumps(w))
        assert again == w and again.metadata == w.metadata and again.dropped == w.dropped
        assert [dict(j.extra) for j in again] == [dict(j.extra) for j in w]
        with pytest.raises(TypeError):
            again.metadata["x"] = "y"  # type: ignore[index]
    job = pickle.loads(pickle.dumps(Job(1, 0, 5, 5)))
    assert job == Job(1, 0, 5, 5) and dict(job.extra) == {}
