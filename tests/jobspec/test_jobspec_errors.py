"""Every invalid jobspec gets a JobspecError naming the path and the reference's message."""

from __future__ import annotations

import json
from errno import EINVAL
from typing import Any

import pytest
from _jobspec_docs import BASE_YAML, base_doc

from fluxgraph.errors import JobspecError
from fluxgraph.jobspec import load
from fluxgraph.jobspec._source import MAX_DEPTH

R0 = "resources[0]"
SLOT = "resources[0].with[0]"
CORE = "resources[0].with[0].with[0]"
CONS = "attributes.system.constraints"


def _mutated(edit: Any) -> dict[str, Any]:
    doc = base_doc()
    edit(doc)
    return doc


def _set(path: tuple[Any, ...], value: Any) -> Any:
    def edit(doc: dict[str, Any]) -> None:
        node = doc
        for p in path[:-1]:
            node = node[p]
        node[path[-1]] = value

    return edit


def _del(path: tuple[Any, ...]) -> Any:
    def edit(doc: dict[str, Any]) -> None:
        node = doc
        for p in path[:-1]:
            node = node[p]
        del node[path[-1]]

    return edit


def _constraint(value: Any) -> Any:
    return _set(("attributes", "system", "constraints"), value)


COUNT = ("resources", 0, "count")
CORE_P = ("resources", 0, "with", 0, "with", 0)
TASK = ("tasks", 0)

# (id, edit of the base document, expected err.path, expected err.reason)
DATA_CASES = [
    ("empty-map", lambda d: d.clear(), "version", 'Missing key "version" in top level mapping'),
    (
        "no-resources",
        _del(("resources",)),
        "resources",
        'Missing key "resource" in top level mapping',
    ),
    ("no-version", _del(("version",)), "version", 'Missing key "version" in top level mapping'),
    ("no-tasks", _del(("tasks",)), "tasks", 'Missing key "tasks" in top level mapping'),
    (
        "no-attributes",
        _del(("attributes",)),
        "attributes",
        'Missing key "attributes" in top level mapping',
    ),
    ("fifth-key", _set(("extra",), 1), "", "Top mapping in jobspec must have exactly four entries"),
    ("version-list", _set(("version",), [1]), "version", '"version" must be an unsigned integer'),
    ("version-text", _set(("version",), "one"), "version", "bad conversion"),
    ("version-float", _set(("version",), 1.0), "version", "bad conversion"),
    (
        "version-zero",
        _set(("version",), 0),
        "version",
        'Only jobspec "version" 1-9999 is supported',
    ),
    (
        "version-big",
        _set(("version",), 10000),
        "version",
        'Only jobspec "version" 1-9999 is supported',
    ),
    ("attributes-list", _set(("attributes",), []), "attributes", '"attributes" is not a map'),
    (
        "attributes-key",
        _set(("attributes", "sys"), {}),
        "attributes.sys",
        'Unknown key in "attributes"',
    ),
    (
        "system-list",
        _set(("attributes", "system"), [1]),
        "attributes.system",
        '"system" in "attributes" is not a map',
    ),
    (
        "duration-text",
        _set(("attributes", "system", "duration"), "1h"),
        "attributes.system.duration",
        "bad conversion",
    ),
    (
        "duration-bool",
        _set(("attributes", "system", "duration"), True),
        "attributes.system.duration",
        "bad conversion",
    ),
    (
        "environment-list",
        _set(("attributes", "system", "environment"), [1]),
        "attributes.system.environment",
        "bad conversion",
    ),
    ("resources-map", _set(("resources",), {}), "resources", '"resources" is not a sequence'),
    ("resource-scalar", _set(("resources", 0), 5), R0, "resource is not a mapping"),
    ("no-type", _del(("resources", 0, "type")), f"{R0}.type", 'Key "type" missing from resource'),
    (
        "type-list",
        _set(("resources", 0, "type"), ["node"]),
        f"{R0}.type",
        'Value of "type" must be a scalar',
    ),
    ("no-count", _del(COUNT), f"{R0}.count", 'Key "count" missing from resource'),
    ("count-negative", _set(COUNT, -1), f"{R0}.count", "bad conversion"),
    ("count-float", _set(COUNT, 2.0), f"{R0}.count", "bad conversion"),
    ("count-bool", _set(COUNT, True), f"{R0}.count", "bad conversion"),
    ("count-huge", _set(COUNT, 2**32), f"{R0}.count", "bad conversion"),
    ("count-list", _set(COUNT, [1]), f"{R0}.count", "count is not a mapping"),
    ("count-null", _set(COUNT, None), f"{R0}.count", "count is not a mapping"),
    ("count-no-min", _set(COUNT, {"max": 2}), f"{R0}.count.min", 'Key "min" missing from count'),
    ("min-list", _set(COUNT, {"min": [1]}), f"{R0}.count.min", 'Value of "min" must be a scalar'),
    ("min-zero", _set(COUNT, {"min": 0}), f"{R0}.count.min", '"min" must be greater than zero'),
    ("min-negative", _set(COUNT, {"min": -3}), f"{R0}.count.min", "bad conversion"),
    (
        "all-or-none",
        _set(COUNT, {"min": 1, "max": 4}),
        f"{R0}.count",
        'All or none of "max", "operator", and "operand" must be specified',
    ),
    (
        "min-gt-max",
        _set(COUNT, {"min": 4, "max": 2, "operator": "+", "operand": 1}),
        f"{R0}.count.max",
        '"max" must be greater than or equal to "min"',
    ),
    (
        "operator-bad",
        _set(COUNT, {"min": 1, "max": 4, "operator": "/", "operand": 1}),
        f"{R0}.count.operator",
        "Invalid count operator",
    ),
    (
        "operator-long",
        _set(COUNT, {"min": 1, "max": 4, "operator": "++", "operand": 1}),
        f"{R0}.count.operator",
        "bad conversion",
    ),
    (
        "operand-plus",
        _set(COUNT, {"min": 1, "max": 4, "operator": "+", "operand": 0}),
        f"{R0}.count.operand",
        "\"operand\" must be greater than zero for addition '+'",
    ),
    (
        "operand-times",
        _set(COUNT, {"min": 1, "max": 4, "operator": "*", "operand": 1}),
        f"{R0}.count.operand",
        "\"operand\" must be greater than one for multiplication '*'",
    ),
    (
        "operand-power",
        _set(COUNT, {"min": 2, "max": 4, "operator": "^", "operand": 1}),
        f"{R0}.count.operand",
        "\"operand\" must be greater than one for exponentiation '^'",
    ),
    (
        "min-power",
        _set(COUNT, {"min": 1, "max": 4, "operator": "^", "operand": 2}),
        f"{R0}.count.min",
        "\"min\" must be greater than one for exponentiation '^'",
    ),
    (
        "unit-map",
        _set(("resources", 0, "unit"), {}),
        f"{R0}.unit",
        'Value of "unit" must be a scalar',
    ),
    (
        "exclusive-list",
        _set(("resources", 0, "exclusive"), [True]),
        f"{R0}.exclusive",
        'Value of "exclusive" must be a scalar',
    ),
    (
        "exclusive-one",
        _set(("resources", 0, "exclusive"), 1),
        f"{R0}.exclusive",
        'Value of "exclusive" must be either "true" or "false"',
    ),
    (
        "exclusive-yes",
        _set(("resources", 0, "exclusive"), "yes"),
        f"{R0}.exclusive",
        'Value of "exclusive" must be either "true" or "false"',
    ),
    (
        "label-list",
        _set(("resources", 0, "label"), []),
        f"{R0}.label",
        'Value of "label" must be a scalar',
    ),
    ("id-map", _set(("resources", 0, "id"), {}), f"{R0}.id", 'Value of "id" must be a scalar'),
    ("unknown-key", _set(("resources", 0, "cout"), 1), R0, "Unrecognized key in resource mapping"),
    (
        "slot-unlabeled",
        _del(("resources", 0, "with", 0, "label")),
        f"{SLOT}.label",
        "All slots must be labeled",
    ),
    (
        "with-scalar",
        _set(("resources", 0, "with"), 5),
        f"{R0}.with",
        '"resources" is not a sequence',
    ),
    (
        "deep-count",
        _set((*CORE_P, "count"), {"min": 0}),
        f"{CORE}.count.min",
        '"min" must be greater than zero',
    ),
    ("tasks-map", _set(("tasks",), {}), "tasks", '"tasks" is not a sequence'),
    ("task-scalar", _set(TASK, "run"), "tasks[0]", "task is not a mapping"),
    (
        "task-no-command",
        _del((*TASK, "command")),
        "tasks[0].command",
        'Key "command" missing from task',
    ),
    (
        "task-command-scalar",
        _set((*TASK, "command"), "app"),
        "tasks[0].command",
        '"command" value must be a sequence',
    ),
    (
        "task-command-nested",
        _set((*TASK, "command"), [["a"]]),
        "tasks[0].command[0]",
        "bad conversion",
    ),
    ("task-no-slot", _del((*TASK, "slot")), "tasks[0].slot", 'Key "slot" missing from task'),
    (
        "task-slot-list",
        _set((*TASK, "slot"), ["default"]),
        "tasks[0].slot",
        'Value of task "slot" must be a YAML scalar',
    ),
    (
        "task-only-two",
        _del((*TASK, "count")),
        "tasks[0]",
        "impossible number of entries in task mapping",
    ),
    (
        "task-count-scalar",
        _set((*TASK, "count"), 1),
        "tasks[0].count",
        '"count" in task is not a mapping',
    ),
    (
        "task-count-two",
        _set((*TASK, "count"), {"a": 1, "b": 2}),
        "tasks[0].count",
        '"count" in task must have exactly one entry',
    ),
    (
        "task-count-value",
        _set((*TASK, "count"), {"per_slot": [1]}),
        "tasks[0].count.per_slot",
        "bad conversion",
    ),
    (
        "task-distribution",
        _set((*TASK, "distribution"), {}),
        "tasks[0].distribution",
        'Value of task "distribution" must be a YAML scalar',
    ),
    (
        "task-attributes",
        _set((*TASK, "attributes"), []),
        "tasks[0].attributes",
        '"attributes" in task is not a mapping',
    ),
    (
        "task-six",
        _set(
            TASK,
            {
                "command": ["a"],
                "slot": "s",
                "count": {"per_slot": 1},
                "distribution": "d",
                "attributes": {},
                "x": 1,
            },
        ),
        "tasks[0]",
        "impossible number of entries in task mapping",
    ),
    ("cons-scalar", _constraint(5), CONS, "constraint is not a mapping"),
    (
        "cons-two",
        _constraint({"properties": [], "ranks": []}),
        CONS,
        "constraint map may not contain > 1 operation",
    ),
    (
        "cons-not-array",
        _constraint({"properties": "amd"}),
        f"{CONS}.properties",
        "properties operator value must be an array",
    ),
    (
        "cons-unknown",
        _constraint({"color": []}),
        f"{CONS}.color",
        "unknown constraint operator: color",
    ),
    (
        "cons-unknown-scalar",
        _constraint({"color": 1}),
        f"{CONS}.color",
        "color operator value must be an array",
    ),
    (
        "prop-int",
        _constraint({"properties": [1]}),
        f"{CONS}.properties[0]",
        "non-string property specified",
    ),
    (
        "prop-bad-char",
        _constraint({"properties": ["a|b"]}),
        f"{CONS}.properties[0]",
        "a|b is invalid",
    ),
    (
        "prop-double-caret",
        _constraint({"properties": ["^^a"]}),
        f"{CONS}.properties[0]",
        "^^a is invalid",
    ),
    (
        "hostlist-bad",
        _constraint({"hostlist": ["foo[1-"]}),
        f"{CONS}.hostlist[0]",
        "Invalid hostlist `foo[1-'",
    ),
    ("hostlist-list", _constraint({"hostlist": [["a"]]}), f"{CONS}.hostlist[0]", "bad conversion"),
    ("ranks-bad", _constraint({"ranks": ["1-x"]}), f"{CONS}.ranks[0]", "Invalid idset `1-x'"),
    ("and-scalar", _constraint({"and": [5]}), f"{CONS}.and[0]", "constraint is not a mapping"),
    (
        "not-nested",
        _constraint({"not": [{"or": [{"ranks": ["-1"]}]}]}),
        f"{CONS}.not[0].or[0].ranks[0]",
        "Invalid idset `-1'",
    ),
]


@pytest.mark.parametrize(
    ("edit", "path", "reason"), [c[1:] for c in DATA_CASES], ids=[c[0] for c in DATA_CASES]
)
def test_load_rejects_invalid_data_with_path_and_reason(edit: Any, path: str, reason: str) -> None:
    doc = _mutated(edit)
    with pytest.raises(JobspecError) as info:
        load(doc)
    err = info.value
    assert (err.path, err.reason) == (path, reason)
    assert err.errno == EINVAL
    assert str(err).startswith(f"{path}: {reason}" if path else reason)


@pytest.mark.parametrize(
    ("edit", "path", "reason"), [c[1:] for c in DATA_CASES], ids=[c[0] for c in DATA_CASES]
)
def test_load_rejects_invalid_json_text_like_data(edit: Any, path: str, reason: str) -> None:
    doc = _mutated(edit)
    with pytest.raises(JobspecError) as info:
        load(json.dumps(doc, indent=1))
    err = info.value
    assert err.path == path
    if reason == "bad conversion":
        # From text, conversion errors carry yaml-cpp's position prefix.
        assert err.reason.startswith("yaml-cpp: error at line ")
        assert err.reason.endswith(": bad conversion")
    else:
        assert err.reason == reason


def _text(old: str, new: str) -> str:
    assert old in BASE_YAML
    return BASE_YAML.replace(old, new, 1)


# (id, YAML text, expected err.path, expected err.reason)
TEXT_CASES = [
    ("empty", "", "", "Top level of jobspec is not a mapping"),
    ("scalar", "hello\n", "", "Top level of jobspec is not a mapping"),
    ("sequence", "- 1\n- 2\n", "", "Top level of jobspec is not a mapping"),
    (
        "unclosed-flow",
        "version: 9999\nresources: [1, 2\n",
        "",
        "yaml-cpp: error at line 3, column 1: end of sequence flow not found",
    ),
    (
        "unclosed-map",
        "version: {a: 1\n",
        "",
        "yaml-cpp: error at line 2, column 1: end of map flow not found",
    ),
    (
        "negative-count",
        _text("count: 2", "count: -2"),
        CORE + ".count",
        "yaml-cpp: error at line 11, column 20: bad conversion",
    ),
    (
        "min-negative",
        _text("count: 2", "count: {min: -2}"),
        CORE + ".count.min",
        "yaml-cpp: error at line 11, column 26: bad conversion",
    ),
    (
        "plain-property",
        BASE_YAML + "    constraints: {properties: [amd]}\n",
        CONS + ".properties[0]",
        "non-string property specified",
    ),
    (
        "tagged-property",
        BASE_YAML + "    constraints: {properties: [!!str amd]}\n",
        CONS + ".properties[0]",
        "non-string property specified",
    ),
    (
        "exclusive-True",
        _text("count: 2", "count: 2\n            exclusive: True"),
        CORE + ".exclusive",
        'Value of "exclusive" must be either "true" or "false"',
    ),
    (
        "exclusive-yes",
        _text("count: 2", "count: 2\n            exclusive: yes"),
        CORE + ".exclusive",
        'Value of "exclusive" must be either "true" or "false"',
    ),
    (
        "exclusive-null",
        _text("count: 2", "count: 2\n            exclusive:"),
        CORE + ".exclusive",
        'Value of "exclusive" must be a scalar',
    ),
    (
        "count-1e3",
        _text("count: 2", "count: 1e3"),
        CORE + ".count",
        "yaml-cpp: error at line 11, column 20: bad conversion",
    ),
    (
        "count-underscore",
        _text("count: 2", "count: 1_000"),
        CORE + ".count",
        "yaml-cpp: error at line 11, column 20: bad conversion",
    ),
    ("duplicate-key", BASE_YAML + "version: 1\n", "version", "duplicate key in mapping"),
    (
        "undefined-alias",
        _text("count: 2", "count: *two"),
        "",
        "yaml-cpp: error at line 11, column 20: unknown anchor 'two'",
    ),
    ("complex-key", "? [a]\n: 1\n", "", "mapping keys must be scalars"),
]


@pytest.mark.parametrize(
    ("text", "path", "reason"), [c[1:] for c in TEXT_CASES], ids=[c[0] for c in TEXT_CASES]
)
def test_load_rejects_invalid_yaml_with_path_and_reason(text: str, path: str, reason: str) -> None:
    with pytest.raises(JobspecError) as info:
        load(text)
    assert (info.value.path, info.value.reason) == (path, reason)


def test_load_accepts_yaml_cpp_conversions() -> None:
    js = load(_text("count: 2", 'count: 0x10\n            exclusive: "true"'))
    core = js.resources[0].with_[0].with_[0]
    assert (core.count_min, core.exclusive) == (16, True)
    js = load(_text("count: 2", "count: 010"))
    assert js.resources[0].with_[0].with_[0].count_min == 8


def test_load_accepts_scalar_zero_count_and_quoted_properties() -> None:
    text = _text("count: 2", "count: 0") + "    constraints: {properties: ['amd', \"^slow\"]}\n"
    js = load(text)
    assert js.resources[0].with_[0].with_[0].count_min == 0
    assert js.constraint is not None
    assert js.constraint.to_dict() == {"properties": ["amd", "^slow"]}


def test_load_rejects_deep_nesting_without_recursion_error() -> None:
    depth = MAX_DEPTH  # resource levels; each uses two YAML levels
    resource: dict[str, Any] = {"type": "core", "count": 1}
    for _ in range(depth):
        resource = {"type": "node", "count": 1, "with": [resource]}
    doc = base_doc()
    doc["resources"] = [resource]
    # the YAML library may stop first with its own wording (PyYAML 6.0.4 has a depth limit);
    # what holds whatever its version: a JobspecError, never a RecursionError on the way
    for source in (doc, json.dumps(doc), "[" * 100_000 + "]" * 100_000):
        with pytest.raises(JobspecError) as info:
            load(source)
        chain, error = [], info.value
        while error is not None:
            chain.append(type(error))
            error = error.__cause__ or error.__context__
        assert RecursionError not in chain, chain
        assert str(info.value)


def test_load_rejects_alias_bomb() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 8):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    with pytest.raises(JobspecError, match="expands to more than"):
        load("\n".join(lines) + "\n")


@pytest.mark.parametrize(
    "source",
    [object(), 3, ["version", 1]],
    ids=["object", "int", "list"],
)
def test_load_rejects_unsupported_source_types(source: Any) -> None:
    with pytest.raises(JobspecError):
        load(source)


def test_load_rejects_non_json_values_in_data() -> None:
    doc = base_doc()
    doc["attributes"]["user"] = {"when": object()}
    with pytest.raises(JobspecError, match=r"attributes\.user\.when: unsupported value"):
        load(doc)
    doc = base_doc()
    doc["attributes"]["user"] = {1: "x"}
    with pytest.raises(JobspecError, match="is not a string"):
        load(doc)


def test_load_missing_file_reports_cant_open(tmp_path: Any) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(JobspecError) as info:
        load(missing)
    assert info.value.reason == f"can't open {missing}"
    assert info.value.errno == 2
