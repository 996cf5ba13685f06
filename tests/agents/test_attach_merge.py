"""agent_config --write / --remove: Crosstalk's entries merged into the files each CLI
reads, everything else kept, the key only where git never sees it."""

import json
import stat
import subprocess
import tomllib

import pytest

from agents.attach import ConfigFileError, apply, config_edits
from chats.models import Chat

URL = "http://127.0.0.1:8123"
KEY = "cak_secret-key-123"


@pytest.fixture
def homes(tmp_path, monkeypatch):
    """The person's per-user config folders, private to the test."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    (tmp_path / "codex-home").mkdir()
    return tmp_path


@pytest.fixture
def folder(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    return work


def write(agent: str, folder, *, key: str = KEY) -> list[str]:
    edits = config_edits(Chat(name="api"), agent, key=key, base_url=URL, folder=folder)
    return apply(edits, folder)


def remove(agent: str, folder) -> list[str]:
    edits = config_edits(Chat(name="api"), agent, key="", base_url="", folder=folder)
    return apply(edits, folder, remove=True)


def dump(path, data) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path.read_text()


def git(folder, *args) -> str:
    done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=True)  # noqa: S603, S607
    return done.stdout


def files_with_key(folder) -> list[str]:
    """What `git add .` would take that holds the key."""
    listed = git(folder, "status", "--porcelain", "--untracked-files=all").splitlines()
    paths = [line[3:] for line in listed]
    return [path for path in paths if KEY in (folder / path).read_text()]


# Claude Code ----------------------------------------------------------------------


PERSON_SETTINGS = {
    "model": "opus",
    "env": {"MY_VAR": "1"},
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Read(.env)"]},
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},
}


def claude_files(homes, folder):
    return homes / "claude-home" / ".claude.json", folder / ".claude" / "settings.local.json"


def test_it_claude_keeps_the_persons_servers_settings_and_hooks(homes, folder):
    user, local = claude_files(homes, folder)
    person = {"projects": {"/elsewhere": {"mcpServers": {"x": {}}}}, "theme": "dark"}
    user_before = dump(user, person)
    local_before = dump(local, PERSON_SETTINGS)
    mcp_before = dump(folder / ".mcp.json", {"mcpServers": {"github": {"url": "g"}}})

    write("claude-code", folder)

    data = json.loads(user.read_text())
    assert data["theme"] == "dark" and data["projects"]["/elsewhere"] == {"mcpServers": {"x": {}}}
    server = data["projects"][str(folder.resolve())]["mcpServers"]["crosstalk"]
    assert server == {
        "type": "http",
        "url": f"{URL}/mcp",
        "headers": {"Authorization": f"Bearer {KEY}"},
    }
    settings = json.loads(local.read_text())
    assert settings["model"] == "opus" and settings["env"]["MY_VAR"] == "1"
    assert settings["env"]["CROSSTALK_KEY"] == KEY
    assert settings["permissions"]["allow"][0] == "Bash(npm test:*)"
    assert "mcp__crosstalk__MessageChat" in settings["permissions"]["allow"]
    assert settings["permissions"]["deny"] == ["Read(.env)"]
    assert settings["crossSessionInbound"] == "refuse"  # Claude Code's own inbound: off
    stop = settings["hooks"]["Stop"]
    assert stop[0]["hooks"][0]["command"] == "notify-send done"
    assert stop[1]["hooks"][0]["command"].endswith("crosstalk-hook claude-code")
    assert (folder / ".mcp.json").read_text() == mcp_before  # untouched: no key in it
    assert stat.S_IMODE(local.stat().st_mode) == 0o600

    write("claude-code", folder, key="cak_second")  # again: replaced, not doubled
    settings = json.loads(local.read_text())
    assert len(settings["hooks"]["Stop"]) == 2 and settings["env"]["CROSSTALK_KEY"] == "cak_second"
    assert settings["permissions"]["allow"].count("mcp__crosstalk__ListChats") == 1

    remove("claude-code", folder)
    assert (user.read_text(), local.read_text()) == (user_before, local_before)


def test_it_claude_remove_deletes_only_the_files_it_created(homes, folder):
    write("claude-code", folder)
    user, local = claude_files(homes, folder)
    assert local.is_file() and user.is_file()

    done = remove("claude-code", folder)

    assert not local.exists() and not (folder / ".claude").exists()
    assert not user.exists()  # it did not exist before: restored as it was (issue 35)
    assert f"Removed {local}" in done


def test_it_creates_claude_json_private_and_keeps_what_claude_added(homes, folder):
    write("claude-code", folder)
    user, _ = claude_files(homes, folder)
    assert stat.S_IMODE(user.stat().st_mode) == 0o600  # as Claude Code creates it
    data = json.loads(user.read_text())
    user.write_text(json.dumps({**data, "numStartups": 3}, indent=2))  # Claude ran meanwhile
    remove("claude-code", folder)
    assert json.loads(user.read_text()) == {"numStartups": 3}


def test_it_claude_takes_an_earlier_versions_server_out_of_mcp_json(homes, folder):
    mcp = folder / ".mcp.json"
    old = {"type": "http", "url": "u", "headers": {"Authorization": f"Bearer {KEY}"}}
    dump(mcp, {"mcpServers": {"github": {"url": "g"}, "crosstalk": old}})
    write("claude-code", folder)
    assert json.loads(mcp.read_text()) == {"mcpServers": {"github": {"url": "g"}}}


def test_it_claude_files_the_server_under_the_repository_root(homes, folder):
    git(folder, "init", "-q")
    sub = folder / "web"
    sub.mkdir()
    write("claude-code", sub)
    projects = json.loads(claude_files(homes, folder)[0].read_text())["projects"]
    assert list(projects) == [str(folder.resolve())]  # where `claude mcp add` puts it too


def test_it_an_unparseable_file_is_left_alone_and_nothing_is_written(homes, folder):
    user, local = claude_files(homes, folder)
    local.parent.mkdir(parents=True)
    local.write_text('{"model": "opus",}')
    with pytest.raises(ConfigFileError, match="not valid JSON"):
        write("claude-code", folder)
    assert local.read_text() == '{"model": "opus",}'
    assert not user.exists()


def test_it_a_file_keeps_its_mode_its_indentation_and_its_symlink(homes, folder, tmp_path):
    real = tmp_path / "dotfiles" / "claude.json"
    real.parent.mkdir()
    real.write_text('{\n    "theme": "dark"\n}')
    real.chmod(0o640)
    user = claude_files(homes, folder)[0]
    user.parent.mkdir()
    user.symlink_to(real)

    write("claude-code", folder)

    assert user.is_symlink()
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    text = real.read_text()
    assert text.startswith('{\n    "theme": "dark",\n    "projects"') and not text.endswith("\n")


# The key and git --------------------------------------------------------------------


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_it_git_would_add_no_file_holding_the_key(homes, folder, agent):
    git(folder, "init", "-q")
    (folder / "README").write_text("hello\n")

    write(agent, folder)

    assert files_with_key(folder) == []
    assert "README" in git(folder, "status", "--porcelain", "--untracked-files=all")
    secret = {"claude-code": ".claude/settings.local.json", "codex": ".crosstalk/env",
              "gemini": ".crosstalk/env"}[agent]  # fmt: skip
    assert KEY in (folder / secret).read_text()
    assert stat.S_IMODE((folder / secret).stat().st_mode) == 0o600
    exclude = (folder / ".git" / "info" / "exclude").read_text()
    assert f"/{secret}" in exclude

    remove(agent, folder)
    assert f"/{secret}" not in (folder / ".git" / "info" / "exclude").read_text()
    assert "crosstalk" not in (folder / ".git" / "info" / "exclude").read_text()


def test_it_a_worktree_is_excluded_in_its_repositorys_exclude_file(homes, tmp_path):
    main = tmp_path / "main"
    main.mkdir()
    git(main, "init", "-q")
    git(
        main,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    git(main, "worktree", "add", "-q", str(tmp_path / "feature"))
    feature = tmp_path / "feature"

    write("gemini", feature)

    assert files_with_key(feature) == []
    assert "/.crosstalk/env" in (main / ".git" / "info" / "exclude").read_text()


def test_it_a_key_file_git_tracks_is_refused(homes, folder):
    git(folder, "init", "-q")
    env = folder / ".crosstalk" / "env"
    env.parent.mkdir()
    env.write_text("OTHER=1\n")
    git(folder, "add", ".crosstalk/env")
    with pytest.raises(ConfigFileError, match="tracked by git"):
        write("codex", folder)
    assert env.read_text() == "OTHER=1\n"
    assert not (homes / "codex-home" / "crosstalk.config.toml").exists()


# Codex ------------------------------------------------------------------------------


def test_it_codex_leaves_the_persons_config_alone_and_uses_a_profile(homes, folder):
    codex_home = homes / "codex-home"
    config = codex_home / "config.toml"
    config.write_text('model = "o3"\n[model_providers.mine]\nname = "mine"\n')
    before = config.read_text()

    write("codex", folder)

    assert config.read_text() == before
    profile = tomllib.loads((codex_home / "crosstalk.config.toml").read_text())
    assert profile["sandbox_mode"] == "workspace-write"
    assert profile["mcp_servers"]["crosstalk"]["bearer_token_env_var"] == "CROSSTALK_KEY"
    assert set(profile["hooks"]) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}
    assert KEY not in (codex_home / "crosstalk.config.toml").read_text()
    assert (
        folder / ".crosstalk" / "env"
    ).read_text() == f"CROSSTALK_URL={URL}\nCROSSTALK_KEY={KEY}\n"
    assert not list(folder.glob("**/config.toml"))  # no CODEX_HOME in the project

    remove("codex", folder)
    assert not (codex_home / "crosstalk.config.toml").exists()
    assert not (folder / ".crosstalk").exists()
    assert config.read_text() == before


def test_it_codex_keeps_what_the_person_added_to_the_profile(homes, folder):
    profile = homes / "codex-home" / "crosstalk.config.toml"
    profile.write_text('# my tweaks\nmodel = "o3"  # fast\n\n[mcp_servers.github]\nurl = "g"\n')

    write("codex", folder)
    text = profile.read_text()
    assert text.startswith('# my tweaks\nmodel = "o3"  # fast\n')
    assert tomllib.loads(text)["mcp_servers"]["github"] == {"url": "g"}

    remove("codex", folder)
    assert tomllib.loads(profile.read_text()) == {
        "model": "o3",
        "mcp_servers": {"github": {"url": "g"}},
    }
    assert "# my tweaks" in profile.read_text()


def test_it_codex_refuses_a_profile_that_is_not_toml(homes, folder):
    profile = homes / "codex-home" / "crosstalk.config.toml"
    profile.write_text("model = \n")
    with pytest.raises(ConfigFileError, match="not valid TOML"):
        write("codex", folder)
    assert profile.read_text() == "model = \n"
    assert not (folder / ".crosstalk").exists()


# Gemini -----------------------------------------------------------------------------


def test_it_gemini_keeps_the_persons_servers_settings_and_hooks(homes, folder):
    settings_path = folder / ".gemini" / "settings.json"
    person = {
        "model": {"name": "gemini-2.5-pro"},
        "mcpServers": {"github": {"httpUrl": "g"}},
        "hooks": {"AfterAgent": [{"matcher": "*", "hooks": [{"type": "command", "command": "x"}]}]},
    }
    before = dump(settings_path, person)

    write("gemini", folder)

    data = json.loads(settings_path.read_text())
    assert data["model"] == person["model"]
    assert set(data["mcpServers"]) == {"github", "crosstalk"}
    assert data["mcpServers"]["crosstalk"]["headers"] == {
        "Authorization": "Bearer ${CROSSTALK_KEY}"
    }
    assert [g["hooks"][0]["command"] for g in data["hooks"]["AfterAgent"]][0] == "x"
    assert len(data["hooks"]["AfterAgent"]) == 2 and KEY not in settings_path.read_text()

    remove("gemini", folder)
    assert settings_path.read_text() == before
    assert not (folder / ".crosstalk").exists()


def test_it_gemini_leaves_committed_settings_and_uses_its_own_file(homes, folder):
    settings_path = folder / ".gemini" / "settings.json"
    before = '{\n\t"model": {"name": "x"}\n}'
    settings_path.parent.mkdir()
    settings_path.write_text(before)
    git(folder, "init", "-q")
    git(folder, "add", ".")

    write("gemini", folder)

    assert settings_path.read_text() == before  # never rewritten, not even re-indented
    own = folder / ".crosstalk" / "gemini-settings.json"
    data = json.loads(own.read_text())
    assert data["mcpServers"]["crosstalk"]["trust"] is True and "AfterTool" in data["hooks"]
    env = (folder / ".crosstalk" / "env").read_text()
    assert f"GEMINI_CLI_SYSTEM_SETTINGS_PATH={own}" in env
    assert stat.S_IMODE(own.stat().st_mode) == 0o600
    assert (
        git(folder, "status", "--porcelain", "--untracked-files=all")
        == "A  .gemini/settings.json\n"
    )

    remove("gemini", folder)
    assert settings_path.read_text() == before
    assert not (folder / ".crosstalk").exists()


def test_it_gemini_refuses_settings_with_comments_and_leaves_them(homes, folder):
    settings_path = folder / ".gemini" / "settings.json"
    settings_path.parent.mkdir()
    text = '{\n  // my model\n  "model": {"name": "x"}, "u": "http://a//b"\n}\n'
    settings_path.write_text(text)
    with pytest.raises(ConfigFileError, match="comments"):
        write("gemini", folder)
    assert settings_path.read_text() == text
    assert not (folder / ".crosstalk").exists()


def test_it_the_env_file_keeps_the_persons_other_lines(homes, folder):
    env = folder / ".crosstalk" / "env"
    env.parent.mkdir()
    env.write_text("# mine\nOTHER=1\nCROSSTALK_KEY=cak_old\n")
    write("gemini", folder)
    assert env.read_text() == f"# mine\nOTHER=1\nCROSSTALK_URL={URL}\nCROSSTALK_KEY={KEY}\n"
    remove("gemini", folder)
    assert env.read_text() == "# mine\nOTHER=1\n"


# Committed files (issue 35) ---------------------------------------------------------

COMMITTED = {
    ".mcp.json": '{"mcpServers": {"github": {"url": "g"}}}',  # one line: reformatting shows
    ".claude/settings.json": '{\n    "model": "opus"\n}\n',
    ".codex/config.toml": 'model = "o3"\n\n[mcp_servers.docs]\nurl = "d"\n',
    ".gemini/settings.json": '{\n\t"model": {"name": "x"}\n}',
}


def committed_repo(folder) -> dict:
    git(folder, "init", "-q")
    for relative, text in COMMITTED.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_bytes(text.encode())
    git(folder, "add", ".")
    git(folder, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "config")
    return {relative: (folder / relative).read_bytes() for relative in COMMITTED}


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_it_write_and_remove_leave_committed_files_byte_identical(homes, folder, agent):
    before = committed_repo(folder)

    write(agent, folder)
    assert git(folder, "status", "--porcelain") == ""  # nothing tracked changed, nothing to add
    remove(agent, folder)

    assert git(folder, "status", "--porcelain", "--untracked-files=all") == ""
    assert {relative: (folder / relative).read_bytes() for relative in COMMITTED} == before
    assert not (folder / ".crosstalk").exists()


def test_it_prints_what_to_change_in_a_tracked_file_instead_of_writing_it(homes, folder):
    """A committed .gemini/settings.json that holds an earlier version's entries: left
    as it is, and the change is printed for the person."""
    server = {"httpUrl": "u", "headers": {"Authorization": "Bearer ${CROSSTALK_KEY}"}}
    settings_path = folder / ".gemini" / "settings.json"
    dump(settings_path, {"mcpServers": {"crosstalk": server}, "model": {"name": "x"}})
    git(folder, "init", "-q")
    git(folder, "add", ".")
    text = settings_path.read_bytes()

    done = "\n".join(write("gemini", folder))

    assert settings_path.read_bytes() == text
    assert "git tracks it" in done and '-    "crosstalk": {' in done


def test_it_remove_restores_an_untracked_file_byte_for_byte(homes, folder):
    local = folder / ".claude" / "settings.local.json"
    local.parent.mkdir()
    original = '{"permissions":{"allow":["Bash(ls)"]},  "model":"opus"}'
    local.write_text(original)

    write("claude-code", folder)
    assert local.read_text() != original and KEY in local.read_text()
    remove("claude-code", folder)

    assert local.read_text() == original
    assert not (folder / ".crosstalk").exists()
