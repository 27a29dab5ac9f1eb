"""The sweep runner: an experiment's grid -> cells run on a backend -> the result store.

:func:`run_sweep` records the grid in ``DIR/results.sqlite``, skips the cells already done (a
re-run resumes), runs the others on the chosen backend and records each as it finishes. A cell
that raises is recorded as ``failed`` with its traceback and the sweep goes on
(``retry_failed`` re-runs those). On Ctrl-C the cells in flight are abandoned, every finished
one is already recorded, and re-running the same command resumes.

>>> import tempfile
>>> from fluxgraph.experiments.spec import Experiment
>>> exp = Experiment.from_dict({"name": "tiny", "fixed": {"machine": "nodes=4",
...     "trace": "kth-sample.swf", "limit": 5}, "axes": {"queue": ["fcfs", "easy"]},
...     "metrics": ["mean_wait"]})
>>> with tempfile.TemporaryDirectory() as out:
...     first = run_sweep(exp, out, workers=1, progress=False)
...     again = run_sweep(exp, out, workers=1, progress=False)
>>> (first.ran, first.done, again.ran, again.done)
(2, 2, 0, 2)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import yaml

from fluxgraph.experiments.backends import make_backend
from fluxgraph.experiments.kinds import CellOutcome, CellTask
from fluxgraph.experiments.spec import Cell, Experiment
from fluxgraph.experiments.store import ResultStore

__all__ = ["SweepResult", "run_sweep"]


@dataclass(frozen=True)
class SweepResult:
    """What one :func:`run_sweep` call did.

    ``total`` cells in the grid; ``ran`` this call (``failed_now`` of them failed); after it,
    ``done`` and ``failed`` cells in the store; ``interrupted`` by Ctrl-C.
    """

    out_dir: Path
    total: int
    ran: int
    failed_now: int
    done: int
    failed: int
    interrupted: bool
    seconds: float
    backend: str
    first_failure: str = ""

    @property
    def all_failed(self) -> bool:
        """Whether the grid has cells and every one of them failed."""
        return self.total > 0 and self.failed == self.total

    @property
    def cells_per_second(self) -> float:
        """Cells run per wall-clock second in this call."""
        return self.ran / self.seconds if self.seconds > 0 else 0.0


def _drive(backend: Any, tasks: Sequence[CellTask]) -> Iterator[CellOutcome]:
    """Outcomes as cells finish, keeping at most ``backend.window`` cells in flight."""
    queue = iter(tasks)
    inflight: dict[Any, CellTask] = {}
    window = backend.window or len(tasks)

    def fill() -> None:
        while len(inflight) < window:
            task = next(queue, None)
            if task is None:
                return
            inflight[backend.submit(task)] = task

    fill()
    while inflight:
        for future in backend.wait(list(inflight)):
            task = inflight.pop(future)
            yield backend.outcome(future, task)
        fill()


def _log(cell: Cell, total: int, outcome: CellOutcome) -> str:
    """The ``--verbose`` line of one finished cell."""
    axes = " ".join(f"{k}={v}" for k, v in cell.axes.items())
    what = "done" if outcome.status == "done" else f"FAILED ({outcome.error})"
    where = f" on {outcome.worker}" if outcome.worker else ""
    return (
        f"cell {cell.index + 1}/{total} {cell.id} {axes}: {what} in {outcome.seconds:.2f} s{where}"
    )


def _progress(total: int, initial: int, enabled: bool | None, stream: TextIO):
    from tqdm import tqdm

    if enabled is None:
        enabled = stream.isatty()
    return tqdm(
        total=total,
        initial=initial,
        unit="cell",
        file=stream,
        disable=not enabled,
        dynamic_ncols=True,
        desc="sweep",
    )


def run_sweep(
    experiment: Experiment,
    out_dir: str | Path,
    *,
    workers: int | None = None,
    dask: str | None = None,
    retry_failed: bool = False,
    progress: bool | None = None,
    verbose: bool = False,
    stream: TextIO | None = None,
) -> SweepResult:
    """Run (or resume) the sweep of ``experiment`` into ``out_dir``.

    Parameters
    ----------
    workers : local worker processes (default: the CPU count; 1 runs cells in this process);
        with ``dask=local`` the number of LocalCluster workers.
    dask : a scheduler address, ``local``, ``jobqueue`` (the experiment's ``cluster``) or a
        cluster YAML file (see :mod:`fluxgraph.experiments.backends`).
    retry_failed : run failed cells again.
    progress : show the progress bar (default: when ``stream`` is a terminal).
    verbose : one log line per finished cell on ``stream``.
    stream : where progress and log lines go (default ``sys.stderr``).

    Raises
    ------
    ExperimentError
        For a grid that cannot be built, a store locked by another sweep, or an unreachable
        backend; nothing has run then.
    """
    stream = stream if stream is not None else sys.stderr
    started = time.perf_counter()
    cells: list[Cell] = experiment.cells()
    by_id = {c.id: c for c in cells}
    out = Path(out_dir)
    early = None
    if dask is not None and not out.exists():  # reach the cluster before touching the disk
        early = make_backend(workers, dask, experiment.cluster)
    try:
        store = ResultStore(out)
    except BaseException:
        if early is not None:
            early.close(abandon=True)
        raise
    with store:
        store.sync(experiment, cells)
        (out / "experiment.yaml").write_text(
            yaml.safe_dump(experiment.to_dict(), sort_keys=False, allow_unicode=True)
        )
        todo = [by_id[cid] for cid in store.todo(experiment.metrics, retry_failed)]
        ran = failed_now = 0
        interrupted = False
        backend_name = "none"
        if early is not None and not todo:
            early.close()
        if todo:
            backend = early or make_backend(workers, dask, experiment.cluster)
            backend_name = backend.name
            bar = _progress(len(cells), len(cells) - len(todo), progress, stream)
            try:
                tasks = [c.task(experiment) for c in todo]
                for outcome in _drive(backend, tasks):
                    store.record(outcome)
                    ran += 1
                    failed_now += outcome.status == "failed"
                    bar.update(1)
                    if verbose or outcome.status == "failed":
                        bar.write(_log(by_id[outcome.cell_id], len(cells), outcome), file=stream)
            except KeyboardInterrupt:
                interrupted = True
                backend.close(abandon=True)
            except BaseException:
                backend.close(abandon=True)
                raise
            else:
                backend.close()
            finally:
                bar.close()
        counts = store.counts()
        failure = next(iter(store.rows(status=("failed",))), None)
    return SweepResult(
        out,
        len(cells),
        ran,
        failed_now,
        counts["done"],
        counts["failed"],
        interrupted,
        time.perf_counter() - started,
        backend_name,
        "" if failure is None else f"cell {failure.cell_id} {failure.axes}: {failure.error}",
    )
