from django import forms
from django.contrib.auth.forms import UserCreationForm

from accounts.models import ApiToken, User


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


class ApiTokenCreateForm(forms.Form):
    name = forms.CharField(
        max_length=ApiToken._meta.get_field("name").max_length,
        required=False,
        help_text="What the token is for, e.g. “laptop scripts”.",
    )
