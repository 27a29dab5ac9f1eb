"""Validate jobspec data and report the first error the reference would report.

Validation has two parts. :func:`fluxgraph.jobspec.schema.schema_findings` checks everything the
JSON Schema can express; :func:`semantic_findings` adds what it cannot: ``max >= min``, quoted
property strings, hostlist and idset syntax. Both produce :class:`Finding` objects, and
:func:`validate` raises the *first* one in the order libjobspec checks a document
(matching-semantics §4.1), so the message is the one ``resource-query`` would print:

* top level: mapping, the four keys (``version``, ``resources``, ``tasks``, ``attributes``),
  exactly four entries, ``version``; then ``attributes`` (keys in document order), then
  ``resources`` (depth first, each resource: ``type``, ``count``, ``unit``, ``exclusive``,
  ``with`` -- recursively -- ``label``, ``id``, unknown keys), then ``tasks``;
* ``count``: presence and scalar checks, then conversions (``max``, ``operator``, ``operand``,
  ``min``), then ``min >= 1``, ``max >= min``, the operator rules.

The order is encoded as a table of *slots* per kind of mapping (:data:`_FIXED`); sequences order
by index and free-form mappings by document key order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from fluxgraph.jobspec._source import Path, Source, make_error, scalar_text
from fluxgraph.jobspec.constraints import parse_hostlist, parse_idset
from fluxgraph.jobspec.schema import Finding, schema_findings

__all__ = ["Finding", "semantic_findings", "sort_key", "validate"]

_UINT_MAX = 0xFFFFFFFF
_CONVERSION = "@conversion"

# Kinds of containers (what a path inside a jobspec points at).
_TOP, _ATTRS, _SYSTEM, _KEYED, _CONS, _SEQ, _CONSSEQ, _RSEQ, _RES, _COUNT = range(10)
_TSEQ, _TASK, _ANY = 10, 11, 12

_CHILD_KINDS: Mapping[int, Mapping[Any, int]] = MappingProxyType(
    {
        _TOP: {"attributes": _ATTRS, "resources": _RSEQ, "tasks": _TSEQ},
        _ATTRS: {"system": _SYSTEM},
        _SYSTEM: {"environment": _KEYED, "constraints": _CONS},
        _CONS: {"and": _CONSSEQ, "or": _CONSSEQ, "not": _CONSSEQ, "*": _SEQ},
        _CONSSEQ: {"*": _CONS},
        _RSEQ: {"*": _RES},
        _RES: {"count": _COUNT, "with": _RSEQ},
        _TSEQ: {"*": _TASK},
        _TASK: {"command": _SEQ, "count": _KEYED, "attributes": _KEYED},
    }
)

# Reference checking order of the slots of fixed-layout mappings ("*" = any key).
_FIXED: Mapping[int, tuple[tuple[Any, str], ...]] = MappingProxyType(
    {
        _TOP: (
            (None, "type"),
            ("version", "required"),
            ("resources", "required"),
            ("tasks", "required"),
            ("attributes", "required"),
            (None, "size"),
            ("version", "type"),
            ("version", "conv"),
            ("version", "range"),
            ("attributes", "child"),
            ("resources", "child"),
            ("tasks", "child"),
        ),
        _RES: (
            (None, "type"),
            ("type", "required"),
            ("type", "type"),
            ("count", "required"),
            ("count", "child"),
            ("count", "conv"),
            ("unit", "type"),
            ("exclusive", "type"),
            ("exclusive", "value"),
            ("with", "child"),
            ("label", "type"),
            ("label", "required"),
            ("id", "type"),
            (None, "additional"),
        ),
        _COUNT: (
            (None, "type"),
            ("min", "required"),
            ("min", "type"),
            (None, "allornone"),
            ("max", "type"),
            ("operator", "type"),
            ("operand", "type"),
            ("max", "conv"),
            ("operator", "conv"),
            ("operand", "conv"),
            ("min", "conv"),
            ("min", "value"),
            ("max", "value"),
            ("operator", "value"),
            ("operand", "rule"),
            ("min", "rule"),
        ),
        _TASK: (
            (None, "type"),
            ("command", "required"),
            ("command", "type"),
            ("command", "child"),
            ("slot", "required"),
            ("slot", "type"),
            ("count", "type"),
            ("count", "size"),
            ("count", "child"),
            ("distribution", "type"),
            ("attributes", "type"),
            ("attributes", "child"),
            (None, "size"),
        ),
        _CONS: (
            (None, "type"),
            (None, "size"),
            ("*", "array"),
            ("*", "child"),
            (None, "unknown"),
        ),
    }
)
_FIXED_INDEX: Mapping[int, Mapping[tuple[Any, str], int]] = MappingProxyType(
    {kind: {slot: i for i, slot in enumerate(slots)} for kind, slots in _FIXED.items()}
)
# Order of checks on one element of a sequence or one entry of a free-form mapping.
_CHECKS = ("type", "required", "conv", "nonstring", "invalid", "unknown", "value", "child")
_CHECK_INDEX: Mapping[str, int] = MappingProxyType({c: i for i, c in enumerate(_CHECKS)})


def _child_kind(kind: int, key: Any) -> int:
    table = _CHILD_KINDS.get(kind)
    if table is None:
        return _ANY
    k = table.get(key)
    if k is None:
        k = table.get("*", _ANY)
    return k


def _rank(kind: int, node: Any, field: Any, check: str) -> tuple[int, ...]:
    index = _FIXED_INDEX.get(kind)
    if index is not None:
        r = index.get((field, check))
        if r is None:
            r = index.get(("*", check), len(index))
        return (r,)
    c = _CHECK_INDEX.get(check, len(_CHECK_INDEX))
    if field is None:
        return (0, c)
    if isinstance(node, dict):
        keys = list(node)
        return (1, keys.index(field) if field in node else len(keys), c)
    return (1, field if isinstance(field, int) else 0, c)


def sort_key(data: Any, finding: Finding) -> tuple[tuple[int, ...], ...]:
    """Where ``finding`` comes in the reference's checking order (smaller = reported first)."""
    key = []
    kind, node = _TOP, data
    for p in finding.container:
        key.append(_rank(kind, node, p, "child"))
        kind = _child_kind(kind, p)
        node = node[p]
    key.append(_rank(kind, node, finding.field, finding.check))
    return tuple(key)


def _is_uint(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= _UINT_MAX


def semantic_findings(source: Source) -> Iterator[Finding]:
    """Checks the schema cannot express; tolerant of data the schema rejects.

    >>> from fluxgraph.jobspec._source import from_text
    >>> doc = "attributes: {system: {constraints: {properties: [gpu]}}}"
    >>> [f.reason for f in semantic_findings(from_text(doc))]
    ['non-string property specified']
    """
    data = source.data
    if not isinstance(data, dict):
        return
    todo: list[tuple[Any, Path]] = []
    resources = data.get("resources")
    if isinstance(resources, list):
        todo.append((resources, ("resources",)))
    while todo:
        seq, path = todo.pop()
        for i, r in enumerate(seq):
            if not isinstance(r, dict):
                continue
            count = r.get("count")
            if isinstance(count, dict):
                lo, hi = count.get("min"), count.get("max")
                if _is_uint(lo) and _is_uint(hi) and hi < lo:
                    where = (*path, i, "count")
                    reason = '"max" must be greater than or equal to "min"'
                    yield Finding(where, "max", "value", reason, "", hi, (*where, "max"))
            children = r.get("with")
            if isinstance(children, list):
                todo.append((children, (*path, i, "with")))
    attributes = data.get("attributes")
    system = attributes.get("system") if isinstance(attributes, dict) else None
    if isinstance(system, dict) and isinstance(system.get("constraints"), dict):
        yield from _constraint_findings(source, system["constraints"])


def _constraint_findings(source: Source, root: dict[str, Any]) -> Iterator[Finding]:
    todo: list[tuple[dict[str, Any], Path]] = [(root, ("attributes", "system", "constraints"))]
    unquoted = source.unquoted
    while todo:
        node, path = todo.pop()
        for op, operands in node.items():
            if not isinstance(operands, list):
                continue
            seq = (*path, op)
            for i, v in enumerate(operands):
                where = (*seq, i)
                if op == "properties":
                    if isinstance(v, str) and where in unquoted:
                        reason = "non-string property specified"
                        yield Finding(seq, i, "nonstring", reason, "quote it", v, where)
                elif op in ("hostlist", "ranks"):
                    if v is None or isinstance(v, dict | list):
                        continue
                    text = scalar_text(v)
                    try:
                        (parse_hostlist if op == "hostlist" else parse_idset)(text)
                    except ValueError as exc:
                        kind = "hostlist" if op == "hostlist" else "idset"
                        reason = f"Invalid {kind} `{text}'"
                        yield Finding(seq, i, "invalid", reason, str(exc), v, where)
                elif op in ("and", "or", "not") and isinstance(v, dict):
                    todo.append((v, where))


def validate(source: Source) -> None:
    """Raise the reference's first error for ``source``, or return if it is a valid jobspec.

    Raises
    ------
    JobspecError
        ``str(err)`` is ``"<path>: <reason> (<detail>)"``; ``err.reason`` is the reference's
        text alone and ``err.path`` the rendered path.

    Examples
    --------
    >>> from fluxgraph.errors import JobspecError
    >>> from fluxgraph.jobspec._source import from_text
    >>> doc = '''
    ... version: 9999
    ... resources: [{type: node, count: {min: 4, max: 2, operator: "+", operand: 1}}]
    ... tasks: [{command: [app], slot: s, count: {per_slot: 1}}]
    ... attributes: {}
    ... '''
    >>> try:
    ...     validate(from_text(doc))
    ... except JobspecError as err:
    ...     print(err.path, "|", err.reason)
    resources[0].count.max | "max" must be greater than or equal to "min"
    """
    data = source.data
    findings = list(schema_findings(data))
    findings.extend(semantic_findings(source))
    if not findings:
        return
    first = min(findings, key=lambda f: sort_key(data, f))
    reason = first.reason
    detail = first.detail
    if reason == _CONVERSION:
        mark = source.mark(first.where)
        reason = "bad conversion"
        if mark is not None:
            reason = f"yaml-cpp: error at line {mark[0] + 1}, column {mark[1] + 1}: {reason}"
        detail = f"{detail}, got {first.value!r}" if detail else f"got {first.value!r}"
    raise make_error(first.where, reason, detail)
