"""The corpus's two APIs: every topic's resources built on ``ModelResource``
(``/patterns/v2/``, the reference) and on ``DjonyResource`` (``/patterns/v3/``)."""

from __future__ import annotations

from tastypie.api import Api
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tests.patterns.resources import (
    behaviour,
    caching,
    generic,
    keys,
    ownership,
    querysets,
    relations,
    validation,
    writes,
)

TOPICS = (behaviour, relations, ownership, validation, caching, generic, querysets, writes, keys)


def build_api(api_name: str, base: type) -> Api:
    api = Api(api_name=api_name)
    for topic in TOPICS:
        for resource in topic.build(base):
            api.register(resource())
    return api


APIS = {"v2": build_api("v2", ModelResource), "v3": build_api("v3", DjonyResource)}
