"""Reading commands: the server's ledger and settings, players' records, the table's state and rules,
and a player's private views.  None of them changes a table; the ledger commands read the store.
"""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core.commands import SECTION_TITLES, CommandSpec, Section
from core.registry import DEFAULT_GAME, GAMES, get_game

from . import messages as M
from . import refusals as R
from .commands import game_of_command, games_with_preset, resolve, table_commands
from .discretion import NOTE_MONTH, Discretion, history_setting, only_period, refused
from .ledger import fewest_payments, period_of
from .model import Command, JsonValue, Message, MessageKind, Reply, TableKey, render_mentions
from .parsing import (
    LOOK_ALIKES,
    UserError,
    in_the_way,
    invisible,
    is_period,
    joined_options,
    money,
    named_word,
    positive_int,
    same_value,
    sentence,
    shown_name,
    stake,
    user_ref,
)
from .ratings import RatingBook, chart_history, leaderboard, trend
from .runtime import Runtime
from .settings import MAX_TIMEOUT, MIN_TIMEOUT, game_defaults, with_game_defaults
from .table import TableState

__all__ = ["Reports"]

log = logging.getLogger(__name__)


def _game_of(row: Mapping[str, Any]) -> str:
    return str(row["outcome"].get("game", DEFAULT_GAME))


def _players_of(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Who took part in these stored rounds (each round's net names them, a 0 included)."""
    return list(dict.fromkeys(p for row in rows for p in (row.get("outcome") or {}).get("net", {})))


def _wants_chart(cmd: Command) -> bool:
    return "chart" in (a.lower() for a in cmd.args) or str(cmd.options.get("chart", "")).lower() in ("1", "true", "yes")


def _balance_series(rows: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """``[[at, {player: balance}], ...]`` after each stored round (oldest first), from a zero start."""
    balances: dict[str, int] = {}
    for row in rows:
        balances.update(dict.fromkeys((p for p in row["outcome"].get("net", {}) if p not in balances), 0))
    series: list[list[Any]] = [[float(rows[0]["at"]), dict(balances)]] if rows else []
    for row in rows:
        for p, u in row["outcome"].get("net", {}).items():
            balances[p] += int(u)
        series.append([float(row["at"]), dict(balances)])
    return series


CHART_GAP = 10.0
"""Seconds between two charts posted in one channel."""
_NUMBER_OR_SIGN = frozenset({"Nd", "Nl", "No", "Sm", "Pd"})  # digits, numerals, fractions, maths signs, dashes
_EMOJI_CODE = re.compile(r"(?::[a-z0-9_+'-]{1,40}:){1,2}")  # an emoji as Slack writes it (`:+1::skin-tone-2:`)
_NOT_IN_CURRENCY = frozenset("@#&") | {chr(mark) for mark in LOOK_ALIKES}  # a mention's marks, chat markup


def _bare_named(words: Sequence[str]) -> list[str]:
    """``config``'s words, a bare game or preset named as its help writes them (``config cards wild``, ``config
    salomon``: "[game] preset"; they were refused as words without a name); a preset only one game has names its
    game too, as at ``start``.  (``turn_timeout = 90`` is joined before.)"""
    out = list(words)
    given = any(w.lower().replace(" ", "").startswith("game=") for w in out)
    for i, word in enumerate(out):
        low = word.lower()
        if "=" not in word and low in GAMES:
            out[i], given = f"game={low}", True
    for i, word in enumerate(out):
        name, eq, value = word.lower().partition("=")
        preset = value.strip() if eq and name.strip() == "preset" else "" if eq else name
        owners = games_with_preset(preset)
        if not owners:
            continue
        if not eq:
            out[i] = f"preset={preset}"
        if not given and len(owners) == 1 and owners[0] != DEFAULT_GAME:  # (Discord's `preset:wild` too)
            out.append(f"game={owners[0]}")
            given = True
    return out


_SETTINGS_AS_TYPED = frozenset({"currency", "admins", "unit_value"})  # not rule options: no word means another


class Reports:
    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.ratings = RatingBook(rt.store)
        self.discretion = Discretion(rt)
        self._charted: dict[TableKey, float] = {}  # when each channel last had a chart posted (this process)

    def _may_chart(self, cmd: Command) -> bool:
        """Whether a chart asked for may be posted now: one a channel every :data:`CHART_GAP` seconds (a member
        posted thirty in six seconds, and on Slack the table's own messages waited behind them).  Within the
        gap the report is answered privately, without its picture."""
        if not _wants_chart(cmd):
            return False
        now = self.rt.clock.now()
        if now - self._charted.get(cmd.key, float("-inf")) < CHART_GAP:
            return False
        self._charted[cmd.key] = now
        return True

    def _chart(self, cmd: Command, text: str, picture: dict[str, Any], names: Mapping[str, str]) -> str:
        """Post a chart (its data; the platform draws it) with its text in the channel; the asker's note."""
        self.rt.post([_chart_message(cmd, text, picture, names)])
        return M.CHART_POSTED

    # -- the table --------------------------------------------------------------------------------
    def _plain(self, table: TableState, text: str) -> str:
        """A game's private text for a reply: money in the server's unit, mentions as names."""
        text = M.with_units(text, self.rt.cached_settings(table.key.server))
        return render_mentions(M.table_message(table, text, MessageKind.INFO))

    async def hand(self, cmd: Command) -> Reply:
        table = self.rt.need_table(cmd.key)
        self.rt.need_seat(table, cmd.actor.user_id)
        self.rt.need_round(table)
        return self.hand_at(table, cmd.actor.user_id)

    def hand_at(self, table: TableState, player: str) -> Reply:
        """What ``player`` holds at this table now (a round is under way and they are seated in it)."""
        assert table.match is not None
        text = table.match.private_text(player)
        if text is None:
            raise UserError(R.NOTHING_HELD, "nothing-held")
        return Reply(self._plain(table, text), private=True)

    async def read(self, cmd: Command) -> Reply:
        """A game's private read command (``odds``, ``hint``)."""
        table = self.rt.need_table(cmd.key)
        self.rt.need_seat(table, cmd.actor.user_id)
        self.rt.need_round(table)
        assert table.match is not None
        if game_of_command(table.game.name, cmd.name) is None:
            raise UserError(R.not_in_game(cmd.name, table.game.title), "unknown-command")
        return Reply(self._plain(table, table.match.read(cmd.actor.user_id, cmd.name)), private=True)

    async def status(self, cmd: Command) -> Reply:
        table = self.rt.need_table(cmd.key)
        settings = self.rt.cached_settings(cmd.key.server)
        msg = M.panel_message(table, settings) if table.live else M.lobby_message(table)
        return Reply(render_mentions(msg), private=True, buttons=msg.buttons, turn=msg.turn)  # buttons as drawn

    async def rules(self, cmd: Command) -> Reply:
        table = self.rt.tables.get(cmd.key)
        settings = await self.rt.settings(cmd.key.server)
        # the game asked for (`rules cards`, `rules game=cards`; it described the serial game whatever was named)
        named = cmd.options.get("game") or next((w.partition("=")[2] or w for w in cmd.args), None)
        asked = str(named).strip().lower() if named is not None else None
        if asked is not None and asked not in GAMES and len(owners := games_with_preset(asked)) == 1:
            # a preset, as `start salomon` and `config salomon` take one bare ("Unknown game"): a new table of it
            game = get_game(owners[0])
            _, options = game_defaults(settings, game.name)
            try:
                rules = game.make_rules(asked, options)
            except (ValueError, TypeError) as exc:  # (as `start salomon` here would be refused)
                raise UserError(sentence(str(exc)), "bad-option") from None
            return Reply(M.with_units(M.preset_rules(asked, game.describe(rules)), settings))
        if asked is not None and asked not in GAMES:  # (at a table `rules chess` showed the table's rules)
            raise UserError(R.unknown_game(GAMES), "bad-option")
        if table is not None and asked in (None, table.game.name):  # the game's money tokens in the server's unit
            return Reply(M.with_units(table.game.describe(table.rules), settings))
        game = get_game(asked or DEFAULT_GAME)  # another game's, at a table of one game: a new table's rules
        rules = game.make_rules(*game_defaults(settings, game.name))
        return Reply(M.with_units(M.rules_without_table(game.describe(rules), table is not None), settings))

    async def help(self, cmd: Command) -> Reply:
        """The table's game's moves and reads (every game's, where no table is open), then the table's
        own commands, by section; ``data["commands"]`` names each command listed.  ``help bid``: that command
        alone, its options and other names (it answered with the whole list, whatever was asked)."""
        table = self.rt.tables.get(cmd.key)
        words = [w for w in (a.strip().lstrip("/") for a in cmd.args) if w and w.lower() != "liars"]
        asked = words[0].lower() if words else ""  # (`help bid 7`: the command; `/liars start`: as typed)
        if asked and asked not in GAMES:
            spec = (game_of_command(table.game.name, asked) if table is not None else None) or resolve(asked)
            if spec is None:
                return Reply(R.unknown_command(words[0]), ok=False, code="unknown-command")
            owner = next((g for g in GAMES.values() if game_of_command(g.name, asked) is spec), None)
            elsewhere = owner if table is not None and owner is not None and owner is not table.game else None
            return Reply(M.command_help(spec, elsewhere.title if elsewhere is not None else None),
                         data={"commands": [spec.name]})
        # `help cards`: that game's commands, as at a new table of it (its own default rules)
        named = GAMES[asked] if asked else table.game if table is not None else None
        rules = (table.rules if table is not None and named is table.game else
                 named.make_rules(None, {}) if named is not None else None)
        games = [named] if named is not None else list(GAMES.values())
        own = table_commands()
        sections: list[tuple[str, list[CommandSpec]]] = []
        for game in games:
            title = SECTION_TITLES[Section.MOVE] + (f" — {game.title}" if len(games) > 1 else "")
            sections.append((title, [s for s in game.commands if s.section is Section.MOVE]))
        reads = {s.name: s for s in own if s.section is Section.READ}
        for game in games:
            reads.update((s.name, s) for s in game.commands if s.section is Section.READ and s.name not in reads)
        sections.append((SECTION_TITLES[Section.READ], list(reads.values())))
        # `last` declares a table's last round: a game that plays on to its own end has none (it refuses it)
        no_last = named is not None and rules is not None and not named.settles_each_round(rules)
        for section in (Section.TABLE, Section.BOOKS):
            sections.append((SECTION_TITLES[section], [s for s in own if s.section is section
                                                       and not (no_last and s.name == "last")]))
        names: list[JsonValue] = list(dict.fromkeys(s.name for _, specs in sections for s in specs))
        return Reply(M.help_text(sections, named.title if named is not None else None, at_table=table is not None
                                 and named is table.game), data={"commands": names})

    # -- the server -------------------------------------------------------------------------------
    async def config(self, cmd: Command) -> Reply:
        rt = self.rt
        server = cmd.key.server
        stored, version = await rt.stored_settings(server)
        settings = dict(stored)
        words = _bare_named(joined_options(cmd.args) + [f"{k}={v}" for k, v in cmd.options.items()])
        only_game = {w.partition("=")[2].strip().lower() for w in words if w.lower().startswith("game=")}
        if len(only_game) == len(words) == 1:  # `config cards` alone: nothing to change (it said "Settings saved.")
            if not only_game <= GAMES.keys():
                raise UserError(R.unknown_game(GAMES), "bad-option")
            words = []
        if not words:
            return Reply(M.settings_text(settings, GAMES))
        if not await rt.is_admin(cmd, settings):
            raise UserError(R.ONLY_ADMIN_CONFIG, "not-admin")
        bad = next((w for w in words if "=" not in w), None)
        if bad is not None:
            raise UserError(R.bad_setting_word(bad), "bad-option")
        pairs = [(n.strip().lower().replace("-", "_"), v.strip()) for n, _, v in (w.partition("=") for w in words)]
        nameless = next((w for (n, _), w in zip(pairs, words, strict=True) if n == ""), None)
        if nameless is not None:  # `=5`: no name (it read "Unknown option ''")
            raise UserError(R.bad_setting_word(nameless), "bad-option")
        empty = next((n for n, v in pairs if v == "" and n != "admins"), None)  # admins= clears the admins
        if empty is not None:
            raise UserError(R.option_without_value(empty), "bad-option")
        given: dict[str, str] = {}
        for n, v in pairs:  # `stake=2 stake=3`: the last was kept, silently (a new table's `start` kept the first)
            first = given.setdefault(n, v)  # (the server's own settings' text compared as typed: `currency=yes`)
            if (first != v) if n in _SETTINGS_AS_TYPED else same_value(first) != same_value(v):
                raise UserError(R.given_twice(n), "bad-option")
        named = next((v.lower() for n, v in pairs if n == "game"), DEFAULT_GAME)  # whose defaults change
        if named not in GAMES:
            raise UserError(R.unknown_game(GAMES), "bad-option")
        game = GAMES[named]
        preset, options = game_defaults(settings, game.name)
        levels = {lv for g in GAMES.values() for lv in g.levels}
        for name, value in pairs:
            if name == "game":
                continue
            if name == "preset":
                if value.lower() not in game.presets:
                    raise UserError(R.unknown_preset(value, game.presets), "bad-option")
                preset = value.lower()
            elif name in ("turn_timeout", "lobby_timeout"):
                settings[name] = positive_int(value, name, default=0, low=MIN_TIMEOUT, high=MAX_TIMEOUT)
            elif name == "unit_value":
                settings[name] = money(value)
            elif name == "currency":
                # (an emoji typed in a Slack command arrives as its code, `:moneybag:`: Slack shows it as the emoji)
                if (not (1 <= len(value) <= 8 or _EMOJI_CODE.fullmatch(value)) or _NOT_IN_CURRENCY & set(value)
                        or any(invisible(c) or c.isspace() for c in value)  # (no space: a word when typed)
                        or (any(unicodedata.category(c) in _NUMBER_OR_SIGN for c in value)  # "1" made 5.00 read
                            # 15.00, "-" (or "–", "＋") a win a loss; Slack shows `:+1::skin-tone-2:` as an emoji
                            and not (cmd.key.platform == "slack" and _EMOJI_CODE.fullmatch(value)))):
                    raise UserError(R.CURRENCY_LENGTH, "bad-option")
                settings[name] = value
            elif name == "computer_level":
                if value.lower() not in levels:
                    raise UserError(R.unknown_level(value, sorted(levels)), "bad-option")
                settings[name] = value.lower()
            elif name == "history":
                settings[name] = history_setting(value)
            elif name == "admins":
                written = [a.strip() for a in value.split(",") if a.strip()]
                admins = [user_ref(a) for a in written]
                if "" in admins or not all(a.startswith("<@") for a in written):  # "bob" matched nobody, silently
                    raise UserError(R.ADMINS_USAGE, "bad-option")
                settings[name] = list(dict.fromkeys(admins))  # each once (1,400 repeated mentions were kept)
            else:
                # (stake 0 is for the game's rules to take or refuse: the elimination's, for dinner, takes it)
                options[name] = str(stake(value, low=0)) if name == "stake" else value
        typed = {n for n, _ in pairs}
        try:
            made = game.make_rules(preset, options).to_dict()
        except (ValueError, TypeError) as exc:
            untyped = {k: v for k, v in game_defaults(settings, game.name)[1].items() if k not in typed}
            blame = in_the_way(lambda kept: game.make_rules(preset, {**kept, **{k: v for k, v in options.items()
                                                                                  if k in typed}}), untyped, typed)
            raise UserError(sentence(str(exc)) + blame, "bad-option") from None
        for name in typed & options.keys() & made.keys():  # as the rules read it: `rebid=YES` is kept as "on"
            value = made[name]
            options[name] = ("on" if value else "off") if isinstance(value, bool) else str(value)
        settings = with_game_defaults(settings, game.name, preset, options)
        return await rt.save_settings(cmd, settings, version, lambda saved: Reply(M.settings_saved(saved, GAMES)))

    async def ledger(self, cmd: Command) -> Reply:
        rt, server = self.rt, cmd.key.server
        if extra := [a for a in cmd.args if a.lower() != "chart"]:  # (`ledger 2026-11` showed this month's)
            raise UserError(R.ledger_word(extra[0]), "bad-option")
        settings = await rt.settings(server)
        period = rt.period()
        shown = await self.discretion.period(cmd, settings, public=_wants_chart(cmd))
        current = await rt.store.balances(server, period)
        total = current if shown else await rt.store.balances(server)
        names = await rt.store.names(server)
        if not total:  # no money ever moved; rounds at stake 0 (nothing written but the result) show at 0
            rows = await rt.store.rounds(server)  # (every round: only where nothing else shows, it costs)
            total = dict.fromkeys(_players_of(only_period(rows, shown)), 0)
            current = dict.fromkeys(_players_of(only_period(rows, period)), 0)
        if not total:
            empty: dict[str, JsonValue] = {"period": period, "current": {}, "all_time": {}}
            if shown:
                return Reply(M.ledger_empty_in(period), data={**empty, "history": "month"})
            return Reply(M.LEDGER_EMPTY, data=empty)
        text = M.ledger_text(period, current, total, names, settings, only_period=shown is not None,
                             viewer=cmd.actor.user_id)
        data: dict[str, JsonValue] = {"period": period, "current": current, "all_time": total}
        if shown:
            data["history"] = "month"  # "all_time" is this period's: the server shows no more
        if self._may_chart(cmd):
            picture = {"chart": "nets", "nets": current, "title": M.nets_title(period)}
            return Reply(self._chart(cmd, text, picture, names), data={**data, "chart": True})
        return Reply(text + (M.CHART_TOO_SOON if _wants_chart(cmd) else ""), data=data)

    async def sheet(self, cmd: Command) -> Reply:
        rt, server = self.rt, cmd.key.server
        settings = await rt.settings(server)
        args = [a.lower() for a in cmd.args]
        settle = "settle" in args or bool(cmd.options.get("settle"))
        named = [named_word(a, ("period",))[1] for a in args if a not in ("settle", "chart")] + [
            str(v) for k, v in cmd.options.items() if k == "period" and v is not None]  # `period=2026-11` too
        if len(set(named)) > 1:  # `sheet 2025-12 2026-01` showed the first, silently
            raise UserError(R.given_twice("period"), "bad-option")
        period = named[0] if named else rt.period()
        if not is_period(period):
            raise UserError(R.bad_period(rt.period()), "bad-period")
        if period > rt.period():  # (YYYY-MM sorts as time) read, it was an empty sheet; settled, "has not begun"
            raise UserError(R.future_period(period, rt.period()), "bad-period")
        # (only an admin, who may see that month without the chart, is told to ask without it)
        self.discretion.refuse_earlier(period, await self.discretion.period(cmd, settings, public=_wants_chart(cmd)),
                                       chart=_wants_chart(cmd) and await rt.is_admin(cmd, settings))
        balances = await rt.store.balances(server, period)
        if not balances:  # rounds at stake 0 (nothing written but the result): who played them, at 0
            balances = dict.fromkeys(_players_of(only_period(await rt.store.rounds(server), period)), 0)
        names = await rt.store.names(server)
        payments = fewest_payments(balances)
        settled = await rt.store.settled_periods(server)
        if settle:
            if not await rt.is_admin(cmd, settings):
                raise UserError(R.ONLY_ADMIN_SETTLES, "not-admin")
            if period in settled:
                raise UserError(R.period_settled(period), "already")
            settled = {**settled, period: cmd.actor.user_id}  # the answer is stored with the settlement
        text = M.sheet_text(period, period in settled, balances, payments, names, settings, viewer=cmd.actor.user_id)
        data: dict[str, JsonValue] = {"period": period, "balances": balances, "payments": [list(p) for p in payments],
                "settled": period in settled}
        chart: Message | None = None
        if (settle and _wants_chart(cmd)) or self._may_chart(cmd):  # (a settlement's chart is never held back)
            rows = [r for r in reversed(await rt.store.rounds(server)) if r.get("period") == period]
            series = _balance_series(rows)  # dated when it spans days; else by settlement, easier to read
            picture = {"chart": "balances", "series": series, "title": M.balances_title(period),
                       "time_axis": bool(series) and series[-1][0] - series[0][0] >= 86_400}
            chart = _chart_message(cmd, text, picture, names)  # the sheet goes with it, settled or not: once
            reply = Reply(M.CHART_POSTED, private=True, data={**data, "chart": True})
        else:
            # a settlement is announced in the channel, but not an earlier month's figures where players see this
            # month's only (an admin's `sheet 2026-01 settle` posted January's for all to read)
            public = await self.discretion.period(cmd, settings, public=True)  # what every player may see
            hidden = public is not None and period != public
            reply = Reply(text + (M.CHART_TOO_SOON if _wants_chart(cmd) else ""), private=not settle or hidden,
                          data=data)
        if settle:
            stored = await rt.settle_period(cmd, period, reply)
            if stored is None:  # another admin settled it meanwhile
                raise UserError(R.period_settled(period), "already")
            if stored is not reply:  # a redelivered settle: the first delivery's answer (its chart is posted)
                return stored
        if chart is not None:
            rt.post([chart])
        return reply

    async def stats(self, cmd: Command) -> Reply:
        rt, server = self.rt, cmd.key.server
        words = [a for a in cmd.args if a.lower() != "chart"]
        if words and cmd.options.get("member"):  # Discord's member and name both: the name was dropped, silently
            raise UserError(R.PLAYER_TWICE, "bad-option")
        target = user_ref(str(cmd.options.get("member") or (words[0] if words else cmd.actor.user_id)))
        if target == "":  # "<@>": a mention of nobody
            raise UserError(R.STATS_USAGE, "bad-option")
        names = await rt.store.names(server)
        if target not in names and words and not cmd.options.get("member") and not words[0].startswith("<"):
            # a name as the table shows it ("Gekko", "Gekko (hard)", "Alice Liddell"), where no mention can be
            # typed (the terminal, whose computer players have ids nobody sees): the one player it names
            typed = shown_name(" ".join(words), "").lower()  # as the name was stored ("a∗b", invisibles dropped)
            cleaned = {p: shown_name(n, "").lower() for p, n in names.items()}  # (a name stored before it was)
            named = [p for p, n in cleaned.items() if typed in (n, n.split(" (")[0])]
            if len(named) != 1:  # (`stats ,` answered ", has not played a settled round on this server")
                raise UserError(R.no_one_named(" ".join(words), len(named)), "bad-option")
            target = named[0]
        settings = await rt.settings(server)
        # the period's rounds, net and season rating only (a chart: for everyone, posted where players read it)
        shown = await self.discretion.period(cmd, settings, public=_wants_chart(cmd))
        rows: Sequence[Mapping[str, Any]] = only_period(list(reversed(await rt.store.rounds(server))), shown)
        net = (await rt.store.balances(server, shown)).get(target, 0)
        book = await self.ratings.get(server)
        name = names.get(target) or M.mention(target)  # one never seen here: as the platform names them
        data: dict[str, Any] = {"net": net, "rounds": 0}
        parts: list[tuple[str, str, str]] = []
        for game in GAMES.values():
            records = [{**r["record"], "outcome": r["outcome"]} for r in rows  # each record with its outcome
                       if _game_of(r) == game.name]
            played = sum(1 for r in records if target in r["outcome"].get("net", {}))
            if not played:
                continue
            text, figures = game.stats(target, records)  # the game's own figures and words
            text, figures = M.with_units(text, settings), dict(figures)
            ratings = book.of(game.name, shown)
            if target in ratings.players:
                rating, change = ratings.players[target], trend(ratings, target)
                figures.update(rating=rating.display, trend=change, mu=rating.mu, sigma=rating.sigma)
                text += " " + sentence(M.rating_text(rating, change))
            data[game.name] = figures
            parts.append((game.title, game.played(target, records), text))
            data["rounds"] += played
        if not parts:
            return Reply(M.no_settled_round(name, shown), data=data)
        text = M.stats_text(name, net, parts, settings)
        if _wants_chart(cmd) and not self._may_chart(cmd):
            return Reply(text + M.CHART_TOO_SOON, data=data)
        if _wants_chart(cmd):  # (and the gap allows it: just taken)
            rated = [g for g in GAMES if target in book.of(g, shown).history]
            if not rated:
                return Reply(text + M.NO_RATING_HISTORY, data=data)
            game_name = max(rated, key=lambda g: len(book.of(g, shown).history[target]))
            picture = {"chart": "rating", "history": chart_history(book.of(game_name, shown), [target]),
                       "title": M.rating_title(name, GAMES[game_name].title)}
            return Reply(self._chart(cmd, text, picture, names), data={**data, "chart": True})
        return Reply(text, data=data)

    async def leaderboard(self, cmd: Command) -> Reply:
        """``leaderboard [period|all] [by money|skill] [serial|cards]``: this season's top players by default."""
        rt, server = self.rt, cmd.key.server
        period: str | None = rt.period()
        by, game = "skill", DEFAULT_GAME
        words = [a.lower() for a in cmd.args] + [str(v).lower() for k, v in cmd.options.items()
                                                  if k in ("period", "by", "game")]
        chosen: dict[str, str] = {}  # `leaderboard 2025-12 2026-01`, `money skill`: the last was kept, silently
        for typed in words:
            named, word = named_word(typed, ("period", "by", "game"))  # `game=cards`, as `start` takes its options
            slot = ("period" if word == "all" or is_period(word) else "by" if word in ("money", "skill")
                    else "game" if word in GAMES else None)
            if slot is None or named not in (None, slot):
                if word != "by" or named is not None:
                    raise UserError(R.bad_leaderboard_word(typed, GAMES), "bad-option")
                continue
            if chosen.setdefault(slot, word) != word:
                raise UserError(R.given_twice(slot), "bad-option")
            if slot == "period":
                period = None if word == "all" else word
            elif slot == "by":
                by = word
            else:
                game = word
        if by == "money" and "game" in chosen:  # the ledger is the server's, across games: no game's own money
            raise UserError(R.MONEY_ACROSS_GAMES, "bad-option")
        settings = await rt.settings(server)
        shown = await self.discretion.period(cmd, settings)
        self.discretion.refuse_earlier(period, shown)
        period = shown or period  # "all" is this period's board where the server shows no more
        names = await rt.store.names(server)
        ratings = (await self.ratings.get(server)).of(game, period)
        balances = await rt.store.balances(server, period)
        standings = leaderboard(ratings, balances, "skill" if by == "skill" else "money", limit=10)
        when, what = M.leaderboard_when(period), M.leaderboard_what(by, GAMES[game].title)
        data = {"period": period, "by": by, "game": game, "standings": [
            {"place": s.place, "player": s.player, "balance": s.balance,
             "rating": s.rating.display if s.rating else None} for s in standings]}
        if not standings:
            return Reply(M.nobody_on_board(when, what), data=data)
        trends = {s.player: trend(ratings, s.player) for s in standings}
        text = M.leaderboard_text(M.leaderboard_title(when, what), standings, names, by, settings, trends)
        return Reply(text + (NOTE_MONTH if shown else ""), data=data)

    async def _channel_table(self, key: TableKey) -> int | None:
        """The channel's open table, else the last one it had (None: never a table here)."""
        table = self.rt.tables.get(key)
        return table.id if table is not None else await self.rt.store.last_table(key.server, key.channel_id)

    async def history(self, cmd: Command) -> Reply:
        rt, server = self.rt, cmd.key.server
        table_id = await self._channel_table(cmd.key)
        if table_id is None:
            return Reply(M.NO_ROUNDS_PLAYED)
        shown = await self.discretion.period(cmd, await rt.settings(server))
        rows: Sequence[Mapping[str, Any]] = only_period(
            await rt.store.rounds(server, table_id=table_id, limit=10), shown)
        if not rows:
            return Reply(M.no_rounds_counted_in(shown) if shown else M.NO_ROUNDS_COUNTED)
        names = await rt.store.names(server)
        return Reply(M.history_text(get_game(_game_of(row)).history_line(
            {"round": row["number"], **row["record"], "outcome": row.get("outcome") or {}}, names)
            for row in reversed(rows)))

    async def export(self, cmd: Command) -> Reply:
        rt = self.rt
        table_id = await self._channel_table(cmd.key)
        if table_id is None:
            raise UserError(R.NO_TABLE_PLAYED, "no-table")
        events = await rt.store.table_events(table_id)
        shown = await self.discretion.period(cmd, await rt.settings(cmd.key.server))
        if shown and any(period_of(float(str(e.get("at", 0)))) != shown for e in events if e.get("t") == "deal"):
            raise UserError(refused(shown), "history-month")  # a record cut short would not replay
        try:
            replayed = TableState.replayed(table_id, cmd.key, events, keep_history=True)
        except Exception as exc:  # (its text may quote an event, a serial in it: never to the channel)
            log.debug("table %d: %s", table_id, exc, exc_info=exc)
            raise UserError(R.unreadable_record(table_id), "unreadable-table") from exc
        records = replayed.records()
        if not records:  # rounds settled, and still none to show: the game holds its record back (SLIPS)
            raise UserError(R.RECORD_HELD_BACK if replayed.rounds_settled else R.NO_COUNTED_ROUND, "no-round")
        body = json.dumps(records[0] if len(records) == 1 else records, indent=1)
        return Reply(M.export_text(len(records)), data={"record": body})


def _chart_message(cmd: Command, text: str, picture: dict[str, Any], names: Mapping[str, str]) -> Message:
    """A chart (its data; the platform draws it) with its text, for the command's channel."""
    return Message(cmd.key, text, MessageKind.INFO, names=dict(names), picture=picture)
