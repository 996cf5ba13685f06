from django.apps import AppConfig
from django.db.backends.signals import connection_created


class KernelConfig(AppConfig):
    """The bottom of the house: it imports no app of the project (docs/architecture in the
    README's map); every app may import it."""

    name = "kernel"

    def ready(self) -> None:
        from kernel.private_files import private_sqlite_files

        connection_created.connect(private_sqlite_files, dispatch_uid="private-sqlite-files")
