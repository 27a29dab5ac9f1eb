"""The doctests of the variation case-study modules."""

from __future__ import annotations

import doctest

import pytest

import fluxgraph.papers.variation.quartz
import fluxgraph.papers.variation.static_queue
import fluxgraph.papers.variation.study
import fluxgraph.papers.variation.workload
import fluxgraph.policies.class_packing

MODULES = [
    fluxgraph.papers.variation.study,
    fluxgraph.policies.class_packing,
    fluxgraph.papers.variation.quartz,
    fluxgraph.papers.variation.static_queue,
    fluxgraph.papers.variation.workload,
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_module_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
