"""Prompts, answers and messages as Markdown that can never run.

markdown-it-py renders with raw HTML off (a `<script>` in the text stays text),
then nh3 keeps only the tags and attributes below, so nothing a chat or its
agent writes can add script, style, frames or event handlers to a page."""

import nh3
from markdown_it import MarkdownIt

TAGS = {
    "a", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6",
    "hr", "li", "ol", "p", "pre", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "code": {"class"}, "th": {"align"}}
SCHEMES = {"http", "https", "mailto"}

OPTIONS = {"html": False, "linkify": False, "breaks": True}
renderer = MarkdownIt("commonmark", OPTIONS).enable(["table", "strikethrough"])


def render_markdown(text: str) -> str:
    """Safe HTML for `text`; the caller may mark it safe."""
    html = renderer.render(text or "")
    return nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes=SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )
