"""The research tools live apart from the service (issue #20): ``core.serial.solve`` (pure) and
``adapters.research`` (their command line and files) import nothing from ``bot``; ``bot`` imports
nothing from either, and reaches ``liars arena`` / ``liars exploit`` only by module path."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESEARCH = [ROOT / "core" / "serial" / "solve", ROOT / "adapters" / "research"]
RESEARCH_MODULES = ("core.serial.solve", "adapters.research")


def imported_modules(path: Path) -> list[str]:
    """Every module ``path`` imports, relative imports resolved against its package."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.append(module)
            found.extend(f"{module}.{alias.name}" for alias in node.names)
    return found


def _files(*dirs: Path) -> list[Path]:
    return sorted(p for d in dirs for p in d.rglob("*.py"))


def test_the_checker_resolves_relative_imports() -> None:
    mods = imported_modules(ROOT / "adapters" / "research" / "cli.py")
    assert "adapters.research.arena_cli" in mods


@pytest.mark.parametrize("path", _files(*RESEARCH), ids=lambda p: str(p.relative_to(ROOT)))
def test_research_imports_nothing_from_the_service_or_other_adapters(path: Path) -> None:
    bad = [
        m
        for m in imported_modules(path)
        if m.split(".")[0] == "bot" or (m.startswith("adapters") and not m.startswith("adapters.research"))
    ]
    assert bad == []


@pytest.mark.parametrize("path", _files(ROOT / "bot"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_service_imports_no_research_tool(path: Path) -> None:
    assert [m for m in imported_modules(path) if m.startswith(RESEARCH_MODULES)] == []


def test_bot_holds_no_research_module() -> None:
    names = {p.stem for p in _files(ROOT / "bot")}
    assert not names & {"arena", "cli_arena", "cli_exploit", "exploit", "cfr", "best_response"}
    assert not list((ROOT / "bot").glob("exploit/*.py"))


def _loaded(imports: str, prefixes: tuple[str, ...]) -> str:
    code = f"import sys\nimport {imports}\nprint(sorted(m for m in sys.modules if m.startswith({prefixes!r})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return out.stdout.strip()


def test_at_run_time_the_research_tools_load_no_service() -> None:
    imports = "adapters.research.cli, core.serial.solve.arena, core.serial.solve.cfr_full, core.serial.solve.tree"
    assert _loaded(imports, ("bot",)) == "[]"


def test_at_run_time_the_service_loads_no_research_tool() -> None:
    assert _loaded("bot.service, bot.runtime, bot.cli, bot.cli_play", RESEARCH_MODULES) == "[]"


EXPERT_DECISION = """
import random, sys
from core.serial import Round, deal_serial, make_rules, seat_view
from core.serial.players import get_strategy

for digits, length, rebid in ((4, 4, False), (2, 2, True)):  # it searches every hand class; it plays the table
    rules = make_rules("classic", digits=digits, serial_length=length, rebid=rebid)
    rng = random.Random(1)
    round_ = Round(rules, ("a", "b"), {p: deal_serial(rng, length, digits) for p in "ab"}, "a")
    expert = get_strategy("expert")
    round_.apply(expert.decide(seat_view(round_, "a"), rng))
    print(expert.explain(seat_view(round_, "b")).split(" (")[0])
print(sorted(m for m in sys.modules if m == "numpy" or m.startswith("core.serial.solve")))
"""


def test_an_expert_decision_in_a_small_format_loads_neither_numpy_nor_the_research_tools() -> None:
    """expert's exact belief (4×4 heads up: 35 hand classes) and the solved table it plays (2×2 with the rebid
    right) are pure Python: the bot's process that seats it loads no numpy for it."""
    out = subprocess.run(
        [sys.executable, "-c", EXPERT_DECISION], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.splitlines()
    assert out[0].startswith("I searched") and "solved" in out[1], out  # each path was taken
    assert out[-1] == "[]"
