"""Match policies: named policies and ``key=value`` custom policy strings (§5.5)."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from types import MappingProxyType

from fluxgraph.errors import MatchError
from fluxgraph.policies.base import MatchPolicy
from fluxgraph.policies.class_packing import ClassPacking
from fluxgraph.policies.ids import IdOrder
from fluxgraph.policies.locality import LocalityAware
from fluxgraph.policies.memory_pool import MemoryPool
from fluxgraph.policies.variation import VariationAware

__all__ = [
    "POLICIES",
    "ClassPacking",
    "IdOrder",
    "LocalityAware",
    "MatchPolicy",
    "MemoryPool",
    "VariationAware",
    "create_policy",
]

#: Named policies -> constructor (the reference's policy factory table).
POLICIES: MappingProxyType[str, Callable[[], MatchPolicy]] = MappingProxyType(
    {
        "first": partial(IdOrder, prefer_high=True, node_centric=True, stop_on_k=1),
        "firstnodex": partial(
            IdOrder, prefer_high=True, node_centric=True, node_exclusive=True, stop_on_k=1
        ),
        "high": partial(IdOrder, prefer_high=True),
        "low": partial(IdOrder, prefer_high=False),
        "lonode": partial(IdOrder, prefer_high=False, node_centric=True),
        "hinode": partial(IdOrder, prefer_high=True, node_centric=True),
        "lonodex": partial(IdOrder, prefer_high=False, node_centric=True, node_exclusive=True),
        "hinodex": partial(IdOrder, prefer_high=True, node_centric=True, node_exclusive=True),
        "locality": LocalityAware,
        "variation": VariationAware,
        "classpack": ClassPacking,
        "classpack-strict": partial(ClassPacking, slack=math.inf),
        "memory-pool": MemoryPool,
    }
)

_BOOL_KEYS = ("node_centric", "stop_on_1_matches", "node_exclusive")


def create_policy(spec: str | MatchPolicy) -> MatchPolicy:
    """A policy from a name, a custom ``key=value ...`` string, or a policy object.

    Raises
    ------
    MatchError
        If ``spec`` is neither a known name nor a valid custom string.

    Examples
    --------
    >>> create_policy("low")
    IdOrder(policy=low, node_centric=False, node_exclusive=False, stop_on_k=0)
    >>> create_policy("policy=high node_exclusive=true")
    IdOrder(policy=high, node_centric=False, node_exclusive=True, stop_on_k=0)
    >>> create_policy("classpack:slack=1800")
    ClassPacking(slack=1800, tie='bestfit')
    """
    if not isinstance(spec, str):
        return spec
    make = POLICIES.get(spec)
    if make is not None:
        return make()
    if spec.startswith("classpack:"):
        return _class_packing(spec)
    options: dict[str, str] = {}
    for token in spec.split(" "):
        key, sep, value = token.partition("=")
        if not sep:
            raise MatchError(f"invalid policy option {token!r} in {spec!r}")
        valid = ("low", "high") if key == "policy" else ("true", "false")
        if key in ("policy", *_BOOL_KEYS) and value in valid:
            options[key] = value
        else:
            raise MatchError(f"invalid policy option {token!r} in {spec!r}")
    if "policy" not in options:
        raise MatchError(f"policy {spec!r} names neither policy=low nor policy=high")
    return IdOrder(
        prefer_high=options["policy"] == "high",
        node_centric=options.get("node_centric") == "true",
        node_exclusive=options.get("node_exclusive") == "true",
        stop_on_k=1 if options.get("stop_on_1_matches") == "true" else 0,
    )


def _class_packing(spec: str) -> ClassPacking:
    """``classpack:slack=S[,tie=T]`` (S seconds or ``inf``; spec §4.3): class packing with a
    start-time budget. Raises :class:`MatchError` naming the bad option."""
    options: dict[str, str] = {}
    for token in spec.removeprefix("classpack:").split(","):
        key, sep, value = token.partition("=")
        if not sep or key not in ("slack", "tie") or key in options:
            raise MatchError(f"invalid class-packing option {token!r} in {spec!r} "
                             "(classpack:slack=<seconds|inf>[,tie=bestfit|fastest])")  # fmt: skip
        options[key] = value
    slack = options.get("slack", "0")
    try:
        seconds = float(slack)
    except ValueError:
        raise MatchError(f"invalid slack {slack!r} in {spec!r}: seconds or inf") from None
    if not (seconds >= 0):  # (NaN too)
        raise MatchError(f"invalid slack {slack!r} in {spec!r}: seconds >= 0 or inf")
    if seconds.is_integer():
        seconds = int(seconds)
    return ClassPacking(slack=seconds, tie=options.get("tie", "bestfit"))
