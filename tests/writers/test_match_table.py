"""The match-writer table and factory (io-and-cli-semantics.md §6.11)."""

from __future__ import annotations

import pytest

from fluxgraph.errors import QueryError
from fluxgraph.writers.match import MATCH_FORMATS, create


def test_match_formats_are_the_reference_names_in_order():
    assert list(MATCH_FORMATS) == [
        "simple",
        "pretty_simple",
        "jgf",
        "jgf_shorthand",
        "rlite",
        "rv1",
        "rv1_nosched",
        "rv1_shorthand",
    ]


def test_match_formats_table_is_read_only():
    with pytest.raises(TypeError):
        MATCH_FORMATS["xml"] = object  # type: ignore[index]


@pytest.mark.parametrize("name", list(MATCH_FORMATS))
def test_create_returns_a_fresh_writer_named_like_the_format(name):
    a, b = create(name), create(name)
    assert a is not b
    assert a.name == name
    for method in ("emit_vtx", "emit_edg", "emit_tm", "emit_attrs", "emit", "emit_json"):
        assert callable(getattr(a, method))


@pytest.mark.parametrize("name", ["Simple", "json", "", "rv2"])
def test_create_rejects_unknown_names_listing_valid_ones(name):
    with pytest.raises(QueryError, match="valid: simple, pretty_simple, jgf"):
        create(name)
