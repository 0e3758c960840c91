"""The same scripted sessions through the terminal, the real discord.py bot against the fake Discord and
the real slack-bolt app over signed HTTP against the fake Slack: every step gets the same answer (ok, and
the refusal's code) and every table stores the same game record on all three.

Each test opens one of each surface and plays its scripts on all of them (a fresh channel per script).
The made-up third game (:mod:`tests.conformance.guess`) is registered for the whole module, before any
surface builds its commands: it is offered on all three with no change to ``adapters/`` or ``bot/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from adapters.discord.commands import top_level
from core.registry import register, unregister
from core.serial.rules import RankOrder
from tests.conformance import scripts as S
from tests.conformance.guess import GUESS
from tests.conformance.surfaces import Discord, Script, play_everywhere, same_everywhere, three_surfaces
from tests.e2e.discord_helpers import no_errors  # noqa: F401 - fails a test on any ERROR log
from tests.typed import data

GENERATED = 6


@pytest.fixture(autouse=True, scope="module")
def guess_registered() -> Iterator[None]:
    register(GUESS)
    try:
        yield
    finally:
        unregister(GUESS.name)


async def check(tmp_path: Path, scripts: Sequence[Script]) -> list[list[tuple[str, bool, str | None]]]:
    """Play each script everywhere; the answers (the same on every surface) per script."""
    out = []
    async with three_surfaces(tmp_path, len(scripts)) as surfaces:
        for script in scripts:
            played = await play_everywhere(surfaces, script)
            same_everywhere(surfaces, played, script)
            assert played[0].events, f"{script.name}: no table was opened"
            out.append(played[0].answers)
    return out


def codes(answers: list[tuple[str, bool, str | None]]) -> list[str | None]:
    return [code if not ok else None for _, ok, code in answers]


async def test_every_digit_as_a_bid_under_each_rank_order_by_options_and_by_text(tmp_path: Path) -> None:
    scripts = [S.every_digit(order, via) for order in RankOrder for via in ("options", "text")]
    for answers in await check(tmp_path, scripts):
        bids = [a for a in answers if a[0].startswith("bid")]
        assert len(bids) == 11 and all(ok for _, ok, _ in bids), bids  # every digit taken, 0 included
        assert all(ok for _, ok, _ in answers), answers


async def test_every_move_of_the_card_game(tmp_path: Path) -> None:
    [answers] = await check(tmp_path, [S.card_game()])
    assert [(step.split(" [")[0].split()[0], code) for step, ok, code in answers if not ok] == [
        ("declare", "bad-declaration"), ("take", "not-your-turn"), ("discard", "bad-card")]
    done = {step.split()[0] + " " + step.split("[")[1] for step, ok, _ in answers if ok}
    assert {"declare text]", "declare bare]", "declare form]", "take button]", "take text]", "discard text]",
            "pass button]", "challenge text]"} <= done, done
    declared = [step.split(" [")[0] for step, ok, _ in answers if ok and step.startswith("declare")]
    assert len(declared) == 4 and declared[:3] == ["declare T high", "declare pair of 3s", "declare 2 pair"], declared


async def test_every_table_command_and_report(tmp_path: Path) -> None:
    script = S.table_and_books()
    async with three_surfaces(tmp_path, 1) as surfaces:
        played = await play_everywhere(surfaces, script)
        same_everywhere(surfaces, played, script)
        answers = played[0].answers
        for surface in surfaces:  # `help bid`, `help cards` (Discord's /liars help took no words: session 37)
            helps = [data(r)["commands"] for c, r in surface.replies if c.name == "help" and r.ok]
            assert len(helps) == 4 and helps[2] == ["bid"], (surface, helps)
            assert "declare" in helps[3] and "bid" not in helps[3] and "bid" in helps[1], (surface, helps)
    refused = [(step.split(" [")[0].strip(), code) for step, ok, code in answers if not ok]
    assert refused == [
        ("status", "no-table"), ("start", "table-open"), ("join", "already-seated"), ("deal", "not-host"),
        ("config turn_timeout=120", "not-admin"), ("join", "already-seated"), ("help flibber", "unknown-command"),
        ("end", "not-host"),
        ("last", "not-host"), ("count", "count-not-available"), ("sheet 1999-13", "bad-period"),
        ("leaderboard flibber", "bad-option"), ("end", "no-table")], refused
    done = {step.split()[0] for step, ok, _ in answers if ok}
    assert done >= {"rules", "help", "status", "start", "join", "deal", "config", "kick", "hand", "odds", "hint",
                    "leave", "last", "ledger", "sheet", "stats", "leaderboard", "history", "export"}, done


async def test_bad_input_of_every_kind(tmp_path: Path) -> None:
    [answers] = await check(tmp_path, [S.bad_input()])
    assert [code for _, ok, code in answers if not ok] == [
        "no-table", "no-table", "not-your-turn", "bid-too-low", "bid-too-low", "bad-bid", "bad-bid", "bad-bid",
        "bad-bid", "not-seated", "not-seated", "count-not-available", "unknown-command"], answers


async def test_generated_sessions(tmp_path: Path) -> None:
    await check(tmp_path, [S.generated(seed) for seed in range(GENERATED)])


async def test_a_made_up_third_game_plays_on_every_surface(tmp_path: Path) -> None:
    async with three_surfaces(tmp_path, 1) as surfaces:
        played = await play_everywhere(surfaces, S.guess_game())
        same_everywhere(surfaces, played, S.guess_game())
        discord = next(s for s in surfaces if isinstance(s, Discord))
        synced = {o["name"] for c in discord.fake.commands[None].values() for o in c["options"]}
        assert "guess" in synced  # built from its declaration
        for surface in surfaces:
            helps = [r for c, r in surface.replies if c.name == "help" and r.ok]
            listed = data(helps[-1])["commands"]
            assert "guess" in listed and "bid" not in listed and "declare" not in listed
    answers = played[0].answers
    assert [code for _, ok, code in answers if not ok] == ["not-your-turn", "unknown-command"]
    rules = next(r for c, r in surfaces[0].replies if c.name == "rules")
    assert "1 unit" in rules.text and "<$" not in rules.text  # the game's money token, written out



def refusals(answers: list[tuple[str, bool, str | None]]) -> list[tuple[str, str | None]]:
    return [(step.split(" [")[0].strip(), code) for step, ok, code in answers if not ok]


async def test_the_serial_game_by_form_and_options_at_the_least_and_largest_bids(tmp_path: Path) -> None:
    [answers] = await check(tmp_path, [S.serial_by_form_and_options()])
    assert refusals(answers) == [("bid twenty five zeros", "quantity-out-of-range"), ("bid 24 9", "bid-too-low"),
                                 ("config turn_timeout=90", "not-admin")], answers
    assert [step for step, ok, _ in answers if ok and step.startswith("bid")] == [
        "bid 1 0 [form]", "bid 1 9 [options]", "bid 2 7’s [text]", "bid 24 9 [form]"]


async def test_who_pays_for_dinner(tmp_path: Path) -> None:
    async with three_surfaces(tmp_path, 1) as surfaces:
        played = await play_everywhere(surfaces, S.elimination())
        same_everywhere(surfaces, played, S.elimination())
        assert refusals(played[0].answers) == [("last", "no-last-hand"), ("bid 9 9", "left-safe")]
        for surface in surfaces:
            assert surface.service.table(surface.key) is None  # the game ended at its payer, and the table with it
    end = played[0].events[-1]
    assert end["t"] == "end" and re.fullmatch(r"the elimination is over: <@P[0-2]> pays for dinner\.", end["reason"])


async def test_the_wild_card_game_thrown_in_and_discarded_by_form(tmp_path: Path) -> None:
    [answers] = await check(tmp_path, [S.cards_wild_and_thrown_in()])
    assert refusals(answers) == [("pass", "no-pass-left"), ("discard 9C KC 3S 9S QH", "wrong-phase")], answers
    assert "discard JK JK KD [form]" in [step for step, ok, _ in answers if ok]


async def test_twelve_seats(tmp_path: Path) -> None:
    async with three_surfaces(tmp_path, 1, players=12) as surfaces:
        played = await play_everywhere(surfaces, S.twelve_seats())
        same_everywhere(surfaces, played, S.twelve_seats())
    answers = played[0].answers
    assert refusals(answers) == [("join", "already-seated"), ("bid 97 0", "quantity-out-of-range")], answers
    assert len([step for step, ok, _ in answers if ok and step.startswith("bid")]) == 12
    assert len([step for step, ok, _ in answers if ok and step.startswith("challenge")]) == 11
    dealt = [e for e in played[0].events if "serials" in e]
    assert len(dealt) == 2 and len(dealt[1]["serials"]) == 12  # counted, and the next round dealt to all twelve


async def test_words_people_send(tmp_path: Path) -> None:
    async with three_surfaces(tmp_path, 1) as surfaces:
        played = await play_everywhere(surfaces, S.words_people_send())
        same_everywhere(surfaces, played, S.words_people_send())
        assert refusals(played[0].answers) == [
            ("start game=cards format=elimination", "bad-option"), ("config turn_timeout=120", "not-admin")
        ], played[0].answers
        for surface in surfaces:
            wild = next(r for c, r in surface.replies if c.name == "status" and r.ok)
            assert "Liar's Poker with cards" in wild.text and "(wild," in wild.text, wild.text  # `wild` named the game
        discord = next(s for s in surfaces if isinstance(s, Discord))
        g, channel = discord.guild.id, discord.channel.id
        iid = await discord.fake.send_autocomplete(int(discord.users[0]), g, channel, top_level("leaderboard"),
                                                   "leaderboard", {"period": "a"}, focused="period")
        offered = [c["value"] for c in (await discord.fake.wait_for_callback(iid)).data["choices"]]
        assert offered == ["all"], offered  # the option's help says "YYYY-MM, or 'all'"
