from django.apps import AppConfig


class PeersConfig(AppConfig):
    name = "peers"

    def ready(self) -> None:
        from peers import receivers  # noqa: F401  (connects the signal receivers)
