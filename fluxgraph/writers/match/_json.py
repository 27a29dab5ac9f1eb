"""JSON text exactly as the reference's jansson ``json_dumps(..., JSON_INDENT(0))`` prints it."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["dumps"]

# An escaped backslash or a \u00xx escape; only the latter has its hex digits upper-cased.
_ESCAPE = re.compile(r"\\\\|\\u00[0-9a-f]{2}")


def _upper(match: re.Match[str]) -> str:
    text = match.group(0)
    return text if text == "\\\\" else text[:4] + text[4:].upper()


def dumps(obj: Any) -> str:
    """One-line JSON with ``", "``/``": "`` separators, raw UTF-8 and ``\\u001B``-style escapes.

    Examples
    --------
    >>> dumps({"a": [1, "x\\x1b"], "b": {}})
    '{"a": [1, "x\\\\u001B"], "b": {}}'
    """
    text = json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))
    return _ESCAPE.sub(_upper, text) if "\\u00" in text else text
