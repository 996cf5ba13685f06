from django import template
from django.utils.safestring import SafeString, mark_safe

from chats.markdown import render_markdown

register = template.Library()


@register.filter
def markdown(text: str) -> SafeString:
    """`{{ entry.text|markdown }}`: Markdown, raw HTML off, sanitised (chats.markdown)."""
    return mark_safe(render_markdown(text))  # noqa: S308 (nh3 has sanitised it)
