"""`[[call TOOL {args}]]` reaches the MCP tool TOOL of server `crosstalk` under each
CLI's own naming, with a one-tool stdio MCP server (echo_mcp.py) standing in."""

import json
import sys
from pathlib import Path

from tests.agentcli.clis import claude_env, codex_env, gemini_env
from tests.agentcli.headless import claude_turn, codex_turn, gemini_turn

ECHO = [sys.executable, str(Path(__file__).with_name("echo_mcp.py"))]
SCRIPT = '[[call echo {"text": "ping-7"}]]\n[[say finished]]'


def claude_mcp_args(tmp_path) -> list:
    config = {"mcpServers": {"crosstalk": {"type": "stdio", "command": ECHO[0], "args": ECHO[1:]}}}
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config))
    return ["--mcp-config", path, "--allowedTools", "mcp__crosstalk__echo"]


def answered_tools(fake, api):
    return [call.answer.tool for call in fake.model_calls(api)]


def test_it_calls_claude_mcp_tool_inline(claude_cli, fake_model, cli_home, cli_workdir, tmp_path):
    run = claude_turn(
        claude_cli, fake_model, cli_home, cli_workdir, SCRIPT, *claude_mcp_args(tmp_path)
    )

    assert run.final == "finished", run.describe()
    assert answered_tools(fake_model, "anthropic") == ["mcp__crosstalk__echo", ""]
    assert fake_model.saw("ECHO: ping-7", "anthropic")


def test_it_loads_claude_mcp_tool_through_tool_search_first(
    claude_cli, fake_model, cli_home, cli_workdir, tmp_path
):
    env = claude_env(fake_model, cli_home)
    del env["ENABLE_TOOL_SEARCH"]  # Claude Code's default: MCP tools are deferred

    run = claude_turn(
        claude_cli, fake_model, cli_home, cli_workdir, SCRIPT, *claude_mcp_args(tmp_path), env=env
    )

    assert run.final == "finished", run.describe()
    tools = answered_tools(fake_model, "anthropic")
    assert tools == ["ToolSearch", "mcp__crosstalk__echo", ""]
    assert fake_model.saw("ECHO: ping-7", "anthropic")


def test_it_calls_codex_mcp_tool_in_its_namespace(codex_cli, fake_model, cli_home, cli_workdir):
    # `required = true`: else `codex exec` does not wait for the server to start, and a
    # slow one is simply missing from the first request's tools.
    server = f"""
[mcp_servers.crosstalk]
command = {json.dumps(ECHO[0])}
args = {json.dumps(ECHO[1:])}
default_tools_approval_mode = "approve"
required = true
"""
    env = codex_env(fake_model, cli_home, extra_toml=server)

    run = codex_turn(codex_cli, fake_model, cli_home, cli_workdir, SCRIPT, env=env)

    assert run.final == "finished", run.describe()
    first = fake_model.model_calls("openai")[0].answer
    assert (first.namespace, first.tool) == ("mcp__crosstalk", "echo")
    assert fake_model.saw("ECHO: ping-7", "openai")


def test_it_calls_gemini_mcp_tool_by_prefixed_name(gemini_cli, fake_model, cli_home, cli_workdir):
    server = {"command": ECHO[0], "args": ECHO[1:], "trust": True}
    env = gemini_env(fake_model, cli_home, settings={"mcpServers": {"crosstalk": server}})

    run = gemini_turn(gemini_cli, fake_model, cli_home, cli_workdir, SCRIPT, env=env)

    assert run.final == "finished", run.describe()
    assert answered_tools(fake_model, "gemini") == ["mcp_crosstalk_echo", ""]
    assert fake_model.saw("ECHO: ping-7", "gemini")
