from django import template
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from chats import agent_kinds
from chats.markdown import render_markdown

register = template.Library()


@register.filter
def markdown(text: str) -> SafeString:
    """`{{ entry.text|markdown }}`: Markdown, raw HTML off, sanitised (chats.markdown)."""
    return mark_safe(render_markdown(text))  # noqa: S308 (nh3 has sanitised it)


# Past this many characters an entry shows its beginning and says how much is left out:
# a 1 MB prompt echoed back must not make a megabyte page (the API has the whole text).
SHOWN_CHARS = 20_000
# Past this many, the bubble starts folded, with a "Show all" to open it.
LONG_CHARS = 1_200


@register.filter
def clipped(text: str) -> str:
    if len(text) <= SHOWN_CHARS:
        return text
    left = len(text) - SHOWN_CHARS
    return f"{text[:SHOWN_CHARS]}\n\n*… {left:,} more characters not shown here.*"


@register.filter
def is_long(text: str) -> bool:
    return len(text) > LONG_CHARS or text.count("\n") > 24


@register.filter
def when(moment) -> str:
    """A message time with its date: "14:05" today, "Mar 3, 14:05" this year, else the year."""
    if not moment:
        return ""
    local, today = timezone.localtime(moment), timezone.localdate()
    if local.date() == today:
        return local.strftime("%H:%M")
    if local.year == today.year:
        return f"{local:%b} {local.day}, {local:%H:%M}"
    return f"{local:%b} {local.day} {local.year}, {local:%H:%M}"


@register.filter
def get_item(mapping: dict, key):
    """A count from a mapping the page was given (peers.context_processors' waiting_counts)."""
    return mapping.get(key, 0) if mapping else 0


@register.filter
def can_attach(chat) -> bool:
    """Whether the chat's agent kind takes a session the person runs (its panel shows)."""
    return agent_kinds.takes_attached_session(chat.agent)


register.filter("for_its_session", agent_kinds.for_its_session)
