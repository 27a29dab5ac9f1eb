"""The examples of docs/workload.md run and print what the page says."""

from __future__ import annotations

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "workload.md"


def test_the_workload_page_examples_run():
    result = doctest.testfile(
        str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted >= 20
    assert result.failed == 0
