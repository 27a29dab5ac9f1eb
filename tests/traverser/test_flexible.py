"""Tests for the flexible traverser: xor-slot expansion, min-priming, or-slots."""

from __future__ import annotations

import itertools
import os
from errno import EBUSY, ENODEV, EOVERFLOW
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph import jobspec as js
from fluxgraph.errors import MatchError
from fluxgraph.matcher import Matcher
from fluxgraph.readers import load
from fluxgraph.traverser.core import Traverser
from fluxgraph.traverser.flexible import (
    MAX_XOR_EXPANSION,
    FlexibleTraverser,
    plan_slots,
    prime_flexible,
    split_xor_slots,
)
from fluxgraph.traverser.request import Request, build_requests, prime_requests
from fluxgraph.traverser.state import JobMeta
from fluxgraph.writers.sink import SelectionCollector

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "grug_recipes" / "tiny.graphml"  # tiny0/node[2]/socket[2]/{core[4],gpu,memory(8)}
EXAMPLES = int(os.environ.get("FLUXGRAPH_ORACLE_EXAMPLES", "150"))


def req(rtype: str, count: int = 1, *with_: Request, exclusive: bool | None = None) -> Request:
    return Request(rtype, count, count, "+", 1, exclusive, "", tuple(with_))


def res(rtype: str, count: int = 1, *with_: dict) -> dict:
    r: dict = {"type": rtype, "count": count}
    if rtype in ("slot", "xor_slot"):
        r["label"] = "default"
    if with_:
        r["with"] = list(with_)
    return r


def jobspec(*resources: dict) -> dict:
    return {
        "version": 9999,
        "resources": list(resources),
        "attributes": {"system": {"duration": 3600}},
        "tasks": [{"command": ["app"], "slot": "default", "count": {"per_slot": 1}}],
    }


def flexible_matcher(policy: str = "high") -> Matcher:
    """A matcher on the bundled tiny graph using :class:`FlexibleTraverser`."""
    try:
        m = Matcher(load(TINY), "CA", policy, traverser="flexible")
    except MatchError:  # the matcher does not offer the flexible traverser yet: swap it in
        m = Matcher(load(TINY), "CA", policy)
        m.traverser = FlexibleTraverser(m.graph, m.subsystems, m.policy, m.traverser.pruning)
        assert m.traverser.initialize() == 0
    assert isinstance(m.traverser, FlexibleTraverser)
    return m


def allocate_all(m: Matcher, spec: dict, limit: int = 20) -> list[list[str]]:
    """Allocate ``spec`` until it fails; each job's exclusive vertices as ``socket path.name``."""
    out = []
    for _ in range(limit):
        try:
            r = m.match(spec)
        except MatchError as err:
            assert err.errno == EBUSY
            return out
        paths = m.graph.paths
        out.append(
            sorted(
                paths[v.vid]["containment"].rsplit("/", 1)[0] + "." + v.name
                for v in r.resources
                if v.exclusive
            )
        )
    raise AssertionError("never ran out of resources")


# -- split_xor_slots ---------------------------------------------------------------------------


def test_split_xor_slots_plain_request_is_one_variant():
    r = [req("node", 1, req("socket", 2, req("core", 4)))]
    (variant,) = split_xor_slots(r)
    assert [v.type for v in variant] == ["node"]
    assert variant[0].with_[0].with_[0].count_min == 4
    assert variant[0] is not r[0]  # a copy


def test_split_xor_slots_orders_base_outer_option_inner():
    top = [
        req("xor_slot", 1, req("core")),
        req("node", 1, req("xor_slot", 1, req("gpu")), req("xor_slot", 1, req("memory"))),
        req("xor_slot", 1, req("socket")),
    ]
    shapes = [
        [
            (r.type, [c.type for c in r.with_] + [d.type for c in r.with_ for d in c.with_])
            for r in v
        ]
        for v in split_xor_slots(top)
    ]
    assert shapes == [
        [("node", ["slot", "gpu"]), ("slot", ["core"])],
        [("node", ["slot", "gpu"]), ("slot", ["socket"])],
        [("node", ["slot", "memory"]), ("slot", ["core"])],
        [("node", ["slot", "memory"]), ("slot", ["socket"])],
    ]


def test_split_xor_slots_keeps_counts_labels_and_user_data():
    x = Request("xor_slot", 2, 4, "+", 2, True, "lbl", (req("core", 3),))
    x.user_data = {"core": 3}
    ((s,),) = split_xor_slots([x])
    assert (s.type, s.count_min, s.count_max, s.count_operand, s.exclusive, s.label) == (
        "slot",
        2,
        4,
        2,
        True,
        "lbl",
    )
    assert s.user_data == {"core": 3} and s.user_data is not x.user_data


def test_split_xor_slots_over_the_cap_is_none():
    def alternatives(n: int) -> Request:
        return req("socket", 1, *(req("xor_slot", 1, req("core", i + 1)) for i in range(n)))

    assert len(split_xor_slots([alternatives(10)] * 3)) == MAX_XOR_EXPANSION
    assert split_xor_slots([alternatives(10)] * 3 + [alternatives(2)]) is None
    options = [req("xor_slot", 1, req("core", i + 1)) for i in range(MAX_XOR_EXPANSION + 1)]
    assert split_xor_slots(options) is None


# -- priming ----------------------------------------------------------------------------------


def test_prime_flexible_takes_the_minimum_over_sibling_slots():
    top = [
        req("slot", 2, req("core", 12), req("memory", 4)),
        req("xor_slot", 2, req("core", 5), req("gpu", 1), req("memory", 4)),
        req("node", 1, req("core", 2)),
    ]
    dfv: dict[str, int] = {}
    prime_flexible(top, dfv, lambda t: t in ("core", "memory", "gpu", "node"), set())
    # slots: min(24, 10) cores, min(8, 8) memory, min(0, 2) gpus; the node adds 1 node + 2 cores
    assert dfv == {"core": 12, "memory": 8, "gpu": 0, "node": 1}
    assert top[0].user_data == {"core": 12, "memory": 4}


@pytest.mark.parametrize("pruning", [("core",), ("core", "node", "socket"), ()])
def test_prime_flexible_matches_simple_priming_without_slots(pruning):
    def tree() -> list[Request]:
        return [
            req("node", 2, req("socket", 2, req("core", 3), req("gpu", 1)), exclusive=True),
            req("memory", 4),
        ]

    a, b = tree(), tree()
    da: dict[str, int] = {}
    db: dict[str, int] = {}
    xa: set[str] = set()
    xb: set[str] = set()
    prime_flexible(a, da, pruning.__contains__, xa)
    prime_requests(b, db, pruning.__contains__, xb)
    assert da == db and xa == xb == {"node"}
    assert [r.user_data for r in a] == [r.user_data for r in b]


# -- plan_slots -------------------------------------------------------------------------------


def test_plan_slots_single_kind_is_capped_by_nslots():
    kind = req("slot", 1, req("core", 2), req("gpu", 1))
    assert len(plan_slots([kind], ("core", "gpu"), (10, 3), 2)) == 2
    assert len(plan_slots([kind], ("core", "gpu"), (10, 3), 9)) == 3
    assert plan_slots([kind], ("core", "gpu"), (10, 0), 9) == []


def test_plan_slots_mixes_kinds_beyond_nslots():
    a = req("slot", 1, req("core", 12), req("memory", 4))
    b = req("slot", 1, req("core", 5), req("gpu", 1), req("memory", 4))
    c = req("slot", 1, req("core", 4), req("gpu", 2), req("memory", 4))
    plan = plan_slots([a, b, c], ("core", "gpu", "memory"), (18, 1, 8), 1)
    assert [k for k, _ in plan] == [a, b]
    assert [s for _, s in plan] == [(18, 1, 8), (6, 1, 4)]
    one = req("slot", 1, req("core", 1))
    assert len(plan_slots([one, one], ("core",), (18,), 1)) == 18


def test_plan_slots_ties_go_to_the_earlier_kind():
    small = req("slot", 1, req("core", 1), req("gpu", 1))
    big = req("slot", 1, req("core", 3))
    for first, second in ((small, big), (big, small)):
        plan = plan_slots([first, second], ("core", "gpu"), (4, 1), 1)
        assert [k for k, _ in plan] == [first, second]


def _brute_max(kinds, types, state) -> int:
    best = 0
    for kind in kinds:
        left = list(state)
        ok = bool(kind.with_)
        for m in kind.with_:
            i = types.index(m.type)
            k = m.calc_count(state[i])
            if k == 0 or k > left[i]:
                ok = False
                break
            left[i] -= k
        if ok:
            best = max(best, 1 + _brute_max(kinds, types, tuple(left)))
    return best


_member = st.tuples(st.sampled_from(("core", "gpu", "memory")), st.integers(1, 4))


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    kinds=st.lists(st.lists(_member, min_size=1, max_size=3), min_size=2, max_size=3),
    counts=st.tuples(st.integers(0, 9), st.integers(0, 3), st.integers(0, 6)),
)
def test_plan_slots_oracle_finds_the_most_slots(kinds, counts):
    types = ("core", "gpu", "memory")
    reqs = [req("slot", 1, *(req(t, n) for t, n in kind)) for kind in kinds]
    plan = plan_slots(reqs, types, counts, 1)
    assert len(plan) == _brute_max(reqs, types, counts)
    state = counts
    for kind, before in plan:  # every step starts where the previous one left off
        assert before == state
        left = list(state)
        for m in kind.with_:
            left[types.index(m.type)] -= m.calc_count(state[types.index(m.type)])
        assert min(left) >= 0
        state = tuple(left)


# -- the traverser ----------------------------------------------------------------------------


def test_flexible_or_slots_fill_each_socket_with_the_best_mix():
    small = res("slot", 1, res("core", 1), res("gpu", 1))
    big = res("slot", 1, res("core", 3))
    spec = jobspec(res("node", 1, res("socket", 1, small, big)))
    # The simple traverser sees only the last sibling slot: four "big" slots, no gpu.
    jobs = allocate_all(Matcher(load(TINY), "CA", "high"), spec)
    assert [len(j) for j in jobs] == [3] * 4 and not any("gpu" in n for j in jobs for n in j)
    jobs = allocate_all(flexible_matcher(), spec)
    assert len(jobs) == 8  # one small and one big slot on each of the four sockets
    shapes = sorted(sorted(name.split(".")[1].rstrip("0123456789") for name in j) for j in jobs)
    assert shapes == [["core", "core", "core"]] * 4 + [["core", "gpu"]] * 4


def test_flexible_xor_slots_try_alternatives_in_order():
    a = res("xor_slot", 1, res("core", 3), res("gpu", 1))
    b = res("xor_slot", 1, res("core", 1))
    jobs = allocate_all(flexible_matcher("low"), jobspec(res("socket", 1, a, b)))
    kinds = [sorted({n.split(".")[1].rstrip("0123456789") for n in j}) for j in jobs]
    assert kinds == [["core", "gpu"]] * 4 + [["core"]] * 4
    assert all(len(j) == 4 for j in jobs[:4]) and all(len(j) == 1 for j in jobs[4:])


def test_flexible_select_replaces_requests_with_the_winning_variant():
    m = flexible_matcher()
    tr = m.traverser
    spec = jobspec(res("xor_slot", 1, res("core", 9)), res("xor_slot", 1, res("core", 2)))
    requests = build_requests(js.load(spec).resources)
    rc, at, _ = tr.run(requests, "allocate", 1, 0, 3600, SelectionCollector())
    assert (rc, at) == (0, 0)
    assert [(r.type, r.with_[0].count_min) for r in requests] == [("slot", 2)]


def test_flexible_select_overflow_fails_with_eoverflow():
    m = flexible_matcher()
    tr = m.traverser
    many = [req("xor_slot", 1, req("core", 1)) for _ in range(MAX_XOR_EXPANSION + 1)]
    meta = JobMeta(1, 0, 3600)
    assert tr.select(many, m.graph.roots["containment"], meta, False) == -1
    assert tr.errno == EOVERFLOW


def test_flexible_node_precheck_uses_the_slot_minimum():
    # Three alternatives of two nodes each: 2 nodes needed, not 6 (tiny has 2).
    alts = [res("slot", 2, res("node", 1, res("socket", 1, res("core", n)))) for n in (1, 2, 3)]
    m = flexible_matcher()
    r = m.match(jobspec(*alts))
    assert sorted(v.name for v in r.resources if v.type == "node") == ["node0", "node1"]


def test_flexible_prune_keeps_the_last_slot_verdict():
    m = flexible_matcher()
    tr = m.traverser
    g = m.graph
    node0 = g.find_path("/tiny0/node0")
    too_big = req("slot", 1, req("core", 99))
    fits = req("slot", 1, req("core", 1))
    prime_flexible([too_big, fits], {}, lambda t: t == "core", set())
    meta = JobMeta(1, 0, 3600)
    assert tr.prune(meta, False, "containment", node0, "node", [too_big, fits]) == 0
    assert tr.prune(meta, False, "containment", node0, "node", [fits, too_big]) == -1
    assert Traverser.prune(tr, meta, False, "containment", node0, "node", [too_big, fits]) == -1


@pytest.mark.parametrize("policy", ["high", "low", "first", "lonodex"])
def test_flexible_matches_simple_on_slot_free_and_single_slot_jobs(policy):
    specs = [
        jobspec(res("node", 1, res("socket", 1, res("core", 2)))),
        jobspec(res("node", 1, res("slot", 1, res("socket", 1, res("core", 3), res("gpu", 1))))),
        jobspec(res("slot", 2, res("core", 1))),
    ]
    simple = Matcher(load(TINY), "CA", policy)
    flexible = flexible_matcher(policy)
    for spec in itertools.islice(itertools.cycle(specs), 9):
        got = []
        for m in (simple, flexible):
            try:
                r = m.match(spec, op="allocate_orelse_reserve")
                got.append((r.at, [(v.vid, v.needs, v.exclusive) for v in r.resources]))
            except MatchError as err:
                got.append(err.errno)
        assert got[0] == got[1]


# -- a slot its vertex cannot host (issue 29, item 2) -------------------------------------------


@pytest.mark.parametrize("policy", ["high", "low", "first", "lonodex", "variation"])
@pytest.mark.parametrize("exclusive", [False, True])
def test_flexible_node_slot_core_on_a_socketed_machine_never_matches(policy, exclusive):
    """``node > slot > core`` where cores sit below sockets: the node's slot list cannot be
    hosted at the node, so the node is not a match (the simple traverser would look for the
    slot at the sockets); the reference answers Unsatisfiable and allocates nothing, with or
    without ``exclusive: true`` on the node."""
    node = res("node", 1, res("slot", 1, res("core", 1)))
    if exclusive:
        node["exclusive"] = True
    spec = jobspec(node)
    m = flexible_matcher(policy)
    for op, errno in (
        ("satisfiability", ENODEV),
        ("allocate", EBUSY),
        ("allocate_with_satisfiability", ENODEV),
        ("allocate_orelse_reserve", ENODEV),
    ):
        with pytest.raises(MatchError) as err:
            m.match(spec, op=op)
        assert err.value.errno == errno, op
    simple = Matcher(load(TINY), "CA", policy)  # quirk 7 there: satisfiable, never placed
    simple.match(spec, op="satisfiability")
    if not exclusive and policy != "lonodex":  # (node-exclusive: the node is taken whole)
        with pytest.raises(MatchError) as err:
            simple.match(spec)
        assert err.value.errno == EBUSY


def test_flexible_node_slot_core_is_placed_where_nodes_hold_cores():
    from fluxgraph.machines import build_machine

    spec = jobspec(res("node", 1, res("slot", 2, res("core", 1))))
    for traverser in ("simple", "flexible"):
        m = Matcher(build_machine("nodes=2,cores=2"), "CA", "low", traverser=traverser)
        r = m.match(spec)
        assert sorted(v.name for v in r.resources if v.exclusive) == ["core0", "core1"]


def test_flexible_slot_list_below_a_pass_through_is_still_found():
    """Before anything matched, a vertex that cannot host the slot list passes it down."""
    spec = jobspec(res("slot", 1, res("core", 2)))
    m = flexible_matcher("low")
    r = m.match(spec)
    assert [v.name for v in r.resources if v.exclusive] == ["core0", "core1"]
