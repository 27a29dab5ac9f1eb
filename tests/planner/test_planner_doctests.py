"""Run the doctests of the planner modules as part of the test suite."""

from __future__ import annotations

import doctest

import pytest

import fluxgraph.planner.multi
import fluxgraph.planner.planner

MODULES = [fluxgraph.planner.planner, fluxgraph.planner.multi]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_planner_doctests_pass(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
