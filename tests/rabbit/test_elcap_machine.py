"""The rabbit machines: the bundled ``elcap-tiny`` recipe and the El Capitan generator."""

from __future__ import annotations

from pathlib import Path

import pytest

from fluxgraph.errors import SimulationError
from fluxgraph.machines import load_machine
from fluxgraph.papers.rabbit import ELCAP, ELCAP_TINY, RabbitMachine, elcap, elcap_recipe

RECIPE = Path(__file__).resolve().parents[2] / "grug_recipes" / "elcap-tiny.graphml"


def test_bundled_recipe_is_the_generated_one():
    assert RECIPE.read_text() == elcap_recipe(ELCAP_TINY)


def test_elcap_tiny_layout():
    g = load_machine(RECIPE)
    assert g.num_vertices == 64 == ELCAP_TINY.vertices
    counts = {t: len(g.by_type[t]) for t in ("chassis", "node", "core", "ssd", "nvme_ns", "mgt_ip")}
    assert counts == {"chassis": 3, "node": 12, "core": 24, "ssd": 12, "nvme_ns": 9, "mgt_ip": 3}
    for ch in g.by_type["chassis"]:
        kids = [g.edge_dst[e] for e in g.child_edges("containment")[ch]]
        nodes = [g.ids[v] for v in kids if g.types[v] == "node"]
        assert nodes == [4 * g.ids[ch] + i for i in range(4)]  # global node ids
        assert sorted(g.ids[v] for v in kids if g.types[v] == "ssd") == [0, 1, 2, 3]
        assert {g.sizes[v] for v in kids if g.types[v] == "ssd"} == {100}


def test_elcap_scale_counts_without_building_the_full_machine():
    assert ELCAP.chassis * ELCAP.chunks == 25_920  # flux-sched#1544
    assert 150_000 < ELCAP.vertices < 160_000
    g = elcap(chassis=2)
    assert len(g.by_type["node"]) == 32 and len(g.by_type["ssd"]) == 72
    assert g.num_vertices == RabbitMachine(chassis=2).vertices
    assert {g.sizes[v] for v in g.by_type["core"]} == {24} and len(g.by_type["gpu"]) == 128


def test_bad_shape_is_a_clear_error():
    with pytest.raises(SimulationError, match="chunks must be >= 1"):
        RabbitMachine(chassis=1, chunks=0)
