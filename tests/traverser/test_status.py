"""Tests for up/down status: marking by path and by ranks, nodes_up, effect on matching."""

from __future__ import annotations

from errno import EBUSY, EINVAL, ENODEV
from pathlib import Path

import pytest

from fluxgraph.errors import GraphError, MatchError
from fluxgraph.graph import STATUS_DOWN, STATUS_UP, ResourceGraph
from fluxgraph.matcher import Matcher
from fluxgraph.readers import load
from fluxgraph.traverser.status import get_status, mark, status_code

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "grug_recipes" / "tiny.graphml"


def jobspec(nodes: int, cores: int = 1) -> dict:
    """``nodes`` x node{slot{socket{``cores`` x core}}}."""
    socket = {"type": "socket", "count": 1, "with": [{"type": "core", "count": cores}]}
    slot = {"type": "slot", "count": 1, "label": "default", "with": [socket]}
    return {
        "version": 9999,
        "resources": [{"type": "node", "count": nodes, "with": [slot]}],
        "tasks": [{"command": ["app"], "slot": "default", "count": {"per_slot": 1}}],
        "attributes": {"system": {"duration": 3600}},
    }


@pytest.fixture
def matcher() -> Matcher:
    return Matcher(load(TINY), "CA", "high")


def vid(m: Matcher, path: str) -> int:
    v = m.graph.find_path(path)
    assert v is not None, path
    return v


def statuses(m: Matcher) -> list[int]:
    return list(m.graph.status)


def test_status_code_accepts_words_and_codes():
    assert [status_code(s) for s in ("up", "down", STATUS_UP, STATUS_DOWN)] == [0, 1, 0, 1]
    for bad in ("UP", "dwn", "", 2, True, None):
        with pytest.raises(MatchError) as info:
            status_code(bad)
        assert info.value.errno == EINVAL


def test_mark_path_sets_only_the_subtree_root(matcher):
    tr = matcher.traverser
    assert tr.nodes_up == 2
    assert mark(tr, "/tiny0/node0", "down") == 1
    assert get_status(matcher.graph, "/tiny0/node0") == ["down"]
    assert get_status(matcher.graph, "/tiny0/node0/socket0") == ["up"]  # descendants keep theirs
    assert tr.nodes_up == 1
    assert mark(tr, "/tiny0/node0", "up") == 1
    assert tr.nodes_up == 2
    assert all(s == STATUS_UP for s in statuses(matcher))


def test_mark_path_is_idempotent(matcher):
    tr = matcher.traverser
    assert mark(tr, "/tiny0/node1", "down") == 1
    assert mark(tr, "/tiny0/node1", "down") == 0
    assert tr.nodes_up == 1
    for _ in range(3):
        mark(tr, "/tiny0/node1", "up")
    assert tr.nodes_up == 2


def test_mark_path_counts_every_node_below(matcher):
    tr = matcher.traverser
    mark(tr, "/tiny0", "down")
    assert tr.nodes_up == 0
    mark(tr, "/tiny0/node0/socket1/core5", "down")  # no node below a core
    assert tr.nodes_up == 0
    mark(tr, "/tiny0", "up")
    assert tr.nodes_up == 2


def test_mark_path_double_counts_nested_marks_like_the_reference(matcher):
    tr = matcher.traverser
    mark(tr, "/tiny0", "down")
    mark(tr, "/tiny0/node0", "down")
    assert tr.nodes_up == -1  # node0 counted under the cluster and again on its own
    mark(tr, "/tiny0", "up")
    assert tr.nodes_up == 1
    mark(tr, "/tiny0/node0", "up")
    assert tr.nodes_up == 2


def test_mark_unknown_path_changes_nothing(matcher):
    tr = matcher.traverser
    before = statuses(matcher)
    with pytest.raises(MatchError) as info:
        mark(tr, "/tiny0/node9", "down")
    assert info.value.errno == EINVAL and "/tiny0/node9" in str(info.value)
    with pytest.raises(MatchError):
        mark(tr, "/tiny0/node0", "sideways")
    assert statuses(matcher) == before and tr.nodes_up == 2


def test_get_status_unknown_path_raises(matcher):
    with pytest.raises(GraphError, match="/nowhere"):
        get_status(matcher.graph, "/nowhere")


def test_mark_path_reaches_every_vertex_registered_under_it():
    g = ResourceGraph()
    c = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    g.set_root("containment", c)
    n = g.add_vertex("node", "node", 0, rank=0, paths={"containment": "/c0/n"})
    g.add_edge(c, n, "containment")
    p = g.add_vertex("power", "p", 0, paths={"power": "/c0/n"})  # same path, other subsystem
    m = Matcher(g, "CA", "low", prune="")
    assert mark(m.traverser, "/c0/n", "down") == 2
    assert g.status[n] == g.status[p] == STATUS_DOWN
    assert get_status(g, "/c0/n") == ["down", "down"]
    assert m.traverser.nodes_up == 0


def test_mark_ranks_sets_each_rank_root(matcher):
    tr = matcher.traverser
    g = matcher.graph
    assert mark(tr, [1, 7, 1], "down") == 1  # unknown rank 7 ignored, duplicates once
    assert g.status[vid(matcher, "/tiny0/node1")] == STATUS_DOWN
    assert tr.nodes_up == 1
    assert mark(tr, iter([0, 1]), "down") == 1
    assert tr.nodes_up == 0
    assert mark(tr, [0, 1], "up") == 2
    assert tr.nodes_up == 2
    assert all(s == STATUS_UP for s in statuses(matcher))


def test_mark_ranks_picks_shortest_dominant_path():
    g = ResourceGraph()
    c = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    g.set_root("containment", c)
    core = g.add_vertex("core", "core", 0, rank=3, paths={"containment": "/c0/n3/core0"})
    n = g.add_vertex("node", "n", 3, rank=3, paths={"containment": "/c0/n3"})
    g.add_edge(c, n, "containment")
    g.add_edge(n, core, "containment")
    m = Matcher(g, "CA", "low", prune="")
    assert mark(m.traverser, [3], "down") == 1
    assert (g.status[n], g.status[core]) == (STATUS_DOWN, STATUS_UP)


# -- effect on matching --------------------------------------------------------------------------


def test_mark_down_node_is_skipped_by_matching(matcher):
    mark(matcher.traverser, "/tiny0/node1", "down")
    r = matcher.match(jobspec(1))
    assert {x.name for x in r.resources if x.type == "node"} == {"node0"}
    with pytest.raises(MatchError) as info:
        matcher.match(jobspec(2))
    assert info.value.errno == EBUSY


def test_mark_node_back_up_is_matched_again(matcher):
    tr = matcher.traverser
    mark(tr, "/tiny0/node1", "down")
    mark(tr, "/tiny0/node1", "up")
    r = matcher.match(jobspec(2))
    assert {x.name for x in r.resources if x.type == "node"} == {"node0", "node1"}


def test_mark_down_socket_hides_its_cores(matcher):
    mark(matcher.traverser, "/tiny0/node1/socket1", "down")
    r = matcher.match(jobspec(1, cores=4))  # policy high prefers node1/socket1
    assert {x.name for x in r.resources if x.type == "socket"} == {"socket0"}
    r2 = matcher.match(jobspec(1, cores=4))
    sockets = [
        matcher.graph.paths[x.vid]["containment"] for x in r2.resources if x.type == "socket"
    ]
    assert sockets != ["/tiny0/node1/socket1"]


def test_mark_down_cluster_makes_node_requests_unsatisfiable(matcher):
    mark(matcher.traverser, "/tiny0", "down")
    with pytest.raises(MatchError) as info:
        matcher.match(jobspec(1))
    assert info.value.errno == EBUSY
    # nodes_up is 0, so the node pre-check reports "unsatisfiable" before any walk
    with pytest.raises(MatchError) as info:
        matcher.match(jobspec(1), op="allocate_with_satisfiability")
    assert info.value.errno == ENODEV
    mark(matcher.traverser, "/tiny0", "up")
    assert matcher.match(jobspec(1), op="allocate_with_satisfiability").job_id == 1


def test_mark_down_nodes_count_in_the_node_precheck(matcher):
    mark(matcher.traverser, "/tiny0/node0", "down")
    mark(matcher.traverser, "/tiny0/node1", "down")
    assert matcher.traverser.nodes_up == 0
    with pytest.raises(MatchError) as info:
        matcher.match(jobspec(1), op="allocate_with_satisfiability")
    assert info.value.errno == ENODEV
    mark(matcher.traverser, "/tiny0/node1", "up")
    with pytest.raises(MatchError) as info:
        matcher.match(jobspec(2), op="allocate_with_satisfiability")
    assert info.value.errno == ENODEV  # 2 nodes requested, 1 up
    assert matcher.match(jobspec(1), op="allocate_with_satisfiability").job_id == 1


def test_mark_leaves_scheduled_jobs_alone(matcher):
    r = matcher.match(jobspec(1, cores=2))
    sched = matcher.graph.schedule
    tagged = [v for v in range(matcher.graph.num_vertices) if sched.tags[v]]
    node = next(x for x in r.resources if x.type == "node")
    mark(matcher.traverser, matcher.graph.paths[node.vid]["containment"], "down")
    assert [v for v in range(matcher.graph.num_vertices) if sched.tags[v]] == tagged
    matcher.cancel(r.job_id)
    assert not any(sched.tags[v] for v in range(matcher.graph.num_vertices))
