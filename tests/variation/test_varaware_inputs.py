"""The case-study inputs: our seeded generators equal the steering generator's files (spec §3.1).

``shared/reproductions/varaware/make_inputs.py --seed N`` writes the inputs behind the
reference rows of spec §7.1; skipped where ``../shared`` is absent.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.jobspec import load as load_jobspec
from fluxgraph.papers.variation.quartz import build_quartz, node_classes, quartz_recipe, set_classes
from fluxgraph.papers.variation.static_queue import node_jobspec
from fluxgraph.papers.variation.workload import class_of, perf_classes, t_norms, variation_queue
from fluxgraph.readers import load as load_graph

ROOT = Path(__file__).resolve().parents[2]
MAKE_INPUTS = ROOT / ".." / "shared" / "reproductions" / "varaware" / "make_inputs.py"
needs_shared = pytest.mark.skipif(not MAKE_INPUTS.is_file(), reason="../shared is absent")


def make_inputs(out: Path, seed: int, *extra: str) -> Path:
    """Run the steering generator into ``out``."""
    cmd = [sys.executable, str(MAKE_INPUTS), "--seed", str(seed), "--out", str(out), *extra]
    subprocess.run(cmd, check=True, capture_output=True)
    return out


def _rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines()[1:]]


@needs_shared
@pytest.mark.parametrize(
    ("seed", "extra", "kwargs"),
    [
        (1, (), {}),
        (2, (), {}),
        (1, ("--rack-corr", "0.8"), {"rack_corr": 0.8}),
        (3, ("--tdist", "beta:2,5"), {"beta": (2.0, 5.0)}),
    ],
)
def test_generators_equal_the_steering_files(tmp_path, seed, extra, kwargs):
    out = make_inputs(tmp_path / "in", seed, *extra)
    perf = _rows(out / "perf.tsv")
    scores = t_norms(seed, 2418, **kwargs)
    assert [f"{t:.6f}" for t in scores] == [r[2] for r in perf]
    assert perf_classes(seed, 2418, **kwargs) == [int(r[3]) for r in perf]
    jobs = _rows(out / "jobs.tsv")
    queue = variation_queue(seed)
    assert [(j.id, j.nodes, j.walltime) for j in queue] == [
        (int(r[0]), int(r[1]), int(r[2])) for r in jobs
    ]
    for j, r in zip(queue, jobs, strict=True):
        assert node_jobspec(j.nodes, j.walltime) == load_jobspec((out / r[3]).read_text())


@needs_shared
def test_quartz_recipe_builds_the_steering_graph(tmp_path):
    out = make_inputs(tmp_path / "in", 1)
    theirs = load_graph(out / "quartz.graphml")
    ours = build_quartz()
    assert theirs.num_vertices == ours.num_vertices == 94_342
    for attr in ("types", "ids", "names", "paths"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr


def test_bundled_recipe_is_the_generated_one():
    assert (ROOT / "grug_recipes" / "quartz-2418.graphml").read_text() == quartz_recipe()


def test_quartz_node_ids_are_global():
    g = build_quartz(racks=3, nodes_per_rack=4, sockets=1, cores_per_socket=1)
    paths = {g.ids[v]: g.paths[v]["containment"] for v in g.by_type["node"]}
    assert sorted(paths) == list(range(12))
    assert paths[5] == "/quartz0/rack1/node5"


def test_classes_follow_eq1_and_reach_the_nodes():
    classes = perf_classes(4, 2418)
    assert classes == [class_of(t) for t in t_norms(4, 2418)]
    shares = Counter(classes)
    for p, expected in zip(range(1, 6), (0.10, 0.15, 0.15, 0.20, 0.40), strict=True):
        assert abs(shares[p] / 2418 - expected) < 0.03
    g = build_quartz(racks=2, nodes_per_rack=5, sockets=1, cores_per_socket=1)
    small = perf_classes(4, 10, nodes_per_rack=5)
    set_classes(g, small)
    assert node_classes(g) == small
    for v in g.by_type["node"]:
        p = small[g.ids[v]]
        assert g.properties[v]["perf_class"] == str(p) and g.properties[v][f"pc{p}"] == "1"


def test_rack_correlated_classes_have_exact_shares_and_cluster_by_rack():
    iid = perf_classes(1, 2418)
    corr = perf_classes(1, 2418, rack_corr=0.95)
    assert Counter(corr) == {1: 242, 2: 363, 3: 362, 4: 484, 5: 967}

    def same_as_next(cs):
        return sum(a == b for a, b in pairwise(cs))

    assert same_as_next(corr) > 2 * same_as_next(iid)


def test_queue_shape_matches_the_spec():
    q = variation_queue(1)
    sizes = [j.nodes for j in q]
    assert len(q) == 200 and sum(sizes) == 5681 and sizes.count(1) == 48
    assert len({(j.nodes, j.walltime) for j in q}) == 117 and max(sizes) <= 256
    assert all(j.submit == 0 and j.runtime == j.walltime for j in q)
    assert variation_queue(1) == q and variation_queue(2) != q


@settings(max_examples=60, deadline=None)
@given(
    nodes=st.integers(1, 5000),
    walltime=st.integers(1, 10**7),
    sockets=st.integers(0, 4),
    cores=st.integers(1, 64),
    classes=st.lists(st.integers(1, 5), unique=True, max_size=3).map(sorted),
)
def test_node_jobspec_equals_the_loaded_jobspec(nodes, walltime, sockets, cores, classes):
    """The per-job jobspec, derived from a template validated once, equals a fresh load."""
    leaf = {"type": "core", "count": cores}
    inner = {"type": "socket", "count": sockets, "with": [leaf]} if sockets else leaf
    system = {"duration": walltime}
    if classes:
        system["constraints"] = {"or": [{"properties": [f"pc{p}"]} for p in classes]}
    slot = {"type": "slot", "label": "default", "count": 1, "with": [inner]}
    node = {"type": "node", "count": nodes, "exclusive": True, "with": [slot]}
    task = {"command": ["app"], "slot": "default", "count": {"per_slot": 1}}
    data = {"version": 9999, "resources": [node], "attributes": {"system": system}, "tasks": [task]}
    ours, loaded = node_jobspec(nodes, walltime, sockets, cores, classes), load_jobspec(data)
    assert ours == loaded
    for attr in ("totals", "types", "exclusive_types", "duration"):
        assert getattr(ours, attr) == getattr(loaded, attr), attr
    assert ours.resources[0].effective_max == loaded.resources[0].effective_max
    assert ours.resources[0].totals == loaded.resources[0].totals
