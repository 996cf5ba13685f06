"""Claude Code 2.1.332's own SendMessage and ListAgents in sessions attached exactly as
`agent_config --write` does: the REAL CLI, a live Crosstalk, the fake model scripting
the calls. A SendMessage to another attached chat's name is a Crosstalk message to it;
ListAgents is no second list of the person's chats."""

import json

from tests.agentcli.headless import claude_turn
from tests.agentcli.test_attach_clis import (  # noqa: F401 (fixtures)
    config_dir,
    crosstalk,
    hosted,
    messenger,
    release_db_thread_connection,
    run_hosted_claude,
    sender,
    sent_texts,
    served,
)


def attached(crosstalk, name: str, folder, home) -> dict:  # noqa: F811
    chat = crosstalk.new_chat(name, "claude-code")
    folder.mkdir()
    crosstalk.agent_config(name, "claude-code", folder, home)
    return chat


def test_send_message_to_an_attached_chats_name_is_a_crosstalk_message(
    claude_cli,
    messenger,  # noqa: F811 (the fixtures imported above)
    crosstalk,  # noqa: F811
    cli_home,
    tmp_path,
):
    api = attached(crosstalk, "api-claude", tmp_path / "api", cli_home)
    web = attached(crosstalk, "web-claude", tmp_path / "web", cli_home)
    settings = json.loads((tmp_path / "api" / ".claude" / "settings.local.json").read_text())
    assert settings["crossSessionInbound"] == "refuse"
    # web-claude's session ran once (its hooks registered it), so it can be reached.
    ready = claude_turn(claude_cli, messenger, cli_home, tmp_path / "web", "[[say ready]]")
    assert ready.final == "ready", ready.describe()

    calls = [
        "[[call ListAgents {}]]",
        '[[call SendMessage {"to": "web-claude", "summary": "port", "message": "HELLO-WEB"}]]',
        '[[call SendMessage {"to": "researcher", "message": "NOT-A-CHAT"}]]',
        "[[say sent it]]",
    ]
    run = claude_turn(claude_cli, messenger, cli_home, tmp_path / "api", "\n".join(calls))

    assert run.final == "sent it", run.describe()
    assert sent_texts(crosstalk, api["id"]) == ["HELLO-WEB"]  # the one chat, once
    items = crosstalk.call("GET", f"/api/v1/messages?chat={web['id']}")["items"]
    (message,) = [m for m in items if m["to_chat"] == web["id"]]
    assert (message["from_chat"], message["sent_by"], message["state"]) == (
        api["id"],
        "agent",
        "queued",
    )
    listed, sent, refused = messenger.tool_results("anthropic")
    assert "mcp__crosstalk__ListChats" in listed and "web-claude" not in listed
    assert f"Sent {message['id']} to web-claude" in sent
    assert "mcp__crosstalk__MessageChat" in refused and "nothing was sent" in refused
    log = crosstalk.call("GET", f"/api/v1/activity?chat={api['id']}")["items"]
    assert any(row["action"] == "message" and row["message"] == message["id"] for row in log)


def test_a_hosted_claude_turn_routes_send_message_over_its_http_hooks(
    claude_cli,
    messenger,  # noqa: F811
    crosstalk,  # noqa: F811
    sender,  # noqa: F811
    cli_home,
    cli_workdir,
    config_dir,  # noqa: F811
):
    chat = crosstalk.new_chat("hosted-claude", "claude-code")
    config = hosted("claude-code", chat["agent_key"], crosstalk.url, config_dir)
    settings = json.loads((config_dir / "settings.json").read_text())
    assert settings["crossSessionInbound"] == "refuse"
    assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["type"] == "http"
    crosstalk.call("POST", f"/api/v1/chats/{sender['id']}/stop")  # held: no answer races
    args = json.dumps({"to": "checkout", "message": "HOSTED-HELLO"})
    prompt = f"[[call SendMessage {args}]]\n[[say sent it]]"

    run = run_hosted_claude(
        claude_cli, messenger, config, config_dir, cli_home, cli_workdir, prompt
    )

    assert run.final == "sent it", run.describe()
    assert sent_texts(crosstalk, chat["id"]) == ["HOSTED-HELLO"]
    (result,) = messenger.tool_results("anthropic")
    assert "Sent msg_" in result and "to checkout: Queued — held until you write" in result
