"""Every reproducer in ``../shared/conformance/fuzz-findings`` ends quickly with a clear error.

Each folder's ``repro.sh`` is run on a copy of the folder (some write files next to
themselves) with ``FLUXGRAPH_QUERY`` set to this checkout. A fixed reproducer prints no Python
traceback, except the Python-API ones (``repro.py``), which may end in a ``fluxgraph`` error, and
ends within a few seconds. Skipped when ``../shared`` is absent; the inline versions of the same
inputs are in ``tests/jobspec``, ``tests/readers``, ``tests/query`` and ``tests/traverser``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FINDINGS = REPO.parent / "shared" / "conformance" / "fuzz-findings"
CASES = sorted(p for p in FINDINGS.glob("*") if (p / "repro.sh").is_file())

#: What each reproducer must now print (a substring of its stdout + stderr).
EXPECTED = {
    "01-jobspec-bigint": 'Jobspec error for 1: Missing key "resource" in top level mapping',
    "02-jobspec-deep-json": "match_allocate: ERROR: Jobspec error for 1: yaml-cpp: error at line 1",
    "03-api-jobspec-surrogates": "fluxgraph.errors.JobspecError: invalid character",
    "04-api-jobspec-dump-roundtrip": '"bogus": 1',
    "05-jobspec-alias-tree-hang": "document expands to more than 10000 nodes",
    "06-grug-zero-scale-id-scope": "error in reading grug string; id_scope spans a multi_scale",
    "07-grug-bigint": ": Runtime error: resource_query_t: ERROR: error in reading grug string;",
    "08-grug-nested-graph-recursion": "ERROR: error in reading grug string;",
    "09-xml-invalid-utf8": "ERROR: Error hwloc load: rank -1;",
    "10-jgf-bigint-node-id": "apply_defaults: value for key (uniq_id) could not be inferred",
    "11-repl-bigint-jobid": "cancel: ERROR: nonexistent job 9223372036854775807",
    "12-cli-reserve-bigint": "WARN: out of range specified for --reserve-vtx-vec",
    "13-find-deep-parens": "findfind: invalid criteria: ((((",
    "14-test-output-non-utf8": "INFO: Num. of Jobs Matched: 0",
    "15-remove-then-cancel-planner-error": "INFO: RESOURCES=ALLOCATED",
    "17-hwloc-bigint-gpu-id": "ERROR: Error hwloc walk: rank -1;",
    "18-output-write-error": "ERROR: can't write to stdout: No space left on device",
    "19-api-matcher-empty-subsystems": "fluxgraph.errors.MatchError: no subsystem given",
    "21-unbounded-read-dev-zero": "ERROR: can't read /dev/zero: File too large",
}


@pytest.mark.skipif(not CASES, reason="../shared/conformance/fuzz-findings is not present")
@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_fuzz_finding_is_fixed(case, tmp_path):
    work = tmp_path / case.name
    shutil.copytree(case, work)
    for f in work.iterdir():
        f.chmod(0o644)
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO),
        FLUXGRAPH_QUERY=f"{sys.executable} -m fluxgraph.query",
        PYTHON=sys.executable,
    )
    start = time.monotonic()
    r = subprocess.run(
        ["sh", str(work / "repro.sh")],
        capture_output=True,
        env=env,
        timeout=120,
        cwd=work,
    )
    elapsed = time.monotonic() - start
    text = (r.stdout + r.stderr).decode("utf-8", errors="replace")
    assert elapsed < 60, f"{case.name} took {elapsed:.0f} s"
    if (case / "repro.py").is_file():
        if "Traceback" in text:
            last = text.strip().splitlines()[-1]
            assert last.startswith("fluxgraph.errors."), text[-2000:]
    else:
        assert "Traceback" not in text, text[-2000:]
    if case.name in EXPECTED:
        assert EXPECTED[case.name] in text, text[-2000:]
    if case.name == "14-test-output-non-utf8":
        assert (work / "out.txt").read_bytes().startswith(b"Could not find path /tiny0/\xff")
    if case.name == "15-remove-then-cancel-planner-error":
        assert "ERROR" not in text


def test_every_known_finding_has_an_expectation():
    if not CASES:
        pytest.skip("../shared/conformance/fuzz-findings is not present")
    assert {c.name for c in CASES} <= set(EXPECTED)
