"""Replaying an elimination record (``liars replay`` / ``liars verify``).

The record is the serial game's, with the format at the top and who left on each round::

    {"format": "elimination", "rules": {...}, "players": [seat order], "host": "brad",
     "safe": ["ann"],                    # optional: who had left safe before this record's first round
     "rounds": [{"players": [still in], "serials": {...}, "opener": "brad", "salt", "commitment",
                 "actions": [...], "leaves": "leo"}          # or "push": true
                ...],
     "walked_out": ["mike"],             # optional: left the table while still in (the first pays)
     "payer": "brad"}                    # once the game is over

:func:`replay_elimination` re-plays every round at the players still in, decides who leaves each
(checking the record's ``leaves``, ``push`` and ``payer`` where it states them) and returns the rounds,
the order players left in, the payer and the dinner's payments.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ...records import IllegalRecordedAction, RecordError, refuse_unknown_keys
from ..bids import MAX_PLAYERS, MIN_PLAYERS
from ..errors import GameError
from ..fairness import verify_commitment
from ..record import outcome_to_dict, parse_action, rules_from_record
from ..round import Round
from ..rules import FirstOpener, Format
from ..serials import Serial, parse_fitting
from ..session import letters_opener
from .match import round_rules
from .rules import dinner, leaver, opener_after, round_summary

__all__ = ["replay_elimination"]

RECORD_KEYS = ("game", "format", "rules", "stake", "players", "host", "safe", "rounds", "walked_out", "payer", "names")
"""The keys of an elimination's record (``names``: the players' display names, which ``export`` adds)."""


def _names(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value) or len(set(value)) != len(value):
        raise RecordError(f"'{what}' must be a list of distinct names")
    return list(value)


def _serials(raw: Any, still: Sequence[str], digits: int, length: int, r: int) -> dict[str, Serial]:
    if not isinstance(raw, Mapping) or set(raw) != set(still):
        raise RecordError(f"round {r} needs 'serials' for exactly the players still in")
    out: dict[str, Serial] = {}
    for p in still:
        if not isinstance(raw[p], str):
            raise RecordError(f"a serial is a string of {length} digits, not {raw[p]!r}")
        try:
            out[p] = parse_fitting(raw[p], length, digits)
        except ValueError as exc:
            raise RecordError(str(exc)) from None
    return out


def _first_opener(spec: Mapping[str, Any], still: Sequence[str], serials: Mapping[str, Serial],
                  first: FirstOpener, host: str | None, r: int) -> str:
    opener = spec.get("opener")
    if opener is not None:
        return str(opener)
    if first is FirstOpener.LETTERS:
        return letters_opener(still, serials)
    if first is FirstOpener.HOST and host is not None:
        return host if host in still else still[0]
    raise RecordError(f"round {r} must name its opener when the rules pick one at random")


def replay_elimination(record: Mapping[str, Any], *, verify: bool = False) -> dict[str, Any]:
    """Re-play an elimination record; with ``verify``, every round's commitment must match."""
    refuse_unknown_keys(record, RECORD_KEYS, "the record")
    if record.get("format") != "elimination":
        raise RecordError("an elimination record says \"format\": \"elimination\"")
    rules = dataclasses.replace(rules_from_record(record), format=Format.ELIMINATION)
    plain = round_rules(rules)
    players = _names(record.get("players"), "players")
    walked = _names(record.get("walked_out", []), "walked_out")
    # (a game carried on at fewer seats than it needs: who walked out, the last of them even with no seat left)
    if not (0 if walked else MIN_PLAYERS) <= len(players) <= MAX_PLAYERS:
        raise RecordError(f"a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players")
    host = record.get("host")
    if host is not None and players and host not in players:
        raise RecordError(f"the host {host!r} is not among the players")
    safe = _names(record.get("safe", []), "safe")
    rounds = record.get("rounds")
    if not isinstance(rounds, list):
        raise RecordError("'rounds' must be a list")
    still = [p for p in players if p not in safe]
    left_here: list[str] = []
    payer: str | None = None
    opener: str | None = None
    results: list[dict[str, Any]] = []
    for r, spec in enumerate(rounds):
        if not isinstance(spec, Mapping):
            raise RecordError(f"round {r} must be an object")
        if payer is not None or (results and not results[-1]["complete"]):
            raise IllegalRecordedAction("a round follows the end of the game or an uncounted round", r, None)
        if len(still) < 2:  # ('safe' left one or nobody in: the game was over before it)
            raise IllegalRecordedAction(f"{len(still)} still in: no round can be dealt", r, None)
        if "players" in spec and spec["players"] != still:
            raise IllegalRecordedAction(f"the round's players are not the {len(still)} still in", r, None)
        serials = _serials(spec.get("serials"), still, rules.digits, rules.serial_length, r)
        if opener is None:
            opener = _first_opener(spec, still, serials, rules.first_opener, host, r)
        elif spec.get("opener", opener) != opener:
            raise IllegalRecordedAction(f"{opener!r} opens this round, not {spec.get('opener')!r}", r, None)
        if opener not in still:
            raise IllegalRecordedAction(f"the opener {opener!r} is not still in", r, None)
        round_ = Round(plain, still, serials, opener, 1)
        if verify and "commitment" not in spec:  # (a salt without one said "does not match")
            raise IllegalRecordedAction("the round carries no commitment to verify", r, None)
        if verify and not verify_commitment(still, serials, str(spec.get("salt", "")), str(spec.get("commitment", ""))):
            raise IllegalRecordedAction("the commitment does not match the serials and salt", r, None)
        actions = spec.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError(f"round {r}: 'actions' must be a list")
        for i, data in enumerate(actions):
            try:
                round_.apply(parse_action(data, plain))
            except GameError as exc:
                raise IllegalRecordedAction(str(exc), r, i) from None
        outcome = round_.outcome
        if outcome is None:
            results.append({"complete": False, "players": list(still), "to_act": round_.to_act})
            continue
        leaves = leaver(outcome, still)
        # checked where the record states them ("leaves", "push"), each against the count
        if not isinstance(spec.get("push", False), bool):
            raise RecordError(f"round {r}'s 'push' is true or false")
        wrong_push = "push" in spec and spec["push"] != (leaves is None)
        if ("leaves" in spec and spec["leaves"] != leaves) or wrong_push:
            stated = [f"{spec['leaves']} left" if "leaves" in spec else "", "a push" if spec.get("push") else ""]
            said = " and ".join(s for s in stated if s) or "no push"
            counted = f"{leaves} leaves safe" if leaves is not None else "a push"
            raise IllegalRecordedAction(f"the record says {said}, the count says {counted}", r, None)
        result = {**round_summary(outcome_to_dict(outcome)), "players": list(still)}
        result.update({"leaves": leaves} if leaves is not None else {"push": True})
        results.append(result)
        opener = opener_after(still, round_.opener, outcome, leaves)
        result["next_opener"] = opener  # the elimination's rule (the serial game's would name who just left)
        if leaves is not None:
            left_here.append(leaves)
            still.remove(leaves)
            if len(still) == 1:
                payer = still[0]
                result["next_opener"] = None
    if walked:  # they left the table while still in: no longer seated, and the first pays
        if payer is not None or any(p in players or p in safe for p in walked):
            raise RecordError("'walked_out' names players who were seated or safe when the game ended")
        if rounds:
            raise RecordError("a walk-out ends the game at a seat change: its record has no rounds")
        payer = walked[0]
    if "payer" in record and record["payer"] != payer:
        raise IllegalRecordedAction(f"the record says {record['payer']!r} pays, the rounds say {payer!r}",
                                    len(rounds), None)
    payees = [*safe, *left_here, *(p for p in still if p != payer)]
    transfers = dinner(payer, payees, rules.stake) if payer is not None else ()
    totals = dict.fromkeys([*players, *safe, *walked], 0)
    for t in transfers:
        totals[t.payer] -= t.units
        totals[t.payee] += t.units
    return {"format": "elimination", "rounds": results, "left": left_here, "still_in": still, "payer": payer,
            "stake": rules.stake, "transfers": [{"from": t.payer, "to": t.payee, "units": t.units} for t in transfers],
            "totals": totals}


