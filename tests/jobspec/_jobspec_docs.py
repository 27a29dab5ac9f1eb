"""Shared fixtures for the jobspec tests: a valid base document and the shared-data location."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / ".." / "shared"
CONFORMANCE = SHARED / "conformance"
JOBSPECS = CONFORMANCE / "data" / "data" / "resource" / "jobspecs"

BASE_YAML = """\
version: 9999
resources:
  - type: node
    count: 1
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: core
            count: 2
tasks:
  - command: [app]
    slot: default
    count:
      per_slot: 1
attributes:
  system:
    duration: 3600
"""

_BASE: dict[str, Any] = {
    "version": 9999,
    "resources": [
        {
            "type": "node",
            "count": 1,
            "with": [
                {
                    "type": "slot",
                    "count": 1,
                    "label": "default",
                    "with": [{"type": "core", "count": 2}],
                }
            ],
        }
    ],
    "tasks": [{"command": ["app"], "slot": "default", "count": {"per_slot": 1}}],
    "attributes": {"system": {"duration": 3600}},
}


def base_doc() -> dict[str, Any]:
    """A fresh copy of a valid jobspec (node > slot > core) as plain data."""
    return copy.deepcopy(_BASE)


def shared_dir(path: Path) -> Path:
    """``path`` under the shared reference material, or skip the test when it is absent."""
    if not path.exists():
        pytest.skip(f"shared reference data not available: {path}")
    return path
