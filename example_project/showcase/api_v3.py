"""API v3: the same resources on ``DjonyResource``, in the 2013 spelling.

Compared with :mod:`.api_v2` only the base class changes, plus the two
spellings the 2013 code used and that keep working: ``Meta.object_model``
instead of ``Meta.queryset`` and ``SetField`` instead of ``ToManyField``.
"""

from example_project.showcase.apis import build_api
from example_project.showcase.tutorial import tutorial_resources
from tastypie_djony.resources import DjonyResource

api = build_api("v3", DjonyResource, spelling="2013")
for resource in tutorial_resources(DjonyResource):
    api.register(resource)
