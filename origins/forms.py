"""The Settings page's origin form: it collects the fields; origins.inputs.OriginSpec and
origins.actions.configure judge them."""

from django import forms

from chats.models import Chat
from origins.models import Origin

KEEP_HELP = "Blank on an edit: keep the stored one."


class OriginForm(forms.Form):
    kind = forms.ChoiceField(choices=Origin.Kind.choices)
    name = forms.CharField(max_length=80)
    enabled = forms.BooleanField(required=False, initial=True)
    secret = forms.CharField(
        max_length=200,
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text="Blank: Crosstalk makes one (shown once). For GitHub paste the webhook "
        "secret, for Slack the signing secret.",
    )
    agent = forms.ChoiceField(choices=Chat.Agent.choices, initial=Chat.Agent.DEMO)
    repository = forms.CharField(max_length=200, required=False)
    branch = forms.CharField(max_length=200, required=False)
    folder = forms.CharField(max_length=500, required=False)
    model = forms.CharField(max_length=100, required=False)
    permission_mode = forms.CharField(max_length=40, required=False)
    command = forms.CharField(max_length=1000, required=False, help_text="For a command agent.")
    requests_per_hour = forms.IntegerField(
        required=False, min_value=1, help_text="Blank: the limit the admin sets for every origin."
    )
    callback_url = forms.CharField(
        max_length=500, required=False, help_text="Webhook (and automation): answers go here."
    )
    handle = forms.CharField(max_length=200, required=False, help_text="GitHub: the @handle.")
    api_url = forms.CharField(max_length=500, required=False, help_text="GitHub or Slack API.")
    token = forms.CharField(
        max_length=200, required=False, widget=forms.PasswordInput, help_text=KEEP_HELP
    )
    bot_token = forms.CharField(
        max_length=200, required=False, widget=forms.PasswordInput, help_text=KEEP_HELP
    )
    app_id = forms.CharField(max_length=20, required=False, help_text="GitHub App: its id.")
    installation_id = forms.CharField(
        max_length=20, required=False, help_text="GitHub App: the installation's number."
    )
    private_key = forms.CharField(
        max_length=10_000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="GitHub App: the .pem file's text. " + KEEP_HELP,
    )

    def spec_data(self) -> dict:
        return dict(self.cleaned_data)


def initial_for(origin: Origin) -> dict:
    stored = origin.settings or {}
    return {
        "kind": origin.kind,
        "name": origin.name,
        "enabled": origin.enabled,
        "agent": origin.agent,
        "repository": origin.repository,
        "branch": origin.branch,
        "folder": origin.folder,
        "model": origin.model,
        "permission_mode": origin.permission_mode,
        "command": origin.command,
        "requests_per_hour": origin.requests_per_hour,
        "callback_url": stored.get("callback_url", ""),
        "handle": stored.get("handle", ""),
        "api_url": stored.get("api_url", ""),
        "app_id": stored.get("app_id", ""),
        "installation_id": stored.get("installation_id", ""),
    }
