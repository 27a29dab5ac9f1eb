"""The doctests of the variation case-study modules."""

from __future__ import annotations

import doctest

import pytest

import fluxgraph.experiments.studies.variation
import fluxgraph.policies.class_packing
import fluxgraph.sched.quartz
import fluxgraph.sched.static_queue
import fluxgraph.workload.varaware

MODULES = [
    fluxgraph.experiments.studies.variation,
    fluxgraph.policies.class_packing,
    fluxgraph.sched.quartz,
    fluxgraph.sched.static_queue,
    fluxgraph.workload.varaware,
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_module_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
