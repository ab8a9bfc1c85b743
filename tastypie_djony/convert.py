"""The one conversion table: a model value -> what Tastypie's field and serializer make of it.

Tastypie turns a value into JSON in two steps: the field's ``convert`` (``CharField``:
``str``, ``DecimalField``: ``Decimal`` ...), which is what a ``dehydrate`` hook finds
in ``bundle.data``, then the serializer's ``to_simple`` (a ``Decimal`` becomes its
``str``, a ``datetime`` its ISO text).  Every serving path uses these functions:

* :func:`converter`: ``field.convert`` (the bundle path: values hooks may read);
* :func:`simple_converter`: ``to_simple(field.convert(value))`` fused (the row path);
* :func:`simple`: ``to_simple`` of already converted data, plain values without its
  type dispatch;
* :func:`render_json`: ``Serializer.to_json`` of simple data.

A field class not in :data:`CONVERSIONS` is converted by its own ``convert`` and
the serializer's own ``to_simple``: nothing here guesses.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.serializers import json as django_json
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpResponse
from django.utils import timezone
from tastypie import fields as tastypie_fields
from tastypie.bundle import Bundle
from tastypie.serializers import Serializer
from tastypie.utils.mime import build_content_type

#: ``field.convert`` of the stock fields whose conversion is one builtin.
CONVERSIONS: dict[type, Callable[[Any], Any]] = {
    tastypie_fields.CharField: str,
    tastypie_fields.IntegerField: int,
    tastypie_fields.FloatField: float,
    tastypie_fields.BooleanField: bool,
    tastypie_fields.DecimalField: Decimal,
}

#: The types ``to_simple`` returns as they are (``str`` through ``force_str``, which keeps it).
PLAIN = frozenset({str, int, float, bool, type(None)})


def converter(field: Any) -> Callable[[Any], Any]:
    """``field.convert``: the value a hook finds in ``bundle.data``."""
    return CONVERSIONS.get(type(field), field.convert)


def simple_converter(field: Any, serializer: Serializer) -> Callable[[Any], Any]:
    """``serializer.to_simple(field.convert(value))``, specialised for the common types."""
    convert = CONVERSIONS.get(type(field))
    if convert is Decimal:
        return lambda value: str(Decimal(value))  # to_simple(Decimal) is its str
    if convert is not None:
        return convert  # to_simple keeps str, int, float and bool as they are
    generic = lambda value: serializer.to_simple(field.convert(value), None)  # noqa: E731
    if type(field) is tastypie_fields.DateTimeField and writes_iso_datetimes(serializer):

        def iso_datetime(value: Any) -> Any:
            if type(value) is not datetime.datetime:
                return generic(value)
            return iso_datetime_text(value)

        return iso_datetime
    return generic


def writes_iso_datetimes(serializer: Serializer) -> bool:
    """Whether ``serializer`` writes a ``datetime`` as Tastypie's own ``format_datetime``
    does by default (ISO 8601, aware values in the default time zone, made naive)."""
    own = vars(serializer)
    return (
        type(serializer).format_datetime is Serializer.format_datetime
        and serializer.datetime_formatting == "iso-8601"
        and "format_datetime" not in own
        and "to_simple" not in own
    )


def iso_datetime_text(value: datetime.datetime) -> str:
    """Tastypie's ``format_datetime`` of an exact ``datetime`` in ``iso-8601``: an aware
    value in the default time zone, naive, then ``isoformat()``.

    In a default zone that is UTC at every instant, a value at offset zero (what Django
    reads from the database) already shows that zone's wall time."""
    zone, utc = _ZONE if _ZONE else _default_zone()
    if zone is not None:
        offset = value.utcoffset()
        if offset is not None:
            if offset or not utc:
                value = value.astimezone(zone)
            value = value.replace(tzinfo=None)
    return value.isoformat()


#: The default time zone when ``USE_TZ`` (else ``None``) and whether it is UTC at every
#: instant, read once per settings.
_ZONE: list[Any] = []

#: The names of the zones that are UTC at every instant (``datetime.timezone.utc`` is too).
UTC_NAMES = frozenset({"UTC", "Etc/UTC", "Etc/Universal", "Universal", "Etc/Zulu", "Zulu"})


def _default_zone() -> list[Any]:
    zone = timezone.get_default_timezone() if settings.USE_TZ else None
    utc = zone is datetime.timezone.utc or getattr(zone, "key", None) in UTC_NAMES
    _ZONE[:] = [zone, utc]
    return _ZONE


@receiver(setting_changed)
def _forget_zone(*, setting: str, **kwargs: Any) -> None:
    """A changed ``TIME_ZONE`` or ``USE_TZ`` (``override_settings``) is read again."""
    if setting in ("TIME_ZONE", "USE_TZ"):
        _ZONE.clear()


def simple(data: Any, serializer: Serializer, options: Any = None) -> Any:
    """``serializer.to_simple(data, options)``; plain values without its type dispatch.

    Exact ``str``/``int``/``float``/``bool``/``None`` come back as they are, exact
    ``dict``/``list``/``tuple`` and bundles are walked here; any other value (a
    ``datetime``, a ``Decimal``, a subclass of anything) is the serializer's.
    """
    kind = type(data)
    if kind in PLAIN:
        return data
    if kind is dict:
        return _simple_items(data, serializer, options)
    if kind is list or kind is tuple:
        return [item if type(item) in PLAIN else simple(item, serializer, options) for item in data]
    if isinstance(data, Bundle):  # as to_simple walks it
        return _simple_items(data.data, serializer, options)
    if (
        kind is datetime.datetime
        and type(serializer).to_simple is Serializer.to_simple
        and writes_iso_datetimes(serializer)
    ):
        return iso_datetime_text(data)
    return serializer.to_simple(data, options)


def _simple_items(data: dict, serializer: Serializer, options: Any) -> dict:
    return {
        key: value if type(value) in PLAIN else simple(value, serializer, options)
        for key, value in data.items()
    }


def render_json(data: Any) -> str:
    """What ``Serializer.to_json`` writes for data that is already simple."""
    return django_json.json.dumps(
        data, cls=django_json.DjangoJSONEncoder, sort_keys=True, ensure_ascii=False
    )


def json_response(
    body: str, response_class: type[HttpResponse] = HttpResponse, **response_kwargs: Any
) -> HttpResponse:
    """The answer ``create_response`` gives for a JSON ``body`` (its content type)."""
    return response_class(
        content=body, content_type=build_content_type("application/json"), **response_kwargs
    )
