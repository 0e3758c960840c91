"""The ratings kept in memory against PostgreSQL written by two processes: row ids are handed out at insert,
so a round may be committed after a later id was read.  The book then builds itself again and equals a book
built afresh (as after a restart), instead of leaving that round unrated."""

from __future__ import annotations

import json

import asyncpg

from adapters.stores import open_store
from bot.ratings import RatingBook

SERVER = "discord:g1"


def _outcome(winner: str, loser: str) -> str:
    return json.dumps({"game": "serial", "ranking": [[winner], [loser]], "net": {winner: 1, loser: -1}})


async def test_a_round_committed_after_a_later_id_is_rated(postgres_url: str) -> None:
    store = await open_store(postgres_url)  # migrates
    try:
        book = RatingBook(store)
        slow, quick = await asyncpg.connect(postgres_url), await asyncpg.connect(postgres_url)  # two processes
        try:
            tables = [await slow.fetchval("INSERT INTO tables (server, channel, created_at) VALUES ($1, $2, 0) "
                                          "RETURNING id", SERVER, channel) for channel in ("c1", "c2")]
            insert = ("INSERT INTO rounds (table_id, server, number, period, at, record, outcome) "
                      "VALUES ($1, $2, 1, '2026-12', 1, '{}', $3) RETURNING id")
            pending = slow.transaction()
            await pending.start()
            first = await slow.fetchval(insert, tables[0], SERVER, _outcome("alice", "bob"))  # not yet committed
            second = await quick.fetchval(insert, tables[1], SERVER, _outcome("carol", "dave"))
            assert first < second
            assert (await book.get(SERVER)).of("serial").results == 1  # only the committed one
            await pending.commit()
            kept, fresh = await book.get(SERVER), await RatingBook(store).get(SERVER)
            assert kept.of("serial").results == fresh.of("serial").results == 2
            assert kept.of("serial").players == fresh.of("serial").players
            assert sorted(kept.of("serial").players) == ["alice", "bob", "carol", "dave"]
        finally:
            await slow.close()
            await quick.close()
    finally:
        await store.close()
