"""What ``--user`` sends so each resource's authentication lets that user in.

For every stock Tastypie authentication the resource uses:

* ``Authentication`` (anyone): nothing;
* ``SessionAuthentication``: the client's session login (with ``SessionMiddleware`` in
  use the command logs the user in once, for every resource: a hook reading
  ``request.user`` behind a plain ``Authentication`` sees the user too);
* ``BasicAuthentication``: ``Authorization: Basic user:<token of the run>``, which
  :class:`VerifyBackend` (put first in ``AUTHENTICATION_BACKENDS`` for the run) accepts;
  the user's password is never needed or changed;
* ``ApiKeyAuthentication``: ``Authorization: ApiKey user:<key>``, the user's key, or one
  created inside each request's rolled-back transaction when the user has none;
* ``MultiAuthentication``: the first of its backends that can be satisfied.

Any other class (a project's own) is asked through the hook given with
``--credentials path.to.function``: ``function(authentication, user)`` returns
the ``request.META`` entries that authenticate ``user`` (``{"HTTP_X_TOKEN": ...}``)
or ``None`` to let the stock rules above try.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.backends import ModelBackend
from tastypie.authentication import (
    ApiKeyAuthentication,
    Authentication,
    BasicAuthentication,
    MultiAuthentication,
    SessionAuthentication,
)

#: The password :class:`VerifyBackend` accepts during one run (random per process).
TOKEN = secrets.token_urlsafe(24)
BACKEND = "tastypie_djony.verify.credentials.VerifyBackend"

Hook = Callable[[Any, Any], "dict[str, str] | None"]


class VerifyBackend(ModelBackend):
    """Accepts ``--user`` with this run's :data:`TOKEN` as password (djony_verify only)."""

    user = None  # set by the command for the run

    def authenticate(self, request: Any, username: Any = None, password: Any = None, **kw: Any):
        user = type(self).user
        if user is None or password != TOKEN or username != user.get_username():
            return None
        return user if self.user_can_authenticate(user) else None


@dataclass
class Credentials:
    """How one resource's requests authenticate ``--user``."""

    meta: dict[str, str] = field(default_factory=dict)
    session: bool = False  # needs the client's session login
    api_key: bool = False  # needs an ApiKey row (created in the request's transaction)
    unknown: str = ""  # the authentication the command cannot satisfy, if any


def api_key_of(user: Any, using: str) -> str:
    """The user's ApiKey, or the key :func:`ensure_api_key` creates for the run."""
    from tastypie.models import ApiKey

    found = ApiKey.objects.using(using).filter(user=user).values_list("key", flat=True).first()
    return found or f"djony-verify-{TOKEN}"[:128]


def ensure_api_key(user: Any, using: str) -> None:
    """Give ``user`` the run's key if they have none (call inside a rolled-back transaction)."""
    from tastypie.models import ApiKey

    if not ApiKey.objects.using(using).filter(user=user).exists():
        ApiKey.objects.using(using).create(user=user, key=api_key_of(user, using))


def credentials(
    authentication: Any, user: Any, using: str, hook: Hook | None = None
) -> Credentials:
    """What a request must carry for ``authentication`` to let ``user`` in."""
    if hook is not None:
        meta = hook(authentication, user)
        if meta is not None:
            return Credentials(meta=dict(meta))
    name = user.get_username()
    if isinstance(authentication, MultiAuthentication):
        found = [credentials(b, user, using, hook) for b in authentication.backends]
        usable = [c for c in found if not c.unknown]
        if usable:
            return usable[0]
        return found[0] if found else Credentials(unknown=type(authentication).__name__)
    if isinstance(authentication, ApiKeyAuthentication):
        key = api_key_of(user, using)
        return Credentials(meta={"HTTP_AUTHORIZATION": f"ApiKey {name}:{key}"}, api_key=True)
    if isinstance(authentication, BasicAuthentication):
        if authentication.backend is not None:
            return Credentials(unknown=f"{type(authentication).__name__} with its own backend")
        token = base64.b64encode(f"{name}:{TOKEN}".encode()).decode()
        return Credentials(meta={"HTTP_AUTHORIZATION": f"Basic {token}"})
    if isinstance(authentication, SessionAuthentication):
        return Credentials(session=True)
    if type(authentication) is Authentication:
        return Credentials()
    return Credentials(unknown=type(authentication).__name__)
