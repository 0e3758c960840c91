"""The Discord bot: an ``AutoShardedClient`` whose ``/liars`` commands and buttons drive the service.

Every interaction — a subcommand of ``/liars``, a table button, a game's form (``forms.py``) — goes through
:meth:`LiarsBot.execute` or one of the component handlers, and all of them run inside
:meth:`LiarsBot._guard`: the one place where an unexpected exception is logged with the
interaction's context and answered with a short apology, ephemerally.  Refusals from the service
(a :class:`~bot.model.Reply` with ``ok=False``) go back to the acting user only, ephemerally.

Interaction → command: the table key is ``("discord", guild id, channel id)`` (guild = server, for
ledgers and settings), the actor is the member (``is_admin`` = Manage Server) and the request id is
``discord:<interaction id>`` so a command is never applied twice.  Commit, then acknowledge: a
command's answer is the interaction's response, sent after its events are stored (the table's
messages and DMs go out afterwards, off the table's lock); only a command still running after
``DEFER_AFTER`` seconds is deferred, ephemerally, and answered by follow-up.

Where the app is installed to a user rather than a server — a group DM, a DM between friends — the
table key is ``("discord", "dm<channel id>", channel id)`` (the group's own ledger) and the bot cannot
post: every interaction there is noted in :class:`~adapters.discord.links.Links` (its token serves the
table's messages for 14 minutes), a command is acknowledged at once (deferred) so that its token may
carry follow-ups while it runs, and its answer follows.  A table whose messages found no live
interaction is drawn again at the next one.

The composition root (:func:`bot.bootstrap.discord_bot`) builds the bot, which builds its notifier
on itself and the service on that notifier; ``run`` is what ``liars discord`` does;
:func:`endpoints` points discord.py at ``DISCORD_API_BASE`` / ``DISCORD_GATEWAY_URL`` when they are
set (tests and proxies).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any

import aiohttp
import discord
import yarl
from discord import app_commands

from adapters import metrics, pictures
from bot.bootstrap import discord_bot
from bot.commands import resolve
from bot.model import Actor, Command, Reply, TableKey
from bot.ports import Notifier, PanelRefs
from bot.service import Service, UserError
from core.commands import CommandSpec, Kind, Param, Section, Suggest
from core.game import FormField

from .commands import build_commands
from .components import DYNAMIC_ITEMS, drawn_at, drawn_for
from .config import DiscordConfig
from .forms import FormFlows
from .links import Links, private_key
from .notifier import DiscordNotifier
from .render import ALLOWED_MENTIONS, TEXT, buttons_view, chunks, record_file, render

__all__ = ["PLATFORM", "LiarsBot", "endpoints", "run"]

THREADS = (discord.ChannelType.public_thread, discord.ChannelType.private_thread, discord.ChannelType.news_thread)
TOO_LATE = (10062, 50027)  # Unknown interaction, Invalid Webhook Token: an answer sent after its time

log = logging.getLogger(__name__)

PLATFORM = "discord"
# A command commits first and answers as the interaction's response; only if it runs past DEFER_AFTER
# is it deferred: ephemerally, or in the channel for one whose answer may be public (its declaration says
# so: an admin's `sheet settle`), whose "thinking…" then gives way to a private answer if the reply is one.
DEFER_AFTER = 2.0  # seconds: a command still running then is deferred (Discord allows 3 to respond)


class LiarsTree(app_commands.CommandTree["LiarsBot"]):
    async def on_error(self, interaction: discord.Interaction[LiarsBot], error: app_commands.AppCommandError,
                       /) -> None:
        """Errors discord.py raises before our command runs (its own checks and option transforms)."""
        if isinstance(error, app_commands.TransformerError | app_commands.CheckFailure):
            log.warning("/liars option or check failed for user %s: %s", interaction.user.id, error)
            await self.client.send_private(interaction, TEXT["bad_input"])
            return
        if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
            # the user's Discord still offers a command this version no longer declares (a sync takes time)
            log.warning("/liars: a command this version does not declare, from user %s: %s", interaction.user.id,
                        error)
            await self.client.send_private(interaction, TEXT["stale_command"])
            return
        self.client.log_failure(interaction, _command_name(interaction), error)
        await self.client.send_private(interaction, TEXT["apology"])


class LiarsBot(discord.AutoShardedClient):
    def __init__(
        self,
        service: Callable[[Notifier], Service],
        panels: PanelRefs,
        *,
        guild_id: int | None = None,
        sync_commands: bool = True,
        run_timers: bool = False,
        layout: str = "v2",
        links: Links | None = None,
        **options: Any,
    ) -> None:
        # The bot never joins voice: silence discord.py's start-up warnings about voice libraries.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        intents = discord.Intents.none()
        intents.guilds = True  # no privileged intents: interactions arrive whatever the intents
        options.setdefault("allowed_mentions", ALLOWED_MENTIONS)
        super().__init__(intents=intents, **options)
        self.links = links or Links()  # the live interactions of tables in private channels (tests: a clock)
        # what the tables say goes out through this client
        self.notifier = DiscordNotifier(self, panels, layout=layout, links=self.links)
        self.service = service(self.notifier)
        self.guild_id = guild_id
        self.sync_commands = sync_commands
        self.run_timers = run_timers
        self.tree = LiarsTree(self)
        for group in build_commands():  # from the declarations, as the game registry stands now
            self.tree.add_command(group)
        self.synced: list[app_commands.AppCommand] = []
        self.forms = FormFlows(self, render)
        self.connected = asyncio.Event()  # set at the gateway's first READY (``_run`` waits for it, bounded)
        self._working: dict[asyncio.Task[Any], int] = {}  # the interactions being handled, each task's depth (close)
        self._closing = False

    async def close(self) -> None:
        """Let the interactions under way finish (their commands commit, their answers go), for at most
        ``FINISH_SECONDS``; stop the timers, send what the tables still have queued, then disconnect.  (A SIGTERM
        mid-command closed the HTTP session under the answer, then the store under the command.)"""
        self._closing = True  # (an interaction arriving from now on is told to try again, and not started)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + FINISH_SECONDS
        while working := [t for t in self._working if not t.done() and t is not asyncio.current_task()]:
            if (left := deadline - loop.time()) <= 0:
                log.warning("closing with %d interactions still being handled", len(working))
                break
            await asyncio.wait(working, timeout=left)
        await self.service.stop_timers()  # (a timeout or a computer's move played now would go unsent)
        try:
            await asyncio.wait_for(self.service.drain(), timeout=10)
            await asyncio.wait_for(self.notifier.idle(), timeout=10)  # and the pictures being drawn
        except TimeoutError:
            log.warning("closing with table messages or pictures still unsent")
        await super().close()

    async def setup_hook(self) -> None:
        # old buttons work after a restart
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        if self.sync_commands:
            if self.guild_id is not None:
                guild = discord.Object(id=self.guild_id)
                self.tree.copy_global_to(guild=guild)
                self.synced = await self.tree.sync(guild=guild)
                log.info("synced /liars to server %s", self.guild_id)
            else:
                self.synced = await self.tree.sync()
                log.info("synced /liars globally (Discord may take a while to show it everywhere)")
        # After a restart: a move committed just before a crash whose message never went out is shown.
        redrawn = await self.service.redraw()
        if redrawn:
            log.info("redrew %d open tables", redrawn)
        if self.run_timers:  # a running bot: the picture worker is ready before the first count
            self.service.start_timers()
            pictures.start()

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Every interaction in a private channel gives its table a live token (see the module's docstring),
        but an autocomplete's: answered with choices, it can carry no message."""
        if _private(interaction) and interaction.type is not discord.InteractionType.autocomplete:
            self.links.note(self.table_key(interaction), interaction)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from a server (kicked, or the server deleted; not an outage, which discord.py
        reports as ``on_guild_unavailable``): its tables close, a round under way void, as on Slack."""
        closed = await self.service.close_server(f"{PLATFORM}:{guild.id}")
        log.info("removed from guild %s: %d tables closed", guild.id, closed)

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        closed = await self.service.close_channel(TableKey(PLATFORM, str(channel.guild.id), str(channel.id)))
        if closed:
            log.info("channel %s of guild %s deleted: its table closed", channel.id, channel.guild.id)

    async def on_raw_thread_delete(self, event: discord.RawThreadDeleteEvent) -> None:
        """A thread deleted: its table closes as a channel's does (a raw event: the thread need not be
        cached).  Deleting a parent channel sends no event for its threads; discord.py reports those it
        holds, so a table in an archived thread (which it drops) of a deleted channel stays open until ended."""
        closed = await self.service.close_channel(TableKey(PLATFORM, str(event.guild_id), str(event.thread_id)))
        if closed:
            log.info("thread %s of guild %s deleted: its table closed", event.thread_id, event.guild_id)

    async def on_connect(self) -> None:
        self.connected.set()

    async def on_ready(self) -> None:
        log.info("ready as %s in %d servers (%s shards)", self.user, len(self.guilds), self.shard_count)

    # -- the one place errors are handled ----------------------------------------------------------
    async def _guard(self, interaction: discord.Interaction[Any], what: str,
                     work: Callable[[], Awaitable[None]]) -> None:
        started, outcome = time.perf_counter(), "ok"
        task = asyncio.current_task()
        if self._closing and (task is None or task not in self._working):  # a new interaction while stopping
            await self.send_private(interaction, TEXT["stopping"])
            return
        if task is not None:  # (a guarded call within a guarded call counts once more, not as a second task)
            self._working[task] = self._working.get(task, 0) + 1
        try:
            await work()
        except Exception as exc:
            outcome = "error"
            self.log_failure(interaction, what, exc)
            await self.send_private(interaction, TEXT["apology"])
        finally:
            if task is not None:
                if self._working[task] > 1:
                    self._working[task] -= 1
                else:
                    del self._working[task]
            metrics.REQUESTS.labels(PLATFORM, outcome).inc()
            metrics.REQUEST_SECONDS.labels(PLATFORM).observe(time.perf_counter() - started)

    def log_failure(self, interaction: discord.Interaction[Any], what: str, exc: BaseException) -> None:
        log.error(
            "/liars %s failed: interaction %s (type %s) by user %s in guild %s channel %s",
            what, interaction.id, getattr(interaction.type, "name", interaction.type), interaction.user.id,
            interaction.guild_id, interaction.channel_id, exc_info=exc,
        )

    async def send_private(self, interaction: discord.Interaction[Any], text: str) -> None:
        """An ephemeral answer, whether or not the interaction was already answered or deferred."""
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException as exc:
            log.warning("could not answer interaction %s: %s %s", interaction.id, exc.status, exc.code)
        except Exception as exc:  # e.g. the connection dropped: nothing more can be said to this user
            log.warning("could not answer interaction %s: %r", interaction.id, exc)

    # -- interaction → command ---------------------------------------------------------------------
    @staticmethod
    def table_key(interaction: discord.Interaction[Any]) -> TableKey:
        if interaction.guild_id is None and interaction.channel_id is not None and _private(interaction):
            return private_key(interaction.channel_id)  # a server that never added the app keeps its own ledger
        return TableKey(PLATFORM, str(interaction.guild_id), str(interaction.channel_id))

    @staticmethod
    def actor(interaction: discord.Interaction[Any]) -> Actor:
        user = interaction.user
        perms = interaction.permissions
        if interaction.guild_id is None and _private(interaction):
            # a group DM or a DM between friends keeps its own ledger, which nobody there could otherwise keep
            # (no Manage Server): each member administers it (config, sheet settle, end, kick), as a peer: not
            # to end a game at stake or kick a rival still in one (any of them could make another pay so)
            return Actor(str(user.id), user.display_name, is_admin=True, peer=True)
        admin = interaction.guild_id is not None and (perms.manage_guild or perms.administrator)
        return Actor(str(user.id), user.display_name, is_admin=bool(admin))

    async def execute(self, interaction: discord.Interaction[Any], name: str, *, args: tuple[str, ...] = (),
                      options: dict[str, Any] | None = None, key: TableKey | None = None) -> None:
        """Run one service command for this interaction and answer the person who acted."""

        async def work() -> None:
            if interaction.guild_id is None and not _private(interaction):
                await self._in_dm(interaction, name)
                return
            spec = resolve(name)
            perms = interaction.app_permissions
            in_thread = getattr(interaction.channel, "type", None) in THREADS  # posting there is its own right
            posts = perms.send_messages_in_threads if in_thread else perms.send_messages
            if (spec is not None and spec.name == "start" and interaction.guild_id is not None
                    and not _private(interaction) and not (perms.view_channel and posts)):
                await self.send_private(interaction, TEXT["cannot_post"])  # a table nobody could see
                return
            if spec is not None and spec.form and not args and not options:
                # a move with a form, sent bare (``/liars bid``): its form, as its button opens it
                await self.forms.open(interaction, key or self.table_key(interaction), spec.name)
                return
            cmd = Command(name, key or self.table_key(interaction), self.actor(interaction), args,
                          dict(options or {}), request_id=f"discord:{interaction.id}",
                          table_id=drawn_for(interaction), turn=drawn_at(interaction),
                          secrets_here=_private(interaction))
            if _private(interaction):
                await self._through_webhooks(interaction, cmd)
            else:
                await self._run(interaction, cmd)

        await self._guard(interaction, name, work)

    async def _run(self, interaction: discord.Interaction[Any], cmd: Command) -> None:
        """Commit, then acknowledge: the answer itself is the interaction's response.  Only a command
        still running near Discord's 3-second limit is deferred (and answered by follow-up)."""
        handling = asyncio.ensure_future(self.service.handle(cmd))
        spec = resolve(cmd.name)
        public = spec is not None and spec.public  # an answer that may go to the channel (a slow one was never
        # deferred: past Discord's 3 seconds the settlement was stored and its answer lost)
        done, _ = await asyncio.wait({handling}, timeout=DEFER_AFTER)
        deferred_in_channel = False
        if not done and not interaction.response.is_done():
            deferred_in_channel = public
            await interaction.response.defer(ephemeral=not public, thinking=True)
        reply = await handling
        if deferred_in_channel and not (reply.ok and not reply.private):
            # a private answer (a refusal, an earlier month's sheet) after a "thinking…" in the channel: that goes,
            # and the answer follows to the sender alone
            with contextlib.suppress(discord.HTTPException):
                await interaction.delete_original_response()
        try:
            await self.answer(interaction, reply, cmd.key)
        except discord.HTTPException as exc:  # 10062 Unknown interaction, 50027 Invalid Webhook Token: too late
            if exc.code not in TOO_LATE:
                raise  # an answer Discord refused for itself (too long, a bad file): the apology, and an ERROR
            # the command ran (or was refused) and the table shows it; only its answer to the sender is lost,
            # and an apology would tell them a move they made did not happen
            log.warning("the answer to /liars %s (interaction %s) could not be sent (%s %s); the command %s",
                        cmd.name, interaction.id, exc.status, exc.code, "ran" if reply.ok else "was refused")

    async def _through_webhooks(self, interaction: discord.Interaction[Any], cmd: Command) -> None:
        """A private channel's command.  A click is acknowledged at once as a deferred update, so this
        token may edit the message it is on (the table message); a slash command is answered as anywhere
        else.  The table's messages go through this interaction's token only once its answer has gone (a
        first follow-up would take the place of a "thinking" answer).  Then the table is drawn again if
        its messages found no live interaction since the last one."""
        link = self.links.note(cmd.key, interaction)
        link.answered = asyncio.Event()
        try:
            if interaction.type == discord.InteractionType.component:
                await interaction.response.defer()
            await self._run(interaction, cmd)
        finally:
            link.answered.set()
        notifier = self.service.rt.notifier
        if isinstance(notifier, DiscordNotifier) and cmd.key in notifier.unsent:
            notifier.unsent.discard(cmd.key)
            await self.service.redraw([cmd.key])

    async def _in_dm(self, interaction: discord.Interaction[Any], name: str) -> None:
        spec = resolve(name)
        if spec is None or not spec.in_dm:
            await self.send_private(interaction, TEXT["dm_refusal"])
            return
        actor = self.actor(interaction)
        if spec.section is not Section.READ:  # help: no table to ask about
            key = TableKey(PLATFORM, "@me", str(interaction.channel_id))
            await self.answer(interaction, await self.service.handle(Command(name, key, actor)), key)
            return
        # hand: what this player holds in every round they are in, on any server
        hands = await self.service.hands_of(PLATFORM, actor.user_id)
        if not hands:
            await self.send_private(interaction, TEXT["no_hand"])
        for key, reply in hands:
            await self.answer(interaction, reply, key)

    async def answer(self, interaction: discord.Interaction[Any], reply: Reply, key: TableKey) -> None:
        """Ephemeral to the person who acted, unless the service made the reply public (and it is ok)."""
        ephemeral = not (reply.ok and not reply.private)
        parts = chunks(render(reply))
        file = record_file(reply, key)
        view = buttons_view(reply.buttons, key, self.service.table_id(key), reply.turn) if reply.ok else None
        for i, part in enumerate(parts):
            # a reply may name people by mention (stats of a member, the admins listed): it pings none of them
            kwargs: dict[str, Any] = {"ephemeral": ephemeral, "allowed_mentions": discord.AllowedMentions.none()}
            if i == len(parts) - 1:
                if view is not None:
                    kwargs["view"] = view
                if file is not None:
                    kwargs["file"] = file
            if interaction.response.is_done():
                await interaction.followup.send(part, **kwargs)
            else:
                await interaction.response.send_message(part, **kwargs)

    # -- components --------------------------------------------------------------------------------
    def own_key(self, interaction: discord.Interaction[Any], key: TableKey) -> TableKey:
        """The table a component names — but only in the guild (or private channel) it was clicked in."""
        here = self.table_key(interaction)
        return key if key == here else here

    async def table_button(self, interaction: discord.Interaction[Any], key: TableKey, action: str) -> None:
        key = self.own_key(interaction, key)
        spec = resolve(action)
        if spec is not None and spec.form:  # a move with a form (a button drawn before forms had their own)
            await self.forms.open(interaction, key, spec.name)
        elif spec is not None:
            await self.execute(interaction, spec.name, key=key)
        else:
            await self._guard(interaction, action, lambda: self.send_private(interaction, TEXT["stale_button"]))

    async def open_form(self, interaction: discord.Interaction[Any], key: TableKey, verb: str) -> None:
        await self.forms.open(interaction, key, verb)

    async def form_pick(self, interaction: discord.Interaction[Any], key: TableKey, verb: str, part: int,
                        value: str) -> None:
        await self.forms.pick(interaction, key, verb, part, value)

    async def form_toggle(self, interaction: discord.Interaction[Any], key: TableKey, verb: str, mask: int,
                          index: int) -> None:
        await self.forms.toggle(interaction, key, verb, mask, index)

    async def form_send(self, interaction: discord.Interaction[Any], key: TableKey, verb: str, first: str,
                        second: str) -> None:
        await self.forms.send(interaction, key, verb, first, second)

    # -- autocomplete ------------------------------------------------------------------------------
    async def suggest(self, interaction: discord.Interaction[Any], spec: CommandSpec, param: Param,
                      current: str) -> list[app_commands.Choice[Any]]:
        """What a parameter's declaration says to offer: the values of the move's form field of the same
        name (the legal quantities; the digits, named by the table's rank order, that beat the standing bid at
        the quantity typed so far — every digit any quantity allows while none is), or the ledger periods."""
        try:
            if interaction.guild_id is None and not _private(interaction):
                return []
            if param.suggest in (Suggest.PERIODS, Suggest.PERIODS_OR_ALL):
                every = ["all"] if param.suggest is Suggest.PERIODS_OR_ALL else []
                return await self.period_choices(interaction, current, every)
            form = await self.service.form(self.table_key(interaction), str(interaction.user.id), spec.name)
            field = next((f for f in form.fields if f.name == param.name), None)
            if field is None or form.refusal is not None:
                return []
            listed = dict(field.options) if field.depends_on is None else _options_for(
                field, getattr(interaction.namespace, field.depends_on, None))
            typed = current.strip().lower()
            typed_value = int if param.kind is Kind.INT else str
            return [app_commands.Choice(name=label[:100], value=typed_value(value)) for value, label in listed.items()
                    if not typed or value.startswith(typed) or typed in label.lower()][:25]
        except UserError:
            return []
        except Exception as exc:
            self.log_failure(interaction, f"{spec.name} autocomplete ({param.name})", exc)
            return []

    async def period_choices(self, interaction: discord.Interaction[Any], current: str,
                             every: Sequence[str] = ()) -> list[app_commands.Choice[str]]:
        """The server's periods, newest first, that begin with what is typed; ``every``'s words (``all``) first."""
        try:
            if interaction.guild_id is None and not _private(interaction):
                return []
            key = self.table_key(interaction)
            periods = await self.service.periods(key.server, Command("sheet", key, self.actor(interaction)))
            typed = current.strip().lower()
            return [app_commands.Choice(name=p, value=p) for p in [*every, *sorted(periods, reverse=True)]
                    if p.startswith(typed)][:25]
        except Exception as exc:
            self.log_failure(interaction, "sheet autocomplete", exc)
            return []


def _options_for(field: FormField, chosen: object) -> dict[str, str]:
    """A dependent field's options at the value typed so far in the field it depends on (an autocomplete's
    namespace holds it as the client sent it: an int, or the text of one); every option of every value while
    none is typed, or one the form does not list (a quantity no bid may have now: the game judges the move).  The form
    lists every legal quantity; its select shows the first 25, and typing a higher one here offers its digits."""
    typed = "" if chosen is None else str(chosen).strip()
    if typed.isascii() and typed.isdigit() and len(typed) <= 12:
        typed = str(int(typed))  # "03" is 3 (a longer number is no quantity: every option, below)
    listed = field.options_by.get(typed)
    if listed is None:
        return {value: label for options in field.options_by.values() for value, label in options}
    return dict(listed)


def _private(interaction: discord.Interaction[Any]) -> bool:
    """A group DM, a DM between friends, or a server that never added the app (a member's own app): the
    app is there by a user's install, with no bot to post."""
    if interaction.guild_id is not None:
        return not interaction.is_guild_integration()
    return bool(interaction.context.private_channel)


def _command_name(interaction: discord.Interaction[Any]) -> str:
    command = interaction.command
    return command.qualified_name if command is not None else "?"


# -- wiring (the composition root, bot.bootstrap.discord_bot, builds the bot) ------------------------
@contextlib.contextmanager
def endpoints(config: DiscordConfig) -> Iterator[None]:
    """Point discord.py at ``DISCORD_API_BASE`` / ``DISCORD_GATEWAY_URL`` while the bot lives.

    discord.py reads its REST base from ``discord.http.Route.BASE`` (interaction callbacks and
    followups too) and, after an invalidated session, its gateway from
    ``DiscordWebSocket.DEFAULT_GATEWAY``; an ``AutoShardedClient`` asks ``GET /gateway/bot`` for the
    gateway at start-up (see :func:`_gateway_override`).  Restored on exit.
    """
    import discord.gateway
    import discord.http

    old_base = discord.http.Route.BASE
    old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    if config.api_base:
        discord.http.Route.BASE = config.api_base
    if config.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(config.gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway


def _gateway_override(bot: discord.Client, url: str) -> None:
    """Make ``GET /gateway/bot`` answer ``url`` (keeping the shard count and session limits)."""
    original = bot.http.get_bot_gateway

    async def get_bot_gateway() -> tuple[int, str, Any]:
        shards, _, limits = await original()
        return shards, url, limits

    bot.http.get_bot_gateway = get_bot_gateway  # type: ignore[method-assign]


CLOSE_SECONDS = 5.0  # how long a stopping process waits for discord.py's client to end by itself
FINISH_SECONDS = 5.0  # how long it waits for the interactions under way (within the 30 s before SIGKILL)
FIRST_CONNECT_SECONDS = 120.0
"""How long a starting process waits for its first READY from the gateway before it gives up, saying so."""


async def run(config: DiscordConfig, *, sync_commands: bool = True, stop: asyncio.Event | None = None) -> int:
    """``liars discord``: connect and serve until SIGINT/SIGTERM (or ``stop`` is set)."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    exporter = None
    if config.metrics_port is not None:
        exporter = metrics.start(config.metrics_port, config.metrics_host)
        if exporter is None:  # one line said why, not a traceback
            return 1
    try:
        return await _run(config, sync_commands, stop)
    finally:
        if exporter is not None:
            exporter.shutdown()
        await asyncio.to_thread(pictures.shutdown)  # joined now, not racing the interpreter's exit (as on Slack)


async def _close(bot: LiarsBot, runner: asyncio.Task[None]) -> None:
    """Close the client and wait for it to end (cancelled past ``CLOSE_SECONDS``)."""
    await bot.close()
    # discord.py's shard launcher retries a gateway it cannot reach even after close(): bounded
    finished, _ = await asyncio.wait({runner}, timeout=CLOSE_SECONDS)
    if not finished:
        log.warning("the Discord client did not stop within %.0f s of closing; cancelling it", CLOSE_SECONDS)
        runner.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):  # stopping: its end is not news
        await runner


async def _run(config: DiscordConfig, sync_commands: bool, stop: asyncio.Event) -> int:
    with endpoints(config):
        bot = await discord_bot(config, sync_commands=sync_commands, run_timers=True)
        if config.gateway_url:
            _gateway_override(bot, config.gateway_url)
        first = asyncio.create_task(bot.connected.wait(), name="first-connect")  # the gateway's first READY
        runner = asyncio.create_task(bot.start(config.token), name="discord-client")
        stopper = asyncio.create_task(stop.wait(), name="stop-signal")
        try:
            # a gateway that never answers (a mistyped DISCORD_GATEWAY_URL) was retried for good, an ERROR a time
            done, _ = await asyncio.wait({runner, stopper, first}, timeout=FIRST_CONNECT_SECONDS,
                                         return_when=asyncio.FIRST_COMPLETED)
            if not done:
                log.error("no answer from Discord's gateway within %.0f s of starting (DISCORD_GATEWAY_URL %s): "
                          "stopping", FIRST_CONNECT_SECONDS, config.gateway_url or "as Discord names it")
                await _close(bot, runner)
                return 1
            if first in done and runner not in done and stopper not in done:
                done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if runner not in done:
                log.info("stopping")
                await _close(bot, runner)
                return 0
            try:
                runner.result()
            except discord.LoginFailure:
                log.error("DISCORD_TOKEN was refused: reset the token in the Developer Portal and set it again")
                return 1
            except discord.NotFound as exc:  # syncing /liars to a server the bot is not in
                log.error("Discord answered %s %s%s", exc.status, exc.text or "not found",
                          f": is DISCORD_GUILD_ID {config.guild_id} a server the bot was added to?"
                          if config.guild_id is not None else "")
                return 1
            except discord.HTTPException as exc:  # a 500 or a 403 at start: one line, not a traceback
                log.error("Discord answered HTTP %s %s (DISCORD_API_BASE %s): stopping", exc.status,
                          (exc.text or type(exc).__name__)[:200], config.api_base or "as Discord names it")
                return 1
            except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                log.error("cannot reach Discord (DISCORD_API_BASE, DISCORD_GATEWAY_URL): %s: %s",
                          type(exc).__name__, exc)
                return 1
            except Exception:
                log.exception("the Discord connection failed")
                return 1
            return 0
        finally:
            stopper.cancel()
            first.cancel()
            if not bot.is_closed():
                await bot.close()
            await bot.service.close()
