"""The immutable model: fields, derived totals, tri-state exclusivity, canonical dict form."""

from __future__ import annotations

import dataclasses

import pytest
from _jobspec_docs import BASE_YAML, REPO, base_doc

from fluxgraph.errors import JobspecError
from fluxgraph.jobspec import (
    UINT_MAX,
    Jobspec,
    Resource,
    check_known_types,
    dump,
    load,
)
from fluxgraph.jobspec.model import FrozenMap


def test_model_fields_from_yaml() -> None:
    js = load(BASE_YAML)
    assert js.version == 9999
    node = js.resources[0]
    slot = node.with_[0]
    core = slot.with_[0]
    assert (node.type, node.count_min, node.count_max) == ("node", 1, 1)
    assert (node.count_operator, node.count_operand, node.exclusive) == ("+", 1, None)
    assert slot.is_slot and slot.label == "default" and not node.is_slot
    assert core.with_ == () and core.totals == ()
    assert node.totals == (("slot", 1), ("core", 2))
    assert js.totals == (("node", 1), ("slot", 1), ("core", 2))
    assert js.duration == 3600.0 and js.queue == "" and js.constraint is None
    task = js.tasks[0]
    assert task.command == ("app",) and task.slot == "default"
    assert task.count == {"per_slot": "1"} and task.distribution is None
    assert (js.has_slot, js.has_node, js.has_exclusive) == (True, True, False)
    assert js.types == ("node", "slot", "core")


def test_model_is_immutable_and_hashable() -> None:
    js = load(BASE_YAML)
    with pytest.raises(dataclasses.FrozenInstanceError):
        js.resources[0].count_min = 5  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):  # TypeError: CPython 3.11 slots+frozen
        js.resources[0].extra = 1  # type: ignore[attr-defined]
    assert isinstance(js.resources, tuple) and isinstance(js.resources[0].with_, tuple)
    assert hash(js) == hash(load(BASE_YAML))
    with pytest.raises(TypeError):
        js.tasks[0].count["per_slot"] = "2"  # type: ignore[index]


def test_model_totals_multiply_down_the_tree() -> None:
    doc = base_doc()
    doc["resources"][0]["count"] = 3
    doc["resources"][0]["with"][0]["count"] = 2
    doc["resources"][0]["with"][0]["with"].append({"type": "gpu", "count": 1})
    doc["resources"].append({"type": "core", "count": 5})
    js = load(doc)
    assert js.resources[0].totals == (("slot", 2), ("core", 4), ("gpu", 2))
    assert js.totals == (("node", 3), ("slot", 6), ("core", 17), ("gpu", 6))
    assert js.total("core") == 17 and js.total("memory") == 0
    assert js.resources[0].total("gpu") == 2


def test_model_totals_use_minimum_counts_and_32_bit_products() -> None:
    doc = base_doc()
    doc["resources"][0]["count"] = {"min": 2, "max": 8, "operator": "*", "operand": 2}
    doc["resources"][0]["with"][0]["with"][0]["count"] = {"min": 3}
    js = load(doc)
    assert js.total("core") == 6
    big = {"type": "node", "count": 65536, "with": [{"type": "core", "count": 65536}]}
    js = load({**base_doc(), "resources": [big]})
    assert js.total("core") == (65536 * 65536) & UINT_MAX == 0


def test_model_exclusive_is_tri_state() -> None:
    doc = base_doc()
    doc["resources"][0]["exclusive"] = True
    doc["resources"][0]["with"][0]["with"][0]["exclusive"] = "false"
    js = load(doc)
    assert js.resources[0].exclusive is True
    assert js.resources[0].with_[0].exclusive is None
    assert js.resources[0].with_[0].with_[0].exclusive is False
    assert js.exclusive_types == ("node",) and js.has_exclusive


def test_model_count_forms() -> None:
    doc = base_doc()
    doc["resources"][0]["count"] = {"min": 2}
    r = load(doc).resources[0]
    assert (r.count_min, r.count_max, r.count_operator, r.count_operand) == (2, UINT_MAX, "+", 1)
    assert r.to_dict()["count"] == {"min": 2}
    doc["resources"][0]["count"] = {"min": 4, "max": 4, "operator": "+", "operand": 1}
    assert load(doc).resources[0].to_dict()["count"] == 4


def test_model_attributes_keep_user_and_optional_system_keys() -> None:
    doc = base_doc()
    doc["attributes"] = {
        "user": {"name": "x", "tags": [1, {"a": None}]},
        "system": {
            "duration": 0.5,
            "queue": "debug",
            "cwd": "/tmp",
            "environment": {"HOME": "/root", "N": 3},
            "bank": "physics",
        },
    }
    js = load(doc)
    system = js.attributes.system
    assert system.duration == 0.5 and system.queue == "debug" and system.cwd == "/tmp"
    assert system.environment == {"HOME": "/root", "N": "3"}
    assert system.optional == {"bank": "physics"}
    assert js.attributes.user == {"name": "x", "tags": (1, FrozenMap({"a": None}))}
    assert load(js.to_dict()) == js


def test_model_null_attributes_default() -> None:
    doc = base_doc()
    doc["attributes"] = None
    js = load(doc)
    assert js.duration == 0.0 and js.attributes.user is None
    assert js.to_dict()["attributes"] == {}


def test_model_hand_built_resource_defaults() -> None:
    r = Resource("core")
    assert (r.count_min, r.count_max, r.effective_max) == (1, 1, 1)
    js = Jobspec(1, (r,), (), load(BASE_YAML).attributes)
    assert js.totals == (("core", 1),)


def test_model_walk_is_preorder() -> None:
    js = load(BASE_YAML)
    assert [r.type for r in js.walk()] == ["node", "slot", "core"]


def test_model_dump_quotes_strings_and_round_trips() -> None:
    doc = base_doc()
    doc["attributes"]["system"]["constraints"] = {"properties": ["amd", "^slow"]}
    js = load(doc)
    text = dump(js)
    assert '"amd"' in text
    assert load(text) == js


def test_check_known_types_reports_first_unknown_in_preorder() -> None:
    doc = base_doc()
    doc["resources"][0]["with"][0]["with"].append({"type": "gizmo", "count": 1})
    doc["resources"].append({"type": "widget", "count": 1})
    js = load(doc)
    check_known_types(js, {"node", "slot", "core", "gizmo", "widget"})
    with pytest.raises(JobspecError) as info:
        check_known_types(js, {"node", "slot", "core"})
    assert info.value.path == "resources[0].with[0].with[1].type"
    assert info.value.reason == 'Value of "type" must be a resource type known to fluxion'


@pytest.mark.parametrize("name", sorted(p.name for p in (REPO / "jobspecs").glob("*.yaml")))
def test_model_bundled_examples_load(name: str) -> None:
    js = load(REPO / "jobspecs" / name)
    assert js.resources and js.tasks and js.duration > 0
    assert load(dump(js)) == js


def test_model_bundled_examples_cover_the_documented_shapes() -> None:
    folder = REPO / "jobspecs"
    node_local = load(folder / "node-local.yaml")
    assert node_local.exclusive_types == ("node",) and node_local.total("ssd") == 1
    gpu = load(folder / "slot-core-memory-gpu.yaml")
    assert {t for t, _ in gpu.resources[0].with_[0].totals} >= {"core", "memory", "gpu"}
    rack = load(folder / "rack-constraints.yaml")
    assert rack.constraint is not None and rack.resources[0].type == "rack"
    assert load(folder / "io-bandwidth.yaml").total("bandwidth") == 640
    assert load(folder / "storage.yaml").exclusive_types == ("storage",)
