from django.apps import AppConfig


class ShowcaseConfig(AppConfig):
    name = "example_project.showcase"
    label = "showcase"
