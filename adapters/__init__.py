"""Adapters: each platform (discord, slack, console), the pictures, and the stores (sqlite, postgres)."""

__all__: list[str] = []  # import from the modules: adapters.stores and each package
