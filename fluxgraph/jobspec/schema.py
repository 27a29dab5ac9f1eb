"""The jobspec JSON Schema and the translation of its errors into reference messages.

``schema.json`` (shipped beside this module) describes what Fluxion's libjobspec accepts
(matching-semantics §4.1, §4.3) for every version 1-9999: the reference applies one grammar to
version 1 and to the version 9999 its tests use. Each subschema carries an ``x-errors`` table that
maps a failing keyword to ``[slot, message, detail]``:

* ``slot`` says which of the reference's checks failed. ``"type"`` is a check on the instance
  itself; ``".conv"`` (leading dot) is a check on a field, reported against its parent mapping;
  ``"@unknown"`` (only with ``additionalProperties``) is one finding per unexpected key.
  :mod:`fluxgraph.jobspec.validate` turns slots into the reference's checking order.
* ``message`` is the reference's text; ``{value}`` is replaced by the offending value and
  ``{key}`` by the field name; ``@conversion`` stands for yaml-cpp's ``bad conversion``.
* ``detail`` (optional) is an extra hint appended to :class:`JobspecError` messages.

The validator uses JSON Schema draft 2020-12 with one change: ``integer`` means a Python ``int``
(not a ``bool``, not an integral ``float``), because yaml-cpp does not convert ``3.0`` or ``true``
to an unsigned integer.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

from jsonschema import Draft202012Validator, validators

from fluxgraph.jobspec._source import Path, scalar_text

__all__ = ["Finding", "jobspec_schema", "schema_findings"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One failed check: where, which check, and the reference's message.

    ``container`` is the mapping or sequence the check belongs to; ``field`` names the key or
    index inside it (``None`` for a check on the container itself); ``where`` is the path shown to
    the user (the field's path, or the container's).
    """

    container: Path
    field: str | int | None
    check: str
    reason: str
    detail: str
    value: Any
    where: Path


def _strict_int(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def _load() -> dict[str, Any]:
    return json.loads(files("fluxgraph.jobspec").joinpath("schema.json").read_text("utf-8"))


_Validator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_int),
)
# Compiled once at import and never mutated: the schema is a constant of the package.
_VALIDATOR = _Validator(_load())


def jobspec_schema() -> dict[str, Any]:
    """A copy of the jobspec JSON Schema (draft 2020-12).

    >>> jobspec_schema()["required"]
    ['version', 'resources', 'tasks', 'attributes']
    """
    return copy.deepcopy(_VALIDATOR.schema)


def _render(template: str, value: Any, key: Any) -> str:
    if "{" not in template:
        return template
    return template.replace("{value}", scalar_text(value)).replace("{key}", str(key))


def schema_findings(data: Any) -> Iterator[Finding]:
    """Every schema violation in ``data``, as :class:`Finding` objects (in no particular order).

    >>> [f.reason for f in schema_findings({"version": 1, "resources": [], "tasks": []})]
    ['Missing key "attributes" in top level mapping']
    """
    for err in _VALIDATOR.iter_errors(data):
        yield from _translate(err)


def _translate(err: Any) -> Iterator[Finding]:
    path: Path = tuple(err.absolute_path)
    schema = err.schema if isinstance(err.schema, dict) else {}
    table = schema.get("x-errors", {})
    keyword = err.validator
    spec = table.get(keyword)
    instance = err.instance
    if keyword == "required":
        for key in err.validator_value:
            if key not in instance:
                check, reason = spec[key]
                yield Finding(path, key, check, reason, "", None, (*path, key))
        return
    if spec is None:
        # Every keyword of schema.json has an x-errors entry (tests/jobspec check it); this keeps
        # a future schema edit from turning into a traceback.
        yield Finding(path, None, "schema", err.message, "", instance, path)
        return
    slot, template = spec[0], spec[1]
    detail = spec[2] if len(spec) > 2 else ""
    if keyword == "additionalProperties":
        known = schema.get("properties", {})
        for key in instance:
            if key not in known:
                if slot == "@unknown":
                    yield Finding(path, key, "unknown", template, "", None, (*path, key))
                else:
                    yield Finding(path, None, slot, template, f"unexpected key {key!r}", None, path)
        return
    if "propertyNames" in err.relative_schema_path:
        reason = _render(template, instance, instance)
        yield Finding(path, None, slot, reason, "", instance, (*path, instance))
        return
    if slot.startswith("."):
        reason = _render(template, instance, path[-1])
        yield Finding(path[:-1], path[-1], slot[1:], reason, detail, instance, path)
        return
    yield Finding(path, None, slot, _render(template, instance, ""), detail, instance, path)
