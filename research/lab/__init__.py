"""Paired games between bots and what is read from them: the game loop (`match`), tournaments and their ledgers,
the ladders and their one rating fit, rule and search variants (research/lab/README.md)."""
