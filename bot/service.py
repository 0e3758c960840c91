"""The table service: the one entry point adapters call, for any game.

:meth:`Service.handle` takes a :class:`~bot.model.Command` and returns the :class:`~bot.model.Reply`
for the person who sent it, once the command's events are durably committed (so an adapter may
acknowledge the platform as soon as it returns).  Bad input raises nothing: it gets one private
reply and changes nothing.  A command with a request id is applied once, however often a platform
delivers it.  The use cases live in :mod:`bot.lobby`, :mod:`bot.play`, :mod:`bot.timers` and
:mod:`bot.reports`; this module routes to them through an explicit table.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from core.commands import CommandSpec, Section
from core.errors import GameError, NotYourTurn, UnknownPlayer
from core.game import Form, RandomSource, Step

from . import messages as M
from . import refusals as R
from .commands import game_of_command, resolve, table_commands
from .metrics import NO_METER, Meter
from .model import Command, Message, Reply, TableKey
from .panels import Panels
from .parsing import UserError, sentence, shown_name
from .play import Play
from .ports import Clock, Notifier, Store, SystemClock
from .reports import Reports
from .repository import UnreadableTable
from .runtime import Behind, Handler, Runtime
from .settings import Settings
from .table import TableState, TableStatus
from .timers import Timers

__all__ = ["Service", "UserError"]

log = logging.getLogger(__name__)


def _given(cmd: Command) -> bool:
    """Whether the command carries any word or option (a platform's unset option, ``None``, is none)."""
    return any(a.strip() for a in cmd.args) or any(v is not None for v in cmd.options.values())


#: The most characters a command's words (and its options' text) may hold: the longest command people send
#: (`admins` naming a few dozen members by mention) is under it; a paste of a page is refused at the door.
MOST_TYPED = 2_000


def _without_nul(cmd: Command) -> Command:
    """The command with every NUL character taken out of what was typed and of the sender's name (itself if it
    has none): PostgreSQL stores no NUL in text (the write failed, "something went wrong")."""
    texts = [cmd.actor.name, *cmd.args, *(v for v in cmd.options.values() if isinstance(v, str))]
    if not any("\x00" in text for text in texts):
        return cmd

    def clean(text: str) -> str:
        return text.replace("\x00", "")

    return replace(cmd, actor=replace(cmd.actor, name=clean(cmd.actor.name)), args=tuple(clean(a) for a in cmd.args),
                   options={k: clean(v) if isinstance(v, str) else v for k, v in cmd.options.items()})


class Service:
    def __init__(self, store: Store, notifier: Notifier, *, panels: Panels | None = None, clock: Clock | None = None,
                 rng: RandomSource | None = None, computer_delay: float = 0.0, platform: str | None = None,
                 holds: Callable[[TableKey], bool] | None = None, meter: Meter = NO_METER) -> None:
        """``panels``: the panel book the notifier shares (by default one of the service's own).
        ``platform`` (and ``holds``, when several processes split a platform's servers) choose the
        tables this process loads and times; commands for any table are taken all the same.  Built by
        the composition root (:mod:`bot.bootstrap`)."""
        self.rt = Runtime(store, notifier, panels or Panels(store), clock or SystemClock(),
                          rng or secrets.SystemRandom(), computer_delay, platform, holds, meter)
        self.play = Play(self.rt)
        self.lobby = self.play.lobby
        self.timers = Timers(self.rt, self.play)
        self.reports = Reports(self.rt)
        lobby, reports = self.lobby, self.reports
        handlers: dict[str, Handler] = {
            "start": lobby.start, "join": lobby.join, "leave": lobby.leave, "kick": lobby.kick,
            "deal": lobby.deal, "last": lobby.last, "end": lobby.end,
            "hand": reports.hand, "status": reports.status, "rules": reports.rules, "help": reports.help,
            "config": reports.config, "ledger": reports.ledger, "sheet": reports.sheet, "stats": reports.stats,
            "leaderboard": reports.leaderboard,
            "history": reports.history, "export": reports.export,
        }
        assert set(handlers) == {spec.name for spec in table_commands()}
        self._handlers = handlers  # a game's moves go to play.act, its reads to reports.read (see _handler)
        self._in_flight: dict[str, asyncio.Future[Reply]] = {}

    @property
    def store(self) -> Store:
        return self.rt.store

    @property
    def clock(self) -> Clock:
        return self.rt.clock

    @property
    def tables(self) -> dict[TableKey, TableState]:
        return self.rt.tables

    async def settings(self, server: str) -> Settings:
        return await self.rt.settings(server)

    # -- life cycle -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Reload every open table from its event log."""
        for stored in await self.rt.store.load_open_tables():
            key = TableKey.from_server(stored.server, stored.channel)
            if not self.rt.serves(key):
                continue
            try:
                self.rt.adopt(key, stored)
            except UnreadableTable as exc:  # one table's log this code cannot replay: every other table still starts
                # (the error's text may quote the event, a serial in it: at DEBUG only, by adopt)
                # It is left as stored, not closed: a process of an older version (a rollback, a fleet mid-deploy)
                # would otherwise end the live tables a newer one wrote.  A command there is told so; a server
                # admin's `end` closes it (Runtime.run).
                (log.warning if exc.newer else log.error)(  # (newer: a newer version serves it, mid-upgrade)
                    "table %d in %s could not be rebuilt from its %d stored events (%s): not loaded",
                    stored.table_id, key, len(stored.events), exc.cause)
            except Exception as exc:  # (anything else about one table — its panels, say — leaves it out alike)
                log.error("table %d in %s could not be loaded (%s): not loaded", stored.table_id, key,
                          type(exc).__name__)
                log.debug("table %d: %s", stored.table_id, exc, exc_info=exc)
        for server in {key.server for key in self.rt.tables}:
            await self.rt.stored_settings(server)
        log.info("loaded %d open tables", len(self.rt.tables))

    def start_timers(self) -> None:
        self.timers.start()

    async def stop_timers(self) -> None:
        """Stop the timers (timeouts, computer moves, lobby expiry): nothing more is played or queued by them.
        A stopping process calls this before its notifier's last sends (then :meth:`close`)."""
        await self.timers.stop()

    async def close(self) -> None:
        """Stop the timers, send what is queued, close the store — the store even when stopping is cut short (Ctrl-C
        while the outbox drained left its connections' threads open, and the process hung at exit for good)."""
        try:
            await self.timers.stop()
            await self.rt.outbox.idle()
        finally:
            await self.rt.store.close()

    async def drain(self) -> None:
        """Wait until every message queued so far has been handed to the notifier."""
        await self.rt.outbox.idle()

    async def redraw(self, keys: Iterable[TableKey] | None = None) -> int:
        """Queue every open table's (or these tables') lobby and table message as the table stands now
        (each edits its message in place).  Called by an adapter once it can send, after a restart: a
        move committed just before a crash whose message never went out is shown.  Returns how many."""
        count = 0
        for key in list(self.rt.tables if keys is None else keys):
            async with self.rt.lock(key):
                table = self.rt.tables.get(key)
                if table is None:
                    continue
                settings = await self.rt.settings(key.server)
                playing = table.status == TableStatus.PLAYING and table.match is not None
                self.rt.post([M.lobby_message(table), M.panel_message(table, settings) if playing else None])
                count += 1
        return count

    async def redraw_if_behind(self, message: Message) -> bool:
        """After a table message was edited from ``message`` (a platform's edits are not ordered across
        processes): if the table as stored has moved on since it was drawn, another process's newer edit may
        have landed first and been overwritten by this older one, so the table message is drawn again as the
        table stands.  True if it was.  One read when nothing moved."""
        if message.panel != "table" or message.table_id is None or message.seq is None:
            return False
        cached = self.rt.tables.get(message.key)
        if cached is None or cached.id != message.table_id or cached.events > message.seq:
            return False  # this process made the newer state (its own edit of it follows), or holds no such table
        if not await self.rt.store.events_since(message.table_id, message.seq):
            return False
        async with self.rt.lock(message.key):
            cached = self.rt.tables.get(message.key)
            if cached is None or cached.id != message.table_id or cached.events != message.seq:
                return False  # moved on here meanwhile: this process's own edit follows
            seen: list[tuple[dict[str, Any], Step]] = []
            table = await self.rt.catch_up(message.key, seen)
            if table is None or table.status != TableStatus.PLAYING or table.match is None or not seen:
                return False
            note = ""  # what the last move said, as the process that made it drew it
            for event, step in seen:
                if event.get("t") == "act":
                    note = M.move_note(event, step)
                elif event.get("t") == "deal":
                    note = ""
            settings = await self.rt.settings(message.key.server)
            self.rt.post([M.panel_message(table, settings, note=note)])
            return True

    async def close_channel(self, key: TableKey) -> int:
        """The platform deleted the channel: its table closes as :meth:`close_server` closes them."""
        return await self.close_server(key.server, M.CHANNEL_DELETED, channel=key.channel_id)

    async def close_server(self, server: str, reason: str = M.APP_REMOVED, channel: str | None = None) -> int:
        """Close every open table of a ledger server (or only its ``channel``'s), in whichever process it
        was opened (the platform removed the app there): a round under way is void and no money moves;
        the ledger stays.  Returns how many tables this call closed."""
        closed = 0
        for head in await self.rt.store.open_table_heads():
            if head.server != server or (channel is not None and head.channel != channel):
                continue
            key = TableKey.from_server(head.server, head.channel)
            for _ in range(3):  # another process may move the table on meanwhile: catch up and close it
                try:
                    async with self.rt.lock(key):
                        table = await self.rt.catch_up(key)
                        if table is not None:
                            await self.lobby.close(table, None, reason)
                            closed += 1
                    break
                except UnreadableTable as exc:  # closed as stored (nothing of it can be drawn): the others go on
                    if await self.rt.close_unreadable(key, exc, ""):
                        closed += 1
                        break
                except Behind:
                    continue
        return closed

    async def resume(self, key: TableKey) -> None:
        """Bring a loaded table up to date now: deal a round left undealt, let computers due act."""
        await self.play.after_change(key)

    async def tick(self) -> int:
        return await self.timers.tick()

    def next_deadline(self) -> float | None:
        return self.timers.next_deadline()

    # -- the one entry point ----------------------------------------------------------------------
    async def handle(self, cmd: Command) -> Reply:
        """Apply a command; return the reply for the person who sent it.  Never raises for bad input."""
        started = time.perf_counter()
        outcome = "error"
        if (shown := shown_name(cmd.actor.name, cmd.actor.user_id)) != cmd.actor.name:
            # a display name is shown in texts where <@id> stands for a player ("<@1002>" as a name read as
            # another player) and in chat markup ("[FREE NITRO](https://…)" was a link the bot posted, "||x||"
            # hid text): its marks are shown as look-alikes; its invisible characters are dropped (a bidi
            # override turned the amounts after it around on a ledger line, a line separator forged a line)
            cmd = replace(cmd, actor=replace(cmd.actor, name=shown))
        cmd = _without_nul(cmd)
        try:
            typed = sum(map(len, cmd.args)) + sum(len(v) for v in cmd.options.values() if isinstance(v, str))
            if typed > MOST_TYPED:  # (a 100 KB declaration took seconds of the event loop to parse)
                outcome = "refused"
                return Reply(R.too_long(typed, MOST_TYPED), ok=False, code="too-long")
            reply = await self._handle(cmd)
            outcome = "ok" if reply.ok else "refused"
            return reply
        finally:
            self.rt.meter.command(cmd.name, outcome, time.perf_counter() - started)

    async def _handle(self, cmd: Command) -> Reply:
        if cmd.request_id is None:
            return await self._dispatch(cmd)
        running = self._in_flight.get(cmd.request_id)  # a retry of a delivery still in flight waits for it
        if running is not None:
            return await asyncio.shield(running)
        task = asyncio.ensure_future(self._once(cmd, cmd.request_id))
        self._in_flight[cmd.request_id] = task
        try:
            return await asyncio.shield(task)
        finally:
            if task.done():
                self._in_flight.pop(cmd.request_id, None)
            else:
                task.add_done_callback(lambda _: self._in_flight.pop(cmd.request_id or "", None))

    async def _once(self, cmd: Command, request_id: str) -> Reply:
        seen = await self.rt.store.get_request(request_id)
        if seen is not None:
            return Reply.from_dict(seen)
        return await self._dispatch(cmd)

    def _handler(self, spec: CommandSpec) -> Handler:
        if spec.name in self._handlers:
            return self._handlers[spec.name]
        return self.play.act if spec.section is Section.MOVE else self.reports.read

    async def _dispatch(self, cmd: Command) -> Reply:
        spec = resolve(cmd.name)
        if spec is None:
            return Reply(R.unknown_command(cmd.name), ok=False, code="unknown-command")
        if spec.name != cmd.name:
            cmd = replace(cmd, name=spec.name)
        if not spec.params and spec.name != "help" and _given(cmd):
            # `last 3`, `join stake=5`, `end --force`: words no parameter takes were dropped and the command ran
            # as if sent alone (`last 3` declared this round the last); refused, nothing done.  A read too: `hand
            # @bob` answered with the sender's own serial, as if it were Bob's.  (`help bid` is help all the same.)
            return Reply(R.takes_nothing(spec.name, changes=spec.changes), ok=False, code="bad-option")
        try:
            # a read waits for a write under way (it never sees a change its commit may roll back); any
            # command whose table another process changed first runs again on the table as stored
            return await self.rt.run(self._handler(spec), cmd, self._refusal, read=spec.section is Section.READ)
        except (UserError, GameError) as exc:
            return self._refusal(cmd, exc)

    def _refusal(self, cmd: Command, exc: Exception) -> Reply:
        if isinstance(exc, GameError):
            return Reply(self._game_error_text(cmd, exc), ok=False, code=exc.code)
        assert isinstance(exc, UserError)
        return Reply(exc.text, ok=False, code=exc.code)

    def _game_error_text(self, cmd: Command, exc: GameError) -> str:
        table = self.rt.tables.get(cmd.key)
        if isinstance(exc, NotYourTurn) and table is not None:
            return R.not_your_turn(table.name(exc.to_act))
        if isinstance(exc, UnknownPlayer) and exc.player == cmd.actor.user_id:
            return R.NOT_IN_ROUND
        text = sentence(exc.message)
        if table is not None:
            for p in sorted(table.names, key=len, reverse=True):
                text = text.replace(f"<@{p}>", table.name(p))
        return text

    # -- what adapters ask ------------------------------------------------------------------------
    def table(self, key: TableKey) -> TableState | None:
        return self.rt.tables.get(key)

    def table_id(self, key: TableKey) -> int | None:
        """The id of the table here now (what a reply's or a form's buttons are drawn for), if any."""
        table = self.rt.tables.get(key)
        return table.id if table is not None else None

    def turn(self, key: TableKey) -> int | None:
        """The turn under way at the table here now (what a form drawn now names: :attr:`Command.turn`), if any."""
        table = self.rt.tables.get(key)
        return table.turn if table is not None else None

    async def tables_of(self, platform: str, user_id: str, server_id: str | None = None, *,
                        live_only: bool = True) -> list[TableState]:
        """The tables where this user is in a round now (``live_only``; else every table they are seated at),
        on one server or all of a platform's (for ``hand`` sent by DM, where there is no channel to name the
        table; a Home tab), as stored: another process (another shard's, another worker's) may serve the
        table, or have dealt since this one looked.  A table this process does not hold is read, not cached."""
        found = []
        for head in await self.rt.store.open_table_heads():
            key = TableKey.from_server(head.server, head.channel)
            if key.platform != platform or (server_id is not None and key.server_id != server_id):
                continue
            table = self.rt.tables.get(key)
            if table is None or (table.id, table.events) != (head.table_id, head.seq):
                stored = await self.rt.store.open_table_at(head.server, head.channel)
                if stored is None:
                    continue
                try:
                    table = TableState.replayed(stored.table_id, key, stored.events)
                except Exception as exc:  # a table this version cannot read: every other one is still listed
                    log.debug("table %d: %s", stored.table_id, exc, exc_info=exc)
                    continue
            if user_id in table.seats and (table.live or not live_only):
                found.append(table)
        return found

    async def table_elsewhere(self, key: TableKey) -> TableKey | None:
        """The open table of this channel kept under another server of the platform, as stored (any process's),
        where this server has none here: a Slack channel shared between workspaces, whose table is the opening
        workspace's.  None if there is none, or the store cannot be read now (the command then says so itself)."""
        if key in self.rt.tables:
            return None
        try:
            heads = await self.rt.store.open_table_heads()
        except Exception as exc:
            log.debug("open tables unreadable (%s)", type(exc).__name__)
            return None
        keys = [TableKey.from_server(head.server, head.channel) for head in heads]
        if key in keys:
            return None
        return next((k for k in keys if k.platform == key.platform and k.channel_id == key.channel_id), None)

    async def hands_of(self, platform: str, user_id: str, server_id: str | None = None) -> list[tuple[TableKey, Reply]]:
        """``hand`` asked by DM: what this user holds in every round they are in (:meth:`tables_of`), each
        with its table.  Read as stored, not cached: a table another process serves stays that process's
        to time (a sharded process would otherwise time, and never survey, another shard's table)."""
        out = []
        for table in await self.tables_of(platform, user_id, server_id):
            try:
                out.append((table.key, self.reports.hand_at(table, user_id)))
            except UserError as exc:  # dealt nothing in that round (the card game's players under the gun)
                out.append((table.key, Reply(exc.text, ok=False, code=exc.code)))
        return out

    async def periods(self, server: str, cmd: Command | None = None) -> list[str]:
        """The ledger periods a server has rounds in, oldest first; with ``cmd``, only those its sender may
        see (under ``history=month`` a player sees this period alone, so a menu of periods does not tell them
        which earlier months had play)."""
        periods = await self.rt.store.periods(server)
        if cmd is None:
            return periods
        shown = await self.reports.discretion.period(cmd, await self.rt.settings(server))
        return periods if shown is None else [p for p in periods if p == shown]

    async def form(self, key: TableKey, user_id: str, verb: str, table_id: int | None = None,
                   turn: int | None = None) -> Form:
        """The form a button opens (the serial game's Raise…, the card game's Declare…), for this player now,
        on the table as stored: another process (a worker, a shard) may have opened or moved it.
        ``table_id``: the table the button was drawn for (a closed table's button opens nothing); ``turn``:
        the turn a form being drawn again was first drawn at (:attr:`Command.turn`; it is not drawn again once
        the table has moved on).  After it, :meth:`table_id` and :meth:`turn` read the table as caught up."""
        async with self.rt.lock(key):
            try:
                await self.rt.catch_up(key)
            except Exception as exc:  # the database cannot be read now: this process's copy, as before
                log.warning("could not catch up with table %s for a form (%s); drawing it from this process's "
                            "copy", key, type(exc).__name__)
            return self._form(key, user_id, verb, table_id, turn)

    def _form(self, key: TableKey, user_id: str, verb: str, table_id: int | None, turn: int | None) -> Form:
        table = self.rt.need_table(key)
        if table_id is not None and table.id != table_id:
            return Form(verb, verb.capitalize(), refusal=R.EARLIER_TABLE)
        spec = resolve(verb)
        verb = spec.name if spec is not None else verb  # a button drawn under an older name (``raise``)
        if game_of_command(table.game.name, verb) is None:  # a bare `discard` at a serial table opened Raise…
            return Form(verb, verb.capitalize(), refusal=R.not_in_game(verb, table.game.title))
        if table.match is None or table.status != TableStatus.PLAYING or not table.live:
            return Form(verb, verb.capitalize(), refusal=R.NO_ROUND)
        form = table.match.form(user_id, verb)

        def named(text: str) -> str:  # a form is shown as it is (no mentions drawn): players by their names
            for p in sorted(table.names, key=len, reverse=True):
                text = text.replace(f"<@{p}>", table.name(p))
            return text

        refusal = None if form.refusal is None else sentence(named(form.refusal))
        if refusal is None and self.rt.turn_moved_on(table, turn, user_id):
            refusal = R.EARLIER_TURN
        return replace(form, refusal=refusal, intro=named(form.intro))

    def panel(self, key: TableKey, panel: str) -> str | None:
        """The id of the message the channel's table's ``panel`` was posted as, if any."""
        return self.rt.panels.ref(key, panel)
