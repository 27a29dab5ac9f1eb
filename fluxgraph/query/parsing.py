"""The commands' shared argument handling: C number parsing, the malformed-command line and
reading an input file (io-and-cli-semantics.md §7.5)."""

from __future__ import annotations

from errno import EFBIG

from fluxgraph.limits import MAX_INPUT_BYTES, parse_digits, read_text
from fluxgraph.query.repl import Session

__all__ = ["malformed", "read_input", "strtoll", "strtoull"]

_INT64 = (-(2**63), 2**63 - 1)


def strtoll(text: str) -> int:
    """C ``strtoll(text, NULL, 10)``: leading blanks, sign, digits; 0 if none; clamped.

    Examples
    --------
    >>> strtoll(" 42abc"), strtoll("x"), strtoll("-7"), strtoll("99999999999999999999")
    (42, 0, -7, 9223372036854775807)
    """
    s = text.lstrip(" \t\n\v\f\r")
    sign = -1 if s[:1] == "-" else 1
    if s[:1] in ("+", "-"):
        s = s[1:]
    digits = len(s) - len(s.lstrip("0123456789"))
    magnitude = parse_digits(s[:digits], 2**63)  # None: beyond any int64, clamped below
    value = sign * (2**63 if magnitude is None else magnitude)
    return min(max(value, _INT64[0]), _INT64[1])


def strtoull(text: str) -> int:
    """C ``strtoull``: like :func:`strtoll` but a negative value wraps modulo 2**64."""
    s = text.lstrip(" \t\n\v\f\r")
    sign = -1 if s[:1] == "-" else 1
    if s[:1] in ("+", "-"):
        s = s[1:]
    digits = len(s) - len(s.lstrip("0123456789"))
    value = parse_digits(s[:digits], 2**64 - 1)
    value = 2**64 - 1 if value is None else value
    return (sign * value) % 2**64


def malformed(s: Session, suffix: str = "") -> int:
    """Print ``ERROR: malformed command`` (plus ``suffix``); the session goes on (0)."""
    s.stderr_lines("ERROR: malformed command" + suffix)
    return 0


def read_input(s: Session, path: str, limit: int | None = None) -> str | None:
    """The file's text, or ``None`` after printing ``ERROR: can't open <path>`` (or, for a file
    larger than ``limit`` bytes (default :data:`~fluxgraph.limits.MAX_INPUT_BYTES`),
    ``ERROR: can't read <path>: File too large ...``)."""
    try:
        return read_text(path, MAX_INPUT_BYTES if limit is None else limit)
    except OSError as err:
        if err.errno == EFBIG:
            s.stderr_lines(f"ERROR: can't read {path}: {err.strerror}")
        else:
            s.stderr_lines(f"ERROR: can't open {path}")
        return None
