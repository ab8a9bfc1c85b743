"""Request bodies Tastypie's serializer cannot read, told as a 400.

Tastypie's ``Serializer`` parses JSON, XML, YAML and plist.  Its JSON parser
answers a malformed body with ``BadRequest``; the others let their parser's
error through (a 500) or answer with an empty message.  ``unreadable_body``
words the parser's reason for a client (its first line, no Python reprs).
"""

from __future__ import annotations

PARSER_ERRORS: tuple[type[BaseException], ...] = ()

try:
    import yaml
except ImportError:  # pragma: no cover (Tastypie makes YAML optional)
    pass
else:
    PARSER_ERRORS += (yaml.YAMLError,)

try:
    import biplist
except ImportError:  # pragma: no cover (Tastypie makes plist optional)
    pass
else:
    PARSER_ERRORS += (biplist.InvalidPlistException, biplist.NotBinaryPlistException)

try:
    from defusedxml.common import DefusedXmlException
    from lxml.etree import LxmlError
except ImportError:  # pragma: no cover (Tastypie makes XML optional)
    pass
else:
    PARSER_ERRORS += (LxmlError, DefusedXmlException)


def unreadable_body(exc: BaseException) -> str:
    """The 400 message for a body the parser refused with ``exc``."""
    if isinstance(exc, RecursionError):
        reason = "it is nested too deep"
    elif isinstance(exc, UnicodeError):
        reason = "it is not valid UTF-8"
    else:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        reason = "; ".join(lines[:2]) or type(exc).__name__
    return f"The request body could not be read: {reason}."
