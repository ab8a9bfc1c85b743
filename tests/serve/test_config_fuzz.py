"""Configuration fuzzing: generated resource classes answer as ModelResource does.

Hypothesis draws resource configurations over the zoo (:mod:`tests.zoo.models`): the model,
``fields``/``excludes``, explicit fields with other attribute spellings, ``null``/``blank``/
``default`` combinations and ``use_in``, ``detail_uri_name`` (of the resource and of its
related resources), to-one and to-many fields with ``full``/``full_list``/``full_detail``,
paginators (one putting datetimes into ``meta``), ``limit``, authorization classes and
overridden ``authorized_read_*`` hooks, ``collection_name``, ``include_resource_uri`` and
``include_absolute_url``.  Each configuration is built three times (``ModelResource``,
``DjonyResource``, ``DjonyResource`` with ``Meta.fast_path = False``), mounted in a URLconf
of its own, and asked for its list, a page of it, two details and a missing one, in JSON and
XML.  Status, headers and bytes must be the same; with ``DJONY_VERIFY_FAST_PATH`` (on in the
test settings) every fast answer is also checked against the general path's.

Budget: the ``config-fuzz-ci`` profile (the default) runs a fixed set of
:data:`CI_EXAMPLES` derandomized examples, well under a minute on SQLite.  A longer run with
fresh configurations every time::

    DJONY_CONFIG_FUZZ=long python -m pytest tests/serve/test_config_fuzz.py -q

(``config-fuzz-long``: 2,000 examples; ``DJONY_CONFIG_FUZZ_EXAMPLES=N`` sets another number.)
"""

from __future__ import annotations

import datetime
import os
import types
from decimal import Decimal

import pytest
from django.test import override_settings
from django.urls import include, path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tastypie import fields
from tastypie.api import Api
from tastypie.authorization import Authorization, ReadOnlyAuthorization
from tastypie.exceptions import Unauthorized
from tastypie.fields import NOT_PROVIDED
from tastypie.paginator import Paginator
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tests.zoo.api import StampedPaginator
from tests.zoo.models import Animal, Badge, Bird, Caretaker, Habitat, Pet, Scribble, Zone
from tests.zoo.testing import zoo  # noqa: F401

pytestmark = pytest.mark.django_db

CI_EXAMPLES = 25
BASE = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    database=None,
)
settings.register_profile("config-fuzz-ci", max_examples=CI_EXAMPLES, derandomize=True, **BASE)
settings.register_profile("config-fuzz-long", max_examples=2000, **BASE)
PROFILE = settings.get_profile(
    "config-fuzz-long" if os.environ.get("DJONY_CONFIG_FUZZ") == "long" else "config-fuzz-ci"
)
if os.environ.get("DJONY_CONFIG_FUZZ_EXAMPLES"):
    PROFILE = settings(PROFILE, max_examples=int(os.environ["DJONY_CONFIG_FUZZ_EXAMPLES"]))

#: Tastypie's field class for each column type of the zoo.
FIELD_CLASS = {
    "CharField": fields.CharField,
    "TextField": fields.CharField,
    "SlugField": fields.CharField,
    "UUIDField": fields.CharField,
    "IntegerField": fields.IntegerField,
    "PositiveIntegerField": fields.IntegerField,
    "AutoField": fields.IntegerField,
    "BooleanField": fields.BooleanField,
    "DecimalField": fields.DecimalField,
    "DateTimeField": fields.DateTimeField,
}
DEFAULTS = {
    fields.CharField: ["", "anon"],
    fields.IntegerField: [0, 7],
    fields.BooleanField: [False, True],
    fields.DecimalField: [Decimal("1.50")],
    fields.DateTimeField: [datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)],
}


class Target:
    """A zoo model a resource (or a related resource) may sit on."""

    def __init__(self, model, unique=(), to_one=None, to_many=None, skip=()):
        self.model = model
        self.unique = ["pk", *unique]
        self.to_one = to_one or {}
        self.to_many = to_many or {}
        self.columns = [
            f
            for f in model._meta.concrete_fields
            if not f.is_relation and f.name not in skip and f.get_internal_type() in FIELD_CLASS
        ]


TARGETS = {
    "animal": Target(
        Animal,
        unique=["slug", "number"],
        to_one={"keeper": "keeper", "mother": "animal"},
        to_many={"labels": "label", "young": "animal", "habitats": "habitat", "notes": "note"},
    ),
    "pet": Target(Pet, unique=["slug"], to_one={"keeper": "keeper"}, to_many={"labels": "label"}),
    "bird": Target(
        Bird, unique=["number"], to_one={"keeper": "keeper"}, to_many={"labels": "label"}
    ),
    "keeper": Target(Caretaker, to_many={"animal_set": "animal", "favourites": "animal"}),
    "label": Target(Badge),
    "habitat": Target(Habitat, to_many={"animals": "animal"}),
    "zone": Target(Zone, unique=["code"]),
    "note": Target(Scribble, skip=("object_id",)),
}


@st.composite
def scalar_field(draw, column):
    kind = FIELD_CLASS[column.get_internal_type()]
    default = draw(st.sampled_from([NOT_PROVIDED, None, *DEFAULTS[kind]]))
    null = draw(st.booleans())
    options = {"null": null, "blank": draw(st.booleans()), "use_in": draw(USE_IN)}
    if default is not NOT_PROVIDED:
        options["default"] = default
    attribute = "pk" if column.primary_key and draw(st.booleans()) else column.name
    return kind, attribute, options


USE_IN = st.sampled_from(["all", "all", "list", "detail"])


@st.composite
def configuration(draw):
    name = draw(st.sampled_from(sorted(TARGETS)))
    target = TARGETS[name]
    columns = [c.name for c in target.columns]
    config = {"target": name, "meta": {}, "declared": {}, "related": {}}
    meta = config["meta"]
    choice = draw(st.sampled_from(["all", "fields", "excludes"]))
    if choice != "all":
        subset = draw(st.lists(st.sampled_from(columns), unique=True, max_size=len(columns)))
        meta[choice] = subset
    for column in draw(st.lists(st.sampled_from(target.columns), unique=True, max_size=3)):
        kind, attribute, options = draw(scalar_field(column))
        api_name = draw(st.sampled_from([column.name, f"x_{column.name}"]))
        config["declared"][api_name] = (kind, attribute, options)
    meta["detail_uri_name"] = draw(st.sampled_from(target.unique))
    for how, relations in (("one", target.to_one), ("many", target.to_many)):
        if not relations:
            continue
        picked = draw(st.lists(st.sampled_from(sorted(relations.items())), unique=True, max_size=2))
        for attribute, other in picked:
            config["related"][attribute] = (how, other, draw(relation_options()))
    config["related_key"] = {
        other: draw(st.sampled_from(TARGETS[other].unique))
        for _, other, _ in config["related"].values()
    }
    meta["paginator_class"] = draw(st.sampled_from([Paginator, StampedPaginator]))
    meta["limit"] = draw(st.sampled_from([20, 2]))
    meta["collection_name"] = draw(st.sampled_from(["objects", "items"]))
    meta["include_resource_uri"] = draw(st.booleans())
    meta["include_absolute_url"] = draw(st.booleans())
    meta["authorization"] = draw(st.sampled_from([Authorization, ReadOnlyAuthorization]))
    config["hooks"] = draw(st.sampled_from(["", "odd_detail_denied", "list_narrowed"]))
    return config


@st.composite
def relation_options(draw):
    full = draw(st.booleans())
    return {
        "null": True,
        "full": full,
        "full_list": draw(st.booleans()) if full else True,
        "full_detail": draw(st.booleans()) if full else True,
        "use_in": draw(USE_IN),
    }


def build(config: dict, base: type, fast_path: bool, api_name: str) -> Api:
    """The configuration as resource classes on ``base``, registered in an Api."""
    target = TARGETS[config["target"]]

    def meta(model, **options):
        attrs = {"queryset": model._default_manager.all(), **options}
        if not fast_path:
            attrs["fast_path"] = False
        return type("Meta", (), attrs)

    related_classes = {}
    for other, key in config["related_key"].items():
        related_classes[other] = type(
            f"Related{other.title()}Resource",
            (base,),
            {
                "Meta": meta(
                    TARGETS[other].model,
                    resource_name=f"r_{other}",
                    detail_uri_name=key,
                    authorization=ReadOnlyAuthorization(),
                )
            },
        )
    attrs = {}
    for name, (kind, attribute, options) in config["declared"].items():
        attrs[name] = kind(attribute=attribute, **options)
    for attribute, (how, other, options) in config["related"].items():
        field = fields.ToOneField if how == "one" else fields.ToManyField
        attrs[f"rel_{attribute}"] = field(related_classes[other], attribute, **options)
    meta_options = dict(config["meta"])
    meta_options["authorization"] = meta_options["authorization"]()
    attrs["Meta"] = meta(target.model, resource_name="fuzzed", **meta_options)
    if config["hooks"] == "odd_detail_denied":

        def authorized_read_detail(self, object_list, bundle):
            if str(bundle.obj.pk)[-1] in "13579":
                raise Unauthorized("odd")
            return base.authorized_read_detail(self, object_list, bundle)

        attrs["authorized_read_detail"] = authorized_read_detail
    elif config["hooks"] == "list_narrowed":

        def authorized_read_list(self, object_list, bundle):
            narrowed = object_list.exclude(**{f"{target.columns[-1].name}__isnull": True})
            return base.authorized_read_list(self, narrowed, bundle)

        attrs["authorized_read_list"] = authorized_read_list
    api = Api(api_name=api_name)
    api.register(type("FuzzedResource", (base,), attrs)())
    for cls in related_classes.values():
        api.register(cls())
    return api


KINDS = {"zm": (ModelResource, True), "zf": (DjonyResource, True), "zg": (DjonyResource, False)}


def urlconf(config: dict) -> types.ModuleType:
    module = types.ModuleType("fuzzed_urls")
    module.urlpatterns = [
        path("", include(build(config, base, fast, api_name).urls))
        for api_name, (base, fast) in KINDS.items()
    ]
    return module


def detail_keys(config: dict) -> list[str]:
    target = TARGETS[config["target"]]
    name = config["meta"]["detail_uri_name"]
    values = target.model._default_manager.values_list(name, flat=True)[:2]
    return [str(value) for value in values] + ["999999"]


def check_configuration(zoo, config: dict) -> None:  # noqa: F811
    with override_settings(ROOT_URLCONF=urlconf(config)):
        urls = ["fuzzed/", "fuzzed/?offset=1&limit=2"]
        if not any(callable(f.default) for f in TARGETS[config["target"]].model._meta.fields):
            urls.append("fuzzed/schema/")  # a callable default (uuid4) differs every time
        urls += [f"fuzzed/{key}/" for key in detail_keys(config)]
        for url in urls:
            for fmt in ("json", "xml"):
                full = url + ("&" if "?" in url else "?") + f"format={fmt}"
                try:
                    zoo.check(full)
                except AssertionError as exc:
                    raise AssertionError(f"GET {full}: {exc}") from None


def test_generated_resources_answer_as_modelresource(zoo):  # noqa: F811
    @PROFILE
    @given(config=configuration())
    def run(config):
        check_configuration(zoo, config)

    run()
