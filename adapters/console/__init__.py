"""The local table in the terminal (liars play)."""

__all__: list[str] = []  # import from adapters.console.app
