from django.apps import AppConfig


class PeersConfig(AppConfig):
    name = "peers"
