"""Discord shards across processes: ``DISCORD_SHARD_COUNT`` / ``DISCORD_SHARD_IDS`` pick the shards this
process runs, on discord.py's own ``AutoShardedClient``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from adapters.discord.config import ConfigError, DiscordConfig
from bot.bootstrap import build_service, discord_bot
from bot.model import Actor, Command, Message, TableKey


def config(**env: str) -> DiscordConfig:
    return DiscordConfig.from_env({"DISCORD_TOKEN": "t", **env})


def test_shards_are_read_from_the_environment() -> None:
    assert (config().shard_count, config().shard_ids) == (None, None)
    assert (config(DISCORD_SHARD_COUNT="4").shard_count, config(DISCORD_SHARD_COUNT="4").shard_ids) == (4, None)
    split = config(DISCORD_SHARD_COUNT="4", DISCORD_SHARD_IDS="3, 1,1")
    assert (split.shard_count, split.shard_ids) == (4, (1, 3))


def test_a_private_channels_table_belongs_to_shard_0_where_its_interactions_arrive() -> None:
    first, second = (config(DISCORD_SHARD_COUNT="2", DISCORD_SHARD_IDS=ids) for ids in ("0", "1"))
    assert first.holds("dm1234") and not second.holds("dm1234")
    guild = str(1 << 22)  # shard 1 of 2
    assert second.holds(guild) and not first.holds(guild)
    assert config().holds("dm1234")  # one process runs every shard


@pytest.mark.parametrize(("count", "ids", "named"), [
    ("", "0", "DISCORD_SHARD_COUNT"), ("0", "", "DISCORD_SHARD_COUNT"), ("two", "", "DISCORD_SHARD_COUNT"),
    ("2", "2", "DISCORD_SHARD_IDS"), ("2", "a,b", "DISCORD_SHARD_IDS"), ("2", ",", "DISCORD_SHARD_IDS"),
])
def test_bad_shard_settings_name_the_variable(count: str, ids: str, named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        config(DISCORD_SHARD_COUNT=count, DISCORD_SHARD_IDS=ids)


async def test_the_bot_runs_only_its_shards(tmp_path: Path) -> None:
    cfg = DiscordConfig.from_env({"DISCORD_TOKEN": "t", "DISCORD_SHARD_COUNT": "4", "DISCORD_SHARD_IDS": "2,3",
                                  "LIARS_DB": str(tmp_path / "liars.sqlite3")})
    bot = await discord_bot(cfg, sync_commands=False)
    try:
        assert bot.shard_count == 4 and bot.shard_ids == [2, 3]
    finally:
        await bot.service.close()
        await bot.http.close()  # never connected: nothing else to close


class _Drop:
    async def deliver(self, messages: Sequence[Message]) -> None:
        return None


def guild_on(shard: int) -> str:
    """A guild id on ``shard`` of 4: Discord puts a guild on shard ``(guild_id >> 22) % shard_count``."""
    return str((shard << 22) | 4321)


async def test_a_process_loads_and_times_only_its_own_shards_tables(tmp_path: Path) -> None:
    db = str(tmp_path / "liars.sqlite3")
    other = await build_service(_Drop(), db_path=db, platform="discord")  # a process running every shard
    for shard in range(4):
        key = TableKey("discord", guild_on(shard), f"c{shard}")
        assert (await other.handle(Command("start", key, Actor("u1", "Ann"), ()))).ok
    cfg = DiscordConfig.from_env({"DISCORD_TOKEN": "t", "DISCORD_SHARD_COUNT": "4", "DISCORD_SHARD_IDS": "2,3",
                                  "LIARS_DB": db})
    bot = await discord_bot(cfg, sync_commands=False)
    try:
        assert sorted(k.channel_id for k in bot.service.rt.tables) == ["c2", "c3"]
        for shard in (0, 3):  # opened elsewhere after this process started: only its own shard's is taken up
            key = TableKey("discord", guild_on(shard), f"later{shard}")
            assert (await other.handle(Command("start", key, Actor("u1", "Ann"), ()))).ok
        await bot.service.tick()
        assert sorted(k.channel_id for k in bot.service.rt.tables) == ["c2", "c3", "later3"]
        # a command for a table on another shard is still taken (any process may get any command)
        key = TableKey("discord", guild_on(0), "c0")
        assert (await bot.service.handle(Command("join", key, Actor("u2", "Bo"), ()))).ok
    finally:
        await bot.service.close()
        await bot.http.close()
        await other.close()
