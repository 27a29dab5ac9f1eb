"""The top level exposes exactly the curated names the README and docs use."""

from __future__ import annotations

from pathlib import Path

import fluxgraph

ROOT = Path(__file__).resolve().parents[2]


def test_top_level_exports_are_the_curated_list():
    assert sorted(fluxgraph.__all__) == sorted(
        [
            "FluxgraphError",
            "GraphError",
            "JobspecError",
            "MatchError",
            "Matcher",
            "Planner",
            "PlannerError",
            "PlannerMulti",
            "QueryError",
            "ReaderError",
            "ResourceGraph",
            "__version__",
            "bundled",
            "load_graph",
            "load_jobspec",
        ]
    )
    for name in fluxgraph.__all__:
        assert hasattr(fluxgraph, name), name


def test_top_level_entry_points_match_a_bundled_job():
    graph = fluxgraph.load_graph(ROOT / "grug_recipes" / "medium.graphml")
    m = fluxgraph.Matcher(graph, policy="high")
    r = m.match(fluxgraph.load_jobspec(ROOT / "jobspecs" / "slot-core-memory-gpu.yaml"))
    assert r.job_id == 1 and r.at == 0 and not r.reserved
    assert {v.type for v in r.resources} >= {"core", "gpu", "memory", "socket", "node"}
