"""The reference's own jobspecs: every one the conformance cases match loads; the one whose case
prints a jobspec error fails with the printed message."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _jobspec_docs import CONFORMANCE, JOBSPECS, shared_dir

from fluxgraph.errors import JobspecError
from fluxgraph.jobspec import check_known_types, dump, load

# Types the reference interns at start-up (matching-semantics §3.5).
PREINTERNED = {"cluster", "core", "socket", "gpu", "node", "rack", "slot", "xor_slot", "ssd"}
PREINTERNED |= {"storage_node", "*", ""}
_MATCH = re.compile(r"^\s*(?:match|m|multi-match|M)\s+\S+\s+(.+)$")
_JOBSPEC_ERROR = re.compile(r"^match_allocate: ERROR: Jobspec error for \d+: (.*)$")


def _data_root() -> Path:
    return shared_dir(CONFORMANCE / "data")


def _manifest() -> dict:
    return json.loads(shared_dir(CONFORMANCE / "manifest.json").read_text())


def _command_texts(case: dict) -> list[str]:
    runs = (
        [case["run"]] if "run" in case else [s["run"] for s in case.get("steps", []) if "run" in s]
    )
    texts = []
    for run in runs:
        cmds = run.get("commands") or {}
        if "text" in cmds:
            texts.append(cmds["text"])
        elif "file" in cmds:
            f = _data_root() / cmds["file"]
            if f.exists():
                texts.append(f.read_text())
    return texts


def _matched_jobspecs(case: dict) -> list[Path]:
    out = []
    for text in _command_texts(case):
        for line in text.splitlines():
            m = _MATCH.match(line)
            if m:
                for token in m.group(1).split():
                    out.append(Path(token.replace("@TEST_SRCDIR@", str(_data_root()))))
    return out


def _expected_jobspec_errors(case: dict) -> list[str]:
    messages = []
    for name in case.get("expected_files", []):
        f = _data_root() / name
        if f.exists():
            for line in f.read_text().splitlines():
                m = _JOBSPEC_ERROR.match(line)
                if m:
                    messages.append(m.group(1))
    return messages


def _graph_types(case: dict) -> set[str]:
    """Resource types of the case's JGF graph (enough for the cases that print jobspec errors)."""
    opts = case["run"]["options"]
    path = Path(opts[opts.index("-L") + 1].replace("@TEST_SRCDIR@", str(_data_root())))
    graph = json.loads(path.read_text())["graph"]
    return {n["metadata"]["type"] for n in graph["nodes"]}


def test_conformance_every_matched_jobspec_loads_unless_its_case_prints_an_error() -> None:
    paths = set()
    for case in _manifest()["cases"]:
        if not _expected_jobspec_errors(case):
            paths.update(p for p in _matched_jobspecs(case) if p.exists())
    assert len(paths) > 150
    for path in sorted(paths):
        js = load(path)
        assert load(dump(js)) == js, path


def test_conformance_printed_jobspec_errors_match() -> None:
    cases = [c for c in _manifest()["cases"] if _expected_jobspec_errors(c)]
    assert cases, "the shared suite has a case printing a jobspec error"
    for case in cases:
        (expected,) = _expected_jobspec_errors(case)
        (path,) = _matched_jobspecs(case)
        js = load(path)  # parses: the reference fails only on the unknown type
        with pytest.raises(JobspecError) as info:
            check_known_types(js, PREINTERNED | _graph_types(case))
        assert info.value.reason == expected


def test_conformance_every_shipped_jobspec_file_loads_or_fails_cleanly() -> None:
    files = sorted(p for p in shared_dir(JOBSPECS).rglob("*") if p.is_file())
    assert len(files) > 200
    failures = {}
    for f in files:
        try:
            load(f)
        except JobspecError as err:
            failures[f.relative_to(JOBSPECS).as_posix()] = err.reason
    # Only the rv1 documents kept beside the jobspecs for "update" commands fail.
    assert failures
    assert all(name.startswith("update/") and name.endswith(".json") for name in failures)
    assert set(failures.values()) == {'Missing key "resource" in top level mapping'}
