"""The Matcher: a graph, a policy, pruning filters and a traverser behind one small API.

Used by the ``resource-query`` front end, simulators and notebooks alike::

    m = Matcher(graph, subsystems="CA", policy="high", prune="ALL:core")
    r = m.match(jobspec, op="allocate_orelse_reserve")
    r.resources, r.at, r.job_id
    m.cancel(r.job_id)
"""

from __future__ import annotations

import copy
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from errno import EINVAL
from types import MappingProxyType
from typing import Any

from fluxgraph.errors import MatchError
from fluxgraph.graph import ResourceGraph
from fluxgraph.graph.depth import MAX_GRAPH_DEPTH, graph_depth
from fluxgraph.jobspec import load as load_jobspec
from fluxgraph.planner import GRAPH_END
from fluxgraph.policies import MatchPolicy, create_policy
from fluxgraph.traverser import elastic as _elastic
from fluxgraph.traverser.core import OPS, Traverser
from fluxgraph.traverser.fastpath import FlatNodes
from fluxgraph.traverser.fastpath_verify import Recorder, assert_same_state, expect
from fluxgraph.traverser.find import find as _find
from fluxgraph.traverser.flexible import FlexibleTraverser
from fluxgraph.traverser.pruning import PruningConfig
from fluxgraph.traverser.request import build_requests
from fluxgraph.traverser.status import mark as _mark
from fluxgraph.writers.sink import SelectedVertex, SelectionCollector

__all__ = [
    "DEFAULT_PRUNE",
    "OPS",
    "SUBSYSTEM_SETS",
    "MatchOutcome",
    "MatchResult",
    "Matcher",
    "job_duration",
]

#: Operations that accept a single selection time ``at`` (:meth:`Matcher.match`).
_AT_OPS = ("allocate", "without_allocating")

#: ``resource-query``'s default prune filters.
DEFAULT_PRUNE = "ALL:core,ALL:node"

#: ``-S`` names -> subsystem lists (the first is dominant).
SUBSYSTEM_SETS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "CA": ("containment",),
        "IBA": ("ibnet",),
        "IBBA": ("ibnetbw",),
        "PA": ("power",),
        "PFS1BA": ("pfs1bw",),
        "C+IBA": ("containment", "ibnet"),
        "C+IBBA": ("containment", "ibnetbw"),
        "C+PA": ("containment", "power"),
        "C+PFS1BA": ("containment", "pfs1bw"),
        "IB+IBBA": ("ibnet", "ibnetbw"),
        "C+P+IBA": ("containment", "power", "ibnet"),
        "V+PFS1BA": ("virtual1", "pfs1bw"),
        "VA": ("virtual1",),
        "ALL": ("containment", "ibnet", "ibnetbw", "pfs1bw", "power"),
    }
)


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """What one traverser run reported (never raised: the front end formats it)."""

    rc: int
    errno: int
    at: int
    duration: int
    message: str
    preorder: int
    postorder: int


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A successful match: the job id, start time, duration and selected vertices."""

    job_id: int
    at: int
    duration: int
    reserved: bool
    resources: list[SelectedVertex] = field(default_factory=list)


def job_duration(seconds: float, graph_duration: int = GRAPH_END) -> int:
    """The traverser's duration for a jobspec's ``system.duration`` (§6.3).

    Raises
    ------
    MatchError
        (errno EINVAL) for NaN, negative, or longer than the graph's time window.

    Examples
    --------
    >>> job_duration(0), job_duration(0.5), job_duration(3600)
    (3153600000, 1, 3600)
    """
    if math.isnan(seconds) or seconds < 0 or seconds > graph_duration:
        raise MatchError(f"invalid job duration {seconds!r}", errno=EINVAL)
    if seconds == 0:
        return graph_duration
    return math.ceil(seconds)


class Matcher:
    """Match jobspecs against ``graph`` (see the module docstring).

    Parameters
    ----------
    graph : the resource graph (its scheduling state is owned by this matcher).
    subsystems : a ``-S`` name (``"CA"``) or a sequence of subsystem names, dominant first.
    policy : a policy name, a custom ``key=value`` string, or a policy object.
    prune : pruning-filter spec (``"ALL:core,ALL:node"``); ``""`` for none.
    traverser : ``"simple"`` or ``"flexible"`` (or-slots, ``xor_slot``).
    exact_visit_counts : visit every vertex as the reference does, so that the visit counts
        (``preorder``/``postorder``) equal its statistics; otherwise id-ordered policies stop
        early where that provably selects the same resources (much faster on large graphs).
    fastpath : ``"auto"`` answers whole-node requests on flat machines from per-node bookings
        (:mod:`fluxgraph.traverser.fastpath`) where that is exact, and walks otherwise;
        ``"off"`` always walks; ``"verify"`` also runs every operation on a walk-only copy of
        the graph and raises ``AssertionError`` unless outcomes, emitted selections and the
        whole scheduling state agree.
    defer_reservations : the fast path records its reservations' writes below the root and
        makes them only when something else reads the planners (a walk, ``find``, a status or
        graph change: :mod:`fluxgraph.traverser.fastpath_defer`); a reservation cancelled before
        that costs almost nothing. Until then ``graph``'s planners lack them: for owners that
        read the state only through this matcher (the simulator).

    Raises
    ------
    MatchError
        ``can't create matcher`` (bad policy), an empty ``subsystems``, ``can't set pruning
        filters`` or ``can't initialize traverser`` (a subsystem without a root, or a graph
        deeper than :data:`~fluxgraph.graph.depth.MAX_GRAPH_DEPTH`).
    """

    def __init__(
        self,
        graph: ResourceGraph,
        subsystems: str | Sequence[str] = "CA",
        policy: str | MatchPolicy = "first",
        prune: str = DEFAULT_PRUNE,
        traverser: str = "simple",
        exact_visit_counts: bool = False,
        fastpath: str = "auto",
        defer_reservations: bool = False,
    ) -> None:
        if fastpath not in ("auto", "off", "verify"):
            raise MatchError(f"fastpath is auto, off or verify, not {fastpath!r}", errno=EINVAL)
        self._shadow: Matcher | None = None
        if fastpath == "verify":  # the walk-only twin every operation is compared with
            twin = policy if isinstance(policy, str) else copy.deepcopy(policy)
            self._shadow = Matcher(
                copy.deepcopy(graph), subsystems, twin, prune, traverser, exact_visit_counts, "off"
            )
        try:
            self.policy = create_policy(policy)
        except MatchError as err:
            raise MatchError("can't create matcher", errno=EINVAL) from err
        if isinstance(subsystems, str):
            names = SUBSYSTEM_SETS.get(subsystems) or SUBSYSTEM_SETS.get(subsystems.upper())
            if names is None:
                raise MatchError(f"unknown subsystem set {subsystems!r}", errno=EINVAL)
            subsystems = names
        if traverser not in ("simple", "flexible"):
            raise MatchError(f"unsupported traverser {traverser!r}", errno=EINVAL)
        self.graph = graph
        self.subsystems = list(dict.fromkeys(subsystems))
        if not self.subsystems:
            raise MatchError("no subsystem given (the first one is the dominant)", errno=EINVAL)
        if graph_depth(graph, self.subsystems) > MAX_GRAPH_DEPTH:
            raise MatchError(
                f"can't initialize traverser: the graph is deeper than {MAX_GRAPH_DEPTH} levels",
                errno=EINVAL,
            )
        types = graph.type_names
        pruning = PruningConfig(types.order)
        if prune:
            try:
                pruning.set_spec(self.subsystems[0], prune)
            except MatchError as err:
                raise MatchError("can't set pruning filters", errno=EINVAL) from err
            for piece in prune.split(","):
                for name in piece.split(":", 1):
                    types.intern("".join(name.split()))
        cls = FlexibleTraverser if traverser == "flexible" else Traverser
        self.traverser = cls(graph, self.subsystems, self.policy, pruning)
        self.traverser.shortcuts = traverser == "simple" and not exact_visit_counts
        if fastpath != "off" and type(self.traverser) is Traverser:
            self.traverser.fastpath = FlatNodes(self.traverser)
            self.traverser.fastpath.defer = defer_reservations
        if self.traverser.initialize() != 0:
            raise MatchError("can't initialize traverser", errno=self.traverser.errno)
        types.finalize()
        self._next_job = 1
        self._built: tuple[Any, tuple] | None = None

    @property
    def known_types(self):
        """The graph's resource-type interner (jobspec types must be in it)."""
        return self.graph.type_names

    def run(
        self, jobspec: Any, op: str, job_id: int, writer, now: int = 0, at: int | None = None
    ) -> MatchOutcome:
        """Run one match operation, emitting the selection to ``writer``; never raises.

        ``at`` (see :meth:`match`) selects at that single time instead of ``now``.
        """
        shadow = self._shadow
        if shadow is None:
            return self._run(jobspec, op, job_id, writer, now, at)
        theirs, mine = Recorder(None), Recorder(writer)
        expected = shadow._run(jobspec, op, job_id, theirs, now, at)
        out = self._run(jobspec, op, job_id, mine, now, at)
        got = (out.rc, out.errno, out.at, out.duration, out.message)
        want = (expected.rc, expected.errno, expected.at, expected.duration, expected.message)
        expect(got == want, f"{op} job {job_id}: fast path {got} != walk {want}")
        expect(mine.calls == theirs.calls, f"{op} job {job_id}: the emitted selections differ")
        assert_same_state(self.traverser, shadow.traverser)
        return out

    def _run(self, jobspec, op, job_id, writer, now, at) -> MatchOutcome:
        tr = self.traverser
        if op not in OPS:
            return MatchOutcome(-1, EINVAL, now, 0, f"unknown match operation {op!r}", 0, 0)
        if at is not None and (at < now or op not in _AT_OPS):
            message = f"at={at} needs at >= now={now} and an operation in {', '.join(_AT_OPS)}"
            return MatchOutcome(-1, EINVAL, now, 0, message, 0, 0)
        built = self._built
        if built is not None and built[0] is jobspec and type(tr) is Traverser:
            # the same (immutable) jobspec again: its request tree is reused, primed as before
            # (a fresh top-level list: a traverser may rewrite the list it is given)
            requests = list(built[1])
        else:
            requests = build_requests(jobspec.resources)
            self._built = (jobspec, tuple(requests))
        try:
            duration = job_duration(jobspec.duration)
        except MatchError as err:
            if requests:
                # Quirk 10: the reference primes the request (adding the types of its
                # ``exclusive: true`` resources to the exclusive types) before it checks the
                # duration, and does not restore the set on this error path.
                tr.prime(requests, {})
            return MatchOutcome(-1, err.errno or EINVAL, now, 0, "", 0, 0)
        rc, at, duration = tr.run(
            requests,
            op,
            job_id,
            now if at is None else at,
            duration,
            writer,
            constraint=getattr(jobspec, "constraint", None),
            queue=getattr(jobspec, "queue", "") or "",
            now=now,
        )
        return MatchOutcome(
            rc, tr.errno if rc else 0, at, duration, "", tr.total_preorder, tr.total_postorder
        )

    def match(
        self, jobspec: Any, op: str = "allocate", now: int = 0, at: int | None = None
    ) -> MatchResult:
        """Match ``jobspec`` (a model, a path, YAML text or a dict) and return the selection.

        ``at`` (``>= now``, with ``allocate`` or ``without_allocating``) is a single select at
        time ``at``: one iteration of the reservation loop. ``allocate`` then books a
        reservation (``reserved`` is True when ``at > now``); nothing else is tried on failure.

        Raises
        ------
        MatchError
            With ``errno`` EBUSY (no resources now, or at ``at``), ENODEV (unsatisfiable) or
            EINVAL.
        """
        if not hasattr(jobspec, "resources"):
            jobspec = load_jobspec(jobspec)
        job_id = self._next_job
        collector = SelectionCollector()
        out = self.run(jobspec, op, job_id, collector, now, at)
        if out.rc != 0:
            msg = out.message or os.strerror(out.errno)
            raise MatchError(f"match {op} failed: {msg}", errno=out.errno)
        if op in ("allocate", "allocate_with_satisfiability", "allocate_orelse_reserve"):
            self._next_job += 1
        return MatchResult(job_id, out.at, out.duration, out.at > now, collector.vertices)

    def cancel(self, job_id: int) -> None:
        """Release every resource of ``job_id``.

        Raises
        ------
        MatchError
            If the job is unknown or the cancel failed (planners are left consistent).
        """
        tr = self.traverser
        rc = tr.cancel(job_id)
        shadow = self._shadow
        if shadow is not None:
            st = shadow.traverser
            want = (st.cancel(job_id), st.preorder, st.postorder)
            expect((rc, tr.preorder, tr.postorder) == want, f"cancel {job_id}: differs from walk")
            assert_same_state(tr, st)
        if rc != 0:
            raise MatchError(f"cancel of job {job_id} failed", errno=tr.errno or EINVAL)

    def find(self, expression: str, writer) -> int:
        """Emit the vertices matching ``expression`` to ``writer``; the count emitted.

        Raises
        ------
        fluxgraph.traverser.find.ExpressionError
            If the expression is malformed (nothing is emitted).
        """
        self._settle()
        return _find(self.traverser, expression, writer)

    def set_status(self, target: str | Sequence[int], status: str | int) -> int:
        """Mark a path, or the vertices of some ranks, ``up`` or ``down``; vertices changed.

        Raises
        ------
        MatchError
            For an unknown path or status (nothing changes).
        """
        if self._shadow is not None:
            self._shadow.set_status(target, status)
        self._settle()
        return _mark(self.traverser, target, status)

    def properties_changed(self) -> None:
        """Tell the matcher that vertex properties were edited after it was created (the
        ``set-property`` command): recorded visits, which read the properties they scored
        by, are dropped, and so are the candidates' scores."""
        self.traverser.candidate_scores.clear()
        if self.traverser.replay is not None:
            self.traverser.replay.clear()
        if self._shadow is not None:
            self._shadow.properties_changed()
        self._forget_mirror()

    @property
    def verifying(self) -> bool:
        """Whether every operation is also run on a walk-only twin (``fastpath="verify"``)."""
        return self._shadow is not None

    def _settle(self) -> None:
        """Write the fast path's deferred reservations (something else reads the planners)."""
        fast = self.traverser.fastpath
        if fast is not None:
            fast.flush()

    def _forget_mirror(self) -> None:
        """The state changed outside match and cancel: the fast path re-reads it."""
        fast = self.traverser.fastpath
        if fast is not None:
            fast.invalidate()

    def update(
        self, reader: str, text: str, job_id: int, at: int, duration: int, writer
    ) -> MatchOutcome:
        """Re-create job ``job_id`` over ``[at, at + duration)`` from the allocation ``text``.

        ``reader`` is ``jgf``, ``jgf_shorthand`` or ``rv1exec``; the selection is emitted to
        ``writer`` as the original match emitted it. Never raises: a rejected text gives
        ``rc == -1`` with the reference's message (nothing changed).
        """
        if self._shadow is not None:
            self._shadow.update(reader, text, job_id, at, duration, Recorder(None))
        self._forget_mirror()
        rc, errno, message = _elastic.update(
            self.traverser, reader, text, job_id, at, duration, writer
        )
        tr = self.traverser
        return MatchOutcome(rc, errno, at, duration, message, tr.preorder, tr.postorder)

    def attach(self, text: str) -> None:
        """Graft the JGF subgraph ``text`` onto the graph and re-prime the aggregates.

        Raises
        ------
        fluxgraph.errors.ReaderError
            If the JGF is malformed or adds a second root (nothing changes).
        """
        if self._shadow is not None:
            self._shadow.attach(text)
        self._forget_mirror()
        _elastic.attach(self.traverser, text)

    def remove_subgraph(self, path: str) -> None:
        """Remove the vertex at ``path`` with its subtree and re-prime the aggregates.

        Raises
        ------
        MatchError
            If no vertex has ``path`` (nothing changes).
        """
        if self._shadow is not None:
            self._shadow.remove_subgraph(path)
        self._forget_mirror()
        _elastic.remove_subgraph(self.traverser, path)

    def remove_ranks(self, ranks: Sequence[int]) -> None:
        """Release every job on ``ranks``, remove their subtrees and re-prime the aggregates.

        Raises
        ------
        MatchError
            With ``stage`` set (see :class:`fluxgraph.traverser.elastic.RankRemovalError`).
        """
        if self._shadow is not None:
            self._shadow.remove_ranks(ranks)
        self._forget_mirror()
        _elastic.remove_ranks(self.traverser, ranks)

    def partial_cancel(self, job_id: int, reader: str, text: str) -> bool:
        """Release the part of ``job_id`` that ``text`` (``jgf`` or ``rv1exec``) names.

        Returns True when nothing of the job is left.

        Raises
        ------
        MatchError
            For a bad reader, text or job (nothing changes).
        """
        if self._shadow is not None:
            self._shadow.partial_cancel(job_id, reader, text)
        self._forget_mirror()
        return _elastic.partial_cancel(self.traverser, job_id, reader, text)
