"""Which plan serves a read request: the one place that decides it.

A plan serves a request when the resource lets plans serve it (``Meta.fast_path``,
default ``True``), the request asks for a format its serializer writes (a serializer of
the resource's own class is served by the bundle plan, whose values are the general
path's, written by that serializer), and a plan of that kind could be built for
the resource's page kind: built once per resource and kept (a refusal too, with its
reason, :func:`declined`).  A list page takes the row-built plan, else the bundle plan.
A detail takes the row-built plan when its authorization needs no object
(:func:`~tastypie_djony.stock.detail_authorization`: Tastypie's
``Authorization``/``ReadOnlyAuthorization``, or a stock ``DjangoAuthorization``, which needs
the model class only), else the bundle plan, whose authorization gets the found object
(built when read) as ``obj_get`` gives it; a detail whose resource keeps a cache
(``Meta.cache`` other than ``NoCache``) is Tastypie's own, its cache hooks included.
"""

from __future__ import annotations

from typing import Any

from tastypie.cache import NoCache

from tastypie_djony.declines import Declined
from tastypie_djony.serve.plans import BundlePlan, RowPlan
from tastypie_djony.stock import OBJECT, detail_authorization, plannable, request_format

#: The plan kinds, in the order a list page tries them.
KINDS = (RowPlan, BundlePlan)


def built(resource: Any, base: type, kind: type, for_list: bool) -> Any:
    """The plan of ``kind`` for ``resource``'s page kind, or its :class:`Declined` (kept)."""
    plans = resource.__dict__.setdefault("_djony_plans", {})
    key = (kind, for_list)
    if key not in plans:
        plans[key] = kind.build(resource, base, for_list=for_list)
    return plans[key]


def plan_for(resource: Any, base: type, kind: type, request: Any, for_list: bool) -> Any:
    """The plan of ``kind`` serving ``request``, or ``None`` (Tastypie's general path).

    Every format Tastypie's ``Serializer`` writes (JSON, JSONP, XML, YAML, plist): a plan
    gives Tastypie's page data, which the serializer writes as it writes the general
    path's (JSON straight from the simple values, :mod:`tastypie_djony.convert`).
    """
    if not plannable(resource):
        return None
    plan = built(resource, base, kind, for_list)
    if isinstance(plan, Declined):
        return None
    serializer = resource._meta.serializer
    if request_format(resource, request) not in served_formats(serializer):
        return None
    return plan


def served_formats(serializer: Any) -> frozenset[str]:
    """The content types ``serializer`` (Tastypie's own class) writes."""
    return frozenset(serializer.get_mime_for_format(name) for name in serializer.formats)


def list_plan(resource: Any, base: type, request: Any) -> Any:
    """The plan of a list page: row-built, else bundle, else ``None``."""
    return plan_for(resource, base, RowPlan, request, True) or plan_for(
        resource, base, BundlePlan, request, True
    )


def detail_choice(resource: Any, base: type, request: Any) -> tuple[Any, str]:
    """The plan of a detail (or ``None``), and what its authorization needs."""
    needs = detail_authorization(resource)
    if type(resource._meta.cache) is not NoCache:
        return None, needs
    if needs != OBJECT:
        plan = resource.list_plan(request, for_list=False)
        if plan is not None:
            return plan, needs
    return resource.bundle_plan(request, for_list=False), needs


def declined(resource: Any, base: type) -> dict[str, str]:
    """Why each plan kind does not serve each page kind of ``resource`` (empty: all do).

    Keys are ``"<plan> <page kind>"`` (``"row-built list"``, ``"bundle detail"`` ...); a
    resource with ``Meta.fast_path = False`` says so for every one.
    """
    names = {RowPlan: "row-built", BundlePlan: "bundle"}
    reasons = {}
    for kind in KINDS:
        for for_list, page in ((True, "list"), (False, "detail")):
            if not plannable(resource):
                reasons[f"{names[kind]} {page}"] = "Meta.fast_path = False"
                continue
            plan = built(resource, base, kind, for_list)
            if isinstance(plan, Declined):
                reasons[f"{names[kind]} {page}"] = plan.reason
    return reasons


def served_by(resource: Any, base: type) -> dict[str, str]:
    """Which path serves each page kind of ``resource``, and why the general path where it is.

    ``{"list": ..., "detail": ...}``: ``"the row-built plan"``, ``"the bundle plan"``, or
    ``"Tastypie's general path: <why>"`` naming the override, field or option that sends it
    there (for every format the resource's serializer writes).  A detail
    takes the row-built plan only when its authorization needs no object.
    """
    paths = {}
    for for_list, page in ((True, "list"), (False, "detail")):
        if not plannable(resource):
            paths[page] = "Tastypie's general path: Meta.fast_path = False"
            continue
        if not for_list and type(resource._meta.cache) is not NoCache:
            cache = type(resource._meta.cache).__name__
            paths[page] = f"Tastypie's general path: Meta.cache is a {cache}"
            continue
        row = built(resource, base, RowPlan, for_list)
        rows_may = for_list or detail_authorization(resource) != OBJECT
        if rows_may and not isinstance(row, Declined):
            paths[page] = "the row-built plan"
            continue
        bundle = built(resource, base, BundlePlan, for_list)
        if not isinstance(bundle, Declined):
            paths[page] = "the bundle plan"
        else:
            paths[page] = f"Tastypie's general path: {bundle.reason}"
    return paths
