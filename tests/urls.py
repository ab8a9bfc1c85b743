"""URLs of the test suite: the differential API lives under /v2/ and /v3/."""

urlpatterns: list = []
