"""Game records: the public JSON format that ``liars replay`` re-scores and the bot exports.

A record::

    {"rules": "salomon" | {"preset": "classic", "rank_order": "zero-high", ...},
     "stake": 1,                                   # optional; overrides the rules' stake
     "players": ["brad", "leo", "mike"],           # seat order, clockwise
     "host": "brad",                               # optional; the host opener rule uses it
     "first_stake": 4,                             # optional; the first round's stake before doubling
                                                   # (a table whose seats changed carries its stake on)
     "slips": {"brad": [15 serials], ...},         # only with serial_source "slips"
     "rounds": [
       {"serials": {"brad": "15101952", ...},      # not with slips
        "opener": "brad",                          # optional; else the rules decide; after the first
                                                   # round it must be the one the rules name
        "last_hand": true,                         # optional; this round is the declared last hand
        "commitment": "<sha256 hex>", "salt": "<hex>",   # optional; checked by verify
        "actions": [{"player": "brad", "bid": [3, 5]},   # or "bid": "3 fives"
                    {"player": "leo", "challenge": true},
                    {"player": "mike", "count": true}]}]}

:func:`replay` returns the scored rounds and totals, raising :class:`RecordError` for a malformed
record and :class:`IllegalRecordedAction` (with the round and action index) for an illegal action.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import UnknownMove, unknown_kind
from ..records import IllegalRecordedAction, RecordError, refuse_unknown_keys
from .bids import MAX_PLAYERS, MIN_PLAYERS, Bid
from .errors import GameError
from .fairness import verify_commitment
from .round import Action, CallCount, Challenge, MakeBid, Round
from .rules import Rules, RulesError, SerialSource, make_rules
from .scoring import Outcome
from .serials import Serial, parse_fitting
from .session import Session, SessionOver

__all__ = ["IllegalRecordedAction", "RecordError", "outcome_to_dict", "parse_action", "replay", "rules_from_record"]

RECORD_KEYS = ("game", "rules", "stake", "format", "players", "host", "rounds", "first_stake", "slips", "names")
"""The keys of a record of the serial game (``names``: the players' display names, which ``export`` adds)."""


class _NoRng:
    """Replays never draw: an opener or serial the record leaves out must come from the rules."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        raise RecordError("the record must name each round's opener when the rules pick one at random")


def rules_from_record(record: Mapping[str, Any]) -> Rules:
    spec = record.get("rules", "classic")
    # the top's "format" and "stake" go in with the rules (stake 0 is for the elimination, which a top-level
    # "format" may be what says)
    top = {name: record[name] for name in ("format", "stake") if name in record}
    try:
        if isinstance(spec, str):
            rules = make_rules(spec, **top)
        elif isinstance(spec, Mapping):
            rules = Rules.from_dict({**spec, **top})
        else:
            raise RecordError("'rules' must be a preset name or an object of options")
    except RulesError as exc:
        raise RecordError(str(exc)) from None
    return rules


MOVE_KINDS = ("bid", "challenge", "count")


class NewerAction(RecordError, UnknownMove):
    """A recorded action holding none of this game's kinds of move (a newer version's): its keys are named, never
    its values."""


def parse_action(data: Any, rules: Rules) -> Action:
    if not isinstance(data, Mapping) or not isinstance(data.get("player"), str):
        raise RecordError(f"an action must be an object with a 'player': {data!r}")
    player = data["player"]
    kinds = [k for k in MOVE_KINDS if k in data]
    if unknown_kind(data, MOVE_KINDS):
        raise NewerAction(f"an action of a kind this version does not know (it knows 'bid', 'challenge' and "
                          f"'count'): {sorted(data)!r}")
    if len(kinds) != 1:
        raise RecordError(f"an action has exactly one of 'bid', 'challenge', 'count': {dict(data)!r}")
    if kinds[0] == "bid":
        raw = data["bid"]
        if isinstance(raw, str):
            return MakeBid(player, Bid.parse(raw, rules.rank_order))
        if (
            isinstance(raw, list)
            and len(raw) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in raw)
            and 0 <= raw[1] <= 9
            and raw[0] >= 1
        ):
            return MakeBid(player, Bid(raw[0], raw[1], rules.rank_order))
        raise RecordError(f"a bid is [quantity, digit] or text like '5 sevens', not {raw!r}")
    if data[kinds[0]] is not True:
        raise RecordError(f"'{kinds[0]}' must be true in {dict(data)!r}")
    return Challenge(player) if kinds[0] == "challenge" else CallCount(player)


def _serial(text: Any, rules: Rules) -> Serial:
    if not isinstance(text, str):
        raise RecordError(f"a serial is a string of {rules.serial_length} digits, not {text!r}")
    try:
        return parse_fitting(text, rules.serial_length, rules.digits)
    except ValueError as exc:
        raise RecordError(str(exc)) from None


def outcome_to_dict(outcome: Outcome) -> dict[str, Any]:
    return {
        "complete": True,
        "final_bid": {"player": outcome.bidder, "quantity": outcome.bid.quantity, "digit": outcome.bid.digit},
        "final_bid_text": str(outcome.bid),
        "count": outcome.count,
        "made": outcome.made,
        "skunk": outcome.skunk,
        "multiplier": outcome.multiplier,
        "multiplier_text": outcome.multiplier_text(),
        "bonuses": [b.kind for b in outcome.bonuses],
        "stake": outcome.stake,
        "transfers": [{"from": t.payer, "to": t.payee, "units": t.units} for t in outcome.transfers],
        "net": dict(outcome.net),
        "next_stake": outcome.next_stake,
        "next_opener": outcome.next_opener,
        "serials": {p: str(s) for p, s in outcome.serials.items()},
    }


def _incomplete(round_: Round) -> dict[str, Any]:
    bid = round_.standing_bid
    return {
        "complete": False,
        "standing_bid": None
        if bid is None
        else {"player": round_.bidder, "quantity": bid.quantity, "digit": bid.digit},
        "to_act": round_.to_act,
        "phase": round_.phase.value,
    }


def replay(record: Any, *, verify: bool = False) -> dict[str, Any]:
    """Re-score a record.  With ``verify``, every round's commitment must match its serials and salt."""
    if not isinstance(record, Mapping):
        raise RecordError("a game record is a JSON object")
    from .elimination.record import RECORD_KEYS as ELIMINATION_KEYS
    from .elimination.record import replay_elimination  # (it imports this module)

    refuse_unknown_keys(record, {*RECORD_KEYS, *ELIMINATION_KEYS}, "the record")  # before the rules it may misspell
    rules = rules_from_record(record)
    if rules.elimination:  # the elimination (who pays for dinner) replays its own way
        return replay_elimination(record, verify=verify)
    refuse_unknown_keys(record, RECORD_KEYS, "the record")
    players = record.get("players")
    if (
        not isinstance(players, list)
        or not all(isinstance(p, str) and p for p in players)
        or len(set(players)) != len(players)
    ):
        raise RecordError("'players' must be a list of distinct names in seat order")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RecordError(f"a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players")
    rounds = record.get("rounds")
    if not isinstance(rounds, list):
        raise RecordError("'rounds' must be a list")
    host = record.get("host")
    if host is not None and host not in players:
        raise RecordError(f"the host {host!r} is not among the players")

    slips: dict[str, list[Serial]] | None = None  # annotated: else mypy infers the dict and skips `if slips is None`
    if rules.serial_source is SerialSource.SLIPS:
        raw_slips = record.get("slips")
        if not isinstance(raw_slips, Mapping) or set(raw_slips) != set(players):
            raise RecordError("with serial_source 'slips' the record needs 'slips' for every player")
        slips = {}
        for p in players:
            if not isinstance(raw_slips[p], list) or len(raw_slips[p]) != 15:
                raise RecordError(f"{p}'s slip must list 15 serials")
            slips[p] = [_serial(s, rules) for s in raw_slips[p]]
    session = Session(rules, players, host=host, rng=_NoRng(), slips=slips)
    first_stake = record.get("first_stake")
    if first_stake is not None:
        if not isinstance(first_stake, int) or isinstance(first_stake, bool) or first_stake <= 0:
            raise RecordError("'first_stake' must be a positive whole number of units")
        # only a progressive stake carried over a seat change differs from the table's: a whole multiple of it
        if not rules.progressive_stakes or first_stake % rules.stake:
            raise RecordError(f"'first_stake' {first_stake} cannot begin a session at stake {rules.stake}"
                              + ("" if rules.progressive_stakes else " without progressive stakes"))
        session.next_stake = first_stake

    results: list[dict[str, Any]] = []
    for r, spec in enumerate(rounds):
        if not isinstance(spec, Mapping):
            raise RecordError(f"round {r} must be an object")
        if results and not results[-1]["complete"]:
            raise IllegalRecordedAction("a round follows a round that was never counted", r, None)
        serials = None
        if slips is None:
            raw = spec.get("serials")
            if not isinstance(raw, Mapping) or set(raw) != set(players):
                raise RecordError(f"round {r} needs 'serials' for exactly the players")
            serials = {p: _serial(raw[p], rules) for p in players}
        opener = spec.get("opener")
        if opener is not None and opener not in players:
            raise IllegalRecordedAction(f"the opener {opener!r} is not seated", r, None)
        if opener is not None and session.next_opener is not None and opener != session.next_opener:
            # after a counted round the rules name the opener (the first round's may carry over from the
            # table's previous seats, so it is taken as recorded)
            raise IllegalRecordedAction(f"{session.next_opener!r} opens this round, not {opener!r}", r, None)
        if not isinstance(spec.get("last_hand", False), bool):
            raise RecordError(f"round {r}'s 'last_hand' is true or false")
        if spec.get("last_hand"):
            session.declare_last_hand()
        try:
            round_ = session.deal(serials, opener)
        except SessionOver as exc:
            raise IllegalRecordedAction(str(exc), r, None) from None
        if verify and "commitment" in spec:  # (a salt without one: no commitment, not one that "does not match")
            salt, digest = str(spec.get("salt", "")), str(spec.get("commitment", ""))
            if not verify_commitment(players, round_.serials, salt, digest):
                raise IllegalRecordedAction("the commitment does not match the serials and salt", r, None)
        elif verify:
            raise IllegalRecordedAction("the round carries no commitment to verify", r, None)
        actions = spec.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError(f"round {r}: 'actions' must be a list")
        for i, data in enumerate(actions):
            try:
                action = parse_action(data, rules)
                session.apply(action)
            except GameError as exc:
                raise IllegalRecordedAction(str(exc), r, i) from None
        results.append(outcome_to_dict(round_.outcome) if round_.outcome is not None else _incomplete(round_))
    return {"rounds": results, "totals": session.totals()}
