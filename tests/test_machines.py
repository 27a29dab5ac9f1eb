"""Machines from specs: parsing, the generated graph, and round trips through GRUG and JGF."""

from __future__ import annotations

from pathlib import Path

import pytest

from fluxgraph.errors import SimulationError
from fluxgraph.machines import build_machine, load_machine, parse_machine_spec, recipe
from fluxgraph.writers.jgf import write_jgf

ROOT = Path(__file__).resolve().parents[1]


def test_spec_builds_the_described_graph():
    g = build_machine("nodes=6,cores=4,gpus=2,memory=64,racks=3")
    counts = {t: len(v) for t, v in g.by_type.items()}
    assert counts == {"cluster": 1, "rack": 3, "node": 6, "core": 24, "gpu": 12, "memory": 6}
    assert sorted(g.ranks[v] for v in g.by_type["node"]) == list(range(6))
    assert {g.sizes[v] for v in g.by_type["memory"]} == {64}
    paths = [g.vertex(v).paths["containment"] for v in g.by_type["node"]]
    assert "/cluster0/rack2/node5" in paths


@pytest.mark.parametrize(
    "text, message",
    [
        ("cores=2", "nodes=N is required"),
        ("nodes=4,racks=3", "racks=3 must divide nodes=4"),
        ("nodes=0", "nodes must be in"),
        ("nodes=4,sockets=2", "bad item 'sockets=2'"),
        ("nodes=4,nodes=5", "nodes given twice"),
        ("nodes=four", "nodes='four' is not an integer"),
    ],
)
def test_bad_specs_name_the_problem(text, message):
    with pytest.raises(SimulationError, match=message):
        parse_machine_spec(text)


def test_machines_round_trip_through_grug_and_jgf_files(tmp_path):
    spec = parse_machine_spec("nodes=4,cores=2,racks=2")
    (tmp_path / "m.graphml").write_text(recipe(spec))
    from_grug = load_machine(tmp_path / "m.graphml")
    write_jgf(from_grug, tmp_path / "m.json")
    from_jgf = load_machine(tmp_path / "m.json")
    for g in (from_grug, from_jgf):
        assert len(g.by_type["node"]) == 4 and len(g.by_type["core"]) == 8


def test_bundled_kth_machine_is_the_spec():
    g = load_machine(ROOT / "grug_recipes" / "kth-sp2.graphml")
    assert len(g.by_type["node"]) == 100 and len(g.by_type["core"]) == 100


def test_unknown_machine_file_extension_is_a_clear_error(tmp_path):
    with pytest.raises(SimulationError, match="not a spec"):
        load_machine(tmp_path / "machine.txt")


def test_bundled_recipes_are_their_builders_output_byte_for_byte():
    # every bundled machine a builder makes is that builder's text (through the one emitter,
    # fluxgraph.machines.grug); kth-sp2 carries one more remark in its comment line
    from fluxgraph import bundled
    from fluxgraph.machines import MachineSpec, recipe
    from fluxgraph.papers.rabbit.elcap import ELCAP_TINY, elcap_recipe
    from fluxgraph.papers.variation.quartz import quartz_recipe

    kth = recipe(MachineSpec(100)).replace(
        "nodes=100,cores=1 -->",
        "nodes=100,cores=1 (the KTH IBM SP2: 100 single-processor nodes) -->",
    )
    made = {"kth-sp2": kth, "elcap-tiny": elcap_recipe(ELCAP_TINY), "quartz-2418": quartz_recipe()}
    for name, text in made.items():
        assert bundled("machines", name).read_text() == text, name
