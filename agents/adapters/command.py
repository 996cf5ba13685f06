"""Any command line as a chat's agent: the turn's input on its stdin, its stdout
the answer (shown as it comes). It has no hooks, so a message sent while it runs
queues behind the turn and opens the next one."""

from pathlib import Path

from django.conf import settings

from agents.adapters.cli import CliAdapter, HostedRun
from agents.adapters.events import Event, Said, printable
from agents.errors import AgentUnavailable
from agents.safe_files import Folder
from chats.agent_kinds import command_program, program_found
from chats.models import Chat

SHELL = "/bin/sh"


class CommandAgent(CliAdapter):
    kind = Chat.Agent.COMMAND
    program = "command"  # only its name in sentences: its program is its command's first word
    # No model, no tools: a command quiet for a long while is only working.
    talks_to_model = False

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

    def workdir(self, chat: Chat, folder: str) -> str:
        """Its folder, when it has one; else a folder of its own under var/agents/."""
        if folder:
            return super().workdir(chat, folder)
        with Folder.open_root(Path(settings.AGENTS_DIR)) as agents, agents.sub(chat.pk) as own:
            return str(own.path)
