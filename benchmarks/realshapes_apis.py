"""The real-world shapes' Tastypie APIs (:mod:`example_project.showcase.realshapes`).

``shapes-v2`` ModelResource, ``shapes-v2p`` ModelResource with ``select_related`` /
``prefetch_related``, ``shapes-v3`` DjonyResource, ``shapes-v3p`` DjonyResource on those
querysets: the same resource classes, only the base class (and the prefetching
querysets) differ.
"""

from tastypie.api import Api
from tastypie.resources import ModelResource

from example_project.showcase.realshapes.resources import shape_resources
from tastypie_djony.resources import DjonyResource


def _api(name: str, base: type, prefetch: bool = False) -> Api:
    api = Api(api_name=name)
    for resource in shape_resources(base, prefetch):
        api.register(resource)
    return api


modelresource = _api("shapes-v2", ModelResource)
prefetching = _api("shapes-v2p", ModelResource, prefetch=True)
djony = _api("shapes-v3", DjonyResource)
djony_prefetching = _api("shapes-v3p", DjonyResource, prefetch=True)
APIS = [modelresource, prefetching, djony, djony_prefetching]
