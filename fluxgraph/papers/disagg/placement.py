"""What both disaggregated-memory allocators share: requests, placements, options and rules.

Disaggregated-memory spec §4.3-§4.6 (Zacarias et al. §IV-C, §IV-D). The graph allocator
(:class:`~fluxgraph.papers.disagg.alloc.MemoryAllocator`, the ``memory-pool`` policy on the
graph matcher) and the span-table one (:class:`~fluxgraph.papers.disagg.arrays.ArrayAllocator`)
take the same :class:`MemoryRequest`, return the same :class:`MemoryPlacement`, accept the same
model options (checked by :func:`check_options`), refuse the same never-fitting jobs
(:func:`never_fits`, §4.6) and split a cover into pieces with the same greedy
(:func:`split_deficits`, D2).

>>> p = MemoryPlacement((0, 3), (32768, 40000), ((1, 0, 7232),), 0, 10, (1, 2), 40000)
>>> round(p.remote_fraction, 4), p.lenders
(0.0904, (1,))
"""

from __future__ import annotations

from dataclasses import dataclass

from fluxgraph.errors import SimulationError

__all__ = [
    "ALLOCATORS",
    "LENDER_COMPUTE",
    "LENDING",
    "MemoryPlacement",
    "MemoryRequest",
    "check_options",
    "never_fits",
    "split_deficits",
]

ALLOCATORS = ("base", "dis")
#: Who lends (D17): the paper's rule (default) and the authors' code's.
LENDING = ("shared", "dedicated")
#: Whether a lender may compute (D1): never (default), or in the local pass if memory fits.
LENDER_COMPUTE = ("never", "if-memory-fits")


@dataclass(frozen=True, slots=True)
class MemoryRequest:
    """``nodes`` whole-node compute units, each wanting ``mib`` MiB of memory."""

    nodes: int
    mib: int


@dataclass(frozen=True, slots=True)
class MemoryPlacement:
    """A booked allocation over ``[start, end)``.

    ``nodes`` are the compute node ranks (ascending), ``local`` the MiB each holds locally,
    ``lent`` the ``(lender, borrower, MiB)`` pieces of remote memory (borrowers in compute-set
    order, lenders in node order), ``ids`` the matcher job ids holding the spans.
    """

    nodes: tuple[int, ...]
    local: tuple[int, ...]
    lent: tuple[tuple[int, int, int], ...]
    start: int
    end: int
    ids: tuple[int, ...]
    mib: int

    @property
    def remote_fraction(self) -> float:
        """``r_j``: the share of the job's memory that is remote (spec §4.4 step 5)."""
        return sum(m for _, _, m in self.lent) / (len(self.nodes) * self.mib)

    @property
    def lenders(self) -> tuple[int, ...]:
        """The lender ranks, ascending."""
        return tuple(sorted({lender for lender, _, _ in self.lent}))


def check_options(kind: str, lending: str, lender_compute: str) -> None:
    """Refuse an unknown allocator or model option, or the one combination that has no
    meaning (a dedicated lender serves one job, so it never computes).

    >>> check_options("dis", "code", "never")   # the old lender_mode="code": see dedicated
    Traceback (most recent call last):
    ...
    fluxgraph.errors.SimulationError: lending 'code' is not one of shared, dedicated
    """
    for name, value, allowed in (
        ("allocator", kind, ALLOCATORS),
        ("lending", lending, LENDING),
        ("lender_compute", lender_compute, LENDER_COMPUTE),
    ):
        if value not in allowed:
            raise SimulationError(f"{name} {value!r} is not one of {', '.join(allowed)}")
    if lending == "dedicated" and lender_compute != "never":
        raise SimulationError(
            f"lender_compute={lender_compute!r} needs lending='shared' (a dedicated lender "
            "serves only the job it lends to)"
        )


def never_fits(capacity: list[int], kind: str, req: MemoryRequest, lending: str = "shared") -> str:
    """Why ``req`` can never run under ``kind`` (and ``lending``) on the empty machine of node
    memory ``capacity`` (spec §4.6), or ``""``.

    >>> never_fits([32768, 65536], "base", MemoryRequest(2, 40000))
    'needs 2 nodes of >= 40000 MiB, the machine has 1'
    """
    if req.nodes < 1 or req.mib < 1:
        return f"invalid request: {req.nodes} nodes of {req.mib} MiB"
    if kind == "base" or req.mib <= max(capacity):
        fit = sum(c >= req.mib for c in capacity)
        if fit >= req.nodes:
            return ""
        if kind == "base":
            return f"needs {req.nodes} nodes of >= {req.mib} MiB, the machine has {fit}"
    if req.nodes > len(capacity):
        return f"needs {req.nodes} nodes, the machine has {len(capacity)}"
    # the empty machine's disaggregated pass: the N largest nodes, the rest lends
    order = sorted(range(len(capacity)), key=lambda r: (-capacity[r], r))
    deficits = [req.mib - capacity[r] for r in order[: req.nodes] if capacity[r] < req.mib]
    rest = [capacity[r] for r in sorted(order[req.nodes :])]
    if lending == "dedicated":  # whole lenders in node order, one deficit each
        used = 0
        for need in deficits:
            while need > 0 and used < len(rest):
                need -= rest[used]
                used += 1
            if need > 0:
                return (
                    f"needs {sum(deficits)} MiB of remote memory, one dedicated lender per "
                    f"deficit: the other {len(rest)} nodes cannot cover them"
                )
        return ""
    deficit, spare = sum(deficits), sum(rest)
    if deficit > spare:
        return f"needs {deficit} MiB of remote memory, the other nodes hold {spare}"
    return ""


def split_deficits(
    deficits: list[tuple[int, int]], given: list[tuple[int, int]]
) -> list[tuple[int, int, int]]:
    """``(lender, borrower, MiB)``: the lenders' ``given`` MiB (in order) cover the borrowers'
    ``deficits`` in order, one lender covering several (D2's greedy).

    >>> split_deficits([(7, 16), (8, 16)], [(0, 20), (1, 12)])
    [(0, 7, 16), (0, 8, 4), (1, 8, 12)]

    Raises
    ------
    SimulationError
        If ``given`` does not add up to ``deficits`` or holds a non-positive amount (an
        internal error of the caller's cover: nothing is split).
    """
    owed, lent = sum(d for _, d in deficits), sum(m for _, m in given)
    if owed != lent or any(d <= 0 for _, d in deficits) or any(m <= 0 for _, m in given):
        raise SimulationError(
            f"internal error: lenders {given} ({lent} MiB) do not cover deficits "
            f"{deficits} ({owed} MiB) exactly"
        )
    pieces = []
    borrowers = iter(deficits)
    borrower, left = 0, 0
    for lender, amount in given:
        while amount:
            if left == 0:
                borrower, left = next(borrowers)
            take = min(amount, left)
            pieces.append((lender, borrower, take))
            amount -= take
            left -= take
    return pieces
