"""The admin page's limits form: one whole-number field per limit, in the model's ranges."""

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

from peers.limits import NAMES, defaults
from peers.models import Limits

# What each limit stops, in one line, shown beside its field.
STOPS = {
    "reach_hours": "Stops agents writing to chats nobody has run lately: older chats drop out "
    "of ListChats and refuse messages.",
    "chat_per_hour": "Stops one chat flooding the others: its sends past this in an hour are "
    "refused.",
    "wakes_per_hour": "Stops messages waking idle chats (and spending their tokens) without end, "
    "across the account.",
    "pair_per_window": "Stops two chats bouncing messages back and forth in a burst.",
    "pair_window_minutes": "The span the limit above counts over.",
    "pair_without_you": "Stops two agents talking on without the person: they are told to stop "
    "and say what is still open.",
    "chain_without_you": "Stops a message being passed on from chat to chat without end after "
    "one line of the person.",
    "list_read_per_hour": "Stops an agent polling other chats instead of doing its work.",
    "max_text": "Stops one message filling another agent's context.",
    "max_wait_seconds": "Stops a MessageChat call holding its turn while it waits for an answer; "
    "longer waits are cut to this.",
    "origin_requests_per_hour": "Stops one outside source (a webhook, GitHub, Slack, A2A) "
    "starting turns without end; an origin may set its own.",
}


def bounds(name: str) -> tuple[int, int]:
    """The model field's range, so the form, the command and the action agree."""
    validators = Limits._meta.get_field(name).validators
    low = next(v.limit_value for v in validators if isinstance(v, MinValueValidator))
    high = next(v.limit_value for v in validators if isinstance(v, MaxValueValidator))
    return low, high


def limit_field(name: str, default: int) -> forms.IntegerField:
    low, high = bounds(name)
    sentence = f"Enter a whole number from {low:,} to {high:,}."
    field = forms.IntegerField(
        label=Limits._meta.get_field(name).verbose_name,
        min_value=low,
        max_value=high,
        help_text=STOPS[name],
        error_messages=dict.fromkeys(("required", "invalid", "min_value", "max_value"), sentence),
    )
    field.default = default
    return field


class LimitsForm(forms.Form):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        default = defaults()
        for name in NAMES:
            self.fields[name] = limit_field(name, default[name])
