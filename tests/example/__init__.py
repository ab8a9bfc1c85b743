"""The example project (``example_project/``): its demo data, its tutorial resources, its
index page and its ``compare`` command with the report it writes."""
