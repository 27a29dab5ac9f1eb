"""Exception hierarchy: one base, one subclass per layer.

Each error carries ``errno`` where the reference sets one, so front ends can
print ``os.strerror(err.errno)`` the way the reference does.
"""

from __future__ import annotations

__all__ = [
    "ExperimentError",
    "FluxgraphError",
    "GraphError",
    "JobspecError",
    "MatchError",
    "PlannerError",
    "QueryError",
    "ReaderError",
    "SimulationError",
    "WorkloadError",
]


class FluxgraphError(Exception):
    """Base class of every error raised by fluxgraph."""

    errno: int | None = None

    def __init__(self, message: str = "", errno: int | None = None) -> None:
        super().__init__(message)
        if errno is not None:
            self.errno = errno


class PlannerError(FluxgraphError):
    """Invalid planner request (maps onto the reference's EINVAL/ERANGE/ENOENT/...)."""


class GraphError(FluxgraphError):
    """Invalid operation on the resource graph store."""


class ReaderError(FluxgraphError):
    """Malformed graph input (GRUG, JGF, rv1exec, hwloc).

    ``reference_message`` is the exact text the reference reader reports for the same input
    (what ``resource-query`` prints); ``str(err)`` is the detailed message naming the file,
    element or key, and the problem.
    """

    def __init__(
        self, message: str = "", errno: int | None = None, reference_message: str = ""
    ) -> None:
        super().__init__(message, errno)
        self.reference_message = reference_message


class JobspecError(FluxgraphError):
    """Invalid jobspec.

    ``path`` names the offending place (``resources[0].count.min``; ``""`` for the whole
    document) and ``reason`` is the reference's text alone, which the CLI prints.
    """

    path: str = ""
    reason: str = ""


class MatchError(FluxgraphError):
    """A match, cancel or other traverser operation failed."""


class QueryError(FluxgraphError):
    """Bad command or option given to the resource-query front end."""


class WorkloadError(FluxgraphError):
    """Malformed job trace or bad generator parameters.

    ``source`` names the file (or generator), ``line`` the 1-based line (0 = not line-bound) and
    ``field`` the offending field or column (``""`` when the whole line is bad).
    """

    def __init__(self, message: str, source: str = "", line: int = 0, field: str = "") -> None:
        where = source + (f":{line}" if line else "") + (f": field {field}" if field else "")
        super().__init__(f"{where}: {message}" if where else message)
        self.source = source
        self.line = line
        self.field = field


class SimulationError(FluxgraphError):
    """Bad simulator input: unknown queue policy, priority or job shape, or a bad machine spec."""


class ExperimentError(FluxgraphError):
    """Bad experiment description (names the key), or a sweep that cannot run or resume."""
