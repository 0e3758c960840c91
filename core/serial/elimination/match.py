"""The elimination format at fixed seats: :class:`EliminationMatch` (a :class:`core.game.Match`).

Each round is an ordinary serial round played by a :class:`~core.serial.game.SerialMatch` at the
players still in (so dealing, fairness commitments, parsing, forms, odds and timeouts are the serial
game's own); this match decides, after each count, who leaves safe (:mod:`.rules`), starts a new
inner match at the players left (which carries the opener on: the next player clockwise still in,
when the rule names the player who just left), and names the payer.  Round money is never settled:
a decided round's :class:`~core.game.Settled` has no ledger entries, except the last, which carries
the dinner.

The table's seats may change between rounds (a player leaves the table): the new match carries on
who left safe, the round numbers and the opener; a player still in who left walks out on dinner and
pays (see :mod:`.rules`), and the new match starts over with a :attr:`pending` settlement.

Deal payloads are the serial game's (for the players still in); action payloads too.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import GameError, NotYourTurn, RoundOver
from ...game import Checked, Decision, Form, Json, Option, Panel, RandomSource, Say, SayKind, Settled, Step, units
from ..asks import private_read
from ..game import SerialMatch, action_to_json
from ..players import get_strategy
from ..record import outcome_to_dict
from ..round import Round
from ..rules import Format, Rules
from ..scoring import Transfer
from ..text import count_picture_words
from ..view import seat_view
from . import text as E
from .players import eliminating
from .rules import LeftSafe, NoLastHand, dinner, leaver, opener_after, round_summary

__all__ = ["EliminationMatch", "round_rules"]


def round_rules(rules: Rules) -> Rules:
    """The rules each round is played under: the table's, at one unit, with no progressive stakes
    (money never moves per round; the bonuses stay on so a skunk is still a skunk)."""
    return dataclasses.replace(rules, format=Format.ROUNDS, stake=1, progressive_stakes=False,
                               last_hand_double=False)


class EliminationMatch:
    """Who pays for dinner, at fixed seats."""

    def __init__(self, rules: Rules, players: Sequence[str], *, host: str,
                 previous: EliminationMatch | None = None) -> None:
        self.rules = rules
        self._round_rules = round_rules(rules)
        self._players = tuple(players)
        self.host = host if host in players or not players else players[0]  # (none: everyone left, it settles)
        self.safe: list[str] = []  # who left safe, in order (seated or not)
        self.walked: list[str] = []  # who left the table while still in
        self.payer: str | None = None
        self.inner: SerialMatch | None = None  # the serial match of the players still in
        self._previous_inner: SerialMatch | None = None  # carries the opener and round numbers on
        self.logs: list[Json] = []  # this match's rounds (the inner matches' logs, with who left)
        self.first_round = 1
        self.pending: Step | None = None
        if previous is not None:
            self._carry_on(previous)
        self._safe_before = list(self.safe)

    def _carry_on(self, previous: EliminationMatch) -> None:
        self.safe = list(previous.safe)
        self.walked = list(previous.walked)
        self.payer = previous.payer
        self._previous_inner = previous.inner or previous._previous_inner
        self.first_round = previous.first_round + len(previous.logs)
        if self.payer is not None:
            return
        gone = [p for p in previous.still_in if p not in self._players]
        if gone:  # walked out on dinner: the first pays, the game ends here
            self.walked += gone
            if not self.safe and not self.still_in:  # everyone gone before anyone left safe: no one to pay
                raise GameError("nobody is left to pay for dinner, nor to be paid: the table closes")
            self.payer = gone[0]
            self.pending = self._settle_walkout()

    # -- state ------------------------------------------------------------------------------------
    @property
    def players(self) -> tuple[str, ...]:
        return self._players

    @property
    def took_part(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys([*self._players, *self.safe, *self.walked]))

    @property
    def still_in(self) -> list[str]:
        """The players still in the game, in seat order (the payer, once the game is over)."""
        return [p for p in self._players if p not in self.safe and p not in self.walked]

    @property
    def over(self) -> bool:
        return self.payer is not None

    @property
    def settles_at_end(self) -> bool:
        return self.rules.stake > 0  # the dinner, paid by the last one left

    @property
    def decides_at_end(self) -> bool:
        return True  # who pays for dinner, at any stake (at 0 it is the whole of the result)

    @property
    def live(self) -> bool:
        return self.inner is not None and self.inner.live

    @property
    def live_round(self) -> Round | None:
        """The round under way, at the players still in (None between rounds)."""
        return self.inner.live_round if self.inner is not None else None

    @property
    def to_act(self) -> str | None:
        return self.inner.to_act if self.inner is not None else None

    @property
    def end_text(self) -> str:
        if self.payer is None:
            return ""
        return E.end_text(self.payer)

    @property
    def round_number(self) -> int:
        return self.first_round + len(self.logs) - 1

    def _payees(self) -> list[str]:
        """Everyone who played and did not walk out, but the payer: who left safe, then who is still in."""
        return [*self.safe, *(p for p in self.still_in if p != self.payer)]

    def _inner_for_next(self) -> SerialMatch:
        players = self.still_in
        inner = self.inner
        if inner is not None and list(inner.players) == players:
            return inner  # the same players: a push is replayed, or the first round
        previous = inner or self._previous_inner
        nxt = SerialMatch(self._round_rules, players, host=self.host if self.host in players else players[0],
                          previous=previous)
        if previous is None:
            nxt.first_round = self.first_round
        return nxt

    def _live(self) -> SerialMatch:
        if self.inner is None or not self.inner.live:
            raise RoundOver("no round is under way")
        return self.inner

    # -- dealing ----------------------------------------------------------------------------------
    def deal(self, rng: RandomSource) -> Json:
        if self.over:
            raise RoundOver("the elimination is over: one player is left")
        if self.live:
            raise GameError("a round is under way")
        self.inner = self._inner_for_next()
        return self.inner.deal(rng)

    def apply_deal(self, deal: Mapping[str, Any]) -> Step:
        if self.over:
            raise RoundOver("the elimination is over: one player is left")
        self.inner = self._inner_for_next()
        step = self.inner.apply_deal(deal)
        log = self.inner.logs[-1]
        log["players"] = list(self.inner.players)
        self.logs.append(log)
        return step

    # -- acting -----------------------------------------------------------------------------------
    def _not_safe(self, player: str) -> None:
        if player in self.safe:
            raise LeftSafe(player)

    def parse(self, player: str, verb: str, words: Sequence[str], options: Mapping[str, Option]) -> Json:
        self._not_safe(player)
        return self._live().parse(player, verb, words, options)

    def check(self, action: Mapping[str, Any]) -> Checked:
        self._not_safe(str(action.get("player", "")))
        return self._live().check(action)

    def apply(self, action: Checked | Mapping[str, Any]) -> Step:
        inner = self._live()
        step = inner.apply(action)
        if not step.settled:
            return step
        return self._decide(inner, step)

    def _decide(self, inner: SerialMatch, step: Step) -> Step:
        """After a count: who leaves safe (or a push), and the payer when one is left."""
        outcome, round_ = inner.last_outcome, inner.round
        assert outcome is not None and round_ is not None and inner.session is not None
        log = self.logs[-1]
        in_round = list(inner.players)
        leaves = leaver(outcome, in_round)
        if leaves is None:
            log["push"] = True
            inner.session.next_opener = round_.opener  # the same round, played again
        else:
            log["leaves"] = leaves
            self.safe.append(leaves)
        still = self.still_in
        says: list[Say] = []
        net: dict[str, int] = {}
        out: Json = {**round_summary(outcome_to_dict(outcome)), "format": "elimination", "stake": self.rules.stake,
                     "players": in_round, "transfers": []}
        if leaves is not None:
            out["leaves"] = leaves
        else:
            out["push"] = True
        # who opens next by the elimination's rule (the serial game's would name who just left safe)
        out["next_opener"] = opener_after(in_round, round_.opener, outcome, leaves) if len(still) > 1 else None
        if leaves is not None and len(still) == 1:
            self.payer = still[0]
            log["payer"] = self.payer
            transfers = dinner(self.payer, self._payees(), self.rules.stake)
            net = _net(self.payer, self._payees(), transfers)
            out.update(payer=self.payer, transfers=_transfers_json(transfers), net=net)  # the picture's net column
            says.append(Say(E.dinner_text(self.payer, transfers, self.rules.stake), SayKind.END))
        [settled] = step.settled
        record: Json = {**settled.record, **{k: log[k] for k in ("players", "leaves", "push", "payer") if k in log},
                  "outcome": out}
        challengers = round_.challengers
        last = challengers[-1] if challengers else None
        text = E.result_text(outcome, self.rules, log["salt"], log["commitment"], last, leaves, still)
        picture = {"game": "serial", "record": record, "last_challenger": last,  # its words name digits as the table
                   "words": E.picture_words(count_picture_words(out, self.rules.rank_order, record.get("round")),
                                            leaves, last=self.payer is not None)}
        ranking = ((leaves,), tuple(p for p in in_round if p != leaves)) if leaves is not None else ()
        result = Settled(record=record, outcome=out, net=net, ranking=ranking)
        return Step((Say(text, SayKind.RESULT, picture=picture), *says), (result,), step.note)

    def _settle_walkout(self) -> Step:
        assert self.payer is not None
        transfers = dinner(self.payer, self._payees(), self.rules.stake)
        walked = list(self.walked)
        # the other walkers, who neither pay nor are paid, named at 0: they played it (`stats` said they had not)
        net = {**_net(self.payer, self._payees(), transfers), **{p: 0 for p in walked if p != self.payer}}
        out: Json = {"format": "elimination", "complete": True, "walked_out": walked, "payer": self.payer,
                     "stake": self.rules.stake, "transfers": _transfers_json(transfers), "net": net}
        record: Json = {"format": "elimination", "walked_out": walked, "payer": self.payer, "actions": [],
                        "outcome": out}
        says = (Say(E.walked_text(walked, self.payer), SayKind.NOTE),
                Say(E.dinner_text(self.payer, transfers, self.rules.stake, walked_out=True), SayKind.END))
        return Step(says, (Settled(record=record, outcome=out, net=net),))

    def timeout_action(self, gone: bool = False) -> Json:
        return self._live().timeout_action(gone)

    def computer_decision(self, player: str, level: str) -> Decision:
        round_ = self._live().live_round
        if round_ is None:
            raise RoundOver("no round is under way")
        if round_.to_act != player:
            raise NotYourTurn(player, round_.to_act or "")
        view = seat_view(round_, player)  # frozen: the round may move on while the strategy thinks

        def decision(rng: random.Random) -> Json:
            return action_to_json(eliminating(get_strategy(level)).decide(view, rng))

        return decision

    def declare_last(self) -> str:
        raise NoLastHand()

    def last_is_next(self) -> bool:
        return False  # (no last hand)

    # -- what players see -------------------------------------------------------------------------
    def panel(self, seats: str, note: str = "") -> Panel:
        standing = E.standing_lines(self.still_in, self.safe)
        if self.inner is None or self.inner.round is None:
            return Panel("\n".join([f"Seats: {seats}", *standing]))
        drawn = self.inner.panel(seats, note)
        lines = drawn.text.split("\n")
        lines[0] = E.panel_head(self.round_number, len(self.inner.players))
        lines[2:2] = standing
        return Panel("\n".join(lines), drawn.controls)

    def turn_text(self) -> str | None:
        return self.inner.turn_text() if self.inner is not None else None

    def leave_cost(self, player: str, leaving: Collection[str] = ()) -> str:
        if self.over or player not in self.still_in:
            return ""  # one who left safe is still paid
        with_them = [p for p in self.still_in if p in leaving and p != player]  # still in, leaving too
        if with_them:
            pays = (f"pays it, {units(self.rules.stake)} to each player who stays" if self.rules.stake
                    else "is its payer (at stake 0 nothing is written)")
            return (f"If you are still in when this round ends, you walk out on dinner with {E.names(with_them)}: "
                    f"the first of you in seat order {pays}, and the others neither pay nor are paid.")
        owed = self.rules.stake * (len(self.safe) + len(self.still_in) - 1)
        when = "If you are still in when this round ends" if self.live else "Still in the game"
        if not owed:
            return f"{when}, you walk out on dinner and are its payer (at stake 0 nothing is written)."
        return (f"{when}, you walk out on dinner and pay it: {units(owed)} "
                f"({units(self.rules.stake)} to each other player).")

    def private_text(self, player: str) -> str | None:
        return self.inner.private_text(player) if self.inner is not None else None

    def read(self, player: str, verb: str) -> str:
        """``odds``, or a ``hint`` from the hard player adapted to the elimination."""
        self._not_safe(player)
        inner = self._live()
        return private_read(inner.live_round, player, inner.players, verb, adapt=eliminating)

    def form(self, player: str, verb: str) -> Form:
        if player in self.safe:
            return Form(verb, verb.capitalize(), refusal=LeftSafe(player).message)
        if self.inner is None:
            raise RoundOver("no round is under way")
        return self.inner.form(player, verb)

    # -- records ----------------------------------------------------------------------------------
    def record(self, closed: bool = False) -> Json:
        logs = self.logs[:-1] if self.live else list(self.logs)
        out: Json = {"format": "elimination", "rules": self.rules.to_dict(), "players": list(self._players),
                     "host": self.host}
        if self._safe_before:
            out["safe"] = list(self._safe_before)
        out["rounds"] = [dict(log) for log in logs]
        if self.walked:
            out["walked_out"] = list(self.walked)
        if self.payer is not None:
            out["payer"] = self.payer
        return out


def _transfers_json(transfers: Sequence[Transfer]) -> list[Json]:
    return [{"from": t.payer, "to": t.payee, "units": t.units} for t in transfers]


def _net(payer: str, payees: Sequence[str], transfers: Sequence[Transfer]) -> dict[str, int]:
    """The dinner's net, naming the payer and every payee even at stake 0 (each 0 then): who took part in a
    finished game is read from its net (``stats``), while a 0 writes no ledger entry."""
    net: dict[str, int] = dict.fromkeys([payer, *payees], 0)
    for t in transfers:
        net[t.payer] = net.get(t.payer, 0) - t.units
        net[t.payee] = net.get(t.payee, 0) + t.units
    return net


if TYPE_CHECKING:  # it implements the seam's protocol
    from ...game import Match

    _match: Match = EliminationMatch(Rules(), ("a", "b"), host="a")
