"""The doctests of the FM modules and the study."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "fluxgraph.sched.fm.machine",
    "fluxgraph.sched.fm.placement",
    "fluxgraph.sched.fm.allocator",
    "fluxgraph.sched.fm.slowdown",
    "fluxgraph.sched.fm.workload",
    "fluxgraph.sched.fm.priority",
    "fluxgraph.sched.fm.passes",
    "fluxgraph.sched.fm.compat",
    "fluxgraph.sched.fm.run",
    "fluxgraph.sched.fm.metrics",
    "fluxgraph.experiments.studies.fm",
    "fluxgraph.experiments.studies.fm_compat",
    "fluxgraph.experiments.studies.fm_figures",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
