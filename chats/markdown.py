"""Prompts, answers and messages as Markdown that can never run.

markdown-it-py renders with raw HTML off (a `<script>` in the text stays text),
then nh3 keeps only the tags and attributes below, so nothing a chat or its
agent writes can add script, style, frames or event handlers to a page."""

import re

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


# Where a search found its words (peers.said): the database wraps each in these two
# private-use characters, which survive Markdown and sanitising as plain text.
MARK_START, MARK_END = "\ue000", "\ue001"
TAG_OR_TEXT = re.compile(r"(<[^>]*>)")


# The marks as a link's address spells them.
MARKS = re.compile("[\ue000\ue001]|%EE%80%8[01]", re.IGNORECASE)


def unmarked(text: str) -> str:
    return MARKS.sub("", text)


def render_marked(text: str) -> str:
    """render_markdown(text) with the words between MARK_START and MARK_END in <mark>:
    only in text between tags (never inside a tag or its attributes), closed before each
    tag and opened again after it, so the marks always nest."""
    inside, out = False, []
    for part in TAG_OR_TEXT.split(render_markdown(text)):
        if part.startswith("<"):
            out.append(unmarked(part))
            continue
        out.append("<mark>" if inside and part else "")
        for char in part:
            if char in (MARK_START, MARK_END):
                if (char == MARK_START) != inside:
                    out.append("<mark>" if not inside else "</mark>")
                    inside = not inside
            else:
                out.append(char)
        out.append("</mark>" if inside and part else "")
    return "".join(out)
