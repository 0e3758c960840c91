"""The App Home tab: a player's figures on this workspace, the tables they sit at, how to play.

``app_home_opened`` (the player opens the bot's Home tab) → :func:`home_view` → ``views.publish``.
Everything shown comes from the service's reading commands, as any player could ask for it in a
channel: ``ledger`` (this month's and all-time balances), ``stats`` (ratings and their trend),
``leaderboard … all by skill <game>`` (the rank), and the open tables in ``service.tables``.  No
secret is shown: a hand or a serial stays in the holder's DMs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.messages import signed_units
from bot.model import Actor, Command, TableKey
from bot.service import Service
from bot.table import TableState, TableStatus
from core.registry import GAMES

from .render import SLASH, mrkdwn

__all__ = ["HOME_TEXT", "home_view"]

HOME_TEXT = {
    "title": "Liar's Poker",
    "balance": "*Your balance* on this workspace's sheet for {period}: *{current}* (all time {total}).",
    "no_rounds": "You have no settled round on this workspace yet: `/liars start` in a channel opens a table.",
    "no_rounds_month": "You have no settled round on this workspace in {period} yet (this workspace shows players "
    "this month's figures only): `/liars start` in a channel opens a table.",
    "rating": "*{title}*: rating *{rating}* ({trend} over the last rounds) · {rank}",
    "rank": "#{place} on the all-time board",
    "balance_month": "*Your balance* on this workspace's sheet for {period}: *{current}* "
    "(this workspace shows players this month's figures only).",
    "rank_month": "#{place} on this month's board",
    "unranked": "not in the all-time top 10 yet",
    "unranked_month": "not in this month's top 10 yet",
    "tables": "*Your tables*",
    "no_tables": "You are not seated at any open table.",
    "table": "• <#{channel}> — {game}, {state}",
    "how": "*How to play*",
    "game": "*{title}* (`{slash} start game={name}`): {how}",
    "help": f"`{SLASH} help` lists every command; `{SLASH} ledger`, `{SLASH} leaderboard` and "
    f"`{SLASH} stats` show the figures in a channel.",
}


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text[:2900]}}


async def _ask(service: Service, key: TableKey, actor: Actor, name: str, *args: str) -> Mapping[str, Any]:
    reply = await service.handle(Command(name, key, actor, tuple(args)))
    return reply.data or {} if reply.ok else {}


def _table_line(table: TableState, user: str) -> str:
    if table.status == TableStatus.LOBBY:
        state = f"in the lobby ({len(table.seats)} seated)"
    elif table.match is not None and table.match.to_act == user:
        state = "*your turn*"
    else:
        state = "a round under way" if table.live else "between rounds"
    return HOME_TEXT["table"].format(channel=table.key.channel_id, game=table.game.title, state=state)


async def home_view(service: Service, server: str, actor: Actor, channel: str = "") -> dict[str, Any]:
    """The Home tab for ``actor`` on workspace (or Grid organisation) ``server``."""
    user = actor.user_id
    key = TableKey("slack", server, channel or "home")
    settings = await service.settings(key.server)
    ledger = await _ask(service, key, actor, "ledger")
    stats = await _ask(service, key, actor, "stats")
    blocks: list[dict[str, Any]] = [{"type": "header", "text": {"type": "plain_text", "text": HOME_TEXT["title"]}}]
    total = (ledger.get("all_time") or {}).get(user)
    month = ledger.get("history") == "month"  # the sheet keeper's discretion: this period only
    if total is None:
        blocks.append(_section(HOME_TEXT["no_rounds_month" if month else "no_rounds"].format(
            period=ledger.get("period", ""))))
    else:
        current = int((ledger.get("current") or {}).get(user, 0))
        blocks.append(_section(HOME_TEXT["balance_month" if month else "balance"].format(
            period=ledger.get("period", ""), current=mrkdwn(signed_units(current, settings)),
            total=mrkdwn(signed_units(int(total), settings)))))
    for game in GAMES.values():
        figures = stats.get(game.name) or {}
        if not isinstance(figures, Mapping) or figures.get("rating") is None:
            continue
        board = await _ask(service, key, actor, "leaderboard", "all", "skill", game.name)
        place = next((s["place"] for s in board.get("standings", []) if s.get("player") == user), None)
        rank = HOME_TEXT["rank_month" if month else "rank"].format(place=place) if place is not None \
            else HOME_TEXT["unranked_month" if month else "unranked"]
        change = int(figures.get("trend") or 0)
        blocks.append(_section(HOME_TEXT["rating"].format(
            title=game.title, rating=figures["rating"], trend=f"{change:+d}" if change else "±0", rank=rank)))
    # as stored: with several workers, another may hold a table, or have moved it since this one looked
    seated = await service.tables_of("slack", user, server, live_only=False)
    lines = [_table_line(t, user) for t in sorted(seated, key=lambda t: t.key.channel_id)]
    blocks.append(_section(HOME_TEXT["tables"] + "\n" + ("\n".join(lines) if lines else HOME_TEXT["no_tables"])))
    blocks.append({"type": "divider"})
    blocks.append(_section(HOME_TEXT["how"]))
    for game in GAMES.values():  # each game says how it is played, naming its moves
        blocks.append(_section(HOME_TEXT["game"].format(title=game.title, slash=SLASH, name=game.name,
                                                        how=mrkdwn(game.how_to_play))))
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": HOME_TEXT["help"]}]})
    return {"type": "home", "blocks": blocks}
