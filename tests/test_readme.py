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


def test_the_readme_names_every_metric_the_bot_exports() -> None:
    from prometheus_client import REGISTRY

    import adapters.metrics  # noqa: F401 - registers the metrics

    ours = {family.name for family in REGISTRY.collect() if family.name.startswith("liars_")}
    assert len(ours) >= 12
    section = README.read_text(encoding="utf-8").split("## Metrics", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"`(liars_[a-z_]+?)(?:_total)?`", section))
    assert ours <= documented, ours - documented
