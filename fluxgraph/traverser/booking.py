"""Booking a selection and removing a job again (matching-semantics §6.13-§6.14).

:class:`Booker` adds to the selection walk (:class:`~fluxgraph.traverser.dfu.Selector`) the update
walk, which applies the last selection to the planners, tags and aggregates and emits it to a
match writer, and cancel, which removes every span and tag of a job.
"""

from __future__ import annotations

from errno import EINVAL

from fluxgraph.errors import PlannerError
from fluxgraph.traverser.dfu import ALLOC, ALLOC_ORELSE_RESERVE, NO_ALLOC, Selector
from fluxgraph.traverser.state import (
    INT64_MAX,
    X_CHECKER_NJOBS,
    JobMeta,
    SmallPlanner,
    learned_weight,
    put,
)

__all__ = ["Booker"]

#: The contributions of a leaf's children: none (shared, never written).
_NO_CHILDREN: dict[str, int] = {}
#: Out-edges the update walk scans for marked ones; a vertex with more looks them up in the
#: selection's record of marked edges.
_SCAN_OUT_EDGES = 256


class Booker(Selector):
    """The selection walk plus applying its selection (:meth:`update`) and :meth:`cancel`."""

    # -- applying a selection ------------------------------------------------------------------

    def update(self, root: int, writer, meta: JobMeta) -> int:
        """Apply the last selection: add spans, tags and aggregate spans; emit to ``writer``."""
        needs, x, seq = self.v_rt.get(self.dom, (0, False, -1))
        if seq != self.seq:
            self.errno = EINVAL
            return -1
        self.colors.reset()
        self.level = 0
        shadow = self.graph.types[root] in self.exclusive_types
        n = self._upd_dfv(root, writer, needs, x, meta, True, {}, shadow, False)
        if n > 0:
            writer.emit_tm(meta.at, meta.at + meta.duration)
            if meta.queue:
                writer.emit_attrs("queue", meta.queue)
            return 0
        return -1

    def _upd_dfv(self, u, writer, needs, excl, meta, full, to_parent, shadow, excl_parent):
        """The update walk from ``u`` (§6.13): apply the marked selection below it, emit it to
        ``writer``; the number of vertices updated (0: nothing exclusive was found).

        ``upd_dfv`` and ``upd_sched`` of the reference, as one recursive closure over what the
        walk reads (the walk is the hot half of every match).
        """
        g = self.graph
        dom = self.dom
        sched = g.schedule
        types, sizes, dst = g.types, g.sizes, g.edge_dst
        child_edges = g.child_edges(dom)
        marks = self.colors.marks[dom]
        base = self.colors.base
        seq = self.seq
        e_seq, e_excl, e_needs = self.e_seq, self.e_excl, self.e_needs
        exclusive_types = self.exclusive_types
        upd_by_outedges = self._upd_by_outedges if self.policy.stop_on_k > 0 else None
        ptypes = self.pruning.pruning_types(dom)
        jobid, at, duration, alloc_type = meta.jobid, meta.at, meta.duration, meta.alloc_type
        allocating = alloc_type != NO_ALLOC
        end = at + duration
        window_ok = at >= 0 and duration >= 1 and end <= INT64_MAX  # (add_span's own checks)
        if alloc_type == ALLOC:
            table = sched.allocations
        elif alloc_type == ALLOC_ORELSE_RESERVE:
            table = sched.reservations
        else:
            table = None
        tags, x_spans, job2span, subplans = (
            sched.tags,
            sched.x_spans,
            sched.job2span,
            sched.subplans,
        )
        plans, x_checkers = sched.plans, sched.x_checkers
        emit_vtx, emit_edg = writer.emit_vtx, writer.emit_edg
        level = self.level
        # the marked out-edges of a vertex with many, in out-edge order (edge ids ascend along
        # every out-edge list), from the selection's record instead of a scan of every out-edge
        # (gathered on first need: below a vertex taken whole no vertex needs them)
        marked_children: dict[int, list[int]] | None = None
        recorded = self.marked_seq == seq

        def marked_below(u: int) -> list[int]:
            nonlocal marked_children
            if marked_children is None:
                esub, src = g.edge_subsystem, g.edge_src
                marked_children = {}
                for e in set(self.marked_edges):
                    if e_seq[e] == seq and esub[e] == dom:
                        marked_children.setdefault(src[e], []).append(e)
                for lst in marked_children.values():
                    lst.sort()
            return marked_children.get(u, [])

        leaves_inline = full and allocating and upd_by_outedges is None

        def take_whole(children, acc, excl):
            """The children of a vertex taken whole (``mod``): what ``walk`` does for each,
            with its leaves' whole-size spans booked inline (most vertices below a node are
            leaves: this is the hot loop of every exclusive match)."""
            nonlocal level
            n = 0
            for e in children:
                tgt = dst[e]
                if marks[tgt] > base:
                    continue
                if child_edges[tgt]:
                    k = walk(tgt, sizes[tgt], True, acc, True, excl)
                    if k > 0:
                        emit_edg(g, e, excl)
                        n += k
                    continue
                # walk(tgt, ...) of a leaf taken whole, inline (same effects, same order)
                level += 1
                marks[tgt] = base + 2
                n += 1
                size = sizes[tgt]
                p = plans[tgt]
                if p is None and window_ok and size >= 0:
                    plans[tgt] = SmallPlanner.holding(size, types[tgt], at, end, size)
                    span = 1
                else:
                    if p is None:
                        p = plans[tgt] = SmallPlanner(size, types[tgt])
                    try:
                        span = p.add_span(at, duration, size)
                    except PlannerError:
                        emit_edg(g, e, excl)  # (its level stays raised, as in walk)
                        continue
                if table is not None:
                    put(table, tgt, jobid, span)
                put(tags, tgt, jobid, jobid)
                p = x_checkers[tgt]
                if p is None and window_ok:
                    x_checkers[tgt] = SmallPlanner.holding(X_CHECKER_NJOBS, "jobs", at, end, 1)
                    span = 1
                else:
                    if p is None:
                        p = x_checkers[tgt] = SmallPlanner(X_CHECKER_NJOBS, "jobs")
                    try:
                        span = p.add_span(at, duration, 1)
                    except PlannerError:
                        emit_edg(g, e, excl)
                        continue
                put(x_spans, tgt, jobid, span)
                utype = types[tgt]
                if utype in ptypes:
                    acc[utype] = acc.get(utype, 0) + size
                emit_vtx(g, tgt, level, size, True, True)
                level -= 1
                emit_edg(g, e, excl)
            return n

        def walk(u, needs, excl, to_parent, shadow, excl_parent):
            nonlocal level
            utype = types[u]
            mod = shadow or utype in exclusive_types
            excl = excl or mod
            level += 1
            marks[u] = base + 1
            n = 0
            children = child_edges[u]
            acc: dict[str, int] = {} if children else _NO_CHILDREN
            if children:
                if mod:
                    if leaves_inline:  # an exclusive-type vertex takes its whole subtree
                        n += take_whole(children, acc, excl)
                        children = ()
                elif recorded and len(children) > _SCAN_OUT_EDGES:
                    children = marked_below(u)
                else:  # only edges the selection marked
                    children = [e for e in children if e_seq[e] == seq]
                for e in children:
                    tgt = dst[e]
                    if marks[tgt] > base:
                        continue
                    k = walk(
                        tgt,
                        sizes[tgt] if mod else e_needs[e],
                        e_excl[e] or mod,
                        acc,
                        mod,
                        excl,
                    )
                    if k > 0:
                        if upd_by_outedges is not None and subplans[tgt] is not None:
                            upd_by_outedges(dom, meta, u, e)  # (no aggregate: key kept)
                        emit_edg(g, e, excl)
                        n += k
            marks[u] = base + 2
            # -- upd_sched --
            if excl:
                n += 1
                if full and allocating:
                    p = plans[u]
                    if p is None and window_ok and 0 <= needs <= sizes[u]:
                        plans[u] = SmallPlanner.holding(sizes[u], utype, at, end, needs)
                        span = 1  # (the usual first span of a vertex, built in one step)
                    else:
                        if p is None:
                            p = plans[u] = SmallPlanner(sizes[u], utype)
                        try:
                            span = p.add_span(at, duration, needs)
                        except PlannerError:
                            return n  # the reference logs and returns, leaving its level raised
                    if table is not None:
                        put(table, u, jobid, span)
            if n > 0 and allocating:
                try:
                    put(tags, u, jobid, jobid)
                    p = x_checkers[u]
                    if p is None and window_ok:
                        x_checkers[u] = SmallPlanner.holding(X_CHECKER_NJOBS, "jobs", at, end, 1)
                        span = 1
                    else:
                        if p is None:
                            p = x_checkers[u] = SmallPlanner(X_CHECKER_NJOBS, "jobs")
                        span = p.add_span(at, duration, 1)
                    put(x_spans, u, jobid, span)
                    sp = subplans[u]
                    if sp is not None:
                        sp = sp.get(dom)
                    if sp is not None and acc:
                        mspan = sp.add_span(
                            at, duration, [acc.get(t, 0) for t in sp.resource_types]
                        )
                        d = job2span[u]
                        if d is None:
                            d = job2span[u] = {}
                        d[jobid] = mspan
                except PlannerError:
                    return n
                if utype in ptypes:
                    add = sizes[u] if excl else sizes[u] - needs
                    to_parent[utype] = to_parent.get(utype, 0) + add
                if acc:
                    for t, c in acc.items():
                        if t in ptypes:
                            to_parent[t] = to_parent.get(t, 0) + c
            if n > 0:
                emit_vtx(g, u, level, needs, excl, excl_parent)
            level -= 1
            return n

        try:
            return walk(u, needs, excl, to_parent, shadow, excl_parent)
        finally:
            self.level = level
            walk = take_whole = marked_below = None  # (closures referring to each other)

    def _upd_by_outedges(self, s: str, meta: JobMeta, u: int, e: int) -> None:
        subplans = self.graph.schedule.subplans[self.graph.edge_dst[e]]
        weight = learned_weight(subplans.get(s) if subplans else None, meta.now)
        if weight is not None:
            self.rekey_edge(u, e, weight)

    # -- cancel --------------------------------------------------------------------------------

    def cancel(self, jobid: int) -> int:
        """Remove every span and tag of ``jobid``; 0, or -1 with ``self.errno``."""
        g = self.graph
        root = g.roots[self.dom]
        self.preorder = self.postorder = 0
        tags = g.schedule.tags[root]
        if tags and jobid in tags:
            self.colors.reset()
            return self._mod_dfv(root, jobid)
        return self._mod_exv(jobid)

    def _mod_dfv(self, u: int, jobid: int) -> int:
        g = self.graph
        sched = g.schedule
        dom = self.dom
        self.preorder += 1
        marks = self.colors.marks[dom]
        base = self.colors.base
        marks[u] = base + 1
        tags = sched.tags[u]
        if not tags or jobid not in tags:
            return 0
        del tags[jobid]
        x_spans = sched.x_spans[u]
        if x_spans and jobid in x_spans:
            sched.x_checkers[u].rem_span(x_spans.pop(jobid))
        subplans = sched.subplans[u]
        sp = subplans.get(dom) if subplans else None
        job2span = sched.job2span[u]
        if sp is not None and job2span and jobid in job2span:
            mspan = job2span.pop(jobid)
            if mspan == -1:
                return -1
            sp.rem_span(mspan)
        span = None
        allocations, reservations = sched.allocations[u], sched.reservations[u]
        if allocations and jobid in allocations:
            span = allocations.pop(jobid)
        elif reservations and jobid in reservations:
            span = reservations.pop(jobid)
        if span is not None:
            try:
                sched.plans[u].rem_span(span)
            except PlannerError:
                return -1
        rc = 0
        dst, all_tags = g.edge_dst, sched.tags
        for e in g.child_edges(dom)[u]:
            tgt = dst[e]
            if marks[tgt] <= base:
                t = all_tags[tgt]
                if not t or jobid not in t:  # the job is not below: a visit that stops here
                    self.preorder += 1
                    marks[tgt] = base + 1
                    continue
                rc += self._mod_dfv(tgt, jobid)
        marks[u] = base + 2
        self.postorder += 1
        return rc

    def _mod_exv(self, jobid: int) -> int:
        """Cancel a job not tagged at the root: plan spans only, and always -1 (quirk 12).

        The spans it removes carry no tag, so the probe memo and recorded visits, which read
        an untagged vertex as never held, are dropped (:meth:`forget_visits`)."""
        sched = self.graph.schedule
        removed = False
        for v in range(self.graph.num_vertices):
            for table in (sched.allocations[v], sched.reservations[v]):
                if table and jobid in table:
                    sched.plans[v].rem_span(table.pop(jobid))
                    removed = True
        if removed:
            self.forget_visits()
        return -1
