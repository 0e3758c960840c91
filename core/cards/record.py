"""Card game records (RULES.md §2 "Game records"): :func:`replay` re-plays one, :func:`commitment` seals a deck.

A record::

    {"game": "cards",
     "rules": {"jokers": 0, "pass": false, "payout": "winner"},     # or a preset's name; "preset" optional
     "stake": 1,
     "players": ["annie", "bart", ...],                             # seat order, clockwise
     "out": [...], "passed": [...], "forfeits": [...],              # optional: a game that began earlier
     "rounds": [{"deck": ["7C", "7D", ...],                         # top first; "10S" is read as "TS"
                 "reshuffles": [[...], ...],                        # each deck made of discards, top first
                 "opener": "annie",
                 "commitment": "<sha256 hex>", "salt": "<hex>",     # optional; checked by verify
                 "actions": [{"player": "annie", "declare": "two pair"},
                             {"player": "bart", "take": true},
                             {"player": "bart", "discard": ["JD"]},
                             {"player": "bart", "declare": {"type": "two-pair", "ranks": ["7", "3"]}},
                             {"player": "chrissie", "challenge": true}]}]}

Fairness: each round's commitment is ``digest({"deck": [card names], "salt": salt})``.  A reshuffle's order
is derived from the salt (see :mod:`core.cards.round`), so the commitment fixes it too: ``verify`` replays
each round with the reshuffles derived from the revealed salt and refuses a record whose listed
``reshuffles`` differ.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..fairness import digest
from ..records import IllegalRecordedAction, RecordError, refuse_unknown_keys
from .cards import Card, parse_cards
from .errors import CardParseError, GameError
from .match import CardsEngine, action_from_json
from .round import Challenged, Round
from .rules import Rules, RulesError, make_rules

__all__ = ["challenge_summary", "commitment", "replay", "rules_from_record"]

RECORD_KEYS = ("game", "rules", "stake", "players", "out", "passed", "forfeits", "rounds", "names")
"""The keys of a card game's record (``names``: the players' display names, which ``export`` adds)."""


def commitment(deck: Sequence[Card | str], salt: str) -> str:
    """``sha256`` of the canonical JSON ``{"deck": ["7C", ...], "salt": s}``."""
    names = [str(c) if isinstance(c, Card) else str(Card.parse(c)) for c in deck]
    return digest({"deck": names, "salt": salt})


def rules_from_record(record: Mapping[str, Any]) -> Rules:
    spec = record.get("rules", "standard")
    try:
        if isinstance(spec, str):
            rules = make_rules(spec)
        elif isinstance(spec, Mapping):
            rules = Rules.from_dict(spec)
        else:
            raise RecordError("'rules' must be a preset name or an object of options")
        if "stake" in record:
            options = {k: v for k, v in rules.to_dict().items() if k != "preset"}
            rules = make_rules(rules.preset, {**options, "stake": record["stake"]})
    except RulesError as exc:
        raise RecordError(str(exc)) from None
    return rules


def _names(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
        raise RecordError(f"'{what}' must be a list of names")
    return value


def _cards(value: Any, what: str) -> list[Card]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise RecordError(f"{what} must be a list of card names like '7H', 'TS', 'JK'")
    try:
        return parse_cards(value)
    except CardParseError as exc:
        raise RecordError(f"{what}: {exc}") from None


def challenge_summary(event: Challenged, next_opener: str | None) -> dict[str, Any]:
    return {
        "complete": True,
        "active": event.active,
        "challenger": event.challenger,
        "declared": event.declaration.to_dict(),
        "declared_text": event.declaration.name(),
        "floor": [str(c) for c in event.declaration.floor_cards],
        "hand": [str(c) for c in event.hand],
        "value": event.value.to_dict(),
        "holds": event.holds,
        "out": event.out,
        "winner": event.winner,
        "next_opener": next_opener,
    }


def _incomplete(round_: Round) -> dict[str, Any]:
    return {"complete": False, "active": round_.active, "to_act": round_.to_act}


def replay(record: Any, *, verify: bool = False) -> dict[str, Any]:
    """Re-play a record: per round its challenge (or where it stopped), then the winner and the money.

    Raises :class:`RecordError` for a malformed record and :class:`IllegalRecordedAction` (with the
    round and action index) for an action the rules refuse, a wrong opener, or (``verify``) a
    commitment or reshuffle that does not match.
    """
    if not isinstance(record, Mapping):
        raise RecordError("a game record is a JSON object")
    if record.get("game", "cards") != "cards":
        raise RecordError(f"this is a record of the {record.get('game')!r} game, not of cards")
    refuse_unknown_keys(record, RECORD_KEYS, "the record")
    rules = rules_from_record(record)
    players = _names(record.get("players"), "players")
    rounds = record.get("rounds")
    if not isinstance(rounds, list):
        raise RecordError("'rounds' must be a list")
    try:  # the engine checks the seats (one seat is a game carried on after everyone else left)
        match = CardsEngine(rules, players, out=_names(record.get("out"), "out"),
                            passed=_names(record.get("passed"), "passed"),
                            forfeits=_names(record.get("forfeits"), "forfeits"))
    except ValueError:
        raise RecordError("'players' must list distinct names in seat order, two or more with those who left") from None
    results: list[dict[str, Any]] = []
    for r, spec in enumerate(rounds):
        if not isinstance(spec, Mapping):
            raise RecordError(f"round {r} must be an object")
        if match.live:
            raise IllegalRecordedAction("a round follows a round that never ended in a challenge", r, None)
        deck = _cards(spec.get("deck"), f"round {r}'s deck")
        raw_reshuffles = spec.get("reshuffles", [])
        if not isinstance(raw_reshuffles, list):
            raise RecordError(f"round {r}: 'reshuffles' must be a list of decks")
        reshuffles = [_cards(d, f"round {r}'s reshuffle {k}") for k, d in enumerate(raw_reshuffles)]
        opener = spec.get("opener")
        if not isinstance(opener, str):
            raise RecordError(f"round {r} must name its 'opener'")
        salt = spec.get("salt")
        if salt is not None and not isinstance(salt, str):
            raise RecordError(f"round {r}: 'salt' must be a string")
        if verify:
            if "commitment" not in spec or salt is None:
                raise IllegalRecordedAction("the round carries no commitment and salt to verify", r, None)
            if commitment(deck, salt) != str(spec["commitment"]).lower():
                raise IllegalRecordedAction("the commitment does not match the deck and salt", r, None)
        try:
            round_ = match.start_round(deck, opener, salt=salt, reshuffles=None if verify else reshuffles)
        except GameError as exc:
            raise IllegalRecordedAction(str(exc), r, None) from None
        actions = spec.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError(f"round {r}: 'actions' must be a list")
        for i, data in enumerate(actions):
            if not isinstance(data, Mapping) or not isinstance(data.get("player"), str):
                raise RecordError(f"round {r}, action {i}: an action is an object with a 'player'")
            try:
                match.apply(action_from_json(data))
            except GameError as exc:
                raise IllegalRecordedAction(str(exc), r, i) from None
        made = [[str(c) for c in d] for d in round_.reshuffles]
        listed = [[str(c) for c in d] for d in reshuffles]
        if len(listed) > len(made):
            raise IllegalRecordedAction("the record lists more reshuffles than the round made", r, None)
        if listed != made[: len(listed)]:
            raise IllegalRecordedAction("the listed reshuffles do not follow from the salt", r, None)
        if verify and len(listed) < len(made):  # RULES: a record lists each such deck
            raise IllegalRecordedAction(f"the round made {len(made)} reshuffles and the record lists {len(listed)}",
                                        r, None)
        if round_.result is not None:
            results.append(challenge_summary(round_.result, match.next_opener))
        else:
            results.append(_incomplete(round_))
    return {
        "rounds": results,
        "winner": match.winner,
        "out": list(match.out),
        "transfers": [t.to_dict() for t in match.transfers],
        "net": match.net(),
    }
