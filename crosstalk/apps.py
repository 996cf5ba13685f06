from django.apps import AppConfig


class CrosstalkConfig(AppConfig):
    name = "crosstalk"
