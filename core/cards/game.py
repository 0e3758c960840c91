"""The card game behind the game seam (:mod:`core.game`): :data:`CARDS` and :class:`CardsMatch`.

JSON that crosses the seam:

* deal payload: ``{"round": n, "deck": ["7C", ...], "opener": "ellie", "salt": "<hex>", "commitment": "<hex>"}``
  (``commitment = digest({"deck": deck, "salt": salt})``; ``apply_deal`` checks it and never draws);
* action payloads, exactly the record's: ``{"player", "declare": {"type", "ranks"}}`` (text accepted),
  ``{"player", "take": true}``, ``{"player", "discard": ["JD", "3H"]}``, ``{"player", "challenge": true}``,
  ``{"player", "pass": true}``.

A seat change (``new_match(previous=...)``) carries the game on: a player who left is knocked out (in
``winner`` payout they still pay the winner at the end — a ``forfeit``; in ``knockout`` they pay
nothing, there being no challenge winner to pay); who is out, who has passed, and who opens carry over
(an opener who left hands the opening to the next player still in); a newcomer joins the game in play.
The round under way, if any, is abandoned.  If only one player is left, the new match is over at once
and its :attr:`CardsMatch.pending` step carries the winner's settlement.  If nobody is left in the game
(every player still in left at once), the new match is over at once with no winner and nothing to
settle (:attr:`CardsEngine.abandoned`): a newcomer seated then, or the players already out, would
otherwise win or play on a game that has nobody left in it.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..commands import CommandSpec, FormatWords, HandWords, Kind, Param, Section
from ..errors import ActionParseError, GameError, NotYourTurn, RoundOver, quoted
from ..fairness import new_salt
from ..game import (
    Checked,
    Decision,
    Form,
    GameRules,
    Json,
    Option,
    Panel,
    RandomSource,
    Say,
    SayKind,
    Settled,
    Step,
    units,
)
from .cards import parse_cards, shuffled_deck
from .declarations import Declaration
from .errors import CardParseError, NoLastHand
from .forms import HAND_BUTTON, declare_form, discard_form, panel, turn_text
from .hands import evaluate
from .match import CardsEngine, Transfer, action_from_json, action_to_json
from .players import LEVELS, decide, explain, view_of
from .record import challenge_summary, commitment, replay
from .round import Challenged, Declared, Discarded, Event, Passed, Phase, ThrownIn, Took
from .rules import PRESETS, Rules, make_rules
from .stats import played_text, player_stats
from .text import (
    PICTURE_WORDS,
    abandoned_text,
    challenge_text,
    deal_text,
    declared_text,
    discarded_text,
    end_text,
    passed_on_hand,
    passed_text,
    private_hand,
    salt_line,
    thrown_in_text,
    took_text,
    transfers_text,
    value_words,
)

__all__ = ["CARDS", "COMMANDS", "CardsGame", "CardsMatch"]

COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("declare", "declare the hand you hold (or claim to): 'two pair, sevens over threes', 'king-ten high'",
                Section.MOVE, params=(
                    Param("hand", Kind.TEXT, "What you declare: 'king-ten high', 'pair of aces', "
                          "'eights full of fours' (none: its form)", words=True),
                ), form=True, default=True, aliases=("d",), done="Declared."),
    CommandSpec("take", "take the hand passed to you (then discard and declare)", Section.MOVE, aliases=("t",),
                done="You took the hand."),
    CommandSpec("discard", "discard cards from the hand you took and draw as many: 'discard JD 3H'", Section.MOVE,
                params=(Param("cards", Kind.CARDS, "The cards to throw away, e.g. 'JD 3H' (none: its form)",
                              words=True),), form=True, done="Discarded."),
    CommandSpec("challenge", "challenge the declaration: the hand is shown", Section.MOVE, aliases=("c", "ch"),
                done="You challenged."),
    CommandSpec("pass", "pass the hand on (once a game, when the table allows it)", Section.MOVE, aliases=("p",),
                done="You passed."),
    CommandSpec("hint", "what a computer player would do in your seat, and why", Section.READ, changes=False),
)
"""The card game's moves and private read, declared once (every surface is built from them)."""

HAND = HandWords("my cards", HAND_BUTTON.label, "Dealt. The opener draws five cards, by DM; the hand then goes round.",
                 "Dealt. The opener draws five cards, shown to them alone here; the hand then goes round.")
"""What the card game deals, in its words (``Game.hand``)."""


class CardsMatch:
    """A game of cards at fixed seats (implements :class:`core.game.Match`)."""

    def __init__(
        self,
        rules: Rules,
        players: Sequence[str],
        *,
        out: Sequence[str] = (),
        passed: Sequence[str] = (),
        forfeits: Sequence[str] = (),
        opener: str | None = None,
        summaries: Sequence[Json] = (),
        abandoned: bool = False,
    ) -> None:
        self.rules = rules
        self.engine = CardsEngine(
            rules, players, out=out, passed=passed, forfeits=forfeits, opener=opener, abandoned=abandoned
        )
        self._summaries: list[Json] = list(summaries)
        self._rounds_before = len(self._summaries)  # the game's rounds at its seats before (each ended by a challenge)
        self.pending: Step | None = None
        if self.engine.winner is not None:  # everyone else left: the game ends here
            self.pending = Step(self._end_says(self.engine.transfers), self._final(list(self.engine.transfers)))

    # -- state ------------------------------------------------------------------------------------------
    @property
    def players(self) -> tuple[str, ...]:
        return self.engine.players

    @property
    def took_part(self) -> tuple[str, ...]:
        out = (s.get("out") for s in self._summaries)
        return tuple(dict.fromkeys([*self.engine.players, *(p for p in out if isinstance(p, str))]))

    @property
    def over(self) -> bool:
        return self.engine.over

    @property
    def settles_at_end(self) -> bool:
        return self.rules.payout == "winner" and self.rules.stake > 0  # (knockout pays at each challenge)

    @property
    def decides_at_end(self) -> bool:
        return self.rules.payout == "winner"

    @property
    def round_number(self) -> int:
        """The game's round under way or last played, counted across seat changes (0 before the first deal)."""
        return self._rounds_before + len(self.engine.rounds)

    @property
    def live(self) -> bool:
        return self.engine.live

    @property
    def to_act(self) -> str | None:
        return self.engine.round.to_act if self.engine.round is not None else None

    @property
    def end_text(self) -> str:
        if self.engine.abandoned:
            return abandoned_text(self.rules.payout)
        if self.engine.winner is None:
            return ""
        return end_text(self.engine.winner, [])

    # -- deals ------------------------------------------------------------------------------------------
    def deal(self, rng: RandomSource) -> Json:
        if self.over:
            raise RoundOver("the game is over: one player is left" if self.engine.winner else "the game is over")
        if self.live:
            raise GameError("a round is under way")
        deck = shuffled_deck(rng, self.rules.jokers)
        live = self.engine.live_players
        opener = self.engine.next_opener or live[rng.randrange(len(live))]
        salt = new_salt(rng)
        names = [str(c) for c in deck]
        return {
            "round": self.round_number + 1,
            "deck": names,
            "opener": opener,
            "salt": salt,
            "commitment": commitment(deck, salt),
        }

    def apply_deal(self, deal: Mapping[str, Any]) -> Step:
        deck_names, opener, salt = deal.get("deck"), deal.get("opener"), deal.get("salt")
        sealed = deal.get("commitment")
        if not isinstance(deck_names, list) or not isinstance(opener, str) or not isinstance(salt, str):
            raise GameError("a deal has a 'deck', an 'opener' and a 'salt'")
        try:
            deck = parse_cards([str(c) for c in deck_names])
        except CardParseError as exc:
            raise GameError(f"the deal's deck: {exc}") from None
        if not isinstance(sealed, str) or commitment(deck, salt) != sealed:
            raise GameError("the deal's commitment does not match its deck and salt")
        self.engine.start_round(deck, opener, salt=salt, commitment=sealed)
        n = self.round_number
        public = Say(deal_text(n, opener, sealed), SayKind.DEAL)
        return Step((public, self._hand_say(opener)), note=f"Round {n}: {opener} opens")

    def _hand_say(self, player: str) -> Say:
        round_ = self.engine.round
        assert round_ is not None
        text = private_hand(round_.hand, evaluate(round_.hand), may_discard=round_.may_discard)
        return Say(text, SayKind.PRIVATE, to=player)

    # -- actions ----------------------------------------------------------------------------------------
    def parse(self, player: str, verb: str, words: Sequence[str], options: Mapping[str, Option]) -> Json:
        verb = verb.strip().lower()
        if verb in ("take", "challenge", "pass"):
            return {"player": player, verb: True}
        if verb == "declare":
            if "type" in options:
                ranks = str(options.get("ranks", ""))
                listed = [] if ranks in ("", "any") else [r for r in ranks.split("-") if r]
                d = Declaration.from_json({"type": str(options["type"]), "ranks": listed})
            else:
                text = " ".join(words)
                d = Declaration.parse(text)
            return {"player": player, "declare": d.to_dict()}
        if verb == "discard":
            raw = options.get("cards")
            typed = str(raw) if raw is not None else " ".join(words)
            items = typed.replace(",", " ").split()  # "JD, 7H" typed as the option's "JD,7H" is
            if not items:  # `discard ,` was a discard of no card: it spent the player's one discard
                raise CardParseError("name the cards to discard, like `discard JD 3H` (to keep all five, declare)")
            # (a form's value names the card's place, "JK#2"; "#1" alone is refused as typed, not as '')
            cards = parse_cards([item.split("#")[0] or item for item in items])
            return {"player": player, "discard": [str(c) for c in cards]}
        raise ActionParseError(
            f"the card game's commands are declare, take, discard, challenge, pass — not {quoted(verb)}")

    def check(self, action: Mapping[str, Any]) -> Checked:
        move = action_from_json(action)  # the payload parsed once: apply() takes the move as it is
        self.engine.check(move)
        return Checked(action_to_json(move), move)

    def apply(self, action: Checked | Mapping[str, Any]) -> Step:
        move = action.move if isinstance(action, Checked) else action_from_json(action)
        events, paid = self.engine.apply(move)
        says: list[Say] = []
        settled: list[Settled] = []
        for event in events:
            says.extend(self._says(event))
            if isinstance(event, Challenged):
                settled.extend(self._settle(event, paid))
                if self.over:
                    says.extend(self._end_says(paid))
        # What was declared, taken or drawn is the table message's note (as the serial game's bids are),
        # not a message of its own as well; reveals, the end and the holder's hand are messages.
        public_notes = [say for say in says if say.kind is SayKind.NOTE and say.to is None]
        note = " ".join(say.text for say in public_notes)
        return Step(tuple(say for say in says if say not in public_notes), tuple(settled), note)

    def _says(self, event: Event) -> list[Say]:
        if isinstance(event, Declared):
            return [Say(declared_text(event))]
        if isinstance(event, Took):
            return [Say(took_text(event.player)), self._hand_say(event.player)]
        if isinstance(event, Discarded):
            return [Say(discarded_text(event)), self._hand_say(event.player)]
        if isinstance(event, Passed):
            return [Say(passed_text(event))]
        if isinstance(event, ThrownIn):
            return [Say(thrown_in_text(event)), self._hand_say(event.player)]
        assert isinstance(event, Challenged)
        summary = challenge_summary(event, self.engine.next_opener)
        summary["round"] = self.round_number
        self._summaries.append(summary)
        text = challenge_text(event, self.engine.next_opener)
        if self.rules.payout == "knockout":
            text += " " + transfers_text([Transfer(event.out, event.winner, self.rules.stake)])
        dealt = self.engine.rounds[-1]
        if "salt" in dealt and "commitment" in dealt:  # the shuffle, revealed now that the hand is shown
            text += "\n" + salt_line(str(dealt["salt"]), str(dealt["commitment"]))
        picture = {
            **{k: summary[k] for k in ("declared", "declared_text", "floor", "hand", "value", "holds")},
            "value_text": value_words(event.value),
            "active": event.active,
            "challenger": event.challenger,
            "out": event.out,
            "names": {event.active: event.active, event.challenger: event.challenger},
            "words": dict(PICTURE_WORDS),
        }
        return [Say(text, SayKind.RESULT, picture=picture)]

    def _end_says(self, paid: Sequence[Transfer]) -> tuple[Say, ...]:
        assert self.engine.winner is not None
        game_paid = [t for t in paid if self.rules.payout == "winner"]
        return (Say(end_text(self.engine.winner, game_paid), SayKind.END),)

    def _settle(self, event: Challenged, paid: list[Transfer]) -> list[Settled]:
        out: list[Settled] = []
        if self.rules.payout == "knockout":
            net = {event.out: -self.rules.stake, event.winner: self.rules.stake}
            outcome = {"game": "cards", "kind": "challenge", "payout": "knockout", **self._summaries[-1]}
            outcome["game_over"] = self.over
            ranking = self.engine.ranking()
            if self.over:
                outcome["winner_of_game"] = self.engine.winner
                outcome["ranking"] = [g[0] for g in ranking]
                # one who left without paying or being paid (in no challenge's money) is named with 0 at
                # the end, as having played the game (`stats` said they had not)
                moved = {p for s in self._summaries for p in (s.get("out"), s.get("winner"))}
                net = {**{g[0]: 0 for g in ranking if g[0] not in moved}, **net}
            out.append(Settled(self.engine.record(), outcome, net, ranking))
        elif self.over:
            out.extend(self._final(paid))
        return out

    def _final(self, paid: list[Transfer]) -> tuple[Settled, ...]:
        ranking = self.engine.ranking()
        if self.rules.payout != "winner":
            # a knockout game that ends at a seat change (its last rival left): no challenge ends it, so the
            # end is a row of its own — the winner and the ranking, no money — or `stats` counted no game
            moved = {p for s in self._summaries for p in (s.get("out"), s.get("winner"))}
            end = {"game": "cards", "kind": "game", "payout": self.rules.payout, "stake": self.rules.stake,
                   "winner": self.engine.winner, "ranking": [g[0] for g in ranking], "transfers": [],
                   "challenges": []}  # (each challenge was a row of its own)
            return (Settled(self.engine.record(), end, {g[0]: 0 for g in ranking if g[0] not in moved}, ranking),)
        net: dict[str, int] = {}
        for t in paid:
            net[t.payer] = net.get(t.payer, 0) - t.units
            net[t.payee] = net.get(t.payee, 0) + t.units
        outcome = {
            "game": "cards",
            "kind": "game",
            "payout": "winner",
            "stake": self.rules.stake,
            "winner": self.engine.winner,
            "ranking": [g[0] for g in ranking],
            "transfers": [t.to_dict() for t in paid],
            "challenges": list(self._summaries),
            "rounds": self.round_number,  # the game's, across seat changes (the record holds the last seats' only)
        }
        return (Settled(self.engine.record(), outcome, net, ranking),)

    # -- the table's other questions --------------------------------------------------------------------
    def timeout_action(self, gone: bool = False) -> Json:
        """Under the gun: take the hand (challenge when nothing can beat it, or when the player is ``gone``: a
        round of players who had all walked away climbed the declarations a floor a turn, 23,000 turns).
        Holding it: declare the least legal raise (no discard)."""
        round_ = self.engine.round
        if round_ is None or round_.is_over:
            raise RoundOver("no round is under way")
        who = round_.to_act
        assert who is not None
        if round_.phase is Phase.GUN:
            take = round_.can_raise and not gone
            return {"player": who, "take": True} if take else {"player": who, "challenge": True}
        return {"player": who, "declare": round_.least_raise().to_dict()}

    def timeout_actions(self) -> list[Json]:
        """Everything a timed-out player is taken to do in one go: under the gun, take then declare."""
        first = self.timeout_action()
        if "take" not in first:
            return [first]
        round_ = self.engine.round
        assert round_ is not None
        return [first, {"player": first["player"], "declare": round_.least_raise().to_dict()}]

    def computer_decision(self, player: str, level: str) -> Decision:
        round_ = self.engine.round
        if round_ is None or round_.is_over:
            raise RoundOver("no round is under way")
        if round_.to_act != player:
            raise NotYourTurn(player, round_.to_act or "")
        view = view_of(round_, player)  # frozen: the round may move on while the decision is made

        def decision(rng: random.Random) -> Json:
            return action_to_json(decide(view, level, rng))

        return decision

    def declare_last(self) -> str:
        raise NoLastHand()

    def last_is_next(self) -> bool:
        return False  # (no last hand)

    def panel(self, seats: str, note: str = "") -> Panel:
        drawn = panel(self.engine, units(self.rules.stake), self.round_number)
        lines = drawn.text.split("\n")
        lines.insert(1, f"Seats: {seats}")
        if note:
            lines.insert(len(lines) - 1, note)  # what just happened, then whose turn it is
        return Panel("\n".join(lines), drawn.controls)

    def turn_text(self) -> str | None:
        round_ = self.engine.round
        return None if round_ is None else turn_text(round_)

    def leave_cost(self, player: str, leaving: Collection[str] = ()) -> str:
        if self.engine.over or player not in self.engine.live_players:
            return ""
        if self.rules.payout == "knockout":
            return "Under the knockout payout leaving costs nothing more: what you have paid or been paid stands."
        return f"Leaving mid-game forfeits: you pay the winner {units(self.rules.stake)} when the game ends."

    def private_text(self, player: str) -> str | None:
        round_ = self.engine.round
        if round_ is None or round_.is_over or round_.active != player:
            return None
        if round_.phase is Phase.DECLARE:
            return private_hand(round_.hand, evaluate(round_.hand), may_discard=round_.may_discard)
        return passed_on_hand(round_.hand, evaluate(round_.hand))

    def read(self, player: str, verb: str) -> str:
        if verb != "hint":
            raise ActionParseError(f"the card game's read is hint, not {quoted(verb)}")
        round_ = self.engine.round
        if player in self.engine.out:  # ("It is not your turn: nothing to decide yet", said to a player knocked out)
            return "You are out of this game: nothing to decide."
        if round_ is None or round_.is_over:
            return "No round is under way."
        return explain(view_of(round_, player))

    def form(self, player: str, verb: str) -> Form:
        if verb == "declare":
            return declare_form(self.engine.round, player)
        if verb == "discard":
            return discard_form(self.engine.round, player)
        return Form(verb, verb.capitalize(), refusal=f"{verb} has no form")

    def record(self, closed: bool = False) -> Json:
        return self.engine.record()


class CardsGame:
    """The card game (implements :class:`core.game.Game`)."""

    name = "cards"
    title = "Liar's Poker with cards"
    min_players = 2
    max_players = 10
    presets: tuple[str, ...] = tuple(PRESETS)
    levels: tuple[str, ...] = tuple(level for level in LEVELS if level != "random")
    default_level = "hard"
    formats: Mapping[str, FormatWords] = {}
    options_example = "jokers=2 pass=on"
    commands: tuple[CommandSpec, ...] = COMMANDS
    hand: HandWords | None = HAND
    how_to_play = (
        "One five-card hand goes round the table. Take the hand passed to you, discard and draw once if you like "
        "(`discard JD 3H`, or **Discard…**), then declare a poker hand higher than the last (`declare two pair sevens "
        "over threes`, or **Declare…**). Whoever doubts it challenges: the hand is shown, and whoever was wrong is "
        "out. The last player in wins the stake from each of the others."
    )

    def make_rules(self, preset: str | None, options: Mapping[str, Any]) -> Rules:
        return make_rules(preset, options)

    def rules_from_dict(self, data: Mapping[str, Any]) -> Rules:
        return Rules.from_dict(data)

    def terms(self, rules: GameRules) -> str:
        assert isinstance(rules, Rules)
        return f"{rules.preset}, stake {units(rules.stake)}"

    def settles_each_round(self, rules: GameRules) -> bool:
        return False  # a game plays on until one player is left

    def new_match(
        self, rules: GameRules, players: Sequence[str], *, host: str, previous: Any | None = None
    ) -> CardsMatch:
        if not isinstance(rules, Rules):
            rules = Rules.from_dict(rules.to_dict())
        if not players:  # everyone left: nothing to carry on or settle (the table closes for too few)
            raise GameError("a game of cards needs players")
        if not isinstance(previous, CardsMatch) or previous.over:
            return CardsMatch(rules, players)
        old = previous.engine
        left = [p for p in old.players if p not in players]
        out = [*old.out, *(p for p in old.live_players if p in left)]
        forfeits = [*old.forfeits, *left] if rules.payout == "winner" else []
        passed = [p for p in old.players if p not in old.passes] if rules.pass_ else []
        opener = old.next_opener if not old.live else (old.round.opener if old.round is not None else None)
        if opener is not None and opener not in players:
            opener = next((p for p in old._after(opener) if p in players and p not in out), None)
        return CardsMatch(
            rules, players, out=out, passed=passed, forfeits=forfeits, opener=opener, summaries=previous._summaries,
            abandoned=not any(p in players for p in old.live_players),  # nobody left who is still in it
        )

    def describe(self, rules: GameRules) -> str:
        """The whole game at this table with its options (``rules``): not just the preset's name."""
        return rules.text() if isinstance(rules, Rules) else rules.describe()

    def stats(self, player: str, records: Sequence[Mapping[str, Any]]) -> tuple[str, Json]:
        """Games won, challenges made and right, declarations challenged and held."""
        return player_stats(player, records)

    def played(self, player: str, records: Sequence[Mapping[str, Any]]) -> str:
        """Games under the winner payout (one record a game), rounds under the knockout payout (one a challenge)."""
        return played_text(player, records)

    def history_line(self, record: Mapping[str, Any], names: Mapping[str, str]) -> str:
        outcome = record.get("outcome") or {}
        n = len(record.get("rounds", []))

        def name(player: object) -> str:
            return names.get(str(player), str(player))

        if outcome.get("kind") == "challenge":  # the knockout payout: a row for each challenge of a game
            loser = outcome.get("out")
            n = int(outcome.get("round", n))  # the game's count, across seat changes
            line = f"Card game, round {n}: {name(loser)} knocked out" if loser else f"Card game, round {n}"
            winner = outcome.get("winner_of_game") if outcome.get("game_over") else None
            return line + (f"; the game won by {name(winner)}" if winner else "")
        winner = record.get("winner") or outcome.get("winner")
        if outcome.get("payout") == "knockout":  # the end of a knockout game its last rival left (no challenge)
            return f"Card game: the game won by {name(winner)}, its last rival having left"
        n = int(outcome.get("rounds", n))  # (a game stored before session 34: the last seats' rounds)
        rounds = f"{n} round{'s' if n != 1 else ''}"
        return f"Card game {record.get('round', '?')}: {rounds}" + (f", won by {name(winner)}" if winner else "")

    def replay(self, record: Mapping[str, Any]) -> Json:
        return replay(record)

    def verify(self, record: Mapping[str, Any]) -> Json:
        return replay(record, verify=True)


CARDS = CardsGame()

if TYPE_CHECKING:  # both implement the seam's protocols
    from ..game import Game
    from ..game import Match as MatchProtocol

    _game: Game = CARDS
    _match: MatchProtocol = CardsMatch(Rules(), ("a", "b"))
