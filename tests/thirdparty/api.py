"""The third-party models' resources, built on ``ModelResource`` (``/thirdparty/v2/``,
the reference) and on ``DjonyResource`` (``/thirdparty/v3/``), as projects write them:
hooks and authorization classes that hand ``bundle.obj`` (or ``self`` in a model
method) to Django's ORM, ``isinstance`` checks, to-many fields read through the
field's own manager."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q
from django.forms.models import model_to_dict
from taggit.models import Tag
from tastypie import fields
from tastypie.api import Api
from tastypie.authorization import Authorization
from tastypie.constants import ALL, ALL_WITH_RELATIONS
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tests.thirdparty.models import (
    HIDING_UNACCEPTED,
    Address,
    Category,
    Exercise,
    Pin,
    Place,
    Post,
    Product,
    Project,
    Routine,
    WeightEntry,
    Workout,
)


class OwnedByUser(Authorization):
    """Lists narrowed with ``Q(owner=user)``; details checked by handing the object to a filter."""

    def read_list(self, object_list, bundle):
        user = bundle.request.user
        if not user.is_authenticated:
            return object_list
        return object_list.filter(Q(owner=user) | Q(owner__in=[user]))

    def read_detail(self, object_list, bundle):
        obj = bundle.obj
        model = type(bundle.obj)._meta.model
        owners = User.objects.filter(pk=obj.owner.pk)
        return model.objects.filter(pk=obj.pk, owner__in=owners).exists()


def build(base: type) -> list[type]:
    class UserResource(base):
        class Meta:
            queryset = User.objects.all()
            resource_name = "user"
            fields = ["username"]
            filtering = {"username": ALL}

        def dehydrate(self, bundle):
            user = bundle.obj
            bundle.data["is_user"] = isinstance(user, User) and isinstance(user, models.Model)
            bundle.data["weights"] = WeightEntry.objects.filter(owner=user).count()
            bundle.data["workouts"] = Workout.objects.filter(owner__in=[user]).count()
            bundle.data["content_type"] = ContentType.objects.get_for_model(user).model
            bundle.data["as_dict"] = sorted(
                k for k, v in model_to_dict(user, fields=["username", "email"]).items()
            )
            return bundle

    class ExerciseResource(base):
        class Meta:
            queryset = Exercise.objects.all()
            resource_name = "exercise"

    class PinResource(base):
        submitter = fields.ToOneField(UserResource, "submitter")
        tags = fields.ListField()

        class Meta:
            queryset = Pin.objects.all()
            resource_name = "pin"
            authorization = Authorization()
            filtering = {"submitter": ALL_WITH_RELATIONS, "url": ALL}

        def dehydrate_tags(self, bundle):
            return [str(tag) for tag in bundle.obj.tags.all()]

        def dehydrate(self, bundle):
            bundle.data["is_pin"] = isinstance(bundle.obj, Pin)
            bundle.data["same_submitter"] = bundle.obj.same_submitter()
            bundle.data["tag_count"] = bundle.obj.tags.count()
            return bundle

        def hydrate(self, bundle):
            if not isinstance(bundle.obj, Pin):
                raise TypeError("not a Pin")
            return bundle

    class WorkoutResource(base):
        owner = fields.ToOneField(UserResource, "owner")
        exercises = fields.ToManyField(ExerciseResource, "exercises", null=True)
        full_exercises = fields.ToManyField(
            ExerciseResource, "exercises", full=True, null=True, readonly=True
        )

        class Meta:
            queryset = Workout.objects.all()
            resource_name = "workout"
            authorization = OwnedByUser()
            filtering = {"owner": ALL_WITH_RELATIONS, "title": ALL}
            ordering = ["title"]

        def dehydrate(self, bundle):
            workout = bundle.obj
            bundle.data["first"] = str(workout.exercises.first())
            bundle.data["names"] = list(workout.exercises.values_list("name", flat=True))
            bundle.data["same_owner"] = Workout.objects.filter(owner=workout.owner).count()
            return bundle

    class TagResource(base):
        class Meta:
            queryset = Tag.objects.all()
            resource_name = "tag"

    class TaggedResource(base):
        """Tags as a related field and in a hook: a constant number of queries per page."""

        tag_list = fields.ToManyField(TagResource, "tags", readonly=True)
        full_tags = fields.ToManyField(TagResource, "tags", full=True, readonly=True)

        class Meta:
            queryset = Pin.objects.all()
            resource_name = "tagged"

        def dehydrate(self, bundle):
            bundle.data["names"] = [str(tag) for tag in bundle.obj.tags.all()]
            bundle.data["count"] = bundle.obj.tags.count()
            return bundle

    class RoutineResource(base):
        """Exercises in the user's order, related and read in a hook, per page."""

        exercises = fields.ToManyField(ExerciseResource, "exercises", readonly=True)

        class Meta:
            queryset = Workout.objects.all()
            resource_name = "routine"

        def dehydrate(self, bundle):
            bundle.data["names"] = [str(e) for e in bundle.obj.exercises.all()]
            bundle.data["count"] = bundle.obj.exercises.count()
            return bundle

    class DrillResource(base):
        """Routines whose hooks look repetitions up with a model method (``self.reps.get``)
        and count relations behind managers of the project's own; anonymous requests
        hide what was not accepted (the managers' per-request scope, set in ``dispatch``)."""

        class Meta:
            queryset = Routine.objects.all()
            resource_name = "drill"
            ordering = ["title"]
            filtering = {"title": ALL}

        def dispatch(self, request_type, request, **kwargs):
            token = HIDING_UNACCEPTED.set(not request.user.is_authenticated)
            try:
                return super().dispatch(request_type, request, **kwargs)
            finally:
                HIDING_UNACCEPTED.reset(token)

        def dehydrate(self, bundle):
            routine = bundle.obj
            for kind in ("squat", "lunge"):
                try:
                    bundle.data[kind] = routine.reps_of(kind).count
                except routine.reps.model.DoesNotExist:
                    bundle.data[kind] = None
                except routine.reps.model.MultipleObjectsReturned:
                    bundle.data[kind] = "several"
            bundle.data["reps"] = routine.reps.count()
            bundle.data["warm"] = routine.warmups.exists()
            bundle.data["cool"] = routine.cooldowns.count()
            return bundle

    class CategoryResource(base):
        parent = fields.ToOneField("self", "parent", null=True)

        class Meta:
            queryset = Category.objects.all()
            resource_name = "category"
            authorization = Authorization()
            excludes = ["lft", "rght", "tree_id"]

        def dehydrate(self, bundle):
            category = bundle.obj
            bundle.data["children"] = [str(c) for c in category.get_children()]
            bundle.data["leaf"] = category.is_leaf_node()
            bundle.data["ancestors"] = [str(c) for c in category.get_ancestors()]
            return bundle

    class ProjectResource(base):
        class Meta:
            queryset = Project.objects.non_polymorphic().order_by("pk")
            resource_name = "project"
            excludes = ["polymorphic_ctype"]

        def dehydrate(self, bundle):
            bundle.data["real"] = bundle.obj.polymorphic_ctype.model
            bundle.data["is_project"] = isinstance(bundle.obj, Project)
            bundle.data["real_class"] = type(bundle.obj.get_real_instance()).__name__
            return bundle

    class RealProjectResource(base):
        """django-polymorphic's own queryset: each object is its real subclass's instance."""

        class Meta:
            queryset = Project.objects.order_by("pk")
            resource_name = "real_project"
            excludes = ["polymorphic_ctype"]

        def dehydrate(self, bundle):
            real = bundle.obj.get_real_instance()
            bundle.data["class"] = type(bundle.obj).__name__
            bundle.data["real_class"] = type(real).__name__
            bundle.data["same_row"] = real.pk == bundle.obj.pk
            bundle.data["is_base"] = type(bundle.obj) is Project
            return bundle

    class PostResource(base):
        author = fields.ToOneField(UserResource, "author")

        class Meta:
            queryset = Post.objects.all()
            resource_name = "post"
            authorization = Authorization()
            excludes = ["created", "modified"]

        def dehydrate(self, bundle):
            bundle.data["weights"] = [str(kg) for kg in bundle.obj.weight_entries()]
            bundle.data["status_display"] = bundle.obj.get_status_display()
            return bundle

    class PlaceResource(base):
        class Meta:
            queryset = Place.objects.all()
            resource_name = "place"

        def dehydrate(self, bundle):
            real = Place.objects.get_subclass(pk=bundle.obj.pk)
            bundle.data["kind"] = type(real).__name__
            return bundle

    class ProductResource(base):
        price = fields.CharField(readonly=True)  # Tastypie's DecimalField cannot convert Money

        class Meta:
            queryset = Product.objects.all()
            resource_name = "product"
            authorization = Authorization()

        def dehydrate_price(self, bundle):
            return str(bundle.obj.price)

        def dehydrate(self, bundle):
            bundle.data["amount"] = bundle.obj.price.amount
            bundle.data["currency"] = str(bundle.obj.price.currency)
            return bundle

    class AddressResource(base):
        owner = fields.ToOneField(UserResource, "owner")

        class Meta:
            queryset = Address.objects.all()
            resource_name = "address"
            authorization = Authorization()
            filtering = {"country": ALL}

        def dehydrate(self, bundle):
            bundle.data["country_name"] = bundle.obj.country.name
            return bundle

    class RetaggingResource(TaggedResource):
        """A field hook of the first pin that tags and untags the others through taggit."""

        url = fields.CharField("url")

        class Meta(TaggedResource.Meta):
            resource_name = "retagging"

        def dehydrate_url(self, bundle):
            if bundle.obj.url.endswith("/1") and bundle.obj.submitter.username == "ann":
                for pin in Pin.objects.exclude(pk=bundle.obj.pk):
                    pin.tags.add("seen")
                    pin.tags.remove("blue")
            return bundle.obj.url

    class ReorderingResource(RoutineResource):
        """The first workout's ``dehydrate()`` reverses the next one's sortedm2m exercises."""

        full_exercises = fields.ToManyField(
            ExerciseResource, "exercises", full=True, readonly=True, null=True
        )

        class Meta(RoutineResource.Meta):
            resource_name = "reordering"
            ordering = ["title"]

        def dehydrate_title(self, bundle):
            if bundle.obj.title == "empty":
                legs = Workout.objects.get(title="legs")
                legs.exercises.set(list(legs.exercises.all())[::-1])
            return bundle.obj.title

    return [
        RetaggingResource,
        ReorderingResource,
        UserResource,
        ExerciseResource,
        PinResource,
        TagResource,
        TaggedResource,
        RoutineResource,
        DrillResource,
        WorkoutResource,
        CategoryResource,
        ProjectResource,
        RealProjectResource,
        PostResource,
        PlaceResource,
        ProductResource,
        AddressResource,
    ]


def build_api(api_name: str, base: type) -> Api:
    api = Api(api_name=api_name)
    for resource in build(base):
        api.register(resource())
    return api


APIS = {"v2": build_api("v2", ModelResource), "v3": build_api("v3", DjonyResource)}
