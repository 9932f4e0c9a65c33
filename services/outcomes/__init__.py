"""What follows a committed version, in one place: the outbox consumer (consumer.py, `python -m services.outcomes`)."""
