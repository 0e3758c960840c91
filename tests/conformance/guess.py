"""A made-up third game, to prove the game seam and the command declarations: nothing in ``adapters/`` or
``bot/`` names it, yet once :func:`core.registry.register` has it, every surface offers its move.

*Guess the number*: each round the deal draws a secret number from 1 to ``high``; in turn, each player
``guess``es it (``guess number:7`` on Discord, ``/liars guess 7`` on Slack, ``7`` in the terminal) and is
told higher or lower in the table's note.  Whoever guesses it wins the stake from every other player.
A verb no real game has; a parameter that is an integer with a range.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.commands import CommandSpec, FormatWords, HandWords, Kind, Param, Section
from core.errors import ActionParseError, GameError, NotYourTurn, RoundOver, UnknownPlayer
from core.game import (
    Checked,
    Control,
    Decision,
    Form,
    FormField,
    GameRules,
    Json,
    Match,
    Option,
    Panel,
    RandomSource,
    Say,
    SayKind,
    Settled,
    Step,
    int_option,
    units,
)

__all__ = ["GUESS", "GuessGame"]

HIGH = 20


class OutOfRange(GameError):
    code = "out-of-range"


@dataclass(frozen=True, slots=True)
class GuessRules:
    preset: str = "standard"
    stake: int = 1
    high: int = HIGH

    def to_dict(self) -> Json:
        return {"preset": self.preset, "stake": self.stake, "high": self.high}

    def describe(self) -> str:
        return f"Guess the number from 1 to {self.high}; the first to guess it wins {units(self.stake)} from each."


def _commit(secret: int, salt: str) -> str:
    return hashlib.sha256(json.dumps([secret, salt]).encode()).hexdigest()


class GuessMatch:
    def __init__(self, rules: GuessRules, players: Sequence[str]) -> None:
        self.rules = rules
        self._players = tuple(players)
        self.pending: Step | None = None
        self.secret: int | None = None
        self.turn = 0
        self.rounds: list[Json] = []
        self.done = False

    @property
    def players(self) -> tuple[str, ...]:
        return self._players

    @property
    def took_part(self) -> tuple[str, ...]:
        return self._players

    @property
    def settles_at_end(self) -> bool:
        return False

    @property
    def decides_at_end(self) -> bool:
        return False

    @property
    def over(self) -> bool:
        return False

    @property
    def live(self) -> bool:
        return self.secret is not None and not self.done

    @property
    def to_act(self) -> str | None:
        return self._players[self.turn] if self.live else None

    @property
    def end_text(self) -> str:
        return ""

    def deal(self, rng: RandomSource) -> Json:
        secret = 1 + rng.randrange(self.rules.high)
        salt = f"{rng.randrange(1 << 30):08x}"
        return {"secret": secret, "salt": salt, "commitment": _commit(secret, salt),
                "opener": rng.randrange(len(self._players))}

    def apply_deal(self, deal: Mapping[str, Any]) -> Step:
        self.secret, self.turn, self.done = int(deal["secret"]), int(deal["opener"]), False
        self.rounds.append({"secret": self.secret, "salt": deal["salt"], "actions": []})
        return Step((Say(f"Round {len(self.rounds)}: a number from 1 to {self.rules.high} is drawn.", SayKind.DEAL),))

    def parse(self, player: str, verb: str, words: Sequence[str], options: Mapping[str, Option]) -> Json:
        if verb != "guess":
            raise ActionParseError(f"{verb!r} is not a move of this game")
        try:
            number = int_option(options, "number")
            if number is None:
                number = int(" ".join(words))
        except ValueError:
            raise ActionParseError("a guess is a whole number, like `guess 7`") from None
        return {"player": player, "guess": number}

    def check(self, action: Mapping[str, Any]) -> Checked:
        self._check(action)
        return Checked({"player": action.get("player"), "guess": action.get("guess")}, self.turn)

    def _check(self, action: Mapping[str, Any]) -> None:
        if not self.live:
            raise RoundOver("no round is under way")
        player = str(action.get("player"))
        if player not in self._players:
            raise UnknownPlayer(player)
        if player != self.to_act:
            raise NotYourTurn(player, self.to_act or "")
        number = action.get("guess")
        if not isinstance(number, int) or not 1 <= number <= self.rules.high:
            raise OutOfRange(f"guess a number from 1 to {self.rules.high}")

    def apply(self, checked: Checked | Mapping[str, Any]) -> Step:
        action = checked.action if isinstance(checked, Checked) else checked
        self._check(action)
        assert self.secret is not None
        player, number = str(action["player"]), int(action["guess"])
        self.rounds[-1]["actions"].append({"player": player, "guess": number})
        if number != self.secret:
            self.turn = (self.turn + 1) % len(self._players)
            word = "higher" if self.secret > number else "lower"
            return Step(note=f"<@{player}> guessed {number}: {word}.")
        self.done = True
        stake = self.rules.stake
        net = {p: (stake * (len(self._players) - 1) if p == player else -stake) for p in self._players}
        record = {"game": "guess", "round": len(self.rounds), **self.rounds[-1], "winner": player}
        settled = Settled(record=record, outcome={"game": "guess", "winner": player, "net": net}, net=net,
                          ranking=((player,), tuple(p for p in self._players if p != player)))
        return Step((Say(f"<@{player}> guessed it: {number}!", SayKind.RESULT),), (settled,))

    def timeout_action(self, gone: bool = False) -> Json:
        return {"player": self.to_act, "guess": 1}

    def computer_decision(self, player: str, level: str) -> Decision:
        high = self.rules.high
        return lambda rng: {"player": player, "guess": 1 + rng.randrange(high)}

    def declare_last(self) -> str:
        return "📣 This is the last round."

    def last_is_next(self) -> bool:
        return False  # (`last` names the round under way, begun or not)

    def panel(self, seats: str, note: str = "") -> Panel:
        lines = [f"🔢 Guess the number (1-{self.rules.high})", f"Seats: {seats}"]
        if note:
            lines.append(note)
        if self.to_act is not None:
            lines.append(f"<@{self.to_act}> to guess.")
        return Panel("\n".join(lines), (Control("guess", "Guess…", "primary", form=True),) if self.live else ())

    def turn_text(self) -> str | None:
        return f"🔔 <@{self.to_act}>, your guess." if self.to_act is not None else None

    def leave_cost(self, player: str, leaving: Collection[str] = ()) -> str:
        return ""

    def private_text(self, player: str) -> str | None:
        return None

    def read(self, player: str, verb: str) -> str:
        raise ActionParseError(f"{verb!r} is not something this game can show")

    def form(self, player: str, verb: str) -> Form:
        refusal = None if player == self.to_act else "it is not your turn"
        numbers = tuple((str(n), str(n)) for n in range(1, self.rules.high + 1))
        return Form("guess", "Guess", (FormField("number", "Which number", numbers),), refusal=refusal,
                    intro="Guess the number.", submit="Guess {number}")

    def record(self, closed: bool = False) -> Json:
        return {"game": "guess", "rules": self.rules.to_dict(), "players": list(self._players),
                "rounds": [dict(r) for r in self.rounds if closed or not self.live or r is not self.rounds[-1]]}


class GuessGame:
    name = "guess"
    title = "Guess the number"
    min_players = 2
    max_players = 6
    presets: tuple[str, ...] = ("standard",)
    levels: tuple[str, ...] = ("easy",)
    default_level = "easy"
    formats: Mapping[str, FormatWords] = {}  # no other way to play it
    options_example = ""  # no rule option but the stake, which ``start`` takes by itself
    commands: tuple[CommandSpec, ...] = (
        CommandSpec("guess", "guess the number: 'guess 7'", Section.MOVE, params=(
            Param("number", Kind.INT, "Your guess", low=1, high=HIGH, required=True),
        ), form=True, default=True, aliases=("g",)),
    )
    hand: HandWords | None = None  # nothing is dealt: the table's ``hand`` has nothing to show
    how_to_play = "A number from 1 to 20 is drawn; in turn, `guess` it and hear higher or lower. First right wins."

    def describe(self, rules: GameRules) -> str:
        return rules.describe()

    def make_rules(self, preset: str | None, options: Mapping[str, Any]) -> GuessRules:
        unknown = set(options) - {"stake"}
        if unknown:
            raise ValueError(f"unknown option {sorted(unknown)[0]!r}")
        return GuessRules(stake=int(options.get("stake", 1)))

    def terms(self, rules: Any) -> str:
        return f"{rules.preset}, stake {units(rules.stake)}"

    def settles_each_round(self, rules: Any) -> bool:
        return True

    def rules_from_dict(self, data: Mapping[str, Any]) -> GuessRules:
        return GuessRules(str(data.get("preset", "standard")), int(data.get("stake", 1)), int(data.get("high", HIGH)))

    def new_match(self, rules: GameRules, players: Sequence[str], *, host: str,
                  previous: Match | None = None) -> GuessMatch:
        assert isinstance(rules, GuessRules)
        return GuessMatch(rules, players)

    def stats(self, player: str, records: Sequence[Mapping[str, Any]]) -> tuple[str, Json]:
        won = sum(1 for r in records if r.get("winner") == player)
        return f"Numbers guessed: {won}.", {"guessed": won}

    def played(self, player: str, records: Sequence[Mapping[str, Any]]) -> str:
        n = sum(1 for r in records if player in (r.get("outcome") or {}).get("net", {}))
        return f"{n} round{'s' if n != 1 else ''}"

    def history_line(self, record: Mapping[str, Any], names: Mapping[str, str]) -> str:
        winner = str(record.get("winner"))
        return f"Round {record.get('round')}: {record.get('secret')}, guessed by {names.get(winner, winner)}"

    def replay(self, record: Mapping[str, Any]) -> Json:
        return {"rounds": len(record.get("rounds", []))}

    def verify(self, record: Mapping[str, Any]) -> Json:
        return self.replay(record)


GUESS = GuessGame()
