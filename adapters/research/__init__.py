"""The research tools' edge: ``liars odds``, ``liars arena`` and ``liars exploit`` (terminal in, files out).

The tools themselves are pure and live in :mod:`core.serial.solve` (solvers, best responses, the
arena loop); this package parses their command lines, reads the clock, prints, and writes the
generated data modules.  ``bot.cli`` reaches it only by module path (as it reaches the Discord and
Slack commands), so the service imports nothing of it, and nothing here imports ``bot``.
"""
