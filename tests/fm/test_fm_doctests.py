"""The doctests of the FM modules and the study."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "fluxgraph.papers.fm.machine",
    "fluxgraph.papers.fm.placement",
    "fluxgraph.papers.fm.allocator",
    "fluxgraph.papers.fm.slowdown",
    "fluxgraph.papers.fm.snapshot",
    "fluxgraph.papers.fm.workload",
    "fluxgraph.papers.fm.priority",
    "fluxgraph.papers.fm.passes",
    "fluxgraph.papers.fm.compat",
    "fluxgraph.papers.fm.run",
    "fluxgraph.papers.fm.metrics",
    "fluxgraph.papers.fm.study",
    "fluxgraph.papers.fm.study_compat",
    "fluxgraph.papers.fm.criteria",
    "fluxgraph.papers.fm.study_report",
    "fluxgraph.papers.fm.figures",
    "fluxgraph.papers.fm.invariants",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
