"""A detail's ``DjangoAuthorization``, answered from the model class alone.

Tastypie's ``DjangoAuthorization.read_detail(object_list, bundle)`` reads
``bundle.obj`` only for its class: ``perm_obj_checks`` passes ``obj.__class__`` to
``base_checks`` and builds the permission name (``<app_label>.change_<model>``) from
that class's ``_meta``; the stock ``check_user_perm`` asks ``user.has_perm(permission)``
and ignores the object.  A found object of a DjonyResource's object list is an object
of the list's model, so when none of those methods (nor the resource's
``authorized_read_detail``) is overridden, the answer is known without building the
object (:func:`tastypie_djony.stock.detail_authorization` decides that):
:func:`authorize_read_detail` asks the same methods of the authorization, with
the model class.  Any override (an object permission backend through
``check_user_perm``, a ``read_detail`` of your own) gets the real object as before.
The user's permissions are read as ``authorized_read_detail`` reads them
(:mod:`tastypie_djony.permissions`).
"""

from __future__ import annotations

from typing import Any

from tastypie.compat import get_module_name
from tastypie.exceptions import Unauthorized

from tastypie_djony.permissions import read_permissions


def authorize_read_detail(resource: Any, request: Any, model: type) -> None:
    """``resource.authorized_read_detail`` for a found object of ``model``, without it.

    As ``perm_obj_checks(request, READ_PERM_CODE, obj)`` with ``obj.__class__`` being
    ``model``; a refusal is ``resource.unauthorized_result`` (a 401), as there.
    """
    authorization = resource._meta.authorization
    try:
        klass = authorization.base_checks(request, model)
        if klass is False:
            raise Unauthorized("You are not allowed to access that resource.")
        permission = (
            f"{klass._meta.app_label}.{authorization.READ_PERM_CODE}_{get_module_name(klass._meta)}"
        )
        read_permissions(authorization, "read_detail", request)
        # The stock check_user_perm ignores its object: user.has_perm(permission).
        if not authorization.check_user_perm(request.user, permission, None):
            raise Unauthorized("You are not allowed to access that resource.")
    except Unauthorized as error:
        resource.unauthorized_result(error)
