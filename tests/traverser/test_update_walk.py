"""The update walk finds a vertex's marked children by scanning its out-edges, or, past
``_SCAN_OUT_EDGES`` of them, in the selection's record of marked edges: both give the same
selection, planners and job maps."""

from __future__ import annotations

import copy

from _random_machines import snapshot

from fluxgraph import jobspec
from fluxgraph.machines import build_machine
from fluxgraph.matcher import Matcher
from fluxgraph.traverser import booking
from fluxgraph.writers.match.simple import SimpleWriter


def _spec(nodes: int, cores: int, exclusive: bool) -> jobspec.Jobspec:
    return jobspec.load(
        {
            "version": 9999,
            "resources": [
                {
                    "type": "node",
                    "count": nodes,
                    "exclusive": exclusive,
                    "with": [
                        {
                            "type": "slot",
                            "count": 1,
                            "label": "task",
                            "with": [{"type": "core", "count": cores}],
                        }
                    ],
                }
            ],
            "tasks": [{"command": ["app"], "slot": "task", "count": {"per_slot": 1}}],
            "attributes": {"system": {"duration": 3600}},
        }
    )


def _session(m: Matcher) -> list:
    out = []
    jobs = [(40, 1, True), (300, 1, False), (200, 2, True), (10, 2, False), (290, 1, True)]
    for job_id, (nodes, cores, exclusive) in enumerate(jobs, 1):
        w = SimpleWriter()
        r = m.run(_spec(nodes, cores, exclusive), "allocate_orelse_reserve", job_id, w)
        out.append((r.rc, r.errno, r.at, w.emit()))
    m.cancel(2)
    w = SimpleWriter()
    r = m.run(_spec(5, 1, False), "allocate", 9, w)
    out.append((r.rc, r.errno, r.at, w.emit()))
    return out + snapshot(m.graph)


def test_marked_children_scanned_or_looked_up_alike(monkeypatch):
    machine = build_machine("nodes=400,cores=2")  # the cluster has 400 node children
    for policy in ("low", "high", "first"):
        looked_up = _session(Matcher(copy.deepcopy(machine), "CA", policy, prune="ALL:core"))
        with monkeypatch.context() as patch:
            patch.setattr(booking, "_SCAN_OUT_EDGES", 1 << 30)  # always scan
            scanned = _session(Matcher(copy.deepcopy(machine), "CA", policy, prune="ALL:core"))
        assert looked_up == scanned, policy
