# ruff: noqa: E501
"""The hard player's dials, trained by self-play per table (preset and size) with ``liars train``.
Generated: do not edit by hand.  Each entry: the dials, the training's figures (units per round
against the final pool and against the old ``reader``, rounds played, CPU seconds)."""

from typing import Any

TRAINED: dict[str, dict[str, Any]] = {
    'classic/2': {'params': {'bid_floor': 0.0535, 'bid_ratio': 9.6349, 'raise_target': 2, 'open_target': 3, 'challenge_weight': 0.5405, 'noraise_weight': 0.0706, 'steep': 8.3105, 'raise_shift': 0.4511, 'raised_value': 0.5906, 'continue_value': 0.1161, 'rebid_value': 0.0, 'max_jump': 4, 'min_naive': 0.2158, 'bluff_rate': 0.1545, 'bluff_margin': 0.214, 'temperature': 0.0056, 'bluff_hold': 1, 'bluff_uniform': True}, 'pool': 0.0483, 'vs_reader': 0.0417, 'rounds': 93600, 'cpu_seconds': 37},
    'salomon/2': {'params': {'bid_floor': 0.0424, 'bid_ratio': 11.2533, 'raise_target': 2, 'open_target': 3, 'challenge_weight': 0.671, 'noraise_weight': 0.3279, 'steep': 6.7828, 'raise_shift': 0.508, 'raised_value': 0.3463, 'continue_value': -0.0068, 'rebid_value': 0.0, 'max_jump': 4, 'min_naive': 0.1322, 'bluff_rate': 0.268, 'bluff_margin': 0.6253, 'temperature': 0.0, 'bluff_hold': 1, 'bluff_uniform': True}, 'pool': 0.1318, 'vs_reader': -0.0158, 'rounds': 93600, 'cpu_seconds': 77},
}
