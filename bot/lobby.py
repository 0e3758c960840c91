"""Opening, seating and closing tables: ``start``, ``join``, ``leave``, ``kick``, ``deal``, ``last``, ``end``.

Any game: the game is named at ``start`` (``game=cards``; the serial game by default) and everything
about play is asked of it through the game seam.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

from core.game import Game, GameRules, Match
from core.registry import DEFAULT_GAME, GAMES, get_game

from . import messages as M
from . import refusals as R
from .commands import games_with_preset, usual_formats
from .model import Command, Message, MessageKind, Reply, TableKey
from .parsing import (
    UserError,
    in_the_way,
    joined_options,
    positive_int,
    same_value,
    sentence,
    shown_name,
    stake,
    user_ref,
)
from .runtime import Runtime
from .settings import game_defaults
from .table import TableState, TableStatus

__all__ = ["COMPUTER_NAMES", "Lobby"]

COMPUTER_NAMES = ("Gekko", "Sherman", "Meriwether", "Ranieri", "Gutfreund", "Lewis", "Strauss", "Kimmel",
                  "Hill", "Mozer", "Feuerstein")


def _rules(game: Game, preset: str | None, server: dict[str, Any], typed: dict[str, str]) -> GameRules:
    """The rules of a new table: the game's preset, this server's default options, then the typed ones."""
    overrides: dict[str, Any] = {**server, **typed}
    if "stake" in overrides:
        overrides["stake"] = stake(overrides["stake"], low=0)
    return game.make_rules(preset.lower() if preset else None, overrides)


def _start_options(cmd: Command) -> tuple[dict[str, str], list[str]]:
    """Named options (from the platform's form, then ``name=value`` words) and positional words.  An option
    given no value (``seats=``, the terminal's ``--option rebid``) is refused, not taken as not given."""
    opts = {k: str(v) for k, v in cmd.options.items() if v is not None}
    args = joined_options(cmd.args)
    positional = [w for w in args if "=" not in w]
    for w in args:
        if "=" in w:
            name, _, value = w.partition("=")
            _once(opts, name.strip().lower().replace("-", "_"), value.strip())
    for name, value in opts.items():
        if value.strip() == "":
            raise UserError(R.option_without_value(name), "bad-option")
    return opts, positional


def _once(opts: dict[str, str], name: str, value: str) -> None:
    """``opts[name] = value``, refused where ``name`` has another value already (``stake=2 stake=3``, a form's
    stake and a typed one, ``start salomon preset=classic``: the first was kept, silently)."""
    if name in opts and same_value(opts[name]) != same_value(value):
        raise UserError(R.given_twice(name), "bad-option")
    opts[name] = opts.get(name, value)


class Lobby:
    def __init__(self, rt: Runtime, follow_up: Callable[[TableKey], Awaitable[None]]) -> None:
        self.rt = rt
        self.follow_up = follow_up  # Play.after_change: deal, then let computer seats act

    async def start(self, cmd: Command) -> Reply:
        rt, key, actor = self.rt, cmd.key, cmd.actor
        async with rt.lock(key):
            if key in rt.tables:
                raise UserError(R.TABLE_OPEN, "table-open")
            settings = await rt.settings(key.server)
            opts, positional = _start_options(cmd)
            if positional and positional[0].lower() in GAMES and "game" not in opts:
                opts["game"] = positional.pop(0).lower()
            if "game" not in opts:  # a preset only one game has names its game: `start wild`
                named = opts.get("preset") or (positional[0] if positional else "")
                owners = games_with_preset(named)
                if len(owners) == 1:
                    opts["game"] = owners[0]
            try:
                game = get_game(opts.pop("game", DEFAULT_GAME).lower())
            except KeyError:
                raise UserError(R.unknown_game(GAMES), "bad-option") from None
            if said := [w.lower() for w in positional if w.lower() in game.formats]:  # `start elimination`, as
                # `start cards` and `start salomon` work (it was "Unknown preset 'elimination'")
                if len(set(said)) > 1 or ("format" in opts and str(opts["format"]).lower() != said[0]):
                    raise UserError(R.given_twice("format"), "bad-option")
                opts["format"] = said[0]
                positional = [w for w in positional if w.lower() not in game.formats]
            if positional and positional[0].lower() in game.presets:  # a preset said again (`start quick quick`) is
                # said once; another one (`start classic salomon`) is two presets, not a stake named "salomon"
                if any(w.lower() in game.presets and w.lower() != positional[0].lower() for w in positional[1:]):
                    raise UserError(R.given_twice("preset"), "bad-option")
                positional = positional[:1] + [w for w in positional[1:] if w.lower() not in game.presets]
            if len(positional) > 5:
                raise UserError(R.START_USAGE)
            for name, value in zip(("preset", "stake", "seats", "computers", "level"), positional, strict=False):
                _once(opts, name, value)
            server_preset, server_options = game_defaults(settings, game.name)  # this server's, for this game
            preset = opts.pop("preset", None) or server_preset
            if preset is not None and preset.lower() not in game.presets:
                raise UserError(R.unknown_preset(preset, game.presets), "bad-option")
            most = game.max_players
            seats = positive_int(opts.pop("seats", None), "seats", default=most, low=game.min_players, high=most)
            computers = positive_int(opts.pop("computers", None), "computers", default=0, low=0, high=most - 1)
            max_rounds = positive_int(opts.pop("rounds", None), "rounds", default=0, low=1, high=10_000)
            host_level = opts.pop("host_computer", "").lower() if key.platform == "local" else ""
            # the server's default level where this game has it, else the game's own default
            default_level = settings["computer_level"]
            level = (opts.pop("level", None) or (default_level if default_level in game.levels
                                                  else game.default_level)).lower()
            if level not in game.levels or (host_level and host_level not in game.levels):
                raise UserError(R.unknown_level(level, game.levels), "bad-option")
            if computers + 1 > seats:
                raise UserError(R.computers_do_not_fit(computers, seats), "bad-option")
            if "format" in opts and not game.formats:  # a game of one way to play: its usual way, or no format
                if opts["format"].lower() not in usual_formats():
                    raise UserError(R.no_format(game.title, opts["format"], usual_formats()), "bad-option")
                del opts["format"]
            try:
                rules = _rules(game, preset, server_options, opts)
            except (ValueError, TypeError) as exc:
                blame = in_the_way(lambda server: _rules(game, preset, server, opts), server_options, opts)
                raise UserError(sentence(str(exc)) + blame, "bad-option") from None
            if max_rounds and not game.settles_each_round(rules):  # it would close with nobody paid or winning
                raise UserError(R.NO_ROUND_LIMIT, "bad-option")
            bots = [(f"cpu-{n.lower()}", f"{n} ({level})", level) for n in COMPUTER_NAMES[:computers]]
            table_id = await rt.store.create_table(key.server, key.channel_id, rt.clock.now())
            table = TableState(table_id, key)
            rt.tables[key] = table
            event: dict[str, Any] = {"t": "open", "host": actor.user_id, "host_name": actor.name, "game": game.name,
                                     "rules": rules.to_dict(), "seats": seats, "computers": [list(b) for b in bots],
                                     "max_rounds": max_rounds}
            if host_level:
                event["host_level"] = host_level
            reply = Reply(M.opened(game.describe(rules), max_rounds), private=True)
            try:
                await rt.commit(table, [event], cmd, reply)
            except Exception:
                rt.tables.pop(key, None)
                raise
            rt.post([M.lobby_message(table, fresh=True)])
        return reply

    async def join(self, cmd: Command) -> Reply:
        rt = self.rt
        async with rt.lock(cmd.key):
            table = rt.need_table(cmd.key)
            uid = cmd.actor.user_id
            if uid in table.seats and table.leaving(uid) and table.status == TableStatus.PLAYING:
                if uid in table.pending_leave and uid not in table.own_leave:  # (away, no leave stored yet: stays)
                    raise UserError(R.REMOVED_BY_HOST if uid in table.kicked else R.LEAVE_STANDS, "already-leaving")
                # leaving after the round (their `leave`, or the timer's turns): `join` was "You are already
                # seated" and the leave could not be taken back
                reply = Reply(M.STAYING)
                await rt.commit(table, [{"t": "stay", "player": uid}], cmd, reply)
                rt.post([M.lobby_message(table), M.panel_message(table, rt.cached_settings(table.key.server))
                         if table.live else None])
                return reply
            if uid in table.seats:
                raise UserError(R.ALREADY_SEATED, "already-seated")
            if table.status != TableStatus.LOBBY:
                raise UserError(R.TABLE_RUNNING, "table-running")
            if len(table.seats) >= table.seat_limit:
                raise UserError(R.table_full(table.seat_limit), "table-full")
            reply = Reply(M.seated(len(table.seats) + 1, table.seat_limit))
            await rt.commit(table, [{"t": "join", "player": uid, "name": cmd.actor.name}], cmd, reply)
            rt.post([M.lobby_message(table)])
        return reply

    async def leave(self, cmd: Command) -> Reply:
        async with self.rt.lock(cmd.key):
            table = self.rt.need_table(cmd.key)
            self.rt.need_seat(table, cmd.actor.user_id)
            return await self._remove(table, cmd, cmd.actor.user_id, kicked=False)

    async def kick(self, cmd: Command) -> Reply:
        if not cmd.args and "member" not in cmd.options:
            raise UserError(R.KICK_USAGE)
        if cmd.args and cmd.options.get("member"):  # Discord's member and name both: the name was dropped, silently
            raise UserError(R.PLAYER_TWICE, "bad-option")
        target = user_ref(str(cmd.options.get("member") or cmd.args[0]))
        async with self.rt.lock(cmd.key):
            table = self.rt.need_table(cmd.key)
            await self.rt.need_host_or_admin(table, cmd, "remove a player")
            if target not in table.seats:  # a name as the table shows it ("bob", "Gekko (hard)"), as `stats` reads
                typed = shown_name(" ".join(cmd.args).strip().lstrip("@"), "").lower() if cmd.args else ""
                named = [p for p in table.seats if typed and typed in (
                    (shown := shown_name(table.name(p), "").lower()), shown.split(" (")[0])]
                target = named[0] if len(named) == 1 else target
            if target not in table.seats:
                raise UserError(R.THAT_PLAYER_NOT_SEATED, "not-seated")
            match = self._game_under_way(table)
            if (target not in table.pending_leave and match is not None and match.decides_at_end
                    and match.leave_cost(target, table.pending_leave) and not await self._overrules(cmd)):
                # a player still in a game decided at its end: kicked, they walk out on dinner (its payer, at stake 0
                # too: that is the whole of its result), or (every one still in kicked) the card game ends with no
                # winner — a host out of it escaped paying its winner
                raise UserError(R.KICK_AT_STAKE_PEER if cmd.actor.peer else R.KICK_AT_STAKE, "game-at-stake")
            return await self._remove(table, cmd, target, kicked=True)

    async def _remove(self, table: TableState, cmd: Command, player: str, kicked: bool) -> Reply:
        if player in table.pending_leave:
            raise UserError(R.ALREADY_LEAVING, "already-leaving")
        lobby = table.status == TableStatus.LOBBY
        if lobby and player == table.host:
            raise UserError(R.HOST_CANNOT_BE_KICKED if kicked else R.HOST_CANNOT_LEAVE, "host-leave")
        cost = "" if lobby or kicked or table.match is None else table.match.leave_cost(player, table.pending_leave)
        cost = M.with_units(cost, self.rt.cached_settings(table.key.server))
        reply = Reply(M.removed(table.name(player) if kicked else None, now=lobby) + (f" {cost}" if cost else ""))
        marked = {"kicked": True} if kicked else {"own": True}  # (an own leave may be taken back by `join`)
        await self.rt.commit(table, [{"t": "leave", "player": player, **marked}], cmd, reply)
        self.rt.post([M.lobby_message(table), self._leaving_panel(table, player)])
        return reply

    def _leaving_panel(self, table: TableState, player: str) -> Message | None:
        """The table message marks the seat as leaving at once (it did so only after the next move)."""
        if table.status != TableStatus.PLAYING or table.match is None or not table.live:
            return None
        return M.panel_message(table, self.rt.cached_settings(table.key.server), note=M.leaving_note(player))

    async def sit_out(self, table: TableState, player: str, turns: int) -> None:
        """The timer played ``turns`` turns in a row for ``player``: they leave after this round, as if they
        had typed ``leave`` (what leaving costs included), and the table is told (under the table's lock)."""
        assert table.match is not None
        cost = M.with_units(table.match.leave_cost(player, table.pending_leave),
                            self.rt.cached_settings(table.key.server))
        await self.rt.commit(table, [{"t": "leave", "player": player, "own": True}])
        told = [M.table_message(table, M.away(player, turns), MessageKind.INFO), M.lobby_message(table),
                self._leaving_panel(table, player)]
        if cost:  # in the second person, as `leave` answers it: to them alone
            told.append(M.table_message(table, f"{M.AWAY_YOU} {cost}", MessageKind.PRIVATE, to=player))
        self.rt.post(told)

    async def deal(self, cmd: Command) -> Reply:
        rt = self.rt
        async with rt.lock(cmd.key):
            table = rt.need_table(cmd.key)
            if cmd.actor.user_id != table.host:
                raise UserError(R.ONLY_HOST_DEALS, "not-host")
            if table.status != TableStatus.LOBBY:
                raise UserError(R.PLAY_UNDER_WAY, "table-running")
            if len(table.seats) < table.game.min_players:
                raise UserError(R.too_few_to_deal(table.game.min_players), "too-few")
            hand = table.game.hand
            reply = Reply(M.DEALT if hand is None else hand.dealt_here if cmd.secrets_here else hand.dealt)
            await self.deal_round(table, cmd, reply)
        await self.follow_up(cmd.key)
        return reply

    async def deal_round(self, table: TableState, cmd: Command | None = None, reply: Reply | None = None,
                         before: Sequence[Message] = ()) -> None:
        """Deal the next round: the game draws it; the table stores it and says it (under the table's lock), after
        ``before`` — said only if this deal is stored (a deal another process made first says its own)."""
        rt = self.rt
        [step] = await rt.commit(table, [table.deal_event(rt.rng)], cmd, reply)
        settings = rt.cached_settings(table.key.server)
        says = M.say_messages(table, step.says, settings)
        public = [m for m in says if m.to is None]
        private = [m for m in says if m.to is not None]
        rt.post([*before, *public, M.panel_message(table, settings, fresh=True),
                 M.lobby_message(table) if cmd else None, *private])

    async def last(self, cmd: Command) -> Reply:
        rt = self.rt
        async with rt.lock(cmd.key):
            table = rt.need_table(cmd.key)
            await rt.need_host_or_admin(table, cmd, "declare the last round")
            if table.status != TableStatus.PLAYING or table.match is None:
                raise UserError(R.PLAY_NOT_STARTED, "no-round")
            if table.last_declared:
                raise UserError(R.LAST_ALREADY_DECLARED, "already")
            declared = table.rounds_settled + (2 if table.match.last_is_next() else 1)
            if table.max_rounds and declared > table.max_rounds:  # ("Round 2 is the last hand" at rounds=1)
                raise UserError(R.last_beyond_limit(table.max_rounds), "already")
            reply = Reply(M.LAST_DECLARED)
            [step] = await rt.commit(table, [{"t": "last"}], cmd, reply)
            settings = rt.cached_settings(table.key.server)
            msgs = [M.table_message(table, s.text, MessageKind.INFO) for s in step.says]
            if table.live:
                msgs.append(M.panel_message(table, settings))  # the stake may have doubled
            rt.post(msgs)
        return reply

    async def end(self, cmd: Command) -> Reply:
        async with self.rt.lock(cmd.key):
            table = self.rt.need_table(cmd.key)
            await self.rt.need_host_or_admin(table, cmd, "end the table")
            match = self._game_under_way(table)
            # ending it voids what its players have won so far (a game that settles only at its end), or at stake 0
            # who pays for dinner (a game decided at its end)
            game_void = match is not None and match.settles_at_end
            if (match is not None and match.decides_at_end and (game_void or self._others_play(match, table, cmd))
                    and not await self._overrules(cmd)):
                # a host could end a game that settles at its end to escape losing it (an elimination they were
                # about to pay for, a card game they were out of), voiding what the others had won so far — at
                # stake 0 too, where who pays for dinner is the whole of the result (as `kick` holds)
                if game_void:
                    raise UserError(R.GAME_AT_STAKE_PEER if cmd.actor.peer else R.GAME_AT_STAKE, "game-at-stake")
                raise UserError(R.GAME_DECIDED_PEER if cmd.actor.peer else R.GAME_DECIDED, "game-at-stake")
            if table.live and not game_void and table.rules.stake > 0 and not await self._overrules(cmd):
                # a round that settles as it is counted: ending it now let a host whose bid was about to be
                # challenged (or was, all around) void what they were losing; the table closes at its count instead
                return await self._close_at_count(table, cmd)
            void = table.live or game_void
            reply = Reply(M.table_closed(void=void, game=game_void))
            await self.close(table, cmd, M.closed_by(cmd.actor.name, void=void, game=game_void), reply)
        return reply

    async def _close_at_count(self, table: TableState, cmd: Command) -> Reply:
        reply = Reply(M.CLOSES_AT_COUNT_PEER if cmd.actor.peer else M.CLOSES_AT_COUNT)
        if table.closing_by is not None:  # asked already (by them or another host or peer): nothing new to store or say
            if cmd.request_id:  # but the answer, so that the same request delivered again (after the close) is
                await self.rt.commit(table, [], cmd, reply)  # answered alike, not "no table"
            return reply
        await self.rt.commit(table, [{"t": "closing", "by": cmd.actor.user_id, "name": cmd.actor.name}], cmd, reply)
        self.rt.post([M.table_message(table, M.closes_at_count(cmd.actor.name), MessageKind.INFO),
                      M.panel_message(table, self.rt.cached_settings(table.key.server))])  # (it says so too)
        return reply

    async def _overrules(self, cmd: Command) -> bool:
        """May the sender overrule a game at stake: an admin of the place, not one of peers who all are."""
        return not cmd.actor.peer and await self.rt.is_admin(cmd)

    @staticmethod
    def _game_under_way(table: TableState) -> Match | None:
        """The table's game, dealt and not over (what an ``end`` or a kick now would void or decide), else None."""
        match = table.match
        return match if table.status == TableStatus.PLAYING and match is not None and not match.over else None

    @staticmethod
    def _others_play(match: Match, table: TableState, cmd: Command) -> bool:
        """Whether another person plays the table's game (still in it or out of it, seated or gone: its result is
        theirs too); a host alone with computer players may end a game with nothing at stake."""
        return any(p != cmd.actor.user_id and not table.is_computer(p) for p in match.took_part)

    async def close(self, table: TableState, cmd: Command | None, reason: str, reply: Reply | None = None) -> None:
        rt = self.rt
        await rt.commit(table, [{"t": "end", "by": cmd.actor.user_id if cmd else "", "reason": reason}], cmd, reply)
        # the table message without its buttons, drawn by whichever process closes it (a Slack worker that had
        # not drawn it left them on: they act on nothing now)
        retired = None if table.match is None else replace(
            M.panel_message(table, rt.cached_settings(table.key.server)), buttons=(), to_act=None, final=True)
        rt.post([retired, M.closed_message(table, reason), M.lobby_message(table)])
        if rt.tables.get(table.key) is table:  # its panel refs stay in rt.panels for the closing edits
            del rt.tables[table.key]
