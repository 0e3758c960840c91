"""core/ is pure: no I/O, no clocks, no event loop, no platform SDKs, no global random state."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "core"
FORBIDDEN = frozenset(
    {"asyncio", "discord", "slack_bolt", "slack_sdk", "sqlite3", "aiosqlite", "aiohttp", "os", "time", "socket"}
)
# random.Random / random.SystemRandom as types (or a seeded instance's class) are fine; module functions are not.
RANDOM_TYPES = frozenset({"Random", "SystemRandom"})


def violations(source: str, filename: str = "<core>") -> list[str]:
    """Every forbidden import, and every use of the global ``random`` module's functions."""
    found: list[str] = []
    random_aliases: set[str] = set()
    tree = ast.parse(source, filename)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                if root in FORBIDDEN:
                    found.append(f"{filename}:{node.lineno} import {alias.name}")
                if alias.name == "random":
                    random_aliases.add(alias.asname or "random")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            root = module.split(".")[0]
            if node.level == 0 and root in FORBIDDEN:
                found.append(f"{filename}:{node.lineno} from {module} import ...")
            if node.level == 0 and module == "random":
                found.extend(
                    f"{filename}:{node.lineno} from random import {a.name}"
                    for a in node.names
                    if a.name not in RANDOM_TYPES
                )
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__":
            found.append(f"{filename}:{node.lineno} __import__(...)")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in random_aliases:
            if node.attr not in RANDOM_TYPES:
                found.append(f"{filename}:{node.lineno} {node.value.id}.{node.attr}")
        elif isinstance(node, ast.Name) and node.id in random_aliases and not _is_attribute_base(tree, node):
            found.append(f"{filename}:{node.lineno} bare use of the random module")
    return found


def _is_attribute_base(tree: ast.AST, name: ast.Name) -> bool:
    return any(isinstance(n, ast.Attribute) and n.value is name for n in ast.walk(tree))


def core_files() -> list[Path]:
    return sorted(CORE.rglob("*.py"))


def test_core_has_modules_to_check() -> None:
    names = {p.name for p in core_files()}
    assert {"round.py", "bids.py", "scoring.py", "session.py", "serials.py"} <= names


@pytest.mark.parametrize("path", core_files(), ids=lambda p: str(p.relative_to(CORE)))
def test_core_module_is_pure(path: Path) -> None:
    assert violations(path.read_text(encoding="utf-8"), str(path.relative_to(CORE.parent))) == []


@pytest.mark.parametrize(
    "source",
    [
        "import asyncio",
        "import os.path",
        "from os import environ",
        "import time as clock",
        "from discord.ext import commands",
        "import slack_sdk",
        "from slack_bolt.async_app import AsyncApp",
        "import sqlite3",
        "import aiosqlite",
        "from aiohttp import web",
        "import socket",
        "import random\nrandom.randint(1, 6)",
        "import random\nx = random.choice([1, 2])",
        "import random as r\nr.shuffle([])",
        "from random import choice",
        "from random import Random, randrange",
        "import random\nf = random",
        "__import__('os')",
    ],
)
def test_the_checker_catches_impure_code(source: str) -> None:
    assert violations(source) != []


@pytest.mark.parametrize(
    "source",
    [
        "import random\ndef f(rng: random.Random) -> int:\n    return rng.randrange(3)",
        "from random import Random, SystemRandom",
        "import secrets\nsecrets.SystemRandom()",
        "from .rules import Rules",
        "import random\nx = random.SystemRandom()",
    ],
)
def test_the_checker_allows_pure_code(source: str) -> None:
    assert violations(source) == []


def test_importing_core_loads_no_event_loop_network_storage_or_platform_sdk() -> None:
    code = (
        "import sys, core, core.game, core.serial, core.serial.record, core.serial.odds, core.serial.players\n"
        "bad = {'asyncio', 'discord', 'slack_bolt', 'slack_sdk', 'sqlite3', 'aiosqlite', 'aiohttp', 'socket'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=CORE.parent)
    assert out.stdout.strip() == "[]"
