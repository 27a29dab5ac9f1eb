"""Memory machines (disaggregated-memory spec §2): node classes, the memnet conduit, the recipe."""

from __future__ import annotations

import pytest

from fluxgraph.errors import SimulationError
from fluxgraph.papers.disagg.machines import (
    LARGE_MIB,
    NORMAL_MIB,
    MemoryMachineSpec,
    build_memory_machine,
    large_count,
    memory_recipe,
)
from fluxgraph.readers import load as load_graph


def _memory_parent(g, v):
    (e,) = [e for e in g.in_edges[v] if g.edge_subsystem[e] == "containment"]
    return g.edge_src[e]


@pytest.mark.parametrize("nodes, large", [(10, 5), (16, 0), (16, 16), (64, 10)])
def test_nodes_cores_and_memory_per_class(nodes, large):
    g = build_memory_machine(nodes, large)
    node_vs = g.by_type["node"]
    assert sorted(g.ranks[v] for v in node_vs) == list(range(nodes))
    assert len(g.by_type["core"]) == nodes and {g.sizes[v] for v in g.by_type["core"]} == {32}
    capacity = {g.ranks[_memory_parent(g, v)]: g.sizes[v] for v in g.by_type["memory"]}
    expected = [NORMAL_MIB] * (nodes - large) + [LARGE_MIB] * large
    assert [capacity[r] for r in range(nodes)] == expected  # large nodes at the end (§2.1)
    assert MemoryMachineSpec(nodes, large).capacities() == expected


def test_memnet_conduit_reaches_every_memory_pool_once():
    g = build_memory_machine(6, 2)
    root = g.roots["memnet"]
    assert g.types[root] == "memfabric"
    targets = [g.edge_dst[e] for e in g.out_edges[root] if g.edge_subsystem[e] == "memnet"]
    assert sorted(targets) == sorted(g.by_type["memory"])
    paths = {g.vertex(v).paths.get("memnet") for v in g.by_type["memory"]}
    assert None not in paths and len(paths) == 6
    # no cluster-level pool: memory vertices sit only under nodes
    assert all(g.types[_memory_parent(g, v)] == "node" for v in g.by_type["memory"])


def test_recipe_file_loads_to_the_same_graph(tmp_path):
    spec = MemoryMachineSpec(8, 3)
    path = tmp_path / "m.graphml"
    path.write_text(memory_recipe(spec))
    a, b = build_memory_machine(spec), load_graph(path, "grug")
    assert [a.vertex(v).paths for v in range(a.num_vertices)] == [
        b.vertex(v).paths for v in range(b.num_vertices)
    ]
    assert a.sizes == b.sizes


@pytest.mark.parametrize(
    "nodes, percent, expected",
    [
        (1024, 0, 0),
        (1024, 15, 160),
        (1024, 25, 256),
        (1024, 50, 512),
        (1024, 75, 768),
        (1024, 100, 1024),
        (128, 15, 20),
        (128, 25, 32),
        (64, 25, 16),
        (64, 50, 32),
        (10, 50, 5),
    ],
)
def test_large_count_follows_the_spec_table(nodes, percent, expected):
    assert large_count(nodes, percent) == expected


def test_total_memory_ratio_matches_the_spec_table():
    base = MemoryMachineSpec(1024, 0).total_mib
    ratios = [
        MemoryMachineSpec(1024, large_count(1024, s)).total_mib / base
        for s in (0, 15, 25, 50, 75, 100)
    ]
    assert ratios == pytest.approx([1.0, 1.15625, 1.25, 1.5, 1.75, 2.0])


@pytest.mark.parametrize(
    "args, message",
    [((0, 0), "nodes >= 1"), ((4, 5), "large <= nodes"), ((4, -1), "0 <= large")],
)
def test_bad_specs_are_refused(args, message):
    with pytest.raises(SimulationError, match=message):
        MemoryMachineSpec(*args)


def test_large_share_out_of_range():
    with pytest.raises(SimulationError, match="large-node share"):
        large_count(64, 120)
