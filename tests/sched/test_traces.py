"""``fluxgraph simulate`` on every bundled trace and on a prefix of each shared trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fluxgraph.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "fluxgraph" / "data"
SHARED = ROOT.parent / "shared" / "traces"

#: trace -> (machine, shape) fitting its jobs.
SHARED_TRACES = {
    "KTH-SP2-1996-2.1-cln.swf": ("grug_recipes/kth-sp2.graphml", "node"),
    "lublin_256.swf": ("nodes=256", "node"),
    "wagap-2013.swf": ("nodes=16,cores=64,memory=512", "node-core"),
    "perlmutter-fm-jobs.csv": ("nodes=1536,memory=512", "node"),
}


def _simulate(tmp_path, trace, machine, shape, limit):
    out = tmp_path / "out"
    argv = [
        "simulate",
        "--machine",
        str(ROOT / machine) if machine.endswith(".graphml") else machine,
        "--trace",
        str(trace),
        "--shape",
        shape,
        "--limit",
        str(limit),
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(argv) == 0
    return json.loads((out / "summary.json").read_text())["metrics"]


@pytest.mark.parametrize(
    "name", sorted(p.name for p in DATA.iterdir() if p.suffix in (".swf", ".json", ".csv"))
)
def test_every_bundled_trace_simulates(tmp_path, name):
    metrics = _simulate(tmp_path, DATA / name, "nodes=100", "node", 120)
    assert metrics["completed"] + metrics["rejected"] == metrics["jobs"] > 0
    assert metrics["completed"] > 0


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(SHARED_TRACES))
def test_every_shared_trace_simulates(tmp_path, name):
    if not (SHARED / name).exists():
        pytest.skip(f"{SHARED / name} is absent")
    machine, shape = SHARED_TRACES[name]
    metrics = _simulate(tmp_path, SHARED / name, machine, shape, 40)
    assert metrics["jobs"] == 40
    assert metrics["completed"] == 40 - metrics["rejected"] and metrics["completed"] > 30


def test_readme_main_command_runs(tmp_path, monkeypatch):
    readme = (ROOT / "README.md").read_text()
    line = next(x for x in readme.splitlines() if "&& fluxgraph simulate" in x)
    argv = line.split("&& fluxgraph ", 1)[1].split()
    out = argv.index("--out")
    argv[out + 1] = str(tmp_path / "sim-out")
    argv = [a for a in argv if a != "--plot"]
    monkeypatch.chdir(ROOT)
    assert main([*argv, "--limit", "30", "--quiet"]) == 0
    assert (tmp_path / "sim-out" / "jobs.csv").exists()
