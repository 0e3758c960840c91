"""A table's state as a pure function of its event log.

The service never changes a table except by appending an event and applying it here, and on start-up
it rebuilds every open table by applying its stored events in order — so a restart loses nothing:
the same serials, the same turn, the same stakes.  Events are plain JSON objects::

    {"t": "open", "host", "host_name", "rules", "seats", "computers": [[id, name, level], ...], "at"}
    {"t": "join", "player", "name", "at"}         {"t": "leave", "player", "at"}   (kick too)
    {"t": "deal", "players", "serials", "opener", "salt", "commitment", "slips"?, "at"}
    {"t": "act", "player", "bid": [q, d] | "challenge": true | "count": true, "timeout"?: true, "at"}
    {"t": "last", "at"}                             {"t": "end", "by", "reason", "at"}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.serial import (
    Action,
    Bid,
    CallCount,
    Challenge,
    Event,
    MakeBid,
    Outcome,
    Round,
    Rules,
    Serial,
    Session,
)
from core.serial.record import outcome_to_dict
from core.serial.serials import RandomSource

from .model import TableKey

__all__ = ["ENDED", "LOBBY", "PLAYING", "TableState", "action_from_event", "action_to_event"]

LOBBY, PLAYING, ENDED = "lobby", "playing", "ended"


def action_to_event(action: Action) -> dict[str, Any]:
    if isinstance(action, MakeBid):
        return {"t": "act", "player": action.player, "bid": action.bid.as_list()}
    if isinstance(action, Challenge):
        return {"t": "act", "player": action.player, "challenge": True}
    return {"t": "act", "player": action.player, "count": True}


def action_from_event(event: dict[str, Any], rules: Rules) -> Action:
    if "bid" in event:
        q, d = event["bid"]
        return MakeBid(event["player"], Bid(q, d, rules.rank_order))
    if event.get("challenge"):
        return Challenge(event["player"])
    return CallCount(event["player"])


@dataclass
class RoundLog:
    """What a game record keeps of one round."""

    serials: dict[str, str]
    opener: str
    salt: str
    commitment: str
    last_hand: bool = False
    actions: list[dict[str, Any]] = field(default_factory=list)

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "serials": self.serials,
            "opener": self.opener,
            "commitment": self.commitment,
            "salt": self.salt,
            "actions": self.actions,
        }
        if self.last_hand:
            out["last_hand"] = True
        return out


@dataclass
class SessionLog:
    players: list[str]
    slips: dict[str, list[str]] | None
    first_stake: int | None = None  # the stake carried into this session, when not the rules' own
    rounds: list[RoundLog] = field(default_factory=list)


class TableState:
    def __init__(self, table_id: int, key: TableKey, *, keep_history: bool = False) -> None:
        """``keep_history``: keep every round's log (for game records); a live table keeps only the
        round under way, so a long game does not grow in memory."""
        self.id = table_id
        self.key = key
        self.status = LOBBY
        self.host = ""
        self.rules: Rules = Rules()
        self.seat_limit = 12
        self.seats: list[str] = []
        self.names: dict[str, str] = {}
        self.computers: dict[str, str] = {}  # id -> level
        self.session: Session | None = None
        self.sessions: list[SessionLog] = []
        self.pending_leave: set[str] = set()
        self.last_declared = False
        self.opened_at = 0.0
        self.turn_started_at = 0.0
        self.rounds_counted = 0
        self.last_outcome: Outcome | None = None
        self.panels: dict[str, str] = {}
        self.keep_history = keep_history
        self._rounds_dealt = 0
        self.ended_reason = ""
        self.max_rounds = 0

    # -- derived ----------------------------------------------------------------------------------
    @property
    def round(self) -> Round | None:
        return self.session.round if self.session is not None else None

    @property
    def live_round(self) -> Round | None:
        r = self.round
        return r if r is not None and not r.is_over else None

    @property
    def humans(self) -> frozenset[str]:
        return frozenset(p for p in self.names if p not in self.computers)

    def is_computer(self, player: str) -> bool:
        return player in self.computers

    def name(self, player: str) -> str:
        return self.names.get(player, player)

    @property
    def round_number(self) -> int:
        """1-based number of the round under way (or last counted), across the table's sessions."""
        return self._rounds_dealt

    @property
    def current_log(self) -> RoundLog | None:
        if not self.sessions or not self.sessions[-1].rounds:
            return None
        return self.sessions[-1].rounds[-1]

    # -- the reducer ------------------------------------------------------------------------------
    def apply(self, event: dict[str, Any]) -> tuple[Event, ...]:
        """Apply one event.  Events were validated before they were stored; this only replays them."""
        kind = event["t"]
        at = float(event.get("at", 0.0))
        out: tuple[Event, ...] = ()
        if kind == "open":
            self.host = event["host"]
            self.names[self.host] = event.get("host_name", self.host)
            self.rules = Rules.from_dict(event["rules"])
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
            self.names[event["player"]] = event.get("name", event["player"])
            self.seats.append(event["player"])
        elif kind == "leave":
            player = event["player"]
            if self.status == LOBBY:
                self.seats.remove(player)
            else:
                self.pending_leave.add(player)
        elif kind == "deal":
            self._deal(event)
            self.status = PLAYING
            self.turn_started_at = at
        elif kind == "act":
            assert self.session is not None
            action = action_from_event(event, self.rules)
            out = self.session.apply(action)
            log = self.current_log
            assert log is not None
            log.actions.append({k: v for k, v in event.items() if k not in ("t", "at", "timeout")})
            self.turn_started_at = at
            round_ = self.session.round
            if round_ is not None and round_.outcome is not None:
                self.rounds_counted += 1
                self.last_outcome = round_.outcome
        elif kind == "last":
            self.last_declared = True
            if self.session is not None:
                self.session.declare_last_hand()
                log = self.current_log
                if log is not None and self.live_round is not None and not self.live_round.history:
                    log.last_hand = True
        elif kind == "end":
            self.status = ENDED
            self.ended_reason = event.get("reason", "")
        else:  # pragma: no cover - the service writes only the kinds above
            raise ValueError(f"unknown table event {kind!r}")
        return out

    def _deal(self, event: dict[str, Any]) -> None:
        players = list(event["players"])
        serials = {p: Serial.parse(s) for p, s in event["serials"].items()}
        if self.session is None or list(self.session.players) != players or "slips" in event:
            self.pending_leave.clear()
            self.seats = [p for p in self.seats if p in players] + [p for p in players if p not in self.seats]
            self.host = self.successor_host(players)
            session = self.new_session(players, event.get("slips"))
            first_stake = session.next_stake if session.next_stake != self.rules.stake else None
            self.session = session
            self.sessions.append(SessionLog(players, event.get("slips"), first_stake))
        log = RoundLog(
            serials={p: str(s) for p, s in serials.items()},
            opener=event["opener"],
            salt=event["salt"],
            commitment=event["commitment"],
        )
        round_ = self.session.deal(serials, event["opener"])
        assert round_.stake == event.get("stake", round_.stake), "the stored deal disagrees with the rules"
        log.last_hand = self.session.last_hand == len(self.session.outcomes) + 1
        if not self.keep_history:
            for s in self.sessions:
                s.rounds.clear()
            del self.sessions[:-1]
        self.sessions[-1].rounds.append(log)
        self._rounds_dealt += 1
        assert round_.opener == event["opener"]

    # -- sessions ---------------------------------------------------------------------------------
    def successor_host(self, players: list[str]) -> str:
        """The host, or if they have left, the first human still seated (else the first seat)."""
        if self.host in players:
            return self.host
        return next((p for p in players if p not in self.computers), players[0])

    def new_session(self, players: list[str], slips: dict[str, list[str]] | None) -> Session:
        """The session that deals the next round when the seats have changed.

        The table goes on: the stake the last round set (progressive stakes) and the later-opener
        rule carry over — if the player due to open has left, the next seat clockwise that is still
        here opens.  A SLIPS table deals new slips (ten more rounds) for the new seats.
        """
        parsed = {p: [Serial.parse(s) for s in slips[p]] for p in players} if slips is not None else None
        session = Session(self.rules, players, host=self.successor_host(players), rng=_NoDraw(), slips=parsed)
        old = self.session
        if old is not None:
            session.next_stake = old.next_stake
            if old.next_opener is not None:
                ring = list(old.players)
                start = ring.index(old.next_opener)
                clockwise = [ring[(start + i) % len(ring)] for i in range(len(ring))]
                session.next_opener = next((p for p in clockwise if p in players), None)
        if self.last_declared:
            session.declare_last_hand()
        return session

    def preview_deal(
        self, players: list[str], serials: dict[str, str], slips: dict[str, list[str]] | None, rng: RandomSource
    ) -> tuple[str, int]:
        """(opener, stake) of the next round, as :meth:`apply` will deal it (``rng`` draws a random opener)."""
        if self.session is not None and list(self.session.players) == players and slips is None:
            session = self.session
        else:
            session = self.new_session(players, slips)
        session.rng = rng
        try:
            opener = session.opener_for_next_round({p: Serial.parse(s) for p, s in serials.items()})
        finally:
            session.rng = _NoDraw()
        return opener, session.stake_for_next_round()

    # -- records ----------------------------------------------------------------------------------
    def records(self) -> list[dict[str, Any]]:
        """The table's game records in the ``liars replay`` format: one per session of fixed seats.

        A round still under way is left out: its serials are secret until the count.  So is a SLIPS
        session still under way: its slips hold the serials of the rounds to come.  Only a table built
        with ``keep_history`` has them all.
        """
        if not self.keep_history:
            raise ValueError("this table state keeps no history; rebuild it with keep_history=True")
        out = []
        for s in self.sessions:
            rounds = list(s.rounds)
            if s is self.sessions[-1] and self.live_round is not None:
                rounds = rounds[:-1]
            live = s is self.sessions[-1] and self.status != ENDED and not (self.session and self.session.over)
            if not rounds or (s.slips is not None and live):
                continue
            rec: dict[str, Any] = {
                "rules": self.rules.to_dict(),
                "players": s.players,
                "host": self.host if self.host in s.players else s.players[0],
                "names": {p: self.name(p) for p in s.players},
                "rounds": [r.to_record() for r in rounds],
            }
            if s.first_stake is not None:
                rec["first_stake"] = s.first_stake
            if s.slips is not None:
                rec["slips"] = s.slips
                for r in rec["rounds"]:
                    r.pop("serials", None)
            out.append(rec)
        return out

    def round_record(self, outcome: Outcome) -> dict[str, Any]:
        log = self.current_log
        assert log is not None
        return {"round": self.round_number, **log.to_record(), "outcome": outcome_to_dict(outcome)}


class _NoDraw:
    """Tables deal through the service, which records every draw; the session itself never draws."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        raise RuntimeError("table sessions are dealt explicitly")
