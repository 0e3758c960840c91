"""PNG pictures of the count, the challenge and the charts: plain data in, PNG bytes out.

Rendered with matplotlib's Agg backend (no pyplot), with the DejaVu fonts matplotlib ships, so the same
data gives the same picture on every machine. Every function is safe to call from a worker thread
(``await asyncio.to_thread(render_count, data)``): renders are serialised by a lock and take tens of
milliseconds. Input shapes are documented in each module.
"""

from .challenge import card_face, render_challenge
from .charts import balance_series, render_balance_chart, render_nets_chart, render_rating_chart
from .count import render_count, result_line

__all__ = [
    "balance_series",
    "card_face",
    "render_balance_chart",
    "render_challenge",
    "render_count",
    "render_nets_chart",
    "render_rating_chart",
    "result_line",
]
