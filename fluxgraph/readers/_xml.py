"""The one place fluxgraph parses XML: hardened against entity and DTD attacks, undecodable
bytes, and documents too deep or too large for the readers that walk them."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from fluxgraph.errors import ReaderError

__all__ = ["MAX_XML_DEPTH", "MAX_XML_ELEMENTS", "parse_xml"]

#: Deepest element nesting accepted (GRUG recipes use 3 levels, hwloc topologies about 15).
MAX_XML_DEPTH = 256
#: Most elements accepted in one document (hwloc topologies of the largest nodes use ~10^4).
MAX_XML_ELEMENTS = 2_000_000


def parse_xml(text: str | bytes, source: str = "<string>") -> ET.Element:
    """Parse ``text`` and return its root element, refusing DTDs and entity declarations.

    ``str`` text must be real Unicode: a lone surrogate (what an undecodable byte becomes when a
    file is read with ``surrogateescape``) is malformed XML, as expat reports for invalid UTF-8.

    Raises
    ------
    ReaderError
        If the text is not well-formed XML, declares a DTD or entities, nests elements deeper
        than :data:`MAX_XML_DEPTH` or holds more than :data:`MAX_XML_ELEMENTS`; the message names
        ``source`` and the problem.

    Examples
    --------
    >>> parse_xml("<graphml><key id='k'/></graphml>").tag
    'graphml'
    """
    if isinstance(text, str) and not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as err:
            bad = text[err.start]
            what = f"byte 0x{ord(bad) - 0xDC00:02x}" if "\udc80" <= bad <= "\udcff" else repr(bad)
            raise ReaderError(
                f"{source}: malformed XML: {what} at offset {err.start} is not UTF-8"
            ) from None
    stream = io.StringIO(text) if isinstance(text, str) else io.BytesIO(text)
    depth = elements = 0
    root = None
    try:
        for event, elem in SafeET.iterparse(
            stream, events=("start", "end"), forbid_dtd=True, forbid_entities=True
        ):
            if event == "end":
                depth -= 1
                continue
            if root is None:
                root = elem
            depth += 1
            elements += 1
            if depth > MAX_XML_DEPTH:
                raise ReaderError(
                    f"{source}: XML elements nested deeper than {MAX_XML_DEPTH} levels"
                )
            if elements > MAX_XML_ELEMENTS:
                raise ReaderError(f"{source}: more than {MAX_XML_ELEMENTS} XML elements")
    except DefusedXmlException as err:
        raise ReaderError(f"{source}: refused unsafe XML ({err})") from err
    except ET.ParseError as err:
        raise ReaderError(f"{source}: malformed XML: {err}") from err
    if root is None:  # pragma: no cover - expat reports an empty document as a ParseError
        raise ReaderError(f"{source}: malformed XML: no element found")
    return root
