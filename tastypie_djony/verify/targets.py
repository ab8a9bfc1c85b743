"""One resource of the URLconf on its way to be compared: its list URI, its twin, its sides.

Each step is a method that raises when the resource cannot go on (an
:class:`~tastypie_djony.verify.trouble.Unverifiable` with the reason, or
whatever the project's code raised), so the command can enter that resource
as not compared and go on with the others
(:meth:`~tastypie_djony.verify.trouble.Ledger.keep`).
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any

from django.urls import Resolver404, resolve
from tastypie.resources import Resource

from tastypie_djony.verify import discovery, namespaces, verdict
from tastypie_djony.verify.generation import Request
from tastypie_djony.verify.running import Side
from tastypie_djony.verify.trouble import Unverifiable
from tastypie_djony.verify.twins import Twins


@dataclass(eq=False)
class Target:
    """A mounted resource and what the command has made of it so far."""

    resource: Resource
    uri: str = ""  # its list URI
    stand_in: Any = None  # its twin, mounted in the twins' URLconf
    sides: list[Side] = field(default_factory=list)  # the original first, the twin second
    requests: list[Request] = field(default_factory=list)
    #: The namespace path its list URL is mounted under ("": none; None: no list URL found).
    namespace: str | None = None
    #: Whether ``get_resource_uri()`` is ``''`` and the list URI was reversed through
    #: ``namespace`` instead (:mod:`.namespaces`).
    uris_empty: bool = False

    @property
    def name(self) -> str:
        return type(self.resource).__name__

    @property
    def base(self) -> str:
        return discovery.base_name(self.resource)

    def read_uri(self) -> None:
        """The list URI: ``get_resource_uri()`` or, when that is ``''``, the URI the list
        URL has where it is mounted (:func:`.namespaces.list_uri`)."""
        self.uri = self.resource.get_resource_uri()
        if not self.uri and self.namespace is not None:
            self.uri = namespaces.list_uri(self.resource, self.namespace)
            self.uris_empty = True

    def uris_note(self) -> str | None:
        """Why the resource's URIs are ``''`` on both sides, if they are."""
        if not self.uris_empty or self.namespace is None:
            return None
        return namespaces.note(self.resource, self.uri, self.namespace)

    def check_reachable(self) -> None:
        """Raise :class:`Unverifiable` unless the list URI reaches this resource."""
        why = verdict.unreachable(self.resource, self.uri)
        if why is not None:
            raise Unverifiable(why)

    def build_twin(self, twins: Twins) -> None:
        self.stand_in = twins.instance(self.resource)

    def mount(self, urlconf: types.ModuleType) -> None:
        """The two sides; raise :class:`Unverifiable` unless the twins' ``urlconf`` serves
        the list URI with the twin (otherwise both sides would be the original)."""
        try:
            match = resolve(self.uri, urlconf)
        except Resolver404:
            raise Unverifiable(
                f"its list URI {self.uri} resolves to no view among the twins"
            ) from None
        owner = getattr(discovery.tastypie_view(match.func), "owner", None)
        if not verdict.is_served_by(owner, self.stand_in):
            raise Unverifiable(
                f"its list URI {self.uri} is not served by its twin in the twins' URLconf "
                "(a URL pattern djony_verify cannot copy?)"
            )
        other = "ModelResource" if self.base == "DjonyResource" else "DjonyResource"
        self.sides = [Side(self.base), Side(other, urlconf)]
