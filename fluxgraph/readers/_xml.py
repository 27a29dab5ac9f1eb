"""The one place fluxgraph parses XML: hardened against entity and DTD attacks."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from fluxgraph.errors import ReaderError

__all__ = ["parse_xml"]


def parse_xml(text: str | bytes, source: str = "<string>") -> ET.Element:
    """Parse ``text`` and return its root element, refusing DTDs and entity declarations.

    Raises
    ------
    ReaderError
        If the text is not well-formed XML or declares a DTD or entities; the message names
        ``source`` and the parser's line and column.

    Examples
    --------
    >>> parse_xml("<graphml><key id='k'/></graphml>").tag
    'graphml'
    """
    try:
        return SafeET.fromstring(text, forbid_dtd=True, forbid_entities=True)
    except DefusedXmlException as err:
        raise ReaderError(f"{source}: refused unsafe XML ({err})") from err
    except ET.ParseError as err:
        raise ReaderError(f"{source}: malformed XML: {err}") from err
