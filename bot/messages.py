"""Every word the bot itself says, but its refusals: replies, notes, panels, ledgers and reports; and how
a game's words become messages.

Here: the lobby and table panels, the replies to moves and seat changes (``done``, ``seated``,
``removed`` ...), why a table closed, timer notes (a turn warning, a timeout), the server's settings,
ledger, sheet, leaderboard, stats and history texts, and chart titles.  The modules that decide
(``lobby.py``, ``play.py``, ``timers.py``, ``reports.py``) call these and hold no sentences.  The
commands' one-line help is in their declarations (:mod:`bot.commands`, each game's ``commands``).

Not here: refusals, the text of each :class:`~bot.parsing.UserError`, are in :mod:`bot.refusals`.  The
games' own words stay in the games: each game writes its notes, panels and rule refusals in ``core/<game>/``
(``text.py``, and :class:`~core.game.GameError` raised by its checks, the game's own error tree), with
mentions as ``<@id>`` and money as ``<$n>`` tokens; here the money tokens are written out with the server's
unit, and the game's :class:`~core.game.Say` values become :class:`~bot.model.Message` values for the adapters.

Privacy rule: a game's private :class:`~core.game.Say` (a serial, a hand) becomes a message addressed
to its holder only; computer seats get none.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from core.commands import CommandSpec
from core.game import Control, Panel, Say, SayKind, Step

from .model import Button, Message, MessageKind
from .ratings import Rating, Standing
from .settings import game_defaults
from .table import TableState, TableStatus

__all__ = [
    "APP_REMOVED",
    "AWAY_YOU",
    "CHANNEL_DELETED",
    "CHART_POSTED",
    "CHART_TOO_SOON",
    "CLOSES_AT_COUNT",
    "CLOSES_AT_COUNT_PEER",
    "DEALT",
    "LAST_DECLARED",
    "LEDGER_EMPTY",
    "LOBBY_TIMED_OUT",
    "NO_RATING_HISTORY",
    "NO_ROUNDS_COUNTED",
    "NO_ROUNDS_PLAYED",
    "ONLY_COMPUTERS_REMAIN",
    "TOO_FEW_REMAIN",
    "all_rounds_played",
    "away",
    "balances_title",
    "closed_by",
    "closed_message",
    "closed_unreadable",
    "closes_at_count",
    "done",
    "export_text",
    "help_text",
    "history_text",
    "leaderboard_text",
    "leaderboard_title",
    "leaderboard_what",
    "leaderboard_when",
    "leaving_note",
    "ledger_empty_in",
    "ledger_text",
    "lobby_message",
    "mention",
    "move_note",
    "nets_title",
    "no_rounds_counted_in",
    "no_settled_round",
    "nobody_on_board",
    "opened",
    "panel_message",
    "ran_out_of_time",
    "rating_text",
    "rating_title",
    "removed",
    "rules_without_table",
    "say_messages",
    "seat_list",
    "seated",
    "settings_saved",
    "settings_text",
    "sheet_text",
    "signed_units",
    "stats_text",
    "table_closed",
    "table_message",
    "time_warning",
    "turn_message",
    "units",
    "with_units",
]

B_JOIN = Button("join", "Join", "primary")
B_LEAVE = Button("leave", "Leave", "secondary")
B_DEAL = Button("deal", "Deal", "success")

_KIND = {
    SayKind.NOTE: MessageKind.NOTE,
    SayKind.DEAL: MessageKind.DEAL,
    SayKind.PRIVATE: MessageKind.PRIVATE,
    SayKind.RESULT: MessageKind.RESULT,
    SayKind.END: MessageKind.INFO,
}
_UNITS = re.compile(r"<\$(-?\d+)>")


def mention(player: str) -> str:
    return f"<@{player}>"


def units(n: int, settings: Mapping[str, Any] | None = None) -> str:
    """``3 units ($3.00)`` — money is integers: ``unit_value`` is in minor units (cents)."""
    text = f"{n} unit{'s' if abs(n) != 1 else ''}"
    if settings and settings.get("unit_value"):
        minor = n * int(settings["unit_value"])
        sign = "-" if minor < 0 else ""
        whole, cents = divmod(abs(minor), 100)
        text += f" ({sign}{settings.get('currency', '$')}{whole:,}.{cents:02d})"
    return text


def signed_units(n: int, settings: Mapping[str, Any] | None = None) -> str:
    return ("+" if n > 0 else "") + units(n, settings)


def with_units(text: str, settings: Mapping[str, Any] | None) -> str:
    """Write a game's ``<$n>`` money tokens out with the server's unit."""
    if "<$" not in text:
        return text
    return _UNITS.sub(lambda m: units(int(m.group(1)), settings), text)


@lru_cache(maxsize=256)
def button(control: Control) -> Button:
    """The message button of a game's control (both are values: one Button per distinct Control)."""
    return Button(control.verb, control.label, control.style, control.form, control.at_turn)


def table_message(table: TableState, text: str, kind: MessageKind, **kw: Any) -> Message:
    if "<#table>" in text:
        text = text.replace("<#table>", f"<#{table.key.channel_id}>")
    names, humans = table.roster()
    return Message(key=table.key, text=text, kind=kind, names=names, humans=humans, table_id=table.id,
                   seq=table.events, turn=table.turn, **kw)


def seat_list(table: TableState) -> str:
    parts = []
    for p in table.seats:
        tag = " (host)" if p == table.host else ""
        if table.is_computer(p):
            tag += " 🤖"
        if p in table.pending_leave:
            tag += " (leaving)"
        parts.append(f"{mention(p)}{tag}")
    return ", ".join(parts) or "nobody"  # (everyone left: the game settled as the table closed)


def lobby_message(table: TableState, fresh: bool = False) -> Message:
    if table.status == TableStatus.ENDED:
        reason = table.ended_reason  # written to follow a colon: a sentence of its own here
        text = "🃏 This table is closed." + (f" {reason[:1].upper()}{reason[1:]}" if reason != "" else "")
        return table_message(table, text, MessageKind.LOBBY, panel="lobby")
    terms = with_units(table.game.terms(table.rules), None)  # "classic, stake 2 units"; an elimination's own
    limit = f", {_plural(table.max_rounds, 'round')}" if table.max_rounds else ""
    text = (
        f"🃏 **{table.game.title}** — {mention(table.host)} opened a table ({terms}, up to {table.seat_limit} seats"
        f"{limit}).\n"
        f"Seated ({len(table.seats)}/{table.seat_limit}): {seat_list(table)}\n"
        + ("Press **Join** to sit down; the host presses **Deal** to start." if table.status == TableStatus.LOBBY
           else "Play is under way.")
    )
    buttons = (B_JOIN, B_LEAVE, B_DEAL) if table.status == TableStatus.LOBBY else ()
    return table_message(table, text, MessageKind.LOBBY, panel="lobby", fresh=fresh, buttons=buttons)


def panel_message(table: TableState, settings: Mapping[str, Any] | None, *, note: str = "",
                  fresh: bool = False) -> Message:
    """The table message, edited in place as the round goes."""
    assert table.match is not None
    panel: Panel = table.match.panel(seat_list(table), note)
    text = panel.text + (f"\n🔚 {closes_at_count(table.closing_by)}" if table.closing_by is not None and table.live
                         else "") + (f"\n🔢 {round_of_limit(table.rounds_settled + 1, table.max_rounds)}"
                                    if table.max_rounds and table.live else "")
    return table_message(table, with_units(text, settings), MessageKind.TABLE, panel="table", fresh=fresh,
                         buttons=tuple(button(c) for c in panel.controls), to_act=table.to_act, note=note)


def turn_message(table: TableState) -> Message | None:
    """A small new message that pings the player to act (edits of the table panel notify nobody)."""
    text = table.match.turn_text() if table.match is not None else None
    if text is None:
        return None
    return table_message(table, text, MessageKind.TURN, panel="turn", replace=True, to_act=table.to_act)


def say_messages(table: TableState, says: Sequence[Say], settings: Mapping[str, Any] | None) -> list[Message]:
    """A game's words as messages; a private one goes to its holder only, and never to a computer seat."""
    out = []
    hand = table.game.hand.label if table.game.hand is not None else ""
    for say in says:
        if say.to is not None and table.is_computer(say.to):
            continue
        out.append(table_message(table, with_units(say.text, settings), _KIND[say.kind], to=say.to,
                                 picture=say.picture, hand_label=hand if say.to is not None else ""))
    return out


def closed_message(table: TableState, reason: str) -> Message:
    return table_message(table, f"🃏 The table is closed: {reason}", MessageKind.END)


def settings_text(settings: Mapping[str, Any], games: Iterable[str]) -> str:
    """The server's settings; each game's defaults for new tables (``games``: the registered games)."""
    defaults = []
    for game in games:
        preset, options = game_defaults(settings, game)
        if preset or options:
            opts = ", ".join(f"{k}={v}" for k, v in options.items()) or "no overrides"
            defaults.append(f"{game}: preset {preset or 'its default'}, {opts}")
    return (
        f"Server settings: new tables {'; '.join(defaults) or 'play each game by its defaults'}; "
        f"one unit = {units(1, settings)}; "
        f"turn timeout {settings['turn_timeout']} s; lobby timeout {settings['lobby_timeout']} s; "
        f"computer level {settings.get('computer_level', 'hard')}; history {settings.get('history', 'all')} "
        f"({'players see this period only' if settings.get('history') == 'month' else 'everyone sees all periods'}); "
        + (f"admins {', '.join(mention(a) for a in admins)} and the server's own."
           if (admins := settings.get("admins")) else "admins: the server's own.")
    )


# -- the table's replies and notes: what a move or a seat change says ------------------------------
LAST_DECLARED = "The last round is declared."
CLOSES_AT_COUNT = ("The table closes when this round is counted: ending it now would void a round with money at "
                   "stake. (A server admin may end it at once, the round void.)")
CLOSES_AT_COUNT_PEER = ("The table closes when this round is counted: ending it now would void a round with money at "
                        "stake, and here none may void a round for the others.")
_VOID = " The round under way is void: no money moves."
_GAME_VOID = " The game under way is void: what it had not paid yet is not paid."
# why a table closed (after "The table is closed: ")
LOBBY_TIMED_OUT = "nobody dealt before the lobby timed out."
DEALT = "Dealt."  # a game that deals nobody a secret (one that does says what in its HandWords)
APP_REMOVED = "the app was removed from this server; a round under way does not count."
CHANNEL_DELETED = "its channel was deleted; a round under way does not count."
TOO_FEW_REMAIN = "fewer than two players remain."
ONLY_COMPUTERS_REMAIN = "only computer players remain."


def done(spec: CommandSpec) -> str:
    """The mover's reply to a game move: the game's words for it (``CommandSpec.done``), else "Done."."""
    return spec.done or "Done."


def opened(description: str, max_rounds: int = 0) -> str:
    """The reply to ``start``; ``max_rounds``: the rounds the table plays before it closes (0: until it is ended)."""
    limit = f" It plays {_plural(max_rounds, 'round')}, then closes." if max_rounds else ""
    return f"You opened a table: {description}{limit}"


def round_of_limit(number: int, most: int) -> str:
    """A table of set rounds, in its table message: which of them is under way."""
    return f"Round {number:,} of the {_plural(most, 'round')} this table plays" + (": its last." if number >= most
                                                                                   else ".")


def seated(seated: int, seat_limit: int) -> str:
    return f"You are seated ({seated}/{seat_limit})."


def removed(kicked: str | None, *, now: bool) -> str:
    """``kicked``: the name of the player the host removed (None: the sender left); ``now``: in the lobby,
    else after the round under way."""
    if now:
        return f"{kicked} was removed from the table." if kicked is not None else "You left the table."
    return f"{kicked} will be removed after this round." if kicked is not None else "You will leave after this round."


def table_closed(*, void: bool, game: bool = False) -> str:
    """The reply to ``end``; ``void``: a round was under way; ``game``: a game that settles at its end, void whole."""
    return "The table is closed." + (_GAME_VOID if game else _VOID if void else "")


def closed_unreadable(table_id: int, name: str) -> str:
    """The reply to a server admin's ``end`` of a table this version cannot read (nothing else of it can be drawn)."""
    return (f"🛑 Table no. {table_id}, which this version of the bot could not read, was closed by {name}. A round "
            "under way there is void: nothing is paid for it. `start` opens a new table.")


def closed_by(name: str, *, void: bool, game: bool = False) -> str:
    return f"closed by {name}.{_GAME_VOID if game else _VOID if void else ''}"


def closes_at_count(name: str) -> str:
    return f"{name} is closing the table: it closes when this round is counted."


def all_rounds_played(rounds: int) -> str:
    return "its one round is played." if rounds == 1 else f"all {rounds} rounds are played."


def away(player: str, turns: int) -> str:
    """A player the timer played for ``turns`` turns in a row, who leaves after this round."""
    return f"💤 {mention(player)} let {turns} turns in a row run out and leaves the table after this round."


STAYING = "You stay at the table: you no longer leave after this round."


def leaving_note(player: str) -> str:
    return f"{mention(player)} leaves the table after this round."


AWAY_YOU = "The timer played your last turns for you, so you leave the table after this round."


def ran_out_of_time(player: str) -> str:
    """The start of a timed-out move's note (the game's note follows)."""
    return f"⏰ {mention(player)} ran out of time. "


def move_note(event: Mapping[str, Any], step: Step) -> str:
    """What the table message says just happened, for a stored ``act`` event and the step it made."""
    timed_out = ran_out_of_time(str(event.get("player", ""))) if event.get("timeout") else ""
    return timed_out + step.note


def time_warning(player: str, left: int) -> str:
    return f"⏳ {mention(player)}, {left} second{'s' if left != 1 else ''} left to act."


# -- reports: the server's ledger, its sheet, the table's history and rules -------------------------
CHART_POSTED = "📈 The chart is posted in this channel."
CHART_TOO_SOON = "\n(A chart was posted here a moment ago: this answer is yours alone, without its picture.)"
LEDGER_EMPTY = "The ledger is empty: no round has been settled on this server yet."


def ledger_empty_in(period: str) -> str:
    """The ledger where the server shows this period only (``history=month``) and it has no round yet."""
    return f"📒 No round has been settled in {period} yet (this server shows players this period's figures only)."


def no_rounds_counted_in(period: str) -> str:
    return f"Nothing has been settled at this table in {period} (this server shows this period's rounds only)."


NO_ROUNDS_PLAYED = "No rounds have been played in this channel."
NO_ROUNDS_COUNTED = "Nothing has been settled at this table yet."  # a card game under the winner payout: at its end
NO_RATING_HISTORY = "\nNo rating history to chart yet."


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def help_text(sections: Sequence[tuple[str, Sequence[CommandSpec]]], game_title: str | None,
              at_table: bool = True) -> str:
    """``help``: each section's commands with their help lines (at a table, or ``help cards``: one game's moves)."""
    head = ("Liar's Poker commands:" if not game_title else f"Liar's Poker commands (this table plays {game_title}):"
            if at_table else f"Liar's Poker commands for {game_title}:")
    lines = [head]
    for title, specs in sections:
        if specs:
            lines.append(f"**{title}**")
            lines += [f"• `{spec.name}` — {spec.help}" for spec in specs]
    return "\n".join(lines)


def command_help(spec: CommandSpec, other_game: str | None = None) -> str:
    """``help <command>``: its line, each option it takes, and the other names it answers to; ``other_game``: the
    game it belongs to, where the table here plays another."""
    lines = [f"`{spec.name}` — {spec.help}" + (f" (in {other_game}: not a move at this table)" if other_game else "")]
    for param in spec.params:
        limits = (f" ({param.low:,} to {param.high:,})" if param.low is not None and param.high is not None
                  and not {str(param.low), str(param.high)} <= set(re.findall(r"[0-9]+", param.help)) else "")
        choices = f" (one of {', '.join(v for v, _ in param.choices)})" if param.choices else ""
        lines.append(f"• `{param.name}` — {param.help}{limits}{choices}")
    if spec.aliases:
        lines.append("Also answers to " + ", ".join(f"`{a}`" for a in spec.aliases) + ".")
    return "\n".join(lines)


def preset_rules(preset: str, description: str) -> str:
    """``rules salomon``: what a new table of that preset would play here."""
    return f"A new table of preset {preset} would play: {description}"


def rules_without_table(description: str, table_here: bool = False) -> str:
    """A new table's rules: where none is open, or (``table_here``) where one of another game is."""
    return ("A new table of that game would play: " if table_here else "No table here. A new table would play: "
            ) + description


def settings_saved(settings: Mapping[str, Any], games: Iterable[str]) -> str:
    return "Settings saved.\n" + settings_text(settings, games)


MOST_LISTED = 30
"""Players a ledger or a sheet lists by name, and payments a sheet lists: the top and the bottom, and the asker's
own (a server of some hundreds of players made a reply Slack refuses, and a flood of messages on Discord); the
figures in between are counted, and the sums are the whole ledger's."""


def _listed(order: Sequence[str], viewer: str | None, line: Callable[[str], str]) -> list[str]:
    """``line`` of each player in ``order`` — or, past :data:`MOST_LISTED`, of the first and last halves and the
    viewer, each run of players left out one line saying how many."""
    if len(order) <= MOST_LISTED:
        return [line(p) for p in order]
    half = MOST_LISTED // 2
    keep = {*order[:half], *order[-half:], viewer}
    out: list[str] = []
    skipped = 0
    for player in order:
        if player in keep:
            if skipped:
                out.append(f"  … {_plural(skipped, 'more player')}")
                skipped = 0
            out.append(line(player))
        else:
            skipped += 1
    return out


def ledger_text(period: str, current: Mapping[str, int], total: Mapping[str, int], names: Mapping[str, str],
                settings: Mapping[str, Any] | None, *, only_period: bool = False, viewer: str | None = None) -> str:
    """This period's balances with all time's in brackets, and both sums (0 on a sound ledger).
    ``only_period``: the server shows this period's figures only (``history=month``).  ``viewer``: who asked (their
    own line is listed however many players there are)."""
    if only_period:
        lines = [f"📒 Ledger — {period} (this server shows players this period's figures only):"]
        lines += _listed(sorted(current, key=lambda p: -current[p]), viewer,
                         lambda p: f"• {names.get(p, p)}: {signed_units(current[p], settings)}")
        lines.append(f"Sum: {sum(current.values())} this period.")
        return "\n".join(lines)
    lines = [f"📒 Ledger — {period} (all time in brackets):"]
    lines += _listed(sorted(total, key=lambda p: -total[p]), viewer,
                     lambda p: f"• {names.get(p, p)}: {signed_units(current.get(p, 0), settings)} "
                               f"[{signed_units(total[p], settings)}]")
    lines.append(f"Sum: {sum(current.values())} this period, {sum(total.values())} all time.")
    return "\n".join(lines)


def sheet_text(period: str, settled: bool, balances: Mapping[str, int], payments: Sequence[tuple[str, str, int]],
               names: Mapping[str, str], settings: Mapping[str, Any] | None, *, viewer: str | None = None) -> str:
    """A period's balances and the payments that settle them (past :data:`MOST_LISTED`, the top and the bottom
    and the ``viewer``'s own; the payments the viewer makes or gets, then the first others)."""
    lines = [f"🧾 Sheet for {period}" + (" — settled ✅" if settled else "") + ":"]
    if not balances:
        lines.append("No rounds were settled in this period.")
    lines += _listed(sorted(balances, key=lambda p: -balances[p]), viewer,
                     lambda p: f"• {names.get(p, p)}: {signed_units(balances[p], settings)}")
    if balances and not payments:
        lines.append("Nothing to pay: every balance is 0.")
    if payments:
        lines.append(f"To settle ({_plural(len(payments), 'payment')}):")
        shown = list(payments)
        if len(shown) > MOST_LISTED:
            own = [p for p in shown if viewer in p[:2]]
            shown = [*own, *[p for p in shown if viewer not in p[:2]][: max(0, MOST_LISTED - len(own))]]
        lines += [f"  {names.get(a, a)} pays {names.get(b, b)} {units(u, settings)}" for a, b, u in shown]
        if len(shown) < len(payments):
            lines.append(f"  … {_plural(len(payments) - len(shown), 'more payment')}")
    return "\n".join(lines)


def nets_title(period: str) -> str:
    return f"Nets — {period}"


def balances_title(period: str) -> str:
    return f"Balances — {period}"


def history_text(lines: Iterable[str]) -> str:
    """The table's recent rounds, one game-written line each."""
    return "\n".join(["Recent rounds here:", *(f"• {line}" for line in lines)])


def export_text(sessions: int) -> str:
    return f"Game record ({_plural(sessions, 'session')}); check it with `liars verify FILE`."


# -- reports: the leaderboard, and what ``stats`` adds ----------------------------------------------------
def rating_text(rating: Rating, trend: int, last: int = 5) -> str:
    """``rating 1034 (+12 over the last 5)``: the displayed conservative estimate and its recent change."""
    arrow = f"{trend:+d}".replace("-", "−") if trend else "±0"
    return f"rating {rating.display} ({arrow} over the last {min(last, rating.rounds)})"


def leaderboard_text(title: str, standings: Sequence[Standing], names: Mapping[str, str], by: str,
                     settings: Mapping[str, Any] | None, trends: Mapping[str, int]) -> str:
    lines = [title]
    for s in standings:
        name = names.get(s.player, s.player)
        if by == "skill" and s.rating is not None:
            played = f"{s.rating.rounds} rated result{'s' if s.rating.rounds != 1 else ''}"
            lines.append(f"{s.place}. {name} — {rating_text(s.rating, trends.get(s.player, 0))}, {played}; "
                         f"{signed_units(s.balance, settings)}")
        else:
            rated = f" (rating {s.rating.display})" if s.rating is not None else ""
            lines.append(f"{s.place}. {name} — {signed_units(s.balance, settings)}{rated}")
    return "\n".join(lines)


def no_settled_round(name: str, period: str | None = None) -> str:
    """``period``: the server shows this period only (``history=month``)."""
    if period is not None:
        return f"{name} has not played a settled round on this server in {period}."
    return f"{name} has not played a settled round on this server."


def stats_text(name: str, net: int, parts: Sequence[tuple[str, str, str]], settings: Mapping[str, Any] | None) -> str:
    """``parts``: (game title, what was played in the game's words — "3 rounds", "2 games" —, that game's text) for
    each game the player has rounds in."""
    if len(parts) == 1:
        return f"📊 {name}: {parts[0][1]}, net {signed_units(net, settings)}. {parts[0][2]}"
    detail = " ".join(f"{title}: {played}. {text}" for title, played, text in parts)
    return f"📊 {name}: net {signed_units(net, settings)}. {detail}"


def rating_title(name: str, game_title: str) -> str:
    return f"{name}: rating — {game_title}"


def leaderboard_when(period: str | None) -> str:
    return period or "all time"


def leaderboard_what(by: str, game_title: str) -> str:
    return f"by skill at {game_title}" if by == "skill" else "by money"


def leaderboard_title(when: str, what: str) -> str:
    return f"🏆 Leaderboard — {when}, {what}:"


def nobody_on_board(when: str, what: str) -> str:
    return f"🏆 Nobody is on the board for {when} {what} yet."
