"""One round of the card game: a state machine with ``legal_actions()``, ``check`` and ``apply``.

Play follows RULES.md §2 "Play".  The opener draws five cards from the top of the round's deck and
declares.  The player **under the gun** (the next player still in, clockwise) takes the hand, or
challenges, or — with the ``pass`` option, once per game — passes, putting the next player under the
gun; when every other player has passed the hand is thrown in: its cards go to the discards, the active
player draws five new ones and declares again from the bottom.  A player who takes may discard (once,
0–5 cards, before declaring) and draws as many, then declares above the standing floor.  A challenge
shows the hand and ends the round.

Drawing from an empty deck shuffles the discards so far (never the hand) into a new deck.  Where the
new deck's order comes from: a record's ``reshuffles`` when it lists them; else the round's secret
salt, through :class:`~core.cards.cards.HashRandom` keyed ``f"{salt}:reshuffle:{k}"`` for the k-th
reshuffle of the round — so the commitment to the deck and salt at the deal fixes every reshuffle too,
and nothing is drawn from a random source after the deal (``apply`` replays exactly).

``check`` raises a :class:`~core.errors.GameError` before anything changes; ``apply`` returns events.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Union

from ..actions import PlayerMove
from .cards import Card, HashRandom, shuffle
from .declarations import Declaration
from .errors import (
    DeclarationTooLow,
    GameError,
    ImpossibleDeclaration,
    NamedTwice,
    NoPassLeft,
    NotInHand,
    NotYourTurn,
    RoundOver,
    UnknownPlayer,
    WrongPhase,
)
from .hands import WORST, HandValue, all_values, evaluate

__all__ = [
    "Action",
    "Challenge",
    "Challenged",
    "Declare",
    "Declared",
    "Discard",
    "Discarded",
    "Event",
    "Legal",
    "Pass",
    "Passed",
    "Phase",
    "Round",
    "Take",
    "ThrownIn",
    "Took",
]


# -- actions ------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Declare:
    player: str
    declaration: Declaration


class Take(PlayerMove):
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Discard:
    player: str
    cards: tuple[Card, ...]


class Challenge(PlayerMove):
    __slots__ = ()


class Pass(PlayerMove):
    __slots__ = ()


Action = Union[Declare, Take, Discard, Challenge, Pass]


# -- events -------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Declared:
    """``drew``: cards drawn this turn (None for an opening: the opener's five, or after a throw-in)."""

    player: str
    declaration: Declaration
    took: bool
    drew: int | None
    next_to_act: str


@dataclass(frozen=True, slots=True)
class Took:
    player: str


@dataclass(frozen=True, slots=True)
class Discarded:
    player: str
    count: int
    reshuffled: bool


@dataclass(frozen=True, slots=True)
class Passed:
    player: str
    next_to_act: str | None


@dataclass(frozen=True, slots=True)
class ThrownIn:
    """Every other player passed: ``player`` drew five new cards and declares again from the bottom."""

    player: str
    reshuffled: bool


@dataclass(frozen=True, slots=True)
class Challenged:
    challenger: str
    active: str
    declaration: Declaration
    hand: tuple[Card, ...]
    value: HandValue
    holds: bool
    out: str
    winner: str


Event = Union[Declared, Took, Discarded, Passed, ThrownIn, Challenged]


class Phase(StrEnum):
    DECLARE = "declare"  # the active player holds the hand and must declare (after a take: may discard first)
    GUN = "gun"  # a declaration stands; the player under the gun takes, challenges or passes
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Legal:
    """What the player to act may do.  ``declare_from``: index in :func:`all_values` of the least legal floor."""

    player: str | None
    take: bool = False
    challenge: bool = False
    pass_: bool = False
    discard: bool = False
    declare_from: int | None = None


class Round:
    """One round at the players still in (seat order, clockwise)."""

    def __init__(
        self,
        players: Sequence[str],
        deck: Sequence[Card],
        opener: str,
        *,
        jokers: int = 0,
        pass_allowed: bool = False,
        passes: Sequence[str] = (),
        salt: str | None = None,
        reshuffles: Sequence[Sequence[Card]] | None = None,
    ) -> None:
        if len(players) < 2 or len(set(players)) != len(players):
            raise ValueError("a round needs at least two distinct players")
        if opener not in players:
            raise ValueError(f"the opener {opener!r} is not in the round")
        self.players: tuple[str, ...] = tuple(players)
        self._seat = {p: i for i, p in enumerate(self.players)}
        self.jokers = jokers
        self.deck: list[Card] = list(deck)  # what is left to draw, top first
        self.salt = salt
        self._given_reshuffles = [list(r) for r in reshuffles] if reshuffles is not None else None
        self.reshuffles: list[list[Card]] = []  # each new deck made of discards, top first
        self.discards: list[Card] = []
        self.pass_allowed = pass_allowed
        self.passes: set[str] = set(passes) & set(players) if pass_allowed else set()  # who may still pass
        self.opener = opener
        self.history: list[Action] = []
        # the declarations of the hand now in play (since the deal or the last throw-in), with the hand
        # each declarer held: (player, declaration, cards drawn that turn or None, hand) — computer
        # players see the hands of their own steps only (core.cards.players.view_of)
        self.steps: list[tuple[str, Declaration, int | None, tuple[Card, ...]]] = []
        self.standing: Declaration | None = None
        self.result: Challenged | None = None
        self._active = self._seat[opener]
        self._gun = -1
        self._phase = Phase.DECLARE
        self._took = False  # the active player took the hand this turn (may discard once)
        self._discarded = False
        self._drew = 0
        self.hand: list[Card] = []
        self.hand, self.deck, self.discards, _ = self._drawn([], 5)
        self._least = all_values(jokers)

    # -- state ------------------------------------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    @property
    def active(self) -> str:
        """The player holding the hand (the last to declare, or the one to declare now)."""
        return self.players[self._active]

    @property
    def declarer(self) -> str | None:
        """Who made the standing declaration (the one before ``active`` once the hand is taken), or None."""
        return self.steps[-1][0] if self.steps else None

    @property
    def under_the_gun(self) -> str | None:
        return self.players[self._gun] if self._phase is Phase.GUN else None

    @property
    def to_act(self) -> str | None:
        if self._phase is Phase.OVER:
            return None
        return self.players[self._gun] if self._phase is Phase.GUN else self.players[self._active]

    @property
    def may_discard(self) -> bool:
        return self._phase is Phase.DECLARE and self._took and not self._discarded

    def next_player(self, player: str) -> str:
        return self.players[(self._seat[player] + 1) % len(self.players)]

    def least_floor_index(self) -> int:
        """Index in :func:`all_values` of the lowest floor a declaration may have now."""
        return bisect_right(self._least, WORST if self.standing is None else self.standing.floor)

    @property
    def can_raise(self) -> bool:
        """Some declaration beats the standing one (nothing beats a royal flush without jokers)."""
        return self.least_floor_index() < len(self._least)

    def least_raise(self) -> Declaration:
        """The least legal declaration now (named as briefly as its floor allows)."""
        if not self.can_raise:
            raise DeclarationTooLow(Declaration.exactly(self._least[-1]), self.standing)
        return Declaration.exactly(self._least[self.least_floor_index()])

    def legal_actions(self) -> Legal:
        who = self.to_act
        if who is None:
            return Legal(None)
        if self._phase is Phase.GUN:
            return Legal(who, take=self.can_raise, challenge=True, pass_=who in self.passes)
        return Legal(who, discard=self.may_discard, declare_from=self.least_floor_index())

    # -- drawing ----------------------------------------------------------------------------------------
    def _drawn(
        self, discarding: Sequence[Card], n: int
    ) -> tuple[list[Card], list[Card], list[Card], list[list[Card]]]:
        """Draw ``n`` after discarding: (the drawn cards, the deck left, the discards, the new decks made)."""
        deck = list(self.deck)
        pile = [*self.discards, *discarding]
        drawn: list[Card] = []
        made: list[list[Card]] = []
        while len(drawn) < n:
            if not deck:
                if not pile:
                    raise GameError("the deck and the discards are both empty")
                deck = self._reshuffle(pile, len(self.reshuffles) + len(made))
                made.append(list(deck))
                pile = []
            drawn.append(deck.pop(0))
        return drawn, deck, pile, made

    def _reshuffle(self, pile: list[Card], k: int) -> list[Card]:
        given = self._given_reshuffles
        if given is not None and k < len(given):
            if Counter(given[k]) != Counter(pile):
                raise GameError(f"reshuffle {k} is not the discards so far ({len(pile)} cards)")
            return list(given[k])
        if self.salt is None:
            raise GameError("the deck ran out, and the record neither lists the reshuffle nor reveals the salt")
        return shuffle(pile, HashRandom(f"{self.salt}:reshuffle:{k}"))

    # -- transitions ------------------------------------------------------------------------------------
    def check(self, action: Action) -> None:
        """Raise the :class:`GameError` that ``apply(action)`` would raise, or return None."""
        self._check(action)

    def _check(self, action: Action) -> None:
        if self._phase is Phase.OVER:
            raise RoundOver("this round is over: the hand has been shown")
        player = action.player
        if player not in self._seat:
            raise UnknownPlayer(player)
        to_act = self.players[self._gun] if self._phase is Phase.GUN else self.players[self._active]
        if player != to_act:
            raise NotYourTurn(player, to_act)
        if isinstance(action, Take | Challenge | Pass):
            if self._phase is not Phase.GUN:
                raise WrongPhase("you hold the hand: declare (or discard first, after taking it)", player)
            if isinstance(action, Take) and not self.can_raise:
                raise WrongPhase("nothing can beat the standing declaration: challenge it"
                                 + (" (or pass)" if self.pass_allowed and player in self.passes else ""), player)
            if isinstance(action, Pass) and player not in self.passes:
                raise NoPassLeft(
                    "you have used your pass this game" if self.pass_allowed else "passing is not allowed here", player
                )
        elif isinstance(action, Discard):
            if self._phase is not Phase.DECLARE:
                raise WrongPhase("take the hand before you discard", player)
            if not self._took:
                raise WrongPhase("nobody discards before the first declaration of a hand", player)
            if self._discarded:
                raise WrongPhase("you have discarded once this turn: now declare", player)
            if missing := Counter(action.cards) - Counter(self.hand):
                if absent := [c for c in missing if c not in self.hand]:
                    raise NotInHand(player, [str(c) for c in absent])
                raise NamedTwice(player, [str(c) for c in missing])
            self._drawn(action.cards, len(action.cards))  # a reshuffle that cannot be made raises here
        elif isinstance(action, Declare):
            if self._phase is not Phase.DECLARE:
                raise WrongPhase("take the hand before you declare", player)
            d = action.declaration
            if d.jokers_needed > self.jokers:
                held = f"with {self.jokers} joker{'s' if self.jokers != 1 else ''}" if self.jokers else "without jokers"
                raise ImpossibleDeclaration(f"{held} no hand is {d.name()}", type=d.type.key)
            if not d.beats(self.standing):
                raise DeclarationTooLow(d, self.standing)
        else:  # pragma: no cover - typing guards this
            raise GameError(f"unknown action {action!r}")

    def apply(self, action: Action) -> tuple[Event, ...]:
        self._check(action)
        self.history.append(action)
        if isinstance(action, Declare):
            self.standing = action.declaration
            self._phase = Phase.GUN
            self._gun = (self._active + 1) % len(self.players)
            drew = self._drew if self._took else None
            self.steps.append((action.player, action.declaration, drew, tuple(self.hand)))
            event = Declared(action.player, action.declaration, self._took, drew, self.players[self._gun])
            self._took = self._discarded = False
            self._drew = 0
            return (event,)
        if isinstance(action, Take):
            self._active = self._gun
            self._phase = Phase.DECLARE
            self._took, self._discarded, self._drew = True, False, 0
            return (Took(action.player),)
        if isinstance(action, Discard):
            n = len(action.cards)
            drawn, self.deck, self.discards, made = self._drawn(action.cards, n)
            kept = list(self.hand)
            for card in action.cards:
                kept.remove(card)
            self.hand = kept + drawn
            self.reshuffles.extend(made)
            self._discarded, self._drew = True, n
            return (Discarded(action.player, n, bool(made)),)
        if isinstance(action, Pass):
            self.passes.discard(action.player)
            self._gun = (self._gun + 1) % len(self.players)
            if self._gun != self._active:
                return (Passed(action.player, self.players[self._gun]),)
            drawn, self.deck, self.discards, made = self._drawn(self.hand, 5)
            self.hand = drawn
            self.reshuffles.extend(made)
            self.steps = []
            self.standing = None
            self._phase = Phase.DECLARE
            self._took = self._discarded = False
            return (Passed(action.player, None), ThrownIn(self.active, bool(made)))
        assert isinstance(action, Challenge) and self.standing is not None
        value = evaluate(self.hand)
        holds = self.standing.held_by(value)
        active = self.active
        out, winner = (action.player, active) if holds else (active, action.player)
        self._phase = Phase.OVER
        self.result = Challenged(action.player, active, self.standing, tuple(self.hand), value, holds, out, winner)
        return (self.result,)
