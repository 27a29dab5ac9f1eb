"""Hostile jobspec input ends in a JobspecError, quickly, never in another exception.

Inline versions of the fuzz campaign's reproducers (``../shared/conformance/fuzz-findings``
01-05) plus neighbours of each.
"""

from __future__ import annotations

import time

import pytest

import fluxgraph
from fluxgraph.errors import JobspecError
from fluxgraph.jobspec import dump, load
from fluxgraph.jobspec._source import MAX_DEPTH, MAX_NODES, MAX_NUMBER, from_text

VALID = """\
version: 9999
resources:
  - type: node
    count: {count}
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: core
            count: 1
tasks:
  - command: [app]
    slot: default
    count:
      per_slot: 1
attributes:
  system:
    duration: {duration}
"""


def _reason(text) -> str:
    with pytest.raises(JobspecError) as info:
        load(text)
    return info.value.reason


@pytest.mark.parametrize("digits", [310, 4301, 100_000])
def test_huge_integer_literals_are_bad_conversions(digits):
    big = "1" * digits
    assert _reason(f"version: {big}\n") == 'Missing key "resource" in top level mapping'
    reason = _reason(VALID.format(count=big, duration=1))
    assert reason.endswith("bad conversion")
    reason = _reason(VALID.format(count=1, duration=big))
    assert reason.endswith("bad conversion")
    reason = _reason(VALID.format(count=1, duration="-" + big))
    assert reason.endswith("bad conversion")
    hexa = "0x" + "f" * digits
    assert _reason(VALID.format(count=hexa, duration=1)).endswith("bad conversion")


def test_integers_up_to_the_largest_double_stay_numbers():
    js = load(VALID.format(count=1, duration=10**300))
    assert js.duration == 1e300
    assert from_text(str(MAX_NUMBER)).data == MAX_NUMBER
    assert from_text(str(MAX_NUMBER + 1)).data == str(MAX_NUMBER + 1)
    assert from_text("0x" + "f" * 255).data == int("f" * 255, 16)


def test_huge_integers_in_constraints_and_user_attributes():
    big = "9" * 5000
    text = VALID.format(count=1, duration=1) + f"    constraints: {{ranks: [{big}]}}\n"
    assert _reason(text).startswith("Invalid idset")
    text = VALID.format(count=1, duration=1).replace(
        "attributes:\n", f"attributes:\n  user: {big}\n"
    )
    assert load(text).attributes.user == big  # text, as yaml-cpp keeps it


def test_huge_python_integers_are_refused():
    data = {"version": 10**400, "resources": [], "tasks": [], "attributes": {}}
    with pytest.raises(JobspecError, match="out of range"):
        load(data)


def test_deeply_nested_json_that_is_not_yaml():
    text = "\t" + "[" * 2000 + "]" * 2000
    assert _reason(text).startswith("yaml-cpp: error at line 1, column 1")
    text = '\t{"a": "[[[[", "b": ' + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "}"
    assert _reason(text).startswith("yaml-cpp")


def test_json_fallback_still_reads_shallow_json():
    text = '\t{"version": 1, "resources": [{"type": "core", "count": 1}], "tasks": [], '
    text += '"attributes": {}}'
    assert load(text).resources[0].type == "core"


@pytest.mark.parametrize("text", ["version: 1\nx: \udcff\n", "a: \ud800\n", "a: [\udfff]\n"])
def test_lone_surrogates_are_jobspec_errors(text):
    with pytest.raises(JobspecError, match="invalid character"):
        fluxgraph.load_jobspec(text)


def test_lone_surrogates_in_python_data_are_jobspec_errors():
    with pytest.raises(JobspecError, match="invalid character"):
        load(
            {
                "version": 1,
                "resources": [{"type": "c\udcff", "count": 1}],
                "tasks": [],
                "attributes": {},
            }
        )
    with pytest.raises(JobspecError, match="invalid character"):
        load({"version": 1, "resources": [], "tasks": [], "attributes": {"\udcff": 1}})


def test_dump_keeps_unknown_task_keys():
    js = load(
        "version: 9999\n"
        "resources: [{type: slot, count: 1, label: default, with: [{type: core, count: 1}]}]\n"
        "tasks: [{command: [app], slot: default, bogus: 1}]\n"
        "attributes: {}\n"
    )
    assert dict(js.tasks[0].extra) == {"bogus": 1}
    again = load(dump(js))
    assert again == js
    assert again.tasks[0].to_dict() == {"command": ["app"], "slot": "default", "bogus": 1}


def test_dump_keeps_nested_unknown_task_values():
    js = load(
        "version: 1\nresources: [{type: core, count: 1}]\n"
        "tasks: [{command: [app], slot: s, x: {y: [1, {z: 2}]}}]\nattributes: {}\n"
    )
    assert load(dump(js)) == js


def _alias_tree(levels: int) -> str:
    lines = [
        "version: 9999",
        "resources:",
        "- type: slot",
        "  count: 1",
        "  label: default",
        "  with:",
        "  - &a0 {type: core, count: 1}",
    ]
    for i in range(1, levels):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        lines.append(f"  - &a{i} {{type: socket, count: 1, with: [{refs}]}}")
    lines += [
        "tasks:",
        "- command: [app]",
        "  slot: default",
        "  count: {per_slot: 1}",
        "attributes: {system: {duration: 3600}}",
    ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("levels", [4, 6, 9])
def test_alias_expansion_is_bounded_in_size_and_time(levels):
    start = time.process_time()
    text = _alias_tree(levels)
    if 10 ** (levels - 1) * 3 > MAX_NODES:
        assert "more than" in _reason(text)
    else:
        load(text)
    assert time.process_time() - start < 3


def test_a_jobspec_at_the_node_limit_loads_quickly():
    n = MAX_NODES // 4 - 20
    cores = ", ".join(["{type: core, count: 1}"] * n)
    text = (
        VALID.format(count=1, duration=1)
        .replace("          - type: core\n            count: 1\n", f"          [{cores}]\n")
        .replace("        with:\n          [", "        with: [")
    )
    start = time.process_time()
    assert len(load(text).resources[0].with_[0].with_) == n
    assert time.process_time() - start < 5


def test_jobspec_files_are_read_with_a_size_limit(tmp_path):
    from fluxgraph.limits import MAX_JOBSPEC_BYTES

    big = tmp_path / "big.yaml"
    big.write_text("#" * (MAX_JOBSPEC_BYTES + 1))
    with pytest.raises(JobspecError) as info:
        load(big)
    assert "File too large" in info.value.reason
    with pytest.raises(JobspecError) as info:
        load("/dev/zero")
    assert "File too large" in info.value.reason
