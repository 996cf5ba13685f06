from django.apps import AppConfig
from django.db.backends.signals import connection_created


class CrosstalkConfig(AppConfig):
    name = "crosstalk"

    def ready(self) -> None:
        from crosstalk.env import private_sqlite_files

        connection_created.connect(private_sqlite_files, dispatch_uid="private-sqlite-files")
