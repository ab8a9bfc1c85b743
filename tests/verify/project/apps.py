from django.apps import AppConfig


class VerifyProjectConfig(AppConfig):
    name = "tests.verify.project"
    label = "verify_project"
    default_auto_field = "django.db.models.AutoField"
