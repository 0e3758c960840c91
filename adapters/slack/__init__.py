"""Slack (slack-bolt): the /liars command, buttons, modals and the Home tab; DMs for what is private."""

__all__: list[str] = []  # import from the modules: adapters.slack.app (run), .config, .cli
