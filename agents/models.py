"""The agents app keeps no rows of its own; it owns two permissions."""

from django.db import models


class HostedRunners(models.Model):
    """Holds the permission `agents.run_hosted`: whether an account may have
    Crosstalk run processes on this server for it — a `command` chat, or a Claude
    Code, Codex or Gemini chat with a working folder. Its table stays empty (it is
    a table so that everything that walks every model, dumpdata say, just works).

    And `agents.use_operator_logins`: whether the account's hosted CLIs may use the
    operator's own model logins (the server's provider keys, its CLI login files);
    without it, only the account's own (Settings → Agents)."""

    class Meta:
        default_permissions = ()
        permissions = [
            ("run_hosted", "Can run hosted agents on this server"),
            ("use_operator_logins", "Can use the operator's model logins in hosted agents"),
        ]
        verbose_name = "hosted agent runners"

    def __str__(self) -> str:
        return "hosted agent runners"
