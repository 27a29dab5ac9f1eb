"""Queue policies with Fluxion qmanager's meaning: how far one scheduling pass reserves.

A pass walks the queue in priority order. A job that can start now starts. Otherwise, while
fewer than ``reservation_depth`` jobs were reserved in this pass, the job is reserved at the
earliest time its request fits for its walltime; otherwise it is skipped. ``fcfs`` reserves
nothing and stops the pass at the first job that cannot start.

=================  =====================  ==========================
policy             reservation depth      at a job that cannot start
=================  =====================  ==========================
``fcfs``           0                      stop the pass
``easy``           1                      reserve (first), then skip
``hybrid``         N (default 64)         reserve (first N), then skip
``conservative``   unlimited              reserve
=================  =====================  ==========================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from fluxgraph.errors import SimulationError

__all__ = ["QUEUE_POLICIES", "UNLIMITED", "QueuePolicy", "make_queue_policy"]

#: ``reservation_depth`` of ``conservative``.
UNLIMITED = -1


@dataclass(frozen=True, slots=True)
class QueuePolicy:
    """How one scheduling pass treats jobs that cannot start now.

    Attributes
    ----------
    name : ``fcfs``, ``easy``, ``hybrid`` or ``conservative``.
    reservation_depth : most jobs reserved per pass (:data:`UNLIMITED` = no limit).
    stop_at_blocked : end the pass at the first job that cannot start (``fcfs``).
    queue_depth : most queued jobs one pass considers (``None`` = all of them).

    >>> make_queue_policy("hybrid", reservation_depth=8)
    QueuePolicy(name='hybrid', reservation_depth=8, stop_at_blocked=False, queue_depth=None)
    """

    name: str
    reservation_depth: int
    stop_at_blocked: bool = False
    queue_depth: int | None = None

    def may_reserve(self, reserved: int) -> bool:
        """Whether a pass that reserved ``reserved`` jobs may reserve one more."""
        return self.reservation_depth == UNLIMITED or reserved < self.reservation_depth


#: Policy name -> one-line description.
QUEUE_POLICIES: Mapping[str, str] = MappingProxyType(
    {
        "fcfs": "no backfilling: the pass stops at the first job that cannot start",
        "easy": "EASY backfilling: one reservation per pass",
        "hybrid": "N reservations per pass (--reservation-depth, default 64)",
        "conservative": "conservative backfilling: every blocked job is reserved",
    }
)


def make_queue_policy(
    name: str, reservation_depth: int = 64, queue_depth: int | None = None
) -> QueuePolicy:
    """The queue policy ``name``; ``reservation_depth`` is used by ``hybrid`` only.

    Raises
    ------
    SimulationError
        For an unknown name or a depth below 1.
    """
    if queue_depth is not None and queue_depth < 1:
        raise SimulationError(f"queue depth must be >= 1, got {queue_depth}")
    key = name.lower()
    if key == "fcfs":
        return QueuePolicy("fcfs", 0, True, queue_depth)
    if key == "easy":
        return QueuePolicy("easy", 1, False, queue_depth)
    if key == "hybrid":
        if reservation_depth < 1:
            raise SimulationError(f"reservation depth must be >= 1, got {reservation_depth}")
        return QueuePolicy("hybrid", reservation_depth, False, queue_depth)
    if key == "conservative":
        return QueuePolicy("conservative", UNLIMITED, False, queue_depth)
    raise SimulationError(f"unknown queue policy {name!r} (valid: {', '.join(QUEUE_POLICIES)})")
