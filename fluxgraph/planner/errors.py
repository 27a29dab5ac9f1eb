"""Planner error classes, one per errno class of the reference planner.

Each class is a :class:`fluxgraph.errors.PlannerError` whose ``errno`` is the
:mod:`errno` value the reference sets for the same condition, so callers can
branch on the class or on ``err.errno``.
"""

from __future__ import annotations

import errno as _errno

from fluxgraph.errors import PlannerError

__all__ = [
    "PlannerBusyError",
    "PlannerExistsError",
    "PlannerInvalidError",
    "PlannerNotFoundError",
    "PlannerRangeError",
]


class PlannerInvalidError(PlannerError):
    """Invalid argument: bad time, duration, span id or state (``EINVAL``)."""

    errno = _errno.EINVAL


class PlannerRangeError(PlannerError):
    """Amount or time out of range (``ERANGE``)."""

    errno = _errno.ERANGE


class PlannerNotFoundError(PlannerError):
    """Unknown multi-span id, or no answer where one was required (``ENOENT``)."""

    errno = _errno.ENOENT


class PlannerBusyError(PlannerError):
    """The requested amount is not free over the requested time (``EBUSY``)."""

    errno = _errno.EBUSY


class PlannerExistsError(PlannerError):
    """A new span id collides with an existing one (``EEXIST``)."""

    errno = _errno.EEXIST
