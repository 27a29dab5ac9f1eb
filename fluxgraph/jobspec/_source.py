"""Turn jobspec input (YAML/JSON text or Python data) into plain data plus source facts.

The YAML side is an event-driven composer (``yaml.parse`` with the safe C loader when available):
it never recurses, so deeply nested input fails with a :class:`JobspecError` instead of a
``RecursionError``, and it records what the reference's checks need but ``yaml.safe_load`` throws
away:

* ``marks``: the 0-based ``(line, column)`` of every node, so conversion errors can be reported in
  yaml-cpp's ``error at line L, column C`` form;
* ``unquoted``: the paths of string scalars that yaml-cpp would not tag ``!`` (plain scalars and
  explicitly tagged ones) -- property constraints must be *quoted* strings (spec §4.3).

Plain scalars are resolved like yaml-cpp converts them (YAML 1.2 core names for null; ``true`` and
``false`` only, the spellings libjobspec's ``exclusive`` check accepts; integers in decimal, ``0x``
hex or leading-``0`` octal), not with PyYAML's YAML 1.1 rules (so ``yes`` and ``True`` stay strings
and ``1_000`` is not a number).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from errno import EINVAL
from typing import Any

import yaml

from fluxgraph.errors import JobspecError

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_NUMBER",
    "Path",
    "Source",
    "format_path",
    "from_data",
    "from_text",
    "make_error",
    "scalar_text",
]

#: Deepest nesting of mappings/sequences accepted (a resource level uses two).
MAX_DEPTH = 64
#: Most nodes (scalars, mappings, sequences) a document may expand to, alias expansions
#: included. Every later step (schema validation costs up to ~0.1 ms a node) is linear in it, so
#: it bounds the work of one jobspec to about a second; real jobspecs use a few hundred nodes.
MAX_NODES = 10_000
#: Largest magnitude a plain integer scalar may have and still be a number: beyond the largest
#: double, no yaml-cpp conversion (integer or floating) accepts the text, so it stays text.
MAX_NUMBER = int(sys.float_info.max)
_MAX_NUMBER_BITS = MAX_NUMBER.bit_length()
_MAX_DECIMAL_DIGITS = len(str(MAX_NUMBER))

Path = tuple[str | int, ...]

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_QUOTED_STYLES = frozenset({'"', "'", "|", ">"})
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
# Only the spellings libjobspec's ``exclusive`` check accepts (it compares the text).
_BOOLS = {"true": True, "false": False}
_DEC = re.compile(r"[-+]?[0-9]+")
_OCT = re.compile(r"[-+]?0[0-7]+")
_HEX = re.compile(r"[-+]?0[xX][0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_STR_TAG = "tag:yaml.org,2002:str"


@dataclass(frozen=True, slots=True)
class Source:
    """Plain data of one jobspec document and what is known about where it came from."""

    data: Any
    marks: Mapping[Path, tuple[int, int]]
    unquoted: frozenset[Path]

    def mark(self, path: Path) -> tuple[int, int] | None:
        """The position of ``path`` (or of its nearest recorded ancestor), if known."""
        marks = self.marks
        for n in range(len(path), -1, -1):
            m = marks.get(path[:n])
            if m is not None:
                return m
        return None


def format_path(path: Path) -> str:
    """Render ``path`` as ``resources[0].with[1].count``.

    >>> format_path(("resources", 0, "with", 1, "count", "min"))
    'resources[0].with[1].count.min'
    >>> format_path(("attributes", "user", "a.b"))
    'attributes.user["a.b"]'
    """
    out: list[str] = []
    for p in path:
        if isinstance(p, int):
            out.append(f"[{p}]")
        elif _IDENT.fullmatch(p):
            out.append(f".{p}" if out else p)
        else:
            out.append(f"[{json.dumps(p)}]")
    return "".join(out)


def make_error(path: Path, reason: str, detail: str = "") -> JobspecError:
    """A :class:`JobspecError` (errno EINVAL) whose message names ``path``.

    The error carries ``path`` (rendered, ``""`` for the document itself) and ``reason`` (the
    reference's text, which ``resource-query`` prints after ``Jobspec error for <id>:``).

    >>> err = make_error(("resources", 0, "count"), "count is not a mapping")
    >>> str(err), err.reason, err.errno
    ('resources[0].count: count is not a mapping', 'count is not a mapping', 22)
    """
    where = format_path(path)
    text = f"{where}: {reason}" if where else reason
    if detail:
        text = f"{text} ({detail})"
    err = JobspecError(text, errno=EINVAL)
    err.path = where
    err.reason = reason
    return err


def scalar_text(value: Any) -> str:
    """The text yaml-cpp's ``as<string>`` gives for a resolved scalar.

    >>> scalar_text(True), scalar_text(16), scalar_text(0.5), scalar_text(float("inf"))
    ('true', '16', '0.5', '.inf')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
    return repr(value)


def _bounded_int(text: str, base: int, skip: int) -> Any:
    """``int(text, base)``, or ``text`` itself when its magnitude exceeds :data:`MAX_NUMBER`.

    ``skip`` is the length of the prefix (sign, ``0x``/``0``) before the digits. The digit count
    is checked before converting, so a huge literal costs no big-number arithmetic (and never
    meets Python's limit on decimal conversions).
    """
    digits = text[skip:].lstrip("0")
    if base == 10:
        too_long = len(digits) > _MAX_DECIMAL_DIGITS
    else:
        too_long = len(digits) * (4 if base == 16 else 3) > _MAX_NUMBER_BITS + 4
    if too_long:
        return text
    value = int(text, base)
    return text if abs(value) > MAX_NUMBER else value


def _resolve_plain(text: str) -> Any:
    """Resolve an untagged plain scalar the way yaml-cpp's conversions read it.

    An integer literal beyond :data:`MAX_NUMBER` stays a string: it converts to no number.
    """
    if text in _NULLS:
        return None
    b = _BOOLS.get(text)
    if b is not None:
        return b
    sign = 1 if text[:1] in ("+", "-") else 0
    if _HEX.fullmatch(text):
        return _bounded_int(text, 16, sign + 2)
    if _OCT.fullmatch(text):
        return _bounded_int(text, 8, sign + 1)
    if _DEC.fullmatch(text):
        return _bounded_int(text, 10, sign)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INF.fullmatch(text):
        return -math.inf if text[0] == "-" else math.inf
    if _NAN.fullmatch(text):
        return math.nan
    return text


def _scalar(ev: Any) -> tuple[Any, bool]:
    """Value of a scalar event and whether yaml-cpp would tag it ``!`` (quoted)."""
    tag = ev.tag
    if tag is None:
        if ev.style in _QUOTED_STYLES:
            return ev.value, True
        return _resolve_plain(ev.value), False
    if tag == "!":
        return ev.value, True
    if tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool"):
        value = _resolve_plain(ev.value)
        return (value if not isinstance(value, str) else ev.value), False
    if tag == "tag:yaml.org,2002:null":
        return None, False
    return ev.value, False


class _Frame:
    __slots__ = ("anchor", "container", "key", "nodes", "path")

    def __init__(self, container: Any, path: Path, anchor: str | None) -> None:
        self.container = container
        self.path = path
        self.anchor = anchor
        self.key: str | None = None
        self.nodes = 1


def _yaml_error(exc: yaml.YAMLError) -> JobspecError:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None) or ""
    if "flow sequence" in context:
        problem = "end of sequence flow not found"
    elif "flow mapping" in context:
        problem = "end of map flow not found"
    if mark is None:
        return make_error((), f"yaml-cpp: {problem}")
    return make_error(
        (), f"yaml-cpp: error at line {mark.line + 1}, column {mark.column + 1}: {problem}"
    )


def from_text(text: str) -> Source:
    """Compose the first YAML document of ``text`` (JSON is YAML too).

    Raises
    ------
    JobspecError
        For malformed YAML (yaml-cpp's message format), nesting deeper than :data:`MAX_DEPTH`,
        more than :data:`MAX_NODES` nodes, undefined or recursive aliases, non-scalar or
        duplicate mapping keys.

    Examples
    --------
    >>> s = from_text('a: [1, "x", y]')
    >>> s.data, sorted(s.unquoted), s.marks[("a", 2)]
    ({'a': [1, 'x', 'y']}, [('a', 2)], (0, 12))
    """
    _check_text(text, ())
    try:
        return _compose(text)
    except yaml.YAMLError as exc:
        if _json_depth(text) > MAX_DEPTH:  # json.loads recurses: check before calling it
            raise _yaml_error(exc) from None
        try:
            data = json.loads(text, parse_int=_json_int)
        except (ValueError, RecursionError):
            raise _yaml_error(exc) from None
        return from_data(data)


def _check_text(text: str, path: Path) -> None:
    """Reject a string holding a lone surrogate (no UTF-8 text decodes to one)."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise make_error(
                path, f"invalid character {text[exc.start]!r} at offset {exc.start}"
            ) from None


def _json_int(text: str) -> Any:
    """A JSON integer, bounded as plain YAML integers are (beyond :data:`MAX_NUMBER`: text)."""
    return _bounded_int(text, 10, 1 if text[:1] == "-" else 0)


def _json_depth(text: str) -> int:
    """The deepest bracket nesting of JSON ``text`` (brackets inside strings not counted)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    break
        elif ch in "]}":
            depth -= 1
    return deepest


def _compose(text: str) -> Source:
    marks: dict[Path, tuple[int, int]] = {}
    unquoted: set[Path] = set()
    anchors: dict[str, tuple[Any, int, bool | None]] = {}  # value, nodes, quoted (scalars)
    stack: list[_Frame] = []
    root: Any = None
    total = 0
    started = False

    def attach(value: Any, ev: Any, nodes: int, quoted: bool | None) -> Path:
        nonlocal root, total
        total += nodes
        if total > MAX_NODES:
            raise make_error((), f"document expands to more than {MAX_NODES} nodes")
        if not stack:
            path: Path = ()
            root = value
        else:
            top = stack[-1]
            top.nodes += nodes
            if isinstance(top.container, list):
                path = (*top.path, len(top.container))
                top.container.append(value)
            else:
                path = (*top.path, top.key)  # type: ignore[arg-type]
                top.container[top.key] = value
                top.key = None
        marks[path] = (ev.start_mark.line, ev.start_mark.column)
        if quoted is False and isinstance(value, str):
            unquoted.add(path)
        return path

    def key_expected() -> bool:
        return bool(stack) and isinstance(stack[-1].container, dict) and stack[-1].key is None

    def set_key(key: str) -> None:
        top = stack[-1]
        if key in top.container:
            raise make_error((*top.path, key), "duplicate key in mapping")
        top.key = key

    for ev in yaml.parse(text, Loader=_LOADER):
        if isinstance(ev, yaml.DocumentStartEvent):
            started = True
        elif isinstance(ev, yaml.DocumentEndEvent):
            break
        elif isinstance(ev, yaml.ScalarEvent):
            value, quoted = _scalar(ev)
            if ev.anchor:
                anchors[ev.anchor] = (value, 1, quoted)
            if key_expected():
                set_key(ev.value)
                continue
            attach(value, ev, 1, quoted)
        elif isinstance(ev, yaml.AliasEvent):
            if ev.anchor not in anchors:
                raise _yaml_alias_error(ev)
            value, nodes, quoted = anchors[ev.anchor]
            if key_expected():
                if not isinstance(value, str | int | float | bool) and value is not None:
                    raise make_error(stack[-1].path, "mapping keys must be scalars")
                set_key(scalar_text(value))
                continue
            attach(value, ev, nodes, quoted)
        elif isinstance(ev, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            if key_expected():
                raise make_error(stack[-1].path, "mapping keys must be scalars")
            container: Any = {} if isinstance(ev, yaml.MappingStartEvent) else []
            path = attach(container, ev, 0, None)
            if len(stack) >= MAX_DEPTH:
                raise make_error(path[:-1], f"nesting deeper than {MAX_DEPTH} levels")
            stack.append(_Frame(container, path, ev.anchor))
        elif isinstance(ev, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            frame = stack.pop()
            total += 1
            if stack:
                stack[-1].nodes += frame.nodes
            if frame.anchor:
                anchors[frame.anchor] = (frame.container, frame.nodes, None)
    if not started:
        return Source(None, {}, frozenset())
    return Source(root, marks, frozenset(unquoted))


def _yaml_alias_error(ev: Any) -> JobspecError:
    m = ev.start_mark
    return make_error(
        (),
        f"yaml-cpp: error at line {m.line + 1}, column {m.column + 1}: "
        f"unknown anchor '{ev.anchor}'",
        "undefined or recursive alias",
    )


def from_data(data: Any) -> Source:
    """Check that ``data`` is JSON-like and copy it into plain dicts and lists.

    Strings in Python data count as quoted. Tuples become lists.

    Raises
    ------
    JobspecError
        For non-string mapping keys, values that are not JSON-like, or nesting deeper than
        :data:`MAX_DEPTH`.

    Examples
    --------
    >>> from_data({"a": (1, {"b": None})}).data
    {'a': [1, {'b': None}]}
    """
    root_holder: list[Any] = [None]
    # (source, destination container, key in destination, path, depth)
    todo: list[tuple[Any, Any, Any, Path, int]] = [(data, root_holder, 0, (), 0)]
    nodes = 0
    while todo:
        value, dest, key, path, depth = todo.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise make_error((), f"document expands to more than {MAX_NODES} nodes")
        if isinstance(value, Mapping):
            if depth >= MAX_DEPTH:
                raise make_error(path[:-1], f"nesting deeper than {MAX_DEPTH} levels")
            out: Any = {}
            for k, v in value.items():
                if not isinstance(k, str):
                    raise make_error(path, f"mapping key {k!r} is not a string")
                _check_text(k, path)
                out[k] = None
                todo.append((v, out, k, (*path, k), depth + 1))
        elif isinstance(value, list | tuple):
            if depth >= MAX_DEPTH:
                raise make_error(path[:-1], f"nesting deeper than {MAX_DEPTH} levels")
            out = [None] * len(value)
            for i, v in enumerate(value):
                todo.append((v, out, i, (*path, i), depth + 1))
        elif isinstance(value, int) and not isinstance(value, bool):
            if abs(value) > MAX_NUMBER:
                raise make_error(path, "integer out of range (beyond the largest double)")
            out = value
        elif isinstance(value, str):
            _check_text(value, path)
            out = value
        elif value is None or isinstance(value, bool | float):
            out = value
        else:
            raise make_error(path, f"unsupported value of type {type(value).__name__}")
        dest[key] = out
    return Source(root_holder[0], {}, frozenset())
