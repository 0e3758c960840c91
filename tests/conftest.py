"""Suite-wide fixtures."""

from __future__ import annotations

import pytest

from tests.fakes.slack_server import PROXY_VARS


@pytest.fixture(autouse=True)
def _no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test talks to 127.0.0.1 only.  slack_sdk reads HTTP(S)_PROXY itself and ignores NO_PROXY,
    so a proxy setting in the environment would send loopback traffic through the proxy."""
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)
