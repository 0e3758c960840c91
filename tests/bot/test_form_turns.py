"""A form names the turn it was drawn at (``Command.turn``): sent once the table has moved on, it places nothing,
however it is queued behind the move that passes the turn back."""

from __future__ import annotations

import asyncio

from bot.model import Actor, Button, Command, Reply
from tests.bot.conftest import ALICE, BOB, CAROL, KEY, Harness, actor
from tests.typed import live_round


async def _heads_up(h: Harness) -> tuple[Actor, Actor]:
    """Alice and Bob dealt: (the player to act, the other)."""
    assert (await h.do(ALICE, "start")).ok
    assert (await h.do(BOB, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    p = actor(h.to_act())
    return p, BOB if p is ALICE else ALICE


async def test_a_stale_form_queued_behind_the_move_that_returns_the_turn_places_nothing(harness: Harness) -> None:
    """Checked before the table's lock only, a stale form waiting for the lock behind the move that handed the
    turn back (a computer thinking, any command under the lock) found it was not its sender's turn, was let
    through to the game's refusal, and then — the turn theirs again — placed its bid."""
    h = harness
    p, o = await _heads_up(h)
    table = h.service.table(KEY)
    assert table is not None
    drawn = table.turn  # p's Raise… form, drawn now
    assert (await h.do(p, "bid", "1", "1")).ok  # p bids by typing; the form stays open
    lock = h.service.rt.lock(KEY)
    await lock.acquire()  # the table busy

    async def queued(n: int) -> None:
        """Once n commands wait for the table's lock (asyncio's lock is first come, first served; its waiters are
        private: read here, not changed)."""
        for _ in range(10_000):
            if len(lock._waiters or ()) >= n:
                return
            await asyncio.sleep(0.001)
        raise AssertionError(f"{n} commands never waited for the table's lock")

    try:
        answer = asyncio.create_task(h.service.handle(Command("bid", KEY, o, ("1", "2"), request_id="o1")))
        await queued(1)
        stale = asyncio.create_task(h.service.handle(Command(
            "bid", KEY, p, (), {"quantity": "1", "digit": "9"}, request_id="p-form", table_id=table.id, turn=drawn)))
        await queued(2)
    finally:
        lock.release()
    assert (await answer).ok
    reply = await stale
    assert not reply.ok and reply.code == "earlier-turn", reply
    bid = live_round(h.service.table(KEY)).standing_bid
    assert bid is not None and (bid.quantity, bid.digit) == (1, 2)


async def test_a_challenge_button_drawn_before_the_last_move_challenges_nothing(harness: Harness) -> None:
    """A ``status`` reply's Challenge button, pressed once the table had gone round to its holder again, challenged
    the bid standing then — one the reply never showed.  A button that answers the table as drawn now carries
    the turn (``Button.at_turn``; the adapters put ``Service.turn`` in its id), and the same rule as a form's holds."""
    h = harness
    p, o = await _heads_up(h)
    assert (await h.do(p, "bid", "1", "1")).ok
    shown = await h.do(o, "status")  # o's reply, drawn with the table's buttons at this turn
    assert shown.turn is not None and shown.turn == h.service.turn(KEY)
    at_turn = {b.action: b.at_turn for b in shown.buttons}
    assert at_turn == {"challenge": True, "bid": False, "hand": False, "odds": False}, shown.buttons
    assert Reply.from_dict(shown.to_dict()).buttons == shown.buttons  # stored as drawn
    assert Reply.from_dict({**shown.to_dict(), "buttons": [["challenge", "Challenge", "danger", False]]}).buttons == (
        Button("challenge", "Challenge", "danger", False, False),)  # a reply stored before: no turn
    table = h.service.table(KEY)
    assert table is not None
    drawn = h.service.turn(KEY)
    assert drawn is not None and drawn == table.turn

    def stale(who: Actor) -> Command:
        return Command("challenge", KEY, who, table_id=table.id, turn=drawn)

    assert (await h.do(o, "bid", "1", "2")).ok
    refused = await h.service.handle(stale(o))  # not o's turn, and the table moved on: stale whoever presses it
    assert not refused.ok and refused.code == "earlier-turn", refused
    assert (await h.do(p, "bid", "1", "3")).ok
    assert h.to_act() == o.user_id  # o's turn again, in the same round: a challenge of 1 three would stand
    stored = await h.service.store.table_events(table.id)
    refused = await h.service.handle(stale(o))
    assert not refused.ok and refused.code == "earlier-turn", refused
    assert "before the table's last move" in refused.text and "nothing was done" in refused.text
    assert await h.service.store.table_events(table.id) == stored  # nothing challenged
    now = await h.service.handle(Command("challenge", KEY, o, table_id=table.id, turn=h.service.turn(KEY)))
    assert now.ok, now  # the same button, drawn at this turn
    assert len(await h.service.store.table_events(table.id)) > len(stored)


async def test_an_out_of_turn_challenge_from_an_earlier_message_challenges_nothing(harness: Harness) -> None:
    """At the quick preset anyone but the bidder may challenge, in turn or not: a Challenge pressed on a message
    drawn before the last bid is refused whoever presses it (a form's move, the player to act's, yields to the
    game's whose-turn refusal instead)."""
    h = harness
    assert (await h.do(ALICE, "start", "quick")).ok
    assert (await h.do(BOB, "join")).ok
    assert (await h.do(CAROL, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    p = actor(h.to_act())
    assert (await h.do(p, "bid", "1", "1")).ok
    q = actor(h.to_act())
    shown = await h.do(p, "status")  # p's reply: 1 one standing, q to act
    assert shown.turn is not None and shown.turn == h.service.turn(KEY)
    assert Reply.from_dict(shown.to_dict()) == shown
    assert (await h.do(q, "bid", "5", "9")).ok
    assert h.to_act() not in (p.user_id, q.user_id)  # the third player's turn: p may still challenge, out of turn
    table = h.service.table(KEY)
    assert table is not None
    stored = await h.service.store.table_events(table.id)
    refused = await h.service.handle(Command("challenge", KEY, p, table_id=table.id, turn=shown.turn))
    assert not refused.ok and refused.code == "earlier-turn", refused
    assert await h.service.store.table_events(table.id) == stored  # 5 nines not challenged
    fresh = await h.service.handle(Command("challenge", KEY, p, table_id=table.id, turn=h.service.turn(KEY)))
    assert fresh.ok and len(await h.service.store.table_events(table.id)) > len(stored), fresh
