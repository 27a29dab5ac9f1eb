"""When a jobspec has several errors, the one reported is the one libjobspec checks first."""

from __future__ import annotations

from typing import Any

import pytest
from _jobspec_docs import base_doc

from fluxgraph.errors import JobspecError
from fluxgraph.jobspec import load


def _first_error(doc: Any) -> tuple[str, str]:
    with pytest.raises(JobspecError) as info:
        load(doc)
    return info.value.path, info.value.reason


def test_validate_order_missing_key_before_extra_key_and_bad_version() -> None:
    doc = base_doc()
    del doc["tasks"]
    doc["extra"] = 1
    doc["version"] = "x"
    assert _first_error(doc) == ("tasks", 'Missing key "tasks" in top level mapping')


def test_validate_order_entry_count_before_version() -> None:
    doc = base_doc()
    doc["extra"] = 1
    doc["version"] = 0
    assert _first_error(doc)[1] == "Top mapping in jobspec must have exactly four entries"


def test_validate_order_version_before_attributes_before_resources_before_tasks() -> None:
    doc = base_doc()
    doc["tasks"] = {}
    doc["resources"] = {}
    doc["attributes"] = []
    doc["version"] = 0
    assert _first_error(doc)[0] == "version"
    doc["version"] = 1
    assert _first_error(doc)[0] == "attributes"
    doc["attributes"] = None
    assert _first_error(doc)[0] == "resources"
    doc["resources"] = []
    assert _first_error(doc)[0] == "tasks"


def test_validate_order_attributes_follow_document_key_order() -> None:
    doc = base_doc()
    doc["attributes"] = {"bogus": 1, "system": {"duration": "x"}}
    assert _first_error(doc)[0] == "attributes.bogus"
    doc["attributes"] = {"system": {"duration": "x"}, "bogus": 1}
    assert _first_error(doc)[0] == "attributes.system.duration"


def test_validate_order_earlier_resource_first() -> None:
    doc = base_doc()
    second = {"type": "gpu", "count": {"min": 0}}
    doc["resources"].append(second)
    doc["resources"][0]["with"][0]["with"][0]["count"] = -1
    assert _first_error(doc)[0] == "resources[0].with[0].with[0].count"


def test_validate_order_children_before_unknown_key_and_label() -> None:
    # The reference recurses into "with" before checking "label", "id" and unknown keys.
    doc = base_doc()
    slot = doc["resources"][0]["with"][0]
    del slot["label"]
    slot["bogus"] = 1
    slot["with"][0]["count"] = {"min": 0}
    assert _first_error(doc)[0] == "resources[0].with[0].with[0].count.min"
    slot["with"][0]["count"] = 1
    assert _first_error(doc) == ("resources[0].with[0].label", "All slots must be labeled")
    slot["label"] = "default"
    assert _first_error(doc) == ("resources[0].with[0]", "Unrecognized key in resource mapping")


def test_validate_order_resource_fields() -> None:
    doc = base_doc()
    r = doc["resources"][0]
    r.update({"type": ["x"], "count": None, "unit": {}, "exclusive": "maybe"})
    assert _first_error(doc)[0] == "resources[0].type"
    r["type"] = "node"
    assert _first_error(doc)[0] == "resources[0].count"
    r["count"] = 1
    assert _first_error(doc)[0] == "resources[0].unit"
    r["unit"] = "GB"
    assert _first_error(doc)[0] == "resources[0].exclusive"


def test_validate_order_count_checks() -> None:
    doc = base_doc()
    count: dict[str, Any] = {"min": "a", "max": "b", "operator": "/", "operand": 0}
    doc["resources"][0]["count"] = count
    # Conversions run max, operator, operand, then min.
    assert _first_error(doc)[0] == "resources[0].count.max"
    count["max"] = 1
    assert _first_error(doc)[0] == "resources[0].count.min"
    count["min"] = 0
    assert _first_error(doc)[1] == '"min" must be greater than zero'
    count["min"] = 2
    assert _first_error(doc)[1] == '"max" must be greater than or equal to "min"'
    count["max"] = 4
    assert _first_error(doc)[1] == "Invalid count operator"


def test_validate_order_all_or_none_before_scalar_checks() -> None:
    doc = base_doc()
    doc["resources"][0]["count"] = {"min": 1, "max": [2]}
    assert _first_error(doc)[1] == (
        'All or none of "max", "operator", and "operand" must be specified'
    )


def test_validate_order_task_checks() -> None:
    doc = base_doc()
    task = {"command": "app", "count": {}, "x": 1, "y": 2, "z": 3}
    doc["tasks"] = [task]
    assert _first_error(doc)[1] == '"command" value must be a sequence'
    task["command"] = ["app"]
    assert _first_error(doc)[1] == 'Key "slot" missing from task'
    task["slot"] = "s"
    assert _first_error(doc)[1] == '"count" in task must have exactly one entry'
    task["count"] = {"per_slot": 1}
    assert _first_error(doc)[1] == "impossible number of entries in task mapping"


def test_validate_order_constraint_checks() -> None:
    doc = base_doc()
    cons: dict[str, Any] = {"hostlist": ["ok", "bad["], "ranks": ["x"]}
    doc["attributes"]["system"]["constraints"] = cons
    assert _first_error(doc)[1] == "constraint map may not contain > 1 operation"
    del cons["ranks"]
    assert _first_error(doc) == (
        "attributes.system.constraints.hostlist[1]",
        "Invalid hostlist `bad['",
    )
    doc["attributes"]["system"]["constraints"] = {"properties": ["a", "b|c", 5]}
    assert _first_error(doc)[0] == "attributes.system.constraints.properties[1]"
