"""The JSON Schema is valid and every check in it has a reference message."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator

from fluxgraph.jobspec.schema import jobspec_schema

# Keywords that reject instances (annotations, applicators and "if" conditions are not checks).
_CHECKS = {
    "type",
    "required",
    "enum",
    "const",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "pattern",
    "dependentRequired",
    "not",
}


def _subschemas(node: Any, in_condition: bool = False) -> Iterator[tuple[dict[str, Any], bool]]:
    """Every subschema (a dict in a schema position) and whether it sits inside an ``if``."""
    if not isinstance(node, dict):
        return
    yield node, in_condition
    for key, value in node.items():
        if key in ("properties", "$defs"):
            for sub in value.values():
                yield from _subschemas(sub, in_condition)
        elif key in ("allOf", "anyOf", "oneOf"):
            for sub in value:
                yield from _subschemas(sub, in_condition)
        elif key in ("items", "additionalProperties", "propertyNames", "then", "else", "not"):
            yield from _subschemas(value, in_condition)
        elif key == "if":
            yield from _subschemas(value, True)


def test_schema_is_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(jobspec_schema())


def test_schema_every_check_has_an_x_errors_entry() -> None:
    missing = []
    for node, in_condition in _subschemas(jobspec_schema()):
        if in_condition:
            continue
        table = node.get("x-errors", {})
        for keyword in _CHECKS & node.keys():
            if keyword not in table:
                missing.append((keyword, sorted(node)))
        if node.get("additionalProperties") is False and "additionalProperties" not in table:
            missing.append(("additionalProperties", sorted(node)))
        names = node.get("required", [])
        if "required" in table:
            assert sorted(table["required"]) == sorted(names)
    assert missing == []


def test_schema_copy_is_independent() -> None:
    a = jobspec_schema()
    a["required"].append("x")
    assert "x" not in jobspec_schema()["required"]
