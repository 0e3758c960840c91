"""The card game of Liar's Poker ("Thorin style", RULES.md §2): pure, synchronous, no I/O."""
