"""The t6001 cases checked with flux-core tools (``flux jsonschemalint``, ``flux hostlist``).

``flux jsonschemalint`` validated ``-F jgf`` output against the JSON Graph Format (version 1)
schema; :data:`JGF_SCHEMA` restates that schema (a ``graph`` object of ``nodes`` with string ids
and object metadata, ``edges`` with string endpoints, no other keys) for ``jsonschema``.
``flux hostlist -c`` counted hosts; :func:`count_hosts` does that.
"""

from __future__ import annotations

import json
import os

import jsonschema
import pytest
from _flux_generated import SHARED, count_hosts, expand_ids, run_query, without_times

DATA = SHARED / "conformance/data/data/resource"

_STRING = {"type": "string"}
_OBJECT = {"type": "object"}
_NODE = {
    "type": "object",
    "properties": {"id": _STRING, "label": _STRING, "metadata": _OBJECT},
    "required": ["id"],
    "additionalProperties": False,
}
_EDGE = {
    "type": "object",
    "properties": {
        "id": _STRING,
        "source": _STRING,
        "target": _STRING,
        "relation": _STRING,
        "directed": {"type": "boolean"},
        "label": _STRING,
        "metadata": _OBJECT,
    },
    "required": ["source", "target"],
    "additionalProperties": False,
}
_GRAPH = {
    "type": "object",
    "properties": {
        "label": _STRING,
        "directed": {"type": "boolean"},
        "type": _STRING,
        "metadata": _OBJECT,
        "nodes": {"type": "array", "items": _NODE},
        "edges": {"type": "array", "items": _EDGE},
    },
    "additionalProperties": False,
}
#: JSON Graph Format version 1: one ``graph`` or a list of ``graphs``.
JGF_SCHEMA = {
    "oneOf": [
        {
            "type": "object",
            "properties": {"graph": _GRAPH},
            "required": ["graph"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {
                "label": _STRING,
                "type": _STRING,
                "metadata": _OBJECT,
                "graphs": {"type": "array", "items": _GRAPH},
            },
            "additionalProperties": False,
        },
    ]
}
_SLOW = pytest.mark.skipif(not os.environ.get("FLUXGRAPH_RUNSLOW"), reason="FLUXGRAPH_RUNSLOW")


@pytest.fixture(autouse=True)
def _shared():
    if not DATA.is_dir():
        pytest.skip(f"shared conformance data not found at {DATA}")


def _emitted(tmp_path, options, jobspec) -> str:
    """``resource-query <options> -d -t out < "match allocate <jobspec>"``, INFO lines dropped."""
    rc, _, err, text = run_query(
        tmp_path, [*options, "-d", "-P", "high"], f"match allocate {jobspec}\nquit\n", output="out"
    )
    assert rc == 0, err
    return "".join(line for line in text.splitlines(keepends=True) if "INFO:" not in line)


def _validates(text: str) -> dict:
    doc = json.loads(text)  # one JSON document, as jsonschemalint reads it
    jsonschema.validate(doc, JGF_SCHEMA)
    graph = doc["graph"]
    ids = {n["id"] for n in graph["nodes"]}
    assert len(ids) == len(graph["nodes"])
    assert all(e["source"] in ids and e["target"] in ids for e in graph["edges"])
    return graph


def test_match_formats_jgf_output_validates_against_the_jgf_schema(tmp_path):  # t6001:01
    options = ["-L", str(DATA / "grugs/tiny.graphml"), "-F", "jgf"]
    graph = _validates(_emitted(tmp_path, options, DATA / "jobspecs/basics/test001.yaml"))
    assert graph["nodes"] and graph["edges"]


def test_match_formats_schema_rejects_malformed_jgf():
    """The restated schema is not vacuous."""
    for bad in (
        {"graph": {"nodes": [{"id": 0}]}},
        {"graph": {"edges": [{"source": "0"}]}},
        {"graph": {}, "extra": 1},
        {"graph": {"nodes": [], "bogus": []}},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, JGF_SCHEMA)


@pytest.mark.slow
@_SLOW
def test_match_formats_large_jgf_output_validates(tmp_path):  # t6001:02 (LONGTEST)
    options = ["-L", str(DATA / "grugs/sierra.graphml"), "-r", "400000", "-F", "jgf"]
    graph = _validates(_emitted(tmp_path, options, DATA / "jobspecs/basics/test011.yaml"))
    cores = sum(n["metadata"]["type"] == "core" for n in graph["nodes"])
    assert cores == 2000 * 2 * 22


def test_match_formats_rv1_nosched_counts_storage_nodes_like_nodes(tmp_path):  # t6001:08
    options = ["-L", str(DATA / "jgfs/rabbit.json"), "-f", "jgf", "-F", "rv1_nosched"]
    text = _emitted(tmp_path, options, DATA / "jobspecs/advanced/rabbit.yaml")
    match = without_times(json.loads(text.splitlines()[0]))
    assert count_hosts(match["execution"]["nodelist"][0]) == 2
    assert len(expand_ids(match["execution"]["R_lite"][0]["rank"])) == 2
