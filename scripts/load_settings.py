"""Settings of the reliability scripts: the example project's, with a
URLconf that adds a writable v3 API (:mod:`scripts.load_urls`)."""

from example_project.settings import *  # noqa: F403

ROOT_URLCONF = "scripts.load_urls"
