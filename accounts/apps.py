from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out
        from django.db.models.signals import post_save

        from accounts import sessions
        from accounts.models import User

        user_logged_out.connect(sessions.end_session_sockets, dispatch_uid="end-session-sockets")
        post_save.connect(
            sessions.recheck_account_sockets, sender=User, dispatch_uid="recheck-sockets"
        )
