"""What every command-line agent shares: find the program, configure the turn,
run it as a process (agents.process), stream its events into the conversation,
and turn how it ended into the turn's result or a failure the person can act on
(agents.adapters.judge): its exit status and final event decide, warnings and
errors it recovered from are notes, a model out of reach fails it within
TURN_STALL_SECONDS.

Each subclass knows one CLI: its argv, its extra environment, its parser, where
its model is."""

import asyncio
import os
from dataclasses import dataclass

from django.conf import settings

from agents.adapters.base import Adapter, TurnContext, TurnResult, TurnStopped
from agents.adapters.events import Event
from agents.adapters.judge import Watchdog, failure_reason, host_of
from agents.adapters.output import TurnOutput
from agents.adapters.setup import HostedSetup, chat_folder, hosted_setup
from agents.attach import AttachConfig
from agents.dbthread import in_db_thread
from agents.errors import AgentFailed, AgentUnavailable
from agents.launch import Launch, build, why_not_launchable
from agents.process import Ended, ProcessOutcome, ProcessSpec, run_process
from agents.safe_files import Folder
from chats import agent_kinds, folders
from chats.actions import (
    do_add_entry,
    do_issue_turn_key,
    do_record_run,
    do_set_session_id,
    turn_is_running,
)
from chats.models import Chat, Entry


@dataclass(slots=True)
class Attempt:
    """One run of the CLI: how it ended, what it said, its watchdog, its model's host."""

    outcome: ProcessOutcome
    output: TurnOutput
    watchdog: Watchdog
    host: str


@dataclass(slots=True)
class HostedRun:
    chat: Chat
    binary: str
    prompt: str
    setup: HostedSetup
    workdir: str


class CliAdapter(Adapter):
    # The program and the variable naming its path: chats' table of kinds (chats checks
    # them when a chat is made, agent_kinds.why_not_ready), read when the subclass is defined.
    program = ""
    bin_variable = ""
    # Where the CLI finds its model: this variable of its environment, else this host.
    model_url_variable = ""
    default_model_host = ""
    # What it prints when the session it was told to resume is gone (another machine,
    # its folder cleared): the turn starts a fresh one instead of failing for ever.
    session_gone = ""
    # A CLI that talks to a model (watched for TURN_STALL_SECONDS without progress) and
    # gets Crosstalk's tools when the chat's switch is on.
    talks_to_model = True
    # The server's variables its provider reads (names or PREFIX_*): passed on to it.
    providers: tuple[str, ...] = ()
    # Where its settings go, under the chat's folder ("": that folder itself).
    config_subfolder = ""
    # Everything else one CLI needs, named here so its adapter is its one home: the
    # module that writes its attach files and hooks (agents.attach.<cli>), and its
    # hooks' event names, payload and answers (agents.hooks.clis).
    attach = None
    hooks = None

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if (spec := agent_kinds.of(cls.kind)).program:
            cls.program, cls.bin_variable = spec.program, spec.bin_variable

    # What a subclass says -------------------------------------------------------

    def argv(self, run: HostedRun) -> list[str]:
        raise NotImplementedError

    def env(self, run: HostedRun) -> dict[str, str]:
        return {}

    def prepare_home(self, folder: Folder, config: AttachConfig, setup: HostedSetup) -> None:
        """Anything more its settings folder needs before the attach files go in."""

    def permission_mode(self, chat: Chat) -> str:
        """The chat's mode, blank its default; one it cannot take (a row older than
        the check at creation) fails the turn rather than run with another."""
        mode = chat.permission_mode or self.default_permission_mode
        if mode not in self.permission_modes:
            valid = ", ".join(self.permission_modes)
            raise AgentUnavailable(f"permission mode {mode!r} is not one of {valid}")
        return mode

    def stdin(self, run: HostedRun) -> str | None:
        """The turn's input reaches every CLI on stdin, never on its command line."""
        return run.prompt

    def parse(self, line: str) -> list[Event]:
        raise NotImplementedError

    def model_host(self, run: HostedRun, env: dict[str, str]) -> str:
        """The host of the model URL the CLI is given (`env`: its whole environment)."""
        return host_of(env.get(self.model_url_variable, ""), self.default_model_host)

    def missing_tools(self, outcome: ProcessOutcome) -> str:
        """Why the CLI ran without Crosstalk's tools, when only its stderr tells."""
        return ""

    def lost_session(self, chat: Chat, outcome: ProcessOutcome) -> str | None:
        """A note when a resume failed because the session is gone: a fresh one starts."""
        said = f"{outcome.stderr_head}\n{outcome.stderr_tail}"
        failed = outcome.ended == Ended.EXITED and outcome.exit_code != 0
        if not (self.session_gone and chat.session_id and failed and self.session_gone in said):
            return None
        return (
            f"`{self.program}` no longer has this chat's session {chat.session_id} (its folder"
            " was moved or cleared): a fresh session starts, without the earlier conversation."
        )

    def program_name(self, chat: Chat) -> str:
        return self.program

    def workdir(self, chat: Chat, folder: str) -> str:
        """`folder`: the chat's, resolved when the turn started (chats.runners)."""
        if (problem := folders.why_missing(folder)) is not None:
            raise AgentUnavailable(problem)
        return folder

    def binary(self, chat: Chat) -> str:
        found = agent_kinds.find_program(self.program, self.bin_variable)
        if found is None:
            raise AgentUnavailable(agent_kinds.program_not_found(agent_kinds.of(self.kind)))
        return found

    # One turn ----------------------------------------------------------------------

    async def run(self, ctx: TurnContext) -> TurnResult:
        # Its first call in a process runs the jail once (agents.jail_probe): off the loop.
        if (problem := await asyncio.to_thread(why_not_launchable)) is not None:
            raise AgentUnavailable(problem)
        binary, workdir = self.binary(ctx.chat), self.workdir(ctx.chat, ctx.folder)
        key = await in_db_thread(do_issue_turn_key)(ctx.turn)
        setup = await in_db_thread(hosted_setup)(ctx.chat, self, key=key)
        for notice in setup.notices:
            await self.notice(ctx, notice)
        run = HostedRun(ctx.chat, binary, ctx.input, setup, workdir)
        attempt = await self.attempt(ctx, run, key)
        if (note := self.lost_session(ctx.chat, attempt.outcome)) is not None:
            await self.notice(ctx, note)
            await in_db_thread(do_set_session_id)(ctx.chat, session_id="")
            attempt = await self.attempt(ctx, run, key)
        return self.result(attempt, self.program_name(ctx.chat))

    async def notice(self, ctx: TurnContext, text: str) -> None:
        await in_db_thread(do_add_entry)(ctx.chat, kind=Entry.Kind.NOTICE, text=text, turn=ctx.turn)

    async def attempt(self, ctx: TurnContext, run: HostedRun, key: str) -> Attempt:
        """Run the CLI once (argv from the chat as it is now)."""
        output = TurnOutput(ctx.turn)
        spec = self.spec(run, key)
        host = self.model_host(run, {**os.environ, **spec.env})
        stall = settings.TURN_STALL_SECONDS if self.talks_to_model else None
        tools = self.talks_to_model and ctx.chat.peers
        watchdog = Watchdog(output, stall, tools_expected=tools)
        outcome = await self.start(ctx, spec, output, watchdog)
        output.tools_missing = output.tools_missing or self.missing_tools(outcome)
        await output.flush()
        await self.record(ctx, outcome, output)
        return Attempt(outcome, output, watchdog, host)

    def spec(self, run: HostedRun, key: str) -> ProcessSpec:
        crosstalk = {"CROSSTALK_URL": settings.CROSSTALK_URL, "CROSSTALK_KEY": key}
        launch = Launch(
            self.argv(run),
            cwd=run.workdir,
            providers=self.providers,
            own={**run.setup.env, **self.env(run), **crosstalk},
            stdin=self.stdin(run),
            private=chat_folder(run.chat),
            withheld=run.setup.logins.withheld,
        )
        return build(launch)

    async def start(
        self, ctx: TurnContext, spec: ProcessSpec, output: TurnOutput, watchdog: Watchdog
    ) -> ProcessOutcome:
        async def on_line(line: str) -> None:
            watchdog.saw(await output.take(self.parse(line)))

        async def still_running() -> bool:
            return await in_db_thread(turn_is_running)(ctx.turn.pk)

        try:
            return await run_process(
                spec,
                on_line=on_line,
                timeout=settings.TURN_TIMEOUT_SECONDS,
                still_running=still_running,
                give_up=watchdog.give_up,
            )
        except OSError as error:
            raise AgentUnavailable(f"`{spec.argv[0]}` could not start: {error}") from None

    async def record(self, ctx: TurnContext, outcome: ProcessOutcome, output: TurnOutput) -> None:
        await in_db_thread(do_record_run)(
            ctx.turn,
            exit_code=outcome.exit_code,
            duration_seconds=outcome.duration_seconds,
            cost_usd=output.cost_usd,
        )
        if output.session_id:
            await in_db_thread(do_set_session_id)(ctx.chat, session_id=output.session_id)

    def result(self, attempt: Attempt, program: str) -> TurnResult:
        """Decided by how it ended: its exit status and its final event."""
        outcome, output, watchdog = attempt.outcome, attempt.output, attempt.watchdog
        if outcome.ended == Ended.STOPPED:
            raise TurnStopped
        if outcome.ended == Ended.TIMED_OUT:
            limit = f"{settings.TURN_TIMEOUT_SECONDS:g}"
            raise AgentFailed(f"`{program}` ran past {limit} s and was stopped")
        if outcome.ended == Ended.GAVE_UP or watchdog.tools_missing():
            raise AgentFailed(watchdog.reason(program, outcome, attempt.host))
        if output.failure or outcome.exit_code != 0:
            raise AgentFailed(failure_reason(program, outcome, output, attempt.host))
        return TurnResult(output.final_text)
