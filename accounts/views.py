from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST
from django.views.generic import FormView

from accounts.actions import (
    check_set_model_credential,
    check_signup_allowed,
    do_create_api_token,
    do_remove_model_credential,
    do_revoke_api_token,
    do_set_inbound_defaults,
    do_set_peers_for_new_chats,
    do_signup,
)
from accounts.forms import (
    ApiTokenCreateForm,
    InboundDefaultsForm,
    ModelCredentialForm,
    PeersDefaultForm,
    SignupForm,
)

SETTINGS_TEMPLATE = "accounts/settings.html"


SIGNED_UP = (
    "Thank you. Now log in with the name and password you chose. If that does not work, "
    "the name was taken already: sign up again with another one."
)
TOO_MANY_SIGNUPS = "Too many sign-ups from your address in the last hour. Try again later."


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "signup_open": settings.SIGNUP}


class SignupView(FormView):
    """Off (404) unless SIGNUP=1. A taken name and a free one get the same answer (a
    redirect to log in), so the page tells no one which names exist; per address, at
    most SIGNUPS_PER_HOUR forms an hour are taken."""

    template_name = "accounts/signup.html"
    form_class = SignupForm

    def dispatch(self, request, *args, **kwargs):
        if not settings.SIGNUP:
            raise Http404("Sign-up is off.")
        if request.user.is_authenticated:
            return redirect(settings.LOGIN_REDIRECT_URL)
        return super().dispatch(request, *args, **kwargs)

    def post(self, request, *args, **kwargs):
        if not check_signup_allowed(request.META.get("REMOTE_ADDR") or "unknown"):
            context = self.get_context_data(form=self.get_form(), refused=TOO_MANY_SIGNUPS)
            return self.render_to_response(context, status=429)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        data = form.cleaned_data
        do_signup(username=data["username"], password=data["password1"])
        messages.info(self.request, SIGNED_UP)
        return redirect(settings.LOGIN_URL)


def render_settings(request, partial: str = "", **context) -> HttpResponse:
    """The whole settings page, or one of its cards when htmx asked."""
    context.setdefault(
        "peers_form",
        PeersDefaultForm(initial={"peers_for_new_chats": request.user.peers_for_new_chats}),
    )
    context.setdefault("inbound_form", InboundDefaultsForm(initial=inbound_defaults(request.user)))
    context.setdefault("token_form", ApiTokenCreateForm())
    context.setdefault("credential_form", ModelCredentialForm())
    context["tokens"] = request.user.api_tokens.all()
    context["credentials"] = request.user.model_credentials.all()
    template = f"{SETTINGS_TEMPLATE}#{partial}" if partial and request.htmx else SETTINGS_TEMPLATE
    return render(request, template, context)


@login_required
def settings_page(request) -> HttpResponse:
    return render_settings(request)


@require_POST
@login_required
def set_peers_default(request) -> HttpResponse:
    form = PeersDefaultForm(request.POST)
    form.is_valid()  # a checkbox is always valid: absent means off
    enabled = form.cleaned_data["peers_for_new_chats"]
    do_set_peers_for_new_chats(request.user, enabled=enabled)
    if request.htmx:
        return render_settings(request, "peers-card", peers_form=form, peers_saved=True)
    messages.success(
        request,
        "Saved: agent-to-agent messaging is " + ("on" if enabled else "off") + " for new chats.",
    )
    return redirect("settings")


def inbound_defaults(user) -> dict:
    return {
        "inbound_for_new_chats": user.inbound_for_new_chats,
        "ask_when_more_permissive": user.ask_when_more_permissive,
    }


@require_POST
@login_required
def set_inbound_defaults(request) -> HttpResponse:
    form = InboundDefaultsForm(request.POST)
    if not form.is_valid():
        return render_settings(request, "inbound-card", inbound_form=form)
    do_set_inbound_defaults(
        request.user,
        inbound=form.cleaned_data["inbound_for_new_chats"],
        ask_when_more_permissive=form.cleaned_data["ask_when_more_permissive"],
    )
    if request.htmx:
        return render_settings(request, "inbound-card", inbound_form=form, inbound_saved=True)
    messages.success(request, "Saved: who may message your new chats without asking.")
    return redirect("settings")


# The secret is rendered into this one response and never stored, so no
# redirect-after-post here, and no cache may keep the page either.
@never_cache
@require_POST
@login_required
def create_token(request) -> HttpResponse:
    form = ApiTokenCreateForm(request.POST)
    if not form.is_valid():
        return render_settings(request, "tokens-card", token_form=form)
    token, secret = do_create_api_token(request.user, name=form.cleaned_data["name"])
    return render_settings(request, "tokens-card", new_token=token, new_secret=secret)


@require_POST
@login_required
def revoke_token(request, token_id: int) -> HttpResponse:
    # Another account's token id reads like a missing one.
    if not do_revoke_api_token(request.user, token_id=token_id):
        raise Http404("No such API token.")
    if request.htmx:
        return render_settings(request, "tokens-card", token_revoked=True)
    messages.success(request, "API token revoked.")
    return redirect("settings")


# Settings → Agents: the account's own model credentials. A secret is never rendered back.
@never_cache
@require_POST
@login_required
def set_model_credential(request) -> HttpResponse:
    form = ModelCredentialForm(request.POST)
    if form.is_valid():
        try:
            credential = check_set_model_credential(request.user, **form.cleaned_data)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            said = f"Saved your {credential.get_provider_display()} {credential.kind_label}."
            return agents_card(request, said, ModelCredentialForm())
    return agents_card(request, "", form, status=400)


@require_POST
@login_required
def remove_model_credential(request, provider: str) -> HttpResponse:
    # Another account's credential is out of reach: only the person's own row is deleted.
    if not do_remove_model_credential(request.user, provider=provider):
        raise Http404("No such credential.")
    return agents_card(request, "Removed.", ModelCredentialForm())


def agents_card(request, said: str, form: ModelCredentialForm, status: int = 200) -> HttpResponse:
    if request.htmx or status != 200:
        response = render_settings(
            request, "agents-card", credential_form=form, credential_said=said
        )
        response.status_code = status
        return response
    messages.success(request, said)
    return redirect("settings")
