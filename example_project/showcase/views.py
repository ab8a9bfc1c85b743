"""Small views of the example project: a trivial one to measure the client
and server against, and an index of the APIs."""

from django.http import HttpRequest, HttpResponse, JsonResponse


def ping(request: HttpRequest) -> HttpResponse:
    """No database, no serializer: what the server and load client can do at best."""
    return HttpResponse(b"pong", content_type="text/plain")


def index(request: HttpRequest) -> JsonResponse:
    """Where the three APIs live."""
    return JsonResponse(
        {
            "v2 (Tastypie ModelResource)": "/api/v2/",
            "v3 (DjonyResource)": "/api/v3/",
            "drf (Django REST framework)": "/api/drf/auth/user/",
            "examples": [
                "/api/v3/auth/user/3/?format=json",
                "/api/v3/auth/user/?format=json&limit=0",
                "/api/v3/auth/user/?format=json&username__startswith=a&order_by=-date_joined",
            ],
        }
    )
