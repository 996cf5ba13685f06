from django.apps import AppConfig


class OriginsConfig(AppConfig):
    name = "origins"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # chats sits below origins and cannot call it by name: the turn-end signal, and the
        # starter the chat faces use for `origin: "automation"` with `text`.
        from chats.outside import register_starter
        from origins import receivers  # noqa: F401
        from origins.automation import start_from_chat_faces

        register_starter("automation", start_from_chat_faces)
