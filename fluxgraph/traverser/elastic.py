"""Elasticity: re-creating allocations from R, partial release, growing and shrinking the graph.

Functions over a :class:`~fluxgraph.traverser.core.Traverser` (matching-semantics §6.13, §6.16,
§6.1; I/O specification §3.3, §3.6-§3.8, §4.3):

* :func:`update` re-creates a job from the JGF or rv1exec text of its allocation: the reader
  finds the vertices, the job's planner spans are added and the selection's edges marked, then
  the update walk runs with ``full=False`` (tags, exclusivity and aggregate spans; emission).
* :func:`partial_cancel` releases the vertices (JGF) or whole ranks (rv1exec) a text names, then
  reduces the job's aggregate spans on the ancestors of each released rank.
* :func:`attach` grafts a JGF subgraph onto the graph; :func:`remove_subgraph` and
  :func:`remove_ranks` cut subtrees out of it. After each structural change :func:`resync` brings
  the traverser's per-vertex and per-edge state up to date and re-primes the pruning aggregates.

Every operation validates its whole input before it changes anything, so a failure leaves the
graph, the planners and the traverser as they were (the reference may leave partial changes).
"""

from __future__ import annotations

from collections.abc import Iterable
from errno import EINVAL, ENOENT
from typing import TYPE_CHECKING

from fluxgraph.errors import MatchError, PlannerError, ReaderError
from fluxgraph.graph.removal import remove_vertices, subtree
from fluxgraph.readers import jgf
from fluxgraph.readers.jgf_update import read_selection
from fluxgraph.readers.jgf_update import read_update as read_jgf_update
from fluxgraph.readers.rv1exec_update import read_ranks
from fluxgraph.readers.rv1exec_update import read_update as read_rv1_update
from fluxgraph.traverser.state import JobMeta, own_planner

if TYPE_CHECKING:
    from fluxgraph.traverser.core import Traverser

__all__ = [
    "PARTIAL_CANCEL_READERS",
    "UPDATE_READERS",
    "RankRemovalError",
    "attach",
    "partial_cancel",
    "remove_ranks",
    "remove_subgraph",
    "resync",
    "update",
]

#: Readers :func:`update` accepts.
UPDATE_READERS = ("jgf", "jgf_shorthand", "rv1exec")
#: Readers :func:`partial_cancel` accepts.
PARTIAL_CANCEL_READERS = ("jgf", "rv1exec")

_PCANCEL_FAILED = "remove: partial_cancel returned error.\n"


class RankRemovalError(MatchError):
    """Rank removal failed; ``stage`` names the step (``partial_cancel``, ``remove`` or
    ``update_counts``) as ``resource-query`` reports it."""

    def __init__(self, message: str, stage: str, errno: int = EINVAL) -> None:
        super().__init__(message, errno)
        self.stage = stage


# -- structure -----------------------------------------------------------------------------------


def resync(tr: Traverser, emap: list[int] | None = None) -> None:
    """Bring ``tr`` up to date after vertices or edges were added or removed.

    ``emap`` maps old edge ids to new ones (-1: removed) after a removal; without it, edges were
    only appended. Edge marks and weights follow their edges, per-vertex caches are dropped, and
    :meth:`~fluxgraph.traverser.core.Traverser.initialize` re-primes the aggregates (existing
    aggregate planners get their new totals and keep their spans) and recounts ``nodes_up``.

    Raises
    ------
    MatchError
        If some subsystem of the traverser has no root any more (errno ENOTSUP).
    """
    tr.graph_changed(emap)
    if tr.initialize() != 0:
        raise MatchError("can't initialize traverser after the graph changed", errno=tr.errno)


def attach(tr: Traverser, text: str, *, source: str = "<string>") -> None:
    """Add the JGF subgraph ``text`` to the graph (vertices known by path and rank are reused).

    Raises
    ------
    ReaderError
        If the JGF is malformed or adds a second root; nothing changes then.
    """
    jgf.unpack(tr.graph, text, source=source)
    resync(tr)


def remove_subgraph(tr: Traverser, path: str) -> None:
    """Remove the vertex at ``path`` and its dominant-subsystem subtree, then re-prime.

    Job state on the ancestors (tags, aggregate spans) is left as it is.

    Raises
    ------
    MatchError
        If no vertex has ``path`` (errno ENOENT) or the subtree holds a subsystem root;
        nothing changes then.
    """
    g = tr.graph
    roots = g.by_path.get(path)
    if not roots:
        raise MatchError(f"remove_subgraph: no vertex at path {path}.\n", errno=ENOENT)
    doomed: set[int] = set()
    for v in roots:
        doomed.update(subtree(g, v, tr.dom))
    _keep_roots(tr, doomed, MatchError)
    _vmap, emap = remove_vertices(g, doomed)
    resync(tr, emap)


def _keep_roots(tr: Traverser, doomed: set[int], error) -> None:
    """Refuse a removal that would take a subsystem root (the traverser could not run)."""
    for s in tr.subsystems:
        root = tr.graph.roots.get(s)
        if root in doomed:
            raise error(f"remove: can't remove the {s} root {tr.graph.names[root]}.\n")


# -- update --------------------------------------------------------------------------------------


def update(
    tr: Traverser, reader: str, text: str, jobid: int, at: int, duration: int, writer
) -> tuple[int, int, str]:
    """Re-create job ``jobid`` over ``[at, at + duration)`` from its allocation ``text``.

    ``reader`` is ``jgf``, ``jgf_shorthand`` or ``rv1exec``. The selection is emitted to
    ``writer`` exactly as the match that produced it was. When the reader did not mark the
    virtual edge into the dominant root (e.g. a containment JGF on a ``power`` traverser), the
    spans are added but nothing is walked or emitted.

    Returns
    -------
    tuple
        ``(rc, errno, message)``: ``rc`` 0 or -1, and the reference's error text on failure.
    """
    g = tr.graph
    tr.preorder = tr.postorder = 0
    if reader not in UPDATE_READERS:
        return -1, EINVAL, f"update: unsupported reader {reader}.\n"
    tr.tick()
    try:
        if reader == "rv1exec":
            sel = read_rv1_update(g, text, at, duration)
        else:
            sel = read_jgf_update(g, text, at, duration, shorthand=reader == "jgf_shorthand")
    except ReaderError as err:
        # the reference's text only: rv1exec leaves it empty for most malformed documents
        return -1, err.errno or EINVAL, err.reference_message
    allocations = g.schedule.allocations
    for v, units in sel.spans:
        span = own_planner(g, v).add_span(at, duration, units)
        if allocations[v] is None:
            allocations[v] = {}
        allocations[v][jobid] = span
    if sel.spans:
        # (vertices the walk below does not reach keep their spans without a tag)
        tr.forget_visits()
    seq = tr.seq
    e_needs, e_excl, e_seq = tr.e_needs, tr.e_excl, tr.e_seq
    for e, needs, excl in sel.edges:
        e_needs[e], e_excl[e], e_seq[e] = needs, excl, seq
        tr.marked_edges.append(e)
    for s, (needs, excl) in sel.roots.items():
        tr.v_rt[s] = (needs, excl, seq)
    dom = tr.dom
    needs, excl, mark = tr.v_rt.get(dom, (0, False, -1))
    root = g.roots.get(dom)
    if mark != seq or root is None:
        return 0, 0, ""
    meta = JobMeta(jobid, at, duration)
    tr.colors.reset()
    tr.level = 0
    shadow = g.types[root] in tr.exclusive_types
    if tr._upd_dfv(root, writer, needs, excl, meta, False, {}, shadow, False) > 0:
        writer.emit_tm(at, at + duration)
        return 0, 0, ""
    return -1, EINVAL, ""


# -- partial cancel and rank removal ---------------------------------------------------------------


def _rank_root(g, dom: str, vertices: Iterable[int]) -> int | None:
    """The first of ``vertices`` with the strictly shortest ``dom`` path."""
    best, best_len = None, 0
    paths = g.paths
    for v in vertices:
        path = paths[v].get(dom)
        if path is not None and (best is None or len(path) < best_len):
            best, best_len = v, len(path)
    return best


def _ancestor_counts(
    tr: Traverser, roots: dict[int, int], counts: dict[int, dict[str, int]]
) -> dict[int, dict[str, int]]:
    """Per ancestor of each rank root (first dominant in-edge upwards), the summed counts."""
    g, dom = tr.graph, tr.dom
    src = g.edge_src
    out: dict[int, dict[str, int]] = {}
    for rank, v in roots.items():
        rank_counts = counts.get(rank, {})
        seen = {v}
        e = tr.parent_edge(dom, v)
        while e >= 0:
            v = src[e]
            if v in seen:  # a cycle of first in-edges: stop rather than loop
                break
            seen.add(v)
            acc = out.setdefault(v, {})
            for t, c in rank_counts.items():
                acc[t] = acc.get(t, 0) + c
            e = tr.parent_edge(dom, v)
    return out


def _reducible(g, dom: str, u: int, jobid: int, counts: dict[str, int]) -> str | None:
    """Why the job's aggregate span at ``u`` cannot be reduced by ``counts`` (None: it can)."""
    sched = g.schedule
    subplans = sched.subplans[u]
    agg = subplans.get(dom) if subplans else None
    job2span, tags = sched.job2span[u], sched.tags[u]
    if agg is None or not job2span or jobid not in job2span or not tags or jobid not in tags:
        return None
    span = job2span[jobid]
    if span == -1:
        return f"no aggregate span of job {jobid} in {g.names[u]}"
    reservations = sched.reservations[u]
    if reservations and jobid in reservations:
        return f"job {jobid} is a reservation in {g.names[u]}"
    types = list(counts)
    try:
        agg.copy().reduce_span(span, [counts[t] for t in types], types)
    except PlannerError as err:
        return f"can't reduce the aggregate span of job {jobid} in {g.names[u]}: {err}"
    return None


def _reduce(g, dom: str, u: int, jobid: int, counts: dict[str, int]) -> None:
    """PARTIAL_CANCEL of one ancestor (checked by :func:`_reducible` first)."""
    sched = g.schedule
    subplans = sched.subplans[u]
    agg = subplans.get(dom) if subplans else None
    job2span, tags = sched.job2span[u], sched.tags[u]
    if agg is None or not job2span or jobid not in job2span or not tags or jobid not in tags:
        return
    types = list(counts)
    if agg.reduce_span(job2span[jobid], [counts[t] for t in types], types):
        del job2span[jobid]
        del tags[jobid]
    x_spans = sched.x_spans[u]
    if x_spans and jobid in x_spans:  # even when only reduced (the reference's quirk 13)
        sched.x_checkers[u].rem_span(x_spans.pop(jobid))


def _local_problem(g, v: int, jobid: int, need_alloc: bool) -> str | None:
    sched = g.schedule
    x_spans = sched.x_spans[v]
    if not x_spans or jobid not in x_spans:
        return f"cancel_vtx: can't find x_checker span for job {jobid} in {g.names[v]}.\n"
    allocations = sched.allocations[v]
    if need_alloc and (not allocations or jobid not in allocations):
        return f"cancel_vtx: can't find allocation span for job {jobid} in {g.names[v]}.\n"
    return None


def _cancel_local(g, dom: str, v: int, jobid: int) -> int:
    """Release every span and the tag of ``jobid`` on ``v``; the allocation's planned units."""
    sched = g.schedule
    subplans, job2span = sched.subplans[v], sched.job2span[v]
    agg = subplans.get(dom) if subplans else None
    if agg is not None and job2span and jobid in job2span:
        span = job2span.pop(jobid)
        if span != -1:
            agg.rem_span(span)
    tags = sched.tags[v]
    if tags:
        tags.pop(jobid, None)
    x_spans = sched.x_spans[v]
    if x_spans and jobid in x_spans:
        sched.x_checkers[v].rem_span(x_spans.pop(jobid))
    allocations = sched.allocations[v]
    if allocations and jobid in allocations:
        span = allocations.pop(jobid)
        plan = sched.plans[v]
        units = plan.span_resource_count(span)
        plan.rem_span(span)
        return units
    return 0


def partial_cancel(tr: Traverser, jobid: int, reader: str, text: str) -> bool:
    """Release part of job ``jobid``: the vertices a JGF lists, or the ranks of an rv1exec R.

    Each released vertex loses the job's tag, exclusivity span, aggregate span and allocation
    span; the units released per rank and type are then taken out of the job's aggregate spans
    on the ancestors of each rank's root (their exclusivity spans go too, quirk 13).

    Returns
    -------
    bool
        True when nothing of the job is left (the root no longer carries its tag).

    Raises
    ------
    MatchError
        For a bad job id, reader or text, or a vertex the job does not hold; nothing changes.
    """
    g, dom = tr.graph, tr.dom
    tr.preorder = tr.postorder = 0
    if jobid <= 0:
        raise MatchError("partial_cancel: invalid jobid\n", errno=EINVAL)
    if reader not in PARTIAL_CANCEL_READERS:
        raise MatchError(f"partial_cancel: unsupported reader {reader}.\n", errno=EINVAL)
    tr.tick()
    root = g.roots.get(dom)
    tags = g.schedule.tags
    if root is None or not tags[root] or jobid not in tags[root]:
        raise MatchError(_PCANCEL_FAILED, errno=EINVAL)
    listed: list[int] = []
    rank_roots: dict[int, int] = {}
    try:
        if reader == "rv1exec":
            for r in read_ranks(text):
                vertices = g.by_rank.get(r)
                if vertices is None:
                    raise MatchError(f"remove: {r} not found in by_rank map.\n{_PCANCEL_FAILED}")
                held = [v for v in vertices if tags[v] and jobid in tags[v]]
                for v in held:
                    problem = _local_problem(g, v, jobid, False)
                    if problem:
                        raise MatchError(problem + _PCANCEL_FAILED, errno=EINVAL)
                listed += held
                if held:
                    rank_roots[r] = _rank_root(g, dom, vertices)
        else:

            def check(v: int, _node) -> None:
                problem = _local_problem(g, v, jobid, True)
                if problem:
                    raise ReaderError(problem, errno=EINVAL, reference_message=problem)

            sel = read_selection(g, text, check=check, edges=False)
            listed = [v for v, _node in sel.vertices]
            by_rank: dict[int, list[int]] = {}
            for v in listed:
                by_rank.setdefault(g.ranks[v], []).append(v)
            for r, vertices in by_rank.items():
                rank_roots[r] = _rank_root(g, "containment", vertices)
    except ReaderError as err:
        message = err.reference_message + _PCANCEL_FAILED
        raise MatchError(message, errno=err.errno or EINVAL) from err
    counts: dict[int, dict[str, int]] = {}
    sizes = _planned_units(g, listed, jobid)
    for v in dict.fromkeys(listed):
        c = counts.setdefault(g.ranks[v], {})
        c[g.types[v]] = c.get(g.types[v], 0) + sizes[v]
    rank_roots = {r: v for r, v in rank_roots.items() if v is not None}
    ancestors = _ancestor_counts(tr, rank_roots, counts)
    released = set(listed)
    for u, c in ancestors.items():
        if u in released:
            continue
        problem = _reducible(g, dom, u, jobid, c)
        if problem:
            raise MatchError(f"{problem}.\n{_PCANCEL_FAILED}", errno=EINVAL)
    for v in dict.fromkeys(listed):
        _cancel_local(g, dom, v, jobid)
    for u, c in ancestors.items():
        if u not in released:
            _reduce(g, dom, u, jobid, c)
    return not tags[root] or jobid not in tags[root]


def _planned_units(g, vertices: list[int], jobid: int) -> dict[int, int]:
    """Per vertex, the units of ``jobid``'s allocation span on it (0 without one)."""
    sched = g.schedule
    out = {}
    for v in vertices:
        allocations = sched.allocations[v]
        span = allocations.get(jobid) if allocations else None
        out[v] = 0 if span is None else sched.plans[v].span_resource_count(span)
    return out


def remove_ranks(tr: Traverser, ranks: Iterable[int]) -> None:
    """Remove the vertices of ``ranks``: release every job on them, then cut their subtrees.

    Every allocation span on a rank's vertices is summed per type; for each job tagged there,
    the rank's *total* is taken out of the job's aggregate spans on the rank root's ancestors
    (the reference's quirk 21: with several jobs on one rank this over-reduces and fails).
    Then each rank root's dominant subtree is removed and the aggregates re-primed.

    Raises
    ------
    RankRemovalError
        Unknown rank or failing release (``stage`` ``partial_cancel``), a subtree holding a
        subsystem root (``remove``), failing re-priming (``update_counts``). Nothing changes
        unless the failure is in re-priming.
    """
    g, dom = tr.graph, tr.dom
    sched = g.schedule
    ranks = list(dict.fromkeys(ranks))
    tr.tick()
    counts: dict[int, dict[str, int]] = {}
    rank_roots: dict[int, int] = {}
    jobs: dict[int, None] = {}
    for r in ranks:
        vertices = g.by_rank.get(r)
        if vertices is None:
            raise RankRemovalError(f"remove: {r} not found in by_rank map.", "partial_cancel")
        c = counts.setdefault(r, {})
        for v in vertices:
            allocations = sched.allocations[v]
            for span in (allocations or {}).values():
                units = sched.plans[v].span_resource_count(span)
                c[g.types[v]] = c.get(g.types[v], 0) + units
            jobs.update(dict.fromkeys(sched.tags[v] or ()))
        root = _rank_root(g, dom, vertices)
        if root is not None:
            rank_roots[r] = root
    ancestors = _ancestor_counts(tr, rank_roots, counts)
    members = {v for r in ranks for v in g.by_rank[r]}
    for jobid in jobs:
        for u, c in ancestors.items():
            problem = None if u in members else _reducible(g, dom, u, jobid, c)
            if problem:
                raise RankRemovalError(f"remove: {problem}.", "partial_cancel")
    doomed: set[int] = set()
    for v in rank_roots.values():
        doomed.update(subtree(g, v, dom))
    _keep_roots(tr, doomed, lambda message: RankRemovalError(message.rstrip("\n"), "remove"))
    for v in members:
        for name in ("plans", "allocations", "reservations", "tags", "x_spans", "job2span"):
            getattr(sched, name)[v] = None
        subplans = sched.subplans[v]
        agg = subplans.get(dom) if subplans else None
        if agg is not None:
            agg.reset(agg.base_time, agg.duration)
    for jobid in jobs:
        for u, c in ancestors.items():
            if u not in members:
                _reduce(g, dom, u, jobid, c)
    _vmap, emap = remove_vertices(g, doomed)
    try:
        resync(tr, emap)
    except MatchError as err:
        raise RankRemovalError(str(err), "update_counts", err.errno or EINVAL) from err
