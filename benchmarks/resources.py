"""The benchmark's extra variants of the example API (built by
:func:`example_project.showcase.apis.build_api`, like v2 and v3).

* ``v2p``: ``ModelResource`` with ``prefetch_related`` (the usual fix for
  ModelResource's query per object), and Tastypie's tutorial resources on the
  querysets with ``select_related``/``prefetch_related``
  (:mod:`example_project.showcase.tutorial`);
* ``v3q``: ``DjonyResource`` in the drop-in spelling (``Meta.queryset`` and
  stock ``ToManyField``), beside the example's 2013-spelling ``v3``.

``v2ps``/``v3qs`` are the same with Tastypie's ``max_limit`` (1000) lifted, so
that ``?limit=0`` returns every user in the scaling run.
"""

from django.contrib.auth.models import User
from tastypie.resources import ModelResource

from example_project.showcase.apis import build_api
from example_project.showcase.tutorial import tutorial_resources
from tastypie_djony.resources import DjonyResource

prefetching = build_api(
    "v2p", ModelResource, users=User.objects.prefetch_related("user_permissions")
)
drop_in = build_api("v3q", DjonyResource)
for resource in tutorial_resources(ModelResource, prefetch=True):
    prefetching.register(resource)
prefetching_unlimited = build_api(
    "v2ps", ModelResource, users=User.objects.prefetch_related("user_permissions"), max_limit=None
)
drop_in_unlimited = build_api("v3qs", DjonyResource, max_limit=None)
