"""The gateway's own domain stores (API-key cache, challenges, quotas) in Redis and SQL."""
