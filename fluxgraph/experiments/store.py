"""The result store of a sweep: ``DIR/results.sqlite`` (SQLite in WAL mode).

Schema (``docs/experiments.md`` describes it for users)::

    meta(key TEXT PRIMARY KEY, value TEXT)          schema_version, experiment (JSON), ...
    cells(cell_id TEXT PRIMARY KEY, ordinal INT,    one row per cell ever in the grid
          kind TEXT, params TEXT, axes TEXT,        params/axes: canonical JSON
          current INT,                              1 = in the experiment's current grid
          status TEXT,                              pending | done | failed
          attempts INT, seconds REAL,               the last run: wall and CPU seconds,
          cpu_seconds REAL, worker TEXT,            host:pid
          finished_at TEXT, error TEXT, traceback TEXT)
    results(cell_id TEXT, metric TEXT, value REAL,  one row per cell and metric
            PRIMARY KEY (cell_id, metric))

Only the sweep's own process writes, one transaction per finished cell (its metric rows and its
status together), so a crash or Ctrl-C loses at most the cells in flight and never leaves a cell
half recorded. A lock file stops two sweeps writing the same store.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fluxgraph.errors import ExperimentError
from fluxgraph.experiments.kinds import CellOutcome
from fluxgraph.experiments.spec import Cell, Experiment, canonical

try:  # POSIX only; elsewhere two concurrent sweeps are not detected
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = ["DB_NAME", "SCHEMA_VERSION", "CellRow", "ResultStore"]

DB_NAME = "results.sqlite"
SCHEMA_VERSION = 1

#: Result directories whose writer lock this process holds (see :meth:`ResultStore._lock`).
_LOCKED_HERE: set[str] = set()

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cells (
    cell_id TEXT PRIMARY KEY,
    ordinal INTEGER NOT NULL,
    kind TEXT NOT NULL,
    params TEXT NOT NULL,
    axes TEXT NOT NULL,
    current INTEGER NOT NULL DEFAULT 1,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    seconds REAL,
    cpu_seconds REAL,
    worker TEXT,
    finished_at TEXT,
    error TEXT,
    traceback TEXT
);
CREATE TABLE IF NOT EXISTS results (
    cell_id TEXT NOT NULL REFERENCES cells(cell_id) ON DELETE CASCADE,
    metric TEXT NOT NULL,
    value REAL,
    PRIMARY KEY (cell_id, metric)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS cells_current ON cells(current, status);
"""


@dataclass(frozen=True)
class CellRow:
    """One cell as stored, with its metrics (``None`` for a NaN value)."""

    cell_id: str
    ordinal: int
    kind: str
    params: dict[str, Any]
    axes: dict[str, Any]
    status: str
    attempts: int
    seconds: float | None
    cpu_seconds: float | None
    worker: str | None
    error: str | None
    traceback: str | None
    metrics: dict[str, float | None]


class ResultStore:
    """The store of the sweep directory ``out_dir`` (created with the store).

    ``readonly=True`` opens an existing store for reports and exports (no lock taken).
    """

    def __init__(self, out_dir: str | Path, *, readonly: bool = False) -> None:
        self.dir = Path(out_dir)
        self.path = self.dir / DB_NAME
        self._lock_fh = None
        self._lock_key: str | None = None
        if readonly:
            if not self.path.is_file():
                raise ExperimentError(f"{out_dir}: no sweep results here (no {DB_NAME})")
            uri = f"file:{self.path.resolve()}?mode=ro"
            self.db = sqlite3.connect(uri, uri=True)
            try:
                self._check_version()
            except sqlite3.DatabaseError as err:
                self.db.close()
                raise ExperimentError(f"{self.path}: not a result store: {err}") from None
            return
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ExperimentError(f"cannot create {out_dir}: {err}") from None
        self._lock()
        self.db = sqlite3.connect(self.path, timeout=30)
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            with self.db:
                self.db.executescript(_SCHEMA)
                self.db.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
            self._check_version()
        except ExperimentError:
            self.close()
            raise
        except sqlite3.DatabaseError as err:
            self.close()
            raise ExperimentError(f"{self.path}: not a result store: {err}") from None

    def _lock(self) -> None:
        """Take the directory's writer lock: one sweep per directory, across processes and
        within one.

        A POSIX record lock (``lockf``) belongs to this process alone: the pool's forked
        workers do not inherit it, so it dies with the sweep (a sweep killed with SIGKILL can
        be resumed at once, while its workers are still winding down). Such a lock does not
        exclude this process itself, so the directories locked here are also kept in
        :data:`_LOCKED_HERE`.
        """
        key = str(self.dir.resolve())
        held = ExperimentError(f"{self.dir}: another sweep is writing these results (lock held)")
        if key in _LOCKED_HERE:
            raise held
        if fcntl is not None:
            fh = open(self.dir / ".sweep.lock", "a+")  # noqa: SIM115 (held open until close())
            try:
                fcntl.lockf(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                fh.close()
                raise held from None
            fh.truncate(0)
            fh.write(f"{os.getpid()}\n")
            fh.flush()
            self._lock_fh = fh
        _LOCKED_HERE.add(key)
        self._lock_key = key

    def _check_version(self) -> None:
        row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None or int(row[0]) != SCHEMA_VERSION:
            raise ExperimentError(
                f"{self.path}: result store version {row and row[0]}, expected {SCHEMA_VERSION}"
            )

    def close(self) -> None:
        """Close the database and release the lock."""
        self.db.close()
        if self._lock_fh is not None:
            self._lock_fh.close()
            self._lock_fh = None
        if self._lock_key is not None:
            _LOCKED_HERE.discard(self._lock_key)
            self._lock_key = None

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the grid --------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        """A value of the ``meta`` table."""
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def experiment(self) -> dict[str, Any] | None:
        """The document of the experiment last swept into this store."""
        text = self.meta("experiment")
        return json.loads(text) if text else None

    def sync(self, experiment: Experiment, cells: Sequence[Cell]) -> None:
        """Record ``experiment`` and its grid: new cells are added as pending, cells no longer
        in the grid are kept (with their results) but marked not current."""
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('experiment', ?)",
                (canonical(experiment.to_dict()),),
            )
            self.db.execute("UPDATE cells SET current = 0")
            self.db.executemany(
                "INSERT INTO cells (cell_id, ordinal, kind, params, axes, current) "
                "VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT(cell_id) DO UPDATE SET "
                "current = 1, ordinal = excluded.ordinal, axes = excluded.axes",
                [
                    (c.id, c.index, c.kind, canonical(dict(c.params)), canonical(dict(c.axes)))
                    for c in cells
                ],
            )

    def todo(self, metrics: Sequence[str] | None, retry_failed: bool = False) -> list[str]:
        """Ids of the current cells to run, in grid order: pending ones, failed ones with
        ``retry_failed``, and done ones lacking one of ``metrics``."""
        statuses = ("pending", "failed") if retry_failed else ("pending",)
        marks = ",".join("?" * len(statuses))
        ids = [
            r[0]
            for r in self.db.execute(
                f"SELECT cell_id FROM cells WHERE current = 1 AND status IN ({marks}) "
                "ORDER BY ordinal",
                statuses,
            )
        ]
        if metrics:
            want = set(metrics)
            have: dict[str, set[str]] = {}
            for cid, metric in self.db.execute(
                "SELECT r.cell_id, r.metric FROM results r JOIN cells c USING (cell_id) "
                "WHERE c.current = 1 AND c.status = 'done'"
            ):
                have.setdefault(cid, set()).add(metric)
            done = self.db.execute(
                "SELECT cell_id FROM cells WHERE current = 1 AND status = 'done' ORDER BY ordinal"
            )
            stale = [cid for (cid,) in done if not want <= have.get(cid, set())]
            if stale:
                order = dict(self.db.execute("SELECT cell_id, ordinal FROM cells"))
                ids = sorted({*ids, *stale}, key=order.__getitem__)
        return ids

    def counts(self, current_only: bool = True) -> dict[str, int]:
        """Cells per status."""
        where = "WHERE current = 1" if current_only else ""
        rows = self.db.execute(f"SELECT status, count(*) FROM cells {where} GROUP BY status")
        out = {"pending": 0, "done": 0, "failed": 0}
        out.update(dict(rows))
        return out

    # -- recording -------------------------------------------------------------------------

    def record(self, outcome: CellOutcome) -> None:
        """Record one finished cell (its output files first, then one transaction)."""
        if outcome.status == "done" and outcome.files:
            cell_dir = self.dir / "cells" / outcome.cell_id
            cell_dir.mkdir(parents=True, exist_ok=True)
            for name, text in outcome.files.items():
                tmp = cell_dir / f".{name}.tmp"
                tmp.write_text(text)
                tmp.replace(cell_dir / Path(name).name)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        with self.db:
            self.db.execute("DELETE FROM results WHERE cell_id = ?", (outcome.cell_id,))
            if outcome.status == "done":
                self.db.executemany(
                    "INSERT INTO results VALUES (?, ?, ?)",
                    [(outcome.cell_id, m, v) for m, v in outcome.metrics.items()],
                )
            self.db.execute(
                "UPDATE cells SET status = ?, attempts = attempts + 1, seconds = ?, "
                "cpu_seconds = ?, worker = ?, finished_at = ?, error = ?, traceback = ? "
                "WHERE cell_id = ?",
                (
                    outcome.status,
                    outcome.seconds,
                    outcome.cpu_seconds,
                    outcome.worker,
                    stamp,
                    outcome.error or None,
                    outcome.traceback or None,
                    outcome.cell_id,
                ),
            )

    # -- reading ---------------------------------------------------------------------------

    def rows(
        self, *, status: Iterable[str] = ("done",), current_only: bool = True
    ) -> Iterator[CellRow]:
        """Cells (with their metrics) in grid order."""
        statuses = tuple(status)
        marks = ",".join("?" * len(statuses))
        where = f"status IN ({marks})" + (" AND current = 1" if current_only else "")
        metrics: dict[str, dict[str, float | None]] = {}
        for cid, metric, value in self.db.execute(
            f"SELECT cell_id, metric, value FROM results WHERE cell_id IN "
            f"(SELECT cell_id FROM cells WHERE {where}) ORDER BY metric",
            statuses,
        ):
            metrics.setdefault(cid, {})[metric] = value
        for row in self.db.execute(
            "SELECT cell_id, ordinal, kind, params, axes, status, attempts, seconds, cpu_seconds, "
            "worker, "
            f"error, traceback FROM cells WHERE {where} ORDER BY ordinal",
            statuses,
        ):
            cid = row[0]
            yield CellRow(
                cid,
                row[1],
                row[2],
                json.loads(row[3]),
                json.loads(row[4]),
                *row[5:],
                metrics=metrics.get(cid, {}),
            )

    def result_rows(self) -> list[tuple[str, str, float | None]]:
        """Every ``(cell_id, metric, value)`` of the current done cells, sorted."""
        return list(
            self.db.execute(
                "SELECT r.cell_id, r.metric, r.value FROM results r JOIN cells c USING (cell_id) "
                "WHERE c.current = 1 AND c.status = 'done' ORDER BY r.cell_id, r.metric"
            )
        )
