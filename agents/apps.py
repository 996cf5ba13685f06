from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"

    def ready(self) -> None:
        # peers picks delivery paths by what each kind's turns can take.
        from agents.adapters import declare_what_each_kind_takes

        declare_what_each_kind_takes()
