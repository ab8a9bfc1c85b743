"""Sphinx configuration of the djony documentation site.

The site is not published: ``tox -e docs`` builds it (``.readthedocs.yaml``
builds it the same way on Read the Docs, once it is).  Pages are Markdown read
by MyST, readable as they are in a checkout and on the code host.  The API
reference (``api.md``) is generated from the docstrings with autodoc, so the
packages are imported: Django is set up here with the smallest settings that
install djony and tastypie_djony (an in-memory SQLite database that is never
connected to while building).

Build: ``tox -e docs`` (on any Python the package supports; warnings are
errors, then ``docs/check_site.py`` checks that every page is reachable from
the index and every internal link resolves; ``scripts/check_links.py`` checks
the links of the Markdown files themselves).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import django  # noqa: E402
from django.conf import settings  # noqa: E402

if not settings.configured:
    settings.configure(
        INSTALLED_APPS=[
            "django.contrib.contenttypes",
            "django.contrib.auth",
            "tastypie",
            "djony",
            "tastypie_djony",
        ],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
        DEFAULT_AUTO_FIELD="django.db.models.AutoField",
        USE_TZ=True,
    )
    django.setup()

import djony  # noqa: E402

project = "djony"
author = "the djony authors"
copyright = "the djony authors"
version = release = djony.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]

# api.md lists the packages; autosummary writes a page per module (recursively) into
# docs/_api at build time, so a module added, moved or removed needs no edit here.
autosummary_generate = True

myst_heading_anchors = 3
myst_enable_extensions = ["deflist"]

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "description"

html_theme = "furo"
html_title = f"djony {release}"
html_static_path: list[str] = []
