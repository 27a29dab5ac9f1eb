"""GRUG generation: the spec's worked examples and every generation quirk (no shared data)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from fluxgraph.errors import ReaderError
from fluxgraph.graph import ResourceGraph
from fluxgraph.readers.grug import path_prefix, unpack

KEYS = """
  <key id="root" for="node" attr.name="root" attr.type="int"><default>0</default></key>
  <key id="type" for="node" attr.name="type" attr.type="string"/>
  <key id="basename" for="node" attr.name="basename" attr.type="string"/>
  <key id="unit" for="node" attr.name="unit" attr.type="string"/>
  <key id="size" for="node" attr.name="size" attr.type="long"><default>1</default></key>
  <key id="subsystem" for="node" attr.name="subsystem" attr.type="string">
    <default>containment</default></key>
  <key id="e_subsystem" for="edge" attr.name="e_subsystem" attr.type="string">
    <default>containment</default></key>
  <key id="relation" for="edge" attr.name="relation" attr.type="string">
    <default>contains</default></key>
  <key id="id_scope" for="edge" attr.name="id_scope" attr.type="int"><default>0</default></key>
  <key id="id_start" for="edge" attr.name="id_start" attr.type="int"><default>0</default></key>
  <key id="id_stride" for="edge" attr.name="id_stride" attr.type="int"><default>1</default></key>
  <key id="gen_method" for="edge" attr.name="gen_method" attr.type="string">
    <default>MULTIPLY</default></key>
  <key id="multi_scale" for="edge" attr.name="multi_scale" attr.type="int">
    <default>1</default></key>
  <key id="as_tgt_subsystem" for="edge" attr.name="as_tgt_subsystem" attr.type="string">
    <default>containment</default></key>
  <key id="as_tgt_uplvl" for="edge" attr.name="as_tgt_uplvl" attr.type="int">
    <default>1</default></key>
  <key id="as_src_uplvl" for="edge" attr.name="as_src_uplvl" attr.type="int">
    <default>1</default></key>
"""


def recipe(nodes: list[tuple], edges: list[tuple]) -> str:
    """GraphML text: ``nodes`` are ``(id, type, basename, {key: value})`` and ``edges``
    ``(source, target, {key: value})``."""

    def data(fields: dict) -> str:
        return "".join(f'<data key="{k}">{v}</data>' for k, v in fields.items())

    body = [
        f'<node id="{nid}"><data key="type">{t}</data><data key="basename">{b}</data>'
        f"{data(extra)}</node>"
        for nid, t, b, extra in nodes
    ]
    body += [f'<edge source="{s}" target="{t}">{data(extra)}</edge>' for s, t, extra in edges]
    return f'<graphml>{KEYS}<graph edgedefault="directed">{"".join(body)}</graph></graphml>'


def load(text: str, *, check: bool = True) -> ResourceGraph:
    g = ResourceGraph()
    unpack(g, text, source="test.graphml")
    if check:
        g._check()
    return g


def edge_list(g: ResourceGraph) -> list[tuple[int, int]]:
    return list(zip(g.edge_src, g.edge_dst, strict=True))


# -- worked example 1 (spec §2.6) ---------------------------------------------------------------

TINY = recipe(
    [
        ("cluster", "cluster", "tiny", {"root": 1}),
        ("rack", "rack", "rack", {}),
        ("node", "node", "node", {}),
        ("socket", "socket", "socket", {}),
        ("core", "core", "core", {}),
        ("memory", "memory", "memory", {"size": 2, "unit": "GB"}),
        ("gpu", "gpu", "gpu", {}),
    ],
    [
        ("cluster", "rack", {"multi_scale": 1}),
        ("rack", "node", {"id_scope": 1, "multi_scale": 2}),
        ("node", "socket", {"multi_scale": 2}),
        ("socket", "core", {"id_scope": 1, "multi_scale": 18}),
        ("socket", "gpu", {"id_scope": 1, "multi_scale": 1}),
        ("socket", "memory", {"id_scope": 1, "multi_scale": 4}),
    ],
)


def tiny_expected() -> list[tuple[str, int, int, str]]:
    """(name, id, rank, path) per uniq_id, written out from the spec's table."""
    rows = [("tiny0", 0, -1, "/tiny0"), ("rack0", 0, -1, "/tiny0/rack0")]
    rows += [(f"node{n}", n, n, f"/tiny0/rack0/node{n}") for n in (0, 1)]
    sockets = [(n, s) for n in (0, 1) for s in (0, 1)]
    rows += [(f"socket{s}", s, -1, f"/tiny0/rack0/node{n}/socket{s}") for n, s in sockets]

    def leaf(kind: str, n: int, s: int, i: int) -> tuple[str, int, int, str]:
        return (f"{kind}{i}", i, -1, f"/tiny0/rack0/node{n}/socket{s}/{kind}{i}")

    rows += [leaf("core", n, s, s * 18 + c) for n, s in sockets for c in range(18)]
    rows += [leaf("gpu", n, s, s) for n, s in sockets]
    rows += [leaf("memory", n, s, s * 4 + m) for n, s in sockets for m in range(4)]
    return rows


def test_unpack_tiny_matches_worked_example_vertices() -> None:
    g = load(TINY)
    got = [(g.names[v], g.ids[v], g.ranks[v], g.paths[v]["containment"]) for v in range(100)]
    assert g.num_vertices == 100
    assert got == tiny_expected()
    assert g.uniq_ids == list(range(100))
    assert [(g.sizes[v], g.units[v]) for v in range(84, 100)] == [(2, "GB")] * 16
    assert {g.sizes[v] for v in range(84)} == {1} and {g.units[v] for v in range(84)} == {""}


def test_unpack_tiny_matches_worked_example_edges() -> None:
    g = load(TINY)
    expected = [(0, 1), (1, 2), (1, 3), (2, 4), (2, 5), (3, 6), (3, 7)]
    for s, first in zip(range(4, 8), range(8, 80, 18), strict=True):
        expected += [(s, c) for c in range(first, first + 18)]
    expected += [(s, 76 + s) for s in range(4, 8)]
    for s, first in zip(range(4, 8), range(84, 100, 4), strict=True):
        expected += [(s, m) for m in range(first, first + 4)]
    assert edge_list(g) == expected
    assert set(g.edge_subsystem) == {"containment"}
    assert g.roots == {"containment": 0}


def test_unpack_tiny_index_sizes_match_load_statistics() -> None:
    g = load(TINY)
    assert (len(g.by_type), len(g.by_name), len(g.by_path)) == (7, 52, 100)
    assert {r: len(vs) for r, vs in g.by_rank.items()} == {-1: 98, 0: 1, 1: 1}


def test_unpack_socket_children_follow_recipe_edge_order() -> None:
    g = load(TINY)
    names = [g.names[c] for c in g.children("containment")[4]]
    assert names == [f"core{i}" for i in range(18)] + ["gpu0"] + [f"memory{i}" for i in range(4)]


# -- worked example 2 (spec §2.7) ---------------------------------------------------------------


def mini_5subsystems() -> str:
    contain = [
        ("cluster", "cluster", "mini_fine", {"root": 1}),
        ("rack", "rack", "rack", {}),
        ("node", "node", "node", {}),
        ("socket", "socket", "socket", {}),
        ("core", "core", "core", {}),
        ("gpu", "gpu", "gpu", {}),
        ("nic", "nic", "nic", {}),
        ("nicbw", "nicbw", "nicbw", {"size": 4000}),
        ("edgeswitch", "edgeswitch", "edgeswitch", {}),
        ("edgeswitchbw", "edgeswitchbw", "edgeswitchbw", {"size": 72000}),
        ("pdu", "pdu", "pdu", {"size": 500}),
    ]
    ib = {"subsystem": "ibnet"}
    nodes = [
        *contain,
        ("ibnet", "ibnet", "ibnet", {"root": 1, **ib}),
        ("coreswitch", "coreswitch", "coreswitch", ib),
        ("coreswitchbw", "coreswitchbw", "coreswitchbw", {"size": 1296000, **ib}),
        ("ib_edgeswitch", "edgeswitch", "edgeswitch", ib),
        ("ib_nic", "nic", "nic", ib),
        ("ib_node", "node", "node", ib),
    ]
    edges = [
        ("cluster", "rack", {}),
        ("rack", "node", {}),
        ("rack", "edgeswitch", {}),
        ("rack", "pdu", {}),
        ("node", "socket", {"multi_scale": 2}),
        ("node", "nic", {}),
        ("socket", "core", {"id_scope": 1, "multi_scale": 2}),
        ("socket", "gpu", {}),
        ("nic", "nicbw", {}),
        ("edgeswitch", "edgeswitchbw", {}),
        ("ibnet", "coreswitch", {"e_subsystem": "ibnet"}),
        ("coreswitch", "coreswitchbw", {"e_subsystem": "ibnet"}),
        ("coreswitch", "ib_edgeswitch", {"e_subsystem": "ibnet", "gen_method": "ASSOCIATE_IN"}),
        (
            "ib_edgeswitch",
            "ib_nic",
            {"e_subsystem": "ibnet", "as_tgt_uplvl": 2, "gen_method": "ASSOCIATE_BY_PATH_IN"},
        ),
        (
            "ib_nic",
            "ib_node",
            {"e_subsystem": "ibnet", "as_tgt_uplvl": 0, "gen_method": "ASSOCIATE_BY_PATH_IN"},
        ),
    ]
    for sub in ("ibnetbw", "pfs1bw"):
        chain = [f"{sub}", f"{sub}_csw", f"{sub}_esw", f"{sub}_nic", f"{sub}_node"]
        types = [sub, "coreswitchbw", "edgeswitchbw", "nicbw", "node"]
        for nid, t in zip(chain, types, strict=True):
            extra = {"root": 1} if nid == sub else {}
            nodes.append((nid, t, t, {**extra, "subsystem": sub}))
        for s, t in pairwise(chain):
            edges.append((s, t, {"e_subsystem": sub, "gen_method": "ASSOCIATE_IN"}))
    pw = {"subsystem": "power"}
    nodes += [
        ("powerpanel", "powerpanel", "powerpanel", {"root": 1, **pw}),
        ("pw_pdu", "pdu", "pdu", pw),
        ("pw_node", "node", "node", pw),
    ]
    edges += [
        ("powerpanel", "pw_pdu", {"e_subsystem": "power", "gen_method": "ASSOCIATE_IN"}),
        ("pw_pdu", "pw_node", {"e_subsystem": "power", "gen_method": "ASSOCIATE_BY_PATH_IN"}),
    ]
    return recipe(nodes, edges)


def test_unpack_mini_5subsystems_matches_worked_example_vertices() -> None:
    g = load(mini_5subsystems())
    rack = "/mini_fine0/rack0"
    ibn = "/ibnet0/coreswitch0/edgeswitch0"
    bw = "/coreswitchbw0/edgeswitchbw0/nicbw0"
    expected = {
        0: ("mini_fine0", {"containment": "/mini_fine0"}),
        1: ("rack0", {"containment": rack}),
        2: (
            "node0",
            {
                "containment": f"{rack}/node0",
                "ibnet": f"{ibn}/nic0/node0",
                "ibnetbw": f"/ibnetbw0{bw}/node0",
                "pfs1bw": f"/pfs1bw0{bw}/node0",
                "power": "/powerpanel0/pdu0/node0",
            },
        ),
        3: ("socket0", {"containment": f"{rack}/node0/socket0"}),
        4: ("socket1", {"containment": f"{rack}/node0/socket1"}),
        5: ("core0", {"containment": f"{rack}/node0/socket0/core0"}),
        6: ("core1", {"containment": f"{rack}/node0/socket0/core1"}),
        7: ("core2", {"containment": f"{rack}/node0/socket1/core2"}),
        8: ("core3", {"containment": f"{rack}/node0/socket1/core3"}),
        9: ("gpu0", {"containment": f"{rack}/node0/socket0/gpu0"}),
        10: ("gpu0", {"containment": f"{rack}/node0/socket1/gpu0"}),
        11: ("nic0", {"containment": f"{rack}/node0/nic0", "ibnet": f"{ibn}/nic0"}),
        12: (
            "nicbw0",
            {
                "containment": f"{rack}/node0/nic0/nicbw0",
                "ibnetbw": f"/ibnetbw0{bw}",
                "pfs1bw": f"/pfs1bw0{bw}",
            },
        ),
        13: ("edgeswitch0", {"containment": f"{rack}/edgeswitch0", "ibnet": ibn}),
        14: (
            "edgeswitchbw0",
            {
                "containment": f"{rack}/edgeswitch0/edgeswitchbw0",
                "ibnetbw": "/ibnetbw0/coreswitchbw0/edgeswitchbw0",
                "pfs1bw": "/pfs1bw0/coreswitchbw0/edgeswitchbw0",
            },
        ),
        15: ("pdu0", {"containment": f"{rack}/pdu0", "power": "/powerpanel0/pdu0"}),
        16: ("ibnet0", {"ibnet": "/ibnet0"}),
        17: ("coreswitch0", {"ibnet": "/ibnet0/coreswitch0"}),
        18: (
            "coreswitchbw0",
            {
                "ibnet": "/ibnet0/coreswitch0/coreswitchbw0",
                "ibnetbw": "/ibnetbw0/coreswitchbw0",
                "pfs1bw": "/pfs1bw0/coreswitchbw0",
            },
        ),
        19: ("ibnetbw0", {"ibnetbw": "/ibnetbw0"}),
        20: ("pfs1bw0", {"pfs1bw": "/pfs1bw0"}),
        21: ("powerpanel0", {"power": "/powerpanel0"}),
    }
    assert g.num_vertices == len(expected)
    for v, (name, paths) in expected.items():
        assert (g.names[v], g.paths[v]) == (name, paths), v
        assert list(g.paths[v]) == list(paths), v  # subsystem first-seen order
        assert g.member_of[v] == list(paths), v
    assert [g.sizes[v] for v in (12, 14, 15, 18)] == [4000, 72000, 500, 1296000]
    assert g.ranks == [-1, -1, 0] + [-1] * 19
    assert g.subsystem_names.names == ["containment", "ibnet", "ibnetbw", "pfs1bw", "power"]


def test_unpack_mini_5subsystems_matches_worked_example_edges() -> None:
    g = load(mini_5subsystems())
    containment = [(0, 1), (1, 2), (2, 3), (2, 4), (3, 5), (3, 6), (4, 7), (4, 8), (3, 9)]
    containment += [(4, 10), (2, 11), (11, 12), (1, 13), (13, 14), (1, 15)]
    aux = [(16, 17), (17, 18), (17, 13), (13, 11), (11, 2), (19, 18), (18, 14), (14, 12)]
    aux += [(12, 2), (20, 18), (21, 15), (15, 2)]
    assert edge_list(g) == containment + aux
    subs = ["containment"] * 15 + ["ibnet"] * 5 + ["ibnetbw"] + ["pfs1bw"] * 4 + ["power"] * 2
    assert g.edge_subsystem == subs
    relabelled = [e for e, m in enumerate(g.edge_member_of) if len(m) > 1]
    assert [edge_list(g)[e] for e in relabelled] == [(18, 14), (14, 12), (12, 2)]
    assert all(g.edge_member_of[e] == ["ibnetbw", "pfs1bw"] for e in relabelled)
    assert g.roots == {"containment": 0, "ibnet": 16, "ibnetbw": 19, "pfs1bw": 20, "power": 21}


# -- ids, scales and ranks ----------------------------------------------------------------------


def cores_under_sockets(core_edge: dict, socket_edge: dict | None = None) -> ResourceGraph:
    return load(
        recipe(
            [
                ("c", "cluster", "c", {"root": 1}),
                ("n", "node", "node", {}),
                ("s", "socket", "socket", {}),
                ("k", "core", "core", {}),
            ],
            [
                ("c", "n", {"multi_scale": 2}),
                ("n", "s", socket_edge or {"multi_scale": 2}),
                ("s", "k", core_edge),
            ],
        )
    )


def test_gen_id_scope_one_with_start_and_stride_numbers_within_grandparent() -> None:
    g = cores_under_sockets({"id_scope": 1, "id_start": 10, "id_stride": 3, "multi_scale": 3})
    assert [g.ids[v] for v in g.by_type["core"]] == [10, 13, 16, 19, 22, 25] * 2


def test_gen_id_scope_zero_ignores_stride() -> None:
    g = cores_under_sockets({}, {"id_start": 5, "id_stride": 7, "multi_scale": 2})
    assert [g.names[v] for v in g.by_type["socket"]] == ["socket5", "socket6"] * 2


def test_gen_id_scope_beyond_depth_is_global() -> None:
    g = cores_under_sockets({"id_scope": 9, "multi_scale": 2})
    assert [g.ids[v] for v in g.by_type["core"]] == list(range(8))


def test_gen_id_negative_scope_gives_id_minus_one_and_bare_name() -> None:
    g = cores_under_sockets({"id_scope": -1, "multi_scale": 2})
    cores = g.by_type["core"]
    assert {g.ids[v] for v in cores} == {-1} and {g.names[v] for v in cores} == {"core"}
    assert g.paths[cores[0]]["containment"] == "/c0/node0/socket0/core"


def test_associate_finish_pops_parent_scale() -> None:
    """An ASSOCIATE child finished before a MULTIPLY sibling shrinks the sibling's id scope."""
    nodes = [
        ("c", "cluster", "c", {"root": 1}),
        ("r", "rack", "rack", {}),
        ("x", "nothing", "x", {}),
        ("n", "node", "node", {}),
    ]
    scoped = ("r", "n", {"id_scope": 1, "multi_scale": 2})
    plain = load(recipe(nodes, [("c", "r", {"multi_scale": 2}), scoped]))
    popped = load(
        recipe(
            nodes,
            [("c", "r", {"multi_scale": 2}), ("r", "x", {"gen_method": "ASSOCIATE_IN"}), scoped],
        )
    )
    assert [plain.names[v] for v in plain.by_type["node"]] == ["node0", "node1", "node2", "node3"]
    assert [popped.names[v] for v in popped.by_type["node"]] == ["node0", "node1"] * 2
    assert popped.by_type["nothing"] == []  # the ASSOCIATE lookup leaves an empty entry


def test_ranks_only_for_node_type_in_creation_order() -> None:
    g = load(
        recipe(
            [
                ("c", "cluster", "c", {"root": 1}),
                ("n", "node", "n", {}),
                ("m", "nodes", "m", {}),
                ("p", "power", "p", {"root": 1, "subsystem": "power"}),
                ("q", "node", "q", {"subsystem": "power"}),
            ],
            [("c", "n", {"multi_scale": 2}), ("c", "m", {}), ("p", "q", {"multi_scale": 2})],
        )
    )
    assert [(g.names[v], g.ranks[v]) for v in range(g.num_vertices)] == [
        ("c0", -1),
        ("n0", 0),
        ("n1", 1),
        ("m0", -1),
        ("p0", -1),
        ("q0", 2),
        ("q1", 3),
    ]


def test_unpack_ignores_rank_and_allowlist_arguments() -> None:
    g = ResourceGraph()
    unpack(g, TINY, rank=7, allowlist={"core"})
    assert sorted(g.by_rank) == [-1, 0, 1] and len(g.by_type["core"]) == 72


def test_size_is_truncated_to_unsigned_32_bits() -> None:
    g = load(
        recipe(
            [
                ("c", "cluster", "c", {"root": 1}),
                ("a", "a", "a", {"size": 4294967297}),
                ("b", "b", "b", {"size": -1}),
            ],
            [("c", "a", {}), ("c", "b", {})],
        )
    )
    assert g.sizes == [1, 1, 4294967295]


# -- DFS quirks ---------------------------------------------------------------------------------


def test_unknown_gen_method_generates_nothing_below() -> None:
    g = cores_under_sockets({"multi_scale": 2}, {"gen_method": "multiply", "multi_scale": 2})
    assert g.num_vertices == 3 and "socket" not in g.by_type and "core" not in g.by_type


def test_zero_multi_scale_generates_nothing() -> None:
    g = cores_under_sockets({"multi_scale": 0})
    assert "core" not in g.by_type and g.num_vertices == 7


def test_vertex_reachable_twice_is_generated_through_first_dfs_edge_only() -> None:
    g = load(
        recipe(
            [("c", "cluster", "c", {"root": 1}), ("a", "a", "a", {}), ("b", "b", "b", {})],
            [("c", "a", {}), ("a", "b", {}), ("c", "b", {"multi_scale": 5})],
        )
    )
    assert [g.paths[v]["containment"] for v in range(3)] == ["/c0", "/c0/a0", "/c0/a0/b0"]


def test_second_root_in_same_subsystem_reuses_existing_root() -> None:
    g = load(
        recipe(
            [
                ("c", "cluster", "c", {"root": 1}),
                ("n", "node", "node", {}),
                ("d", "cluster", "d", {"root": 1}),
                ("r", "rack", "rack", {}),
            ],
            [("c", "n", {}), ("d", "r", {})],
        )
    )
    assert g.names == ["c0", "node0", "rack0"]
    assert g.paths[2] == {"containment": "/c0/rack0"} and edge_list(g) == [(0, 1), (0, 2)]


def test_non_root_dfs_start_and_edgeless_root_generate_nothing() -> None:
    g = load(
        recipe(
            [
                ("orphan", "rack", "rack", {}),
                ("x", "node", "node", {}),
                ("lonely", "cluster", "lonely", {"root": 1, "subsystem": "power"}),
                ("c", "cluster", "c", {"root": 1}),
                ("n", "node", "node", {}),
            ],
            [("orphan", "x", {"multi_scale": 3}), ("c", "n", {})],
        )
    )
    assert g.names == ["c0", "node0"] and g.roots == {"containment": 0}


def test_dfs_trees_start_in_recipe_vertex_order() -> None:
    nodes = [
        ("p", "panel", "p", {"root": 1, "subsystem": "power"}),
        ("c", "cluster", "c", {"root": 1}),
        ("q", "pdu", "q", {"subsystem": "power"}),
        ("n", "node", "n", {}),
    ]
    g = load(recipe(nodes, [("c", "n", {}), ("p", "q", {"e_subsystem": "power"})]))
    assert g.names == ["p0", "q0", "c0", "n0"] and g.roots == {"power": 0, "containment": 2}


def test_associate_in_with_several_sources_duplicates_targets() -> None:
    g = load(
        recipe(
            [
                ("c", "cluster", "c", {"root": 1}),
                ("n", "node", "node", {}),
                ("s", "switch", "switch", {}),
                ("p", "panel", "p", {"root": 1, "subsystem": "net"}),
                ("q", "port", "port", {"subsystem": "net"}),
                ("sw", "switch", "switch", {"subsystem": "net"}),
                ("bw", "bw", "bw", {"subsystem": "net"}),
            ],
            [
                ("c", "n", {}),
                ("c", "s", {}),
                ("p", "q", {"e_subsystem": "net", "multi_scale": 2}),
                ("q", "sw", {"e_subsystem": "net", "gen_method": "ASSOCIATE_IN"}),
                ("sw", "bw", {"e_subsystem": "net"}),
            ],
        ),
        check=False,  # the stale by_path entry below is what store._check() rejects
    )
    switch = 2
    assert g.paths[switch]["net"] == "/p0/port1/switch0"  # the last source wins
    assert g.by_path["/p0/port0/switch0"] == [switch] == g.by_path["/p0/port1/switch0"]
    assert g.in_edges[switch] == [1, 4, 5]
    bws = g.children("net")[switch]
    assert [g.paths[v]["net"] for v in bws] == ["/p0/port1/switch0/bw0"] * 2


def test_multiply_into_other_subsystem_records_empty_parent_path() -> None:
    g = load(
        recipe(
            [("c", "cluster", "c", {"root": 1}), ("m", "meter", "m", {"subsystem": "power"})],
            [("c", "m", {"e_subsystem": "power"})],
        )
    )
    assert g.paths == [{"containment": "/c0", "power": ""}, {"power": "/m0"}]
    assert g.member_of[0] == ["containment"] and "" not in g.by_path


def test_associate_by_path_in_matches_rack_prefixes() -> None:
    g = load(
        recipe(
            [
                ("c", "cluster", "c", {"root": 1}),
                ("r", "rack", "rack", {}),
                ("pdu", "pdu", "pdu", {}),
                ("n", "node", "node", {}),
                ("pp", "panel", "pp", {"root": 1, "subsystem": "power"}),
                ("ppdu", "pdu", "pdu", {"subsystem": "power"}),
                ("pn", "node", "node", {"subsystem": "power"}),
            ],
            [
                ("c", "r", {"multi_scale": 2}),
                ("r", "pdu", {"id_scope": 1}),
                ("r", "n", {"id_scope": 1, "multi_scale": 2}),
                ("pp", "ppdu", {"e_subsystem": "power", "gen_method": "ASSOCIATE_IN"}),
                ("ppdu", "pn", {"e_subsystem": "power", "gen_method": "ASSOCIATE_BY_PATH_IN"}),
            ],
        )
    )
    power = {g.names[v]: g.paths[v].get("power") for v in g.by_type["node"]}
    assert power == {
        "node0": "/pp0/pdu0/node0",
        "node1": "/pp0/pdu0/node1",
        "node2": "/pp0/pdu1/node2",
        "node3": "/pp0/pdu1/node3",
    }


def test_associate_by_path_in_failed_prefixes_compare_equal() -> None:
    g = load(
        recipe(
            [
                ("c", "cluster", "c", {"root": 1}),
                ("n", "node", "node", {}),
                ("p", "panel", "p", {"root": 1, "subsystem": "power"}),
                ("pn", "node", "node", {"subsystem": "power"}),
            ],
            [
                ("c", "n", {"multi_scale": 2}),
                (
                    "p",
                    "pn",
                    {
                        "e_subsystem": "power",
                        "as_tgt_uplvl": 9,
                        "as_src_uplvl": 9,
                        "gen_method": "ASSOCIATE_BY_PATH_IN",
                    },
                ),
            ],
        )
    )
    assert [g.paths[v].get("power") for v in (1, 2)] == ["/p0/node0", "/p0/node1"]


def test_unpack_twice_hangs_second_recipe_under_existing_root() -> None:
    g = ResourceGraph()
    unpack(g, TINY)
    unpack(g, TINY)
    assert g.num_vertices == 199 and g.roots == {"containment": 0}
    assert g.names[100] == "rack0" and g.ranks[101:103] == [0, 1]
    g._check()


@pytest.mark.parametrize(
    ("uplvl", "expected"),
    [(0, "/a/b/c/"), (1, "/a/b/"), (2, "/a/"), (3, ""), (-1, "/a/b/c/"), (-5, "/a/b/c/")],
)
def test_path_prefix_cuts_levels(uplvl: int, expected: str) -> None:
    assert path_prefix("/a/b/c", uplvl) == expected


def test_path_prefix_of_empty_path() -> None:
    assert path_prefix("", 0) == "" and path_prefix("", -1) == "/"


def test_unpack_error_leaves_graph_unchanged() -> None:
    g = ResourceGraph()
    unpack(g, TINY)
    before = (list(g.names), list(g.edge_src), dict(g.by_path), list(g.subsystem_names.names))
    with pytest.raises(ReaderError) as info:
        unpack(g, TINY.replace(">18<", ">1.5<"), source="bad.graphml")
    assert info.value.reference_message == "error in reading grug string; "
    assert "bad.graphml" in str(info.value)
    assert (list(g.names), list(g.edge_src), dict(g.by_path), list(g.subsystem_names.names)) == (
        before
    )
