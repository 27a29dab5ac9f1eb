"""Constraint evaluation against vertex views, hostlist and idset parsing."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from fluxgraph.jobspec import VertexView, load
from fluxgraph.jobspec.constraints import (
    AndConstraint,
    HostlistConstraint,
    MatchAll,
    NotConstraint,
    OrConstraint,
    PropertyConstraint,
    RankConstraint,
    build_constraint,
    parse_hostlist,
    parse_idset,
)


@dataclass(frozen=True)
class V:
    name: str = "node0"
    rank: int = -1
    properties: dict[str, str] = field(default_factory=dict)


def test_vertex_view_protocol_accepts_plain_objects() -> None:
    assert isinstance(V(), VertexView)


def test_match_all_matches_everything() -> None:
    assert MatchAll().matches(V())


def test_property_constraint_tests_keys_and_negation() -> None:
    c = PropertyConstraint(("amd", "^slow"))
    assert c.matches(V(properties={"amd": "x"}))
    assert not c.matches(V(properties={"amd": "x", "slow": ""}))
    assert not c.matches(V(properties={"intel": ""}))
    assert PropertyConstraint(()).matches(V())


def test_property_constraint_ignores_values() -> None:
    assert PropertyConstraint(("gpu",)).matches(V(properties={"gpu": ""}))


@pytest.mark.parametrize(
    ("hosts", "name", "found"),
    [
        ("tst0", "tst", False),
        ("tst0,tst", "tst", True),
        ("tst", "tst0", False),
        ("foo[1-5]-eth0", "foo3-eth0", True),
        ("foo[1-5]", "foo3-eth0", False),
        ("[0-5]", "3", True),
        ("[0-5]i", "0", False),
        ("i[0-5]", "i00", False),
        ("i[00-05]", "i00", True),
        ("i[00-05]", "i04", True),
        ("f00[7-8]", "f007", True),
        ("f00[7-8,10]", "f0010", True),
        ("f0010001[07-08]", "f001000108", True),
        ("cornp2", "corn2", False),
        ("corn1-p2", "corn2", False),
        (",node1,,node2,", "node2", True),
        ("p[00-3]p", "p03p", True),
        ("", "node0", False),
    ],
)
def test_hostlist_constraint_membership(hosts: str, name: str, found: bool) -> None:
    assert HostlistConstraint((hosts,)).matches(V(name=name)) is found


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        "foo[]",
        "foo[",
        "foo[1,3",
        "foo[[1,3]",
        "foo]",
        "foo[x-y]",
        "foo[0-1,2--5]",
        "foo[3-1]",
        "a[1]b[2]",
        "foo[0-1048576]",
    ],
)
def test_parse_hostlist_rejects_malformed(text: str) -> None:
    with pytest.raises(ValueError):
        parse_hostlist(text)


def test_parse_hostlist_accepts_large_range_without_expanding() -> None:
    c = HostlistConstraint(("n[0-1048575]",))
    assert c.matches(V(name="n1048575"))
    assert not c.matches(V(name="n1048576"))


@pytest.mark.parametrize(
    ("text", "ranges"),
    [
        ("", ()),
        ("0", ((0, 0),)),
        ("[1-3,5]", ((1, 3), (5, 5))),
        ("5-3", ((3, 5),)),
        (",1,,2,", ((1, 2),)),
        ("0-2,1-4", ((0, 4),)),
        (" 7", ((7, 7),)),
    ],
)
def test_parse_idset_follows_flux_core(text: str, ranges: tuple[tuple[int, int], ...]) -> None:
    assert parse_idset(text) == ranges


@pytest.mark.parametrize("text", ["x", "1-", "-1", "1-2-3", "4294967295", "1.5"])
def test_parse_idset_rejects_malformed(text: str) -> None:
    with pytest.raises(ValueError):
        parse_idset(text)


def test_rank_constraint_membership() -> None:
    c = RankConstraint(("0-3", "8", "10-11"))
    assert [r for r in range(-2, 14) if c.matches(V(rank=r))] == [0, 1, 2, 3, 8, 10, 11]


def test_combinators_and_or_not() -> None:
    a = PropertyConstraint(("a",))
    b = PropertyConstraint(("b",))
    only_a = V(properties={"a": ""})
    both = V(properties={"a": "", "b": ""})
    assert AndConstraint((a, b)).matches(both) and not AndConstraint((a, b)).matches(only_a)
    assert OrConstraint((a, b)).matches(only_a) and not OrConstraint((b,)).matches(only_a)
    assert NotConstraint((a, b)).matches(only_a) and not NotConstraint((a, b)).matches(both)
    assert AndConstraint(()).matches(V()) and not OrConstraint(()).matches(V())
    assert not NotConstraint(()).matches(V())


def test_build_constraint_round_trips_to_dict() -> None:
    data = {
        "and": [
            {"properties": ["amd", "^slow"]},
            {"or": [{"hostlist": ["n[0-3]"]}, {"ranks": ["4-5"]}]},
            {"not": [{"properties": ["down"]}]},
            {},
        ]
    }
    c = build_constraint(data)
    assert c.to_dict() == data
    assert c.matches(V(name="n2", properties={"amd": ""}))
    assert c.matches(V(name="x", rank=5, properties={"amd": ""}))
    assert not c.matches(V(name="x", rank=6, properties={"amd": ""}))
    assert not c.matches(V(name="n2", properties={"amd": "", "down": ""}))


def test_constraint_loaded_from_yaml_text_evaluates() -> None:
    text = """\
version: 1
resources: [{type: node, count: 1}]
tasks: [{command: [a], slot: s, count: {per_slot: 1}}]
attributes:
  system:
    constraints:
      or:
        - properties: ["gpu"]
        - ranks: [0-1, 5]
"""
    c = load(text).constraint
    assert c is not None
    assert [r for r in range(7) if c.matches(V(rank=r))] == [0, 1, 5]
    assert c.matches(V(rank=9, properties={"gpu": "a100"}))


def test_empty_constraints_mapping_is_match_all_not_none() -> None:
    text = """\
version: 1
resources: [{type: node, count: 1}]
tasks: [{command: [a], slot: s, count: {per_slot: 1}}]
attributes: {system: {constraints: {}}}
"""
    assert load(text).constraint == MatchAll()
