"""The project's own recipes (grug_recipes/): shapes, ids and subsystems."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from fluxgraph.graph import ResourceGraph
from fluxgraph.readers import load

RECIPES = Path(__file__).resolve().parents[2] / "grug_recipes"

#: Recipe -> (type -> vertex count), from each recipe's documented shape.
SHAPES = {
    "tiny": {"cluster": 1, "node": 2, "socket": 4, "core": 16, "gpu": 4, "memory": 4},
    "small": {"cluster": 1, "rack": 2, "node": 8, "socket": 16, "core": 128, "memory": 32,
              "ssd": 8},
    "medium": {"cluster": 1, "rack": 4, "node": 64, "socket": 128, "core": 2048, "gpu": 256,
               "memory": 512, "bb": 64, "storage": 16, "pfs": 1, "bandwidth": 1},
    "lod-high": {"cluster": 1, "rack": 56, "node": 1008, "socket": 2016, "core": 2016 * 20,
                 "gpu": 2016 * 2, "memory": 2016 * 8, "bb": 2016 * 8},
    "lod-med": {"cluster": 1, "rack": 56, "node": 1008, "core": 1008 * 40, "gpu": 1008 * 4,
                "memory": 1008 * 8, "bb": 1008 * 8},
    "lod-low": {"cluster": 1, "node": 1008, "core": 1008 * 8, "gpu": 1008 * 4,
                "memory": 1008 * 4, "bb": 1008 * 4},
    "lod-low2": {"cluster": 1, "rack": 56, "node": 1008, "core": 1008 * 8, "gpu": 1008 * 4,
                 "memory": 1008 * 4, "bb": 1008 * 4},
    "kth-sp2": {"cluster": 1, "node": 100, "core": 100},
    "elcap-tiny": {"cluster": 1, "chassis": 3, "node": 12, "core": 24, "ssd": 12,
                   "nvme_ns": 9, "mgt_ip": 3},
    "quartz-2418": {"cluster": 1, "rack": 39, "node": 2418, "socket": 2418 * 2,
                    "core": 2418 * 36},
}  # fmt: skip

#: The vertex counts the issue states for the four LOD machines.
LOD_VERTICES = {"lod-high": 79689, "lod-med": 61545, "lod-low": 21169, "lod-low2": 21225}

#: Recipe -> (type -> (size, unit)) of the pools that are not single units.
POOLS = {
    "small": {"memory": (16, "GB")},
    "medium": {"memory": (16, "GB"), "bb": (400, "GB"), "storage": (2048, "GB"),
               "bandwidth": (640, "GBps")},
    "lod-high": {"memory": (16, "GB"), "bb": (100, "GB"), "core": (1, "")},
    "lod-med": {"memory": (32, "GB"), "bb": (200, "GB"), "core": (1, "")},
    "lod-low": {"memory": (64, "GB"), "bb": (400, "GB"), "core": (5, "")},
    "lod-low2": {"memory": (64, "GB"), "bb": (400, "GB"), "core": (5, "")},
    "elcap-tiny": {"ssd": (100, "GiB")},
}  # fmt: skip


@pytest.fixture(scope="module")
def graphs() -> dict[str, ResourceGraph]:
    return {}


def graph_of(cache: dict[str, ResourceGraph], name: str) -> ResourceGraph:
    if name not in cache:
        cache[name] = load(RECIPES / f"{name}.graphml")
    return cache[name]


def test_recipes_directory_holds_the_documented_recipes() -> None:
    names = {p.stem for p in RECIPES.glob("*.graphml")}
    assert names == {*SHAPES, "multi-subsystem"}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_recipe_has_documented_shape(name: str, graphs: dict[str, ResourceGraph]) -> None:
    g = graph_of(graphs, name)
    g._check()
    assert Counter(g.types) == Counter(SHAPES[name])
    assert g.num_edges == g.num_vertices - 1  # a tree
    assert LOD_VERTICES.get(name, g.num_vertices) == g.num_vertices


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_recipe_node_ids_are_global_and_ranked(name: str, graphs: dict[str, ResourceGraph]) -> None:
    g = graph_of(graphs, name)
    nodes = g.by_type["node"]
    assert [g.names[v] for v in nodes] == [f"node{i}" for i in range(len(nodes))]
    assert [g.ranks[v] for v in nodes] == list(range(len(nodes)))


#: Recipes whose ``ssd`` chunks hang off the chassis, numbered per chassis (tests/rabbit).
RABBIT_RECIPES = {"elcap-tiny"}


@pytest.mark.parametrize("name", sorted(set(SHAPES) - RABBIT_RECIPES))
def test_recipe_leaf_ids_are_per_node(name: str, graphs: dict[str, ResourceGraph]) -> None:
    g = graph_of(graphs, name)
    per_node = Counter(SHAPES[name])
    n_nodes = per_node["node"]
    for vtype in ("core", "gpu", "memory", "bb", "ssd"):
        count = per_node[vtype] // n_nodes
        if not count:
            continue
        by_node: dict[str, list[int]] = {}
        for v in g.by_type[vtype]:
            node = next(p for p in g.paths[v]["containment"].split("/") if p.startswith("node"))
            by_node.setdefault(node, []).append(g.ids[v])
        assert len(by_node) == n_nodes
        assert all(sorted(ids) == list(range(count)) for ids in by_node.values()), vtype


@pytest.mark.parametrize("name", sorted(POOLS))
def test_recipe_pool_sizes(name: str, graphs: dict[str, ResourceGraph]) -> None:
    g = graph_of(graphs, name)
    for vtype, pool in POOLS[name].items():
        assert {(g.sizes[v], g.units[v]) for v in g.by_type[vtype]} == {pool}


def test_medium_racks_hold_sixteen_nodes_and_four_storage_volumes(
    graphs: dict[str, ResourceGraph],
) -> None:
    """The layout jobspecs/rack-constraints.yaml and jobspecs/storage.yaml rely on."""
    g = graph_of(graphs, "medium")
    racks = g.children("containment")
    for r, rack in enumerate(g.by_type["rack"]):
        nodes = [c for c in racks[rack] if g.types[c] == "node"]
        assert [g.names[c] for c in nodes] == [f"node{16 * r + i}" for i in range(16)]
        assert [g.ranks[c] for c in nodes] == [16 * r + i for i in range(16)]
        volumes = [g.names[c] for c in racks[rack] if g.types[c] == "storage"]
        assert volumes == [f"storage{i}" for i in range(4)]
    (bandwidth,) = g.by_type["bandwidth"]
    assert g.paths[bandwidth] == {"containment": "/medium0/pfs0/bandwidth0"}


def test_lod_high_paths_nest_cluster_rack_node_socket(graphs: dict[str, ResourceGraph]) -> None:
    g = graph_of(graphs, "lod-high")
    last_bb = g.by_type["bb"][-1]
    assert g.paths[last_bb] == {"containment": "/lod0/rack55/node1007/socket1/bb15"}
    node = g.by_type["node"][18]
    assert g.paths[node]["containment"] == "/lod0/rack1/node18"


def test_multi_subsystem_recipe_links_power_and_network(graphs: dict[str, ResourceGraph]) -> None:
    g = graph_of(graphs, "multi-subsystem")
    g._check()
    assert g.subsystem_names.names == ["containment", "power", "ibnet"]
    assert sorted(g.roots) == ["containment", "ibnet", "power"]
    for v in g.by_type["node"]:
        rack = g.paths[v]["containment"].split("/")[2]
        pdu = g.find_path(g.paths[v]["power"].rsplit("/", 1)[0], "power")
        assert g.paths[pdu]["containment"].split("/")[2] == rack
        assert g.find_path(g.paths[v]["power"] + "/power0", "power") is not None
    for v in g.by_type["nic"]:
        rack = g.paths[v]["containment"].split("/")[2]
        leaf = g.find_path(g.paths[v]["ibnet"].rsplit("/", 1)[0], "ibnet")
        assert g.paths[leaf]["containment"].split("/")[2] == rack
    bandwidth = Counter((g.sizes[v], g.units[v]) for v in g.by_type["bandwidth"])
    assert bandwidth == {(800, "Gbps"): 1, (100, "Gbps"): len(g.by_type["nic"])}
    assert len(g.by_path) == sum(len(p) for p in g.paths)  # every path is unique
