"""One way up for templates too: no app's template loads a tag library, includes or
extends a template of an app above it (the layers of [tool.importlinter]); what an upper
app adds to a lower app's page comes in its context (peers.chat_page,
peers.context_processors)."""

import re

from tests.test_layout import ROOT

LAYERS = ["kernel", "accounts", "chats", "peers", "origins", "agents", "crosstalk"]
LOADS = re.compile(r"{%\s*load\s+([^%]+?)\s*%}")
NAMED = re.compile(r"""{%\s*(?:include|extends)\s+["']([\w-]+)/""")


def tag_libraries() -> dict[str, str]:
    """Tag library name → the app whose templatetags define it."""
    return {
        path.stem: app
        for app in LAYERS
        for path in (ROOT / app / "templatetags").glob("*.py")
        if path.stem != "__init__"
    }


def reaches_up() -> list[str]:
    libraries, found = tag_libraries(), []
    for app in LAYERS:
        for path in (ROOT / app / "templates").rglob("*.html"):
            text = path.read_text()
            loaded = [name for names in LOADS.findall(text) for name in names.split()]
            used = [libraries[name] for name in loaded if name in libraries]
            used += [name for name in NAMED.findall(text) if name in LAYERS]
            above = [other for other in used if LAYERS.index(other) > LAYERS.index(app)]
            found += [f"{path.relative_to(ROOT)} → {other}" for other in above]
    return found


def test_it_finds_what_a_template_names():
    assert tag_libraries()["attach_ui"] == "agents" and tag_libraries()["chat_text"] == "chats"
    assert NAMED.findall('{% include "peers/_tab.html" %}') == ["peers"]


def test_it_no_template_reaches_an_app_above_its_own():
    assert reaches_up() == []
