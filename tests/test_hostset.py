"""``HostSet``: membership in a hostlist without expanding it, exactly as ``decode`` expands."""

from __future__ import annotations

import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.hostlist import MAX_HOSTS, HostSet, decode

prefixes = st.sampled_from(["node", "n", "n1", "a-b", "x0", ""])
numbers = st.integers(0, 120)


@st.composite
def hostlists(draw) -> str:
    items = []
    for _ in range(draw(st.integers(1, 3))):
        prefix = draw(prefixes)
        if draw(st.booleans()) and prefix:
            items.append(prefix)
            continue
        parts = []
        for _ in range(draw(st.integers(1, 3))):
            lo = draw(numbers)
            width = draw(st.integers(1, 4))
            hi = lo + draw(st.integers(0, 5))
            parts.append(f"{lo:0{width}d}" if lo == hi else f"{lo:0{width}d}-{hi}")
        items.append(f"{prefix}[{','.join(parts)}]")
    return ",".join(items)


names = st.builds(lambda p, n, w: f"{p}{n:0{w}d}", prefixes, numbers, st.integers(1, 4))


@settings(max_examples=300, deadline=None)
@given(text=hostlists(), probes=st.lists(names, max_size=10))
def test_hostset_membership_equals_decode(text, probes):
    hosts = decode(text)
    hs = HostSet(text)
    for name in [*hosts, *probes, "", "node", "1"]:
        assert (name in hs) == (name in hosts), (text, name)


@pytest.mark.parametrize(
    "text", ["", "a[1-", "a[3-1]", "a[x]", "a b", "a[1]b", "a[0-" + "9" * 30 + "]"]
)
def test_hostset_refuses_what_decode_refuses(text):
    try:
        decode(text)
    except ValueError:
        with pytest.raises(ValueError):
            HostSet(text)
    else:
        HostSet(text)


def test_hostset_does_not_expand():
    tracemalloc.start()
    hs = HostSet(",".join(f"n{i}[0-{MAX_HOSTS // 64 - 1}]" for i in range(64)))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1_000_000
    assert "n63" + str(MAX_HOSTS // 64 - 1) in hs
    with pytest.raises(ValueError, match="more than"):
        HostSet(",".join(f"n{i}[0-{MAX_HOSTS}]" for i in range(2)))
