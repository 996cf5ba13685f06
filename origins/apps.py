from django.apps import AppConfig


class OriginsConfig(AppConfig):
    name = "origins"
    default_auto_field = "django.db.models.BigAutoField"
