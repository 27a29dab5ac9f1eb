"""Reports and exports of a sweep: tables, plots, CSV/Parquet, the report command."""

from __future__ import annotations

import csv
import importlib.util

import pytest
from experiments_helpers import kth_doc

from fluxgraph.__main__ import main
from fluxgraph.errors import ExperimentError
from fluxgraph.experiments import Experiment, ResultStore, run_sweep
from fluxgraph.experiments.report import export, format_table, pivot, plot_metric


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    doc = kth_doc(limit=15)
    doc["axes"]["seed"] = [0, 1]
    doc["fixed"]["trace"] = "lublin:15"
    run_sweep(Experiment.from_dict(doc), out, workers=1, progress=False)
    return out


def _rows(out):
    with ResultStore(out, readonly=True) as store:
        return list(store.rows())


def test_pivot_aggregates_over_the_other_axes(sweep_dir):
    rows = _rows(sweep_dir)
    assert len(rows) == 12
    header, body = pivot(rows, ["mean_wait", "makespan"], ["queue"])
    assert header == ["queue", "mean_wait", "makespan"]
    assert [r[0] for r in body] == ["conservative", "easy", "fcfs"]
    easy = [r for r in rows if r.params["queue"] == "easy"]
    assert body[1][1] == pytest.approx(sum(r.metrics["mean_wait"] for r in easy) / len(easy))
    header, body = pivot(rows, ["makespan"], ["queue"], ["priority"], agg="count")
    assert header == ["queue", "fcfs", "sjf"] and body[0][1:] == [2, 2]
    with pytest.raises(ExperimentError, match="one metric at a time"):
        pivot(rows, ["a", "b"], ["queue"], ["priority"])
    with pytest.raises(ExperimentError, match="unknown aggregate"):
        pivot(rows, ["makespan"], ["queue"], agg="sum")


def test_format_table_kinds():
    header, body = ["queue", "mean_wait"], [["easy", 1.5], ["fcfs", None]]
    assert format_table(header, body).splitlines()[2].split() == ["easy", "1.500"]
    assert format_table(header, body, "md").splitlines()[1] == "|---|---|"
    assert format_table(header, body, "csv").splitlines()[2] == "fcfs,"


def test_plot_metric_writes_a_png(sweep_dir, tmp_path):
    pytest.importorskip("matplotlib")
    rows = _rows(sweep_dir)
    png = plot_metric(rows, "mean_bsld", "queue", ["priority"], tmp_path / "p.png", bar=True)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_export_wide_and_long(sweep_dir, tmp_path):
    n = export(sweep_dir, tmp_path / "wide.csv")
    with open(tmp_path / "wide.csv") as fh:
        table = list(csv.DictReader(fh))
    assert n == len(table) == 12
    assert {"cell_id", "queue", "priority", "seed", "mean_wait", "makespan"} <= set(table[0])
    n = export(sweep_dir, tmp_path / "long.csv", long=True)
    assert n == 12 * 4
    if importlib.util.find_spec("pyarrow") or importlib.util.find_spec("fastparquet"):
        assert export(sweep_dir, tmp_path / "r.parquet", "parquet") == 12
    else:
        with pytest.raises(ExperimentError, match="--parquet needs"):
            export(sweep_dir, tmp_path / "r.parquet", "parquet")


def test_report_and_export_commands(sweep_dir, tmp_path, capsys):
    assert main(["report", str(sweep_dir), "--metric", "mean_wait", "--cols", "priority"]) == 0
    out = capsys.readouterr().out
    assert "12 cells done, 0 failed, 0 pending" in out
    assert "mean_wait (mean)" in out and "conservative" in out
    assert main(["report", str(sweep_dir), "--format", "md", "--rows", "queue"]) == 0
    assert "| queue | mean_wait | mean_bsld | node_utilisation | makespan |" in (
        capsys.readouterr().out
    )
    if importlib.util.find_spec("matplotlib"):
        plots = tmp_path / "plots"
        args = ["report", str(sweep_dir), "--metric", "mean_wait", "--plot", "queue"]
        assert main([*args, "--plot-dir", str(plots)]) == 0
        assert (plots / "mean_wait-vs-queue.png").is_file()
    assert main(["report", str(sweep_dir), "--rows", "nosuch"]) == 2
    assert "no axis 'nosuch'" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "empty")]) == 2
    assert "no sweep results here" in capsys.readouterr().err
    target = tmp_path / "x.csv"
    assert main(["sweep", "export", str(sweep_dir), "--csv", str(target)]) == 0
    assert target.read_text().startswith("cell_id,")
    assert main(["sweep", "export", str(sweep_dir), "--csv", "--long"]) == 0
    assert (sweep_dir / "results-long.csv").is_file()
