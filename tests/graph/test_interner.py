"""First-seen interning of resource types and subsystems."""

from __future__ import annotations

from fluxgraph.graph.interner import (
    PREINTERNED_SUBSYSTEMS,
    PREINTERNED_TYPES,
    Interner,
    new_subsystem_interner,
    new_type_interner,
)


def test_interner_orders_by_first_seen() -> None:
    names = Interner()
    for name in ("zeta", "alpha", "zeta", "mid"):
        names.intern(name)
    assert names.names == ["zeta", "alpha", "mid"] and len(names) == 3
    assert sorted(["mid", "alpha", "zeta"], key=names.order) == ["zeta", "alpha", "mid"]


def test_interner_unknown_names_sort_last() -> None:
    names = Interner(["a", "b"])
    assert names.order("unknown") == 2 and "unknown" not in names and "a" in names


def test_type_interner_starts_with_reference_types() -> None:
    types = new_type_interner()
    assert types.names == list(PREINTERNED_TYPES)
    assert types.order("core") < types.order("gpu") < types.order("node")
    types.intern("memory")
    assert types.order("memory") == len(PREINTERNED_TYPES)


def test_subsystem_interner_starts_with_containment() -> None:
    subs = new_subsystem_interner()
    assert subs.names == list(PREINTERNED_SUBSYSTEMS) == ["containment"]


def test_interner_finalize_flag() -> None:
    names = Interner()
    assert not names.finalized
    names.finalize()
    assert names.finalized
