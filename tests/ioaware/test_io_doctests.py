"""The doctests of the ``fluxgraph.sched.ioaware`` modules and the study module."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "fluxgraph.sched.ioaware",
    "fluxgraph.sched.ioaware.estimator",
    "fluxgraph.sched.ioaware.fluid",
    "fluxgraph.sched.ioaware.machine",
    "fluxgraph.sched.ioaware.metrics",
    "fluxgraph.sched.ioaware.run",
    "fluxgraph.sched.ioaware.schedulers",
    "fluxgraph.sched.ioaware.tracker",
    "fluxgraph.sched.ioaware.workload",
    "fluxgraph.experiments.studies.ioaware",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
