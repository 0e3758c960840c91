"""Server-level commands: config, ledger, sheet, stats, history, export.

A mixin of :class:`~bot.service.Service`: these read the ledger and the stored rounds rather than a
live table, and share the service's store, settings and clock.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from core.serial import PRESETS, RulesError, make_rules

from . import messages as M
from .ledger import fewest_payments
from .model import Command, Reply, TableKey
from .parsing import UserError, is_period, money, positive_int, sentence, stake, user_ref
from .table import TableState

if TYPE_CHECKING:
    from .ports import Clock, Store

__all__ = ["DEFAULT_SETTINGS", "LEVELS", "ServerCommands"]

LEVELS = ("easy", "normal", "hard")
DEFAULT_SETTINGS: dict[str, Any] = {
    "preset": "classic",
    "options": {},
    "unit_value": 100,  # minor units (cents) per unit
    "currency": "$",
    "turn_timeout": 60,
    "lobby_timeout": 600,
    "admins": [],
    "computer_level": "hard",
}


class ServerCommands:
    store: Store
    clock: Clock
    tables: dict[TableKey, TableState]
    _settings_cache: dict[str, dict[str, Any]]

    async def settings(self, server: str) -> dict[str, Any]:  # provided by Service
        raise NotImplementedError

    async def _is_admin(self, cmd: Command) -> bool:  # provided by Service
        raise NotImplementedError

    def _period(self) -> str:  # provided by Service
        raise NotImplementedError

    async def _cmd_config(self, cmd: Command) -> Reply:
        server = cmd.key.server
        settings = dict(await self.settings(server))
        words = list(cmd.args) + [f"{k}={v}" for k, v in cmd.options.items()]
        if not words:
            return Reply(_settings_text(settings))
        if not await self._is_admin(cmd):
            raise UserError("Only a server admin can change the configuration.", "not-admin")
        changes = dict(settings)
        options = dict(settings.get("options", {}))
        for word in words:
            if "=" not in word:
                raise UserError(f"Write settings as name=value (e.g. `preset=salomon`), not {word!r}.", "bad-option")
            name, _, value = word.partition("=")
            name = name.strip().lower().replace("-", "_")
            value = value.strip()
            if name == "preset":
                if value.lower() not in PRESETS:
                    raise UserError(f"Unknown preset {value!r}: choose {', '.join(PRESETS)}.", "bad-option")
                changes["preset"] = value.lower()
            elif name in ("turn_timeout", "lobby_timeout"):
                changes[name] = positive_int(value, name, default=0, low=10, high=86_400)
            elif name == "unit_value":
                changes[name] = money(value)
            elif name == "currency":
                if not 1 <= len(value) <= 8:
                    raise UserError("The currency label is 1 to 8 characters, like $ or EUR.", "bad-option")
                changes[name] = value
            elif name == "computer_level":
                if value.lower() not in LEVELS:
                    raise UserError(f"Unknown level {value!r}: choose {', '.join(LEVELS)}.", "bad-option")
                changes[name] = value.lower()
            elif name == "admins":
                changes[name] = [user_ref(a) for a in value.split(",") if a.strip()]
            else:
                if name == "stake":
                    value = str(stake(value))
                options[name] = value
        try:
            make_rules(changes["preset"], **options)
        except RulesError as exc:
            raise UserError(sentence(str(exc)), "bad-option") from None
        changes["options"] = options
        await self.store.set_settings(server, {k: v for k, v in changes.items() if DEFAULT_SETTINGS.get(k) != v})
        self._settings_cache[server] = {**DEFAULT_SETTINGS, **changes}
        return Reply("Settings saved.\n" + _settings_text(self._settings_cache[server]))

    async def _cmd_ledger(self, cmd: Command) -> Reply:
        server = cmd.key.server
        settings = await self.settings(server)
        period = self._period()
        current = await self.store.balances(server, period)
        total = await self.store.balances(server)
        names = await self.store.names(server)
        if not total:
            return Reply("The ledger is empty: no round has been settled on this server yet.",
                         data={"period": period, "current": {}, "all_time": {}})
        lines = [f"📒 Ledger — {period} (all time in brackets):"]
        for player in sorted(total, key=lambda p: -total[p]):
            lines.append(f"• {names.get(player, player)}: {M.signed_units(current.get(player, 0), settings)} "
                         f"[{M.signed_units(total[player], settings)}]")
        lines.append(f"Sum: {sum(current.values())} this period, {sum(total.values())} all time.")
        return Reply("\n".join(lines), data={"period": period, "current": current, "all_time": total})

    async def _cmd_sheet(self, cmd: Command) -> Reply:
        server = cmd.key.server
        settings = await self.settings(server)
        args = [a.lower() for a in cmd.args]
        settle = "settle" in args or bool(cmd.options.get("settle"))
        period = next((a for a in args if a != "settle"), None) or str(cmd.options.get("period") or self._period())
        if not is_period(period):
            raise UserError(f"A period is written YYYY-MM, like {self._period()}.", "bad-period")
        balances = await self.store.balances(server, period)
        names = await self.store.names(server)
        payments = fewest_payments(balances)
        settled = await self.store.settled_periods(server)
        if settle:
            if not await self._is_admin(cmd):
                raise UserError("Only a server admin can mark a period settled.", "not-admin")
            if not await self.store.settle_period(server, period, cmd.actor.user_id, self.clock.now()):
                raise UserError(f"{period} is already marked settled.", "already")
            settled = await self.store.settled_periods(server)
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

    async def _cmd_stats(self, cmd: Command) -> Reply:
        server = cmd.key.server
        target = user_ref(str(cmd.options.get("member") or (cmd.args[0] if cmd.args else cmd.actor.user_id)))
        names = await self.store.names(server)
        stats = {"rounds": 0, "bids_made": 0, "bids_failed": 0, "challenges_won": 0, "challenges_lost": 0}
        best: tuple[int, str] | None = None
        for row in await self.store.rounds(server):
            rec = row["record"]
            out = rec["outcome"]
            if target not in out["net"]:
                continue
            stats["rounds"] += 1
            if out["final_bid"]["player"] == target:
                won = out["net"][target] >= 0 and (out["made"] or out["skunk"])
                stats["bids_made" if won else "bids_failed"] += 1
                if out["made"]:
                    q = out["final_bid"]["quantity"]
                    if best is None or q > best[0] or (q == best[0] and out["net"][target] > 0):
                        best = (q, out["final_bid_text"])
            challengers = _challengers_of_final(rec)
            if target in challengers:
                won = not out["made"] and not out["skunk"]  # a skunk pays the bidder: the challengers lost
                stats["challenges_won" if won else "challenges_lost"] += 1
        net = (await self.store.balances(server)).get(target, 0)
        settings = await self.settings(server)
        name = names.get(target, target)
        if stats["rounds"] == 0:
            return Reply(f"{name} has not played a settled round on this server.", data={**stats, "net": net})
        text = (
            f"📊 {name}: {stats['rounds']} round{'s' if stats['rounds'] != 1 else ''}, "
            f"net {M.signed_units(net, settings)}. "
            f"Final bids made {stats['bids_made']}, failed {stats['bids_failed']}; "
            f"challenges won {stats['challenges_won']}, lost {stats['challenges_lost']}."
            + (f" Best hand: {best[1]} made." if best else "")
        )
        return Reply(text, data={**stats, "net": net, "best": best[1] if best else None})

    async def _cmd_history(self, cmd: Command) -> Reply:
        server = cmd.key.server
        table = self.tables.get(cmd.key)
        table_id = table.id if table else await self.store.last_table(server, cmd.key.channel_id)
        if table_id is None:
            return Reply("No rounds have been played in this channel.")
        rows = await self.store.rounds(server, table_id=table_id, limit=10)
        if not rows:
            return Reply("No rounds have been counted at this table yet.")
        names = await self.store.names(server)
        lines = ["Recent rounds here:"]
        for row in reversed(rows):
            out = row["record"]["outcome"]
            bidder = names.get(out["final_bid"]["player"], out["final_bid"]["player"])
            verdict = "made" if out["made"] else ("skunk" if out["skunk"] else "failed")
            lines.append(f"• Round {row['number']}: {bidder} bid {out['final_bid_text']}, count {out['count']} — "
                         f"{verdict} {out['multiplier_text']}")
        return Reply("\n".join(lines))

    async def _cmd_export(self, cmd: Command) -> Reply:
        server = cmd.key.server
        live = self.tables.get(cmd.key)
        table_id = live.id if live is not None else await self.store.last_table(server, cmd.key.channel_id)
        if table_id is None:
            raise UserError("No table has been played in this channel.", "no-table")
        table = TableState(table_id, cmd.key, keep_history=True)
        for event in await self.store.table_events(table_id):
            table.apply(event)
        records = table.records()
        if not records:
            raise UserError("No round has been counted at this table yet.", "no-round")
        body = json.dumps(records[0] if len(records) == 1 else records, indent=1)
        return Reply(f"Game record ({len(records)} session{'s' if len(records) != 1 else ''}); "
                     "check it with `liars verify FILE`.", data={"record": body})


def _settings_text(settings: dict[str, Any]) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in settings.get("options", {}).items()) or "none"
    value = M.units(1, settings)
    return (
        f"Server settings: preset {settings['preset']}; option overrides: {opts}; one unit = {value}; "
        f"turn timeout {settings['turn_timeout']} s; lobby timeout {settings['lobby_timeout']} s; "
        f"computer level {settings.get('computer_level', 'hard')}."
    )


def _challengers_of_final(record: dict[str, Any]) -> list[str]:
    """Who challenged the final bid in a stored round record."""
    final: list[str] = []
    for action in record.get("actions", []):
        if "bid" in action:
            final = []
        elif action.get("challenge"):
            final.append(action["player"])
    return final
