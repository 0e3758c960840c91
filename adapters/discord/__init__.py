"""Discord (discord.py): slash commands, buttons and forms; DMs for what is private."""

__all__: list[str] = []  # import from the modules: adapters.discord.bot (LiarsBot, run), .config, .cli
