"""Any command line as a chat's agent: the turn's input on its stdin, its stdout
the answer (shown as it comes). It has no hooks, so a message sent while it runs
queues behind the turn and opens the next one."""

import os
import shlex
import shutil
from pathlib import Path

from agents.adapters.base import AgentUnavailable
from agents.adapters.cli import CliAdapter, HostedRun, missing_folder
from agents.adapters.events import Event, Said, printable
from agents.adapters.setup import chat_folder
from chats.agent_kinds import Takes
from chats.models import Chat

SHELL = "/bin/sh"


def command_program(command: str) -> str:
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    return words[0] if words else ""


def program_found(command: str, folder: str) -> bool:
    """Its first word names an executable: on PATH, or a path (from its working folder)."""
    program = command_program(command)
    if not program:
        return False
    if "/" not in program:
        return shutil.which(program) is not None
    path = Path(folder or ".") / program
    return path.is_file() and os.access(path, os.X_OK)


class CommandAgent(CliAdapter):
    kind = Chat.Agent.COMMAND
    program = "command"
    takes = Takes()
    # No model, no tools: a command quiet for a long while is only working.
    talks_to_model = False

    @classmethod
    def why_not_ready(cls, *, folder: str, command: str) -> str | None:
        if folder and (problem := missing_folder(folder)) is not None:
            return f"folder: {problem}."
        if command and not program_found(command, folder):
            name = command_program(command)
            return f"command: `{name}` was not found on PATH or in the working folder."
        return None

    def binary(self, chat: Chat) -> str:
        if not chat.command.strip():
            raise AgentUnavailable("the chat has no command line to run (set `command`)")
        if not program_found(chat.command, chat.folder):
            name = command_program(chat.command)
            raise AgentUnavailable(f"`{name}` was not found on PATH or in the working folder")
        return SHELL

    def argv(self, run: HostedRun) -> list[str]:
        return [run.binary, "-c", run.chat.command]

    def parse(self, line: str) -> list[Event]:
        return [Said(printable(line) + "\n", delta=True)]

    def program_name(self, chat: Chat) -> str:
        return command_program(chat.command) or "command"

    def workdir(self, chat: Chat) -> str:
        """Its folder, when it has one; else a folder of its own under var/agents/."""
        if chat.folder:
            return super().workdir(chat)
        folder = chat_folder(chat)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        return str(folder)
