"""``reader`` and ``hard`` decide exactly as recorded: every decision of a fixed set of seeded rounds (2, 3 and 5
players; classic and Salomon; the full 8×10 game, where ``hard`` is the reader with the table's trained dials)
and the state of the decisions' rng after each round, against ``reader_pinned.json`` beside this file.

The dials' defaults are checked elsewhere; this pins what they *do*, so a new dial, a refactor of the reading or
a change to the shipped dials that silently changes a decision (or draws one more number from the rng) fails
here.  A change meant to alter the play regenerates the fixture, and says so in its commit:

    .venv/bin/python -m tests.core.serial.test_reader_pinned --regen
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from core.serial.players import get_strategy
from core.serial.round import Action, CallCount, Challenge, MakeBid, Round
from core.serial.rules import make_rules
from core.serial.serials import deal_serial
from core.serial.view import seat_view

FIXTURE = Path(__file__).with_name("reader_pinned.json")
TABLES = [(name, preset, n) for name in ("reader", "hard") for preset in ("classic", "salomon") for n in (2, 3, 5)]
ROUNDS = 6  # per table; heads-up `hard` (the tables with the hedged answer to an opening) plays more, below


def _rounds(name: str, preset: str, n: int) -> int:
    return 24 if (name, n) == ("hard", 2) else ROUNDS


def _text(action: Action) -> str:
    if isinstance(action, MakeBid):
        return f"{action.bid.quantity}x{action.bid.digit}"
    return "challenge" if isinstance(action, Challenge) else "count"


def _state(rng: random.Random) -> str:
    return hashlib.sha256(repr(rng.getstate()).encode()).hexdigest()[:16]


def play(name: str, preset: str, n: int) -> list[dict[str, Any]]:
    """The table's rounds: each one's deal, its decisions in order and the decisions' rng state after it.

    Every seat plays ``name`` (one strategy object per seat, as at a real table, its reading cache and all);
    the opener rotates; the deals come from their own rng, so only the decisions draw from the pinned one."""
    rules = make_rules(preset)
    seats = [f"p{i}" for i in range(n)]
    players = {p: get_strategy(name) for p in seats}
    deal_rng, rng = random.Random(f"deal:{name}:{preset}:{n}"), random.Random(f"decide:{name}:{preset}:{n}")
    out: list[dict[str, Any]] = []
    for r in range(_rounds(name, preset, n)):
        serials = {p: deal_serial(deal_rng, rules.serial_length, rules.digits) for p in seats}
        round_ = Round(rules, seats, serials, seats[r % n], rules.stake)
        decisions = []
        while round_.outcome is None:
            who = round_.to_act
            assert who is not None
            action = players[who].decide(seat_view(round_, who), rng)
            assert isinstance(action, (MakeBid, Challenge, CallCount)) and action.player == who
            round_.apply(action)
            decisions.append(f"{who}:{_text(action)}")
        out.append({"serials": " ".join(str(serials[p]) for p in seats), "decisions": " ".join(decisions),
                    "rng": _state(rng)})
    return out


def _key(name: str, preset: str, n: int) -> str:
    return f"{name} {preset}/{n}"


@pytest.fixture(scope="module")
def pinned() -> dict[str, list[dict[str, Any]]]:
    data: dict[str, list[dict[str, Any]]] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize(("name", "preset", "n"), TABLES, ids=[_key(*t) for t in TABLES])
def test_every_decision_is_as_recorded(name: str, preset: str, n: int, pinned: dict[str, Any]) -> None:
    recorded = pinned[_key(name, preset, n)]
    played = play(name, preset, n)
    assert len(played) == len(recorded) == _rounds(name, preset, n)
    for i, (now, then) in enumerate(zip(played, recorded, strict=True)):
        assert now["serials"] == then["serials"], f"round {i}: the deal changed (the test's, not the player's)"
        assert now["decisions"] == then["decisions"], f"round {i} of {_key(name, preset, n)}"
        assert now["rng"] == then["rng"], f"round {i}: the same decisions, but a different number of draws"


def test_the_fixture_covers_real_play(pinned: dict[str, Any]) -> None:
    """Not a fixture of trivial rounds: every table has rounds with several bids, and they end every way."""
    assert set(pinned) == {_key(*t) for t in TABLES}
    for rounds in pinned.values():
        assert max(r["decisions"].count("x") for r in rounds) >= 3
    endings = {r["decisions"].split(":")[-1] for rounds in pinned.values() for r in rounds}
    assert {"challenge", "count"} <= endings  # Salomon's rebid right lets a bidder call for the count


def regenerate() -> None:
    data = {_key(*t): play(*t) for t in TABLES}
    FIXTURE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE} ({sum(len(v) for v in data.values())} rounds)")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regen"]:
        sys.exit(__doc__)
    regenerate()
