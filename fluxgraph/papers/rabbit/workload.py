"""Synthetic rabbit storage for job traces (rabbit spec §3.2, proposed there).

A seeded stream ``random.Random(f"rabbit-{seed}")`` walks the trace in order. Per job: with
probability 0.25 one ``xfs`` file system of {128, 256, 512, 1024, 1501} GiB per node (weights
30/30/20/15/5 %); then, independently, with probability 0.10 one Lustre file system of {1, 4,
10, 50} TiB (40/30/20/10 %). Then ``persistent`` storage-only Lustre jobs: creation uniform
over the trace span, {10, 50, 100} TiB, lifetime U(1 d, 7 d) (held for the whole lifetime).

>>> from fluxgraph.workload import Job
>>> jobs = storage_jobs([Job(1, 0, 50, 60, nodes=2), Job(2, 10, 5, 9, nodes=1)], seed=3)
>>> sorted((j.id, j.request.nodes, j.request.walltime) for j in jobs if not j.persistent)
[(1, 2, 60), (2, 1, 9)]
>>> sorted(j.id for j in jobs if j.persistent) == list(range(3, 23))
True
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from fluxgraph.errors import WorkloadError
from fluxgraph.papers.rabbit.directives import StorageRequest
from fluxgraph.workload import Job

__all__ = ["StorageJob", "storage_jobs", "without_storage"]

_XFS_GIB = (128, 256, 512, 1024, 1501)
_XFS_WEIGHTS = (30, 30, 20, 15, 5)
_LUSTRE_TIB = (1, 4, 10, 50)
_LUSTRE_WEIGHTS = (40, 30, 20, 10)
_PERSISTENT_TIB = (10, 50, 100)
DAY = 86_400


@dataclass(frozen=True, slots=True)
class StorageJob:
    """A job of a storage simulation: id, submit time, runtime and its storage request."""

    id: int
    submit: int
    runtime: int
    request: StorageRequest

    @property
    def persistent(self) -> bool:
        """Whether the job is a storage-only (persistent Lustre) allocation."""
        return self.request.nodes == 0


def storage_jobs(
    trace: Iterable[Job], seed: int, persistent: int = 20, p_xfs: float = 0.25, p_lustre=0.10
) -> list[StorageJob]:
    """The jobs of ``trace`` (``nodes``, else ``procs``, as nodes) with synthetic storage.

    Persistent jobs get ids after the trace's largest id. Raises
    :class:`~fluxgraph.errors.WorkloadError` for an empty trace.
    """
    rng = random.Random(f"rabbit-{seed}")
    out = []
    for job in trace:
        local = (rng.choices(_XFS_GIB, _XFS_WEIGHTS)[0],) if rng.random() < p_xfs else ()
        tib = rng.choices(_LUSTRE_TIB, _LUSTRE_WEIGHTS)[0] if rng.random() < p_lustre else 0
        request = StorageRequest(
            job.nodes or job.procs, job.walltime, local, (tib * 1024,) if tib else ()
        )
        out.append(StorageJob(job.id, job.submit, min(job.runtime, job.walltime), request))
    if not out:
        raise WorkloadError("no jobs to add storage to", source=f"rabbit-{seed}")
    first, last = out[0].submit, max(j.submit for j in out)
    next_id = max(j.id for j in out) + 1
    for i in range(persistent):
        created = rng.randint(first, last)
        tib = rng.choice(_PERSISTENT_TIB)
        lifetime = rng.randint(DAY, 7 * DAY)
        request = StorageRequest(0, lifetime, (), (tib * 1024,))
        out.append(StorageJob(next_id + i, created, lifetime, request))
    out.sort(key=lambda j: (j.submit, j.id))
    return out


def without_storage(jobs: Iterable[StorageJob]) -> list[StorageJob]:
    """The same compute jobs without storage (storage-only jobs dropped): the baseline run."""
    return [
        StorageJob(j.id, j.submit, j.runtime, StorageRequest(j.request.nodes, j.request.walltime))
        for j in jobs
        if not j.persistent
    ]
