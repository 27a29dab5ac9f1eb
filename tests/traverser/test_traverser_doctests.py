"""The doctests of the traverser modules (their examples run as written)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "fastpath",
    "fastpath_mirror",
    "fastpath_shape",
    "fastpath_verify",
    "find",
    "flexible",
    "pruning",
    "replay",
    "slots",
    "state",
    "status",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(f"fluxgraph.traverser.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
