"""API v2: stock Tastypie ``ModelResource`` over ``django.contrib.auth``.

The article's resources (built by :func:`example_project.showcase.apis.build_api`):
``auth/user`` with its ``user_permissions`` and ``auth/permission``, filtering on
every field, ordering on the usual ones, reads open to anyone, writes with an API key.
"""

from tastypie.resources import ModelResource

from example_project.showcase.apis import build_api
from example_project.showcase.tutorial import tutorial_resources

api = build_api("v2", ModelResource)
for resource in tutorial_resources(ModelResource):
    api.register(resource)
