"""The paper's synthetic workloads W1 and W2 (§IV, §VII-A; spec §3).

Job types are ``threads`` writers of 10 GiB each (``write8`` ... ``write1``) or a ``sleep`` of
``sleep_s`` seconds without I/O (60 s by the spec's decision D1; the paper's literal 600 s is
the X5 sensitivity run). Every job takes one node, has time limit ``limit`` (600 s) and is
submitted at ``k * inter_submit_s`` in wave order (0 by decision D4); ids 0, 1, 2, ... wave by
wave, phase by phase. A job's ``extra`` carries ``kind`` (its estimator key), ``streams``,
``stream_gib`` and ``compute_s`` (read by :class:`~fluxgraph.papers.ioaware.fluid.FluidFileSystem`).
Both workloads are fully determined (no random draws).

>>> [len(w1()), len(w2()), len(w1(waves=2)), len(w2(waves=1))]
[720, 1550, 180, 310]
>>> w2()[0].extra["kind"], w2()[309].extra["kind"], w2()[310].extra["kind"]
('write8', 'sleep', 'write8')
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from fluxgraph.errors import WorkloadError
from fluxgraph.workload import Job, Workload

__all__ = ["STREAM_GIB", "THREADS", "W1_WAVE", "W2_WAVE", "build_waves", "w1", "w2"]

#: GiB written by each thread.
STREAM_GIB = 10.0

#: Job type -> writer threads (0: a sleep job).
THREADS: Mapping[str, int] = MappingProxyType(
    {"write8": 8, "write6": 6, "write4": 4, "write2": 2, "write1": 1, "sleep": 0}
)

#: One wave of W1 (§IV): ``(type, count)`` phases.
W1_WAVE: tuple[tuple[str, int], ...] = (("write8", 30), ("sleep", 60))
#: One wave of W2 (§VII-A).
W2_WAVE: tuple[tuple[str, int], ...] = (
    ("write8", 30),
    ("write6", 30),
    ("write4", 30),
    ("write2", 70),
    ("write1", 120),
    ("sleep", 30),
)


def build_waves(
    wave: Sequence[tuple[str, int]],
    repeats: int,
    sleep_s: int = 60,
    limit: int = 600,
    inter_submit_s: int = 0,
    name: str = "",
) -> Workload:
    """``repeats`` repetitions of ``wave`` as a :class:`Workload` (see the module docstring)."""
    if repeats < 1 or sleep_s < 1 or limit < 1 or inter_submit_s < 0:
        raise WorkloadError(
            f"waves: need repeats, sleep_s, limit >= 1 and inter_submit_s >= 0 "
            f"(got {repeats}, {sleep_s}, {limit}, {inter_submit_s})"
        )
    jobs: list[Job] = []
    for _ in range(repeats):
        for kind, n in wave:
            if kind not in THREADS:
                raise WorkloadError(f"unknown job type {kind!r} (valid: {', '.join(THREADS)})")
            threads = THREADS[kind]
            extra = MappingProxyType(
                {
                    "kind": kind,
                    "streams": threads,
                    "stream_gib": STREAM_GIB if threads else 0.0,
                    "compute_s": 0.0 if threads else float(sleep_s),
                }
            )
            # ``runtime`` is only a record field here (the fluid model decides the real one)
            runtime = sleep_s if not threads else math.ceil(STREAM_GIB / 0.5)
            for _ in range(n):
                k = len(jobs)
                jobs.append(
                    Job(k, k * inter_submit_s, min(runtime, limit), limit, 1, 1, extra=extra)
                )
    return Workload.of(jobs, name=name or "waves")


def w1(waves: int = 8, sleep_s: int = 60, limit: int = 600, inter_submit_s: int = 0) -> Workload:
    """Workload 1: ``waves`` x (30 write8 then 60 sleep)."""
    return build_waves(W1_WAVE, waves, sleep_s, limit, inter_submit_s, name=f"W1x{waves}")


def w2(waves: int = 5, sleep_s: int = 60, limit: int = 600, inter_submit_s: int = 0) -> Workload:
    """Workload 2: ``waves`` x (30 write8, 30 write6, 30 write4, 70 write2, 120 write1,
    30 sleep)."""
    return build_waves(W2_WAVE, waves, sleep_s, limit, inter_submit_s, name=f"W2x{waves}")
