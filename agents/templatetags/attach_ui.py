from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.filter
def codespans(text: str) -> SafeString:
    """A note's `code` spans as <code>, the rest escaped (notes are plain text with
    backticks, as agent_config prints them)."""
    parts = escape(text).split("`")
    if len(parts) % 2 == 0:  # an unmatched backtick: show the text as it is
        return mark_safe("`".join(parts))  # noqa: S308 - escaped above
    html = "".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts))
    return mark_safe(html)  # noqa: S308 - every part escaped above
