"""JSON text exactly as the reference's jansson ``json_dumps(..., JSON_INDENT(0))`` prints it."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["dumps"]

# An escaped backslash (skipped) or a \u00xx escape (hex digits upper-cased, as jansson prints).
_ESCAPE = re.compile(r"\\\\|\\u00[0-9a-f]{2}")


def _upper_escape(match: re.Match[str]) -> str:
    text = match.group(0)
    return text if text == "\\\\" else text[:4] + text[4:].upper()


def dumps(obj: Any) -> str:
    """``obj`` as one line of JSON in jansson's ``JSON_INDENT(0)`` style (no trailing newline).

    Separators ``", "`` and ``": "``, keys in insertion order, non-ASCII and DEL raw, control
    characters as ``\\uXXXX`` with upper-case hex digits, ``/`` unescaped. NaN and infinities
    raise :class:`ValueError` (jansson cannot represent them either).

    Examples
    --------
    >>> dumps({"a": [1, "x\\x1b/é"], "b": {}, "c": []})
    '{"a": [1, "x\\\\u001B/é"], "b": {}, "c": []}'
    """
    text = json.dumps(obj, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)
    return _ESCAPE.sub(_upper_escape, text) if "\\u00" in text else text
