"""Cell kinds: what one cell of a sweep computes, and how a worker runs a cell.

A *kind* is a pure function ``run(params, ctx) -> {metric: number}`` plus the JSON schema of the
parameters it accepts. ``simulate`` (the default) replays a trace on a machine through the
simulator; the paper studies add theirs (``lod``, ``planner``, ``bbsched``, ``disagg``,
``fm``, ``ioaware``, ``variation``), imported from :mod:`fluxgraph.papers` by name only, so
this module knows no paper. Users plug in their own kinds by import path:
``kind: mypackage.mymodule:KIND`` in the experiment, where
``KIND`` is a :class:`Kind` (or a plain function, whose parameters are then not checked).

:func:`run_cell` is what a worker process (or Dask worker) executes: it never raises; a cell
that fails comes back as a ``failed`` :class:`CellOutcome` carrying the traceback.
"""

from __future__ import annotations

import importlib
import math
import os
import socket
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from fluxgraph.errors import ExperimentError

__all__ = [
    "ALIASES",
    "KINDS",
    "CellContext",
    "CellOutcome",
    "CellTask",
    "Kind",
    "get_kind",
    "kind_id_name",
    "kind_name",
    "resolve_path",
    "run_cell",
]

#: Built-in kinds: name -> ``module:attribute`` of their :class:`Kind` (imported on first use).
KINDS: Mapping[str, str] = MappingProxyType(
    {
        "simulate": "fluxgraph.experiments.simulate:KIND",
        "lod": "fluxgraph.papers.fluxion.lod:KIND",
        "planner": "fluxgraph.papers.fluxion.planner:KIND",
        "bbsched": "fluxgraph.papers.bbsched.study:KIND",
        "disagg": "fluxgraph.papers.disagg.study:KIND",
        "fm": "fluxgraph.papers.fm.study:KIND",
        "ioaware": "fluxgraph.papers.ioaware.study:KIND",
        "rabbit": "fluxgraph.papers.rabbit.study:KIND",
        "variation": "fluxgraph.papers.variation.study:KIND",
    }
)

#: What a built-in kind is called in cell ids (:func:`~fluxgraph.experiments.spec.cell_id`):
#: the paper studies' kinds were first named by import path, and every store written since
#: keys its cells by that text, so it stays their identity wherever the module lives.
_ID_NAMES: Mapping[str, str] = MappingProxyType(
    {
        name: f"fluxgraph.experiments.studies.{name}:KIND"
        for name in ("bbsched", "disagg", "fm", "ioaware", "variation")
    }
)

#: Import paths of built-in kinds (former and current) accepted in experiment files -> the
#: kind's name.
ALIASES: Mapping[str, str] = MappingProxyType(
    {**{v: k for k, v in KINDS.items()}, **{v: k for k, v in _ID_NAMES.items()}}
)


def kind_name(name: str) -> str:
    """The registered name of kind ``name`` (a built-in name, a former import path of a
    built-in kind, or a user's ``module:attribute``, returned as given).

    >>> kind_name("fluxgraph.experiments.studies.fm:KIND"), kind_name("mypkg.cells:KIND")
    ('fm', 'mypkg.cells:KIND')
    """
    return ALIASES.get(name, name)


def kind_id_name(name: str) -> str:
    """The text a cell id hashes for kind ``name``: the same for every name of one kind.

    >>> kind_id_name("fm") == kind_id_name("fluxgraph.experiments.studies.fm:KIND")
    True
    >>> kind_id_name("simulate")
    'simulate'
    """
    name = kind_name(name)
    return _ID_NAMES.get(name, name)


@dataclass(frozen=True)
class Kind:
    """A cell kind (see the module docstring).

    Attributes
    ----------
    name : the kind's name.
    run : ``run(params, ctx) -> {metric: number}``; must depend on ``params`` only (seeded).
    params : parameter name -> JSON schema of its value; ``None`` accepts any parameter.
    required : parameters every cell must have.
    check : ``check(name, value, base_dir)`` raises :class:`ExperimentError` (or
        ``FluxgraphError``) for a value the schema cannot judge (a machine spec, a trace file).
    """

    name: str
    run: Callable[[dict[str, Any], CellContext], Mapping[str, Any]]
    params: Mapping[str, Mapping[str, Any]] | None = None
    required: tuple[str, ...] = ()
    check: Callable[[str, Any, Path | None], None] | None = None


_LOADED: dict[str, Kind] = {}


def get_kind(name: str) -> Kind:
    """The kind ``name``: a built-in name (:data:`KINDS`) or ``module:attribute``.

    Raises
    ------
    ExperimentError
        For an unknown name, or an import path that does not import.
    """
    name = kind_name(name)
    if name in _LOADED:
        return _LOADED[name]
    target = KINDS.get(name, name)
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ExperimentError(
            f"unknown kind {name!r} (built-in: {', '.join(KINDS)}; or module:attribute)"
        )
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as err:
        raise ExperimentError(f"kind {name!r}: cannot import {target}: {err}") from None
    if not isinstance(obj, Kind):
        if not callable(obj):
            raise ExperimentError(f"kind {name!r}: {target} is neither a Kind nor a function")
        obj = Kind(name, obj)
    _LOADED[name] = obj
    return obj


def resolve_path(value: str | os.PathLike[str], base_dir: str | Path | None) -> Path:
    """``value`` as a path: absolute as given, else beside the experiment file if it exists
    there, else relative to the working directory."""
    path = Path(value)
    if not path.is_absolute() and base_dir is not None:
        beside = Path(base_dir) / path
        if beside.exists():
            return beside
    return path


@dataclass
class CellContext:
    """What a kind's ``run`` gets besides its parameters.

    Attributes
    ----------
    base_dir : the experiment file's folder (relative paths in parameters resolve there).
    outputs : output files asked for (``{"jobs_csv"}``); ``run`` attaches them with
        :meth:`attach`, the runner writes them to ``DIR/cells/<cell id>/``.
    """

    base_dir: str | None = None
    outputs: frozenset[str] = frozenset()
    files: dict[str, str] = field(default_factory=dict)

    def path(self, value: str) -> Path:
        """A parameter naming a file, resolved (see :func:`resolve_path`)."""
        return resolve_path(value, self.base_dir)

    def attach(self, name: str, text: str) -> None:
        """Keep the output file ``name`` (e.g. ``jobs.csv``) of this cell."""
        self.files[name] = text


@dataclass(frozen=True)
class CellTask:
    """One cell as shipped to a worker (picklable)."""

    cell_id: str
    kind: str
    params: Mapping[str, Any]
    metrics: tuple[str, ...] | None = None
    base_dir: str | None = None
    outputs: frozenset[str] = frozenset()


@dataclass(frozen=True)
class CellOutcome:
    """What came back from one cell: its metrics (``done``) or its error (``failed``)."""

    cell_id: str
    status: str
    metrics: Mapping[str, float | None] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    worker: str = ""
    error: str = ""
    traceback: str = ""


def _number(name: str, value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        value = float(value)
        return None if math.isnan(value) else value
    raise ExperimentError(f"metric {name!r} is {type(value).__name__} {value!r}, not a number")


def _kept(task: CellTask, raw: Mapping[str, Any]) -> dict[str, float | None]:
    if not isinstance(raw, Mapping):
        raise ExperimentError(f"kind {task.kind!r} returned {type(raw).__name__}, not a mapping")
    if task.metrics is None:
        names = sorted(raw)
    else:
        missing = [m for m in task.metrics if m not in raw]
        if missing:
            raise ExperimentError(
                f"metric(s) {', '.join(missing)} not computed by kind {task.kind!r} "
                f"(it gives: {', '.join(sorted(raw))})"
            )
        names = list(task.metrics)
    return {name: _number(name, raw[name]) for name in names}


def run_cell(task: CellTask) -> CellOutcome:
    """Run one cell; never raises (a failure is a ``failed`` outcome with its traceback)."""
    worker = f"{socket.gethostname()}:{os.getpid()}"
    started, cpu = time.perf_counter(), time.thread_time()
    try:
        kind = get_kind(task.kind)
        ctx = CellContext(task.base_dir, task.outputs)
        metrics = _kept(task, kind.run(dict(task.params), ctx))
        return CellOutcome(
            task.cell_id,
            "done",
            metrics,
            dict(ctx.files),
            time.perf_counter() - started,
            time.thread_time() - cpu,
            worker,
        )
    except Exception as err:
        return CellOutcome(
            task.cell_id,
            "failed",
            seconds=time.perf_counter() - started,
            cpu_seconds=time.thread_time() - cpu,
            worker=worker,
            error=f"{type(err).__name__}: {err}",
            traceback=traceback.format_exc(),
        )
