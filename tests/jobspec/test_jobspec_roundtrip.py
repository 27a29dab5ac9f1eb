"""Hypothesis: valid jobspecs round-trip model -> YAML -> model; arbitrary input never escapes
as anything but JobspecError."""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fluxgraph.errors import JobspecError
from fluxgraph.jobspec import Jobspec, dump, load
from fluxgraph.jobspec._source import from_data
from fluxgraph.jobspec.schema import schema_findings
from fluxgraph.jobspec.validate import semantic_findings

EXAMPLES = int(os.environ.get("FLUXGRAPH_ORACLE_EXAMPLES", "150"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=8)
_SCALAR = st.one_of(_TEXT, st.integers(-(10**6), 10**6), st.booleans())
_JSON = st.recursive(
    st.one_of(st.none(), _SCALAR, st.floats(allow_nan=False)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_TEXT, inner, max_size=3)),
    max_leaves=12,
)
_TYPES = st.one_of(st.sampled_from(["node", "socket", "core", "gpu", "memory", "ssd"]), _TEXT)


@st.composite
def _count(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["scalar", "min", "+", "*", "^"]))
    if kind == "scalar":
        return draw(st.integers(0, 2**32 - 1))
    if kind == "min":
        return {"min": draw(st.integers(1, 2**32 - 1))}
    low = 2 if kind == "^" else 1
    cmin = draw(st.integers(low, 1000))
    operand = draw(st.integers(1, 9) if kind == "+" else st.integers(2, 9))
    return {
        "min": cmin,
        "max": draw(st.integers(cmin, 2**32 - 1)),
        "operator": kind,
        "operand": operand,
    }


@st.composite
def _resource(draw: st.DrawFn, depth: int) -> dict[str, Any]:
    rtype = draw(st.one_of(st.just("slot"), _TYPES))
    r: dict[str, Any] = {"type": rtype, "count": draw(_count())}
    if draw(st.booleans()):
        r["unit"] = draw(_TEXT)
    if draw(st.booleans()):
        r["exclusive"] = draw(st.sampled_from([True, False, "true", "false"]))
    if rtype == "slot" or draw(st.booleans()):
        r["label"] = draw(_TEXT)
    if draw(st.booleans()):
        r["id"] = draw(_TEXT)
    if depth > 0 and draw(st.booleans()):
        r["with"] = draw(st.lists(_resource(depth - 1), max_size=3))
    return r


_PROPERTY = st.text(alphabet="abcxyz-_.:=0123456789", max_size=6).map(lambda s: s) | st.text(
    alphabet="abc", min_size=1, max_size=4
).map(lambda s: "^" + s)
_HOSTLIST = st.sampled_from(["", "node0", "node[0-3]", "n[01-10,12]-ib", "a,b,c[1-2]"])
_IDSET = st.sampled_from(["", "0", "1-3", "[0-2,7]", "5-3"])


def _constraint(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    leaves = st.one_of(
        st.just({}),
        st.lists(_PROPERTY, max_size=3).map(lambda v: {"properties": v}),
        st.lists(_HOSTLIST, max_size=2).map(lambda v: {"hostlist": v}),
        st.lists(_IDSET, max_size=2).map(lambda v: {"ranks": v}),
    )
    if depth == 0:
        return leaves
    combined = st.tuples(
        st.sampled_from(["and", "or", "not"]), st.lists(_constraint(depth - 1), max_size=3)
    ).map(lambda t: {t[0]: t[1]})
    return st.one_of(leaves, combined)


@st.composite
def _task(draw: st.DrawFn) -> dict[str, Any]:
    t: dict[str, Any] = {"command": draw(st.lists(_SCALAR, max_size=3)), "slot": draw(_TEXT)}
    extras = draw(st.sets(st.sampled_from(["count", "distribution", "attributes"]), min_size=1))
    if "count" in extras:
        t["count"] = {draw(_TEXT): draw(_SCALAR)}
    if "distribution" in extras:
        t["distribution"] = draw(_TEXT)
    if "attributes" in extras:
        t["attributes"] = draw(st.dictionaries(_TEXT, _SCALAR, max_size=2))
    return t


@st.composite
def jobspecs(draw: st.DrawFn) -> dict[str, Any]:
    """Valid jobspec documents."""
    attributes: Any = None
    if draw(st.booleans()):
        system: dict[str, Any] = {}
        if draw(st.booleans()):
            system["duration"] = draw(st.floats(allow_nan=False) | st.integers(0, 10**9))
        if draw(st.booleans()):
            system["queue"] = draw(_TEXT)
        if draw(st.booleans()):
            system["environment"] = draw(st.dictionaries(_TEXT, _SCALAR, max_size=2))
        if draw(st.booleans()):
            system["constraints"] = draw(_constraint(2))
        if draw(st.booleans()):
            system["bank"] = draw(_JSON)
        attributes = {"system": system}
        if draw(st.booleans()):
            attributes["user"] = draw(_JSON)
    return {
        "version": draw(st.integers(1, 9999)),
        "resources": draw(st.lists(_resource(3), max_size=3)),
        "tasks": draw(st.lists(_task(), max_size=2)),
        "attributes": attributes,
    }


@SETTINGS
@given(jobspecs())
def test_roundtrip_model_yaml_model(doc: dict[str, Any]) -> None:
    js = load(doc)
    assert isinstance(js, Jobspec)
    again = load(dump(js))
    assert again == js
    assert load(js.to_dict()) == js
    try:
        text = json.dumps(doc, allow_nan=False)
    except ValueError:  # infinite durations have no JSON spelling
        return
    assert load(text) == js


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_paths(v, (*prefix, i)))
    return out


def _replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return doc


@SETTINGS
@given(jobspecs(), st.data())
def test_roundtrip_mutations_fail_only_with_jobspec_error(doc: dict[str, Any], data: Any) -> None:
    path = data.draw(st.sampled_from(_paths(doc)))
    mutated = _replace(doc, path, data.draw(_JSON))
    findings = list(schema_findings(from_data(mutated).data))
    assert all(f.check != "schema" for f in findings)  # every schema error is translated
    list(semantic_findings(from_data(mutated)))
    try:
        load(mutated)
    except JobspecError as err:
        assert err.reason and str(err)


@SETTINGS
@given(st.text(max_size=200))
def test_roundtrip_arbitrary_text_fails_only_with_jobspec_error(text: str) -> None:
    try:
        load(text + "\n")
    except JobspecError as err:
        assert err.reason
