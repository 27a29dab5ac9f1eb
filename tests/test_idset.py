"""Tests of fluxgraph.idset: RFC 22 id set strings."""

from __future__ import annotations

import itertools
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph import idset

EXAMPLES = int(os.environ.get("FLUXGRAPH_ORACLE_EXAMPLES", "200"))


@pytest.mark.parametrize(
    ("ids", "text"),
    [
        ([1, 2, 3, 5, 9, 10, 11], "1-3,5,9-11"),
        ([3, 4], "3-4"),
        ([], ""),
        ([0], "0"),
        ([5, 5, 4, 3], "3-5"),
        ([0, 2, 4], "0,2,4"),
    ],
)
def test_encode_compresses_runs(ids, text):
    assert idset.encode(ids) == text


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("1-3,5,9-11", [1, 2, 3, 5, 9, 10, 11]),
        ("[0-2]", [0, 1, 2]),
        ("", []),
        ("[]", []),
        ("7,1-2,2-3", [1, 2, 3, 7]),
        ("007", [7]),
    ],
)
def test_decode_expands_items(text, ids):
    assert idset.decode(text) == ids


@pytest.mark.parametrize(
    "text", ["1-", "-1", "a", "1,,2", "3-1", " 1", "1 ", "1;2", "[1-2", "1-2-3", "\u0661", "1.5"]
)
def test_decode_rejects_malformed_text(text):
    with pytest.raises(ValueError, match="idset"):
        idset.decode(text)


def test_decode_rejects_non_string():
    with pytest.raises(ValueError, match="string"):
        idset.decode(5)  # type: ignore[arg-type]


def test_decode_refuses_huge_expansion():
    with pytest.raises(ValueError, match="more than"):
        idset.decode(f"0-{idset.MAX_IDS}")


@pytest.mark.parametrize("ids", [[-1], [1, "2"], [True], [1.0]])
def test_encode_rejects_bad_ids(ids):
    with pytest.raises(ValueError, match="cannot encode"):
        idset.encode(ids)


def test_ranges_merges_overlaps():
    assert idset.ranges("9,1-3,2-5,6") == [(1, 6), (9, 9)]


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=300), max_size=60))
def test_decode_of_encode_is_sorted_unique(ids):
    assert idset.decode(idset.encode(ids)) == sorted(set(ids))


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=300), max_size=60))
def test_encode_is_canonical(ids):
    text = idset.encode(ids)
    assert idset.encode(idset.decode(text)) == text
    # canonical: no item touches the next one
    runs = idset.ranges(text)
    assert all(b[0] > a[1] + 1 for a, b in itertools.pairwise(runs))
