"""The serial game's match behind the game seam (:mod:`core.game`): :class:`SerialMatch` (the game
itself, :data:`~core.serial.plugin.SERIAL`, is in ``plugin.py``).

A match is a :class:`~core.serial.session.Session` at fixed seats.  When the seats change the table
starts a new match with ``previous`` set, and what the table carries on is decided here: the stake
the last round set (progressive stakes), the later-opener rule (if the player due to open has left,
the next seat clockwise still here opens), and a declared last hand.  A SLIPS table deals new slips.

Deal payloads (stored in the table's log; ``apply_deal`` never draws)::

    {"serials": {player: "LB 06742088 A"}, "opener", "stake", "salt", "commitment", "slips"?: {player: [15]}}

Action payloads are the record format's: ``{"player", "bid": [q, d]}``, ``{"player", "challenge": true}``,
``{"player", "count": true}``.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ..errors import ActionParseError, GameError, NotYourTurn, RoundOver, UnknownPlayer, quoted
from ..fairness import new_salt
from ..game import Checked, Decision, Form, Json, Option, Panel, RandomSource, Say, SayKind, Settled, Step, int_option
from . import text as T
from .asks import private_read, raise_form
from .bids import MAX_PLAYERS, MIN_PLAYERS, Bid
from .errors import BidParseError, DigitNotInPlay
from .fairness import commitment
from .players import get_strategy
from .record import outcome_to_dict, parse_action
from .round import (
    Action,
    BidPlaced,
    Challenge,
    ChallengedAllAround,
    ChallengeMade,
    Counted,
    MakeBid,
    Round,
    timeout_action,
)
from .rules import Rules, SerialSource
from .scoring import Outcome
from .serials import Serial, deal_serial, deal_slip, parse_fitting
from .session import Session
from .view import seat_view

__all__ = ["SerialMatch", "action_to_json"]


def action_to_json(action: Action) -> Json:
    if isinstance(action, MakeBid):
        return {"player": action.player, "bid": action.bid.as_list()}
    if isinstance(action, Challenge):
        return {"player": action.player, "challenge": True}
    return {"player": action.player, "count": True}


def _serial(text: str, rules: Rules) -> Serial:
    """A stored serial, checked against the table's format (a reduced format deals short serials)."""
    try:
        return parse_fitting(text, rules.serial_length, rules.digits)
    except ValueError as exc:
        raise GameError(str(exc)) from None


_PAYLOAD = ("player", "bid", "challenge", "count")  # what an action's stored payload holds


class _NoDraw:
    """A match is dealt through :meth:`SerialMatch.deal`, which records every draw; the session never draws."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        raise RuntimeError("table sessions are dealt explicitly")


class SerialMatch:
    """The serial game at fixed seats (one :class:`Session`)."""

    def __init__(self, rules: Rules, players: Sequence[str], *, host: str, previous: SerialMatch | None = None) -> None:
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise GameError(f"a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players")
        self.rules = rules
        self._players = tuple(players)
        self.host = host if host in players else players[0]
        self.session: Session | None = None
        self.logs: list[Json] = []  # each dealt round: serials, opener, salt, commitment, actions
        self.first_round = 1
        self.carry_stake: int | None = None
        self.pending: Step | None = None  # a serial session never starts over
        self.carry_opener: str | None = None
        self.last_declared = False
        self._dealt: tuple[tuple[tuple[str, str], ...], dict[str, Serial]] | None = None  # see apply_deal()
        if previous is not None:
            self.first_round = previous.first_round + len(previous.logs)
            self.last_declared = previous.last_declared
            old = previous.session
            if old is not None:
                self.carry_stake = old.next_stake
                if old.next_opener is not None:
                    ring = list(old.players)
                    start = ring.index(old.next_opener)
                    clockwise = [ring[(start + i) % len(ring)] for i in range(len(ring))]
                    self.carry_opener = next((p for p in clockwise if p in players), None)

    # -- state ------------------------------------------------------------------------------------
    @property
    def players(self) -> tuple[str, ...]:
        return self._players

    @property
    def took_part(self) -> tuple[str, ...]:
        return self._players  # (a seat change starts another match: each round's result is its own)

    @property
    def round(self) -> Round | None:
        return self.session.round if self.session is not None else None

    @property
    def live_round(self) -> Round | None:
        r = self.session.round if self.session is not None else None
        return r if r is not None and not r.is_over else None

    @property
    def last_outcome(self) -> Outcome | None:
        return self.session.outcomes[-1] if self.session is not None and self.session.outcomes else None

    @property
    def live(self) -> bool:
        return self.live_round is not None

    @property
    def over(self) -> bool:
        return self.session is not None and self.session.over

    @property
    def settles_at_end(self) -> bool:
        return False  # every round settles on its own

    @property
    def decides_at_end(self) -> bool:
        return False

    @property
    def to_act(self) -> str | None:
        r = self.session.round if self.session is not None else None
        return r.to_act if r is not None else None  # None once the round is over

    @property
    def end_text(self) -> str:
        return "the session is complete."

    @property
    def round_number(self) -> int:
        """The table's number of the round under way (or last dealt), across its matches."""
        return self.first_round + len(self.logs) - 1

    def _new_session(self, slips: Mapping[str, Sequence[str]] | None) -> Session:
        length = self.rules.serial_length
        parsed = {p: [Serial.parse(s, length) for s in slips[p]] for p in self._players} if slips is not None else None
        session = Session(self.rules, self._players, host=self.host, rng=_NoDraw(), slips=parsed)
        if self.carry_stake is not None:
            session.next_stake = self.carry_stake
        if self.carry_opener is not None:
            session.next_opener = self.carry_opener
        if self.last_declared:
            session.declare_last_hand()
        return session

    # -- dealing ----------------------------------------------------------------------------------
    def deal(self, rng: RandomSource) -> Json:
        players, rules = self._players, self.rules
        payload: Json = {}
        session = self.session
        if self.rules.serial_source is SerialSource.SLIPS:
            if session is None:
                slips = {p: [str(s) for s in deal_slip(rng, rules.serial_length, rules.digits)] for p in players}
                payload["slips"] = slips
                session = self._new_session(slips)
            assert session.slips is not None
            pos = session.slip_position()
            serials = {p: str(session.slips[p][pos]) for p in players}
            drawn = {p: _serial(s, rules) for p, s in serials.items()}
        else:
            drawn = {p: deal_serial(rng, rules.serial_length, rules.digits) for p in players}
            serials = {p: str(s) for p, s in drawn.items()}
            if session is None:
                session = self._new_session(None)
        session.rng = rng
        try:
            opener = session.opener_for_next_round(drawn)
        finally:
            session.rng = _NoDraw()
        salt = new_salt(rng)
        payload.update(serials=serials, opener=opener, stake=session.stake_for_next_round(), salt=salt,
                       commitment=commitment(players, serials, salt))
        self._dealt = (tuple(serials.items()), drawn)  # apply_deal() of these serials need not parse them
        return payload

    def apply_deal(self, deal: Mapping[str, Any]) -> Step:
        if self.session is None:
            self.session = self._new_session(deal.get("slips"))
        session = self.session
        dealt, self._dealt = self._dealt, None
        if dealt is not None and dealt[0] == tuple(deal["serials"].items()):
            serials = dealt[1]  # drawn by deal() here: the stored texts are theirs
        else:
            serials = {p: _serial(s, self.rules) for p, s in deal["serials"].items()}
        round_ = session.deal(serials, deal["opener"])
        if "stake" in deal and round_.stake != deal["stake"]:
            raise GameError("the stored deal disagrees with the rules' stake")
        log: Json = {"serials": {p: str(s) for p, s in serials.items()}, "opener": deal["opener"],
                     "commitment": deal["commitment"], "salt": deal["salt"], "actions": []}
        if session.last_hand == len(session.outcomes) + 1:
            log["last_hand"] = True
        self.logs.append(log)
        n = self.round_number
        says = [Say(T.deal_text(round_, n, deal["commitment"]), SayKind.DEAL)]
        says += [Say(T.serial_text(round_, p, n, deal["commitment"]), SayKind.PRIVATE, to=p) for p in self._players]
        return Step(tuple(says))

    # -- acting -----------------------------------------------------------------------------------
    def parse(self, player: str, verb: str, words: Sequence[str], options: Mapping[str, Option]) -> Json:
        if verb == "challenge":
            return {"player": player, "challenge": True}
        if verb == "count":
            return {"player": player, "count": True}
        if verb != "bid":
            raise ActionParseError(f"{quoted(verb)} is not a move of this game")
        if "quantity" in options or "digit" in options:  # 0 is a digit: presence, never truth
            if " ".join(words).strip() != "":
                raise BidParseError("give the bid as a quantity and a digit or in words, not both")
            try:
                q, d = int_option(options, "quantity"), int_option(options, "digit")
            except ValueError:
                raise BidParseError("a bid is a quantity and a digit, like `bid 5 7`") from None
            if q is None or d is None:
                raise BidParseError("a bid is a quantity and a digit, like `bid 5 7`")
            if not 0 <= d <= 9:
                raise BidParseError("the digit must be 0 to 9")
            if d not in self.rules.digit_set:
                raise DigitNotInPlay(d, self.rules.digit_set)
            if q < 1:
                raise BidParseError("a bid is for at least one copy")
            return {"player": player, "bid": [q, d]}
        said = " ".join(words).strip()
        if not said:
            raise BidParseError("say what you bid, like `bid 5 7` or `bid five sevens`")
        return {"player": player, "bid": Bid.parse(said, self.rules.rank_order).as_list()}

    def _action(self, action: Mapping[str, Any]) -> tuple[Round, Action]:
        round_ = self.live_round
        if round_ is None:
            raise RoundOver("no round is under way")
        act = parse_action(action, self.rules)
        if act.player not in self._players:
            raise UnknownPlayer(act.player)
        return round_, act

    def check(self, action: Mapping[str, Any]) -> Checked:
        round_, act = self._action(action)
        payload = {k: list(v) if isinstance(v, list | tuple) else v for k, v in action.items() if k in _PAYLOAD}
        return Checked(payload, round_.check(act))  # the round's checked action: apply() need not check again

    def apply(self, action: Checked | Mapping[str, Any]) -> Step:
        checked = action if isinstance(action, Checked) else self.check(action)
        round_ = self.live_round
        assert round_ is not None and self.session is not None
        events = self.session.apply(checked.move)
        log = self.logs[-1]
        log["actions"].append(dict(checked.action))
        note = challenged = ""
        for e in events:
            if isinstance(e, BidPlaced):
                note = f"{T.mention(e.player)} {'rebid' if e.rebid else 'bid'} {e.bid}."
            elif isinstance(e, ChallengeMade):
                challenged = f"{T.mention(e.player)} challenged {e.bid}"
                note = f"{challenged}."
            elif isinstance(e, ChallengedAllAround) and e.may_rebid:  # named with the challenge that completed it
                note = f"{challenged} — challenged all around." if challenged else f"{e.bid} is challenged all around."
        counted = [e.outcome for e in events if isinstance(e, Counted)]
        if not counted:
            return Step(note=note)
        return self._settle(round_, counted[0], log, note)

    def _settle(self, round_: Round, outcome: Outcome, log: Json, note: str) -> Step:
        out = outcome_to_dict(outcome)
        record = {"round": self.round_number, **log, "outcome": out}
        challengers = round_.challengers
        last = challengers[-1] if challengers else None
        text = T.count_text(outcome, self.rules, log["salt"], log["commitment"], last)
        winners = tuple(p for p in self._players if outcome.net.get(p, 0) > 0)
        even = tuple(p for p in self._players if outcome.net.get(p, 0) == 0)
        losers = tuple(p for p in self._players if outcome.net.get(p, 0) < 0)
        ranking = tuple(g for g in (winners, even, losers) if g) if winners or losers else ()
        picture = {"game": "serial", "record": record, "last_challenger": last,  # its words name digits as the table
                   "words": T.count_picture_words(out, self.rules.rank_order, self.round_number)}
        settled = Settled(record=record, outcome=out, net=dict(outcome.net), ranking=ranking)
        return Step((Say(text, SayKind.RESULT, picture=picture),), (settled,), note)

    def timeout_action(self, gone: bool = False) -> Json:
        """(A timed-out player challenges, or opens with the least bid: ``gone`` changes nothing.)"""
        round_ = self.live_round
        if round_ is None:
            raise RoundOver("no round is under way")
        return action_to_json(timeout_action(round_))

    def computer_decision(self, player: str, level: str) -> Decision:
        round_ = self.live_round
        if round_ is None:
            raise RoundOver("no round is under way")
        if round_.to_act != player:
            raise NotYourTurn(player, round_.to_act or "")
        view = seat_view(round_, player)  # frozen: the round may move on while the strategy thinks

        def decision(rng: random.Random) -> Json:
            return action_to_json(get_strategy(level).decide(view, rng))

        return decision

    def last_is_next(self) -> bool:
        session = self.session
        return session is not None and session.last_hand_if_declared() > len(session.outcomes) + 1

    def declare_last(self) -> str:
        self.last_declared = True
        if self.session is None:
            return "📣 The next round is the last hand."
        live = self.live_round
        number = self.session.declare_last_hand()
        if live is not None and not live.history and self.logs:
            self.logs[-1]["last_hand"] = True
        double = " at double stake" if self.rules.last_hand_double else ""
        return f"📣 Round {self.first_round + number - 1} is the last hand{double}."

    # -- what players see -------------------------------------------------------------------------
    def panel(self, seats: str, note: str = "") -> Panel:
        round_ = self.round
        if round_ is None:
            return Panel(f"Seats: {seats}")
        lines, controls = T.panel_lines(round_, self.round_number, seats, note)
        return Panel("\n".join(lines), controls)

    def turn_text(self) -> str | None:
        round_ = self.live_round
        if round_ is None or round_.to_act is None:
            return None
        return T.turn_text(round_, self.round_number)

    def leave_cost(self, player: str, leaving: Collection[str] = ()) -> str:
        return ""  # each round settles on its own: leaving after it costs nothing more

    def private_text(self, player: str) -> str | None:
        round_ = self.live_round
        if round_ is None or player not in self._players:
            return None
        return T.serial_text(round_, player, self.round_number, self.logs[-1]["commitment"], reminder=True)

    def read(self, player: str, verb: str) -> str:
        return private_read(self.live_round, player, self._players, verb)

    def form(self, player: str, verb: str) -> Form:
        """The Raise… form (whatever ``verb`` opened it: the panel's button or ``bid`` typed bare)."""
        return raise_form(self.live_round, player, self._players, self.rules.rank_order)

    # -- records ----------------------------------------------------------------------------------
    def record(self, closed: bool = False) -> Json:
        logs = self.logs[:-1] if self.live else list(self.logs)
        slips = self.rules.serial_source is SerialSource.SLIPS
        if slips and not closed and self.session is not None and not self.session.over:
            logs = []  # its slips hold the serials of the rounds to come
        out: Json = {
            "rules": self.rules.to_dict(),
            "players": list(self._players),
            "host": self.host,
            "rounds": [dict(log) for log in logs],
        }
        if self.carry_stake is not None and self.carry_stake != self.rules.stake:
            out["first_stake"] = self.carry_stake
        if self.session is not None and self.session.slips is not None:
            out["slips"] = {p: [str(s) for s in self.session.slips[p]] for p in self._players}
            for r in out["rounds"]:
                r.pop("serials", None)
        return out
