"""Id sets as compact strings (flux RFC 22): ``"1-3,5,9-11"`` <-> ``[1, 2, 3, 5, 9, 10, 11]``.

The encoder reproduces flux-core's ``idset_encode(..., IDSET_FLAG_RANGE)``: ids sorted, duplicates
collapsed, runs of two or more consecutive ids written ``a-b``, no brackets, ``""`` for the empty
set. The decoder accepts what RFC 22 allows (optionally bracketed, comma-separated ``n`` and
``lo-hi`` items) and, like flux-core, tolerates items out of order and overlapping items.

Both directions raise :class:`ValueError` naming the offending text or id; readers translate it
into :class:`~fluxgraph.errors.ReaderError` at their boundary.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["MAX_IDS", "decode", "encode", "ranges"]

#: Largest number of ids :func:`decode` expands, so a short string cannot exhaust memory.
MAX_IDS = 1 << 22


def _is_number(text: str) -> bool:
    return text.isascii() and text.isdigit()


def ranges(text: str) -> list[tuple[int, int]]:
    """The sorted, merged ``(lo, hi)`` runs of the idset string ``text`` (inclusive bounds).

    Runtime complexity: O(k log k) for k comma-separated items.

    Raises
    ------
    ValueError
        If ``text`` is not an idset string (bad characters, empty items, ``hi < lo``).

    Examples
    --------
    >>> ranges("[5,1-3,4]")
    [(1, 5)]
    >>> ranges("")
    []
    """
    if not isinstance(text, str):
        raise ValueError(f"idset must be a string, not {type(text).__name__}")
    body = text
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    if body == "":
        return []
    items: list[tuple[int, int]] = []
    for item in body.split(","):
        lo_s, sep, hi_s = item.partition("-")
        if not _is_number(lo_s) or (sep and not _is_number(hi_s)):
            raise ValueError(f"invalid idset {text!r}: bad item {item!r}")
        lo = int(lo_s)
        hi = int(hi_s) if sep else lo
        if hi < lo:
            raise ValueError(f"invalid idset {text!r}: range {item!r} is descending")
        items.append((lo, hi))
    items.sort()
    merged = [items[0]]
    for lo, hi in items[1:]:
        last_lo, last_hi = merged[-1]
        if lo <= last_hi + 1:
            if hi > last_hi:
                merged[-1] = (last_lo, hi)
        else:
            merged.append((lo, hi))
    return merged


def decode(text: str) -> list[int]:
    """The ids of the idset string ``text``, ascending and unique.

    Runtime complexity: O(n + k log k) for n ids in k items.

    Raises
    ------
    ValueError
        If ``text`` is malformed (see :func:`ranges`) or names more than :data:`MAX_IDS` ids.

    Examples
    --------
    >>> decode("1-3,5,9-11")
    [1, 2, 3, 5, 9, 10, 11]
    """
    runs = ranges(text)
    total = sum(hi - lo + 1 for lo, hi in runs)
    if total > MAX_IDS:
        raise ValueError(f"idset {text!r} has {total} ids (more than {MAX_IDS})")
    out: list[int] = []
    for lo, hi in runs:
        out.extend(range(lo, hi + 1))
    return out


def encode(ids: Iterable[int]) -> str:
    """The compact idset string of ``ids`` (any order, duplicates allowed).

    Runtime complexity: O(n log n).

    Raises
    ------
    ValueError
        If an id is negative or not an integer (the reference fails with EINVAL).

    Examples
    --------
    >>> encode([11, 1, 2, 3, 5, 9, 10, 3])
    '1-3,5,9-11'
    >>> encode([3, 4]), encode([]), encode([7])
    ('3-4', '', '7')
    """
    unique: set[int] = set()
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise ValueError(f"cannot encode id {i!r} in an idset")
        unique.add(i)
    values = sorted(unique)
    parts: list[str] = []
    i, n = 0, len(values)
    while i < n:
        j = i
        while j + 1 < n and values[j + 1] == values[j] + 1:
            j += 1
        parts.append(str(values[i]) if i == j else f"{values[i]}-{values[j]}")
        i = j + 1
    return ",".join(parts)
