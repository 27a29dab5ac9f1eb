"""Workloads: job traces and generators -> :class:`Workload` of immutable :class:`Job` records."""

from __future__ import annotations

from fluxgraph.workload.job import Job, Workload

__all__ = ["Job", "Workload"]
