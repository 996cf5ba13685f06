"""The Settings page's origin form: it collects the fields, shows each kind only its own
(KIND_FIELDS; static/crosstalk/origins.js hides the rest as the kind changes), and puts
every error beside its field in plain words. origins.inputs.OriginSpec and
origins.actions.configure judge them."""

from django import forms
from pydantic import ValidationError

from chats.models import Chat
from kernel.refusals import Refusal
from origins.inputs import OriginSpec, current_values
from origins.models import Origin

KEEP = "Blank on an edit: keep the stored one."
ALL_KINDS = tuple(Origin.Kind.values)
# The fields of one kind only; every other field is every kind's.
KIND_FIELDS = {
    "secret": ("webhook", "github", "slack", "a2a"),
    "callback_url": ("webhook", "automation"),
    "handle": ("github",),
    "api_url": ("github", "slack"),
    "token": ("github",),
    "app_id": ("github",),
    "installation_id": ("github",),
    "private_key": ("github",),
    "bot_token": ("slack",),
}
# Help that differs by kind: {field: {kind: text}}.
KIND_HELP = {
    "secret": {
        "webhook": "Signs every request (HMAC). Blank: Crosstalk makes one and shows it once.",
        "github": "The webhook secret you typed into GitHub's webhook settings.",
        "slack": "Your Slack app's signing secret (Basic Information → App Credentials).",
        "a2a": "The bearer token A2A clients send. Blank: Crosstalk makes one and shows it once.",
    },
    "api_url": {
        "github": "Blank: https://api.github.com. GitHub Enterprise: its /api/v3 address.",
        "slack": "Blank: https://slack.com/api/.",
    },
    "callback_url": {
        "webhook": "Where Crosstalk POSTs each answer, signed like the requests.",
        "automation": "Optional: where Crosstalk POSTs each answer.",
    },
}
# Labels that differ by kind: {field: {kind: label}}.
KIND_LABELS = {
    "secret": {
        "webhook": "Signing secret",
        "github": "GitHub webhook secret",
        "slack": "Slack signing secret",
        "a2a": "Bearer token",
    },
}
SECRET_FIELDS = ("secret", "token", "bot_token", "private_key")
# Django's own refusals, in the same plain words as the rest of the form.
WORDS = {
    "required": "Fill this in.",
    "max_length": "At most %(limit_value)d characters (this has %(show_value)d).",
    "min_value": "At least %(limit_value)s.",
    "max_value": "At most %(limit_value)s.",
    "invalid_choice": "Pick one of the choices.",
    "invalid": "A whole number, such as 60.",
}


def text(label: str, max_length: int, help_text: str = "", **options) -> forms.CharField:
    return forms.CharField(
        label=label, max_length=max_length, required=False, help_text=help_text, **options
    )


def hidden_text(label: str, max_length: int, help_text: str = KEEP) -> forms.CharField:
    return text(label, max_length, help_text, widget=forms.PasswordInput(render_value=False))


class OriginForm(forms.Form):
    kind = forms.ChoiceField(
        label="Kind", choices=Origin.Kind.choices, help_text="Where requests come from."
    )
    name = forms.CharField(label="Name", max_length=80, help_text="Yours to recognise it by.")
    enabled = forms.BooleanField(label="Enabled", required=False, initial=True)
    secret = hidden_text("Secret", 200, "")
    callback_url = text("Answers go to (URL)", 500, "", widget=forms.URLInput)
    handle = text("GitHub handle", 200, "The @handle people mention to ask the agent.")
    api_url = text("API address", 500, "", widget=forms.URLInput)
    token = hidden_text("GitHub token", 200, "A token that may comment. " + KEEP)
    app_id = text("GitHub App id", 20, "Instead of a token: your GitHub App's id.")
    installation_id = text("Installation id", 20, "The App installation's number.")
    private_key = text(
        "App private key",
        10_000,
        "The App's .pem file, pasted whole. " + KEEP,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    bot_token = hidden_text("Slack bot token", 200, "The xoxb-… token of your app. " + KEEP)
    agent = forms.ChoiceField(
        label="Agent",
        choices=Chat.Agent.choices,
        initial=Chat.Agent.DEMO,
        help_text="The agent of each chat a request starts.",
    )
    repository = text("Repository", 200, "Optional: the repository the chat works on.")
    branch = text("Branch", 200, "Optional.")
    folder = text("Working folder", 500, "Optional: a folder inside your own.")
    model = text("Model", 100, "Optional: blank for the agent's default.")
    permission_mode = text("Permission mode", 40, "Optional: as for a new chat.")
    command = text("Command", 1000, "For the Command agent: the command line it runs.")
    requests_per_hour = forms.IntegerField(
        label="Requests an hour",
        required=False,
        min_value=1,
        max_value=100_000,
        help_text="At most this many requests an hour. Blank: the limit your admin sets.",
    )

    def __init__(self, *args, fixed_kind: str | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.error_messages.update(WORDS)
        self.fixed_kind = fixed_kind
        if fixed_kind:  # an edit: the kind stays, and only its fields are shown
            self.fields["kind"].widget = forms.HiddenInput()
            for name, kinds in KIND_FIELDS.items():
                if fixed_kind not in kinds:
                    del self.fields[name]

    def kinds_of(self, name: str) -> str:
        return " ".join(KIND_FIELDS.get(name, ALL_KINDS))

    def rows(self) -> list[dict]:
        """Each field with the kinds it belongs to and its help per kind (the template)."""
        rows = []
        for bound in self:
            helps = self.for_kind(KIND_HELP.get(bound.name, {}))
            labels = self.for_kind(KIND_LABELS.get(bound.name, {}))
            kinds = self.kinds_of(bound.name)
            rows.append({"field": bound, "kinds": kinds, "helps": helps, "labels": labels})
        return rows

    def for_kind(self, by_kind: dict) -> dict:
        if not self.fixed_kind:
            return by_kind
        return {kind: words for kind, words in by_kind.items() if kind == self.fixed_kind}

    def judge(self) -> OriginSpec | None:
        """The fields as the shared input model, or None with errors beside their fields."""
        if not self.is_valid():
            return None
        data = {k: v for k, v in self.cleaned_data.items() if k in OriginSpec.model_fields}
        try:
            return OriginSpec.model_validate(data, strict=True)
        except ValidationError as error:
            for problem in error.errors():
                self.place(str(problem["loc"][0]) if problem["loc"] else "", plain(problem))
            return None

    def place(self, field: str, message: str) -> None:
        self.add_error(field if field in self.fields else None, message)

    def refused(self, refusal: Refusal) -> None:
        """An action's refusal ("field: words") beside its field; else at the top."""
        field, _, words = refusal.message.partition(": ")
        if words and field in self.fields:
            self.add_error(field, words[:1].upper() + words[1:])
        else:
            self.add_error(None, refusal.message)

    def kept_data(self) -> dict:
        """What a redirect may carry to the form shown again: never a secret."""
        kept = {}
        for name, field in self.fields.items():
            if name in self.data and name not in SECRET_FIELDS:
                most = getattr(field, "max_length", None) or 100
                kept[name] = str(self.data.get(name, ""))[:most]
        return kept

    def kept_errors(self) -> dict:
        return {field: list(errors) for field, errors in self.errors.items()}


PATTERN_WORDS = {
    "app_id": "Digits only: the App id GitHub shows.",
    "installation_id": "Digits only: the number at the end of the installation's address.",
    "private_key": "Paste the whole .pem file, from -----BEGIN … PRIVATE KEY-----.",
}


def plain(problem: dict) -> str:
    """A pydantic error in the words a person reads beside the field."""
    kind, context = problem["type"], problem.get("ctx") or {}
    field = str(problem["loc"][0]) if problem["loc"] else ""
    if kind == "string_too_long":
        return f"At most {context.get('max_length')} characters."
    if kind == "string_pattern_mismatch":
        return PATTERN_WORDS.get(field, "Not in the expected form.")
    if kind in ("greater_than_equal", "less_than_equal"):
        return f"From 1 to {100_000:,}, or blank."
    if kind == "literal_error":
        return "Pick one of the choices."
    if kind == "unsafe_text":
        return "Text may not contain NUL characters."
    message = problem["msg"].removeprefix("Value error, ")
    return message if message.endswith(".") else message + "."


def initial_for(origin: Origin) -> dict:
    return current_values(origin)
