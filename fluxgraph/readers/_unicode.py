"""The one check that JSON text holds only real Unicode, as jansson requires.

Python's ``json`` accepts an unpaired surrogate escape (``"\\ud800"``) and, in ``str`` text read
with ``surrogateescape``, the lone surrogates that stand for undecodable bytes; both would become
vertex names or properties that no UTF-8 stream can write. jansson (the reference's JSON library)
refuses both, with the messages this module reproduces.
"""

from __future__ import annotations

import re

__all__ = ["unicode_problem"]

# A backslash pair is skipped as a whole, so ``\u`` is matched only where it is an escape.
_ESCAPE = re.compile(r"\\\\|\\u([dD][89a-fA-F][0-9a-fA-F]{2})")


def unicode_problem(text: str) -> tuple[str, int] | None:
    """``(jansson's message, offset)`` of the first invalid character or escape, else ``None``.

    Examples
    --------
    >>> unicode_problem('{"a": "\\\\ud83d\\\\ude00"}') is None
    True
    >>> unicode_problem('{"a": "x\\\\ud800"}')
    ("invalid Unicode '\\\\uD800'", 8)
    >>> unicode_problem('{"a": "\\\\\\\\ud800"}') is None
    True
    """
    if not text.isascii():
        for i, ch in enumerate(text):
            if "\ud800" <= ch <= "\udfff":
                if "\udc80" <= ch <= "\udcff":  # an undecodable byte (surrogateescape)
                    return f"unable to decode byte 0x{ord(ch) - 0xDC00:x}", i
                return f"invalid Unicode character U+{ord(ch):04X}", i
    if "\\u" not in text:
        return None
    pending = -1  # offset of a high surrogate escape waiting for its low half
    for m in _ESCAPE.finditer(text):
        code = m.group(1)
        if code is None:
            if pending >= 0:
                break
            continue
        value = int(code, 16)
        if value < 0xDC00:  # high half
            if pending >= 0:
                break
            pending = m.start()
        elif pending >= 0 and m.start() == pending + 6:
            pending = -1
        elif pending >= 0:
            break
        else:
            return f"invalid Unicode '\\u{code.upper()}'", m.start()
    if pending >= 0:
        return f"invalid Unicode '\\u{text[pending + 2 : pending + 6].upper()}'", pending
    return None
