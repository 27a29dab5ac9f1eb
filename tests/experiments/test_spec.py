"""Experiment descriptions: validation errors name the key; grids, rules, ids, quick grids."""

from __future__ import annotations

import doctest

import pytest
from experiments_helpers import kth_doc, write_yaml

import fluxgraph.experiments.kinds
import fluxgraph.experiments.report
import fluxgraph.experiments.runner
import fluxgraph.experiments.spec
from fluxgraph.__main__ import main
from fluxgraph.errors import ExperimentError
from fluxgraph.experiments import Experiment, load_experiment
from fluxgraph.experiments.spec import cell_id


@pytest.mark.parametrize(
    "module",
    [
        fluxgraph.experiments.spec,
        fluxgraph.experiments.runner,
        fluxgraph.experiments.report,
    ],
    ids=lambda m: m.__name__,
)
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def _error(doc) -> str:
    with pytest.raises(ExperimentError) as info:
        Experiment.from_dict(doc, source="exp.yaml")
    return str(info.value)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"axs": {}}, "axs: unknown key (valid: name, description, kind"),
        ({"axes": {"queue": "easy"}}, "axes.queue: 'easy' is not of type 'array'"),
        ({"axes": {"queue": ["fcfs", "eazy"]}}, "axes.queue[1]: 'eazy' is not one of"),
        ({"axes": {"quue": ["fcfs"]}}, "axes.quue: unknown parameter of kind 'simulate'"),
        ({"axes": {"skip": [10, -1]}}, "axes.skip[1]: -1 is less than the minimum of 0"),
        ({"fixed": {"machine": "nodes=x", "trace": "lublin:5"}}, "fixed.machine: machine spec"),
        ({"fixed": {"machine": "nodes=4", "trace": "no.swf"}}, "fixed.trace: trace 'no.swf': no"),
        ({"exclude": [{"seed": 1}]}, "exclude[0].seed: not an axis"),
        ({"zip": [{"seed": [1, 2], "skip": [5]}]}, "zip[0]: its lists differ in length"),
        (
            {"fixed": {"queue": "easy", "machine": "nodes=4", "trace": "lublin:5"}},
            "axes.queue: already set in fixed.queue",
        ),
        ({"kind": "nosuchkind"}, "unknown kind 'nosuchkind'"),
        ({"metrics": "mean_wait"}, "metrics: 'mean_wait' is not of type 'array'"),
        ({"cluster": {"jobqueue": "slurmm"}}, "cluster.jobqueue: 'slurmm' is not one of"),
        ({"name": "has space"}, "name: 'has space' does not match"),
        ({"axes": {"seed": [1, float("nan")]}}, "axes.seed[1]: nan is not a finite number"),
    ],
)
def test_invalid_experiments_name_the_key(change, expected):
    doc = kth_doc()
    doc.update(change)
    message = _error(doc)
    assert message.startswith("exp.yaml: ")
    assert expected in message


def test_missing_required_parameter_names_it():
    doc = kth_doc()
    del doc["fixed"]["trace"]
    assert "fixed.trace: required by kind 'simulate'" in _error(doc)


def test_yaml_errors_give_the_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\naxes:\n  queue: [fcfs\n")
    with pytest.raises(ExperimentError, match=r"bad.yaml: line \d+, column \d+: invalid YAML"):
        load_experiment(bad)
    bad.write_text("name: x\nname: y\n")
    with pytest.raises(ExperimentError, match="line 2: duplicate key 'name'"):
        load_experiment(bad)
    bad.write_text("- a list\n")
    with pytest.raises(ExperimentError, match="must be a mapping"):
        load_experiment(bad)
    with pytest.raises(ExperimentError, match="cannot read"):
        load_experiment(tmp_path / "missing.yaml")


def test_cli_invalid_experiment_exits_2_and_writes_nothing(tmp_path, capsys):
    doc = kth_doc()
    doc["axes"]["priority"] = ["fcfs", "sjff"]
    path = write_yaml(tmp_path / "exp.yaml", doc)
    out = tmp_path / "out"
    assert main(["sweep", str(path), "--out", str(out), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "fluxgraph sweep: error:" in err and "axes.priority[1]: 'sjff' is not one of" in err
    assert not out.exists()


def test_grid_order_rules_and_ids():
    doc = kth_doc(
        exclude=[{"queue": "fcfs", "priority": "sjf"}],
        only=[{"queue": ["easy", "fcfs"]}],
    )
    exp = Experiment.from_dict(doc)
    assert exp.size() == 6
    cells = exp.cells()
    assert [(c.axes["queue"], c.axes["priority"]) for c in cells] == [
        ("fcfs", "fcfs"),
        ("easy", "fcfs"),
        ("easy", "sjf"),
    ]
    assert [c.index for c in cells] == [0, 1, 2]
    # The id hashes kind and parameters only: axis order and fixed/axis placement do not matter.
    swapped = dict(doc, axes={"priority": ["sjf", "fcfs"], "queue": ["easy", "fcfs"]})
    assert {c.id for c in Experiment.from_dict(swapped).cells()} == {c.id for c in cells}
    assert cells[0].id == cell_id("simulate", dict(cells[0].params))
    assert len(cells[0].id) == 16


def test_zip_axes_vary_together():
    doc = kth_doc(zip=[{"limit": [10, 20], "machine": ["nodes=50", "nodes=100"]}])
    doc["fixed"] = {"trace": "kth-sample.swf"}
    cells = Experiment.from_dict(doc).cells()
    assert len(cells) == 12
    assert {(c.params["limit"], c.params["machine"]) for c in cells} == {
        (10, "nodes=50"),
        (20, "nodes=100"),
    }


def test_duplicate_axis_value_is_refused():
    doc = kth_doc()
    doc["axes"]["queue"] = ["easy", "easy"]
    with pytest.raises(ExperimentError, match="two cells have the parameters"):
        Experiment.from_dict(doc).cells()


def test_quick_overrides_and_round_trip(tmp_path):
    doc = kth_doc(quick={"axes": {"queue": ["easy"]}, "fixed": {"limit": 5}})
    path = write_yaml(tmp_path / "exp.yaml", doc)
    exp = load_experiment(path)
    quick = exp.quick()
    assert quick.name == "kth-quick"
    assert len(quick.cells()) == 2 and quick.fixed["limit"] == 5
    again = Experiment.from_dict(exp.to_dict())
    assert [c.id for c in again.cells()] == [c.id for c in exp.cells()]
    bad = kth_doc(quick={"axes": {"queue": ["nope"]}})
    with pytest.raises(ExperimentError, match=r"\(quick\): axes.queue\[0\]"):
        Experiment.from_dict(bad).quick()


def test_trace_forms_are_checked():
    for trace in ("lublin:20", {"generator": "poisson", "n_jobs": 5, "rate": 0.01}):
        doc = kth_doc()
        doc["fixed"]["trace"] = trace
        assert len(Experiment.from_dict(doc).cells()) == 6
    doc = kth_doc()
    doc["fixed"]["trace"] = {"generator": "lublin"}
    assert "fixed.trace" in _error(doc)


def test_relative_paths_resolve_beside_the_experiment(tmp_path):
    (tmp_path / "m").mkdir()
    machine = tmp_path / "m" / "tiny.graphml"
    from fluxgraph.machines import MachineSpec, recipe

    machine.write_text(recipe(MachineSpec(nodes=4)))
    doc = kth_doc(limit=5)
    doc["fixed"]["machine"] = "m/tiny.graphml"
    exp = load_experiment(write_yaml(tmp_path / "exp.yaml", doc))
    task = exp.cells()[0].task(exp)
    outcome = fluxgraph.experiments.kinds.run_cell(task)
    assert outcome.status == "done", outcome.traceback
    assert outcome.metrics["makespan"] > 0


def test_the_documented_example_validates():
    import re
    from pathlib import Path

    import yaml

    doc = Path(__file__).resolve().parents[2] / "docs" / "experiments.md"
    block = re.search(r"A complete example.*?```yaml\n(.*?)```", doc.read_text(), re.S)
    exp = Experiment.from_dict(yaml.safe_load(block.group(1)))
    assert (exp.size(), len(exp.cells()), len(exp.quick().cells())) == (48, 42, 14)
    assert exp.cluster["jobqueue"] == "slurm" and exp.outputs == {"jobs_csv": True}


def test_restricted_adds_to_only_rules_and_keeps_cell_ids():
    exp = Experiment.from_dict(
        {
            "name": "r",
            "fixed": {"machine": "nodes=4", "trace": "lublin:20"},
            "axes": {"queue": ["fcfs", "easy"], "seed": [0, 1, 2]},
            "only": [{"queue": "fcfs"}, {"seed": [1, 2]}],
        }
    )
    ids = {c.id: (c.axes["queue"], c.axes["seed"]) for c in exp.cells()}
    sub = exp.restricted({"seed": [2, 0]})
    assert sorted(ids[c.id] for c in sub.cells()) == [("easy", 2), ("fcfs", 0), ("fcfs", 2)]
    assert [ids[c.id] for c in exp.restricted({"queue": ["easy"]}).cells()] == [
        ("easy", 1),
        ("easy", 2),
    ]
    with pytest.raises(ExperimentError, match="no cell of r matches queue=easy seed=0"):
        exp.restricted({"queue": ["easy"], "seed": [0]})


def test_the_documented_quick_grid_teaches_something(tmp_path):
    # a quick grid whose cells all show a bounded slowdown of 1 shows no policy's effect
    import re
    from pathlib import Path

    import yaml

    from fluxgraph.experiments import run_sweep
    from fluxgraph.experiments.store import ResultStore

    doc = Path(__file__).resolve().parents[2] / "docs" / "experiments.md"
    block = re.search(r"A complete example.*?```yaml\n(.*?)```", doc.read_text(), re.S)
    exp = Experiment.from_dict(yaml.safe_load(block.group(1))).quick()
    exp = exp.restricted({"policy": ["first"]})
    run_sweep(exp, tmp_path, workers=1, progress=False)
    with ResultStore(tmp_path, readonly=True) as store:
        by_queue: dict = {}
        for row in store.rows():
            by_queue.setdefault(row.params["queue"], set()).add(round(row.metrics["mean_bsld"], 6))
    assert len({v for values in by_queue.values() for v in values}) >= 3
    assert min(by_queue["easy"]) > 1


def test_a_store_written_before_kinds_had_short_names_still_resumes(tmp_path):
    # made by the code of 2026-11-25 (c02533e), when the study kinds were named by import
    # path: the same grid under the short name (or the old path) finds every cell done
    import shutil
    from pathlib import Path

    from fluxgraph.experiments import run_sweep
    from fluxgraph.experiments.kinds import KINDS

    old = Path(__file__).resolve().parent / "data" / "store-2026-11-25"
    for kind in ("variation", "fluxgraph.experiments.studies.variation:KIND"):
        out = tmp_path / kind.replace(":", "_")
        shutil.copytree(old, out)
        exp = Experiment.from_dict(
            {
                "name": "old-store",
                "kind": kind,
                "fixed": {"jobs": 8, "racks": 5, "lod": "node", "exact": False},
                "axes": {"seed": [1], "policy": ["high", "variation"]},
            }
        )
        assert exp.kind == "variation"
        assert [c.id for c in exp.cells()] == ["fd000cae901d17de", "b1b50456f617e1ae"]
        result = run_sweep(exp, out, workers=1, progress=False)
        assert (result.ran, result.done) == (0, 2)
    with pytest.raises(TypeError):
        KINDS["mine"] = "x:y"  # a read-only registry
