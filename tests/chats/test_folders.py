"""Working folders belong to one account: inside <root>/<username>/ of one of
AGENT_FOLDERS' roots (unset: var/folders), never the system's, a home, the server's own,
nor another account's; REST, MCP and the page form refuse alike."""

import html
import itertools
import os
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings as django_settings

from accounts.actions import do_allow_runners, do_create_api_token
from accounts.models import User
from chats import folders
from chats.models import Chat
from crosstalk.mcp.server import TOOLBOX
from tests.conftest import ApiClient

COMMAND = {"name": "shell", "agent": "command", "command": "cat"}
FORM = {**COMMAND, "repository": "", "branch": "", "model": "", "permission_mode": ""}


def mcp(secret: str, name: str, arguments: dict):
    return async_to_sync(TOOLBOX.call)(secret, name, arguments)


@pytest.fixture
def faces(runner_owner, owner_client):
    """Each way a chat is made: REST, MCP and the page form; each answers the refusal's
    sentence ("" when the chat was made)."""
    _token, secret = do_create_api_token(runner_owner, name="faces")
    api = ApiClient(secret)
    names = (f"shell-{n}" for n in itertools.count())

    def rest(folder: str) -> str:
        spec = {**COMMAND, "name": next(names), "folder": folder}
        answer = api.call("POST", "/api/v1/chats", spec)
        if answer.status_code == 201:
            return ""
        assert (answer.status_code, answer.json()["code"]) == (400, "invalid_input")
        return answer.json()["message"].removeprefix("folder: ")

    def tool(folder: str) -> str:
        result = mcp(secret, "start_chat", {**COMMAND, "name": next(names), "folder": folder})
        text = result.content[0].text
        return text.removeprefix("invalid_input: folder: ") if result.is_error else ""

    def page(folder: str) -> str:
        answer = owner_client.post("/chats/", {**FORM, "name": next(names), "folder": folder})
        if answer.status_code == 302:
            return ""
        return html.unescape(answer.content.decode())

    return rest, tool, page


def refused_alike(faces, folder: str) -> str:
    rest, tool, page = faces
    sentence = rest(folder)
    assert sentence, f"{folder} was taken"
    assert tool(folder) == sentence
    assert sentence in page(folder)
    assert not Chat.objects.exists()
    return sentence


@pytest.fixture
def own(agent_folders, runner_owner) -> Path:
    """alice's own folder, where every working folder of hers goes."""
    return agent_folders / "alice"


def where(own: Path) -> str:
    return f"; your working folders go inside {own}/."


@pytest.mark.parametrize(
    ("folder", "said"),
    [
        ("/", "/ is the root folder"),
        ("/proc/self/root", "/proc/self/root leads to /, which is the root folder"),
        ("/etc", "/etc is a system folder"),
        ("/usr/lib", "/usr/lib is a system folder"),
        ("/var", "/var is a system folder"),
    ],
)
def test_it_refuses_the_root_and_system_folders(faces, own, folder, said):
    assert refused_alike(faces, folder) == said + where(own)


def test_it_refuses_the_checkout_its_var_and_agents_dir(faces, own):
    checkout = django_settings.BASE_DIR
    assert refused_alike(faces, str(checkout)) == f"{checkout} is the server's checkout{where(own)}"
    # The folder holding it is refused as such, unless it is a system folder itself (a
    # checkout in /tmp/x): then that is the first rule it breaks.
    holder = checkout.parent
    said = refused_alike(faces, str(holder))
    rule = folders.why_system(holder) or "holds the server's checkout"
    first_rule = f"{holder} {rule}"
    assert said.startswith(first_rule), said
    var = django_settings.VAR_DIR
    assert refused_alike(faces, str(var)) == f"{var} is the server's var/{where(own)}"
    assert refused_alike(faces, str(var / "agents")).startswith(
        f"{var / 'agents'} is inside the server's var/"
    )
    agents = Path(django_settings.AGENTS_DIR)
    assert refused_alike(faces, str(agents)).startswith(f"{agents} is AGENTS_DIR")


def test_it_refuses_the_servers_own_folders_even_inside_the_persons(faces, own, settings):
    """An operator's root that holds the checkout: its folders stay off limits."""
    settings.BASE_DIR, settings.VAR_DIR = own / "checkout", own / "checkout" / "var"
    settings.AGENTS_DIR = own / "private" / "agents"
    (own / "private" / "agents" / "chat" / "home").mkdir(parents=True)
    assert refused_alike(faces, "checkout").endswith("is the server's checkout" + where(own))
    assert "is the server's var/" in refused_alike(faces, "checkout/var")
    assert "holds AGENTS_DIR" in refused_alike(faces, "private")
    assert "is inside AGENTS_DIR" in refused_alike(faces, "private/agents/chat/home")
    assert f"{own} holds the server's checkout" in refused_alike(faces, str(own))


def test_it_refuses_a_home_folder_and_one_that_holds_it(faces, own, monkeypatch):
    monkeypatch.setenv("HOME", str(own / "home"))
    (own / "home").mkdir(parents=True)
    assert refused_alike(faces, "home") == f"{own / 'home'} is a home folder{where(own)}"
    assert refused_alike(faces, str(own)) == f"{own} holds a home folder{where(own)}"


def test_it_refuses_another_accounts_folder_however_it_is_reached(faces, own, outsider):
    theirs = own.parent / "mallory" / "repo"
    theirs.mkdir(parents=True)
    (own).mkdir()
    (own / "link").symlink_to(theirs)
    another = f"is in another account's folders{where(own)}"
    assert refused_alike(faces, str(theirs)) == f"{theirs} {another}"
    assert refused_alike(faces, "../mallory/repo") == f"{own}/../mallory/repo {another}"
    assert refused_alike(faces, "link") == f"{own / 'link'} leads to {theirs}, which {another}"
    assert refused_alike(faces, "link/../../mallory").startswith(f"{own}/link/../../mallory")
    assert refused_alike(faces, "..") == f"{own}/.. holds every account's folders{where(own)}"
    assert refused_alike(faces, "../../x").endswith(f"is outside your folders{where(own)}")


def test_it_makes_a_missing_folder_inside_the_persons_own(faces, own, owner):
    rest, tool, page = faces
    assert rest("shop-web") == ""
    assert tool(str(own / "api" / "v2")) == ""
    assert Chat.objects.get(name="shell-0").folder == str(own / "shop-web")
    assert (own / "api" / "v2").is_dir()
    assert own.stat().st_mode & 0o777 == 0o700
    assert Chat.objects.filter(user=owner).count() == 2


def test_it_makes_var_folders_username_0700_when_agent_folders_is_unset(
    faces, runner_owner, settings, tmp_path
):
    settings.AGENT_FOLDERS = []
    settings.VAR_DIR = tmp_path / "var"
    settings.AGENT_FOLDERS_DEFAULT = tmp_path / "var" / "folders"
    settings.VAR_DIR.mkdir(mode=0o700)
    rest, _tool, _page = faces
    assert rest("shop-web") == ""
    mine = tmp_path / "var" / "folders" / "alice"
    assert Chat.objects.get().folder == str(mine / "shop-web")
    assert (mine / "shop-web").is_dir()
    assert mine.stat().st_mode & 0o777 == 0o700
    assert mine.parent.stat().st_mode & 0o777 == 0o700
    assert "is inside the server's var/" in rest(str(tmp_path / "var" / "db"))


def test_it_two_accounts_never_get_the_same_folder(agent_folders, runner_owner, outsider):
    do_allow_runners(outsider, allowed=True)
    apis = [ApiClient(do_create_api_token(user, name="t")[1]) for user in (runner_owner, outsider)]
    made = [api.call("POST", "/api/v1/chats", {**COMMAND, "folder": "repo"}) for api in apis]
    assert [answer.status_code for answer in made] == [201, 201]
    folders = set(Chat.objects.values_list("folder", flat=True))
    assert folders == {
        str(agent_folders / "alice" / "repo"),
        str(agent_folders / "mallory" / "repo"),
    }
    taken = apis[1].call(
        "POST", "/api/v1/chats", {**COMMAND, "name": "x", "folder": "../alice/repo"}
    )
    assert "another account's folders" in taken.json()["message"]


@pytest.mark.parametrize("username", ["..", "a/b", ".hidden", "-rf", "Alice", "cafe\u0301"])
def test_it_gives_no_folder_to_a_username_that_cannot_name_one_safely(
    username, agent_folders, owner
):
    user = User.objects.create(username=username)  # as an admin's script may: not normalized
    do_allow_runners(user, allowed=True)
    api = ApiClient(do_create_api_token(user, name="t")[1])
    answer = api.call("POST", "/api/v1/chats", {**COMMAND, "folder": "repo"})
    assert answer.status_code == 400
    message = answer.json()["message"]
    assert message.startswith(f"folder: your username {username!r} ")
    assert "your account has no working folders on this server" in message
    assert sorted(os.listdir(agent_folders)) == []


def test_it_checks_a_folder_moved_by_patch_and_mcp(faces, own, owner_api, owner):
    rest, _tool, _page = faces
    assert rest("shop-web") == ""
    chat = Chat.objects.get()
    moved = owner_api.call("PATCH", f"/api/v1/chats/{chat.pk}", {"folder": "/"})
    assert moved.json()["message"] == f"folder: / is the root folder{where(own)}"
    _token, secret = do_create_api_token(owner, name="mcp")
    result = mcp(secret, "update_chat", {"chat": chat.pk, "folder": "/"})
    assert result.content[0].text == f"invalid_input: {moved.json()['message']}"
    assert Chat.objects.get().folder == str(own / "shop-web")
    assert owner_api.call("PATCH", f"/api/v1/chats/{chat.pk}", {"folder": "api"}).status_code == 200
    assert Chat.objects.get().folder == str(own / "api")
    assert (own / "api").is_dir()
