"""Host lists as compact strings (flux-core ``libhostlist``): ``"node[0-3]"`` <-> four host names.

A host name splits at its trailing digits into a prefix, a number and a width (the digit count);
a name without trailing digits is a *single* host. :func:`encode` reproduces flux-core's
``hostlist_append`` + ``hostlist_encode``: each host merges into the last range when the prefix is
equal, its number is the range's high end plus one and the widths are zero-padding compatible;
otherwise it opens a new range (no sorting, no de-duplication). Consecutive non-single ranges with
the same prefix print as one ``prefix[r1,r2,...]`` group, without brackets when the group is one
host. :func:`decode` expands such strings back, in order, so ``decode(encode(hosts)) == hosts``.

:func:`split_hostname` is the readers' hostname -> ``(basename, id)`` rule. All functions raise
:class:`ValueError` naming the offending text.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["MAX_HOSTS", "HostSet", "decode", "encode", "split_hostname"]

#: Largest number of hosts :func:`decode` expands, so a short string cannot exhaust memory.
MAX_HOSTS = 1 << 22

_INT64_MAX = (1 << 63) - 1
_FORBIDDEN = frozenset("[],") | frozenset(" \t\n\r\f\v")


def _split(host: str) -> tuple[str, str]:
    """``host`` as (prefix, trailing digit string)."""
    i = len(host)
    while i > 0 and host[i - 1].isascii() and host[i - 1].isdigit():
        i -= 1
    return host[:i], host[i:]


def split_hostname(host: str) -> tuple[str, int]:
    """A hostname's ``(basename, id)``: the id is its all-digit suffix, -1 when there is none.

    The basename is the name without the suffix, except that an all-digit name keeps itself as
    basename (the reference never empties it).

    Raises
    ------
    ValueError
        If the numeric suffix does not fit a signed 64-bit integer (the reference's EOVERFLOW).

    Examples
    --------
    >>> split_hostname("x007"), split_hostname("fluke"), split_hostname("123")
    (('x', 7), ('fluke', -1), ('123', 123))
    """
    prefix, digits = _split(host)
    if not digits:
        return host, -1
    value = int(digits)
    if value > _INT64_MAX:
        raise ValueError(f"numeric suffix of hostname {host!r} overflows int64")
    return (prefix or host), value


def _zero_pad(num: int, width: int) -> int:
    """How many leading zeros ``num`` gets when printed ``width`` wide."""
    return max(width - len(str(num)), 0)


class _Range:
    """One host range: ``prefix`` + numbers ``lo..hi`` printed ``width`` wide, or a single host."""

    __slots__ = ("hi", "lo", "prefix", "single", "width")

    def __init__(self, prefix: str, lo: int, width: int, single: bool) -> None:
        self.prefix = prefix
        self.lo = lo
        self.hi = lo
        self.width = width
        self.single = single

    def extend(self, prefix: str, num: int, width: int) -> bool:
        """Append host ``prefix``+``num`` (``width`` digits) to this range if it fits there."""
        if self.single or prefix != self.prefix or num != self.hi + 1:
            return False
        if width != self.width:
            # flux-core's width equivalence: the host may join when one of the two numbers
            # prints identically under both widths; the range keeps (or takes) that width.
            npad, nmpad = _zero_pad(self.lo, self.width), _zero_pad(self.lo, width)
            mpad, mnpad = _zero_pad(num, width), _zero_pad(num, self.width)
            if npad != nmpad and mpad != mnpad:
                return False
            if npad == nmpad:
                self.width = width
        self.hi = num
        return True

    def text(self) -> str:
        lo = f"{self.lo:0{self.width}d}"
        return lo if self.lo == self.hi else f"{lo}-{self.hi:0{self.width}d}"


def encode(hosts: Iterable[str]) -> str:
    """The compact hostlist string of ``hosts``, in the given order.

    Runtime complexity: O(total length of the names).

    Raises
    ------
    ValueError
        If a host is empty or contains brackets, commas or whitespace.

    Examples
    --------
    >>> encode(["node0", "node1", "node2", "node3"])
    'node[0-3]'
    >>> encode(["node1", "node3", "node2"]), encode(["n1", "n1", "n2"])
    ('node[1,3,2]', 'n[1,1-2]')
    >>> encode(["x007", "x008", "x9"]), encode(["fluke", "fluke"]), encode(["a1", "b1", "a2"])
    ('x[007-008,9]', 'fluke,fluke', 'a1,b1,a2')
    """
    ranges: list[_Range] = []
    for host in hosts:
        if not isinstance(host, str) or not host or not _FORBIDDEN.isdisjoint(host):
            raise ValueError(f"cannot encode host name {host!r} in a hostlist")
        prefix, digits = _split(host)
        if not digits:
            ranges.append(_Range(host, 0, 0, True))
            continue
        num, width = int(digits), len(digits)
        if not (ranges and ranges[-1].extend(prefix, num, width)):
            ranges.append(_Range(prefix, num, width, False))
    groups: list[str] = []
    i, n = 0, len(ranges)
    while i < n:
        first = ranges[i]
        if first.single:
            groups.append(first.prefix)
            i += 1
            continue
        j = i + 1
        while j < n and not ranges[j].single and ranges[j].prefix == first.prefix:
            j += 1
        if j == i + 1 and first.lo == first.hi:
            groups.append(first.prefix + first.text())
        else:
            groups.append(f"{first.prefix}[{','.join(r.text() for r in ranges[i:j])}]")
        i = j
    return ",".join(groups)


def _items(text: str) -> list[str]:
    """Split ``text`` at the commas outside brackets."""
    items: list[str] = []
    depth = 0
    start = 0
    for k, ch in enumerate(text):
        if ch == "[":
            depth += 1
            if depth > 1:
                raise ValueError(f"invalid hostlist {text!r}: nested '['")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"invalid hostlist {text!r}: unmatched ']'")
        elif ch == "," and depth == 0:
            items.append(text[start:k])
            start = k + 1
    if depth:
        raise ValueError(f"invalid hostlist {text!r}: unmatched '['")
    items.append(text[start:])
    return items


def _pieces(text: str) -> list[tuple[str, list[tuple[int, int, int]]]]:
    """``text`` parsed into ``(prefix, [(lo, hi, width), ...])`` pieces (no ranges: a single
    host named ``prefix``), checked exactly as :func:`decode` checks it, hosts not expanded."""
    if not isinstance(text, str):
        raise ValueError(f"hostlist must be a string, not {type(text).__name__}")
    if text == "":
        return []
    pieces: list[tuple[str, list[tuple[int, int, int]]]] = []
    total = 0
    for item in _items(text):
        if not item or any(ch.isspace() for ch in item):
            raise ValueError(f"invalid hostlist {text!r}: bad item {item!r}")
        if "[" not in item:
            if "]" in item:
                raise ValueError(f"invalid hostlist {text!r}: unmatched ']'")
            pieces.append((item, []))
            total += 1
        else:
            prefix, _, rest = item.partition("[")
            body, _, suffix = rest.partition("]")
            if suffix or not body:
                raise ValueError(f"invalid hostlist {text!r}: bad item {item!r}")
            ranges = []
            for part in body.split(","):
                lo_s, sep, hi_s = part.partition("-")
                ok = lo_s.isascii() and lo_s.isdigit()
                if not ok or (sep and not (hi_s.isascii() and hi_s.isdigit())):
                    raise ValueError(f"invalid hostlist {text!r}: bad range {part!r}")
                if len(lo_s.lstrip("0")) > 19 or len(hi_s.lstrip("0")) > 19:
                    raise ValueError(f"hostlist {text!r} has more than {MAX_HOSTS} hosts")
                lo = int(lo_s)
                hi = int(hi_s) if sep else lo
                if hi < lo:
                    raise ValueError(f"invalid hostlist {text!r}: range {part!r} is descending")
                total += hi - lo + 1
                if total > MAX_HOSTS:
                    raise ValueError(f"hostlist {text!r} has more than {MAX_HOSTS} hosts")
                ranges.append((lo, hi, len(lo_s)))
            pieces.append((prefix, ranges))
    return pieces


def decode(text: str) -> list[str]:
    """The host names of the hostlist string ``text``, in order (duplicates kept).

    Runtime complexity: O(number of hosts).

    Raises
    ------
    ValueError
        If ``text`` is malformed (empty items, bad ranges, text after ``]``, whitespace) or names
        more than :data:`MAX_HOSTS` hosts.

    Examples
    --------
    >>> decode("node[01-03,10],fluke")
    ['node01', 'node02', 'node03', 'node10', 'fluke']
    >>> decode("")
    []
    """
    hosts: list[str] = []
    for prefix, ranges in _pieces(text):
        if not ranges:
            hosts.append(prefix)
        for lo, hi, width in ranges:
            hosts.extend(f"{prefix}{k:0{width}d}" for k in range(lo, hi + 1))
    return hosts


class HostSet:
    """Membership in the hosts of a hostlist string, without expanding it.

    ``name in HostSet(text)`` is ``name in decode(text)``, with the same errors, but memory is
    proportional to the length of ``text`` (``n[0-1048575]`` holds a million names in a few
    bytes), and a lookup costs O(trailing digits of the name x log ranges).

    Examples
    --------
    >>> hs = HostSet("node[01-03,10],fluke,n1[0-2]")
    >>> [h in hs for h in ("node02", "node2", "node10", "fluke", "n12", "n3", "node04")]
    [True, False, True, True, True, False, False]
    """

    __slots__ = ("_names", "_ranges")

    def __init__(self, text: str) -> None:
        names: set[str] = set()
        ranges: dict[str, list[tuple[int, int, int]]] = {}
        for prefix, spans in _pieces(text):
            if not spans:
                names.add(prefix)
            else:
                ranges.setdefault(prefix, []).extend(spans)
        self._names = frozenset(names)
        self._ranges = ranges

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name in self._names:
            return True
        if not self._ranges:
            return False
        end = len(name)
        k = end
        while k > 0 and name[k - 1].isascii() and name[k - 1].isdigit():
            k -= 1
        for cut in range(k, end):  # every prefix that leaves a non-empty digit tail
            spans = self._ranges.get(name[:cut])
            if spans is None:
                continue
            digits = name[cut:]
            value = int(digits) if len(digits) <= 20 else -1
            for lo, hi, width in spans:
                if lo <= value <= hi and f"{value:0{width}d}" == digits:
                    return True
        return False
