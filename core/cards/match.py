"""A game of cards across rounds: who is still in, the passes, who opens, the payments, the record.

Each round is a :class:`~core.cards.round.Round` at the players still in.  A challenge knocks one
player out; its winner opens the next round with a fresh deck.  The game ends when one player is left,
or — :attr:`CardsEngine.abandoned` — when a seat change leaves nobody still in it (every player still in
left at once): then it has no winner, and nobody is paid at its end (a newcomer seated at that change
does not inherit it: they never played it).

Payout (RULES.md §2 "Stakes"): ``winner`` — at the end every other player (and every ``forfeit``, a
player who left the table during the game) pays the winner the stake; ``knockout`` — at each challenge
the player knocked out pays the challenge's winner the stake at once (a player who leaves pays nothing).

A match can begin part-way through a game (the table's seats changed): ``out`` lists the players
already knocked out, in order (seated or not), ``passed`` those who have used their pass, ``forfeits``
the leavers who still owe the winner, ``opener`` who opens next.  Records carry the same fields.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ActionParseError, GameError, RoundOver, UnknownMove, quoted, unknown_kind
from .cards import Card, full_deck, parse_cards
from .declarations import Declaration
from .round import Action, Challenge, Challenged, Declare, Discard, Event, Pass, Round, Take
from .rules import Rules

__all__ = ["CardsEngine", "Transfer", "action_from_json", "action_to_json"]


@dataclass(frozen=True, slots=True)
class Transfer:
    payer: str
    payee: str
    units: int

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.payer, "to": self.payee, "units": self.units}


def action_to_json(action: Action) -> dict[str, Any]:
    if isinstance(action, Declare):
        return {"player": action.player, "declare": action.declaration.to_dict()}
    if isinstance(action, Discard):
        return {"player": action.player, "discard": [str(c) for c in action.cards]}
    kind = {Take: "take", Challenge: "challenge", Pass: "pass"}[type(action)]
    return {"player": action.player, kind: True}


MOVE_KINDS = ("declare", "take", "discard", "challenge", "pass")


class NewerAction(ActionParseError, UnknownMove):
    """An action payload holding none of the card game's kinds of move (a newer version's)."""


def action_from_json(data: Any) -> Action:
    """An action payload (as records and the table store them); raises :class:`ActionParseError`."""
    if not isinstance(data, Mapping) or not isinstance(data.get("player"), str):
        raise ActionParseError(f"an action is an object with a 'player': {quoted(data)}")
    player = data["player"]
    kinds = [k for k in MOVE_KINDS if k in data]
    if unknown_kind(data, MOVE_KINDS):
        raise NewerAction(f"an action of a kind this version does not know (it knows {', '.join(MOVE_KINDS)}): "
                          f"{quoted(sorted(data))}")
    if len(kinds) != 1:
        raise ActionParseError(f"an action has one of declare, take, discard, challenge, pass: {quoted(dict(data))}")
    kind = kinds[0]
    if kind == "declare":
        return Declare(player, Declaration.from_json(data["declare"]))
    if kind == "discard":
        cards = data["discard"]
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards) or len(cards) > 5:
            raise ActionParseError(f'a discard lists up to five cards like ["JD", "3H"], not {quoted(cards)}')
        return Discard(player, tuple(parse_cards(cards)))
    if data[kind] is not True:
        raise ActionParseError(f"'{kind}' must be true in {quoted(dict(data))}")
    if kind == "take":
        return Take(player)
    return Challenge(player) if kind == "challenge" else Pass(player)


class CardsEngine:
    """One game at fixed seats: rounds until one player is left.  The card game's engine, which its
    :class:`~core.cards.game.CardsMatch` (the seam's :class:`core.game.Match`) drives."""

    def __init__(
        self,
        rules: Rules,
        players: Sequence[str],
        *,
        out: Sequence[str] = (),
        passed: Sequence[str] = (),
        forfeits: Sequence[str] = (),
        opener: str | None = None,
        abandoned: bool = False,
    ) -> None:
        if not players or len(set(players)) != len(players) or len({*players, *out, *forfeits}) < 2:
            # a game carried on at one seat (everyone else left) counts those who left: it is over at once
            raise ValueError("a game of cards needs at least two distinct players")
        self.rules = rules
        self.players: tuple[str, ...] = tuple(players)
        self.out: list[str] = list(dict.fromkeys(out))
        self.forfeits: list[str] = [p for p in dict.fromkeys(forfeits) if p not in self.players]
        self.start_out = list(self.out)
        self.start_passed = [p for p in dict.fromkeys(passed) if p in self.players] if rules.pass_ else []
        self.passes: set[str] = set(self.players) - set(self.start_passed) if rules.pass_ else set()
        live = self.live_players
        if opener is not None and opener not in live:
            opener = next((p for p in self._after(opener) if p in live), None) if opener in self.players else None
        self.next_opener: str | None = opener if len(live) > 1 else None
        self.round: Round | None = None
        self.rounds: list[dict[str, Any]] = []  # records of the rounds, the one under way last
        self.transfers: list[Transfer] = []
        self.winner: str | None = live[0] if len(live) == 1 else None
        #: nobody still in who played it (everyone still in left at the seat change that made this engine, which
        #: says so: a newcomer seated then is not one): over, no winner
        self.abandoned = abandoned or not live
        if self.abandoned:
            self.winner = self.next_opener = None
        if self.winner is not None:
            self._settle_winner()

    # -- state ------------------------------------------------------------------------------------------
    @property
    def live_players(self) -> list[str]:
        return [p for p in self.players if p not in self.out]

    @property
    def over(self) -> bool:
        return self.winner is not None or self.abandoned

    @property
    def live(self) -> bool:
        return self.round is not None and not self.round.is_over

    def _after(self, player: str) -> list[str]:
        i = self.players.index(player)
        return [self.players[(i + k) % len(self.players)] for k in range(1, len(self.players))]

    def net(self) -> dict[str, int]:
        net = dict.fromkeys([*self.players, *self.forfeits], 0)
        for t in self.transfers:
            net[t.payer] = net.get(t.payer, 0) - t.units
            net[t.payee] = net.get(t.payee, 0) + t.units
        return net

    def ranking(self) -> tuple[tuple[str, ...], ...]:
        """The winner, then everyone knocked out, the last out first (empty until the game is over)."""
        if self.winner is None:
            return ()
        return ((self.winner,), *((p,) for p in reversed(self.out)))

    # -- rounds -----------------------------------------------------------------------------------------
    def start_round(
        self,
        deck: Sequence[Card],
        opener: str,
        *,
        salt: str | None = None,
        commitment: str | None = None,
        reshuffles: Sequence[Sequence[Card]] | None = None,
    ) -> Round:
        if self.over:
            raise RoundOver("the game is over: one player is left" if self.winner else "the game is over")
        if self.live:
            raise GameError("a round is under way")
        live = self.live_players
        if opener not in live:
            raise GameError(f"{opener} cannot open: not a player still in the game", opener=opener)
        if self.next_opener is not None and opener != self.next_opener:
            raise GameError(f"{self.next_opener} opens this round (the last challenge's winner), not {opener}")
        if Counter(deck) != Counter(full_deck(self.rules.jokers)):
            raise GameError(f"the deck must be the 52 cards and {self.rules.jokers} joker(s), each once")
        self.round = Round(
            live,
            deck,
            opener,
            jokers=self.rules.jokers,
            pass_allowed=self.rules.pass_,
            passes=sorted(self.passes),
            salt=salt,
            reshuffles=reshuffles,
        )
        spec: dict[str, Any] = {"deck": [str(c) for c in deck], "reshuffles": [], "opener": opener, "actions": []}
        if commitment is not None:
            spec["commitment"] = commitment
        if salt is not None:
            spec["salt"] = salt
        self.rounds.append(spec)
        return self.round

    def check(self, action: Action) -> None:
        if self.round is None:
            raise RoundOver("no round is under way: the next one has not been dealt")
        self.round.check(action)

    def apply(self, action: Action) -> tuple[tuple[Event, ...], list[Transfer]]:
        """Apply an action: its events, and the payments it settles now."""
        if self.round is None:
            raise RoundOver("no round is under way: the next one has not been dealt")
        round_ = self.round
        events = round_.apply(action)
        spec = self.rounds[-1]
        spec["actions"].append(action_to_json(action))
        spec["reshuffles"] = [[str(c) for c in deck] for deck in round_.reshuffles]
        self.passes = set(round_.passes) if self.rules.pass_ else set()
        paid: list[Transfer] = []
        for event in events:
            if isinstance(event, Challenged):
                paid.extend(self._knock_out(event))
        return events, paid

    def _knock_out(self, event: Challenged) -> list[Transfer]:
        self.out.append(event.out)
        live = self.live_players
        paid: list[Transfer] = []
        if self.rules.payout == "knockout":
            paid.append(Transfer(event.out, event.winner, self.rules.stake))
            self.transfers.extend(paid)
        if len(live) == 1:
            self.winner = live[0]
            self.next_opener = None
            paid.extend(self._settle_winner())
        else:
            self.next_opener = event.winner
        return paid

    def _settle_winner(self) -> list[Transfer]:
        if self.rules.payout != "winner" or self.winner is None:
            return []
        payers = [p for p in self.players if p != self.winner] + self.forfeits
        paid = [Transfer(p, self.winner, self.rules.stake) for p in payers]
        self.transfers.extend(paid)
        return paid

    # -- the record -------------------------------------------------------------------------------------
    def record(self, *, include_live: bool = False) -> dict[str, Any]:
        """The game as a record (RULES.md §2 "Game records"); the round under way only with ``include_live``."""
        rounds = self.rounds if include_live or not self.live else self.rounds[:-1]
        out: dict[str, Any] = {
            "game": "cards",
            "rules": {k: v for k, v in self.rules.to_dict().items() if k != "stake"},
            "stake": self.rules.stake,
            "players": list(self.players),
        }
        if self.start_out:
            out["out"] = list(self.start_out)
        if self.start_passed:
            out["passed"] = list(self.start_passed)
        if self.forfeits:
            out["forfeits"] = list(self.forfeits)
        out["rounds"] = [dict(r, actions=list(r["actions"])) for r in rounds]
        return out
