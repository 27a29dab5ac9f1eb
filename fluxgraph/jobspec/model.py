"""The immutable jobspec model: resources, tasks, attributes and the facts derived from them.

Every class is a frozen, slotted dataclass holding tuples (or :class:`FrozenMap` for free-form
mappings), so a parsed jobspec can be cached and shared. Build models with
:func:`fluxgraph.jobspec.load`; constructing them by hand skips validation.

Derived facts follow the traverser's jobspec priming (matching-semantics §6.4) *before* it
filters by pruning type: ``Resource.totals`` is the reference's ``user_data`` for every type (units
needed below one instance of the resource, using minimum counts) and ``Jobspec.totals`` the
request-wide sum. Restricting either to the pruning types gives exactly the reference's values,
since each type's total is computed independently. Pairs are in first-seen (preorder) order; the
reference iterates them in interned-type order, which only the traverser knows.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from fluxgraph.jobspec._source import scalar_text
from fluxgraph.jobspec.constraints import Constraint, build_constraint
from fluxgraph.jobspec.counts import UINT_MAX, calc_effective_max

__all__ = [
    "Attributes",
    "FrozenMap",
    "Jobspec",
    "Resource",
    "SystemAttributes",
    "Task",
    "build_jobspec",
]


class FrozenMap(Mapping[str, Any]):
    """A read-only, hashable mapping that keeps insertion order.

    >>> m = FrozenMap({"b": 1, "a": (2,)})
    >>> list(m), m["a"], m == {"b": 1, "a": (2,)}, hash(m) == hash(FrozenMap(m))
    (['b', 'a'], (2,), True, True)
    """

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> None:
        self._data: dict[str, Any] = dict(data)
        self._hash: int | None = None

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        return self._data == dict(other.items())

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"


_EMPTY = FrozenMap()


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return FrozenMap((k, _freeze(v)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


def _add_totals(acc: dict[str, int], children: tuple[Resource, ...]) -> tuple[tuple[str, int], ...]:
    for c in children:
        acc[c.type] = acc.get(c.type, 0) + c.count_min
        for t, n in c.totals:
            # The reference passes each product through a 32-bit unsigned parameter.
            acc[t] = acc.get(t, 0) + ((c.count_min * n) & UINT_MAX)
    return tuple(acc.items())


@dataclass(frozen=True, slots=True)
class Resource:
    """One resource vertex of the request graph.

    Attributes
    ----------
    type : resource type (``node``, ``core``, ``slot``, ...).
    count_min, count_max : unit range; a scalar count ``n`` gives ``n..n``, ``{min: m}`` alone
        gives ``m..UINT_MAX``. A scalar ``0`` is accepted, as in the reference.
    count_operator, count_operand : lattice of the range (``"+"``, ``"*"`` or ``"^"``), see
        :func:`~fluxgraph.jobspec.calc_count`.
    unit : the ``unit`` string (``""`` when absent).
    exclusive : ``True``/``False`` when given, ``None`` when unspecified (the reference's
        tri-state; an explicit ``False`` inside an exclusive context fails the match, §6.20).
    label : the ``label`` (``""`` when absent; slots always have one).
    id : the ``id`` string (``""`` when absent).
    with_ : child resources, in document order.
    is_slot : ``type == "slot"`` (``xor_slot`` is not a slot here).
    effective_max : ``calc_effective_max(self)``, the most units this resource can take.
    totals : ``(type, units)`` needed below *one* instance of this resource, every type, minimum
        counts (the reference's ``user_data`` before pruning-type filtering).

    Examples
    --------
    >>> core = Resource("core", 2)
    >>> sock = Resource("socket", 2, with_=(core,))
    >>> sock.totals, sock.effective_max, sock.is_slot
    ((('core', 2),), 2, False)
    """

    type: str
    count_min: int = 1
    count_max: int = -1
    count_operator: str = "+"
    count_operand: int = 1
    unit: str = ""
    exclusive: bool | None = None
    label: str = ""
    id: str = ""
    with_: tuple[Resource, ...] = ()
    is_slot: bool = field(init=False, repr=False, compare=False)
    effective_max: int = field(init=False, repr=False, compare=False)
    totals: tuple[tuple[str, int], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.count_max < 0:
            object.__setattr__(self, "count_max", self.count_min)
        object.__setattr__(self, "is_slot", self.type == "slot")
        object.__setattr__(self, "effective_max", calc_effective_max(self))
        object.__setattr__(self, "totals", _add_totals({}, self.with_))

    def total(self, rtype: str) -> int:
        """Units of ``rtype`` needed below one instance (0 if none)."""
        for t, n in self.totals:
            if t == rtype:
                return n
        return 0

    def walk(self) -> Iterator[Resource]:
        """This resource and all its descendants, in preorder."""
        stack = [self]
        while stack:
            r = stack.pop()
            yield r
            stack.extend(reversed(r.with_))

    def to_dict(self) -> dict[str, Any]:
        """The jobspec mapping of this resource (canonical form; reloads to an equal model)."""
        out: dict[str, Any] = {"type": self.type}
        if (
            self.count_min == self.count_max
            and self.count_operator == "+"
            and self.count_operand == 1
        ):
            out["count"] = self.count_min
        elif self.count_max == UINT_MAX and self.count_operator == "+" and self.count_operand == 1:
            out["count"] = {"min": self.count_min}
        else:
            out["count"] = {
                "min": self.count_min,
                "max": self.count_max,
                "operator": self.count_operator,
                "operand": self.count_operand,
            }
        if self.unit:
            out["unit"] = self.unit
        if self.exclusive is not None:
            out["exclusive"] = self.exclusive
        if self.label or self.is_slot:
            out["label"] = self.label
        if self.id:
            out["id"] = self.id
        if self.with_:
            out["with"] = [c.to_dict() for c in self.with_]
        return out


@dataclass(frozen=True, slots=True)
class Task:
    """One task entry.

    ``count`` (e.g. ``{"per_slot": "1"}``), ``distribution`` and ``attributes`` are ``None``
    when absent; values are kept as text, as the reference does. ``extra`` keeps any other key
    (frozen): the reference ignores them but counts them among the task's three to five entries,
    so :func:`~fluxgraph.jobspec.dump` must write them back.
    """

    command: tuple[str, ...]
    slot: str
    count: FrozenMap | None = None
    distribution: str | None = None
    attributes: FrozenMap | None = None
    extra: FrozenMap = _EMPTY

    def to_dict(self) -> dict[str, Any]:
        """The jobspec mapping of this task."""
        out: dict[str, Any] = {"command": list(self.command), "slot": self.slot}
        if self.count is not None:
            out["count"] = dict(self.count)
        if self.distribution is not None:
            out["distribution"] = self.distribution
        if self.attributes is not None:
            out["attributes"] = dict(self.attributes)
        for k, v in self.extra.items():
            out[k] = _thaw(v)
        return out


@dataclass(frozen=True, slots=True)
class SystemAttributes:
    """``attributes.system``.

    ``duration`` is in seconds (``0.0`` when absent: the whole graph window, §6.3; NaN or
    negative values load and are rejected by the matcher). ``constraint`` is ``None`` when
    absent and :class:`~fluxgraph.jobspec.constraints.MatchAll` for ``constraints: {}`` (the two
    differ in the node-count pre-check, §6.5). ``optional`` keeps every other key, frozen.
    """

    duration: float = 0.0
    queue: str = ""
    cwd: str = ""
    environment: FrozenMap = _EMPTY
    constraint: Constraint | None = None
    optional: FrozenMap = _EMPTY

    def to_dict(self) -> dict[str, Any]:
        """The jobspec mapping (empty fields left out)."""
        out: dict[str, Any] = {}
        if self.duration:
            out["duration"] = self.duration
        if self.queue:
            out["queue"] = self.queue
        if self.cwd:
            out["cwd"] = self.cwd
        if self.environment:
            out["environment"] = dict(self.environment)
        if self.constraint is not None:
            out["constraints"] = self.constraint.to_dict()
        for k, v in self.optional.items():
            out[k] = _thaw(v)
        return out


@dataclass(frozen=True, slots=True)
class Attributes:
    """``attributes``: the system attributes and the free-form ``user`` value (frozen)."""

    system: SystemAttributes = SystemAttributes()
    user: Any = None

    def to_dict(self) -> dict[str, Any]:
        """The jobspec mapping (empty parts left out)."""
        out: dict[str, Any] = {}
        if self.user is not None:
            out["user"] = _thaw(self.user)
        system = self.system.to_dict()
        if system:
            out["system"] = system
        return out


@dataclass(frozen=True, slots=True)
class Jobspec:
    """A validated jobspec.

    Attributes
    ----------
    version : 1..9999 (the reference treats them all alike).
    resources : top-level resources, in document order.
    tasks : the task entries.
    attributes : :class:`Attributes`.
    totals : ``(type, units)`` the whole request needs, every type, minimum counts (the
        reference's top-level ``dfv`` before pruning-type filtering, §6.4).
    types : every resource type in the request, first-seen preorder.
    exclusive_types : types of resources with ``exclusive: true``, first-seen preorder.
    has_slot, has_node, has_exclusive : whether some resource is a ``slot``, a ``node``, or has
        ``exclusive: true``.

    Examples
    --------
    >>> js = Jobspec(1, (Resource("node", 2, with_=(Resource("core", 4),)),), (), Attributes())
    >>> js.totals, js.types, js.has_node, js.duration, js.constraint
    ((('node', 2), ('core', 8)), ('node', 'core'), True, 0.0, None)
    """

    version: int
    resources: tuple[Resource, ...]
    tasks: tuple[Task, ...]
    attributes: Attributes
    totals: tuple[tuple[str, int], ...] = field(init=False, repr=False, compare=False)
    types: tuple[str, ...] = field(init=False, repr=False, compare=False)
    exclusive_types: tuple[str, ...] = field(init=False, repr=False, compare=False)
    has_slot: bool = field(init=False, repr=False, compare=False)
    has_node: bool = field(init=False, repr=False, compare=False)
    has_exclusive: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        types: dict[str, None] = {}
        exclusive: dict[str, None] = {}
        for r in self.walk():
            types[r.type] = None
            if r.exclusive is True:
                exclusive[r.type] = None
        object.__setattr__(self, "totals", _add_totals({}, self.resources))
        object.__setattr__(self, "types", tuple(types))
        object.__setattr__(self, "exclusive_types", tuple(exclusive))
        object.__setattr__(self, "has_slot", "slot" in types)
        object.__setattr__(self, "has_node", "node" in types)
        object.__setattr__(self, "has_exclusive", bool(exclusive))

    @property
    def duration(self) -> float:
        """``attributes.system.duration`` in seconds (0.0 when absent)."""
        return self.attributes.system.duration

    @property
    def queue(self) -> str:
        """``attributes.system.queue`` (``""`` when absent)."""
        return self.attributes.system.queue

    @property
    def constraint(self) -> Constraint | None:
        """The parsed ``attributes.system.constraints`` (``None`` when absent)."""
        return self.attributes.system.constraint

    def total(self, rtype: str) -> int:
        """Units of ``rtype`` the whole request needs (0 if none)."""
        for t, n in self.totals:
            if t == rtype:
                return n
        return 0

    def walk(self) -> Iterator[Resource]:
        """Every resource of the request, in preorder."""
        for r in self.resources:
            yield from r.walk()

    def to_dict(self) -> dict[str, Any]:
        """The jobspec as plain data (reloads to an equal model)."""
        return {
            "version": self.version,
            "resources": [r.to_dict() for r in self.resources],
            "tasks": [t.to_dict() for t in self.tasks],
            "attributes": self.attributes.to_dict(),
        }


def _build_resource(data: Mapping[str, Any]) -> Resource:
    count = data["count"]
    if isinstance(count, Mapping):
        cmin = count["min"]
        if "max" in count:
            cmax, op, operand = count["max"], count["operator"], count["operand"]
        else:
            cmax, op, operand = UINT_MAX, "+", 1
    else:
        cmin = cmax = count
        op, operand = "+", 1
    exclusive = data.get("exclusive")
    if isinstance(exclusive, str):
        exclusive = exclusive == "true"
    return Resource(
        type=scalar_text(data["type"]),
        count_min=cmin,
        count_max=cmax,
        count_operator=op,
        count_operand=operand,
        unit=scalar_text(data["unit"]) if "unit" in data else "",
        exclusive=exclusive,
        label=scalar_text(data["label"]) if "label" in data else "",
        id=scalar_text(data["id"]) if "id" in data else "",
        with_=tuple(_build_resource(c) for c in data.get("with", ())),
    )


def _text_map(data: Mapping[str, Any] | None) -> FrozenMap:
    return FrozenMap((k, scalar_text(v)) for k, v in (data or {}).items())


def _build_task(data: Mapping[str, Any]) -> Task:
    return Task(
        command=tuple(scalar_text(c) for c in data["command"]),
        slot=scalar_text(data["slot"]),
        count=_text_map(data["count"]) if "count" in data else None,
        distribution=scalar_text(data["distribution"]) if "distribution" in data else None,
        attributes=_text_map(data["attributes"]) if "attributes" in data else None,
        extra=FrozenMap((k, _freeze(v)) for k, v in data.items() if k not in _TASK_KEYS),
    )


_TASK_KEYS = frozenset({"command", "slot", "count", "distribution", "attributes"})


_SYSTEM_KEYS = frozenset({"duration", "queue", "cwd", "environment", "constraints"})


def build_jobspec(data: Mapping[str, Any]) -> Jobspec:
    """Build the model from data that passed :func:`fluxgraph.jobspec.validate.validate`.

    >>> build_jobspec({"version": 1, "resources": [{"type": "core", "count": 2}],
    ...                "tasks": [], "attributes": None}).resources
    (Resource(type='core', count_min=2, count_max=2, count_operator='+', count_operand=1, \
unit='', exclusive=None, label='', id='', with_=()),)
    """
    attrs = data["attributes"] or {}
    system = attrs.get("system") or {}
    constraints = system.get("constraints")
    return Jobspec(
        version=data["version"],
        resources=tuple(_build_resource(r) for r in data["resources"]),
        tasks=tuple(_build_task(t) for t in data["tasks"]),
        attributes=Attributes(
            system=SystemAttributes(
                duration=float(system.get("duration", 0.0)),
                queue=scalar_text(system["queue"]) if "queue" in system else "",
                cwd=scalar_text(system["cwd"]) if "cwd" in system else "",
                environment=_text_map(system.get("environment")),
                constraint=build_constraint(constraints) if constraints is not None else None,
                optional=FrozenMap(
                    (k, _freeze(v)) for k, v in system.items() if k not in _SYSTEM_KEYS
                ),
            ),
            user=_freeze(attrs.get("user")),
        ),
    )
