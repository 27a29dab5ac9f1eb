"""The id-order shortcut's memo of candidate probes (``traverser/shortcut.py``): sessions of
matches, cancels and status changes select exactly what the full walk selects, and the memo
is used only for candidates no job holds."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from _random_machines import describe, jobspecs, machines, match_on_each
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from fluxgraph import jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.policies.scoring import ScoringObject
from fluxgraph.readers import load
from fluxgraph.traverser import shortcut
from fluxgraph.traverser.status import mark
from fluxgraph.writers.match.simple import SimpleWriter

TINY = Path(__file__).resolve().parents[2] / "grug_recipes" / "tiny.graphml"
OPS = st.sampled_from(["allocate", "allocate_orelse_reserve", "satisfiability"])


def _node_request(nodes: int, cores: int) -> dict:
    """``nodes`` x node{slot{socket{``cores`` x core}}}: a request the shortcut takes."""
    socket = {"type": "socket", "count": 1, "with": [{"type": "core", "count": cores}]}
    return {
        "version": 9999,
        "resources": [
            {
                "type": "node",
                "count": nodes,
                "with": [{"type": "slot", "count": 1, "label": "default", "with": [socket]}],
            }
        ],
        "tasks": [{"command": ["app"], "slot": "default", "count": {"per_slot": 1}}],
        "attributes": {"system": {"duration": 3600}},
    }


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    machine=machines(),
    data=st.data(),
    policy=st.sampled_from(["low", "high", "lonode", "hinode"]),
)
def test_sessions_with_the_memo_select_what_the_full_walk_selects(machine, data, policy):
    note(describe(machine))
    real_probe = shortcut._probe

    def audited(sel, meta, v, requests, excl, key):
        # wherever the memo has an answer, the probe's must be what a real visit answers
        # now (a run that fails after a wrong answer is repeated with full walks, which
        # would hide it from the session's output)
        kept = sel.probe_memo.get(v)
        got = real_probe(sel, meta, v, requests, excl, key)
        if kept is not None and kept[0] == key:
            sel.colors.reset()  # (the probe coloured what it visited)
            scratch = ScoringObject()
            rc = sel.dom_dfv(meta, v, requests, True, excl, scratch)
            assert got == (scratch.avail if rc >= 0 else 0)
        return got

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(shortcut, "_probe", audited)
        _session(machine, data, policy)


def _session(machine, data, policy) -> None:
    fast = Matcher(machine, "CA", policy)
    exact = Matcher(copy.deepcopy(machine), "CA", policy, exact_visit_counts=True)
    nodes = [v for v in range(machine.num_vertices) if machine.types[v] == "node"]
    live: list[int] = []
    for job_id in range(1, data.draw(st.integers(3, 14))):
        step = data.draw(st.sampled_from(["match", "match", "node", "cancel", "status"]))
        if step == "cancel" and live:
            victim = live.pop(data.draw(st.integers(0, len(live) - 1)))
            assert fast.traverser.cancel(victim) == exact.traverser.cancel(victim)
            continue
        if step == "status":
            path = machine.paths[data.draw(st.sampled_from(nodes))]["containment"]
            state = data.draw(st.sampled_from(["down", "up"]))
            assert mark(fast.traverser, path, state) == mark(exact.traverser, path, state)
            continue
        if step == "node":
            spec = jobspec.load(
                _node_request(data.draw(st.integers(1, 3)), data.draw(st.integers(1, 2)))
            )
        else:
            spec = jobspec.load(data.draw(jobspecs()))
        op = data.draw(OPS)
        outputs = match_on_each((fast, exact), spec, op, job_id)
        assert outputs[0] == outputs[1]
        if outputs[0][0] == 0 and op != "satisfiability":
            live.append(job_id)


def test_a_status_change_drops_the_memo():
    m = Matcher(load(TINY), "CA", "high")
    spec = jobspec.load(_node_request(1, 1))
    first = SimpleWriter()
    assert m.run(spec, "allocate", 1, first).rc == 0
    assert m.traverser.probe_memo  # the free node's probe was kept
    assert m.traverser.cancel(1) == 0
    chosen = m.graph.find_path("/tiny0/node1")
    assert mark(m.traverser, "/tiny0/node1", "down") == 1
    assert not m.traverser.probe_memo
    again = SimpleWriter()
    assert m.run(spec, "allocate", 2, again).rc == 0
    assert "node1" in first.emit() and "node1" not in again.emit()
    assert m.graph.status[chosen] != 0


def test_held_candidates_are_never_taken_from_the_memo():
    m = Matcher(load(TINY), "CA", "high")
    spec = jobspec.load(_node_request(1, 1))
    first = SimpleWriter()
    assert m.run(spec, "allocate", 1, first).rc == 0
    node1 = m.graph.find_path("/tiny0/node1")
    assert "node1" in first.emit() and m.graph.schedule.tags[node1]
    # poison node1's entry: while job 1 holds part of node1, its probe must be a real visit
    key, _ = m.traverser.probe_memo[node1]
    m.traverser.probe_memo[node1] = (key, 0)
    again = SimpleWriter()
    assert m.run(spec, "allocate", 2, again).rc == 0
    assert "node1" in again.emit()
    # once nothing holds it, the (poisoned) entry is what the shortcut believes
    assert m.traverser.cancel(1) == 0 and m.traverser.cancel(2) == 0
    third = SimpleWriter()
    assert m.run(spec, "allocate", 3, third).rc == 0
    assert "node0" in third.emit()
