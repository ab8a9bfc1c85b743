import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
