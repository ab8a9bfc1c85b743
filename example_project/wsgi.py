"""WSGI entry point: ``gunicorn example_project.wsgi`` from the repository root."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "example_project.settings")

application = get_wsgi_application()
