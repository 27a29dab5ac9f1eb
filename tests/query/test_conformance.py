"""The shared resource-query conformance cases that must keep passing.

Runs ``../shared/conformance/run.py`` against ``python3 -m fluxgraph.query`` for the case ids
listed in ``conformance_must_pass.txt`` (one per line, ``#`` comments allowed) and fails listing
every id that no longer passes. Skipped when the shared directory is absent.

Every listed case runs by default (about 1-2 minutes on two cores: each case starts a Python
process), so that any regression fails CI. Set ``FLUXGRAPH_CONFORMANCE=quick`` to run only the
first listed case of each reference script while iterating.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / ".." / "shared"
RUNNER = SHARED / "conformance" / "run.py"
MUST_PASS = Path(__file__).with_name("conformance_must_pass.txt")


def _must_pass() -> list[str]:
    ids = []
    for line in MUST_PASS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            ids.append(line)
    return ids


def test_conformance_must_pass_cases(tmp_path):
    if not RUNNER.is_file():
        pytest.skip(f"shared conformance suite not found at {RUNNER}")
    ids = _must_pass()
    if os.environ.get("FLUXGRAPH_CONFORMANCE") == "quick":
        first: dict[str, str] = {}
        for case in ids:
            first.setdefault(case.split(":", 1)[0], case)
        ids = list(first.values())
    if not ids:
        pytest.skip("no must-pass conformance case listed yet")
    pattern = "^(" + "|".join(re.escape(i) for i in ids) + ")$"
    results = tmp_path / "results.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [
            sys.executable,
            str(RUNNER),
            "--query",
            f"{sys.executable} -m fluxgraph.query",
            "--jobs",
            "2",
            "--timeout",
            "60",
            "--filter",
            pattern,
            "--json",
            str(results),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    status = {r["id"]: r["status"] for r in json.loads(results.read_text())["results"]}
    missing = sorted(set(ids) - set(status))
    regressed = sorted(i for i in ids if i in status and status[i] != "pass")
    assert not missing, f"must-pass ids unknown to the manifest: {missing}"
    assert not regressed, f"conformance cases that regressed: {regressed}"
