"""``liars discord`` itself: configuration from the environment and ``.env``, and the very same
process the Procfile runs, pointed at a fake Discord on 127.0.0.1 by DISCORD_API_BASE and
DISCORD_GATEWAY_URL."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import socket
import sys
from pathlib import Path

import aiohttp
import pytest

from adapters.discord.config import ConfigError, DiscordConfig, load_dotenv, read_dotenv
from adapters.pictures import worker
from tests.fakes.discord_server import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]


def test_config_from_env() -> None:
    config = DiscordConfig.from_env({
        "DISCORD_TOKEN": " Bot abc.def ", "DISCORD_GUILD_ID": "123", "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10/",
        "DISCORD_GATEWAY_URL": "ws://127.0.0.1:9/gateway", "LIARS_DB": "x.db", "LIARS_COMPUTER_DELAY": "0.5",
    })
    assert config == DiscordConfig(token="abc.def", guild_id=123, api_base="http://127.0.0.1:9/api/v10",
                                   gateway_url="ws://127.0.0.1:9/gateway", db_path="x.db", computer_delay=0.5)
    defaults = DiscordConfig.from_env({"DISCORD_TOKEN": "t", "DISCORD_GUILD_ID": "", "DISCORD_API_BASE": " "})
    assert defaults.guild_id is None and defaults.api_base is None and defaults.gateway_url is None
    assert defaults.computer_delay == 1.5


@pytest.mark.parametrize(
    ("env", "names"),
    [
        ({}, "DISCORD_TOKEN"),
        ({"DISCORD_GUILD_ID": "my server"}, "DISCORD_GUILD_ID"),
        ({"DISCORD_API_BASE": "discord.com/api"}, "DISCORD_API_BASE"),
        ({"DISCORD_GATEWAY_URL": "https://gateway.discord.gg"}, "DISCORD_GATEWAY_URL"),
        # a port that is no port: read only when used (a traceback, or "cannot reach Discord" after the database)
        ({"DISCORD_GATEWAY_URL": "ws://127.0.0.1:99999/"}, "DISCORD_GATEWAY_URL"),
        ({"DISCORD_GATEWAY_URL": "ws://127.0.0.1:abc/"}, "DISCORD_GATEWAY_URL"),
        ({"DISCORD_API_BASE": "http://127.0.0.1:99999/api/v10"}, "DISCORD_API_BASE"),
        ({"DISCORD_API_BASE": "http://:80/api/v10"}, "DISCORD_API_BASE"),
        ({"LIARS_COMPUTER_DELAY": "soon"}, "LIARS_COMPUTER_DELAY"),
        # digits str.isdigit takes and int() refuses: a traceback before
        ({"DISCORD_GUILD_ID": "²"}, "DISCORD_GUILD_ID"),
        ({"DISCORD_GUILD_ID": "0"}, "DISCORD_GUILD_ID"),  # no server's id
        ({"LIARS_COMPUTER_DELAY": "1_0"}, "LIARS_COMPUTER_DELAY"),  # Python's grouping: read as ten
        ({"LIARS_METRICS_PORT": "⁸⁰"}, "LIARS_METRICS_PORT"),
        ({"DISCORD_SHARD_COUNT": "²"}, "DISCORD_SHARD_COUNT"),
        ({"DISCORD_SHARD_COUNT": "2", "DISCORD_SHARD_IDS": "¹"}, "DISCORD_SHARD_IDS"),
        ({"LIARS_PICTURE_PROCESS": "off"}, "LIARS_PICTURE_PROCESS"),  # taken as "a process" before
        ({"LIARS_PICTURE_PROCESS": "2"}, "LIARS_PICTURE_PROCESS"),
        ({"LIARS_LOG_LEVEL": "bogus"}, "CRITICAL"),  # the refusal lists every level it takes
    ],
)
def test_config_errors_name_the_variable(env: dict[str, str], names: str) -> None:
    full = {"DISCORD_TOKEN": "t", **env} if names != "DISCORD_TOKEN" else env
    with pytest.raises(ConfigError, match=names):
        DiscordConfig.from_env(full)


def test_env_example_lists_every_variable_and_the_procfile_runs_the_worker() -> None:
    config_doc = (ROOT / "adapters/discord/config.py").read_text(encoding="utf-8")
    documented = set(re.findall(r"``([A-Z][A-Z_]+)``", config_doc))
    assert {"DISCORD_TOKEN", "DISCORD_GUILD_ID", "DISCORD_API_BASE", "DISCORD_GATEWAY_URL"} <= documented
    example = read_dotenv((ROOT / ".env.example").read_text(encoding="utf-8"))
    assert documented <= set(example), documented - set(example)
    assert example["DISCORD_GUILD_ID"] == "" and example["LIARS_COMPUTER_DELAY"] == "1.5"  # comments cut
    assert "worker: liars discord" in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines()


def test_dotenv_fills_in_without_overriding(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A line that is no setting is skipped, and said by its number (a YAML `DISCORD_TOKEN: abc` was skipped unsaid,
    then "DISCORD_TOKEN is not set"), its text not quoted."""
    env_file = tmp_path / ".env"
    env_file.write_text("# dev\nexport DISCORD_TOKEN='from file'\nDISCORD_GUILD_ID=42  # mine\nLIARS_DB=\"a #b\"\n"
                        "not a setting\nDISCORD_TOKEN: s3cret\n", encoding="utf-8")
    env = {"DISCORD_TOKEN": "from env", "LIARS_DB": ""}
    assert load_dotenv(env_file, env)
    assert env == {"DISCORD_TOKEN": "from env", "DISCORD_GUILD_ID": "42", "LIARS_DB": "a #b"}
    [said] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert said == f"{env_file}: lines 5, 6 are not NAME=value: skipped", said
    assert not load_dotenv(tmp_path / "missing.env", env)


def test_cli_without_a_token_says_what_to_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["discord"]) == 2
    assert "DISCORD_TOKEN is not set" in capsys.readouterr().err


def test_an_env_file_named_that_is_not_there_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """(session 37) `liars discord --env-file prod.envv` (a typo) skipped the file unsaid and started on a new, empty
    ledger in the working directory; ./.env by default is still skipped when absent."""
    from bot.cli import main

    monkeypatch.setenv("DISCORD_TOKEN", "abc")
    monkeypatch.chdir(tmp_path)
    typo = tmp_path / "prod.envv"
    assert main(["discord", "--env-file", str(typo)]) == 2
    assert capsys.readouterr().err == f"liars discord: {typo}: no such file (--env-file)\n"
    assert main(["discord", "--env-file", ""]) == 2  # (it read ./.env, or said ": no such file")
    assert capsys.readouterr().err == "liars discord: --env-file names no file\n"
    assert list(tmp_path.iterdir()) == []  # no database made


async def test_liars_discord_process_against_a_local_fake(tmp_path: Path) -> None:
    """The Procfile's worker, as a real subprocess: .env in its working directory, endpoints from the
    environment, a slash command answered, then a clean stop on SIGTERM."""
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Process Test")
        alice = fake.add_user("alice")
        fake.add_member(guild.id, alice.id)
        channel = guild.channel("general")
        (tmp_path / ".env").write_text(f"DISCORD_TOKEN={fake.token}\nDISCORD_GUILD_ID={guild.id}  # dev server\n",
                                       encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "LIARS_"))}
        env.update(DISCORD_API_BASE=fake.api_base, DISCORD_GATEWAY_URL=fake.gateway_url,
                   LIARS_DB=str(tmp_path / "liars.sqlite3"), LIARS_LOG_LEVEL="INFO", LIARS_METRICS_PORT="0",
                   LIARS_METRICS_HOST="127.0.0.1")
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "discord", cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        try:
            assert proc.stderr is not None
            early = ""  # the log up to the metrics' address (LIARS_METRICS_PORT=0: a free port)
            while not (served := re.search(r"serving metrics at (http://127\.0\.0\.1:\d+/metrics)", early)):
                line = (await asyncio.wait_for(proc.stderr.readline(), timeout=20)).decode()
                assert line, early
                early += line
            await fake.wait_for(lambda: fake.live_sessions and guild.id in fake.commands, timeout=20)
            assert None not in fake.commands  # DISCORD_GUILD_ID from .env: synced to that server only
            iid = await fake.send_slash(alice.id, guild.id, channel.id, "liars", "start", {})
            opened = await fake.wait_for(
                lambda: next((m for m in fake.interaction_responses(iid) if not m.loading), None), timeout=10)
            assert opened.ephemeral and "You opened a table" in opened.content
            await fake.wait_for_message(lambda m: m.channel_id == channel.id and "Liar's Poker" in m.content)
            wanted = ['liars_commands_total{command="start",outcome="ok"} 1.0',
                      'liars_requests_total{outcome="ok",platform="discord"} 1.0']  # counted as the answer goes
            async with aiohttp.ClientSession() as http:
                for _ in range(50):
                    async with http.get(served.group(1)) as resp:
                        assert resp.status == 200
                        scraped = await resp.text()
                    if all(w in scraped for w in wanted):
                        break
                    await asyncio.sleep(0.1)
            assert all(w in scraped for w in wanted), scraped
            proc.send_signal(signal.SIGTERM)
            _, stderr = await asyncio.wait_for(proc.communicate(), timeout=15)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        log = early + stderr.decode()
        assert proc.returncode == 0, log
        assert " ERROR " not in log and "Traceback" not in log, log
        assert "synced /liars to server" in log
        assert fake.identify_count == 1 and not fake.unknown_requests and not fake.internal_errors


def _closed_port() -> int:
    """A port nothing listens on."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        return int(closed.getsockname()[1])


def _unreachable_gateway(fake: FakeDiscord, port: int, tmp_path: Path) -> DiscordConfig:
    """The fake's API, and a gateway at ``port``, where nothing answers."""
    return DiscordConfig(token=fake.token, api_base=fake.api_base, gateway_url=f"ws://127.0.0.1:{port}/",
                         db_path=str(tmp_path / "liars.sqlite3"))


async def test_a_stop_while_the_gateway_cannot_be_reached_ends_the_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """SIGTERM while the gateway was down: the process logged "stopping" and went on retrying the gateway
    (discord.py's shard launcher ignores close()), until SIGKILL.  It now ends, cancelling the client."""
    from adapters.discord import bot

    monkeypatch.setattr(bot, "CLOSE_SECONDS", 0.5)
    port = _closed_port()
    async with FakeDiscord() as fake:
        config = _unreachable_gateway(fake, port, tmp_path)
        stop = asyncio.Event()
        running = asyncio.create_task(bot.run(config, sync_commands=False, stop=stop))
        await asyncio.sleep(1.0)  # it has tried the gateway (and failed) by now
        assert not running.done()
        stop.set()
        assert await asyncio.wait_for(running, timeout=20) == 0  # (it once took 30 s and more)
    assert worker._pool is None  # the picture worker stopped with it (as on Slack)
    assert "did not stop within 0 s of closing; cancelling it" in caplog.text


async def test_a_gateway_that_never_answers_ends_the_start_with_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A mistyped DISCORD_GATEWAY_URL (nothing answers there) was retried for good, an ERROR and a traceback every
    few seconds, the process up.  With no first READY within ``FIRST_CONNECT_SECONDS`` it now stops, exit 1,
    naming the setting."""
    from adapters.discord import bot

    monkeypatch.setattr(bot, "FIRST_CONNECT_SECONDS", 1.0)
    monkeypatch.setattr(bot, "CLOSE_SECONDS", 0.5)
    port = _closed_port()
    async with FakeDiscord() as fake:
        config = _unreachable_gateway(fake, port, tmp_path)
        code = await asyncio.wait_for(bot.run(config, sync_commands=False, stop=asyncio.Event()), timeout=30)
    assert code == 1
    said = [r.getMessage() for r in caplog.records if r.name == "adapters.discord.bot" and r.levelno >= logging.ERROR]
    assert said == [f"no answer from Discord's gateway within 1 s of starting (DISCORD_GATEWAY_URL "
                    f"ws://127.0.0.1:{port}/): stopping"], caplog.text


def test_a_dotenv_saved_with_a_byte_order_mark_keeps_its_first_setting(tmp_path: Path) -> None:
    """A .env saved as "UTF-8 with BOM" lost its first line ("DISCORD_TOKEN is not set"); a directory or a
    Latin-1 file was a traceback."""
    env_file = tmp_path / ".env"
    env_file.write_bytes("DISCORD_TOKEN=abc\nDISCORD_GUILD_ID=42\n".encode("utf-8-sig"))
    env: dict[str, str] = {}
    assert load_dotenv(env_file, env) and env == {"DISCORD_TOKEN": "abc", "DISCORD_GUILD_ID": "42"}
    latin = tmp_path / "latin.env"
    latin.write_bytes("DISCORD_TOKEN=caf\xe9\n".encode("latin-1"))
    for bad in (latin, tmp_path):
        with pytest.raises(ConfigError, match=r"cannot be read as a \.env file"):
            load_dotenv(bad, {})


def test_the_libraries_that_log_secrets_stay_at_info_under_debug() -> None:
    """At DEBUG the log held every deal's serials, salt and deck (aiosqlite's statements) and the DMs'
    bodies (discord.http)."""
    from adapters.config import SECRET_LOGGERS, configure_logging

    before = {name: logging.getLogger(name).level for name in ("", *SECRET_LOGGERS)}
    try:
        configure_logging("DEBUG")
        assert "discord.gateway" in SECRET_LOGGERS  # it logs every interaction's payload (a Discard's cards)
        assert "discord.webhook" in SECRET_LOGGERS  # and each interaction's token, in its callback's URL
        for name in SECRET_LOGGERS:
            assert not logging.getLogger(name).isEnabledFor(logging.DEBUG), name
            assert logging.getLogger(name).level == logging.INFO, name
        configure_logging("WARNING")
        assert all(logging.getLogger(name).level == logging.WARNING for name in SECRET_LOGGERS)
    finally:
        for name, level in before.items():
            logging.getLogger(name).setLevel(level)


@pytest.mark.parametrize("status", [403])  # (a 500 the same, once discord.py's five tries are spent: some 25 s)
async def test_an_api_answering_an_error_at_start_is_one_line(status: int, tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    """A DISCORD_API_BASE answering 403 (or 500) to the login ended in "the Discord connection failed" and a
    traceback (Forbidden, DiscordServerError)."""
    from aiohttp import web

    from adapters.discord.bot import run

    async def refuse(_: web.Request) -> web.Response:
        return web.json_response({"message": "down", "code": 0}, status=status)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", refuse)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        port = runner.addresses[0][1]
        config = DiscordConfig(token="x" * 59, api_base=f"http://127.0.0.1:{port}/api/v10",
                               gateway_url="ws://127.0.0.1:9", db_path=str(tmp_path / "liars.sqlite3"))
        assert await asyncio.wait_for(run(config, stop=asyncio.Event()), timeout=30) == 1
    finally:
        await runner.cleanup()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is None, caplog.text
    assert f"Discord answered HTTP {status} " in errors[0].getMessage() and "down" in caplog.text, caplog.text


@pytest.mark.parametrize("case", ["metrics port taken", "unknown guild"])
async def test_a_start_up_failure_is_one_line_naming_the_setting(case: str, tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """A taken LIARS_METRICS_PORT, or a DISCORD_GUILD_ID the bot is not in, ended in a traceback."""
    from adapters.discord.bot import run

    async with FakeDiscord() as fake:
        guild = fake.add_guild("G")
        with socket.socket() as busy:
            busy.bind(("127.0.0.1", 0))
            busy.listen()
            taken = case == "metrics port taken"
            config = DiscordConfig(token=fake.token, api_base=fake.api_base, gateway_url=fake.gateway_url,
                                   db_path=str(tmp_path / "liars.sqlite3"),
                                   guild_id=guild.id if taken else 123456789012345678,
                                   metrics_port=busy.getsockname()[1] if taken else None, metrics_host="127.0.0.1")
            assert await asyncio.wait_for(run(config, stop=asyncio.Event()), timeout=30) == 1
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is None, caplog.text
    said = errors[0].getMessage()
    assert ("LIARS_METRICS_PORT" in said) if taken else ("DISCORD_GUILD_ID 123456789012345678" in said), said
