"""The storage-node (rabbit) cases of t3042, whose jobspecs the suite makes with ``flux run``.

The jobspecs below are what ``flux run [-N1] -n1 --requires=... --dry hostname`` produces; the
checks are the scripts' own greps.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from fluxgraph.query.cli import main

RABBIT = (
    Path(__file__).resolve().parents[2]
    / ".."
    / "shared/conformance/data/data/resource/jgfs/rabbit.json"
)
SLOT = {"type": "slot", "count": 1, "with": [{"type": "core", "count": 1}], "label": "task"}
HOST = {"hostlist": ["hetchy201"]}


def _spec(resources, constraints) -> dict:
    return {
        "version": 1,
        "resources": resources,
        "tasks": [{"command": ["hostname"], "slot": "task", "count": {"per_slot": 1}}],
        "attributes": {"system": {"duration": 0, "constraints": constraints}},
    }


@pytest.mark.parametrize(
    ("resources", "constraints", "matches"),
    [
        ([{"type": "node", "count": 1, "with": [SLOT]}], HOST, False),  # only a storage node
        ([SLOT], HOST, True),  # cores on the storage node itself
        ([SLOT], {"and": [HOST, {"properties": ["parrypeak"]}]}, False),  # property fails
    ],
)
def test_storage_node_constraints(tmp_path, resources, constraints, matches):
    if not RABBIT.is_file():
        pytest.skip(f"shared conformance data not found at {RABBIT}")
    spec = tmp_path / "job.json"
    spec.write_text(json.dumps(_spec(resources, constraints)))
    out, err = io.StringIO(), io.StringIO()
    rc = main(
        ["-L", str(RABBIT), "-f", "jgf"],
        stdin=io.StringIO(f"m allocate {spec}\nquit\n"),
        stdout=out,
        stderr=err,
    )
    assert rc == 0
    text = out.getvalue()
    assert ("No matching resources" not in text) == matches
    assert ("hetchy201" in text) == matches
