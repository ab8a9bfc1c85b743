"""Request bodies Tastypie cannot read or write, told as a 400.

Tastypie's ``Serializer`` parses JSON, XML, YAML and plist.  Its JSON parser
answers a malformed body with ``BadRequest``; the others let their parser's
error through (a 500) or answer with an empty message.  ``unreadable_body``
words the parser's reason for a client (its first line, no Python reprs).
:class:`BodiesMixin` answers bodies that parse but are no object of fields, or
are nested too deep to be written, with a 400 (Tastypie: a 500).
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction
from tastypie.exceptions import BadRequest

from djony.serving import write_alias

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


#: A body nested deeper than this that exhausts the stack while it is written is the
#: client's (a 400); a shallower one is the server's bug (its RecursionError stays a 500).
MAX_BODY_DEPTH = 32

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def body_depth(body: bytes | str) -> int:
    """How deep ``[``/``{`` nest in a JSON text, outside strings (other formats: 0)."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _kind(value: object) -> str:
    """A JSON name for what a body holds where an object belongs."""
    if value is None:
        return "null"
    names = {str: "a string", list: "a list", int: "a number", float: "a number", bool: "a boolean"}
    return names.get(type(value), "a value that is not an object")


class BodiesMixin:
    """Write bodies Tastypie answers with a 500, answered with a 400 saying why.

    * A body that is not an object of fields (a JSON string, list, number,
      ``null``), a list body whose ``objects`` are not a list of objects, or a
      bundle made of such a value: Tastypie reads it as a dict, which fails for some
      resources (``AttributeError``, ``TypeError``: a 500) and not for others
      (``"name" in "str"`` is false: a row of defaults, a 201).  Where it fails,
      the answer is a 400; where it does not, it stays ModelResource's.
    * A body nested so deep (``{"mentor": {"mentor": ...}}``, 400 levels) that
      hydrating its nested resources exhausts the stack (``RecursionError``).
    * A nested object's ``resource_uri`` that is not a string (``{"resource_uri": 3}``:
      Tastypie calls ``startswith`` on it, an ``AttributeError``).
    """

    def get_via_uri(self, uri, request=None):
        if not isinstance(uri, str):
            raise BadRequest(
                f"A resource_uri must be a URI of this API (a string), got {_kind(uri)}."
            )
        return super().get_via_uri(uri, request=request)

    def deserialize(self, request, data, format="application/json"):
        deserialized = super().deserialize(request, data, format=format)
        if request is not None and getattr(request, "method", "GET") not in SAFE_METHODS:
            if not isinstance(deserialized, Mapping):
                _note(request, deserialized)
            else:
                objects = deserialized.get(self._meta.collection_name)
                if objects is not None and not isinstance(objects, list):
                    _note(request, objects)
                for item in objects if isinstance(objects, list) else ():
                    if not isinstance(item, Mapping):
                        _note(request, item)
        return deserialized

    def build_bundle(self, obj=None, data=None, request=None, objects_saved=None, via_uri=None):
        if data is not None and not isinstance(data, Mapping):
            _note(request, data)  # what alter_deserialized_*_data made of the body
        return super().build_bundle(
            obj=obj, data=data, request=request, objects_saved=objects_saved, via_uri=via_uri
        )

    def dispatch(self, request_type, request, **kwargs):
        try:
            if _json_body_not_an_object(request):
                # Tastypie may save the row of defaults and then fail on the body (a 500
                # with the row kept): the whole request is one step, undone if it fails.
                with transaction.atomic(using=write_alias(self._meta.object_class)):
                    return super().dispatch(request_type, request, **kwargs)
            return super().dispatch(request_type, request, **kwargs)
        except RecursionError:
            if request.method in SAFE_METHODS:
                raise
            if body_depth(request.body) <= MAX_BODY_DEPTH:
                raise
            raise BadRequest(
                f"The request body is nested too deep to be written "
                f"(more than {MAX_BODY_DEPTH} levels of objects and lists)."
            ) from None
        except (AttributeError, TypeError, KeyError):
            kind = getattr(request, "_djony_not_an_object", None)
            if kind is None:
                raise
            raise BadRequest(not_an_object_message(kind)) from None


def require_object_body(deserialized) -> None:
    """Refuse (a 400) a body that is not an object of fields where one must be.

    A PATCH of one object asks here (Tastypie iterates the body's keys);
    :class:`BodiesMixin` tells the other cases with the same message.
    """
    if not isinstance(deserialized, Mapping):
        raise BadRequest(not_an_object_message(_kind(deserialized)))


def not_an_object_message(kind: str) -> str:
    """What a client reads when its body holds ``kind`` where an object of fields belongs."""
    return f"The request body must be an object of fields (JSON: {{...}}), got {kind}."


def _json_body_not_an_object(request) -> bool:
    """Whether ``request`` writes a JSON body that is not an object (``"str"``, ``[1]``, ``5``)."""
    if getattr(request, "method", "GET") in SAFE_METHODS:
        return False
    if "json" not in request.META.get("CONTENT_TYPE", "application/json"):
        return False
    body = request.body
    if isinstance(body, str):  # a test's request object may hold text
        body = body.encode()
    body = body.lstrip()
    return bool(body) and not body.startswith(b"{")


def _note(request, value) -> None:
    """Remember, on the request, that its body holds ``value`` where an object belongs."""
    if request is not None:
        request._djony_not_an_object = _kind(value)
