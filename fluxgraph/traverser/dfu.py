"""The DFU traverser's selection walk: depth-first on the dominant subsystem, up on the others.

This module holds the matching half of the traverser (matching-semantics §6.7-§6.12): visiting a
vertex, pruning (the checks of :mod:`.checks`), exploring children statically or dynamically
(:mod:`.explore`), slots (:mod:`.slots`), and enforcing a best-k choice on the edges.
:mod:`fluxgraph.traverser.booking` applies a selection (and cancels one); :mod:`.core` drives
both for each match operation, and hands whole-node requests on flat machines to the exact fast
path of :mod:`.fastpath`.
"""

from __future__ import annotations

from errno import EBUSY, ENODEV

from fluxgraph.graph import ResourceGraph
from fluxgraph.graph.depth import is_tree
from fluxgraph.planner import GRAPH_END
from fluxgraph.policies.scoring import EGroup, ScoringObject
from fluxgraph.traverser.checks import VertexChecks
from fluxgraph.traverser.explore import Explorer
from fluxgraph.traverser.pruning import PruningConfig
from fluxgraph.traverser.replay import VisitReplay
from fluxgraph.traverser.request import Request
from fluxgraph.traverser.shortcut import plan_shortcut
from fluxgraph.traverser.slots import count_slots, fill_slot
from fluxgraph.traverser.state import (
    ALLOC,
    ALLOC_ORELSE_RESERVE,
    INT64_MAX,
    NO_ALLOC,
    SATISFIABILITY,
    Colors,
    JobMeta,
    avail_during,
)

__all__ = [
    "ALLOC",
    "ALLOC_ORELSE_RESERVE",
    "NO_ALLOC",
    "SATISFIABILITY",
    "Selector",
]

_NONE_MATCH, _PRISTINE_NONE_MATCH, _RESOURCE_MATCH, _SLOT_MATCH = range(4)
_NO_EDGE = -1
_EDGE_DEFAULTS = (("e_needs", 0), ("e_excl", False), ("e_seq", 0), ("e_weight", (1 << 64) - 1))


class Selector(VertexChecks, Explorer):
    """State and walk of one traverser over one graph (see module docstring)."""

    def __init__(
        self, graph: ResourceGraph, subsystems: list[str], policy, pruning: PruningConfig
    ) -> None:
        self.graph = graph
        self.subsystems = subsystems
        self.dom = subsystems[0]
        self.policy = policy
        self.pruning = pruning
        self.exclusive_types: set[str] = set(policy.exclusive_types)
        #: Types whose vertices are capacity pools shared by jobs (a policy's opt-in
        #: ``pool_types``, e.g. the memory-pool policy's ``memory``): an exclusive request on
        #: one is limited by its planner only, not by other jobs touching it (:meth:`by_excl`).
        self.pool_types: frozenset[str] = frozenset(getattr(policy, "pool_types", ()))
        #: A policy's opt-in ``leaf_score(graph, u)``: the score its visit hooks give a leaf
        #: whose request has no members (``None``: run the hooks), read by :meth:`visit_leaf`.
        self.leaf_score = getattr(policy, "leaf_score", None)
        #: A policy's opt-in ``match_window(meta)``: told the job and the start time of every
        #: select before its walk (class packing's start-time budget looks ahead from it).
        self.match_window = getattr(policy, "match_window", None)
        self.colors = Colors(graph, subsystems)
        m = graph.num_edges
        self.e_needs = [0] * m
        self.e_excl = [False] * m
        self.e_seq = [0] * m
        self.e_weight = [(1 << 64) - 1] * m
        self.graph_end = GRAPH_END
        self.seq = 0
        self.errno = 0
        self.level = 0
        self.nodes_up = 0
        #: The own availability of the vertex :meth:`prune` last checked (over the request's
        #: window), read by :meth:`dom_dfv` instead of querying the planner a second time.
        self.pruned_avail = 0
        self.total_preorder = 0
        self.total_postorder = 0
        self.preorder = 0
        self.postorder = 0
        self.v_rt: dict[str, tuple[int, bool, int]] = {}
        #: Every edge marked (``e_seq`` set) since the last :meth:`tick`, which started
        #: selection ``marked_seq``: the update walk reads the marked children of a vertex
        #: from it instead of scanning all of the vertex's out-edges.
        self.marked_edges: list[int] = []
        self.marked_seq = -1
        #: The last priming (see ``Traverser._prime_cached``): the request objects (kept
        #: alive, so their identities stay theirs), pruning version, totals, exclusive types.
        self._primed: tuple | None = None
        self._aux_root: int | bool | None = False
        self._sorted_out: list[list[int] | None] = [None] * graph.num_vertices
        self._sorted_keys: list[list[tuple[int, int]] | None] = [None] * graph.num_vertices
        self._parent_edge: dict[str, list[int]] = {}
        self._child_types: list[frozenset[str] | None] | None = None
        #: Use exact early termination (off when visit counts must equal the reference's).
        self.shortcuts = True
        self.shortcut_used = False
        #: Whether visits are this class's own (a subclass may visit or prune differently):
        #: only then may a busy child be skipped, or a leaf visited by :meth:`visit_leaf`.
        cls = type(self)
        self.plain_visits = cls.dom_dfv is Selector.dom_dfv and cls.prune is Selector.prune
        self.regions: dict = {}
        self.region_filter: tuple[set[int], set[int]] | None = None
        #: Shortcut probes of candidates no job holds: vertex -> (request shape, units).
        self.probe_memo: dict[int, tuple[tuple, int]] = {}
        #: Candidate vertex -> the policy's ``candidate_score`` (from its properties).
        self.candidate_scores: dict[int, int] = {}
        #: One object per distinct probe key (``shortcut._probe_key``).
        self.probe_keys: dict[tuple, tuple] = {}
        #: Recorded visits below vertices no job holds (``None``: not used, see
        #: :mod:`fluxgraph.traverser.replay`).
        self.replay: VisitReplay | None = None
        graph.schedule.grow(graph.num_vertices)
        self._enable_replay()

    # -- helpers -------------------------------------------------------------------------------

    def graph_changed(self, emap: list[int] | None = None) -> None:
        """Resize and drop every per-vertex and per-edge cache after the graph changed.

        ``emap`` maps old edge ids to new ones (-1: removed) after a removal; without it, edges
        were only appended. Edge marks and weights follow their edges. The caller re-primes the
        aggregates with ``initialize()``.
        """
        g = self.graph
        n, m = g.num_vertices, g.num_edges
        g.schedule.grow(n)
        for name, default in _EDGE_DEFAULTS:
            old = getattr(self, name)
            if emap is None:
                new = old + [default] * (m - len(old))
            else:
                new = [default] * m
                for e_old, e_new in enumerate(emap):
                    if e_new >= 0:
                        new[e_new] = old[e_old]
            setattr(self, name, new)
        self.colors = Colors(g, self.subsystems)
        self._sorted_out = [None] * n
        self._sorted_keys = [None] * n
        self._parent_edge = {}
        self._child_types = None
        self._aux_root = False
        self.regions = {}
        self.region_filter = None
        self.probe_memo = {}
        self.candidate_scores = {}
        self._enable_replay()

    def _enable_replay(self) -> None:
        """Record and replay visits where that is exact: this class's own visits, a policy
        whose visit hooks keep no state, one subsystem, and a tree (no vertex with two
        parents on it)."""
        exact = (
            self.plain_visits
            and getattr(self.policy, "replay_visits", False)
            and len(self.subsystems) == 1
            and is_tree(self.graph, self.dom)
        )
        shared = exact and getattr(self.policy, "replay_shared", False)
        self.replay = VisitReplay(shared) if exact else None

    def forget_visits(self) -> None:
        """Drop the shortcut's probe memo and the recorded visits.

        Both trust that a vertex no job tags holds nothing below it. Spans added or removed
        without the walk's tags break that: an update whose selection is not walked from the
        dominant root (an R read under another dominant subsystem), and a cancel of a job not
        tagged at the root (``mod_exv``). Those call this, so no later match reuses what a
        probe saw while the job held its vertices.
        """
        self.probe_memo.clear()
        if self.replay is not None:
            self.replay.clear()

    def tick(self) -> None:
        """Start a new selection: bump the sequence number and whiten every vertex."""
        self.seq += 1
        self.colors.reset()
        self.marked_edges = []
        self.marked_seq = self.seq

    def own_avail(self, u: int, meta: JobMeta) -> int:
        g = self.graph
        return avail_during(g.schedule.plans[u], g.sizes[u], meta.at, meta.duration)

    def child_types(self, u: int) -> frozenset[str]:
        """The types of ``u``'s children in any subsystem (computed once per vertex)."""
        ct = self._child_types
        if ct is None:
            ct = self._child_types = [None] * self.graph.num_vertices
        have = ct[u]
        if have is None:
            g = self.graph
            types, dst = g.types, g.edge_dst
            have = ct[u] = frozenset(types[dst[e]] for e in g.out_edges[u])
        return have

    def parent_edge(self, s: str, v: int) -> int:
        """The first in-edge of ``v`` in subsystem ``s`` (-1 if none; computed once per vertex)."""
        pe = self._parent_edge.get(s)
        if pe is None:
            pe = self._parent_edge[s] = [-2] * self.graph.num_vertices
        e = pe[v]
        if e == -2:
            esub = self.graph.edge_subsystem
            e = pe[v] = next((e for e in self.graph.in_edges[v] if esub[e] == s), -1)
        return e

    # -- the selection walk --------------------------------------------------------------------

    def select(self, requests: list[Request], root: int, meta: JobMeta, excl: bool) -> int:
        """Select resources for ``requests`` below ``root`` at ``meta.at``; 0 or -1 (errno)."""
        self.tick()
        if self.match_window is not None:
            self.match_window(meta)
        if self.shortcuts:
            # (an empty region proves the request cannot be met: the walk then fails at the
            # root exactly as the full walk does, errno included, so no re-run is needed)
            if plan_shortcut(self, requests, root, meta, excl):
                self.shortcut_used = True
            self.tick()  # the probe visited vertices: whiten them for the real walk
        self.preorder = self.postorder = 0
        try:
            return self._walk_from_root(requests, root, meta, excl)
        finally:
            self.region_filter = None

    def _walk_from_root(self, requests: list[Request], root: int, meta: JobMeta, excl: bool) -> int:
        dfu = ScoringObject()
        x = self.dom_dfv(meta, root, requests, True, excl, dfu)
        if x < 0:
            return -1
        a = dfu.avail
        dom = self.dom
        rtype = self.graph.types[root]
        dfu.add(dom, rtype, EGroup(dfu.overall_score, a, excl, True, [(a, a, excl, _NO_EDGE)]))
        needs = self.resolve_graph(root, requests, dfu)
        rc = 0
        if needs < 0:
            self.errno = ENODEV
            rc, needs = -1, 0
        self.v_rt[dom] = (needs, bool(x), self.seq)
        return rc

    def resolve_graph(self, root: int, requests: list[Request], dfu: ScoringObject) -> int:
        """Choose top-level candidates and mark edges; the root's needs, or -1."""
        if self.policy.dom_finish_graph(self.graph, self.dom, requests, dfu) != 0:
            return -1
        needs = 1
        rtype = self.graph.types[root]
        for r in requests:
            if r.type == rtype:
                c = r.calc_count(dfu.avail)
                if c == 0:
                    return -1
                needs = c
        for s in self.subsystems:
            for (sub, _), ev in dfu.evals.items():
                if sub == s and ev.qual_count == 0:
                    return -1
        for s in self.subsystems:
            if self.enforce(s, dfu, True) != 0:
                return -1
        return needs

    def dom_dfv(
        self,
        meta: JobMeta,
        u: int,
        requests: list[Request],
        pristine: bool,
        excl: bool,
        to_parent: ScoringObject,
    ) -> int:
        """Visit ``u`` on the dominant subsystem; -1 on failure, else ``u``'s exclusivity (0/1)."""
        g = self.graph
        utype = g.types[u]
        if self.plain_visits and not g.out_edges[u]:
            xc = self.visit_leaf(meta, u, utype, requests, pristine, excl, to_parent)
            if xc is not None:
                return xc
        x_in = excl
        if not x_in:
            for r in requests:
                if r.type == utype and r.exclusive is True:
                    x_in = True
                    break
        nxt, kind, nslots, pristine = self.test(u, utype, requests, pristine)
        self.preorder += 1
        if kind == _NONE_MATCH:
            self.errno = EBUSY
            return -1
        dom = self.dom
        if self.prune(meta, x_in, dom, u, utype, requests) < 0:
            return -1
        # u's own availability, as prune found it (a selection changes no planner, so the
        # reference's second query after the children were explored gives the same answer)
        a = self.pruned_avail
        policy = self.policy
        if policy.dom_discover_vtx(g, u) != 0:
            return -1
        colors = self.colors
        marks = colors.marks[dom]
        marks[u] = colors.base + 1
        below = (meta, u, requests, kind, nxt, nslots, pristine, x_in, to_parent)
        replay = self.replay
        if replay is not None and kind >= _RESOURCE_MATCH and g.out_edges[u]:
            dfu = replay.visit(self, below)
        else:
            dfu = self.visit_below(*below)
        if dfu is None:
            return -1
        to_parent.avail = a
        to_parent.overall_score = dfu.overall_score
        for r in requests:
            if r.type == utype and r.label:
                # a new selection's label replaces whatever an earlier one left (matching §6.8)
                g.schedule.ephemeral[u] = {"label": r.label}
        self.postorder += 1
        return 1 if x_in else 0

    def visit_below(
        self,
        meta: JobMeta,
        u: int,
        requests: list[Request],
        kind: int,
        nxt,
        nslots: int,
        pristine: bool,
        x_in: bool,
        to_parent: ScoringObject,
    ) -> ScoringObject | None:
        """The part of :meth:`dom_dfv` below ``u``: explore its children, let the policy choose
        among them and resolve the choice; ``u``'s scoring object, ``None`` (errno set) when
        ``u`` cannot serve."""
        g = self.graph
        dfu = ScoringObject()
        if kind == _SLOT_MATCH:
            self.dom_slot(meta, u, nxt, nslots, pristine, dfu)
        elif g.out_edges[u]:
            self.dom_exp(meta, u, nxt, pristine, x_in, dfu)
        # (a leaf has nothing to explore in any subsystem: its scoring object stays empty)
        colors = self.colors
        colors.marks[self.dom][u] = colors.base + 2
        if self.policy.dom_finish_vtx(g, self.dom, u, requests, dfu) != 0:
            self.errno = EBUSY
            return None
        if (dfu.evals or dfu.hier_constrain_now) and self.resolve(dfu, to_parent) != 0:
            return None
        return dfu

    def visit_leaf(
        self,
        meta: JobMeta,
        u: int,
        utype: str,
        requests: list[Request],
        pristine: bool,
        excl: bool,
        to_parent: ScoringObject,
    ) -> int | None:
        """:meth:`dom_dfv` of a vertex without out-edges, in one method (the visit of most
        vertices); ``None`` where the request list asks for slots (the full visit then runs).

        A leaf explores nothing, so its visit is its classification, its pruning and its
        policy's score of an empty scoring object: the same checks in the same order, the same
        errno, counters, colours and parent update as the full visit.
        """
        matched = None
        x_in = excl
        for r in requests:
            rtype = r.type
            if rtype == "slot":
                return None
            if rtype == utype:
                if matched is not None:
                    self.preorder += 1
                    self.errno = EBUSY
                    return -1
                for c in r.with_:
                    if c.type == "slot":
                        return None
                matched = r
                if r.exclusive is True:
                    x_in = True
        self.preorder += 1
        if matched is None and not pristine:
            self.errno = EBUSY
            return -1
        a = self.own_checks(meta, u, utype)
        if a == 0:
            return -1
        g = self.graph
        if matched is not None:
            if (x_in or matched.exclusive is True) and self.by_excl(meta, u, x_in, matched) < 0:
                return -1
            if matched.user_data and self.by_subplan(meta, self.dom, u, matched) < 0:
                return -1
        policy = self.policy
        leaf_score = self.leaf_score
        if leaf_score is not None and (matched is None or not matched.with_):
            score = leaf_score(g, u)
            if score is not None:  # the policy's hooks, answered for an empty scoring object
                colors = self.colors
                colors.marks[self.dom][u] = colors.base + 2
                to_parent.avail = a
                to_parent.overall_score = score
                if matched is not None and matched.label:
                    g.schedule.ephemeral[u] = {"label": matched.label}
                self.postorder += 1
                return 1 if x_in else 0
        if policy.dom_discover_vtx(g, u) != 0:
            return -1
        colors = self.colors
        marks = colors.marks[self.dom]
        marks[u] = colors.base + 2
        dfu = ScoringObject()
        if policy.dom_finish_vtx(g, self.dom, u, requests, dfu) != 0:
            self.errno = EBUSY
            return -1
        if (dfu.evals or dfu.hier_constrain_now) and self.resolve(dfu, to_parent) != 0:
            return -1
        to_parent.avail = a
        to_parent.overall_score = dfu.overall_score
        if matched is not None and matched.label:
            g.schedule.ephemeral[u] = {"label": matched.label}
        self.postorder += 1
        return 1 if x_in else 0

    def test(self, u: int, utype: str, requests: list[Request], pristine: bool):
        """Classify ``u`` against the request list: (next list, kind, nslots, pristine)."""
        match_res = slot_res = None
        nslots = 0
        matched = False
        for r in requests:
            if r.type == utype:
                if matched:
                    return requests, _NONE_MATCH, 0, pristine
                match_res = r
                for c in r.with_:
                    if c.type == "slot":
                        slot_res = c
                        nslots = c.eff_max
                matched = True
            elif r.type == "slot":
                if matched:
                    return requests, _NONE_MATCH, 0, pristine
                slot_res = r
                nslots = r.eff_max
                matched = True
        if slot_res is not None:
            have = self.child_types(u)
            if all(c.type in have for c in slot_res.with_):
                return slot_res.with_, _SLOT_MATCH, nslots, False
        if match_res is not None:
            return match_res.with_, _RESOURCE_MATCH, 0, False
        return requests, (_PRISTINE_NONE_MATCH if pristine else _NONE_MATCH), 0, pristine

    def dom_slot(
        self, meta: JobMeta, u: int, shape, nslots: int, pristine: bool, dfu: ScoringObject
    ) -> int:
        """Form as many slots of ``shape`` as the children of ``u`` allow (§6.11)."""
        dom = self.dom
        sdfu = ScoringObject()
        if self.explore(meta, u, dom, shape, pristine, True, True, sdfu, nslots) != 0:
            return -1
        if self.policy.dom_finish_slot(self.graph, dom, sdfu) != 0:
            return -1
        n = count_slots(dom, shape, sdfu)
        slots = []
        for _ in range(n):
            grp = fill_slot(dom, shape, sdfu, lambda elem, ev: ev.qual_count if ev else 0)
            if grp is None:
                return -1
            slots.append(grp)
        for grp in slots:
            dfu.add(dom, "slot", grp)
        return 0 if n > 0 else -1

    def resolve(self, dfu: ScoringObject, to_parent: ScoringObject) -> int:
        """Fix a vertex's choice on its edges now, or hand its candidates up unchanged."""
        if dfu.overall_score > 0:
            if dfu.hier_constrain_now:
                rc = 0
                for s in self.subsystems:
                    rc += self.enforce(s, dfu, False)
                return rc
            to_parent.merge(dfu)
        return 0

    def enforce(self, s: str, dfu: ScoringObject, walk_up: bool) -> int:
        """Mark the edges of the chosen groups; at the root also climb to mark ancestors."""
        g = self.graph
        order = g.type_names.order
        seq = self.seq
        e_needs, e_excl, e_seq = self.e_needs, self.e_excl, self.e_seq
        climb = walk_up and s == self.dom
        marked = self.marked_edges
        keys = [k for k in dfu.evals if k[0] == s]
        if len(keys) > 1:
            keys.sort(key=lambda k: order(k[1]))
        for key in keys:
            ev = dfu.evals[key]
            if ev.best_k == 0:
                continue
            for grp in ev.groups[: ev.best_i]:
                if grp.root:
                    continue
                for _, needs, excl, e in grp.edges:
                    e_needs[e] = needs
                    e_excl[e] = excl
                    e_seq[e] = seq
                    marked.append(e)
                    if climb:
                        self._mark_ancestors(s, e, dfu)
        return 0

    def _mark_ancestors(self, s: str, e: int, dfu: ScoringObject) -> None:
        """Climb first in-edges from the source of chosen edge ``e``, marking the edges into
        pass-through vertices (§6.12 ``enforce``), until the top or an edge already marked.

        Each vertex has one first in-edge, met at most once unmarked by a climb that ends (met
        again unmarked, it is on a cycle of first in-edges that marks nothing, which the
        reference would climb forever): after one step per vertex the climb stops.
        """
        g = self.graph
        seq = self.seq
        v = g.edge_src[e]
        for _ in range(g.num_vertices):
            pe = self.parent_edge(s, v)
            if pe < 0 or self.e_seq[pe] == seq:
                return
            v = g.edge_src[pe]
            w = g.edge_dst[pe]
            ev = dfu.evals.get((s, g.types[w]))
            if ev is not None and ev.best_k == 0:
                self.e_needs[pe] = g.sizes[w]
                self.e_excl[pe] = False
                self.e_seq[pe] = seq
                self.marked_edges.append(pe)

    def far_future(self, duration: int) -> int:
        """A time after every span: where satisfiability is checked (§6.6 ``FAR``)."""
        return INT64_MAX - duration - 1
