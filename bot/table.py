"""A table's state as a pure function of its event log, for any game.

The service never changes a table except by appending an event and applying it here, and on start-up
it rebuilds every open table by applying its stored events in order — so a restart loses nothing.
The table keeps seats, the lobby, names and timers' marks; everything about play is the game's
:class:`~core.game.Match`, fed the deal and action payloads the game itself wrote.  Events::

    {"t": "open", "host", "host_name", "game"?, "rules", "seats", "computers": [[id, name, level]], "max_rounds", "at"}
    {"t": "join", "player", "name", "at"}
    {"t": "leave", "player", "own"?: true, "kicked"?: true, "at"}   (own: their `leave` or the timer's; kicked: a kick)
    {"t": "stay", "player", "at"}   (a player leaving after the round, by their own word or the timer's, stays)
    {"t": "deal", "players", ...the game's deal payload..., "seed" (the computer seats' secret), "at"}
    {"t": "act", ...the game's action payload..., "timeout"?: true, "at"}
    {"t": "last", "at"}                             {"t": "end", "by", "reason", "at"}
    {"t": "closing", "by", "name", "at"}   (a host's `end` mid-round at a stake: the table closes at the count)

An ``open`` without ``game`` is the serial game's (tables opened before there were two games).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from core.errors import GameError, UnknownMove
from core.fairness import new_salt
from core.game import Checked, Game, GameRules, Json, Match, RandomSource, Say, SayKind, Step
from core.registry import DEFAULT_GAME, get_game

from .model import TableKey

__all__ = ["NewerEvent", "TableState", "TableStatus"]


class NewerEvent(ValueError):
    """A stored event of a kind this version does not know: a newer version of the bot wrote it (during a rolling
    upgrade, say).  The table is that version's to serve, not broken: see :class:`bot.repository.UnreadableTable`."""


class TableStatus(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    ENDED = "ended"


_ENVELOPE = ("t", "at", "timeout", "players", "seed")


AWAY_TURNS = 3
"""Turns in a row the timer plays for a person before they leave the table after that round."""


class TableState:
    def __init__(self, table_id: int, key: TableKey, *, keep_history: bool = False) -> None:
        """``keep_history``: keep every match (for game records); a live table keeps only the one under way."""
        self.id = table_id
        self.key = key
        self.status = TableStatus.LOBBY
        self.host = ""
        self.game: Game = get_game(DEFAULT_GAME)
        self.rules: GameRules = self.game.make_rules(None, {})
        self.seat_limit = self.game.max_players  # until the table opens (its "open" event names the seats)
        self.seats: list[str] = []
        self.names: dict[str, str] = {}
        self.computers: dict[str, str] = {}  # id -> level
        self.match: Match | None = None
        self.matches: list[Match] = []
        self.pending_leave: set[str] = set()
        self.kicked: set[str] = set()  # those of pending_leave the host removed
        self.own_leave: set[str] = set()  # those of pending_leave who may take it back (``join``): their own or the
        # timer's leave, as stored since session 36 (a leave stored before says neither: a kick, or not, unknown)
        self.away: dict[str, int] = {}  # player -> turns in a row the timer played for them (see AWAY_TURNS)
        self._last_act: tuple[str, bool] | None = None  # who moved last, and whether the timer did
        self.last_declared = False
        # who asked to `end` mid-round at a stake (their name; None: nobody): the table closes at the round's count
        self.closing_by: str | None = None
        self.opened_at = 0.0
        self.turn_started_at = 0.0
        self.rounds_settled = 0
        self.events = 0  # how many events the table has applied (its stream's sequence)
        self.turn = 0  # the event the turn under way began at (the last deal, seat change, or move that passed the
        # turn or settled): a form drawn now names it (Command.turn)
        self.keep_history = keep_history
        self.ended_reason = ""
        self.max_rounds = 0
        self.computer_seed = ""  # the secret the computer seats' draws come from this round (see deal_event)
        self._roster: tuple[dict[str, str], frozenset[str]] | None = None  # see roster()

    @classmethod
    def replayed(cls, table_id: int, key: TableKey, events: Iterable[dict[str, Any]], *,
                 keep_history: bool = False) -> TableState:
        """The table as its stored events leave it."""
        table = cls(table_id, key, keep_history=keep_history)
        for event in events:
            table.apply(event)
        return table

    # -- derived ----------------------------------------------------------------------------------
    @property
    def live(self) -> bool:
        return self.match is not None and self.match.live

    @property
    def to_act(self) -> str | None:
        return self.match.to_act if self.match is not None else None

    @property
    def humans(self) -> frozenset[str]:
        return frozenset(p for p in self.names if p not in self.computers)

    def roster(self) -> tuple[dict[str, str], frozenset[str]]:
        """The names and the human players as they stand, for messages: one snapshot, shared by every
        message until the next ``open`` or ``join`` event (the only ones that change them); read only."""
        if self._roster is None:
            self._roster = (dict(self.names), self.humans)
        return self._roster

    def is_computer(self, player: str) -> bool:
        return player in self.computers

    def name(self, player: str) -> str:
        return self.names.get(player, player)

    def players_for_next_deal(self) -> list[str]:
        """The seats but those leaving, and those away (:data:`AWAY_TURNS`): a leave another process was
        writing when this one dealt is not lost."""
        return [p for p in self.seats if not self.leaving(p)]

    def closes_at_next_deal(self) -> bool:
        """Whether the table closes instead of dealing again: its game is over, its rounds are all played, or
        its closing was asked for (``Play.next_round`` closes it then)."""
        assert self.match is not None
        return (bool(self.max_rounds) and self.rounds_settled >= self.max_rounds) or self.match.over \
            or self.closing_by is not None

    def leaving(self, player: str) -> bool:
        """Whether the player leaves after this round: they asked to, or the timer has played their turns."""
        return player in self.pending_leave or self.is_away(player)

    def is_away(self, player: str) -> bool:
        """A person the timer has played :data:`AWAY_TURNS` turns in a row for: they leave after this round."""
        return self.away.get(player, 0) >= AWAY_TURNS and not self.is_computer(player)

    def successor_host(self, players: list[str]) -> str:
        """The host, or if they have left, the first human still seated (else the first seat)."""
        if self.host in players or not players:  # (no seat left: the game may still settle at the seat change)
            return self.host
        return next((p for p in players if p not in self.computers), players[0])

    # -- the reducer ------------------------------------------------------------------------------
    def apply(self, event: dict[str, Any], checked: Checked | None = None) -> Step:
        """Apply one event.  Events were checked before they were stored; this only replays them.
        ``checked``: the game's checked action an ``act`` event stores (applied as it is)."""
        kind = event["t"]
        at = float(event.get("at", 0.0))
        self.events += 1
        if kind == "open":
            self._roster = None
            self.host = event["host"]
            self.names[self.host] = event.get("host_name", self.host)
            self.game = get_game(event.get("game", DEFAULT_GAME))
            self.rules = self.game.rules_from_dict(event["rules"])
            self.seat_limit = int(event["seats"])
            self.max_rounds = int(event.get("max_rounds", 0))
            if event.get("host_level"):
                self.computers[self.host] = event["host_level"]
            self.seats = [self.host]
            for cid, cname, level in event.get("computers", []):
                self.computers[cid] = level
                self.names[cid] = cname
                self.seats.append(cid)
            self.opened_at = at
        elif kind == "join":
            self._roster = None
            self.away.pop(event["player"], None)
            self.names[event["player"]] = event.get("name", event["player"])
            self.seats.append(event["player"])
        elif kind == "leave":
            if self.status == TableStatus.LOBBY:
                self.seats.remove(event["player"])
            else:
                self.pending_leave.add(event["player"])
                if event.get("kicked"):
                    self.kicked.add(event["player"])
                if event.get("own"):
                    self.own_leave.add(event["player"])
        elif kind == "stay":
            self.pending_leave.discard(event["player"])
            self.own_leave.discard(event["player"])
            self.away.pop(event["player"], None)
        elif kind == "deal":
            self._last_act = None  # a timed-out turn in the last round and one in this are two turns
            self.computer_seed = str(event.get("seed", ""))  # "" in deals stored before it was drawn
            step = self._deal(event)
            self.status = TableStatus.PLAYING
            self.turn_started_at = at
            self.turn = self.events
            return step
        elif kind == "act":
            assert self.match is not None
            before = self.match.to_act
            try:
                step = self.match.apply(checked if checked is not None else
                                        {k: v for k, v in event.items() if k not in _ENVELOPE})
            except UnknownMove as exc:  # a move of a kind a newer version's game writes: that version's table
                raise NewerEvent(f"a move of a kind this version does not know (table event {self.events})") from exc
            next_turn = self.match.to_act != before or bool(step.settled)
            if next_turn or self.is_computer(str(before)):  # a person's take, discard and declare in the card game
                self.turn_started_at = at  # are one turn on one clock (each move restarted it: two timeouts a
                # turn); a computer's next move still waits its own "thinking" delay
            if next_turn:  # (one turn: a Declare… form opened after the take still stands)
                self.turn = self.events
            self._count_away(str(event.get("player", "")), bool(event.get("timeout")))
            self.rounds_settled += len(step.settled)
            return step
        elif kind == "seat":
            step = self._reseat(list(event["players"]))
            self.turn = self.events
            self.rounds_settled += len(step.settled)  # a game that ends at a seat change settles there
            return step
        elif kind == "last":
            self.last_declared = True
            if self.match is not None:
                return Step((Say(self.match.declare_last(), SayKind.NOTE),))
        elif kind == "closing":
            self.closing_by = str(event.get("name") or self.name(str(event.get("by", ""))))
        elif kind == "end":
            self.status = TableStatus.ENDED
            self.ended_reason = event.get("reason", "")
        else:  # a kind a newer version writes (an older process meets it mid-upgrade)
            raise NewerEvent(f"unknown table event {kind!r}")
        return Step()

    def _count_away(self, player: str, timed_out: bool) -> None:
        """A turn the timer played counts once (the card game's take and declare are one turn); a move of
        the player's own starts the count again."""
        if not timed_out:
            self.away.pop(player, None)
        elif self._last_act != (player, True):
            self.away[player] = self.away.get(player, 0) + 1
        self._last_act = (player, timed_out)

    def _reseat(self, players: list[str]) -> Step:
        """Carry the game on at these seats (a seat change between rounds); what that settles, if the
        game ends there (the card game with one player left in it)."""
        self.pending_leave.clear()
        self.kicked.clear()
        self.own_leave.clear()
        self.seats = [p for p in self.seats if p in players] + [p for p in players if p not in self.seats]
        self.host = self.successor_host(players)
        self.match = self._new_match(players)
        if self.keep_history:
            self.matches.append(self.match)
        return self.match.pending or Step()

    def _deal(self, event: dict[str, Any]) -> Step:
        players = list(event["players"])
        if self.match is None or list(self.match.players) != players:
            self._reseat(players)
        assert self.match is not None
        return self.match.apply_deal({k: v for k, v in event.items() if k not in _ENVELOPE})

    def seat_change_ends_game(self) -> bool:
        """Would the seats of the next deal end the game before it is dealt (nobody left to play)?  Asked
        also when fewer than a game's least number of players remain: the game may settle there (the card
        game's last player left wins; a walk-out on dinner pays), or, refusing so few seats, it does not."""
        players = self.players_for_next_deal()
        if self.match is None or list(self.match.players) == players:
            return False
        # (every seat left — everyone typed `leave` in one round — is asked too: an elimination whose players still
        # in all walked out is paid for by the first of them, as when some stay; it closed with nobody paid)
        try:
            return self._new_match(players).over
        except GameError:  # a game that seats no fewer (the serial game's rounds): closed for too few
            return False

    def _new_match(self, players: list[str]) -> Match:
        return self.game.new_match(self.rules, players, host=self.successor_host(players), previous=self.match)

    def deal_event(self, rng: RandomSource) -> Json:
        """The next deal as an event, drawn from ``rng`` exactly as :meth:`apply` will replay it."""
        players = self.players_for_next_deal()
        match = self.match
        if match is None or list(match.players) != players:
            match = self._new_match(players)  # a preview: the stored event builds the real one
        payload = match.deal(rng)
        # the computer seats' random draws this round come from a secret stored with the deal (never
        # shown): drawn from anything players know, their bluffs and mixing could be replayed
        return {"t": "deal", "players": players, **payload, "seed": new_salt(rng)}

    # -- records ----------------------------------------------------------------------------------
    def records(self) -> list[Json]:
        """The table's game records in the ``liars replay`` format: one per match (set of seats).

        A round still under way is left out: its secrets are kept until it ends.  Only a table built
        with ``keep_history`` has them all.
        """
        if not self.keep_history:
            raise ValueError("this table state keeps no history; rebuild it with keep_history=True")
        out = []
        for match in self.matches:
            closed = self.status == TableStatus.ENDED or match is not self.match
            record = match.record(closed=closed)
            if not record.get("rounds") and not (match.over and match.pending is not None):
                continue  # nothing played at these seats (a game that ended at the seat change says so)
            record = {"game": self.game.name, **record}  # every record names its game
            record["names"] = {p: self.name(p) for p in match.players}
            out.append(record)
        return out
