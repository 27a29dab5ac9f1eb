"""JSON text as the reference's jansson-based JGF reader parses it: an object or array at the
top, int64 integers, no constants, and jansson's error messages with line and column."""

from __future__ import annotations

import json
from typing import Any

from fluxgraph.errors import ReaderError
from fluxgraph.limits import parse_digits
from fluxgraph.readers._unicode import unicode_problem

__all__ = ["INT64_MAX", "INT64_MIN", "int64_or_none", "loads"]

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def int64_or_none(text: str) -> int | None:
    """The int64 value of ``[+-]digits``, or ``None`` when out of range (any length)."""
    negative = text[:1] == "-"
    magnitude = parse_digits(text.lstrip("+-"), -INT64_MIN if negative else INT64_MAX)
    if magnitude is None:
        return None
    return -magnitude if negative else magnitude


def _int64(text: str) -> int:
    value = int64_or_none(text)
    if value is None:
        kind = "negative " if text[:1] == "-" else ""
        shown = text if len(text) <= 64 else text[:64]
        raise ValueError(f"too big {kind}integer near '{shown}'")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"invalid token near '{name}'")


def _token_position(text: str) -> tuple[str, int, int]:
    """jansson's view of the first token: its text (``""`` at end of input), line, column."""
    line, col, i = 1, 0, 0
    n = len(text)
    while i < n and text[i] in " \t\n\r":
        if text[i] == "\n":
            line, col = line + 1, 0
        else:
            col += 1
        i += 1
    if i == n:
        return "", line, col
    j = i + 1
    if text[i].isascii() and text[i].isalpha():
        while j < n and text[j].isascii() and text[j].isalpha():
            j += 1
    elif text[i] in "-0123456789":
        while j < n and text[j] in "0123456789.eE+-":
            j += 1
    return text[i:j], line, col + (j - i)


def _parse_json(text: str, source: str) -> Any:
    def fail(problem: str, line: int, col: int) -> ReaderError:
        return ReaderError(
            f"{source}: not JSON: {problem} (line {line}, column {col})",
            reference_message=(
                f"fetch_jgf: json_loads returned an error: {problem}: <string>@{line}:{col}.\n"
            ),
        )

    token, line, col = _token_position(text)
    if token not in ("[", "{"):
        near = f"near '{token}'" if token else "near end of file"
        raise fail(f"'[' or '{{' expected {near}", line, col)
    try:
        doc = json.loads(text, parse_int=_int64, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        bad = unicode_problem(text[: err.pos])  # jansson stops at whichever comes first
        if bad is not None:
            raise _unicode_failure(fail, text, bad) from None
        raise fail(err.msg, err.lineno, err.colno) from err
    except (ValueError, RecursionError) as err:
        raise fail(str(err), 1, 0) from err
    bad = unicode_problem(text)
    if bad is not None:
        raise _unicode_failure(fail, text, bad)
    return doc


def _unicode_failure(fail, text: str, bad: tuple[str, int]) -> ReaderError:
    message, offset = bad
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return fail(message, line, col)


def loads(text: str, source: str = "<string>") -> Any:
    """Parse the JSON text ``text`` as the reference's jansson-based reader does.

    Raises
    ------
    ReaderError
        If ``text`` is not a JSON object or array (``fetch_jgf: json_loads ...`` message).
    """
    return _parse_json(text, source)
