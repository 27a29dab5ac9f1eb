"""Experiments: grids of simulations (or of a study's measurements), run locally or on Dask.

from fluxgraph.experiments import load_experiment, run_sweep

exp = load_experiment("kth-queues.yaml")          # or Experiment.from_dict({...})
result = run_sweep(exp, "out/", workers=2)       # resumable; dask="local" or an address
print(result.done, result.failed)

``fluxgraph sweep``, ``fluxgraph report`` and ``fluxgraph reproduce`` are the command-line
front ends (:mod:`fluxgraph.experiments.cli`); ``docs/experiments.md`` documents the YAML, the
backends and the result store.
"""

from __future__ import annotations

from fluxgraph.experiments.kinds import KINDS, CellContext, CellOutcome, CellTask, Kind, run_cell
from fluxgraph.experiments.runner import SweepResult, run_sweep
from fluxgraph.experiments.spec import Cell, Experiment, load_experiment
from fluxgraph.experiments.store import ResultStore

__all__ = [
    "KINDS",
    "Cell",
    "CellContext",
    "CellOutcome",
    "CellTask",
    "Experiment",
    "Kind",
    "ResultStore",
    "SweepResult",
    "load_experiment",
    "run_cell",
    "run_sweep",
]
