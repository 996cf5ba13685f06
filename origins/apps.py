from django.apps import AppConfig


class OriginsConfig(AppConfig):
    name = "origins"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The turn-end signal (chats sits below origins and cannot call it by name).
        from origins import receivers  # noqa: F401
