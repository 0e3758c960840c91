"""``liars replay FILE|-``: re-scores a game record as JSON; exit 2 and no traceback for anything wrong."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cli import main
from core.serial import Serial
from core.serial.fairness import commitment
from core.serial.record import IllegalRecordedAction, RecordError
from core.serial.record import replay as core_replay
from tests.core.serial.test_formats import RECORD

EXAMPLE_1: dict[str, Any] = {
    "rules": "classic",
    "players": ["P1", "P2", "P3"],
    "rounds": [
        {
            "serials": {"P1": "06742088", "P2": "92859819", "P3": "07202503"},
            "opener": "P1",
            "actions": [
                {"player": "P1", "bid": [2, 0]},
                {"player": "P2", "bid": "2x5"},
                {"player": "P3", "bid": "3 zeros"},
                {"player": "P1", "bid": [3, 8]},
                {"player": "P2", "bid": [3, 9]},
                {"player": "P3", "bid": [4, 0]},
                {"player": "P1", "bid": [5, 0]},
                {"player": "P2", "challenge": True},
                {"player": "P3", "bid": [6, 0]},
                {"player": "P1", "challenge": True},
                {"player": "P2", "challenge": True},
            ],
        }
    ],
}

EXAMPLE_2: dict[str, Any] = {
    "rules": "salomon",
    "players": ["Brad", "Leo", "Mike"],
    "rounds": [
        {
            "serials": {"Brad": "15101952", "Leo": "39540096", "Mike": "93004455"},
            "opener": "Brad",
            "actions": [
                {"player": "Brad", "bid": "3 fives"},
                {"player": "Leo", "challenge": True},
                {"player": "Mike", "bid": [3, 8]},
                {"player": "Brad", "challenge": True},
                {"player": "Leo", "challenge": True},
                {"player": "Mike", "bid": "4 5s"},
                {"player": "Brad", "challenge": True},
                {"player": "Leo", "challenge": True},
            ],
        }
    ],
}


def run(argv: list[str]) -> int:
    """``main`` returns the exit code or raises SystemExit with it (argparse, unreadable input)."""
    try:
        return main(argv)
    except SystemExit as exc:
        assert isinstance(exc.code, int)
        return exc.code


def replay(record: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "record.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record), encoding="utf-8")
    code = run(["replay", str(path), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_failure(code: int, out: str, err: str) -> str:
    assert code == 2 and out == ""
    assert err.startswith("liars: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def illegal(code: int, out: str, err: str) -> dict[str, Any]:
    assert code == 2 and "Traceback" not in err
    data = json.loads(out)
    assert set(data) == {"error", "round", "action"}
    return dict(data)


# -- scoring records ------------------------------------------------------------------------------
def test_replay_worked_example_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = replay(EXAMPLE_1, tmp_path, capsys)
    assert code == 0
    data = json.loads(out)
    (round_,) = data["rounds"]
    assert round_["complete"] is True
    assert round_["final_bid"] == {"player": "P3", "quantity": 6, "digit": 0}
    assert round_["final_bid_text"] == "6 zeros"
    assert (round_["count"], round_["made"], round_["multiplier"]) == (5, False, 1)
    assert sorted((t["from"], t["to"], t["units"]) for t in round_["transfers"]) == [
        ("P3", "P1", 1),
        ("P3", "P2", 1),
    ]
    assert round_["next_opener"] == "P3" and round_["next_stake"] == 1
    assert data["totals"] == {"P1": 1, "P2": 1, "P3": -2}


def test_replay_worked_example_2_from_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(EXAMPLE_2)))
    assert run(["replay", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    round_ = data["rounds"][0]
    assert round_["final_bid"] == {"player": "Mike", "quantity": 4, "digit": 5}
    assert (round_["count"], round_["made"]) == (5, True)
    assert data["totals"] == {"Brad": -1, "Leo": -1, "Mike": 2}


def test_replay_pretty_prints_the_same_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, compact, _ = replay(EXAMPLE_2, tmp_path, capsys)
    code, pretty, _ = replay(EXAMPLE_2, tmp_path, capsys, "--pretty")
    assert code == 0 and pretty.count("\n") > 10 and json.loads(pretty) == json.loads(compact)


def test_an_unfinished_round_is_reported_incomplete(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = json.loads(json.dumps(EXAMPLE_2))
    record["rounds"][0]["actions"] = record["rounds"][0]["actions"][:5]  # Mike's 3x8 challenged all around
    record["rounds"].append(
        {"serials": {"Brad": "15101952", "Leo": "39540096", "Mike": "93004455"}, "opener": "Leo", "actions": []}
    )
    code, out, _ = replay({**record, "rounds": record["rounds"][:1]}, tmp_path, capsys)
    assert code == 0
    data = json.loads(out)
    assert data["rounds"] == [
        {
            "complete": False,
            "standing_bid": {"player": "Mike", "quantity": 3, "digit": 8},
            "to_act": "Mike",
            "phase": "rebid",
        }
    ]
    assert data["totals"] == {"Brad": 0, "Leo": 0, "Mike": 0}


def test_a_round_with_no_actions_is_incomplete(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = {**EXAMPLE_1, "rounds": [{**EXAMPLE_1["rounds"][0], "actions": []}]}
    code, out, _ = replay(record, tmp_path, capsys)
    assert code == 0
    assert json.loads(out)["rounds"] == [{"complete": False, "standing_bid": None, "to_act": "P1", "phase": "bidding"}]


def test_a_session_record_carries_stakes_and_openers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The 1986 progressive-stakes example at five players; later rounds name no opener (final bidder opens).
    players = ["a", "b", "c", "d", "e"]

    def hand(digits: list[str], bidder: str, bid: str) -> dict[str, Any]:
        i = players.index(bidder)
        order = players[i:] + players[:i]
        actions: list[dict[str, Any]] = [{"player": bidder, "bid": bid}]
        actions += [{"player": p, "challenge": True} for p in order[1:]]
        actions.append({"player": bidder, "count": True})
        return {"serials": dict(zip(players, digits, strict=True)), "actions": actions}

    other = "12456789"
    record = {
        "rules": "salomon",
        "players": players,
        "rounds": [
            {**hand(["66000000", other, other, other, other], "a", "8 sixes"), "opener": "a"},
            hand(["33330000", "33330000", other, other, other], "a", "8 threes"),
            hand(["22000000", "22220000", other, other, other], "a", "6 twos"),
        ],
    }
    code, out, _ = replay(record, tmp_path, capsys)
    assert code == 0
    rounds = json.loads(out)["rounds"]
    assert [r["stake"] for r in rounds] == [1, 4, 2]
    assert [r["next_stake"] for r in rounds] == [4, 2, 1]
    assert [r["made"] for r in rounds] == [False, True, True]
    assert rounds[1]["net"]["a"] == 32 and rounds[1]["multiplier_text"] == "×2 = n+3 (×2)"
    assert json.loads(out)["totals"]["a"] == -4 + 32 + 8


def slips_record(rounds: int) -> dict[str, Any]:
    players = ["a", "b"]
    slips = {p: [f"{i}{j:02d}00002" for j in range(15)] for i, p in enumerate(players)}  # every last digit even
    hand = {"actions": [{"player": "a", "bid": [1, 0]}, {"player": "b", "challenge": True}]}
    return {
        "rules": {"preset": "classic", "serial_source": "slips", "first_opener": "host"},
        "host": "a",
        "players": players,
        "slips": slips,
        "rounds": [hand] * rounds,
    }


def test_a_slips_record_plays_ten_rounds_the_tenth_at_double_stake(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = replay(slips_record(10), tmp_path, capsys)
    assert code == 0
    rounds = json.loads(out)["rounds"]
    assert [r["stake"] for r in rounds] == [1] * 9 + [2]
    assert [r["serials"]["a"][1:3] for r in rounds] == [f"{j:02d}" for j in range(10)]  # k = 0: no skipping
    code, out, err = replay(slips_record(11), tmp_path, capsys)
    assert illegal(code, out, err)["round"] == 10


# -- illegal actions: exit 2 with {"error", "round", "action"} ----------------------------------------
@pytest.mark.parametrize(
    ("round_index", "action_index", "action", "words"),
    [
        (0, 3, {"player": "P3", "bid": [3, 8]}, "not your turn"),
        (0, 3, {"player": "P1", "bid": [3, 0]}, "does not beat"),
        (0, 0, {"player": "P1", "challenge": True}, "no bid to challenge"),
        (0, 3, {"player": "P1", "bid": [25, 0]}, "1 to 24"),
        (0, 3, {"player": "P1", "bid": "fivesevens"}, "as a bid"),
        (0, 3, {"player": "P1", "count": True}, "count"),
        (0, 11, {"player": "P3", "bid": [9, 9]}, "over"),
        (0, 3, {"player": "zed", "challenge": True}, "zed is not playing"),  # a name, not chat's <@zed>
    ],
)
def test_an_illegal_action_exits_2_naming_round_and_action(
    round_index: int,
    action_index: int,
    action: dict[str, Any],
    words: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    record = json.loads(json.dumps(EXAMPLE_1))
    actions = record["rounds"][0]["actions"]
    record["rounds"][0]["actions"] = [*actions[:action_index], action, *actions[action_index:]]
    data = illegal(*replay(record, tmp_path, capsys))
    assert (data["round"], data["action"]) == (round_index, action_index)
    assert words in data["error"].lower() and "<@" not in data["error"]


def test_a_round_after_an_uncounted_round_is_illegal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    unfinished = {**EXAMPLE_1["rounds"][0], "actions": EXAMPLE_1["rounds"][0]["actions"][:3]}
    record = {**EXAMPLE_1, "rounds": [unfinished, EXAMPLE_1["rounds"][0]]}
    data = illegal(*replay(record, tmp_path, capsys))
    assert (data["round"], data["action"]) == (1, None)


# -- malformed input: exit 2 with one line -------------------------------------------------------------
@pytest.mark.parametrize("text", ["{", '{"players": ["a", "b"],}', "", "not json", "[1, 2"])
def test_malformed_json_exits_2_with_one_line(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line_failure(*replay(text, tmp_path, capsys))
    assert ("is empty: a record is one JSON object" in err) if text == "" else ("malformed JSON" in err), err


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"rules": {"preset": "classic", "bogus": True}}, "unknown option"),
        ({"rules": {"rebid": "sometimes"}}, "rebid"),
        ({"rules": "poker"}, "unknown preset"),
        ({"rules": 7}, "rules"),
        ({"stake": 0}, "stake"),
        ({"players": ["P1"]}, "2 to 12"),
        ({"players": ["P1", "P1", "P3"]}, "distinct"),
        ({"players": "P1 P2 P3"}, "players"),
        ({"rounds": {}}, "rounds"),
        ({"host": "zed"}, "host"),
        ({"rounds": [{"serials": {"P1": "0674208", "P2": "92859819", "P3": "07202503"}, "opener": "P1"}]}, "serial"),
        ({"rounds": [{"serials": {"P1": "06742088", "P2": "92859819"}, "opener": "P1"}]}, "serials"),
        ({"rounds": [{"serials": {"P1": "06742088", "P2": "92859819", "P3": "07202503"}}]}, "opener"),
        ({"rounds": [{**EXAMPLE_1["rounds"][0], "actions": [{"player": "P1", "bid": [0, 3]}]}]}, "bid"),
        ({"rounds": [{**EXAMPLE_1["rounds"][0], "actions": [{"player": "P1", "fold": True}]}]}, "it knows 'bid'"),
        ({"rounds": [{**EXAMPLE_1["rounds"][0], "actions": [{"player": "P1", "challenge": 1}]}]}, "must be true"),
        ({"rounds": [{**EXAMPLE_1["rounds"][0], "actions": "P1 bids"}]}, "actions"),
        ({"rounds": ["round one"]}, "round 0"),
    ],
)
def test_a_malformed_record_exits_2_with_one_line(
    change: dict[str, Any], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = one_line_failure(*replay({**EXAMPLE_1, **change}, tmp_path, capsys))
    assert words in err


def test_a_record_that_is_not_an_object_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one_line_failure(*replay([1, 2, 3], tmp_path, capsys))


def test_a_missing_file_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["replay", str(tmp_path / "nope.json")])
    out, err = capsys.readouterr()
    one_line_failure(code, out, err)


def test_an_unknown_command_line_option_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(EXAMPLE_1), encoding="utf-8")
    assert run(["replay", str(path), "--bogus"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "unrecognized arguments: --bogus" in err and "Traceback" not in err


def test_a_file_that_is_not_utf8_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(b"\xff\xfe{}")
    code = run(["replay", str(path)])
    one_line_failure(code, *capsys.readouterr())


def test_absurdly_nested_json_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = replay("[" * 100_000, tmp_path, capsys)
    one_line_failure(code, out, err)


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_a_number_longer_than_python_reads_exits_2_with_one_line(
        command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 5,000-digit stake was a traceback and exit 1 (Python's limit on an integer's digits is a ValueError)."""
    text = json.dumps(EXAMPLE_1)[:-1] + ', "stake": ' + "9" * 5_000 + "}"
    path = tmp_path / "long.json"
    path.write_text(text, encoding="utf-8")
    code = run([command, str(path)])
    out, err = capsys.readouterr()
    assert "more than 4,300 digits" in one_line_failure(code, out, err)
    stake = "9" * 4_300  # read, but a made bid pays twice it: 4,301 digits, which did not print (a traceback)
    path.write_text(json.dumps(EXAMPLE_1)[:-1] + ', "stake": ' + stake + "}", encoding="utf-8")
    code = run(["replay", str(path)])
    out, err = capsys.readouterr()
    assert "too large to print" in one_line_failure(code, out, err)


# -- verify ---------------------------------------------------------------------------------------------
def committed(salt: str, digits: dict[str, str]) -> dict[str, Any]:
    record = json.loads(json.dumps(EXAMPLE_1))
    players = record["players"]
    record["rounds"][0]["salt"] = salt
    record["rounds"][0]["commitment"] = commitment(players, {p: Serial(d) for p, d in digits.items()}, salt)
    return dict(record)


def test_verify_accepts_matching_commitments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(committed("ab" * 16, EXAMPLE_1["rounds"][0]["serials"])), encoding="utf-8")
    assert run(["verify", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verified"] is True and data["totals"] == {"P1": 1, "P2": 1, "P3": -2}


def test_verify_rejects_a_commitment_to_other_serials(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = {**EXAMPLE_1["rounds"][0]["serials"], "P3": "07202504"}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(committed("ab" * 16, other)), encoding="utf-8")
    code = run(["verify", str(path)])
    data = illegal(code, *capsys.readouterr())
    assert (data["round"], data["action"]) == (0, None) and "commitment" in data["error"]


# -- the installed console script ------------------------------------------------------------------------
def liars_command() -> list[str]:
    script = Path(sys.executable).parent / "liars"
    return [str(script)] if script.exists() else [sys.executable, "-m", "bot.cli"]


def test_the_console_script_reports_an_illegal_action_without_a_traceback() -> None:
    record = json.loads(json.dumps(EXAMPLE_2))
    record["rounds"][0]["actions"].append({"player": "Leo", "bid": [9, 9]})  # after the count
    done = subprocess.run(
        [*liars_command(), "replay", "-"], input=json.dumps(record), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert json.loads(done.stdout) == {"error": "this round is over: it has been counted", "round": 0, "action": 8}


# -- fuzz: whatever the JSON, replay answers or refuses cleanly ---------------------------------------------
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 100) | st.text(max_size=12) | st.sampled_from(["P1", "3 zeros", "9x"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += paths(value, (*prefix, i))
    return found


@settings(max_examples=300, deadline=None)
@given(base=st.sampled_from([EXAMPLE_1, EXAMPLE_2]), data=st.data())
def test_replay_never_fails_with_anything_but_its_two_errors(base: dict[str, Any], data: st.DataObject) -> None:
    record = json.loads(json.dumps(base))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths(record)))
        value = data.draw(json_values)
        if not path:
            record = value
            continue
        parent = record
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = value
    try:
        result = core_replay(record)
    except (RecordError, IllegalRecordedAction) as exc:
        assert "\n" not in str(exc)
        return
    assert sum(result["totals"].values()) == 0
    json.dumps(result)


@pytest.mark.parametrize("name", ["\n", "a\tb", "\x07", "\u2028"])
def test_a_player_named_with_control_characters_is_refused_on_one_line(name: str) -> None:
    """Found by the test above: a recorded action by a player named "\\n" was refused with the name written raw,
    over two lines.  The refusal names the player with the character escaped."""
    record = json.loads(json.dumps(RECORD))
    record["rounds"][0]["actions"][0]["player"] = name
    with pytest.raises(IllegalRecordedAction) as caught:
        core_replay(record)
    text = str(caught.value)
    assert text.isprintable() and "is not playing" in text
    assert repr(name)[1:-1] in text and caught.value.to_dict()["error"] == text


def test_liars_replay_accepts_a_reduced_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import pathlib

    path = pathlib.Path(str(tmp_path)) / "r.json"
    path.write_text(json.dumps(RECORD))
    assert main(["replay", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rounds"][0]["count"] == 3 and out["rounds"][0]["serials"] == {"ann": "123", "bob": "331"}


def test_a_later_round_opened_by_someone_the_rules_do_not_name_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Classic: the final bidder opens the next round.  Round 1's final bidder is P3 (6 zeros)."""
    first = EXAMPLE_1["rounds"][0]
    second = {"serials": first["serials"], "actions": [{"player": "P3", "bid": [1, 1]},
                                                      {"player": "P1", "challenge": True},
                                                      {"player": "P2", "challenge": True}]}
    named = json.loads(json.dumps(EXAMPLE_1))
    named["rounds"].append({**second, "opener": "P3"})
    assert replay(named, tmp_path, capsys)[0] == 0
    unnamed = json.loads(json.dumps(EXAMPLE_1))  # left out: the rules decide, as before
    unnamed["rounds"].append(second)
    assert replay(unnamed, tmp_path, capsys)[0] == 0
    wrong = json.loads(json.dumps(EXAMPLE_1))
    wrong["rounds"].append({**second, "opener": "P1",
                            "actions": [{"player": "P1", "bid": [1, 1]}, {"player": "P2", "challenge": True},
                                        {"player": "P3", "challenge": True}]})
    refused = illegal(*replay(wrong, tmp_path, capsys))
    assert refused == {"error": "'P3' opens this round, not 'P1'", "round": 1, "action": None}


# -- hand-written records read as their words say (hunt, session 24) ------------------------------------------
def dinner_record(**top: Any) -> dict[str, Any]:
    """A two-player elimination, written the README's way: "format" at the top; one round decides the payer."""
    return {"format": "elimination", "rules": "classic", "players": ["P1", "P2"], **top,
            "rounds": [{"serials": {"P1": "11111111", "P2": "22222222"}, "opener": "P1",
                        "actions": [{"player": "P1", "bid": [1, 1]}, {"player": "P2", "challenge": True}]}]}


def test_an_elimination_record_with_its_format_at_the_top_takes_stake_0(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """"stake": 0 beside a top-level "format": "elimination" was refused ("stake=0 is for format=elimination")."""
    for record in (dinner_record(stake=0), {**dinner_record(), "rules": {"preset": "classic", "stake": 0}}):
        code, out, err = replay(record, tmp_path, capsys)
        assert code == 0, err
        result = json.loads(out)
        assert result["payer"] == "P2" and result["transfers"] == [], result


@pytest.mark.parametrize("option", [{"serial_source": "slips"}, {"last_hand_double": True}])
def test_an_elimination_record_with_an_option_it_refuses_exits_2_on_one_line(
        option: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Options the elimination refuses gave a 32-line traceback and exit 1."""
    one_line_failure(*replay({**dinner_record(stake=1), "rules": {"preset": "classic", **option}}, tmp_path, capsys))


def test_a_record_whose_top_says_format_rounds_is_the_usual_game(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """"format": "rounds" at the top was sent to the elimination's replay and refused."""
    code, out, err = replay({**EXAMPLE_1, "format": "rounds"}, tmp_path, capsys)
    assert code == 0, err
    assert json.loads(out)["totals"] == json.loads(replay(EXAMPLE_1, tmp_path, capsys)[1])["totals"]


@pytest.mark.parametrize(("rules", "first_stake"), [("classic", 1000), ("salomon", 3)])
def test_a_first_stake_no_table_could_carry_is_refused(
        rules: str, first_stake: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`first_stake` was taken whatever it said: round 1 of a classic record was paid at 1,000 and verified."""
    stake = 2 if rules == "salomon" else 1
    example = EXAMPLE_2 if rules == "salomon" else EXAMPLE_1
    err = one_line_failure(*replay({**example, "stake": stake, "first_stake": first_stake}, tmp_path, capsys))
    assert "'first_stake'" in err
    code, out, err = replay({**EXAMPLE_2, "stake": 2, "first_stake": 8}, tmp_path, capsys)
    assert code == 0 and json.loads(out)["rounds"][0]["stake"] == 8, err  # a carried progressive stake: taken


@pytest.mark.parametrize("said", ["no", "false", 0, 1, None])
def test_last_hand_and_push_are_true_or_false(said: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """"last_hand": "no" declared the last hand (round 1 re-scored at double stake)."""
    record = {**EXAMPLE_1, "rules": {"preset": "classic", "last_hand_double": True}}
    record["rounds"] = [{**record["rounds"][0], "last_hand": said}]
    assert "'last_hand' is true or false" in one_line_failure(*replay(record, tmp_path, capsys))
    dinner = dinner_record(stake=1)
    dinner["rounds"] = [{**dinner["rounds"][0], "push": said}]
    assert "'push' is true or false" in one_line_failure(*replay(dinner, tmp_path, capsys))


def _write(tmp_path: Path, record: object) -> str:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return str(path)


def test_verify_of_a_list_names_the_session_that_failed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A table whose seats changed exports a list, one record per session: a tampered second session was
    reported exactly as a tampered first one (round 0, no session named)."""
    serials = {"a": "11111111", "b": "22222222"}
    good = {"rules": "classic", "players": ["a", "b"], "rounds": [
        {"serials": serials, "opener": "a", "salt": "s",
         "commitment": commitment(["a", "b"], {p: Serial.parse(s) for p, s in serials.items()}, "s"),
         "actions": [{"player": "a", "bid": [1, 1]}, {"player": "b", "challenge": True}]}]}
    bad = {**good, "rounds": [{**good["rounds"][0], "salt": "t"}]}  # type: ignore[dict-item]
    assert main(["verify", _write(tmp_path, [good, good])]) == 0
    assert json.loads(capsys.readouterr().out)["verified"] is True
    for sessions, failed in (([good, bad], 1), ([bad, good], 0)):
        assert main(["verify", _write(tmp_path, sessions)]) == 2
        said = json.loads(capsys.readouterr().out)
        assert said["session"] == failed and said["round"] == 0 and "commitment" in said["error"]
    assert main(["replay", _write(tmp_path, [good, {"rules": "classic", "players": ["a"], "rounds": []}])]) == 2
    assert capsys.readouterr().err.startswith("liars: session 1: ")
    assert main(["verify", _write(tmp_path, bad)]) == 2
    assert "session" not in json.loads(capsys.readouterr().out)  # one record: no session to name


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_an_empty_list_is_no_record(command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`[]` was {"verified": true, "sessions": []}, exit 0."""
    assert main([command, _write(tmp_path, [])]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"liars: the file holds an empty list: no record to {command}\n"


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_an_elimination_round_after_the_game_was_over_is_one_line(
        command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """'safe' left one player still in, and a round followed: a ValueError traceback (exit 1)."""
    record = {"format": "elimination", "rules": "classic", "stake": 1, "players": ["a", "b"], "safe": ["b"],
              "rounds": [{"serials": {"a": "11111111"}, "opener": "a", "salt": "", "commitment": "", "actions": []}]}
    assert main([command, _write(tmp_path, record)]) == 2
    said = json.loads(capsys.readouterr().out)
    assert said["round"] == 0 and said["error"] == "1 still in: no round can be dealt"


def test_verify_of_an_elimination_round_without_commitment_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It said the (absent) commitment "does not match the serials and salt", as if they were tampered with."""
    first: dict[str, Any] = {"serials": {"a": "11111111", "b": "22222222"}, "opener": "a", "actions": []}
    record = {"format": "elimination", "rules": "classic", "stake": 1, "players": ["a", "b"], "rounds": [first]}
    assert main(["verify", _write(tmp_path, record)]) == 2
    assert json.loads(capsys.readouterr().out)["error"] == "the round carries no commitment to verify"
    assert main(["replay", _write(tmp_path, record)]) == 0  # (replay does not ask for it)
    capsys.readouterr()
    first["salt"] = "00"  # a salt and no commitment: not "does not match" either
    assert main(["verify", _write(tmp_path, record)]) == 2
    assert json.loads(capsys.readouterr().out)["error"] == "the round carries no commitment to verify"
    serial = {**EXAMPLE_1, "rounds": [{**EXAMPLE_1["rounds"][0], "salt": "00"}]}  # the rounds game, the same
    serial["rounds"][0].pop("commitment", None)
    assert main(["verify", _write(tmp_path, serial)]) == 2
    assert json.loads(capsys.readouterr().out)["error"] == "the round carries no commitment to verify"


def _records_of_every_game() -> list[dict[str, Any]]:
    from tests.core.cards._helpers import seed_record

    return [EXAMPLE_1, dinner_record(stake=1), seed_record()]


@pytest.mark.parametrize("command", ["replay", "verify"])
@pytest.mark.parametrize(("misspelt", "meant"), [("rule", "rules"), ("stakes", "stake"), ("player", "players")])
@pytest.mark.parametrize("game", ["serial", "elimination", "cards"])
def test_a_misspelt_key_at_the_top_of_a_record_is_refused_naming_the_nearest(
        game: str, misspelt: str, meant: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`"rule": "salomon"` was ignored: the record replayed (and verified) as the default preset's."""
    record = dict(zip(["serial", "elimination", "cards"], _records_of_every_game(), strict=True))[game]
    assert run(["replay", _write(tmp_path, record)]) == 0  # as it is, it replays
    capsys.readouterr()
    value = {"rule": "salomon", "stakes": 5, "player": ["P1", "P2"]}[misspelt]
    code = run([command, _write(tmp_path, {**record, misspelt: value})])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", out
    assert err.count("\n") == 1 and f"'{misspelt}'" in err and f"did you mean '{meant}'?" in err, err


def test_a_misspelt_format_is_named_not_hidden_behind_the_rules_it_changes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`"formt": "elimination"` with stake 0 was refused for its stake ("stake=0 is for format=elimination")."""
    record = {key: value for key, value in dinner_record(stake=0).items() if key != "format"}
    err = one_line_failure(*replay({**record, "formt": "elimination"}, tmp_path, capsys))
    assert "'formt' (did you mean 'format'?)" in err, err


def test_a_key_far_from_any_known_one_is_refused_listing_the_known_ones(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line_failure(*replay({**EXAMPLE_1, "zzz": 1}, tmp_path, capsys))
    assert "'zzz'" in err and "'first_stake'" in err and "'rules'" in err, err
    code, _, err = replay({**EXAMPLE_1, "names": {"P1": "Ann"}, "game": "serial"}, tmp_path, capsys)
    assert code == 0, err  # what `export` adds: the players' display names, the game's name
