"""The doctests of the rabbit study's modules."""

from __future__ import annotations

import doctest

import pytest

import fluxgraph.papers.rabbit.invariants
import fluxgraph.papers.rabbit.scenarios

MODULES = [fluxgraph.papers.rabbit.invariants, fluxgraph.papers.rabbit.scenarios]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_module_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
