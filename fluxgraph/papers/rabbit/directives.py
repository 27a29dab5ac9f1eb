"""DataWarp-style storage directives (``attributes.system.dw``) -> a storage request (spec §3.2).

Supported: ``#DW jobdw type=xfs|gfs2|raw|lustre capacity=<q> name=<x>``,
``#DW create_persistent type=lustre capacity=<q> name=<x>``, ``#DW destroy_persistent name=<x>``
and ``#DW persistentdw name=<x>``. Quantities are ``<number><unit>`` with decimal (KB..PB) or
binary (KiB..PiB) units, rounded up to whole GiB, at least ``min_alloc_gib``.

>>> d = parse_directives("#DW jobdw type=xfs capacity=1.5TB name=a")
>>> d[0].kind, d[0].fstype, d[0].capacity_gib
('jobdw', 'xfs', 1397)
>>> storage_request(4, 3600, d)
StorageRequest(nodes=4, walltime=3600, node_local_gib=(1397,), lustre_gib=())
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from fluxgraph.errors import MatchError

__all__ = [
    "Directive",
    "StorageRequest",
    "parse_capacity",
    "parse_directives",
    "storage_request",
]

_UNITS = {
    "B": 1,
    **{u + "B": 1000 ** (i + 1) for i, u in enumerate("KMGTP")},
    **{u + "iB": 1024 ** (i + 1) for i, u in enumerate("KMGTP")},
}
_QUANTITY = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)")
_NODE_LOCAL = ("xfs", "gfs2", "raw")
_COMMANDS = ("jobdw", "create_persistent", "destroy_persistent", "persistentdw")
GIB = 1 << 30


def parse_capacity(text: str, min_alloc_gib: int = 1) -> int:
    """``<number><unit>`` -> whole GiB (rounded up, at least ``min_alloc_gib``).

    Raises
    ------
    MatchError
        For a malformed quantity or an unknown unit.

    >>> parse_capacity("100GiB"), parse_capacity("1TB"), parse_capacity("10B")
    (100, 932, 1)
    """
    m = _QUANTITY.fullmatch(text.strip())
    if m is None or m.group(2) not in _UNITS:
        raise MatchError(f"storage capacity {text!r}: expected <number><unit>, unit in {_UNITS}")
    number, unit = m.groups()
    num, _, frac = number.partition(".")
    scale = 10 ** len(frac)
    numerator = (int(num) * scale + int(frac or 0)) * _UNITS[unit]
    return max(min_alloc_gib, math.ceil(numerator / (scale * GIB)))


@dataclass(frozen=True, slots=True)
class Directive:
    """One ``#DW`` line: its command, file-system type, capacity (GiB) and name."""

    kind: str
    fstype: str = ""
    capacity_gib: int = 0
    name: str = ""


def parse_directives(dw: str | list[str], min_alloc_gib: int = 1) -> list[Directive]:
    """Parse ``attributes.system.dw`` (one string, possibly several lines, or a list).

    Raises
    ------
    MatchError
        Naming the directive and the bad or missing key.
    """
    lines = [dw] if isinstance(dw, str) else list(dw)
    out = []
    for text in (line for chunk in lines for line in chunk.splitlines()):
        words = text.split()
        if not words:
            continue
        if words[0] != "#DW" or len(words) < 2 or words[1] not in _COMMANDS:
            raise MatchError(f"storage directive {text!r}: expected '#DW <command>' in {_COMMANDS}")
        kind = words[1]
        keys: dict[str, str] = {}
        for word in words[2:]:
            key, sep, value = word.partition("=")
            if not sep or not value:
                raise MatchError(f"storage directive {text!r}: bad item {word!r} (key=value)")
            keys[key] = value
        if "name" not in keys:
            raise MatchError(f"storage directive {text!r}: name=<x> is required")
        if kind in ("destroy_persistent", "persistentdw"):
            out.append(Directive(kind, name=keys["name"]))
            continue
        fstype = keys.get("type", "")
        allowed = ("lustre",) if kind == "create_persistent" else (*_NODE_LOCAL, "lustre")
        if fstype not in allowed:
            raise MatchError(f"storage directive {text!r}: type must be one of {allowed}")
        if "capacity" not in keys:
            raise MatchError(f"storage directive {text!r}: capacity=<q> is required")
        try:
            gib = parse_capacity(keys["capacity"], min_alloc_gib)
        except MatchError as err:
            raise MatchError(f"storage directive {text!r}: {err}") from None
        out.append(Directive(kind, fstype, gib, keys["name"]))
    return out


@dataclass(frozen=True, slots=True)
class StorageRequest:
    """What a job asks of the machine: ``nodes`` (0: storage only) for ``walltime`` seconds,
    node-local file systems (GiB per node each) and Lustre file systems (total GiB each)."""

    nodes: int
    walltime: int
    node_local_gib: tuple[int, ...] = ()
    lustre_gib: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.nodes < 0 or self.walltime < 1:
            raise MatchError(f"storage request: nodes >= 0 and walltime >= 1 needed: {self}")
        if self.nodes == 0 and (self.node_local_gib or not self.lustre_gib):
            raise MatchError(f"storage request without nodes must be Lustre only: {self}")
        if any(c < 1 for c in (*self.node_local_gib, *self.lustre_gib)):
            raise MatchError(f"storage request: capacities must be >= 1 GiB: {self}")


def storage_request(nodes: int, walltime: int, directives: list[Directive]) -> StorageRequest:
    """The request of a job with ``nodes`` nodes and ``directives``.

    ``create_persistent`` makes a storage-only request (no nodes); ``persistentdw`` and
    ``destroy_persistent`` add nothing (the caller acts on them by name).

    Raises
    ------
    MatchError
        For ``create_persistent`` mixed with other storage or with nodes.
    """
    local = tuple(d.capacity_gib for d in directives if d.fstype in _NODE_LOCAL)
    lustre = tuple(d.capacity_gib for d in directives if d.fstype == "lustre")
    if any(d.kind == "create_persistent" for d in directives):
        if len(directives) != 1:
            raise MatchError("create_persistent must be the job's only storage directive")
        nodes = 0
    return StorageRequest(nodes, walltime, local, lustre)
