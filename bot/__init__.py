"""The service: platform-neutral commands, tables, timers and reports over a store (no game rules)."""

__all__: list[str] = []  # import from the modules: bot.service, bot.bootstrap, bot.model, bot.ports
