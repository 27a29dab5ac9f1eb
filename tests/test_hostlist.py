"""Tests of fluxgraph.hostlist: libhostlist-compatible host list strings."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph import hostlist

EXAMPLES = int(os.environ.get("FLUXGRAPH_ORACLE_EXAMPLES", "200"))


@pytest.mark.parametrize(
    ("hosts", "text"),
    [
        (["node0", "node1", "node2", "node3"], "node[0-3]"),
        (["node1", "node3", "node2"], "node[1,3,2]"),
        (["a1", "b1", "a2"], "a1,b1,a2"),
        (["node01", "node02", "node03", "node10"], "node[01-03,10]"),
        (["fluke", "fluke"], "fluke,fluke"),
        (["n1", "n1", "n2"], "n[1,1-2]"),
        (["x007", "x008", "x9"], "x[007-008,9]"),
        (["rack0n1", "rack0n2"], "rack0n[1-2]"),
        (["n9", "n10", "n11"], "n[9-11]"),
        (["node5"], "node5"),
        (["node5", "fluke", "node6"], "node5,fluke,node6"),
        ([], ""),
    ],
)
def test_encode_matches_reference_examples(hosts, text):
    assert hostlist.encode(hosts) == text


@pytest.mark.parametrize(
    ("text", "hosts"),
    [
        ("node[0-3]", ["node0", "node1", "node2", "node3"]),
        ("node[01-03,10],fluke", ["node01", "node02", "node03", "node10", "fluke"]),
        ("x[9-10]", ["x9", "x10"]),
        ("node,node", ["node", "node"]),
        ("n[1,1-2]", ["n1", "n1", "n2"]),
        ("", []),
    ],
)
def test_decode_expands_in_order(text, hosts):
    assert hostlist.decode(text) == hosts


@pytest.mark.parametrize(
    "text",
    ["a,,b", "n[1-", "n]1", "n[[1]]", "n[]", "n[2-1]", "n[1-2]x", "n[a]", "a b", ",", "n[1-]"],
)
def test_decode_rejects_malformed_text(text):
    with pytest.raises(ValueError, match="hostlist"):
        hostlist.decode(text)


def test_decode_refuses_huge_expansion():
    with pytest.raises(ValueError, match="more than"):
        hostlist.decode(f"n[0-{hostlist.MAX_HOSTS}]")


@pytest.mark.parametrize("host", ["", "a,b", "n[1]", "a b", 5])
def test_encode_rejects_unencodable_names(host):
    with pytest.raises(ValueError, match="cannot encode"):
        hostlist.encode([host])


@pytest.mark.parametrize(
    ("host", "split"),
    [
        ("x007", ("x", 7)),
        ("fluke", ("fluke", -1)),
        ("123", ("123", 123)),
        ("node00", ("node", 0)),
        ("cab1234", ("cab", 1234)),
        ("rack0n12", ("rack0n", 12)),
    ],
)
def test_split_hostname_follows_reference_rule(host, split):
    assert hostlist.split_hostname(host) == split


def test_split_hostname_rejects_int64_overflow():
    with pytest.raises(ValueError, match="overflows"):
        hostlist.split_hostname("n9223372036854775808")
    assert hostlist.split_hostname("n9223372036854775807") == ("n", 2**63 - 1)


_prefix = st.sampled_from(["n", "node", "x", "rack0n", "a-b", ""])
_number = st.integers(min_value=0, max_value=120)
_host = st.one_of(
    st.builds(lambda p, k, w: f"{p}{k:0{w}d}" or "h", _prefix, _number, st.integers(1, 4)),
    st.sampled_from(["fluke", "login", "x-y"]),
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(_host, max_size=40))
def test_decode_of_encode_round_trips(hosts):
    assert hostlist.decode(hostlist.encode(hosts)) == hosts


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(st.builds(lambda k: f"node{k}", st.integers(0, 50)), max_size=30))
def test_encode_merges_ascending_runs_only(hosts):
    text = hostlist.encode(hosts)
    # a comma-free body means one bracket-free host or one run of consecutive numbers
    if hosts and "," not in text:
        nums = [int(h[4:]) for h in hosts]
        assert nums == list(range(nums[0], nums[0] + len(nums)))
