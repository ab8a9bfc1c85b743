from django.apps import AppConfig


class SideEffectsConfig(AppConfig):
    name = "tests.sideeffects"
    label = "sideeffects"
    default_auto_field = "django.db.models.AutoField"

    def ready(self) -> None:
        from tests.sideeffects import receivers

        receivers.connect()
