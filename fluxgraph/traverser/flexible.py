"""The flexible traverser: or-slots and ``xor_slot`` alternatives (matching-semantics §6.19).

:class:`FlexibleTraverser` is the simple traverser with five changes:

* **select** expands the request with :func:`split_xor_slots` into plain-slot variants and runs
  the simple selection on each in turn; the first variant that fits wins and replaces the request
  list.
* **priming** aggregates sibling slots by their *minimum* requirement, not their sum, so or-slots
  never over-prune (:func:`prime_flexible`).
* **test**: slot siblings at one level form one list of alternatives (*or-slots*); a vertex hosts
  them when it can host any of them, and a vertex that cannot host its slot list is no match
  (the simple traverser would match it and look for the slot one level lower).
* **prune**: a slot's failing aggregate test does not stop the loop; the last test decides.
* **dom_slot** gathers the union of the alternatives' members and builds the mix of slots that
  gives the most slots (a memoised search over the remaining unit counts).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from errno import EOVERFLOW

from fluxgraph.jobspec.counts import UINT_MAX
from fluxgraph.policies.scoring import ScoringObject
from fluxgraph.traverser.core import Traverser
from fluxgraph.traverser.request import Request
from fluxgraph.traverser.slots import fill_slot
from fluxgraph.traverser.state import JobMeta

__all__ = [
    "MAX_XOR_EXPANSION",
    "FlexibleTraverser",
    "plan_slots",
    "prime_flexible",
    "split_xor_slots",
]

#: Most variants (or options) :func:`split_xor_slots` may build at any stage
#: (``SYSTEM_MAX_XOR_EXPANSION``).
MAX_XOR_EXPANSION = 1000

_SLOT_TYPES = ("slot", "xor_slot")
_NONE_MATCH, _PRISTINE_NONE_MATCH, _RESOURCE_MATCH, _SLOT_MATCH = range(4)


def _copy(r: Request, rtype: str, with_: tuple[Request, ...]) -> Request:
    c = Request(
        rtype,
        r.count_min,
        r.count_max,
        r.count_operator,
        r.count_operand,
        r.exclusive,
        r.label,
        with_,
    )
    c.user_data = dict(r.user_data)
    return c


def split_xor_slots(requests: Sequence[Request]) -> list[list[Request]] | None:
    """Expand every ``xor_slot`` into its alternatives: a list of plain-slot request lists.

    Non-``xor_slot`` siblings combine as a cross product of their children's expansions (earlier
    siblings outermost). Each ``xor_slot`` sibling offers one option per expansion of its
    children, turned into a ``slot``; every base variant is then combined with every option (base
    outer, option inner). Copies keep their ``user_data``.

    Returns
    -------
    The variants in trial order, or ``None`` when more than :data:`MAX_XOR_EXPANSION` entries
    arise at any stage (the reference's EOVERFLOW).

    Examples
    --------
    >>> def req(t, *w):
    ...     return Request(t, 1, 1, "+", 1, None, "", tuple(w))
    >>> vs = split_xor_slots([req("xor_slot", req("core")), req("xor_slot", req("gpu"))])
    >>> [[(r.type, r.with_[0].type) for r in v] for v in vs]
    [[('slot', 'core')], [('slot', 'gpu')]]
    >>> split_xor_slots([req("node", req("xor_slot", req("core")), req("xor_slot", req("gpu")))])
    [[Request(node[1], with=[Request(slot[1], with=[Request(core[1], with=[])])])], \
[Request(node[1], with=[Request(slot[1], with=[Request(gpu[1], with=[])])])]]
    """
    base: list[list[Request]] = [[]]
    options: list[Request] = []
    for r in requests:
        children = split_xor_slots(r.with_)
        if children is None:
            return None
        if r.type == "xor_slot":
            options.extend(_copy(r, "slot", tuple(cv)) for cv in children)
            if len(options) > MAX_XOR_EXPANSION:
                return None
        else:
            base = [[*b, _copy(r, r.type, tuple(cv))] for b in base for cv in children]
            if len(base) > MAX_XOR_EXPANSION:
                return None
    if not options:
        return base
    if len(base) * len(options) > MAX_XOR_EXPANSION:
        return None
    return [[*b, o] for b in base for o in options]


def prime_flexible(
    requests: Sequence[Request],
    to_parent: dict[str, int],
    is_pruning_type: Callable[[str], bool],
    exclusive_types: set[str],
) -> None:
    """Fill ``user_data`` bottom-up like ``prime_requests``, taking sibling slots' minimum.

    For ``slot``/``xor_slot`` siblings the amount handed to the parent is, per pruning type, the
    minimum over those siblings of ``count_min × per-slot need`` (a type a slot lacks makes it 0).
    Other resources add up as in the simple traverser. ``user_data`` must start empty.

    Examples
    --------
    >>> def req(t, n, *w):
    ...     return Request(t, n, n, "+", 1, None, "", tuple(w))
    >>> top = {}
    >>> prime_flexible(
    ...     [req("slot", 2, req("core", 12), req("memory", 4)), req("slot", 2, req("core", 4))],
    ...     top, lambda t: t in ("core", "memory"), set())
    >>> top
    {'core': 8, 'memory': 0}
    """
    slot_min: dict[str, int] | None = None
    for r in requests:
        if r.exclusive is True:
            exclusive_types.add(r.type)
        if is_pruning_type(r.type):
            to_parent[r.type] = to_parent.get(r.type, 0) + r.count_min
        prime_flexible(r.with_, r.user_data, is_pruning_type, exclusive_types)
        if r.type in _SLOT_TYPES:
            need = {t: r.count_min * n for t, n in r.user_data.items() if is_pruning_type(t)}
            if slot_min is None:
                slot_min = need
            else:
                slot_min = {t: min(slot_min.get(t, 0), need.get(t, 0)) for t in slot_min | need}
        else:
            for t, n in r.user_data.items():
                if is_pruning_type(t):
                    to_parent[t] = (to_parent.get(t, 0) + r.count_min * n) & UINT_MAX
    if slot_min:
        for t, n in slot_min.items():
            to_parent[t] = (to_parent.get(t, 0) + n) & UINT_MAX


def _reset_user_data(requests: Sequence[Request]) -> None:
    for r in requests:
        r.user_data = {}
        _reset_user_data(r.with_)


def _take(kind: Request, types: tuple[str, ...], state: tuple[int, ...]) -> tuple[int, ...] | None:
    """``state`` minus one slot of ``kind``; ``None`` when a member is short or absent."""
    if not kind.with_:
        return None
    left = list(state)
    for m in kind.with_:
        i = types.index(m.type)
        k = m.calc_count(state[i])
        if k == 0 or k > left[i]:
            return None
        left[i] -= k
    return tuple(left)


def plan_slots(
    kinds: Sequence[Request], types: tuple[str, ...], counts: tuple[int, ...], nslots: int
) -> list[tuple[Request, tuple[int, ...]]]:
    """Choose which slot kind to build at each step: ``[(kind, counts before that slot), ...]``.

    ``counts[i]`` is the number of qualified units of ``types[i]``. With one kind the answer is
    ``min(nslots, min over members of count / k)``; with several, a memoised search over the
    remaining counts maximises the number of slots (not capped by ``nslots``), trying kinds in
    list order and keeping the first strictly better total.

    Runtime complexity: O(S·K·M) for S reachable count states, K kinds, M members per kind.

    Examples
    --------
    >>> def req(t, n, *w):
    ...     return Request(t, n, n, "+", 1, None, "", tuple(w))
    >>> small = req("slot", 1, req("core", 8), req("gpu", 1))
    >>> big = req("slot", 1, req("core", 10))
    >>> [(k is small, c) for k, c in plan_slots([small, big], ("core", "gpu"), (18, 1), 1)]
    [(True, (18, 1)), (False, (10, 0))]
    >>> len(plan_slots([big], ("core", "gpu"), (36, 0), 2))
    2
    """
    if len(kinds) == 1:
        kind = kinds[0]
        n = UINT_MAX
        for m in kind.with_:
            c = counts[types.index(m.type)]
            k = m.calc_count(c)
            n = min(n, c // k if k else 0)
        if not kind.with_:
            n = 0
        return [(kind, counts)] * min(nslots, n)
    memo: dict[tuple[int, ...], tuple[int, int, tuple[int, ...] | None]] = {}
    stack = [counts]
    while stack:  # iterative post-order: deep chains of slots would overflow Python's stack
        state = stack[-1]
        if state in memo:
            stack.pop()
            continue
        succ = [_take(kind, types, state) for kind in kinds]
        todo = [s for s in succ if s is not None and s not in memo]
        if todo:
            stack.extend(todo)
            continue
        best, best_i, best_next = 0, -1, None
        for i, nxt in enumerate(succ):
            if nxt is not None and 1 + memo[nxt][0] > best:
                best, best_i, best_next = 1 + memo[nxt][0], i, nxt
        memo[state] = (best, best_i, best_next)
        stack.pop()
    plan = []
    state = counts
    while True:
        _, i, nxt = memo[state]
        if i < 0 or nxt is None:
            return plan
        plan.append((kinds[i], state))
        state = nxt


class FlexibleTraverser(Traverser):
    """The ``flexible`` traverser policy: or-slots and ``xor_slot`` (see module docstring)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._split: tuple[tuple[Request, ...], list[list[Request]] | None] | None = None

    # -- priming -------------------------------------------------------------------------------

    def prime(self, requests: list[Request], dfv: dict[str, int]) -> None:
        """(Re)compute every request's ``user_data`` and the top-level needs ``dfv`` (§6.19)."""
        dom = self.dom
        is_pruning = self.pruning.is_pruning_type
        _reset_user_data(requests)
        dfv.clear()
        prime_flexible(requests, dfv, lambda t: is_pruning(dom, t), self.exclusive_types)
        self._split = None

    def _schedule(self, requests, meta: JobMeta, x: bool, op: str, root: int, dfv) -> int:
        # Traverser.run primed with sums; redo it with slot minimums before anything reads it.
        self.prime(requests, dfv)
        return super()._schedule(requests, meta, x, op, root, dfv)

    def _sat_select(self, requests, root, meta: JobMeta, x: bool) -> int:
        self.prime(requests, {})
        return super()._sat_select(requests, root, meta, x)

    # -- selection -----------------------------------------------------------------------------

    def select(self, requests: list[Request], root: int, meta: JobMeta, excl: bool) -> int:
        """Try each xor-slot variant in order; the first that fits replaces ``requests``."""
        key = tuple(requests)
        cached = self._split
        if (
            cached is not None
            and len(cached[0]) == len(key)
            and all(a is b for a, b in zip(cached[0], key, strict=True))
        ):
            variants = cached[1]
        else:
            variants = split_xor_slots(requests)
            self._split = (key, variants)
        if variants is None:
            self.errno = EOVERFLOW
            return -1
        for variant in variants:
            if super().select(variant, root, meta, excl) == 0:
                if variant is not requests:
                    requests[:] = variant
                    self._split = (tuple(variant), [variant])
                return 0
        return -1

    def test(self, u: int, utype: str, requests: list[Request], pristine: bool):
        """Classify ``u``: slot siblings are alternatives; any hostable one makes a slot match.

        The slot list is the current list when it holds a slot, else the ``with`` of the
        request ``u`` matches when that holds one. ``u`` hosts it when ``u`` has children of
        every member type of some listed entry (every entry is tried, slot or not). Where
        there is a slot list that ``u`` cannot host, ``u`` is *not* a resource match, unlike
        the simple traverser, which looks for the slot one level lower: it is a pass-through
        while nothing has matched yet and a mismatch afterwards. So ``node > slot > core``
        never matches a node whose cores sit below sockets.
        """
        match_res = None
        slots: Sequence[Request] | None = None
        nslots = 0
        matched = slot_level = False
        for r in requests:
            if r.type == utype:
                if matched:
                    return requests, _NONE_MATCH, 0, pristine
                match_res = r
                for c in r.with_:
                    if c.type == "slot":
                        slots = r.with_
                        nslots = c.eff_max
                matched = True
            elif r.type == "slot":
                if matched and not slot_level:
                    return requests, _NONE_MATCH, 0, pristine
                slots = requests
                nslots = r.eff_max
                matched = slot_level = True
        if slots is not None:
            have = self.child_types(u)
            for s in slots:
                if all(c.type in have for c in s.with_):
                    return slots, _SLOT_MATCH, nslots, False
            return requests, (_PRISTINE_NONE_MATCH if pristine else _NONE_MATCH), 0, pristine
        if match_res is not None:
            return match_res.with_, _RESOURCE_MATCH, 0, False
        return requests, (_PRISTINE_NONE_MATCH if pristine else _NONE_MATCH), 0, pristine

    def prune(
        self, meta: JobMeta, x_in: bool, s: str, u: int, utype: str, requests: list[Request]
    ) -> int:
        """As the simple prune, but a slot's failing aggregate test does not end the loop."""
        if super().prune(meta, x_in, s, u, utype, ()) < 0:
            return -1
        rc = 0
        for r in requests:
            rtype = r.type
            if rtype == "slot":
                rc = self.by_subplan(meta, s, u, r)
            elif rtype == utype:
                if self.by_excl(meta, u, x_in, r) < 0 or self.by_subplan(meta, s, u, r) < 0:
                    return -1
                rc = 0
        return rc

    def dom_slot(
        self, meta: JobMeta, u: int, shape, nslots: int, pristine: bool, dfu: ScoringObject
    ) -> int:
        """Build the mix of the listed slot kinds that gives the most slots at ``u`` (every
        listed entry is a kind, as in the reference; one without members builds nothing)."""
        dom = self.dom
        kinds = list(shape)
        widest: dict[str, Request] = {}
        for kind in kinds:
            for m in kind.with_:
                w = widest.get(m.type)
                if w is None or m.count_min > w.count_min:
                    widest[m.type] = m
        order = self.graph.type_names.order
        members = sorted(widest.values(), key=lambda m: order(m.type))
        sdfu = ScoringObject()
        if self.explore(meta, u, dom, members, pristine, True, True, sdfu, nslots) != 0:
            return -1
        if self.policy.dom_finish_slot(self.graph, dom, sdfu) != 0:
            return -1
        types = tuple(m.type for m in members)
        counts = tuple(sdfu.qualified_count(dom, t) for t in types)
        plan = plan_slots(kinds, types, counts, nslots)
        for t in types:
            ev = sdfu.evals.get((dom, t))
            if ev is not None:
                ev.cursor = 0
        slots = []
        for kind, state in plan:
            grp = fill_slot(
                dom, kind.with_, sdfu, lambda elem, _ev, st=state: st[types.index(elem.type)]
            )
            if grp is None:
                return -1  # fewer whole members than units counted: no slot at all
            slots.append(grp)
        for grp in slots:
            dfu.add(dom, "slot", grp)
        return 0 if slots else -1
