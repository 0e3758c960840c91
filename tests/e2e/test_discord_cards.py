"""The card game on Discord, end to end: three players by buttons, forms and commands to a winner.

The hand travels by DM to whoever holds it; the channel sees declarations, takes, draws and the hand
only when it is challenged.  Half-way through the bot restarts (a new process on the same database)
and the game goes on where it was.
"""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable

from core.cards.round import Round as CardsRound
from tests.e2e.discord_helpers import Harness, ledger_rows, no_errors, world
from tests.fakes.discord_server import FakeUser, RecordedMessage
from tests.typed import cards_match, cards_round

__all__ = ["no_errors", "world"]

CARD = r"(?:10|[2-9JQKA])[♣♦♥♠]\ufe0f?|🃏"
HAND = re.compile(rf"(?:{CARD})(?: (?:{CARD})){{4}}")


def hands_in(text: str) -> set[frozenset[str]]:
    return {frozenset(h.replace("\ufe0f", "").split()) for h in HAND.findall(text)}


def round_of(h: Harness) -> CardsRound:
    return cards_round(h.service.table(h.key))


def holder(h: Harness) -> FakeUser | None:
    table = h.service.table(h.key)
    if table is None or table.match is None:  # the game is over and the table closed
        return None
    who = table.match.to_act
    return h.user(who) if who is not None else None


async def declare_by_form(h: Harness, user: FakeUser,
                          between: Callable[[], Awaitable[None]] | None = None) -> RecordedMessage:
    """Declare the first kind and ranks the Declare… form offers; ``between``: done once the form is open."""
    form = await h.press(user, h.panel("table"), h.button("open-declare"))
    assert form.ephemeral, form.content
    g, c = h.guild.id, h.form_where
    if between is not None:
        await between()
    first = form.component(f"liars:pick-declare-1:{g}:{c}")
    kind = first["options"][0]["value"]
    before = form.edit_count
    await h.pick(user, form, f"liars:pick-declare-1:{g}:{c}", kind)
    await h.fake.wait_for(lambda: form.edit_count > before)
    second = form.component(f"liars:pick-declare-2:{g}:{c}")
    ranks = second["options"][0]["value"]
    await h.pick(user, form, f"liars:pick-declare-2:{g}:{c}", ranks)
    await h.fake.wait_for(lambda: form.edit_count > before + 1)
    send = f"liars:go-declare:{g}:{c}:{kind}:{ranks}"
    assert send in form.custom_ids(), form.custom_ids()
    assert form.component(send)["label"].startswith("Declare ")
    await h.click(user, form, send)
    await h.fake.wait_for(lambda: form.edit_count > before + 2)
    await h.service.drain()
    assert "declare" in form.content.lower(), form.content
    return form


async def discard_two(h: Harness, user: FakeUser) -> None:
    """Mark the first two cards on the Discard… form's toggles, then send."""
    form = await h.press(user, h.panel("table"), h.button("open-discard"))
    assert form.ephemeral
    g, c = h.guild.id, h.form_where
    toggles = [i for i in form.custom_ids() if i.startswith(f"liars:tog-discard:{g}:{c}:0:")]
    assert len(toggles) == 5  # the hand, to its holder alone
    before = form.edit_count
    await h.click(user, form, toggles[0])
    await h.fake.wait_for(lambda: form.edit_count > before)
    assert form.component(f"liars:tog-discard:{g}:{c}:1:0")["style"] == 4  # marked: red
    await h.click(user, form, f"liars:tog-discard:{g}:{c}:1:1")
    await h.fake.wait_for(lambda: form.edit_count > before + 1)
    hand = [str(card) for card in cards_round(h.service.table(h.key)).hand]
    send = f"liars:go-discard:{g}:{c}:3:{hand[0]}-{hand[1]}"  # the cards marked, named: a later hand's are not
    assert form.component(send)["label"] == "Discard 2 and draw"
    await h.click(user, form, send)
    await h.fake.wait_for(lambda: form.edit_count > before + 2)
    await h.service.drain()
    assert hand[0] not in [str(card) for card in cards_round(h.service.table(h.key)).hand]  # gone, not redrawn


async def test_three_players_play_the_card_game_to_a_winner(world: Harness) -> None:
    h = world
    rng = random.Random(5)
    if True:  # every ERROR log line fails the test (the autouse no_errors fixture)
        await h.start()
        opened = await h.ask(h.alice, "start", game="cards")
        assert opened.ephemeral and "You opened a table" in opened.content, opened.content
        await h.press(h.bob, h.panel("lobby"), h.button("join"))
        await h.ask(h.carol, "join")
        iid = await h.click(h.alice, h.panel("lobby"), h.button("deal"))
        callback = await h.fake.wait_for_callback(iid)
        # Commit, then acknowledge: the first response is the answer itself, not a deferral (type 5)
        assert callback.type == 4 and callback.ephemeral and "Dealt" in callback.content, callback
        await h.service.drain()

        ways = {"form": 0, "slash": 0, "take": 0, "discard": 0, "challenge": 0}
        restarted = False
        for _ in range(200):
            user = holder(h)
            table = h.service.table(h.key)
            if table is None or cards_match(table).over:
                break
            if user is None:
                await h.service.drain()
                continue
            ids = h.panel("table").custom_ids()
            if h.button("take") in ids or h.button("challenge") in ids:
                # Someone else may not act for them: the take button refuses privately.
                other = next(u for u in h.users if u is not user)
                refused = await h.press(other, h.panel("table"), h.button("challenge"))
                assert refused.ephemeral
                if h.button("take") in ids and (rng.random() < 0.6 or ways["take"] < 2):
                    took = await h.press(user, h.panel("table"), h.button("take"))
                    assert took.ephemeral
                    ways["take"] += 1
                else:
                    await h.press(user, h.panel("table"), h.button("challenge"))
                    ways["challenge"] += 1
                continue
            if h.button("open-discard") in h.panel("table").custom_ids() and ways["discard"] < 2:
                await discard_two(h, user)
                ways["discard"] += 1
            if (ways["form"] + ways["slash"]) % 2 == 0:
                await declare_by_form(h, user)
                ways["form"] += 1
            else:
                least = round_of(h).least_raise()
                said = await h.ask(user, "declare", hand=least.name())
                assert said.ephemeral and "declare" in said.content.lower(), said.content
                ways["slash"] += 1
            if not restarted and ways["challenge"] >= 1:
                await h.restart()  # mid-game: the hand, the standing declaration and who is out survive
                restarted = True
        assert h.service.table(h.key) is None, ways  # the game ended and the table closed
        assert restarted and ways["form"] and ways["slash"] and ways["take"] and ways["challenge"] >= 2, ways
        assert ways["discard"] >= 1, ways

        public = h.channel_messages()
        won = [m.content for m in public if " won the game" in m.content]
        assert won, [m.content for m in public][-3:]

        # Privacy: a hand is only ever in its holder's DMs, or in a channel in the challenge that shows it.
        dealt_hands = {u.id: set().union(*(hands_in(m.content) for m in h.fake.dms_to(u.id))) for u in h.users}
        assert all(dealt_hands.values())
        revealed = 0
        for action in h.fake.actions:
            if action.kind not in ("create", "edit") or action.message_id is None:
                continue
            msg = h.fake.get_message(action.message_id)
            if msg.is_dm:
                continue
            text = str(action.body.get("content") or "") + str(action.body.get("embeds") or "")
            shown = hands_in(text)
            if shown and not msg.ephemeral:
                assert "challenges" in text, f"a hand in the channel outside a challenge: {text!r}"
                revealed += 1
                assert shown & set().union(*dealt_hands.values())  # the hand as its holders saw it
        assert revealed >= 2  # each challenge showed its hand
        # Ledger: the winner collected the stake from each of the others; it sums to 0.
        rows = ledger_rows((await h.ask(h.alice, "ledger")).content)
        assert sum(rows.values()) == 0 and len([v for v in rows.values() if v > 0]) == 1, rows


async def two_at_cards(h: Harness) -> None:
    """The bot up; Alice opens a card table, Bob joins, Alice deals."""
    await h.start()
    await h.ask(h.alice, "start", game="cards")
    await h.ask(h.bob, "join")
    await h.ask(h.alice, "deal")
    await h.service.drain()


async def test_a_bare_declare_or_discard_opens_its_form(world: Harness) -> None:
    """``/liars declare`` and ``/liars discard`` with no options answer with their forms (as on Slack), to the
    player who holds the hand; to anyone else, a private refusal."""
    h = world
    await two_at_cards(h)
    g, c = h.guild.id, h.form_where
    user = holder(h)
    assert user is not None
    form = await h.ask(user, "declare")
    assert form.ephemeral and f"liars:pick-declare-1:{g}:{c}" in form.custom_ids(), form.content
    other = next(u for u in (h.alice, h.bob) if u is not user)
    refused = await h.ask(other, "declare")
    assert refused.ephemeral and refused.content == "You can declare only when you hold the hand.", refused.content
    assert (await h.ask(user, "declare", hand="seven-six high")).content == "Declared."
    await h.service.drain()
    assert (await h.ask(other, "take")).ephemeral
    await h.service.drain()
    discard = await h.ask(other, "discard")
    toggles = [i for i in discard.custom_ids() if i.startswith(f"liars:tog-discard:{g}:{h.form_where}:0:")]
    assert discard.ephemeral and len(toggles) == 5, discard.content  # the hand, to its holder alone


async def declared_and_taken(h: Harness) -> tuple[FakeUser, FakeUser]:
    """Two at cards: the opener declares the least hand there is, the other takes the hand; (opener, taker)."""
    await two_at_cards(h)
    x = h.user(cards_round(h.service.table(h.key)).to_act)
    y = next(u for u in (h.alice, h.bob) if u is not x)
    least = cards_round(h.service.table(h.key)).least_raise().name()
    assert (await h.ask(x, "declare", hand=least)).content == "Declared."
    await h.service.drain()
    await h.press(y, h.panel("table"), h.button("take"))
    return x, y


async def edited_past(h: Harness, form: RecordedMessage, edits: int) -> None:
    """Once ``form`` has been edited more than ``edits`` times."""
    await h.fake.wait_for(lambda: form.edit_count > edits)


async def test_a_discard_form_from_an_earlier_hand_throws_away_nothing_it_did_not_show(world: Harness) -> None:
    """Its send button carried only which places were marked: pressed at a later hand it threw away the cards in
    those places of the new hand, cards the form never showed.  Since session 27 the form names the move it was
    drawn at and sends nothing at a later one; a form whose ids carry no move (drawn by a version before, or too
    long for one) still throws away nothing it did not show, as its send button names the cards marked."""
    h = world
    x, y = await declared_and_taken(h)

    def r() -> CardsRound:
        return cards_round(h.service.table(h.key))

    g, c = h.guild.id, h.form_where
    forms, sends = [], []
    for _ in range(2):  # two Discard… forms, the first two cards marked on each
        form = await h.press(y, h.panel("table"), h.button("open-discard"))
        before = form.edit_count
        await h.click(y, form, f"liars:tog-discard:{g}:{c}:0:0")
        await edited_past(h, form, before)
        await h.click(y, form, f"liars:tog-discard:{g}:{c}:1:1")
        await edited_past(h, form, before + 1)
        [send] = [i for i in form.custom_ids() if i.startswith(f"liars:go-discard:{g}:{c}:3:")]
        forms.append(form)
        sends.append(send)
    older = sends[1].replace(f":{c}:", f":{c.rsplit('.', 1)[0]}:")  # the second as a version before drew it
    forms[1].component(sends[1])["custom_id"] = older
    assert (await h.ask(y, "declare", hand=r().least_raise().name())).content == "Declared."  # the forms stay open
    await h.service.drain()
    await h.press(x, h.panel("table"), h.button("take"))
    assert (await h.ask(x, "discard", cards=" ".join(str(card) for card in r().hand[:3]))).content == "Discarded."
    assert (await h.ask(x, "declare", hand=r().least_raise().name())).content == "Declared."
    await h.service.drain()
    await h.press(y, h.panel("table"), h.button("take"))
    held = [str(card) for card in r().hand]
    for form, send in zip(forms, (sends[0], older), strict=True):
        edits = form.edit_count
        await h.click(y, form, send)
        await edited_past(h, form, edits)
        await h.service.drain()
        assert [str(card) for card in r().hand] == held  # nothing thrown away
    assert "before the table's last move" in forms[0].content and forms[0].custom_ids() == [], forms[0].content
    # the one without a move: drawn again for this hand instead (the cards it named are not in it)
    assert forms[1].custom_ids() and all(f":{c}:" not in i for i in forms[1].custom_ids()), forms[1].custom_ids()


async def test_a_declare_form_opened_before_a_discard_still_declares(world: Harness) -> None:
    """The take, a discard and the declaration are one turn: a Declare… form opened after the take and sent after
    a discard (which changes nothing it shows) declares; it is not refused as drawn at an earlier move."""
    h = world
    x, y = await declared_and_taken(h)

    def r() -> CardsRound:
        return cards_round(h.service.table(h.key))


    async def discard() -> None:
        cards = " ".join(str(card) for card in r().hand[:2])
        assert (await h.ask(y, "discard", cards=cards)).content == "Discarded."
        await h.service.drain()

    form = await declare_by_form(h, y, between=discard)
    assert form.content == "Declared.", form.content
    assert r().to_act == str(x.id)  # the hand passed on
