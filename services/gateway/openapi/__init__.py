"""OpenAPI decoration: per-game action/view/event schemas, examples, the docs page."""
