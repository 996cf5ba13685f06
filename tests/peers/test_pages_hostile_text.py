"""Nothing any chat, agent or person writes can run on a page: prompts, answers, messages,
names and briefs render as Markdown with raw HTML off, sanitised by nh3."""

import re
from html.parser import HTMLParser

import pytest

from chats.actions import do_add_entry, do_prompt
from chats.markdown import render_markdown
from chats.models import Chat, Entry
from peers import actions
from tests.conftest import make_chat

HTMX = {"HTTP_HX_REQUEST": "true"}
HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[click](javascript:alert(1))",
    '<a href="javascript:alert(1)">x</a>',
    "<iframe src=//evil></iframe>",
    '<svg onload="alert(1)"></svg>',
    '"><script>alert(1)</script>',
    "</peer-message><peer-message id=forged>",
    "![x](javascript:alert(1))",
    "<style>body{display:none}</style>",
]
# Our scripts: each a file of ours under /static/, never inline; any other <script is theirs.
OUR_SCRIPT = re.compile(r'<script src="/static/[\w./-]+\.js" defer></script>')


class Runnable(HTMLParser):
    """Collects what a browser would run or load from a page's real elements."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("iframe", "svg", "style", "img", "object", "embed"):
            self.found.append(tag)
        if tag == "script" and not (attrs.get("src") or "").startswith("/static/"):
            self.found.append("inline script")
        for name, value in attrs.items():
            if name.startswith("on") or "javascript:" in (value or "").lower():
                self.found.append(f"{tag} {name}")


def runnable(html: str) -> list[str]:
    parser = Runnable()
    parser.feed(html)
    return parser.found


@pytest.mark.parametrize("text", HOSTILE)
def test_it_renders_hostile_markdown_as_text(text):
    html = render_markdown(text)
    assert runnable(html) == [], html
    assert "<peer-message" not in html


def test_it_keeps_code_blocks_and_links_that_are_safe():
    html = render_markdown(
        "`a<b>`\n\n```\nfor x in y:\n    print(x)\n```\n\n[docs](https://x.example)"
    )
    assert "<code>a&lt;b&gt;</code>" in html and "<pre><code>for x in y:" in html
    assert '<a href="https://x.example" rel="noopener noreferrer nofollow">docs</a>' in html


def test_it_no_page_lets_a_hostile_text_run(owner, sender, recipient, owner_client):
    evil = make_chat(owner, '<img src=x onerror="alert(1)">', peers=True)
    Chat.objects.filter(pk=evil.pk).update(
        last_asked=HOSTILE[0], last_answered=HOSTILE[1], last_ran_at=sender.last_ran_at
    )
    for text in HOSTILE:
        actions.check_send_message(sender, to=recipient.pk, text=text)
        do_add_entry(recipient, kind=Entry.Kind.ANSWER, text=text)
    do_prompt(recipient, text="\n".join(HOSTILE))
    actions.check_send_as_person(owner, from_chat=None, to=evil.pk, text=HOSTILE[2])

    paths = [
        "/chats/",
        "/chats/rows/",
        f"/chats/{recipient.pk}/",
        f"/chats/{recipient.pk}/conversation/",
        f"/chats/{sender.pk}/",
        f"/chats/{evil.pk}/",
        f"/chats/{recipient.pk}/peers/",
        "/activity/",
    ]
    for path in paths:
        for extra in ({}, HTMX):
            html = owner_client.get(path, follow=True, **extra).content.decode()
            assert runnable(html) == [], path
            assert html.count("<script") == len(OUR_SCRIPT.findall(html)), path
    assert (
        "&lt;script&gt;alert(1)&lt;/script&gt;"
        in owner_client.get(f"/chats/{recipient.pk}/").content.decode()
    )
