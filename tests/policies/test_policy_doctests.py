"""Run the doctests of the policy modules as part of the test suite."""

from __future__ import annotations

import doctest

import pytest

import fluxgraph.policies.introsort
import fluxgraph.policies.locality
import fluxgraph.policies.variation

MODULES = [fluxgraph.policies.introsort, fluxgraph.policies.locality, fluxgraph.policies.variation]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_policy_doctests_pass(module):
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0
