"""Experiment descriptions: a YAML file (or a dict) -> a validated :class:`Experiment` -> cells.

An experiment names a cell *kind* (default ``simulate``), parameters common to every cell
(``fixed``), the *axes* whose product is the grid, optional ``zip`` groups (axes that vary
together), ``exclude``/``only`` rules, the metrics to keep, the outputs to write, and optionally
a dask-jobqueue ``cluster``. ``quick`` holds overrides for a reduced grid (``--quick``).
``docs/experiments.md`` has a complete example.

Every error names the key it is about (``axes.queue[2]: 'eazy' is not one of ...``) and is
raised before anything runs or is written. A cell's id is a hash of its kind and canonical
parameters, so it is the same in every run, on every machine and whatever the axis order.

>>> exp = Experiment.from_dict({"name": "demo", "fixed": {"machine": "nodes=4",
...     "trace": "lublin:20"}, "axes": {"queue": ["fcfs", "easy"], "seed": [0, 1]},
...     "exclude": [{"queue": "fcfs", "seed": 1}]})
>>> [(c.axes["queue"], c.axes["seed"]) for c in exp.cells()]
[('fcfs', 0), ('easy', 0), ('easy', 1)]
>>> exp.cells()[0].id == Experiment.from_dict(exp.to_dict()).cells()[0].id
True
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from fluxgraph.errors import ExperimentError, FluxgraphError
from fluxgraph.experiments.kinds import CellTask, Kind, get_kind, kind_id_name, kind_name
from fluxgraph.limits import read_text

__all__ = [
    "MAX_CELLS",
    "SCHEMA",
    "Cell",
    "Experiment",
    "canonical",
    "cell_id",
    "load_experiment",
    "validate_cluster",
]

#: Largest grid an experiment may describe (after exclude/only).
MAX_CELLS = 1_000_000
_MAX_BYTES = 1024 * 1024

_AXES = {"type": "object", "additionalProperties": {"type": "array", "minItems": 1}}
_ZIP = {"type": "array", "items": {**_AXES, "minProperties": 1}}
_RULES = {"type": "array", "items": {"type": "object", "minProperties": 1}}
_METRICS = {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": True}
_GRID = {"fixed": {"type": "object"}, "axes": _AXES, "zip": _ZIP, "exclude": _RULES, "only": _RULES}

#: JSON schema of an experiment document.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]*$"},
        "description": {"type": "string"},
        "kind": {"type": "string", "minLength": 1},
        **_GRID,
        "metrics": _METRICS,
        "outputs": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"jobs_csv": {"type": "boolean"}},
        },
        "quick": {
            "type": "object",
            "additionalProperties": False,
            "properties": {**_GRID, "metrics": _METRICS},
        },
        "cluster": {
            "type": "object",
            "required": ["jobqueue"],
            "properties": {
                "jobqueue": {"enum": ["slurm", "pbs", "sge", "lsf", "htcondor", "moab", "oar"]},
                "scale": {"type": "integer", "minimum": 1},
                "adapt": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "minimum": {"type": "integer", "minimum": 0},
                        "maximum": {"type": "integer", "minimum": 1},
                    },
                },
            },
        },
    },
}


def canonical(value: Any) -> str:
    """Canonical JSON text of ``value`` (sorted keys, no spaces): what cell ids hash.

    >>> canonical({"b": [1, 2.5], "a": "x"})
    '{"a":"x","b":[1,2.5]}'
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cell_id(kind: str, params: Mapping[str, Any]) -> str:
    """The id of the cell of ``kind`` with ``params``: 16 hex digits of a SHA-256."""
    text = canonical({"kind": kind_id_name(kind), "params": dict(params)})
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Cell:
    """One point of the grid.

    Attributes
    ----------
    id : :func:`cell_id` of ``kind`` and ``params``.
    index : position in the experiment's grid (after exclude/only).
    kind : the cell kind.
    params : every parameter (fixed and axis values).
    axes : the values of the experiment's axes only (labels for tables and plots).
    """

    id: str
    index: int
    kind: str
    params: Mapping[str, Any]
    axes: Mapping[str, Any]

    def task(self, experiment: Experiment) -> CellTask:
        """The picklable task a worker runs for this cell."""
        outputs = frozenset(k for k, v in experiment.outputs.items() if v)
        return CellTask(
            self.id, self.kind, dict(self.params), experiment.metrics, experiment.base_dir, outputs
        )


def _where(path: Iterable[Any]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _schema_errors(doc: Any) -> list[str]:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    out = []
    for err in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))):
        where = _where(err.absolute_path)
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            allowed = err.schema.get("properties", {})
            for key in sorted(set(err.instance) - set(allowed)):
                valid = ", ".join(allowed)
                out.append(f"{_where([*err.absolute_path, key])}: unknown key (valid: {valid})")
        else:
            out.append(f"{where}: {err.message}")
    return out


def validate_cluster(doc: Any, source: str) -> dict[str, Any]:
    """``doc`` checked as an experiment's ``cluster`` section (errors name the key)."""
    validator = jsonschema.Draft202012Validator(SCHEMA["properties"]["cluster"])
    errors = [
        f"{_where(['cluster', *e.absolute_path])}: {e.message}" for e in validator.iter_errors(doc)
    ]
    if errors:
        raise ExperimentError(f"{source}: " + "\n  ".join(errors))
    return dict(doc)


def _check_numbers(value: Any, where: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ExperimentError(f"{where}: {value} is not a finite number")
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise ExperimentError(f"{where}: key {k!r} is not a string")
            _check_numbers(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _check_numbers(v, f"{where}[{i}]")
    elif value is not None and not isinstance(value, str | int | float | bool):
        raise ExperimentError(f"{where}: {type(value).__name__} values are not allowed")


def _compile_rule(rule: Mapping[str, Any]) -> list[tuple[str, frozenset[str]]]:
    """``rule`` as ``(key, canonical texts of the values it accepts)`` pairs."""
    return [
        (key, frozenset(canonical(o) for o in (want if isinstance(want, list) else [want])))
        for key, want in rule.items()
    ]


@dataclass(frozen=True)
class Experiment:
    """A validated experiment (build it with :meth:`from_dict` or :func:`load_experiment`)."""

    name: str
    kind: str = "simulate"
    description: str = ""
    fixed: Mapping[str, Any] = field(default_factory=dict)
    axes: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    zip: tuple[Mapping[str, tuple[Any, ...]], ...] = ()
    exclude: tuple[Mapping[str, Any], ...] = ()
    only: tuple[Mapping[str, Any], ...] = ()
    metrics: tuple[str, ...] | None = None
    outputs: Mapping[str, bool] = field(default_factory=dict)
    quick_overrides: Mapping[str, Any] = field(default_factory=dict)
    cluster: Mapping[str, Any] | None = None
    base_dir: str | None = None
    source: str = "<experiment>"

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def from_dict(
        cls, doc: Any, *, source: str = "<experiment>", base_dir: str | Path | None = None
    ) -> Experiment:
        """Validate ``doc`` (the YAML's content) and build the experiment.

        Raises
        ------
        ExperimentError
            Naming the source and every bad key (schema), or the first bad parameter value.
        """
        errors = _schema_errors(doc)
        if errors:
            raise ExperimentError(f"{source}: " + "\n  ".join(errors))
        try:
            for key, value in doc.items():
                _check_numbers(value, key)
        except ExperimentError as err:
            raise ExperimentError(f"{source}: {err}") from None
        exp = cls(
            name=doc["name"],
            kind=kind_name(doc.get("kind", "simulate")),
            description=doc.get("description", ""),
            fixed=dict(doc.get("fixed", {})),
            axes={k: tuple(v) for k, v in doc.get("axes", {}).items()},
            zip=tuple({k: tuple(v) for k, v in g.items()} for g in doc.get("zip", [])),
            exclude=tuple(doc.get("exclude", [])),
            only=tuple(doc.get("only", [])),
            metrics=tuple(doc["metrics"]) if "metrics" in doc else None,
            outputs=dict(doc.get("outputs", {})),
            quick_overrides=dict(doc.get("quick", {})),
            cluster=dict(doc["cluster"]) if "cluster" in doc else None,
            base_dir=str(base_dir) if base_dir is not None else None,
            source=source,
        )
        try:
            exp._validate()
        except ExperimentError as err:
            raise ExperimentError(f"{source}: {err}") from None
        return exp

    def to_dict(self) -> dict[str, Any]:
        """The document this experiment was built from (round-trips through
        :meth:`from_dict`)."""
        doc: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.description:
            doc["description"] = self.description
        for key, value in (
            ("fixed", dict(self.fixed)),
            ("axes", {k: list(v) for k, v in self.axes.items()}),
            ("zip", [{k: list(v) for k, v in g.items()} for g in self.zip]),
            ("exclude", [dict(r) for r in self.exclude]),
            ("only", [dict(r) for r in self.only]),
            ("outputs", dict(self.outputs)),
            ("quick", dict(self.quick_overrides)),
        ):
            if value:
                doc[key] = value
        if self.metrics is not None:
            doc["metrics"] = list(self.metrics)
        if self.cluster is not None:
            doc["cluster"] = dict(self.cluster)
        return doc

    def quick(self) -> Experiment:
        """The reduced grid: ``quick``'s axes replace (or add to) the axes, its ``fixed`` is
        merged in, its ``zip``/``exclude``/``only``/``metrics`` replace the experiment's (a key
        set in one place leaves the others)."""
        q = self.quick_overrides
        if not q:
            return self
        fixed = {**self.fixed, **q.get("fixed", {})}
        axes = {**self.axes, **{k: tuple(v) for k, v in q.get("axes", {}).items()}}
        for key in q.get("fixed", {}):
            axes.pop(key, None)
        for key in q.get("axes", {}):
            fixed.pop(key, None)
        changes: dict[str, Any] = {"fixed": fixed, "axes": axes, "quick_overrides": {}}
        if "zip" in q:
            changes["zip"] = tuple({k: tuple(v) for k, v in g.items()} for g in q["zip"])
            for key in (k for g in q["zip"] for k in g):  # a zipped key leaves axes and fixed
                axes.pop(key, None)
                fixed.pop(key, None)
        for key in ("exclude", "only"):
            if key in q:
                changes[key] = tuple(q[key])
        if "metrics" in q:
            changes["metrics"] = tuple(q["metrics"])
        exp = replace(self, name=f"{self.name}-quick", **changes)
        try:
            exp._validate()
        except ExperimentError as err:
            raise ExperimentError(f"{self.source} (quick): {err}") from None
        return exp

    def restricted(self, rule: Mapping[str, Sequence[Any]]) -> Experiment:
        """The experiment keeping only the cells whose axis values are among ``rule``'s
        (``reproduce --only``): ``rule`` is added to every ``only`` rule, so the cells kept
        match both. The cells keep their ids, so a store holding the whole grid serves both.

        >>> exp = Experiment.from_dict({"name": "demo", "fixed": {"machine": "nodes=4",
        ...     "trace": "lublin:20"}, "axes": {"queue": ["fcfs", "easy"], "seed": [0, 1]}})
        >>> [c.axes["seed"] for c in exp.restricted({"queue": ["easy"]}).cells()]
        [0, 1]

        Raises
        ------
        ExperimentError
            If a key is not an axis, a value is not on its axis, or no cell is left.
        """
        grid: dict[str, Sequence[Any]] = dict(self.axes)
        for group in self.zip:
            grid.update(group)
        for key, wanted in rule.items():
            if key not in grid:
                raise ExperimentError(f"only: {key}: not an axis (axes: {', '.join(grid)})")
            known = {canonical(v) for v in grid[key]}
            for value in wanted:
                if canonical(value) not in known:
                    shown = ", ".join(str(v) for v in grid[key])
                    raise ExperimentError(f"only: {key}={value}: not on the axis ({shown})")
        rules = []
        for old in self.only or ({},):
            merged: dict[str, Any] = dict(old)
            for key, wanted in rule.items():
                if key in merged:
                    accepted = _compile_rule({key: merged[key]})[0][1]
                    wanted = [v for v in wanted if canonical(v) in accepted]
                merged[key] = list(wanted)
            rules.append(merged)
        exp = replace(self, only=tuple(rules))
        if not exp.cells():
            text = " ".join(f"{k}={','.join(map(str, v))}" for k, v in rule.items())
            raise ExperimentError(f"only: no cell of {self.name} matches {text}")
        return exp

    # -- validation ------------------------------------------------------------------------

    def _sources(self) -> dict[str, str]:
        """Parameter name -> where it is set (``fixed.x``, ``axes.x``, ``zip[0].x``)."""
        where: dict[str, str] = {}
        places = [("fixed", self.fixed), ("axes", self.axes)]
        places += [(f"zip[{i}]", g) for i, g in enumerate(self.zip)]
        for place, mapping in places:
            for key in mapping:
                if key in where:
                    raise ExperimentError(f"{place}.{key}: already set in {where[key]}")
                where[key] = f"{place}.{key}"
        return where

    def _validate(self) -> None:
        kind = get_kind(self.kind)
        where = self._sources()
        for i, group in enumerate(self.zip):
            lengths = {len(v) for v in group.values()}
            if len(lengths) > 1:
                raise ExperimentError(f"zip[{i}]: its lists differ in length ({sorted(lengths)})")
        for name, rules in (("exclude", self.exclude), ("only", self.only)):
            for i, rule in enumerate(rules):
                for key in rule:
                    if key not in where or key in self.fixed:
                        raise ExperimentError(
                            f"{name}[{i}].{key}: not an axis (axes: {', '.join(self._varying())})"
                        )
        if kind.params is not None:
            for key in kind.required:
                if key not in where:
                    raise ExperimentError(f"fixed.{key}: required by kind {kind.name!r}")
            for key, place in where.items():
                if key not in kind.params:
                    raise ExperimentError(
                        f"{place}: unknown parameter of kind {kind.name!r} "
                        f"(valid: {', '.join(kind.params)})"
                    )
        for key, place in where.items():
            values = [self.fixed[key]] if key in self.fixed else self._values(key)
            for j, value in enumerate(values):
                at = place if key in self.fixed else f"{place}[{j}]"
                self._check_value(kind, key, value, at)
        count = self.size()
        if count > MAX_CELLS:
            raise ExperimentError(f"the grid has {count:,} cells, more than {MAX_CELLS:,}")

    def _values(self, key: str) -> tuple[Any, ...]:
        if key in self.axes:
            return self.axes[key]
        return next(g[key] for g in self.zip if key in g)

    def _check_value(self, kind: Kind, key: str, value: Any, at: str) -> None:
        if kind.params is not None:
            schema = kind.params[key]
            err = jsonschema.exceptions.best_match(
                jsonschema.Draft202012Validator(schema).iter_errors(value)
            )
            if err is not None:
                inner = _where(err.absolute_path)
                inner = "" if inner == "(top level)" else "." + inner.lstrip(".")
                raise ExperimentError(f"{at}{inner}: {err.message}")
        if kind.check is not None:
            try:
                kind.check(key, value, Path(self.base_dir) if self.base_dir else None)
            except FluxgraphError as err:
                raise ExperimentError(f"{at}: {err}") from None

    def _varying(self) -> list[str]:
        return [*self.axes, *(k for g in self.zip for k in g)]

    # -- the grid --------------------------------------------------------------------------

    def size(self) -> int:
        """Cells before exclude/only (the product of the axis lengths)."""
        n = 1
        for values in self.axes.values():
            n *= len(values)
        for group in self.zip:
            n *= len(next(iter(group.values())))
        return n

    def _points(self) -> Iterable[dict[str, Any]]:
        dims: list[Sequence[dict[str, Any]]] = [
            [{key: v} for v in values] for key, values in self.axes.items()
        ]
        for group in self.zip:
            keys = list(group)
            dims.append(
                [dict(zip(keys, vs, strict=True)) for vs in zip(*group.values(), strict=True)]
            )
        for combo in itertools.product(*dims):
            point: dict[str, Any] = {}
            for part in combo:
                point.update(part)
            yield point

    def cells(self) -> list[Cell]:
        """The grid in order (first axis slowest), after ``exclude`` and ``only``.

        Raises
        ------
        ExperimentError
            If two cells have the same parameters (an axis lists a value twice).
        """
        out: list[Cell] = []
        seen: dict[str, dict[str, Any]] = {}
        texts: dict[int, str] = {}  # canonical text per axis value object (alive in self.axes)

        def text(value: Any) -> str:
            t = texts.get(id(value))
            if t is None:
                t = texts[id(value)] = canonical(value)
            return t

        def matches(rule: list[tuple[str, frozenset[str]]], point: dict[str, Any]) -> bool:
            return all(text(point.get(key)) in accepted for key, accepted in rule)

        exclude = [_compile_rule(r) for r in self.exclude]
        only = [_compile_rule(r) for r in self.only]
        for point in self._points():
            if any(matches(r, point) for r in exclude):
                continue
            if only and not any(matches(r, point) for r in only):
                continue
            params = {**self.fixed, **point}
            cid = cell_id(self.kind, params)
            if cid in seen:
                raise ExperimentError(f"{self.source}: two cells have the parameters {point}")
            seen[cid] = point
            out.append(Cell(cid, len(out), self.kind, params, point))
        return out


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate mapping keys."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False):
    loader.flatten_mapping(node)
    mapping: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in mapping:
            mark = key_node.start_mark
            raise ExperimentError(f"line {mark.line + 1}: duplicate key {key!r}")
        mapping[key] = loader.construct_object(value_node, deep=deep)
    return mapping


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_experiment(path: str | Path) -> Experiment:
    """The experiment of the YAML file ``path`` (relative paths inside resolve beside it).

    Raises
    ------
    ExperimentError
        For an unreadable file, bad YAML (with its line) or an invalid experiment (naming the
        key).
    """
    path = Path(path)
    try:
        text = read_text(path, _MAX_BYTES)
    except (OSError, UnicodeDecodeError) as err:
        raise ExperimentError(f"{path}: cannot read: {err}") from None
    try:
        doc = yaml.load(text, Loader=_UniqueKeyLoader)  # a SafeLoader subclass
    except ExperimentError as err:
        raise ExperimentError(f"{path}: {err}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        raise ExperimentError(f"{path}: {where}invalid YAML: {problem}") from None
    if not isinstance(doc, dict):
        raise ExperimentError(f"{path}: the experiment must be a mapping of keys to values")
    return Experiment.from_dict(doc, source=str(path), base_dir=path.resolve().parent)
