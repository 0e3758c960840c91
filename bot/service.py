"""The table service: async use cases over the pure engine.  Platform-agnostic.

One lock per table; every state change is an event appended to the table's log and committed (with
any settled round's ledger entries and the command's request id) in one transaction *before* anyone
is told; then the messages go out through the notifier.  Bad input raises nothing: it gets one
private :class:`~bot.model.Reply` and changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from core.serial import (
    PRESETS,
    Action,
    Bid,
    BidPlaced,
    BidTooLow,
    CallCount,
    Challenge,
    ChallengedAllAround,
    ChallengeMade,
    Counted,
    Event,
    GameError,
    MakeBid,
    NotYourTurn,
    RulesError,
    SerialSource,
    commitment,
    deal_serial,
    deal_slip,
    digit_plural,
    make_rules,
    new_salt,
    seat_view,
    timeout_action,
)
from core.serial.record import outcome_to_dict
from core.serial.serials import RandomSource

from . import messages as M
from .ledger import period_of
from .model import COMMANDS, Actor, Command, Message, Reply, TableKey
from .parsing import UserError, positive_int, sentence, stake, user_ref
from .ports import Clock, LedgerEntry, Notifier, RoundRecord, Store, SystemClock
from .server_commands import DEFAULT_SETTINGS, LEVELS, ServerCommands
from .table import ENDED, LOBBY, PLAYING, TableState, action_to_event

__all__ = ["DEFAULT_SETTINGS", "Service", "UserError"]

log = logging.getLogger(__name__)


COMPUTER_NAMES = ("Gekko", "Sherman", "Meriwether", "Ranieri", "Gutfreund", "Lewis", "Strauss", "Kimmel",
                  "Hill", "Mozer", "Feuerstein")
MAX_SEATS = 12
_TABLE_READS = frozenset({"hand", "odds", "hint", "status"})  # commands that read one live table


Handler = Callable[[Command], Awaitable[Reply]]


class Service(ServerCommands):
    def __init__(
        self,
        store: Store,
        notifier: Notifier,
        *,
        clock: Clock | None = None,
        rng: RandomSource | None = None,
        computer_delay: float = 0.0,
        platform: str | None = None,
    ) -> None:
        self.store = store
        self.notifier = notifier
        self.clock: Clock = clock or SystemClock()
        self.rng: RandomSource = rng or secrets.SystemRandom()
        self.computer_delay = computer_delay
        self.platform = platform
        self.tables: dict[TableKey, TableState] = {}
        self._locks: dict[TableKey, asyncio.Lock] = {}
        self._warned: dict[TableKey, tuple[int, float]] = {}
        self._settings_cache: dict[str, dict[str, Any]] = {}
        self._handlers: dict[str, Handler] = {name: getattr(self, f"_cmd_{name}") for name in COMMANDS}
        self._timer_task: asyncio.Task[None] | None = None
        self._in_flight: dict[str, asyncio.Future[Reply]] = {}

    # -- life cycle -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Reload every open table from its event log and resume its timers."""
        for stored in await self.store.load_open_tables():
            key = TableKey.from_server(stored.server, stored.channel)
            if self.platform is not None and key.platform != self.platform:
                continue
            table = TableState(stored.table_id, key)
            for event in stored.events:
                table.apply(event)
            table.panels = dict(stored.panels)
            self.tables[key] = table
        log.info("loaded %d open tables", len(self.tables))

    def start_timers(self) -> None:
        if self._timer_task is None:
            self._timer_task = asyncio.create_task(self._timer_loop(), name="liars-timers")

    async def close(self) -> None:
        if self._timer_task is not None:
            self._timer_task.cancel()
            try:
                await self._timer_task
            except asyncio.CancelledError:
                pass
            self._timer_task = None
        await self.store.close()

    def lock(self, key: TableKey) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def table(self, key: TableKey) -> TableState | None:
        return self.tables.get(key)

    def tables_of(self, platform: str, user_id: str, server_id: str | None = None) -> list[TableState]:
        """The tables where this user holds a serial now, on one server or all of a platform's
        (for ``hand`` sent by DM, where there is no channel to name the table)."""
        return [
            t for k, t in list(self.tables.items())
            if k.platform == platform and (server_id is None or k.server_id == server_id)
            and user_id in t.seats and t.live_round is not None
        ]

    async def periods(self, server: str) -> list[str]:
        """The ledger periods a server has rounds in, oldest first."""
        return await self.store.periods(server)

    # -- the one entry point ----------------------------------------------------------------------
    async def handle(self, cmd: Command) -> Reply:
        """Apply a command; return the reply for the person who sent it.  Never raises for bad input."""
        if cmd.request_id is None:
            return await self._dispatch(cmd)
        # A platform's retry of a delivery still in flight waits for the first one's reply.
        running = self._in_flight.get(cmd.request_id)
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
        seen = await self.store.get_request(request_id)
        if seen is not None:
            return Reply.from_dict(seen)
        return await self._dispatch(cmd)

    async def _dispatch(self, cmd: Command) -> Reply:
        handler = self._handlers.get(cmd.name)
        if handler is None:
            return Reply(f"Unknown command {cmd.name!r}. Try `help`.", ok=False, code="unknown-command")
        try:
            if cmd.name in _TABLE_READS:
                # a read waits for a write under way: it never sees a change its commit may roll back
                async with self.lock(cmd.key):
                    reply = await handler(cmd)
            else:
                reply = await handler(cmd)
        except UserError as exc:
            reply = Reply(exc.text, ok=False, code=exc.code)
        except GameError as exc:
            reply = Reply(self._game_error_text(cmd.key, exc), ok=False, code=exc.code)
        return reply

    def _game_error_text(self, key: TableKey, exc: GameError) -> str:
        table = self.tables.get(key)
        if isinstance(exc, NotYourTurn) and table is not None:
            return f"It is not your turn: {table.name(exc.to_act)} is to act."
        if isinstance(exc, BidTooLow):
            return (f"{exc.bid} does not beat the standing bid of {exc.standing}: "
                    "raise the quantity, or bid a higher digit.")
        return sentence(exc.message)

    # -- settings ---------------------------------------------------------------------------------
    async def settings(self, server: str) -> dict[str, Any]:
        cached = self._settings_cache.get(server)
        if cached is None:
            cached = {**DEFAULT_SETTINGS, **(await self.store.get_settings(server))}
            self._settings_cache[server] = cached
        return cached

    async def _is_admin(self, cmd: Command) -> bool:
        if cmd.actor.is_admin:
            return True
        return cmd.actor.user_id in (await self.settings(cmd.key.server)).get("admins", [])

    def _period(self) -> str:
        return period_of(self.clock.now())

    # -- committing -------------------------------------------------------------------------------
    async def _commit(
        self, table: TableState, events: list[dict[str, Any]], cmd: Command | None = None, reply: Reply | None = None
    ) -> list[Event]:
        """Apply events to the table, store them (one transaction), return the engine's events."""
        now = self.clock.now()
        core_events: list[Event] = []
        rounds: list[RoundRecord] = []
        names: dict[str, str] = {}
        for ev in events:
            ev["at"] = now
            got = table.apply(ev)
            core_events.extend(got)
            if ev["t"] in ("open", "join"):
                names.update({p: table.name(p) for p in table.seats})
            for e in got:
                if isinstance(e, Counted):
                    outcome = e.outcome
                    rounds.append(
                        RoundRecord(
                            number=table.round_number,
                            record=table.round_record(outcome),
                            outcome=outcome_to_dict(outcome),
                            entries=[LedgerEntry(p, u) for p, u in outcome.net.items()],
                        )
                    )
        request = (cmd.request_id, reply.to_dict()) if cmd is not None and cmd.request_id and reply else None
        try:
            await self.store.commit(
                table.id,
                table.key.server,
                events,
                at=now,
                period=period_of(now),  # the same moment as the events' timestamps
                rounds=rounds,
                names=names or None,
                request=request,
                close=table.status == ENDED,
            )
        except Exception:
            log.exception("storing table %s failed; reloading it from the store", table.id)
            await self._reload(table)
            raise
        return core_events

    async def _reload(self, table: TableState) -> None:
        fresh = TableState(table.id, table.key)
        for event in await self.store.table_events(table.id):
            fresh.apply(event)
        fresh.panels = table.panels
        self.tables[table.key] = fresh
        if fresh.status == ENDED:
            del self.tables[table.key]

    async def _say(self, messages: list[Message]) -> None:
        if messages:
            try:
                await self.notifier.deliver(messages)
            except Exception:
                log.exception("delivering %d messages failed", len(messages))

    # -- helpers ----------------------------------------------------------------------------------
    def _need_table(self, key: TableKey) -> TableState:
        table = self.tables.get(key)
        if table is None:
            raise UserError("There is no table in this channel. Open one with `start`.", "no-table")
        return table

    def _need_seat(self, table: TableState, actor: Actor) -> None:
        if actor.user_id not in table.seats:
            raise UserError("You are not seated at this table.", "not-seated")

    def _need_round(self, table: TableState) -> None:
        if table.live_round is None:
            raise UserError("No round is under way at this table.", "no-round")

    async def _need_host_or_admin(self, table: TableState, cmd: Command, what: str) -> None:
        if cmd.actor.user_id != table.host and not await self._is_admin(cmd):
            raise UserError(f"Only the host or a server admin can {what}.", "not-host")

    # -- lobby commands ---------------------------------------------------------------------------
    async def _cmd_start(self, cmd: Command) -> Reply:
        key, actor = cmd.key, cmd.actor
        async with self.lock(key):
            if key in self.tables:
                raise UserError("A table is already open in this channel. Use `join`, or `end` it first.", "table-open")
            settings = await self.settings(key.server)
            opts = {k: v for k, v in cmd.options.items() if v is not None and v != ""}
            words = list(cmd.args)
            # positional: [preset] [stake] [seats] [computers]; then option=value words
            positional = [w for w in words if "=" not in w]
            for w in words:
                if "=" in w:
                    name, _, value = w.partition("=")
                    opts.setdefault(name.strip().lower().replace("-", "_"), value.strip())
            for name, value in zip(("preset", "stake", "seats", "computers"), positional, strict=False):
                opts.setdefault(name, value)
            if len(positional) > 4:
                raise UserError("Usage: `start [preset] [stake] [seats] [computers] [option=value ...]`.")
            preset = str(opts.pop("preset", None) or settings["preset"]).lower()
            if preset not in PRESETS:
                raise UserError(f"Unknown preset {preset!r}: choose {', '.join(PRESETS)}.", "bad-option")
            seats = positive_int(opts.pop("seats", None), "seats", default=MAX_SEATS, low=2, high=MAX_SEATS)
            computers = positive_int(opts.pop("computers", None), "computers", default=0, low=0, high=MAX_SEATS - 1)
            max_rounds = positive_int(opts.pop("rounds", None), "rounds", default=0, low=1, high=10_000)
            host_level = str(opts.pop("host_computer", "")).lower() if key.platform == "local" else ""
            level = str(opts.pop("level", None) or settings.get("computer_level", "hard")).lower()
            if level not in LEVELS or (host_level and host_level not in LEVELS):
                raise UserError(f"Unknown level {level!r}: choose {', '.join(LEVELS)}.", "bad-option")
            if computers + 1 > seats:
                raise UserError(f"{computers} computer players and you do not fit in {seats} seats.", "bad-option")
            overrides = {**settings.get("options", {}), **opts}
            if "stake" in overrides:
                overrides["stake"] = stake(overrides["stake"])
            try:
                rules = make_rules(preset, **overrides)
            except RulesError as exc:
                raise UserError(f"{sentence(str(exc))}", "bad-option") from None
            bots = [
                (f"cpu-{COMPUTER_NAMES[i].lower()}", f"{COMPUTER_NAMES[i]} ({level})", level) for i in range(computers)
            ]
            table_id = await self.store.create_table(key.server, key.channel_id, self.clock.now())
            table = TableState(table_id, key)
            self.tables[key] = table
            event = {
                "t": "open",
                "host": actor.user_id,
                "host_name": actor.name,
                "rules": rules.to_dict(),
                "seats": seats,
                "computers": [list(b) for b in bots],
                "max_rounds": max_rounds,
            }
            if host_level:
                event["host_level"] = host_level
            reply = Reply(f"You opened a table: {rules.describe()}", private=True)
            try:
                await self._commit(table, [event], cmd, reply)
            except Exception:
                self.tables.pop(key, None)
                raise
            await self._say([M.lobby_message(table, fresh=True)])
        return reply

    async def _cmd_join(self, cmd: Command) -> Reply:
        async with self.lock(cmd.key):
            table = self._need_table(cmd.key)
            uid = cmd.actor.user_id
            if uid in table.seats:
                raise UserError("You are already seated at this table.", "already-seated")
            if table.status != LOBBY:
                raise UserError("Play is under way at this table; join the next one.", "table-running")
            if len(table.seats) >= table.seat_limit:
                raise UserError(f"This table is full ({table.seat_limit} seats).", "table-full")
            reply = Reply(f"You are seated ({len(table.seats) + 1}/{table.seat_limit}).")
            await self._commit(table, [{"t": "join", "player": uid, "name": cmd.actor.name}], cmd, reply)
            await self._say([M.lobby_message(table)])
        return reply

    async def _cmd_leave(self, cmd: Command) -> Reply:
        async with self.lock(cmd.key):
            table = self._need_table(cmd.key)
            self._need_seat(table, cmd.actor)
            return await self._remove(table, cmd, cmd.actor.user_id, kicked=False)

    async def _cmd_kick(self, cmd: Command) -> Reply:
        if not cmd.args and "member" not in cmd.options:
            raise UserError("Usage: `kick @player`.")
        target = user_ref(str(cmd.options.get("member") or cmd.args[0]))
        async with self.lock(cmd.key):
            table = self._need_table(cmd.key)
            await self._need_host_or_admin(table, cmd, "remove a player")
            if target not in table.seats:
                raise UserError("That player is not seated at this table.", "not-seated")
            return await self._remove(table, cmd, target, kicked=True)

    async def _remove(self, table: TableState, cmd: Command, player: str, kicked: bool) -> Reply:
        if player in table.pending_leave:
            raise UserError("That seat is already leaving after this round.", "already-leaving")
        if table.status == LOBBY and player == table.host:
            text = ("The host cannot be removed from the lobby; `end` the table instead." if kicked
                    else "The host cannot leave the lobby; `end` the table instead.")
            raise UserError(text, "host-leave")
        who = "They" if kicked else "You"
        if table.status == LOBBY:
            text = f"{who} left the table." if not kicked else f"{table.name(player)} was removed from the table."
        else:
            text = f"{who} will leave after this round." if not kicked else (
                f"{table.name(player)} will be removed after this round.")
        reply = Reply(text)
        await self._commit(table, [{"t": "leave", "player": player}], cmd, reply)
        await self._say([M.lobby_message(table)])
        return reply

    async def _cmd_deal(self, cmd: Command) -> Reply:
        async with self.lock(cmd.key):
            table = self._need_table(cmd.key)
            if cmd.actor.user_id != table.host:
                raise UserError("Only the host deals.", "not-host")
            if table.status != LOBBY:
                raise UserError("The cards — the serials — are already dealt.", "table-running")
            if len(table.seats) < 2:
                raise UserError("At least two seats are needed to deal.", "too-few")
            reply = Reply("Dealt. Check your DMs for your serial.")
            await self._deal(table, cmd, reply)
        await self._after_change(cmd.key)
        return reply

    async def _deal(self, table: TableState, cmd: Command | None = None, reply: Reply | None = None) -> None:
        """Deal the next round (fresh serials, the next SLIPS serial, or a new session when seats change)."""
        players = [p for p in table.seats if p not in table.pending_leave]
        session = table.session
        new_session = session is None or list(session.players) != players
        event: dict[str, Any] = {"t": "deal", "players": players}
        if table.rules.serial_source is SerialSource.SLIPS:
            if new_session:
                slips = {p: [str(s) for s in deal_slip(self.rng)] for p in players}
                event["slips"] = slips
                serials = {p: slips[p][0] for p in players}
            else:
                assert session is not None and session.slips is not None
                pos = session.slip_position()
                serials = {p: str(session.slips[p][pos]) for p in players}
        else:
            serials = {p: str(deal_serial(self.rng)) for p in players}
        opener, stake_ = table.preview_deal(players, serials, event.get("slips"), self.rng)
        salt = new_salt(self.rng)
        event.update(serials=serials, opener=opener, stake=stake_, salt=salt,
                     commitment=commitment(players, serials, salt))
        await self._commit(table, [event], cmd, reply)
        msgs = [M.deal_announcement(table), M.table_panel(table, fresh=True)]
        if cmd is not None:
            msgs.append(M.lobby_message(table))  # the lobby panel now says play is under way
        msgs += [M.serial_message(table, p) for p in players if not table.is_computer(p)]
        await self._say(msgs)

    # -- play -------------------------------------------------------------------------------------
    async def _play(self, cmd: Command, action_for: Callable[[TableState], Action], done: str) -> Reply:
        async with self.lock(cmd.key):
            table = self._need_table(cmd.key)
            self._need_seat(table, cmd.actor)
            self._need_round(table)
            action = action_for(table)
            round_ = table.live_round
            assert round_ is not None
            round_.check(action)  # raises GameError before anything changes
            reply = Reply(done)
            await self._act(table, action, cmd, reply)
        await self._after_change(cmd.key)
        return reply

    async def _cmd_bid(self, cmd: Command) -> Reply:
        def action(table: TableState) -> Action:
            order = table.rules.rank_order
            if "quantity" in cmd.options and "digit" in cmd.options:
                try:
                    q, d = int(cmd.options["quantity"]), int(cmd.options["digit"])
                except (TypeError, ValueError):
                    raise UserError("A bid is a quantity and a digit, like `bid 5 7`.", "bad-bid") from None
                if not 0 <= d <= 9:
                    raise UserError("The digit must be 0 to 9.", "bad-bid")
                if q < 1:
                    raise UserError("A bid is for at least one copy.", "bad-bid")
                bid = Bid(q, d, order)
            else:
                text = " ".join(cmd.args).strip()
                if not text:
                    raise UserError("Say what you bid, like `bid 5 7` or `bid five sevens`.", "bad-bid")
                bid = Bid.parse(text, order)
            return MakeBid(cmd.actor.user_id, bid)

        return await self._play(cmd, action, "Bid placed.")

    async def _cmd_challenge(self, cmd: Command) -> Reply:
        return await self._play(cmd, lambda t: Challenge(cmd.actor.user_id), "You challenged.")

    async def _cmd_count(self, cmd: Command) -> Reply:
        return await self._play(cmd, lambda t: CallCount(cmd.actor.user_id), "You called for the count.")

    async def _act(
        self, table: TableState, action: Action, cmd: Command | None = None, reply: Reply | None = None,
        timed_out: bool = False,
    ) -> None:
        event = action_to_event(action)
        if timed_out:
            event["timeout"] = True
        core_events = await self._commit(table, [event], cmd, reply)
        msgs: list[Message] = []
        note = ""
        for e in core_events:
            if isinstance(e, BidPlaced):
                note = f"{M.mention(e.player)} {'rebid' if e.rebid else 'bid'} {e.bid}."
            elif isinstance(e, ChallengeMade):
                note = f"{M.mention(e.player)} challenged {e.bid}."
            elif isinstance(e, ChallengedAllAround) and e.may_rebid:
                note = f"{e.bid} is challenged all around."
        counted = [e for e in core_events if isinstance(e, Counted)]
        if timed_out:
            note = f"⏰ {M.mention(action.player)} ran out of time. " + note
        msgs.append(M.table_panel(table, note=note))
        nxt = table.live_round.to_act if table.live_round is not None else None
        if nxt is not None and nxt != action.player and not table.is_computer(nxt):
            msgs.append(M.turn_message(table))
        if counted:
            settings = await self.settings(table.key.server)
            msgs.append(M.count_message(table, counted[0].outcome, settings))
        await self._say(msgs)

    async def _after_change(self, key: TableKey) -> None:
        """Deal the next round after a count, and let computer seats act (at once when there is no delay).

        The command that led here is already applied and stored; a failure now is logged, not
        reported to its sender, and the table's timer retries it (:meth:`_deadline`).
        """
        try:
            await self._follow_up(key)
        except Exception:
            log.exception("following up on table %s failed; its timer will retry", key)

    async def _follow_up(self, key: TableKey) -> None:
        for _ in range(10_000):
            async with self.lock(key):
                table = self.tables.get(key)
                if table is None or table.status != PLAYING:
                    return
                round_ = table.round
                if round_ is not None and round_.is_over:
                    await self._next_round(table)
                    continue
                if round_ is None or self.computer_delay > 0:
                    return
                player = round_.to_act
                if player is None or not table.is_computer(player):
                    return
                await self._computer_move(table, player)

    async def _next_round(self, table: TableState) -> None:
        session = table.session
        assert session is not None
        remaining = [p for p in table.seats if p not in table.pending_leave]
        max_rounds = table.max_rounds
        if max_rounds and table.rounds_counted >= max_rounds:
            await self._end(table, None, f"all {max_rounds} rounds are played.")
            return
        if session.over or len(remaining) < 2 or (all(table.is_computer(p) for p in remaining) and table.humans):
            if session.over:
                reason = "the session is complete."
            elif len(remaining) < 2:
                reason = "fewer than two players remain."
            else:
                reason = "only computer players remain."
            await self._end(table, None, reason)
            return
        await self._deal(table)

    async def _computer_move(self, table: TableState, player: str) -> None:
        from core.serial.players import get_strategy

        round_ = table.live_round
        assert round_ is not None
        strategy = get_strategy(table.computers[player])
        rng = random.Random(f"{table.id}:{table.round_number}:{len(round_.history)}")
        action = strategy.decide(seat_view(round_, player), rng)
        await self._act(table, action)

    async def _end(self, table: TableState, cmd: Command | None, reason: str, reply: Reply | None = None) -> None:
        await self._commit(table, [{"t": "end", "by": cmd.actor.user_id if cmd else "", "reason": reason}], cmd, reply)
        await self._say([M.closed_message(table, reason), M.lobby_message(table)])
        # forget the table only once the adapters have edited its panels (they look the refs up here)
        if self.tables.get(table.key) is table:
            del self.tables[table.key]
            self._warned.pop(table.key, None)

    # -- private views ----------------------------------------------------------------------------
    async def _cmd_hand(self, cmd: Command) -> Reply:
        table = self._need_table(cmd.key)
        self._need_seat(table, cmd.actor)
        self._need_round(table)
        msg = M.serial_message(table, cmd.actor.user_id, reminder=True)
        return Reply(msg.text, private=True, data={"serial": msg.data["serial"]})

    async def _cmd_odds(self, cmd: Command) -> Reply:
        table = self._need_table(cmd.key)
        self._need_seat(table, cmd.actor)
        self._need_round(table)
        return Reply(M.odds_text(table, cmd.actor.user_id), private=True)

    async def _cmd_hint(self, cmd: Command) -> Reply:
        from core.serial.players import get_strategy

        table = self._need_table(cmd.key)
        self._need_seat(table, cmd.actor)
        round_ = table.live_round
        if round_ is None:
            raise UserError("No round is under way at this table.", "no-round")
        if round_.to_act != cmd.actor.user_id:
            raise UserError("Hints are for your turn.", "not-your-turn")
        text = get_strategy("hard").explain(seat_view(round_, cmd.actor.user_id))
        for player in sorted(round_.players, key=len, reverse=True):  # the engine speaks of seat ids
            text = text.replace(player, table.name(player))
        return Reply(f"💡 {text}", private=True)

    # -- public info ------------------------------------------------------------------------------
    async def _cmd_status(self, cmd: Command) -> Reply:
        table = self._need_table(cmd.key)
        msg = M.table_panel(table) if table.live_round is not None else M.lobby_message(table)
        from .model import render_mentions

        return Reply(render_mentions(msg), private=True, buttons=msg.buttons)

    async def _cmd_rules(self, cmd: Command) -> Reply:
        table = self.tables.get(cmd.key)
        if table is not None:
            return Reply(M.rules_text(table.rules))
        settings = await self.settings(cmd.key.server)
        rules = make_rules(settings["preset"], **settings.get("options", {}))
        return Reply("No table here. A new table would play: " + M.rules_text(rules))

    async def _cmd_help(self, cmd: Command) -> Reply:
        lines = ["Liar's Poker commands:"] + [f"• `{name}` — {text}" for name, text in COMMANDS.items()]
        return Reply("\n".join(lines))

    async def _cmd_last(self, cmd: Command) -> Reply:
        async with self.lock(cmd.key):
            table = self._need_table(cmd.key)
            await self._need_host_or_admin(table, cmd, "declare the last hand")
            if table.status != PLAYING or table.session is None:
                raise UserError("Play has not started yet.", "no-round")
            if table.last_declared:
                raise UserError("The last hand is already declared.", "already")
            reply = Reply("The last hand is declared.")
            await self._commit(table, [{"t": "last"}], cmd, reply)
            number = table.session.last_hand
            double = " at double stake" if table.rules.last_hand_double else ""
            msgs = [M.table_message(table, f"📣 Round {number} is the last hand{double}.", "info")]
            if table.live_round is not None:
                msgs.append(M.table_panel(table))  # the stake may have doubled
            await self._say(msgs)
        return reply

    async def _cmd_end(self, cmd: Command) -> Reply:
        async with self.lock(cmd.key):
            table = self._need_table(cmd.key)
            await self._need_host_or_admin(table, cmd, "end the table")
            unfinished = " The round under way is void: no money moves." if table.live_round is not None else ""
            reply = Reply("The table is closed." + unfinished)
            await self._end(table, cmd, f"closed by {cmd.actor.name}.{unfinished}", reply)
        return reply

    # -- timers -----------------------------------------------------------------------------------
    def next_deadline(self) -> float | None:
        deadlines = [d for t in self.tables.values() for d in [self._deadline(t)] if d is not None]
        return min(deadlines) if deadlines else None

    def _deadline(self, table: TableState) -> float | None:
        settings = self._settings_cache.get(table.key.server, DEFAULT_SETTINGS)
        if table.status == LOBBY:
            return table.opened_at + float(settings["lobby_timeout"])
        round_ = table.live_round
        if round_ is None:
            # counted but the next round never dealt (a failed write, a crash): due at once
            return table.turn_started_at if table.status == PLAYING else None
        if round_.to_act is None:
            return None
        if table.is_computer(round_.to_act):
            return table.turn_started_at + self.computer_delay
        timeout = float(settings["turn_timeout"])
        warned = self._warned.get(table.key)
        if warned != (table.id, table.turn_started_at):
            return table.turn_started_at + timeout / 2
        return table.turn_started_at + timeout

    async def tick(self) -> int:
        """Act on every due timer (turn warnings and timeouts, computer moves, lobby expiry).

        Returns how many things happened.  The background loop calls this; tests call it after moving
        a fake clock.
        """
        done = 0
        for key in list(self.tables):
            acted, follow_up = await self._tick_table(key)
            done += acted
            if follow_up:
                await self._after_change(key)
        return done

    async def _tick_table(self, key: TableKey) -> tuple[int, bool]:
        """One table's due timer: (how many things happened, whether to follow up after)."""
        settings = await self.settings(key.server)
        async with self.lock(key):
            table = self.tables.get(key)
            if table is None:
                return 0, False
            deadline = self._deadline(table)
            now = self.clock.now()
            if deadline is None or now < deadline:
                return 0, False
            if table.status == LOBBY:
                await self._end(table, None, "nobody dealt before the lobby timed out.")
                return 1, False
            round_ = table.live_round
            if round_ is None:  # counted, but the next round was never dealt: deal it now
                return 1, True
            player = round_.to_act
            assert player is not None
            if table.is_computer(player):
                await self._computer_move(table, player)
                return 1, True
            if self._warned.get(key) != (table.id, table.turn_started_at):
                self._warned[key] = (table.id, table.turn_started_at)
                left = int(float(settings["turn_timeout"]) - (now - table.turn_started_at))
                text = f"⏳ {M.mention(player)}, {max(left, 0)} seconds left to act."
                await self._say([M.table_message(table, text, "warning")])
                return 1, False
            await self._act(table, timeout_action(round_), timed_out=True)
            return 1, True

    async def resume(self, key: TableKey) -> None:
        """Bring a loaded table up to date now: deal a round left undealt, let computers due act."""
        await self._after_change(key)

    async def _timer_loop(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:
                log.exception("timer tick failed")
            deadline = self.next_deadline()
            wait = 1.0 if deadline is None else min(1.0, max(0.0, deadline - self.clock.now()))
            await self.clock.sleep(max(wait, 0.05))

    # -- adapters' helpers ------------------------------------------------------------------------
    async def set_panel(self, key: TableKey, panel: str, ref: str) -> None:
        table = self.tables.get(key)
        if table is not None and table.panels.get(panel) != ref:
            table.panels[panel] = ref
            await self.store.set_panel(table.id, panel, ref)

    def panel(self, key: TableKey, panel: str) -> str | None:
        table = self.tables.get(key)
        return table.panels.get(panel) if table is not None else None

    def raise_options(self, key: TableKey, user_id: str) -> dict[str, Any]:
        """What a Raise… form offers: the lowest legal bid, and the quantities and digits in order."""
        table = self._need_table(key)
        round_ = table.live_round
        if round_ is None:
            raise UserError("No round is under way at this table.", "no-round")
        order = table.rules.rank_order
        standing = round_.standing_bid
        legal = round_.legal_actions().bids() if round_.to_act == user_id else []
        by_quantity: dict[int, list[int]] = {}
        for bid in legal:  # low to high; the form lists digits highest first
            by_quantity.setdefault(bid.quantity, []).insert(0, bid.digit)
        if user_id not in table.seats:
            refusal: str | None = "You are not seated at this table."
        elif round_.to_act != user_id:
            refusal = f"It is not your turn: {table.name(round_.to_act or '')} is to act."
        else:
            refusal = None
        return {
            "standing": str(standing) if standing else None,
            "standing_bid": standing.as_list() if standing else None,
            "quantities": sorted(by_quantity)[:25],
            "legal_digits": {q: by_quantity[q] for q in sorted(by_quantity)[:25]},
            "digits": [(d, digit_plural(d, order)) for d in reversed(order.digits_low_to_high)],
            "to_act": round_.to_act,
            "your_turn": round_.to_act == user_id,
            "refusal": refusal,
        }
