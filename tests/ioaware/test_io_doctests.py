"""The doctests of the ``fluxgraph.papers.ioaware`` modules and the study module."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "fluxgraph.papers.ioaware",
    "fluxgraph.papers.ioaware.estimator",
    "fluxgraph.papers.ioaware.fluid",
    "fluxgraph.papers.ioaware.machine",
    "fluxgraph.papers.ioaware.metrics",
    "fluxgraph.papers.ioaware.run",
    "fluxgraph.papers.ioaware.schedulers",
    "fluxgraph.papers.ioaware.tracker",
    "fluxgraph.papers.ioaware.workload",
    "fluxgraph.papers.ioaware.study",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
