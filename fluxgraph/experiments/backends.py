"""Where cells run: in this process, in a local process pool, or on a Dask cluster.

Every backend runs the same :func:`~fluxgraph.experiments.kinds.run_cell` on the same
:class:`~fluxgraph.experiments.kinds.CellTask`, so results do not depend on the backend.

* :class:`SerialBackend` (``--workers 1``): cells run one after the other in this process;
* :class:`PoolBackend` (``--workers N``, default): a ``concurrent.futures`` process pool whose
  workers ignore SIGINT (the sweep handles Ctrl-C) and exit when the sweep's process dies;
* :class:`DaskBackend` (``--dask ADDRESS|local|jobqueue|CLUSTER.yaml``): a ``distributed``
  client of a running scheduler (``tcp://host:8786``), of a ``LocalCluster`` (``local``), or of
  a dask-jobqueue cluster (Slurm, PBS, ...) configured by the experiment's ``cluster`` section
  (``jobqueue``) or by a YAML file holding such a section. Needs ``pip install fluxgraph[dask]``.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import os
import signal
import threading
import time
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from fluxgraph.errors import ExperimentError
from fluxgraph.experiments.kinds import CellOutcome, CellTask, run_cell
from fluxgraph.experiments.spec import validate_cluster

__all__ = ["JOBQUEUE_CLASSES", "DaskBackend", "PoolBackend", "SerialBackend", "make_backend"]

#: ``cluster.jobqueue`` value -> the dask_jobqueue class it makes.
JOBQUEUE_CLASSES = {
    "slurm": "SLURMCluster",
    "pbs": "PBSCluster",
    "sge": "SGECluster",
    "lsf": "LSFCluster",
    "htcondor": "HTCondorCluster",
    "moab": "MoabCluster",
    "oar": "OARCluster",
}


def _failed(task: CellTask, err: BaseException, why: str) -> CellOutcome:
    text = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    error = f"{why}: {type(err).__name__}: {err}"
    return CellOutcome(task.cell_id, "failed", error=error, traceback=text)


class SerialBackend:
    """Cells run in this process, one at a time."""

    name = "serial"
    window = 1

    def submit(self, task: CellTask) -> cf.Future:
        future: cf.Future = cf.Future()
        future.set_result(run_cell(task))
        return future

    def wait(self, futures) -> set:
        return set(futures)

    def outcome(self, future, task: CellTask) -> CellOutcome:
        return future.result()

    def close(self, abandon: bool = False) -> None:
        return None


def _watch_parent() -> None:
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)  # the sweep died (SIGKILL): do not linger as an orphan


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, daemon=True).start()


class PoolBackend:
    """A local process pool of ``workers`` processes."""

    name = "pool"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.window = 2 * workers
        self._start()

    def _start(self) -> None:
        self.executor = cf.ProcessPoolExecutor(self.workers, initializer=_worker_init)

    def submit(self, task: CellTask) -> cf.Future:
        try:
            return self.executor.submit(run_cell, task)
        except cf.BrokenExecutor:  # a worker died under an earlier cell: start a new pool
            self.executor.shutdown(wait=False, cancel_futures=True)
            self._start()
            return self.executor.submit(run_cell, task)

    def wait(self, futures) -> set:
        return cf.wait(futures, return_when=cf.FIRST_COMPLETED).done

    def outcome(self, future, task: CellTask) -> CellOutcome:
        try:
            return future.result()
        except Exception as err:  # BrokenProcessPool: a worker died (killed, out of memory)
            return _failed(task, err, "worker process died while this cell was in flight")

    def close(self, abandon: bool = False) -> None:
        if abandon:
            terminate = getattr(self.executor, "terminate_workers", None)  # Python >= 3.14
            if terminate is not None:
                terminate()
            else:
                for proc in list(getattr(self.executor, "_processes", {}).values()):
                    proc.terminate()
        self.executor.shutdown(wait=not abandon, cancel_futures=True)


def load_cluster_file(path: str | Path) -> dict[str, Any]:
    """A dask-jobqueue ``cluster`` section read from a YAML file (its ``cluster`` key, or the
    whole document), validated as in an experiment."""
    try:
        doc = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as err:
        raise ExperimentError(f"{path}: cannot read the cluster description: {err}") from None
    if isinstance(doc, dict) and "cluster" in doc:
        doc = doc["cluster"]
    return validate_cluster(doc, str(path))


def jobqueue_cluster(config: Mapping[str, Any], start: bool = True):
    """The dask-jobqueue cluster of a ``cluster`` section, scaled or adaptive.

    ``jobqueue`` picks the class (``slurm`` -> ``SLURMCluster``), ``scale`` the number of batch
    jobs (default 1) or ``adapt`` ``{minimum, maximum}``; every other key is passed to the class
    (``cores``, ``memory``, ``queue``, ``account``, ``walltime``, ``job_extra_directives``...).
    ``start=False`` submits no batch job (e.g. to look at ``cluster.job_script()``).
    """
    try:
        import dask_jobqueue
    except ImportError:
        raise ExperimentError(
            "the jobqueue backend needs dask-jobqueue: pip install 'fluxgraph[dask]'"
        ) from None
    kwargs = {k: v for k, v in config.items() if k not in ("jobqueue", "scale", "adapt")}
    cls = getattr(dask_jobqueue, JOBQUEUE_CLASSES[config["jobqueue"]])
    cluster = cls(**kwargs)
    if not start:
        return cluster
    if "adapt" in config:
        cluster.adapt(**config["adapt"])
    else:
        cluster.scale(jobs=config.get("scale", 1))
    return cluster


class DaskBackend:
    """Cells run as Dask tasks (see the module docstring)."""

    name = "dask"
    window = None  # submit every cell: the scheduler spreads them over workers as they join

    def __init__(
        self, address: str, workers: int, cluster_config: Mapping[str, Any] | None = None
    ) -> None:
        try:
            import distributed
        except ImportError:
            raise ExperimentError(
                "the Dask backend needs dask.distributed: pip install 'fluxgraph[dask]'"
            ) from None
        self._distributed = distributed
        self.cluster = None
        if address == "local":
            self.cluster = distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            self.name = f"dask LocalCluster({workers} workers)"
        elif address == "jobqueue" or address.endswith((".yaml", ".yml")):
            if address == "jobqueue":
                if not cluster_config:
                    raise ExperimentError(
                        "--dask jobqueue: the experiment has no 'cluster' section"
                    )
                config = dict(cluster_config)
            else:
                config = load_cluster_file(address)
            self.cluster = jobqueue_cluster(config)
            self.name = f"dask-jobqueue {config['jobqueue']}"
        else:
            self.name = f"dask {address}"
        target = self.cluster if self.cluster is not None else address
        try:
            # Connect timeout: dask's distributed.comm.timeouts.connect (30 s by default).
            self.client = distributed.Client(target)
        except (OSError, TimeoutError) as err:
            if self.cluster is not None:
                self.cluster.close()
            raise ExperimentError(f"cannot reach the Dask scheduler {address}: {err}") from None
        self._n = 0

    def submit(self, task: CellTask):
        self._n += 1
        return self.client.submit(
            run_cell, task, key=f"fluxgraph-cell-{task.cell_id}-{self._n}", pure=False
        )

    def wait(self, futures) -> set:
        return set(self._distributed.wait(list(futures), return_when="FIRST_COMPLETED").done)

    def outcome(self, future, task: CellTask) -> CellOutcome:
        try:
            return future.result()
        except Exception as err:  # KilledWorker, CancelledError, a lost scheduler
            return _failed(task, err, "the Dask task failed")

    def close(self, abandon: bool = False) -> None:
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()


def make_backend(
    workers: int | None = None,
    dask: str | None = None,
    cluster_config: Mapping[str, Any] | None = None,
):
    """The backend for ``--workers``/``--dask`` (see the module docstring)."""
    n = workers if workers is not None else (os.cpu_count() or 1)
    if n < 1:
        raise ExperimentError(f"--workers must be >= 1, got {n}")
    if dask:
        return DaskBackend(dask, n, cluster_config)
    if n == 1:
        return SerialBackend()
    return PoolBackend(n)
