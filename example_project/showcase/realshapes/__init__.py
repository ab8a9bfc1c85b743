"""Resources shaped like three public Tastypie APIs, for any base class.

:mod:`.models` and :mod:`.seeding` hold their data; :mod:`.pins` (pinry), :mod:`.exercises`
(wger) and :mod:`.points` (django-oppia) their resources, written the way those projects
write theirs; :func:`.resources.shape_resources` builds all of them on ``ModelResource``
or ``DjonyResource``.  ``python -m benchmarks.realshapes`` times them.
"""
