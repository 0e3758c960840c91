"""Reading commands: the server's ledger and settings, players' records, the table's state and rules,
and a player's private views.  None of them changes a table; the ledger commands read the store.
"""

from __future__ import annotations

import json
from typing import Any

from core.registry import DEFAULT_GAME, GAMES, get_game

from . import messages as M
from .ledger import fewest_payments
from .model import COMMANDS, Command, MessageKind, Reply, render_mentions
from .parsing import UserError, is_period, money, positive_int, sentence, stake, user_ref
from .runtime import Runtime
from .table import TableState

__all__ = ["Reports"]


def _game_of(row: dict[str, Any]) -> str:
    return str(row["outcome"].get("game", DEFAULT_GAME))


class Reports:
    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    # -- the table --------------------------------------------------------------------------------
    def _plain(self, table: TableState, text: str) -> str:
        """A game's private text for a reply: money in the server's unit, mentions as names."""
        text = M.with_units(text, self.rt.cached_settings(table.key.server))
        return render_mentions(M.table_message(table, text, MessageKind.INFO))

    async def hand(self, cmd: Command) -> Reply:
        table = self.rt.need_table(cmd.key)
        self.rt.need_seat(table, cmd.actor.user_id)
        self.rt.need_round(table)
        assert table.match is not None
        text = table.match.private_text(cmd.actor.user_id)
        if text is None:
            raise UserError("You hold nothing to show right now.", "nothing-held")
        return Reply(self._plain(table, text), private=True)

    async def read(self, cmd: Command) -> Reply:
        """A game's private read command (``odds``, ``hint``)."""
        table = self.rt.need_table(cmd.key)
        self.rt.need_seat(table, cmd.actor.user_id)
        self.rt.need_round(table)
        assert table.match is not None
        if cmd.name not in table.game.reads:
            raise UserError(f"`{cmd.name}` is not part of {table.game.title}.", "unknown-command")
        return Reply(self._plain(table, table.match.read(cmd.actor.user_id, cmd.name)), private=True)

    async def status(self, cmd: Command) -> Reply:
        table = self.rt.need_table(cmd.key)
        settings = self.rt.cached_settings(cmd.key.server)
        msg = M.panel_message(table, settings) if table.live else M.lobby_message(table)
        return Reply(render_mentions(msg), private=True, buttons=msg.buttons)

    async def rules(self, cmd: Command) -> Reply:
        table = self.rt.tables.get(cmd.key)
        if table is not None:
            return Reply(table.game.describe(table.rules))
        settings = await self.rt.settings(cmd.key.server)
        game = get_game(DEFAULT_GAME)
        rules = game.make_rules(settings["preset"], settings.get("options", {}))
        return Reply("No table here. A new table would play: " + game.describe(rules))

    async def help(self, cmd: Command) -> Reply:
        lines = ["Liar's Poker commands:"] + [f"• `{name}` — {text}" for name, text in COMMANDS.items()]
        return Reply("\n".join(lines))

    # -- the server -------------------------------------------------------------------------------
    async def config(self, cmd: Command) -> Reply:
        rt = self.rt
        server = cmd.key.server
        settings = dict(await rt.settings(server))
        words = list(cmd.args) + [f"{k}={v}" for k, v in cmd.options.items()]
        if not words:
            return Reply(M.settings_text(settings))
        if not await rt.is_admin(cmd):
            raise UserError("Only a server admin can change the configuration.", "not-admin")
        game = get_game(DEFAULT_GAME)
        options = dict(settings.get("options", {}))
        for word in words:
            if "=" not in word:
                raise UserError(f"Write settings as name=value (e.g. `preset=salomon`), not {word!r}.", "bad-option")
            name, _, value = word.partition("=")
            name = name.strip().lower().replace("-", "_")
            value = value.strip()
            if name == "preset":
                if value.lower() not in game.presets:
                    raise UserError(f"Unknown preset {value!r}: choose {', '.join(game.presets)}.", "bad-option")
                settings["preset"] = value.lower()
            elif name in ("turn_timeout", "lobby_timeout"):
                settings[name] = positive_int(value, name, default=0, low=10, high=86_400)
            elif name == "unit_value":
                settings[name] = money(value)
            elif name == "currency":
                if not 1 <= len(value) <= 8:
                    raise UserError("The currency label is 1 to 8 characters, like $ or EUR.", "bad-option")
                settings[name] = value
            elif name == "computer_level":
                if value.lower() not in game.levels:
                    raise UserError(f"Unknown level {value!r}: choose {', '.join(game.levels)}.", "bad-option")
                settings[name] = value.lower()
            elif name == "admins":
                settings[name] = [user_ref(a) for a in value.split(",") if a.strip()]
            else:
                options[name] = str(stake(value)) if name == "stake" else value
        try:
            game.make_rules(settings["preset"], options)
        except (ValueError, TypeError) as exc:
            raise UserError(sentence(str(exc)), "bad-option") from None
        settings["options"] = options
        saved = await rt.save_settings(server, settings)
        return Reply("Settings saved.\n" + M.settings_text(saved))

    async def ledger(self, cmd: Command) -> Reply:
        rt, server = self.rt, cmd.key.server
        settings = await rt.settings(server)
        period = rt.period()
        current = await rt.store.balances(server, period)
        total = await rt.store.balances(server)
        names = await rt.store.names(server)
        if not total:
            return Reply("The ledger is empty: no round has been settled on this server yet.",
                         data={"period": period, "current": {}, "all_time": {}})
        lines = [f"📒 Ledger — {period} (all time in brackets):"]
        for player in sorted(total, key=lambda p: -total[p]):
            lines.append(f"• {names.get(player, player)}: {M.signed_units(current.get(player, 0), settings)} "
                         f"[{M.signed_units(total[player], settings)}]")
        lines.append(f"Sum: {sum(current.values())} this period, {sum(total.values())} all time.")
        return Reply("\n".join(lines), data={"period": period, "current": current, "all_time": total})

    async def sheet(self, cmd: Command) -> Reply:
        rt, server = self.rt, cmd.key.server
        settings = await rt.settings(server)
        args = [a.lower() for a in cmd.args]
        settle = "settle" in args or bool(cmd.options.get("settle"))
        period = next((a for a in args if a != "settle"), None) or str(cmd.options.get("period") or rt.period())
        if not is_period(period):
            raise UserError(f"A period is written YYYY-MM, like {rt.period()}.", "bad-period")
        balances = await rt.store.balances(server, period)
        names = await rt.store.names(server)
        payments = fewest_payments(balances)
        settled = await rt.store.settled_periods(server)
        if settle:
            if not await rt.is_admin(cmd):
                raise UserError("Only a server admin can mark a period settled.", "not-admin")
            if not await rt.store.settle_period(server, period, cmd.actor.user_id, rt.clock.now()):
                raise UserError(f"{period} is already marked settled.", "already")
            settled = await rt.store.settled_periods(server)
        lines = [f"🧾 Sheet for {period}" + (" — settled ✅" if period in settled else "") + ":"]
        if not balances:
            lines.append("No rounds were settled in this period.")
        for p in sorted(balances, key=lambda p: -balances[p]):
            lines.append(f"• {names.get(p, p)}: {M.signed_units(balances[p], settings)}")
        if payments:
            lines.append(f"To settle ({len(payments)} payment{'s' if len(payments) != 1 else ''}):")
            lines += [f"  {names.get(a, a)} pays {names.get(b, b)} {M.units(u, settings)}" for a, b, u in payments]
        return Reply("\n".join(lines), private=not settle, data={
            "period": period, "balances": balances, "payments": [list(p) for p in payments],
            "settled": period in settled})

    async def stats(self, cmd: Command) -> Reply:
        rt, server = self.rt, cmd.key.server
        target = user_ref(str(cmd.options.get("member") or (cmd.args[0] if cmd.args else cmd.actor.user_id)))
        names = await rt.store.names(server)
        rows = list(reversed(await rt.store.rounds(server)))
        net = (await rt.store.balances(server)).get(target, 0)
        settings = await rt.settings(server)
        name = names.get(target, target)
        data: dict[str, Any] = {"net": net, "rounds": 0}
        parts: list[tuple[str, int, str]] = []
        for game in GAMES.values():
            records = [{**r["record"], "outcome": r["outcome"]} for r in rows  # each record with its outcome
                       if _game_of(r) == game.name and target in r["outcome"].get("net", {})]
            if not records:
                continue
            text, figures = game.stats(target, records)
            data.update(figures if game.name == DEFAULT_GAME else {game.name: figures})
            parts.append((game.title, len(records), text))
        data["rounds"] = sum(n for _, n, _ in parts)
        if not parts:
            return Reply(f"{name} has not played a settled round on this server.", data=data)

        def rounds(n: int) -> str:
            return f"{n} round{'s' if n != 1 else ''}"

        if len(parts) == 1:
            return Reply(f"📊 {name}: {rounds(parts[0][1])}, net {M.signed_units(net, settings)}. {parts[0][2]}",
                         data=data)
        detail = " ".join(f"{title}: {rounds(n)}. {text}" for title, n, text in parts)
        return Reply(f"📊 {name}: net {M.signed_units(net, settings)}. {detail}", data=data)

    async def history(self, cmd: Command) -> Reply:
        rt, server = self.rt, cmd.key.server
        table = rt.tables.get(cmd.key)
        table_id = table.id if table else await rt.store.last_table(server, cmd.key.channel_id)
        if table_id is None:
            return Reply("No rounds have been played in this channel.")
        rows = await rt.store.rounds(server, table_id=table_id, limit=10)
        if not rows:
            return Reply("No rounds have been counted at this table yet.")
        names = await rt.store.names(server)
        lines = ["Recent rounds here:"]
        for row in reversed(rows):
            line = get_game(_game_of(row)).history_line({"round": row["number"], **row["record"]}, names)
            lines.append(f"• {line}")
        return Reply("\n".join(lines))

    async def export(self, cmd: Command) -> Reply:
        rt, server = self.rt, cmd.key.server
        live = rt.tables.get(cmd.key)
        table_id = live.id if live is not None else await rt.store.last_table(server, cmd.key.channel_id)
        if table_id is None:
            raise UserError("No table has been played in this channel.", "no-table")
        table = TableState(table_id, cmd.key, keep_history=True)
        for event in await rt.store.table_events(table_id):
            table.apply(event)
        records = table.records()
        if not records:
            raise UserError("No round has been counted at this table yet.", "no-round")
        body = json.dumps(records[0] if len(records) == 1 else records, indent=1)
        return Reply(f"Game record ({len(records)} session{'s' if len(records) != 1 else ''}); "
                     "check it with `liars verify FILE`.", data={"record": body})
