"""Exact early termination for the id-ordered policies (``low``, ``high``, ...).

The reference visits every vertex of the graph for every ``low``/``high`` match, then keeps the
best ``k`` candidates of the top-level request. When that request is one resource type ``T``
with a fixed count, each candidate's score is known before the walk (``id + 2``), so the
candidates can be tried best-first. Once ``k`` units are found whose scores are *strictly* better
than every candidate not yet tried, the top-``k`` set of the full walk is known: every correct
sort puts exactly those groups first, whatever libstdc++'s tie order would do elsewhere. The
selection walk then visits only the chosen candidates and their pass-through ancestors, so it
marks the same edges and emits the same selection as the full walk.

A candidate below which no live job holds anything during the request's window (no tag, or
every tagged job's span off the window) is probed once per request shape: the probe then sees
what it sees below a candidate no job ever held, until the graph changes or a status is set
(the memo is dropped then). The sorted-candidate variant (:func:`_plan_by_sort`) serves
policies whose candidates' scores are known before the walk but tie.

When every candidate was tried and fewer than ``k`` units qualify, the full walk fails at the
root; the walk then enters no candidate and fails the same way (same errno), which saves the
second walk over every candidate in each failed step of the reservation loop.

Whenever the proof does not go through (a tie at the boundary, several
top-level requests, auxiliary subsystems, a dominant subsystem that is not a tree,
node-centric factors that differ between candidates, labelled requests),
:func:`plan_shortcut` returns ``None`` and the full walk runs unchanged. Only visit counts differ
from the reference, so the shortcut is off when exact statistics are asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fluxgraph.graph.depth import is_tree
from fluxgraph.policies.ids import IdOrder
from fluxgraph.policies.scoring import ScoringObject
from fluxgraph.traverser.state import ALLOC, NO_ALLOC, SATISFIABILITY, X_CHECKER_NJOBS

if TYPE_CHECKING:
    from fluxgraph.traverser.dfu import Selector
    from fluxgraph.traverser.request import Request
    from fluxgraph.traverser.state import JobMeta

__all__ = ["Region", "plan_shortcut", "pristine_region"]


class Region:
    """The vertices a top-level request of type ``T`` passes through before it matches.

    ``members`` holds every pass-through vertex and every candidate (first ``T`` vertex on a
    path from the root); ``parent`` is each member's tree parent; ``candidates`` lists the
    candidates; ``node_ancestor`` tells whether some candidate has a ``node``
    above it (node-centric scores then differ by candidate).
    """

    __slots__ = (
        "candidates",
        "key",
        "members",
        "node_ancestor",
        "orders",
        "parent",
        "tree",
        "walk_order",
    )

    def __init__(self, key: tuple) -> None:
        self.key = key
        self.tree = True
        self.orders: dict[bool, list[int]] = {}
        self.members: set[int] = set()
        self.parent: dict[int, int] = {}
        self.candidates: list[int] = []
        self.node_ancestor = False
        self.walk_order: list[tuple[int, list[int]]] | None = None


def pristine_region(sel: Selector, root: int, rtype: str) -> Region:
    """The pass-through region of ``rtype`` below ``root`` on the dominant subsystem.

    Runtime complexity: O(size of the region); cached until the graph changes.
    """
    g = sel.graph
    key = (root, rtype, g.num_vertices, g.num_edges)
    cache = sel.regions
    region = cache.get(rtype)
    if region is not None and region.key == key:
        return region
    region = Region(key)
    types, dst = g.types, g.edge_dst
    children = g.child_edges(sel.dom)
    # Skipping candidates is exact only if no vertex can be reached through two parents.
    region.tree = is_tree(g, sel.dom)
    members, parent = region.members, region.parent
    members.add(root)
    stack = [root]
    while stack:
        u = stack.pop()
        for e in reversed(children[u]):
            v = dst[e]
            if v in members:
                continue
            members.add(v)
            parent[v] = u
            if types[v] == rtype:
                region.candidates.append(v)
            else:
                stack.append(v)
    for v in region.candidates:
        a = parent[v]
        while a != root:
            if types[a] == "node":
                region.node_ancestor = True
                break
            a = parent[a]
    cache[rtype] = region
    return region


def plan_shortcut(
    sel: Selector, requests: list[Request], root: int, meta: JobMeta, excl: bool
) -> set[int] | None:
    """The vertices the walk may enter at pass-through levels (none: the request cannot be
    met), or ``None`` for the full walk."""
    policy = sel.policy
    scored = getattr(policy, "candidate_score", None)
    if (
        not (isinstance(policy, IdOrder) or scored is not None)
        or policy.stop_on_k
        or len(requests) != 1
        or len(sel.subsystems) != 1
        or _labelled(requests)
    ):
        return None
    r = requests[0]
    g = sel.graph
    if (
        r.type == "slot"
        or r.count_min != r.count_max
        or r.count_min < 1  # count 0: nothing to rank (the full walk decides)
        or r.type == g.types[root]
    ):
        return None
    region = pristine_region(sel, root, r.type)
    if not region.tree or (getattr(policy, "node_centric", False) and region.node_ancestor):
        return None
    if scored is not None:
        return _plan_by_sort(sel, requests, root, meta, excl, region)
    ids = g.ids
    sign = -1 if policy.prefer_high else 1
    order = region.orders.get(policy.prefer_high)
    if order is None:  # ids never change while the region is valid: sort once per direction
        order = region.orders[policy.prefer_high] = sorted(
            region.candidates, key=lambda v: sign * ids[v]
        )
    k = r.count_min
    memo_key = _probe_key(sel, r, excl, meta)
    parent = region.parent
    passed: dict[int, bool] = {root: True}
    chosen: list[int] = []
    total = 0
    boundary = None
    dom = sel.dom
    for v in order:
        score = sign * ids[v]
        if total >= k:
            if score > boundary:
                break
            return None  # a tie at the boundary: only the full walk orders it exactly
        ok = passed.get(parent[v])  # (siblings share their ancestors' answer)
        if ok is None:
            ok = _ancestors_pass(sel, meta, excl, requests, parent, passed, parent[v], dom)
        if not ok:
            continue
        avail = _probe(sel, meta, v, requests, excl, memo_key)
        if avail > 0:
            chosen.append(v)
            total += avail
            boundary = score
    else:
        if total < k:
            # every candidate was tried: the full walk finds fewer than k units too, and fails
            # at the root (ENODEV, or EBUSY where the root itself is pruned); walking no
            # candidate reaches the same failure without visiting them all again
            return _enter_only(sel, region, root, [])
    return _enter_only(sel, region, root, chosen)


def _plan_by_sort(
    sel: Selector, requests: list[Request], root: int, meta: JobMeta, excl: bool, region: Region
) -> set[int] | None:
    """:func:`plan_shortcut` for a policy whose candidates' scores are known before the walk
    (``candidate_score``) but tie: every candidate is probed (memoised like the id-order
    probes) in the order the full walk gathers them, the gathered list is sorted as the full
    walk sorts it at the root (``std::sort``'s tie order included), and the walk enters only
    the chosen prefix. The policy orders the gathered list (``order_candidates``) with the
    code its root choice uses. ``None`` (the full walk) when the prefix takes part of a
    candidate: the chosen subset alone could then be split differently."""
    r = requests[0]
    policy = sel.policy
    groups = region.walk_order
    if groups is None:
        groups = region.walk_order = _walk_order(sel, root, region)
    memo_key = _probe_key(sel, r, excl, meta)
    parent = region.parent
    passed: dict[int, bool] = {root: True}
    dom = sel.dom
    g = sel.graph
    score = policy.candidate_score
    gathered = []
    # (the probe's two usual answers inline: a held candidate an exclusive request refuses,
    # and a memo hit; every candidate is probed, so this loop is the shortcut's hot path)
    tags, memo, by_excl = g.schedule.tags, sel.probe_memo, sel.by_excl
    scores = sel.candidate_scores
    x_in = excl or r.exclusive is True
    for a, siblings in groups:
        if not _ancestors_pass(sel, meta, excl, requests, parent, passed, a, dom):
            continue
        for v in siblings:
            if not tags[v]:
                hit = memo.get(v)
                if hit is not None and hit[0] is memo_key and memo_key is not None:
                    avail = hit[1]
                else:
                    avail = _probe_visit(sel, meta, v, requests, excl, memo_key)
            elif x_in and by_excl(meta, v, x_in, r) < 0:
                continue
            else:
                avail = _probe_visit(sel, meta, v, requests, excl, memo_key)
            if avail > 0:
                sc = scores.get(v)
                if sc is None:
                    sc = scores[v] = score(g, v)
                gathered.append(_Candidate(sc, avail, v))
    if not policy.order_candidates(g, r.type, gathered, r.count_min):
        gathered = []  # the root rejects this start: the walk fails there too
    left = r.count_min
    chosen = []
    for c in gathered:
        if left <= 0:
            break
        if c.count > left:
            return None
        chosen.append(c.vertex)
        left -= c.count
    # (fewer than k units: the full walk fails at the root, as a walk entering none does)
    return _enter_only(sel, region, root, chosen if left <= 0 else [])


def _enter_only(sel: Selector, region: Region, root: int, chosen: list[int]) -> set[int]:
    """Let the walk enter only ``chosen`` and their pass-through ancestors; that set."""
    parent = region.parent
    allowed = set(chosen)
    for v in chosen:
        a = parent[v]
        while a not in allowed and a != root:
            allowed.add(a)
            a = parent[a]
    sel.region_filter = (region.members, allowed)
    return allowed


class _Candidate:
    """A probed candidate as the root's sort sees it."""

    __slots__ = ("count", "score", "vertex")

    def __init__(self, score: int, count: int, vertex: int) -> None:
        self.score = score
        self.count = count
        self.vertex = vertex


def _walk_order(sel: Selector, root: int, region: Region) -> list[tuple[int, list[int]]]:
    """The region's candidates in the order a full walk visits them (child-edge order), as
    runs of siblings: ``(parent, [candidate, ...])`` (their ancestors are checked once)."""
    g = sel.graph
    children = g.child_edges(sel.dom)
    dst = g.edge_dst
    members, candidates = region.members, set(region.candidates)
    parent = region.parent
    out: list[tuple[int, list[int]]] = []
    stack = [root]
    while stack:
        u = stack.pop()
        if u in candidates:
            a = parent[u]
            if out and out[-1][0] == a:
                out[-1][1].append(u)
            else:
                out.append((a, [u]))
            continue
        stack.extend(v for e in reversed(children[u]) if (v := dst[e]) in members)
    return out


def _probe(sel: Selector, meta: JobMeta, v: int, requests, excl: bool, key) -> int:
    """The units candidate ``v`` offers (0: its visit fails), memoised for when no job holds
    anything below ``v`` during the request's window (``key``: the request's shape, ``None``:
    not memoisable): the probe then sees what it sees below a ``v`` no job ever held.

    A candidate some job holds during the window fails an exclusive request at once (its
    pruning's exclusivity check, :meth:`Selector.by_excl`, refuses it whatever else holds)."""
    if sel.graph.schedule.tags[v]:
        r = requests[0]  # (the one request, of the candidates' type)
        x_in = excl or r.exclusive is True
        if x_in and sel.by_excl(meta, v, x_in, r) < 0:
            return 0
    return _probe_visit(sel, meta, v, requests, excl, key)


def _probe_visit(sel: Selector, meta: JobMeta, v: int, requests, excl: bool, key) -> int:
    """:func:`_probe` of a candidate its exclusivity check did not refuse."""
    g = sel.graph
    untouched = key is not None and (not g.schedule.tags[v] or _free_in_window(sel, v, meta))
    if untouched:
        hit = sel.probe_memo.get(v)
        if hit is not None and hit[0] is key:
            return hit[1]
    else:  # a visit that its pruning rejects fails whatever else holds: only prune then
        utype = g.types[v]
        x_in = excl or any(r.type == utype and r.exclusive is True for r in requests)
        if sel.prune(meta, x_in, sel.dom, v, utype, requests) < 0:
            return 0
    scratch = ScoringObject()
    avail = scratch.avail if sel.dom_dfv(meta, v, requests, True, excl, scratch) >= 0 else 0
    if untouched:
        sel.probe_memo[v] = (key, avail)
    return avail


def _free_in_window(sel: Selector, v: int, meta: JobMeta) -> bool:
    """Whether the jobs holding something below ``v`` all stay out of the request's window.

    Every job below ``v`` has a span of its window on ``v``'s exclusivity checker, so a free
    checker means no planner below ``v`` is used in the window; where a checker span is
    missing for a tagged job (a partial cancel's quirk), no. An allocation made now refuses
    an exclusive request below it whatever its window (:meth:`Selector.by_excl`): a window
    starting now is free only with no allocation below ``v`` (found on the replay's cached
    subtree; without replay, not free).
    """
    sched = sel.graph.schedule
    spans, tags = sched.x_spans[v], sched.tags[v]
    if not spans or len(spans) != len(tags):
        return False
    if sched.x_checkers[v].avail_resources_during(meta.at, meta.duration) != X_CHECKER_NJOBS:
        return False
    if meta.at == meta.now and meta.alloc_type in (ALLOC, NO_ALLOC):
        if sel.replay is None:
            return False
        allocations = sched.allocations
        return not any(allocations[w] for w in sel.replay.subtree(sel, v))
    return True


def _probe_key(sel: Selector, r: Request, excl: bool, meta: JobMeta) -> tuple | None:
    """What a probe of an untouched candidate depends on besides the subtree: the request's
    shape below its own count, ``excl`` and whether status counts (``None``: a constraint
    makes the probe depend on vertex properties too). Equal keys are one object (a memo hit
    is then an identity test, not a comparison of nested shapes)."""
    if meta.constraint is not None:
        return None
    key = (
        r.type,
        r.exclusive,
        tuple(sorted(r.user_data.items())),
        tuple(_shape(c) for c in r.with_),
        excl,
        meta.alloc_type == SATISFIABILITY,
    )
    return sel.probe_keys.setdefault(key, key)


def _shape(r: Request) -> tuple:
    return (
        r.type,
        r.count_min,
        r.count_max,
        r.count_operator,
        r.count_operand,
        r.exclusive,
        r.label,
        tuple(sorted(r.user_data.items())),
        tuple(_shape(c) for c in r.with_),
    )


def _labelled(requests: list[Request]) -> bool:
    """Whether some request carries a label: the full walk labels every vertex it visits (not
    only the chosen ones), and a label outlives its match until a later one replaces it.

    Slot labels do not count: a label is stored on vertices of the request's own type, and no
    vertex has the type ``slot`` (every slot must be labelled, so counting them would turn the
    shortcut off for nearly every jobspec)."""
    todo = list(requests)
    while todo:
        r = todo.pop()
        if r.label and r.type != "slot":
            return True
        todo.extend(r.with_)
    return False


def _ancestors_pass(sel, meta, excl, requests, parent, passed, a, dom) -> bool:
    """Whether every pass-through ancestor from ``a`` up survives pruning and could still hold
    one instance of the request (memoised per ancestor).

    The second test only skips candidates that would fail anyway: an ancestor's aggregate counts
    every unit of its pruning types below it, so if it cannot supply the units one instance needs
    (``user_data``) over the window, no candidate below it can.
    """
    path = []
    while a not in passed:
        path.append(a)
        a = parent[a]
    ok = passed[a]
    types = sel.graph.types
    r = requests[0]
    for b in reversed(path):
        ok = (
            ok
            and sel.prune(meta, excl, dom, b, types[b], requests) == 0
            and sel.by_subplan(meta, dom, b, r) == 0
        )
        passed[b] = ok
    return ok
