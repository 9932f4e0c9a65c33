"""Learned bots (issue #35): labels from search, a small policy model, and its evaluation (ai/train/README.md)."""
