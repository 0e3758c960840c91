"""The hard player's dials, trained by self-play per table (preset and size) with ``liars train``.
Generated: do not edit by hand.  Each entry: the dials, the training's figures (units per round
against the final pool and against the old ``reader``, rounds played, CPU seconds)."""

from typing import Any

TRAINED: dict[str, dict[str, Any]] = {
}
