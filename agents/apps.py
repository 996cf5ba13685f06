from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"

    def ready(self) -> None:
        from agents.adapters import declare_what_each_kind_takes

        declare_what_each_kind_takes()
