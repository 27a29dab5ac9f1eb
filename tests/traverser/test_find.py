"""Tests for the find operation: expression grammar, evaluation, the walk and agfilter."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.errors import QueryError
from fluxgraph.graph import STATUS_DOWN, STATUS_UP
from fluxgraph.matcher import Matcher
from fluxgraph.readers import load
from fluxgraph.traverser.find import Expression, ExpressionError, find, parse, parse_jobid
from fluxgraph.traverser.status import mark
from fluxgraph.writers.match import JgfWriter, SimpleWriter
from fluxgraph.writers.sink import SelectionCollector

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "grug_recipes" / "tiny.graphml"
EXAMPLES = int(os.environ.get("FLUXGRAPH_ORACLE_EXAMPLES", "150"))


def jobspec(nodes: int, sockets: int, cores: int, duration: int = 3600) -> dict:
    """``nodes`` x slot{``sockets`` x socket{``cores`` x core}}."""
    socket = {"type": "socket", "count": sockets, "with": [{"type": "core", "count": cores}]}
    slot = {"type": "slot", "count": 1, "label": "default", "with": [socket]}
    return {
        "version": 9999,
        "resources": [{"type": "node", "count": nodes, "with": [slot]}],
        "tasks": [{"command": ["app"], "slot": "default", "count": {"per_slot": 1}}],
        "attributes": {"system": {"duration": duration}},
    }


def whole_node_jobspec() -> dict:
    """slot{node{2 x socket{4 x core}}}: the node itself is taken exclusively."""
    socket = {"type": "socket", "count": 2, "with": [{"type": "core", "count": 4}]}
    node = {"type": "node", "count": 1, "with": [socket]}
    spec = jobspec(1, 1, 1)
    spec["resources"] = [{"type": "slot", "count": 1, "label": "default", "with": [node]}]
    return spec


@pytest.fixture
def matcher() -> Matcher:
    return Matcher(load(TINY), "CA", "high")


def run_find(m: Matcher, expression: str) -> SelectionCollector:
    out = SelectionCollector()
    find(m.traverser, expression, out)
    return out


def names(out: SelectionCollector) -> list[str]:
    return [m.name for m in out.vertices]


def paths(m: Matcher, out: SelectionCollector) -> set[str]:
    return {m.graph.paths[x.vid]["containment"] for x in out.vertices}


def path_of(m: Matcher, path: str) -> int:
    v = m.graph.find_path(path)
    assert v is not None, path
    return v


# -- the oracle: direct evaluation over each vertex's ancestor chain -----------------------------


def ancestors(m: Matcher, v: int) -> list[int]:
    """``v`` and its containment ancestors, from ``v`` up."""
    g = m.graph
    chain = [v]
    while True:
        parents = [g.edge_src[e] for e in g.in_edges[chain[-1]]]
        if not parents:
            return chain
        chain.append(parents[0])


def oracle_state(m: Matcher, v: int) -> tuple[bool, bool, bool]:
    g, sched = m.graph, m.graph.schedule
    chain = ancestors(m, v)
    return (
        any(g.status[a] != STATUS_UP for a in chain),
        any(sched.allocations[a] for a in chain),
        any(sched.reservations[a] for a in chain),
    )


def oracle_emitted(m: Matcher, matches) -> set[int]:
    """Every vertex satisfying ``matches(v)`` plus all of its ancestors."""
    out: set[int] = set()
    for v in range(m.graph.num_vertices):
        if matches(v):
            out.update(ancestors(m, v))
    return out


def check_postorder(m: Matcher, out: SelectionCollector) -> None:
    """Each vertex comes after its emitted descendants, at level = depth + 1."""
    position = {x.vid: i for i, x in enumerate(out.vertices)}
    for x in out.vertices:
        chain = ancestors(m, x.vid)
        assert x.level == len(chain)
        for a in chain[1:]:
            assert position[a] > position[x.vid]


# -- parsing ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("status", "not key=value"),
        ("=up", "not key=value"),
        ("status=", "not key=value"),
        ("bogus=1", "unknown key 'bogus'"),
        ("status=sideways", "must be up or down"),
        ("sched-now=reserved", "must be allocated or free"),
        ("sched-future=allocated", "must be reserved or free"),
        ("agfilter=maybe", "must be true or t or false or f"),
        ("names=socket[af[]", "not a hostlist"),
        ("names=node[3-1]", "not a hostlist"),
        ("jobid-alloc=abc", "not a job id"),
        ("jobid-tag=-1", "not a job id"),
        ("jobid-span=0x", "not a job id"),
        ("jobid-reserved=ƒ0", "not a job id"),
        ("status=up and", "expected a term at the end"),
        ("and status=up", "found 'and'"),
        ("status=up or or status=down", "found 'or'"),
        ("(status=up", "unbalanced '('"),
        ("status=up)", "unbalanced ')'"),
        ("()", "found ')'"),
        ("STATUS=up", "unknown key 'STATUS'"),
    ],
)
def test_parse_rejects_bad_expression(text, reason):
    with pytest.raises(ExpressionError) as info:
        parse(text)
    err = info.value
    assert isinstance(err, QueryError)
    assert reason in str(err)
    assert err.reference_message == f"find: invalid criteria: {text}."


def test_parse_records_agfilter_and_last_jobid():
    e = parse("jobid-alloc=3 or jobid-tag=0x5 agfilter=T")
    assert (e.agfilter, e.jobid) == (True, 5)
    e = parse("status=up agfilter=false")
    assert (e.agfilter, e.jobid) == (False, None)
    assert repr(e) == "Expression('status=up agfilter=false')"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("123", 123),
        ("0x1F", 31),
        ("0001.0000.0000.0002", (1 << 48) + 2),
        ("job.0000.0000.0001.0000", 1 << 16),
        ("ƒ1", 0),
        ("ƒ21", 58 + 0),
        ("fz", 57),
        ("18446744073709551615", (1 << 64) - 1),
    ],
)
def test_parse_jobid_accepts_flux_encodings(text, value):
    assert parse_jobid(text) == value


@pytest.mark.parametrize(
    "text", ["", "-1", "1.5", "18446744073709551616", "0xg", "0000.0000.0000", "ƒ0", "jobs.1"]
)
def test_parse_jobid_rejects_malformed(text):
    with pytest.raises(ValueError):
        parse_jobid(text)


def test_parse_splits_parentheses_attached_to_terms():
    a = parse("status=up (sched-now=allocated sched-future=reserved)")
    b = parse("status=up ( sched-now=allocated and sched-future=reserved )")
    m = Matcher(load(TINY), "CA", "high")
    for v in range(m.graph.num_vertices):
        for state in [(d, x, r) for d in (0, 1) for x in (0, 1) for r in (0, 1)]:
            assert a(m.graph, v, *map(bool, state)) == b(m.graph, v, *map(bool, state))


# -- evaluation against a left-to-right oracle -----------------------------------------------------

_LEAVES = {
    "status=up": lambda d, a, r: not d,
    "status=down": lambda d, a, r: d,
    "sched-now=allocated": lambda d, a, r: a,
    "sched-now=free": lambda d, a, r: not a,
    "sched-future=reserved": lambda d, a, r: r,
    "sched-future=free": lambda d, a, r: not r,
    "agfilter=f": lambda d, a, r: True,
}


@st.composite
def expressions(draw, depth=0):
    """(text, oracle) pairs built from leaves, and/or/implicit-and and parentheses."""
    n = draw(st.integers(1, 4))
    parts, terms, ops = [], [], []
    for i in range(n):
        if i:
            op = draw(st.sampled_from(["and", "or", ""]))
            ops.append(op != "or")
            if op:
                parts.append(op)
        if depth < 2 and draw(st.booleans()):
            text, fn = draw(expressions(depth + 1))
            parts.append(f"({text})")
        else:
            text = draw(st.sampled_from(sorted(_LEAVES)))
            fn = _LEAVES[text]
            parts.append(text)
        terms.append(fn)

    def oracle(d, a, r):
        result = terms[0](d, a, r)
        for op, fn in zip(ops, terms[1:], strict=True):
            result = (result and fn(d, a, r)) if op else (result or fn(d, a, r))
        return result

    return " ".join(parts), oracle


@settings(max_examples=EXAMPLES, deadline=None)
@given(expressions(), st.booleans(), st.booleans(), st.booleans())
def test_parse_evaluates_strictly_left_to_right(expr, down, alloc, res):
    text, oracle = expr
    e = parse(text)
    assert e(None, 0, down, alloc, res) == oracle(down, alloc, res)


def test_parse_gives_and_no_precedence_over_or():
    e = parse("status=up or status=down and sched-now=allocated")
    # (up or down) and allocated: false for a free vertex although "status=up" holds
    assert e(None, 0, False, False, False) is False
    assert e(None, 0, False, True, False) is True


# -- the walk --------------------------------------------------------------------------------------


def test_find_status_up_emits_whole_graph_in_postorder(matcher):
    out = run_find(matcher, "status=up")
    g = matcher.graph
    assert sorted(x.vid for x in out.vertices) == list(range(g.num_vertices))
    assert all(x.exclusive and x.needs == g.sizes[x.vid] for x in out.vertices)
    assert names(out)[-1] == "tiny0"
    check_postorder(matcher, out)
    assert len(out.edges) == g.num_vertices - 1
    assert (out.start, out.end) == (0, 0)


def test_find_nothing_matches_emits_only_times(matcher):
    out = run_find(matcher, "status=down")
    assert out.vertices == [] and out.edges == []
    assert (out.start, out.end) == (0, 0)


def test_find_down_is_inherited_by_descendants(matcher):
    mark(matcher.traverser, "/tiny0/node1/socket0", "down")
    out = run_find(matcher, "status=down")
    expected = oracle_emitted(matcher, lambda v: oracle_state(matcher, v)[0])
    assert {x.vid for x in out.vertices} == expected
    assert "/tiny0/node1/socket0/core2" in paths(matcher, out)
    assert "/tiny0/node0" not in paths(matcher, out)
    check_postorder(matcher, out)
    up = run_find(matcher, "status=up")
    assert "/tiny0/node1/socket0/core2" not in paths(matcher, up)
    assert "/tiny0/node1/socket0" in paths(matcher, run_find(matcher, "status=down"))


def test_find_sched_now_follows_allocations(matcher):
    r = matcher.match(jobspec(1, 1, 2))
    out = run_find(matcher, "sched-now=allocated")
    expected = oracle_emitted(matcher, lambda v: oracle_state(matcher, v)[1])
    assert {x.vid for x in out.vertices} == expected
    cores = {x.vid for x in r.resources if x.type == "core"}
    assert cores <= {x.vid for x in out.vertices}
    free = run_find(matcher, "sched-now=free")
    # ancestors of allocated resources are free themselves, so they appear in both
    assert cores.isdisjoint({x.vid for x in free.vertices})


def test_find_allocation_is_inherited_below_an_exclusive_vertex(matcher):
    r = matcher.match(whole_node_jobspec())
    node = next(x.vid for x in r.resources if x.type == "node")
    assert matcher.graph.schedule.allocations[node]
    out = run_find(matcher, "sched-now=allocated")
    node_path = matcher.graph.paths[node]["containment"]
    below = {p for p in paths(matcher, out) if p.startswith(node_path + "/")}
    g = matcher.graph
    subtree = {p["containment"] for p in g.paths if p["containment"].startswith(node_path + "/")}
    assert below == subtree and len(below) == 2 + 8 + 2 + 2  # sockets, cores, gpus, memory
    assert all(not g.schedule.allocations[path_of(matcher, p)] for p in below if "gpu" in p)


def test_find_sched_future_and_job_predicates(matcher):
    matcher.match(jobspec(2, 2, 4))  # job 1 takes everything
    r2 = matcher.match(jobspec(1, 1, 2), op="allocate_orelse_reserve")
    assert r2.reserved and r2.job_id == 2
    reserved = run_find(matcher, "sched-future=reserved")
    expected = oracle_emitted(matcher, lambda v: oracle_state(matcher, v)[2])
    assert {x.vid for x in reserved.vertices} == expected
    sched = matcher.graph.schedule
    for key, slot in [
        ("jobid-reserved=2", sched.reservations),
        ("jobid-alloc=1", sched.allocations),
        ("jobid-tag=2", sched.tags),
        ("jobid-span=2", sched.job2span),
    ]:
        jobid = int(key.rsplit("=", 1)[1])
        out = run_find(matcher, key)
        assert {x.vid for x in out.vertices} == oracle_emitted(
            matcher, lambda v, s=slot, j=jobid: bool(s[v]) and j in s[v]
        ), key
    assert run_find(matcher, "jobid-alloc=2").vertices == []
    both = run_find(matcher, "sched-now=allocated sched-future=reserved")
    assert {x.vid for x in both.vertices} == {x.vid for x in reserved.vertices}


def test_find_names_and_property(matcher):
    out = run_find(matcher, "names=node1")
    assert names(out) == ["node1", "tiny0"]
    out = run_find(matcher, "names=CORE[0-1]")  # values are case-insensitive
    assert sorted(n for n in names(out) if n.startswith("core")) == [
        "core0",
        "core0",
        "core1",
        "core1",
    ]
    matcher.graph.properties[path_of(matcher, "/tiny0/node0/socket1")]["fast"] = ""
    out = run_find(matcher, "property=fast")
    assert paths(matcher, out) == {"/tiny0", "/tiny0/node0", "/tiny0/node0/socket1"}


def test_find_compound_expression_matches_oracle(matcher):
    matcher.match(jobspec(1, 1, 2))
    mark(matcher.traverser, "/tiny0/node1/socket1/core6", "down")
    text = "status=up (sched-now=allocated or names=core[0-3])"
    out = run_find(matcher, text)

    def matches(v):
        down, alloc, _ = oracle_state(matcher, v)
        return not down and (alloc or matcher.graph.names[v] in {f"core{i}" for i in range(4)})

    assert {x.vid for x in out.vertices} == oracle_emitted(matcher, matches)
    check_postorder(matcher, out)


def test_find_bad_expression_emits_nothing(matcher):
    w = SimpleWriter()
    with pytest.raises(ExpressionError):
        find(matcher.traverser, "status=up and", w)
    assert w.emit() == ""


def test_find_accepts_parsed_expression_and_returns_count(matcher):
    e = parse("names=node0")
    assert isinstance(e, Expression)
    out = SelectionCollector()
    assert find(matcher.traverser, e, out) == 2


def test_find_feeds_simple_writer_with_exclusive_sizes(matcher):
    w = SimpleWriter()
    find(matcher.traverser, "names=memory1", w)
    text = w.emit()
    assert "---------memory1[8:x]\n" in text
    assert text.endswith("      ---tiny0[1:x]\n")


def test_find_leaves_matching_state_alone(matcher):
    before = matcher.match(jobspec(1, 1, 1)).resources
    run_find(matcher, "status=up")
    after = matcher.match(jobspec(1, 1, 1)).resources
    assert {x.vid for x in before if x.type == "core"}.isdisjoint(
        {x.vid for x in after if x.type == "core"}
    )


# -- agfilter -------------------------------------------------------------------------------------


def test_find_agfilter_reports_aggregate_usage_now(matcher):
    r = matcher.match(jobspec(1, 1, 3))
    out = JgfWriter()
    find(matcher.traverser, "agfilter=t", out)
    doc = out.emit_json()
    g = matcher.graph
    shown = {
        n["metadata"]["paths"]["containment"]: n["metadata"]["agfilter"]
        for n in doc["graph"]["nodes"]
    }
    # only vertices with an aggregate (default filters ALL:core,ALL:node) are emitted
    with_agg = {g.paths[v]["containment"] for v in range(g.num_vertices) if g.schedule.subplans[v]}
    assert set(shown) == with_agg
    socket = next(x.vid for x in r.resources if x.type == "socket")
    assert shown[g.paths[socket]["containment"]]["core"] == "used:3, total:4"
    assert shown["/tiny0"]["core"] == "used:3, total:16"
    assert shown["/tiny0"]["node"] == "used:0, total:2"
    # edges only into emitted subtrees: no edge reaches a core
    emitted = {n["id"] for n in doc["graph"]["nodes"]}
    assert all(e["target"] in emitted and e["source"] in emitted for e in doc["graph"]["edges"])


def test_find_agfilter_with_jobid_reports_that_job(matcher):
    matcher.match(jobspec(1, 1, 3))
    matcher.match(jobspec(1, 1, 2))
    out = JgfWriter()
    find(matcher.traverser, "jobid-tag=2 agfilter=true", out)
    shown = {
        n["metadata"]["paths"]["containment"]: n["metadata"]["agfilter"]
        for n in out.emit_json()["graph"]["nodes"]
    }
    assert shown["/tiny0"]["core"] == "used:2, total:16"
    g = matcher.graph
    job2 = {
        g.paths[v]["containment"]
        for v in range(g.num_vertices)
        if g.schedule.job2span[v] and 2 in g.schedule.job2span[v]
    }
    assert set(shown) == job2


def test_find_agfilter_false_adds_nothing(matcher):
    out = JgfWriter()
    find(matcher.traverser, "names=node0 agfilter=f", out)
    nodes = out.emit_json()["graph"]["nodes"]
    assert [n["metadata"]["type"] for n in nodes] == ["node", "cluster"]
    assert all("agfilter" not in n["metadata"] for n in nodes)


def test_find_down_root_hides_everything_up(matcher):
    mark(matcher.traverser, "/tiny0", "down")
    assert matcher.graph.status[path_of(matcher, "/tiny0/node0")] == STATUS_UP
    assert run_find(matcher, "status=up").vertices == []
    assert len(run_find(matcher, "status=down").vertices) == matcher.graph.num_vertices
    mark(matcher.traverser, "/tiny0", "up")
    assert matcher.graph.status[path_of(matcher, "/tiny0")] != STATUS_DOWN
