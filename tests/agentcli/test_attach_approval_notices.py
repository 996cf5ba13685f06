"""Inbound `ask` with the REAL Claude Code CLI attached: the session sends two messages to
a chat that asks its person first; the person approves one and denies the other while
the session works; the session's very next step (its PostToolUse hook) tells its agent
both, once, as notices naming each message and its new state."""

import json

from tests.agentcli import test_attach_clis as attach
from tests.agentcli.headless import claude_turn

# The attach tests' fixtures: one live server for the module, a person each test.
served, crosstalk, sender, messenger = (
    attach.served,
    attach.crosstalk,
    attach.sender,
    attach.messenger,
)
release_db_thread_connection = attach.release_db_thread_connection


def notice_of(message_id: str, state: str) -> str:
    """How the notice reads inside a model request's JSON body."""
    return json.dumps(f'<crosstalk-notice message="{message_id}" state="{state}">')[1:-1]


def test_claude_hears_its_message_approved_and_denied_at_its_next_step(
    claude_cli,
    messenger,
    crosstalk,
    sender,
    cli_home,
    cli_workdir,
):
    attached = crosstalk.new_chat("api-claude", "claude-code")
    key = crosstalk.agent_config("api-claude", "claude-code", cli_workdir, cli_home)
    asking = sender  # a demo chat that ran: it asks its person first, and is stopped so
    crosstalk.call("POST", f"/api/v1/chats/{asking['id']}/stop")  # nothing answers it
    patched = crosstalk.call("PATCH", f"/api/v1/chats/{asking['id']}", {"inbound": "ask"})
    assert patched["inbound"] == "ask"
    decided = {}

    def decide():
        """The person, while the session runs: approve ONE, deny TWO."""
        items = crosstalk.call("GET", f"/api/v1/messages?chat={attached['id']}")["items"]
        sent = {m["text"]: m for m in items if m["from_chat"] == attached["id"]}
        assert {m["detail"] for m in sent.values()} == {"awaiting_approval"}
        ok = crosstalk.call("POST", f"/api/v1/messages/{sent['ONE']['id']}/approve")
        no = crosstalk.call("POST", f"/api/v1/messages/{sent['TWO']['id']}/deny")
        decided.update(approved=ok, denied=no)

    # The request after both MessageChat results, which answers with the shell step.
    messenger.triggers.append(
        (lambda body: body.count("tool_result") >= 2 and "STEPPED" not in body, decide)
    )
    call = {"to": asking["id"], "waitSeconds": 0}
    prompt = "\n".join(
        [
            f"[[call MessageChat {json.dumps(call | {'text': 'ONE'})}]]",
            f"[[call MessageChat {json.dumps(call | {'text': 'TWO'})}]]",
            "[[bash printf 'STEP%s' PED]]",
            "[[say all done]]",
        ]
    )

    run = claude_turn(
        claude_cli,
        messenger,
        cli_home,
        cli_workdir,
        prompt,
        "--permission-mode",
        "bypassPermissions",
    )

    assert run.final == "all done", run.describe()
    approved, denied = decided["approved"], decided["denied"]
    assert (approved["state"], approved["detail"]) == ("queued", "held_until_you_write")
    assert (denied["state"], denied["detail"]) == ("cancelled", "denied")
    calls = [json.dumps(c.body) for c in messenger.model_calls("anthropic")]
    after_step = next(i for i, body in enumerate(calls) if "STEPPED" in body)
    told = calls[after_step]
    assert notice_of(approved["id"], "approved") in told, told[-3000:]
    assert notice_of(denied["id"], "denied") in told
    # Before the step nothing was told; once told, never again as new context.
    assert not any("crosstalk-notice" in body for body in calls[:after_step])
    assert calls[-1].count(notice_of(denied["id"], "denied")) == 1
    assert crosstalk.call("GET", "/api/v1/agent/inbox", key=key).get("notices") is None
