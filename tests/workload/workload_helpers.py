"""Shared helpers of the workload tests: where the public traces are, and small trace texts."""

from __future__ import annotations

from pathlib import Path

import pytest

#: ``../shared/traces`` next to the repository; the tests that need it skip when it is absent.
TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"


def trace(name: str) -> Path:
    """The public trace ``name``, or skip the test when it is not there."""
    path = TRACES / name
    if not path.is_file():
        pytest.skip(f"{path} not present")
    return path


def swf_line(*fields: object) -> str:
    """An SWF data line of 18 fields: the given ones first, -1 for the rest."""
    values = [*fields, *([-1] * (18 - len(fields)))]
    return " ".join(str(v) for v in values)
