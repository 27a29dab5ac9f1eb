"""Replayed visits: the selection walk below a vertex no job holds during the request's window.

Below a vertex ``u`` that no job holds during the window (no tag, or every tagged job's span
off the window: the condition of the shortcut's probe memo, :mod:`fluxgraph.traverser.shortcut`),
the walk sees what it sees below a ``u`` no job ever held. Once ``u`` has matched a request,
the visit of its children is then a function of the request's shape below ``u``'s own count:
the same visits, choices and edge marks every time. Filling a machine, most chosen nodes are
such vertices, and a job takes every core of each (the variation case study: 39 vertices per
node, walked once for the probe and once for the selection).

So the first such visit of ``u`` for a shape is recorded: visit counts, the colours left on
``u``'s subtree, the edges marked (with their needs and exclusivity), the errno it set and the
score ``u`` hands to its parent. Later visits for the same shape replay the record, and so do
the first visits of vertices whose subtrees look alike to the walk (:meth:`VisitReplay.shape`:
same types, sizes, statuses, out-degrees and policy scores position by position), with the
record's vertices and edges translated by position, where the policy's scores come from each
vertex alone (``replay_shared``: the 2,418 nodes of the variation case study are visited once).
A visit is
recorded only when its outcome reaches the parent as that score alone (the choice below ``u``
was enforced on ``u``'s edges, nothing merged into the parent's candidates), for policies whose
visit hooks keep no state between vertices (``replay_visits``), on a tree-shaped dominant
subsystem walked alone, and without labels. Records are dropped when the graph, a status or a
property changes (:meth:`VisitReplay.clear`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fluxgraph.traverser.shortcut import _free_in_window, _labelled, _shape
from fluxgraph.traverser.state import CONSTRAINED_TYPES, SATISFIABILITY

if TYPE_CHECKING:
    from fluxgraph.policies.scoring import ScoringObject
    from fluxgraph.traverser.dfu import Selector
    from fluxgraph.traverser.state import JobMeta

__all__ = ["VisitReplay"]

#: An errno no visit sets: tells whether a recorded visit set one.
_UNSET = -(1 << 40)
#: A vertex whose visits are not recorded (their outcome reaches the parent's candidates).
_MERGES = ("merges",)


class _Outcome:
    """What a replayed visit hands back in place of the vertex's scoring object."""

    __slots__ = ("overall_score",)

    def __init__(self, score: int) -> None:
        self.overall_score = score


class VisitReplay:
    """Recorded visits per vertex (see the module docstring).

    Examples
    --------
    >>> from fluxgraph.matcher import Matcher
    >>> from fluxgraph.papers.variation.quartz import build_quartz
    >>> from fluxgraph.papers.variation.static_queue import node_jobspec
    >>> from fluxgraph.writers.match.simple import SimpleWriter
    >>> m = Matcher(build_quartz(1, 4, 2, 4), policy="high", prune="ALL:core,ALL:node")
    >>> [m.run(node_jobspec(1, 60, 2, 4), "allocate", j, SimpleWriter()).rc for j in (1, 2, 3)]
    [0, 0, 0]
    >>> g = m.graph  # each job's node was probed (visit recorded), then walked (replayed)
    >>> sorted(g.ids[v] for v in m.traverser.replay.memo if g.types[v] == "node")
    [1, 2, 3]
    """

    __slots__ = ("memo", "recording", "shaped", "shapes", "shared", "subtrees")

    def __init__(self, shared: bool = False) -> None:
        #: vertex -> (key, record) of its last recorded visit (record ``_MERGES``: not kept).
        self.memo: dict[int, tuple] = {}
        self.subtrees: dict[int, list[int]] = {}
        #: Whether a visit is being recorded (the visits below it are not recorded apart).
        self.recording = False
        #: (shape, key) -> a record by positions (``None``: records are not shared).
        self.shared: dict[tuple, tuple] | None = {} if shared else None
        #: vertex -> (shape, subtree vertices, subtree edges), for shared records.
        self.shaped: dict[int, tuple] = {}
        self.shapes: dict[tuple, tuple] = {}

    def clear(self) -> None:
        """Drop every record (the graph, a status or a property changed)."""
        self.memo.clear()
        self.subtrees.clear()
        self.shaped.clear()
        self.shapes.clear()
        if self.shared is not None:
            self.shared.clear()

    def visit(self, sel: Selector, below: tuple) -> ScoringObject | _Outcome | None:
        """``sel.visit_below(*below)`` of a matched vertex, replayed where it was recorded
        (``below``: the arguments of :meth:`~fluxgraph.traverser.dfu.Selector.visit_below`)."""
        meta, u, requests = below[0], below[1], below[2]
        sched = sel.graph.schedule
        if self.recording or (sched.tags[u] and not _free_in_window(sel, u, meta)):
            # (inside a visit being recorded, the record of the outer vertex covers this one)
            return sel.visit_below(*below)
        key = _visit_key(sel, meta, u, requests, below[6], below[7])
        if key is None:
            return sel.visit_below(*below)
        hit = self.memo.get(u)
        if hit is not None and hit[0] == key:
            rec = hit[1]
            return sel.visit_below(*below) if rec is _MERGES else _apply(sel, rec)
        if self._shares(sel, u, meta):
            shape, verts, edges, _ = self.shape(sel, u)
            alike = self.shared.get((shape, key))
            if alike is not None:
                rec = _translate(alike, verts, edges, sel.policy.leaf_score(sel.graph, u))
                self.memo[u] = (key, rec)
                return _apply(sel, rec)
        return self._record(sel, u, key, below)

    def _record(self, sel: Selector, u: int, key: tuple, below: tuple):
        marked = sel.marked_edges
        n0 = len(marked)
        pre, post = sel.preorder, sel.postorder
        saved, sel.errno = sel.errno, _UNSET
        self.recording = True
        try:
            dfu = sel.visit_below(*below)
        finally:
            self.recording = False
        errno = sel.errno
        if errno == _UNSET:
            sel.errno, errno = saved, None
        if dfu is None:  # (a failed visit is not recorded: it is rare below a free vertex)
            return None
        if dfu.evals and dfu.overall_score > 0 and not dfu.hier_constrain_now:
            # (resolve merged u's candidates into the parent's: not a score alone)
            self.memo[u] = (key, _MERGES)
            return dfu
        base = sel.colors.base
        marks = sel.colors.marks[sel.dom]
        colours = [(w, marks[w] - base) for w in self.subtree(sel, u) if marks[w] > base]
        e_needs, e_excl = sel.e_needs, sel.e_excl
        edges = [(e, e_needs[e], e_excl[e]) for e in dict.fromkeys(marked[n0:])]
        rec = (sel.preorder - pre, sel.postorder - post, colours, edges, errno, dfu.overall_score)
        self.memo[u] = (key, rec)
        if self._shares(sel, u, below[0]):
            self._share(sel, u, key, rec)
        return dfu

    def _shares(self, sel: Selector, u: int, meta: JobMeta) -> bool:
        """Whether ``u``'s visits may use and leave records shared by shape: records are
        shared, and no constraint tests a vertex below ``u`` (:meth:`shape`'s ``guarded``)."""
        return self.shared is not None and not (meta.constraint and self.shape(sel, u)[3])

    def _share(self, sel: Selector, u: int, key: tuple, rec: tuple) -> None:
        """Keep ``rec`` by positions in ``u``'s subtree, for the vertices shaped like ``u``."""
        if rec[5] != sel.policy.leaf_score(sel.graph, u):
            return  # (the score is not u's own: it cannot be carried over)
        shape, verts, edges, _ = self.shape(sel, u)
        vpos = {w: i for i, w in enumerate(verts)}
        epos = {e: i for i, e in enumerate(edges)}
        if any(e not in epos for e, _, _ in rec[3]):
            return
        colours = [(vpos[w], c) for w, c in rec[2]]
        marked = [(epos[e], needs, excl) for e, needs, excl in rec[3]]
        self.shared[(shape, key)] = (rec[0], rec[1], colours, marked, rec[4])

    def shape(self, sel: Selector, u: int) -> tuple:
        """``(shape, vertices, edges, guarded)`` of ``u``'s subtree (cached): its vertices in
        walk order, the child edges of each in turn, and what a visit below ``u`` reads of them
        position by position -- type, size, status, out-degree, each edge's target and, below
        ``u``, the policy's score relative to the first of its type. Two free subtrees of one
        shape are visited alike, up to the translation between their vertex and edge lists: a
        ``replay_shared`` policy compares scores only between vertices of one type (or sums
        over slots of one make-up) and with 0, so shifting each type's positive scores by a
        constant changes no choice. ``guarded``: a vertex below ``u`` is of a type a
        constraint tests (its properties, which the shape omits, then count). Equal shapes are
        one object."""
        got = self.shaped.get(u)
        if got is not None:
            return got
        g = sel.graph
        children, dst = g.child_edges(sel.dom), g.edge_dst
        types, sizes, status, out_edges = g.types, g.sizes, g.status, g.out_edges
        score = sel.policy.leaf_score
        verts = self.subtree(sel, u)
        vpos = {w: i for i, w in enumerate(verts)}
        edges = [e for w in verts for e in children[w]]
        first: dict[str, int] = {}  # each type's scores relative to its first vertex's
        looks = [(types[u], sizes[u], status[u], len(out_edges[u]))]
        for w in verts[1:]:
            t, s = types[w], score(g, w)
            # (a score not above 0 reads as unmatched: such a subtree keeps its shape to itself)
            rel = s - first.setdefault(t, s) if s > 0 else ("own", w)
            looks.append((t, sizes[w], status[w], len(out_edges[w]), rel))
        shape = (tuple(looks), tuple(vpos[dst[e]] for e in edges))
        shape = self.shapes.setdefault(shape, shape)
        guarded = any(types[w] in CONSTRAINED_TYPES for w in verts[1:])
        got = self.shaped[u] = (shape, verts, edges, guarded)
        return got

    def subtree(self, sel: Selector, u: int) -> list[int]:
        """``u`` and every vertex below it on the dominant subsystem, level by level, each
        once (cached). Replay is on only where the subsystem is a forest
        (:func:`~fluxgraph.graph.depth.is_tree`); the visited set keeps the walk finite on any
        graph all the same.

        >>> from fluxgraph.machines import build_machine
        >>> from fluxgraph.matcher import Matcher
        >>> m = Matcher(build_machine("nodes=1,cores=2"), policy="high")
        >>> len(VisitReplay().subtree(m.traverser, m.graph.roots["containment"]))
        4
        """
        out = self.subtrees.get(u)
        if out is None:
            g = sel.graph
            children, dst = g.child_edges(sel.dom), g.edge_dst
            seen = {u}
            out = level = [u]
            while level:
                level = [w for v in level for e in children[v] if (w := dst[e]) not in seen]
                seen.update(level)
                level = list(dict.fromkeys(level))
                out = out + level
            self.subtrees[u] = out
        return out


def _apply(sel: Selector, rec: tuple) -> _Outcome:
    pre, post, colours, edges, errno, score = rec
    sel.preorder += pre
    sel.postorder += post
    base = sel.colors.base
    marks = sel.colors.marks[sel.dom]
    for w, c in colours:
        marks[w] = base + c
    seq = sel.seq
    e_needs, e_excl, e_seq = sel.e_needs, sel.e_excl, sel.e_seq
    marked = sel.marked_edges
    for e, needs, excl in edges:
        e_needs[e] = needs
        e_excl[e] = excl
        e_seq[e] = seq
        marked.append(e)
    if errno is not None:
        sel.errno = errno
    return _Outcome(score)


def _translate(alike: tuple, verts: list[int], edges: list[int], score: int) -> tuple:
    """A record by positions (:meth:`VisitReplay._share`) for the subtree ``verts``/``edges``."""
    pre, post, colours, marked, errno = alike
    return (
        pre,
        post,
        [(verts[i], c) for i, c in colours],
        [(edges[i], needs, excl) for i, needs, excl in marked],
        errno,
        score,
    )


def _visit_key(sel: Selector, meta: JobMeta, u: int, requests, pristine: bool, x_in: bool):
    """What a visit below a free ``u`` depends on besides the subtree (``None``: not
    recorded): the requests' shapes without the own count of the one ``u`` matched, the
    walk's flags, whether status counts, and the constraint."""
    constraint = meta.constraint
    if constraint is not None:
        try:
            hash(constraint)
        except TypeError:
            return None
    if _labelled(list(requests)):
        return None
    utype = sel.graph.types[u]
    shapes = tuple(
        (r.type, r.exclusive, tuple(sorted(r.user_data.items())), tuple(map(_shape, r.with_)))
        if r.type == utype
        else _shape(r)
        for r in requests
    )
    return (shapes, pristine, x_in, meta.alloc_type == SATISFIABILITY, constraint)
