"""Configuration from the environment, the ``liars slack`` command and the app manifest."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from adapters.slack.config import DEFAULT_API_URL, ConfigError, SlackConfig
from adapters.slack.oauth import SCOPES, authorize_url, oauth_settings
from adapters.stores import make_store
from bot import cli

HTTP = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s3cret"}
MANIFEST = Path(__file__).resolve().parents[3] / "adapters" / "slack" / "manifest.yml"


def test_http_mode_defaults() -> None:
    config = SlackConfig.from_env(HTTP)
    assert (config.socket_mode, config.api_url, config.port, config.path) == (False, DEFAULT_API_URL, 3000,
                                                                              "/slack/events")
    assert config.computer_delay == 1.5 and config.db_path is None


def test_a_client_id_and_secret_without_a_bot_token_serve_every_workspace_that_installs() -> None:
    config = SlackConfig.from_env({"SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "c", "SLACK_SIGNING_SECRET": "s",
                                   "SLACK_REDIRECT_URI": "https://x.example/slack/oauth_redirect"})
    assert config.distributed and config.bot_token is None and not config.socket_mode
    assert (config.client_id, config.client_secret, config.redirect_uri) == (
        "1.2", "c", "https://x.example/slack/oauth_redirect")
    assert not SlackConfig.from_env(HTTP).distributed
    # the authorize page sits beside the Web API: Slack's own, or a fake's
    assert authorize_url("https://slack.com/api/") == "https://slack.com/oauth/v2/authorize"
    assert authorize_url("http://127.0.0.1:5/api/") == "http://127.0.0.1:5/oauth/v2/authorize"


def test_an_app_token_selects_socket_mode_without_a_signing_secret() -> None:
    config = SlackConfig.from_env({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1-A-1-x"})
    assert config.socket_mode and config.signing_secret is None


def test_the_api_url_port_database_and_delay_come_from_the_environment() -> None:
    config = SlackConfig.from_env({**HTTP, "SLACK_API_URL": "http://127.0.0.1:9999/api", "PORT": "8080",
                                   "LIARS_DB": "/tmp/x.sqlite3", "LIARS_COMPUTER_DELAY": "0"})
    assert config.api_url == "http://127.0.0.1:9999/api/" and config.api_is_loopback
    assert (config.port, config.db_path, config.computer_delay) == (8080, "/tmp/x.sqlite3", 0.0)
    assert SlackConfig.from_env(HTTP, port=0, db_path="a.db").port == 0


@pytest.mark.parametrize(
    ("env", "names"),
    [
        ({}, "SLACK_BOT_TOKEN"),
        ({"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_SIGNING_SECRET"),
        ({"SLACK_BOT_TOKEN": "xapp-1"}, "SLACK_APP_TOKEN"),
        ({**HTTP, "SLACK_APP_TOKEN": "xoxb-2"}, "SLACK_APP_TOKEN"),
        ({**HTTP, "SLACK_API_URL": "slack.com/api"}, "SLACK_API_URL"),
        ({**HTTP, "SLACK_API_URL": "http://127.0.0.1:abc/api/"}, "SLACK_API_URL"),  # read when used: too late
        ({**HTTP, "SLACK_REDIRECT_URI": "https://liars.example:70000/slack/oauth_redirect"}, "SLACK_REDIRECT_URI"),
        ({**HTTP, "PORT": "web"}, "PORT"),
        ({**HTTP, "PORT": "70000"}, "PORT"),
        ({**HTTP, "SLACK_REDIRECT_URI": "liars.example/slack/oauth_redirect"}, "SLACK_REDIRECT_URI"),
        ({**HTTP, "LIARS_PICTURE_PROCESS": "false"}, "LIARS_PICTURE_PROCESS"),
        ({**HTTP, "LIARS_COMPUTER_DELAY": "-1"}, "LIARS_COMPUTER_DELAY"),
        ({**HTTP, "LIARS_METRICS_PORT": "70000"}, "LIARS_METRICS_PORT"),
        ({**HTTP, "LIARS_METRICS_PORT": "９０"}, "LIARS_METRICS_PORT"),  # (full-width digits: int() reads them)
        ({**HTTP, "SLACK_CLIENT_ID": "1.2"}, "not both"),
        ({"SLACK_CLIENT_ID": "1.2", "SLACK_SIGNING_SECRET": "s"}, "SLACK_CLIENT_SECRET is not set"),
        ({"SLACK_CLIENT_SECRET": "c", "SLACK_SIGNING_SECRET": "s"}, "SLACK_CLIENT_ID is not set"),
        ({"SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "c"}, "SLACK_SIGNING_SECRET"),
        ({"SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "c", "SLACK_APP_TOKEN": "xapp-1"}, "HTTP mode"),
    ],
)
def test_a_bad_setting_is_named(env: dict[str, str], names: str) -> None:
    with pytest.raises(ConfigError, match=names):
        SlackConfig.from_env(env)


def test_liars_slack_without_a_token_exits_2_with_the_reason(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET"):
        monkeypatch.delenv(name, raising=False)
    assert cli.main(["slack"]) == 2
    assert "SLACK_BOT_TOKEN is not set" in capsys.readouterr().err


def test_liars_slack_reads_its_log_level_from_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """``.env.example`` lists LIARS_LOG_LEVEL for every mode: `liars slack` reads it (it read only --log-level)."""
    monkeypatch.setenv("LIARS_LOG_LEVEL", "loud")
    assert cli.main(["slack"]) == 2
    assert "LIARS_LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL, not 'LOUD'" in capsys.readouterr().err
    monkeypatch.setenv("LIARS_LOG_LEVEL", "warning")  # read, then the missing token is the reason
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET"):
        monkeypatch.delenv(name, raising=False)
    assert cli.main(["slack"]) == 2
    assert "SLACK_BOT_TOKEN is not set" in capsys.readouterr().err


def test_liars_slack_prints_the_manifest(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["slack", "--manifest"]) == 0
    assert capsys.readouterr().out == MANIFEST.read_text(encoding="utf-8")


def _yaml(text: str) -> dict[str, Any]:
    """Enough YAML for the manifest: nested mappings, lists of scalars or mappings, quoted scalars."""
    root: dict[str, Any] = {}
    stack: list[tuple[int, Any]] = [(-1, root)]
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        body = line.strip()
        while stack[-1][0] >= indent and not (body.startswith("- ") and stack[-1][0] == indent
                                               and isinstance(stack[-1][1], list)):
            stack.pop()
        parent = stack[-1][1]
        if body.startswith("- "):
            item = body[2:]
            if re.match(r"[A-Za-z_][\w-]*:(\s|$)", item):
                entry: dict[str, Any] = {}
                parent.append(entry)
                stack.append((indent, parent))
                stack.append((indent + 1, entry))
                key, _, value = item.partition(":")
                entry[key.strip()] = _scalar(value)
            else:
                parent.append(_scalar(item))
            continue
        key, _, value = body.partition(":")
        if value.strip():
            parent[key.strip()] = _scalar(value)
        else:
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            child: Any = [] if nxt.startswith("- ") else {}
            parent[key.strip()] = child
            stack.append((indent, child))
    return root


def _scalar(value: str) -> Any:
    value = value.strip()
    if value in ("true", "false"):
        return value == "true"
    if re.fullmatch(r'"[^"]*"', value):
        return value[1:-1]
    return value


def test_the_manifest_creates_the_slash_command_interactivity_scopes_and_socket_mode_switch() -> None:
    manifest = _yaml(MANIFEST.read_text(encoding="utf-8"))
    [command] = manifest["features"]["slash_commands"]
    assert command["command"] == "/liars" and command["should_escape"] is True
    assert command["url"].endswith("/slack/events")
    assert manifest["settings"]["interactivity"] == {"is_enabled": True,
                                                     "request_url": command["url"]}
    assert set(manifest["oauth_config"]["scopes"]["bot"]) >= {"commands", "chat:write", "im:write", "users:read",
                                                              "files:write"}  # the pictures
    assert manifest["settings"]["event_subscriptions"] == {
        "request_url": command["url"], "bot_events": ["app_home_opened", "app_uninstalled", "tokens_revoked"]}
    # distribution: the redirect URL beside the events URL, the scopes the install link asks for
    assert manifest["oauth_config"]["redirect_urls"] == [command["url"].replace("/events", "/oauth_redirect")]
    assert set(manifest["oauth_config"]["scopes"]["bot"]) == set(SCOPES)
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True
    assert manifest["settings"]["socket_mode_enabled"] is False
    assert manifest["display_information"]["name"]


@pytest.mark.parametrize(("redirect", "path"), [("https://liars.example/slack/oauth/callback", "/slack/oauth/callback"),
                                                 ("https://liars.example", "/"),
                                                 (None, "/slack/oauth_redirect")])
def test_the_install_callback_is_served_at_the_redirect_urls_own_path(redirect: str | None, path: str,
                                                                    tmp_path: Path) -> None:
    """A SLACK_REDIRECT_URI whose path was not bolt's default sent every install back to a bare 404."""
    installs = make_store(str(tmp_path / "liars.sqlite3"))  # (not opened: the settings only keep it)
    settings = oauth_settings(client_id="1.2", client_secret="c", api_url=DEFAULT_API_URL, installs=installs,
                              redirect_uri=redirect)
    assert settings.redirect_uri_path == path and settings.redirect_uri == redirect


def test_a_port_out_of_range_is_named_as_it_was_given() -> None:
    """`liars slack --port 70000` was refused as "PORT must be …", a variable nobody set."""
    with pytest.raises(ConfigError, match=r"^--port must be 0 to 65535, not 70000"):
        SlackConfig.from_env(HTTP, port=70000)
    with pytest.raises(ConfigError, match=r"^PORT must be 0 to 65535, not 70000"):
        SlackConfig.from_env({**HTTP, "PORT": "70000"})


@pytest.mark.parametrize("command", [["play", "--humans", "0"], ["ledger"], ["slack"]])
def test_an_empty_db_is_refused_not_taken_as_the_default(command: list[str], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """`--db ""` was taken as not given: the table (and its pictures) went into ./liars.sqlite3 unsaid."""
    monkeypatch.chdir(tmp_path)
    assert cli.main([*command, "--db", ""]) == 2
    assert "--db needs a SQLite file or a postgresql:// URL" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
