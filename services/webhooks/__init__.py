"""Signed webhooks: an account's HTTPS endpoints that receive its `your_turn`, `game_end`, `challenge` and
`match_found` events, delivered by `python -m services.webhooks` (docs/webhooks.md)."""
