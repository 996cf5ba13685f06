from django import forms
from django.contrib.auth.forms import UserCreationForm

from accounts.models import ApiToken, ModelCredential, User


class SignupForm(UserCreationForm):
    """Never says a name is taken: accounts.actions.do_signup answers alike either way."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def clean_username(self) -> str:
        return self.cleaned_data["username"]

    def validate_unique(self) -> None:
        pass


class PeersDefaultForm(forms.Form):
    peers_for_new_chats = forms.BooleanField(
        label=User._meta.get_field("peers_for_new_chats").verbose_name, required=False
    )


class InboundDefaultsForm(forms.Form):
    inbound_for_new_chats = forms.ChoiceField(
        label=User._meta.get_field("inbound_for_new_chats").verbose_name,
        choices=User.NewInbound.choices,
        required=False,
    )
    ask_when_more_permissive = forms.BooleanField(
        label=User._meta.get_field("ask_when_more_permissive").verbose_name, required=False
    )


class ApiTokenCreateForm(forms.Form):
    name = forms.CharField(
        max_length=ApiToken._meta.get_field("name").max_length,
        required=False,
        help_text="What the token is for, e.g. “laptop scripts”.",
    )


class SecretTextarea(forms.Textarea):
    """Never renders a value back: not even a refused one the person just sent."""

    def format_value(self, value):
        return None


class ModelCredentialForm(forms.Form):
    """The shape only; accounts.actions.check_set_model_credential says what a value may be."""

    provider = forms.ChoiceField(choices=ModelCredential.Provider.choices)
    kind = forms.ChoiceField(
        choices=ModelCredential.Kind.choices,
        help_text="An API key, or the whole of the CLI's login file: Claude Code's "
        "<code>~/.claude/.credentials.json</code>, Codex's <code>~/.codex/auth.json</code>, "
        "Gemini's <code>~/.gemini/oauth_creds.json</code>.",
    )
    value = forms.CharField(
        label="Key or login file",
        widget=SecretTextarea(attrs={"rows": 3, "autocomplete": "off", "spellcheck": "false"}),
        help_text="Stored encrypted, used only by your own hosted chats, never shown again.",
    )
    base_url = forms.CharField(
        label="Base URL", required=False, help_text="Optional: a gateway in front of the provider."
    )
