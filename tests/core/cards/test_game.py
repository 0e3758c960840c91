"""The card game behind the seam: deals, says (privacy), settlements, forms, parsing, timeouts, seats."""

from __future__ import annotations

import random
from typing import Any

import pytest

from core.cards.declarations import Declaration
from core.cards.errors import NoLastHand
from core.cards.game import CARDS, CardsMatch
from core.cards.hands import HandType
from core.cards.record import commitment, replay
from core.cards.text import PICTURE_WORDS
from core.errors import ActionParseError, GameError, NotYourTurn, RoundOver
from core.game import SayKind, Settled

SUITS = set("♣♦♥♠🃏")


def new(players: list[str], preset: str = "standard", **options: Any) -> CardsMatch:
    return CARDS.new_match(CARDS.make_rules(preset, options), players, host=players[0])


def play_out(m: CardsMatch, rng: random.Random, level: str = "normal") -> list[Settled]:
    """Deal and play with computer players until the game is over; check privacy on the way."""
    settled: list[Settled] = []
    while not m.over:
        if not m.live:  # (a round already dealt is played on)
            deal = m.deal(rng)
            step = m.apply_deal(deal)
            assert [s.kind for s in step.says] == [SayKind.DEAL, SayKind.PRIVATE]
            assert step.says[1].to == deal["opener"]
            assert not SUITS & set(step.says[0].text)
        while m.live:
            who = m.to_act
            assert who is not None
            action = m.computer_decision(who, level)(rng)
            m.check(action)
            step = m.apply(action)
            for say in step.says:
                if say.kind is SayKind.PRIVATE:
                    assert say.to == who
                elif say.kind in (SayKind.NOTE, SayKind.DEAL):
                    assert not SUITS & set(say.text), say.text  # no card of a hand in public before a reveal
            settled.extend(step.settled)
    return settled


def test_a_deal_is_json_with_its_commitment() -> None:
    m = new(["a", "b", "c"])
    deal = m.deal(random.Random(1))
    assert set(deal) == {"round", "deck", "opener", "salt", "commitment"}
    assert deal["round"] == 1 and len(deal["deck"]) == 52 and deal["opener"] in ("a", "b", "c")
    assert deal["commitment"] == commitment(deal["deck"], deal["salt"])
    step = m.apply_deal(deal)
    assert m.live and m.to_act == deal["opener"]
    assert "Your hand at <#table>:" in step.says[1].text
    with pytest.raises(GameError):
        m.deal(random.Random(2))  # a round is under way


def test_apply_deal_refuses_a_commitment_that_does_not_match() -> None:
    m = new(["a", "b"])
    deal = m.deal(random.Random(1))
    deal["deck"][0], deal["deck"][1] = deal["deck"][1], deal["deck"][0]
    with pytest.raises(GameError):
        m.apply_deal(deal)
    assert not m.live


@pytest.mark.parametrize("payout", ["winner", "knockout"])
def test_a_whole_game_settles_zero_sum_with_a_ranking(payout: str) -> None:
    m = new(["a", "b", "c", "d"], payout=payout, stake=3)
    settled = play_out(m, random.Random(7))
    assert m.over and m.end_text
    assert all(sum(s.net.values()) == 0 for s in settled)
    total: dict[str, int] = {}
    for s in settled:
        for p, units in s.net.items():
            total[p] = total.get(p, 0) + units
    winner = settled[-1].ranking[0][0]
    assert [len(g) for g in settled[-1].ranking] == [1, 1, 1, 1]
    if payout == "winner":
        assert len(settled) == 1 and total[winner] == 9
        assert settled[0].outcome["winner"] == winner and len(settled[0].outcome["challenges"]) == 3
    else:
        assert len(settled) == 3 and all(s.outcome["kind"] == "challenge" for s in settled)
    assert replay(settled[-1].record)["net"] == total | {p: total.get(p, 0) for p in m.players}


def test_the_result_say_carries_the_picture() -> None:
    m = new(["annie", "bart"])
    m.apply_deal(m.deal(random.Random(3)))
    opener = m.to_act
    assert opener is not None
    other = "bart" if opener == "annie" else "annie"
    m.apply({"player": opener, "declare": {"type": "straight-flush", "ranks": ["A"]}})
    step = m.apply({"player": other, "challenge": True})
    (result,) = [s for s in step.says if s.kind is SayKind.RESULT]
    picture = result.picture
    assert picture is not None
    assert picture["declared"] == {"type": "straight-flush", "ranks": ["A"]}
    assert picture["declared_text"] == "royal flush"
    assert picture["floor"] == ["AS", "KS", "QS", "JS", "TS"]
    assert len(picture["hand"]) == 5 and picture["holds"] is False
    assert picture["active"] == opener and picture["challenger"] == other and picture["out"] == opener
    assert set(picture) >= {"value", "value_text", "names"}
    assert picture["words"] == PICTURE_WORDS  # every word the picture draws is the game's
    # each line the picture draws: its players, the declaration and the hand's value are filled in there
    assert set(PICTURE_WORDS) == {"title", "claim", "floor", "floor_note", "shows", "value", "holds", "fails",
                                  "out", "wrong", "right", "joker"}
    fields = {"active": "A", "challenger": "C", "out": "O", "declared": "D", "value": "V"}  # what it fills in
    assert [words.format(**fields) for words in PICTURE_WORDS.values()][:2] == ["Challenge: C calls A",
                                                                             "A declared “D”"]
    assert any(s.kind is SayKind.END for s in step.says)


def test_parse_words_and_form_options() -> None:
    m = new(["a", "b"])
    assert m.parse("a", "declare", "two pair sevens over threes".split(), {}) == {
        "player": "a",
        "declare": {"type": "two-pair", "ranks": ["7", "3"]},
    }
    assert m.parse("a", "declare", [], {"type": "full-house", "ranks": "8-4"})["declare"]["ranks"] == ["8", "4"]
    assert m.parse("a", "declare", [], {"type": "pair", "ranks": "any"})["declare"] == {"type": "pair", "ranks": []}
    assert m.parse("a", "discard", ["JD", "10h"], {}) == {"player": "a", "discard": ["JD", "TH"]}
    assert m.parse("a", "discard", [], {"cards": "JK,JK#2"}) == {"player": "a", "discard": ["JK", "JK"]}
    # typed with commas, as the option takes them (refused as "'JD,' is not a card")
    assert m.parse("a", "discard", ["JD,", "7H"], {}) == {"player": "a", "discard": ["JD", "7H"]}
    assert m.parse("a", "discard", ["JD,7H"], {}) == {"player": "a", "discard": ["JD", "7H"]}
    assert m.parse("a", "take", [], {}) == {"player": "a", "take": True}
    with pytest.raises(ActionParseError):
        m.parse("a", "declare", ["banana"], {})
    with pytest.raises(ActionParseError):
        m.parse("a", "bid", [], {})


def test_timeouts_take_then_declare_the_least_raise() -> None:
    m = new(["a", "b", "c"])
    m.apply_deal(m.deal(random.Random(4)))
    assert m.timeout_action() == {"player": m.to_act, "declare": {"type": "high-card", "ranks": ["7", "6"]}}
    m.apply(m.timeout_action())
    gun = m.to_act
    actions = m.timeout_actions()
    assert actions[0] == {"player": gun, "take": True}
    for action in actions:
        m.apply(action)
    assert m.engine.round is not None and m.engine.round.standing == Declaration(HandType.HIGH_CARD, (7, 6, 5))


def test_the_declare_form_offers_only_legal_declarations() -> None:
    m = new(["a", "b"], "wild")
    m.apply_deal(m.deal(random.Random(5)))
    holder = m.to_act
    assert holder is not None
    m.apply({"player": holder, "declare": "two pair, sevens over threes with a jack kicker"})
    taker = m.to_act
    assert taker is not None
    assert m.form(holder, "declare").refusal is not None
    m.apply({"player": taker, "take": True})
    form = m.form(taker, "declare")
    assert form.refusal is None
    kinds, ranks = form.fields
    assert kinds.options[0][0] == "two-pair" and "pair" not in dict(kinds.options)
    standing = Declaration.parse("sevens over threes with a jack kicker")
    offered = 0
    for kind, _ in kinds.options:
        for value, label in ranks.options_by[kind]:
            action = m.parse(taker, "declare", [], {"type": kind, "ranks": value})
            m.check(action)
            assert Declaration.from_json(action["declare"]).beats(standing) and "at least" in label
            offered += 1
        assert 0 < len(ranks.options_by[kind]) <= 25
    two_pair = [v for v, _ in ranks.options_by["two-pair"]]
    assert two_pair[:3] == ["7-3-Q", "7-3-K", "7-3-A"] and "8" in two_pair
    discard = m.form(taker, "discard")
    assert discard.refusal is None and len(discard.fields[0].options) == 5 and discard.fields[0].multi
    assert offered > 50


def test_the_panel_offers_the_buttons_of_the_moment() -> None:
    m = new(["a", "b", "c"], "wild")
    assert m.panel("1 unit").controls == ()
    m.apply_deal(m.deal(random.Random(6)))
    assert m.panel("1 unit").text.count("(a pass left)") == 3  # each may still pass once: none has
    verbs = [c.verb for c in m.panel("1 unit").controls]
    assert verbs == ["declare", "hand"]
    holder = m.to_act
    m.apply({"player": holder, "declare": "king high"})
    assert [c.verb for c in m.panel("1 unit").controls] == ["take", "challenge", "pass"]
    assert f"<@{holder}> declared **king high**" in m.panel("1 unit").text
    gun = m.to_act
    m.apply({"player": gun, "take": True})
    assert [c.verb for c in m.panel("1 unit").controls] == ["declare", "discard", "hand"]
    assert f"<@{holder}> declared **king high**" in m.panel("1 unit").text  # not the taker, who holds it now
    assert f"<@{holder}> declared **king high**" in m.form(gun or "", "declare").intro
    assert m.private_text(gun or "") is not None and m.private_text(holder or "") is None
    assert "<@" in (m.turn_text() or "")
    assert m.read(gun or "", "hint").startswith("You hold")


def test_the_panel_marks_who_may_still_pass_not_who_has() -> None:
    m = new(["a", "b", "c"], "wild")
    m.apply_deal(m.deal(random.Random(6)))
    m.apply({"player": m.to_act, "declare": "king high"})
    passer = m.to_act
    assert passer is not None
    m.apply({"player": passer, "pass": True})
    text = m.panel("1 unit").text
    assert text.count("(a pass left)") == 2 and f"<@{passer}> (a pass left)" not in text, text


def test_computer_decision_and_checks_refuse_the_wrong_player() -> None:
    m = new(["a", "b"])
    m.apply_deal(m.deal(random.Random(8)))
    other = "a" if m.to_act == "b" else "b"
    with pytest.raises(NotYourTurn):
        m.computer_decision(other, "hard")  # refused as it is taken, not later in the thread
    with pytest.raises(NotYourTurn):
        m.check({"player": other, "declare": "pair"})
    with pytest.raises(NoLastHand):
        m.declare_last()


def test_a_seat_change_knocks_the_leaver_out_and_carries_the_game_on() -> None:
    rng = random.Random(9)
    m = new(["a", "b", "c", "d"], "wild")
    m.apply_deal(m.deal(rng))
    opener = m.to_act
    assert opener is not None
    m.apply({"player": opener, "declare": "royal flush"})
    challenger = m.to_act
    m.apply({"player": challenger, "challenge": True})  # the opener is out (no royal flush here)
    assert m.engine.next_opener == challenger
    leaver = next(p for p in m.players if p not in (opener, challenger))
    seats = [p for p in m.players if p != leaver] + ["e"]
    m2 = CARDS.new_match(m.engine.rules, seats, host="a", previous=m)
    assert isinstance(m2, CardsMatch)
    assert m2.engine.out == [opener, leaver] and m2.engine.forfeits == [leaver]
    assert set(m2.engine.live_players) == set(seats) - {opener}
    deal = m2.deal(rng)
    assert deal["opener"] == challenger and deal["round"] == 2  # the game's second round: it counted from 1 again
    dealt = m2.apply_deal(deal)
    assert dealt.says[0].text.startswith("Round 2:") and dealt.note == f"Round 2: {challenger} opens"
    assert "\nRound 2. " in m2.panel("…").text
    settled = play_out(m2, rng)
    net = settled[-1].net
    assert sum(net.values()) == 0 and net[leaver] == -1 and len(net) == 5
    assert replay(settled[-1].record)["net"] == net
    rounds = [c["round"] for c in settled[-1].outcome["challenges"]]
    assert rounds == list(range(1, len(rounds) + 1)), rounds


def test_when_everyone_else_leaves_the_new_match_is_over_and_settles() -> None:
    m = new(["a", "b"])
    m2 = CARDS.new_match(m.engine.rules, ["a", "c"], host="a", previous=m)
    assert isinstance(m2, CardsMatch) and not m2.over  # a newcomer joins the game in play
    m3 = new(["a", "b", "c"])
    m3.apply_deal(m3.deal(random.Random(1)))
    holder = m3.to_act
    assert holder is not None
    m3.apply({"player": holder, "declare": "royal flush"})
    m3.apply({"player": m3.to_act, "challenge": True})
    survivor = m3.engine.next_opener
    assert survivor is not None
    last = CARDS.new_match(m3.engine.rules, [holder, survivor], host="a", previous=m3)
    assert isinstance(last, CardsMatch) and last.over and last.pending is not None
    (settled,) = last.pending.settled
    assert settled.net[survivor] == 2 and sum(settled.net.values()) == 0


@pytest.mark.parametrize("payout", ["winner", "knockout"])
def test_when_everyone_still_in_leaves_the_game_ends_with_no_winner(payout: str) -> None:
    """b and c are still in, a and e are out; b and c leave at one seat change.  The game was left with nobody in
    it: one made only of players already out could not be dealt (no opener: it raised at the deal), and a
    newcomer seated at that change won at once, the leavers' forfeits and those already out paying them."""
    rules = CARDS.make_rules("standard", {"payout": payout})
    before = CardsMatch(rules, ("a", "b", "c", "e"), out=("a", "e"))
    for seats in (["a", "e"], ["a"], ["a", "d"], ["d", "f"]):
        m = CARDS.new_match(rules, seats, host=seats[0], previous=before)
        assert isinstance(m, CardsMatch)
        assert m.over and m.engine.winner is None and m.pending is None, seats  # nothing to settle, nobody wins
        paid = "what each challenge paid stands" if payout == "knockout" else "nobody pays"
        assert m.end_text == (
            f"Everyone still in the game has left the table: the game ends with no winner, and {paid}."
        )
        with pytest.raises(RoundOver, match=r"^the game is over$"):
            m.deal(random.Random(1))
        text = m.panel("(seats)").text
        assert "Still in: nobody" in text and "ended with no winner" in text and "won the game" not in text
    carried = CARDS.new_match(rules, ["b", "d"], host="b", previous=before)  # one still in stays: played on
    assert not carried.over and carried.engine.live_players == ["b", "d"]
    won = CARDS.new_match(rules, ["b"], host="b", previous=before)  # the one still in is the one left: wins
    assert won.over and isinstance(won, CardsMatch) and won.engine.winner == "b" and won.pending is not None


@pytest.mark.parametrize("typed", ["٢", "1_0", "+", "", "1" * 5000, "２"])
def test_card_table_numbers_are_ascii_whole_numbers(typed: str) -> None:
    from core.cards.rules import make_rules
    from core.errors import RulesError

    with pytest.raises(RulesError, match="must be a whole number"):
        make_rules("standard", {"stake": typed})
    assert make_rules("standard", {"stake": " 3 ", "jokers": "0"}).stake == 3
