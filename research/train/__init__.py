"""Learned bots (docs/decisions/learned-bots.md): labels from search, a small policy model, and its evaluation
(research/train/README.md)."""
