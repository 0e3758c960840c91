"""The card game on Slack, end to end: three players by buttons, modals and slash commands to a winner.

The hand travels by DM to whoever holds it; the channel sees declarations, takes, draws, and the hand
only in the challenge that shows it (with its picture, uploaded as a PNG).  Half-way through the bot
restarts (a new bot on the same SQLite file) and the game goes on where it was.  The twin of
``test_discord_cards.py``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import re
from pathlib import Path

import pytest

from adapters.slack.app import SlackBot, serve_http
from adapters.slack.render import suits
from core.cards.round import Round as CardsRound
from tests.adapters.slack.harness import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    NAMES,
    HttpDriver,
    blocks_text,
    key_of,
    ledger_rows,
    make_bot,
)
from tests.fakes.slack_server import FakeSlack
from tests.typed import cards_round

CARD = r"(?:10|[2-9JQKA])(?::hearts:|:diamonds:|:spades:|:clubs:)|🃏"
HAND = re.compile(rf"(?:{CARD})(?: (?:{CARD})){{4}}")
PNG = b"\x89PNG\r\n\x1a\n"


def hands_in(text: str) -> set[frozenset[str]]:
    return {frozenset(h.split()) for h in HAND.findall(text)}


class Table:
    """The driver with a bot that can be restarted on the same database."""

    def __init__(self, fake: FakeSlack, db: Path, stack: contextlib.AsyncExitStack) -> None:
        self.fake, self.db, self.stack = fake, db, stack
        self.d: HttpDriver | None = None
        self.closed: set[int] = set()

    async def boot(self) -> HttpDriver:
        bot = await make_bot(self.fake, self.db, seed=11 + 1000 * len(self.closed))  # a restart draws anew
        self.stack.push_async_callback(self.close, bot)
        url = await self.stack.enter_async_context(serve_http(bot, "127.0.0.1", 0))
        d = HttpDriver(self.fake, bot)
        d.url = url
        if self.d is not None:
            d.who = self.d.who
            d.acks = self.d.acks
        self.d = d
        return d

    async def close(self, bot: SlackBot) -> None:
        if id(bot) not in self.closed:
            self.closed.add(id(bot))
            await bot.close()

    async def restart(self) -> HttpDriver:
        assert self.d is not None
        await self.d.settled()
        await self.close(self.d.bot)
        return await self.boot()


def _round(d: HttpDriver) -> CardsRound:
    return cards_round(d.bot.service.table(key_of(d.fake)))


def _panel(d: HttpDriver) -> tuple[str, set[str]]:
    ts = d.bot.service.panel(key_of(d.fake), "table")
    assert ts is not None
    message = d.fake.message(CHANNEL, ts)
    assert message is not None
    ids = {e["action_id"] for b in message.get("blocks") or [] if b.get("type") == "actions" for e in b["elements"]}
    return ts, ids


async def declare_by_modal(d: HttpDriver, user: str, *, by_command: bool = False) -> None:
    ts, _ = _panel(d)
    view = await (d.open_form_by_command(user, "declare") if by_command else d.open_form(user, ts, "declare"))
    assert view["callback_id"] == "liars:form"
    kinds = [o["value"] for o in view["blocks"][1]["element"]["options"]]
    if len(kinds) > 1:  # choosing another type re-lists the ranks
        view = await d.choose(user, view, "type", kinds[1])
        assert view["blocks"][1]["element"]["initial_option"]["value"] == kinds[1]
    kind = view["blocks"][1]["element"]["initial_option"]["value"]
    assert view["submit"]["text"] == "Declare"  # no ranks chosen yet
    ranks = view["blocks"][2]["element"]["options"][0]
    view = await d.choose(user, view, "ranks", ranks["value"])  # the button says the declaration
    words = ranks["text"]["text"].split(" (")[0]
    label = view["submit"]["text"]
    assert len(label) <= 24 and label.startswith("Declare ") and label != "Declare", label
    assert label == f"Declare {words}" or (label == "Declare …" and len(f"Declare {words}") > 24), (label, words)
    assert view["blocks"][2]["element"]["initial_option"]["value"] == ranks["value"]
    answer = await d.submit_form(user, view, {"type": kind, "ranks": ranks["value"]})
    assert "declare" in answer.lower(), answer


async def discard_two(d: HttpDriver, user: str) -> None:
    ts, _ = _panel(d)
    view = await d.open_form(user, ts, "discard")
    boxes = view["blocks"][1]["element"]
    assert boxes["type"] == "checkboxes" and len(boxes["options"]) == 5  # the hand, to its holder alone
    assert view["submit"]["text"] == "Discard and draw"
    picked = [o["value"] for o in boxes["options"][:2]]
    view = await d.choose(user, view, "cards", picked[:1])  # each mark redraws the button with the count
    assert view["submit"]["text"] == "Discard 1 and draw"
    view = await d.choose(user, view, "cards", picked)
    assert view["submit"]["text"] == "Discard 2 and draw"
    assert [o["value"] for o in view["blocks"][1]["element"]["initial_options"]] == picked
    assert [o["value"] for o in view["blocks"][1]["element"]["options"]] == [o["value"] for o in boxes["options"]]
    answer = await d.submit_form(user, view, {"cards": picked})
    assert "draw" in answer.lower() or "discard" in answer.lower(), answer


async def test_three_players_play_the_card_game_to_a_winner(fake: FakeSlack, tmp_path: Path,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    rng = random.Random(5)
    async with contextlib.AsyncExitStack() as stack:
        t = Table(fake, tmp_path / "liars.sqlite3", stack)
        d = await t.boot()
        opened = await d.slash(ALICE, "start game=cards")
        assert opened.text is not None and "You opened a table" in opened.text, opened.text
        lobby = d.bot.service.panel(key_of(fake), "lobby")
        assert lobby is not None
        await d.click(BOB, lobby, "join")
        await d.slash(CAROL, "join")
        dealt = await d.click(ALICE, lobby, "deal")
        assert dealt.text is not None and "Dealt" in dealt.text, dealt.text

        ways = {"modal": 0, "slash": 0, "take": 0, "discard": 0, "challenge": 0, "refused": 0}
        restarted = False
        for _ in range(120):
            table = d.bot.service.table(key_of(fake))
            if table is None or table.match is None or table.match.over:
                break
            user = table.match.to_act
            assert user is not None
            ts, ids = _panel(d)
            other = next(u for u in NAMES if u != user and u in table.seats)
            if "liars:take" in ids or "liars:challenge" in ids:
                if ways["refused"] < 2:  # someone else may not act for them: a private refusal
                    refused = await d.click(other, ts, "challenge")
                    assert refused.response_type == "ephemeral", refused.text
                    ways["refused"] += 1
                if "liars:take" in ids and (rng.random() < 0.6 or ways["take"] < 2):
                    took = await d.click(user, ts, "take")
                    assert took.response_type == "ephemeral", took.text
                    ways["take"] += 1
                elif ways["challenge"] % 2 == 0:
                    await d.click(user, ts, "challenge")
                    ways["challenge"] += 1
                else:
                    said = await d.slash(user, "challenge")
                    assert said.response_type == "ephemeral", said.text
                    ways["challenge"] += 1
                if not restarted and ways["challenge"] >= 1:
                    d = await t.restart()  # mid-game: the standing hand, who is out, the panel survive
                    restarted = True
                continue
            if "liars:open-discard" in ids and ways["discard"] < 2:
                if ways["discard"] == 0:  # the Discard… form is the holder's alone
                    opened_before = len([c for c in fake.calls("views.open") if c.ok])
                    refused = await d.click(other, ts, "open-discard")
                    assert refused.response_type == "ephemeral" and "discard" in (refused.text or ""), refused.text
                    assert len([c for c in fake.calls("views.open") if c.ok]) == opened_before
                await discard_two(d, user)
                ways["discard"] += 1
            if (ways["modal"] + ways["slash"]) % 2 == 0:
                await declare_by_modal(d, user, by_command=ways["modal"] % 2 == 1)  # the button, or `/liars declare`
                ways["modal"] += 1
            else:
                least = _round(d).least_raise()
                said = await d.slash(user, f"declare {least.name()}")
                assert said.response_type == "ephemeral" and "declare" in (said.text or "").lower(), said.text
                ways["slash"] += 1
        await d.settled()
        assert d.bot.service.table(key_of(fake)) is None, ways  # the game ended and the table closed
        assert restarted and ways["modal"] >= 2 and ways["slash"] and ways["take"] and ways["challenge"] >= 2, ways
        assert ways["discard"] >= 1, ways

        texts = [c.params["text"] for c in fake.messages_to(CHANNEL)]
        assert [t for t in texts if re.search(r" w(on|ins) the game", t)], texts[-3:]

        # Privacy: a hand is only in its holder's DMs, or in the channel in the challenge that shows it.
        dealt_hands = {u: set().union(*(hands_in(blocks_text(c.params)) for c in fake.dms_to(u))) for u in NAMES}
        assert all(dealt_hands.values()), dealt_hands
        every = set().union(*dealt_hands.values())
        challenges: list[float] = []
        for call in fake.calls():
            if not call.ok or call.method not in ("chat.postMessage", "chat.update", "chat.postEphemeral"):
                continue
            assert call.response is not None
            if str(call.response.get("channel", "")).startswith("D"):
                continue
            shown = hands_in(blocks_text(call.params))
            reader = call.params.get("user") if call.method == "chat.postEphemeral" else None
            if shown and reader is None:
                assert "challenges" in call.params["text"], f"a hand in the channel outside a challenge: {call.params}"
                assert shown <= every  # the hand as its holders saw it
                if call.method == "chat.postMessage":  # the challenge itself (the table message repeats it)
                    challenges.append(call.timestamp)
            elif shown:
                assert shown <= dealt_hands[str(reader)], f"another's hand shown to {reader}"
        for post in fake.response_url_posts():
            shown = hands_in(blocks_text(post.body))
            assert not shown or shown <= dealt_hands[d.who[post.url]], f"a hand in an answer: {post.body}"
        assert len(challenges) >= 2  # each challenge showed its hand
        for call in fake.calls("views.open") + fake.calls("views.update"):  # cards only to their holder
            assert call.ok
            view = call.params["view"]
            assert not hands_in(view if isinstance(view, str) else json.dumps(view, ensure_ascii=False))

        # Each challenge came with its picture, a PNG, after it; nothing before the first challenge had one.
        files = fake.shared_files(CHANNEL)
        assert len(files) == len(challenges) and all(f.data.startswith(PNG) for f in files)
        assert all(f.timestamp > when for f, when in zip(files, sorted(challenges), strict=True))

        # Ledger: the winner collected the stake from each of the others; it sums to 0.
        rows = ledger_rows(t.db)
        assert sum(u for _, _, u in rows) == 0 and len([u for _, _, u in rows if u > 0]) == 1, rows
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text[-2000:]
    # no hand in a log line at INFO or above
    assert not hands_in(caplog.text.replace("♥", ":hearts:").replace("♦", ":diamonds:")
                        .replace("♠", ":spades:").replace("♣", ":clubs:"))


async def test_cards_typed_as_slack_sends_their_emoji_are_read(fake: FakeSlack, tmp_path: Path) -> None:
    """Slack sends a suit typed or pasted as an emoji as ``:diamonds:`` — the way the bot itself shows the
    hand — and ``/liars discard 6:diamonds:`` was refused ("is not a card")."""
    async with contextlib.AsyncExitStack() as stack:
        d = await Table(fake, tmp_path / "liars.sqlite3", stack).boot()
        assert "You opened a table" in ((await d.slash(ALICE, "start game=cards")).text or "")
        await d.slash(BOB, "join")
        await d.slash(ALICE, "deal")
        r = cards_round(d.bot.service.table(key_of(fake)))
        opener = r.to_act
        assert opener is not None
        assert "declare" in ((await d.slash(opener, "declare seven-six high")).text or "declare").lower()
        r = cards_round(d.bot.service.table(key_of(fake)))
        taker = r.to_act
        assert taker is not None and (await d.slash(taker, "take")).text is not None
        hand = list(cards_round(d.bot.service.table(key_of(fake))).hand)
        typed = suits(" ".join(c.pretty() for c in hand[:2] if not c.is_joker))  # as the bot shows them
        answer = await d.slash(taker, f"discard {typed}")
        assert "is not a card" not in (answer.text or ""), (typed, answer.text)
        after = cards_round(d.bot.service.table(key_of(fake)))
        assert not after.may_discard and list(after.hand) != hand, typed  # discarded and drew
