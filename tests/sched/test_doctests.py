"""The doctests of the simulator modules and the worked example of docs/simulator.md."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import fluxgraph.data
import fluxgraph.machines.grug
import fluxgraph.machines.spec
import fluxgraph.planner.demo
import fluxgraph.sched.allocator
import fluxgraph.sched.metrics
import fluxgraph.sched.output
import fluxgraph.sched.passes
import fluxgraph.sched.plot
import fluxgraph.sched.priority
import fluxgraph.sched.queueing
import fluxgraph.sched.records
import fluxgraph.sched.runtime
import fluxgraph.sched.shapes
import fluxgraph.sched.simulator
import fluxgraph.sched.view

MODULES = [
    fluxgraph.data,
    fluxgraph.machines.grug,
    fluxgraph.machines.spec,
    fluxgraph.planner.demo,
    fluxgraph.sched.allocator,
    fluxgraph.sched.metrics,
    fluxgraph.sched.output,
    fluxgraph.sched.plot,
    fluxgraph.sched.passes,
    fluxgraph.sched.priority,
    fluxgraph.sched.queueing,
    fluxgraph.sched.records,
    fluxgraph.sched.runtime,
    fluxgraph.sched.shapes,
    fluxgraph.sched.view,
    fluxgraph.sched.simulator,
]
DOC = Path(__file__).resolve().parents[2] / "docs" / "simulator.md"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_sched_doctests_pass(module):
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0


def test_simulator_doc_worked_example_runs():
    result = doctest.testfile(str(DOC), module_relative=False)
    assert result.attempted > 0
    assert result.failed == 0
