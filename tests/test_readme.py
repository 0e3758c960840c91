"""The README's game-record example is a legal game (the format is a public interface)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from core.serial.record import replay

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_record_example_replays() -> None:
    block = re.search(r"```json\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert block is not None
    text = re.sub(r'\s*"commitment": "…sha256 hex…", "salt": "…hex…",', "", block.group(1))
    result = replay(json.loads(text))
    (only,) = result["rounds"]
    assert only["complete"] and only["final_bid"] == {"player": "mike", "quantity": 3, "digit": 8}
    assert sum(result["totals"].values()) == 0
