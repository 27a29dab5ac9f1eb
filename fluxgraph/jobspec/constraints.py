"""Jobspec constraints (``attributes.system.constraints``, matching-semantics §4.3).

A constraint is a small immutable tree. Leaves test one vertex fact -- property keys
(:class:`PropertyConstraint`), the vertex name against a hostlist (:class:`HostlistConstraint`)
or its rank against an idset (:class:`RankConstraint`) -- and :class:`AndConstraint`,
:class:`OrConstraint` and :class:`NotConstraint` combine them. An empty mapping gives
:class:`MatchAll`. Every node answers :meth:`Constraint.matches` for any object that satisfies
the :class:`VertexView` protocol, so the traverser can pass its own vertex objects.

The reference evaluates constraints only on ``node`` and ``storage_node`` vertices (§6.8) and in
the node-count pre-check (§6.5); that choice belongs to the traverser.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from fluxgraph.jobspec._source import scalar_text

__all__ = [
    "MAX_HOSTS_PER_RANGE",
    "AndConstraint",
    "Constraint",
    "HostlistConstraint",
    "MatchAll",
    "NotConstraint",
    "OrConstraint",
    "PropertyConstraint",
    "RankConstraint",
    "VertexView",
    "build_constraint",
    "parse_hostlist",
    "parse_idset",
]

#: Largest host range one bracket term may expand to (flux-core fails larger ones with ERANGE).
MAX_HOSTS_PER_RANGE = 1 << 20

_UINT_MAX = 0xFFFFFFFF
_RANGE = re.compile(r"([0-9]+)(?:-([0-9]+))?")
_BRACKET_TERM = re.compile(r"([^\[\]]*)\[([^\[\]]*)\]([^\[\]]*)")
_ID_TOKEN = re.compile(r"\s*\+?([0-9]+)(?:-\s*\+?([0-9]+))?")
_SEPARATORS = frozenset(", \t\n")


@runtime_checkable
class VertexView(Protocol):
    """What a constraint reads from a resource vertex.

    Any object with these three attributes works (the graph store's ``VertexView`` does).

    Attributes
    ----------
    properties : mapping of property key to value; only the keys are tested.
    name : the vertex name (``node3``), tested against hostlists.
    rank : the vertex's broker rank (``-1`` when unknown), tested against idsets.
    """

    @property
    def properties(self) -> Mapping[str, str]: ...

    @property
    def name(self) -> str: ...

    @property
    def rank(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Constraint:
    """Base of every constraint node."""

    def matches(self, vertex: VertexView) -> bool:
        """Whether ``vertex`` satisfies this constraint."""
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        """The jobspec form (``{"and": [...]}``, ``{"properties": [...]}``, ...)."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class MatchAll(Constraint):
    """The empty constraint mapping ``{}``: every vertex matches.

    >>> MatchAll().matches(None), MatchAll().to_dict()
    (True, {})
    """

    def matches(self, vertex: VertexView) -> bool:
        """Always true."""
        return True

    def to_dict(self) -> dict[str, Any]:
        """``{}``."""
        return {}


@dataclass(frozen=True, slots=True)
class PropertyConstraint(Constraint):
    """``properties: [...]``: the vertex must have every listed property key.

    A value starting with ``^`` requires the key to be absent. Property values are ignored.

    >>> from types import SimpleNamespace as V
    >>> c = PropertyConstraint(("amd", "^slow"))
    >>> c.matches(V(properties={"amd": "1"})), c.matches(V(properties={"amd": "", "slow": ""}))
    (True, False)
    """

    values: tuple[str, ...]
    _tests: tuple[tuple[str, bool], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        tests = tuple((v[1:], True) if v[:1] == "^" else (v, False) for v in self.values)
        object.__setattr__(self, "_tests", tests)

    def matches(self, vertex: VertexView) -> bool:
        """Every key present (or, with ``^``, absent) in ``vertex.properties``."""
        props = vertex.properties
        for key, negate in self._tests:  # noqa: SIM110 (plain loops: no generator in the hot path)
            if (key in props) == negate:
                return False
        return True

    def to_dict(self) -> dict[str, Any]:
        """``{"properties": [...]}``."""
        return {"properties": list(self.values)}


def parse_hostlist(text: str) -> tuple[tuple[str, str, tuple[tuple[int, int, int], ...]], ...]:
    """Parse a hostlist expression into ``(prefix, suffix, ranges)`` terms.

    A term without brackets is a literal host (empty ``ranges``). ``ranges`` holds
    ``(lo, hi, width)``: the term names ``prefix + f"{n:0{width}d}" + suffix`` for ``lo <= n <=
    hi``, where ``width`` is the number of digits written for ``lo`` (so ``[01-10]`` pads to 2).
    Terms are separated by commas (or blanks) outside brackets; empty terms are ignored.

    Raises
    ------
    ValueError
        For unbalanced or nested brackets, several bracket groups in one term, empty or
        non-numeric ranges, ``hi < lo``, or a range of more than :data:`MAX_HOSTS_PER_RANGE`.

    Examples
    --------
    >>> parse_hostlist("foo[1,3-4]-ib,bar")
    (('foo', '-ib', ((1, 1, 1), (3, 4, 1))), ('bar', '', ()))
    >>> parse_hostlist("foo[1-")
    Traceback (most recent call last):
    ...
    ValueError: unbalanced brackets
    """
    terms: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
            if depth > 1:
                raise ValueError("nested brackets")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError("unbalanced brackets")
        elif depth == 0 and ch in _SEPARATORS:
            terms.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if depth != 0:
        raise ValueError("unbalanced brackets")
    terms.append("".join(cur))
    out = []
    for term in terms:
        if not term:
            continue
        if "[" not in term:
            out.append((term, "", ()))
            continue
        m = _BRACKET_TERM.fullmatch(term)
        if m is None:
            raise ValueError("more than one bracket group in a host name")
        prefix, body, suffix = m.groups()
        ranges = []
        for item in body.split(","):
            r = _RANGE.fullmatch(item)
            if r is None:
                raise ValueError(f"bad range {item!r}")
            lo_text, hi_text = r.groups()
            lo = int(lo_text)
            hi = int(hi_text) if hi_text is not None else lo
            if hi < lo:
                raise ValueError(f"bad range {item!r}")
            if hi - lo + 1 > MAX_HOSTS_PER_RANGE:
                raise ValueError(f"range {item!r} is too large")
            ranges.append((lo, hi, len(lo_text)))
        out.append((prefix, suffix, tuple(ranges)))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class HostlistConstraint(Constraint):
    """``hostlist: [...]``: the vertex name must be one of the listed hosts.

    >>> from types import SimpleNamespace as V
    >>> c = HostlistConstraint(("node[1-3,10]", "login"))
    >>> [c.matches(V(name=n)) for n in ("node2", "node10", "node02", "login", "node4")]
    [True, True, False, True, False]
    """

    hosts: tuple[str, ...]
    _names: frozenset[str] = field(init=False, repr=False, compare=False)
    _ranges: tuple[tuple[str, str, tuple[tuple[int, int, int], ...]], ...] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        names: set[str] = set()
        ranged = []
        for text in self.hosts:
            for prefix, suffix, ranges in parse_hostlist(text):
                if ranges:
                    ranged.append((prefix, suffix, ranges))
                else:
                    names.add(prefix)
        object.__setattr__(self, "_names", frozenset(names))
        object.__setattr__(self, "_ranges", tuple(ranged))

    def matches(self, vertex: VertexView) -> bool:
        """Whether ``vertex.name`` is in the hostlist."""
        name = vertex.name
        if name in self._names:
            return True
        for prefix, suffix, ranges in self._ranges:
            end = len(name) - len(suffix)
            if end <= len(prefix) or not name.startswith(prefix) or not name.endswith(suffix):
                continue
            digits = name[len(prefix) : end]
            if not (digits.isascii() and digits.isdigit()):
                continue
            n = int(digits)
            for lo, hi, width in ranges:
                if lo <= n <= hi and f"{n:0{width}d}" == digits:
                    return True
        return False

    def to_dict(self) -> dict[str, Any]:
        """``{"hostlist": [...]}``."""
        return {"hostlist": list(self.hosts)}


def parse_idset(text: str) -> tuple[tuple[int, int], ...]:
    """Parse an idset (``"0-3,7"``, optionally in brackets) into sorted, merged ranges.

    Follows flux-core: empty tokens are skipped, a reversed range is swapped, ids must be below
    2**32 - 1.

    Raises
    ------
    ValueError
        For a token that is not ``N`` or ``N-M``.

    Examples
    --------
    >>> parse_idset("[5-3,0,1]")
    ((0, 1), (3, 5))
    >>> parse_idset("")
    ()
    """
    body = text[1:] if text[:1] == "[" else text
    if body[-1:] == "]":
        body = body[:-1]
    spans = []
    for token in body.split(","):
        if not token:
            continue
        m = _ID_TOKEN.fullmatch(token)
        if m is None:
            raise ValueError(f"bad idset token {token!r}")
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) is not None else a
        if a >= _UINT_MAX or b >= _UINT_MAX:
            raise ValueError(f"id out of range in {token!r}")
        spans.append((min(a, b), max(a, b)))
    return _merge(spans)


def _merge(spans: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return tuple(merged)


@dataclass(frozen=True, slots=True)
class RankConstraint(Constraint):
    """``ranks: [...]``: the vertex rank must be in the listed idsets.

    >>> from types import SimpleNamespace as V
    >>> c = RankConstraint(("0-1", "4"))
    >>> [c.matches(V(rank=r)) for r in (-1, 0, 2, 4)]
    [False, True, False, True]
    """

    ranks: tuple[str, ...]
    _starts: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _ends: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        spans = _merge(s for text in self.ranks for s in parse_idset(text))
        object.__setattr__(self, "_starts", tuple(lo for lo, _ in spans))
        object.__setattr__(self, "_ends", tuple(hi for _, hi in spans))

    def matches(self, vertex: VertexView) -> bool:
        """Whether ``vertex.rank`` is in the set (a negative rank never is)."""
        rank = vertex.rank
        i = bisect_right(self._starts, rank) - 1
        return i >= 0 and rank <= self._ends[i]

    def to_dict(self) -> dict[str, Any]:
        """``{"ranks": [...]}``."""
        return {"ranks": list(self.ranks)}


@dataclass(frozen=True, slots=True)
class AndConstraint(Constraint):
    """``and: [...]``: every child matches (true when there are none)."""

    children: tuple[Constraint, ...]

    def matches(self, vertex: VertexView) -> bool:
        """All children match."""
        for c in self.children:  # noqa: SIM110 (plain loops: no generator in the hot path)
            if not c.matches(vertex):
                return False
        return True

    def to_dict(self) -> dict[str, Any]:
        """``{"and": [...]}``."""
        return {"and": [c.to_dict() for c in self.children]}


@dataclass(frozen=True, slots=True)
class OrConstraint(Constraint):
    """``or: [...]``: some child matches (false when there are none)."""

    children: tuple[Constraint, ...]

    def matches(self, vertex: VertexView) -> bool:
        """Any child matches."""
        for c in self.children:  # noqa: SIM110
            if c.matches(vertex):
                return True
        return False

    def to_dict(self) -> dict[str, Any]:
        """``{"or": [...]}``."""
        return {"or": [c.to_dict() for c in self.children]}


@dataclass(frozen=True, slots=True)
class NotConstraint(Constraint):
    """``not: [...]``: not all children match (the reference negates their ``and``).

    >>> from types import SimpleNamespace as V
    >>> c = NotConstraint((PropertyConstraint(("a",)), PropertyConstraint(("b",))))
    >>> c.matches(V(properties={"a": ""})), c.matches(V(properties={"a": "", "b": ""}))
    (True, False)
    """

    children: tuple[Constraint, ...]

    def matches(self, vertex: VertexView) -> bool:
        """Not every child matches."""
        for c in self.children:  # noqa: SIM110
            if not c.matches(vertex):
                return True
        return False

    def to_dict(self) -> dict[str, Any]:
        """``{"not": [...]}``."""
        return {"not": [c.to_dict() for c in self.children]}


_COMBINERS: Mapping[str, type[AndConstraint | OrConstraint | NotConstraint]] = MappingProxyType(
    {"and": AndConstraint, "or": OrConstraint, "not": NotConstraint}
)


def build_constraint(data: Mapping[str, Any]) -> Constraint:
    """Build a constraint tree from *validated* jobspec data (see :func:`fluxgraph.jobspec.load`).

    Scalars in ``hostlist`` and ``ranks`` are read as their YAML text.

    >>> build_constraint({"or": [{"hostlist": ["n[0-1]"]}, {"ranks": [5]}]})
    OrConstraint(children=(HostlistConstraint(hosts=('n[0-1]',)), RankConstraint(ranks=('5',))))
    """
    if not data:
        return MatchAll()
    ((op, operands),) = data.items()
    if op == "properties":
        return PropertyConstraint(tuple(operands))
    if op == "hostlist":
        return HostlistConstraint(tuple(scalar_text(v) for v in operands))
    if op == "ranks":
        return RankConstraint(tuple(scalar_text(v) for v in operands))
    return _COMBINERS[op](tuple(build_constraint(c) for c in operands))
